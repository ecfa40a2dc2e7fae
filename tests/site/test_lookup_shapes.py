"""A diagnosis holds on the shapes people paste a traceback in, not only Python's own: a notebook
(IPython 8's `File ~/x.py:480, in Class.method(...)`, Colab's IPython 7 `x.py in method(...)` with
`--> 480` marking the failing line), pytest (`x.py:480: in method`, and its default long entries whose
location follows the source), Windows paths, Python 3.13's colours, a logger's prefix on every line.
What the lookup reads of each shape (frames, their functions and failing lines) must be what it reads
of the plain traceback, so that evidence in a frame confirms the same entry whatever printed it.

tests/site/pastes.py prints one traceback in every shape; tests/site/test_lookup_js.py holds the
page's script to the same reading."""

from __future__ import annotations

import pytest

from errorkb.lookup import INSTALLED, frames, normalize
from tests.site.pastes import NOTEBOOK_LINKS, SHAPES, shaped

SITE = "/venv/lib/python3.11/site-packages"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "snippets/demo/before.py", line 17, in <module>\n'
    "    out = model.generate(**inputs, past_key_values=cache)\n"
    '  File "transformers/generation/utils.py", line 2564, in generate\n'
    "    result = self._sample(\n"
    '  File "transformers/cache_utils.py", line 480, in update\n'
    "    self.keys.index_copy_(2, cache_position, key_states)\n"
    "RuntimeError: index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
    "shape: 1 2 16 at dimension 2 and source slice shape: 2 2 16 at dimension 0.\n"
)


def read(text: str) -> list[tuple[str, int, str, str]]:
    """The library's frames as the lookup reads them: path below site-packages, line, the function's own
    name (a notebook prints `Class.method`; the lookup compares the last part), failing line."""
    return [
        (frame.path.split("-packages/", 1)[-1], frame.line, frame.function.rsplit(".", 1)[-1], frame.code)
        for frame in frames(normalize(text))
        if "-packages/" in frame.path
    ]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_shows_the_library_frames_python_prints(shape):
    expected = [
        ("transformers/generation/utils.py", 2564, "generate", "result = self._sample("),
        ("transformers/cache_utils.py", 480, "update", "self.keys.index_copy_(2, cache_position, key_states)"),
    ]
    assert read(shaped(TRACEBACK, "python")) == expected  # the shapes' reference
    assert read(shaped(TRACEBACK, shape)) == expected


def test_a_pytest_long_entry_is_the_frame_its_location_line_closes():
    """In pytest's long entries the location comes after the source: the frame's function is the `def`
    its source starts with, its failing line the one marked `>`, and it belongs to the exception below it."""
    text = shaped(TRACEBACK, "pytest-long")
    found = frames(normalize(text))
    assert [frame.function for frame in found] == ["module", "generate", "update"]
    assert found[-1].code == "self.keys.index_copy_(2, cache_position, key_states)"
    assert found[-1].at < normalize(text).index("RuntimeError: index_copy_") < text.index(":480: RuntimeError")


@pytest.mark.parametrize("paste, expected", NOTEBOOK_LINKS)
def test_a_notebooks_links_read_as_the_notebook_printed_them(paste, expected):
    """A traceback copied from a notebook's rendered output (Colab, VS Code, Jupyter Lab) keeps the links the
    notebook drew as Markdown, `[~/x.py:563](https://...)`: each reads as its text, so the frame keeps its
    function and failing line (before: Colab's frames were not frames at all, VS Code's lost their function,
    and Jupyter Lab's took the link's address for the failing line). Brackets that are no link stay."""
    found = [(frame.path.split("-packages/", 1)[-1], frame.line, frame.function, frame.code)
             for frame in frames(normalize(paste))]
    assert found == expected
    assert "](" not in normalize(paste) or "[0](x)" in paste

def test_lines_that_only_look_like_frames_are_not_frames():
    """A warning (`x.py:12: FutureWarning: ...`), a linter's `x.py:12:5: E501`, prose mentioning a file:
    none is a frame."""
    text = (
        "/venv/lib/python3.11/site-packages/transformers/cache_utils.py:480: FutureWarning: `x` is deprecated\n"
        "transformers/cache_utils.py:12:5: E501 line too long\n"
        "I edited transformers/cache_utils.py in my fork, then:\n"
        "the setup.py in the repo fails\n"
    )
    assert frames(normalize(text)) == []


def graded(lookup, text: str, release: str | None) -> tuple[tuple[str, str], ...]:
    answer = lookup.answer(text, release, INSTALLED) if release else lookup.answer(text)
    return tuple((m.known.id, m.grade.value) for m in answer.matches)


@pytest.fixture(scope="module")
def cases():
    """The lookup, every entry's verified before, and the plain traceback's graded answers for each of them
    (as installed and as pasted without a release): the reference every shape is compared with, graded
    once for the module rather than again for each of the 16 shapes (tuples: no test can change them)."""
    from benchmarks.lookup_recall import ROOT, project_known_lookup
    from errorkb.core.project import load_project
    from errorkb.site.hookindex import diagnosis_cases

    found = diagnosis_cases(load_project(ROOT))
    if not found:
        pytest.skip("no standing report with captured tracebacks (reports/latest.json)")
    lookup = project_known_lookup()
    plain = tuple(tuple((release, graded(lookup, shaped(case.text, "python"), release))
                        for release in (case.release, None)) for case in found)
    return lookup, found, plain


@pytest.mark.upstream
@pytest.mark.parametrize("shape", sorted(set(SHAPES) - {"python"}))
def test_every_entrys_verified_before_is_answered_alike_in_every_shape(cases, shape):
    """Each entry's own verified before (its captured traceback), as installed and as pasted without a
    release: in every shape the confirmed answers are the plain traceback's, and so are the candidates."""
    lookup, found, plains = cases
    differ = []
    for case, answers in zip(found, plains, strict=True):
        for release, plain in answers:
            if (case.entry, "confirmed") not in plain[:1]:
                differ.append((case.entry, release, "python", plain))
            other = graded(lookup, shaped(case.text, shape), release)
            if [m for m in other if m[1] == "confirmed"] != [m for m in plain if m[1] == "confirmed"] and \
                    not cut_by_rich(case.text, shape):
                differ.append((case.entry, release, shape, other))
    assert differ == [], differ[:5]


def cut_by_rich(traceback: str, shape: str) -> bool:
    """rich cuts a source line longer than its box (a narrow terminal): the failing line it shows is the
    start of Python's, and what the rest held is not in the paste. The frames are otherwise the same."""
    plain, other = read(shaped(traceback, "python")), read(shaped(traceback, shape))
    return shape.startswith("rich") and len(plain) == len(other) and any(
        a[:3] == b[:3] and a[3] != b[3] and a[3].startswith(b[3]) for a, b in zip(plain, other)) and all(
        a[:3] == b[:3] and a[3].startswith(b[3]) for a, b in zip(plain, other))


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_traceback_rich_prints_for_a_real_exception_reads_as_python_prints_it(tmp_path, width):
    """rich itself (`Console.print_exception()`, as `rich.traceback.install()` prints an uncaught error) on a
    real exception raised in files below a `site-packages` folder: the frame lines it folds at the box's
    edge or wraps at a space read whole, each with the line rich marks `❱`."""
    import io
    import traceback

    from rich.console import Console

    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "transformers" / "generation"
    site.mkdir(parents=True)
    (site.parent / "cache_utils.py").write_text("\n" * 479 + "def update(cache, position, key_states):\n"
                                                "    cache.keys.index_copy_(2, position, key_states)\n")
    (site / "utils.py").write_text("\n" * 2562 + "def generate(cache, update):\n    result = update(\n"
                                   "        cache, 0, 1)\n")
    loaded = {}
    for path in (site.parent / "cache_utils.py", site / "utils.py"):
        exec(compile(path.read_text(), str(path), "exec"), loaded.setdefault(path.name, {}))
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    try:
        loaded["utils.py"]["generate"](None, loaded["cache_utils.py"]["update"])
    except AttributeError:
        plain = traceback.format_exc()
        console.print_exception()
    printed = console.file.getvalue()
    assert "╭" in printed and "❱" in printed  # rich's own shape, not a copy of it
    expected = [("transformers/generation/utils.py", 2564, "generate", "result = update("),
                ("transformers/cache_utils.py", 481, "update", "cache.keys.index_copy_(2, position, key_states)")]
    assert read(plain) == expected
    assert read(printed) == expected
    assert normalize(printed).count("Traceback (most recent call last):") == 1


STATED_BY_A_FOLDER = [
    'File "/home/u/transformers-4.30.0/src/transformers/cache_utils.py", line 480, in update',
    "/home/u/envs/transformers-4.30.0/lib/python3.11/site-packages/transformers/cache_utils.py:480 in update",
    "$ cd ~/transformers-4.30.0\n$ python run.py",
    "(base) $ conda activate transformers-4.30.0",
    "python -m venv transformers-4.30.0",
    "Successfully uninstalled transformers-4.30.0",
    # a frame line a terminal broke right after the folder's name, the rest on the next line
    '  File "/home/u/transformers-4.30.0\n/src/transformers/cache_utils.py", line 480, in update',
    '  File "/home/u/venvs/transformers-4.30.0\n  /lib/python3.11/site-packages/transformers/x.py", line 3, in f',
]


@pytest.mark.parametrize("paste", STATED_BY_A_FOLDER)
def test_a_folder_or_an_environment_named_like_a_release_is_not_a_stated_release(paste):
    """Only what says which release is installed counts as stated (pip's `Successfully installed ...
    transformers-4.41.2`, `pip show`, `transformers==4.41.2`); a folder, a virtual environment or a conda
    environment named `transformers-4.30.0` says nothing of it, wherever a terminal broke the line."""
    from errorkb.lookup import stated_release

    text = paste + "\nAttributeError: 'DynamicCache' object has no attribute 'get_max_length'"
    assert stated_release(normalize(text), "transformers") is None
    assert stated_release(normalize(text + "\nSuccessfully installed accelerate-1.2.0 transformers-4.41.2"),
                          "transformers") == "4.41.2"


def test_a_frame_line_broken_twice_or_without_its_spaces_reads_whole():
    """A path longer than twice the width breaks twice; a web form's wrap takes the space it breaks at."""
    path = "/home/me/" + "very_long_folder_name/" * 8 + "site-packages/transformers/cache_utils.py"
    line = f'  File "{path}", line 480, in update'
    broken = "\n".join(line[at:at + 60] for at in range(0, len(line), 60))
    assert [(f.path, f.line, f.function) for f in frames(normalize(broken))] == [(path, 480, "update")]
    web = f'  File "{path}",\nline\n480,\nin\nupdate\n    cache.update()'
    assert [(f.path, f.line, f.function, f.code) for f in frames(normalize(web))] == [
        (path, 480, "update", "cache.update()")]


def test_a_complete_frame_line_is_never_joined_with_the_next():
    """A frame Python prints without `, in name` (a SyntaxError's), a cut paste's `File "x"`, a frame
    whose next line is the exception: each stays as printed, the next line its code or the exception."""
    syntax = '  File "/home/me/proj/x.py", line 3\n    x = (\n        ^\nSyntaxError: \'(\' was never closed'
    assert [(f.path, f.line, f.code) for f in frames(normalize(syntax))] == [("/home/me/proj/x.py", 3, "x = (")]
    cut = 'Traceback (most recent call last):\n  File "x"\nValueError: first line 1\nsecond line 2'
    assert normalize(cut) == cut
    bare = '  File "/home/me/venv/lib/python3.11/site-packages/transformers/cache_utils.py", line 480, in update\n' \
           "KeyboardInterrupt"
    assert normalize(bare) == bare.strip()

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
from tests.site.pastes import SHAPES, shaped

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


@pytest.fixture(scope="module")
def cases():
    from benchmarks.lookup_recall import ROOT, project_known_lookup
    from errorkb.core.project import load_project
    from errorkb.site.hookindex import diagnosis_cases

    found = diagnosis_cases(load_project(ROOT))
    if not found:
        pytest.skip("no standing report with captured tracebacks (reports/latest.json)")
    return project_known_lookup(), found


@pytest.mark.upstream
@pytest.mark.parametrize("shape", sorted(set(SHAPES) - {"python"}))
def test_every_entrys_verified_before_is_answered_alike_in_every_shape(cases, shape):
    """Each entry's own verified before (its captured traceback), as installed and as pasted without a
    release: in every shape the confirmed answers are the plain traceback's, and so are the candidates."""
    lookup, found = cases
    differ = []

    def graded(text: str, release: str | None) -> list[tuple[str, str]]:
        answer = lookup.answer(text, release, INSTALLED) if release else lookup.answer(text)
        return [(m.known.id, m.grade.value) for m in answer.matches]

    for case in found:
        for release in (case.release, None):
            plain = graded(shaped(case.text, "python"), release)
            if (case.entry, "confirmed") not in plain[:1]:
                differ.append((case.entry, release, "python", plain))
            other = graded(shaped(case.text, shape), release)
            if [m for m in other if m[1] == "confirmed"] != [m for m in plain if m[1] == "confirmed"]:
                differ.append((case.entry, release, shape, other))
    assert differ == [], differ[:5]

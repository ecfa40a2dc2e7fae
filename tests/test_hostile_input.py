"""Hostile entries (issue 13): the loader stays bounded, reads nothing outside the repository,
refuses reserved and degenerate input with one located problem each, and the CLI prints
located output and entry text as they are, without emoji codes, markup or control characters.

Entries arrive as pull requests from strangers: every case here is something such a pull
request could hold."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.load import (
    MAX_CHARS,
    MAX_CHARS_BY_KEY,
    MAX_FILE_BYTES,
    MAX_ITEMS,
    MAX_SNIPPET_BYTES,
    load_project_entries,
)
from errorkb.core.project import load_project
from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project

ENTRY_FILE = "docs/errors/transformers/demo-error.yml"
ENTRY = VALID_ENTRY.format(id="demo-error")


def problems_of(root: Path, entry: str = ENTRY, **files) -> list[str]:
    if "entries" not in files:
        files["entries"] = {"demo-error.yml": entry}
    make_project(root, **files)
    return [str(p) for p in load_project_entries(load_project(root)).problems]


def load_in_child(root: Path, seconds: float = 30, memory: int = 2 << 30) -> subprocess.CompletedProcess:
    """Load the project's entries in a child process with a memory cap and a time limit, so a
    loader that blows up fails this test instead of the machine (it is shared)."""
    code = ("import sys; from errorkb.core.load import load_project_entries; "
            "from errorkb.core.project import load_project; from pathlib import Path; "
            "r = load_project_entries(load_project(Path(sys.argv[1]))); "
            "print('\\n'.join(map(str, r.problems))); print('entries:', len(r.entries))")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True,
                          timeout=seconds, preexec_fn=cap)


# -- bounded: aliases, nesting, sizes -----------------------------------------------------------

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_an_alias_bomb_is_one_located_problem_in_well_under_a_second(tmp_path):
    assert len(BILLION_LAUGHS) < 700
    make_project(tmp_path, entries={"demo-error.yml": ENTRY + BILLION_LAUGHS})
    started = time.monotonic()
    result = load_in_child(tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - started < 10
    line = ENTRY.count("\n") + 2  # the first alias, on the line of `b:`
    col = BILLION_LAUGHS.splitlines()[1].index("*") + 1
    assert result.stdout.splitlines()[0].startswith(f"{ENTRY_FILE}:{line}:{col}: YAML aliases (*a) are not allowed")
    assert len(result.stdout.splitlines()) == 2  # that problem, then "entries: 0"


def test_an_alias_used_for_a_real_field_is_refused_too(tmp_path):
    text = ENTRY.replace("meaning: What it means.", "meaning: &m What it means.").replace(
        "trigger: When it happens.", "trigger: *m")
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and ":13:10: YAML aliases (*m) are not allowed" in problems[0], problems


def test_deep_nesting_is_a_located_problem_not_a_recursion_error(tmp_path):
    text = ENTRY + "notes: " + "[" * 999 + "]" * 999 + "\n"
    problems = problems_of(tmp_path, text)
    line = ENTRY.count("\n") + 1
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{ENTRY_FILE}:{line}:")
    assert "nested deeper than" in problems[0]


def test_an_oversize_file_is_refused_before_it_is_parsed(tmp_path):
    text = ENTRY + "# " + "x" * MAX_FILE_BYTES + "\n"
    problems = problems_of(tmp_path, text)
    assert problems == [f"{ENTRY_FILE}:1:1: entry file is {len(text.encode()):,} bytes; "
                        f"the limit is {MAX_FILE_BYTES:,}"]


def line_of(text: str, prefix: str) -> int:
    return next(n for n, content in enumerate(text.splitlines(), 1) if content.startswith(prefix))


@pytest.mark.parametrize("key, limit", [("meaning", MAX_CHARS), ("notes", MAX_CHARS_BY_KEY["notes"]),
                                        ("title", MAX_CHARS_BY_KEY["title"])])
def test_an_oversize_field_names_file_line_and_limit_and_the_entry_is_not_published(tmp_path, key, limit):
    long = "word " * (limit // 5 + 1)
    if key == "notes":
        text = ENTRY + f"notes: {long}\n"
    else:
        old = next(line for line in ENTRY.splitlines() if line.startswith(f"{key}:"))
        text = ENTRY.replace(old, f"{key}: {long}")
    make_project(tmp_path, entries={"demo-error.yml": text})
    result = load_project_entries(load_project(tmp_path))
    problems = [str(p) for p in result.problems]
    assert problems == [f"{ENTRY_FILE}:{line_of(text, key + ':')}:{len(key) + 3}: {key}: "
                        f"{len(long.strip()):,} characters; the limit is {limit:,}"]
    assert result.entries == []


def test_long_notes_within_their_own_limit_load(tmp_path):
    """Notes longer than any other field's limit load, written as paragraphs (one paragraph has
    its own, smaller bound: errorkb.core.prose)."""
    paragraph = "  " + "word " * 1_000 + "\n"
    notes = "\n".join([paragraph] * (MAX_CHARS // len(paragraph) + 2))
    assert len(notes) > MAX_CHARS
    assert problems_of(tmp_path, ENTRY + "notes: |\n" + notes) == []


def test_an_oversize_list_is_a_located_problem(tmp_path):
    items = "".join(f"  - Situation {n}.\n" for n in range(MAX_ITEMS + 1))
    text = ENTRY.replace("situations:\n  - A situation.\n", "situations:\n" + items)
    problems = problems_of(tmp_path, text)
    line = line_of(text, "  - Situation 0.")
    assert problems == [f"{ENTRY_FILE}:{line}:3: situations: {MAX_ITEMS + 1} items; the limit is {MAX_ITEMS}"]


def test_one_hostile_entry_among_good_ones_leaves_them_loaded_quickly(tmp_path):
    good = {f"good-{n}.yml": VALID_ENTRY.format(id=f"good-{n}") for n in range(3)}
    bad = {"bomb.yml": VALID_ENTRY.format(id="bomb") + BILLION_LAUGHS,
           "deep.yml": VALID_ENTRY.format(id="deep") + "notes: " + "[" * 999 + "]" * 999 + "\n"}
    make_project(tmp_path, entries={**good, **bad})
    started = time.monotonic()
    result = load_in_child(tmp_path)
    assert time.monotonic() - started < 10
    assert "entries: 3" in result.stdout, result.stdout + result.stderr[-2000:]


def test_a_fifo_named_like_an_entry_does_not_hang_the_loader(tmp_path):
    make_project(tmp_path)
    os.mkfifo(tmp_path / "docs" / "errors" / "transformers" / "pipe.yml")
    result = load_in_child(tmp_path, seconds=20)
    assert "docs/errors/transformers/pipe.yml:1:1: not a regular file" in result.stdout


def test_an_entry_swapped_for_a_fifo_after_its_stat_does_not_hang_the_loader(tmp_path, monkeypatch):
    """The loader looks at the file, then reads it: a FIFO put there in between (a checkout being
    rewritten under `mkdocs serve`) blocked the read forever. Simulated: the stat reports a plain file."""
    import stat
    import threading

    from errorkb.core.load import load_entry_file
    from errorkb.core.project import load_project

    make_project(tmp_path)
    pipe = tmp_path / "docs" / "errors" / "transformers" / "pipe.yml"
    os.mkfifo(pipe)
    plain = os.stat(tmp_path / "pyproject.toml")
    real_stat = Path.stat

    def swapped(self, *args, **kwargs):
        return plain if self == pipe else real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", swapped)
    assert stat.S_ISREG(pipe.stat().st_mode)
    answer: list = []
    reader = threading.Thread(target=lambda: answer.append(load_entry_file(pipe, load_project(tmp_path))), daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # free the blocked reader before failing
        with open(pipe, "wb"):
            pass
        pytest.fail("the loader blocked on a FIFO")
    entry, problems = answer[0]
    assert entry is None and [str(one) for one in problems] == [
        "docs/errors/transformers/pipe.yml:1:1: not a regular file; an entry must be a plain YAML file"]


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "link-out", "oversize"])
def test_lookup_and_show_in_a_checkout_read_only_what_the_loader_reads(tmp_path, kind):
    """In a checkout with its own index, `errorkb lookup` and `show` digest the entry files to tell
    whether the index is current: they read every `*.yml` under the entries folder whole, so a
    FIFO named like an entry hung them for good, a link to /dev/zero filled the memory, and a
    folder named like one made them give up the index. They read what the loader reads."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("timeout = 60", 'timeout = 60\nindex = "kbi/index.json"'),
                         encoding="utf-8")
    (tmp_path / "kbi").mkdir()
    (tmp_path / "kbi" / "index.json").write_text("{}", encoding="utf-8")
    odd = tmp_path / "docs" / "errors" / "transformers" / "odd.yml"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "device":
        odd.symlink_to("/dev/zero")
    elif kind == "folder":
        odd.mkdir()
    elif kind == "link-out":
        (tmp_path / "secret.yml").write_text("id: secret\n", encoding="utf-8")
        odd.symlink_to(tmp_path / "secret.yml")
    else:
        with odd.open("wb") as handle:
            handle.truncate(MAX_FILE_BYTES + 1)
    from errorkb.site.hookindex import entry_files

    assert entry_files(load_project(tmp_path)) == [tmp_path / ENTRY_FILE]
    code = "import sys; from errorkb.cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", code, "--root", str(tmp_path), "lookup", "ValueError: x"],
                            capture_output=True, text=True, timeout=60, preexec_fn=lambda: resource.setrlimit(
                                resource.RLIMIT_AS, (2 << 30, 2 << 30)))
    assert "cannot use" not in result.stderr and "Traceback" not in result.stderr, result.stderr[-2000:]


# -- nothing outside the repository -----------------------------------------------------------

@pytest.mark.parametrize("path", ["/etc/passwd", "/proc/self/environ", "../../../../etc/passwd",
                                  "src/transformers/../../../secret.py", "src/transformers/./x.py",
                                  "src//transformers/x.py", "C:/x.py", "src/transformers/a b.py",
                                  "src/transformers/cache_utils.py) <img src=x onerror=alert(1)> (",
                                  "src/transformers/`x`.py", "~/x.py", "src/transformers/"])
def test_source_path_must_be_a_plain_relative_path(tmp_path, path):
    text = ENTRY.replace("path: src/transformers/cache_utils.py", f"path: {path!r}".replace("'", '"'))
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and problems[0].startswith(f"{ENTRY_FILE}:9:9: source.path: "), problems


def test_a_snippet_symlinked_outside_its_folder_is_a_located_problem(tmp_path):
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOKEN=hunter2\n")
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    before = root / "snippets" / "demo-error" / "before.py"
    before.unlink()
    before.symlink_to(secret)
    result = load_project_entries(load_project(root))
    assert [str(p) for p in result.problems] == [
        f"{ENTRY_FILE}:1:1: snippet file snippets/demo-error/before.py resolves outside "
        "snippets/demo-error/; a snippet must be a file inside its entry's folder"]
    assert result.entries == []  # nothing downstream (site, verifier, pytest plugin) ever opens it


def test_a_snippet_folder_symlinked_outside_is_a_located_problem(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, code in {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER}.items():
        (outside / name).write_text(code)
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root, snippets={})
    (root / "snippets").mkdir()
    (root / "snippets" / "demo-error").symlink_to(outside, target_is_directory=True)
    problems = [str(p) for p in load_project_entries(load_project(root)).problems]
    assert len(problems) == 3 and all("resolves outside snippets/demo-error/" in p for p in problems), problems


def test_a_symlink_between_snippets_of_one_entry_is_fine(tmp_path):
    make_project(tmp_path)
    guard = tmp_path / "snippets" / "demo-error" / "guard.py"
    guard.unlink()
    guard.symlink_to("after.py")
    assert [str(p) for p in load_project_entries(load_project(tmp_path)).problems] == []


def test_an_entry_file_symlinked_outside_the_entries_folder_is_not_read(tmp_path):
    outside = tmp_path / "outside.yml"
    outside.write_text(VALID_ENTRY.format(id="linked"))
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    (root / "docs" / "errors" / "transformers" / "linked.yml").symlink_to(outside)
    result = load_project_entries(load_project(root))
    assert [str(p) for p in result.problems] == [
        "docs/errors/transformers/linked.yml:1:1: resolves outside docs/errors; "
        "an entry must be a file inside the entries folder"]
    assert [one.entry.id for one in result.entries] == ["demo-error"]


def fake_release(root: Path, release: str, files: dict[str, bytes | None]) -> Path:
    """A version-matrix environment of transformers==`release` holding `files` (None: a folder)."""
    package = root / ".errorkb-cache" / "matrix" / f"transformers-{release}" / "lib" / "python3.11" / \
        "site-packages" / "transformers"
    package.mkdir(parents=True)
    for name, content in files.items():
        if content is None:
            (package / name).mkdir()
        else:
            (package / name).write_bytes(content)
    return package


def test_the_source_reader_refuses_paths_leading_out_of_the_package(tmp_path):
    from errorkb.source.upstream import source_file

    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    package = fake_release(root, "9.9.9", {"cache_utils.py": b"x = 1\n"})
    (tmp_path / "secret.py").write_text("TOKEN = 'hunter2'\n")
    (package / "linked.py").symlink_to(tmp_path / "secret.py")
    project = load_project(root)
    assert source_file(project, "9.9.9", "src/transformers/cache_utils.py") == \
        package / "cache_utils.py"
    for hostile in ["/etc/passwd", "/proc/self/environ", "src/transformers/../../../../../../secret.py",
                    "../secret.py", "src/transformers/linked.py", "src/transformers/*.py"]:
        assert source_file(project, "9.9.9", hostile) is None, hostile
    # the installed release too (transformers 5.15.1 is the pinned one)
    for hostile in ["/etc/passwd", "src/transformers/../../../../../../../etc/passwd"]:
        assert source_file(project, "5.15.1", hostile) is None, hostile


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary\x00", "caf\xe9 = 1\n".encode("latin-1"),
                                     b"def broken(:\n", None])
def test_drift_never_tracebacks_on_an_unreadable_source(tmp_path, capsys, content):
    text = ENTRY.replace("line: 1471", "line: 1\n  release: 9.9.9").replace(
        "src/transformers/cache_utils.py", "src/transformers/odd.py")
    make_project(tmp_path, entries={"demo-error.yml": text})
    fake_release(tmp_path, "9.9.9", {"odd.py": content})
    assert main(["--root", str(tmp_path), "check", "--drift"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert f"{ENTRY_FILE}:10:9: " in captured.err
    assert "binary" not in captured.err and "broken" not in captured.err and "caf" not in captured.err


# -- reserved and degenerate input ------------------------------------------------------------

def test_reserved_ids_come_from_the_paths_the_site_generates():
    from errorkb.site import render
    from errorkb.site.files import reserved_ids

    assert {"index", "by-exception", "by-api"} <= reserved_ids()
    generated = [render.ERRORS_INDEX, render.BY_EXCEPTION, render.BY_API, render.INDEX_JSON]
    assert {Path(path).stem for path in generated} <= reserved_ids()


@pytest.mark.parametrize("entry_id", ["index", "by-exception", "by-api"])
def test_an_id_that_collides_with_a_site_path_is_a_located_problem(tmp_path, capsys, entry_id):
    make_project(tmp_path, entries={f"{entry_id}.yml": VALID_ENTRY.format(id=entry_id)})
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert f"docs/errors/transformers/{entry_id}.yml:1:5: id '{entry_id}' is reserved" in err


def test_a_broken_entry_is_reported_once_not_by_every_entry_linking_to_it(tmp_path):
    broken = VALID_ENTRY.format(id="broken-one").replace("trigger: When it happens.", "trigger: [unclosed")
    linking = {f"links-{n}.yml": VALID_ENTRY.format(id=f"links-{n}").replace("related: []", "related: [broken-one]")
               for n in range(3)}
    problems = problems_of(tmp_path, entries={"broken-one.yml": broken, **linking})
    assert len(problems) == 1 and problems[0].startswith("docs/errors/transformers/broken-one.yml:14:"), problems


def test_a_related_id_with_no_file_at_all_is_still_reported(tmp_path):
    text = ENTRY.replace("related: []", "related: [nowhere-at-all]")
    assert problems_of(tmp_path, text) == [f"{ENTRY_FILE}:26:11: related id 'nowhere-at-all' does not match any entry"]


# -- located output, printed as it is ---------------------------------------------------------

def test_check_prints_line_100_as_digits_not_an_emoji(tmp_path, capsys):
    text = ENTRY + "".join(f"# filler {n}\n" for n in range(100 - ENTRY.count("\n") - 1)) + "'[b]x[/b]': 1\n"
    make_project(tmp_path, entries={"demo-error.yml": text})
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert f"{ENTRY_FILE}:100:1: unknown key '[b]x[/b]'" in err, err
    assert "\N{HUNDRED POINTS SYMBOL}" not in err


HOSTILE_TITLE = "Clears the screen\x1b[2J\x1b]0;pwned\x07 and\r beeps\x07\x1b[31m red\x9b1m"


def test_lookup_prints_a_published_index_without_control_characters(tmp_path, capsys):
    """Entries refuse control characters (below); an index file is read as it is, and printed clean."""
    make_project(tmp_path)
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"schema": 1, "library": {"name": "transformers"}, "entries": [
        {"id": "demo-error", "title": HOSTILE_TITLE, "exception": "ValueError", "function": "Cache.early_initialization",
         "url": "errors/transformers/demo-error/",
         "message": "`head_dim` was provided as a list of length {n}, but the Cache currently has {m} layers"}]}))
    message = "`head_dim` was provided as a list of length 3, but the Cache currently has 12 layers"
    assert main(["--root", str(tmp_path), "lookup", "--index", str(index), message]) == 0
    out = capsys.readouterr().out
    assert "Clears the screen" in out and "beeps" in out and "red" in out
    assert not any(ch in out for ch in "\x1b\x07\r\x9b"), repr(out)


TERMINAL_ATTACKS = ("\x9b2J (C1 CSI) \x9d0;t\x9c (C1 OSC) \x1b]8;;https://evil.example\x07label\x1b]8;;\x07 "
                    "\x1b]52;c;ZXZpbA==\x07 (clipboard) rtl\u202eevil ##[error]x \u200b")


def test_lookup_json_carries_an_index_s_escapes_as_data_never_as_characters_a_terminal_obeys(tmp_path, capsys):
    """`errorkb lookup --json` is read on terminals and in CI logs too: JSON escapes the C0 controls, but a C1
    control (U+009B is CSI, U+009D OSC to a terminal that takes 8-bit controls), a bidi override and a
    `##[` workflow command went out as themselves. Every JSON the CLI prints is written by one function
    (`print_json`), as ASCII: the same data, nothing a terminal or a CI log obeys."""
    make_project(tmp_path)
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"schema": 1, "library": {"name": "transformers"}, "entries": [
        {"id": "demo-error", "title": TERMINAL_ATTACKS, "exception": "ValueError",
         "function": "Cache.early_initialization", "url": "errors/transformers/demo-error/",
         "message": "`head_dim` was provided as a list of length {n}, but the Cache currently has {m} layers"}]}))
    message = "`head_dim` was provided as a list of length 3, but the Cache currently has 12 layers"
    assert main(["--root", str(tmp_path), "lookup", "--json", "--index", str(index), message]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["confirmed"][0]["title"] == TERMINAL_ATTACKS  # the data, whole
    assert out.isascii() and "##" not in out and not any(ord(ch) < 32 and ch != "\n" for ch in out), repr(out)


def test_the_terminal_helper_keeps_text_and_drops_control_sequences():
    from errorkb.cli import terminal_text

    # (a carriage return would let the text after it overwrite the line: it becomes a newline)
    assert terminal_text(HOSTILE_TITLE) == "Clears the screen and\n beeps red"
    assert terminal_text("a\tb\nc :100: [b]") == "a\tb\nc :100: [b]"
    assert terminal_text("rtl\u202eevil\u2066x") == "rtlevilx"
    assert terminal_text("link \x1bP+q\x1b\\ dcs \x1b]8;;https://evil.example\x07label") == "link  dcs label"


def test_every_terminal_view_uses_one_definition_of_control_sequences():
    """The CLI, `show`'s entry view and the paste reader strip the same sequences (one owner:
    `errorkb.core.logsafe`), so an escape one of them misses cannot reach a terminal by another."""
    from errorkb.author.paste import clean as paste_clean
    from errorkb.cli import terminal_text
    from errorkb.core.logsafe import strip_controls
    from errorkb.site.terminal import clean as view_clean

    for text in (HOSTILE_TITLE, "a\x1bP1$r\x1b\\b", "x\u200by\ufeffz", "osc \x9d0;t\x9c end"):
        assert terminal_text(text) == view_clean(text) == paste_clean(text) == strip_controls(text)


def test_check_strips_control_characters_from_problems(tmp_path, capsys):
    text = ENTRY + '"\\e[2Jkey\\a": 1\n'
    make_project(tmp_path, entries={"demo-error.yml": text})
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert "unknown key '\\x1b[2Jkey\\x07'" in err and "\x1b" not in err and "\x07" not in err  # shown, not obeyed


@pytest.mark.parametrize("message", ['"{msg}"', '" "', '"{a}: {b}"', '"Error {x}"'])
def test_a_message_that_would_match_any_paste_is_a_located_problem(tmp_path, message):
    old = next(line for line in ENTRY.splitlines() if line.startswith("message:"))
    problems = problems_of(tmp_path, ENTRY.replace(old, f"message: {message}"))
    assert len(problems) == 1 and problems[0].startswith(f"{ENTRY_FILE}:5:10: message: message too generic"), problems
    assert "(at least 8 needed)" in problems[0]


# -- every exception while building a document is a located problem (issue 23) ------------------

@pytest.mark.parametrize("old, new, where", [
    ("title: A documented error", "title: 2001-13-45", "2:8"),
    ("meaning: What it means.", "meaning: 2001-02-30 10:00:00", "12:10"),
    ("line: 1471", "line: " + "7" * 4301, "10:9"),
    ("meaning: What it means.", 'meaning: !!int "0b"', "12:10"),
    ("meaning: What it means.", 'meaning: !!float "x"', "12:10"),
    ("  - A situation.", "  - !!timestamp 2001-99-01", "15:5"),
])
def test_a_value_the_yaml_constructor_cannot_build_is_a_located_problem(tmp_path, capsys, old, new, where):
    text = ENTRY.replace(old, new)
    assert text != ENTRY
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and problems[0].startswith(f"{ENTRY_FILE}:{where}: "), problems
    assert "cannot be read" in problems[0] and "quote it" in problems[0]
    assert main(["--root", str(tmp_path), "check"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert f"{ENTRY_FILE}:{where}: " in captured.err


# -- what entry prose may hold: structures whose rendering cost grows faster than their size -----

@pytest.mark.parametrize("unit", ["[", "![", "[*", "[a]("])
def test_twenty_thousand_brackets_are_refused_by_check_with_a_located_problem(tmp_path, capsys, unit):
    from errorkb.core.prose import MAX_BRACKETS

    text = ENTRY.replace("meaning: What it means.", "meaning: '" + unit * (20_000 // len(unit)) + "'")
    assert len(text) - len(ENTRY) < MAX_CHARS
    make_project(tmp_path, entries={"demo-error.yml": text})
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    count = unit.count("[") * (20_000 // len(unit))
    assert f"{ENTRY_FILE}:12:10: meaning: {count:,} '[' (links, images, brackets); " \
           f"the limit is {MAX_BRACKETS:,} in one text" in err, err
    assert load_project_entries(load_project(tmp_path)).entries == []


@pytest.mark.parametrize("nested", ["- " * 1000 + "x", "* " * 1000 + "x", "1. " * 700 + "x", "> " * 1000 + "x",
                                    "- > " * 500 + "x", "".join("  " * depth + "- x\n" for depth in range(60))])
def test_nested_list_markers_are_refused_by_check_with_a_located_problem(tmp_path, capsys, nested):
    from errorkb.core.prose import MAX_NESTING

    text = ENTRY.replace("meaning: What it means.", "meaning: " + json.dumps(nested))
    make_project(tmp_path, entries={"demo-error.yml": text})
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert f"{ENTRY_FILE}:12:10: meaning: lists or quotes nested " in err, err
    assert f"levels deep; the limit is {MAX_NESTING}" in err
    assert "RecursionError" not in err and "Traceback" not in err


def test_deep_indentation_inside_a_fence_is_code_not_nesting(tmp_path):
    code = "".join("    " * depth + "x = 1\n" for depth in range(30))
    text = ENTRY.replace("meaning: What it means.", "meaning: " + json.dumps("```python\n" + code + "```\n"))
    assert problems_of(tmp_path, text) == []


def test_prose_within_the_limits_of_a_real_entry_loads(tmp_path):
    prose = "See [the docs](https://example.org/a) and ![a figure](figure.png).\n\n- a\n  - b\n    - c\n\n> quoted\n"
    text = ENTRY.replace("meaning: What it means.", "meaning: " + json.dumps(prose))
    assert problems_of(tmp_path, text) == []


# -- titles and every other string: no control characters, no bidi overrides ---------------------

@pytest.mark.parametrize("bad", ["\u202e", "\u2066", "\u200f", "\x1b[2J", "\x07", "\x85", "\x9b", "\x00", "\r", "\n"])
def test_a_title_with_a_control_or_bidi_character_is_a_located_problem(tmp_path, bad):
    text = ENTRY.replace("title: A documented error", f"title: {json.dumps('Evil ' + bad + 'title')}")
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and problems[0].startswith(f"{ENTRY_FILE}:2:8: title: "), problems
    assert f"U+{ord(bad[0]):04X}" in problems[0]


@pytest.mark.parametrize("field, old", [("meaning", "meaning: What it means."),
                                        ("solutions[0].title", "  - title: A solution"),
                                        ("guards[0].title", "  - title: A guard")])
@pytest.mark.parametrize("bad", ["\u202e", "\x1b", "\x9d"])
def test_control_and_bidi_characters_are_refused_in_any_text(tmp_path, field, old, bad):
    key, _, value = old.partition(": ")
    text = ENTRY.replace(old, f"{key}: {json.dumps(value + bad + 'x')}")
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and f": {field}: " in problems[0] and f"U+{ord(bad):04X}" in problems[0], problems


@pytest.mark.parametrize("field, old", [("title", "title: A documented error"), ("meaning", "meaning: What it means."),
                                        ("situations[0]", "  - A situation."),
                                        ("solutions[0].title", "  - title: A solution"),
                                        ("guards[0].title", "  - title: A guard")])
@pytest.mark.parametrize("blank", [" ", "\u00a0", "\u3000\u2003", "\u2800"],
                         ids=["space", "no-break space", "ideographic and em spaces", "braille blank"])
def test_text_a_reader_must_see_that_shows_nothing_is_a_located_problem(tmp_path, field, old, blank):
    """A title of spaces was a blank `<title>`, a blank nav item and an empty link on every list (the
    entry unreachable but by its address); blank prose a section with nothing in it, published as written."""
    key = old.partition(": ")[0] if ": " in old else "  -"
    text = ENTRY.replace(old, f"{key}{':' if ': ' in old else ''} {json.dumps(blank)}")
    assert text != ENTRY
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and f": {field}: " in problems[0] and "shows nothing" in problems[0], problems


def test_prose_of_tabs_and_line_breaks_only_shows_nothing_too(tmp_path):
    problems = problems_of(tmp_path, ENTRY.replace("meaning: What it means.", 'meaning: "\\t\\n \\n"'))
    assert len(problems) == 1 and ": meaning: " in problems[0] and "shows nothing" in problems[0], problems


@pytest.mark.parametrize("old, new", [("  - A situation.", "\t- A situation."),
                                      ("    strategy: validation", "  \tstrategy: validation")],
                         ids=["as indentation", "inside indentation"])
def test_a_tab_yaml_refuses_is_named_with_what_to_do(tmp_path, old, new):
    """An editor's tab, where YAML takes spaces only, was 'found character that cannot start any token' at its
    line: the character was not named (libyaml's words drop it), and nothing said what to do."""
    problems = problems_of(tmp_path, ENTRY.replace(old, new))
    line = line_of(ENTRY, old)
    assert len(problems) == 1 and f"demo-error.yml:{line}:" in problems[0], problems
    assert "a tab" in problems[0] and "spaces" in problems[0], problems


@pytest.mark.parametrize("tag", ["!foo", "!!python/name:os.system", "!<tag:example.com,2000:x>"])
def test_a_tag_no_entry_value_has_is_located_with_what_to_do(tmp_path, tag):
    """'could not determine a constructor for the tag' said where, not what to do."""
    problems = problems_of(tmp_path, ENTRY.replace("title: A documented error", f"title: {tag} A documented error"))
    assert len(problems) == 1 and f"demo-error.yml:{line_of(ENTRY, 'title:')}:" in problems[0], problems
    assert "remove the tag" in problems[0], problems


def test_tabs_and_newlines_in_prose_are_fine(tmp_path):
    text = ENTRY.replace("meaning: What it means.", 'meaning: "What\\tit\\nmeans."')
    assert problems_of(tmp_path, text) == []


# -- an entry's page stays in its folder ---------------------------------------------------------

@pytest.mark.parametrize("library", ["x/..", "x/.", "../x", "./x", "x/...", "huggingface/.."])
def test_a_library_that_would_place_the_page_outside_its_folder_is_refused(tmp_path, library):
    text = VALID_ENTRY.format(id="threat-model").replace("library: huggingface/transformers", f"library: {library}")
    make_project(tmp_path, entries={"threat-model.yml": text})
    result = load_project_entries(load_project(tmp_path))
    assert result.entries == []
    assert any(str(p).startswith("docs/errors/transformers/threat-model.yml:3:10: library: ") for p in result.problems)


def test_no_entry_page_path_leaves_its_folder():
    """Defence in depth: an entry built past the model (model_copy validates nothing) still gets
    a page inside errors/<its library's folder>/, or none."""
    import posixpath

    import yaml

    from errorkb.core.entry import Entry
    from errorkb.site.render import page_path

    entry = Entry.model_validate(yaml.safe_load(VALID_ENTRY.format(id="threat-model")))
    refused = 0
    for library in ["x/..", "x/.", "x/...", "a/b", "a/.hidden", "a/x..y", "a/UPPER"]:
        try:
            path = page_path(entry.model_copy(update={"library": library}))
        except ValueError:
            refused += 1
            continue
        parts = path.split("/")
        assert posixpath.normpath(path) == path and len(parts) == 3 and parts[0] == "errors", path
        assert parts[1].strip(".") and parts[2] == "threat-model.md", path
    assert refused == 3


# -- release ranges: plain comparisons only ------------------------------------------------------

@pytest.mark.parametrize("claim", ["===<svg/onload=alert`1`>", "===<details/open/ontoggle=alert`1`>", "===5.0", ">=4.49 || ===x", "==4.49 ; python_version",
                                   "<5.0 <a href=x>", ">=4.49, <details open>"])
def test_a_release_range_that_is_not_plain_comparisons_is_refused(tmp_path, claim):
    text = ENTRY + f"releases:\n  raises: {json.dumps(claim)}\n"
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and ": releases.raises: " in problems[0], problems


@pytest.mark.parametrize("claim", [">=4.49,<5.0", "<4.44 || >=5.0", "==4.49.*", "!=4.50", "~=4.49", ">= 4.49, < 5"])
def test_plain_release_ranges_still_load(tmp_path, claim):
    assert problems_of(tmp_path, ENTRY + f"releases:\n  raises: {json.dumps(claim)}\n") == []


# -- the render budget: check renders every page as the site would, in a child process -----------

def burning_project(root: Path, marker: str) -> Path:
    """A project whose site renders with a test extension that misbehaves on `marker` (tests/site/burn.py)."""
    text = ENTRY.replace("trigger: When it happens.", f"trigger: When it happens, {marker}.")
    make_project(root, entries={"demo-error.yml": text, "other-error.yml": VALID_ENTRY.format(id="other-error")})
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - tests.site.burn\n")
    return root


@pytest.mark.parametrize("marker, what", [
    ("BURN-PYTHON", "took more than 1 s of CPU time to render"),
    ("BURN-C", "in code the budget's timer cannot stop"),
    ("RAISE-HERE", "raised ValueError while rendering: the extension gave up"),
    ("RECURSE-HERE", "nests too deeply to render (RecursionError)"),
])
def test_check_renders_every_page_within_a_budget_and_locates_what_blows_it(tmp_path, capsys, monkeypatch,
                                                                              marker, what):
    from errorkb.site import budget

    monkeypatch.setattr(budget, "CPU_SECONDS", 1.0)
    # The child imports tests.site.burn as an installed module: on its path (it never imports from the folder it
    # runs in, `core/interpreter.py`).
    repository = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [repository, os.environ.get("PYTHONPATH")])))
    burning_project(tmp_path, marker)
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if marker == "BURN-C":  # the kernel ends the child inside the page: no part can be tried alone
        # (the whole page: 1 s and its share for its size, `budget.allowance`)
        assert f"{ENTRY_FILE}:1:1: this entry's page took more than 1.1 s of CPU time" in err, err
    else:
        assert f"{ENTRY_FILE}:13:10: trigger: this text {what}; simplify its Markdown" in err, err
    problems = [line for line in err.splitlines() if ": warning: " not in line]  # (the two entries are twins)
    assert "other-error" not in "\n".join(problems)  # the page after it had a child of its own, and rendered


def test_a_page_that_lists_every_entry_gets_time_in_proportion_to_its_size(monkeypatch):
    """The pages that list every entry grow with the knowledge base (the verification page at 1,000
    entries is megabytes of Markdown and took more than the flat budget): a page may take the budget
    plus a share proportional to its size, and a page that costs more than its size gets no more."""
    from errorkb.site import budget

    monkeypatch.setattr(budget, "CPU_SECONDS", 0.05)
    rows = "\n".join(f"| [entry-{i:04d}](../errors/entry-{i:04d}/) | passed | 5.15.1 | cpu |" for i in range(6000))
    page = "| entry | outcome | release | device |\n|---|---|---|---|\n" + rows
    convert = budget.converter()
    assert budget.within_budget(lambda: convert(page)) == "took more than 0.05 s of CPU time to render"
    assert budget.allowance(page) == round(0.05 + len(page) / budget.CHARS_PER_SECOND, 1) > 5
    assert budget.within_budget(lambda: convert(page), budget.allowance(page)) is None

    def forever() -> None:
        while True:
            pass

    small = "x" * 5000
    assert budget.within_budget(forever, budget.allowance(small)) == "took more than 0.2 s of CPU time to render"


def test_the_budget_is_cpu_time_in_this_process_too():
    from errorkb.site.budget import within_budget

    def forever() -> None:
        while True:
            pass

    assert within_budget(forever, 0.2) == "took more than 0.2 s of CPU time to render"
    assert within_budget(lambda: None, 0.2) is None
    assert within_budget(lambda: 1 / 0, 0.2) == "raised ZeroDivisionError while rendering: division by zero"


# -- mkdocs serve keeps every other page up through them ----------------------------------------

from tests.site.test_serve import ENTRY_URL, fetch, wait_for  # noqa: E402
from tests.site.test_serve import served as served  # noqa: E402 - the fixture, used by name


def test_serve_keeps_every_other_page_up_through_brackets_nesting_a_bad_value_and_a_fifo(request, project):
    """20,000 `[`, nested list markers, `title: 2001-13-45` and a FIFO, saved while `mkdocs serve`
    runs: each entry's address shows its located problem, and every other page stays up and
    keeps rebuilding."""
    base, log = request.getfixturevalue("served")
    folder = project / "docs/errors/transformers"
    good = (folder / "num-heads-list-length.yml").read_text()

    def variant(entry_id: str, meaning: str) -> str:
        text = good.replace("id: num-heads-list-length", f"id: {entry_id}")
        return re.sub(r"(?m)^meaning: \|\n(?:(?:  .*)?\n)*", lambda _: f"meaning: {json.dumps(meaning)}\n", text, count=1)

    (folder / "brackets.yml").write_text(variant("brackets", "[" * 20_000))
    (folder / "nested.yml").write_text(variant("nested", "- " * 1000 + "x"))
    (folder / "bad-date.yml").write_text(variant("bad-date", "x").replace('title: "', "title: 2001-13-45\nx-title: \"", 1))
    os.mkfifo(folder / "pipe.yml")
    for where in ["brackets.yml", "nested.yml", "bad-date.yml", "pipe.yml"]:
        wait_for(lambda where=where: f"transformers/{where}:" in log.read_text(), f"{where}'s problem in the log",
                 timeout=120)
    text = log.read_text()
    assert "'[' (links, images, brackets)" in text and "lists or quotes nested" in text
    assert "cannot be read as a date" in text and "not a regular file" in text
    assert "Traceback" not in text and "RecursionError" not in text
    for broken in ["brackets", "nested"]:
        page = wait_for(lambda broken=broken: fetch(base + f"errors/transformers/{broken}/"), f"{broken}'s page")
        assert "This entry does not load" in page
    assert "What it means" in (fetch(base + ENTRY_URL) or "")
    assert "Errors by API" in (fetch(base + "errors/by-api/") or "")
    yaml_path = folder / "head-dim-list-length.yml"
    yaml_path.write_text(yaml_path.read_text().replace('title: "`head_dim` list', 'title: "STILL-LIVE `head_dim` list'))
    wait_for(lambda: "STILL-LIVE" in (fetch(base + ENTRY_URL) or ""), "the next edit to show", timeout=120)


# -- the terminal: no link whose label says one address and whose target is another --------------

OSC8 = re.compile(r"\x1b\]8;[^;\x1b\x07]*;(?P<target>[^\x1b\x07]*)(?:\x1b\\|\x07)(?P<label>.*?)\x1b\]8;;(?:\x1b\\|\x07)",
                  re.S)


def test_show_on_a_terminal_prints_no_link_whose_label_is_not_its_target(tmp_path, monkeypatch, capsys):
    import errorkb.cli as cli
    from errorkb.cli import _plain_console

    prose = "Install it from [pytorch.org](https://evil.example/payload) or <https://pytorch.org/get>."
    text = ENTRY.replace("meaning: What it means.", f"meaning: {json.dumps(prose)}")
    make_project(tmp_path, entries={"demo-error.yml": text})
    plain_console = type(_plain_console(stderr=False))  # the CLI's own console class, on a true-colour terminal
    monkeypatch.setattr(cli, "out", plain_console(force_terminal=True, color_system="truecolor", width=120,
                                                  highlight=False, emoji=False))
    assert main(["--root", str(tmp_path), "show", "demo-error"]) == 0
    shown = capsys.readouterr().out
    assert "pytorch.org" in shown and "https://evil.example/payload" in shown  # the target is shown, as text
    for link in OSC8.finditer(shown):
        label = re.sub(r"\x1b\[[0-9;]*m", "", link["label"])
        assert label == link["target"], (label, link["target"])


def test_check_says_when_the_sites_markdown_settings_cannot_be_read(tmp_path, capsys):
    make_project(tmp_path)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - no.such.extension\n")
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    assert "mkdocs.yml:1:1: cannot read the site's Markdown settings" in err and "Traceback" not in err


def test_a_paragraph_longer_than_its_limit_is_refused_and_split_ones_load(tmp_path):
    from errorkb.core.prose import MAX_PARAGRAPH

    wall = "`|` " * (MAX_PARAGRAPH // 4 + 10)
    text = ENTRY + f"notes: {json.dumps(wall)}\n"
    problems = problems_of(tmp_path, text)
    assert len(problems) == 1 and ": notes: a paragraph of " in problems[0], problems
    assert f"the limit is {MAX_PARAGRAPH:,}" in problems[0]
    half = "`|` " * (MAX_PARAGRAPH // 8)
    (tmp_path / "split").mkdir()
    assert problems_of(tmp_path / "split", ENTRY + f"notes: {json.dumps(half + chr(10) * 2 + half)}\n") == []


# -- pastes built against the readers of rich's box and of broken frame lines (errorkb/lookup/_rules.py) --
PASTE_SHAPES_GUARD = """
import json, sys, time
from errorkb.lookup import Known, Lookup, frames, normalize, stated_release
M = 1 << 20
families = {
    "spaces then a box edge": "x" + " " * M + "│\\n",
    "box edges and spaces": ("│" + " " * 50) * (M // 51),
    "a box line never closed": "│ " + "a" * M,
    "folded box lines": ("│ " + "a" * 60 + " │\\n") * (M // 65),
    "wrapped box lines": ("│ " + "a" * 30 + " " * 30 + "│\\n") * (M // 65),
    "a top edge with no title": "╭" + "─" * M,
    "a bottom edge then one long message": "╰" + "─" * 80 + "╯\\n" + "word " * (M // 5),
    "bottom edges, no blank line": ("╰──╯\\n" + "w " * 20 + "\\n") * (M // 46),
    "an unclosed frame path": '  File "' + "a" * M,
    "frame lines broken everywhere": ('  File "/a/b.py",\\nline\\n' + "1" * 20 + ",\\n") * (M // 40),
    "frame lines and name rests": ('  File "/a/b.py", line 1, in f\\n  g\\n') * (M // 33),
    "rich frame-like lines": ("a.py:1 in " + "b" * 60 + " c\\n") * (M // 72),
    "arrows with guides": ("❱ 1 " + "│ " * 200 + "\\n") * (M // 405),
    "pip words without the library": "Successfully installed " + "a-1.0 " * (M // 6),
}
times = {}
for name, text in families.items():
    start = time.perf_counter()
    clean = normalize(text)
    frames(clean)
    stated_release(clean, "transformers")
    Lookup([Known.from_index({"id": "x", "title": "x", "exception": "ValueError", "message": "m {a} n"})]).answer(text)
    times[name] = round(time.perf_counter() - start, 2)
print(json.dumps(times))
"""


def test_pastes_built_against_the_box_and_broken_line_readers_finish_at_one_megabyte():
    """A hang guard, not a timing assertion: each new reading rule (rich's box, a frame line broken at a
    width, pip's `Successfully installed` line) on 1 MB built to make a regular expression backtrack."""
    try:
        result = subprocess.run([sys.executable, "-c", PASTE_SHAPES_GUARD], capture_output=True, text=True,
                                timeout=60, cwd=str(Path(__file__).resolve().parents[1]))
    except subprocess.TimeoutExpired:
        pytest.fail("a hostile paste of 1 MB kept the paste reader busy for over 60 s")
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(json.loads(result.stdout)) == 14


# -- files that are not what they seem: loops, folders, encodings, merge keys (each one located) ----

def test_a_symlink_loop_named_like_an_entry_is_a_located_problem_not_a_traceback(tmp_path, capsys):
    make_project(tmp_path)
    (tmp_path / "docs" / "errors" / "transformers" / "loop.yml").symlink_to("loop.yml")
    (tmp_path / "docs" / "errors" / "transformers" / "pair.yml").symlink_to("mate.yml")
    (tmp_path / "docs" / "errors" / "transformers" / "mate.yml").symlink_to("pair.yml")
    result = load_project_entries(load_project(tmp_path))
    assert [one.entry.id for one in result.entries] == ["demo-error"]
    found = [str(p) for p in result.problems]
    for name in ("loop", "mate", "pair"):
        assert any(p.startswith(f"docs/errors/transformers/{name}.yml:1:1: ") and "symlink" in p for p in found), found
    assert main(["--root", str(tmp_path), "check"]) == 1
    assert "docs/errors/transformers/loop.yml:1:1: " in capsys.readouterr().err


def test_a_snippet_that_is_a_symlink_loop_is_a_located_problem_not_a_traceback(tmp_path):
    make_project(tmp_path)
    before = tmp_path / "snippets" / "demo-error" / "before.py"
    before.unlink()
    before.symlink_to("before.py")
    result = load_project_entries(load_project(tmp_path))
    found = [str(p) for p in result.problems]
    assert found and all(p.startswith(ENTRY_FILE) or p.startswith("snippets/demo-error/before.py") for p in found), found
    assert any("before.py" in p for p in found), found


@pytest.mark.parametrize("name", ["other.YML", "other.Yml", "other.YAML", "other.yaml"])
def test_an_entry_file_whose_extension_differs_in_case_is_a_located_problem_never_skipped(tmp_path, name):
    """`demo.YML` (an editor's or a case-insensitive disk's spelling) was passed over without a word:
    the entry, its page and its checks were gone, and `errorkb check` said all was well."""
    make_project(tmp_path)
    (tmp_path / "docs" / "errors" / "transformers" / name).write_text(VALID_ENTRY.format(id="other"), encoding="utf-8")
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert found == [f"docs/errors/transformers/{name}:1:1: not loaded as an entry: rename it to other.yml"], found


@pytest.mark.parametrize("name", ["demo-error.yml", "other.yml"])
def test_a_folder_named_like_an_entry_is_a_located_problem_never_skipped(tmp_path, name):
    make_project(tmp_path)
    folder = tmp_path / "docs" / "errors" / "transformers" / name
    if name == "demo-error.yml":
        folder.unlink()
    folder.mkdir()
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert f"docs/errors/transformers/{name}:1:1: a folder, not a file; an entry must be a plain YAML file" in found, found


def test_invalid_utf8_is_located_at_its_line_and_column(tmp_path):
    text = ENTRY.encode().replace(b"meaning: What it means.", b"meaning: What \xff it means.")
    make_project(tmp_path)
    (tmp_path / ENTRY_FILE).write_bytes(text)
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert found == [f"{ENTRY_FILE}:12:15: byte 0xff is not UTF-8; save the file as UTF-8"], found


def test_a_utf16_file_is_named_as_such(tmp_path):
    make_project(tmp_path)
    (tmp_path / ENTRY_FILE).write_bytes(ENTRY.encode("utf-16"))
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert len(found) == 1 and found[0].startswith(f"{ENTRY_FILE}:1:1: ") and "UTF-16" in found[0], found


@pytest.mark.parametrize("bad, name", [("\x00", "U+0000"), ("\x07", "U+0007"), ("\ufffe", "U+FFFE"),
                                       ("\x1b", "U+001B")])
def test_a_raw_character_yaml_cannot_read_is_located_at_its_line(tmp_path, bad, name):
    found = problems_of(tmp_path, ENTRY.replace("trigger: When it happens.", f"trigger: When {bad}it happens."))
    assert len(found) == 1 and found[0].startswith(f"{ENTRY_FILE}:13:15: "), found
    assert name in found[0] and "position" not in found[0], found


@pytest.mark.parametrize("merge", ["<<: {title: Another title}\n", "<<: {tags: [other]}\n",
                                   "source:\n  <<: {line: 7}\n", "<<: [{title: x}]\n", "? <<\n: {title: x}\n"])
def test_a_merge_key_is_a_located_problem_never_a_silent_override(tmp_path, merge):
    """`<<` merges a mapping's keys into another's, dropping those already set without a word:
    the duplicate-key check never sees them."""
    text = ENTRY.replace("source:\n", "") if merge.startswith("source:") else ENTRY
    if merge.startswith("source:"):
        text = text.replace("  commit:", "source:\n  <<: {line: 7}\n  commit:", 1)
    else:
        text = text + merge
    found = problems_of(tmp_path, text)
    assert len(found) == 1 and "merge key" in found[0], found
    assert re.match(rf"{re.escape(ENTRY_FILE)}:\d+:\d+: ", found[0]) and not found[0].startswith(f"{ENTRY_FILE}:1:1"), found


def test_the_site_lists_problems_beside_a_symlink_loop_and_a_folder_named_like_entries(tmp_path):
    """The pages made for entries that did not load never resolve a link that loops (it raised
    RuntimeError, and `mkdocs build` and `serve` stopped with a traceback)."""
    from errorkb.site.files import problem_pages

    make_project(tmp_path)
    folder = tmp_path / "docs" / "errors" / "transformers"
    (folder / "loop.yml").symlink_to("loop.yml")
    (folder / "dir.yml").mkdir()
    (folder / "broken.yml").write_text("id: broken\ntitle: [\n")
    project = load_project(tmp_path)
    loaded = load_project_entries(project)
    assert {p.path for p in loaded.problems} >= {"docs/errors/transformers/loop.yml", "docs/errors/transformers/dir.yml"}
    assert [page.path for page in problem_pages(project, loaded)] == ["errors/transformers/broken.md"]


# -- snippets: bounded, UTF-8, regular files --------------------------------------------------------

def test_an_oversize_snippet_is_refused_before_it_is_read_whole(tmp_path):
    """Entries were bounded, snippets were not: a 30 MB snippet passed `errorkb check` (15 s, half a
    gigabyte) and went onto its page whole."""
    from errorkb.core.load import MAX_SNIPPET_BYTES

    make_project(tmp_path)
    guard = tmp_path / "snippets" / "demo-error" / "guard.py"
    guard.write_bytes(b"x = 1\n" + b"#" * MAX_SNIPPET_BYTES)
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert found == [f"snippets/demo-error/guard.py:1:1: snippet file is {MAX_SNIPPET_BYTES + 6:,} bytes; the limit "
                     f"is {MAX_SNIPPET_BYTES:,}"], found


def test_a_snippet_that_is_not_utf8_is_located_never_shown_as_missing_silently(tmp_path):
    make_project(tmp_path)
    after = tmp_path / "snippets" / "demo-error" / "after.py"
    after.write_bytes(after.read_bytes() + b"# caf\xe9 au lait\n")
    line = after.read_bytes().count(b"\n")
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert found == [f"snippets/demo-error/after.py:{line}:6: byte 0xe9 is not UTF-8; save the file as UTF-8"], found


@pytest.mark.parametrize("bad", ["\u202e", "\u2067", "\u200b", "\u2028", "\x1b", "\x00", "\U000e0041"])
def test_a_snippet_holding_a_character_that_reorders_or_hides_code_is_a_located_problem(tmp_path, bad):
    """Trojan Source (CVE-2021-42574): a bidirectional override in a comment or string makes the code a
    reviewer reads differ from the code that runs, and readers copy snippets. Entry text refused such
    characters; a snippet loaded with them (the page shows their escapes, the file a reader copies
    does not)."""
    make_project(tmp_path)
    after = tmp_path / "snippets" / "demo-error" / "after.py"
    text = after.read_text(encoding="utf-8")
    after.write_text(text + f'access_level = "user{bad} # admin"\n', encoding="utf-8")
    line = text.count("\n") + 1
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert len(found) == 1 and found[0].startswith(f"snippets/demo-error/after.py:{line}:21: U+{ord(bad):04X} "), found


def test_a_snippet_with_crlf_a_form_feed_tabs_and_a_leading_bom_loads(tmp_path):
    make_project(tmp_path)
    after = tmp_path / "snippets" / "demo-error" / "after.py"
    text = after.read_text(encoding="utf-8")
    after.write_bytes(b"\xef\xbb\xbf" + (text + "\x0c\nwith_tab = 1\t# a tab\n").replace("\n", "\r\n").encode())
    assert [str(p) for p in load_project_entries(load_project(tmp_path)).problems] == []


def test_a_snippet_that_is_a_fifo_is_said_to_be_one(tmp_path):
    make_project(tmp_path)
    guard = tmp_path / "snippets" / "demo-error" / "guard.py"
    guard.unlink()
    os.mkfifo(guard)
    result = load_in_child(tmp_path, seconds=20)
    assert f"{ENTRY_FILE}:" in result.stdout and "snippet file snippets/demo-error/guard.py is not a regular " \
        "file" in result.stdout, result.stdout


@pytest.mark.parametrize("kind", ["fifo", "oversize"])
def test_the_site_never_opens_a_fifo_snippet_nor_reads_an_oversize_one_whole(tmp_path, kind):
    """The loader reports them, and the pages are still built (`mkdocs serve` shows the problem):
    a FIFO snippet blocked the build forever; an oversize one went onto its page whole."""
    code = ("import sys; from pathlib import Path; from errorkb.core.load import load_project_entries; "
            "from errorkb.core.project import load_project; from errorkb.site import render; "
            "p = load_project(Path(sys.argv[1])); pages = render.build_pages(p, load_project_entries(p).entries, {}); "
            "print(sorted(pages[0].snippets))")
    make_project(tmp_path)
    guard = tmp_path / "snippets" / "demo-error" / "guard.py"
    if kind == "fifo":
        guard.unlink()
        os.mkfifo(guard)
    else:
        guard.write_bytes(b"#" * (8 << 20))
    try:
        result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("building the pages blocked on the snippet")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "['after', 'before']", result.stdout


# -- problems quote the author: never as a terminal or a CI log would act on it ------------------------

@pytest.mark.parametrize("key, shown", [
    ('"\\e]0;pwned\\a\\e[2J"', "\\x1b]0;pwned\\x07\\x1b[2J"),
    ('"\\u202eevil"', "\\u202eevil"),
    ('"x\\n::error file=a.py::forged"', "x\\n::error file=a.py::forged"),
    ('"##[error]forged"', "##[\\error]forged"),
    ('"\\x9b31m\\N"', "\\x9b31m\\x85"),
])
def test_a_problem_quoting_the_author_holds_no_control_sequence_nor_log_command(tmp_path, key, shown):
    """An unknown key is quoted in its problem, which `errorkb check`, `mkdocs serve` and the CI's
    `mkdocs build --strict` log print: an escape sequence retitled or cleared the terminal, a line
    break started a GitHub workflow command (`::error file=...::`) forging an annotation."""
    found = load_project_entries(load_project(make_project(tmp_path, entries={"demo-error.yml": ENTRY + f"{key}: 1\n"})))
    [problem] = found.problems
    for text in (str(problem), problem.message):
        assert not re.search("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]", text), text
        assert "##[error]" not in text, text
    assert f"unknown key '{shown}'" in str(problem), str(problem)


# -- the project's own settings: read like an entry, kept inside the repository ----------------


def test_a_pyproject_that_is_not_utf8_is_a_located_problem_not_a_traceback(tmp_path, capsys):
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    lines = pyproject.read_bytes().count(b"\n")
    pyproject.write_bytes(pyproject.read_bytes() + b"# caf\xe9\n")
    from errorkb.core.problems import ProblemsFound

    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path)
    assert [str(p) for p in raised.value.problems] == [f"pyproject.toml:{lines + 1}:6: byte 0xe9 is not UTF-8; "
                                                       "save the file as UTF-8"]
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert "pyproject.toml:" in said and "Traceback" not in said, said


@pytest.mark.parametrize("setting", ['entries = "/tmp"', 'snippets = "../elsewhere"', 'reports = "reports/../../.."',
                                     'entries = "docs/../../x"', 'index = "/tmp/kb/index.json"',
                                     'index = "../other_kb/index.json"'])
def test_a_folder_setting_leading_out_of_the_repository_is_a_located_problem(tmp_path, setting):
    """What the site publishes is read from the folders these settings name: one leading out of
    the repository (absolute, or through `..`) would put files from outside it on the pages."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("timeout = 60", f"timeout = 60\n{setting}"),
                         encoding="utf-8")
    from errorkb.core.problems import ProblemsFound

    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path)
    (problem,) = raised.value.problems
    assert str(problem).startswith(f"pyproject.toml:3:1: [tool.errorkb] {setting.split()[0]}: "), str(problem)
    assert "inside the repository" in str(problem), str(problem)


def test_a_folder_setting_inside_the_repository_still_loads(tmp_path):
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "timeout = 60", 'timeout = 60\nreports = "./out/../reports"\nindex = "kb_index/index.json"'), encoding="utf-8")
    project = load_project(tmp_path)
    assert project.reports.resolve() == tmp_path.resolve() / "reports"


def test_a_folder_setting_symlinked_out_of_the_repository_is_a_located_problem(tmp_path):
    make_project(tmp_path)
    (tmp_path / "outside").mkdir()
    (tmp_path / "kb").mkdir()
    make_project(tmp_path / "kb")
    (tmp_path / "kb" / "reports").symlink_to(tmp_path / "outside")
    from errorkb.core.problems import ProblemsFound

    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path / "kb")
    (problem,) = raised.value.problems
    assert str(problem).startswith("pyproject.toml:1:1: [tool.errorkb] reports: "), str(problem)
    assert "leads out of the repository through a symbolic link" in str(problem), str(problem)


def test_the_index_setting_symlinked_out_of_the_repository_is_a_located_problem(tmp_path):
    """`errorkb hook index` writes the file `[tool.errorkb] index` names: through a link in the
    repository it wrote over a file elsewhere (another knowledge base's index, any file)."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "kb").mkdir()
    make_project(tmp_path / "kb")
    pyproject = tmp_path / "kb" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "timeout = 60", 'timeout = 60\nindex = "kb_index/index.json"'), encoding="utf-8")
    (tmp_path / "kb" / "kb_index").symlink_to(tmp_path / "outside")
    from errorkb.core.problems import ProblemsFound

    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path / "kb")
    (problem,) = raised.value.problems
    assert str(problem).startswith("pyproject.toml:3:1: [tool.errorkb] index: "), str(problem)
    assert "leads out of the repository through a symbolic link" in str(problem), str(problem)


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
def test_a_timeout_that_is_not_a_finite_number_is_a_located_problem(tmp_path, value):
    """`timeout = inf` (TOML has it) made every check's limit infinite: a snippet that loops hung
    `errorkb verify` for good."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("timeout = 60", f"timeout = {value}"),
                         encoding="utf-8")
    from errorkb.core.problems import ProblemsFound

    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path)
    (problem,) = raised.value.problems
    assert str(problem).startswith("pyproject.toml:2:1: [tool.errorkb] timeout: "), str(problem)


def test_a_line_number_no_file_has_is_a_located_problem_never_published(tmp_path):
    """The JSON API publishes `source.line`; a JavaScript consumer reads integers above 2**53 as
    another number (9007199254740993 as ...992) than the page shows, and no file has such a line."""
    entry = ENTRY.replace("line: 1471", "line: 9007199254740993")
    problems = problems_of(tmp_path, entry)
    line = entry.splitlines().index("  line: 9007199254740993") + 1
    assert problems and problems[0].startswith(f"{ENTRY_FILE}:{line}:9: source.line: "), problems
    assert "less than or equal to" in problems[0], problems


INVISIBLE = ["\u200b", "\u00ad", "\ufeff", "\U000e0041", "\u2061", "\u180e", "\ufff9", "\u3164"]


@pytest.mark.parametrize("old", ["title: A documented error", "meaning: What it means."])
@pytest.mark.parametrize("bad", INVISIBLE, ids=[f"U+{ord(char):04X}" for char in INVISIBLE])
def test_a_character_that_shows_nothing_is_a_located_problem(tmp_path, old, bad):
    """Zero-width spaces, soft hyphens, a byte order mark inside text, tag characters (U+E0000-
    U+E007F: ASCII spelled invisibly, read by search, by a JSON API consumer and by language
    models, never by the reviewer of the pull request), invisible operators, interlinear
    annotations and Hangul fillers (a title of one U+3164 is a blank link): none shows in a
    review, all reach the page, the JSON API and the lookup's index."""
    key, _, value = old.partition(": ")
    problems = problems_of(tmp_path, ENTRY.replace(old, f"{key}: {json.dumps('Two' + bad + 'words', ensure_ascii=False)}"))
    assert len(problems) == 1 and f"U+{ord(bad):04X}" in problems[0] and f": {key}: " in problems[0], problems


def test_every_character_that_shows_nothing_is_refused_in_entries_and_stripped_from_terminals():
    """The list is written out as ranges (cheap to import); this Python's own Unicode database says
    what a format character is, so a newer Unicode that adds one fails here until the list has it."""
    import sys
    import unicodedata

    from errorkb.core import prose
    from errorkb.core.logsafe import strip_controls

    invisible = [chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"]
    invisible += INVISIBLE
    assert [f"U+{ord(char):04X}" for char in invisible if prose.unprintable(f"a{char}b") is None] == []
    assert [f"U+{ord(char):04X}" for char in invisible if strip_controls(f"a{char}b") != "ab"] == []
    assert prose.unprintable("Plain text — with é, ✓ and ⚠ stays") is None


# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, stable since Unicode 5.2): the characters a
# renderer shows nothing for. Category Cf is most of them; the variation selectors (Mn) are not Cf.
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]


def test_every_default_ignorable_character_is_refused_in_entries_and_stripped_from_terminals():
    """Variation selectors show nothing, and 256 of them spell any byte: 'Two' + U+E0173 U+E0165 ... + 'words'
    carried the word "secret" in a title no reviewer could see, to the page, search, the JSON API and
    language models reading it, as tag characters did before they were refused. Only an emoji's own
    presentation selector (U+FE0F after a symbol: the warning sign's) is text a reader sees."""
    import unicodedata

    from errorkb.core import prose
    from errorkb.core.logsafe import strip_controls

    ignorable = [chr(code) for low, high in DEFAULT_IGNORABLE for code in range(low, high + 1)
                 if unicodedata.category(chr(code)) != "Cn"]  # assigned ones: what this Python's Unicode names
    assert len(ignorable) > 400
    assert [f"U+{ord(char):04X}" for char in ignorable if prose.unprintable(f"a{char}b") is None] == []
    assert [f"U+{ord(char):04X}" for char in ignorable if strip_controls(f"a{char}b") != "ab"] == []
    smuggled = "Two" + "".join(chr(0xE0100 + byte - 16) for byte in b"secret") + "words"
    assert "variation selector" in (prose.unprintable(smuggled) or ""), prose.unprintable(smuggled)
    for stray in ("\ufe0f", "\u26a0\ufe0f\ufe0f", "ok \ufe0e"):  # first, doubled, after a letter
        assert prose.unprintable(stray) is not None, ascii(stray)
    assert prose.unprintable("Careful \u26a0\ufe0f and \u2714\ufe0e, caf\u00e9") is None


# -- folders nested deeper than Python recurses ---------------------------------------------------

DEPTH = 1_200  # Python 3.11's os.walk and Path.rglob recurse once per level: 1,000 levels raise


@contextlib.contextmanager
def nested(top: Path, depth: int = DEPTH):
    """`top/a/a/.../a` (`depth` folders), made and removed one level at a time: Path.mkdir(parents=True),
    os.makedirs and shutil.rmtree all recurse once per level and fail at this depth."""
    folders = [top]
    for _ in range(depth):
        folders.append(folders[-1] / "a")
        folders[-1].mkdir()
    try:
        yield folders[-1]
    finally:
        for folder in reversed(folders[1:]):
            for one in folder.iterdir():
                if not one.is_dir() or one.is_symlink():
                    one.unlink()
            folder.rmdir()


def test_entries_nested_deeper_than_python_recurses_are_a_located_problem_not_a_traceback(tmp_path, capsys):
    """A pull request can hold `docs/errors/transformers/a/a/.../a/x.yml` (1,200 levels is 2,400
    characters of path): the loader's rglob raised RecursionError, and `errorkb check` printed a
    traceback instead of the file to remove."""
    make_project(tmp_path)
    with nested(tmp_path / "docs" / "errors" / "transformers") as deep:
        (deep / "stray.yml").write_text("id: stray\n", encoding="utf-8")
        try:
            result = load_project_entries(load_project(tmp_path))
        except RecursionError:
            pytest.fail("RecursionError")
        assert [one.entry.id for one in result.entries] == ["demo-error"]
        problems = [str(p)[:200] for p in result.problems]
        assert len(problems) == 1 and problems[0].startswith("docs/errors/transformers/a/a/a/"), problems
        assert "nested" in problems[0], problems
        assert main(["--root", str(tmp_path), "check"]) == 1
        assert "RecursionError" not in capsys.readouterr().err


def test_a_snippet_folder_nested_deeper_than_python_recurses_still_keys_and_signs_every_file(tmp_path):
    """The verdict cache keys on every file of the snippet folder, and `mkdocs serve` signs them
    to see what changed: both walked the folder with a recursive os.walk (RecursionError at the
    first site build or verify), and a file at the bottom must still change the key."""
    from errorkb.results.keys import folder_digest
    from errorkb.site.live import tree_signature

    make_project(tmp_path)
    folder = tmp_path / "snippets" / "demo-error"
    with nested(folder) as deep:
        (deep / "data.txt").write_text("one", encoding="utf-8")
        try:
            before = folder_digest(folder)
            signed = dict(tree_signature(folder))
        except RecursionError:
            pytest.fail("RecursionError")
        assert "/".join(["a"] * DEPTH) + "/data.txt" in signed and "after.py" in signed
        (deep / "data.txt").write_text("two", encoding="utf-8")
        assert folder_digest(folder) != before


def test_the_lint_finds_a_helper_module_at_the_bottom_of_a_snippet_folder_nested_deeper_than_python_recurses(tmp_path):
    """`errorkb check` lints every Python file of a snippet folder (a helper a snippet imports is code
    the verifier runs): the lint listed them with rglob, a RecursionError at this depth."""
    from errorkb.core.lint import helpers

    make_project(tmp_path)
    folder = tmp_path / "snippets" / "demo-error"
    with nested(folder) as deep:
        (deep / "planted.py").write_text("import os\n", encoding="utf-8")
        try:
            found = helpers(folder, ["before.py", "after.py", "guard.py"])
        except RecursionError:
            pytest.fail("RecursionError")
        assert deep / "planted.py" in found


def test_a_snippet_folder_holding_a_name_that_is_not_utf8_keys_and_renders(tmp_path):
    """A file name is bytes; one that is not UTF-8 (a pull request can hold `x\\xff.py`) reaches
    Python as a lone surrogate, and the verdict key encoded it strictly: the site's build and
    `errorkb render` stopped with a UnicodeEncodeError traceback. Two such names key apart."""
    from errorkb.results.keys import folder_digest
    from tests.site.sitekb import site_project

    project = site_project(tmp_path / "kb", ids=("head-dim-list-length",))
    folder = project / "snippets" / "head-dim-list-length"
    odd = os.path.join(os.fsencode(folder), b"x\xff.txt")
    with open(odd, "wb") as handle:
        handle.write(b"data")
    first = folder_digest(folder)
    os.rename(odd, os.path.join(os.fsencode(folder), b"x\xfe.txt"))
    assert folder_digest(folder) != first
    assert main(["--root", str(project), "render", "--out", str(tmp_path / "out")]) == 0


def test_a_problem_naming_a_file_that_is_not_utf8_shows_the_byte_not_nothing(tmp_path, capsys):
    """The byte came to Python as a lone surrogate, which the terminal's filter dropped: `errorkb
    check` named `x.py` for a file `x\\xff.py`, which the author could not find. It reads `\\udcff`."""
    make_project(tmp_path)
    with open(os.path.join(os.fsencode(tmp_path / "snippets" / "demo-error"), b"x\xff.py"), "wb") as handle:
        handle.write(b"x = 1\n")
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert "snippets/demo-error/x\\udcff.py:1:1: not used by entry" in said, said


# -- settings and reports nested deeper than their parsers recurse -----------------------------------

@pytest.mark.parametrize("depth", [100_000, 500], ids=["past the parser", "past the settings' walk"])
def test_a_pyproject_nested_deeper_than_its_parser_recurses_is_a_located_problem(tmp_path, capsys, depth):
    """tomllib recurses once per level: `x = [[[...` 100,000 deep (200 KB) stopped every command,
    `mkdocs serve` included, with a RecursionError traceback."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    lines = pyproject.read_text(encoding="utf-8").count("\n")
    with pyproject.open("a", encoding="utf-8") as out:
        out.write("[tool.errorkb.matrix]\nreleases = " + "[" * depth + "]" * depth + "\n")
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert "Traceback" not in said and f"pyproject.toml:{lines + 2}:1: " in said and "nested more than" in said, said


def test_a_snippet_folder_file_swapped_for_a_fifo_after_its_stat_does_not_hang_the_inputs_digest(tmp_path, monkeypatch):
    """Every file of a snippet folder is hashed (the verdict cache, the matrix and the pages' stale marks key
    on it): it is looked at, then read, and a FIFO put there in between (a checkout rewritten under `mkdocs
    serve`) blocked the hash, and the build, forever. Simulated: the look reports a plain file."""
    import stat
    import threading

    from errorkb.results.keys import folder_digest

    folder = tmp_path / "snippets" / "demo-error"
    folder.mkdir(parents=True)
    (folder / "before.py").write_text("x = 1\n", encoding="utf-8")
    pipe = folder / "data.bin"
    os.mkfifo(pipe)
    plain = os.lstat(folder / "before.py")
    real_lstat = Path.lstat

    def swapped(self, *args, **kwargs):
        return plain if self == pipe else real_lstat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "lstat", swapped)
    assert stat.S_ISREG(pipe.lstat().st_mode)
    answer: list = []
    hashing = threading.Thread(target=lambda: answer.append(folder_digest(folder)), daemon=True)
    hashing.start()
    hashing.join(20)
    if hashing.is_alive():  # free the blocked reader before failing
        with open(pipe, "wb"):
            pass
        pytest.fail("the inputs digest blocked on a FIFO")
    monkeypatch.undo()
    assert answer[0] != folder_digest(folder), "a FIFO is not the plain file the look said"


def _in_a_thread(run, pipe: Path, what: str) -> list:
    """`run()` in a thread; a FIFO it blocks on is freed, and the test failed, after 20 s."""
    import threading

    answer: list = []
    worker = threading.Thread(target=lambda: answer.append(run()), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        with contextlib.suppress(OSError), open(pipe, "wb"):
            pass
        worker.join(5)
        pytest.fail(f"{what} blocked on a FIFO")
    return answer


def test_the_hook_index_file_as_a_fifo_neither_hangs_the_check_nor_stops_its_writing(tmp_path, capsys):
    """`errorkb hook index --check` (CI, and every `errorkb matrix` run) read the whole file the setting names:
    a FIFO there blocked it forever, and `errorkb hook index` blocked writing into it. The check says the
    file is not the index; writing replaces it, atomically (a write cut short shipped half an index)."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "timeout = 60", 'timeout = 60\nindex = "kb_index/index.json"'), encoding="utf-8")
    index = tmp_path / "kb_index" / "index.json"
    index.parent.mkdir()
    os.mkfifo(index)
    checked = _in_a_thread(lambda: main(["--root", str(tmp_path), "hook", "index", "--check"]), index, "the check")
    assert checked == [1] and "not a regular file" in capsys.readouterr().err
    written = _in_a_thread(lambda: main(["--root", str(tmp_path), "hook", "index"]), index, "the writing")
    assert written == [0] and index.is_file() and json.loads(index.read_text(encoding="utf-8"))["entries"]
    assert main(["--root", str(tmp_path), "hook", "index", "--check"]) == 0


# -- code a check would run that nobody can read ----------------------------------------------------

def _hidden_bytecode(folder: Path) -> Path:
    """`lib/helper.py` as the page shows it, and beside it in `__pycache__` other code compiled with an
    unchecked hash: Python runs the bytecode without looking at the source (PEP 552)."""
    import importlib.util
    import py_compile

    (folder / "lib").mkdir()
    (folder / "lib" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "lib" / "helper.py").write_text('VALUE = "the source the page shows"\n', encoding="utf-8")
    other = folder.parent / "other.py"
    other.write_text('VALUE = "code nobody reviewed"\n', encoding="utf-8")
    compiled = Path(importlib.util.cache_from_source(str(folder / "lib" / "helper.py")))
    py_compile.compile(str(other), cfile=str(compiled), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    other.unlink()
    return compiled


def test_hidden_bytecode_beside_a_helper_module_is_what_python_runs(tmp_path):
    """Why the loader refuses compiled files: with bytecode writing off, as in a check, the import
    still reads the planted bytecode, and the helper's source (what the lint reads and the reviewer
    sees) never runs."""
    folder = tmp_path / "snippets" / "demo-error"
    folder.mkdir(parents=True)
    _hidden_bytecode(folder)
    (folder / "before.py").write_text("from lib.helper import VALUE\nprint(VALUE)\n", encoding="utf-8")
    ran = subprocess.run([sys.executable, "before.py"], cwd=folder, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert ran.stdout.strip() == "code nobody reviewed", ran


@pytest.mark.parametrize("name", ["lib/__pycache__/helper.cpython-311.pyc", "lib/sourceless.pyc", "helper.pyc",
                                  "lib/native.cpython-311-x86_64-linux-gnu.so", "lib/native.abi3.so",
                                  "lib/deep/native.so", "lib/native.pyd"])
def test_compiled_code_in_a_snippet_folder_is_a_located_problem(tmp_path, capsys, name):
    """Bytecode and extension modules in a snippet folder are code a check imports (`from lib import
    native`) that the lint never reads (it reads `.py` files, and skipped `__pycache__`), no reviewer
    can read in the pull request, and the page does not show: `errorkb check` said "1 entries OK"."""
    make_project(tmp_path)
    folder = tmp_path / "snippets" / "demo-error"
    if name.startswith("lib/__pycache__/"):
        planted = _hidden_bytecode(folder)
    else:
        planted = folder / name
        planted.parent.mkdir(parents=True, exist_ok=True)
        planted.write_bytes(b"\x7fELF" if ".so" in name else b"\x00" * 16)
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    where = planted.relative_to(tmp_path).as_posix()
    assert f"{where}:1:1: compiled code" in said and "delete it" in said, said
    assert "Traceback" not in said


# -- every Python file of a snippet folder is read as Python reads it, and bounded --------------------

# A comment to the lint (which reads the file as UTF-8) and to the page; a line of code to Python,
# which honours the coding declaration: `+AAo-` is a new line in UTF-7.
UTF7_HIDDEN = b"# -*- coding: utf-7 -*-\nx = 1\n# +AAo-import subprocess\n"
# Not UTF-8 (the lint skipped the file in silence), yet Python imports it under its declaration.
LATIN1_HELPER = b"# -*- coding: latin-1 -*-\n# caf\xe9\nimport subprocess\n"


def _with_helper(root: Path, data: bytes | None = None, name: str = "lib/helper.py") -> Path:
    make_project(root)
    path = root / "snippets" / "demo-error" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / "__init__.py").write_text("", encoding="utf-8")
    if data is not None:
        path.write_bytes(data)
    return path


def test_a_snippet_declaring_another_coding_is_a_located_problem(tmp_path, capsys):
    """Python compiles a snippet's bytes under its coding declaration; the lint and the page read them
    as UTF-8. In UTF-7 a comment holds a line of code: the check ran `import subprocess`, the lint saw
    a comment, the page showed one, and `errorkb check` said "1 entries OK"."""
    make_project(tmp_path)
    (tmp_path / "snippets" / "demo-error" / "before.py").write_bytes(UTF7_HIDDEN + BEFORE.encode())
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert "snippets/demo-error/before.py:1:" in said and "utf-7" in said and "Traceback" not in said, said


@pytest.mark.parametrize("data,said", [(UTF7_HIDDEN, "utf-7"), (LATIN1_HELPER, "latin-1"),
                                       (b"x = 1  # \xe2\x80\xae reversed\n", "\\u202e"),
                                       (b"x = 1\n" + b"#" * MAX_SNIPPET_BYTES, "limit")],
                         ids=["utf-7", "latin-1", "bidi", "too large"])
def test_a_helper_module_is_held_to_what_a_snippet_is(tmp_path, capsys, data, said):
    """A module beside the snippets is code the check imports: the loader never read it, and the lint
    skipped one that is not UTF-8 in silence (`except UnicodeDecodeError: continue`), so a helper
    declaring latin-1 could `import subprocess` past the allow-list; a hidden character or a size past
    the snippets' limit was never said."""
    path = _with_helper(tmp_path, data)
    assert main(["--root", str(tmp_path), "check"]) == 1
    told = capsys.readouterr().err
    assert f"{path.relative_to(tmp_path).as_posix()}:" in told and said in told and "Traceback" not in told, told


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_helper_that_is_not_a_regular_file_neither_hangs_nor_fills_the_check(tmp_path, kind):
    """`lib/x.py` as a FIFO blocked `errorkb check` forever (the lint read it whole); as a link to
    /dev/zero, it read until the memory ran out. In a child with a memory cap and a time limit."""
    path = _with_helper(tmp_path, name="lib/x.py")
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    try:
        ran = subprocess.run([sys.executable, "-c", "import sys; from errorkb.cli import main; sys.exit(main(sys.argv[1:]))",
                              "--root", str(tmp_path), "check"], capture_output=True, text=True, timeout=60,
                             preexec_fn=cap)
    except subprocess.TimeoutExpired:
        pytest.fail("errorkb check blocked on the helper")
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    said = "not a regular file" if kind == "fifo" else "resolves outside"  # the link leads out: never read
    assert "snippets/demo-error/lib/x.py:1:1: " in ran.stderr and said in ran.stderr, ran.stderr


def test_a_helper_leading_out_of_its_snippet_folder_is_a_located_problem(tmp_path, capsys):
    """A snippet that resolves outside its folder is refused; a helper was read (by the lint) wherever
    its link led."""
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "kb").mkdir()
    path = _with_helper(tmp_path / "kb", name="lib/x.py")
    path.symlink_to(outside)
    assert main(["--root", str(tmp_path / "kb"), "check"]) == 1
    told = capsys.readouterr().err
    assert "snippets/demo-error/lib/x.py:1:1: " in told and "outside" in told, told


# -- lines a Markdown extension reads as "put a file here" ---------------------------------------------

INCLUDE = '--8<-- "pyproject.toml"'


def test_an_include_line_in_a_snippet_is_a_located_problem(tmp_path, capsys):
    """pymdownx.snippets (whose section syntax the snippets use, so a site may well enable it) reads
    `--8<-- "file"` on any line, in code fences too: inside a string of a snippet, the page showed a file
    of the repository in the line's place, and not the code that ran. `errorkb check` said nothing."""
    make_project(tmp_path)
    before = tmp_path / "snippets" / "demo-error" / "before.py"
    before.write_text(f'NOTE = """\n{INCLUDE}\n"""\n' + BEFORE, encoding="utf-8")
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert "snippets/demo-error/before.py:2:1: " in said and "--8<--" in said, said


@pytest.mark.parametrize("line", [INCLUDE, "  ;--8<-- 'pyproject.toml'", "--8<--"], ids=["file", "escaped", "block"])
def test_an_include_line_in_entry_text_is_a_located_problem(tmp_path, capsys, line):
    """The same in a fence of the entry's prose: the fence's text reaches the page as written."""
    entry = ENTRY.replace("meaning: What it means.", f"meaning: |\n  ```text\n  {line}\n  ```")
    assert "--8<--" in entry
    make_project(tmp_path, entries={"demo-error.yml": entry})
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert f"{ENTRY_FILE}:" in said and "meaning" in said and "--8<--" in said, said


def test_a_show_marker_and_a_line_that_only_mentions_the_syntax_are_not_includes(tmp_path, capsys):
    """A control: the section markers are comments, and prose may name the syntax inside a line."""
    make_project(tmp_path)
    before = tmp_path / "snippets" / "demo-error" / "before.py"
    before.write_text("# --8<-- [start:show]\n" + BEFORE + "# --8<-- [end:show]\n", encoding="utf-8")
    assert main(["--root", str(tmp_path), "check"]) == 0, capsys.readouterr().err


def test_two_snippets_whose_names_differ_only_in_case_are_a_located_problem(tmp_path, capsys):
    """`guard.py` and `Guard.py` are two files here and one on macOS and Windows: a checkout there
    keeps one, and the entry's two guards run, and show, the same code. `errorkb check` said OK."""
    entry = ENTRY.replace("related: []", """  - title: Another guard
    strategy: validation
    file: Guard.py
    expect:
      outcome: passes
related: []""")
    make_project(tmp_path, entries={"demo-error.yml": entry},
                 snippets={"demo-error": {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER, "Guard.py": AFTER}})
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert f"{ENTRY_FILE}:" in said and "Guard.py" in said and "only in case" in said, said


@pytest.mark.parametrize("where", ["id", "snippet"])
def test_a_name_windows_reserves_for_a_device_is_a_located_problem(tmp_path, capsys, where):
    """`con`, `aux`, `nul`, `com1`... (any case, any extension) name devices on Windows: a checkout there
    cannot create `snippets/con/` nor `guard/aux.py`, and the entry is lost to whoever works there."""
    if where == "id":
        entries = {"con.yml": VALID_ENTRY.format(id="con")}
        snippets = {"con": {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER}}
        named, file = "'con'", "docs/errors/transformers/con.yml"
    else:
        entries = {"demo-error.yml": ENTRY.replace("file: guard.py", "file: Aux.py")}
        snippets = {"demo-error": {"before.py": BEFORE, "after.py": AFTER, "Aux.py": AFTER}}
        named, file = "Aux.py", ENTRY_FILE
    make_project(tmp_path, entries=entries, snippets=snippets)
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert f"{file}:" in said and named in said and "Windows" in said, said


def test_a_file_of_a_snippet_folder_windows_reserves_is_a_located_problem(tmp_path, capsys):
    """Not only the entry's snippets: a helper or a data file named so is lost on Windows too."""
    path = _with_helper(tmp_path, b"X = 1\n", name="lib/nul.py")
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert f"{path.relative_to(tmp_path).as_posix()}:1:1: " in said and "Windows" in said, said


@pytest.mark.parametrize("name", ["transformers", "torch", "packaging", "json"])
def test_a_folder_beside_the_snippets_named_like_a_module_they_import_is_a_located_problem(tmp_path, capsys, name):
    """The snippet's folder is first on its import path: a package `packaging/` there is what the page's
    `import packaging` (or `import transformers`) imports, though a reader takes it for the real one
    and the page never shows it. `errorkb check` said OK."""
    make_project(tmp_path)
    package = tmp_path / "snippets" / "demo-error" / name
    package.mkdir()
    (package / "__init__.py").write_text("X = 1\n", encoding="utf-8")
    assert main(["--root", str(tmp_path), "check"]) == 1
    said = capsys.readouterr().err
    assert f"snippets/demo-error/{name}:1:1: " in said and "shadows" in said, said


# -- round eight: keys YAML reads as something else, repeated keys, other encodings ---------------


@pytest.mark.parametrize("extra", ["title: A second title\n", "<<: {title: Another title}\n"])
def test_an_entry_whose_key_is_given_twice_is_not_published_with_either_value(tmp_path, extra):
    """A key given twice (or merged in) was a located problem, yet the entry still loaded with the value
    YAML kept (the last, or the one the merge did not drop): `mkdocs serve` published that page, and the
    other value the author wrote was nowhere. Like any other problem in its own file, the entry is now
    left out and its page lists the problem."""
    from errorkb.site import files as site

    make_project(tmp_path, entries={"demo-error.yml": ENTRY + extra})
    project = load_project(tmp_path)
    loaded = load_project_entries(project)
    assert loaded.entries == [] and len(loaded.problems) == 1, loaded.problems
    (page,) = site.problem_pages(project, loaded)
    assert page.path == "errors/transformers/demo-error.md"
    assert "keep one of them" in page.content or "merge key" in page.content, page.content


@pytest.mark.parametrize("key, read_as", [("null", "nothing (null)"), ("~", "nothing (null)"), ("3", "an integer"),
                                          ("yes", "a boolean"), ("2026-01-01", "a date"), ("1.5", "a number")])
def test_a_key_yaml_reads_as_no_text_is_located_at_its_own_line(tmp_path, key, read_as):
    """`null: x` (or `3:`, `yes:`, a date) at the end of the file was reported at 1:1 as
    "None: Keys should be strings": neither the line nor the key the author wrote."""
    nested = ENTRY.replace("  commit:", f"  {key}: x\n  commit:", 1)
    for text, line in ((ENTRY + f"{key}: x\n", ENTRY.count("\n") + 1),
                       (nested, nested.splitlines().index(f"  {key}: x") + 1)):
        found = problems_of(tmp_path, text)
        assert len(found) == 1, found
        col = 1 if text is not nested else 3
        assert found[0].startswith(f"{ENTRY_FILE}:{line}:{col}: key '{key}' "), found
        assert read_as in found[0] and "quote it" in found[0], found


@pytest.mark.parametrize("encoding", ["utf-32", "utf-32-be", "utf-16-le", "utf-16-be"])
def test_a_utf32_or_unmarked_utf16_file_is_named_as_what_it_is(tmp_path, encoding):
    """UTF-32's little-endian byte order mark starts with UTF-16's: the file was called UTF-16. Without a mark
    (or with UTF-32 big-endian's, which is valid UTF-8), the file was read as UTF-8: "U+0000 cannot stand in a
    YAML file; remove it", of every other character."""
    make_project(tmp_path)
    (tmp_path / ENTRY_FILE).write_bytes(ENTRY.encode(encoding))
    found = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    name, other = ("UTF-32", "UTF-16") if "32" in encoding else ("UTF-16", "UTF-32")
    assert len(found) == 1 and found[0].startswith(f"{ENTRY_FILE}:1:1: the file is {name} "), found
    assert other not in found[0] and "U+0000" not in found[0] and "save it as UTF-8" in found[0], found


# -- round twelve: what errorkb itself runs of a stranger's mkdocs.yml ----------------------------
# `mkdocs build` runs what mkdocs.yml names (hooks, plugins, `!!python/...` tags): that is MkDocs', and the
# reviewer's (docs/threat-model.md). `errorkb check` and `errorkb render --out` read mkdocs.yml too (the Markdown
# settings the pages are rehearsed with, the edit links): they used MkDocs' own loader, which builds any Python
# object a tag names and imports the hooks' files, so a check of a pull request ran the pull request's code.

SITE = "site_name: a stranger's site\n"


def _mkdocs_project(root: Path, config: str, **files: str) -> Path:
    root.mkdir(exist_ok=True)
    make_project(root)
    (root / "mkdocs.yml").write_text(config, encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _marks(root: Path) -> str:
    """Python that leaves a mark when it runs."""
    return f"open({str(root / 'RAN')!r}, 'w').write('ran')\n"


@pytest.mark.parametrize("command", [["check"], ["render", "--out", "OUT"]])
def test_a_python_tag_in_mkdocs_yml_is_never_built_by_errorkb(tmp_path, capsys, monkeypatch, command):
    root = _mkdocs_project(tmp_path / "kb", SITE + "extra:\n  boom: !!python/object/apply:os.system ['touch "
                           f"{tmp_path / 'RAN'}']\n")
    monkeypatch.chdir(root)
    code = main(["--root", str(root), *[str(tmp_path / part) if part == "OUT" else part for part in command]])
    said = capsys.readouterr()
    assert not (tmp_path / "RAN").exists(), "errorkb built a Python object mkdocs.yml named: it ran its code"
    assert code == 1 and "Traceback" not in said.out + said.err
    assert "mkdocs.yml:3" in said.err and "!!python/object/apply" in said.err, said.err


def test_a_markdown_extension_of_the_repository_is_never_imported_by_errorkb_check(tmp_path, capsys, monkeypatch):
    root = _mkdocs_project(tmp_path / "kb", SITE + "markdown_extensions:\n  - admonition\n  - stranger\n",
                           **{"stranger.py": _marks(tmp_path)})
    monkeypatch.chdir(root)  # where the child that renders finds modules first
    assert main(["--root", str(root), "check"]) == 1
    said = capsys.readouterr()
    assert not (tmp_path / "RAN").exists(), "errorkb check imported a module of the repository"
    assert "mkdocs.yml:" in said.err and "stranger" in said.err and "Traceback" not in said.err, said.err


def test_a_markdown_extension_found_in_the_repository_is_refused_at_its_line(tmp_path, monkeypatch):
    """Where the import path holds the repository after all (PYTHONPATH, `python -m` in a process of the
    author's), errorkb's reading of mkdocs.yml refuses the module there rather than import it."""
    from errorkb.site.settings import SettingsError, read

    root = _mkdocs_project(tmp_path / "kb", SITE + "markdown_extensions:\n  - admonition\n  - stranger\n",
                           **{"stranger.py": _marks(tmp_path)})
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(SettingsError, match=r"mkdocs.yml:4: stranger would be imported from stranger.py"):
        read(root / "mkdocs.yml")
    assert not (tmp_path / "RAN").exists()


def test_hooks_are_mkdocs_s_to_run_never_errorkb_check_s(tmp_path, capsys, monkeypatch):
    root = _mkdocs_project(tmp_path / "kb", SITE + "hooks:\n  - hook.py\nmarkdown_extensions:\n  - admonition\n",
                           **{"hook.py": _marks(tmp_path)})
    monkeypatch.chdir(root)
    assert main(["--root", str(root), "check"]) == 0, capsys.readouterr().err
    assert not (tmp_path / "RAN").exists(), "errorkb check ran a hook of mkdocs.yml"


def test_material_s_emoji_settings_are_read_as_mkdocs_reads_them(tmp_path, capsys):
    """`!!python/name:` of an installed module (Material's emoji configuration) is what the site needs: read."""
    root = _mkdocs_project(tmp_path / "kb", SITE + "markdown_extensions:\n  - pymdownx.emoji:\n"
                           "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                           "      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n")
    assert main(["--root", str(root), "check"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("where", ["mkdocs.yml", "base.yml"])
def test_a_python_name_of_a_module_no_extension_or_theme_provides_is_never_imported(tmp_path, monkeypatch, where):
    """Round fourteen: `!!python/name:` imported whatever installed module it named, and importing runs the
    module (`this` prints, `antigravity` opens a browser, a package's `__init__` does what it does). The
    settings need functions of a Markdown extension's or a theme's package (Material's emoji, superfences'
    formats): any other module is refused at its line, not imported."""
    from errorkb.site.settings import SettingsError, read

    installed = tmp_path / "installed"
    installed.mkdir()
    (installed / "side_effect_module.py").write_text(_marks(tmp_path) + "index = None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(installed))
    settings = ("markdown_extensions:\n  - pymdownx.emoji:\n"
                "      emoji_index: !!python/name:side_effect_module.index\n")
    if where == "mkdocs.yml":
        root = _mkdocs_project(tmp_path / "kb", SITE + settings)
    else:
        root = _mkdocs_project(tmp_path / "kb", "INHERIT: base.yml\n" + SITE, **{"base.yml": settings})
    with pytest.raises(SettingsError, match=rf"^{where}:{3 if where == 'base.yml' else 4}: "
                                            r"!!python/name:side_effect_module\.index names a module of no Markdown "
                                            "extension the settings name and of no theme"):
        read(root / "mkdocs.yml")
    assert not (tmp_path / "RAN").exists(), "reading mkdocs.yml imported a module no extension or theme provides"


def test_an_inherited_file_outside_the_repository_is_refused_one_inside_is_read(tmp_path, capsys):
    (tmp_path / "outside.yml").write_text("markdown_extensions:\n  - admonition\n", encoding="utf-8")
    root = _mkdocs_project(tmp_path / "kb", "INHERIT: ../outside.yml\n" + SITE)
    assert main(["--root", str(root), "check"]) == 1
    said = capsys.readouterr().err
    assert "mkdocs.yml:1" in said and "outside the repository" in said and "Traceback" not in said, said
    _mkdocs_project(root, "INHERIT: base/mkdocs-base.yml\n" + SITE,
                    **{"base/mkdocs-base.yml": "markdown_extensions:\n  - stranger_missing_ext\n"})
    assert main(["--root", str(root), "check"]) == 1, "the inherited file's settings were not read"
    assert "stranger_missing_ext" in capsys.readouterr().err


def test_files_that_inherit_each_other_are_one_clear_problem(tmp_path, capsys):
    root = _mkdocs_project(tmp_path / "kb", "INHERIT: other.yml\n" + SITE, **{"other.yml": "INHERIT: mkdocs.yml\n"})
    assert main(["--root", str(root), "check"]) == 1
    said = capsys.readouterr().err
    assert "INHERIT leads back" in said and "Traceback" not in said, said


# -- round twelve: the folder a command runs in is no source of modules -----------------------------
# Python puts the current folder first on the import path of `python -m MODULE` and `python -c CODE`: a child
# errorkb started so in a stranger's repository imported the repository's `json.py` (or `venv.py`, `pip/`,
# `errorkb/`) before the standard library's, outside any sandbox.


def test_errorkb_check_imports_no_module_of_the_folder_it_runs_in(tmp_path, capsys, monkeypatch):
    root = _mkdocs_project(tmp_path / "kb", SITE + "markdown_extensions:\n  - admonition\n",
                           **{"json.py": _marks(tmp_path) + "import sys; del sys.modules['json']; sys.path.pop(0)\n"
                                                            "import json as _json; globals().update(vars(_json))\n"})
    monkeypatch.chdir(root)
    assert main(["--root", str(root), "check"]) == 0, capsys.readouterr().err
    assert not (tmp_path / "RAN").exists(), "the page rehearsal imported the repository's json.py"


def test_building_an_environment_imports_no_module_of_the_folder_it_runs_in(tmp_path, monkeypatch):
    from errorkb.verify.requirements import build_pinned_env

    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "venv.py").write_text(_marks(tmp_path) + "raise SystemExit(1)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "here")
    why = build_pinned_env(tmp_path / "cache", ("demo-not-there<1",), pip=("--no-index",))
    assert not (tmp_path / "RAN").exists(), "`python -m venv` ran the folder's venv.py"
    assert why is not None and "demo-not-there" in why  # pip, the next step, found nothing: no index


def test_an_mkdocs_yml_that_links_out_of_the_repository_is_not_read(tmp_path, capsys):
    """A parse error quotes the line it stopped at: mkdocs.yml committed as a link to a file of the machine's (a
    CI runner's credentials) printed that file's lines in a public log."""
    secret = tmp_path / "credentials"
    secret.write_text("[default]\ntoken = s3cr3t-value: [\n", encoding="utf-8")
    root = _mkdocs_project(tmp_path / "kb", SITE)
    (root / "mkdocs.yml").unlink()
    (root / "mkdocs.yml").symlink_to(secret)
    assert main(["--root", str(root), "check"]) == 1
    said = capsys.readouterr().err
    assert "s3cr3t" not in said and "outside the repository" in said, said


# -- bounded: how many entries, how much YAML in all --------------------------------------------


def _many_entries(root: Path, count: int, text: str = "id: x\n") -> None:
    make_project(root, entries={}, snippets={})
    folder = root / "docs" / "errors" / "transformers"
    for number in range(count):
        (folder / f"e{number:06}.yml").write_text(text, encoding="utf-8")


def _reads(monkeypatch) -> list[Path]:
    """The entry files the loader reads, recorded (each is still read)."""
    from errorkb.core import load

    read: list[Path] = []
    real = load.load_entry_file

    def record(path, project):
        read.append(path)
        return real(path, project)

    monkeypatch.setattr(load, "load_entry_file", record)
    return read


def test_more_entry_files_than_the_limit_is_one_problem_and_no_more_are_read(tmp_path, monkeypatch):
    """A pull request of 100,000 one-line entry files held `errorkb check`, the site build and `mkdocs serve`
    for minutes (each file read, parsed and reported, 11 problems apiece): no bound but the disk's. Past
    `MAX_ENTRIES` files the rest are not read, and one problem says how many there are and what to do; the
    limit is made small here so the test stays quick (the real one is far above any knowledge base)."""
    from errorkb.core import load

    monkeypatch.setattr(load, "MAX_ENTRIES", 20, raising=False)
    _many_entries(tmp_path, 50)
    read = _reads(monkeypatch)
    result = load_project_entries(load_project(tmp_path))
    assert len(read) == 20, f"{len(read)} entry files were read past the limit"
    said = [str(problem) for problem in result.problems if "the limit is 20 entry files" in str(problem)]
    assert said == ["docs/errors:1:1: 50 entry files; the limit is 20 entry files: only the first 20 by name were "
                    "read. Split the knowledge base, or remove the files a pull request added"], said
    assert not any("snippet" in str(problem) and "e0000" in str(problem) for problem in result.problems)
    from errorkb.core.load import entry_paths

    assert len(entry_paths(load_project(tmp_path))) == 20  # the index's digest reads no more than the loader


def test_more_yaml_in_all_than_the_limit_is_one_problem_and_no_more_is_read(tmp_path, monkeypatch):
    """Each file within its own size limit, the files together past `MAX_TOTAL_BYTES`: the rest are not read."""
    from errorkb.core import load

    entry = ENTRY + "# " + "x" * 1_000 + "\n"
    monkeypatch.setattr(load, "MAX_TOTAL_BYTES", len(entry.encode()) * 3, raising=False)
    _many_entries(tmp_path, 5, entry)
    read = _reads(monkeypatch)
    result = load_project_entries(load_project(tmp_path))
    assert len(read) == 3, f"{len(read)} entry files were read past the limit"
    assert any(str(problem).startswith("docs/errors:1:1: 5 entry files hold ") and "only the first 3 by name"
               in str(problem) for problem in result.problems), result.problems

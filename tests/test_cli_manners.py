"""The command line's manners (issue 21, item 6): every command checks its input before doing any
work, a bad input is refused with one line and exit 2 and reaches no report, no command ends in a
traceback, and the contributor's loop (`show`, `verify ID`, `new`, `check --drift`) says what it
did. Runs on the second library's knowledge base (the plain `python` runtime: nothing heavy)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errorkb.cli import main
from tests.kb import ROOT, importable

FIXTURE = ROOT / "tests" / "fixtures" / "tinylib_kb"
ERRORKB = str(ROOT / ".venv" / "bin" / "errorkb")


def _importable(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    importable(monkeypatch, root / "upstream", root / "bundled")


@pytest.fixture(scope="module")
def standing_report(tmp_path_factory) -> bytes:
    """A real standing report of the fixture (what a user has when they mistype an option)."""
    root = shutil.copytree(FIXTURE, tmp_path_factory.mktemp("verified") / "kb")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _importable(root, monkeypatch)
        assert main(["--root", str(root), "verify", "--no-cache"]) == 0
    return (root / "reports" / "latest.json").read_bytes()


@pytest.fixture
def kb(tmp_path, monkeypatch, standing_report) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    _importable(root, monkeypatch)
    (root / "reports").mkdir()
    (root / "reports" / "latest.json").write_bytes(standing_report)
    (root / "a-file").write_text("not a folder\n")
    return root


def cli(*args: str) -> int:
    try:
        return main(list(args))
    except SystemExit as leaving:  # argparse leaves by SystemExit; main's own returns are codes
        return int(leaving.code or 0)


BAD = [
    (["verify", "--timeout", "-1"], "--timeout: expected a positive number of seconds, got '-1'"),
    (["verify", "--timeout", "nan"], "--timeout: expected a positive number of seconds"),
    (["verify", "--timeout", "0"], "--timeout: expected a positive number of seconds"),
    (["verify", "--device", "tpu"], "--device tpu: the python runtime has no such device (its devices: cpu)"),
    (["verify", "--jobs", "0"], "--jobs: expected a whole number of at least 1"),
    (["verify", "--shard", "3/2"], "k must be between 1 and n"),
    (["verify", "--report", "{kb}/a-file/r.json"], "a-file is not a folder"),
    (["verify", "--junit", "{kb}/reports"], "is a folder, not a file"),
    (["verify", "--target", "tpu"], "invalid choice: 'tpu'"),
    (["verify", "no-such-entry"], "no entry 'no-such-entry'"),
    (["matrix", "--release", "banana"], "--release: expected a release such as 4.49.0, got 'banana'"),
    (["matrix", "--release", ">=1.0"], "--release: expected a release"),
    (["matrix", "--parallel", "0"], "--parallel: expected a whole number of at least 1"),
    (["lookup", "--release", "banana", "OverflowError: queue is full: capacity 2"], "got 'banana'"),
    (["render", "--out", "{kb}/a-file"], "a-file' is a file, not a folder"),
    (["render", "--out", "/proc/errorkb-out"], "/proc is not writable"),
    (["check", "no-such-entry"], "no entry 'no-such-entry'"),
    (["report", "merge", "{kb}/a-file/out.json", "{kb}/reports/latest.json"], "a-file is not a folder"),
]


@pytest.mark.parametrize(("args", "said"), BAD, ids=[" ".join(args) for args, _ in BAD])
def test_a_bad_input_is_one_line_exit_2_and_reaches_no_report(kb, capsys, args, said):
    before = {path: path.read_bytes() for path in kb.rglob("*") if path.is_file()}
    code = cli("--root", str(kb), *(arg.format(kb=kb) for arg in args))
    printed = capsys.readouterr()
    assert code == 2, printed
    assert said in printed.err, printed.err
    assert printed.err.strip().count("\n") == 0, printed.err  # one line
    assert printed.out == "" and "Traceback" not in printed.err
    after = {path: path.read_bytes() for path in kb.rglob("*") if path.is_file()}
    assert after == before  # the report, the entries, everything: untouched
    assert not (kb / ".errorkb-cache").exists()


def test_a_missing_root_is_refused_in_one_line(tmp_path, capsys):
    assert cli("--root", str(tmp_path / "nope"), "check") == 2
    err = capsys.readouterr().err
    assert f"errorkb: argument --root: no folder '{tmp_path / 'nope'}'" in err and err.count("\n") == 1


def test_a_bundled_target_without_a_bundled_implementation_is_refused(kb, capsys):
    pyproject = kb / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('bundled = "tinyq_bundled"\n', ""))
    assert cli("--root", str(kb), "check") == 1  # the profile's default targets name it: a located problem
    assert "pyproject.toml:5:1: [tool.errorkb] targets names 'bundled', but [tool.errorkb.library] names no " \
           "bundled implementation" in capsys.readouterr().err
    pyproject.write_text(pyproject.read_text().replace('targets = ["bundled", "upstream"]', 'targets = ["upstream"]'))
    assert cli("--root", str(kb), "verify", "--target", "bundled") == 2
    err = capsys.readouterr().err
    assert "--target bundled: the profile names no bundled implementation" in err and err.count("\n") == 1


def run(*args: str, cwd: Path | None = None, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([ERRORKB, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=cwd,
                          timeout=120, env={**os.environ, "PYTHONPATH": ""})


@pytest.mark.parametrize("index", ["{tmp}/missing.json", "http://127.0.0.1:9/api/errors/index.json",
                                   "https://[::1", "{tmp}", "{tmp}/deep.json"])
@pytest.mark.parametrize("command", [["lookup", "ValueError: x"], ["show", "some-id"]])
def test_an_index_that_cannot_be_read_is_one_line_never_a_traceback(tmp_path, command, index):
    # An index is a file from anywhere (--index FILE|URL): 100,000 `[` end json's parser in a RecursionError.
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    result = run(command[0], "--index", index.format(tmp=tmp_path), *command[1:], cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert "index" in result.stderr


def test_a_reader_that_leaves_the_pipe_gets_no_traceback(tmp_path):
    """`errorkb completion bash | head -1`: the pipe is closed before errorkb writes; Python's documented
    handling (stdout to /dev/null, exit 1), with nothing on stderr."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = run("completion", "bash", cwd=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert result.returncode == 1
    assert result.stderr == ""


def test_a_failing_write_mid_command_is_one_line(kb, capsys, monkeypatch):
    """An OSError the command meets after its checks (a disk that filled, a folder removed meanwhile)."""
    import errorkb.cli as cli_module

    def broken(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(kb / "out" / "index.md"))

    monkeypatch.setattr(cli_module, "cmd_render", broken)
    assert cli("--root", str(kb), "render", "--out", str(kb / "out")) == 1
    err = capsys.readouterr().err
    assert err == f"errorkb: cannot use {kb / 'out' / 'index.md'}: Permission denied\n"


def test_show_on_a_broken_entry_prints_its_problems(kb, capsys):
    entry = kb / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(entry.read_text().replace("tags: [capacity]", "tags: [capacity]\nsevertiy: high"))
    assert cli("--root", str(kb), "show", "queue-full") == 1
    err = capsys.readouterr().err
    assert "errorkb show: the entry 'queue-full' does not load (1 problem(s)):" in err
    assert "queue-full.yml:7:1: unknown key 'severtiy'" in err and "did you mean" not in err.split("\n")[0]


def _older_pin(kb: Path) -> None:
    """queue-full documented as an error only releases before 1.2 raise, pinned at 1.1.0 (not here)."""
    (kb / "reports" / "latest.json").unlink()  # verified as it was; not what the test is about
    entry = kb / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(entry.read_text().replace("  release: 1.2.0", "  release: 1.1.0")
                     .replace("tags: [capacity]", 'tags: [capacity]\nreleases:\n  raises: "<1.2"'))


def test_verify_an_entry_nothing_of_which_applies_says_so_and_names_the_target(kb, capsys):
    _older_pin(kb)
    code = cli("--root", str(kb), "verify", "queue-full", "--target", "bundled", "--no-cache")
    printed = capsys.readouterr()
    assert code == 1, printed
    assert ("errorkb verify: nothing of queue-full was verified: none of its 3 checks applies on the bundled target "
            "(tinyq 1.2.0 does not raise this error (it raises in 1.1 and earlier)); run it there: "
            "errorkb verify queue-full --target upstream") in printed.err


def test_check_drift_reports_an_unbuilt_release_as_not_checked(kb, capsys):
    _older_pin(kb)
    assert cli("--root", str(kb), "check", "--drift") == 0
    printed = capsys.readouterr()
    assert ("tinyq 1.1.0: 1 pin(s) not checked, its environment is not built (run `errorkb matrix "
            "--environments-only`): queue-full") in printed.err
    assert "pip install" not in printed.err + printed.out
    assert "2 entries OK; 1 source pin(s) hold, the others not checked" in printed.out
    assert cli("--root", str(kb), "check", "--drift", "capacity-not-positive") == 0
    assert "1 entries OK; every source pin holds" in capsys.readouterr().out


def test_check_warns_about_two_entries_with_the_same_message_and_function(kb, capsys):
    entries = kb / "docs" / "errors" / "tinyq"
    twin = (entries / "queue-full.yml").read_text().replace("id: queue-full", "id: queue-full-again")
    (entries / "queue-full-again.yml").write_text(twin)
    shutil.copytree(kb / "snippets" / "queue-full", kb / "snippets" / "queue-full-again")
    assert cli("--root", str(kb), "check") == 0
    err = capsys.readouterr().err
    assert ("docs/errors/tinyq/queue-full-again.yml:5:1: warning: the same message and function (BoundedQueue.put) "
            "as queue-full: one error documented twice?") in err


def test_check_is_quiet_about_twins_that_each_say_what_tells_them_apart(kb, capsys):
    entries = kb / "docs" / "errors" / "tinyq"
    original = (entries / "queue-full.yml").read_text()
    (entries / "queue-full.yml").write_text(original + 'recognised_by:\n  - "queue.put(item)"\n')
    twin = original.replace("id: queue-full", "id: queue-full-again") + 'recognised_by:\n  - "queue.put(batch)"\n'
    (entries / "queue-full-again.yml").write_text(twin)
    shutil.copytree(kb / "snippets" / "queue-full", kb / "snippets" / "queue-full-again")
    assert cli("--root", str(kb), "check") == 0
    assert "one error documented twice" not in capsys.readouterr().err
    # the same clue on both tells nothing apart
    (entries / "queue-full-again.yml").write_text(twin.replace("queue.put(batch)", "queue.put(item)"))
    assert cli("--root", str(kb), "check") == 0
    assert "one error documented twice" in capsys.readouterr().err


TRACEBACK = """Traceback (most recent call last):
  File "/home/alice/work/producer.py", line 7, in <module>
    queue.put(item)
  File "{site}/tinyq/queue.py", line 13, in put
    raise OverflowError(f"queue is full: capacity {{self.capacity}}")
OverflowError: queue is full: capacity 2
"""


def test_the_new_stub_asks_for_releases_and_carries_no_absolute_path(kb, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(TRACEBACK.format(site=kb / "upstream")))
    assert cli("--root", str(kb), "new", "queue-overflow", "--from-traceback", "-") == 0
    capsys.readouterr()
    written = [kb / "docs/errors/tinyq/queue-overflow.yml", *sorted((kb / "snippets/queue-overflow").iterdir())]
    for path in written:
        text = path.read_text()
        assert "/home/alice" not in text and str(kb) not in text, (path, text)
    entry = written[0].read_text()
    assert "# TODO: say in which releases the before raises" in entry and 'releases: {raises: ">=1.2.0"}' in entry
    assert "producer.py, line 7" in (kb / "snippets/queue-overflow/before.py").read_text()
    assert cli("--root", str(kb), "verify", "queue-overflow", "--no-cache") == 1
    assert "# TODO: say in which releases the before raises" in capsys.readouterr().out


LINES = ["plain", "", "a\ttab, and wide 中文\t|", "trailing   ", "two\nlines\n", "escape \x1b[2J, cr \r, bell \x07",
         "::error::a workflow command", "[red]not markup[/red]", "emoji :100: path:100:1", "x" * 300, "\x85nel"]


@pytest.mark.parametrize("style", [None, "red"])
@pytest.mark.parametrize("text", LINES)
def test_a_line_printed_without_rich_is_what_rich_prints_off_a_terminal(text, style, capsys):
    """`_Lazy.print` writes a plain line itself off a terminal (a warm verify then never imports Rich):
    byte for byte what the Rich console writes, escape sequences and workflow commands defused alike."""
    from errorkb.cli import _Lazy, _plain_console

    options = {"markup": False, **({"style": style} if style else {})}
    _Lazy(stderr=False).print(text, **options)
    mine = capsys.readouterr().out
    _plain_console(False).print(text, **options)
    assert mine == capsys.readouterr().out
    assert "\x1b" not in mine and "::error::" not in mine


def test_a_warm_verify_off_a_terminal_never_imports_rich(kb, tmp_path):
    command = ["--root", str(kb), "verify", "--cache-dir", str(tmp_path / "cache")]
    assert cli(*command) == 0
    code = ("import sys; from errorkb.cli import main; code = main(sys.argv[1:]); "
            "print('rich' in sys.modules, code, file=sys.stderr)")
    env = {name: value for name, value in os.environ.items() if name not in ("FORCE_COLOR", "TTY_INTERACTIVE",
                                                                              "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])  # this checkout's errorkb
    done = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.stderr.strip().splitlines()[-1] == "False 0", done.stderr[-2000:]
    assert "from cache" in done.stdout


# -- a paste that never ends: `yes | errorkb lookup -`, `--from-traceback /dev/zero`, a pipe from a program that
# prints forever. The reading kept only the last bytes (bounded in memory) but never stopped (unbounded in time).
class _Endless(io.RawIOBase):
    """A stream of `line` repeated; fails the test once read far past any bound errorkb could keep."""

    def __init__(self, line: bytes, limit: int):
        self.line, self.limit, self.given = line, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.given > self.limit:
            pytest.fail(f"read {self.given:,} bytes of an endless paste and went on")
        data = (self.line * (len(buffer) // len(self.line) + 1))[:len(buffer)]
        buffer[:len(data)] = data
        self.given += len(data)
        return len(data)


def _endless_stdin(monkeypatch: pytest.MonkeyPatch, line: bytes) -> _Endless:
    raw = _Endless(line, limit=64 << 20)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw)))
    return raw


@pytest.mark.parametrize("command", [["lookup", "-"], ["new", "endless", "--from-traceback", "-"]])
def test_an_endless_paste_is_refused_in_bounded_time_and_says_what_to_give(kb, capsys, monkeypatch, command):
    from errorkb import cli as cli_module

    monkeypatch.setattr(cli_module, "_MAX_STREAM", 4 << 20, raising=False)
    raw = _endless_stdin(monkeypatch, b"y\n")
    code = cli("--root", str(kb), *command)
    printed = capsys.readouterr()
    assert code == 2 and printed.out == "" and printed.err.count("\n") == 1, printed
    assert "stdin" in printed.err and "4,194,304 bytes" in printed.err and "tail -c" in printed.err, printed.err
    assert raw.given <= (4 << 20) + (2 << 20)
    assert not (kb / "snippets" / "endless").exists()


def test_a_long_log_in_a_file_is_answered_from_its_end_without_reading_it_whole(kb, capsys, monkeypatch, tmp_path):
    from errorkb import cli as cli_module

    monkeypatch.setattr(cli_module, "_MAX_INPUT", 256 << 10)
    monkeypatch.setattr(cli_module, "_MAX_STREAM", 1 << 20, raising=False)
    log = tmp_path / "train.log"
    with log.open("wb") as handle:
        handle.truncate(64 << 20)  # a sparse 64 MiB of NULs, then the traceback the run ended with
        handle.seek(0, os.SEEK_END)
        handle.write(TRACEBACK.format(site=kb / "upstream").encode())
    class Counted(io.FileIO):
        given = 0

        def readinto(self, buffer: Any) -> int | None:
            count = super().readinto(buffer)
            Counted.given += count or 0
            return count

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Counted(log))))
    code = cli("--root", str(kb), "lookup", "-")
    printed = capsys.readouterr()
    assert code == 0 and "queue-full" in printed.out, printed
    assert Counted.given <= 2 * cli_module._MAX_INPUT, f"read {Counted.given:,} bytes of a {64 << 20:,}-byte log"


# -- `errorkb render --out DIR` replaced whatever lay at the paths it writes: the author's own files there, and
# a generated file edited by hand, were overwritten at the next render, both without a word.
def test_render_never_replaces_a_file_it_did_not_write(kb, capsys):
    out = kb / "rendered"
    (out / "api" / "errors").mkdir(parents=True)
    (out / "api" / "errors" / "index.json").write_text('{"mine": true}\n', encoding="utf-8")
    (out / "notes.md").write_text("mine, at no path render writes\n", encoding="utf-8")
    assert cli("--root", str(kb), "render", "--out", str(out)) == 2
    printed = capsys.readouterr()
    assert "api/errors/index.json (not written by errorkb render)" in printed.err, printed.err
    assert "choose another --out" in printed.err and "notes.md" not in printed.err and printed.out == ""
    assert sorted(path.name for path in out.iterdir()) == ["api", "notes.md"]  # nothing written
    assert (out / "api" / "errors" / "index.json").read_text(encoding="utf-8") == '{"mine": true}\n'

    (out / "api" / "errors" / "index.json").unlink()
    assert cli("--root", str(kb), "render", "--out", str(out)) == 0
    assert cli("--root", str(kb), "render", "--out", str(out)) == 0  # its own files, replaced
    capsys.readouterr()
    page = next((out / "errors").glob("*/*.md"))  # an entry's page
    edited = page.read_text(encoding="utf-8") + "\nA note of mine.\n"
    page.write_text(edited, encoding="utf-8")
    assert cli("--root", str(kb), "render", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert f"{page.name} (changed since errorkb render wrote it)" in err, err
    assert page.read_text(encoding="utf-8") == edited and (out / "notes.md").exists()


def test_render_keeps_the_author_s_own_site_page_as_the_plugin_does(kb, capsys):
    """A hand-written tags.md (docs/tags.md: Material's tags page) wins over the generated one in a MkDocs build;
    `render --out` over a copy of docs/ overwrote it. Kept, said, and everything else written."""
    out = kb / "rendered"
    out.mkdir()
    (out / "tags.md").write_text("# Tags\n\n<!-- material/tags -->\n", encoding="utf-8")
    assert cli("--root", str(kb), "render", "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "kept" in err and "tags.md" in err and "docs/tags.md" in err, err
    assert (out / "tags.md").read_text(encoding="utf-8") == "# Tags\n\n<!-- material/tags -->\n"
    assert (out / "errors" / "index.md").is_file()
    assert cli("--root", str(kb), "render", "--out", str(out)) == 0  # and again: still the author's
    assert (out / "tags.md").read_text(encoding="utf-8") == "# Tags\n\n<!-- material/tags -->\n"


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_render_never_writes_through_a_link_nor_opens_a_fifo_at_a_path_it_writes(kb, capsys, kind):
    out = kb / "rendered"
    out.mkdir()
    (out / "notes.md").write_text("mine\n", encoding="utf-8")
    (out / "api" / "errors").mkdir(parents=True)
    if kind == "link":
        (out / "api" / "errors" / "index.json").symlink_to("../../notes.md")
    else:
        os.mkfifo(out / "api" / "errors" / "index.json")
    assert cli("--root", str(kb), "render", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "index.json (not a regular file" in err, err
    assert (out / "notes.md").read_text(encoding="utf-8") == "mine\n" and len(list(out.iterdir())) == 2
    assert len(list((out / "api" / "errors").iterdir())) == 1


@pytest.mark.parametrize("command", [["report", "merge", "{out}", "{kb}/reports/latest.json"],
                                     ["verify", "--report", "{out}"]])
def test_a_report_to_merge_into_that_is_not_a_regular_file_is_refused_before_any_work(kb, capsys, tmp_path,
                                                                                          command):
    """`errorkb report merge /dev/null IN` refused the device only once it had merged, and saved the run's data
    beside it: a file in /dev. A device or FIFO named as the report is now a usage error, before any work.
    (A FIFO stands in for the device here: a test must never touch the machine's /dev.)"""
    out = tmp_path / "out" / "pipe.json"
    out.parent.mkdir()
    os.mkfifo(out)
    before = {path: path.read_bytes() for path in kb.rglob("*") if path.is_file()}
    code = cli("--root", str(kb), *(arg.format(kb=kb, out=out) for arg in command))
    printed = capsys.readouterr()
    assert code == 2 and f"{str(out)!r} is not a regular file" in printed.err, printed
    assert printed.err.strip().count("\n") == 0 and "Traceback" not in printed.err
    assert sorted(path.name for path in out.parent.iterdir()) == ["pipe.json"], "nothing was written beside it"
    assert {path: path.read_bytes() for path in kb.rglob("*") if path.is_file()} == before

"""Round twenty: attacks that go around the observer rather than through it (the sandbox, the pool, the stream).

Each test runs hostile checks in a sandboxed pool (fork+bwrap, the lean interpreter: tests/lean.py) and asserts
what must hold for the *other* checks and for the harness: a check leaves nothing a later or a concurrent check
of the same zygote can see, and the verdicts of honest twins stay passes.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.run import run_check
from tests.verify.containment import HONEST, LIBRARY, MODULE, TORCH, run_snippet
from tests.verify.containment import seen as _seen
from tests.verify.verifykb import FIXTURE

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]


DESCRIPTIONS = """
import fcntl, json, os


def descriptions():
    seen = {}
    for fd in range(64):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        seen[str(fd)] = {"flags": fcntl.fcntl(fd, fcntl.F_GETFL), "node": [info.st_dev, info.st_ino],
                         "offset": _offset(fd)}
    return seen


def _offset(fd):
    try:
        return os.lseek(fd, 0, os.SEEK_CUR)
    except OSError:
        return None
"""

SHOW = DESCRIPTIONS + 'print("FDS " + json.dumps(descriptions()))\n' + HONEST
LEAVE = DESCRIPTIONS + """
for fd in map(int, descriptions()):
    if fd == 3:  # the stream's write end: its own pipe
        continue
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND | os.O_NONBLOCK | os.O_NOATIME)
    except OSError:
        pass
    try:
        os.lseek(fd, 12345, os.SEEK_SET)
    except OSError:
        pass
print("LEFT " + json.dumps(descriptions()))
""" + HONEST


def test_a_check_shares_no_open_file_description_with_the_zygote_nor_a_later_check(entry, project, lean_pool,
                                                                                   lean_python):
    """A forked check inherits its zygote's descriptors; the jail closes all but the standard three and the
    stream, but a descriptor that stays refers to the zygote's own open file description, whose status flags and
    offset are shared by every fork: what one check sets there, every later check (and the zygote) reads, a channel
    from one check to the next (docs/threat-model.md: a check cannot 'talk to another check'; the zygote of round 2
    is that of round 1 as it said hello). Each check's descriptors must be its own."""
    before, verdict = run_snippet(lean_pool, lean_python, entry, project, "show.py", SHOW)
    assert verdict.outcome == "pass", verdict.reason
    baseline = _seen(before.output, "FDS")
    left, _ = run_snippet(lean_pool, lean_python, entry, project, "leave.py", LEAVE)
    changed = _seen(left.output, "LEFT")
    assert any(changed[fd] != baseline[fd] for fd in baseline if fd in changed), "the hostile check changed nothing"
    after, verdict = run_snippet(lean_pool, lean_python, entry, project, "show.py", SHOW)
    assert verdict.outcome == "pass", verdict.reason
    assert _shared(_seen(after.output, "FDS")) == _shared(baseline), \
        "a later check sees what an earlier one left on its descriptors"


def _shared(descriptions: dict) -> dict:
    """What a descriptor's open file description holds that a fork would share (the stream is each check's own
    pipe: its node differs from check to check, its flags must not). The output file lies on the check's own
    tmpfs, whose device number the kernel hands out anew at each mount (another sandbox on the machine takes
    the next one in between: CI's load made this test fail on that alone), so a node compares by its inode."""
    return {fd: {**seen, "node": None if fd == "3" else seen["node"][1]} for fd, seen in descriptions.items()}


REPLACE_OUTPUT = """
import os
path = os.readlink("/proc/self/fd/1")  # where the harness will read what the check printed
os.unlink(path)
if WHAT == "fifo":
    os.mkfifo(path)
else:
    os.symlink(SECRET, path)
print("printed before the swap is lost with the file; this line goes to the unlinked one")
""" + HONEST


@pytest.fixture(scope="module")
def bare_pool(lean_python):
    """A pool without the sandbox (`--sandbox auto` where bwrap cannot run: Docker's default profile)."""
    with WorkerPool(LIBRARY, [], None) as pool:
        yield pool


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
@pytest.mark.parametrize("what", ["fifo", "link"])
def test_the_harness_reads_a_checks_output_only_from_a_plain_file_even_without_the_sandbox(
        entry, project, bare_pool, lean_python, tmp_path, what, isolation):
    """Without the sandbox the check can name the file the harness reads its output from (/proc/self/fd/1) and
    put a FIFO there, on which the harness's read blocks for ever: the whole run hangs, past every time limit
    (the wall-clock backstop bounds the check, not the harness). Or a link to a file of the host, which the harness
    copied into the report (published). The harness reads a regular file only, never through a link, never
    blocking; the check's verdict is still judged from its stream (the honest call here: a pass)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2-on-the-host")
    path = project / "snippets" / "good-head-dim" / f"swap-{what}.py"
    path.write_text(f"WHAT = {what!r}\nSECRET = {str(secret)!r}\n" + REPLACE_OUTPUT)
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    done: list = []

    def go() -> None:
        done.append(bare_pool.run(check, 60, lean_python) if isolation == "fork"
                    else run_check(check, LIBRARY, 60, lean_python, None))

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    worker.join(120)
    if worker.is_alive():  # unblock the harness's read of the FIFO (a writer opens it, closes it: end of file)
        for folder in Path("/tmp").glob("errorkb-*"):
            for fifo in [*folder.glob("output.txt"), *folder.glob("check-*/output.txt")]:
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
        worker.join(30)
        pytest.fail("the harness blocked reading the check's output: a FIFO the check put in its place")
    run = done[0]
    assert "hunter2" not in run.output
    assert judge_with(check, run, TORCH).outcome == "pass", judge_with(check, run, TORCH).reason


SWAPS_ITS_HELPER = """
import pathlib
helper = pathlib.Path(__file__).parent / "lib" / "shapes.py"
marker = pathlib.Path(MARKER)
if not marker.exists():  # the first run only: what it imports is not what the harness keyed it by
    marker.write_text("swapped")
    helper.write_text("LAYERS = 3\\n")
from lib import shapes
if shapes.LAYERS != 4:
    raise SystemExit(3)
""" + HONEST


def test_a_verdict_is_cached_only_under_the_inputs_it_was_observed_with(tmp_path, lean_checks):
    """The key holds the digest of the snippet's folder, read before the check runs; a module beside the snippet is
    read when the check imports it. Changed in between (an author saving under `verify --watch`, or, without the
    sandbox, the snippet itself), the verdict observed with the new file was stored under the old file's key, and a
    later run with the old file got it from the cache: here a fail for a helper whose own run passes."""
    from errorkb.verify.engine import Verifier
    from tests.verify.verifykb import copy_fixture, load_kb

    root = copy_fixture(tmp_path / "kb", ["good-head-dim"], timeout=60)
    folder = root / "snippets" / "good-head-dim"
    (folder / "lib").mkdir()
    (folder / "lib" / "shapes.py").write_text("LAYERS = 4\n")
    marker = tmp_path / "marker"
    (folder / "after.py").write_text(f"MARKER = {str(marker)!r}\n" + SWAPS_ITS_HELPER)
    project, entries = load_kb(root)
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")

    def record():
        path = folder / "after.py"
        check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
        verifier = Verifier(project, ["bundled"], sandbox="off", cache_dir=tmp_path / "cache")
        try:
            return verifier.record(check)
        finally:
            verifier.close()

    first = record()
    assert first.outcome == "fail" and "sys.exit(3)" in first.reason, first.reason  # it ran with LAYERS = 3
    assert first.inputs is None, "its record claims the inputs of the key, not those it ran with"
    (folder / "lib" / "shapes.py").write_text("LAYERS = 4\n")  # the folder as it was keyed
    again = record()
    assert not again.cached, "a verdict observed with other inputs than its key's was reused"
    assert again.outcome == "pass", again.reason


def test_a_checks_record_stays_small_whatever_the_snippet_raised_or_printed(entry, project, broken_kb):
    """A check's stream may carry 8 MiB: 400 calls of the function unwound by a 3 000-character message of control
    characters (escaped six-fold in JSON) made a 7 MB record (measured: 150 calls, 2.7 MB), and a report is refused
    past 32 MiB, so five such checks took every other check's verdict out of the run's report. A record is at most
    64 KiB, its counts whole; an honest record is left as it is."""
    from errorkb.verify.engine import record_of
    from errorkb.verify.records import Calls, Code, ExceptionInfo, Observation, Outcome, RaisedCall, Status, Verdict
    from errorkb.verify.run import Run

    path = FIXTURE / "snippets" / "good-head-dim" / "after.py"
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    project_of = broken_kb[0]
    message = "\x01" * 20000
    raised = [RaisedCall(type="RuntimeError", message=message) for _ in range(400)]
    seen = Observation(status=Status.RAISED, exception=ExceptionInfo(type="RuntimeError", message=message,
                                                                      traceback="\x02" * 200000),
                       calls=Calls(function="Cache.early_initialization", count=400, raised=raised, raised_count=400),
                       interference=[f"compiled code under the name of a file ({n}{message[:100]})" for n in range(999)])
    run = Run(seen, 0, False, "\x03" * (1 << 20), 1 << 20, 1.0, 60.0, ended=True)
    verdict = Verdict(outcome=Outcome.FAIL, code=Code.TAMPERED, reason="the snippet " + message)
    record = record_of(check, project_of, verdict, run, "fork+bwrap", "k", "i")
    assert len(record.model_dump_json(exclude_none=True).encode()) <= 64 << 10
    assert record.calls is not None and record.calls.raised_count == 400 and record.calls.count == 400
    assert record.outcome == "fail" and record.code == "tampered" and record.interference

    honest = Observation(status=Status.RETURNED, calls=Calls(function="Cache.early_initialization", count=1,
                                                             returned=1))
    passed = Verdict(outcome=Outcome.PASS, code=Code.RAN_CLEAN, reason="every call returned")
    small = record_of(check, project_of, passed, Run(honest, 0, False, "ok\n", 3, 1.0, 60.0, ended=True), "fork", "k",
                      "i")
    assert small.output == "ok\n" and small.reason == "every call returned" and small.calls == honest.calls

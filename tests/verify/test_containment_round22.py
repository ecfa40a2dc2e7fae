"""Round twenty-two: fresh attacks on the judge, the sandbox and the verdict cache.

The question each time: can a snippet make the judge report a pass it did not observe, or an honest snippet fail?
The cache's key covers the entry and every file of the snippet's folder (`results.keys.inputs_digest`, the one
digest); a link in that folder is hashed as the path it names, never followed, while the check's process follows it
(the sandbox shows the project, read-only, at its own path). Resource and time attacks run in the round's sandboxed
pool (`test_containment_round20`), each beside an honest twin of the same zygote.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.containment import HONEST, run_snippet  # its fixtures: tests/verify/conftest.py

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

# -- the cache: a verdict rests only on bytes its key holds --------------------------------------------------------

def _kb(tmp_path: Path) -> Path:
    from tests.verify.verifykb import copy_fixture

    return copy_fixture(tmp_path / "kb", ["good-head-dim"], timeout=60)


@pytest.mark.parametrize("name, target", [("shapes", "package"), ("sizes.json", "data file")])
def test_a_verdict_never_rests_on_what_a_link_leads_out_of_the_snippets_folder_to(tmp_path, name, target):
    """A package folder beside the snippet that is a link out of the entry's folder (`shapes -> ../../elsewhere/
    shapes`), or a data file so linked: the key hashes the link's text, the check, in the sandbox too (the project is
    shown read-only at its own path), reads what it leads to. Measured (fork+bwrap): an after importing `shapes`
    passed with LAYERS = 4 and was cached; LAYERS = 3, which makes it exit 3, answered the same pass from the cache
    (`cached: true`), a fresh run failed. The loader held modules beside a snippet inside the folder, but listed no
    module inside a linked folder, and no file that is not Python: such a link is a problem, naming it and what to
    do, and `verify` runs nothing of a knowledge base with problems. A link that stays inside is the honest twin."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    root = _kb(tmp_path)
    folder = root / "snippets" / "good-head-dim"
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    if target == "package":
        (elsewhere / name).mkdir()
        (elsewhere / name / "__init__.py").write_text("LAYERS = 4\n")
    else:
        (elsewhere / name).write_text('{"layers": 4}\n')
    (folder / name).symlink_to(Path("..", "..", "elsewhere", name))
    (folder / "inside.json").write_text("{}\n")
    (folder / "twin.json").symlink_to("inside.json")  # the honest twin: a link to a file the folder holds
    found = load_project_entries(load_project(root)).problems
    said = [str(problem) for problem in found if f"good-head-dim/{name}" in problem.path]
    assert len(said) == 1 and "leads out of" in said[0] and "inside the folder" in said[0], [str(p) for p in found]
    assert not [problem for problem in found if "twin.json" in problem.path], [str(p) for p in found]


# -- resources and time: the snippet's own verdict at most, never a pass, and never the next check's -----------------

FORK_BOMB = """
import os, time
born = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        born += 1
finally:
    print(f"BORN {born}")
""" + HONEST

FILES = """
descriptors = []
try:
    while True:
        descriptors.append(open("/dev/null"))
except OSError as error:
    print(f"OPENED {len(descriptors)}: {error}")
""" + HONEST

THREADS = """
import threading
stop = threading.Event()
started = 0
try:
    while True:
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError as error:
    print(f"STARTED {started}: {error}")
""" + HONEST

KILLS_ITS_PARENT = """
import os, signal
for number in (signal.SIGTERM, signal.SIGKILL, signal.SIGALRM):
    os.kill(os.getppid(), number)
""" + HONEST

ALARM_AFTER = HONEST + """
import signal, time
signal.setitimer(signal.ITIMER_REAL, 0.2)
time.sleep(5)
"""

# what a forged record looks like: a line of the observer's shape, unsealed, on the stream's descriptor and the rest
LOOK_ALIKE = b'{"e": "end", "n": 1, "p": 2, "status": "returned", "counts": [[1, 1]]}'
FORGES = f"""
import os
for fd in range(1, 16):
    try:
        os.write(fd, {LOOK_ALIKE!r} + b"\\n")
    except OSError:
        pass
""" + HONEST

CUT_SHORT = HONEST + f"""
import os
os.write(3, {LOOK_ALIKE[:30]!r})
"""

LATE_CHILD = HONEST + f"""
import os, time
if os.fork() == 0:
    time.sleep(1.5)
    for fd in range(1, 16):
        try:
            os.write(fd, {LOOK_ALIKE!r} + b"\\n")
        except OSError:
            pass
    os._exit(0)
"""

ATTACKS = {  # name: (snippet, outcome, words the verdict says, words the output says)
    # each child sleeps: the 1024 tasks of the check are taken, and its next fork fails (never the machine's)
    "fork-bomb": (FORK_BOMB, "fail", "raised BlockingIOError", "BORN 10"),
    # out of its descriptors, then the honest call: the call was observed, so the after passes
    "files": (FILES, "pass", "every call returned", "OPENED "),
    "threads": (THREADS, "pass", "every call returned", "STARTED "),
    # its parent is its PID namespace's init, the jail's timer: a signal it takes ends the check, not the pool
    "kills-its-parent": (KILLS_ITS_PARENT, "fail", "killed by SIG", ""),
    "alarm": (ALARM_AFTER, "fail", "killed by SIGALRM", ""),
    "forges": (FORGES, "fail", "the verifier did not write", ""),
    # its bytes and the observer's end run into one line: no end, and the verdict says what the stream held instead
    "cut-short": (CUT_SHORT, "fail", "without reporting: the observation stream holds 1 line the verifier did not "
                                     "write", ""),
    # the fork outlives its parent's end by 1.5 s: the namespace ends with the check, and it never speaks
    "late-child": (LATE_CHILD, "pass", "every call returned", ""),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_check_exhausting_signalling_or_forging_spoils_at_most_its_own_verdict(entry, project, lean_pool,
                                                                                lean_python, name):
    """Fork bombs, descriptors, threads, its parent signalled, an alarm after the call, records of the observer's
    shape written to every descriptor it holds (before the call, cut short at the end, and by a fork that outlives
    the check): each verdict is what was observed, in the words of its cause, and never a pass the snippet did not
    earn; the next check of the same zygote, an honest twin, passes. All held on first run (fork+bwrap, as root:
    the pids cgroup per check)."""
    code, outcome, words, printed = ATTACKS[name]
    run, verdict = run_snippet(lean_pool, lean_python, entry, project, f"{name}.py", code)
    assert verdict.outcome == outcome and words in verdict.reason, (verdict.outcome, verdict.reason,
                                                                    run.output[-1500:])
    assert printed in run.output, run.output[-1500:]
    _, honest = run_snippet(lean_pool, lean_python, entry, project, "honest.py", HONEST)
    assert honest.outcome == "pass", honest.reason


# -- time: a finalizer, an exit, a timer, around the observer's end ------------------------------------------------

BEFORE = (Path(__file__).resolve().parents[1] / "fixtures" / "broken_kb" / "snippets" / "good-head-dim" /
          "before.py").read_text()

EXIT_IN_DEL = """
class Leaves:
    def __del__(self):
        import sys
        sys.exit(0)  # an exception in a finalizer is only printed: never the check's end


leaves = Leaves()
try:
""" + "".join(f"    {line}\n" for line in BEFORE.splitlines()) + """
finally:
    del leaves
"""

OS_EXIT_AFTER_RAISE = "import posix\ntry:\n" + "".join(f"    {line}\n" for line in BEFORE.splitlines()) + """
finally:
    posix._exit(0)  # the documented error raised, then out before the observer's end: no end, no verdict
"""

SLEEPS_AT_EXIT = HONEST + """
import atexit, threading, time, weakref


class Slow:
    pass


slow = Slow()
weakref.finalize(slow, time.sleep, 600)
atexit.register(time.sleep, 600)
threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
"""

TIMER_RAISES = """
import signal
try:
""" + "".join(f"    {line}\n" for line in BEFORE.splitlines()) + """
except ValueError as error:
    documented = str(error)


def handler(number, frame):
    signal.setitimer(signal.ITIMER_PROF, 0)
    raise ValueError(documented)  # the documented words, from a handler that may land inside the call


signal.signal(signal.SIGPROF, handler)
signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)
for _ in range(200000):
    cache.early_initialization(batch_size=1, num_heads=4, head_dim=64, dtype=torch.float32, device="cpu")
"""

TIMED = {  # name: (snippet, role, outcome, words the verdict says)
    "exit-in-del": (EXIT_IN_DEL, "before", "pass", "raised"),
    "os-exit-after-raise": (OS_EXIT_AFTER_RAISE, "before", "fail", "exited with status 0 without reporting"),
    "sleeps-at-exit": (SLEEPS_AT_EXIT, "after", "pass", "every call returned"),
    "timer-raises": (TIMER_RAISES, "before", "fail", ""),
}


@pytest.mark.parametrize("name", list(TIMED))
def test_a_finalizer_an_exit_or_a_timer_never_makes_a_verdict_it_did_not_observe(entry, project, lean_pool,
                                                                              lean_python, name):
    """`sys.exit` in a finalizer while the documented error unwinds (printed, never the end: the honest before
    still passes); `posix._exit(0)` after the raise, before the observer's end (no end: a fail); an after that leaves
    a finalizer, an atexit hook and a daemon thread sleeping 600 s (the observer's end is the process's end: a pass,
    in seconds, not at the backstop); a CPU timer whose handler raises the documented words, landing inside the
    call or beside it (never the function's own raise). All held on first run."""
    import time

    code, role, outcome, words = TIMED[name]
    started = time.monotonic()
    run, verdict = run_snippet(lean_pool, lean_python, entry, project, f"{name}.py", code, role=role)
    assert verdict.outcome == outcome and words in verdict.reason, (verdict.outcome, verdict.reason,
                                                                    run.output[-1500:])
    assert time.monotonic() - started < 50 and not run.timed_out, "it ran into the wall-clock backstop"
    _, honest = run_snippet(lean_pool, lean_python, entry, project, "honest.py", HONEST)
    assert honest.outcome == "pass", honest.reason

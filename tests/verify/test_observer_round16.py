"""Round sixteen (red17): evidence the calling thread did not make.

The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), watching a
function of a module of the target's folder (`lib/waiting.py`), with the fake device counter `run_scenario(probe=True)`
wires to the observer's probe (a dict the snippet can add to, as a CUDA allocation adds to the allocator's counter).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from errorkb.verify.records import Status
from tests.verify.test_observer import read, run_scenario
from tests.verify.test_observer_round12 import watch_in

WAITING = '''
def wait(event, counter=None):
    """Waits for the event it is handed (CPU work alone), then does its own device work where handed a counter."""
    event.wait(30)
    if counter is not None:
        counter["allocated"] += 4096
    return 1
'''


def _run(tmp_path: Path, body: str):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "waiting.py").write_text(WAITING)
    body = "import waiting\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, probe=True, configure=watch_in("waiting", "wait"))).observation


# A thread of the snippet's allocates on the device while the function, called on the CPU alone, waits: the runtime's
# counter is the process's (every thread's, per device), so the call's reading took the thread's work for its own.
ELSEWHERE = """
import threading
import time

event = threading.Event()


def allocate():
    time.sleep(0.3)  # the main thread is inside the call by now
    counter["allocated"] += 1 << 20
    event.set()


thread = threading.Thread(target=allocate)
thread.start()
waiting.wait(event)
thread.join()
"""


def test_device_work_another_thread_did_during_the_call_is_not_the_calls(tmp_path):
    """A CUDA after whose function only ran on the CPU: the snippet's own thread allocated on the device while the
    call waited, and the process-wide counter rose between the call's start and end (on main: 1 MiB counted, a call
    with device work, a CUDA pass). Device work read while another thread the snippet started was alive is not the
    call's: not counted, and said."""
    seen = _run(tmp_path, ELSEWHERE)
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.evidence is not None and seen.evidence["allocated_bytes"] == 0, seen.evidence
    assert seen.evidence["calls"] == 0 and seen.evidence.get("shared") == 1, seen.evidence


def test_the_calls_own_device_work_beside_an_idle_thread_that_ended_is_counted(tmp_path):
    """The other side: a thread of the snippet's that ended before the call, and the call's own device work: counted."""
    body = """
    import threading

    event = threading.Event()
    thread = threading.Thread(target=event.set)
    thread.start()
    thread.join()
    waiting.wait(event, counter)
    """
    seen = _run(tmp_path, body)
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.evidence == {"allocated_bytes": 4096, "calls": 1}, seen.evidence


def test_the_judge_says_a_cuda_afters_counter_rose_only_beside_another_thread(broken_kb, tmp_path):
    """The judge on that observation: a CUDA after with no device work of the call's own fails, saying why (the counter
    rose while another thread was alive), not "saw no work"."""
    from errorkb.core.snippets import Role, read_snippet
    from errorkb.plugs import runtime_for
    from errorkb.verify.judge import judge
    from errorkb.verify.plan import Check
    from errorkb.verify.records import Calls, Code, Observation, Outcome
    from errorkb.verify.run import Run

    seen = _run(tmp_path, ELSEWHERE)
    _, entries = broken_kb
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")
    snippet = tmp_path / "after.py"
    snippet.write_text("pass\n")
    check = Check(entry, read_snippet(snippet, Role("after"), "after.py"), "bundled", "cuda", "transformers.cache_utils")
    seen = Observation(status=Status.RETURNED, calls=Calls(function="Cache.early_initialization", count=1, returned=1),
                       evidence=seen.evidence)
    verdict = judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="returned"), runtime_for("torch"))
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.NO_DEVICE_WORK, verdict
    assert "while another thread the snippet started was alive" in verdict.reason, verdict.reason

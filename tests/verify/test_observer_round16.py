"""Round sixteen (red17): evidence the call did not make, and C code the snippet planted before the function's own
`raise`.

Each hole was a false pass on main: device work another thread of the snippet's, or C code it planted in the call's
arguments, did while the function ran on the CPU, counted as the call's (a CUDA after passed); and C code the snippet
planted on what it handed the call (a property over C code, a class given by `__class__` assignment, a descriptor class
whose `__get__` is a class) choosing what the function read before its own `raise` (a raise entry's before passed). The
scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), watching a
function of a module of the target's folder, with the fake device counter `run_scenario(probe=True)` wires to the
observer's probe (a dict the snippet can add to, as a CUDA allocation adds to the allocator's counter).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from errorkb.verify.records import Status
from tests.verify.test_observer import judge_cuda_after, read, run_scenario
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
    from errorkb.verify.records import Code, Outcome

    verdict = judge_cuda_after(broken_kb, tmp_path, _run(tmp_path, ELSEWHERE).evidence)
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.NO_DEVICE_WORK, verdict
    assert "while another thread the snippet started was alive" in verdict.reason, verdict.reason


# -- C code the snippet planted on an object it hands the call, changing what the function reads before its own raise

CHECKED = '''
class Store:
    def __init__(self):
        self.frozen = False


def refresh(store):
    """Takes the store as unfrozen, then refuses a frozen store by its own `raise`."""
    store.frozen = False
    if store.frozen:
        raise ValueError("n must be positive, got -1")
    return store
'''

MESSAGE = "n must be positive, got -1"

# The store's `frozen` read through a property whose getter and setter are C code (`bool(store)` is True; `slice`
# takes the two arguments a setter gets and keeps nothing): the function's own `raise` follows its own assignment.
PLANTED_STORES = {
    # a store of the snippet's class, handed to the function
    "own-class": "class Frozen:\n    frozen = property(bool, slice)\n\n\nstore = Frozen()\n",
    # the library's own store, its class assigned to the snippet's (`__class__`, which the allow-list lets name)
    "class-assigned": "class Frozen(checked.Store):\n    frozen = property(bool, slice)\n\n\n"
                      "store = checked.Store()\nstore.__class__ = Frozen\n",
    # a property of a subclass of `property`, over a C type's method (`object.__sizeof__`: a number, truthy)
    "property-subclass": "class Held(property):\n    pass\n\n\nclass Frozen:\n"
                         "    frozen = Held(object.__sizeof__, slice)\n\n\nstore = Frozen()\n",
    # a descriptor class whose `__get__` and `__set__` are a class (`slice(descriptor, store, type)`: truthy)
    "descriptor-class": "class Answer:\n    __get__ = slice\n    __set__ = slice\n\n\nclass Frozen:\n"
                        "    frozen = Answer()\n\n\nstore = Frozen()\n",
}


def _checked(tmp_path: Path, body: str):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "checked.py").write_text(CHECKED)
    body = "import checked\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, configure=watch_in("checked", "refresh"))).observation


@pytest.mark.parametrize("how", sorted(PLANTED_STORES))
def test_c_code_planted_on_what_the_call_is_handed_changing_what_it_reads_before_its_own_raise_is_planted(tmp_path,
                                                                                                          how):
    """The function assigns `frozen = False` and reads it back: the store's class (the snippet's own, or the
    library's object given the snippet's class by `__class__` assignment) answers through C code alone, no frame of
    the snippet's inside the call. Python's class, the documented text, started at the function's own `raise` (a raise
    entry's before passed on main): the planted search ran only where an error started in C code or beneath."""
    seen = _checked(tmp_path, PLANTED_STORES[how] + "checked.refresh(store)\n")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.opcode == "RAISE_VARARGS", seen.exception
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.interference, seen.tampered)


def test_the_functions_own_raise_on_an_honest_store_is_its_own(tmp_path):
    """The other side: a store of the snippet's class holding plain data, and the library's own store, each given a
    state the function refuses by its own `raise` (a subclass overriding nothing the function reads): no tampering."""
    body = """
    class Mine(checked.Store):
        kind = "mine"


    for store in (Mine(), checked.Store()):
        store.frozen = True
        try:
            checked.refresh(store)
        except ValueError:
            pass
    """
    seen = _checked(tmp_path, body)
    assert seen is not None and seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


# -- device work C code the snippet planted did inside the call

HOOKED = '''
def refresh(store, hook):
    """Runs the hook it is handed on the store (CPU work alone), and returns."""
    hook(store)
    return store
'''


def _hooked(tmp_path: Path, body: str):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooked.py").write_text(HOOKED)
    body = "import hooked\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, probe=True, configure=watch_in("hooked", "refresh"))).observation


def test_device_work_of_c_code_the_snippet_planted_in_the_call_is_not_the_calls(tmp_path):
    """A CUDA after whose function only calls the hook it is handed: the hook is C code the snippet chose
    (`functools.partial(counter.update, allocated=...)`, as `partial(torch.ones, n, device="cuda")` allocates), run with
    no frame inside the call; the counter rose during the call (on main: counted, a CUDA pass). A call whose counter
    rose while what the snippet handed it holds planted C code is not counted as the call's own work."""
    body = "import functools\n\nhooked.refresh({}, functools.partial(counter.update, allocated=1 << 20))\n"
    seen = _hooked(tmp_path, body)
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.evidence is not None and seen.evidence["allocated_bytes"] == 0, seen.evidence
    assert seen.evidence["calls"] == 0 and seen.evidence.get("planted") == 1, seen.evidence


def test_device_work_beside_the_snippets_own_plain_hook_is_counted(tmp_path):
    """The other side: the function's hook is a trusted callable over plain data (`vars`), and the device work is the
    call's own (here done by the library's `work`, handed the counter): counted."""
    seen = read(run_scenario(tmp_path, "lib.work(1, counter)\n", probe=True)).observation
    assert seen is not None and seen.evidence == {"allocated_bytes": 4096, "calls": 1}, seen.evidence

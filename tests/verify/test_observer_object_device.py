"""Device evidence for a function that allocates nothing: the library's own work on the object it was called on.

A CUDA after of `Cache.get_seq_length`, `batch_size` or an empty constructor could never pass: the function allocates
nothing on any device, however right the fix (79 of the first H100 run's CUDA failures). The narrower claim: the
library's own calls on the object the function under test was called on (`self`) allocated on the device, read by the
device's own counter around those calls (`_p_object_call`), under the rules of the function's own evidence (no other
thread alive, no C code the snippet planted in what it handed) and one more (no code of the snippet's ran inside the
call). The scenarios run as `tests/verify/test_observer.py` runs them, with its fake device counter
(`run_scenario(probe=True)`: a dict the snippet can add to, as a CUDA allocation adds to the allocator's counter),
watching `Store.size` of a module of the target's folder. No GPU here: these are CPU fakes, and say so.
"""

from __future__ import annotations

import dis
import importlib
import textwrap
from pathlib import Path

import pytest

from errorkb.verify.records import Status
from tests.verify.test_observer import read, run_scenario

HELD = '''
class Store:
    """The library's object: a constructor that may allocate its storage, a method that may, a reader that never does."""

    def __init__(self, counter=None):
        self.items = []
        self.on_flush = None
        if counter is not None:
            counter["allocated"] += 1024

    def put(self, value, counter=None, hook=None, copy=False):
        if hook is not None:
            hook(value)
        if copy:
            value = value.clone()  # the runtime's own function on what it is handed
        if counter is not None:
            counter["allocated"] += 4096
        self.items.append(value)
        return self

    def refill(self, counter):
        return self.put(None, counter)

    def flush(self):
        if self.on_flush is not None:
            self.on_flush(self.items)
        return self

    def size(self):
        """The function under test: reads the store, allocates nothing."""
        return len(self.items)

    @property
    def count(self):
        return len(self.items)


class Other:
    def __init__(self, counter=None):
        if counter is not None:
            counter["allocated"] += 4096


def fill(store, counter):
    """A library function, no method of the store's class: handed the store, it allocates."""
    counter["allocated"] += 4096
    return store
'''


def _watch_size(config: dict) -> None:
    module = importlib.import_module("held")
    function = module.Store.size
    code = function.__code__
    config["slots"][0].update(
        label="Store.size", code=code, function=function, function_code=code, name="size", raw=function, reads=[],
        globals=function.__globals__,
        normal=[i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
        defaults=None, kwdefaults=None)
    config["owners"] = [("Store.size", module.Store, "size", function)]


def _run(tmp_path: Path, body: str, probe: bool = True):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "held.py").write_text(HELD)
    body = "import held\n" + textwrap.dedent(body)
    seen = read(run_scenario(tmp_path, body, probe=probe, configure=_watch_size)).observation
    assert seen is not None and seen.status is Status.RETURNED, seen
    assert seen.tampered == [] and seen.calls.count == seen.calls.returned >= 1, (seen.tampered, seen.calls)
    return seen


@pytest.mark.parametrize(("body", "done"), [
    ("store = held.Store()\nstore.put(1, counter)\nstore.size()\n", 4096),  # the work before the function's call
    ("store = held.Store()\nstore.size()\nstore.put(1, counter)\n", 4096),  # ... and after it
    ("held.Store(counter).size()\n", 1024),  # the object's constructor, allocating its storage
    ("store = held.Store()\nstore.put(1, counter)\nstore.put(2, counter)\nstore.size()\n", 8192),
])
def test_the_librarys_work_on_the_object_the_function_ran_on_is_counted_for_it(tmp_path, body, done):
    """The function allocates nothing (its own evidence stays 0); the library's calls on its `self` did: counted apart,
    as the object's, never as the function's."""
    seen = _run(tmp_path, body)
    assert seen.evidence is not None, seen
    assert (seen.evidence["allocated_bytes"], seen.evidence["calls"]) == (0, 0), seen.evidence
    assert seen.evidence["object_bytes"] == done and seen.evidence["objects"] == 1, seen.evidence


def test_a_nested_call_on_the_same_object_is_read_once(tmp_path):
    """`put` inside `refill`, the library's own method calling another on the same object: the outer call's reading
    holds the inner one's work, counted once (the inner one read too would count it twice)."""
    seen = _run(tmp_path, "store = held.Store()\nstore.refill(counter)\nstore.size()\n")
    assert seen.evidence["object_bytes"] == 4096 and seen.evidence["object_calls"] == 1, seen.evidence


# Each, on main, left the observer's evidence without a word on the object; with the object's evidence, each must
# leave it at 0: the work is not the library's own on the object the function ran on.
NOT_THE_OBJECTS = {
    # the snippet's own device work, outside any library call
    "snippet-outside": "store = held.Store()\ncounter['allocated'] += 1 << 20\nstore.size()\n",
    # the library's work on another object of the same class, or of another class
    "another-object": "store = held.Store()\nheld.Store().put(1, counter)\nheld.Other(counter)\nstore.size()\n",
    # a library function that is no method of the object's class, handed the object
    "not-a-method": "store = held.Store()\nheld.fill(store, counter)\nstore.size()\n",
    # an object of the snippet's class, the library's subclassed, doing the library's work: not the library's object
    "snippet-subclass": "class Mine(held.Store):\n    pass\n\n\nstore = Mine()\nstore.put(1, counter)\nstore.size()\n",
    # an object that says it lives on the device (a tensor subclass's `.device`): no counter moves by what it says
    "says-device": "class Lying:\n    device = 'cuda:0'\n    is_cuda = True\n\n\nstore = held.Store()\n"
                   "store.put(Lying())\nstore.size()\n",
    # the library's class called unbound on an object of the snippet's, which it then hands the function
    "unbound-on-another": "class Fake:\n    items = []\n\n\nfake = Fake()\nheld.Store.put(fake, 1, counter)\n"
                          "store = held.Store()\nstore.size()\n",
}


@pytest.mark.parametrize("how", sorted(NOT_THE_OBJECTS))
def test_work_that_is_not_the_librarys_own_on_the_object_is_not_counted(tmp_path, how):
    seen = _run(tmp_path, NOT_THE_OBJECTS[how])
    assert seen.evidence is not None and seen.evidence["allocated_bytes"] == 0, seen.evidence
    assert seen.evidence.get("object_bytes", 0) == 0, seen.evidence


def test_the_snippets_own_code_run_inside_a_call_on_the_object_is_not_the_objects(tmp_path):
    """The library's call on the object runs a hook the snippet wrote (a `__torch_function__`, a callback), which
    allocates: the counter rose inside a library call on the object, but by the snippet's code. Counted apart."""
    body = """
    def allocate(value):
        counter["allocated"] += 1 << 20


    store = held.Store()
    store.put(1, hook=allocate)
    store.size()
    """
    seen = _run(tmp_path, body)
    assert seen.evidence["object_bytes"] == 0 and seen.evidence.get("object_snippet") == 1, seen.evidence


@pytest.mark.parametrize("where", ["handed", "on-the-object"])
def test_c_code_the_snippet_planted_in_a_call_on_the_object_is_not_the_objects(tmp_path, where):
    """C code the snippet chose (`partial(counter.update, ...)`, as `partial(torch.ones, n, device="cuda")` allocates),
    run by the library's call on the object with no frame: handed to the call, or set on the object itself."""
    planted = "functools.partial(counter.update, allocated=1 << 20)"
    body = "import functools\n\nstore = held.Store()\n" + (
        f"store.put([], hook={planted})\n" if where == "handed" else f"store.on_flush = {planted}\nstore.flush()\n")
    seen = _run(tmp_path, body + "store.size()\n")
    assert seen.evidence["object_bytes"] == 0 and seen.evidence.get("object_planted") == 1, seen.evidence


def test_a_tensor_subclass_claiming_the_device_and_allocating_inside_a_call_on_the_object_is_the_snippets(tmp_path):
    """A `torch.Tensor` subclass whose `.device` says cuda and whose `__torch_function__` allocates (on the fake
    counter, as `torch.ones(..., device="cuda")` would) when the library's call on the object clones it: what it
    claims is never read, and its allocation ran in the snippet's code inside the call. Counted apart."""
    body = """
    import torch


    class Lying(torch.Tensor):
        @property
        def device(self):
            return torch.device("cuda", 0)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            counter["allocated"] += 1 << 20
            return super().__torch_function__(func, types, args, kwargs or {})


    store = held.Store()
    store.put(torch.zeros(2).as_subclass(Lying), copy=True)
    store.size()
    """
    seen = _run(tmp_path, body)
    assert seen.evidence["object_bytes"] == 0 and seen.evidence.get("object_snippet") == 1, seen.evidence


def test_device_work_of_another_thread_during_a_call_on_the_object_is_not_the_objects(tmp_path):
    """A thread of the snippet's allocates while the library's call on the object waits (CPU work alone)."""
    body = """
    import threading
    import time

    event = threading.Event()


    def allocate():
        time.sleep(0.3)
        counter["allocated"] += 1 << 20
        event.set()


    thread = threading.Thread(target=allocate)
    thread.start()
    store = held.Store()
    store.put(30, hook=event.wait)  # the library's call waits in Python's own code: no code of the snippet's
    thread.join()
    store.size()
    """
    seen = _run(tmp_path, body)
    assert seen.evidence["object_bytes"] == 0 and seen.evidence.get("object_shared") == 1, seen.evidence


def test_a_property_of_the_object_is_a_method_of_its_class(tmp_path):
    """`Cache.batch_size` is a property: a call of its getter on the object is the library's call on it (here its
    work is none: the function under test is `size`, and the property only reads)."""
    seen = _run(tmp_path, "store = held.Store()\nstore.count\nstore.put(1, counter)\nstore.size()\n")
    assert seen.evidence["object_bytes"] == 4096 and seen.evidence["object_calls"] == 1, seen.evidence


def test_no_device_check_reads_nothing_of_the_objects(tmp_path):
    """On the host's CPU (no probe) the library's calls stay unwatched: no evidence at all, as before."""
    seen = _run(tmp_path, "store = held.Store()\nstore.put(1, counter)\nstore.size()\n", probe=False)
    assert seen.evidence is None, seen.evidence

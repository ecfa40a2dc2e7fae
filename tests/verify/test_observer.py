"""The observer on its own: its private namespace, its stream, what it refuses to run, its device probe.

Each scenario runs in a forked process (the observer adds an audit hook, which cannot be
removed) with the stream on a pipe, and comes back as the harness reads it (`stream.read_stream`).
A scenario watches `work` of a small module of its own, whose folder is the "target".
"""

from __future__ import annotations

import dis
import fractions  # noqa: F401  # loaded before any scenario: its classes are copied as they were
import functools
import json.decoder
import numbers  # noqa: F401
import operator
import os
import re
import sys
import textwrap
import types
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from errorkb.plugs import runtime_for
from errorkb.verify.inside import observer, seal
from errorkb.verify.inside.seal import read_key
from errorkb.verify.judge import judge
from errorkb.verify.records import Code, Outcome, Status
from errorkb.verify.run import Run
from errorkb.verify.stream import parse, read_stream
from tests.verify import lean_parent

LIBRARY = '''
import builtins

def work(n, counter=None):
    if counter is not None:
        counter["allocated"] += 4096   # device work done *during* the call
    if n < 0:
        raise ValueError(f"n must be positive, got {n}")
    return len([n])


class Box:
    def __init__(self, size):
        self.size = size


class LibraryError(Exception):
    pass


def steps(n):
    yield n
    return n


def call(function, *args):
    return function(*args)


def measure(box):
    return len(box.size)


class Module:
    def __call__(self, *args):
        forward_call = self.forward
        return forward_call(*args)


def load():
    from json.decoder import scanstring

    return scanstring


def save(value):
    import pickle

    return pickle.dumps(value)


def clone(value):
    import copy

    return copy.deepcopy(value)
'''


def _private_globals(function: types.FunctionType) -> set[str]:
    names: set[str] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        names.update(i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "STORE_GLOBAL"))
        codes.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return names


def test_the_private_code_names_nothing_the_snippet_can_rebind():
    """Every global a `_p_*` function reads is private (`_S`, `_p_*`, `_c_*`) or a builtin, of which the
    observer holds a copy: never a module whose attributes the snippet could replace."""
    import builtins

    private = [value for name, value in vars(observer).items() if name.startswith("_p_")]
    assert len(private) > 40
    allowed = {"_S"} | {name for name in vars(observer) if name.startswith(("_p_", "_c_"))} | set(dir(builtins))
    wrong = {f"{function.__name__}: {name}" for function in private for name in _private_globals(function)
             if name not in allowed}
    assert wrong == set()


def test_the_captured_functions_are_c_functions_or_plain_values():
    """What `_c_*` holds cannot be patched from Python: C functions, descriptors, types, constants."""
    python_level = [name for name, value in vars(observer).items()
                    if name.startswith("_c_") and isinstance(value, types.FunctionType)]
    assert python_level == []


class Scenario(NamedTuple):
    data: bytes  # the stream
    status: int  # the process's exit status
    key: bytes | None  # what came over the key's channel


def read(scenario: Scenario):
    return read_stream(scenario.data, read_key(scenario.key or b""))


def parsed(scenario: Scenario):
    return parse(scenario.data, read_key(scenario.key or b""))


def run_scenario(tmp_path: Path, body: str, probe: bool = False, callbacks: bool = False,
                 extra: dict | None = None, config: dict | None = None,
                 configure: Callable[[dict], None] | None = None) -> Scenario:
    """Run `body` under the observer, watching `lib.work`: its stream, exit status and key. The case is forked
    from a lean parent (`lean_parent`: only this module's imports loaded, and torch where the case names it), not
    from the test process, whose heap of everything the suite imported made each fork cost ten times as much."""
    if not lean_parent.SERVING:
        preload = ("torch",) if _names_torch(body) else ()
        return lean_parent.call(run_scenario, tmp_path, body, probe, callbacks, extra, config, configure,
                                preload=preload)
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "lib.py").write_text(LIBRARY)
    read_end, write_end = os.pipe()
    key_read, key_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            os.close(key_read)
            sealer = seal.handover(key_write)
            sys.path.insert(0, str(folder))
            import lib

            counter = {"allocated": 0}
            overrides = config or {}
            config = _config(lib, folder, write_end, counter if probe else None)
            config.update(overrides)
            config["sealer"] = sealer
            config["callbacks"] = callbacks
            if configure is not None:
                configure(config)
            code = compile(textwrap.dedent(body), str(tmp_path / "snippet.py"), "exec")
            config["snippet_code"] = code
            observer.install(config)
            namespace = {"lib": lib, "counter": counter, "STREAM": write_end, "__name__": "__main__", **(extra or {})}
            try:
                exec(code, namespace)
                _finish("returned", None)
            except BaseException as error:
                _finish("raised", error)
        finally:
            os._exit(70)
    os.close(write_end)
    os.close(key_write)
    data = b""
    while chunk := os.read(read_end, 1 << 16):
        data += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    key = os.read(key_read, 256)
    os.close(key_read)
    return Scenario(data, os.waitstatus_to_exitcode(status), key)


def _names_torch(body: str) -> bool:
    """Whether the case's snippet names torch: forked from a parent that preloaded it, as the verifier's zygote
    has, the case does not import torch anew (about 1.3 s of CPU) for itself. Only the cost depends on it."""
    return re.search(r"\btorch\b", body) is not None


def _finish(status: str, error: BaseException | None) -> None:
    sys.audit(observer.RESTORE_EVENT)
    described = {"type": type(error).__name__, "message": str(error)} if error is not None else None
    sys.audit(observer.END_EVENT, status, error, {"exception": described}, None)


def _config(lib: types.ModuleType, folder: Path, fd: int, counter: dict | None) -> dict:
    import sysconfig

    function = lib.work
    code = function.__code__
    stdlib = [sysconfig.get_paths()["stdlib"] + "/"]
    site = [sysconfig.get_paths()["purelib"] + "/"]
    verifier = str(Path(observer.__file__).parents[2]) + "/"
    probe = None
    if counter is not None:
        probe = ((([True].__len__, ()),), ((counter.copy, (), ("allocated",)),))
    return {
        "fd": fd, "sha256": "0" * 64, "device": "fake",
        "slots": [{"label": "work", "kind": "function", "code": code, "function": function, "function_code": code,
                   "owner": lib,
                   "name": "work", "raw": function, "globals": function.__globals__,
                   "reads": [(vars(__import__("builtins")), "len", len, "builtins.len")],
                   "normal": [i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
                   "defaults": function.__defaults__, "kwdefaults": function.__kwdefaults__}],
        "init_codes": {lib.Box.__init__.__code__: vars(lib.Box)["__dict__"].__get__},
        "spaces": [("lib", lib, dict(vars(lib)), False, frozenset())],
        "owners": [("work", lib, "work", function)], "sys_modules": [("lib", lib)], "restore": [],
        "snippet_roots": (str(folder.parent / "snippet.py"),), "target_roots": [str(folder) + "/"],
        # This file stands in for the harness (`child.py`, trusted): the code that runs the snippet is
        # trusted here too, so a check that looks one frame too far out sees trusted code and misses.
        "trusted_roots": tuple([*stdlib, *site, str(folder) + "/", verifier, __file__]),
        "stdlib_roots": stdlib, "site_roots": tuple(site), "protected_roots": tuple([str(folder) + "/", *stdlib, verifier]),
        "opnames": tuple(dis.opname), "probe": probe, "api": None, "enders": [_finish.__code__],
        "end_callers": [run_scenario.__code__],
    }


def test_a_clean_run_streams_its_calls_and_ends(tmp_path):
    scenario = run_scenario(tmp_path, "lib.work(1)\nlib.work(2)\n")
    reading = read(scenario)
    assert scenario.status == 0 and reading.rejected is None and reading.ended
    seen = reading.observation
    assert seen.status is Status.RETURNED
    assert (seen.calls.count, seen.calls.returned, seen.calls.running) == (2, 2, 0)


def test_an_exception_caught_after_it_unwound_the_function_is_a_raised_call(tmp_path):
    calls = read(run_scenario(tmp_path, "try:\n    lib.work(-1)\nexcept ValueError:\n    pass\n")).observation.calls
    assert calls.count == 1 and calls.returned == 0
    assert calls.raised[0].type == "ValueError" and calls.raised[0].message == "n must be positive, got -1"


def test_the_top_exception_is_known_by_identity_with_its_text_as_it_was(tmp_path):
    body = """
    try:
        lib.work(-1)
    except ValueError as error:
        error.args = ("rewritten",)
        raise
    """
    seen = read(run_scenario(tmp_path, body)).observation
    start = seen.exception.started
    assert start.where == "target" and start.function == "work" and start.opcode == "RAISE_VARARGS"
    assert start.message == "n must be positive, got -1" and seen.exception.message == "rewritten"


def test_a_copy_of_the_exception_is_not_the_one_that_started_there(tmp_path):
    body = """
    try:
        lib.work(-1)
    except ValueError as error:
        raise ValueError(*error.args).with_traceback(error.__traceback__)
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen.exception.started is None  # it carries the real traceback, but it never started there


def test_the_observer_never_runs_the_exceptions_own_code(tmp_path):
    """An exception whose text needs its own `__str__` is announced without it (the observer's frames
    would be beneath that code): its text at the start reads as unknown."""
    body = """
    class Loud(ValueError):
        def __str__(self):
            return "loud"
    class Bad:
        def __lt__(self, other):
            raise Loud("x")
    lib.work(Bad())
    """
    stream = parsed(run_scenario(tmp_path, body))
    (raised,) = [event for event in stream.raised.values() if event.type == "Loud"]
    assert raised.where == "snippet" and raised.code == "Bad.__lt__" and raised.message is None


def test_a_call_still_running_in_another_thread_is_counted_as_such(tmp_path):
    body = """
    import threading
    gate, inside = threading.Event(), threading.Event()
    class Slow(int):
        def __neg__(self):
            return self
        def __lt__(self, other):
            inside.set()
            gate.wait()
            return False
    threading.Thread(target=lib.work, args=(Slow(1),), daemon=True).start()
    inside.wait(300)  # the call is inside `lib.work` once `n < 0` runs: no sleep to outlast, whatever the load
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert (seen.calls.count, seen.calls.returned, seen.calls.running) == (1, 0, 1)


def test_lines_the_verifier_did_not_write_are_rejected(tmp_path):
    body = """
    import os, json
    os.write(STREAM, (json.dumps({"e": "end", "status": "returned", "n": 1, "p": os.getpid()}) + "\\n").encode())
    """
    reading = read(run_scenario(tmp_path, body))
    assert reading.ended and reading.rejected.startswith("the observation stream holds 1 line the verifier did not write")


# -- the stream: sealed, numbered, trusted only whole --------------------------------------------------


def test_every_line_is_sealed_under_the_key_and_numbered(tmp_path):
    scenario = run_scenario(tmp_path, "lib.work(1)\ntry:\n    lib.work(-1)\nexcept ValueError:\n    pass\n")
    key = read_key(scenario.key)
    lines = scenario.data.splitlines()
    assert key is not None and len(lines) >= 4 and b"errorkb" not in scenario.key
    bodies = [seal.unseal(key, line) for line in lines]
    assert all(body is not None for body in bodies)
    import json

    assert [json.loads(body)["n"] for body in bodies] == list(range(len(lines)))
    assert scenario.key.hex() not in scenario.data.hex() and key not in scenario.data, "the key never travels"


def test_a_stream_read_under_another_key_or_none_is_nobodys(tmp_path):
    scenario = run_scenario(tmp_path, "lib.work(1)\n")
    assert read_stream(scenario.data, bytes(32)).observation is None
    assert read_stream(scenario.data, bytes(32)).rejected.startswith("the observation stream holds")
    none = read_stream(scenario.data, None)
    assert none.observation is None and none.rejected.startswith("the check's process never handed over its")


@pytest.mark.parametrize("lost", [1, 2])
def test_a_line_missing_from_the_sequence_fails_the_stream(tmp_path, lost):
    """A line taken out of the pipe (by a reader racing the harness) leaves a gap: never a clean stream."""
    scenario = run_scenario(tmp_path, "lib.work(1)\ntry:\n    lib.work(-1)\nexcept ValueError:\n    pass\n")
    lines = scenario.data.splitlines(keepends=True)
    cut = b"".join(lines[:lost] + lines[lost + 1:])
    reading = read_stream(cut, read_key(scenario.key))
    assert reading.rejected is not None and reading.rejected.startswith("the observation stream has a gap: line")


def test_a_line_cut_in_two_by_the_snippet_fails_the_stream(tmp_path):
    """Half a line written to the stream first spoils the observer's next line: rejected, never read around."""
    body = """
    import os
    os.write(STREAM, b'{"e": "tamper"')
    lib.work(1)
    """
    reading = read(run_scenario(tmp_path, body))
    assert reading.rejected is not None


def test_a_fault_of_the_observer_voids_the_observation(tmp_path):
    """A recursion deep enough that the observer's own hook overflows: the tracer is lost, the observer
    faults, and the end says so; the stream is never read as a clean outcome."""
    body = """
    import sys

    def down(depth):
        return down(depth - 1) if depth else lib.work(1)

    limit = sys.getrecursionlimit()
    for depth in range(limit - 150, limit + 5):
        try:
            down(depth)
        except RecursionError:
            pass
    try:
        lib.work(-1)
    except ValueError:
        pass
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert seen is not None and seen.tampered == ["sys.settrace (the verifier's call tracer, lost)"] \
        or reading.rejected is not None and "observer failed" in reading.rejected, (reading, seen)


def test_no_collection_runs_inside_the_observer(tmp_path):
    """A collection runs finalizers and gc callbacks in the frame that allocated: once, any allocation of
    the observer's (a collection at every allocation here), and a finalizer reached for the frames above
    it, seen only by its trace events (a C one raises none: see below). Automatic collection is off while
    the observer runs, in any thread, whatever the snippet sets (`gc.enable` is the observer's): what they
    see of the stack is the snippet's own, and the snippet's own setting holds outside."""
    body = """
    import gc
    import sys

    seen = []

    def grab(*args):
        frame = sys._getframe(1)
        while frame is not None:
            seen.append(str(frame.f_globals.get("__name__", "")))
            frame = frame.f_back

    class Bait:
        def __del__(self):
            grab()

    def traced(n):
        return n + 1

    gc.callbacks.append(grab)
    gc.set_threshold(1, 1, 1)
    for n in range(100):
        cycle = [Bait()]
        cycle.append(cycle)
        traced(n)
    gc.callbacks.remove(grab)
    gc.set_threshold(700, 10, 10)
    assert seen and gc.isenabled()
    gc.disable()
    assert not gc.isenabled()
    gc.enable()
    assert [name for name in seen if name.endswith(":private")] == []
    lib.work(1)
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    assert seen.status is Status.RETURNED, seen.exception
    # Taking frames at all is tampering now (`_p_frame_taken`); what this test holds is that nothing ran inside
    # the observer: no other interference.
    assert seen.tampered == [] and [what for what in seen.interference if "took a frame object" not in what] == [], \
        (seen.tampered, seen.interference)


def test_the_end_is_refused_to_anyone_but_the_harness(tmp_path):
    body = """
    import sys
    sys.audit("errorkb.restore")
    sys.audit("errorkb.end", "returned", None, {}, None)
    """
    stream = parsed(run_scenario(tmp_path, body))
    assert [event.what for event in stream.tampered] == ["tried to end the check in the verifier's place"]


def test_device_work_counts_only_during_calls_of_the_function(tmp_path):
    outside = "counter['allocated'] += 1 << 20\nlib.work(1)\n"
    seen = read(run_scenario(tmp_path, outside, probe=True)).observation
    assert seen.evidence == {"allocated_bytes": 0, "calls": 0}, "work outside the function does not count"
    during = "lib.work(1, counter)\nlib.work(2, counter)\n"
    seen = read(run_scenario(tmp_path, during, probe=True)).observation
    assert seen.evidence == {"allocated_bytes": 8192, "calls": 2}


# -- the torch plug's CUDA probe, with fakes (no GPU on the machines that build this) -----------------


def _fake_torch(devices: int, stats: dict[int, dict], contexts: dict[int, bool] | None = None) -> types.SimpleNamespace:
    """torch's C functions as the probe finds them, each a C callable (bound methods of builtins)."""
    contexts = contexts if contexts is not None else dict.fromkeys(range(devices), True)
    native = types.SimpleNamespace(_cuda_hasPrimaryContext=contexts.__getitem__,
                                   _cuda_memoryStats=stats.__getitem__, _cuda_getDeviceCount=devices.__int__)
    return types.SimpleNamespace(_C=native)


def test_the_cuda_probe_reads_the_allocators_own_counter_on_every_device():
    from errorkb.plugs import runtime_for

    torch = runtime_for("torch")
    stats = {0: {"allocated_bytes": {"all": {"allocated": 10}}}, 1: {"allocated_bytes": {"all": {"allocated": 5}}}}
    probe = torch.device_probe(_fake_torch(2, stats), "cuda")
    assert probe is not None and [args for _, args, _ in probe.reads] == [(0,), (1,)]
    assert [args for _, args in probe.ready] == [(0,), (1,)], "any device's primary context opens the reads"
    assert all(path == ("allocated_bytes", "all", "allocated") for _, _, path in probe.reads)
    assert torch.device_probe(_fake_torch(2, stats), "cpu") is None
    assert torch.device_probe(_fake_torch(0, stats), "cuda") is None, "no device: nothing to prove"


def test_the_cuda_probe_refuses_python_functions_the_snippet_could_replace():
    from errorkb.plugs import runtime_for

    fake = _fake_torch(1, {0: {}})
    fake._C._cuda_memoryStats = lambda index: {}
    assert runtime_for("torch").device_probe(fake, "cuda") is None
    fake = _fake_torch(1, {0: {}})
    fake._C._cuda_hasPrimaryContext = lambda index: True
    assert runtime_for("torch").device_probe(fake, "cuda") is None


def test_the_cuda_probe_calls_only_c_functions_torch_declares():
    """The probe once read `torch._C._cuda_isInitialized`, which no torch has: on an H200 every CUDA after then
    failed unobserved, while the fakes here (made up from the same names) passed. torch lists every C function of
    `torch._C` for every build (its compiler's trace rules), CUDA ones included, so a CPU machine can check them."""
    import importlib.util

    from errorkb.plugs.torch import C_FUNCTIONS

    rules = Path(importlib.util.find_spec("torch").submodule_search_locations[0]) / "_dynamo" / "trace_rules.py"
    declared = set(re.findall(r'"torch\._C\.(_cuda_\w+)"', rules.read_text(encoding="utf-8")))
    assert len(declared) > 20, "torch's list of its CUDA C functions was not found"
    assert set(C_FUNCTIONS) <= declared, sorted(set(C_FUNCTIONS) - declared)
    assert "_cuda_isInitialized" not in declared
    fake = _fake_torch(1, {0: {}})
    assert sorted(name for name in vars(fake._C)) == sorted(C_FUNCTIONS), "the fakes stand in for those names only"


def test_the_probe_reads_nothing_before_a_device_has_a_context_and_no_evidence_when_a_read_fails(tmp_path):
    """Before CUDA's primary context exists the allocator may not either, and reading it raises: 0, unread. Once a
    context exists a read must succeed; one that raises is no evidence (None), so the call's work never counts."""
    from errorkb.plugs import runtime_for

    def failing(index):
        raise RuntimeError("Invalid device argument 0: did you call init?")

    stats = {0: {"allocated_bytes": {"all": {"allocated": 4096}}}}
    closed = runtime_for("torch").device_probe(_fake_torch(1, stats, {0: False}), "cuda")
    opened = runtime_for("torch").device_probe(_fake_torch(1, stats, {0: True}), "cuda")
    assert closed is not None and opened is not None
    assert observer_probe_reading(closed) == 0
    assert observer_probe_reading(opened) == 4096
    broken = opened._replace(reads=((dict.__getitem__.__get__({}), (0,), ("allocated_bytes",)),))
    assert observer_probe_reading(broken) is None


def observer_probe_reading(probe) -> int | None:
    """What the observer's `_p_probe` reads through this probe (its private state set for the one call)."""
    from errorkb.verify.inside import observer

    saved = observer._S.get("probe", None), "probe" in observer._S
    observer._S["probe"] = probe
    try:
        return observer._p_probe()
    finally:
        if saved[1]:
            observer._S["probe"] = saved[0]
        else:
            del observer._S["probe"]


def test_a_cuda_check_counts_only_with_memory_allocated_during_the_calls():
    from errorkb.plugs import runtime_for

    torch = runtime_for("torch")
    assert torch.device_used("cpu", None)
    assert not torch.device_used("cuda", None)
    assert not torch.device_used("cuda", {"allocated_bytes": 0, "calls": 0})
    assert torch.device_used("cuda", {"allocated_bytes": 4096, "calls": 1})



def judge_cuda_after(broken_kb, tmp_path: Path, evidence: dict | None, device: str = "cuda"):
    """The judge's verdict on a CUDA after (or one on `device`) that returned from one watched call, with the
    observer's `evidence`."""
    from errorkb.core.snippets import Role, read_snippet
    from errorkb.plugs import runtime_for
    from errorkb.verify.plan import Check
    from errorkb.verify.records import Calls, Observation

    _, entries = broken_kb
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")
    snippet = tmp_path / "after.py"
    snippet.write_text("pass\n")
    check = Check(entry, read_snippet(snippet, Role("after"), "after.py"), "bundled", device, "transformers.cache_utils")
    seen = Observation(status=Status.RETURNED, calls=Calls(function="Cache.early_initialization", count=1, returned=1),
                       evidence=evidence)
    run = Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="returned")
    return judge(check, run, runtime_for("torch"))

@pytest.mark.parametrize(("evidence", "outcome", "why"), [
    ({"allocated_bytes": 0, "calls": 0}, Outcome.FAIL, "the runtime saw no work on the cuda device"),
    # Seen on an H200: no probe in the check's process, and the verdict said "saw no work", unobserved.
    (None, Outcome.FAIL, "the runtime's cuda counters could not be read in the check's process, so no work"),
    ({"allocated_bytes": 512, "calls": 1}, Outcome.PASS, None)])
def test_the_judge_reads_the_observers_evidence_for_a_cuda_after(broken_kb, evidence, outcome, why, tmp_path):
    verdict = judge_cuda_after(broken_kb, tmp_path, evidence)
    assert verdict.outcome is outcome
    if outcome is Outcome.FAIL:
        assert verdict.code is Code.NO_DEVICE_WORK and verdict.reason.startswith(why), verdict.reason


@pytest.mark.parametrize("declared", [False, True])
def test_snippet_code_run_inside_the_watched_call_fails_unless_declared(tmp_path, declared):
    """`work` compares its argument: a snippet's `__lt__` then runs inside the watched call."""
    body = """
    class Lying(int):
        def __lt__(self, other):
            return False
    lib.work(Lying(-1))
    """
    stream = parsed(run_scenario(tmp_path, body, callbacks=declared))
    callbacks = [event.what for event in stream.tampered if event.kind == "callback"]
    assert callbacks == ([] if declared else ["snippet.py:3 (Lying.__lt__)"]), callbacks


def test_a_signal_handler_never_runs_in_a_call_the_tracer_has_not_seen_begin(tmp_path):
    """CPython 3.11 takes pending signals at a function's first instruction (RESUME) *before* the tracer's
    'call' event: a Python handler run there raises inside `work` while the observer has not counted the
    call, and the snippet catching it looks like a clean run (CI caught the adversarial guard
    `signal-handler-raises` passing so). A signal made pending by C code that never looks for signals (a
    bytes repeat) is taken at `work`'s RESUME every time; the handler must be deferred past it."""
    body = """
    import signal
    import sys
    import time

    frames = []

    def handler(signum, frame):
        landed = sys._getframe(1).f_back  # the handler is handed no frame; below the trampoline, where it landed
        frames.append(landed.f_code.co_name)
        if landed.f_code.co_name == "work":
            raise ValueError("n must be positive, got -1")

    signal.signal(signal.SIGALRM, handler)
    caught = 0
    for round in range(5):
        signal.setitimer(signal.ITIMER_REAL, 1e-4)
        b"ab" * 20_000_000  # the timer fires in here; nothing takes the signal before `work` starts
        try:
            lib.work(1)
        except ValueError:
            caught += 1
        # the deferred handler lands here; waited for, so that the next round's signal never meets this one
        # still pending (two pending SIGALRMs are one: a busy machine lost a round so)
        deadline = time.monotonic() + 10
        while len(frames) <= round and time.monotonic() < deadline:
            time.sleep(0.005)
    assert len(frames) == 5, frames
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    assert seen.status is Status.RETURNED, seen.exception
    assert (seen.calls.count, seen.calls.returned) == (5, 5), seen.calls
    assert seen.tampered == [], seen.tampered


# -- what the snippet can reach of the observer: private frames, real functions, the trampoline's locals ---


def _counts_a_caught_bad_call(scenario: Scenario) -> None:
    """The snippet called `work(-1)` and caught its ValueError: the observation must say so, or say
    the snippet tampered. A clean run with every call returned is a false pass."""
    reading = read(scenario)
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    said = seen.tampered or seen.interference or [error.message for error in seen.calls.raised]
    assert said, f"a caught ValueError of work(-1), unseen: {seen.calls}"


@pytest.mark.parametrize("how", ["module_from_spec", "reimport"])
@pytest.mark.parametrize("name", ["_signal", "_thread", "_imp"])
def test_a_second_copy_of_a_module_the_observer_stands_in_for_is_refused(tmp_path, name, how):
    """`_signal.signal`, `_thread.start_new_thread` are the observer's stand-ins; a fresh instance of the
    builtin module (`_imp.create_builtin`, behind `module_from_spec` and any re-import) has the real ones:
    a handler not behind the trampoline runs inside the observer's own frames (a C handler: no trace
    event) and hands the snippet their globals, the private state. Before: 574 calls, 574 returned, no
    tampering, although `work(-1)` raised (its frames' ends all made 'normal')."""
    body = f"""
    import importlib.util
    import signal
    import sys

    def fresh(name):
        if {how!r} == "module_from_spec":
            return importlib.util.module_from_spec(importlib.util.find_spec(name))
        saved = sys.modules.pop(name)
        try:
            return importlib.import_module(name)
        finally:
            sys.modules[name] = saved

    module = fresh({name!r})
    if {name!r} == "_imp":  # its own, real create_builtin makes the real `_signal`
        module = module.create_builtin(importlib.util.find_spec("_signal"))
    if {name!r} == "_thread":  # an untraced thread makes the bad call and catches it
        done = []

        def bad():
            try:
                lib.work(-1)
            except ValueError:
                pass
            done.append(True)

        module.start_new_thread(bad, ())
        while not done:
            pass
    else:
        frames = []
        module.signal(signal.SIGPROF, frames.insert)  # a C handler: no frame, no trace event
        signal.setitimer(signal.ITIMER_PROF, 1e-4, 1e-4)
        private = None
        for _ in range(20000):
            lib.work(1)
            private = next((frame.f_globals for frame in frames
                            if str(frame.f_globals.get("__name__", "")).endswith(":private")), None)
            if private is not None:
                break
        signal.setitimer(signal.ITIMER_PROF, 0)
        private["_S"]["slots"][0]["normal"] = frozenset(range(10000))  # every end of `work` is a return now
        try:
            lib.work(-1)
        except ValueError:
            pass
    """
    _counts_a_caught_bad_call(run_scenario(tmp_path, body))


def test_a_builtin_module_imported_for_the_first_time_is_made_as_ever(tmp_path):
    """The stand-in for `_imp.create_builtin` makes any other builtin module (a first import of one, or
    a second `xxsubtype`), from a spec of its own: the snippet's import works, and nothing is said."""
    body = """
    import importlib.util
    import xxsubtype
    import _symtable

    again = importlib.util.module_from_spec(importlib.util.find_spec("xxsubtype"))
    assert again is not xxsubtype and again.bench is not None and _symtable.SCOPE_MASK
    lib.work(1)
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    assert seen.status is Status.RETURNED, seen.exception
    assert seen.tampered == [] and seen.interference == [], (seen.tampered, seen.interference)


@pytest.mark.parametrize(("via", "reads"), [("gc-callback", "sys._getframe"), ("gc-callback", "globals"),
                                            ("finalizer", "sys._getframe")])
def test_c_code_run_inside_the_observer_never_hands_out_its_frames(tmp_path, via, reads):
    """A gc callback or a finalizer made of C callables alone (no frame, no trace event) that calls
    `sys._getframe()` or `globals()` from C gets the frame, or the globals, running when the collection
    started: the observer's own, the private state. Before: a clean run (2 calls, 2 returned, no
    tampering) although `work(-1)` raised."""
    body = f"""
    import functools
    import gc
    import itertools
    import sys

    frames = set()

    class Once:  # iterating one calls sys._getframe() or globals() from C, once
        __iter__ = functools.partial(itertools.islice, iter({reads}, None), 1)

    class Grab:  # a frame as it is; a dict by its values' view (hashable), whose .mapping is the dict
        __iter__ = functools.partial(map, dict.values, Once()) if {reads!r} == "globals" else Once

    grab = functools.partial(frames.update, Grab() if {reads!r} == "globals" else Once())

    class Bait:
        __del__ = grab  # not a descriptor: called with no arguments

    if {via!r} == "gc-callback":
        gc.callbacks.append(grab)
    gc.set_threshold(1, 1, 1)
    private = None
    for n in range(200):
        cycle = [Bait()]
        cycle.append(cycle)
        del cycle
        lib.work(1)
        gc.disable()
        spaces = [each.f_globals if type(each).__name__ == "frame" else each.mapping for each in list(frames)
                  if type(each).__name__ in ("frame", "dict_values")]
        private = next((space for space in spaces if str(space.get("__name__", "")).endswith(":private")), None)
        gc.enable()
        if private is not None:
            break
    gc.set_threshold(700, 10, 10)
    gc.callbacks.clear()
    if private is not None:
        private["_S"]["slots"][0]["normal"] = frozenset(range(10000))
    try:
        lib.work(-1)
    except ValueError:
        pass
    """
    _counts_a_caught_bad_call(run_scenario(tmp_path, body))


def test_a_handler_cannot_reach_what_the_trampoline_holds(tmp_path):
    """A Python handler runs below `_trampoline`'s frame: `sys._getframe(1).f_locals` are its arguments.
    They must hold nothing the snippet can use: not the set that tells a RESUME (emptied, the handler runs
    at `work`'s first instruction again), not the real `_thread.start_new_thread` (an untraced thread).
    Before: 0 of 5 calls counted at RESUME, and the bad call in an untraced thread unseen."""
    body = """
    import _thread
    import signal
    import time

    frames = []
    held = {}

    def handler(signum, frame):
        if not held:
            held.update(sys._getframe(1).f_locals)
            for value in held.values():
                getattr(getattr(value, "__self__", None), "clear", lambda: None)()
        landed = sys._getframe(1).f_back  # the handler is handed no frame; below the trampoline, where it landed
        frames.append(landed.f_code.co_name)
        if landed.f_code.co_name == "work":
            raise ValueError("n must be positive, got -1")

    import sys
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 1e-4)
    time.sleep(0.05)
    caught = 0
    for _ in range(5):
        signal.setitimer(signal.ITIMER_REAL, 1e-4)
        b"ab" * 20_000_000
        try:
            lib.work(1)
        except ValueError:
            caught += 1
        time.sleep(0.02)
    start = getattr(held.get("redeliver"), "args", (_thread.start_new_thread,))[0]
    done = []

    def bad():
        try:
            lib.work(-1)
        except ValueError:
            pass
        done.append(True)

    start(bad, ())
    while not done:
        time.sleep(0.01)
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    assert seen.tampered == [], seen.tampered
    assert seen.status is Status.RETURNED, seen.exception
    assert (seen.calls.count, seen.calls.returned) == (6, 5), seen.calls
    assert [error.message for error in seen.calls.raised] == ["n must be positive, got -1"], seen.calls


def test_the_callback_that_follows_an_instance_leads_nowhere(tmp_path):
    """The observer follows each instance of the library's classes by a weak reference, whose callback
    `weakref.getweakrefs` hands to anyone: a private function then, whose `__globals__` (not an audited
    attribute) were the private state. Nor may calling it stop the following of a live instance."""
    body = """
    import weakref

    box = lib.Box(1)
    (ref,) = weakref.getweakrefs(box)
    callback = ref.__callback__
    space = getattr(callback, "__globals__", {})
    if "_S" in space:
        space["_S"]["slots"][0]["normal"] = frozenset(range(10000))
    callback(ref)  # as if it had died: followed no more
    box.__init__ = print  # shadows the library's method on this instance
    try:
        lib.work(-1)
    except ValueError:
        pass
    """
    reading = read(run_scenario(tmp_path, body))
    seen = reading.observation
    assert reading.rejected is None and seen is not None, reading
    assert [error.message for error in seen.calls.raised] == ["n must be positive, got -1"], seen.calls
    assert seen.tampered == ["__init__ on a Box instance"], seen.tampered


# A bad call run by a frame's own trace function; `{take}` puts a frame of the snippet in `here`.
_HIDE_A_BAD_CALL = """
import sys

done = []

def hidden(frame, event, arg):
    if not done:
        done.append(event)
        try:
            lib.work(-1)
        except ValueError:
            pass
        frame.f_trace = observer
        frame.f_trace_lines = False
    return None

{take}
while here is not None and (here.f_globals is not globals() or here.f_code.co_name != "<module>"):
    here = here.f_back  # walked here, not in a function: a frame handed to one is seen (its arguments)
observer = here.f_trace
here.f_trace = hidden
here.f_trace_lines = True
lib.work(1)
assert done == ["line"], done
"""


def test_a_frames_own_trace_function_is_not_a_hiding_place(tmp_path):
    """CPython hands a frame's 'line', 'return' and 'exception' events to its `f_trace`, and runs that
    function with tracing off: no 'call' event for anything it calls. A snippet that sets its own frame's
    `f_trace` (a plain setter, no audit event) runs the bad call there, unseen: 1 call, 1 returned, no
    tampering, although `work(-1)` raised."""
    _counts_a_caught_bad_call(run_scenario(tmp_path, _HIDE_A_BAD_CALL.format(take="here = sys._getframe()")))


def test_a_frames_stale_locals_never_die_inside_the_observer(tmp_path):
    """Reading `frame.f_locals` refreshes the dict a `locals()` call left on the frame: a value the
    function has since dropped dies in the reader's frame, and its finalizer (C alone) reads `globals()`
    there. The observer reads the locals of a frame named like importlib's when it checks who raised
    an event (here `marshal.loads`, exempt when the import system compiles a trusted file): it read them
    in its private code, whose globals are the private state. Before: a clean run although `work(-1)`
    raised."""
    body = """
    import functools
    import itertools
    import marshal
    import os

    found = set()

    class Once:
        __iter__ = functools.partial(itertools.islice, iter(globals, None), 1)

    class Grab:
        __iter__ = functools.partial(map, dict.values, Once())

    class Bait:
        __del__ = functools.partial(found.update, Grab())

    source = (
        "def get_code(source_path):\\n"
        "    bait = Bait()\\n"
        "    locals()  # the frame's locals dict now holds the Bait\\n"
        "    bait = None  # and only that dict does\\n"
        "    marshal.loads(marshal.dumps(None))  # an event whose handler reads this frame's locals\\n"
    )
    space = {"Bait": Bait, "marshal": marshal}
    exec(compile(source, "<frozen importlib._bootstrap_external>", "exec"), space)
    space["get_code"](os.__file__)  # a trusted file: not the snippet's doing
    private = next((each.mapping for each in list(found) if type(each) is type({}.values())
                    and str(each.mapping.get("__name__", "")).endswith(":private")), None)
    if private is not None:
        private["_S"]["slots"][0]["normal"] = frozenset(range(10000))
    try:
        lib.work(-1)
    except ValueError:
        pass
    """
    _counts_a_caught_bad_call(run_scenario(tmp_path, body))


@pytest.mark.parametrize("take", [
    "sys._getframe()",
    "__import__('inspect').currentframe()",
    "(lambda: (yield))().gi_frame",
    "_traceback_frame()",
    "next(__import__('traceback').walk_stack(None))[0]",
])
def test_a_frame_the_snippet_takes_however_it_takes_it_is_tampering(tmp_path, take):
    """The f_trace hole above needs a frame object; every way Python hands one out is an audited read
    (`sys._getframe`, `tb_frame`, `gi_frame`, ...): taken by the snippet's own code, even through
    Python's library, it is tampering, whatever the snippet does with it."""
    body = f"""
    import sys

    def _traceback_frame():
        try:
            raise KeyError
        except KeyError as error:
            return error.__traceback__.tb_frame

    here = {take}
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and any("took a frame object" in what for what in seen.interference), seen


def _harness_reads_its_callers_line() -> int:
    """What the harness's `os._exit` stand-in does (`child.recording_exit`): trusted code taking its
    caller's frame, handing nothing to the snippet."""
    return sys._getframe(1).f_lineno


def test_the_harnesss_own_frame_reads_are_not_the_snippets(tmp_path):
    """Only the code that asked for the frame decides: the snippet calling the harness's trusted
    function (as `os._exit` does in a real check) is not the snippet taking a frame. (It failed the
    fixture knowledge base's before-os-exit when the check looked one frame too far out.)"""
    body = """
    read_line()
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body, extra={"read_line": _harness_reads_its_callers_line})).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert (seen.calls.count, seen.calls.returned) == (1, 1)


def test_a_frame_an_installed_package_takes_is_not_the_snippets_in_a_venv(tmp_path):
    """In a venv the standard library's folders include `<venv>/lib/python3.X/`, which holds site-packages:
    an installed package (torch.jit's tracer) calling `inspect.currentframe()` was read as Python's own
    library, and the walk went on out to the snippet that called the package (CI: four torch export/JIT
    checks of the knowledge base failed as tampering). An installed package is not the standard library."""
    packages = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "tracer.py").write_text(
        "import inspect\n\ndef name_of_caller():\n    frame = inspect.currentframe()\n    return frame.f_back.f_code.co_name\n")

    def like_a_venv(config: dict) -> None:
        config["stdlib_roots"] = (*config["stdlib_roots"], str(tmp_path / "venv" / "lib" / "python3.11") + "/")
        config["site_roots"] = (*config["site_roots"], str(packages) + "/")
        config["trusted_roots"] = (*config["trusted_roots"], str(packages) + "/")

    body = f"""
    import sys
    sys.path.insert(0, {str(packages)!r})
    import tracer

    tracer.name_of_caller()
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body, configure=like_a_venv)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert (seen.calls.count, seen.calls.returned) == (1, 1)


def test_marking_a_generator_an_iterable_coroutine_is_not_replacing_its_code(tmp_path):
    """`types.coroutine` on a generator function sets its `__code__` to the same code with one flag more
    (CO_ITERABLE_COROUTINE): asyncio does it to its own `__sleep0` when a check first imports it, and no other
    code runs. Not tampering, as any other change of a protected function's code is (a function made a
    generator returns without running its body)."""
    marked = read(run_scenario(tmp_path, "import difflib\nimport types\ntypes.coroutine(difflib.unified_diff)\nlib.work(1)\n"))
    assert marked.observation.tampered == [] and marked.observation.interference == [], marked.observation
    body = """
    import os
    os.fspath.__class__  # a builtin: untouched
    import shutil
    code = shutil.copyfile.__code__
    shutil.copyfile.__code__ = code.replace(co_flags=code.co_flags | 0x20)
    lib.work(1)
    """
    made = read(run_scenario(tmp_path, body)).observation
    assert any("copyfile" in what for what in made.tampered), made


def test_the_librarys_own_frame_reads_are_not_the_snippets(tmp_path):
    """`warnings` and `logging` find their caller's frame with `sys._getframe` and hand nothing out:
    called by the library or by the snippet itself (two guards of the knowledge base warn), not tampering."""
    (tmp_path / "lib").mkdir(exist_ok=True)
    body = """
    import logging
    import warnings
    import lib_warns

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib_warns.warn_like_the_library()
        warnings.warn("a guard's own warning", stacklevel=2)
    logging.getLogger("snippet").warning("and a log line")
    lib.work(1)
    """
    (tmp_path / "lib" / "lib_warns.py").write_text(
        "import warnings\n\ndef warn_like_the_library():\n    warnings.warn('deprecated', FutureWarning, stacklevel=2)\n")
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert (seen.calls.count, seen.calls.returned) == (1, 1)


def test_a_frame_a_signal_handler_is_handed_is_not_a_hiding_place_either(tmp_path):
    """A handler was handed the frame the signal landed in, with no audit event: it set that frame's
    `f_trace` (the hole above), which then made the bad call unseen and put the observer's back. It is
    handed none now (Python promises "None or a frame object"); one it takes is tampering."""
    body = """
    import signal
    import sys

    done = []

    def hidden(frame, event, arg):
        if not done:
            done.append(event)
            try:
                lib.work(-1)
            except ValueError:
                pass
            frame.f_trace = saved[0]
            frame.f_trace_lines = False
        return None

    saved = []

    def handler(signum, frame):
        frame = frame or sys._getframe(1).f_back
        saved.append(frame.f_trace)
        frame.f_trace = hidden
        frame.f_trace_lines = True

    signal.signal(signal.SIGUSR1, handler)
    signal.raise_signal(signal.SIGUSR1)
    lib.work(1)
    assert done == ["line"], done
    """
    _counts_a_caught_bad_call(run_scenario(tmp_path, body))



# Ways to a frame object that the check of who took it did not see as the snippet's: Python's library
# and the library's own code calling a callable the snippet hands them (`sys._getframe` has no frame of
# its own: the "code that asked" is the caller's), or reading a frame and handing it back.
_GADGETS = {
    "mock-side-effect": "import unittest.mock\nhere = unittest.mock.Mock(side_effect=sys._getframe)(0)",
    "singledispatch": "import functools\nhere = functools.singledispatch(sys._getframe)(0)",
    "attrgetter-via-mock": (
        "import operator, unittest.mock\n"
        "take = unittest.mock.Mock(side_effect=operator.attrgetter('gi_frame'))\n"
        "def gen():\n    yield take(g).f_back\n"
        "g = gen()\nhere = next(g)"),
    "types-coroutine-wrapper": (
        "import types\nbox = []\n"
        "def gen():\n    yield box[0].gi_frame.f_back\n"
        "g = gen()\nbox.append(types.coroutine(lambda: g)())\nhere = next(g)"),
    "asyncio-task-get-stack": (
        "import asyncio\n"
        "async def co():\n    here = asyncio.current_task().get_stack()[-1]\n"
        "    while here.f_code.co_name != '<module>':\n        here = here.f_back\n    return here\n"
        "here = asyncio.run(co())"),
    "bdb-get-stack": (
        "import bdb\n"
        "try:\n    raise KeyError\nexcept KeyError as error:\n    tb = error.__traceback__\n"
        "here = bdb.Bdb().get_stack(None, tb)[0][-1][0]"),
    "compiled-as-site-packages": (
        "import sysconfig\nspace = {}\n"
        "source = 'import sys\\ndef take():\\n    return sys._getframe(1)\\n'\n"
        "exec(compile(source, sysconfig.get_paths()['purelib'] + '/errorkb_gadget.py', 'exec'), space)\n"
        "here = space['take']()"),
    "imported-through-dot-dot": (
        "import os\nroot = os.path.dirname(lib.__file__)\n"
        "with open(os.path.join(root, '..', 'gadget_mod.py'), 'w') as file:\n"
        "    file.write('import sys\\ndef take():\\n    return sys._getframe(1)\\n')\n"
        "sys.path.insert(0, root + '/..')\nimport gadget_mod\nhere = gadget_mod.take()"),
    "compiled-through-dot-dot": (
        "import os\nroot = os.path.dirname(lib.__file__)\nspace = {}\n"
        "source = 'import sys\\ndef take():\\n    return sys._getframe(1)\\n'\n"
        "with open(os.path.join(root, '..', 'gadget_src.py'), 'w') as file:\n"
        "    file.write(source)\n"
        "exec(compile(source, root + '/../gadget_src.py', 'exec'), space)\n"
        "here = space['take']()"),
    "logging-currentframe": "import logging\nhere = logging.currentframe()",
    "logging-patched-helper": (
        "import logging\ngot = []\n"
        "logging._is_internal_frame = lambda frame: got.append(frame) or True\n"
        "logging.getLogger('snippet').warning('a line')\nhere = got[0]"),
    "logging-patched-helper-c": (
        "import logging\ngot = []\n"
        "logging._is_internal_frame = got.append  # C: no call event, no arguments to look at\n"
        "logging.getLogger('snippet').warning('a line')\nhere = got[0]"),
    "traceback-patched-walker": (
        "import traceback\ngot = []\n"
        "traceback.walk_stack = lambda frame: got.append(frame) or iter(())\n"
        "traceback.extract_stack()\nhere = got[0]"),
    "traceback-patched-class": (
        "import traceback\ngot = []\n"
        "def extract(frames, limit=None):\n    got.extend(frames)\n    return traceback.StackSummary()\n"
        "traceback.StackSummary.extract = staticmethod(extract)  # a class of the reader's module, not its namespace\n"
        "traceback.extract_stack()\nhere = got[0]"),
    "signal-handler-keeps-it": (
        "import signal\nkept = []\n"
        "signal.signal(signal.SIGUSR1, lambda signum, frame: kept.append(frame))\n"
        "signal.raise_signal(signal.SIGUSR1)\nhere = kept[0] or sys._getframe()  # none handed: it must take one"),
}


@pytest.mark.parametrize("gadget", sorted(_GADGETS))
def test_a_frame_handed_out_by_code_the_snippet_calls_is_not_a_hiding_place(tmp_path, gadget):
    """The f_trace hole once more, with the frame from code the snippet calls rather than its own
    `sys._getframe`: a callable handed to Python's library or the library (`sys._getframe` itself, an
    `attrgetter`), a standard function that returns frames (`types.coroutine`'s wrapper, asyncio's
    `Task.get_stack`, `bdb`), a signal handler's frame kept for later. Before: 1 call, 1 returned, no
    tampering, although `work(-1)` raised."""
    _counts_a_caught_bad_call(run_scenario(tmp_path, _HIDE_A_BAD_CALL.format(take=_GADGETS[gadget])))


@pytest.mark.parametrize("how", ["called", "as-str-of-its-error"])
def test_only_the_harness_ends_the_check_with_its_own_outcome(tmp_path, how):
    """The harness's end (`child.finish`, here `_finish`) is a function of a module the snippet can import:
    called by the snippet, or by the harness itself through a C callable the snippet planted (`str()` of
    the snippet's exception, which the harness describes before it ends), it ended the check as a clean
    run although the snippet went on to raise. Before: status 'returned', 1 call, 1 returned."""
    planted = {
        "called": "lib.work(1)\nfinish('returned', None)\nraise RuntimeError('the snippet did not exit normally')\n",
        "as-str-of-its-error": (
            "import functools\n\n"
            "class Raised(Exception):\n    __str__ = functools.partial(finish, 'returned', None)\n\n"
            "lib.work(1)\nraise Raised()\n"),
    }[how]
    reading = read(run_scenario(tmp_path, planted, extra={"finish": _finish}))
    seen = reading.observation
    assert reading.rejected is None, reading
    # Refused, the end says so, or never comes (the real `finish` then leaves without one: no observation).
    assert not reading.ended or seen.status is not Status.RETURNED or seen.interference, (seen.status, seen.calls)
    if reading.ended and how == "called":
        assert "tried to end the check in the verifier's place" in seen.interference, seen


def test_a_library_of_a_virtual_environment_reading_its_callers_frame_is_not_the_snippet(tmp_path):
    """A virtual environment's `lib/python3.x/` is Python's own library to the check (its `platstdlib`), and
    holds its site-packages too: a trusted package there that reads its caller's frame (typing_extensions,
    under pydantic, under the verifier's own modules a snippet imports) is not Python's code that hands
    frames out. (The adversarial fixture's patched-verifier-source failed so, for taking a frame.)"""
    import sysconfig

    purelib = sysconfig.get_paths()["purelib"]
    stdlib = [sysconfig.get_paths()["stdlib"] + "/", str(Path(purelib).parent) + "/", "<frozen "]
    body = """
    import typing_extensions

    typing_extensions._has_generic_or_protocol_as_origin()
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body, config={"stdlib_roots": stdlib})).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert (seen.calls.count, seen.calls.returned) == (1, 1)


def _runner() -> None:
    """Stands in for `child.execute`, the code that runs the snippet and calls the harness's end: a function
    of a module the snippet can import, and call, with `child.observer.install` patched to do nothing."""
    _finish("returned", None)


def test_the_end_says_how_the_snippet_ended_only_once_it_has(tmp_path):
    """The harness's end, called by the very code that runs the snippet, but from inside the snippet (which
    called that code itself), ended the check as a clean run while the snippet's own code was still running,
    and would go on to raise. The observer follows the snippet's top frame: an outcome is accepted only once
    that frame ended so (said: the judge fails the check). Before: status 'returned', 1 call, 1 returned, nothing
    said."""
    body = """
    lib.work(1)
    runner()
    raise RuntimeError("the snippet did not exit normally")
    """
    scenario = run_scenario(tmp_path, body, extra={"runner": _runner},
                            config={"end_callers": [run_scenario.__code__, _runner.__code__]})
    reading = read(scenario)
    seen = reading.observation
    assert reading.rejected is None and reading.ended and seen is not None, reading
    assert "ended the check as returned while the snippet's own run had not ended so" in seen.interference, seen


# -- "beneath": where an error may start under the function and still be the function's ------------------


def _venv_with(tmp_path: Path, name: str, source: str, *, base: bool = False) -> Callable[[dict], None]:
    """A module `name` installed in a virtual environment's site-packages (`base`: in the site-packages of the
    Python the venv was made from, not on its path), and a `configure` that lays the check's roots out as
    `child.observer_config` does there: the venv's `lib/python3.X/` among the standard library's folders (its
    `platstdlib`), the error's "beneath" roots the target's and the standard library's."""
    lib = tmp_path / ("base" if base else "venv") / "lib" / "python3.11"
    packages = lib / "site-packages"
    packages.mkdir(parents=True, exist_ok=True)
    (packages / f"{name}.py").write_text(source)

    def like_a_venv(config: dict) -> None:
        config["stdlib_roots"] = (*config["stdlib_roots"], str(lib) + "/")
        config["trusted_roots"] = (*config["trusted_roots"], str(lib) + "/")
        if not base:
            config["site_roots"] = (*config["site_roots"], str(packages) + "/")
        config["beneath_roots"] = (*config["target_roots"], *config["stdlib_roots"])
        config["protected_roots"] = (*config["protected_roots"], str(lib) + "/")

    return like_a_venv


@pytest.mark.parametrize("base", [False, True], ids=["venv-site-packages", "base-site-packages"])
def test_an_error_another_installed_package_starts_under_the_function_is_not_the_functions(tmp_path, base):
    """A venv's `lib/python3.X/` is one of the standard library's folders, and holds site-packages: an error that
    started in ANOTHER installed package (neither the target, the runtime nor a backend) the function called
    was read as started beneath it, by Python's own library, so an `implicit` entry's before passed with an
    error the snippet chose (urllib3's `reraise`, planted as an argument's `__lt__` through a C partial).
    Python's own library is `_p_in_stdlib`'s one definition, here too. Before: `reraise` started "beneath"."""
    configure = _venv_with(tmp_path, "reraiser", "def reraise(value, *called_with):\n    raise value\n", base=base)
    folder = tmp_path / ("base" if base else "venv") / "lib" / "python3.11" / "site-packages"
    body = f"""
    import functools
    import sys
    sys.path.insert(0, {str(folder)!r})
    import reraiser

    class Negative:
        __lt__ = functools.partial(reraiser.reraise, ValueError("n must be positive, got -1"))

    lib.work(Negative())
    """
    stream = parsed(run_scenario(tmp_path, body, configure=configure))
    started = [(event.code, event.where) for event in stream.raised.values()]
    assert not any(where == "beneath" for _, where in started), started


def test_an_error_pythons_own_library_starts_under_the_function_is_still_the_functions(tmp_path):
    """The other side: Python's own code under the function (`textwrap.dedent`, called as an argument's `__lt__`)
    stays beneath it in a venv."""
    configure = _venv_with(tmp_path, "unused", "")
    body = """
    import functools
    import textwrap

    class Dedented:
        __lt__ = functools.partial(textwrap.dedent)  # not a descriptor: `dedent(0)`, a TypeError in its frame

    lib.work(Dedented())
    """
    stream = parsed(run_scenario(tmp_path, body, configure=configure))
    wheres = sorted((event.code, event.where) for event in stream.raised.values() if event.w == 0)
    assert wheres == [("dedent", "beneath")], wheres


@pytest.mark.parametrize("module", ["__main__", "builtins"])
def test_a_class_named_like_a_builtin_exception_is_not_reported_as_it(tmp_path, module):
    """An exception class of the snippet's named `ValueError` (claiming `__module__ = "builtins"`, or not), raised
    by C code it planted under the function (`warnings.warn` as an error, through a C partial set as `__lt__`):
    its qualified name is `builtins.ValueError` only for Python's own class. Before: "builtins.ValueError" for the
    class that claims the module."""
    body = f"""
    import functools
    import warnings

    class ValueError(ValueError, UserWarning):
        __module__ = {module!r}

    class Negative:
        __lt__ = functools.partial(warnings.warn, "n must be positive, got -1", ValueError)

    warnings.simplefilter("error")
    lib.work(Negative())
    """
    stream = parsed(run_scenario(tmp_path, body))
    (raised,) = [event for event in stream.raised.values() if event.w == 0]
    assert raised.type == "ValueError" and raised.message == "n must be positive, got -1", raised
    assert raised.qualified != "builtins.ValueError", raised
    (tmp_path / "honest").mkdir()
    honest = parsed(run_scenario(tmp_path / "honest", "lib.work(-1)\n"))
    assert [event.qualified for event in honest.raised.values() if event.w == 0] == ["builtins.ValueError"]


# -- frames trusted code hands the snippet in a container, returns, or stores where it can read them -----------

_TRUSTED_FRAMES = '''
import collections
import inspect
import sys

Info = collections.namedtuple("Info", "frame line")


class Box:
    pass


def hand_over(callback, how):
    """Calls the snippet's callback with its caller's frame inside something."""
    frame = sys._getframe(1)
    if how == "keyword":
        return callback(frames=[frame])
    if how == "attribute":
        value = Box()
        value.frame = frame
    elif how == "namedtuple":
        value = Info._make([frame, 1])  # not `Info(...)`: its `__new__` is code namedtuple compiles, followed
    else:
        value = {"list": lambda: [frame], "dict": lambda: {"frame": frame}, "nested": lambda: ([0, (frame,)],),
                 "set": lambda: {frame}}[how]()
    return callback(value)


def caller_frame():
    return sys._getframe(2 if sys._getframe(1).f_code.co_name == "through" else 1)


def through():
    return caller_frame()


def store_caller_frame(box):
    box.append(sys._getframe(1))


def by_inspect():
    return inspect.currentframe().f_back


def store_in_global():
    global LAST
    LAST = sys._getframe(1)


def store_in_class():
    Box.last = sys._getframe(1)


def frames():
    yield sys._getframe(1)
'''

_HANDED = {
    "list": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'list')\nhere = got[0][0]",
    "dict": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'dict')\nhere = got[0]['frame']",
    "nested": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'nested')\nhere = got[0][0][1][0]",
    "attribute": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'attribute')\nhere = got[0].frame",
    "namedtuple": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'namedtuple')\nhere = got[0].frame",
    "set": "got = []\nlib_frames.hand_over(lambda value: got.append(value), 'set')\nhere = next(iter(got[0]))",
    "keyword": "got = []\nlib_frames.hand_over(lambda **kw: got.append(kw), 'keyword')\nhere = got[0]['frames'][0]",
}
_GIVEN_BACK = {
    "returned": "here = lib_frames.caller_frame()",
    "returned-through-trusted-code": "here = lib_frames.through()",
    "stored-in-an-argument": "box = []\nlib_frames.store_caller_frame(box)\nhere = box[0]",
    "returned-from-inspect": "here = lib_frames.by_inspect()",
    "yielded": "here = next(lib_frames.frames())",
    # Round five, hole 5: left where the snippet reads it afterwards, in the module's globals or a class of its.
    "stored-in-a-global": "lib_frames.store_in_global()\nhere = lib_frames.LAST",
    "stored-in-a-class": "lib_frames.store_in_class()\nhere = lib_frames.Box.last",
}


def _with_trusted_frames(tmp_path: Path, take: str) -> str:
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "lib_frames.py").write_text(_TRUSTED_FRAMES)
    return _HIDE_A_BAD_CALL.format(take="import lib_frames\n" + take)


@pytest.mark.parametrize("how", sorted(_HANDED))
def test_a_frame_handed_to_the_snippet_inside_a_container_is_a_hiding_place_too(tmp_path, how):
    """Only a frame among a snippet function's arguments themselves (and in its `*args`, `**kwargs`) was seen:
    trusted code handing it one in a list, a dict, a tuple in a list, a named tuple, an object's attribute, a
    set, did not count. Before: 1 call, 1 returned, no tampering, although `work(-1)` raised."""
    _counts_a_caught_bad_call(run_scenario(tmp_path, _with_trusted_frames(tmp_path, _HANDED[how])))


@pytest.mark.parametrize("how", sorted(_GIVEN_BACK))
def test_a_frame_trusted_code_returns_or_stores_for_the_snippet_is_a_hiding_place_too(tmp_path, how):
    """Trusted code (the library's, an installed package's) that takes a frame is not the snippet taking it: it
    may read its caller's name. But returned to the snippet (directly, through more trusted code, from
    `inspect`, yielded) or stored in an argument the snippet reads, it is the snippet's frame to hide a call in.
    Before: 1 call, 1 returned, no tampering, although `work(-1)` raised."""
    _counts_a_caught_bad_call(run_scenario(tmp_path, _with_trusted_frames(tmp_path, _GIVEN_BACK[how])))


def test_trusted_code_reading_a_frame_and_keeping_it_is_not_the_snippets(tmp_path):
    """The other side: trusted code that takes frames and hands the snippet none (a name or a line read from
    one, a frame passed on among its own functions, kept in its own list) is not tampering."""
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "lib_frames.py").write_text(_TRUSTED_FRAMES + '''

def name_of_caller():
    return through().f_code.co_name


def line_of_caller():
    kept = [caller_frame()]
    return kept[0].f_lineno
''')
    body = """
    import lib_frames

    assert lib_frames.name_of_caller() == "name_of_caller"
    assert lib_frames.line_of_caller() > 0
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert (seen.calls.count, seen.calls.returned) == (1, 1)


# -- C code the snippet planted where the function calls it ------------------------------------------------

_PLANTED = {
    # An exhausted generator's `throw` raises what it is given from C, with no frame of its own: `n < 0` makes a
    # `Truth(0)` (a class is no descriptor), whose `__bool__` throws.
    "generator-throw": (
        "class Truth(int):\n"
        "    __bool__ = functools.partial(spent.throw, ValueError, 'n must be positive, got -1')\n\n"
        "class Negative:\n    __lt__ = Truth\n"),
    # ... a property of the snippet's whose getter is C code (re-raising through Python's own library).
    "property-getter": (
        "class Truth(int):\n"
        "    __bool__ = property(functools.partial(concurrent.futures.Future.result, failed))\n\n"
        "class Negative:\n    __lt__ = Truth\n"),
    # Python's own library re-raising an exception it was given (beneath the function, by a `raise`).
    "stdlib-reraise": "class Negative:\n    __lt__ = functools.partial(concurrent.futures.Future.result, failed)\n",
    # A callable object of Python's own library that raises what it holds (a mock's side effect): no C code, and
    # Python's code beneath the function. (Round four.)
    "stdlib-callable-holding-error": (
        "import unittest.mock\n\n"
        "class Negative:\n    __lt__ = unittest.mock.Mock(side_effect=ValueError('n must be positive, got -1'))\n"),
    # ... its own method, planted under another name on a subclass of its class: no C code at all.
    "stdlib-method-renamed": (
        "class Negative(concurrent.futures.Future):\n    __lt__ = concurrent.futures.Future.result\n"),
}


@pytest.mark.parametrize("gadget", sorted(_PLANTED))
def test_an_error_c_code_the_snippet_planted_under_the_function_throws_is_not_its(tmp_path, gadget):
    """Python's ValueError with the documented text, started in the function's own frame by C code (or beneath
    it, by Python's own library re-raising it) that the snippet planted on an argument's class: an exhausted
    generator's `throw`, through a C partial. No code of the snippet's runs inside the call, so nothing was
    seen, and an `implicit` entry's before passed (the attack c-gadget-raise). Before: no tampering, the start
    in `work` (or beneath it)."""
    body = """
    import concurrent.futures
    import functools

    spent = (each for each in ())
    for _ in spent:
        pass
    failed = concurrent.futures.Future()
    failed.set_exception(ValueError("n must be positive, got -1"))

    PLANTED
    argument = Negative()
    if isinstance(argument, concurrent.futures.Future):
        argument.set_exception(ValueError("n must be positive, got -1"))
    lib.work(argument)
    """.replace("PLANTED", textwrap.indent(_PLANTED[gadget], "    ").strip())
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.exception is not None and seen.exception.message == "n must be positive, got -1"
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference, seen.tampered)


def test_c_code_of_pythons_own_classes_under_the_function_is_not_planted(tmp_path):
    """The other side: an argument of a builtin class (a `str` compared with 0), a dict subclass whose
    `__getattr__` is `dict.__getitem__` (a common idiom), a class of Python's own library, a subclass of one with
    its own methods aliased, raise from C as ever, and are the function's."""
    body = """
    import fractions
    import concurrent.futures

    class Settings(dict):
        __getattr__ = dict.__getitem__

    class Waiting(concurrent.futures.Future):
        def wait(self):
            return self.result()

        get = wait

    for value in ("a", Settings(a=1), fractions.Fraction(1, 2).__class__, Waiting()):
        try:
            lib.work(value)
        except TypeError:
            pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"] * 4, seen.calls


# -- an exception class's qualified name, by identity (round four) ---------------------------------------------


@pytest.mark.parametrize("claimed", ["lib", "lib.sub"])
def test_a_class_claiming_a_trusted_module_is_not_reported_as_its(tmp_path, claimed):
    """`pkg.Error` in an entry was matched by the class's `__module__`, which the snippet's class may claim: a
    snippet's `LibError` claiming `__module__ = "lib"` read as `lib.LibError`. The qualified name is said only of a
    class a trusted module holds under it (by identity, as `builtins.X` is). Before: "lib.LibError"."""
    body = f"""
    class LibError(Exception):
        __module__ = {claimed!r}

    raise LibError("n must be positive, got -1")
    """
    stream = parsed(run_scenario(tmp_path, body))
    assert [event.qualified for event in stream.raised.values()] == ["?.LibError"], stream.raised


def test_a_trusted_modules_own_class_keeps_its_qualified_name(tmp_path):
    """The other side: the library's own class (one its module defines) is named `module.qualname`."""
    body = 'raise lib.LibraryError("n must be positive")\n'
    stream = parsed(run_scenario(tmp_path, body))
    assert [event.qualified for event in stream.raised.values()] == ["lib.LibraryError"], stream.raised


# -- C code planted where the user's own code (called by the function) runs into it (round four, hole 1) ------

_USER_PLANTED = {
    # An object the user's code unpacks, whose class's `__iter__` is an exhausted generator's `throw`.
    "iter-slot": "class Pair:\n    __iter__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\nHELD = Pair()\n",
    # ... reached through a closure cell of a function the frame holds, not its attributes.
    "closure": ("class Pair:\n    __iter__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                "def make():\n    pair = Pair()\n    return lambda: pair\n\nHELD = make()\n"),
}


@pytest.mark.parametrize("gadget", sorted(_USER_PLANTED))
def test_c_code_planted_where_the_users_code_runs_into_it_is_tampering(tmp_path, gadget):
    """The function calls the user's code (declared: `source.user_code`), whose own instruction (`a, b = ...`)
    calls C code the snippet planted on a class: Python's ValueError with the text the snippet chose starts in
    the user's frame, at an instruction that is not a call, and read as Python raising it there. Before: no
    tampering."""
    body = """
    import functools

    MESSAGE = "too many values to unpack (expected 2)"
    spent = (each for each in ())
    for _ in spent:
        pass

    PLANTED

    class Negative:
        def __init__(self, held):
            self.held = held

        def __lt__(self, other):
            held = self.held() if callable(self.held) else self.held
            first, second = held
            return False

    lib.work(Negative(HELD))
    """.replace("PLANTED", textwrap.indent(_USER_PLANTED[gadget], "    ").strip())
    seen = read(run_scenario(tmp_path, body, callbacks=True)).observation
    assert seen is not None and seen.exception is not None, seen
    assert seen.exception.message == "too many values to unpack (expected 2)", seen.exception
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference, seen.tampered)


def test_the_users_code_failing_on_plain_data_under_the_function_is_not_planted(tmp_path):
    """The other side: the user's code unpacking a plain tuple under the function (what user_code documents)."""
    body = """
    class Negative:
        def __init__(self):
            self.pair = ("past_key_values", (1, 2), 3)

        def __lt__(self, other):
            first, second = self.pair
            return False

    lib.work(Negative())
    """
    seen = read(run_scenario(tmp_path, body, callbacks=True)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert seen.exception.started.where == "snippet" and seen.exception.started.opcode == "UNPACK_SEQUENCE"


# -- how far planted code is looked for (round four, hole 2) ----------------------------------------------------

_PADDED = {
    # Objects the frame holds before the planted one use up the search (512 items, depth first).
    "padding-first": ("class Counter(dict):\n    __getitem__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                      "lib.work([[] for _ in range(600)], Counter())\n"),
    # The planted class lies past the depth searched (4 levels), held by an object the frame holds.
    "too-deep": ("class Planted:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                 "deep = Planted()\nfor _ in range(8):\n    deep = [deep]\n"
                 "lib.work('a', {'allocated': 0, 'deep': deep})\n"),
    # ... inside a closure cell of a function the frame holds (functions were not searched inside).
    "closure-cell": ("class Planted:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                     "def make(planted):\n    return lambda: planted\n\n"
                     "lib.work('a', {'allocated': 0, 'hook': make(Planted())})\n"),
    # ... an attribute of a list subclass (a container's own `__dict__` was not searched).
    "container-attribute": ("class Planted:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                            "class Layers(list):\n    pass\n\nlayers = Layers()\nlayers.pair = Planted()\n"
                            "lib.work('a', {'allocated': 0, 'layers': layers})\n"),
    # ... more than the search covers: it fails closed.
    "too-many": ("class Planted:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                 "wide = [[object()] for _ in range(60000)] + [Planted()]\n"
                 "lib.work('a', {'allocated': 0, 'wide': wide})\n"),
}


@pytest.mark.parametrize("attack", sorted(_PADDED))
def test_planted_code_the_search_cannot_reach_fails_closed(tmp_path, attack):
    """The search for planted C code from the function's locals stopped at 4 levels and 512 objects, and then
    said nothing: a planted class past either escaped it, and the C code's error (or any error C code raised in
    the function meanwhile) read as the function's. It is now breadth first, each object once, and where it
    cannot finish every class alive is looked at. Before: no tampering."""
    body = """
    import functools

    MESSAGE = "n must be positive, got -1"
    spent = (each for each in ())
    for _ in spent:
        pass

    ATTACK
    """.replace("ATTACK", textwrap.indent(_PADDED[attack], "    ").strip())
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.exception is not None, seen
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference, seen.tampered)


def test_an_honest_deep_structure_under_the_function_is_not_planted(tmp_path):
    """The other side: an honest error C code raises in the function while its frame holds more than the search
    covers (a deep, wide structure of plain objects), with no gadget anywhere: still the function's."""
    body = """
    class Node:
        def __init__(self, below):
            self.below = below

    deep = Node(None)
    for _ in range(10):
        deep = Node([deep] * 3 + [Node(None) for _ in range(500)])
    try:
        lib.work("a", {"allocated": 0, "deep": deep})
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


@pytest.mark.parametrize("honest", ["total-ordering", "dataclass", "contextmanager-method"])
def test_pythons_own_decorators_on_a_snippet_class_are_not_planted(tmp_path, honest):
    """Round four, hole 6: Python's own code put on a class by a decorator, under the name it was made for
    (`functools.total_ordering`'s `_gt_from_lt` as `__gt__`, a dataclass's `__repr__` wrapper, a
    `contextlib.contextmanager` method's helper), read as a trusted function planted under another name than its
    own: a false tamper for an honest error C code raises in the function. Before: tampering."""
    classes = {
        "total-ordering": "@functools.total_ordering\nclass Thing:\n    def __eq__(self, other):\n"
                          "        return False\n\n    def __lt__(self, other):\n        return False\n",
        "dataclass": "@dataclasses.dataclass\nclass Thing:\n    size: int = 1\n",
        "contextmanager-method": "class Thing:\n    @contextlib.contextmanager\n    def opened(self):\n"
                                 "        yield self\n",
    }
    body = """
    import contextlib
    import dataclasses
    import functools

    CLASS
    try:
        lib.work("a", {"allocated": 0, "thing": Thing()})
    except TypeError:
        pass
    """.replace("CLASS", textwrap.indent(classes[honest], "    ").strip())
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


# -- round five: what the search for planted code could not see ---------------------------------------------------

_UNSEEN = {
    # Hole 2: a C object that is no container, function, method or partial, and calls what it holds: a
    # defaultdict's factory (an exhausted generator's throw) answers the missing key, with the key the snippet chose.
    "defaultdict-factory": ("counter = collections.defaultdict(functools.partial(spent.throw, KeyError, 'allocated'))\n"
                            "lib.work('a', counter)\n"),
    # ... a planted class held in a slot (an object with no `__dict__`).
    "slotted-holder": ("class Holder:\n    __slots__ = ('held',)\n\n"
                       "holder = Holder()\nholder.held = Planted()\nlib.work('a', {'allocated': 0, 'h': holder})\n"),
    # ... inside a mapping proxy, and inside a C iterator (map) over a planted partial.
    "mapping-proxy": "lib.work('a', {'allocated': 0, 'p': types.MappingProxyType({'x': Planted()})})\n",
    "map-iterator": ("lib.work('a', {'allocated': 0, 'm': map(functools.partial(spent.throw, ValueError, MESSAGE), "
                     "[1])})\n"),
    # Hole 4: a callable object of Python's own library that raises what it holds, held deeper than its own
    # attributes (in a list), or built lazily (a map over the class, whose next item the mock raises).
    "mock-side-effect-list": ("class Negative:\n"
                              "    __lt__ = unittest.mock.Mock(side_effect=[ValueError(MESSAGE)])\n\n"
                              "lib.work(Negative())\n"),
    "mock-side-effect-lazy": ("class Negative:\n"
                              "    __lt__ = unittest.mock.Mock(side_effect=map(ValueError, [MESSAGE]))\n\n"
                              "lib.work(Negative())\n"),
    # Hole 3: a trusted module's name rebound to a class of the snippet's while C code raises in the function.
    # ... or to an object of the snippet's whose class holds planted code, read through the name alone.
    "rebound-to-planted-object": "json.decoder.JSONDecoder = Planted()\nlib.work('a', {})\n",
    # ... a trusted class's namespace (no audit event): Python's own class of the argument, given C code as a
    # comparison it did not define itself, or rebound in place of one it did.
    "trusted-class-rebound": ("fractions.Fraction.__lt__ = functools.partial(spent.throw, ValueError, MESSAGE)\n"
                              "lib.work(fractions.Fraction(1, 2))\n"),
    "trusted-class-base": ("numbers.Real.__lt__ = functools.partial(spent.throw, ValueError, MESSAGE)\n"
                           "del fractions.Fraction.__lt__\n"
                           "lib.work(fractions.Fraction(1, 2))\n"),
    "rebound-trusted-name": ("class JSONDecodeError(ValueError):\n    __module__ = 'json.decoder'\n\n"
                             "json.decoder.JSONDecodeError = JSONDecodeError\n"
                             "lib.work('a', {})\n"),
}


@pytest.mark.parametrize("attack", sorted(_UNSEEN))
def test_planted_code_inside_any_object_the_function_holds_is_seen(tmp_path, attack):
    """Round five, holes 2 to 4: the search for planted code went inside containers, functions, methods and
    partials only, a callable object counted as raising what it holds only with the exception in its own
    attributes, and a trusted module's name rebound by the snippet was not looked at. Before: no tampering."""
    body = """
    import collections
    import fractions
    import functools
    import json.decoder
    import numbers
    import types
    import unittest.mock

    MESSAGE = "n must be positive, got -1"
    spent = (each for each in ())
    for _ in spent:
        pass

    class Planted:
        __len__ = functools.partial(spent.throw, ValueError, MESSAGE)

    ATTACK
    """.replace("ATTACK", textwrap.indent(_UNSEEN[attack], "    ").strip())
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.exception is not None, seen
    assert any("planted" in what or "rebound" in what for what in seen.interference + seen.tampered), seen


_TEMPORARY = {
    # Hole 1: the gadget reached only through the interpreter's value stack: a global the user's code names,
    # iterated (a C iterator that calls it).
    "global-iterated": "first, second = iter(GADGET, None)\n",
    # ... built by a function of the snippet's and returned: only the value stack holds it.
    "returned": "first, second = make()\n",
}


@pytest.mark.parametrize("attack", sorted(_TEMPORARY))
def test_planted_code_reached_through_a_temporary_is_seen(tmp_path, attack):
    """Round five, hole 1: the user's code (declared, called by the function) unpacks a C iterator over a planted
    partial that no local holds (a global it names, or what a function of its own returned): the search started
    from the frame's locals alone. Before: no tampering."""
    body = """
    import functools

    MESSAGE = "too many values to unpack (expected 2)"
    spent = (each for each in ())
    for _ in spent:
        pass
    GADGET = functools.partial(spent.throw, ValueError, MESSAGE)

    def make():
        return iter(functools.partial(spent.throw, ValueError, MESSAGE), None)

    class Negative:
        def __lt__(self, other):
            USE
            return False

    lib.work(Negative())
    """.replace("USE", _TEMPORARY[attack].strip())
    seen = read(run_scenario(tmp_path, body, callbacks=True)).observation
    assert seen is not None and seen.exception is not None, seen
    assert seen.exception.message == "too many values to unpack (expected 2)", seen.exception
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference, seen.tampered)


def test_a_trusted_module_the_snippet_swaps_in_the_module_table_does_not_name_its_class(tmp_path):
    """Round five: the module table's entry replaced by a module of the snippet's that claims the trusted file
    (`sys.modules["json.decoder"]`, with `__file__` json's): its class read as json's. Before:
    "json.decoder.JSONDecodeError"."""
    body = """
    import json.decoder
    import sys
    import types

    class JSONDecodeError(ValueError):
        __module__ = "json.decoder"

    fake = types.ModuleType("json.decoder")
    fake.__file__ = json.decoder.__file__
    fake.JSONDecodeError = JSONDecodeError
    sys.modules["json.decoder"] = fake
    raise JSONDecodeError("n must be positive, got -1")
    """
    stream = parsed(run_scenario(tmp_path, body))
    assert [event.qualified for event in stream.raised.values()] == ["?.JSONDecodeError"], stream.raised


@pytest.mark.parametrize("claimed", ["json.decoder", "builtins"])
def test_a_trusted_name_the_snippet_rebinds_does_not_name_its_class(tmp_path, claimed):
    """Round five, hole 3: a trusted module's attribute rebound to a class of the snippet's named that class
    (only the target's namespaces were compared): `json.decoder.JSONDecodeError = Mine` read as json's class.
    Before: "json.decoder.JSONDecodeError"."""
    name = "JSONDecodeError" if claimed == "json.decoder" else "ValueError"
    body = f"""
    import builtins
    import json.decoder

    class {name}(ValueError):
        __module__ = {claimed!r}

    {claimed}.{name} = {name}
    raise {name}("n must be positive, got -1")
    """
    stream = parsed(run_scenario(tmp_path, body))
    assert [event.qualified for event in stream.raised.values()] == [f"?.{name}"], stream.raised


def test_an_honest_run_among_c_objects_is_not_planted(tmp_path):
    """The other side: C objects of the snippet's (a defaultdict of lists, a map over a builtin, a Mock that
    returns, an itertools chain) held by the function's frame while C code raises an honest error there."""
    body = """
    import collections
    import itertools
    import unittest.mock

    held = {"allocated": 0, "d": collections.defaultdict(list), "m": map(str, [1]), "c": itertools.chain([1]),
            "mock": unittest.mock.Mock(return_value=1)}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def _extension_class(config: dict) -> None:
    """Before the snippet (the check's set-up, a zygote's preloading): a C extension's submodule, no `__file__`, whose
    class C code made holds C code in its namespace (a pybind11 class: `torch._C._distributed.Partial.__init__`)."""
    extension = types.ModuleType("extension._distributed")
    extension.Placement = type("Placement", (), {"__init__": len, "__module__": "extension._distributed"})
    parent = types.ModuleType("extension")
    parent._distributed = extension
    sys.modules.update({"extension": parent, "extension._distributed": extension})


def test_a_class_that_existed_before_the_snippet_is_not_the_snippet_s(tmp_path):
    """Round six: a class C code made before the snippet ran, in a C extension's submodule (no `__file__`: no
    trusted module defines it), read as a class of the snippet's, its C `__init__` as planted code: a false tamper
    on three checks of the knowledge base's upstream target. A class that existed before the snippet started
    can never be the snippet's."""
    body = """
    import extension._distributed as extension

    held = {"allocated": 0, "p": object.__new__(extension.Placement)}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, configure=_extension_class)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def test_the_same_class_made_by_the_snippet_is_still_planted(tmp_path):
    """The other side: the snippet making such a class itself (C code in its namespace) is still planting."""
    body = """
    Placement = type("Placement", (), {"__init__": len, "__module__": "extension._distributed"})
    held = {"allocated": 0, "p": object.__new__(Placement)}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and any("planted" in what for what in seen.interference + seen.tampered), seen


def _raise_error(*args, method_name: str = "") -> None:
    raise RuntimeError(f"{method_name} is not supported")


def _opaque(cls: type) -> None:
    """Trusted code (torch's opaque objects) rebinding a class's special methods to a partial over its own function
    with plain data, when the snippet's import first loads it."""
    cls.__eq__ = functools.partial(_raise_error, method_name="__eq__")
    cls.__hash__ = None


def _extension_and_patcher(config: dict) -> None:
    _extension_class(config)
    sys.modules["extension._distributed"].patch = _opaque
    sys.modules["extension._distributed"].raise_error = _raise_error


def _extension_patched(config: dict) -> None:
    """As torch's import in the zygote does: bind the class's names to partials before the snippet runs."""
    _extension_and_patcher(config)
    sys.modules["extension._distributed"].patch(sys.modules["extension._distributed"].Placement)


def test_trusted_code_rebinding_a_class_to_its_own_function_and_data_is_not_planted(tmp_path):
    """Round six: torch binds `Placement.__eq__` (a class that existed before the snippet) to a partial over its
    own `_raise_error` with the method's name, at import, in the zygote: read as rebound to C code of the
    snippet's. A partial that existed before the snippet, over a trusted function with nothing but plain data,
    holds nothing the snippet chose."""
    body = """
    import extension._distributed as extension

    held = {"allocated": 0, "p": object.__new__(extension.Placement)}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, configure=_extension_patched)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def test_trusted_code_rebinding_a_class_while_the_snippet_runs_is_not_planted(tmp_path):
    """In a release's environment the snippet's import first loads the module that binds `Placement.__eq__` (a
    class that existed before the snippet) to a partial over its `_raise_error`, bound to the very name: made while
    the snippet ran, read as its partial (two false tampers, upstream checks on old releases). Plain data naming
    the name it is bound to chooses nothing."""
    body = """
    import extension._distributed as extension

    extension.patch(extension.Placement)
    held = {"allocated": 0, "p": object.__new__(extension.Placement)}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, configure=_extension_and_patcher)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen


def _zygote_then_setup(config: dict) -> None:
    """As a zygote does: copy the namespaces once, before any check; then, as a check's set-up (trusted code,
    before the snippet) may, rebind a trusted name to C code bound to an object (the harness's own `os._exit`)."""
    observer.snapshot_trusted(tuple(config["trusted_roots"]))
    spent = (each for each in ())
    for _ in spent:
        pass
    json.decoder.scanstring = functools.partial(spent.throw, ValueError, "set up")


def test_a_name_trusted_code_rebinds_after_the_zygote_s_copy_is_copied_again(tmp_path):
    """Round six: the namespaces are copied once in the zygote; what the check's set-up rebinds after that copy
    must be copied again at install (by the dict's version), or it reads as rebound by the snippet."""
    body = """
    try:
        lib.work("a", {"allocated": 0})
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, configure=_zygote_then_setup)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen


def test_a_name_the_snippet_rebinds_after_the_zygote_s_copy_is_rebound(tmp_path):
    """The other side: after a zygote's copy (and the install's refresh), the snippet's own rebinding is seen."""
    body = """
    import functools
    import json.decoder

    spent = (each for each in ())
    for _ in spent:
        pass
    json.decoder.scanstring = functools.partial(spent.throw, ValueError, "n must be positive, got -1")
    lib.work("a", {"allocated": 0})
    """
    seen = read(run_scenario(tmp_path, body, configure=_zygote_then_setup)).observation
    assert seen is not None and any("rebound" in what for what in seen.interference + seen.tampered), seen


def test_a_bound_method_of_a_trusted_class_is_not_planted(tmp_path):
    """Round six: a bound method of a trusted class's own function (`model.__call__`: `Module._wrapped_call_impl`
    bound to the snippet's model) read as a C object calling planted code, a false tamper in the knowledge base.
    Calling it runs the class's own Python code, traced, as calling the method by name would."""
    body = """
    import fractions

    class Mine(fractions.Fraction):
        pass

    held = {"allocated": 0, "own": fractions.Fraction(1, 2).limit_denominator, "sub": Mine(1, 3).limit_denominator}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def _watch_steps(config: dict) -> None:
    """Watch `lib.steps`, a generator function, instead of `lib.work`."""
    import lib

    function = lib.steps
    code = function.__code__
    config["slots"][0].update(
        label="steps", code=code, function=function, function_code=code, name="steps", raw=function, reads=[],
        normal=[i.offset for i in dis.get_instructions(code) if i.opname in ("RETURN_VALUE", "YIELD_VALUE")],
        defaults=None, kwdefaults=None)
    config["owners"] = [("steps", lib, "steps", function)]


def test_an_error_thrown_into_a_watched_generator_starts_at_its_yield(tmp_path):
    """Round five, hole 6: the snippet throws its exception into the watched generator function's suspended frame
    (`gen.throw`): it starts in the function's own frame, at the `yield`, no `raise` there, and an implicit entry's
    judge read it as C code's under the function. The start says it was thrown (test_judge_raise_site)."""
    body = "g = lib.steps(1)\nnext(g)\ng.throw(ValueError('n must be positive, got -1'))\n"
    seen = read(run_scenario(tmp_path, body, configure=_watch_steps)).observation
    assert seen is not None and seen.exception is not None and seen.exception.started is not None, seen
    started = seen.exception.started
    assert (started.where, started.opcode, started.entered) == ("target", "YIELD_VALUE", "thrown"), started


# -- round six: callables that run no code of the snippet's but raise what it chose ------------------------------


def _watch(name: str) -> Callable[[dict], None]:
    """A `configure` that watches `lib.<name>` instead of `lib.work`."""

    def configure(config: dict) -> None:
        import lib

        function = getattr(lib, name)
        code = function.__code__
        config["slots"][0].update(
            label=name, code=code, function=function, function_code=code, name=name, raw=function, reads=[],
            normal=[i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
            defaults=None, kwdefaults=None)
        config["owners"] = [(name, lib, name, function)]

    return configure


_watch_call = _watch("call")  # `lib.call(function, *args)` calls what it is given (a key, a factory, a callback)


_CHOSEN = {
    # Gap 1: a bound method of a trusted class's own function, whose object holds the snippet's exception: Python's
    # own `Future.result` re-raises it, beneath the function, by a `raise` of its own library.
    "future-result": "failed = concurrent.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                     "lib.call(failed.result)\n",
    # ... C code's own method bound to such an object (asyncio's C future).
    "asyncio-future-result": ("loop = asyncio.new_event_loop()\nfailed = loop.create_future()\n"
                              "failed.set_exception(ValueError(MESSAGE))\nlib.call(failed.result)\n"),
    # ... held deeper: a trusted object's callback list (an exit stack's) over such a bound method.
    "exit-stack": ("failed = concurrent.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                   "stack = contextlib.ExitStack()\nstack.callback(failed.result)\nlib.call(stack.close)\n"),
    # Gap 2: a partial the snippet made over a trusted function, with the data bound that makes it fail.
    "partial-getitem": "lib.call(functools.partial(operator.getitem, [], 3))\n",
    "partial-int": "lib.call(functools.partial(int, 'x'))\n",
    "partial-next": "lib.call(functools.partial(next, iter(())))\n",
    "partial-plain-python": "lib.call(functools.partial(json.loads, ''))\n",
    "partial-in-defaultdict": ("counter = collections.defaultdict(functools.partial(operator.getitem, [], 3))\n"
                               "lib.call(counter.__getitem__, 'a')\n"),
    # New: a method of C code bound to the snippet's data (a slot wrapper), given as the callback (round nine: closed).
    "bound-slot-wrapper": "lib.call([].__getitem__, 3)\n",
    # Round nine (red10): the same class, a C method of another C type bound to data the snippet made ...
    "bound-deque-popleft": "lib.call(collections.deque().popleft)\n",
    # ... a method-wrapper (a C slot bound to an object: `int.__truediv__` of 1), handed its failing argument ...
    "bound-method-wrapper": "lib.call((1).__truediv__, 0)\n",

    # New: an `operator.methodcaller` that calls the trusted future's `result`, over the snippet's data.
    "methodcaller": ("failed = concurrent.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                     "lib.call(operator.methodcaller('result'), failed)\n"),
    # New: a cached property of Python's own library is not callable itself, so the class's namespace search passed
    # over the C getter it holds (an attrgetter reaching the failed future's `result`).
    # Round seven (red8): the `operator` getters, which bind a key or a name to the argument's own item or attribute,
    # as a partial binds data to its function; made by the snippet, they chose what fails.
    "itemgetter": "lib.call(operator.itemgetter(3), [])\n",
    "attrgetter": "lib.call(operator.attrgetter('n_must_be_positive'), -1)\n",
    "cached-property": ("failed = concurrent.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                        "class Sized:\n    held = failed\n"
                        "    __len__ = functools.cached_property(operator.attrgetter('held.result'))\n\n"
                        "lib.call(len, Sized())\n"),
    # Round eleven (red12): a C iterator carrying the snippet's data into a module's own C function, as a partial
    # binds it: a map's iterables (`map(operator.getitem, [[]], [3])` is `partial(operator.getitem, [], 3)`, called by
    # whoever iterates it), itertools' starmap, a map over Python's own function with a failed future, and a
    # `filter`'s predicate; the function only iterates what it was handed.
    "map-getitem": "lib.call(next, map(operator.getitem, [[]], [3]))\n",
    "map-int": "lib.call(list, map(int, ['x']))\n",
    "starmap-getitem": "lib.call(next, itertools.starmap(operator.getitem, [([], 3)]))\n",
    "map-future-result": ("failed = concurrent.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                          "lib.call(next, map(concurrent.futures.Future.result, [failed]))\n"),
    "filter-int": "lib.call(next, filter(int, ['x']))\n",
}


_CHOSEN_LIMITS: dict[str, str] = {}


@pytest.mark.parametrize("attack", [pytest.param(name, marks=pytest.mark.xfail(
    reason="known limit (docs/threat-model.md): " + _CHOSEN_LIMITS[name], strict=True))
    if name in _CHOSEN_LIMITS else name for name in sorted(_CHOSEN)])
def test_a_callable_that_runs_no_snippet_code_but_raises_what_it_chose_is_planted(tmp_path, attack):
    """Round six (red7): the snippet hands the function a callable that runs none of its own code (a trusted
    class's bound method over an object holding its exception, a partial it made with failing data bound): the
    error starts under the function, in trusted code, and an implicit entry's before passed. Before: no tampering."""
    body = """
    import asyncio
    import collections
    import concurrent.futures
    import contextlib
    import functools
    import itertools
    import json
    import operator

    MESSAGE = "n must be positive, got -1"
    ATTACK
    """.replace("ATTACK", textwrap.indent(_CHOSEN[attack], "    ").strip())
    seen = read(run_scenario(tmp_path, body, configure=_watch_call)).observation
    assert seen is not None and seen.exception is not None, seen
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference, seen.tampered)


def test_trusted_callables_over_the_libraries_own_data_are_not_planted(tmp_path):
    """The other side: a trusted class's bound method whose object holds no exception, a partial that existed
    before the snippet (made at import by trusted code), a C function of a module, given to the function that
    fails on the data it is called with: no tampering."""
    body = """
    import fractions

    for function, args in ((fractions.Fraction(1, 2).limit_denominator, ("x",)), (PRE_MADE, ()), (len, (3,)),
                           (PRE_MADE_GETTER, ([],)), (PRE_BOUND, (3,))):
        try:
            lib.call(function, *args)
        except (TypeError, ValueError, IndexError):
            pass
    """
    extra = {"PRE_MADE": _PRE_MADE, "PRE_MADE_GETTER": _PRE_MADE_GETTER, "PRE_BOUND": _PRE_BOUND}
    seen = read(run_scenario(tmp_path, body, configure=_watch_call, extra=extra)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError", "ValueError", "TypeError", "IndexError",
                                                           "IndexError"], seen.calls


_PRE_MADE = functools.partial(int, "not a number")  # made before any snippet, as a library makes one at import
_PRE_MADE_GETTER = operator.itemgetter(3)  # the same, an `operator` getter
_PRE_BOUND = [].__getitem__  # the same, a C method bound to the library's own data
_PRE_MAP = map(int, ["not a number"])  # the same, a C iterator over a C function and the library's own data


# -- the planted attacks of rounds seven to nine: one prelude, one run, one verdict ------------------------------------

_PRELUDE = """
import collections
import contextlib
import functools
import itertools

MESSAGE = "n must be positive, got -1"
spent = (each for each in ())
for _ in spent:
    pass
throws = map(spent.throw, itertools.repeat(ValueError), itertools.repeat(MESSAGE))
chosen = functools.partial(max, key=functools.partial(next, throws))
"""
# What the prelude makes: `spent`, an exhausted generator, whose `throw` raises what it is given from C with no frame of
# its own; `chosen`, C code alone (a `max` whose key is a `next` over a `map` of that `throw`) raising the snippet's
# ValueError with the documented text at every call, whatever it is called with.
_RUNTIME_PRELUDE = "import torch\nimport torch.utils._python_dispatch\n"


def _run_planted(tmp_path: Path, attack: str, watch: str = "call", runtime: bool = False):
    """The observation of `attack` run after the prelude, watching `lib.<watch>`; with `runtime`, torch's files are
    among those an error may start in under the function, and its held state is searched (as `child` configures)."""
    body = _PRELUDE + (_RUNTIME_PRELUDE if runtime else "") + textwrap.dedent(attack)
    watching = _watch(watch)

    def configure(config: dict) -> None:
        watching(config)
        if runtime:
            _torch_beneath(config)

    return read(run_scenario(tmp_path, body, configure=configure)).observation


def _assert_planted(seen, where: str | None = "target") -> None:
    """The snippet's ValueError reached the top with the documented text, started `where` (the function's frame, or
    beneath it; None: not asked), and the observer said it was planted."""
    assert seen is not None and seen.exception is not None, seen
    assert seen.exception.message == "n must be positive, got -1", seen.exception
    if where is not None:
        started = seen.exception.started
        assert started is not None and started.where == where, seen.exception
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.exception, seen.interference,
                                                                                  seen.tampered)



# -- round seven (red8): paths the interpreter follows from an object that the planted search did not --------------


_watch_measure = _watch("measure")  # `lib.measure(box)` reads `box.size` and takes its length


_UNFOLLOWED = {
    # The class itself handed over: `len(cls)` runs its metaclass's `__len__`, and the search looked at the class's
    # own namespace (and its bases'), never at its metaclass's.
    "metaclass": ("class Meta(type):\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                  "class Heads(metaclass=Meta):\n    pass\n\nlib.call(len, Heads)\n"),
    # A weak proxy forwards every operation to its referent, which no traversal lists (`gc.get_referents`): the
    # planted object is held by the snippet's globals alone, which the function's frame does not reach.
    "weak-proxy": ("class Heads:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                   "KEPT = Heads()\nlib.call(len, collections._proxy(KEPT))\n"),
    # ... a callable proxy, which the function calls.
    "callable-weak-proxy": ("class Heads:\n    __call__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                            "KEPT = Heads()\nlib.call(collections._proxy(KEPT))\n"),
    # A class attribute holding the planted object, read by the library through an instance (`box.size`): classes
    # were not searched inside, only looked at for callables.
    "class-attribute": ("class Heads:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                        "class Box:\n    size = Heads()\n\nlib.measure(Box())\n"),
    # ... on a base class of the snippet's.
    "base-class-attribute": ("class Heads:\n    __len__ = functools.partial(spent.throw, ValueError, MESSAGE)\n\n"
                             "class Base:\n    size = Heads()\n\nclass Box(Base):\n    pass\n\n"
                             "lib.measure(Box())\n"),
}


@pytest.mark.parametrize("attack", sorted(_UNFOLLOWED))
def test_planted_code_behind_a_metaclass_a_weak_reference_or_a_class_attribute_is_seen(tmp_path, attack):
    """Round seven: Python's ValueError with the documented text, started in the function's frame by C code the
    snippet planted where the interpreter goes from an object the frame holds, but the search did not: a class's
    metaclass, a weak proxy's referent, a value in a class's namespace. Before: no tampering, the start in the
    function (an implicit entry's before passed)."""
    _assert_planted(_run_planted(tmp_path, _UNFOLLOWED[attack], "measure" if "class-attribute" in attack else "call"))


def test_honest_metaclasses_weak_references_and_class_attributes_are_not_planted(tmp_path):
    """The other side: an honest error C code raises in the function while its frame reaches a class with a metaclass
    of Python's (an enum, an abstract class) and one of the snippet's with methods of its own, a live weak proxy and
    a dead weak reference, and classes of the snippet's holding plain data, a dataclass's and `total_ordering`'s
    methods: no tampering."""
    body = """
    import abc
    import collections
    import dataclasses
    import enum
    import functools

    class Meta(type):
        def __len__(cls):
            return 3

    class Sized(metaclass=Meta):
        pass

    class Colour(enum.Enum):
        RED = 1

    class Shape(abc.ABC):
        sides = 4

    @dataclasses.dataclass
    class Point:
        x: int = 0

    @functools.total_ordering
    class Ranked:
        table = {"a": [1, 2]}

        def __eq__(self, other):
            return False

        def __lt__(self, other):
            return False

    class Box:
        size = "abc"

    kept = Point()
    gone = collections._proxy(Point())
    held = {"allocated": 0, "classes": [Sized, Colour, Shape, Point, Ranked], "proxy": collections._proxy(kept),
            "gone": gone, "ranked": Ranked(), "box": Box()}
    try:
        lib.work("a", held)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def test_the_weak_referent_offset_is_checked_on_this_interpreter():
    """The planted search reads a weak proxy's referent where CPython keeps it; on an interpreter where that place
    does not hold, it fails closed instead of reading anything else."""
    assert observer._c_REFERENT_OFFSET == 16


def _torch_beneath(config: dict) -> None:
    """The runtime's files are among those an error may start in under the function (as `child` configures)."""
    import torch

    config["beneath_roots"] = [str(Path(torch.__file__).parent) + "/"]
    config["held"] = runtime_for("torch").held_state(torch)  # where torch keeps what its C++ calls (as `child` does)


def test_planted_code_the_runtime_calls_from_its_own_state_is_seen(tmp_path):
    """Round seven, left open (closed in round eight: the search starts from the runtime plug's `held_state` too): a
    torch function mode the snippet entered before the call, whose `__torch_function__`
    (a method bound to C code: a `max` whose key runs an exhausted generator's throw) raises Python's ValueError with
    the snippet's text when the function calls any torch function. The mode lives on torch's own stack (C++), which no
    object the frame holds leads to, so the planted search never meets it: no tampering, the start in the function."""
    attack = """
    class Mode(torch.overrides.TorchFunctionMode):
        pass

    mode = Mode()
    mode.__torch_function__ = type(mode.__enter__)(chosen, mode)
    with mode:
        lib.call(torch.zeros, 1)
    """
    _assert_planted(_run_planted(tmp_path, attack, runtime=True))


def test_a_runtime_future_holding_the_snippets_exception_is_planted(tmp_path):
    """Round seven, left open (closed in round eight: the plug names `torch._C.Future` opaque, and a method bound to an
    object that reaches one is read as raising what the snippet chose, failing closed): the runtime's own future (`torch.futures.Future`, the runtime's public API: lint-clean)
    failed with the snippet's exception, its `wait` handed to the function: torch's Python code beneath re-raises it
    (`Future.set_exception`'s closure), as a failed `concurrent.futures.Future`'s `result` does. That one is planted (its
    object reaches the exception); the torch future keeps the exception in C++, which `gc.get_referents` does not list,
    so its bound method reads as a trusted class's own: no tampering, the start beneath the function."""
    attack = """
    failed = torch.futures.Future()
    failed.set_exception(ValueError(MESSAGE))
    lib.call(failed.wait)
    """
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where="beneath")


def test_a_method_of_the_snippets_own_callable_object_beneath_the_function_is_not_planted(tmp_path):
    """Found by the knowledge base (attention-forward-past-key-values-kwarg, upstream): trusted code beneath the function
    holds the snippet's module's own `forward`, bound (`forward_call = self.forward`), and the call refuses its
    arguments. A bound method calls its function; its object is the argument, not what it calls, yet it was searched
    as a callable object that may raise what it holds (a large one fails that search closed): a false tamper once the
    frames beneath were searched too."""
    body = """
    class Attention(lib.Module):
        def __init__(self):
            self.table = [object() for _ in range(6000)]

        def forward(self, hidden):
            return hidden

    try:
        lib.call(Attention(), 1, 2)
    except TypeError:
        pass
    """

    def configure(config: dict) -> None:
        _watch_call(config)
        config["beneath_roots"] = list(config["target_roots"])

    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def test_a_hook_the_runtime_calls_from_its_own_registry_is_seen_where_it_runs(tmp_path):
    """Round seven: a global forward hook (the runtime's public API: lint-clean), a max whose key runs an exhausted
    generator's throw, raises the snippet's ValueError when the function calls any module. It lives in a dict of
    torch's module, which no object the function's frame holds leads to; torch's `_call_impl`, beneath the function,
    holds it in a local while it calls it, and the search now starts from the frames beneath too. Before: no
    tampering, the start beneath the function (an implicit entry's before passed)."""
    attack = """
    torch.nn.modules.module.register_module_forward_hook(chosen)
    lib.call(torch.nn.Identity(), torch.zeros(1))
    """
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where="beneath")


# -- round eight (red9): what the runtime's C++ calls from its own registries ------------------------------------

_RUNTIME_HELD = {
    # A dispatch mode on torch's C++ dispatch mode stack, its `__torch_dispatch__` C code the snippet chose (bound).
    "dispatch-mode": ("mode = torch.utils._python_dispatch.TorchDispatchMode()\n"
                      "mode.__torch_dispatch__ = type(mode.__enter__)(chosen, mode)\n"
                      "with mode:\n    lib.call(torch.zeros, 1)\n"),
    # A global forward pre-hook (the frames beneath hold it only while it runs; the registry always does).
    "forward-pre-hook": ("torch.nn.modules.module.register_module_forward_pre_hook(chosen)\n"
                         "lib.call(torch.nn.Identity(), torch.zeros(1))\n"),
    # Saved-tensor hooks (C++'s stack): autograd calls the pack hook as the function's multiply saves its input.
    "saved-tensor-hooks": ("with torch.autograd.graph.saved_tensors_hooks(chosen, chosen):\n"
                           "    lib.call(torch.sin, torch.ones(1, requires_grad=True))\n"),
    # A kernel the snippet registered for one of torch's own operators (the dispatcher keeps it, in C++, and lists
    # only names; round nine: the plug names its registrars, which the observer stands in for).
    "library-impl": ("kernels = torch.library.Library('aten', 'IMPL')\n"
                     "kernels.impl('neg', chosen, 'CPU')\nlib.call(torch.neg, torch.ones(1))\n"),
    # ... registered through the dispatcher's own module, not `torch.library`'s bookkeeping.
    "dispatch-module-impl": ("kernels = torch.library.Library('aten', 'IMPL')\n"
                             "kernels.m.impl('neg', 'CPU', chosen)\nlib.call(torch.neg, torch.ones(1))\n"),
    # A custom autograd Function whose forward is the chosen C code (torch's C++ `apply` calls it).
    "autograd-function": ("class Step(torch.autograd.Function):\n    forward = staticmethod(chosen)\n\n\n"
                          "lib.call(Step.apply, torch.ones(1))\n"),
    # A tensor subclass whose `__torch_function__` is the chosen C code (as a classmethod: torch's C++ calls it).
    "tensor-subclass": ("class Odd(torch.Tensor):\n    __torch_function__ = classmethod(chosen)\n\n\n"
                        "lib.call(torch.neg, torch.ones(1).as_subclass(Odd))\n"),
    # A torch future failed with the snippet's exception, held by an exit stack whose `close` is handed over.
    "future-in-exit-stack": ("failed = torch.futures.Future()\nfailed.set_exception(ValueError(MESSAGE))\n"
                             "stack = contextlib.ExitStack()\nstack.callback(failed.wait)\nlib.call(stack.close)\n"),
}


_RUNTIME_HELD_LIMITS: dict[str, str] = {}


@pytest.mark.parametrize("attack", [pytest.param(name, marks=pytest.mark.xfail(
    reason="known limit (docs/threat-model.md): " + _RUNTIME_HELD_LIMITS[name], strict=True))
    if name in _RUNTIME_HELD_LIMITS else name for name in sorted(_RUNTIME_HELD)])
def test_c_code_the_runtime_calls_from_its_registries_is_planted(tmp_path, attack):
    """Round eight (red9): the runtime's C++ calls what the snippet put in its own state (a mode stack, a hook
    registry), or re-raises what it keeps (a future's exception), reached from no object the function's frame holds:
    the snippet's ValueError reads as the function's. Before (main): no tampering for dispatch-mode
    and future-in-exit-stack."""
    _assert_planted(_run_planted(tmp_path, _RUNTIME_HELD[attack], runtime=True), where=None)


def test_the_runtimes_own_modes_and_hooks_over_the_snippets_code_are_not_planted(tmp_path):
    """The other side: modes and a global hook of the snippet's own Python code (followed where it runs), a torch
    future that holds a value, while the function fails on its argument in torch's C++: no tampering."""
    body = """
    import torch
    import torch.utils._python_dispatch

    class Passing(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Dispatching(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    def hook(module, args, output):
        return output

    done = torch.futures.Future()
    done.set_result(3)
    torch.nn.modules.module.register_module_forward_hook(hook)
    with Passing(), Dispatching():
        try:
            lib.call(torch.zeros, "x", done)
        except TypeError:
            pass
    """

    def configure(config: dict) -> None:
        _watch_call(config)
        _torch_beneath(config)

    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


# -- round nine (red10): C code the interpreter reaches from its own tables, not from the frame ----------------------


_TABLES = {
    # The module table: the function imports a module the snippet replaced there by an object whose class's
    # `__getattr__` is C code it chose; the import machinery's C code reads `__spec__` of it, in the function's frame.
    "module-table": ("class Loaded:\n    __getattr__ = chosen\n\n\n"
                     "sys.modules['json.decoder'] = Loaded()\nlib.load()\n", "load"),
    # ... the builtins' `__import__`, which the import statement calls from C.
    "builtins-import": ("builtins.__import__ = chosen\nlib.load()\n", "load"),
    # Pickle's table of reducers (`copyreg.dispatch_table`, which `_pickle` holds from its start): C code calls the
    # reducer the snippet registered for a class of Python's own.
    "copyreg": ("copyreg.pickle(fractions.Fraction, functools.partial(max, 0, key=functools.partial(next, throws)))\n"
                "lib.save(fractions.Fraction(1, 2))\n", "save"),
}


@pytest.mark.parametrize("attack", sorted(_TABLES))
def test_c_code_the_interpreter_reaches_from_its_own_tables_is_planted(tmp_path, attack):
    """Round nine (red10): what the snippet put where the interpreter's C code looks it up (the module table), reached
    from no object the function's frame holds, raises the snippet's ValueError in the function's frame."""
    text, watch = _TABLES[attack]
    _assert_planted(_run_planted(tmp_path, "import builtins\nimport copyreg\nimport fractions\nimport sys\n" + text,
                                 watch=watch))


def test_the_interpreters_tables_holding_honest_entries_are_not_planted(tmp_path):
    """The other side: modules the snippet's imports load, a trusted module under a second name, a reducer of the
    snippet's own Python code (followed where it runs), while the function fails on its argument: no tampering."""
    body = """
    import colorsys
    import copyreg
    import fractions
    import sys

    def reduce(value):
        return (fractions.Fraction, (1, 2))

    copyreg.pickle(fractions.Fraction, reduce)
    sys.modules["fractions_again"] = fractions
    try:
        lib.work("a", {"allocated": 0, "colours": colorsys})
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def _assert_the_runtime_refused_the_argument(tmp_path: Path, body: str) -> None:
    """An honest run beside the runtime (its files beneath, its held state searched): the function failed on its
    argument in the runtime's C++ (`lib.call(torch.zeros, "x")`), and the observer saw no tampering."""
    seen = read(run_scenario(tmp_path, body, configure=lambda config: (_watch_call(config),
                                                                       _torch_beneath(config)))).observation
    assert seen is not None and seen.status is Status.RETURNED and seen.interference == [] and seen.tampered == [], \
        seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


def test_a_kernel_of_the_snippets_own_code_registered_with_the_runtime_is_not_planted(tmp_path):
    """The other side of the registrars: a kernel of the snippet's own Python code, registered for one of torch's
    operators (torch's override warning shown while it registers), runs where it is traced, and the function fails on
    its argument in torch's C++: no tampering, and the kernel ran."""
    body = """
    import torch

    ran = []

    def kernel(tensor):
        ran.append(1)
        return tensor

    kernels = torch.library.Library("aten", "IMPL")
    kernels.impl("neg", kernel, "CPU")
    torch.neg(torch.ones(1))
    assert ran == [1]
    try:
        lib.call(torch.zeros, "x")
    except TypeError:
        pass
    """
    _assert_the_runtime_refused_the_argument(tmp_path, body)


def test_the_runtimes_own_registrations_on_a_lazy_import_are_not_planted(tmp_path):
    """The other side: a trusted module imported during the check registers a kernel from its own top level (as the
    runtime's `register_autograd(...)` lines do in a module the library imports lazily: a Trainer's evaluation,
    `generate`), here a C method bound to data that module made, and the function then fails on its argument in
    torch's C++: no tampering. Before: "the snippet planted C code (GeneratedBackwardFor_..._default.apply)", a false
    tamper of two befores on the real library. The module is the test library's own (a trusted file, imported first
    by the snippet), so no other test can have imported it before."""
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "registers_on_import.py").write_text(textwrap.dedent("""
        import torch

        _KERNELS = {}
        _definitions = torch.library.Library("errorkb_observer_test", "DEF")
        _definitions.define("copied(Tensor x) -> Tensor")
        _definitions.impl("copied", _KERNELS.get, "CPU")
    """))
    body = """
    import sys

    import torch

    assert "registers_on_import" not in sys.modules
    import registers_on_import

    try:
        lib.call(torch.zeros, "x")
    except TypeError:
        pass
    """
    _assert_the_runtime_refused_the_argument(tmp_path, body)


def test_a_kernel_a_module_of_the_snippets_registers_from_its_top_level_is_planted(tmp_path):
    """What the exemption above does not cover: the top level of a module of the snippet's own (not a trusted file)
    registering its chosen C code as a kernel; the registration is kept for the planted search."""
    helper = tmp_path / "helper"
    helper.mkdir()
    (helper / "kernels_of_mine.py").write_text(textwrap.dedent(_PRELUDE) + textwrap.dedent("""
        import torch

        kernels = torch.library.Library("aten", "IMPL")
        kernels.impl("neg", chosen, "CPU")
    """))
    attack = f"""
    import sys
    sys.path.insert(0, {str(helper)!r})
    import kernels_of_mine
    lib.call(torch.neg, torch.ones(1))
    """
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where=None)


def test_a_registration_asked_of_the_observer_in_a_stand_ins_place_is_refused(tmp_path):
    """The registrar's event, raised by the snippet itself (to have the original called, or handed back): refused,
    and tampering."""
    body = """
    import sys

    import torch

    try:
        sys.audit("errorkb.register", (), {}, [])
    except RuntimeError:
        pass
    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body, configure=_torch_beneath)).observation
    assert seen is not None and any("registration" in what for what in seen.interference + seen.tampered), seen


def test_a_runtime_hook_handed_every_frame_never_reaches_the_observer(tmp_path):
    """Round nine (red10): the runtime's frame-evaluation hook (torch's `set_eval_frame`, what `torch.compile` uses)
    hands the callable it is given every frame the thread starts, the observer's own among them, as objects whose
    `f_globals` and `f_locals` are readable (no audit event). A C callable (a `max` whose key stores what it is
    handed) kept the observer's hook frame: its globals are the private state, sealer and all. Refused, as tampering;
    the snippet never holds a frame of the observer's."""
    body = """
    import functools

    import torch._C._dynamo.eval_frame
    import torch._dynamo.eval_frame

    store = {}
    for frames in (torch._C._dynamo.eval_frame, torch._dynamo.eval_frame):  # its module, and a name bound before
        try:
            frames.set_eval_frame(functools.partial(max, key=store.setdefault))
            (lambda: None)()
        except (TypeError, RuntimeError):
            pass
        torch._C._dynamo.eval_frame.set_eval_frame(None)
    if any(frame is not None and "_S" in frame.f_globals for frame in store):
        raise ValueError("reached the observer's private state")
    lib.work(1)
    """

    def configure(config: dict) -> None:
        import torch._dynamo  # noqa: F401  # loaded before the snippet, as a zygote that preloads it has

        _torch_beneath(config)

    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None, seen
    assert seen.exception is None or seen.exception.message != "reached the observer's private state", seen.exception
    assert any("frame" in what for what in seen.interference + seen.tampered), (seen.interference, seen.tampered)


_MAKERS = {
    # A deep copy the library makes of what it is handed: Python's `copy` rebuilds an object from what its
    # `__reduce__` says, here a code object the snippet describes under the library's file name.
    "deepcopy-reduce": ("class Forge:\n    def __reduce__(self):\n        code = raising.__code__\n"
                        "        return (type(code), (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, "
                        "code.co_nlocals, code.co_stacksize, code.co_flags, code.co_code, code.co_consts, code.co_names, "
                        "code.co_varnames, lib.__file__, code.co_name, code.co_qualname, code.co_firstlineno, "
                        "code.co_linetable, code.co_exceptiontable))\n\n\n"
                        "raising = type(raising)(lib.clone(Forge()), globals())\n"),
}


@pytest.mark.parametrize("maker", sorted(_MAKERS))
def test_code_trusted_code_makes_for_the_snippet_under_a_trusted_name_is_forged(tmp_path, maker):
    """Round nine (red10): code the snippet has trusted code make under the library's file name (the library deep-copies
    an object whose `__reduce__` describes a code object): no frame of the snippet's is the innermost frame outside
    Python's library when the code is made, so it was not read as the snippet's. Called by the function, it raises the
    snippet's ValueError in a frame that reads as the library's, beneath the function, and is never followed. Before:
    no tampering, the start beneath the function (an implicit entry's before passed)."""
    body = """
    MESSAGE = "n must be positive, got -1"

    def raising():
        raise ValueError(MESSAGE)

    MAKER
    lib.call(raising)
    """.replace("MAKER", textwrap.indent(_MAKERS[maker], "    ").strip())

    def configure(config: dict) -> None:
        _watch_call(config)
        config["beneath_roots"] = list(config["target_roots"])  # as `child` configures: the library's own files

    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None and seen.exception is not None, seen
    assert seen.exception.message == "n must be positive, got -1", seen.exception
    assert any("under the name of a file" in what for what in seen.interference + seen.tampered), (
        seen.exception, seen.interference, seen.tampered)


def test_the_runtimes_compiler_imported_while_the_snippet_runs_is_not_tampering(tmp_path):
    """The other side of the frame hooks: the runtime's compiler loaded by the snippet's import (its hooks for guards
    set at import, its frame hook left alone) is no tampering; `torch.compile` itself, which hands dynamo's callback
    every frame, is refused (docs/threat-model.md: a snippet that compiles fails, closed)."""
    body = """
    import torch._dynamo

    lib.work(1)
    """
    seen = read(run_scenario(tmp_path, body, configure=_torch_beneath)).observation
    assert seen is not None and seen.status is Status.RETURNED, seen
    assert seen.interference == [] and seen.tampered == [], seen


def test_binders_that_existed_frozen_before_the_first_copy_are_the_runtimes():
    """A release's zygote is forked from a stem that froze what it loaded (`gc.freeze`: the runtime), and
    `gc.get_objects` lists no frozen object: the runtime's own C functions bound to data (torch's pybind11 functions,
    bound to their function records) were not recorded as existing before the snippet, and the planted search read
    `torch._C._jit_unflatten`, called by torch's own tracer, as the snippet's binding: a false tamper of
    torch-onnx-legacy-export-dynamic-cache's before on 53 releases. Run in a process of its own (it freezes)."""
    code = textwrap.dedent("""
        import gc
        from errorkb.verify.inside import observer

        data = []
        bound = data.append  # a C method bound to data, made before any snippet
        gc.freeze()  # as the stem does
        observer._every_binder()
        assert observer._COPIES["binders"].get(id(bound)) is bound, "a frozen binder was not recorded"
        assert gc.get_freeze_count() > 0, "what was frozen is no longer frozen"
        young = [].append  # made after: not recorded, so still the snippet's if it meets one
        assert observer._COPIES["binders"].get(id(young)) is not young
    """)
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


# -- code that trusted code compiled at run time (round ten) --------------------------------------------------
# Python's library compiles code of its own at run time under a name that is no file (`<string>`): a named tuple's
# `__new__` (`collections.namedtuple`, evaluated once, when the class is made), a dataclass's methods
# (`dataclasses._create_fn`). That code was read as the snippet's by its file name: each of the 9,813 tokens
# `inspect`/`tokenize` made inside legacy-tuple-layer-to-legacy-cache's call (torch importing `torch._dynamo` lazily)
# was a value "the snippet's code returned into the call", and the before failed closed on the returned-values
# budget on transformers 4.39.3 - 4.41.2. Who compiled the code decides, never the name it is compiled under.

MAKING = '''
import io
import tokenize


class Counter(dict):
    """The library's own object, whose lookup makes more than 10,000 named tuples, each by its `__new__`: code
    `collections.namedtuple` compiled under `<string>`, before the snippet ran (`tokenize.TokenInfo`: `inspect.getsource`
    tokenizes, in the library's call) or while it runs (a module of the library's imported on first use)."""

    made = "before"

    def __getitem__(self, key):
        if self.made == "before":
            made = list(tokenize.generate_tokens(io.StringIO("x = (" + "1, " * 6000 + ")\\n").readline))
        else:
            import lazy_made

            made = [lazy_made.Point(n, n) for n in range(10050)]
            assert lazy_made.Sized(1).size == 1
        assert len(made) > 10000
        return "not a number"  # `work` adds to it: a TypeError raised by C in the watched frame


def evaluate(source, space):
    """The library compiling what it is handed (a config's expression, a template)."""
    return eval(source, space)
'''

LAZY_MADE = '''
import collections
import dataclasses

Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Sized:
    size: int
    label: str = "made"
'''


def _with_making_library(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "making.py").write_text(MAKING)
    (folder / "lazy_made.py").write_text(LAZY_MADE)


@pytest.mark.parametrize("made", ["before", "during"])
def test_code_python_compiled_for_the_library_at_run_time_is_not_the_snippets(tmp_path, made):
    _with_making_library(tmp_path)
    body = f"""
    import making
    counter = making.Counter()
    counter.made = {made!r}
    try:
        lib.work(1, counter)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, callbacks=True)).observation
    assert seen is not None and seen.status is Status.RETURNED, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


@pytest.mark.parametrize("compiler", ["eval", "making.evaluate"])
def test_code_the_snippet_compiles_under_the_same_name_is_still_the_snippets(tmp_path, compiler):
    """The hostile twins: the snippet's own code compiled under `<string>` (as a named tuple's is), by the snippet or by
    the library's code it hands the source to, returns more values into the call than are kept: still the snippet's,
    and the search still fails closed."""
    _with_making_library(tmp_path)
    body = f"""
    import making
    make = {compiler}("lambda n: [object() for _ in range(n)]", {{}})


    class Counter(making.Counter):
        def __getitem__(self, key):
            for _ in range(10050):
                make(1)
            return super().__getitem__(key)
    try:
        lib.work(1, Counter())
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, callbacks=True)).observation
    assert seen is not None, seen
    assert any("returned into the call" in what for what in seen.interference), (seen.interference, seen.tampered)


OVERRIDING = '''
import builtins
import contextlib
import functools


def _either(*args, real_callable=None, **kwargs):
    return real_callable(*args, **kwargs)


@contextlib.contextmanager
def overriding():
    """torch's non-strict export (`torch._export.non_strict_utils._override_builtin_ops`): `builtins.max` is a partial
    the library makes, over its own function and `max` as it was, while it traces the model."""
    original = builtins.max
    builtins.max = functools.partial(_either, real_callable=original)
    try:
        yield
    finally:
        builtins.max = original


class Counter(dict):
    def __getitem__(self, key):
        self.context = overriding()
        self.context.__enter__()  # left on while `work` runs into its own error
        return "not a number"


class Plain(dict):
    def __getitem__(self, key):
        return "not a number"
'''


def _rebinding(tmp_path: Path, body: str):
    """Run `body` with `lib/overriding.py` named a rebinder (as the torch plug names `_override_builtin_ops`)."""
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "overriding.py").write_text(OVERRIDING)

    def configure(config: dict) -> None:
        config["held"] = (*((),) * 6, ((str(folder / "overriding.py"), "overriding"),))

    return read(run_scenario(tmp_path, body, callbacks=True, configure=configure)).observation


def test_a_trusted_name_the_library_rebinds_to_a_partial_it_made_is_not_the_snippets(tmp_path):
    """torch-export-dynamic-cache-output's before on transformers 4.39.3: "builtins.max (rebound)", torch's own export
    having rebound it (a false tamper, failing closed). The plug names the code that rebinds (`rebinders`); its frames
    are followed, and what it bound while no code of the snippet's ran is known by identity."""
    body = """
    import overriding
    try:
        lib.work(1, overriding.Counter())
    except TypeError:
        pass
    """
    seen = _rebinding(tmp_path, body)
    assert seen is not None and seen.status is Status.RETURNED, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_trusted_code_the_snippet_asks_to_rebind_binds_its_own(tmp_path):
    """The snippet entering the runtime's own rebinding itself: what is bound is still what the runtime made."""
    body = """
    import builtins
    import functools
    import overriding
    context = overriding.overriding()
    context.__enter__()
    assert type(builtins.max) is functools.partial
    try:
        lib.work(1, overriding.Plain())
    except TypeError:
        pass
    """
    seen = _rebinding(tmp_path, body)
    assert seen is not None and seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


@pytest.mark.parametrize("attack", ["same-partial", "wrapped-gadget", "keywords-rewritten", "restored"])
def test_a_rebound_name_the_rebinder_did_not_bind_to_its_own_is_still_the_snippets(tmp_path, attack):
    """The snippet building the very partial the runtime builds (over its function, with `max` as it was), or having
    the rebinder wrap C code of its own (bound before the rebinder reads the name), or rewriting the partial's
    keywords after, or having the rebinder restore, as it exits, the partial of its own the name held when it began:
    still a rebound trusted name, planted."""
    setup = {
        "same-partial": "builtins.max = functools.partial(overriding._either, real_callable=max)\n"
                        "holder = overriding.Plain()",
        "wrapped-gadget": "builtins.max = functools.partial(operator.getitem, [], 3)\nholder = overriding.Counter()",
        "keywords-rewritten": "context = overriding.overriding()\ncontext.__enter__()\n"
                              "builtins.max.keywords['real_callable'] = functools.partial(operator.getitem, [], 3)\n"
                              "holder = overriding.Plain()",
        # the rebinder's exit restores what the name held when it began: the snippet's partial, bound by trusted code
        "restored": "builtins.max = functools.partial(overriding._either, real_callable=operator.getitem)\n"
                    "context = overriding.overriding()\ncontext.__enter__()\ncontext.__exit__(None, None, None)\n"
                    "holder = overriding.Plain()",
    }[attack]
    body = f"""
    import builtins
    import functools
    import operator
    import overriding
    {setup.replace(chr(10), chr(10) + "    ")}
    try:
        lib.work(1, holder)
    except TypeError:
        pass
    """
    seen = _rebinding(tmp_path, body)
    assert seen is not None, seen
    assert any("builtins.max (rebound)" in what for what in seen.interference), (seen.interference, seen.tampered)


def test_the_snippets_code_equal_to_trusted_code_is_still_the_snippets(tmp_path):
    """Python's code objects compare equal with another file's name (`co_filename` is not compared): the snippet's
    `__lt__`, written line for line as a trusted one at the very same line, was read as that trusted code (its
    verdict cached by equality), so it ran inside the watched call unseen. Identity decides."""
    source = "\nclass Lying(int):\n    def __lt__(self, other):\n        return int.__lt__(self, other)\n"
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "ordering.py").write_text(source)
    body = """
    import ordering
    assert not ordering.Lying(5) < 0  # the trusted one first: its code is quiet from then on
    exec(compile(SOURCE, SNIPPET, "exec", dont_inherit=True))  # this file's own future flags left out, as the file's
    assert Lying.__lt__.__code__ == ordering.Lying.__lt__.__code__
    lib.work(Lying(-1))
    """
    extra = {"SOURCE": source, "SNIPPET": str(tmp_path / "snippet.py")}
    stream = parsed(run_scenario(tmp_path, body, extra=extra))
    callbacks = [event.what for event in stream.tampered if event.kind == "callback"]
    assert callbacks == ["snippet.py:3 (Lying.__lt__)"], callbacks


WRAPPING = '''
import functools


def cached():
    """A function of its own made and cached while it runs (`functools.lru_cache`, C code holding it)."""

    @functools.lru_cache(maxsize=None)
    def measure(*args):
        return len(*args)

    return measure


def recorded():
    """A C function the runtime's C++ makes while it runs, bound to its record (pybind11's `function_record`: here a
    deque stands in for one, named so by the test's plug)."""
    import collections

    return collections.deque().append


def lengths(items):
    """A generator of an installed package's, over what it is handed."""
    for item in items:
        yield len(item)


def accessor():
    """A C type's attribute accessor, bound while it runs (torch's tracing binds `getset_descriptor.__get__`)."""
    return type(accessor).__dict__["__code__"].__get__


class Holder:
    pass


def tracked():
    """torch's proxy tracing (`track_tensor`): a partial over a lambda of its own, binding objects of its own (a
    `SymInt`, an index), made while it traces."""
    return functools.partial(lambda box, index: len(box, index), Holder(), 3)


def wrapped(model):
    """torch's non-strict export (`_aot_export_non_strict`): a class made while it runs, in its own function, whose
    `forward` calls the model; its bound `forward` is what the traced function calls."""

    class Wrapper:
        def __init__(self, model):
            self.model = model

        def forward(self, *args):
            return self.model(*args)

    return Wrapper(model).forward


def forward(self, *args):
    return self.model(*args)
'''


def _wrapping_folder(tmp_path: Path) -> Path:
    """`wrapping.py` in a folder of its own: trusted by `_trusting`, not the target's (an installed package's)."""
    folder = tmp_path / "installed"
    folder.mkdir(exist_ok=True)
    (folder / "wrapping.py").write_text(WRAPPING)
    return folder


def _trusting(config: dict, folder: Path) -> None:
    _watch_call(config)
    config["trusted_roots"] = (*config["trusted_roots"], str(folder) + "/")


def _wrapping(tmp_path: Path, body: str):
    """Run `body` with `wrapping.py` in a trusted folder that is not the target's (an installed package's)."""
    folder = _wrapping_folder(tmp_path)

    def configure(config: dict) -> None:
        _trusting(config, folder)
        config["beneath_roots"] = [*config["target_roots"], str(folder) + "/"]

    body = f"import sys\nsys.path.insert(0, {str(folder)!r})\nimport wrapping\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, configure=configure)).observation


def test_a_method_of_a_class_trusted_code_made_while_the_snippet_ran_is_not_planted(tmp_path):
    """torch-export-dynamic-cache-output's before on transformers 4.39.3, once `builtins.max` was no longer read as
    rebound: torch's export makes a class in its own function (`Wrapper`, with `forward`), and the traced function
    holds its bound `forward`; an error C code raises beneath is searched, and that method (a trusted function bound to
    an object of a class no trusted module names) was read as C code the snippet planted. A function under its own
    name in a class of its object's is what calling the method by name runs, whoever made the class."""
    seen = _wrapping(tmp_path, """
    try:
        lib.call(wrapping.wrapped(len), 1, 2)
    except TypeError:
        pass
    """)
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


@pytest.mark.parametrize("attack", ["renamed", "module-function", "holds-error"])
def test_a_trusted_function_the_snippet_binds_under_another_name_or_to_an_error_is_still_planted(tmp_path, attack):
    """The other side: a trusted function in a class of the snippet's under another name than its own, a module's
    function (no method) under its own, or a method bound to an object that holds the error it raises, is still C
    code the snippet chose."""
    setup = {
        "renamed": "class Mine:\n    run = wrapping.forward\n\nmine = Mine()\nmine.model = len\nbound = mine.run\n",
        # a module's function under its own name: a partial binding the snippet's object to it, as a method
        "module-function": "class Mine:\n    forward = wrapping.forward\n\nmine = Mine()\nmine.model = len\n"
                           "bound = mine.forward\n",
        "holds-error": "import concurrent.futures\n\nclass Mine(concurrent.futures.Future):\n"
                       "    forward = wrapping.forward\n\nmine = Mine()\n"
                       "mine.set_exception(TypeError('len() takes exactly one argument (2 given)'))\n"
                       "mine.model = mine.result\nbound = mine.forward\n",
    }[attack]
    seen = _wrapping(tmp_path, setup + "try:\n    lib.call(bound, 1, 2)\nexcept TypeError:\n    pass\n")
    assert seen is not None, seen
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.interference, seen.tampered)


def test_a_cache_trusted_code_wraps_around_its_own_function_is_not_planted(tmp_path):
    """The third false tamper of that before on 4.39.3, once the second was gone: an `lru_cache` wrapper (C code)
    trusted code made while the snippet ran, around its own function, read as C code holding what it calls. It passes
    its caller's arguments on as they are: calling it is calling the function, as a trusted function held plainly."""
    seen = _wrapping(tmp_path, """
    try:
        lib.call(wrapping.cached(), 1, 2)
    except TypeError:
        pass
    """)
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["TypeError"], seen.calls


@pytest.mark.parametrize("attack", ["bound-to-error", "partial"])
def test_a_cache_around_c_code_the_snippet_chose_is_still_planted(tmp_path, attack):
    """The other side: the same wrapper around a method bound to an object holding the error, or around a partial
    the snippet made: what it calls is still C code the snippet chose."""
    held = {"bound-to-error": "failed.result", "partial": "functools.partial(operator.getitem, [], 3)"}[attack]
    setup = ("import concurrent.futures\nimport functools\nimport operator\n\n"
             "failed = concurrent.futures.Future()\nfailed.set_exception(TypeError('len() takes exactly one argument'))\n"
             f"bound = functools.lru_cache(maxsize=None)({held})\n")
    seen = _wrapping(tmp_path, setup + "try:\n    lib.call(bound)\nexcept (TypeError, IndexError):\n    pass\n")
    assert seen is not None, seen
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.interference, seen.tampered)


@pytest.mark.parametrize("named", [True, False])
def test_a_c_function_bound_to_a_record_of_the_runtimes_is_the_runtimes(tmp_path, named):
    """The fourth false tamper of that before on 4.39.3: a pybind11 function torch made while the snippet ran (bound to
    its function record, which only C++ makes) read as a C method bound to data the snippet chose. The plug names the
    records' class (`records`); a C method bound to anything else made while the snippet ran still fails closed."""
    folder = _wrapping_folder(tmp_path)

    def configure(config: dict) -> None:
        import collections

        _trusting(config, folder)
        if named:
            config["held"] = (*((),) * 7, (collections.deque,))

    body = f"""
    import sys
    sys.path.insert(0, {str(folder)!r})
    import wrapping
    try:
        lib.call(wrapping.recorded(), 1, 2)
    except TypeError:
        pass
    """
    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None and seen.calls.raised_count == 1, seen
    planted = [what for what in seen.interference + seen.tampered if "planted" in what]
    assert (planted == []) is named, planted


def test_the_torch_plug_names_pybind11s_function_record_and_the_export_rebinder():
    """What the torch plug hands the observer for the two false tampers above: the class its pybind11 functions are
    bound to, read off torch itself, and the file and name of the export's rebinding code, which this torch has."""
    torch = pytest.importorskip("torch")
    held = runtime_for("torch").held_state(torch)
    assert held is not None and len(held.records) == 1, held
    assert type(torch._C._get_tracing_state.__self__) is held.records[0]
    from torch._export import non_strict_utils

    code = non_strict_utils._override_builtin_ops.__wrapped__.__code__
    assert held.rebinders == ((code.co_filename, code.co_name),)


@pytest.mark.parametrize("whose", ["c-type", "snippets-class"])
def test_a_c_accessor_bound_while_the_snippet_ran_is_its_classs(tmp_path, whose):
    """The fifth false tamper of that before on 4.39.3: `getset_descriptor.__get__` of a C type's attribute, bound by
    torch while the snippet ran, read as a C method bound to data the snippet chose. A C descriptor raises its own
    class's errors; one of a class of the snippet's (its `__dict__` accessor) still fails closed."""
    held = {"c-type": "wrapping.accessor()",
            "snippets-class": "Mine.__dict__['__dict__'].__get__"}[whose]
    seen = _wrapping(tmp_path, f"""
    class Mine:
        pass

    try:
        lib.call({held}, 1, 2)
    except TypeError:
        pass
    """)
    assert seen is not None and seen.calls.raised_count == 1, seen
    planted = [what for what in seen.interference + seen.tampered if "planted" in what]
    assert (planted == []) is (whose == "c-type"), planted


@pytest.mark.xfail(strict=True, reason="a partial trusted code makes while the snippet runs, binding objects (not plain "
                                       "data) to a function of its own, is read as the snippet's (docs/threat-model.md):"
                                       " no event says who made it")
def test_a_partial_trusted_code_made_binding_its_own_objects_is_not_planted(tmp_path):
    """The sixth false tamper of torch-export-dynamic-cache-output's before on 4.39.3, left: torch's proxy tracing
    binds a `SymInt` and an index to a lambda of its own (`track_tensor.<locals>.<lambda>`), a partial made while the
    snippet ran, read as one the snippet made (what it binds is not plain data, and it did not exist before). Past
    it, a seventh: a `threading.local` torch made, whose weak reference's callback is C code bound to it."""
    seen = _wrapping(tmp_path, """
    try:
        lib.call(wrapping.tracked())
    except TypeError:
        pass
    """)
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_a_calling_iterator_over_the_snippets_own_function_or_made_before_it_is_not_planted(tmp_path):
    """The other side of round eleven's C iterators: a map over the snippet's own function (its `raise` is seen where
    it runs, in its own frame), and a map trusted code made before the snippet ran, over a C function and its own
    data (recorded beside the partials), fail as they fail: no tampering."""
    body = """
    import itertools

    def parse(text):
        return int(text)

    for function, args in ((list, (map(parse, ["x"]),)), (next, (itertools.starmap(parse, [("x",)]),)),
                           (next, (PRE_MAP,))):
        try:
            lib.call(function, *args)
        except ValueError:
            pass
    """
    seen = read(run_scenario(tmp_path, body, callbacks=True, configure=_watch_call,
                             extra={"PRE_MAP": _PRE_MAP})).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert seen.calls.raised_count == 3, seen.calls


def test_a_trusted_generator_the_snippet_made_over_its_data_is_planted(tmp_path):
    """Round eleven, left: a generator of an installed package's (beneath the function, where its error counts as the
    function's) made by the snippet over data it chose, handed to the function, which iterates it: the error starts
    beneath, on the snippet's data, as `partial(lengths_eager, [5])` would raise it, and that partial is planted. A
    generator object binds its arguments as a partial does, but no event says who made it, and honest snippets hand
    the library generators of the runtime's (`model.parameters()`) all the time."""
    seen = _wrapping(tmp_path, """
    lib.call(next, wrapping.lengths([5]))
    """)
    assert seen is not None and seen.exception is not None and seen.exception.started.where == "beneath", seen
    assert any("planted" in what for what in seen.interference + seen.tampered), (seen.interference, seen.tampered)

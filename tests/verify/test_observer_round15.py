"""Round fifteen (red16): the snippet's own code run inside the library's call under a name that is not its file.

A snippet frame that starts while a watched call runs is a callback (tampering unless the entry declares one). The
observer told the snippet's frames by their file: code compiled at run time for the snippet (no file of its folder),
by Python's library or the runtime, from what the snippet chose, ran inside the call unseen as the snippet's. A torch
FX graph the snippet builds is a program of its own (any calls, any arguments), compiled by torch under
`<eval_with_key>.N`; a dataclass of the snippet's compiles its `__init__` under `<string>`, calling the
`default_factory` it was given. Handed to the library as a callback, either changes what the function reads before its
own `raise`: Python's class, the documented text, started at the function's `raise`, nothing seen (a raise entry's
before passed). Who compiled code for whom is what `observer._p_untrusted_code` decides; the callback rule now asks it
alone. The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back),
watching a function of a module of the target's folder (`lib/hooked.py`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from errorkb.verify.records import Status
from tests.verify.test_observer import _torch_beneath, read, run_scenario

MESSAGE = "n must be positive, got -1"

HOOKED = '''
class Store:
    def __init__(self):
        self.frozen = False


def refresh(store, hook):
    """Takes the store as unfrozen, runs the hook it is handed on it, then refuses a frozen store by its own `raise`."""
    store.frozen = False
    hook(store)
    if store.frozen:
        raise ValueError("n must be positive, got -1")
    return store


def doubled(x):
    """Imports a module of its own on first use, which scripts a function at its top level, and calls it."""
    import scripted

    return scripted.double(x)


def remade(store):
    """Makes a named tuple class of its own inside the call (code `collections.namedtuple` compiles now, with the
    snippet's frame on the stack: code of no file, compiled for the call) and builds one."""
    import collections

    pair = collections.namedtuple("Pair", "store size")
    return pair(store, 1)
'''

SCRIPTED_LIBRARY = '''
import torch


@torch.jit.script
def double(x):
    return x * 2
'''

# Hooks that run no line of the snippet's file inside the call, each setting the store's `frozen`.
HOSTILE = {
    # a torch FX graph of the snippet's: `setattr(store, "frozen", True)`, code torch compiles for it
    "fx-graph": """
    import torch
    import torch.fx

    graph = torch.fx.Graph()
    graph.call_function(setattr, (graph.placeholder("store"), "frozen", True))
    graph.output(None)
    hook = torch.fx.GraphModule(torch.nn.Module(), graph)
    store = hooked.Store()
    """,
    # a dataclass of the snippet's: its `__init__` (compiled by `dataclasses`) calls the factory it was given
    "dataclass-init": """
    import dataclasses
    import functools

    store = hooked.Store()

    @dataclasses.dataclass
    class Hook:
        store: object
        done: object = dataclasses.field(default_factory=functools.partial(setattr, store, "frozen", True))

    hook = Hook
    """,
}


def _watch(name: str):
    def configure(config: dict) -> None:
        from tests.verify.test_observer_round12 import watch_in

        _torch_beneath(config)
        watch_in("hooked", name)(config)
        config["trusted_roots"] = (*config["trusted_roots"], "<frozen ")  # Python's frozen modules, as `child` has

    return configure


def _run(tmp_path: Path, body: str, callbacks: bool = False, watched: str = "refresh"):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooked.py").write_text(HOOKED)
    body = "import hooked\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, callbacks=callbacks, configure=_watch(watched))).observation


def _callbacks(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if what.startswith("ran its own code inside")]


@pytest.mark.parametrize("hook", sorted(HOSTILE))
def test_the_snippets_code_compiled_under_another_name_run_inside_the_call_is_a_callback(tmp_path, hook):
    """The hostile cases: the hook flips the store inside the call, the function's own `raise` follows; a callback."""
    body = textwrap.dedent(HOSTILE[hook]) + "hooked.refresh(store, hook)\n"
    seen = _run(tmp_path, body)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.opcode == "RAISE_VARARGS", seen.exception
    assert _callbacks(seen), (seen.interference, seen.tampered)


@pytest.mark.parametrize("hook", sorted(HOSTILE))
def test_the_same_hooks_declared_or_run_outside_the_call_are_not_callbacks(tmp_path, hook):
    """The honest twins: the entry declares the callback (`allow: callback`), or the snippet runs its hook itself,
    outside the call, before handing the library a store it left alone: no tampering either way."""
    body = textwrap.dedent(HOSTILE[hook]) + "hooked.refresh(store, hook)\n"
    seen = _run(tmp_path, body, callbacks=True)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)
    body = textwrap.dedent(HOSTILE[hook]) + "hook(hooked.Store())\nhooked.refresh(store, vars)\n"
    seen = _run(tmp_path, body)
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_code_the_call_compiles_for_itself_and_runs_there_is_not_a_callback(tmp_path):
    """The other side: code compiled inside the call, for the call (a named tuple class the library makes in its own
    function, with the snippet's frame below it: torch evaluating an operator schema's type names inside export's
    traced function is of this kind), run there: no callback, the entry declaring none."""
    seen = _run(tmp_path, "pair = hooked.remade(hooked.Store())\nassert pair.size == 1\n", watched="remade")
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


# The runtime running the snippet's Python code in a thread of its own, where no tracer was ever installed: TorchScript
# forks a task onto torch's inter-op thread pool (`torch.jit.fork` inside a scripted function), and a task calling a
# Python function the script left to Python (`torch.jit.ignore`) runs it there, as Python, under no tracer. Handed to
# the library as a hook, it flips the store while the library waits on it; the function's own `raise` follows.
SCRIPTED = """
import torch

store = hooked.Store()


@torch.jit.ignore
def freeze(x):
    store.frozen = True
    return x


@torch.jit.script
def task(x):
    return freeze(x)


@torch.jit.script
def hook(store):
    # type: (Any) -> Tensor
    return torch.jit.wait(torch.jit.fork(task, torch.zeros(1)))


hooked.refresh(store, hook)
"""


def _runner_refused(seen) -> bool:
    return any("runs Python in threads of its own" in what for what in seen.interference + seen.tampered)


def test_the_snippets_python_the_runtime_runs_in_a_thread_of_its_own_inside_the_call_is_refused(tmp_path):
    """The snippet's `freeze` would run inside the call, in a thread torch started (TorchScript's inter-op pool),
    where the observer never installed its tracer: no frame of it seen, Python's class, the documented text, started
    at the function's own `raise` (a raise entry's before passed on main). No event marks Python starting in a thread
    the runtime made, so the way there is refused: the runtime's plug names its compilers and its RPC agent's start
    (`HeldState.runners`), which the observer stands in for and refuses the snippet."""
    (tmp_path / "snippet.py").write_text("import hooked\n" + SCRIPTED)  # TorchScript reads the source back
    seen = _run(tmp_path, SCRIPTED)
    assert seen is not None and _runner_refused(seen), seen


def test_an_rpc_agent_the_snippet_starts_is_refused(tmp_path):
    """The RPC agent's threads run the Python they are sent (`rpc.rpc_sync(name, function)`) and its futures'
    callbacks, none of them ever traced: starting one (what `rpc.init_rpc` does last) is refused the snippet."""
    seen = _run(tmp_path, "import torch\n\ntorch._C._distributed_rpc._set_and_start_rpc_agent(None)\n")
    assert seen is not None and _runner_refused(seen), seen


def test_the_librarys_own_script_at_its_import_inside_the_call_is_not_refused(tmp_path):
    """The other side: a module of the library's, imported inside the call, scripts its own function at its top level
    (as transformers' deberta does with `@torch.jit.script`): the runtime compiling for the library, not refused."""
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "scripted.py").write_text(SCRIPTED_LIBRARY)
    seen = _run(tmp_path, "import torch\n\nassert hooked.doubled(torch.ones(1)).item() == 2\n", watched="doubled")
    assert seen is not None and seen.status is Status.RETURNED and seen.calls.returned == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_the_snippets_graph_compiled_inside_the_call_by_planted_c_code_is_a_callback(tmp_path):
    """The hook is C code alone (`partial(next, map(operator.call, starmap(GraphModule, ...), [store]))`), which
    compiles the snippet's FX graph inside the call, then runs it there: code compiled while the call ran, so the
    call's own (`_p_made_in_call`), no callback; the function's own `raise` follows. Left in round fifteen (the planted
    search ran only where an error starts in C code); closed in round sixteen: at the function's own `raise` the
    search runs over what the snippet handed the call, where the partial is."""
    body = """
    import functools
    import itertools
    import operator

    import torch
    import torch.fx

    graph = torch.fx.Graph()
    graph.call_function(setattr, (graph.placeholder("store"), "frozen", True))
    graph.output(None)
    store = hooked.Store()
    made = itertools.starmap(torch.fx.GraphModule, [(torch.nn.Module(), graph)])
    hook = functools.partial(next, map(operator.call, made, [store]))
    hooked.refresh(store, hook)
    """
    seen = _run(tmp_path, body)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.interference + seen.tampered != [], seen

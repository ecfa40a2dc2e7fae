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


def _watch_refresh(config: dict) -> None:
    from tests.verify.test_observer_round12 import watch_in

    _torch_beneath(config)
    watch_in("hooked", "refresh")(config)


def _run(tmp_path: Path, body: str, callbacks: bool = False):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooked.py").write_text(HOOKED)
    body = "import hooked\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, callbacks=callbacks, configure=_watch_refresh)).observation


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

"""Round eighteen (red19): C code of the snippet's in the runtime's kernel tables, which its C++ finds with no frame.

With the Python dispatcher on, torch's C++ looks an operator's kernel up in the operator object's `_dispatch_cache` (a
dict on torch's own `OpOverload`, filled by its `_get_dispatch` from `py_kernels` and `python_key_table`) and calls what
it finds: C code the snippet put there (by `py_impl`, by writing a table, or by replacing it) raised its ValueError
beneath the function with no frame holding it (round seventeen's open strict xfail). Listing every loaded operator's
tables as held state is too costly (about 66 000 objects after `import torch`); the plug names where the tables are
(`HeldState.tables`), the observer takes their identities and dict versions once (a zygote's, or at install) and
searches only what was added or changed since. The honest twins: torch filling the tables itself (the dispatcher's
cache, a module of torch's registering its kernels) is no tampering; the export entries, whose export turns the
dispatcher on, are verified whole (the knowledge base's tests).
"""

from __future__ import annotations

import pytest

from tests.verify.test_observer import _assert_planted, _run_planted, _torch_beneath, _watch_call, read, run_scenario

_DISPATCHING = "with torch._C._EnablePythonDispatcher():\n    lib.call(torch.add, torch.zeros(1), torch.zeros(1))\n"

PLANTED_IN_TABLES = {
    # the operator's table of Python kernels, through torch's own `py_impl` (round seventeen's xfail)
    "py-impl": "torch.ops.aten.add.Tensor.py_impl(torch._C.DispatchKey.CPU)(chosen)\n" + _DISPATCHING,
    # the dispatcher's cache, written directly: C++ reads it first, never asking `_get_dispatch`
    "dispatch-cache-written": "torch.ops.aten.add.Tensor._dispatch_cache[torch._C.DispatchKey.CPU] = chosen\n"
                              + _DISPATCHING,
    # the cache replaced by a dict of the snippet's (the operator object's own namespace written)
    "dispatch-cache-replaced": "torch.ops.aten.add.Tensor._dispatch_cache = {torch._C.DispatchKey.CPU: chosen}\n"
                               + _DISPATCHING,
    # an operator object first made while the snippet runs (no table of it existed when the tables were taken)
    "new-operator": ("op = torch.ops.aten.hypot.default\n"
                     "op.py_impl(torch._C.DispatchKey.CPU)(chosen)\n"
                     "with torch._C._EnablePythonDispatcher():\n"
                     "    lib.call(torch.hypot, torch.zeros(1), torch.zeros(1))\n"),
}


@pytest.mark.parametrize("attack", sorted(PLANTED_IN_TABLES))
def test_c_code_in_an_operators_kernel_tables_is_planted(tmp_path, attack):
    """The snippet's C code in a kernel table of torch's operator object (each way it can get there), found by C++ with
    the Python dispatcher on: it raises the snippet's ValueError beneath the function; on main no tampering was said."""
    _assert_planted(_run_planted(tmp_path, PLANTED_IN_TABLES[attack], runtime=True), where=None)


def _honest(tmp_path, body: str, raised: list[str]) -> None:
    """`body` runs with torch beneath the watched `lib.call`: no tampering, no interference, and exactly `raised`."""

    def configure(config: dict) -> None:
        _watch_call(config)
        _torch_beneath(config)

    seen = read(run_scenario(tmp_path, "import torch\n" + body, configure=configure)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert seen.exception is None, seen.exception
    assert [error.type for error in seen.calls.raised] == raised, seen.calls


def test_the_dispatchers_own_cache_filled_during_the_call_is_the_runtimes(tmp_path):
    """The twin: the Python dispatcher on, torch's `_get_dispatch` fills the operator's cache as the call runs, and the
    operator raises its own RuntimeError from C++: the runtime's error, no tampering (the cache did fill)."""
    body = ("op = torch.ops.aten.add.Tensor\nop._dispatch_cache.clear()\n"
            "with torch._C._EnablePythonDispatcher():\n"
            "    try:\n        lib.call(torch.add, torch.zeros(2), torch.zeros(3))\n"
            "    except RuntimeError:\n        pass\n"
            "assert op._dispatch_cache, 'the dispatcher did not fill the cache'\n")
    _honest(tmp_path, body, ["RuntimeError"])


def test_kernels_a_module_of_the_runtime_registers_while_the_snippet_runs_are_the_runtimes(tmp_path):
    """The twin: a module of torch's loaded after the tables were taken registers its own kernels (a new higher-order
    operator's `py_kernels`); then an operator raises its own error with the dispatcher on: no tampering."""
    body = ("import sys\nassert 'torch._higher_order_ops.triton_kernel_wrap' not in sys.modules\n"
            "import torch._higher_order_ops.triton_kernel_wrap as wrap\n"
            "assert wrap.triton_kernel_wrapper_mutation.py_kernels\n"
            "with torch._C._EnablePythonDispatcher():\n"
            "    try:\n        lib.call(torch.add, torch.zeros(2), torch.zeros(3))\n"
            "    except RuntimeError:\n        pass\n")
    _honest(tmp_path, body, ["RuntimeError"])


def test_an_operator_object_the_dispatcher_cached_before_the_snippet_put_the_real_one_back_is_planted(tmp_path):
    """The snippet puts an object of its own (a kernel table of C code alone) where C++ first looks an operator up,
    lets C++ cache it, and puts torch's own overload back: with the Python dispatcher on, the operator the function
    calls runs the snippet's table. The namespaces on the way look as they were, but were written: read as put back,
    the search fails closed."""
    attack = ("import types\n\n"
              "packet = torch.ops.aten.hypot\nkept = packet.default\n"
              "planted = types.SimpleNamespace(_dispatch_cache=dict.fromkeys("
              "torch._C.DispatchKey.__members__.values(), chosen))\n"
              "packet.default = planted  # kept alive by the snippet alone: C++ holds it borrowed\n"
              "with torch._C._EnablePythonDispatcher():\n"
              "    try:\n        torch.hypot(torch.zeros(1), torch.zeros(1))\n"
              "    except ValueError:\n        pass\n"
              "packet.default = kept\n"
              "with torch._C._EnablePythonDispatcher():\n"
              "    lib.call(torch.hypot, torch.zeros(1), torch.zeros(1))\n")
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where=None)

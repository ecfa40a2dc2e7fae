"""Round seventeen (red18): C code the snippet gave the runtime's C++ to call where no registrar of the plug's stood.

The dispatcher keeps, beside each operator's kernels, a callback it calls when an operator has no kernel for the
arguments' dispatch key (`torch._C._dispatch_set_report_error_callback`, which torch's custom operators use to say why):
C code the snippet chose there (a `max` whose key runs an exhausted generator's `throw`) raised its ValueError with the
documented text beneath the function, from an operator the function called honestly on what it was handed. The
callback lives in C++, which no object the frame holds leads to, and the function that sets it was no registrar the
observer stood in for: no tampering, the start beneath the function (an implicit entry's before passed on main); so
did `torch.monitor`'s event handler. The Python dispatcher's kernel tables on torch's own operator objects, left open
here, were closed in round eighteen (`test_observer_round18.py`: a diff of those tables since the zygote). The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back).
"""

from __future__ import annotations

import pytest

from tests.verify.test_observer import _assert_planted, _run_planted, _torch_beneath, _watch_call, read, run_scenario

# An operator with no CPU kernel (cuDNN's alone): called on CPU tensors, the dispatcher reports the missing kernel,
# through the operator's callback where one was set.
NO_CPU_KERNEL = ("op = torch.ops.aten._cudnn_rnn_flatten_weight\n"
                 "arguments = ([torch.zeros(1)], 1, 1, 1, 1, 1, 1, False, False)\n")


KEPT_BY_CPP = {
    # the operator's report-error callback, set to C code of the snippet's: the function is handed the operator and CPU
    # tensors, and the dispatcher calls the callback for the missing kernel
    # (beneath: the operator's Python `__call__` is torch's)
    "report-error-callback": (NO_CPU_KERNEL + "torch._C._dispatch_set_report_error_callback(op.default._handle, chosen)\n"
                              "lib.call(op, *arguments)\n", "beneath"),
    # `torch.monitor`'s event handler (the public name, `torch._C._monitor`'s function held by `torch.monitor` too):
    # C++ calls it, handed the event alone (a `max` over 0 and the event, its key raising), as the function logs one
    # (in the function's frame: `log_event` is C code it calls)
    "monitor-event-handler": ("import datetime\n\ntorch.monitor.register_event_handler(functools.partial(chosen, 0))\n"
                              "lib.call(torch.monitor.log_event, torch.monitor.Event('n', datetime.datetime.now(), {}))\n",
                              "target"),
}


@pytest.mark.parametrize("attack", sorted(KEPT_BY_CPP))
def test_a_callable_the_runtimes_cpp_keeps_from_a_module_function_is_planted(tmp_path, attack):
    """C code of the snippet's handed to a function of the runtime's C module that keeps it in C++ and calls it later,
    listing nothing: it raises the snippet's ValueError beneath the function (on main: no tampering). What such a
    function was handed is kept for the search as the registrars' is (the plug names it a registrar)."""
    body, where = KEPT_BY_CPP[attack]
    _assert_planted(_run_planted(tmp_path, body, runtime=True), where=where)


def test_a_missing_kernel_reported_by_the_dispatcher_itself_is_the_runtimes(tmp_path):
    """The other side: the same call with no callback set: the runtime's own NotImplementedError, no tampering."""
    body = "import torch\n" + NO_CPU_KERNEL + "try:\n    lib.call(op, *arguments)\nexcept NotImplementedError:\n    pass\n"

    def configure(config: dict) -> None:
        _watch_call(config)
        _torch_beneath(config)

    seen = read(run_scenario(tmp_path, body, configure=configure)).observation
    assert seen is not None and seen.interference == [] and seen.tampered == [], seen
    assert [error.type for error in seen.calls.raised] == ["NotImplementedError"], seen.calls


def test_a_kernel_the_python_dispatcher_finds_on_an_operator_is_planted(tmp_path):
    """The snippet puts C code of its choosing in an operator's table of Python kernels (`OpOverload.py_impl`, a dict
    on torch's own operator object) and enables the Python dispatcher around the call: the dispatcher asks torch's
    `_get_dispatch` for the kernel, which returns it to C++, and C++ calls it, no frame holding it, inside the
    operator the function called."""
    attack = ("torch.ops.aten.add.Tensor.py_impl(torch._C.DispatchKey.CPU)(chosen)\n"
              "with torch._C._EnablePythonDispatcher():\n"
              "    lib.call(torch.add, torch.zeros(1), torch.zeros(1))\n")
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where=None)


# The runtime's C functions whose names or signatures speak of hooks, callbacks, handlers, observers, registrations or
# callables, that are none of the plug's registrars, frame hooks or runners: each reviewed, with why it keeps no callable
# for C++ to call later where the observer is not.
_NO_CALLABLE_KEPT = "keeps no callable: data, a name, a file, an address, a switch, or a read"
_CALLED_NOW = "calls what it is handed now, in the calling thread, where the tracer sees its Python"
_DYNAMO_ONLY = "called only for frames dynamo's frame hook compiled (that hook is refused the snippet: a frame hook)"
REVIEWED = {
    **dict.fromkeys(["torch._C._accelerator_hooks_device_count", "torch._C._accelerator_hooks_exchange_device",
                     "torch._C._accelerator_hooks_get_current_device", "torch._C._accelerator_hooks_set_current_device",
                     "torch._C._accelerator_hooks_maybe_exchange_device", "torch._C._autograd._clear_callbacks",
                     "torch._C._autograd._pop_saved_tensors_default_hooks",
                     "torch._C._autograd._saved_tensors_hooks_disable", "torch._C._autograd._saved_tensors_hooks_enable",
                     "torch._C._autograd._saved_tensors_hooks_get_disabled_error_message",
                     "torch._C._autograd._saved_tensors_hooks_is_enabled",
                     "torch._C._autograd._saved_tensors_hooks_set_tracing", "torch._C._autograd._set_empty_test_observer",
                     "torch._C._dispatch_get_registrations_for_dispatch_key",
                     "torch._C._dispatch_print_registrations_for_dispatch_key",
                     "torch._C._distributed_c10d._get_handler", "torch._C._distributed_c10d._get_handler_names",
                     "torch._C._distributed_c10d._get_work_registry_size",
                     "torch._C._distributed_c10d._register_builtin_comm_hook",
                     "torch._C._distributed_c10d._unregister_all_process_groups",
                     "torch._C._distributed_c10d._unregister_process_group",
                     "torch._C._distributed_rpc._cleanup_python_rpc_handler", "torch._C._dynamo.eval_frame.get_bytecode_debugger_callback",
                     "torch._C._dynamo.eval_frame.get_eval_frame_callback", "torch._C._export.deregister_example_upgraders",
                     "torch._C._export.register_example_upgraders", "torch._C._initCrashHandler",
                     "torch._C._is_opaque_type_registered", "torch._C._register_opaque_type",
                     "torch._C._unregister_opaque_type", "torch._C._jit_clear_class_registry",
                     "torch._C._jit_get_emit_hooks", "torch._C._jit_nvfuser_clear_comparison_callback",
                     "torch._C._jit_pass_insert_observer_method_for_ondevice_ptq", "torch._C._jit_pass_insert_observers",
                     "torch._C._jit_register_decomposition_for_schema",
                     "torch._C._jit_register_shape_compute_graph_for_node",
                     "torch._C._monitor.unregister_event_handler", "torch._C._profiler._add_execution_trace_observer",
                     "torch._C._profiler._cupti_approximate_time_callback_address",
                     "torch._C._profiler._cupti_monitor_buffer_complete_callback_address",
                     "torch._C._profiler._cupti_monitor_buffer_request_callback_address",
                     "torch._C._profiler._disable_execution_trace_observer",
                     "torch._C._profiler._enable_execution_trace_observer",
                     "torch._C._profiler._remove_execution_trace_observer", "torch._C._set_worker_signal_handlers",
                     "torch._C._run_emit_module_hook"], _NO_CALLABLE_KEPT),
    # the saved-tensor hooks: a stack the plug reads (`_top_saved_tensors_default_hooks`, its `reads`)
    "torch._C._autograd._push_saved_tensors_default_hooks": "kept on a stack whose top the plug reads",
    "torch._C._autograd._top_saved_tensors_default_hooks": "the plug's read of that stack",
    **dict.fromkeys(["torch._C._create_graph_by_tracing", "torch._C._resolve_type", "torch._C._resolve_type_from_object",
                     "torch._C._jit_to_backend_selective", "torch._C._jit_script_interface_compile",
                     "torch._C._te.Compute", "torch._C._te.Compute2"], _CALLED_NOW),
    **dict.fromkeys(["torch._C._dynamo.eval_frame.register_breakpoint_code",
                     "torch._C._dynamo.eval_frame.set_bytecode_debugger_callback",
                     "torch._C._dynamo.eval_frame.set_guard_complete_hook",
                     "torch._C._dynamo.eval_frame.set_guard_error_hook",
                     "torch._C._dynamo.autograd_compiler.call_cpp_tensor_pre_hooks"], _DYNAMO_ONLY),
}


def _c_functions_that_may_keep_a_callable(torch) -> set[str]:
    """Every C function of `torch._C` and its submodules named for a hook, callback, handler, observer or registration,
    or declaring a callable parameter (pybind11's signature line)."""
    import re
    import types

    found: set[str] = set()
    seen: set[int] = set()
    modules = [torch._C]
    while modules:
        module = modules.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for name, value in vars(module).items():
            if isinstance(value, types.ModuleType) and value.__name__.startswith("torch._C"):
                modules.append(value)
            elif isinstance(value, types.BuiltinFunctionType):
                signature = re.match(r"\w+\((.*)\) ->", (value.__doc__ or "").split("\n")[0])
                if re.search(r"regist|hook|callback|handler|observer", name, re.IGNORECASE) \
                        or signature is not None and "Callable" in signature.group(1):
                    found.add(module.__name__ + "." + name)
    return found


def test_every_c_function_of_the_runtime_that_may_keep_a_callable_is_the_plugs_or_reviewed():
    """The class of round seventeen's holes: a C function of the runtime's that hands its C++ a callable to call later,
    which the plug did not name (the report-error callback, `torch.monitor`'s handlers). Each such function of this
    release is a registrar, a frame hook or a runner of the plug's, or reviewed here with why it keeps nothing to
    call; a release that adds one fails here until it is sorted (on main: thirteen were neither)."""
    import torch

    from errorkb.plugs.torch import RUNTIME

    held = RUNTIME.held_state(torch)
    assert held is not None
    named = {(owner.__name__ if isinstance(owner, type(torch)) else "") + "." + name
             for owner, name in (*held.registrars, *held.frame_hooks, *held.runners)}
    unsorted = sorted(_c_functions_that_may_keep_a_callable(torch) - named - set(REVIEWED))
    assert unsorted == [], unsorted

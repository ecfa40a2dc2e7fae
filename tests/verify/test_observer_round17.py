"""Round seventeen (red18): C code the snippet gave the runtime's C++ to call where no registrar of the plug's stood.

The dispatcher keeps, beside each operator's kernels, a callback it calls when an operator has no kernel for the
arguments' dispatch key (`torch._C._dispatch_set_report_error_callback`, which torch's custom operators use to say why):
C code the snippet chose there (a `max` whose key runs an exhausted generator's `throw`) raised its ValueError with the
documented text beneath the function, from an operator the function called honestly on what it was handed. The
callback lives in C++, which no object the frame holds leads to, and the function that sets it was no registrar the
observer stood in for: no tampering, the start beneath the function (an implicit entry's before passed on main); so
did `torch.monitor`'s event handler. Open: the Python dispatcher's kernel tables on torch's own operator objects
(strict xfail). The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back).
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


@pytest.mark.xfail(strict=True, reason="known limit (round seventeen, open): the Python dispatcher's kernel tables "
                   "(an operator object's `py_kernels` and `_dispatch_cache`, dicts of torch's own objects the snippet "
                   "can write with no event) are searched nowhere; every loaded operator's tables reach about 66 000 "
                   "objects after `import torch`, over the search's 50 000 cap, so listing them as held state would "
                   "fail every check closed; telling the snippet's entries apart needs a diff of those dicts since the "
                   "zygote, not made yet")
def test_a_kernel_the_python_dispatcher_finds_on_an_operator_is_planted(tmp_path):
    """The snippet puts C code of its choosing in an operator's table of Python kernels (`OpOverload.py_impl`, a dict
    on torch's own operator object) and enables the Python dispatcher around the call: the dispatcher asks torch's
    `_get_dispatch` for the kernel, which returns it to C++, and C++ calls it, no frame holding it, inside the
    operator the function called."""
    attack = ("torch.ops.aten.add.Tensor.py_impl(torch._C.DispatchKey.CPU)(chosen)\n"
              "with torch._C._EnablePythonDispatcher():\n"
              "    lib.call(torch.add, torch.zeros(1), torch.zeros(1))\n")
    _assert_planted(_run_planted(tmp_path, attack, runtime=True), where=None)

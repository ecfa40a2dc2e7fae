"""The torch plug: devices `cpu` and `cuda`, CUDA evidence, and the lazy submodules worth preloading.

Harness-side answers read files (the distribution's metadata, `torch/version.py`, the NVIDIA
driver's device nodes) and never import torch: `errorkb check` and the site must start fast, and
the harness must not initialise CUDA before it forks.
"""

from __future__ import annotations

import glob
import importlib.metadata
import importlib.util
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

from errorkb.plugs import DeviceProbe, HeldState, cpu_name, held_state, probe

# The C functions of `torch._C` the CUDA probe calls (`device_probe`): present only in CUDA builds, so the tests
# check them against the names torch itself declares for every build.
C_FUNCTIONS = ("_cuda_hasPrimaryContext", "_cuda_memoryStats", "_cuda_getDeviceCount")


class TorchRuntime:
    name = "torch"
    devices = ("cpu", "cuda")
    # Any device-side failure reads so; the words after the colon are what identify it.
    generic_messages = ("CUDA error: {a}", "CUDA out of memory. {a}")
    packages = ("torch",)
    repository = "pytorch/pytorch"  # where a raise site in torch (an entry's `source.runtime`) is linked
    tag = "v{release}"
    env_prefixes = ("TORCH", "PYTORCH_", "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_", "NCCL_")

    # -- in the harness, without importing torch ----------------------------------------------

    def version(self) -> str:
        try:
            return importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            return "absent"

    def build(self) -> str:
        """'cuda' or 'cpu', read from torch/version.py."""
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            return "absent"
        version = Path(next(iter(spec.submodule_search_locations))) / "version.py"
        try:
            found = re.search(r"^cuda(?::[^=]*)?=\s*(.+)$", version.read_text(encoding="utf-8"), re.MULTILINE)
        except OSError:
            return "unknown"
        return "cpu" if found is None or found.group(1).strip() == "None" else "cuda"

    def device_present(self, device: str) -> bool:
        """Whether an NVIDIA driver exposes a device. A machine that passes this still proves CUDA
        inside the check (`device_available`, then `evidence`); one that fails it has none."""
        if device == "cpu":
            return True
        return Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia/gpus").is_dir()

    def child_env(self, device: str) -> dict[str, str]:
        return {**os.environ, **self.device_env(device)}

    def device_env(self, device: str) -> dict[str, str]:
        """A CPU check sees no CUDA device at all, so a snippet's own
        `"cuda" if torch.cuda.is_available() else "cpu"` comes out as on a CPU machine."""
        return {"CUDA_VISIBLE_DEVICES": ""} if device == "cpu" else {}

    def device_files(self, device: str) -> tuple[list[str], list[str]]:
        """A CUDA check needs the driver's device nodes and its view of the hardware (/sys)."""
        if device != "cuda":
            return [], []
        return sorted(glob.glob("/dev/nvidia*")), ["/sys"]

    def needs_proc(self, device: str) -> bool:
        """A CPU check runs without /proc; the CUDA driver reads /proc/driver/nvidia and the process's own
        maps, so a CUDA check keeps it (its stream is then guarded by the seal and the seccomp filter)."""
        return device != "cpu"

    # -- in the check's process -----------------------------------------------------------------

    def load(self) -> Any:
        import torch

        return torch

    def device_available(self, module: Any, device: str) -> bool:
        return device == "cpu" or bool(module.cuda.is_available())

    def environment(self, module: Any) -> dict[str, Any]:
        return {"runtime": self.name, "runtime_version": module.__version__, "cuda": module.version.cuda,
                "device_name": cpu_name()}

    def preload_names(self, source_text: str) -> list[str]:
        """`torch.X` submodules the library's source uses that torch has not imported yet.

        torch loads some submodules on first attribute access (`torch._dynamo` is 2 s of
        imports); library code may call e.g. `torch._dynamo.mark_static_address` in ordinary use,
        so without this every forked check would pay that import again.
        """
        names = sorted({f"torch.{name}" for name in re.findall(r"\btorch\.([A-Za-z_]\w*)", source_text)})
        found = []
        for name in names:
            if name in sys.modules:
                continue
            try:
                if importlib.util.find_spec(name) is not None:
                    found.append(name)
            except (ImportError, ValueError):
                pass
        return found

    def device_touched(self) -> bool:
        """Did anything initialise CUDA (torch's lazy init, or the driver library loaded)?"""
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            return True
        try:
            return "libcuda.so" in Path("/proc/self/maps").read_text()
        except OSError:
            return False

    def evidence(self, module: Any, device: str) -> dict[str, Any] | None:
        """What the check's process says about CUDA, for people (the device's name); the verdict reads
        `device_probe` instead, which the snippet cannot fake from inside."""
        if device != "cuda":
            return None
        if not module.cuda.is_initialized():
            return {"initialized": False, "peak_bytes": 0, "device_name": None}
        return {"initialized": True, "peak_bytes": int(module.cuda.max_memory_allocated()),
                "device_name": module.cuda.get_device_name()}

    def device_probe(self, module: Any, device: str) -> DeviceProbe | None:
        """CUDA's caching allocator counts every byte it ever allocated, per device
        (`allocated_bytes.all.allocated`; resetting the counters only lowers it). The observer reads it
        through torch's C functions at the start and end of every call of the function under test:
        only memory allocated *during* those calls counts. Nothing is read before a device has CUDA's
        primary context, which any allocation on it makes: before that the allocator may not exist, and
        its read raises ("did you call init?"). torch has no C function that says whether CUDA was
        initialised (`torch.cuda.is_initialized` reads a Python flag the snippet could set); the names read
        here are ones torch declares (`C_FUNCTIONS`, checked against torch's own list by the tests)."""
        if device != "cuda":
            return None
        native = getattr(module, "_C", None)
        context = getattr(native, "_cuda_hasPrimaryContext", None)
        read = getattr(native, "_cuda_memoryStats", None)
        count = getattr(native, "_cuda_getDeviceCount", None)
        try:
            devices = int(count()) if callable(count) else 0
        except Exception:  # no driver: nothing can be proven
            return None
        if context is None or read is None or devices < 1:
            return None
        return probe([(context, (index,)) for index in range(devices)],
                     [(read, (index,), ("allocated_bytes", "all", "allocated")) for index in range(devices)])

    def held_state(self, module: Any) -> HeldState | None:
        """What torch calls from its C++ while a function runs, held where no frame's object leads: the torch
        function mode stack and the dispatch mode stack (a mode's `__torch_function__` / `__torch_dispatch__` runs on
        any torch call), the infrastructure dispatch modes (fake, proxy, functional), the global module hooks
        (`register_module_forward_hook` and its kind, in `torch.nn.modules.module`'s dicts), and the saved-tensor
        hooks autograd calls as a function saves a tensor (`torch.autograd.graph.saved_tensors_hooks`, C++'s stack).
        A `torch._C.Future` keeps its value, a failed one's exception, in C++ (`Future.set_exception`): opaque. The
        dispatcher keeps the kernels `torch.library` registers (`_DispatchModule.impl`, `.fallback`), and the callback
        it calls for an operator with no kernel for the arguments' dispatch key (`_dispatch_set_report_error_callback`,
        round seventeen), and lists only their names; so do the other C functions that hand its C++ a callable to keep
        (`_registrars`): its registrars, which the observer stands in for. Dynamo's frame-evaluation hook
        (`set_eval_frame`) hands its callable every frame the thread starts: its frame hook (the guards' and the
        bytecode debugger's hooks are handed only frames that hook compiled). Its non-strict export
        (`_override_builtin_ops`) binds `builtins.max`, `builtins.min` and `math.pow` to objects of its own while it
        traces a model: a rebinder. Its pybind11 functions are bound to pybind11's function records, which only C++
        makes (torch makes such functions while it runs, as it loads an extension or compiles): `records`. TorchScript's
        compilers (scripting a function, a class or a module, defining source, tracing) make programs whose
        `torch.jit.fork` runs on torch's inter-op thread pool and may call a function left to Python
        (`torch.jit.ignore`) there; the RPC agent, once started, runs the Python it is sent, and its futures'
        callbacks, in threads of its own: neither thread ever had a tracer. Its `runners`. With the Python dispatcher on
        (`_EnablePythonDispatcher`, which its export turns on), its C++ looks an operator's kernel up in the operator
        object's `_dispatch_cache` (filled by `_get_dispatch` from `py_kernels` and `python_key_table`) and calls what
        it finds; a higher-order operator's `functorch_table` is read so too: its kernel `tables`, on the objects of
        `torch.ops` (namespaces, packets, overloads: three levels) and of `torch._ops._higher_order_ops`."""
        native = getattr(module, "_C", None)
        keys = getattr(getattr(native, "_TorchDispatchModeKey", None), "__members__", {})
        hooks = sys.modules.get("torch.nn.modules.module")
        frames = getattr(getattr(native, "_dynamo", None), "eval_frame", None)
        registries = [] if hooks is None else [value for name, value in sorted(vars(hooks).items())
                                               if name.startswith("_global_") and isinstance(value, dict)]
        return held_state(
            [(getattr(native, "_len_torch_function_stack", None), getattr(native, "_get_function_stack_at", None)),
             (getattr(native, "_len_torch_dispatch_stack", None), getattr(native, "_get_dispatch_stack_at", None))],
            [*[(getattr(native, "_get_dispatch_mode", None), (key,)) for key in keys.values()],
             # the saved-tensor hooks on top of autograd's stack (`saved_tensors_hooks`): (pack, unpack), or None
             (getattr(getattr(native, "_autograd", None), "_top_saved_tensors_default_hooks", None), (True,))],
            registries, [getattr(native, "Future", None)],
            _registrars(native),
            [(frames, "set_eval_frame")],
            [(os.path.join(os.path.dirname(module.__file__), "_export", "non_strict_utils.py"),
              "_override_builtin_ops")],
            _function_records(native), _runners(native), _kernel_tables(module))

    def device_used(self, device: str, evidence: dict[str, Any] | None) -> bool:
        """A CUDA check counts only if CUDA memory was allocated during a call of the function under test."""
        return device == "cpu" or int((evidence or {}).get("allocated_bytes") or 0) > 0

    def object_device_used(self, device: str, evidence: dict[str, Any] | None) -> bool:
        """The narrower claim for a function that allocates nothing itself (a cache's length, an empty constructor):
        CUDA memory the library's own calls on the object the function was called on allocated (the observer's
        `object_bytes`), never the function's own work. False on the CPU, where `device_used` already holds."""
        return device != "cpu" and int((evidence or {}).get("object_bytes") or 0) > 0

    def device_name(self, evidence: dict[str, Any] | None) -> str | None:
        return (evidence or {}).get("device_name")


def _registrars(native: Any) -> list[tuple[Any, str]]:
    """The C methods and functions that hand torch's C++ a callable (or an object whose methods it calls) to keep and
    call later (`HeldState.registrars`), where this release has them: the dispatcher's kernels and an operator's
    callback for a missing kernel; TorchScript's emit hooks (called as a trusted module scripts at its import), the
    tracer's naming function, nvFuser's comparison callback; the out-of-memory observers; the Python class wrapping a
    device's tensors; a Python backend's hooks and device guard (called by every operator on its tensors);
    `torch.monitor`'s event handlers; the distributed comm hooks, handlers, process groups and works."""
    acc, monitor = getattr(native, "_acc", None), getattr(native, "_monitor", None)
    c10d = getattr(native, "_distributed_c10d", None)
    return [*((getattr(native, "_DispatchModule", None), name) for name in ("impl", "fallback")),
            *((native, name) for name in ("_dispatch_set_report_error_callback", "_jit_set_emit_hooks",
                                          "_tracer_set_get_unique_name_fn", "_jit_nvfuser_set_comparison_callback",
                                          "_cuda_attach_out_of_memory_observer", "_mtia_attachOutOfMemoryObserver",
                                          "_register_py_class_for_device")),
            *((acc, name) for name in ("register_python_privateuseone_hook",
                                       "register_python_privateuseone_device_guard")),
            (monitor, "register_event_handler"),
            *((c10d, name) for name in ("_register_comm_hook", "_register_handler", "_register_process_group",
                                        "_register_work"))]


def _runners(native: Any) -> list[tuple[Any, str]]:
    """TorchScript's compilers and the RPC agent's start (`HeldState.runners`), where this release has them."""
    script = ("_jit_script_compile", "_jit_script_compile_overload", "_jit_script_class_compile",
              "_create_function_from_trace", "_create_function_from_trace_with_dict")
    module = ("_define", "_create_method_from_trace", "_create_method_from_trace_with_dict")
    return [*((native, name) for name in script),
            *((getattr(native, "ScriptModule", None), name) for name in module),
            (getattr(native, "ConcreteModuleType", None), "_create_methods_and_properties"),
            *((getattr(native, "CompilationUnit", None), name) for name in ("__init__", "define")),
            (getattr(native, "_distributed_rpc", None), "_set_and_start_rpc_agent")]


# The dicts an operator object (`torch._ops.OperatorBase`) keeps its kernels in.
KERNEL_TABLES = ("_dispatch_cache", "py_kernels", "python_key_table", "functorch_table")


def _kernel_tables(module: Any) -> list[tuple[Any, int, tuple[str, ...]]]:
    """Where the operator objects are whose kernel tables the dispatcher reads (`HeldState.tables`), where this
    release has them: `torch.ops`' namespaces' packets' overloads, and the higher-order operators by name."""
    ops = sys.modules.get(module.__name__ + "._ops")
    higher = vars(ops).get("_higher_order_ops") if ops is not None else None
    return [(vars(module).get("ops"), 3, KERNEL_TABLES),
            (higher if isinstance(higher, dict) else None, 1, KERNEL_TABLES)]


def _function_records(native: Any) -> list[type]:
    """The class of pybind11's function records, read off one of torch's own pybind11 functions (named by the module
    pybind11 gives it and the prefix of its name, which carries pybind11's ABI), where this release has one."""
    for value in vars(native).values() if native is not None else ():
        record = getattr(value, "__self__", None)
        kind = type(record)
        if type(value) is types.BuiltinFunctionType and kind.__module__ == "pybind11_builtins" \
                and kind.__name__.startswith("pybind11_detail_function_record"):
            return [kind]
    return []


RUNTIME = TorchRuntime()

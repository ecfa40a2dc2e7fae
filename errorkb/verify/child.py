"""Runs one snippet in a fresh process and writes down what happened, as JSON.

This module observes; it never judges (that is `judge.py`, in the parent). The same code runs
in both isolation modes: a fresh interpreter (`python -m errorkb.verify.child SPEC RESULT`) or
a process forked from a warm zygote (`zygote.py`) that already ran `prepare`. Stages:

1. `limit`       cap the output file size, core dumps and, on CPU, the address space.
2. `prepare`     make `import transformers` resolve to the check's target, import torch and
                 the target module (done once in a zygote, before any fork).
3. `resolve`     find `source.function` in the target module; its code object is what we trace.
4. `execute`     compile and run the snippet as `__main__`, tracing every call of that function.
5. `describe`    the outcome, the exception with its raise site, the calls, tampering, and the
                 evidence of CUDA work — written to the result file the parent named.

The parent decides the device: for a CPU check it hides every CUDA device before torch is
imported, so a snippet's own `"cuda" if torch.cuda.is_available() else "cpu"` comes out as a
user on that machine would see.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import importlib.util
import inspect
import json
import os
import resource
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from types import CodeType, FrameType, TracebackType

from errorkb.verify.targets import activate, target_roots

_real_exit = os._exit  # the snippet may replace or wrap os._exit; we never use its version
_prepared: dict[str, dict] = {}  # target → what `prepare` found, so a zygote's forks reuse it


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    run_and_exit(spec, Path(argv[1]))
    return 0  # not reached


def run_and_exit(spec: dict, result_path: Path) -> None:
    """Observe one snippet, write the observation, and leave without interpreter teardown."""
    limit(spec)
    observation = observe(spec, result_path)
    write_observation(result_path, observation)
    # Skip interpreter teardown: a snippet's atexit handlers or threads must not change the verdict.
    _real_exit(0)


def write_observation(path: Path, observation: dict) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # output may be over its cap; the observation still counts
        pass
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(observation, default=str), encoding="utf-8")
    temporary.replace(path)


def limit(spec: dict) -> None:
    cap = int(spec.get("output_cap", 1 << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    memory = spec.get("memory_limit")
    if memory and spec["device"] == "cpu":
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    faulthandler.enable(file=sys.stderr)  # a crash prints the snippet line it died on
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"):  # so does a fatal signal sent to it
        faulthandler.register(getattr(signal, name), file=sys.stderr, chain=True)


def prepare(target: str, module: str, preload: list[str] = ()) -> dict:
    """Activate the target and import torch and the target module; once per process.

    Returns {"torch": module} or {"error": "..."}. `preload` names extra `transformers`
    modules or attributes the snippets import, so a zygote's children find them loaded.
    """
    key = f"{target}:{module}"
    if key in _prepared:
        return _prepared[key]
    try:
        activate(target)
        import torch  # after activate: one import order on both targets

        importlib.import_module(module)
        for name in preload:
            _preload(name)
        _prepared[key] = {"torch": torch}
    except Exception as error:  # the target itself is broken or absent: say so, precisely
        _prepared[key] = {"error": f"{type(error).__name__}: {error}"}
    return _prepared[key]


def lazy_torch_submodules(module_name: str) -> list[str]:
    """`torch.X` submodules the target's source uses but torch has not imported yet.

    torch loads some submodules on first attribute access (`torch._dynamo` is 2 s of imports);
    the cache code calls e.g. `torch._dynamo.mark_static_address` in ordinary use, so without
    this every forked check would pay that import again.
    """
    import re

    module = sys.modules.get(module_name)
    try:
        text = Path(module.__file__).read_text(encoding="utf-8")  # type: ignore[union-attr, arg-type]
    except (AttributeError, OSError, TypeError):
        return []
    names = sorted({f"torch.{name}" for name in re.findall(r"\btorch\.([A-Za-z_]\w*)", text)})
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


def _preload(name: str) -> None:
    """`transformers.models.llama` (a module) or `transformers:LlamaConfig` (an attribute)."""
    try:
        if ":" in name:
            package, attribute = name.split(":", 1)
            getattr(importlib.import_module(package), attribute)
        else:
            importlib.import_module(name)
    except Exception:  # the snippet will meet the same error and report it
        pass


def observe(spec: dict, result_path: Path | None = None) -> dict:
    started = time.perf_counter()
    observation: dict = {"status": None}
    prepared = prepare(spec["target"], spec["module"], spec.get("preload", []))
    if "error" in prepared:
        observation.update(status="setup-failed", error=prepared["error"])
        return observation
    torch = prepared["torch"]
    observation["environment"] = environment(torch, spec["device"])
    if spec["device"] == "cuda" and not torch.cuda.is_available():
        observation["status"] = "no-device"
        return observation
    function = resolve(spec["module"], spec["function"])
    if function is None:
        observation.update(status="no-function",
                           error=f"{spec['function']} is not defined in {spec['module']}")
        return observation
    owner, name, original, code = function
    roots = target_roots(spec["target"])
    tracer = CallTracer(code)
    watch = TamperWatch(spec["module"], spec["function"], owner, name, original)

    def finish(result: dict) -> dict:
        observation.update(result)
        observation["calls"] = tracer.summary()
        observation["tampered"] = watch.changes() + (result.pop("tracer_tampered", None) or [])
        observation["cuda"] = cuda_evidence(torch) if spec["device"] == "cuda" else None
        if spec["device"] == "cuda" and observation["cuda"]["device_name"]:
            observation["environment"]["device_name"] = observation["cuda"]["device_name"]
        observation["duration_s"] = round(time.perf_counter() - started, 4)
        return observation

    def on_os_exit(code: object, line: int | None) -> None:
        if result_path is not None:
            write_observation(result_path, finish({"status": "os-exit", "exit_code": code,
                                                   "exception": {"snippet_line": line}}))

    return finish(execute(Path(spec["snippet"]), tracer, roots, on_os_exit))


def environment(torch, device: str) -> dict:
    """What this check ran on; the report keeps it beside every verdict."""
    import platform

    env = {"python": platform.python_version(), "torch": torch.__version__,
           "platform": platform.platform(terse=True), "cuda": torch.version.cuda,
           "device": device, "device_name": _cpu_name() if device == "cpu" else None}
    try:
        import transformers

        env["transformers"] = getattr(transformers, "__version__", None)
    except ImportError:
        env["transformers"] = None
    return env


def _cpu_name() -> str:
    import platform

    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def resolve(module_name: str, qualname: str) -> tuple[object, str, object, CodeType] | None:
    """(owner, attribute, raw attribute, code object) of `module.qualname`, or None."""
    owner: object = importlib.import_module(module_name)
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = inspect.getattr_static(owner, part, None)
        if owner is None:
            return None
    raw = inspect.getattr_static(owner, parts[-1], None)
    function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    function = function.fget if isinstance(function, property) else function
    function = inspect.unwrap(function) if callable(function) else None
    code = getattr(function, "__code__", None)
    return (owner, parts[-1], raw, code) if code is not None else None


class CallTracer:
    """Counts calls of one code object and how each ended: returned, or raised what."""

    def __init__(self, code: CodeType):
        self.code = code
        self.calls = 0
        self.returned = 0
        self.raised: list[dict] = []

    def __call__(self, frame: FrameType, event: str, arg: object):
        if frame.f_code is not self.code:
            return None
        self.calls += 1
        pending: list[BaseException | None] = [None]

        def local(frame: FrameType, event: str, arg: object):
            if event == "exception":
                pending[0] = arg[1]  # type: ignore[index]
            elif event == "line":
                pending[0] = None  # handled inside the function
            elif event == "return":
                if pending[0] is None:
                    self.returned += 1
                else:
                    error = pending[0]
                    self.raised.append({"type": type(error).__name__, "message": _message(error)})
            return local

        return local

    def summary(self) -> dict:
        return {"function": self.code.co_qualname, "count": self.calls, "returned": self.returned,
                "raised": self.raised}


class TamperWatch:
    """Notices a snippet that replaces the target instead of calling it.

    Watched: `source.function` on its owner, every attribute of the source module, of the
    top-level `transformers` package and of the classes the source module defines, and the
    modules' entries in `sys.modules`. A name that existed before and now holds another object,
    or that vanished, is tampering; so is a new name bound to something defined outside the
    target (a lazily loaded upstream attribute is not).
    """

    def __init__(self, module_name: str, qualname: str, owner: object, name: str, original: object):
        self.function = (qualname, owner, name, original)
        self.modules = {name_: sys.modules.get(name_) for name_ in {module_name, "transformers"}}
        self.spaces = {label: (space, dict(vars(space))) for label, space in self._spaces().items()}

    def _spaces(self) -> dict[str, object]:
        spaces: dict[str, object] = {}
        for module_name, module in self.modules.items():
            if module is None:
                continue
            spaces[module_name] = module
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == module.__name__:
                    spaces[f"{module_name}.{value.__qualname__}"] = value
        return spaces

    def changes(self) -> list[str]:
        changed = []
        qualname, owner, name, original = self.function
        if inspect.getattr_static(owner, name, None) is not original:
            changed.append(qualname)
        for module_name, module in self.modules.items():
            if sys.modules.get(module_name) is not module:
                changed.append(f"sys.modules[{module_name!r}]")
        for label, (space, before) in self.spaces.items():
            now = vars(space)
            for key, value in before.items():
                if key not in now or now[key] is not value:
                    changed.append(f"{label}.{key}")
            for key in now.keys() - before.keys():
                defined_in = getattr(now[key], "__module__", None) or ""
                if callable(now[key]) and not defined_in.startswith(("transformers", "errorkb.kvcache")):
                    changed.append(f"{label}.{key}")
        # `Cache.early_initialization` is also seen as `<module>.Cache.early_initialization`: once.
        return sorted({c for c in changed if c == qualname or not c.endswith("." + qualname)})


def execute(snippet: Path, tracer: CallTracer, roots: list[str], on_os_exit=None) -> dict:
    text = snippet.read_text(encoding="utf-8")
    try:
        code = compile(text, str(snippet), "exec")
    except SyntaxError as error:
        return {"status": "syntax-error",
                "exception": {"type": "SyntaxError", "message": error.msg,
                              "snippet_line": error.lineno, "snippet_col": error.offset}}
    namespace = {"__name__": "__main__", "__file__": str(snippet), "__builtins__": builtins}
    sys.argv = [str(snippet)]
    sys.path.insert(0, str(snippet.parent))

    def recording_exit(status: int = 0) -> None:
        """os._exit skips every handler: note it, with the snippet line, before leaving."""
        sys.settrace(None)
        frame, line = sys._getframe(1), None
        while frame is not None and line is None:
            line = frame.f_lineno if frame.f_code.co_filename == str(snippet) else None
            frame = frame.f_back
        if on_os_exit is not None:
            on_os_exit(status, line)
        _real_exit(status)

    os._exit = recording_exit
    threading.settrace(tracer)
    sys.settrace(tracer)
    status: dict
    try:
        exec(code, namespace)
    except SystemExit as error:
        status = {"status": "sys-exit",
                  "exit_code": error.code if isinstance(error.code, int | None) else str(error.code),
                  "exception": describe(error, str(snippet), roots)}
    except BaseException as error:  # every outcome is evidence
        status = {"status": "raised", "exception": describe(error, str(snippet), roots)}
    else:
        status = {"status": "returned"}
    if sys.gettrace() is not tracer:
        status["tracer_tampered"] = ["sys.settrace (the verifier's call tracer)"]
    sys.settrace(None)
    threading.settrace(None)  # type: ignore[arg-type]
    os._exit = _real_exit
    return status


def describe(error: BaseException, snippet: str, roots: list[str]) -> dict:
    """The exception, where in the target it was raised, and where the snippet called in."""
    frames = _frames(error.__traceback__)
    in_target = [f for f in frames if any(f["file"].startswith(root) for root in roots)]
    in_snippet = [f for f in frames if f["file"] == snippet]
    kind = type(error)
    return {
        "type": kind.__name__,
        "qualified_type": f"{kind.__module__}.{kind.__qualname__}",
        "message": _message(error),
        "raise_site": in_target[-1] if in_target else None,
        "origin": frames[-1] if frames else None,
        "snippet_line": in_snippet[-1]["line"] if in_snippet else None,
        "traceback": _traceback_text(error, snippet),
    }


def _frames(tb: TracebackType | None) -> list[dict]:
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append({"file": code.co_filename, "function": code.co_qualname, "line": tb.tb_lineno,
                       "module": tb.tb_frame.f_globals.get("__name__")})
        tb = tb.tb_next
    return frames


def _traceback_text(error: BaseException, snippet: str) -> str:
    """The traceback a user would see, starting at their snippet (our harness frames dropped)."""
    try:
        lines = traceback.format_exception(error)
    except Exception as inner:  # a broken exception is still an outcome
        return f"<traceback unavailable: {inner!r}>"
    snippet_at = next((i for i, line in enumerate(lines) if f'File "{snippet}"' in line), None)
    body = lines[snippet_at:] if snippet_at is not None else lines[1:]
    return "Traceback (most recent call last):\n" + "".join(body)


def _message(error: BaseException, cap: int = 20_000) -> str:
    try:
        text = str(error)
    except Exception as inner:  # a broken __str__ is still an outcome
        return f"<unprintable {type(error).__name__}: {inner!r}>"
    return text if len(text) <= cap else text[:cap] + f"... <{len(text) - cap} more characters>"


def cuda_evidence(torch) -> dict:
    """Proof that a CUDA check did CUDA work: initialised, and memory was allocated on a device."""
    if not torch.cuda.is_initialized():
        return {"initialized": False, "peak_bytes": 0, "device_name": None}
    return {"initialized": True, "peak_bytes": int(torch.cuda.max_memory_allocated()),
            "device_name": torch.cuda.get_device_name()}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

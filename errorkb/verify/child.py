"""Runs one snippet in a fresh process and writes down what happened, as JSON.

This module observes; it never judges (that is `judge.py`, in the parent). Stages:

1. `limit`       cap the output file size and, on CPU, the address space.
2. `activate`    make `import transformers` resolve to the check's target.
3. `resolve`     find `source.function` in the target module; its code object is what we trace.
4. `execute`     compile and run the snippet as `__main__`, tracing every call of that function.
5. `describe`    the outcome, the exception with its raise site, the calls, tampering, and the
                 evidence of CUDA work — written to the result file the parent named.

Run as `python -m errorkb.verify.child SPEC_JSON RESULT_PATH`. The parent decides the device:
for a CPU check it hides every CUDA device, so a snippet's own
`"cuda" if torch.cuda.is_available() else "cpu"` comes out as a user on that machine would see.
"""

from __future__ import annotations

import builtins
import inspect
import json
import os
import resource
import sys
import time
import traceback
from pathlib import Path
from types import CodeType, FrameType, TracebackType

from errorkb.verify.targets import activate, target_roots


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    result_path = Path(argv[1])
    limit(spec)
    observation = observe(spec)
    result_path.write_text(json.dumps(observation, default=str), encoding="utf-8")
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: a snippet's atexit handlers or threads must not change the verdict.
    os._exit(0)


def limit(spec: dict) -> None:
    cap = int(spec.get("output_cap", 1 << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    memory = spec.get("memory_limit")
    if memory and spec["device"] == "cpu":
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))


def observe(spec: dict) -> dict:
    started = time.perf_counter()
    observation: dict = {"status": None}
    try:
        activate(spec["target"])
        import torch  # after activate: the target decides nothing about torch, but keep one order

        observation["environment"] = environment(torch)
        if spec["device"] == "cuda" and not torch.cuda.is_available():
            observation["status"] = "no-device"
            return observation
        function = resolve(spec["module"], spec["function"])
    except Exception as error:  # the target itself is broken or absent: say so, precisely
        observation.update(status="setup-failed", error=f"{type(error).__name__}: {error}")
        return observation
    if function is None:
        observation.update(status="no-function",
                           error=f"{spec['function']} is not defined in {spec['module']}")
        return observation
    owner, name, original, code = function
    roots = target_roots(spec["target"])
    tracer = CallTracer(code)
    observation.update(execute(Path(spec["snippet"]), tracer, roots))
    observation["calls"] = tracer.summary()
    observation["tampered"] = inspect.getattr_static(owner, name, None) is not original
    observation["cuda"] = cuda_evidence(torch) if spec["device"] == "cuda" else None
    observation["duration_s"] = round(time.perf_counter() - started, 4)
    return observation


def environment(torch) -> dict:
    """What this check ran on; the report keeps it beside every verdict."""
    import platform

    env = {"python": platform.python_version(), "torch": torch.__version__,
           "platform": platform.platform(terse=True), "cuda": torch.version.cuda}
    try:
        import transformers

        env["transformers"] = getattr(transformers, "__version__", None)
    except ImportError:
        env["transformers"] = None
    return env


def resolve(module_name: str, qualname: str) -> tuple[object, str, object, CodeType] | None:
    """(owner, attribute, raw attribute, code object) of `module.qualname`, or None."""
    import importlib

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
        return {"count": self.calls, "returned": self.returned, "raised": self.raised}


def execute(snippet: Path, tracer: CallTracer, roots: list[str]) -> dict:
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
    sys.settrace(tracer)
    try:
        exec(code, namespace)
    except SystemExit as error:
        sys.settrace(None)
        return {"status": "sys-exit", "exit_code": error.code if isinstance(error.code, int) else str(error.code),
                "exception": describe(error, str(snippet), roots)}
    except BaseException as error:  # noqa: BLE001 - every outcome is evidence
        sys.settrace(None)
        return {"status": "raised", "exception": describe(error, str(snippet), roots)}
    sys.settrace(None)
    return {"status": "returned"}


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
    lines = traceback.format_exception(error)
    snippet_at = next((i for i, line in enumerate(lines) if f'File "{snippet}"' in line), None)
    body = lines[snippet_at:] if snippet_at is not None else lines[1:]
    return "Traceback (most recent call last):\n" + "".join(body)


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception as inner:  # noqa: BLE001 - a broken __str__ is still an outcome
        return f"<unprintable {type(error).__name__}: {inner!r}>"


def cuda_evidence(torch) -> dict:
    """Proof that a CUDA check did CUDA work: initialised, and memory was allocated on a device."""
    if not torch.cuda.is_initialized():
        return {"initialized": False, "peak_bytes": 0, "device_name": None}
    return {"initialized": True, "peak_bytes": int(torch.cuda.max_memory_allocated()),
            "device_name": torch.cuda.get_device_name()}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

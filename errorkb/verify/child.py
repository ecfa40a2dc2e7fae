"""Runs one snippet in a fresh process and writes down what happened, as JSON.

This module observes; it never judges (that is `judge.py`, in the parent). The same code runs
in both isolation modes: a fresh interpreter (`python -m errorkb.verify.child SPEC RESULT`) or
a process forked from a warm zygote (`zygote.py`) that already ran `prepare`. Stages:

1. `limit`       cap the output file size, core dumps and, on CPU, the address space.
2. `prepare`     make `import <library>` resolve to the check's target, load the runtime (the
                 profile's plug) and the target module (once in a zygote, before any fork).
3. `resolve`     find `source.function` in the target module; its code object is what we trace.
4. `execute`     compile the snippet's bytes (sent by the parent, never re-read from disk) and
                 run them as `__main__`, tracing every call of that function.
5. `describe`    the outcome, the exception with its raise site, the calls, tampering, and the
                 runtime's evidence of device work — an `Observation`, written to the result
                 file the parent named.

The parent decides the device: the runtime plug's `child_env` (a CPU check sees no GPU) is in
place before the runtime is imported.
"""

from __future__ import annotations

import base64
import builtins
import faulthandler
import importlib
import importlib.metadata
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
from typing import Any

from errorkb.core.project import LibraryProfile
from errorkb.plugs import Runtime, runtime_for
from errorkb.verify import identity
from errorkb.verify.records import Calls, ExceptionInfo, Observation, RaisedCall, Site, Status
from errorkb.verify.targets import activate, target_roots

_real_exit = os._exit  # the snippet may replace or wrap os._exit; we never use its version
_prepared: dict[str, dict[str, Any]] = {}  # target → what `prepare` found, so a zygote's forks reuse it


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    run_and_exit(spec, Path(argv[1]))
    return 0  # not reached


def run_and_exit(spec: dict[str, Any], result_path: Path) -> None:
    """Observe one snippet, write the observation, and leave without interpreter teardown."""
    limit(spec)
    observation = observe(spec, result_path)
    write_observation(result_path, observation)
    # Skip interpreter teardown: a snippet's atexit handlers or threads must not change the verdict.
    _real_exit(0)


def write_observation(path: Path, observation: Observation) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # output may be over its cap; the observation still counts
        pass
    temporary = path.with_suffix(".tmp")
    temporary.write_text(observation.model_dump_json(), encoding="utf-8")
    temporary.replace(path)


def limit(spec: dict[str, Any]) -> None:
    cap = int(spec.get("output_cap", 1 << 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    memory = spec.get("memory_limit")
    if memory and spec["device"] == "cpu":
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    faulthandler.enable(file=sys.stderr)  # a crash prints the snippet line it died on
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"):  # so does a fatal signal sent to it
        faulthandler.register(getattr(signal, name), file=sys.stderr, chain=True)


def prepare(spec: dict[str, Any]) -> dict[str, Any]:
    """Activate the target, load the runtime and import the target module; once per process.

    Returns {"runtime": plug, "module": loaded runtime} or {"error": "..."}. `spec["preload"]`
    names extra library modules or attributes the snippets import, so a zygote's children find
    them loaded.
    """
    key = f"{spec['target']}:{spec['module']}"
    if key in _prepared:
        return _prepared[key]
    try:
        library = LibraryProfile.model_validate(spec["library"])
        runtime = runtime_for(library.runtime)
        activate(spec["target"], library)
        loaded = runtime.load()  # after activate: one import order on both targets
        importlib.import_module(spec["module"])
        for name in spec.get("preload", []):
            preload(name)
        _prepared[key] = {"runtime": runtime, "module": loaded, "library": library}
    except Exception as error:  # the target itself is broken or absent: say so, precisely
        _prepared[key] = {"error": f"{type(error).__name__}: {error}"}
    return _prepared[key]


def runtime_preloads(spec: dict[str, Any]) -> list[str]:
    """What the runtime wants preloaded for the target module's source (see the plug)."""
    prepared = prepare(spec)
    module = sys.modules.get(spec["module"])
    if "error" in prepared or module is None:
        return []
    try:
        text = Path(module.__file__ or "").read_text(encoding="utf-8")
    except (OSError, TypeError):
        return []
    runtime: Runtime = prepared["runtime"]
    return runtime.preload_names(text)


def preload(name: str) -> None:
    """`pkg.sub` (a module) or `pkg:Name` (an attribute)."""
    try:
        if ":" in name:
            package, attribute = name.split(":", 1)
            getattr(importlib.import_module(package), attribute)
        else:
            importlib.import_module(name)
    except Exception:  # the snippet will meet the same error and report it
        pass


def observe(spec: dict[str, Any], result_path: Path | None = None) -> Observation:
    started = time.perf_counter()
    prepared = prepare(spec)
    if "error" in prepared:
        return Observation(status=Status.SETUP_FAILED, error=prepared["error"])
    runtime: Runtime = prepared["runtime"]
    library: LibraryProfile = prepared["library"]
    device = spec["device"]
    env = environment(runtime, prepared["module"], library, device)
    if not runtime.device_available(prepared["module"], device):
        return Observation(status=Status.NO_DEVICE, environment=env)
    api: dict[str, str] | None = spec.get("api")
    function = resolve(spec["module"], spec["function"])
    # A removed name's or a changed signature's before needs no replacement to exist: it shows the old call.
    if function is None and not (api and spec.get("role") == "before"):
        return Observation(status=Status.NO_FUNCTION, environment=env,
                           error=f"{spec['function']} is not defined in {spec['module']}")
    owner = identity.resolve_owner(api["owner"]) if api else None  # before the snippet can touch it
    roots = target_roots(spec["target"], library)
    tracer = CallTracer(function[3] if function else None, spec["function"])
    old = _old_api_code(owner, api["name"]) if api and spec.get("kind") == "removed" else None
    old_tracer = CallTracer(old, f"{api['owner']}.{api['name']}") if api and old is not None else None
    watch = TamperWatch(spec["module"], spec["function"], function, library) if function else None

    def finish(status: Status, **found: Any) -> Observation:
        evidence = runtime.evidence(prepared["module"], device)
        if runtime.device_name(evidence):
            env["device_name"] = runtime.device_name(evidence)
        return Observation(status=status, calls=tracer.summary(),
                           old_calls=old_tracer.summary() if old_tracer else None,
                           tampered=(watch.changes() if watch else []) + found.pop("tracer_tampered", []),
                           evidence=evidence, environment=env,
                           duration_s=round(time.perf_counter() - started, 4), **found)

    def on_os_exit(code: object, line: int | None) -> None:
        if result_path is not None:
            write_observation(result_path, finish(Status.OS_EXIT, exit_code=_exit_code(code),
                                                  exception=ExceptionInfo(type="os._exit", snippet_line=line)))

    snippet = Path(spec["snippet"])
    source = base64.b64decode(spec["source_b64"])
    about = (owner, api["name"], spec.get("kind", "raise")) if api else None
    tracers = [t for t in (tracer, old_tracer) if t is not None and t.code is not None]
    return finish(**execute(snippet, source, Tracers(tracers), roots, on_os_exit, about))


def _old_api_code(owner: Any, name: str) -> CodeType | None:
    """The code object of a removed name where it still exists (a method, property or function)."""
    value = inspect.getattr_static(owner, name, None) if owner is not None else None
    value = value.__func__ if isinstance(value, staticmethod | classmethod) else value
    value = value.fget if isinstance(value, property) else value
    value = inspect.unwrap(value) if callable(value) else None
    return getattr(value, "__code__", None)


def environment(runtime: Runtime, module: Any, library: LibraryProfile, device: str) -> dict[str, Any]:
    """What this check ran on; the report keeps it beside every verdict."""
    import platform

    env: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(terse=True),
                           **runtime.environment(module), "device": device, "library": library.name}
    if device != "cpu":
        env["device_name"] = None  # filled from the runtime's evidence, once the check used the device
    try:
        env["library_version"] = importlib.metadata.version(library.dist)
    except importlib.metadata.PackageNotFoundError:
        env["library_version"] = None
    loaded = sys.modules.get(library.name)
    if loaded is not None and getattr(loaded, "__version__", None):
        env["library_version"] = loaded.__version__  # the bundled target says which release it reproduces
    return env


def _exit_code(code: object) -> int | str | None:
    return code if isinstance(code, int | None) else str(code)


def resolve(module_name: str, qualname: str) -> tuple[object, str, object, CodeType] | None:
    """(owner, attribute, raw attribute, code object) of `module.qualname`, or None."""
    owner: object = importlib.import_module(module_name)
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = inspect.getattr_static(owner, part, None)
        if owner is None:
            return None
    raw = inspect.getattr_static(owner, parts[-1], None)
    function = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
    function = function.fget if isinstance(function, property) else function
    function = inspect.unwrap(function) if callable(function) else None
    code = getattr(function, "__code__", None)
    return (owner, parts[-1], raw, code) if code is not None else None


class CallTracer:
    """Counts calls of one code object and how each ended: returned, or raised what."""

    def __init__(self, code: CodeType | None, label: str):
        self.code = code
        self.label = label
        self.calls = 0
        self.returned = 0
        self.raised: list[RaisedCall] = []

    def enter(self, frame: FrameType) -> Any:
        self.calls += 1
        pending: list[BaseException | None] = [None]

        def local(frame: FrameType, event: str, arg: object):  # type: ignore[no-untyped-def]
            if event == "exception":
                pending[0] = arg[1]  # type: ignore[index]
            elif event == "line":
                pending[0] = None  # handled inside the function
            elif event == "return":
                if pending[0] is None:
                    self.returned += 1
                else:
                    error = pending[0]
                    self.raised.append(RaisedCall(type=type(error).__name__, message=_message(error)))
            return local

        return local

    def summary(self) -> Calls:
        function = self.code.co_qualname if self.code is not None else self.label
        return Calls(function=function, count=self.calls, returned=self.returned, raised=self.raised)


class Tracers:
    """The one trace function installed: hands each call of a watched code object to its tracer."""

    def __init__(self, tracers: list[CallTracer]):
        self.by_code = {tracer.code: tracer for tracer in tracers}

    def __call__(self, frame: FrameType, event: str, arg: object):  # type: ignore[no-untyped-def]
        tracer = self.by_code.get(frame.f_code)
        return tracer.enter(frame) if tracer is not None else None


class TamperWatch:
    """Notices a snippet that replaces the target instead of calling it.

    Watched: `source.function` on its owner, every attribute of the source module, of the
    library's top-level package and of the classes the source module defines, and the modules'
    entries in `sys.modules`. A name that existed before and now holds another object, or that
    vanished, is tampering; so is a new name bound to something defined outside the target (a
    lazily loaded upstream attribute is not).
    """

    def __init__(self, module_name: str, qualname: str, function: tuple[object, str, object, CodeType],
                 library: LibraryProfile):
        owner, name, original, _ = function
        self.function = (qualname, owner, name, original)
        self.modules = {name_: sys.modules.get(name_) for name_ in {module_name, library.name}}
        self.own_prefixes = tuple(p for p in (library.name, library.bundled) if p)
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
                if callable(now[key]) and not defined_in.startswith(self.own_prefixes):
                    changed.append(f"{label}.{key}")
        # `Cls.method` is also seen as `<module>.Cls.method`: once.
        return sorted({c for c in changed if c == qualname or not c.endswith("." + qualname)})


def execute(snippet: Path, source: bytes, tracer: Tracers, roots: list[str],
            on_os_exit: Any = None, about: tuple[Any, str, str] | None = None) -> dict[str, Any]:
    """Run the snippet's bytes as `__main__`; the status and what goes with it. `about` is the
    resolved API owner, its name and the entry's kind, for errors about a removed name or signature."""
    try:
        code = compile(source, str(snippet), "exec")
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        return {"status": Status.SYNTAX_ERROR,
                "exception": ExceptionInfo(type=type(error).__name__, message=getattr(error, "msg", str(error)),
                                           snippet_line=line, snippet_col=getattr(error, "offset", None))}
    own = identity.code_objects(code)
    namespace = {"__name__": "__main__", "__file__": str(snippet), "__builtins__": builtins}
    sys.argv = [str(snippet)]
    sys.path.insert(0, str(snippet.parent))

    def recording_exit(status: int = 0) -> None:
        """os._exit skips every handler: note it, with the snippet line, before leaving."""
        sys.settrace(None)
        frame: FrameType | None = sys._getframe(1)
        line = None
        while frame is not None and line is None:
            line = frame.f_lineno if frame.f_code.co_filename == str(snippet) else None
            frame = frame.f_back
        if on_os_exit is not None:
            on_os_exit(status, line)
        _real_exit(status)

    os._exit = recording_exit  # type: ignore[assignment]
    threading.settrace(tracer)
    sys.settrace(tracer)
    found: dict[str, Any]
    try:
        exec(code, namespace)
    except SystemExit as error:
        found = {"status": Status.SYS_EXIT, "exit_code": _exit_code(error.code),
                 "exception": describe(error, str(snippet), roots, own)}
    except BaseException as error:  # every outcome is evidence
        found = {"status": Status.RAISED, "exception": describe(error, str(snippet), roots, own, about)}
    else:
        found = {"status": Status.RETURNED}
    if sys.gettrace() is not tracer:
        found["tracer_tampered"] = ["sys.settrace (the verifier's call tracer)"]
    sys.settrace(None)
    threading.settrace(None)
    os._exit = _real_exit
    return found


def describe(error: BaseException, snippet: str, roots: list[str], own: set[CodeType] | None = None,
             about: tuple[Any, str, str] | None = None) -> ExceptionInfo:
    """The exception, where in the target it was raised, and where the snippet called in."""
    frames = _frames(error.__traceback__)
    in_target = [f for f in frames if any(f.file.startswith(root) for root in roots)]
    in_snippet = [f for f in frames if f.file == snippet]
    frame, opcode = identity.innermost(error.__traceback__)
    kind = type(error)
    facts = None
    if about is not None:
        try:
            facts = identity.api_facts(error, *about)
        except Exception:  # a hostile object may break the inspection: then nothing is established
            facts = None
    return ExceptionInfo(type=kind.__name__, qualified_type=f"{kind.__module__}.{kind.__qualname__}",
                         message=_message(error), raise_site=in_target[-1] if in_target else None,
                         origin=frames[-1] if frames else None, opcode=opcode,
                         in_snippet=frame is not None and own is not None and frame.f_code in own, api=facts,
                         snippet_line=in_snippet[-1].line if in_snippet else None,
                         traceback=_traceback_text(error, snippet))


def _frames(tb: TracebackType | None) -> list[Site]:
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(Site(file=code.co_filename, function=code.co_qualname, line=tb.tb_lineno,
                           module=tb.tb_frame.f_globals.get("__name__")))
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

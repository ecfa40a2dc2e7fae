"""Runs one snippet in a fresh process and streams what happened to the harness.

This module observes; it never judges (that is `judge.py`, in the parent). The same code runs
in both isolation modes: a fresh interpreter (`python -m errorkb.verify.inside.child SPEC`) or a process
forked from a warm zygote (`zygote.py`) that already ran `prepare`. Either way the parent hands
the write end of a pipe as file descriptor 3: the stream (`observer.py`, read by `stream.py`),
and the key's channel as descriptor 4. The data handed over is a typed `CheckSpec` (`spec.py`).
Stages:

0. `seal.handover` make the stream's key and send it on its own channel (fd 4), then close it;
                 the seccomp filter (`seccomp.confine`) then pins the stream's descriptor (fd 3).
1. `limit`       cap the output file size, core dumps and, on CPU, the address space (the CPU
                 time limit starts with the snippet, in `execute`).
2. `prepare`     make `import <library>` resolve to the check's target, load the runtime (the
                 profile's plug) and the target module (once in a zygote, before any fork).
3. `observe`     resolve `source.function` (and the functions of other wordings) in the target
                 module, compile the snippet's bytes (sent by the parent, never re-read from
                 disk), snapshot what it may tamper with, and `observer.install`: from then on
                 the observer, out of the snippet's reach, streams what happens.
4. `execute`     run the bytes as `__main__`.
5. `finish`      the outcome: the verifier's modules restored (`observer`), the exception
                 described for people (its text and traceback may run the snippet's code, so
                 they come first), then the observer's `end` line, after which the observer
                 itself ends the process.

Failures before the snippet runs (the target, the function, the device, a syntax error) are
streamed by `early_end` the same way, with no snippet code ever having run.

The parent decides the device: the runtime plug's `child_env` (a CPU check sees no GPU) is in
place before the runtime is imported.
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import faulthandler
import functools
import gc
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import inspect
import json
import os
import resource
import signal
import sys
import sysconfig
import time
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType, TracebackType
from typing import Any, NoReturn

from errorkb.plugs import Runtime, runtime_for
from errorkb.verify.inside import identity, observer, seal, seccomp
from errorkb.verify.inside.library import (
    activate,
    module_outside_target,
    module_problem,
    package_dirs,
    runtime_module,
    runtime_roots,
    target_roots,
)
from errorkb.verify.inside.spec import CheckSpec, LibrarySpec

_real_exit = os._exit  # the snippet may replace or wrap os._exit; we never use its version
_audit = sys.audit
_type_name = type.__dict__["__name__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_module = type.__dict__["__module__"].__get__
_RETURNS = ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE")
# Modules the end of a check calls into: restored to what they were before it describes the outcome.
_RESTORED = ("errorkb.verify.inside.child", "errorkb.verify.inside.identity", "errorkb.verify.inside.observer",
             "traceback", "linecache", "inspect", "dis", "types", "functools", "importlib", "importlib._bootstrap",
             "importlib._bootstrap_external", "builtins", "posixpath", "os")


@dataclass(frozen=True)
class Prepared:
    """A target made importable and its runtime loaded (`runtime`, `loaded`), or why not (`error`)."""

    runtime: Runtime | None = None
    loaded: Any = None  # the runtime's module
    library: LibrarySpec | None = None
    error: str | None = None


_activated: dict[str, Prepared] = {}  # target → the runtime and library it loaded, or why not
_prepared: dict[tuple[str, str, bool], Prepared] = {}  # (target, module, runtime site) → what `prepare` found
_served: dict[str, list[str]] = {}  # target → library modules named as preloads (`runtime_preloads` prepares them)


def main(argv: list[str]) -> int:
    run_and_exit(CheckSpec.from_json(argv[0]), fresh=True)
    return 0  # not reached


def run_and_exit(spec: CheckSpec, fresh: bool = False) -> NoReturn:
    """Observe one snippet; the process ends inside (the observer's end, or `early_end`). `fresh`: this
    interpreter was started for the check (`main`), not forked from a zygote that prepared it.

    First of all the stream's key is made and handed over on its own channel, which is then closed;
    then the seccomp filter holds the stream's descriptor in place for everything that follows.
    """
    sealer = seal.handover(spec.key_fd)
    os.set_inheritable(spec.stream_fd, False)  # a program the snippet execs never holds it
    limit(spec)
    try:
        seccomp.confine(spec.stream_fd)
    except seccomp.Unconfined as error:
        early_end(spec, sealer, hashlib.sha256(spec.source).hexdigest(), "setup-failed",
                  error=f"the check's seccomp filter could not be installed: {error}")
    observe(spec, sealer, fresh)
    _real_exit(70)  # not reached: observe always ends the process


def still_present(distributions: tuple[str, ...], modules: tuple[str, ...]) -> str | None:
    """Which of what the sandbox was to hide (a `without:` need) this process still finds, or None: a
    check whose need is not met here never runs, whatever the mounts did."""
    for name in distributions:
        try:
            found = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        return f"{name} {found.version} is still installed inside the sandbox, which was to hide it (its `without:`)"
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except ImportError:
            continue
        if spec is not None:
            return f"{name} is still importable inside the sandbox, which was to hide it (its `without:`)"
    return None


def limit(spec: CheckSpec) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (spec.output_cap, spec.output_cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if spec.memory_limit and spec.device == "cpu":
        resource.setrlimit(resource.RLIMIT_AS, (spec.memory_limit, spec.memory_limit))
    faulthandler.enable(file=sys.stderr)  # a crash prints the snippet line it died on
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"):  # so does a fatal signal sent to it
        faulthandler.register(getattr(signal, name), file=sys.stderr, chain=True)


def prepare(target: str, module: str, library: LibrarySpec, preloads: tuple[str, ...] = (),
            runtime_site: bool = False, freeze: bool = False) -> Prepared:
    """Activate the target and load the runtime (once per process), then import the target module
    (once per module: a CPU zygote serves every module of its target, importing each on first use).

    `module` is imported only when it is a module of the library's own package, and kept only when
    its file lies in the target: nothing an entry names runs outside the check's jail otherwise.
    `preloads` names extra library modules or attributes the snippets import, so a zygote's
    children find them loaded. `runtime_site` (an entry's `source.runtime`): `module` is instead a module of
    the runtime's packages, kept only when its file lies in them.

    The cyclic collector is off meanwhile (`_uncollected`); `freeze` (a fresh check's process, a zygote): what
    was loaded is then frozen before it is back on (`gc.freeze`), as a zygote's forked checks find it.
    """
    key = (target, module, runtime_site)
    if key in _prepared:
        return _prepared[key]
    with _uncollected(freeze):
        return _prepare(key, library, preloads)


@contextlib.contextmanager
def _uncollected(freeze: bool = False) -> Iterator[None]:
    """The cyclic collector off while the runtime and the target are imported (a thousand modules: each
    collection walks every object made so far, 4% of a fresh check's CPU), and back as it was before
    anything of the snippet's runs.

    `freeze`: what was loaded goes to the collector's permanent generation first (`gc.freeze`), where a zygote's
    checks find it (`observer.freeze_walked`); else the collections that follow (the observer's copies before the
    snippet, the snippet's own) walk the runtime's half a million objects again and again, through every
    generation: 0.5 s of CPU in a fresh check's set-up (`benchmarks/fresh_check_collector.py`). The observer
    walks frozen objects as it walks the others (`observer._every_binder`); a cycle the imports left as garbage is
    frozen with them, never freed in the check, as in a zygote's."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def _prepare(key: tuple[str, str, bool], library: LibrarySpec, preloads: tuple[str, ...]) -> Prepared:
    target, module, runtime_site = key
    base = _activated.get(target)
    if base is None:
        try:
            runtime = runtime_for(library.runtime)
            activate(target, library)  # never twice: the bundled target would be imported anew
            base = Prepared(runtime, runtime.load(), library)  # after activate: one import order on both targets
        except Exception as error:  # the target itself is broken or absent: say so, precisely
            base = Prepared(error=f"{type(error).__name__}: {error}")
        _activated[target] = base
    if base.error is not None:
        _prepared[key] = base
        return base
    packages = tuple(base.runtime.packages) if base.runtime is not None else ()
    refused = module_problem(module, library.name) if not runtime_site else \
        None if runtime_module(module, packages) else \
        f"'{module}' is not a module of the runtime's package ({', '.join(packages) or 'none'})"
    if refused is not None:
        _prepared[key] = Prepared(error=f"source.module {refused}")
        return _prepared[key]
    try:
        loaded = importlib.import_module(module)
        outside = module_outside_target(module, runtime_roots(packages) if runtime_site
                                        else target_roots(target, library))
        if outside is not None:
            _prepared[key] = Prepared(error=f"source.module {outside}")
            return _prepared[key]
        for name in preloads:
            if module_problem(name.split(":")[0], library.name) is None:
                preload(name)
                if ":" not in name and name not in _served.setdefault(target, []):
                    _served[target].append(name)
        rebound_globals(loaded)  # here, in the zygote, once
        assert base.runtime is not None
        _machine(base.runtime, base.loaded, library)
        _prepared[key] = base
    except Exception as error:  # a module this release does not have (Mamba before 4.39), or a broken one
        _prepared[key] = Prepared(error=f"{type(error).__name__}: {error}")
    return _prepared[key]


def is_prepared(target: str, module: str, runtime_site: bool = False) -> bool:
    return (target, module, runtime_site) in _prepared


def runtime_preloads(target: str, module: str, library: LibrarySpec, runtime_site: bool = False) -> list[str]:
    """What the runtime wants preloaded for the target module's source (see the plug).

    A CPU zygote (the only process that asks, right after `prepare`) is also given the modules of the
    library it will serve as preloads (`pool.WorkerPool`): each is prepared here as a check of it would be,
    and what the runtime wants for its source is added, so that the zygote copies the namespaces
    (`snapshot_python`) once, with every module loaded, instead of once more before the first check of each
    module (a walk of every object the interpreter holds: 0.4-1.2 s each, with nothing new to find when the
    module was already loaded). A module that cannot be prepared fails its own checks, as it would have."""
    names = _runtime_preloads(target, module, library, runtime_site)
    if not runtime_site:
        for served in _served.get(target, []):
            if served != module and not is_prepared(target, served):
                names += [name for name in _runtime_preloads(target, served, library, False) if name not in names]
    return names


def _runtime_preloads(target: str, module: str, library: LibrarySpec, runtime_site: bool) -> list[str]:
    prepared = prepare(target, module, library, runtime_site=runtime_site)
    loaded = sys.modules.get(module)
    if prepared.error is not None or prepared.runtime is None or loaded is None:
        return []
    try:
        text = Path(loaded.__file__ or "").read_text(encoding="utf-8")
    except (OSError, TypeError):
        return []
    return prepared.runtime.preload_names(text)


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


# -- observing ----------------------------------------------------------------------------------


def observe(spec: CheckSpec, sealer: Any, fresh: bool = False) -> None:
    started = time.perf_counter()
    sha256 = hashlib.sha256(spec.source).hexdigest()
    prepared = prepare(spec.target, spec.module, spec.library, spec.preload, spec.runtime_site, freeze=fresh)
    if prepared.error is not None or prepared.runtime is None or prepared.library is None:
        early_end(spec, sealer, sha256, "setup-failed", error=prepared.error)
    if (visible := still_present(spec.absent, spec.absent_modules)) is not None:
        early_end(spec, sealer, sha256, "setup-failed", error=visible)
    runtime: Runtime = prepared.runtime
    library: LibrarySpec = prepared.library
    env = environment(runtime, prepared.loaded, library, spec.device)
    if not runtime.device_available(prepared.loaded, spec.device):
        early_end(spec, sealer, sha256, "no-device", environment=env)
    roots = target_roots(spec.target, library)
    # Where a watched function's code must lie: the target's, or for a runtime site the runtime's packages.
    watched_roots = runtime_roots(runtime.packages) if spec.runtime_site else roots
    labels = [spec.function, *[name for name in spec.functions if name != spec.function]]
    resolved = {label: resolve(spec.module, label) for label in labels}
    # A removed name's or a changed signature's before needs no replacement to exist: it shows the old call.
    if resolved[spec.function] is None and not (spec.api and spec.role == "before"):
        early_end(spec, sealer, sha256, "no-function", environment=env,
                  error=f"{spec.function} is not defined in {spec.module}")
    for label, found in list(resolved.items()):  # a watched function is the library's code, or nothing is watched
        if found is not None and not found[3].co_filename.startswith(tuple(watched_roots)):
            if label != spec.function:  # another wording's, generated here (4.38-4.43's dataclass Cache.__init__):
                resolved[label] = None  # unwatched, so that wording cannot be the one that matched
                continue
            early_end(spec, sealer, sha256, "no-function", environment=env,
                      error=f"{label} in {spec.module} is not the library's code (its code comes from "
                            f"{found[3].co_filename}): the verifier watches only functions of the target")
    snippet = Path(spec.snippet)
    try:
        code = compile(spec.source, str(snippet), "exec")
    except (SyntaxError, ValueError) as error:
        early_end(spec, sealer, sha256, "syntax-error", slots=[[spec.function, "function"]], environment=env,
                  exception={
            "type": type(error).__name__, "message": getattr(error, "msg", str(error)),
            "snippet_line": getattr(error, "lineno", None), "snippet_col": getattr(error, "offset", None)})
    owner = identity.resolve_owner(spec.api.owner) if spec.api else None  # before the snippet can touch it
    config = observer_config(spec, library, runtime, prepared.loaded, resolved, roots, owner, sha256, code)
    config["sealer"] = sealer
    del sealer
    context = {"snippet": str(snippet), "roots": roots, "own": identity.code_objects(code), "environment": env,
               "runtime": runtime, "runtime_module": prepared.loaded, "device": spec.device, "started": started}
    execute(code, snippet, config, context, spec.cpu_seconds)


def python_roots() -> tuple[list[str], list[str]]:
    """Python's own library (its files, and its frozen modules: `<frozen os>`) and the installed packages'
    folders: trusted for every check (`observer_config`), and what the zygote copies once (`snapshot_trusted`)."""
    stdlib = sorted({sysconfig.get_paths()[name] + "/" for name in ("stdlib", "platstdlib")} | {"<frozen "})
    site = sorted({sysconfig.get_paths()[name] + "/" for name in ("purelib", "platlib")}
                  | {path + "/" for path in sys.path if path.endswith("site-packages")})
    return stdlib, site


def snapshot_python() -> None:
    """In a zygote, before it forks a check: copy the namespaces of Python's library, the installed packages and the
    verifier, and every class made so far, once (`observer.snapshot_trusted`); each check copies again only what
    its set-up made or wrote."""
    stdlib, site = python_roots()
    verifier = [str(Path(observer.__file__).resolve().parents[2]) + "/", str(Path(observer.__file__).parents[2]) + "/"]
    observer.snapshot_trusted(tuple([*stdlib, *site, *verifier]), binders=True)
    observer._reader_modules(stdlib)  # walked here once, for the checks to reuse (`observer._reader_modules`)


def observer_config(spec: CheckSpec, library: LibrarySpec, runtime: Runtime, runtime_module: Any,
                    resolved: dict[str, tuple[object, str, object, CodeType] | None], roots: list[str],
                    owner: Any, sha256: str, code: CodeType) -> dict[str, Any]:
    """Everything the observer needs, found before the snippet runs; `observer.install` copies it."""
    module = sys.modules[spec.module]
    slots = [slot(label, found) for label, found in resolved.items() if found is not None]
    api = spec.api
    if api and spec.kind == "removed":
        old = _old_api(owner, api.name)
        if old is not None:
            slots.append(slot(f"{api.owner}.{api.name}", old, label_kind="old"))
    watched = [sys.modules.get(name) for name in {spec.module, library.name}]
    spaces = _spaces([m for m in watched if m is not None])
    # The standard library's files, and its frozen modules (`<frozen os>`: an installed 3.11 runs
    # os, importlib and others frozen); the snippet compiling code under either name is tampering.
    stdlib, site = python_roots()
    verifier = [str(Path(observer.__file__).resolve().parents[2]) + "/", str(Path(observer.__file__).parents[2]) + "/"]
    # The profile's backends (optimum.quanto): code the library itself calls, found here, before the
    # snippet runs and before its folder goes on the path, so a module of the snippet's named like
    # one is never theirs.
    backends = backend_roots(library)
    trusted = tuple(dict.fromkeys([*stdlib, *site, *roots, *backends, *verifier]))
    # Where an error may start *under* the function and still be the function's: the target, the runtime's
    # packages, the profile's backends, and Python's own library, which the observer tells from the packages
    # installed below its folders (`observer._p_in_stdlib`), so it is no root here. Protected too: code the
    # snippet compiles under those names is tampering.
    beneath = tuple(dict.fromkeys([*roots, *_package_roots(runtime.packages), *backends]))
    protected = tuple(dict.fromkeys([*roots, *stdlib, *verifier, *beneath]))
    restore = [(name, vars(sys.modules[name]), dict(vars(sys.modules[name])))
               for name in _RESTORED if name in sys.modules]
    return {
        "fd": spec.stream_fd, "sha256": sha256, "device": spec.device,
        "slots": slots,
        "init_codes": _init_codes(module, roots), "spaces": spaces,
        "owners": [(s["label"], s["owner"], s["name"], s["raw"]) for s in slots if s["kind"] == "function"],
        "sys_modules": [(name, sys.modules[name]) for name in {spec.module, library.name} if name in sys.modules],
        "snippet_roots": tuple(dict.fromkeys(f"{folder}/" for folder in (Path(spec.snippet).parent,
                                                                           Path(spec.snippet).parent.resolve()))),
        "restore": restore, "target_roots": roots, "trusted_roots": trusted, "stdlib_roots": stdlib,
        "site_roots": tuple(site),
        "protected_roots": protected, "beneath_roots": beneath, "opnames": tuple(dis.opname),
        "probe": runtime.device_probe(runtime_module, spec.device),
        "held": runtime.held_state(runtime_module),
        "api": _api_config(api.name if api else None, spec.kind, owner, roots, code, spec.source),
        "callbacks": spec.callbacks,
        "enders": [finish.__code__, _recording_exit_code()],
        "end_callers": [execute.__code__],  # the only code that may call `finish` (`observer._p_on_end`)
        "snippet_code": code,  # the snippet's own run: its end is the outcome's
    }


def backend_roots(library: LibrarySpec) -> list[str]:
    """The folders of the profile's backends (`_package_roots`): a zygote asks once before it forks
    (`zygote._snapshot`), since asking imports their parent package."""
    return _package_roots(tuple(library.backends))


def _package_roots(names: tuple[str, ...]) -> list[str]:
    """The folders of these packages (the runtime's), as found and resolved, each ending in a slash."""
    return [f"{path}/" for name in names for folder in package_dirs(name) for path in (folder, folder.resolve())]


def slot(label: str, found: tuple[object, str, object, CodeType], label_kind: str = "function") -> dict[str, Any]:
    """One watched function: its code object, where it lives, and what its code reads."""
    owner, name, raw, code = found
    function = _plain_function(raw)
    globals_ = function.__globals__ if function is not None else {}
    normal = [ins.offset for ins in dis.get_instructions(code) if ins.opname in _RETURNS]
    # `function_code`: the function object's own code, which stays `code` unless `code` is nested in it.
    return {"label": label, "kind": label_kind, "code": code, "function": function, "owner": owner, "name": name,
            "function_code": function.__code__ if function is not None else None,
            "raw": raw, "globals": globals_, "reads": _reads(code, globals_), "normal": normal,
            "ops": code.co_code, "defaults": function.__defaults__ if function else None,
            "kwdefaults": function.__kwdefaults__ if function else None}


def _plain_function(raw: object) -> types.FunctionType | None:
    function = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
    function = function.fget if isinstance(function, property) else function
    function = inspect.unwrap(function) if callable(function) else None
    return function if isinstance(function, types.FunctionType) else None


def _reads(code: CodeType, globals_: dict[str, Any]) -> list[tuple[dict[str, Any], str, object, str]]:
    """(namespace, name, value, label) of what the function's code reads: its globals, the builtins,
    and the attributes of the modules it reads through a global (`lib.zeros` through `lib`)."""
    names: set[str] = set()
    for each in identity.code_objects(code):
        names.update(each.co_names)
    found: list[tuple[dict[str, Any], str, object, str]] = []
    module_name = globals_.get("__name__", "?")
    space_builtins = vars(builtins)
    for name in sorted(names):
        if name in globals_:
            value = globals_[name]
            found.append((globals_, name, value, f"{module_name}.{name}"))
            # A plain module only: a lazily loading package (the library's own `_LazyModule`) fills its
            # namespace as its submodules load, which is not tampering; its submodules are plain ones.
            if type(value) is types.ModuleType:
                inner = vars(value)
                found += [(inner, attribute, inner[attribute], f"{value.__name__}.{attribute}")
                          for attribute in sorted(names) if attribute in inner]
        elif name in space_builtins:
            found.append((space_builtins, name, space_builtins[name], f"builtins.{name}"))
    return found


def _init_codes(module: types.ModuleType, roots: list[str]) -> dict[CodeType, Any]:
    """`__init__` code of each class the target module defines → a reader of its instances' `__dict__`
    (the descriptor of the first class in its MRO that has one: a subclass cannot override it)."""
    found: dict[CodeType, Any] = {}
    for value in list(vars(module).values()):
        if not isinstance(value, type) or value.__module__ != module.__name__:
            continue
        init = vars(value).get("__init__")
        if not isinstance(init, types.FunctionType) or not init.__code__.co_filename.startswith(tuple(roots)):
            continue
        getter = next((vars(klass)["__dict__"] for klass in value.__mro__ if "__dict__" in vars(klass)), None)
        if getter is not None and hasattr(getter, "__get__"):
            found[init.__code__] = getter.__get__
    return found


def _spaces(modules: list[types.ModuleType]) -> list[tuple[str, object, dict[str, Any], bool, frozenset[str]]]:
    """The library's namespaces whose names must not change: the modules and the classes they define,
    whether new names may appear (a lazily loading package binds its exports as they load), and the
    module globals the library's own functions rebind (`global _causal_conv1d_cache`, a lazily
    filled kernel cache in 4.57's Mamba): those may change to plain data or the library's functions."""
    spaces: list[tuple[str, object, dict[str, Any], bool, frozenset[str]]] = []
    for module in modules:
        spaces.append((module.__name__, module, dict(vars(module)), type(module) is not types.ModuleType,
                       rebound_globals(module)))
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                spaces.append((f"{module.__name__}.{value.__qualname__}", value, dict(vars(value)), False,
                               frozenset()))
    return spaces


_STORES = frozenset({dis.opmap["STORE_GLOBAL"], dis.opmap["DELETE_GLOBAL"]})


@functools.cache
def rebound_globals(module: types.ModuleType) -> frozenset[str]:
    """Names the module's own functions and methods assign with `global` (read once per process:
    the zygote reads them for every check it forks)."""
    codes: list[CodeType] = []
    for value in list(vars(module).values()):
        members = list(vars(value).values()) if isinstance(value, type) and value.__module__ == module.__name__ \
            else [value]
        for member in members:
            function = _plain_function(member)
            if function is not None and function.__module__ == module.__name__:
                codes += identity.code_objects(function.__code__)
    names: set[str] = set()
    for code in codes:
        if any(op in _STORES for op in code.co_code[::2]):
            names.update(ins.argval for ins in dis.get_instructions(code) if ins.opcode in _STORES)
    return frozenset(names)


def _api_config(name: str | None, kind: str | None, owner: Any, roots: list[str],
                code: CodeType, source: bytes) -> dict[str, Any] | None:
    """For a removed name or a changed signature, everything decided before the snippet runs, against
    the library as it is before anyone touched it: the owner and the name; whether the name is absent
    (`absent`: a snippet deleting it around one access proves nothing); what a genuine refusal looks
    like (the owner's own `__getattr__`, the refused function's qualified name, defaults and code); and
    which object each of the snippet's calls calls (`identity.call_sites`)."""
    if not name:
        return None
    function = inspect.getattr_static(owner, name, None) if owner is not None else None
    function = getattr(function, "__func__", function)
    getattrs = []
    for klass in owner.__mro__ if isinstance(owner, type) else ():
        hook = vars(klass).get("__getattr__")
        if isinstance(hook, types.FunctionType):
            getattrs.append(hook.__code__)
    wrappers = _wrappers(function, roots) if kind == "signature" else []
    refused = wrappers[-1][3] if wrappers else function  # the function whose call does not bind
    plain = refused if isinstance(refused, types.FunctionType) else None
    return {"owner": owner, "name": name, "kind": kind, "qualname": getattr(refused, "__qualname__", None),
            "function": function, "getattr_codes": getattrs, "wrappers": wrappers, "absent": _absent(owner, name),
            "refused": plain, "binding": _binding(plain), "call_sites": identity.call_sites(code, source)}


def _absent(owner: Any, name: str) -> bool:
    """Whether the library's `owner` has no `name`, asked of the library as it is before the snippet runs
    (a lazily loading package is asked through its own `__getattr__`: its exports count)."""
    if owner is None:
        return False
    if isinstance(owner, types.ModuleType):
        return name not in vars(owner) and identity.resolve_owner(f"{owner.__name__}.{name}") is None
    return inspect.getattr_static(owner, name, _MISSING) is _MISSING


def _binding(function: types.FunctionType | None) -> tuple[Any, ...] | None:
    """What decides whether a call of `function` binds: its code, defaults and keyword defaults."""
    if function is None:
        return None
    return (function.__code__, function.__defaults__, function.__kwdefaults__)


_MISSING = object()


def _wrappers(function: Any, roots: list[str]) -> list[tuple[CodeType, str, Any, Any]]:
    """The library's own decorator wrappers around a function (`functools.wraps`, as 4.45's
    `deprecate_kwarg` puts around `DynamicCache.__init__`): (wrapper code, name of the closure variable
    that holds the wrapped function, that cell, the wrapped function), outermost first, resolved now.
    A call that no longer binds is then refused inside the wrapper, at its call of the real function."""
    found = []
    while isinstance(function, types.FunctionType) and function.__code__.co_filename.startswith(tuple(roots)):
        inner = vars(function).get("__wrapped__")
        cells = dict(zip(function.__code__.co_freevars, function.__closure__ or (), strict=True))
        held = [name for name, cell in cells.items() if _cell_value(cell) is inner]
        if not isinstance(inner, types.FunctionType) or len(held) != 1:
            break
        found.append((function.__code__, held[0], cells[held[0]], inner))
        function = inner
    return found


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _old_api(owner: Any, name: str) -> tuple[object, str, object, CodeType] | None:
    """A removed name where it still exists (a method, property or function), as `resolve` gives it."""
    value = inspect.getattr_static(owner, name, None) if owner is not None else None
    function = _plain_function(value) if value is not None else None
    return (owner, name, value, function.__code__) if function is not None else None


def environment(runtime: Runtime, module: Any, library: LibrarySpec, device: str) -> dict[str, Any]:
    """What this check ran on; the report keeps it beside every verdict."""
    env = dict(_machine(runtime, module, library), device=device)
    if device != "cpu":
        env["device_name"] = None  # filled at the end, once the check used the device
    return env


def _machine(runtime: Runtime, module: Any, library: LibrarySpec) -> dict[str, Any]:
    """The part of `environment` every check of a process shares, read once (in the zygote: reading
    the package metadata and asking `uname` cost a fork-started check 25 ms each time)."""
    key = (id(runtime), id(module), library.dist)
    if key in _machines:
        return _machines[key]
    import platform

    env: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(terse=True),
                           **runtime.environment(module), "library": library.name}
    try:
        env["library_version"] = importlib.metadata.version(library.dist)
    except importlib.metadata.PackageNotFoundError:
        env["library_version"] = None
    loaded = sys.modules.get(library.name)
    if loaded is not None and getattr(loaded, "__version__", None):
        env["library_version"] = loaded.__version__  # the bundled target says which release it reproduces
    _machines[key] = env
    return env


_machines: dict[tuple[int, int, str], dict[str, Any]] = {}


def resolve(module_name: str, qualname: str) -> tuple[object, str, object, CodeType] | None:
    """(owner, attribute, raw attribute, code object) of `module.qualname`, or None."""
    try:
        owner: object = importlib.import_module(module_name)
    except Exception:
        return None
    outer, nested, _ = qualname.partition(".<locals>.")
    parts = outer.split(".")
    for part in parts[:-1]:
        owner = inspect.getattr_static(owner, part, None)
        if owner is None:
            return None
    raw = inspect.getattr_static(owner, parts[-1], None)
    function = _plain_function(raw)
    if function is None:
        return None
    if not nested:
        return owner, parts[-1], raw, function.__code__
    # A nested function (`f.<locals>.g`) has no object before `f` runs: its code, a constant of the
    # enclosing function's code, is what is watched; the enclosing function is the object (its place
    # in the module, its code and globals) that the tamper checks hold, as they hold a method's.
    code = _nested_code(function.__code__, qualname)
    return (owner, parts[-1], raw, code) if code is not None else None


def _nested_code(code: CodeType, qualname: str) -> CodeType | None:
    """The code object named `qualname` among the constants of `code` and of the code nested in it."""
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            if constant.co_qualname == qualname:
                return constant
            if qualname.startswith(constant.co_qualname + ".<locals>."):
                return _nested_code(constant, qualname)
    return None


def early_end(spec: CheckSpec, sealer: Any, sha256: str, status: str, slots: list[list[str]] | None = None,
              **facts: Any) -> NoReturn:
    """Before any snippet code ran: a stream of its own, one start and one end, sealed, then exit 0."""
    pid = os.getpid()
    slots = slots or []
    lines = [{"e": "start", "n": 0, "p": pid, "sha256": sha256, "slots": slots},
             {"e": "end", "n": 1, "p": pid, "status": status, "described": facts, "counts": [[0, 0]] * len(slots),
              "running": [0] * len(slots), "unwound": [0] * len(slots), "faults": 0}]
    data = b"".join(seal.seal(sealer, json.dumps(line).encode("ascii")) for line in lines)
    try:
        while data:
            data = data[os.write(spec.stream_fd, data):]
    except OSError:
        pass
    _flush()
    _real_exit(0)


def execute(code: CodeType, snippet: Path, config: dict[str, Any], context: dict[str, Any],
            cpu_seconds: float | None = None) -> NoReturn:
    """Run the snippet's bytes as `__main__`, then `finish` with how it ended. Never returns.

    The check's time limit starts here: `cpu_seconds` of CPU time from now, for the process (every
    thread of it); SIGXCPU when they are spent, SIGKILL two seconds later if the snippet caught it.
    """
    namespace = {"__name__": "__main__", "__file__": str(snippet), "__builtins__": builtins}
    sys.argv = [str(snippet)]
    source_only(snippet.parent)
    sys.path.insert(0, str(snippet.parent))
    os._exit = _recording_exit(context)
    if cpu_seconds is not None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(usage.ru_utime + usage.ru_stime + cpu_seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
    observer.install(config)
    del config
    try:
        exec(code, namespace)
    except SystemExit as error:
        finish("sys-exit", error, _exit_code(error.code), context)
    except BaseException as error:  # every outcome is evidence
        finish("raised", error, None, context)
    finish("returned", None, None, context)
    _real_exit(70)  # not reached


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles a snippet folder's module from its source, every time: never reads its `__pycache__`
    (bytecode compiled with an unchecked hash runs without a look at the source) and never writes one."""

    def get_code(self, fullname: str) -> CodeType:
        return self.source_to_code(self.get_data(self.path), self.path)


def source_only(folder: Path) -> None:
    """Imports from the snippet's folder (and the folders under it) find `.py` sources only, compiled as they
    are read: no bytecode (a `.pyc` planted after the loader checked the folder), no extension module. A
    path hook of its own, asked first and for those folders alone: the library, the runtime and Python
    keep their own bytecode (a global `PYTHONPYCACHEPREFIX` would make each check compile them anew)."""
    root = os.path.realpath(folder)
    make = importlib.machinery.FileFinder.path_hook((_SourceLoader, importlib.machinery.SOURCE_SUFFIXES))

    def hook(path: str) -> Any:
        where = os.path.realpath(path or ".")
        if where != root and not where.startswith(root.rstrip("/") + "/"):
            raise ImportError("not the snippet's folder")
        return make(path)

    sys.path_hooks.insert(0, hook)
    for path in list(sys.path_importer_cache):  # a finder made before (the current folder's) reads bytecode
        where = os.path.realpath(path or ".")
        if where == root or where.startswith(root.rstrip("/") + "/"):
            del sys.path_importer_cache[path]


def _recording_exit(context: dict[str, Any]) -> Any:
    def recording_exit(status: int = 0) -> None:
        """os._exit skips every handler: the end is recorded, with the snippet line, before leaving."""
        frame: FrameType | None = sys._getframe(1)
        line = None
        while frame is not None and line is None:
            line = frame.f_lineno if frame.f_code.co_filename == context["snippet"] else None
            frame = frame.f_back
        _audit(observer.RESTORE_EVENT)
        description = describe_end(None, dict(context, line=line))
        _audit(observer.END_EVENT, "os-exit", None, description, status)
        _real_exit(70)  # only if the observer refused to end

    return recording_exit


def _recording_exit_code() -> CodeType:
    code: CodeType = _recording_exit({}).__code__
    return code


def finish(status: str, error: BaseException | None, exit_code: int | str | None, context: dict[str, Any]) -> None:
    """The harness's end: restore, describe, and let the observer end the process."""
    _audit(observer.RESTORE_EVENT)
    description = describe_end(error, context)
    _audit(observer.END_EVENT, status, error, description, exit_code)
    _real_exit(70)  # only if the observer refused to end


def describe_end(error: BaseException | None, context: dict[str, Any]) -> dict[str, Any]:
    """What people read about the outcome, as plain data; the judge's facts come from the observer."""
    _flush()
    exception = describe(error, context["snippet"], context["roots"], context["own"]) if error is not None else None
    if exception is None and context.get("line") is not None:
        exception = {"type": "os._exit", "snippet_line": context["line"]}
    env = dict(context["environment"])
    runtime: Runtime = context["runtime"]
    try:
        name = runtime.device_name(runtime.evidence(context["runtime_module"], context["device"]))
    except Exception:  # a device that broke is still an outcome
        name = None
    if name:
        env["device_name"] = name
    return {"exception": exception, "environment": env,
            "duration_s": round(time.perf_counter() - context["started"], 4)}


def _flush() -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # output may be over its cap; the observation still counts
        pass


def _exit_code(code: object) -> int | str | None:
    return code if isinstance(code, int | None) else str(code)


def describe(error: BaseException, snippet: str, roots: list[str], own: set[CodeType]) -> dict[str, Any]:
    """The exception for people: its text and traceback (which may run the snippet's own code, so
    they come first), then where it was raised, read from the traceback's frames alone."""
    message = _message(error)
    text = _traceback_text(error, snippet)
    tb = BaseException.__dict__["__traceback__"].__get__(error)
    frames = _frames(tb)
    in_target = [f for f in frames if any(f["file"].startswith(root) for root in roots)]
    in_snippet = [f for f in frames if f["file"] == snippet]
    frame, opcode = identity.innermost(tb)
    kind = type(error)
    return {"type": _type_name(kind), "qualified_type": f"{_type_module(kind)}.{_type_qualname(kind)}",
            "message": message, "raise_site": in_target[-1] if in_target else None,
            "origin": frames[-1] if frames else None, "opcode": opcode,
            "in_snippet": frame is not None and frame.f_code in own,
            "snippet_line": in_snippet[-1]["line"] if in_snippet else None, "traceback": text}


def _frames(tb: TracebackType | None) -> list[dict[str, Any]]:
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        module = tb.tb_frame.f_globals.get("__name__")
        frames.append({"file": code.co_filename, "function": code.co_qualname, "line": tb.tb_lineno,
                       "module": module if type(module) is str else None})
        tb = tb.tb_next
    return frames


def _traceback_text(error: BaseException, snippet: str) -> str:
    """The traceback a user would see, starting at their snippet (our harness frames dropped)."""
    try:
        lines = traceback.format_exception(error)
        snippet_at = next((i for i, line in enumerate(lines) if f'File "{snippet}"' in line), None)
        body = lines[snippet_at:] if snippet_at is not None else lines[1:]
        return str.__str__("Traceback (most recent call last):\n" + "".join(body))
    except BaseException as inner:  # a broken exception is still an outcome
        return f"<traceback unavailable: {type(inner).__name__}>"


def _message(error: BaseException, cap: int = 20_000) -> str:
    try:
        text = str.__str__(str(error))
    except BaseException as inner:  # a broken __str__ is still an outcome
        return f"<unprintable {_type_name(type(error))}: {_type_name(type(inner))}>"
    return text if len(text) <= cap else text[:cap] + f"... <{len(text) - cap} more characters>"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

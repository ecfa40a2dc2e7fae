"""Runtime plugs: what the verifier needs to know about the runtime snippets run on.

A knowledge base names its runtime in `[tool.errorkb.library] runtime`; `runtime_for(name)`
returns the plug registered under that name in the `errorkb.plugs` entry point group. A plug
answers two kinds of question:

- in the harness, cheaply and without importing the runtime: which device kinds exist, whether
  this machine has one (`device_present`), the runtime's version and build, the environment a
  check on a device must start with (`device_env`: a CPU check sees no GPU), and the device files
  a sandbox must show a check on that device (`device_files`: nodes, read-only folders), and
  whether its driver needs `/proc` (`needs_proc`: a check on the CPU has none);
- in the check's own process, after importing it (`load`): whether the device is usable, the
  environment to report, the submodules worth preloading in a warm worker, whether preloading
  touched a device (a forked child could not use it), and how the verifier's observer reads the
  device's work (`device_probe`: the runtime's own C functions, which nothing the snippet can
  rebind stands between, read at the start and the end of every call of the function under
  test; `device_used` judges the total; `object_device_used` the narrower claim, the library's own work on
  the object the function was called on), and where the runtime keeps callables it calls from its own
  C code (`held_state`: a mode stack, a hook registry), which no object a frame holds leads to, so the
  observer's planted search starts there too. `evidence` and `device_name` are for people.

Nothing outside this package, the profile in pyproject.toml and the bundled implementation
names a particular runtime.
"""

from __future__ import annotations

import importlib
import os
import types
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

_BUILTINS = (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType)


class DeviceProbe(NamedTuple):
    """How the observer reads a counter of device work that only real work increases (bytes ever
    allocated on the device): when no `ready` gate (a C function and its arguments) answers true,
    nothing ran on the device yet (reads 0); else the sum over `reads` of `read(*args)` followed down
    the dict keys of `path`, and a read that fails is no evidence (None), never 0. Every callable is a
    C function of the runtime (checked: `probe`), so the snippet cannot stand between."""

    ready: tuple[tuple[Callable[..., object], tuple[Any, ...]], ...]
    reads: tuple[tuple[Callable[..., object], tuple[Any, ...], tuple[str, ...]], ...]


def probe(ready: list[tuple[Callable[..., object], tuple[Any, ...]]],
          reads: list[tuple[Callable[..., object], tuple[Any, ...], tuple[str, ...]]]) -> DeviceProbe | None:
    """A `DeviceProbe` of C functions only; None when any is not one, or a list is empty (then no device work
    can be proven)."""
    callables = [gate for gate, _ in ready] + [read for read, _, _ in reads]
    if not ready or not reads or any(not isinstance(each, _BUILTINS) for each in callables):
        return None
    return DeviceProbe(tuple((gate, tuple(args)) for gate, args in ready),
                       tuple((read, tuple(args), tuple(path)) for read, args, path in reads))


class HeldState(NamedTuple):
    """Where the runtime keeps what its C code calls while a snippet's function runs, out of reach of every object
    a frame holds: the observer's planted search starts from these too. `stacks`: (length, item at) pairs of C
    functions (a mode stack: `at(i)` for i below `length()`); `reads`: a C function and its arguments, each giving
    one object (or None); `held`: the runtime's own containers (a hook registry's dict), taken before any snippet;
    `opaque`: classes whose instances keep what no traversal lists (an exception held by C++), which the search
    reads as possibly holding one; `registrars`: (class or module, name) of the runtime's C methods and functions that
    hand its C++ a callable to keep and call later, listing only names afterwards (a dispatcher's kernel registration,
    an operator's callback for a missing kernel), which the observer stands in for before the snippet runs, keeping what
    each is handed for the search; `frame_hooks`: (module,
    function name) of the runtime's C functions that install a callable the runtime then hands every frame the thread
    starts (a frame-evaluation hook, the observer's own frames among them), which the observer stands in for too,
    refusing a callable; `rebinders`: (file, function name) of the runtime's Python code that, while it runs, binds
    names of trusted modules to objects it makes (an export binding `builtins.max` to a partial of its own), whose
    frames the observer follows to tell what that code bound from what the snippet did; `records`: classes whose
    instances are the records of the runtime's own C functions (pybind11's `function_record`), made by its C++ alone
    (Python cannot make one), so a C function bound to one is the runtime's, whenever it was made, never a C method
    bound to data the snippet chose; `runners`: (module or class, name) of the runtime's C functions that make a program
    or an agent that runs Python later in threads of the runtime's own, where no tracer was ever installed (a compiler
    whose program forks onto the runtime's thread pool and calls a function it left to Python there; an agent whose
    threads run the Python it is sent, and its futures' callbacks), which the observer stands in for, refusing them to
    the snippet; `tables`: (root, levels, names) of the runtime's kernel tables, dicts its C++ looks a kernel up in and
calls what it finds there, with no frame holding it (an operator object's dispatch cache): the objects `root` holds
(a dict's values, or a module's or an object's own namespace's), and theirs, `levels` deep, each hold its tables in its
own namespace under `names`. Far too many to search whole, so the observer takes their identities and versions before
the snippet runs and searches only what was added or changed since. Every callable is a C function of the runtime
(`held_state`), so the snippet cannot stand between."""

    stacks: tuple[tuple[Callable[[], object], Callable[[int], object]], ...]
    reads: tuple[tuple[Callable[..., object], tuple[Any, ...]], ...]
    held: tuple[Any, ...]
    opaque: tuple[type, ...]
    registrars: tuple[tuple[Any, str], ...] = ()
    frame_hooks: tuple[tuple[Any, str], ...] = ()
    rebinders: tuple[tuple[str, str], ...] = ()
    records: tuple[type, ...] = ()
    runners: tuple[tuple[Any, str], ...] = ()
    tables: tuple[tuple[Any, int, tuple[str, ...]], ...] = ()


def held_state(stacks: list[tuple[Any, Any]], reads: list[tuple[Any, tuple[Any, ...]]], held: list[Any],
               opaque: list[Any], registrars: list[tuple[Any, str]] | None = None,
               frame_hooks: list[tuple[Any, str]] | None = None,
               rebinders: list[tuple[str, str]] | None = None, records: list[Any] | None = None,
               runners: list[tuple[Any, str]] | None = None,
               tables: list[tuple[Any, int, tuple[str, ...]]] | None = None) -> HeldState:
    """A `HeldState` of what exists: a stack or read whose callables are not all C functions is left out (it is not
    this runtime's release), as a container or class that is None, a registrar or runner its owner does not define as
    C code (a Python function there is traced where it runs), a rebinder whose file this release lacks, and a kernel
    table's root that is None."""
    return HeldState(
        tuple((length, at) for length, at in stacks if isinstance(length, _BUILTINS) and isinstance(at, _BUILTINS)),
        tuple((read, tuple(args)) for read, args in reads if isinstance(read, _BUILTINS)),
        tuple(value for value in held if value is not None),
        tuple(cls for cls in opaque if isinstance(cls, type)),
        tuple((owner, name) for owner, name in registrars or () if _c_owned(owner, name)),
        tuple((module, name) for module, name in frame_hooks or ()
              if isinstance(module, types.ModuleType) and isinstance(vars(module).get(name), _BUILTINS)),
        tuple((path, name) for path, name in rebinders or () if os.path.isfile(path)),
        tuple(cls for cls in records or () if isinstance(cls, type)),
        tuple((owner, name) for owner, name in runners or () if _c_owned(owner, name)),
        tuple((root, int(levels), tuple(names)) for root, levels, names in tables or () if root is not None))


def _c_owned(owner: Any, name: str) -> bool:
    """`name` is C code of `owner`'s own: a module's C function, or a method a class defines itself as C code."""
    return isinstance(owner, types.ModuleType) and isinstance(vars(owner).get(name), _BUILTINS) \
        or isinstance(owner, type) and _c_method(owner, name)


def _c_method(cls: type, name: str) -> bool:
    """`name` is defined by `cls` itself as C code (a builtin, a method descriptor, pybind11's `instancemethod`)."""
    method = vars(cls).get(name)
    return callable(method) and not isinstance(method, (types.FunctionType, types.MethodType, staticmethod,
                                                        classmethod))


class Runtime(Protocol):
    name: str
    devices: tuple[str, ...]  # device kinds, "cpu" first
    generic_messages: tuple[str, ...]  # templates the runtime words alike for every error of a kind
    packages: tuple[str, ...]  # its import packages (a sandbox binds their folders read-only)
    env_prefixes: tuple[str, ...]  # environment variables the runtime reads (passed into a sandbox)
    repository: str  # owner/name of its source repository, for a raise site in it (`source.runtime`)
    tag: str  # how that repository names a release's tag, e.g. 'v{release}'

    def version(self) -> str: ...
    def build(self) -> str: ...
    def device_present(self, device: str) -> bool: ...
    def child_env(self, device: str) -> dict[str, str]: ...
    def device_env(self, device: str) -> dict[str, str]: ...
    def device_files(self, device: str) -> tuple[list[str], list[str]]: ...
    def needs_proc(self, device: str) -> bool: ...

    def load(self) -> Any: ...
    def device_available(self, module: Any, device: str) -> bool: ...
    def environment(self, module: Any) -> dict[str, Any]: ...
    def preload_names(self, source_text: str) -> list[str]: ...
    def device_touched(self) -> bool: ...
    def evidence(self, module: Any, device: str) -> dict[str, Any] | None: ...
    def device_probe(self, module: Any, device: str) -> DeviceProbe | None: ...
    def held_state(self, module: Any) -> HeldState | None: ...
    def device_used(self, device: str, evidence: dict[str, Any] | None) -> bool: ...
    def object_device_used(self, device: str, evidence: dict[str, Any] | None) -> bool: ...
    def device_name(self, evidence: dict[str, Any] | None) -> str | None: ...


GROUP = "errorkb.plugs"  # the entry point group plugs register under: `name = "package.module:RUNTIME"`
_FOUND: dict[str, Runtime] = {}


def runtime_for(name: str) -> Runtime:
    """The plug registered as `name` under the `errorkb.plugs` entry point group (errorkb's own
    are registered there by its pyproject.toml; a knowledge base for another runtime installs a
    package that registers its own). Where errorkb's metadata is not visible (a release
    environment of the version matrix runs errorkb from its source folder), errorkb's own plugs,
    the modules of this package, are still found by name."""
    if name in _FOUND:
        return _FOUND[name]
    from importlib.metadata import entry_points

    point = next((one for one in entry_points(group=GROUP) if one.name == name), None)
    try:
        if point is not None:
            runtime: Runtime = point.load()
        elif name in _own():
            runtime = importlib.import_module(f"{__name__}.{name}").RUNTIME
        else:
            raise ValueError(f"unknown runtime {name!r}: no plug is registered under that name (entry point group "
                             f"{GROUP}; installed: {', '.join(sorted(available())) or 'none'})")
    except (ImportError, AttributeError) as error:
        raise ValueError(f"runtime {name!r}: its plug cannot be loaded ({error})") from None
    _FOUND[name] = runtime
    return runtime


def _own() -> set[str]:
    """errorkb's own plugs: the modules of this package."""
    import pkgutil

    return {module.name for module in pkgutil.iter_modules(__path__)}


def available() -> set[str]:
    """Names of the installed plugs."""
    from importlib.metadata import entry_points

    return {point.name for point in entry_points(group=GROUP)} | _own()


def cpu_name() -> str:
    """The CPU's model name, for reports; shared by the plugs."""
    import platform
    from pathlib import Path

    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()

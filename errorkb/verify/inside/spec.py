"""What the harness hands a check's process, typed: the one message that crosses into the sandbox.

The harness builds a `CheckSpec` from the entry, the snippet and the profile (`run.check_spec`),
sends it as JSON (a zygote's request, or a fresh interpreter's argument), and the check's process
reads it back with `CheckSpec.from_json`, which refuses anything that is not exactly this shape.
Standard library only: it is read where pydantic and the entry model are not imported.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

STREAM_FD = 3  # where the check's process finds the write end of its stream
KEY_FD = 4  # where it finds the one-shot channel its stream's key leaves by (closed before the snippet runs)


class SpecError(ValueError):
    """A spec that is not what the harness sends: the verifier's own bug, said as such."""


@dataclass(frozen=True)
class LibrarySpec:
    """What the check's process needs of the library profile."""

    name: str  # import name: `import <name>` resolves to the target
    dist: str  # its distribution, for the version the report states
    bundled: str | None  # import name of the bundled implementation (the `bundled` target)
    backends: tuple[str, ...] = ()  # imported before the bundled alias, with the library hidden
    runtime: str = "python"  # the runtime plug

    @classmethod
    def from_dict(cls, data: Any) -> LibrarySpec:
        if not isinstance(data, dict):
            raise SpecError("library: not an object")
        return _build(cls, data)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class ApiSpec:
    """A removed name's or a changed signature's `owner.name`."""

    owner: str
    name: str


@dataclass(frozen=True)
class CheckSpec:
    """One check, as its process sees it."""

    snippet: str  # the snippet's path (its folder goes first on sys.path; tracebacks name it)
    source: bytes  # the bytes to run, read once by the harness (never re-read from disk)
    target: str  # "bundled" or "upstream"
    device: str
    module: str  # the module that defines `function` (inside the library's package)
    function: str  # `source.function`, qualified within `module`
    functions: tuple[str, ...]  # every function a wording of the entry names, `function` first
    role: str  # "before", "after" or "guard:<file>"
    kind: str  # "raise", "removed" or "signature"
    library: LibrarySpec
    api: ApiSpec | None = None
    callbacks: bool = False  # the entry declares that the watched call runs the snippet's own code
    runtime_site: bool = False  # `source.runtime`: `module` and `function` are the runtime's, not the library's
    output_cap: int = 1 << 20
    memory_limit: int | None = None  # address space of the process, on CPU
    cpu_seconds: float | None = None  # CPU time of the process (the check's time limit)
    preload: tuple[str, ...] = field(default_factory=tuple)
    absent: tuple[str, ...] = ()  # distributions the sandbox hides (a `without:` need): confirmed gone first
    absent_modules: tuple[str, ...] = ()  # the import names they held
    stream_fd: int = STREAM_FD
    key_fd: int = KEY_FD

    def to_json(self) -> str:
        data = asdict(self)
        data["source"] = base64.b64encode(self.source).decode("ascii")
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> CheckSpec:
        try:
            data = json.loads(text)
        except ValueError as error:
            raise SpecError(f"not JSON: {error}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> CheckSpec:
        if not isinstance(data, dict):
            raise SpecError("not an object")
        data = dict(data)
        try:
            data["source"] = base64.b64decode(_typed(data, "source", str), validate=True)
        except ValueError as error:
            raise SpecError(f"source: {error}") from None
        data["library"] = LibrarySpec.from_dict(data.get("library"))
        api = data.get("api")
        data["api"] = _build(ApiSpec, api) if api is not None else None
        return _build(cls, data)  # type: ignore[no-any-return]


def _typed(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise SpecError(f"{name}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _build(cls: type, data: dict[str, Any]) -> Any:
    """`cls(**data)`, every field present (or defaulted) with its declared type; lists become tuples."""
    known = {item.name: item for item in fields(cls)}
    unknown = set(data) - set(known)
    if unknown:
        raise SpecError(f"{cls.__name__}: unknown fields {sorted(unknown)}")
    values = {}
    for name, item in known.items():
        if name not in data:
            continue
        value = data[name]
        if isinstance(value, list):
            value = tuple(value)
        if not _fits(value, str(item.type)):
            raise SpecError(f"{cls.__name__}.{name}: {type(value).__name__} does not fit {item.type}")
        values[name] = value
    try:
        return cls(**values)
    except TypeError as error:
        raise SpecError(f"{cls.__name__}: {error}") from None


_SIMPLE = {"str": str, "bytes": bytes, "bool": bool, "int": int, "float": (int, float), "None": type(None),
           "LibrarySpec": LibrarySpec, "ApiSpec": ApiSpec, "tuple[str, ...]": tuple}


def _fits(value: Any, annotation: str) -> bool:
    for part in annotation.split(" | "):
        kind = _SIMPLE.get(part)
        if kind is None:
            continue
        if part == "int" and isinstance(value, bool):
            continue
        if isinstance(value, kind):  # type: ignore[arg-type]
            return part != "tuple[str, ...]" or all(isinstance(item, str) for item in value)
    return False


@dataclass(frozen=True)
class ZygoteConfig:
    """What a zygote serves: one target on one device (one module of it, on a device other than the CPU)."""

    target: str
    device: str
    module: str
    library: LibrarySpec
    preload: tuple[str, ...] = ()
    jail: bool = False  # inside the sandbox: each check gets a jail of its own
    importers: tuple[str, ...] = ()  # forked from a stem: the modules that load its shared ones here
    runtime_site: bool = False  # `module` is the runtime's (an entry's `source.runtime`), on a device

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> ZygoteConfig:
        try:
            data = json.loads(text)
        except ValueError as error:
            raise SpecError(f"not JSON: {error}") from None
        if not isinstance(data, dict):
            raise SpecError("not an object")
        data["library"] = LibrarySpec.from_dict(data.get("library"))
        return _build(cls, data)  # type: ignore[no-any-return]

"""Facts about an exception that only identity can establish, gathered in the check's process.

Strings (file names, qualified names, messages) are the snippet's to forge; objects are not.
These functions look at what the interpreter left behind when the exception was raised:

- `innermost`   the innermost frame and the instruction it was running: an error raised by the
                interpreter (`LOAD_ATTR`, `IMPORT_FROM`, `CALL`...) is told apart from a `raise`
                statement that merely prints the same words;
- `code_objects`  every code object of the compiled snippet, to know a frame is the snippet's own;
- `resolve_owner` the library's `api.owner`, resolved before the snippet runs (so the snippet
                cannot swap it afterwards);
- `api_facts`   for a removed name or a changed signature: did the failure concern that owner (by
                identity: the very class or module object), that name, and is the name really gone?
"""

from __future__ import annotations

import dis
import importlib
import inspect
import re
import sys
from types import CodeType, FrameType, ModuleType, TracebackType
from typing import Any

from errorkb.verify.records import ApiFacts

ATTRIBUTE_OPS = {"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR"}
IMPORT_OPS = {"IMPORT_FROM", "IMPORT_NAME"}
CALL_OPS = {"CALL", "PRECALL", "CALL_FUNCTION_EX", "CALL_KW"}
_MISSING = object()
_CANNOT_IMPORT = re.compile(r"^cannot import name '([^']+)' from '([^']+)'")


def innermost(tb: TracebackType | None) -> tuple[FrameType | None, str | None]:
    """The innermost Python frame of a traceback and the name of the instruction it ran."""
    if tb is None:
        return None, None
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    return frame, _opname(frame.f_code, tb.tb_lasti)


def _opname(code: CodeType, offset: int) -> str | None:
    try:
        for instruction in dis.get_instructions(code):
            if instruction.offset == offset:
                return instruction.opname
    except Exception:  # an exotic code object: no opcode, so no interpreter-raised claim either
        return None
    return None


def code_objects(code: CodeType) -> set[CodeType]:
    """The module's code object and every function, class body and comprehension inside it."""
    found = {code}
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            found |= code_objects(constant)
    return found


def resolve_owner(path: str) -> Any:
    """The object at an import path such as `pkg.module.Class` (module, then attributes); None
    when it does not resolve."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:split]))
        except Exception:
            continue
        for name in parts[split:]:
            found = inspect.getattr_static(value, name, _MISSING)
            if found is _MISSING and isinstance(value, ModuleType):
                found = _lazy_attribute(value, name)  # a lazily loading package's export, not loaded yet
            if found is _MISSING:
                return None
            value = found
        return value
    return None


def _lazy_attribute(module: ModuleType, name: str) -> Any:
    """`module.name` through the module's own `__getattr__` (the library's lazy loader, run before the
    snippet); `_MISSING` when the module does not export it."""
    try:
        return getattr(module, name)
    except Exception:
        return _MISSING


def api_facts(error: BaseException, owner: Any, name: str, kind: str) -> ApiFacts:
    """What the failure concerned, by identity. `owner` is the resolved `api.owner`."""
    frame, opname = innermost(error.__traceback__)
    if kind == "signature":
        return _call_facts(error, frame, opname, owner, name)
    if isinstance(error, ImportError) and opname in IMPORT_OPS:
        return _import_facts(error, owner, name)
    if isinstance(error, AttributeError):
        if opname in ATTRIBUTE_OPS and getattr(error, "obj", None) is not None:
            target = error.obj
            return ApiFacts(via="attribute", owner_is_target=_instance_of(target, owner),
                            name=getattr(error, "name", None), absent_in_target=_absent(owner, name))
        if frame is not None and frame.f_code.co_name == "__getattr__":
            return _getattr_facts(frame, owner, name)
    return ApiFacts()


def _instance_of(value: Any, owner: Any) -> bool:
    """`value` is an instance of the library's class `owner` whose own class is the library's too
    (a look-alike or a subclass written in the snippet is not); or, for a name looked up on the
    class itself (`DynamicCache.from_legacy_cache`), that class or a library subclass of it."""
    if not isinstance(owner, type):
        return False
    kind = value if isinstance(value, type) else type(value)
    if not issubclass(kind, owner):
        return False
    if kind is owner:
        return True
    module = sys.modules.get(kind.__module__)
    return module is not None and resolve_owner(f"{kind.__module__}.{kind.__qualname__}") is kind \
        and _same_package(module, owner)


def _same_package(module: ModuleType, owner: Any) -> bool:
    home = sys.modules.get(getattr(owner, "__module__", "") or "")
    top = (getattr(home, "__name__", "") or "").split(".")[0]
    return bool(top) and module.__name__.split(".")[0] == top


def _absent(owner: Any, name: str) -> bool:
    return owner is not None and inspect.getattr_static(owner, name, _MISSING) is _MISSING


def _getattr_facts(frame: FrameType, owner: Any, name: str) -> ApiFacts:
    """A class's own `__getattr__` refused the name (a runtime's module base class may do so for the
    cache classes of some releases): its `self` and `name` locals say what was asked of whom."""
    target = frame.f_locals.get("self", _MISSING)
    asked = frame.f_locals.get("name")
    hook = inspect.getattr_static(type(target), "__getattr__", None) if target is not _MISSING else None
    genuine = getattr(hook, "__code__", None) is frame.f_code
    return ApiFacts(via="getattr" if genuine else None, owner_is_target=genuine and _instance_of(target, owner),
                    name=asked if isinstance(asked, str) else None, absent_in_target=_absent(owner, name))


def _import_facts(error: ImportError, owner: Any, name: str) -> ApiFacts:
    found = _CANNOT_IMPORT.match(str(error))
    imported = found.group(1) if found else None
    module = sys.modules.get(error.name or "")
    is_owner = isinstance(owner, ModuleType) and module is owner
    absent = is_owner and name not in vars(owner)
    return ApiFacts(via="import", owner_is_target=is_owner, name=imported, absent_in_target=absent)


def _call_facts(error: BaseException, frame: FrameType | None, opname: str | None, owner: Any,
                name: str) -> ApiFacts:
    """A call that no longer binds: raised by the interpreter at a call instruction, with the
    library's function named in the message, and no look-alike of it where the call was made."""
    if not isinstance(error, TypeError) or opname not in CALL_OPS or frame is None:
        return ApiFacts()
    function = inspect.getattr_static(owner, name, None) if owner is not None else None
    function = getattr(function, "__func__", function)
    qualname = getattr(function, "__qualname__", None)
    if not qualname or not str(error).startswith(f"{qualname}()"):
        return ApiFacts(via="call")
    head = qualname.split(".")[0]
    bound = [frame.f_locals.get(head, _MISSING), frame.f_globals.get(head, _MISSING)]
    genuine = owner if isinstance(owner, type) else function
    look_alike = any(value is not _MISSING and value is not genuine for value in bound)
    return ApiFacts(via="call", owner_is_target=not look_alike, name=name, absent_in_target=False)

"""Facts about an exception that only identity can establish, gathered in the check's process.

Strings (file names, qualified names, messages) are the snippet's to forge; objects are not.
These functions look at what the interpreter left behind when the exception was raised:

- `innermost`   the innermost frame and the instruction it was running: an error raised by the
                interpreter (`LOAD_ATTR`, `IMPORT_FROM`, `CALL`...) is told apart from a `raise`
                statement that merely prints the same words;
- `code_objects`  every code object of the compiled snippet, to know a frame is the snippet's own;
- `resolve_owner` the library's `api.owner`, resolved before the snippet runs (so the snippet
                cannot swap it afterwards);
- `call_sites`  which name or attribute chain each of the snippet's calls calls, read from its
                source before it runs (a refused call is then tied to the object called).
"""

from __future__ import annotations

import ast
import dis
import importlib
import inspect
from types import CodeType, FrameType, ModuleType, TracebackType
from typing import Any

_MISSING = object()


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


_CALLS = ("CALL", "CALL_FUNCTION_EX")


def call_sites(code: CodeType, source: bytes) -> dict[int, tuple[CodeType, dict[int, tuple[str, ...]]]]:
    """For every call instruction of the snippet whose callee is a name or a chain of attributes
    (`Cache(...)`, `cache.crop(...)`, `library.module.Cache(...)`): that chain, so
    that a call the interpreter refused can be tied to the very object that was called (read from the
    calling frame's own bindings when it happened), not to the words of the refusal, which a
    look-alike with the library's `__qualname__` (`functools.wraps`) repeats exactly.

    {id(code object): (code object, {offset of the call instruction: (name, attribute, ...)})}.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    spans: dict[tuple[int | None, ...], tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (chain := _chain(node.func)) is not None:
            spans[(node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)] = chain
    found: dict[int, tuple[CodeType, dict[int, tuple[str, ...]]]] = {}
    for each in code_objects(code):
        sites = {}
        for instruction in dis.get_instructions(each):
            if instruction.opname in _CALLS and instruction.positions is not None:
                where = instruction.positions
                chain = spans.get((where.lineno, where.end_lineno, where.col_offset, where.end_col_offset))
                if chain is not None:
                    sites[instruction.offset] = chain
        if sites:
            found[id(each)] = (each, sites)
    return found


def _chain(node: ast.expr) -> tuple[str, ...] | None:
    """`a.b.c` → ("a", "b", "c"); None for anything else (a call's result, a subscript...)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return (node.id, *reversed(parts))

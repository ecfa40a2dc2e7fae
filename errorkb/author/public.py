"""The module a user imports a library's name from: its public path, read by AST in the installed package.

A traceback names the module that *defines* what the user's line called (`jinja2/environment.py`,
`babel/core.py`, `pydantic/_internal/...`), never the one the user imported it from. Users import from the
package's top level when it re-exports the name (`from jinja2 import Environment`), else from a public module
that does; a draft that imports from a private module (`pydantic._internal._x`) teaches readers what the
library's authors told them not to write. "Re-exports" means binds the *same object*: an import, followed
from module to module, that ends at the defining module's own definition, never a look-alike name defined
elsewhere. Nothing of the library is imported: its files are read (the library need not be importable here,
and reading runs none of its code).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

MAX_DEPTH = 8  # re-export hops followed
MAX_READ = 24  # modules one question reads (a star import of a package of hundreds is not followed to its end)
MAX_MODULES = 400  # public modules of a package searched for a re-export of a private module's name


def _is_public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


def _file(folder: Path, top: str, module: str) -> Path | None:
    """The installed file of `module` (`folder` is the package's folder, or for a one-module library the folder
    that holds `top.py`)."""
    if module != top and not module.startswith(f"{top}."):
        return None
    rest = module[len(top) + 1:].split(".") if module != top else []  # `top` may be dotted: `google.protobuf`
    if "." not in top and (folder / f"{top}.py").is_file() and not (folder / top / "__init__.py").is_file():
        return folder / f"{top}.py" if not rest else None
    base = folder.joinpath(*rest)
    for found in (base / "__init__.py", base.with_suffix(".py") if rest else None):
        if found is not None and found.is_file():
            return found
    return None


@functools.lru_cache(maxsize=1024)
def _bindings(path: Path, module: str, package: bool) -> tuple[frozenset[str], dict[str, tuple[str, str]],
                                                                 tuple[str, ...]]:
    """(names the module defines itself, name → (module, name) it imports it from, modules it star-imports),
    from its top-level statements and those under `if`/`try` (a `TYPE_CHECKING` block, a fallback import), never
    a function's body."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
        return frozenset(), {}, ()
    defined: set[str] = set()
    imported: dict[str, tuple[str, str]] = {}
    stars: list[str] = []
    here = module if package else module.rpartition(".")[0]
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.If | ast.Try):
            pending += [*node.body, *node.orelse, *getattr(node, "finalbody", []),
                        *(stmt for handler in getattr(node, "handlers", []) for stmt in handler.body)]
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(target.id for target in targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(here, node.module, node.level)
            if source is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    stars.append(source)
                else:
                    imported[alias.asname or alias.name] = (source, alias.name)
    return frozenset(defined), imported, tuple(stars)


def _absolute(here: str, module: str | None, level: int) -> str | None:
    if not level:
        return module
    parts = here.split(".")
    if level - 1 >= len(parts):
        return None
    base = parts[:len(parts) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def defining_module(folder: Path, top: str, module: str, name: str) -> str | None:
    """The module whose own definition `module.name` is, following re-exports inside the library; None when
    `module` does not bind `name`, the trail leaves the library, or the question reads more than `MAX_READ` modules
    (a package whose top level star-imports hundreds of modules: the draft then keeps the defining module)."""
    return _resolve(folder, top, module, name, set(), [MAX_READ], 0)


def _resolve(folder: Path, top: str, module: str, name: str, seen: set[tuple[str, str]], budget: list[int],
             depth: int) -> str | None:
    if (module, name) in seen or depth > MAX_DEPTH or budget[0] <= 0:
        return None
    seen.add((module, name))
    path = _file(folder, top, module)
    if path is None:
        return None
    budget[0] -= 1
    defined, imported, stars = _bindings(path, module, path.name == "__init__.py")
    if name in imported:  # a later import rebinds a definition; an import is what a re-export is
        source, original = imported[name]
        return _resolve(folder, top, source, original, seen, budget, depth + 1)
    if name in defined:
        return module
    if name.startswith("_"):
        return None
    for source in stars:
        found = _resolve(folder, top, source, name, seen, budget, depth + 1)
        if found is not None:
            return found
    return None


def public_module(folder: Path, top: str, module: str, name: str) -> str:
    """The module a user imports `name` (defined in `module`) from: the package's top level when it binds the
    same object, else the shallowest public module that does (`module`'s own public parents first), else
    `module` itself."""
    candidates = [top, *(".".join(module.split(".")[:n]) for n in range(2, module.count(".") + 1))]
    if _is_public(module):
        candidates.append(module)
    else:
        candidates += _public_modules(folder, top)
    for candidate in dict.fromkeys(candidates):
        if _is_public(candidate) and defining_module(folder, top, candidate, name) == module:
            return candidate
    return module


def exported(folder: Path, top: str, name: str) -> str | None:
    """The module that defines the object the package's top level binds as `name` (a public name of the
    library's, as a user imports it: `from jinja2 import FileSystemLoader`), or None."""
    return None if name.startswith("_") else defining_module(folder, top, top, name)


def submodule(folder: Path, top: str, name: str) -> bool:
    """Whether `name` is a public module of the package (`json_format` of `google.protobuf`): a line that uses it
    imports it from the package (`from google.protobuf import json_format`)."""
    return _is_public(name) and _file(folder, top, f"{top}.{name}") is not None


def _public_modules(folder: Path, top: str) -> list[str]:
    """The package's public modules, shallowest first (bounded: `MAX_MODULES`)."""
    if not (folder / "__init__.py").is_file():
        return []
    found = []
    for path in sorted(folder.rglob("*.py"), key=lambda path: (len(path.parts), str(path)))[:MAX_MODULES * 4]:
        parts = path.relative_to(folder).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        module = ".".join((top, *parts))
        if _is_public(module):
            found.append(module)
        if len(found) >= MAX_MODULES:
            break
    return found

"""The snippets' allow-list: what a snippet may use, and every other primitive, flagged.

Snippets are short examples. They may import the library, its runtime, modules beside them (which
are linted as snippets too) and a few standard modules (`STANDARD`); everything else is flagged:
other imports, the primitives a snippet needs to deceive its verifier or to escape (turning off
or rewiring the tracer, swapping code objects, patching the library or builtins, frames, `gc`,
`ctypes`, `exec`/`eval`/`compile`, `pickle`/`marshal`, `__builtins__`, attribute names computed at
run time, file descriptors, `/proc`, `os`, files outside the snippet's folder, other processes,
the network). `errorkb check` reports each use to the author and the reviewer; `errorkb verify`
fails a check whose snippet uses one without an allowance (`unallowed`), so a snippet that reaches
for a primitive unannounced never gets a badge. A primitive is allowed only with a reason in the
entry, which the reviewer reads and the page shows beside the badge:

    allow:
      - primitive: signal
        reason: the error is about a timeout; the snippet arms SIGALRM as a user would

on the entry (for all its snippets) or on one snippet (`after: {file: after.py, allow: [...]}`).
An allowance that matches nothing is itself a problem, so the list stays true.

Only the AST is read: nothing is imported or executed, so `errorkb check` stays fast and safe.
Names are resolved through the snippet's imports (`import sys as s; s.settrace` is `sys.settrace`).
Being an allow-list, it does not need to know every way to hide a call: a name built at run time
needs a primitive that is itself flagged (`getattr` with a computed name, `__builtins__`, `exec`,
an import outside the list). What the allow-list cannot promise (an allowed primitive used
cleverly) the runtime defences hold: the sandbox, the sealed stream, judgement by identity.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from errorkb.core.problems import Problem
from errorkb.core.snippets import read_bounded, walk

if TYPE_CHECKING:  # the entry model imports PRIMITIVES from here: no import cycle at run time
    from errorkb.core.entry import Allowance
    from errorkb.core.load import LoadedEntry
    from errorkb.core.project import Project

# primitive → what it lets a snippet do; the keys are what `allow: [{primitive: ...}]` names.
PRIMITIVES: dict[str, str] = {
    "settrace": "turns off or rewires the verifier's call tracer",
    "setprofile": "installs a profiler hook that runs inside every call",
    "_thread": "starts threads that the verifier's tracer never reaches",
    "daemon-thread": "leaves work running (or blocked inside a call) while the snippet exits",
    "signal": "runs a handler inside whatever frame a signal interrupts, or signals another process",
    "os.kill": "sends a signal to another process (the verifier's zygote or CLI)",
    "os._exit": "leaves without the verifier's bookkeeping",
    "__code__": "swaps a function's code object under the verifier",
    "code.replace": "forges a code object's file name and qualified name",
    "exec": "runs code whose source and file name the snippet chooses",
    "builtins": "replaces a builtin (len, isinstance, ...) for the library's code too",
    "monkeypatch": "replaces an attribute of an imported module or class, or binds a function onto an object",
    "forged-identity": "poses as another module's code (__module__, __qualname__, __name__)",
    "callback": "runs the snippet's own code inside the library's call (a method of a subclass of the library's "
                "classes, a protocol method such as __len__): an error that appears to come from the library's "
                "frame, a swallowed call, a wait; `errorkb verify` fails a check whose snippet code runs inside the "
                "watched call unless this is allowed",
    "catches-documented": "catches the entry's own exception (or everything): an error raised under the function "
                          "and swallowed",
    "override": "replaces a method of a library class, in a subclass, with one that never calls the library's",
    "traceback": "gives an exception another error's traceback",
    "exception-args": "rewrites a raised exception's message",
    "frames": "reads or walks the verifier's frames and their variables",
    "gc": "finds the verifier's objects through the garbage collector",
    "ctypes": "reaches memory and system calls behind Python's back",
    "errorkb": "imports the verifier itself",
    "import-system": "changes what later imports resolve to, or reaches names built at run time",
    "/proc": "reaches other processes' files, pipes and memory through /proc",
    "process": "starts processes or sessions outside the check",
    "network": "reaches the network",
    "file-write": "writes, moves or deletes files",
    "startup-hook": "locates or writes interpreter start-up hooks and bytecode caches",
    "import": "imports a module outside what snippets may use (the library, its runtime, the profile's `imports`, "
              "modules beside the snippet and a few standard ones)",
    "os": "reaches file descriptors, files and processes through the operating system's interface",
    "fd": "reads or writes a file descriptor directly (the verifier's stream is one)",
    "file": "reads a file outside the snippet's folder, or one whose name is computed at run time",
    "pickle": "runs code stored in data (pickle, marshal, shelve: unpickling calls any function)",
    "dynamic-attribute": "reaches an attribute whose name is computed at run time, out of a reader's sight",
    "dunder": "reaches interpreter internals through a special attribute (__subclasses__, __globals__, __mro__...)",
}

# Special attributes a snippet may read; any other `__x__` reaches the interpreter's internals.
DUNDERS = frozenset({"__init__", "__name__", "__qualname__", "__module__", "__version__", "__class__", "__doc__"})
# Of the import system's modules on the list, the names a snippet may use (finding a package, its version).
_IMPORT_NAMES = {"importlib.util": {"find_spec"}, "importlib.metadata": {"version", "PackageNotFoundError"}}

# What a snippet may import besides the library, its runtime and the modules beside it.
STANDARD = frozenset({"__future__", "abc", "collections", "contextlib", "copy", "dataclasses", "enum", "functools",
                      "importlib.metadata", "importlib.util", "inspect", "itertools", "math", "numbers", "packaging",
                      "re", "typing", "warnings"})

_MODULES = {  # importing any of these (or anything inside them) is the primitive
    "_thread": "_thread", "signal": "signal", "ctypes": "ctypes", "cffi": "ctypes", "errorkb": "errorkb",
    "subprocess": "process", "multiprocessing": "process", "pty": "process", "socket": "network",
    "ssl": "network", "urllib": "network", "http": "network", "requests": "network", "httpx": "network",
    "ftplib": "network", "smtplib": "network", "site": "startup-hook", "sysconfig": "startup-hook",
    "py_compile": "startup-hook", "compileall": "startup-hook", "posix": "os._exit", "shutil": "file-write",
    "builtins": "builtins", "os": "os", "io": "fd", "pickle": "pickle", "marshal": "pickle", "shelve": "pickle",
    "copyreg": "pickle", "dill": "pickle", "cloudpickle": "pickle", "_pickle": "pickle", "gc": "gc",
}
_NAMES = {  # fully resolved dotted names, used in any way
    "sys.settrace": "settrace", "sys.gettrace": "settrace", "threading.settrace": "settrace",
    "threading.gettrace": "settrace", "threading.settrace_all_threads": "settrace",
    "sys.setprofile": "setprofile", "sys.getprofile": "setprofile", "threading.setprofile": "setprofile",
    "threading.setprofile_all_threads": "setprofile", "sys.monitoring": "settrace",
    "os.kill": "os.kill", "os.killpg": "os.kill", "os.pidfd_open": "os.kill", "os._exit": "os._exit",
    "sys._getframe": "frames", "sys._current_frames": "frames", "inspect.currentframe": "frames",
    "inspect.stack": "frames", "inspect.trace": "frames", "traceback.walk_stack": "frames",
    "gc.get_referrers": "gc", "gc.get_referents": "gc", "gc.get_objects": "gc",
    "types.CodeType": "code.replace", "exec": "exec", "eval": "exec", "compile": "exec",
    "builtins.exec": "exec", "builtins.eval": "exec", "builtins.compile": "exec", "__import__": "import-system",
    "importlib.util.cache_from_source": "startup-hook", "sys.meta_path": "import-system",
    "sys.path_hooks": "import-system", "sys.path_importer_cache": "import-system",
    "os.fork": "process", "os.forkpty": "process", "os.setsid": "process", "os.setpgid": "process",
    "os.system": "process", "os.popen": "process", "os.posix_spawn": "process", "os.posix_spawnp": "process",
    "os.remove": "file-write", "os.unlink": "file-write", "os.rename": "file-write", "os.replace": "file-write",
    "os.rmdir": "file-write", "os.removedirs": "file-write", "os.truncate": "file-write", "os.utime": "file-write",
    "os.chmod": "file-write", "os.chown": "file-write", "os.link": "file-write", "os.symlink": "file-write",
    "os.write": "file-write", "setattr": "monkeypatch", "delattr": "monkeypatch", "vars": "monkeypatch",
    "__builtins__": "builtins", "globals": "monkeypatch", "locals": "frames", "breakpoint": "exec",
}
_DANGEROUS_NAMES = {"exec": "exec", "eval": "exec", "compile": "exec", "__import__": "import-system",
                    "globals": "monkeypatch", "locals": "frames", "vars": "monkeypatch", "open": "file"}
_NAME_PREFIXES = {"os.exec": "process", "os.spawn": "process"}
_ATTRIBUTES = {  # attribute names that are the primitive on any object
    "__code__": "__code__", "f_locals": "frames", "f_back": "frames", "f_globals": "frames", "f_trace": "settrace",
    "tb_frame": "frames", "gi_frame": "frames", "cr_frame": "frames", "with_traceback": "traceback",
    "write_text": "file-write", "write_bytes": "file-write", "unlink": "file-write", "rmdir": "file-write",
    "touch": "file-write", "setDaemon": "daemon-thread", "__dict__": "monkeypatch", "__builtins__": "builtins",
    "loader": "import-system", "load_module": "import-system", "exec_module": "import-system",
    "module_from_spec": "import-system",
}
_CODE_KEYWORDS = {"co_filename", "co_qualname", "co_name", "co_firstlineno", "co_code", "co_consts", "co_names"}
_IDENTITY = {"__module__", "__qualname__", "__name__"}
_HARMLESS_DUNDERS = {"__init__", "__new__", "__init_subclass__", "__post_init__", "__enter__", "__exit__",
                     "__del__", "__set_name__", "__repr__", "__str__"}
_WRITE_MODES = set("wax+")
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")


@dataclass(frozen=True, order=True)
class Finding:
    """One use of a primitive: where, which, and the code that uses it."""

    line: int
    col: int
    primitive: str
    code: str


def lint_source(text: str, exception: str | None = None, modules: Iterable[str] = ()) -> list[Finding]:
    """Every use of a primitive outside the allow-list in one snippet's source; [] when it does not parse
    (verification says why).

    `exception` is the entry's exception class (`IndexError`, `pkg.SomeError`): catching it is flagged.
    `modules`: the top-level modules it may import besides `STANDARD` (the library, its runtime, the
    modules beside the snippet).
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    visitor = _Visitor(_aliases(tree), exception.rsplit(".", 1)[-1] if exception else None, frozenset(modules))
    visitor.visit(tree)
    unique = {(f.line, f.primitive): f for f in sorted(visitor.found, reverse=True)}  # first column per line
    return sorted(unique.values())


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name → the dotted name it was imported as (`import numpy as np` → np: numpy)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


class _Visitor(ast.NodeVisitor):
    def __init__(self, aliases: dict[str, str], exception: str | None = None, modules: frozenset[str] = frozenset()):
        self.aliases = aliases
        self.exception = exception
        self.modules = modules
        self.calls: set[ast.AST] = set()  # the names that are called directly
        self.found: list[Finding] = []
        self.functions: set[str] = set()  # names the snippet binds to functions (def, lambda)

    def flag(self, node: ast.AST, primitive: str, code: str | None = None) -> None:
        text = code if code is not None else _source(node)
        self.found.append(Finding(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, primitive, text))

    def resolve(self, node: ast.AST) -> str | None:
        """`s.settrace` → "sys.settrace" when `s` is the imported module sys; None for other expressions."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id, node.id)
        return ".".join([base, *reversed(parts)])

    def imported(self, node: ast.AST) -> bool:
        """Is this a name (or attribute chain) rooted in something the snippet imported?"""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.aliases

    # -- imports -----------------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level != 0:
            self.flag(node, "import", f"from {'.' * node.level}{node.module or ''} import ...")
        elif node.module:
            names = [alias.name for alias in node.names]
            # `from importlib import metadata` imports importlib.metadata: judged as that module
            self._module(node, node.module, [f"{node.module}.{name}" for name in names])
            for alias in node.names:
                self._name(node, f"{node.module}.{alias.name}")

    def _module(self, node: ast.AST, name: str, submodules: list[str] | None = None) -> None:
        top = name.split(".")[0]
        if top in _MODULES:
            self.flag(node, _MODULES[top], f"import {name}")
        elif not self._allowed(name) and not (submodules and all(self._allowed(sub) for sub in submodules)):
            self.flag(node, "import", f"import {name}")

    def _allowed(self, name: str) -> bool:
        if name.split(".")[0] in self.modules:
            return True
        return any(name == allowed or name.startswith(allowed + ".") for allowed in STANDARD)

    # -- names and attributes ----------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node, self.aliases.get(node.id, node.id))
        if node.id in _DANGEROUS_NAMES and node.id not in self.aliases and not isinstance(node.ctx, ast.Store) \
                and not self._called(node):
            self.flag(node, _DANGEROUS_NAMES[node.id], f"{node.id} (as a value)")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _ATTRIBUTES:
            self.flag(node, _ATTRIBUTES[node.attr])
        elif node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in DUNDERS:
            self.flag(node, "dunder")
        resolved = self.resolve(node)
        if resolved:
            self._name(node, resolved)
        self.generic_visit(node)

    def _name(self, node: ast.AST, dotted: str) -> None:
        primitive = _NAMES.get(dotted) or next((p for prefix, p in _NAME_PREFIXES.items()
                                                if dotted.startswith(prefix)), None)
        module, _, name = dotted.rpartition(".")
        if primitive is None and module in _IMPORT_NAMES and name not in _IMPORT_NAMES[module]:
            primitive = "import-system"
        if primitive is None and "." in dotted and dotted.split(".")[0] in ("signal", "_thread", "ctypes"):
            primitive = _MODULES[dotted.split(".")[0]]
        if primitive:
            self.flag(node, primitive, dotted)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and "/proc" in node.value:
            self.flag(node, "/proc", repr(node.value)[:60])

    # -- calls -------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr == "replace" \
                and any(keyword.arg in _CODE_KEYWORDS for keyword in node.keywords):
            self.flag(node, "code.replace")
        if any(keyword.arg == "daemon" and _truthy(keyword.value) for keyword in node.keywords):
            self.flag(node, "daemon-thread")
        if isinstance(function, ast.Name) and function.id == "open" and _writes(node):
            self.flag(node, "file-write")
        if self.resolve(function) == "os.open" and any(flag in ast.unparse(node) for flag in _WRITE_FLAGS):
            self.flag(node, "file-write")
        if isinstance(function, ast.Attribute) and function.attr == "open" and _writes(node, 0):
            self.flag(node, "file-write")
        if isinstance(function, ast.Name) and function.id == "setattr" and function.id not in self.aliases \
                and len(node.args) == 3 and self._snippet_code(node.args[2]):
            self.flag(node, "callback", f"setattr(..., {_source(node.args[2])})")  # as `x.name = f` below
        if isinstance(function, ast.Name) and function.id in ("getattr", "hasattr", "setattr", "delattr") \
                and len(node.args) > 1:
            name = node.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.flag(node, "dynamic-attribute")
            elif name.value in _ATTRIBUTES or name.value in _DANGEROUS_NAMES:
                self.flag(node, _ATTRIBUTES.get(name.value) or _DANGEROUS_NAMES[name.value])
        if isinstance(function, ast.Name) and function.id == "open" and "open" not in self.aliases and node.args:
            self._opened(node, node.args[0])
        self.generic_visit(node)

    def _opened(self, node: ast.Call, path: ast.expr) -> None:
        """`open(...)`: a descriptor, or a file that is not a plain relative path inside the snippet's folder."""
        if isinstance(path, ast.Constant) and isinstance(path.value, int):
            self.flag(node, "fd")
        elif not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
            self.flag(node, "file", f"open({_source(path)})")
        elif path.value.startswith(("/", "~")) or ".." in path.value.replace("\\", "/").split("/"):
            self.flag(node, "file", f"open({path.value!r})")

    def _called(self, node: ast.Name) -> bool:
        """`open(...)`, `vars(x)`: a call of the name itself (its own rules apply), not the name as a value."""
        return node in self.calls

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            self.calls.add(node.func)
        super().visit(node)

    # -- definitions and assignments ---------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.add(node.name)
        if node.name.startswith("__") and node.name.endswith("__") and node.name not in _HARMLESS_DUNDERS:
            doing = next((inner for inner in ast.walk(node) if _acts(inner)), None)
            if doing is not None:
                self.flag(doing, "callback", f"{type(doing).__name__.lower()} in {node.name}")
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        caught = [] if node.type is None else node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        names = {(self.resolve(kind) or "").rsplit(".", 1)[-1] for kind in caught}
        if node.type is None or names & {"Exception", "BaseException", self.exception}:
            self.flag(node, "catches-documented", f"except {ast.unparse(node.type) if node.type else ''}".strip())
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if any(self.imported(base) for base in node.bases):
            for method in node.body:
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and method.name != "__init__":
                    # the library calls its own classes' methods: here, the snippet's, inside the library's call
                    self.flag(method, "callback", f"{node.name}.{method.name}, in a subclass of the library's")
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and not _calls_super(method):
                    self.flag(method, "override", f"{node.name}.{method.name} without super()")
                elif isinstance(method, ast.Assign) and isinstance(method.value, ast.Name | ast.Lambda | ast.Attribute):
                    self.flag(method, "override", f"{_source(method)} in class {node.name}")
        for statement in node.body:
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in _IDENTITY:
                        self.flag(statement, "forged-identity", f"{target.id} = ... in class {node.name}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._store(target, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._store(node.target, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._store(node.target, node.value)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute) and self.imported(target.value):
                self.flag(target, "monkeypatch", f"del {_source(target)}")
        self.generic_visit(node)

    def _store(self, target: ast.AST, value: ast.AST) -> None:
        for element in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
            if isinstance(element, ast.Attribute):
                self._store_attribute(element, value)
            elif isinstance(element, ast.Subscript):
                self._store_item(element)

    def _store_attribute(self, target: ast.Attribute, value: ast.AST) -> None:
        base = self.resolve(target.value) or ""
        if base.split(".")[0] == "builtins":
            self.flag(target, "builtins")
        elif target.attr == "args":
            self.flag(target, "exception-args")
        elif target.attr == "__traceback__":
            self.flag(target, "traceback")
        elif target.attr in _IDENTITY:
            self.flag(target, "forged-identity")
        elif target.attr == "daemon" and _truthy(value):
            self.flag(target, "daemon-thread")
        elif self.imported(target.value) or self._function_like(value):
            self.flag(target, "monkeypatch")
            if self._snippet_code(value):  # the library calls it from now on: the snippet's code inside its call
                self.flag(target, "callback", f"{_source(target)} = {_source(value)}")

    def _store_item(self, target: ast.Subscript) -> None:
        container = target.value
        resolved = self.resolve(container) or ""
        if resolved == "sys.modules":
            self.flag(target, "import-system")
        elif isinstance(container, ast.Call) and isinstance(container.func, ast.Name) \
                and container.func.id in ("vars", "globals"):
            self.flag(target, "monkeypatch")

    def _snippet_code(self, value: ast.AST) -> bool:
        """A function of the snippet's own (a def, a lambda, either bound or partially applied): put where
        the library calls it, its code runs inside the library's call."""
        if isinstance(value, ast.Call) and value.args and self._function_like(value):
            return self._snippet_code(value.args[0])
        return isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in self.functions

    def _function_like(self, value: ast.AST) -> bool:
        if isinstance(value, ast.Lambda):
            return True
        if isinstance(value, ast.Name):
            return value.id in self.functions
        if isinstance(value, ast.Call):
            called = self.resolve(value.func) or ""
            return called in ("types.MethodType", "functools.partial", "MethodType", "partial")
        return False


def _acts(node: ast.AST) -> bool:
    """Does more than compute a value: raises, catches, or calls something other than a builtin by name?"""
    if isinstance(node, ast.Raise | ast.Try):
        return True
    return isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _BUILTIN_CALLS)


_BUILTIN_CALLS = {"len", "int", "float", "str", "bool", "list", "tuple", "iter", "next", "hash", "repr", "isinstance",
                  "super", "getattr", "type", "min", "max", "sum", "range", "abs", "round", "format"}


def _truthy(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and bool(node.value)


def _writes(call: ast.Call, position: int = 1) -> bool:
    """Does this open()/Path.open() call name a mode that writes?"""
    mode = next((keyword.value for keyword in call.keywords if keyword.arg == "mode"), None)
    if mode is None and len(call.args) > position:
        mode = call.args[position]
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(_WRITE_MODES & set(mode.value))


def _source(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


# -- an entry's snippets, the modules beside them, and its allowances -----------------------------------


def how_to_allow(primitive: str) -> str:
    """What to write to allow a primitive, in the entry's own words (the `allow` key), or to do instead."""
    return f"allow it in the entry (allow: [{{primitive: {primitive}, reason: ...}}]), or remove it"


def importable(project: Project) -> frozenset[str]:
    """The top-level modules every snippet may import: the library's, its runtime's and those the
    profile names (`imports`: the library it extends)."""
    from errorkb.plugs import runtime_for

    return frozenset({project.library.name.split(".")[0], *runtime_for(project.library.runtime).packages,
                      *(name.split(".")[0] for name in project.library.imports)})


def helpers(folder: Path, snippets: Iterable[str]) -> list[Path]:
    """The Python files of an entry's snippet folder that are not its snippets: modules a snippet
    imports (`from lib import helper`), linted as snippets, with the entry's allowances."""
    named = set(snippets)
    if not folder.is_dir():
        return []
    found = [Path(base) / name for base, folders, names in walk(folder)  # not rglob: it recurses once per level
             for name in names if name.endswith(".py") and "__pycache__" not in Path(base).parts]
    return sorted(path for path in found if not (path.parent == folder and path.name in named))


def local_modules(folder: Path) -> frozenset[str]:
    """What `import X` finds beside a snippet (its folder is first on the path): X.py and X/."""
    if not folder.is_dir():
        return frozenset()
    return frozenset(path.stem if path.is_file() else path.name for path in folder.iterdir()
                     if (path.is_file() and path.suffix == ".py") or (path.is_dir() and path.name.isidentifier()))


def unallowed(text: str, exception: str, allowed: Iterable[str], modules: Iterable[str]) -> list[Finding]:
    """The findings in one snippet's (or helper's) source that no allowance covers."""
    primitives = set(allowed)
    return [finding for finding in lint_source(text, exception, modules) if finding.primitive not in primitives]


def lint_entries(loaded: Iterable[LoadedEntry], project: Project) -> list[Problem]:
    """One problem per unallowed primitive in every snippet and every module beside one, and one per
    allowance that matches nothing."""
    problems: list[Problem] = []
    for one in loaded:
        problems += _lint_entry(one, project)
    return sorted(problems)


def _lint_entry(one: LoadedEntry, project: Project) -> list[Problem]:
    entry = one.entry
    problems: list[Problem] = []
    used_by_entry: set[int] = set()
    folder = project.snippets / entry.id
    modules = importable(project) | local_modules(folder)
    snippets: list[tuple[Path, list[Allowance], int | None, str | None]] = [
        (project.snippet_path(entry.id, snippet.file), snippet.allow, index, role)
        for index, (role, snippet) in enumerate(entry.snippets())]
    snippets += [(path, [], None, None) for path in helpers(folder, [snippet.file for _, snippet in entry.snippets()])]
    for path, own_allow, index, role in snippets:
        try:  # bounded, never blocking: read as the loader reads a snippet
            findings = lint_source(read_bounded(path).decode("utf-8"), entry.exception, modules)
        except (OSError, UnicodeDecodeError):
            continue  # the loader reports the file (missing, not regular, not UTF-8), helpers too
        own = {allowance.primitive for allowance in own_allow}
        shared = {allowance.primitive for allowance in entry.allow}
        for finding in findings:
            if finding.primitive in own:
                continue
            if finding.primitive in shared:
                used_by_entry |= {i for i, a in enumerate(entry.allow) if a.primitive == finding.primitive}
                continue
            problems.append(Problem(project.rel(path), finding.line, finding.col,
                                    f"{finding.primitive} ({finding.code}): {PRIMITIVES[finding.primitive]}; "
                                    f"{how_to_allow(finding.primitive)}"))
        found = {finding.primitive for finding in findings}
        for position, allowance in enumerate(own_allow):
            if allowance.primitive not in found and index is not None and role is not None:
                loc = _snippet_loc(role, index) + ("allow", position)
                problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                        f"allowance for '{allowance.primitive}' matches nothing in "
                                        f"{project.rel(path)}; remove it"))
    for position, allowance in enumerate(entry.allow):
        if position not in used_by_entry:
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(("allow", position)),
                                    f"allowance for '{allowance.primitive}' matches nothing in the snippets of "
                                    f"'{entry.id}'; remove it"))
    return problems


def _snippet_loc(role: str, index: int) -> tuple[str | int, ...]:
    """Where a snippet's own settings sit in the entry's YAML: before, after or guards[i]."""
    return (role,) if role in ("before", "after") else ("guards", index - 2)


def _calls_super(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method reaches its parent's (`super()...`), so the library's own code still runs."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
               for node in ast.walk(function))


def lint_file(path: Path, exception: str | None = None, modules: Iterable[str] = ()) -> list[Finding]:
    """The findings of one file, for tests and editors."""
    return lint_source(path.read_text(encoding="utf-8"), exception, modules)

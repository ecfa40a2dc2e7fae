"""A pinned function that raises on every call: the library's way to fail on purpose (click's `Context.fail`,
`raise UsageError(message, self)` and nothing else).

The before of such an entry verifies (the function raises the documented error), but no after can: an after passes
only when it calls the pinned function and every call returns, and this function never returns. An after that calls
it on purpose (a callback that fails with `ctx.fail(...)` on bad input, as click documents) raises the library's own
error, and fails too. Where the error starts is the caller that decides to fail (click's `Command.parse_args`, at
its `ctx.fail(...)` line): pinned there with `implicit: true` (the raise is under that line), the before and the
after both verify. `new` says so in the draft, with that caller from the paste; `warnings` says so for a written
entry. Read by AST in the pinned release (nothing is run); a function that may return on some path, or is a
generator, is not one of these.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass

from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project
from errorkb.core.snippets import read_bounded
from errorkb.source.upstream import pinned_file, read_source


@dataclass(frozen=True)
class Failer:
    """A function that raises on every call: its qualified name, and the exception its last raise names."""

    function: str
    exception: str


def raises_every_call(text: str, function: str, line: int | None = None) -> Failer | None:
    """`function` (qualified: `Context.fail`) of the source `text` when every path through its body ends in a
    `raise`, and no path returns or yields; else None. With `line` (a line inside it: the pin's), only the function's
    own lines are parsed (`errorkb check` asks for every entry, and a library file's parse costs ~0.1 s)."""
    if line is not None:
        segment = _lines_of(text, function.rsplit(".", 1)[-1], line)
        tree = _parsed(segment) if segment is not None else None
        node = _find(tree.body, function.split(".")[-1:]) if tree is not None else None
    else:
        tree = _parsed(text)
        node = _find(tree.body, function.split(".")) if tree is not None else None
    if node is None or not isinstance(node.body[-1], ast.Raise | ast.If | ast.Try):  # the common case: at once
        return None
    raised = _raises(node.body)
    if not raised or any(isinstance(inner, ast.Yield | ast.YieldFrom) for inner in _own_nodes(node.body)):
        return None  # a generator's call returns the generator
    return Failer(function, raised)


_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")


def _lines_of(text: str, name: str, line: int) -> str | None:
    """The lines of the function `name` around `line`, dedented: up from `line` to the `def` of that name at a
    smaller indentation than the line's, down to the next line indented no deeper than that `def` (a segment that
    ends inside a string does not parse: None, never a guess)."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    depth = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    first = next((at for at in range(line - 1, -1, -1) if (found := _DEF.match(lines[at])) and found["name"] == name
                  and len(found["indent"]) < depth), None)
    if first is None:
        return None
    indent = len(lines[first]) - len(lines[first].lstrip())
    last = next((at for at in range(line, len(lines)) if lines[at].strip()
                 and len(lines[at]) - len(lines[at].lstrip()) <= indent), len(lines))
    return textwrap.dedent("\n".join(lines[first:last]))


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> ast.Module | None:
    """One parse of a source file for every entry pinned in it (`errorkb check` asks once per entry)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _find(body: list[ast.stmt], parts: list[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name == parts[0] and len(parts) > 1:
            return _find(node.body, parts[1:])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == parts[0] and len(parts) == 1:
            return node
    return None


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node of `body`, not descending into the functions and classes it defines."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            pending += list(ast.iter_child_nodes(node))
    return found


def _raises(body: list[ast.stmt]) -> str | None:
    """The exception named by the raise that every path through `body` ends in (None: some path goes on)."""
    for statement in body:
        if any(isinstance(node, ast.Return | ast.Break | ast.Continue) for node in _own_nodes([statement])):
            return None  # a path leaves here (a return; a break or continue that may skip the raise)
        raised = _statement_raises(statement)
        if raised:
            return raised
    return None


def _statement_raises(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Raise):
        exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return ast.unparse(exc) if exc is not None else "the exception being handled"
    if isinstance(statement, ast.If):
        return _raises(statement.body) if _raises(statement.orelse) else None
    if isinstance(statement, ast.With | ast.AsyncWith):
        return None  # a context manager may swallow what its body raises
    if isinstance(statement, ast.Try):
        final = _raises(statement.finalbody)
        if final:
            return final
        body = _raises(statement.body)
        return body if body and all(_raises(handler.body) for handler in statement.handlers) else None
    return None


def pinned_failer(one: LoadedEntry, project: Project, texts: dict[tuple[str, str, bool], str | None]) -> Failer | None:
    """The entry's pinned function, where it raises on every call in the pinned release (read where that release's
    source lies here, once for every entry that pins it: `texts`); None otherwise, or where it cannot be read."""
    entry = one.entry
    source = entry.source
    if entry.kind != "raise" or source.implicit or not source.release:
        return None
    key = (source.release, source.path, source.runtime)
    if key not in texts:
        found = pinned_file(project, *key)
        texts[key] = read_source(found) if found is not None else None
    text = texts[key]
    return raises_every_call(text, source.function, source.line) if text is not None else None


AFTER_CANNOT = ("{function} raises {exception} on every call (it is how the library fails on purpose): an after "
                "passes only when it calls {function} and every call returns, so no after of an entry pinned there "
                "verifies; pin the line of its caller that calls it (where the library decides to fail), with "
                "`implicit: true`")


def warnings(entries: Iterable[LoadedEntry], project: Project) -> list[str]:
    """`path:line:col: warning: ...` for each entry pinned at a function that raises on every call (`errorkb
    check`'s): on the pin, and on each line of its after (and of a guard declared to pass) that calls the function
    by its name."""
    texts: dict[tuple[str, str, bool], str | None] = {}
    return [said for one in entries for said in _warnings(one, project, texts)]


def _warnings(one: LoadedEntry, project: Project, texts: dict[tuple[str, str, bool], str | None]) -> list[str]:
    failer = pinned_failer(one, project, texts)
    if failer is None:
        return []
    line, col = one.positions.of_key(("source", "function"))
    said = [f"{project.rel(one.path)}:{line}:{col}: warning: " + AFTER_CANNOT.format(**vars(failer))]
    name = failer.function.rsplit(".", 1)[-1]
    for role, file in one.entry.snippet_files():
        expect = one.entry.guard(role)
        if role.kind == "before" or (expect is not None and expect.outcome != "passes"):
            continue
        path = project.snippet_path(one.entry.id, file)
        try:
            text = read_bounded(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the loader says what is wrong with the file
        for call in _calls(text, name):
            said.append(f"{project.rel(path)}:{call.lineno}:{call.col_offset + 1}: warning: calls "
                        f"`{ast.unparse(call.func)}(...)`: {failer.function} raises {failer.exception} on every call, "
                        f"the library's way to fail on purpose; this {role.kind} raises the library's own error "
                        "where it reaches this line, and an after must return normally")
    return said


def _calls(text: str, name: str) -> list[ast.Call]:
    """The calls of `text` whose callee is named `name` (`ctx.fail(...)`, `fail(...)`), unless the snippet defines a
    function of that name itself."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    nodes = list(ast.walk(tree))
    if any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name for node in nodes):
        return []
    return sorted((node for node in nodes if isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Attribute) and node.func.attr == name
        or isinstance(node.func, ast.Name) and node.func.id == name)), key=lambda node: (node.lineno, node.col_offset))

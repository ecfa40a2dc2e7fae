"""Raise sites of a Python source file, read by AST (never by text search).

A raise site is a `raise X(...)` statement: its line, the qualified name of the function it
sits in, the exception class it names, and its message as an entry template (the f-string's
text with `{...}` kept, adjacent literals joined). An exception that makes its message from its
arguments (PyYAML's `ConstructorError(None, None, "... %r" % tag, mark)`: the problem is the third
argument, and `__str__` adds the mark) gives the one string argument it is called with, `%`
conversions kept as `{%r}`: `assembled`, since the message the library makes holds that text but is
not only it. Drift and coverage checks compare entries
with these; the version matrix re-resolves an entry's site in every release.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RaiseSite:
    line: int  # of the `raise` keyword
    function: str  # qualified name, e.g. Cache.early_initialization ("<module>" at top level)
    exception: str | None  # class name as written (last dotted part); None for a bare `raise`
    message: str | None  # template text; None when not a string literal
    assembled: bool = False  # `message` is the one string argument the exception makes its message from


@dataclass(frozen=True)
class FunctionSpan:
    name: str
    first: int
    last: int


def read_source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def raise_sites(source: str) -> list[RaiseSite]:
    """Every raise site of `source`, by line. Remembered by text: under `mkdocs serve` the coverage
    page asks again on every save, and a source file's AST walk is ~0.13 s here."""
    return list(_raise_sites(source))


@functools.lru_cache(maxsize=32)
def _raise_sites(source: str) -> tuple[RaiseSite, ...]:
    tree = ast.parse(source)
    lines = io.StringIO(source, newline="").readlines()  # as the parser counts them: \n, \r\n or \r
    sites: list[RaiseSite] = []
    for node, scope in _walk(tree, []):
        if isinstance(node, ast.Raise):
            exception, message, assembled = _describe(node, lines)
            sites.append(RaiseSite(node.lineno, _qualname(scope), exception, message, assembled))
    return tuple(sorted(sites, key=lambda site: site.line))


def functions(source: str) -> dict[str, FunctionSpan]:
    """Every function by qualified name, with its line span."""
    spans = {}
    for node, scope in _walk(ast.parse(source), []):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = _qualname([*scope, (node.name, False)])
            spans[name] = FunctionSpan(name, node.lineno, node.end_lineno or node.lineno)
    return spans


def _walk(node: ast.AST, scope: list[tuple[str, bool]]) -> Iterator[tuple[ast.AST, list[tuple[str, bool]]]]:
    """(node, enclosing scopes as (name, is_class)) for every node."""
    for child in ast.iter_child_nodes(node):
        yield child, scope
        if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _walk(child, [*scope, (child.name, isinstance(child, ast.ClassDef))])
        else:
            yield from _walk(child, scope)


def _qualname(scope: list[tuple[str, bool]]) -> str:
    """Python's `co_qualname` for a scope: a function nested in a function is `f.<locals>.g`."""
    parts: list[str] = []
    for index, (name, _) in enumerate(scope):
        if index and not scope[index - 1][1]:  # the parent is a function
            parts.append("<locals>")
        parts.append(name)
    return ".".join(parts) or "<module>"


def _describe(node: ast.Raise, lines: list[str]) -> tuple[str | None, str | None, bool]:
    """(exception, message template, assembled): the first argument's text when it is a string; else
    the one string argument (a `%`-formatted one included) the exception makes its message from."""
    exc = node.exc
    if exc is None:
        return None, None, False
    call = exc if isinstance(exc, ast.Call) else None
    target = call.func if call else exc
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
    if not call or not call.args:
        return name, None, False
    segment = _segment(lines, call.args[0])
    exact = template_of(segment) if segment else None
    if exact is not None:
        return name, exact, False
    texts = [text for text in (_formatted(lines, arg) for arg in call.args) if text is not None]
    return (name, texts[0], True) if len(texts) == 1 else (name, None, False)


_CONVERSION = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]")


def _formatted(lines: list[str], node: ast.expr) -> str | None:
    """The template of a string argument: a literal, or a literal `%`-formatted (`"... %r" % tag`), whose
    conversions become placeholders named as written (`{%r}`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        text = node.left.value.replace("{", "{{").replace("}", "}}")
        return _CONVERSION.sub(lambda found: "%" if found.group() == "%%" else "{" + found.group() + "}", text)
    segment = _segment(lines, node) if isinstance(node, ast.Constant | ast.JoinedStr) else None
    return template_of(segment) if segment else None


def _segment(lines: list[str], node: ast.expr) -> str | None:
    """`ast.get_source_segment` over lines split once (it splits the whole file again at every call:
    quadratic in a 2,000-line module). Offsets are in UTF-8 bytes, as the parser gives them."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    head = lines[first].encode()[node.col_offset:].decode()
    tail = lines[last].encode()[:node.end_col_offset].decode()
    return "".join([head, *lines[first + 1:last], tail])


def template_of(literal: str) -> str | None:
    """Entry-template text of a (possibly implicitly concatenated, possibly f-) string literal.

    f-string parts keep their `{...}` as written; plain parts have braces doubled, since in a
    template a single brace opens a placeholder. Anything but string literals gives None.
    """
    parts = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT, tokenize.INDENT,
                          tokenize.DEDENT):
            continue
        if token.type != tokenize.STRING:
            return None
        text = token.string
        prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))]
        if "f" in prefix.lower():
            plain = prefix.replace("f", "").replace("F", "") + text[len(prefix):]
            parts.append(ast.literal_eval(plain))
        else:
            parts.append(ast.literal_eval(text).replace("{", "{{").replace("}", "}}"))
    return "".join(parts) if parts else None

"""Do the entries' source pins still hold? Checked against the real source, by AST.

Stages:
1. `pinned_problems`  for every entry, at its pinned release: `source.line` is a `raise` of the
                      entry's exception inside `source.function`, and that raise's message
                      template equals the entry's (implicit errors: the line lies in the function).
2. `resolve_line`     for any other release, where the same raise now is (None if it is gone),
                      so the version matrix can record one line per release.
All problems are collected and reported together, each at the entry's `source.line`.

Two ways a library finishes a message away from its `raise`, both read here:
- its own exception class's `__str__` goes on after the raise's words (pydantic's "For further information
  visit https://errors.pydantic.dev/<release>/u/<code>" line): the documented message is the raise's template, then
  a line break and what the class appends. Python's own exceptions show exactly their argument: never for them.
- the raise passes a message made elsewhere (click's `Context.fail(message)` raises `UsageError(message, self)`, the
  words `ngettext("Got unexpected extra argument ({args})", ...).format(...)` in a caller; babel's
  `UnknownLocaleError(identifier)` makes `f"unknown locale {identifier!r}"` in its `__init__`): the pin holds when
  a formatted literal of the same file (an f-string, a `str.format` one) is the documented template.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import functools
import io
from dataclasses import dataclass, field

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.source.raise_sites import FunctionSpan, RaiseSite, _segment, functions, raise_sites, template_of
from errorkb.source.upstream import package_folder, pinned_file, read_source, runtime_version, source_file


@dataclass(frozen=True)
class SourceIndex:
    """The raise sites and function spans of one release's file."""

    sites: list[RaiseSite]
    spans: dict[str, FunctionSpan]
    text: str = field(default="", repr=False)

    @property
    def formats(self) -> frozenset[str]:
        """The file's formatted literals (`formatted`): read only for a raise that passes a variable."""
        return formatted(self.text)

    @classmethod
    def of(cls, text: str) -> SourceIndex | None:
        """The index of a Python source text; None when it does not parse."""
        try:
            return cls(raise_sites(text), functions(text), text)
        except (SyntaxError, ValueError, RecursionError):
            return None

    @classmethod
    def read(cls, project: Project, release: str, path: str, runtime: bool = False) -> SourceIndex | None:
        """The index of `path` at `release`, where that release's source lies here (the runtime's, for a
        source with `runtime: true`: the installed runtime's file, when it is that release)."""
        found = pinned_file(project, release, path, runtime)
        text = read_source(found) if found else None
        return cls.of(text) if text is not None else None


@dataclass(frozen=True)
class PinCheck:
    """What `check_pins` found: problems of the pins it checked, and the pins it could not check
    because their release's source is not on this machine (release → entry ids): never a failure."""

    problems: list[Problem]
    unchecked: dict[str, list[str]]


def pinned_problems(loaded: list[LoadedEntry], project: Project) -> list[Problem]:
    return check_pins(loaded, project).problems


def check_pins(loaded: list[LoadedEntry], project: Project) -> PinCheck:
    problems = []
    unchecked: dict[str, list[str]] = {}
    indexes: dict[tuple[str, str, bool], SourceIndex | None] = {}
    for one in loaded:
        entry = one.entry
        line, col = one.positions.of_value(("source", "line"))
        where = project.rel(one.path)
        if entry.source.release is None:
            problems.append(Problem(where, line, col, "source.release is not set, so the pin cannot be checked; "
                                                      "add the release whose file equals the pinned commit's"))
            continue
        key = (entry.source.release, entry.source.path)
        runtime = entry.source.runtime
        if (*key, runtime) not in indexes:
            indexes[(*key, runtime)] = SourceIndex.read(project, *key, runtime=runtime)
        index = indexes[(*key, runtime)]
        if index is None and runtime:
            installed = runtime_version(project)
            if installed != entry.source.release:  # another runtime here (the verifier: not run), or none
                unchecked.setdefault(f"{project.library.runtime} {entry.source.release}", []).append(entry.id)
                continue
            problems.append(Problem(where, line, col, f"source.path {entry.source.path} is not a file of the "
                                                      f"installed {project.library.runtime} {installed}"))
            continue
        if index is None:
            if project.library.package_path(entry.source.path) is None:
                message = (f"source.path {entry.source.path} is not a file of the {project.library.name} package "
                           f"(expected {project.library.source_root + '/' if project.library.source_root else ''}"
                           f"{project.library.name}/...)")
            elif source_file(project, *key) is not None:
                message = f"{entry.source.path} in {entry.source.release} is not readable Python source"
            elif package_folder(project, entry.source.release) is None:  # not built here: not checked
                unchecked.setdefault(entry.source.release, []).append(entry.id)
                continue
            else:
                message = f"{entry.source.path} is not a file of {project.library.dist} {entry.source.release}"
            problems.append(Problem(where, line, col, message))
            continue
        mismatch = pin_mismatch(entry, index)
        if mismatch:
            problems.append(Problem(where, line, col, mismatch))
    return PinCheck(problems, unchecked)


def pin_mismatch(entry: Entry, index: SourceIndex) -> str | None:
    """Why the entry's pin does not hold in `index`, or None when it does."""
    source = entry.source
    release = f"{source.path} in {source.release}"
    span = index.spans.get(source.function)
    if span is None:
        return f"{source.function} is not defined in {release}"
    if source.implicit or entry.kind != "raise":  # no raise statement of its own: the line lies in the function
        if not span.first <= source.line <= span.last:
            return (f"expected line {source.line} inside {source.function}, which spans lines "
                    f"{span.first}-{span.last} in {release}")
        return None
    at_line = next((site for site in index.sites if site.line == source.line), None)
    found = resolve_line(entry, index)
    if at_line is None or at_line.function != source.function:
        moved = f"; the matching raise is at line {found}" if found else ""
        return f"expected a raise in {source.function} at line {source.line} of {release}, found none{moved}"
    if at_line.exception != entry.exception.rsplit(".", 1)[-1]:
        return f"line {source.line} raises {at_line.exception}, expected {entry.exception}"
    if at_line.message is None:  # a message made up the stack: the file's formatted literals say its words
        if made_up_the_stack(entry.message, at_line.exception, index):
            return None
        close = difflib.get_close_matches(entry.message, sorted(index.formats), n=1, cutoff=0.5)
        return (f"message differs at line {source.line}: the raise passes a message made elsewhere, and no "
                f"formatted literal of {release} (an f-string, a `str.format` one) makes the documented one\n"
                f"  expected: {entry.message}\n"
                f"  closest:  {close[0] if close else '(none)'}")
    if not same_message(at_line.message, at_line.exception, entry.message, at_line.assembled):
        return (f"message differs at line {source.line}\n  expected: {entry.message}\n"
                f"  found:    {at_line.message}")
    return None


def resolve_line(entry: Entry, index: SourceIndex) -> int | None:
    """Line of the raise in `source.function` with the entry's exception and template."""
    exception = entry.exception.rsplit(".", 1)[-1]
    for site in index.sites:
        if site.function == entry.source.function and site.exception == exception \
                and (same_message(site.message, site.exception, entry.message, site.assembled)
                     or site.message is None and made_up_the_stack(entry.message, site.exception, index)):
            return site.line
    return None


def made_up_the_stack(documented: str, exception: str | None, index: SourceIndex) -> bool:
    """Whether a raise that passes a variable makes the documented message: a formatted literal of its file
    is the template (or, for a library's exception, its beginning: `same_message`)."""
    return any(same_message(literal, exception, documented) for literal in index.formats)


@functools.lru_cache(maxsize=8)
def formatted(text: str) -> frozenset[str]:
    """The templates of a source's formatted literals: its f-strings (`f"unknown locale {identifier!r}"`, which
    babel's `UnknownLocaleError.__init__` makes its message with), its `"... ({args})".format(...)` literals, and the
    literals a call before `.format` translates or picks (`_("...")`, `ngettext("... argument ({args})", "...
    arguments ({args})", n)`). Fields are template placeholders as written."""
    found: set[str] = set()
    lines = io.StringIO(text, newline="").readlines()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.JoinedStr) and any(isinstance(part, ast.FormattedValue) for part in node.values):
            segment = _segment(lines, node)
            template = template_of(segment) if segment else None
            if template is not None:
                found.add(template)
            continue
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"):
            continue
        owner = node.func.value
        literals = [owner] if isinstance(owner, ast.Constant) else owner.args if isinstance(owner, ast.Call) else []
        found.update(one.value for one in literals
                     if isinstance(one, ast.Constant) and isinstance(one.value, str) and "{" in one.value)
    return frozenset(found)


def same_message(raised: str | None, exception: str | None, documented: str, assembled: bool = False) -> bool:
    """Whether a raise statement's message template is the documented one. A `KeyError` shows its
    message as the repr of its argument, quotes included (`KeyError: 'Cache only has 0 layers'`),
    so an entry documents it quoted. A library's own exception may go on after the raise's words, on a line of
    its own (its `__str__` appends a "see also" line); Python's exceptions never do. An assembled message (the
    exception's `__str__` makes it from the raise's string argument and more) holds the argument's words: each
    of its literal runs, in order."""
    if raised == documented:
        return True
    if raised is not None and documented.startswith(raised + "\n") and not builtin_exception(exception):
        return True  # the library's exception goes on after the raise's words, on a line of its own
    if assembled and raised is not None:
        return _holds_in_order(raised, documented)
    return exception == "KeyError" and raised is not None and documented == f"'{raised}'"


def builtin_exception(exception: str | None) -> bool:
    """Whether `exception` names one of Python's own exceptions, whose message is exactly its argument."""
    found = getattr(builtins, exception or "", None)
    return isinstance(found, type) and issubclass(found, BaseException)


def _holds_in_order(raised: str, documented: str) -> bool:
    """Whether every literal run of the `raised` template appears in `documented`, in order."""
    from errorkb.core.message import Literal, MessageTemplate, TemplateSyntaxError

    try:
        runs = [part.text for part in MessageTemplate.parse(raised).parts if isinstance(part, Literal)]
    except TemplateSyntaxError:
        return False
    at = 0
    for run in runs:
        found = documented.find(run.strip(), at) if run.strip() else at
        if found < 0:
            return False
        at = found + len(run.strip())
    return bool(runs)

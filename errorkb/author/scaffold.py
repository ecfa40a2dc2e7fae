"""`errorkb new`: entry and snippet stubs from a pasted traceback, or from a similar entry.

What a traceback gives, and how:

- the exception and its message (`paste.read_paste`, the lookup's reading of a paste);
- the source pin: the innermost frame inside the library's package, resolved by AST in the
  *installed* release (`raise_sites`, `functions`): the qualified function, and the `raise` on
  that line, or `implicit: true` when Python or the runtime raised under a call there. The
  release is the installed one; the commit only where the profile knows it for that release
  (a release alone is a complete pin). When the paste's line is not in that function here (the
  paste came from another release), the pin moves to the function's raise whose message fits.
  With no frame of the library's but the innermost frame in the runtime's package (the runtime
  raised in its own code: an export of a model that returns its cache), the pin is that frame in the
  installed runtime, `runtime: true`, with its module, and the entry is verified upstream only;
- the template: that raise's own f-string text when the pasted message fits it (its run-time
  values become `expect.placeholders`), else the message with its run-time values (numbers,
  quoted names, shapes, paths) turned into named placeholders, listed in a TODO comment for the
  author to confirm; a message that goes over several lines is kept whole (the lines
  the lookup reads as its continuation): its first line alone may be a header every error of the
  class starts with (pydantic's `1 validation error for int`), and a header as the message would
  match, and confirm, any of them; a TODO comment says so;
- the kind: `removed` for a missing attribute or import at the user's own code, `signature` for
  arguments a call no longer binds there, else `raise`;
- a before that reproduces the paste as far as the paste shows it: the failing call line of
  the user's innermost frame, with a TODO where setup is needed.

Prose gets explicit "TODO: ..." text, which loads (so `errorkb check` and `mkdocs serve` work on
the draft at once) and which `todo.unfinished` lists until it is replaced. No file is ever
overwritten: if any of the files exists, nothing is written.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from errorkb.author.paste import Frame, Pasted, clean
from errorkb.author.public import exported, public_module, submodule
from errorkb.core.entry import Entry, library_folder
from errorkb.core.load import LoadedEntry, unfit_id
from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate, TemplateSyntaxError, is_degenerate
from errorkb.core.project import Project, dotted
from errorkb.plugs import runtime_for
from errorkb.source.drift import SourceIndex
from errorkb.source.raise_sites import FunctionSpan
from errorkb.source.upstream import package_folder, runtime_source_file, runtime_version
from errorkb.verify.targets import installed_version

MAX_MESSAGE = 2000  # characters of a message `new` writes into an entry
MAX_PLACEHOLDER_VALUE = 200  # longer run-time values are not pinned in expect.placeholders
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
TODO = "TODO"


class ScaffoldError(ValueError):
    """Why no stub was written; the message says what to do."""


@dataclass(frozen=True)
class Pin:
    path: str  # repository path
    line: int
    function: str
    release: str
    commit: str | None = None
    implicit: bool = False
    todo: str | None = None  # what the author must still check about the pin
    module: str | None = None  # for a runtime pin: the runtime's module that defines `function`
    runtime: bool = False  # the raise site lies in the runtime's package (`source.runtime`)
    fails: str | None = None  # the pinned function raises on every call (`failing`): no after verifies there


@dataclass
class Draft:
    """Everything an entry stub says, before it is written as YAML."""

    id: str
    library: str
    exception: str = "ValueError"
    message: str = "TODO: the error's message, exactly as the source's f-string renders it"
    message_todo: list[str] = field(default_factory=list)  # comment lines above `message`
    kind: str = "raise"
    api: tuple[str, str] | None = None  # (owner, name)
    pin: Pin | None = None
    targets: list[str] | None = None  # the targets it is verified on, where not every one applies
    releases: str | None = None  # releases.raises, where the entry needs one from the start
    placeholders: dict[str, str] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    title: str = "TODO: a title that names the mistake, in the reader's words"
    before: str = ""
    after: str = ""
    guard: str = ""
    imports: str = ""  # the import of what the user's line calls (`_called_imports`), for every snippet


# -- the message --------------------------------------------------------------------------------

_VALUES = re.compile(r"""
      (?P<path> \( (?: / | [A-Za-z]:/ ) [^()\n]{0,1000} \) )               # (/venv/.../__init__.py)
    | (?P<shape> \b[A-Za-z_]\w{0,40}\.Size\( \[ [0-9,\s]{0,400} \] \)      # a runtime's Size([2, 8])
               | [\[(] [ ]? -?[0-9]{1,12} (?: [ ]?,[ ]? -?[0-9]{1,12}){0,31} [ ]?,?[ ]? [\])] )
    | (?P<name> (?<!\w)'[^'\n]{1,200}'(?!\w)                             # a quoted name or value (not don't)
              | (?<!\w)"[^"\n]{1,200}"(?!\w) )                             # Rust's and C's "{}" (nh3, protobuf)
    | (?P<n> (?<![\w.]) -?[0-9]{1,20} (?:\.[0-9]{1,20})? (?:e[-+]?[0-9]{1,4})? (?!\w|\.[0-9]) )
""", re.VERBOSE)


def templatize(message: str, keep_quoted: bool = False) -> tuple[str, list[tuple[str, str]]]:
    """The message as a template: each run-time value a named placeholder ({n}, {n2}, {name},
    {shape}, {path}), literal braces doubled; with the (placeholder, value) pairs replaced."""
    out: list[str] = []
    replaced: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    position = 0
    for found in _VALUES.finditer(message):
        kind = found.lastgroup or "n"
        if kind == "name" and keep_quoted:
            continue
        out.append(_escape(message[position:found.start()]))
        counts[kind] = counts.get(kind, 0) + 1
        name = kind if counts[kind] == 1 else f"{kind}{counts[kind]}"
        value = found.group()
        if kind == "path":
            out.append(f"({{{name}}})")
            value = value[1:-1]
        elif kind == "name":
            out.append(f"{value[0]}{{{name}}}{value[0]}")  # in the quotes it was in
            value = value[1:-1]
        else:
            out.append(f"{{{name}}}")
        replaced.append((name, value))
        position = found.end()
    out.append(_escape(message[position:]))
    return "".join(out), replaced


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def specific_template(message: str, generic: tuple[str, ...], keep_quoted: bool) -> tuple[str, list[tuple[str, str]]]:
    """The most general template that still identifies the error: every run-time value replaced;
    failing that, quoted names kept; failing that, the message as it is."""
    for keep in ((keep_quoted,) if keep_quoted else (False, True)):
        template, replaced = templatize(message, keep)
        if not is_degenerate(template, generic):
            return template, replaced
    return _escape(message), []


# -- the pin ------------------------------------------------------------------------------------


def library_frame(project: Project, frames: tuple[Frame, ...], folder: Path | None) -> tuple[Frame, str] | None:
    """The innermost frame inside the library's package, with its repository path; a frame
    counts only when the installed package has that file (a user folder that happens to share
    the package's name does not). A library that is one module (`six.py`) has one file: a frame
    counts when it is that file, as installed here (`folder` then holds the module)."""
    top = project.library.name.split(".")[0]
    root = project.library.source_root.strip("/")
    module = f"{top}.py" if "." not in project.library.name else None
    package = project.library.name.replace(".", "/")  # `folder` is the top package's (`google/` of `google.protobuf`)
    for frame in reversed(frames):
        path = frame.path.replace("\\", "/")
        if module is not None and (path == module or path.endswith(f"/{module}")):
            if folder is not None and (not (folder / module).is_file() or (folder / top / "__init__.py").is_file()):
                continue
            return frame, "/".join(part for part in (root, module) if part)
        marker = f"/{package}/"  # a namespace package's library is its own package: `google/protobuf/`
        at = path.rfind(marker)
        if at < 0:
            continue
        inside = path[at + len(marker):]
        parts = PurePosixPath(inside).parts
        if not parts or any(part in ("", ".", "..") for part in parts) or not inside.endswith(".py"):
            continue
        if folder is not None and not (folder.joinpath(*package.split("/")[1:]) / inside).is_file():
            continue
        return frame, "/".join(part for part in (root, package, inside) if part)
    return None


def runtime_frame(project: Project, frames: tuple[Frame, ...]) -> tuple[Frame, str, str] | None:
    """The innermost frame, with its path in the runtime's repository and the installed runtime's
    release, when it lies in the runtime's package as installed here (the runtime raised in its own code)."""
    from errorkb.plugs import runtime_for

    release = runtime_version(project)
    if not frames or release is None:
        return None
    frame = frames[-1]
    for package in runtime_for(project.library.runtime).packages:
        at = frame.path.replace("\\", "/").rfind(f"/{package}/")
        if at >= 0:
            inside = frame.path.replace("\\", "/")[at + 1:]
            if inside.endswith(".py") and runtime_source_file(project, release, inside) is not None:
                return frame, inside, release
    return None


def _innermost_function(spans: dict[str, FunctionSpan], line: int, name: str) -> str | None:
    """The innermost function named `name` (by its last part) whose span holds `line`."""
    holding = [span for span in spans.values() if span.first <= line <= span.last
               and span.name.rsplit(".", 1)[-1] == name]
    return min(holding, key=lambda span: span.last - span.first).name if holding else None


def pin_from(project: Project, frame: Frame, path: str, release: str, message: str,
             runtime: bool = False, last: bool = False) -> tuple[Pin, str | None]:
    """The pin of `frame` in the installed release (the runtime's, with `runtime`), and the raise's
    template when the message fits it (`last`: the message is the last the paste shows, nothing after it)."""
    commit = project.library.commit if release == project.library.release and not runtime else None
    module = dotted(PurePosixPath(path)) if runtime else None

    def pin(line: int, function: str, implicit: bool = False, todo: str | None = None) -> Pin:
        return Pin(path, line, function, release, commit, implicit, todo, module, runtime)

    index = SourceIndex.read(project, release, path, runtime)
    if index is None:
        return pin(frame.line, frame.function, todo=f"{path} could not be read at {release}: check the line and "
                                                    "function"), None
    function = _innermost_function(index.spans, frame.line, frame.function)
    if function is None:  # the paste came from another release: find the function's raise that fits
        named = [span.name for span in index.spans.values() if span.name.rsplit(".", 1)[-1] == frame.function]
        for site in index.sites:
            if site.function in named and site.message and not site.assembled and _fits(site.message, message):
                return pin(site.line, site.function, todo=f"the paste's line {frame.line} is not in {frame.function} "
                                                          f"at {release}; pinned to the raise whose message fits"), \
                    site.message
        qualified = named[0] if named else frame.function
        return pin(frame.line, qualified, todo=f"line {frame.line} is not in {frame.function} at {release} (the paste "
                                               "may come from another release): pin the line where the installed "
                                               "release raises"), None
    sites = [site for site in index.sites if site.function == function and frame.line - 3 <= site.line <= frame.line]
    if not sites:
        return pin(frame.line, function, implicit=True), None
    site = sites[-1]
    # an assembled message (the exception's `__str__` may add to the argument's words: PyYAML's mark, on lines
    # after it) is the template of the whole only where the message fits it and the paste ends with it (jinja2's
    # `TemplateNotFound(template, f"{template!r} not found in search {plural}: {paths_str}")` shows exactly that)
    fitting = site.message if site.message and _fits(site.message, message) else None
    if site.assembled and fitting is not None and not (last and _fits_in_lines(fitting, message)):
        fitting = None
    if site.message is None:  # a message made up the stack: the literal the library formats the values into
        fitting = _formatted_fit(project, index, message)
    return pin(site.line, function), fitting


def _formatted_fit(project: Project, index: SourceIndex, message: str) -> str | None:
    """The formatted literal of the raising file that the message is an instance of (click's `"Got unexpected
    extra argument ({args})"`, formatted by a caller and raised by `Context.fail`; babel's `f"unknown locale
    {identifier!r}"`, made by `UnknownLocaleError.__init__`): the most specific one, never one too generic to
    identify the error."""
    generic = (*GENERIC_WORDINGS, *runtime_for(project.library.runtime).generic_messages)
    fitting = [literal for literal in index.formats if _fits(literal, message) and not is_degenerate(literal, generic)]
    return max(fitting, key=lambda literal: (len(MessageTemplate.parse(literal).literal_text), literal),
               default=None)


def _fits_in_lines(template: str, message: str) -> bool:
    """Whether the message fits the template with no value spanning a line break (a value that swallows the lines
    an exception's `__str__` adds, PyYAML's mark, is no reading of them)."""
    try:
        values = MessageTemplate.parse(template).match(message)
    except TemplateSyntaxError:
        return False
    return values is not None and not any("\n" in value for value in values.values())


def _fits(template: str, message: str) -> bool:
    try:
        return MessageTemplate.parse(template).match(message) is not None
    except TemplateSyntaxError:
        return False


# -- the kind -----------------------------------------------------------------------------------

_REMOVED = (re.compile(r"^cannot import name '(?P<name>[A-Za-z_]\w*)' from '(?P<owner>[A-Za-z_][\w.]*)'"),
            re.compile(r"^module '(?P<owner>[A-Za-z_][\w.]*)' has no attribute '(?P<name>[A-Za-z_]\w*)'"),
            re.compile(r"^(?:type object )?'(?P<cls>[A-Za-z_]\w*)'(?: object)? has no attribute "
                       r"'(?P<name>[A-Za-z_]\w*)'"))
_SIGNATURE = re.compile(r"^(?P<call>[A-Za-z_][\w.]*)\(\) (?:got an unexpected keyword argument|takes|missing)")


def guess_kind(project: Project, pasted: Pasted, in_library: bool) -> tuple[str, tuple[str, str] | None]:
    """('removed' | 'signature' | 'raise', (api owner, name) for the first two)."""
    if in_library:
        return "raise", None
    top = project.library.name
    for pattern in _REMOVED:
        found = pattern.match(pasted.message)
        if found:
            groups = found.groupdict()
            owner = groups.get("owner") or f"{top}.{groups['cls']}"
            return "removed", (owner, groups["name"])
    found = _SIGNATURE.match(pasted.message)
    if found and pasted.exception and pasted.exception.endswith("TypeError"):
        call = found.group("call")
        owner, _, name = call.rpartition(".")
        return "signature", (f"{top}.{owner}" if owner else top, name)
    return "raise", None


# -- drafts -------------------------------------------------------------------------------------


def from_paste(project: Project, entry_id: str, pasted: Pasted, text: str = "") -> Draft:
    """The draft a pasted traceback gives (`text`: the paste itself, for the lines the exception appends)."""
    if len(pasted.message) > MAX_MESSAGE:
        raise ScaffoldError(f"the exception's message is {len(pasted.message):,} characters; errorkb new takes "
                            f"messages up to {MAX_MESSAGE:,} (paste the traceback, not a log around it)")
    if not pasted.message.strip():
        raise ScaffoldError("no exception message found in the paste; paste the whole traceback, ending with "
                            "the 'SomeError: message' line")
    library = project.library
    release = installed_version(library)
    folder = package_folder(project, release) if release else None
    found = library_frame(project, pasted.frames, folder)
    draft = Draft(id=entry_id, library=library.repository, exception=(pasted.exception or "ValueError"))
    if pasted.exception is None:
        draft.message_todo.append("TODO: the paste named no exception class: set `exception`")
    innermost_is_library = found is not None and pasted.frames and found[0] == pasted.frames[-1]
    draft.kind, draft.api = guess_kind(project, pasted, bool(innermost_is_library))
    message, cut = _whole_message(pasted)
    fitting = None
    runtime = runtime_frame(project, pasted.frames) if found is None and draft.kind == "raise" else None
    if found is not None and release is not None and draft.kind == "raise":
        last = bool(text) and _tail(text).rstrip().endswith(message)
        draft.pin, fitting = pin_from(project, found[0], found[1], release, message, last=last)
    elif runtime is not None:
        draft.pin, fitting = pin_from(project, runtime[0], runtime[1], runtime[2], message, runtime=True)
        draft.targets = ["upstream"]  # the bundled implementation reproduces the library, not the runtime
        draft.releases = f">={release}" if release else ">=1.0"
    elif release is not None:
        draft.pin = _unknown_pin(project, release, draft.kind)
    if found is not None and draft.pin is not None and release is not None:
        draft.pin = _failer_pin(project, draft.pin, pasted.frames[:pasted.frames.index(found[0])], folder, message)
    _set_message(draft, message, fitting, project)
    if "\n" in message and fitting is None:
        _note_lines(draft, message, cut)
    appended = _appended(pasted, text, folder, library.name.split(".")[0]) if text and cut == 0 else None
    if appended is not None:
        _append(draft, *appended)
    user = _user_frame(pasted.frames, found[0] if found else runtime[0] if runtime else None)
    statement = _statement(user.code if user else None)
    draft.imports = _called_imports(project, pasted.frames, user, statement)
    if found is None and runtime is None and draft.kind == "raise" and draft.pin is not None and statement is not None \
            and pasted.frames[-1] is user and (draft.imports or _reaches_by_name(statement, project.library.name)):
        draft.pin = replace(draft.pin, todo=_UNDER_THE_LINE.format(line=_comment(statement)[:100]))
    draft.before = before_stub(project, pasted, user, draft)
    draft.after = after_stub(project, draft)
    draft.guard = guard_stub(project, draft)
    return draft


def _failer_pin(project: Project, pin: Pin, outer: tuple[Frame, ...], folder: Path | None, message: str) -> Pin:
    """The pin, with a TODO where its function raises on every call (`failing`): no after can verify there, and
    the paste's caller of it inside the library (where the library decides to fail) is the pin to take instead."""
    from errorkb.author.failing import AFTER_CANNOT, raises_every_call

    index = SourceIndex.read(project, pin.release, pin.path, pin.runtime) if not pin.implicit else None
    failer = raises_every_call(index.text, pin.function) if index is not None else None
    if failer is None:
        return pin
    said = AFTER_CANNOT.format(function=failer.function, exception=failer.exception)
    caller = library_frame(project, outer, folder)
    if caller is not None:
        instead, _ = pin_from(project, caller[0], caller[1], pin.release, message)
        said += (f": from the paste, `path: {instead.path}`, `line: {instead.line}`, `function: {instead.function}`"
                 + (", `implicit: true`" if instead.implicit else " (a raise of its own is there: check it)"))
    return replace(pin, todo=f"{pin.todo}; {said}" if pin.todo else said, fails=failer.function)


def _whole_message(pasted: Pasted) -> tuple[str, int]:
    """The message with the lines it goes on over, as many whole lines as `MAX_MESSAGE` holds (the first
    always), and how many lines were left out."""
    if not pasted.whole:
        return pasted.message, 0
    lines = pasted.whole.split("\n")
    kept, size = [lines[0]], len(lines[0])
    for line in lines[1:]:
        if size + 1 + len(line) > MAX_MESSAGE:
            break
        kept.append(line)
        size += 1 + len(line)
    return "\n".join(kept), len(lines) - len(kept)


_APPENDED = re.compile(r"\n(?P<gap>[ \t]*\n)+(?P<more>[^\n]+(?:\n[^\n]+){0,3})\s*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[,;:]?")


def _appended(pasted: Pasted, text: str, folder: Path | None, top: str) -> tuple[str, str] | None:
    """(the gap, the lines) a library's exception appends after its message, on lines of their own after a blank
    one, in its `__str__` (pydantic's "For further information visit https://errors.pydantic.dev/<release>/u/<code>"):
    the paragraph that ends the paste, when the library's own source holds its opening words. A line a tool
    prints after a traceback ("Process finished with exit code 1") is no library's words; Python's exceptions
    show exactly their argument."""
    from errorkb.source.drift import builtin_exception

    if not pasted.exception or builtin_exception(pasted.exception.rsplit(".", 1)[-1]) or folder is None:
        return None
    body = _tail(text)
    said = pasted.whole or pasted.message
    at = body.rfind(said)
    found = _APPENDED.fullmatch(body, at + len(said)) if at >= 0 else None
    if found is None:
        return None
    words = _opening_words(found.group("more"))
    if len(words.split()) < 3 or not _in_library(folder, top, words):  # three words or more: the library's
        return None
    return body[at + len(said):found.start("more")].replace(" ", "").replace("\t", ""), found.group("more")


def _tail(text: str) -> str:
    """The end of the paste as the lookup reads it (bounded: a paste of megabytes is read in time linear in it)."""
    from errorkb.lookup import keep_tail, normalize

    return clean(normalize(keep_tail(text)))


def _opening_words(line: str) -> str:
    """The words a line opens with, up to the first token that is not a word (a link, a number, a name)."""
    words = []
    for token in line.split(" "):
        if not _WORD.fullmatch(token):
            break
        words.append(token)
    return " ".join(words)


def _in_library(folder: Path, top: str, words: str) -> bool:
    """Whether a source file of the installed library holds `words` (its one module, or its package's files)."""
    module = folder / f"{top}.py"
    files = [module] if module.is_file() else sorted(folder.rglob("*.py"))[:5000]
    for path in files:
        try:
            if words in path.read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def _append(draft: Draft, gap: str, more: str) -> None:
    """The draft's message with the lines the exception appends, each run-time value there a placeholder of its
    own (a release in a documentation link varies from release to release: never pinned)."""
    taken = set(MessageTemplate.parse(draft.message).placeholders) if "TODO" not in draft.message else set()
    template, replaced = templatize(more)
    for name, _ in replaced:
        if name in taken:
            template = template.replace(f"{{{name}}}", f"{{{name}_appended}}")
    draft.message += gap + template
    draft.message_todo.append("TODO: the library's exception appends the last line(s) after a blank one (its "
                              "`__str__`); each placeholder there stands for")
    draft.message_todo += [f"  what varies (a release, a code): {{{name}}} was {json.dumps(value)[:80]}; then "
                           "delete this comment" for name, value in replaced]


def _note_lines(draft: Draft, message: str, cut: int) -> None:
    """The TODO comment of a message kept over several lines: why they are kept, and what to make of them."""
    lines = message.split("\n")
    if cut:  # the template matches the lines left out with a placeholder of their own
        draft.message += "\n{more}"
    header = json.dumps(lines[0][:80], ensure_ascii=True)
    kept = f"all kept but the last {cut} ({{more}})" if cut else "all kept"
    draft.message_todo += [
        f"TODO: the message goes over {len(lines) + cut} lines, {kept}: its first line alone ({header}) may be "
        "a header",
        f"  every {draft.exception.rsplit('.', 1)[-1]} starts with, and a header as the message confirms any of "
        "them as this entry; keep the lines",
        "  that say what failed; make a line that quotes the user's own input (a document, a file) a placeholder; "
        "then delete this comment"]


# A paste whose innermost frame is the user's own line, which uses the library: Python raised it on that line, or the
# library's compiled code the line called did (an extension module: protobuf's upb, with no Python frame at all).
_UNDER_THE_LINE = (
    "the paste has no Python frame of the library: the error was raised on your line `{line}` itself, by Python or "
    "by the library's compiled code it calls (an extension module), and errorkb pins an error to a Python function "
    "of the library (its `raise`, or `implicit: true` under a call on its line) and checks the error came from there; "
    "pin a Python function of the library that a call goes through on the way to this error and write the before "
    "through it; where every way to it is compiled code called straight from the user's line, errorkb cannot verify "
    "it as the library's (docs/contributing.md, section 3, \"Errors raised in compiled code\")")


def _unknown_pin(project: Project, release: str, kind: str) -> Pin:
    """A pin the author must fill: for a removed name or a changed signature, the replacement's
    definition; for an error with no library frame in the paste, the raising line."""
    library = project.library
    top = library.name.split(".")[0]
    folder = package_folder(project, release)
    single = "." not in library.name and folder is not None and (folder / f"{top}.py").is_file() \
        and not (folder / top / "__init__.py").is_file()  # a library that is one module: its one file
    path = library.follow[0] if library.follow else "/".join(
        part for part in (library.source_root.strip("/"),
                          *((f"{top}.py",) if single else (*library.name.split("."), "__init__.py")))
        if part)
    why = ("pin the replacement's definition (the path, line and function the fix calls)" if kind != "raise"
           else "the paste shows no frame inside the library: pin the line that raises")
    commit = library.commit if release == library.release else None
    return Pin(path, 1, "TODO", release, commit, False, why)


def _set_message(draft: Draft, message: str, fitting: str | None, project: Project) -> None:
    if fitting is not None:
        draft.message = fitting
        values = MessageTemplate.parse(fitting).match(message) or {}
        draft.placeholders = {k: v for k, v in values.items() if len(v) <= MAX_PLACEHOLDER_VALUE and "\n" not in v}
        return
    generic = (*GENERIC_WORDINGS, *runtime_for(project.library.runtime).generic_messages)
    template, replaced = specific_template(message, generic, keep_quoted=draft.kind != "raise")
    draft.message = template
    if replaced:
        draft.message_todo.append("TODO: confirm the placeholders: each stands for a run-time value of the pasted "
                                  "message; name them as the")
        draft.message_todo.append("  source's f-string does (e.g. {len(num_heads)}) or write a value back where "
                                  "it never changes, then delete this comment:")
        draft.message_todo += [f"    {{{name}}} was {json.dumps(value, ensure_ascii=True)[:120]}"
                               for name, value in replaced]
    elif is_degenerate(template, generic):  # kept out, so the stub loads; the author writes the template
        draft.message = f"TODO: the template of this too generic message: {message[:200]}"
        draft.message_todo.append("TODO: the pasted message is too generic to identify the error; write the "
                                  "template as the source's f-string renders it")


def _user_frame(frames: tuple[Frame, ...], library: Frame | None) -> Frame | None:
    """The user's innermost frame: the one that called into the library (or, with no library frame,
    the innermost frame). Never an installed package's frame, even where the user's shows no code
    (`python -c`, stdin, a REPL): the library's own line is no reproduction of what the user ran."""
    if library is None:
        return frames[-1] if frames else None
    outside = [frame for frame in frames[:frames.index(library)] if not _installed(frame.path)]
    return outside[-1] if outside else None


def _installed(path: str) -> bool:
    """Whether a frame's file is an installed package's (or the interpreter's frozen import machinery)."""
    parts = path.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts or path.startswith("<frozen ")


def _statement(code: str | None) -> str | None:
    """`code` when it parses as Python on its own, else None."""
    if not code:
        return None
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    return code


SHOW = "# --8<-- [start:show]\n{body}\n# --8<-- [end:show]\n"


def before_stub(project: Project, pasted: Pasted, user: Frame | None, draft: Draft) -> str:
    # the file's name only: a full path is the author's machine's, and the stub is committed
    where = f"{_file_name(user.path)}, line {user.line}, in {clean(user.function)[:100]}" if user else \
        "no frame of the user's code in the paste"
    statement = _statement(user.code if user else None)
    if statement is not None:
        body = statement
    elif user and user.code:
        body = f"# TODO: complete the call; the traceback showed only this line of it:\n# {user.code}"
    elif user:  # Python prints no line for code it did not read from a file
        body = (f"# TODO: the paste's frame ({where}) shows no code: Python prints none for `python -c`, stdin or\n"
                "# a REPL. Write the call you ran here (or run it from a file and paste that traceback)")
    else:
        body = "# TODO: the call that raises the error"
    setup = "" if draft.kind == "removed" and statement is not None else \
        f"# TODO: set up what the call below uses (the paste's frame: {where})\n\n"
    head = f"import {project.library.name}  # TODO: import what the call needs, as a user would\n\n"
    if draft.imports:
        head = f"{draft.imports}  # TODO: the rest the call needs; from the module a user imports it from\n\n"
    if draft.kind == "removed" and statement is not None and statement.lstrip().startswith(("import", "from")):
        head = ""
    return (f'"""TODO: one sentence: what this reproduces, as a user would hit it."""\n\n{head}{setup}'
            + SHOW.format(body=body))


def _called_imports(project: Project, frames: tuple[Frame, ...], user: Frame | None, statement: str | None) -> str:
    """The import of what the user's line calls into the library: the names the line uses that the module of the
    library frame it called defines (`Version("1.0-banana")` calls `__init__` in packaging/version.py, which
    defines `Version`: `from packaging.version import Version`), or that module itself where the line reaches it
    by its dotted name (`packaging.version.Version(v)`: `import packaging.version`). "" when there is none: a
    traceback shows the line, never its imports, and `import {library}` alone leaves the call's names undefined."""
    if user is None or statement is None or user not in frames:
        return ""
    release = installed_version(project.library)
    folder = package_folder(project, release) if release else None
    top = project.library.name  # what users import: a namespace package's own package (`google.protobuf`)
    if frames[-1] is user:  # no frame below the line: it raised, or compiled code it called did (protobuf's upb)
        return _top_level_imports(folder.joinpath(*top.split(".")[1:]), top, statement) if folder else ""
    found = library_frame(project, (frames[frames.index(user) + 1],), folder)
    if found is None or folder is None:
        return ""
    root = project.library.source_root.strip("/")
    path = PurePosixPath(found[1][len(root) + 1:] if root else found[1])
    module = dotted(path)
    on_disk = folder / path.name if len(path.parts) == 1 else folder / PurePosixPath(*path.parts[1:])
    folder = folder.joinpath(*top.split(".")[1:])  # the folder `top` is, below the top package's
    try:
        defined = {node.name for node in ast.parse(on_disk.read_text(encoding="utf-8")).body
                   if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)}
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return ""
    tree = ast.parse(statement)
    used = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    reached = {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    if module != top and module in reached:
        return f"import {module}"
    by_module: dict[str, list[str]] = {}
    for name in dict.fromkeys(used):
        if name in defined:  # from where a user imports it: the top level, or a public module, that re-exports it
            by_module.setdefault(public_module(folder, top, module, name), []).append(name)
        elif exported(folder, top, name) is not None or submodule(folder, top, name):  # another name of the
            by_module.setdefault(top, []).append(name)  # library's the line uses, or one of its modules
    return "\n".join(f"from {source} import {', '.join(sorted(names))}" for source, names in sorted(by_module.items()))


def _reaches_by_name(statement: str, name: str) -> bool:
    """The line reaches the library by its own name (`nh3.clean(...)`, `google.protobuf.json_format.Parse(...)`), as
    `import nh3` lets it: a use of the library no name imported from it shows."""
    tree = ast.parse(statement)
    if "." not in name:
        return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(tree))
    return any(isinstance(node, ast.Attribute) and f"{ast.unparse(node)}.".startswith(f"{name}.")
               for node in ast.walk(tree))


def _top_level_imports(folder: Path, top: str, statement: str) -> str:
    """The import of the names a line uses that the library's top level binds or that are its public modules
    (`descriptor_pb2.FileDescriptorProto(nme="x")`: `from google.protobuf import descriptor_pb2`), for a line with
    no frame of the library's below it to read them from; "" when it uses none."""
    tree = ast.parse(statement)
    used = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    names = [name for name in dict.fromkeys(used) if exported(folder, top, name) is not None
             or submodule(folder, top, name)]
    return f"from {top} import {', '.join(sorted(names))}" if names else ""


def _file_name(path: str) -> str:
    """The last part of a pasted frame's path (POSIX or Windows), without the folders above it."""
    return clean(PurePosixPath(path.replace("\\", "/")).name)[-200:] or "<unknown file>"


def after_stub(project: Project, draft: Draft) -> str:
    function = draft.pin.function if draft.pin else "the documented function"
    head = draft.imports or f"import {project.library.name}"
    body = f"# TODO: the fixed call: it must call {function} and return normally"
    if draft.pin is not None and draft.pin.fails:  # no call of it returns: say so, never ask for the impossible
        body = (f"# TODO: the fixed call. {function} raises on every call, so an after cannot call it and return\n"
                "# normally: pin its caller instead (the TODO above `source:` in the entry says which); calling\n"
                f"# {function} here on purpose raises the library's own error, and the after fails")
    return (f'"""TODO: one sentence: the fix."""\n\n{head}  # TODO: import what the fix needs\n\n'
            "# TODO: the same setup as before.py\n\n" + SHOW.format(body=body))


def guard_stub(project: Project, draft: Draft) -> str:
    head = draft.imports or f"import {project.library.name}"
    return (f'"""TODO: one sentence: the defensive pattern."""\n\n{head}  # TODO: import what the guard '
            "needs\n\n"
            + SHOW.format(body="# TODO: a check or construction that keeps the error from happening; as declared in "
                               "the entry,\n# it passes (runs clean and makes the call)"))


def from_like(project: Project, entry_id: str, like: LoadedEntry, pasted_draft: Draft | None) -> Draft:
    """A draft that starts from a similar entry: its kind, pin, tags and snippets (marked as
    copied), related to it; a pasted traceback's facts, when given, take precedence."""
    entry: Entry = like.entry
    source = entry.source
    pin = Pin(source.path, source.line, source.function, source.release or "", source.commit, source.implicit,
              module=source.module if source.runtime else None, runtime=source.runtime)
    draft = Draft(id=entry_id, library=entry.library, exception=entry.exception, message=entry.message,
                  kind=entry.kind, api=(entry.api.owner, entry.api.name) if entry.api else None, pin=pin,
                  targets=list(entry.targets) if entry.targets is not None else None,
                  releases=entry.releases.raises if source.runtime and entry.releases else None,
                  tags=list(entry.tags), related=[entry.id])
    draft.message_todo.append(f"TODO: the new error's message (this one is {entry.id}'s)")
    snippets = {}
    for role, file in (("before", entry.before.file), ("after", entry.after.file)):
        try:
            text = project.snippet_path(entry.id, file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        snippets[role] = f"# TODO: adapt this copy of snippets/{entry.id}/{file} to the new error\n" + text
    draft.before, draft.after = snippets["before"], snippets["after"]
    draft.guard = guard_stub(project, draft)
    if pasted_draft is not None:
        draft = replace(pasted_draft, before=draft.before, after=draft.after, tags=draft.tags, related=draft.related)
    return draft


# -- writing ------------------------------------------------------------------------------------


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar of `text` (JSON's escapes are YAML's; the characters YAML
    reads as line breaks or a BOM are escaped too)."""
    quoted = json.dumps(text, ensure_ascii=False)
    for char in ("\u2028", "\u2029", "\x85", "\ufeff"):
        quoted = quoted.replace(char, f"\\u{ord(char):04x}")
    return quoted


def _comment(text: str) -> str:
    """One line of a YAML comment: no newline or control character can end it early (cleaned first: `clean`
    makes a Unicode line separator a line break)."""
    return " ".join(clean(text).splitlines())


def entry_yaml(draft: Draft) -> str:
    """The entry stub's text; every value from the paste is a quoted scalar, every comment one line."""
    q = yaml_string
    lines = [f"id: {draft.id}", f"title: {q(draft.title)}", f"library: {draft.library}",
             f"exception: {draft.exception}"]
    lines += [f"# {_comment(line)}" for line in draft.message_todo]
    lines.append(f"message: {q(draft.message)}")
    lines.append(f"tags: [{', '.join(draft.tags)}]")
    if draft.kind != "raise":
        lines.append(f"kind: {draft.kind}")
    if draft.api is not None:
        lines += ["api:", f"  owner: {q(draft.api[0])}", f"  name: {q(draft.api[1])}"]
    if draft.pin is not None:
        pin = draft.pin
        if pin.todo:
            lines.append(f"# TODO: {_comment(pin.todo)}")
        lines += ["source:", f"  path: {q(pin.path)}", f"  line: {pin.line}", f"  function: {q(pin.function)}",
                  f"  release: {q(pin.release)}"]
        if pin.commit:
            lines.append(f"  commit: {pin.commit}")
        if pin.implicit:
            lines.append("  implicit: true  # raised by Python or the runtime under the call on this line")
        if pin.runtime:
            lines += [f"  module: {q(pin.module or '')}",
                      "  runtime: true  # the raise site is the runtime's (its installed release), not the library's"]
    if draft.targets is not None:
        lines.append(f"targets: [{', '.join(draft.targets)}]")
    if draft.releases is not None:  # a runtime pin's release is the runtime's: the library's releases are needed
        lines += ["# TODO: the library releases whose objects reach this raise (a range; `errorkb matrix` measures "
                  "where it really raises), then delete this comment",
                  f"releases: {{raises: {q(draft.releases)}}}"]
    else:
        example = f'">={draft.pin.release}"' if draft.pin and draft.pin.release else '">=1.0"'
        lines += ["# TODO: say in which releases the before raises, then delete this comment: uncomment and correct",
                  f"#   releases: {{raises: {example}}}   (a range; `errorkb matrix` measures where it really raises)"]
    lines += [
        "",
        "meaning: |",
        "  TODO: what the error means: what the library checks, and what is wrong when it fails.",
        "trigger: |",
        "  TODO: the call and the arguments that raise it.",
        "situations:",
        f"  - {q('TODO: a situation in which people hit it (one per item).')}",
        "solutions:",
        f"  - title: {q('TODO: the fix, as an imperative sentence')}",
        "    body: |",
        "      TODO: how, and why it works.",
        "before: before.py",
        "after: after.py",
    ]
    if draft.placeholders:
        lines += ["expect:", "  placeholders:"]
        lines += [f"    {q(name)}: {q(value)}" for name, value in draft.placeholders.items()]
    lines += [
        "guards:",
        f"  - title: {q('TODO: a defensive pattern')}",
        "    strategy: validation",
        "    file: guard_validate.py",
        "    expect:",
        "      outcome: passes",
        "prevention:",
        f"  - {q('TODO: how to keep it from happening.')}",
        f"related: [{', '.join(draft.related)}]",
    ]
    return "\n".join(lines) + "\n"


def stub_files(project: Project, draft: Draft) -> dict[Path, str]:
    """Every file the stub consists of, by path."""
    folder = project.entries / library_folder(draft.library)
    snippets = project.snippets / draft.id
    return {folder / f"{draft.id}.yml": entry_yaml(draft), snippets / "before.py": draft.before,
            snippets / "after.py": draft.after, snippets / "guard_validate.py": draft.guard}


def check_id(entry_id: str, reserved: frozenset[str], exists: Callable[[str], bool]) -> None:
    if not SLUG.fullmatch(entry_id):
        raise ScaffoldError(f"'{entry_id}' is not a kebab-case id such as 'static-layer-crop-negative'")
    unfit = unfit_id(entry_id)
    if unfit:
        raise ScaffoldError(unfit)
    if entry_id in reserved:
        raise ScaffoldError(f"'{entry_id}' is reserved: the site publishes a page of that name")
    if exists(entry_id):
        raise ScaffoldError(f"an entry '{entry_id}' exists already; choose another id")


def write_files(files: dict[Path, str], root: Path | None = None) -> list[Path]:
    """Write every file, or none: refuses (ScaffoldError) when any of them exists, or (given the repository's
    `root`) when a folder on the way is a link leading out of it (a clone may commit one where the settings
    check nothing: the library's entries folder); each is created exclusively, so one that appears meanwhile is
    never overwritten either."""
    present = [path for path in files if path.exists() or path.is_symlink()]
    if present:
        raise ScaffoldError("not overwriting: " + ", ".join(str(path) for path in present) + " already exist(s)")
    for path in files:
        if root is not None and not Path(os.path.realpath(path.parent)).is_relative_to(os.path.realpath(root)):
            link = next((folder for folder in [path.parent, *path.parent.parents] if folder.is_symlink()), path.parent)
            shown = link.relative_to(root).as_posix() if link.is_relative_to(root) else link
            raise ScaffoldError(f"{shown} leads out of the repository (a link to {os.path.realpath(link)}): nothing "
                                "was written; make it a folder of the repository")
    written = []
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        written.append(path)
    return written

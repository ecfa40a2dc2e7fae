"""YAML entries → validated `Entry` objects, strictly, with every problem located.

Stages, one function each; every stage collects problems instead of stopping:

1. `parse_yaml`      text → YAML node tree (safe loader); malformed YAML and duplicate keys
                     (which PyYAML would silently merge) become problems with their marks.
                     Work is bounded before any tree is built: the file's size, aliases (none:
                     they only serve to expand a 600-byte file into gigabytes), nesting depth,
                     then each string's length, characters and Markdown structures
                     (`errorkb.core.prose`) and each list's items (`MAX_*` below). A value
                     the constructor cannot build (`title: 2001-13-45`, an integer of 4,301
                     digits) is a problem at that value, like any other.
2. `validate_entry`  node tree → `Entry` through the pydantic model; each validation error is
                     placed on the line of the key or value it concerns, with "did you mean". A
                     plain value YAML read as no text says what YAML made of it (`4.40` is 4.4:
                     quote it), and a number or boolean spelled as YAML 1.1 alone reads it
                     (`02677`, `1:30`, `no`) is refused: YAML 1.2 and JSON read another value.
3. `cross_check`     what one file cannot know: file name = id, folder = library, snippet
                     files exist inside their entry's folder, ids unique and not reserved by the
                     caller, `related` ids resolve, no orphan snippet files.

An entry that fails to load is reported once, at its own file: entries linking to it are not.

Each load resolves every folder once (`Resolved`) and names each file once (`LoadedEntry.where`):
`mkdocs serve` loads the whole knowledge base again after every save.

Nothing here imports the runtime: `errorkb check` and `mkdocs serve` must start fast.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import stat
import sys
import tokenize
import typing
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from errorkb.core import snippets as snippet_files
from errorkb.core.encoding import other_encoding
from errorkb.core.entry import Entry, library_folder
from errorkb.core.filebytes import NotRegular, TooLarge, read_bounded, said
from errorkb.core.lint import STANDARD, helpers
from errorkb.core.message import MessageTemplate, TemplateSyntaxError, is_degenerate
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.core.prose import INCLUDE_ADVICE, excesses, include_line, lookalike, unprintable

Loc = tuple[str | int, ...]
# libyaml's safe loader when PyYAML was built with it (the same marks, several times faster).
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Bounds on one entry file. An entry is a page of prose and a few names: these are far above any
# real entry and far below what would stall a build, a reader's browser or the search index.
MAX_FILE_BYTES = 512 * 1024  # the whole YAML file
MAX_DEPTH = 16  # mappings and lists inside each other (a real entry needs 4)
MAX_ITEMS = 100  # items of one list, keys of one mapping
MAX_CHARS = 20_000  # characters of one string (a prose field), unless its key has its own limit
MAX_CHARS_BY_KEY = {"notes": 100_000, "title": 300}
MAX_SNIPPET_BYTES = snippet_files.MAX_BYTES
MAX_KEY_CHARS = 100  # characters of one key
MAX_ID_CHARS = 100  # an id names files and addresses (`unfit_id`); the longest real one has 48
# Bounds on the entries together (the knowledge base has ~120 files, ~0.5 MB): past them a pull request of
# 100,000 one-line files, or of thousands at MAX_FILE_BYTES, held every command and build for minutes.
MAX_ENTRIES = 5_000  # entry files read
MAX_TOTAL_BYTES = 64 << 20  # of all entry files read


@dataclass
class Positions:
    """1-based (line, col) of every key and value in one YAML document, by path."""

    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    # (text as written, YAML tag) of each value YAML read as no text: `1:30`, `yes`, `4.40`, a date
    typed: dict[Loc, tuple[str, str]] = field(default_factory=dict)

    def of_key(self, loc: Loc) -> tuple[int, int]:
        return self.keys.get(loc) or self.of_value(loc)

    def of_value(self, loc: Loc) -> tuple[int, int]:
        while loc not in self.values and loc:
            loc = loc[:-1]
        return self.values.get(loc, (1, 1))


@dataclass
class LoadedEntry:
    entry: Entry
    path: Path  # the YAML file
    positions: Positions
    where: str = ""  # `project.rel(path)`, worked out once when the file is loaded ("": not yet)

    def named(self, project: Project) -> str:
        """The file as problems name it (project-relative)."""
        return self.where or project.rel(self.path)


class Resolved:
    """`Path.resolve()` with every folder resolved once: a path whose last part is no symlink (nor
    `.` or `..`) resolves to its folder's resolution + its name, which one `lstat` tells, where
    `resolve` walks (and `lstat`s) every part again. One instance per load: the file system may
    change between loads."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def __call__(self, path: Path) -> Path:
        return Path(self.real(os.fspath(path) if path.is_absolute() else os.path.join(os.getcwd(), path)))

    def real(self, path: str) -> str:
        """`__call__` on an absolute path written as `Path` writes it, as a string: for loops over
        every snippet of every entry, where making `Path`s cost more than resolving."""
        return self._real(path)

    def _real(self, path: str) -> str:
        """`path` is absolute, and as `Path` writes it (no `//`, no trailing `/`); never `abspath`d,
        which drops a `..` without resolving what precedes it."""
        known = self._known.get(path)
        if known is None:
            folder, name = os.path.split(path)
            if folder == path or name in ("", ".", "..") or _is_link(path):
                known = os.path.realpath(path)
            else:
                known = os.path.join(self._real(folder), name)
            self._known[path] = known
        return known


def _is_link(path: str) -> bool:
    """Whether `path` is a symlink; one that cannot be `lstat`ed is none (as `resolve` takes it)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


@dataclass
class LoadResult:
    entries: list[LoadedEntry]
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    def by_id(self) -> dict[str, LoadedEntry]:
        return {loaded.entry.id: loaded for loaded in self.entries}

    def ids(self) -> set[str]:
        """Every entry's id, loaded or not: a file that failed to load is still its entry (its name the id),
        so that what speaks for it (its reports' records) waits for the fix instead of being dropped."""
        return {loaded.entry.id for loaded in self.entries} | {Path(problem.path).stem for problem in self.problems}


EntryReader = typing.Callable[[Path, Project], tuple["LoadedEntry | None", list[Problem]]]


def load_project_entries(project: Project, reserved_ids: Collection[str] = (),
                         read: EntryReader | None = None) -> LoadResult:
    """Every entry of the project, and every problem found on the way.

    `reserved_ids`: ids the caller publishes something else under (the site's own pages); an
    entry with one is a problem and is left out, so it can never overwrite those files.
    `read`: what loads one file (default `load_entry_file`); `mkdocs serve` passes one that
    reuses the last result of a file that has not changed. The checks across entries always run.
    """
    read = read or load_entry_file
    problems: list[Problem] = []
    loaded: list[LoadedEntry] = []
    unloaded: set[str] = set()  # ids of entry files that exist but did not load
    resolved = Resolved()
    names, oversized = snippet_folder_names(project)
    problems += oversized.values()
    files = _entry_files(project, problems, resolved)
    within, over = within_bounds(files, project)
    problems += over
    unloaded.update(path.stem for path in files[len(within):])  # not read: nor dangling nor owning no snippets
    for path in within:
        one, found = read(path, project)
        problems += found
        if one is not None and one.entry.id in reserved_ids:
            problems.append(Problem(project.rel(path), *one.positions.of_value(("id",)),
                                    f"id '{one.entry.id}' is reserved: the site generates a page or file of "
                                    "that name; choose another id (and file name)"))
            one = None
        if one is not None and one.entry.id in oversized:  # never handed on: the site and a check read it whole
            one = None
        if one is not None:  # never handed on: every consumer would read (publish, run) the file outside
            leading_out = snippets_leading_out(one, project, resolved)
            problems += leading_out
            one = None if leading_out else one
        if one is None:
            unloaded.add(path.stem)
        else:
            loaded.append(one)
    problems += cross_check(loaded, project, unloaded)
    problems += orphan_snippets(loaded, {path.stem for path in files}, project)
    problems += helper_modules(loaded, project, resolved)
    problems += compiled_code(project, names)
    return LoadResult(loaded, sorted(set(problems)))


def load_entry_file(path: Path, project: Project) -> tuple[LoadedEntry | None, list[Problem]]:
    where = project.rel(path)
    try:  # the one reader of a knowledge base's files: a FIFO or a device would block or never end, never opened
        data = read_bounded(path, MAX_FILE_BYTES)
    except (NotRegular, IsADirectoryError):
        return None, [Problem(where, 1, 1, "not a regular file; an entry must be a plain YAML file")]
    except TooLarge as error:  # (or it grew past the limit while it was read)
        return None, [Problem(where, 1, 1, f"entry file is {error.size:,} bytes; the limit is {MAX_FILE_BYTES:,}")]
    except OSError as error:
        return None, [Problem(where, 1, 1, f"cannot read entry: {said(error)}")]
    other = other_encoding(data)
    if other:
        return None, [Problem(where, 1, 1, f"{other}; save it as UTF-8")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [_not_utf8(data, error, where)]
    hidden = _hidden_line_break(text, where)
    if hidden:
        return None, [hidden]
    node, positions, problems = parse_yaml(text, where)
    if node is None:
        return None, problems
    entry, invalid = validate_entry(node, positions, where)
    problems += invalid
    if problems:  # a key given twice: the value YAML kept is one of two the author wrote, and is never published
        return None, problems
    return (LoadedEntry(entry.with_links(project.library.links, _runtime_links(project)), path, positions, where)
            if entry else None), problems


def _not_utf8(data: bytes, error: UnicodeDecodeError, where: str) -> Problem:
    """The first byte that is not UTF-8, at its line and column."""
    line, col = _line_col(data[:error.start].decode("utf-8", errors="replace"))
    return Problem(where, line, col, f"byte 0x{data[error.start]:02x} is not UTF-8; save the file as UTF-8")


_LINE_BREAK = re.compile("\r\n|[\r\n]")  # an editor's, `git diff`'s and a review's
_YAML_ONLY_BREAK = re.compile("[\x85\u2028\u2029]")  # YAML 1.1's too: NEL, LS, PS
_BREAK_NAMES = {"\x85": "next line", "\u2028": "line separator", "\u2029": "paragraph separator"}


def _line_col(before: str) -> tuple[int, int]:
    """1-based (line, col) of the character that follows `before`, as an editor shows it. (YAML also breaks
    lines at NEL, LS and PS: `_hidden_line_break` refuses a file holding one before YAML gives a mark.)"""
    lines = _LINE_BREAK.split(before)
    return len(lines), len(lines[-1]) + 1


def _hidden_line_break(text: str, where: str) -> Problem | None:
    """The first line break YAML reads and an editor, a diff and a review do not: after one, what a reviewer
    sees as the rest of a comment is YAML (a key, an allowance), and every mark YAML gives is lines off."""
    found = _YAML_ONLY_BREAK.search(text)
    if found is None:
        return None
    char = found.group()
    return Problem(where, *_line_col(text[:found.start()]),
                   f"U+{ord(char):04X} ({_BREAK_NAMES[char]}) is a line break to YAML but not to an editor or a "
                   "review: what follows it on this line is read as a new line of YAML; remove it (or break the "
                   "line there)")


# -- stage 1: YAML ----------------------------------------------------------------------------


def parse_yaml(text: str, where: str) -> tuple[object | None, Positions, list[Problem]]:
    """Python data of the single YAML document in `text`, with positions; None if unusable."""
    positions = Positions()
    loader = _SafeLoader(text)
    try:
        unbounded = _unbounded_structure(text, where)
        if unbounded:
            return None, positions, unbounded
        root = loader.get_single_node()
        if root is None:
            return None, positions, [Problem(where, 1, 1, "empty entry: expected a mapping of keys")]
        oversize = _oversize(root, (), where)
        if oversize:
            return None, positions, oversize
        problems = _index_nodes(root, (), positions, where)
        try:
            data = loader.construct_document(root)
        except yaml.MarkedYAMLError:
            raise
        except Exception as error:  # whatever a constructor raises, it is the author's value
            return None, positions, [_unbuildable(root, (), where, error)]
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(filter(None, [error.context, error.problem]))
        if "simple key" in what or "mapping values are not allowed" in what:
            what += "; text containing ': ' must be quoted or written as a block (key: |)"
        elif "could not determine a constructor" in what:
            what += "; entries hold plain YAML values (text, numbers, lists, mappings): remove the tag"
        elif mark is not None and _character_at(text, mark.line, mark.column) == "\t":  # libyaml's words omit it
            what += "; the character there is a tab: YAML indents with spaces only, so replace it with spaces"
        return None, positions, [Problem(where, line, col, f"malformed YAML: {what}")]
    except yaml.reader.ReaderError as error:  # a character YAML cannot hold, found before any mark exists
        return None, positions, [_unreadable_character(text, error, where)]
    except yaml.YAMLError as error:
        return None, positions, [Problem(where, 1, 1, f"malformed YAML: {error}")]
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        line, col = positions.of_value(())
        return None, positions, [Problem(where, line, col, f"expected a mapping of keys, found {_kind(data)}")]
    return _named_keys_only(data), positions, problems


def _character_at(text: str, line: int, column: int) -> str:
    """The character at a YAML mark's line and column (both from 0; YAML's line breaks), or ""."""
    lines = _YAML_BREAKS.split(text, maxsplit=line + 1)
    return lines[line][column:column + 1] if line < len(lines) else ""


_YAML_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _named_keys_only(data: Any) -> Any:
    """`data` less the mappings' keys that are not text (`_index_nodes` located each at its line): the model
    said "Keys should be strings" of them at line 1, naming neither the key nor where it is."""
    if isinstance(data, dict):
        return {key: _named_keys_only(value) for key, value in data.items() if isinstance(key, str)}
    if isinstance(data, list):
        return [_named_keys_only(item) for item in data]
    return data


def _unreadable_character(text: str, error: yaml.reader.ReaderError, where: str) -> Problem:
    """A character YAML refuses, at its line and column. libyaml counts the position in bytes of
    the text's UTF-8, PyYAML's own reader in characters."""
    position = error.position
    if _SafeLoader is not yaml.SafeLoader:
        before = text.encode("utf-8")[:position].decode("utf-8", errors="replace")
    else:
        before = text[:position]
    code = error.character if isinstance(error.character, int) else ord(str(error.character)[:1] or "\0")
    return Problem(where, *_line_col(before), f"U+{code:04X} cannot stand in a YAML file ({error.reason}); remove it")


def _unbounded_structure(text: str, where: str) -> list[Problem]:
    """Aliases and deep nesting, found in one linear pass over the YAML events before a node
    tree exists: a tree built from a few aliases can be exponentially large, and every later
    walk (ours, the constructor's, pydantic's) would then take forever or recurse too deep."""
    problems: list[Problem] = []
    aliases: list[yaml.AliasEvent] = []
    depth = 0
    scanner = _SafeLoader(text)
    try:
        while scanner.check_event():
            event = scanner.get_event()
            if isinstance(event, yaml.AliasEvent):
                aliases.append(event)
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    problems.append(Problem(where, *_mark(event.start_mark),
                                            f"nested deeper than {MAX_DEPTH} levels of lists and mappings"))
                    break
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    finally:
        scanner.dispose()
    if aliases:
        more = f" ({len(aliases)} aliases in this file)" if len(aliases) > 1 else ""
        problems.insert(0, Problem(where, *_mark(aliases[0].start_mark),
                                   f"YAML aliases (*{aliases[0].anchor}) are not allowed in entries: "
                                   f"write the value out where it is used{more}"))
    return problems


def _oversize(node: yaml.Node, loc: Loc, where: str) -> list[Problem]:
    """Strings longer and lists or mappings larger than their limits, and strings holding what
    no entry text may (`errorkb.core.prose`), each at its position.

    Refused rather than cut: a limit never drops an author's text silently."""
    problems = []
    if isinstance(node, yaml.ScalarNode):
        limit = _char_limit(loc)
        if len(node.value) > limit:
            problems.append(Problem(where, *_mark(node.start_mark),
                                    f"{_loc_name(loc)}: {len(node.value):,} characters; the limit is {limit:,}"))
            return problems
        wrong = unprintable(node.value) or lookalike(node.value)
        problems += [Problem(where, *_mark(node.start_mark), f"{_loc_name(loc)}: {what}")
                     for what in ([wrong] if wrong else excesses(node.value))]
        line = include_line(node.value)
        if line is not None:
            problems.append(Problem(where, *_mark(node.start_mark), f"{_loc_name(loc)}: its line {line} is "
                                                                    f"{INCLUDE_ADVICE}"))
        return problems
    items = node.value
    if len(items) > MAX_ITEMS:
        problems.append(Problem(where, *_mark(node.start_mark),
                                f"{_loc_name(loc) or 'the entry'}: {len(items)} "
                                f"{'keys' if isinstance(node, yaml.MappingNode) else 'items'}; "
                                f"the limit is {MAX_ITEMS}"))
        return problems
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in items:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            if isinstance(key_node, yaml.ScalarNode) and len(key) > MAX_KEY_CHARS:
                problems.append(Problem(where, *_mark(key_node.start_mark),
                                        f"a key of {len(key):,} characters; the limit is {MAX_KEY_CHARS}"))
                continue
            problems += _oversize(value_node, (*loc, key), where)
    else:
        for index, item in enumerate(items):
            problems += _oversize(item, (*loc, index), where)
    return problems


def _unbuildable(root: yaml.Node, loc: Loc, where: str, error: Exception) -> Problem:
    """The first value under `root` that the constructor cannot build, with the constructor's
    reason: each scalar is built alone, in document order, by a fresh constructor."""
    probe = _SafeLoader("")
    try:
        for node, at in _scalars(root, loc):
            try:
                probe.construct_object(node, deep=True)
            except Exception as found:  # see parse_yaml
                kind = _TAG_WORDS.get(node.tag.rsplit(":", 1)[-1], "a value")
                return Problem(where, *_mark(node.start_mark),
                               f"{_loc_name(at) or 'the entry'}: {node.value[:40]!r} cannot be read as {kind} "
                               f"({_reason(found)}); quote it to keep it as text")
    finally:
        probe.dispose()
    return Problem(where, *_mark(root.start_mark), f"the entry cannot be read ({_reason(error)})")


_TAG_WORDS = {"timestamp": "a date", "int": "an integer", "float": "a number", "binary": "binary data",
              "bool": "a boolean", "null": "nothing (null)"}


def _reason(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


def _scalars(node: yaml.Node, loc: Loc) -> typing.Iterator[tuple[yaml.ScalarNode, Loc]]:
    """Every scalar under `node` with its path, in document order (keys before their values)."""
    if isinstance(node, yaml.ScalarNode):
        yield node, loc
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            yield from _scalars(key_node, loc)
            yield from _scalars(value_node, (*loc, key))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _scalars(item, (*loc, index))


def _char_limit(loc: Loc) -> int:
    """The limit of the string at `loc`: its key's own (list items: their list's key), else MAX_CHARS."""
    key = next((part for part in reversed(loc) if isinstance(part, str)), "")
    return MAX_CHARS_BY_KEY.get(key, MAX_CHARS)


def _mark(mark: Any) -> tuple[int, int]:
    """1-based (line, col) of a YAML mark (PyYAML's or libyaml's), (1, 1) without one."""
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _loc_name(loc: Loc) -> str:
    """('guards', 0, 'title') → 'guards[0].title', as problems name a field."""
    return ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in loc).replace(".[", "[")


_MERGE = "tag:yaml.org,2002:merge"
_TEXT = "tag:yaml.org,2002:str"


def _index_nodes(node: yaml.Node, loc: Loc, positions: Positions, where: str) -> list[Problem]:
    """Record positions under `node` and report duplicate keys, which YAML forbids, and merge keys,
    through which the constructor would drop repeated keys silently."""
    positions.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        first_seen: dict[object, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            if key_node.tag == _MERGE:
                problems.append(Problem(where, line, col,
                                        "a merge key (<<) is not allowed in entries: it drops the keys it repeats "
                                        "without a word; write each key out once"))
                continue
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _TEXT:  # `null:`, `3:`, `yes:`, a date
                read_as = _TAG_WORDS.get(key_node.tag.rsplit(":", 1)[-1], "no text")
                problems.append(Problem(where, line, col, f"key '{key_node.value[:40]}' is read as {read_as}, not "
                                                           "as a name; quote it, or remove it"))
                continue
            if key in first_seen:
                problems.append(Problem(where, line, col,
                                        f"duplicate key '{key}' (first set on line {first_seen[key]}); "
                                        "keep one of them"))
                continue
            first_seen[key] = line
            positions.keys[(*loc, key)] = (line, col)
            problems += _index_nodes(value_node, (*loc, key), positions, where)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += _index_nodes(item, (*loc, index), positions, where)
    elif node.tag != _TEXT:
        positions.typed[loc] = (node.value, node.tag)
    return problems


# -- stage 2: the model -----------------------------------------------------------------------


def validate_entry(data: object, positions: Positions, where: str) -> tuple[Entry | None, list[Problem]]:
    errors: list[ErrorDetails] = []
    entry = None
    try:
        entry = Entry.model_validate(data)
    except ValidationError as error:
        errors = error.errors()
    except Exception as error:  # a validator's own failure is still the entry's problem
        return None, [Problem(where, 1, 1, f"the entry cannot be validated ({_reason(error)})")]
    problems = [_locate(item, positions, where) for item in errors]
    problems += _yaml_1_1_only(data, positions, where, [tuple(item["loc"]) for item in errors])
    return (None if problems else entry), problems


# The spellings of a number, boolean and null that YAML 1.1 (PyYAML), YAML 1.2 and JSON all read alike.
_SAME_IN_EVERY_READER = {"int": re.compile(r"-?(0|[1-9][0-9]*)\Z"), "bool": re.compile(r"(true|false)\Z"),
                         "null": re.compile(r"(null|~|)\Z")}


def _yaml_1_1_only(data: object, positions: Positions, where: str, errors: list[Loc]) -> list[Problem]:
    """Numbers and booleans spelled as only YAML 1.1 reads them (`02677` is 1471, `24:31` too, `no` is false):
    the model took the value, but a YAML 1.2 or JSON reader (an editor's schema check, a reviewer) reads
    another, so the author's meaning is unsure. A value the model refused is already reported there."""
    problems = []
    for loc, (text, tag) in positions.typed.items():
        kind = tag.rsplit(":", 1)[-1]
        same = _SAME_IN_EVERY_READER.get(kind)
        if same is None or same.match(text) or any(loc[:len(bad)] == bad for bad in errors):
            continue
        value = _value_at(data, loc)
        plain = "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        problems.append(Problem(where, *positions.of_value(loc),
                                f"{_loc_name(loc)}: YAML 1.1 reads {text} as {_reading(text, tag, value)}; "
                                f"write {plain} for that value, or quote it for text"))
    return problems


def _value_at(data: object, loc: Loc) -> object:
    for part in loc:
        data = data[part]  # type: ignore[index]  # the path `_index_nodes` recorded in this very data
    return data


def _reading(text: str, tag: str, value: object) -> str:
    """What YAML made of a plain value that is not text: 'the integer 90 (base 60)', 'the boolean true'."""
    kind = tag.rsplit(":", 1)[-1]
    if kind == "int":
        digits = text.lstrip("+-")
        how = ("base 60" if ":" in text else "hexadecimal" if digits[:2].lower() == "0x"
               else "binary" if digits[:2].lower() == "0b" else "octal" if len(digits) > 1 and digits[0] == "0"
               else "underscores dropped" if "_" in text else "")
        return f"the integer {value}" + (f" ({how})" if how else "")
    if kind == "float":
        return f"the number {value!r}"
    if kind == "bool":
        return f"the boolean {str(value).lower()}"
    if kind == "timestamp":
        return f"the date {value}"
    return _TAG_WORDS.get(kind, "no text")


def _locate(error: ErrorDetails, positions: Positions, where: str) -> Problem:
    loc: Loc = tuple(error["loc"])
    name = _loc_name(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        line, col = positions.of_key(loc)
        return Problem(where, line, col, f"unknown key '{loc[-1]}'{_suggest(loc)}")
    if kind == "missing":
        line, col = positions.of_key(loc[:-1]) if loc[:-1] else (1, 1)
        parent = ".".join(map(str, loc[:-1]))
        return Problem(where, line, col,
                       f"missing required key '{loc[-1]}'" + (f" in '{parent}'" if parent else ""))
    line, col = positions.of_value(loc)
    message = error["msg"].removeprefix("Value error, ")
    hint = _HINTS.get(kind, {}).get(str(loc[-1]) if loc else "", "")
    got = f" (got {_kind(error['input'])})" if kind.endswith("_type") else ""
    if kind == "string_type" and isinstance(error["input"], dict):
        got += "; text containing ': ' must be quoted or written as a block (key: |)"
    written, tag = positions.typed.get(loc, ("", ""))
    if kind == "string_type" and written:  # `release: 4.40` is 4.4: say so, and how to keep the text
        return Problem(where, line, col, f"{name + ': ' if name else ''}YAML reads {written} as "
                                         f"{_reading(written, tag, error['input'])}, not as text; quote it to keep "
                                         f"the text: '{written}'")
    return Problem(where, line, col, f"{name + ': ' if name else ''}{message}{got}{hint}")


_HINTS = {
    "string_pattern_mismatch": {
        "id": "; use a kebab-case slug such as 'head-dim-list-length'",
        "commit": "; use the full 40-character commit hash",
        "function": "; use a qualified name such as 'Cache.early_initialization'",
        "library": "; use 'owner/repository', as [tool.errorkb.library] repository names it",
        "before": "; name a .py file inside snippets/<id>/",
        "after": "; name a .py file inside snippets/<id>/",
        "file": "; name a .py file inside snippets/<id>/",
    },
}


def _suggest(loc: Loc) -> str:
    known = _fields_at(Entry, loc[:-1])
    if not known:
        return ""
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    if close:
        return f" (did you mean '{close[0]}'?)"
    return f"; allowed here: {', '.join(known)}"


def _fields_at(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names of the model section that `loc` points into."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or part not in current.model_fields:
            return []
        current = _model_in(current.model_fields[part].annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _model_in(annotation: object) -> object:
    """The BaseModel inside list[...] / X | None annotations, else the annotation itself."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return annotation


def _kind(value: object) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number", type(None): "nothing (null)"}
    return names.get(type(value), type(value).__name__)


# -- stage 3: across files --------------------------------------------------------------------


def entry_paths(project: Project) -> list[Path]:
    """The entry files the loader reads whole: inside the entries folder, regular, within
    `MAX_FILE_BYTES`. What another reader of entry files (the index's digest) may read without
    hanging on a FIFO, filling the memory from a device, or reading a file from outside."""
    found = []
    for path in within_bounds(_entry_files(project, [], Resolved()), project)[0]:
        try:
            info = path.stat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_FILE_BYTES:
            found.append(path)
    return found


def within_bounds(files: list[Path], project: Project) -> tuple[list[Path], list[Problem]]:
    """The first of `files` (in name order) within `MAX_ENTRIES` files and `MAX_TOTAL_BYTES` in all, and the
    problem naming what was left unread, if anything was: one line, never one per file."""
    total = 0
    for count, path in enumerate(files):
        try:
            total += max(0, min(path.stat().st_size, MAX_FILE_BYTES + 1))
        except OSError:
            pass
        if count >= MAX_ENTRIES:
            what = f"{len(files):,} entry files; the limit is {MAX_ENTRIES:,} entry files"
        elif total > MAX_TOTAL_BYTES:
            what = f"{len(files):,} entry files hold more than {MAX_TOTAL_BYTES:,} bytes in all, the limit"
        else:
            continue
        return files[:count], [Problem(_unresolved_rel(project.entries, project), 1, 1,
                                       f"{what}: only the first {count:,} by name were read. Split the knowledge "
                                       "base, or remove the files a pull request added")]
    return files, []


YAML_SUFFIXES = {".yml", ".yaml"}  # compared lower-cased: a YAML file is reported, only `.yml` is loaded


def _entry_files(project: Project, problems: list[Problem], resolved: Resolved) -> list[Path]:
    """Entry files; anything else in the entries folder is reported, never skipped silently."""
    if not project.entries.is_dir():
        return []
    found = []
    inside = resolved(project.entries)
    for path in _tree(project, problems):
        if path.name.startswith("."):
            continue
        if path.is_dir():
            if path.suffix.lower() in YAML_SUFFIXES and path.parent.parent == project.entries:
                problems.append(Problem(project.rel(path), 1, 1,
                                        "a folder, not a file; an entry must be a plain YAML file"))
            continue
        if path.suffix == ".yml" and path.parent.parent == project.entries:
            if path.is_symlink() and not path.exists():
                problems.append(Problem(_unresolved_rel(path, project), 1, 1,
                                        "a symlink that leads to no file (a loop, or a missing target); remove it "
                                        "or make it the entry file itself"))
            elif not resolved(path).is_relative_to(inside):
                problems.append(Problem(_unresolved_rel(path, project), 1, 1,
                                        f"resolves outside {_unresolved_rel(project.entries, project)}; an entry "
                                        "must be a file inside the entries folder"))
            elif not path.is_file():
                problems.append(Problem(project.rel(path), 1, 1,
                                        "not a regular file; an entry must be a plain YAML file"))
            else:
                found.append(path)
        elif windows_name(path.name).suffix.lower() in YAML_SUFFIXES:  # `.YML` too, and `x.yml.`: see windows_name
            where = project.rel(path)
            fix = (f"rename it to {windows_name(path.name).stem}.yml" if path.suffix != ".yml" or path.name[-1] in ". "
                   else "move it to docs/errors/<library>/<id>.yml")
            problems.append(Problem(where, 1, 1, f"not loaded as an entry: {fix}"))
    return found


MAX_ENTRY_DEPTH = 8  # folders below the entries folder that are read (an entry sits two down)


def _tree(project: Project, problems: list[Problem]) -> list[Path]:
    """What `sorted(project.entries.rglob("*"))` lists, down to `MAX_ENTRY_DEPTH` folders: rglob
    recursed once per level (a tree 1,000 deep, 2 KB of path, raised RecursionError), and below
    the limit nothing can be an entry. A deeper folder is a problem of its own, not skipped
    silently (MkDocs' own walk of docs/ fails on such a tree too)."""
    found: list[Path] = []
    top = os.fspath(project.entries)
    for current, folders, files in snippet_files.walk(top):
        found += [Path(current, name) for name in (*folders, *files)]
        depth = 0 if current == top else os.path.relpath(current, top).count(os.sep) + 1
        if depth >= MAX_ENTRY_DEPTH and folders:
            deepest = Path(current, min(folders))
            problems.append(Problem(project.rel(deepest), 1, 1,
                                    f"folders nested more than {MAX_ENTRY_DEPTH} deep below "
                                    f"{_unresolved_rel(project.entries, project)}; nothing below is read (and MkDocs "
                                    "cannot build docs/ with a tree this deep): flatten or remove it"))
            folders.clear()
    return sorted(found)


def _unresolved_rel(path: Path, project: Project) -> str:
    """The path as the project names it, without following a symlink out of it."""
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return project.rel(path)


def cross_check(loaded: list[LoadedEntry], project: Project, unloaded: Collection[str] = ()) -> list[Problem]:
    """Problems across files. `unloaded`: ids of entry files that exist but failed to load;
    links to them are not reported again (the file's own problems are the root cause)."""
    problems: list[Problem] = []
    first_with_id: dict[str, LoadedEntry] = {}
    for one in loaded:
        entry, where, pos = one.entry, one.named(project), one.positions
        if entry.id in first_with_id:
            other = first_with_id[entry.id]
            problems.append(Problem(where, *pos.of_value(("id",)),
                                    f"duplicate id '{entry.id}' (also used by {other.named(project)}"
                                    f":{other.positions.of_value(('id',))[0]}); ids must be unique"))
        else:
            first_with_id[entry.id] = one
        unfit = unfit_id(entry.id)
        if unfit:
            problems.append(Problem(where, *pos.of_value(("id",)), unfit))
        if one.path.stem != entry.id:
            problems.append(Problem(where, *pos.of_value(("id",)),
                                    f"id '{entry.id}' differs from the file name; rename the file to "
                                    f"{entry.id}.yml or change the id"))
        folder = library_folder(entry.library)
        if one.path.parent.name != folder:
            problems.append(Problem(where, *pos.of_value(("library",)),
                                    f"entries of library '{entry.library}' belong in "
                                    f"{project.rel(project.entries / folder)}/"))
        problems += _check_snippets(one, project)
        problems += _check_devices(one, project)
        problems += check_fields(one, where)
        problems += [Problem(where, *pos.of_value(loc), why)
                     for loc, why in entry.module_problems(project.library.name, _runtime_packages(project))]
        problems += _check_runtime_source(one, project)
        problems += _check_without(one, project)
    ids = set(first_with_id)
    for one in loaded:
        for index, related in enumerate(one.entry.related):
            if related == one.entry.id:
                problems.append(Problem(project.rel(one.path), *one.positions.of_value(("related", index)),
                                        f"related id '{related}' is the entry itself; remove it"))
            elif related not in ids and related not in unloaded:
                close = difflib.get_close_matches(related, sorted(ids), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                problems.append(Problem(project.rel(one.path), *one.positions.of_value(("related", index)),
                                        f"related id '{related}' does not match any entry{hint}"))
    return problems


def check_fields(one: LoadedEntry, where: str) -> list[Problem]:
    """Rules across fields of one entry that need nothing run to decide, each a located problem
    (the model checks one field at a time; these would otherwise surface only as a failed check,
    minutes later, or never: a duplicated related id just shows one link twice)."""
    entry, pos = one.entry, one.positions
    problems: list[Problem] = []
    placeholders = entry.template.placeholders
    for key in entry.expect.placeholders:
        if key not in placeholders:
            close = difflib.get_close_matches(key, placeholders, n=1, cutoff=0.5)
            known = f"did you mean '{close[0]}'?" if close else \
                f"the message's placeholders: {', '.join(placeholders) or 'none'}"
            problems.append(Problem(where, *pos.of_key(("expect", "placeholders", key)), f"expect.placeholders "
                                    f"names '{{{key}}}', which the message does not have ({known})"))
    seen: set[str] = set()
    for index, related in enumerate(entry.related):
        if related in seen:
            problems.append(Problem(where, *pos.of_value(("related", index)),
                                    f"related id '{related}' is listed twice; keep one"))
        seen.add(related)
    for index, wording in enumerate(entry.also_seen_as):
        # The same words raised from another function (in other releases) are a wording of their own.
        elsewhere = wording.function not in (None, entry.source.function)
        if wording.message == entry.message and (wording.exception or entry.exception) == entry.exception \
                and not elsewhere:
            problems.append(Problem(where, *pos.of_value(("also_seen_as", index, "message")),
                                    "this wording is the entry's own message from the same function; list only "
                                    "other wordings, or name the other function it is raised from"))
    problems += _check_other_causes(one, where)
    problems += _check_releases(one, where)
    return problems


def _check_other_causes(one: LoadedEntry, where: str) -> list[Problem]:
    """An other cause's `message` names a wording of the entry: its message, one of its `also_seen_as`,
    or a text one of them fits (the same words, its placeholders filled), judged by the matcher that
    applies it (`errorkb.lookup.fits_wording`: its one owner); a message the matcher cannot read as a
    wording would concern every wording there, so it is named here."""
    entry, pos = one.entry, one.positions
    wordings = [entry.message, *(wording.message for wording in entry.also_seen_as)]
    problems: list[Problem] = []
    for index, cause in enumerate(entry.diagnosis.other_causes):
        if cause.message is None or cause.message in wordings:
            continue
        # imported only for a cause that names a wording of its own: the lookup's import and its
        # patterns are most of what an entry without one would otherwise cost (`errorkb verify`)
        from errorkb.lookup import fits_wording, read_wording

        at = pos.of_value(("diagnosis", "other_causes", index, "message"))
        try:
            read_wording(cause.message)
        except TemplateSyntaxError as error:
            reason = str(error)
            try:  # the same brace (the reading changes none), counted in the text as written
                MessageTemplate.parse(cause.message)
            except TemplateSyntaxError as authored:
                reason = str(authored)
            problems.append(Problem(where, *at, f"diagnosis.other_causes[{index}].message: {reason}; the lookup reads "
                                                "it as a wording: write '{{' and '}}' for literal braces"))
            continue
        if any(fits_wording(cause.message, wording) is not None for wording in wordings):
            continue
        problems.append(Problem(where, *at,
                                f"diagnosis.other_causes[{index}].message is no wording of the entry (its message, "
                                "an `also_seen_as`, or a text one of them fits); copy the wording the other cause "
                                "prints"))
    return problems


def _check_releases(one: LoadedEntry, where: str) -> list[Problem]:
    """`last_good` is a release where the old code ran, so the error's own range cannot hold it;
    a `replacement_since` says when a replacement came, so it needs the replacement."""
    from errorkb.core.releases import contains

    releases, pos = one.entry.releases, one.positions
    if releases is None:
        return []
    problems = []
    if releases.last_good and releases.raises and contains(releases.raises, releases.last_good):
        problems.append(Problem(where, *pos.of_value(("releases", "last_good")),
                                f"releases.last_good {releases.last_good} lies inside releases.raises "
                                f"({releases.raises}): the last release where the old code ran cannot raise"))
    if releases.replacement_since and not releases.replacement:
        problems.append(Problem(where, *pos.of_value(("releases", "replacement_since")),
                                "releases.replacement_since without releases.replacement: name what replaces it"))
    return problems


# Names Windows keeps for devices, whatever their case or extension (`con.yml`, `Aux.py`): a file or
# folder of such a name cannot be made there, so a checkout on Windows loses the entry.
_WINDOWS_DEVICE = re.compile(r"^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(?:\..*)?$",
                             re.IGNORECASE)


def windows_name(name: str) -> Path:
    """The file name Windows reads `name` as: trailing dots and spaces dropped (`x.yml.` is `x.yml` there)."""
    return Path(name.rstrip(". ") or name)


def windows_device(name: str) -> bool:
    return _WINDOWS_DEVICE.match(name) is not None


def unfit_id(entry_id: str) -> str | None:
    """Why `entry_id` cannot name an entry's files everywhere (None: it can): the loader's and `errorkb new`'s one
    rule. Files, folders and addresses are named after it (`<id>.yml`, `snippets/<id>/`, `api/errors/<id>.json`):
    past `MAX_ID_CHARS` one of them outgrows a file name (255 bytes) or a Windows path (260 characters)."""
    if len(entry_id) > MAX_ID_CHARS:
        return (f"id of {len(entry_id)} characters; the limit is {MAX_ID_CHARS} (files, folders and addresses are "
                "named after it); choose a shorter id")
    if windows_device(entry_id):
        return (f"id '{entry_id}' names a device on Windows: a checkout there cannot create {entry_id}.yml nor its "
                "snippet folder; choose another id")
    return None


def _check_devices(one: LoadedEntry, project: Project) -> list[Problem]:
    """Device kinds are the runtime's: a misspelt one would silently never run. Messages must say
    more than the runtime's generic wordings (its device errors all read `<kind> error: ...`)."""
    from errorkb.plugs import runtime_for

    runtime = runtime_for(project.library.runtime)
    where = one.named(project)
    known = ", ".join(runtime.devices)
    problems = [Problem(where, *one.positions.of_value(("devices", index)),
                        f"unknown device '{device}' for the {runtime.name} runtime; known: {known}")
                for index, device in enumerate(one.entry.devices or []) if device not in runtime.devices]
    wordings: list[tuple[Loc, str]] = [(("message",), one.entry.message)]
    wordings += [(("also_seen_as", index, "message"), w.message) for index, w in enumerate(one.entry.also_seen_as)]
    for index, wording in enumerate(one.entry.also_seen_as):
        if wording.device is not None and wording.device not in runtime.devices:
            problems.append(Problem(where, *one.positions.of_value(("also_seen_as", index, "device")),
                                    f"unknown device '{wording.device}'; known: {', '.join(runtime.devices)}"))
    for loc, message in wordings:
        reason = is_degenerate(message, runtime.generic_messages) if runtime.generic_messages else None
        if reason:
            problems.append(Problem(where, *one.positions.of_value(loc),
                                    f"message too generic to tell this error from others: {reason}"))
    return problems


def _runtime_links(project: Project) -> tuple[str, str, str] | None:
    """(name, repository, tag format) of the profile's runtime, for a source with `runtime: true`."""
    from errorkb.plugs import runtime_for

    try:
        runtime = runtime_for(project.library.runtime)
    except ValueError:  # an unknown runtime: the project's own problem, reported there
        return None
    repository, tag = getattr(runtime, "repository", None), getattr(runtime, "tag", None)
    return (runtime.name, repository, tag) if repository and tag and _plug_tag_problem(tag) is None else None


def _plug_tag_problem(tag: object) -> str | None:
    """What is wrong with a runtime plug's `tag` (another package's text, under `errorkb.plugs`), by the rule the
    profile's `tag` is held to (core.tags); None where it is a format errorkb can fill."""
    from errorkb.core.tags import check_format

    try:
        check_format(tag) if isinstance(tag, str) else check_format("")
    except ValueError as error:
        return str(error)
    return None


def _check_without(one: LoadedEntry, project: Project) -> list[Problem]:
    """A `without:` may not name what every check imports: the sandbox meets the need by hiding the
    distribution (`verify.requirements.absence`), and hiding errorkb, the library, its bundled
    implementation or the runtime would break the check itself, never show the snippet's error."""
    from errorkb.plugs import runtime_for

    library = project.library
    runtime = runtime_for(library.runtime)
    names = [library.dist, library.name, runtime.name, *runtime.packages, "errorkb",
             *([library.bundled.split(".")[0]] if library.bundled else [])]
    essential = {_normal_name(name) for name in names}
    at: list[tuple[tuple[str | int, ...], list[str]]] = [(("without",), one.entry.without)]
    at += [((role, "without"), getattr(one.entry, role).without) for role in ("before", "after")]
    at += [(("guards", index, "without"), guard.without) for index, guard in enumerate(one.entry.guards)]
    problems = []
    for loc, texts in at:
        for index, text in enumerate(texts):
            name = re.split(r"[\s<>=!~;\[(@]", text.strip(), maxsplit=1)[0]
            if _normal_name(name) in essential:
                problems.append(Problem(one.named(project), *one.positions.of_value((*loc, index)),
                                        f"without: names {name}, which every check imports (errorkb, the library, its "
                                        f"bundled implementation, the runtime): the sandbox cannot hide it; an error "
                                        f"about it missing is not one this knowledge base can verify"))
    return problems


def _normal_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_packages(project: Project) -> tuple[str, ...]:
    from errorkb.plugs import runtime_for

    return tuple(runtime_for(project.library.runtime).packages)


def _check_runtime_source(one: LoadedEntry, project: Project) -> list[Problem]:
    """A source whose raise site lies in the runtime's package (`source.runtime`): verified upstream only
    (the bundled implementation reproduces the library's API, not what hands the runtime its objects).
    Its `release` names the runtime release the site was read from; on a machine with another one the
    verifier says its checks were not run (`Verifier.reason_not_run`): which runtime a machine has is no
    fault of the entry's, and one pin must not stop every other entry's checks (a GPU machine's own runtime release)."""
    from errorkb.plugs import runtime_for

    entry, pos, where = one.entry, one.positions, one.named(project)
    if not entry.source.runtime:
        return []
    runtime = runtime_for(project.library.runtime)
    problems = []
    if entry.targets != ["upstream"]:
        at = pos.of_value(("targets",)) if entry.targets else pos.of_value(("source", "runtime"))
        problems.append(Problem(where, *at, "source.runtime: true is verified upstream only: set `targets: "
                                            "[upstream]` (the bundled implementation has no code that hands "
                                            f"{runtime.name} the library's objects)"))
    wrong = _plug_tag_problem(getattr(runtime, "tag", None)) if getattr(runtime, "repository", None) else None
    if wrong is not None:
        problems.append(Problem(where, *pos.of_value(("source", "runtime")),
                                f"source.runtime: the {runtime.name} plug's {wrong}: no link to {runtime.name}'s "
                                f"source can be made from it; the package that registers the plug "
                                f"(entry point group errorkb.plugs) must correct its `tag`"))
    return problems


def _snippet_locations(entry: Entry) -> list[tuple[str, Loc]]:
    """(file name, where the entry names it) of every snippet."""
    locations: list[tuple[str, Loc]] = [(entry.before.file, ("before",)), (entry.after.file, ("after",))]
    return locations + [(guard.file, ("guards", i, "file")) for i, guard in enumerate(entry.guards)]


def _check_snippets(one: LoadedEntry, project: Project) -> list[Problem]:
    problems = []
    entry = one.entry
    seen: set[str] = set()
    folded: dict[str, str] = {}  # a name as a file system that ignores case sees it → the name first given
    folder = os.path.join(os.fspath(project.snippets), entry.id)  # file names are plain names (the model's)
    for file, loc in _snippet_locations(entry):
        if file in seen:
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet {file} is used twice; give each snippet its own file"))
        elif windows_device(file):
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet {file} names a device on Windows: a checkout there cannot create "
                                    "it; rename it"))
        elif file.casefold() in folded:  # one file on macOS and Windows: a checkout there keeps one of the two
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet {file} differs from {folded[file.casefold()]} only in case: one file "
                                    "where case is ignored (macOS, Windows); rename one"))
        seen.add(file)
        folded.setdefault(file.casefold(), file)
        path = os.path.join(folder, file)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = None
        if mode is None or not stat.S_ISREG(mode):
            what = "does not exist; create it or fix the name" if mode is None else \
                "is not a regular file; a snippet must be a plain Python file"
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet file {_unresolved_rel(project.snippet_path(entry.id, file), project)} "
                                    f"{what}"))
        else:
            problems += _snippet_content(Path(path), project)
    return problems


def helper_modules(loaded: list[LoadedEntry], project: Project, resolved: Resolved) -> list[Problem]:
    """Every module beside an entry's snippets (`lint.helpers`: code a check imports) held to what a
    snippet is held to: inside the entry's folder, a regular file, bounded, UTF-8 as Python reads
    it, nothing hidden. The lint read them whole (a FIFO hung `errorkb check`, /dev/zero filled the
    memory), wherever a link led, and skipped one that was not UTF-8 in silence."""
    problems = []
    shadowed = {project.library.name.split(".")[0], *_runtime_packages(project), *sys.stdlib_module_names,
                *(name.split(".")[0] for name in STANDARD)}
    for one in loaded:
        folder = project.snippets / one.entry.id
        problems += [Problem(_unresolved_rel(folder / name, project), 1, 1, f"a package beside the snippets named "
                             f"'{name}' shadows the module of that name (the snippet's folder is first on its import "
                             "path): the page's import would not be the one a reader has; rename the package")
                     for name in _packages_in(folder) if name in shadowed]
        said = {os.fspath(folder / file) for _, file in one.entry.snippet_files()}  # `snippet_problems` says those
        for path in helpers(folder, [file for _, file in one.entry.snippet_files()]):
            said.add(os.fspath(path))
            if not snippet_inside(project, one.entry.id, path, resolved):
                problems.append(Problem(_unresolved_rel(path, project), 1, 1, "a module beside the snippets that "
                                        f"resolves outside {_unresolved_rel(folder, project)}/ (a link); make it a "
                                        "file inside the folder"))
            else:
                problems += _snippet_content(path, project)
        problems += [Problem(_unresolved_rel(Path(path), project), 1, 1, f"a link that leads out of "
                             f"{_unresolved_rel(folder, project)}/ (to {os.readlink(path)}): a check reads where it "
                             "leads, and the verdict's key holds only the link's text, so a change there would reuse "
                             "a verdict observed with other bytes; make it a file or folder inside the folder")
                     for path in _links_in(folder) if path not in said
                     and not snippet_inside(project, one.entry.id, Path(path), resolved)]
    return problems


def _links_in(folder: Path) -> list[str]:
    """Every link in an entry's snippet folder, to a file, a folder or nothing, whatever its name (a package
    folder, a data file): the folder's digest hashes a link's text (`results.keys.folder_digest`), never what it
    leads to, and `lint.helpers` lists no module inside a linked folder, nor a file that is not Python."""
    found = []
    for base, folders, names in snippet_files.walk(folder):  # links to folders are listed, never entered
        found += [path for path in (os.path.join(base, name) for name in sorted([*folders, *names]))
                  if os.path.islink(path)]
    return found


def _packages_in(folder: Path) -> list[str]:
    """The names of the folders directly in `folder`, links to folders too (what `import name` finds
    there), sorted."""
    try:
        with os.scandir(folder) as listing:
            return sorted(one.name for one in listing if _names_folder(one))
    except OSError:
        return []


def _names_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _snippet_content(path: Path, project: Project) -> list[Problem]:
    """A snippet's own problems, at the snippet: more bytes than any page or check should take
    (never read whole), a coding other than UTF-8 declared, or bytes that are not UTF-8 (the page
    would show it as missing)."""
    where = _unresolved_rel(path, project)
    try:
        data = snippet_files.read_bounded(path)
        if len(data) > MAX_SNIPPET_BYTES:
            return [Problem(where, 1, 1, f"snippet file is {path.stat().st_size:,} bytes; the limit is "
                                         f"{MAX_SNIPPET_BYTES:,}")]
    except OSError as error:
        return [Problem(where, 1, 1, f"cannot read snippet: {error.strerror or error}")]
    declared = _declared_coding(data, where)
    if declared:
        return declared
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return [_not_utf8(data, error, where)]
    return _hidden_in_code(text, where)


# PEP 263's coding declaration, on one of a file's first two lines.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _declared_coding(data: bytes, where: str) -> list[Problem]:
    """A declaration of any coding but UTF-8: Python compiles the file's bytes under it (the check
    runs them so), while the lint and the page read them as UTF-8, and the two differ (in UTF-7 a
    comment's `+AAo-` is a new line: code the lint and the reader take for a comment)."""
    try:
        coding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        coding = "unknown"
    if coding in ("utf-8", "utf-8-sig"):
        return []
    for number, line in enumerate(data.splitlines()[:2], start=1):
        found = _CODING.match(line)
        if found:
            named = found.group(1).decode("ascii", errors="replace")
            return [Problem(where, number, found.start(1) + 1,
                            f"declares the coding '{named}': Python would run this file as {named}, the lint and "
                            "the page read it as UTF-8, and the two can differ; remove the declaration and save "
                            "the file as UTF-8")]
    return []


# What Python source may hold that entry text may not: a carriage return (CRLF files), a form feed
# (a page break PEP 8 allows), and a byte order mark as the file's first character.
_CODE_ALLOWS = str.maketrans({"\r": " ", "\x0c": " "})


def _hidden_in_code(text: str, where: str) -> list[Problem]:
    """The first character of a snippet that reorders or hides code (a bidirectional override, a
    zero-width or tag character, a control): the code a reviewer reads would differ from the code
    that runs and that readers copy (Trojan Source, CVE-2021-42574). The same list entry text refuses;
    inside a string, its escape (`\\u202e`) says the same to Python and shows to a reviewer."""
    checked = text.translate(_CODE_ALLOWS)
    if checked.startswith("\ufeff"):
        checked = " " + checked[1:]
    wrong = unprintable(checked)
    if wrong is None:
        line = include_line(text)
        return [] if line is None else [Problem(where, line, 1, f"{INCLUDE_ADVICE} (inside a string, split the "
                                                                "line or write its escape: \\x38 for the 8)")]
    at = next(index for index, char in enumerate(checked) if unprintable(char))
    line, col = _line_col(text[:at])
    return [Problem(where, line, col, f"{wrong} (inside a string, write its escape: \\u{ord(checked[at]):04x})")]


def snippets_leading_out(one: LoadedEntry, project: Project, resolved: Resolved | None = None) -> list[Problem]:
    """A problem for each snippet file of the entry that resolves outside snippets/<id>/
    (`snippet_inside`, on strings: this runs for every snippet on every `mkdocs serve` rebuild)."""
    problems = []
    resolve = resolved or Resolved()
    folder = os.path.join(os.fspath(project.snippets), one.entry.id)  # file names are plain names (the model's)
    inside = None
    for file, loc in _snippet_locations(one.entry):
        path = os.path.join(folder, file)
        if not os.path.exists(path):
            continue
        if inside is None:  # where the folder would be were it no symlink: one leading out leads its files out
            absolute = project.snippets if project.snippets.is_absolute() else Path.cwd() / project.snippets
            inside = os.path.join(resolve.real(os.fspath(absolute)), one.entry.id)
        real = resolve.real(path if os.path.isabs(path) else os.fspath(Path.cwd() / path))
        if not (real == inside or real.startswith(inside.rstrip(os.sep) + os.sep)):
            snippet = project.snippet_path(one.entry.id, file)
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet file {_unresolved_rel(snippet, project)} resolves outside "
                                    f"{_unresolved_rel(snippet.parent, project)}/; a snippet must be a file inside "
                                    "its entry's folder"))
    return problems


def snippet_inside(project: Project, entry_id: str, path: Path, resolved: Resolved | None = None) -> bool:
    """True when `path` resolves inside snippets/<entry_id>/: a snippet is published on the
    page, in the JSON API and the search index, so a symlink leading out (to a secret, to
    /etc/passwd) must never be read as one. `resolved`: the caller's, to resolve each folder once."""
    resolve = resolved or Resolved()
    return resolve(path).is_relative_to(resolve(project.snippets) / entry_id)


def orphan_snippets(loaded: list[LoadedEntry], entry_stems: set[str], project: Project) -> list[Problem]:
    """Snippet files no entry uses: an author's work that would silently never run.

    Folders of an entry file that failed to load are left alone: its own problems say enough.
    """
    if not project.snippets.is_dir():
        return []
    used = {(one.entry.id, file) for one in loaded for _, file in one.entry.snippet_files()}
    ids = {one.entry.id for one in loaded}
    problems = []
    for entry_id, name in _snippet_folder_files(os.fspath(project.snippets)):
        if (entry_id, name) in used or (entry_id in entry_stems and entry_id not in ids):
            continue
        if entry_id in ids:
            message = f"not used by entry '{entry_id}'; reference it (before, after or a guard) or delete it"
        else:
            message = f"no entry has id '{entry_id}'; add docs/errors/<library>/{entry_id}.yml or delete the folder"
        problems.append(Problem(project.rel(project.snippets / entry_id / name), 1, 1, message))
    return problems


def snippet_folder_names(project: Project) -> tuple[list[tuple[str, str]], dict[str, Problem]]:
    """(path, name) of everything under snippets/ (walked once for every check of the tree), but inside a folder
    past the bounds of one (`snippet_files.bounded_names`): its walk stops there, and it is a problem, by the
    folder's name (an entry's id), naming the folder and what to do."""
    top = os.fspath(project.snippets)
    try:
        with os.scandir(top) as listing:
            children = sorted(one.name for one in listing)
    except OSError:
        return [], {}
    names: list[tuple[str, str]] = []
    oversized: dict[str, Problem] = {}
    for name in children:
        path = os.path.join(top, name)
        names.append((path, name))
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        inside, over = snippet_files.bounded_names(path)
        if over is None:
            names += inside
        else:
            oversized[name] = Problem(_unresolved_rel(Path(path), project), 1, 1,
                                      f"{over}, where a snippet folder holds an entry's snippets and the few "
                                      "files they read: nothing in it is read, checked or run; remove (or "
                                      "flatten) what no snippet needs")
    return names, oversized


def compiled_code(project: Project, names: list[tuple[str, str]] | None = None) -> list[Problem]:
    """Bytecode and extension modules anywhere in the snippet folders: a check imports them (a helper's
    `__pycache__` bytecode compiled with an unchecked hash runs in place of the helper's source), yet
    the lint, a reviewer of the pull request and the page read only sources. And names Windows keeps
    for devices (`lib/aux.py`), which a checkout there cannot create. `names`: `snippet_folder_names`'s."""
    if names is None:
        names = snippet_folder_names(project)[0]
    return [Problem(project.rel(Path(path)), 1, 1, "compiled code in a snippet folder: a check would run it, but "
                    "the lint, a reviewer and the page read only sources; delete it (running a snippet with "
                    "python leaves __pycache__ behind: `errorkb verify` writes none)")
            for path, _ in names if path.lower().endswith(snippet_files.COMPILED_SUFFIXES)] + [
        Problem(project.rel(Path(path)), 1, 1, "a name Windows keeps for a device: a checkout there cannot create "
                "it; rename it") for path, name in names if windows_device(name)
    ] + _other_names_elsewhere(project, names)


def _other_names_elsewhere(project: Project, names: list[tuple[str, str]]) -> list[Problem]:
    """Files and folders of the snippet folders that another system reads as another name, or as a sibling's:
    Windows drops trailing dots and spaces (`guard.py.` is `guard.py`), macOS and Windows ignore case (`Guard.py`
    is `guard.py`). A check on Linux sees both; a checkout there holds one, or fails."""
    problems = []
    by_folder: dict[str, dict[str, list[str]]] = {}
    for path, name in names:
        if name[-1] in ". ":
            problems.append(Problem(project.rel(Path(path)), 1, 1, f"ends in a dot or a space, which Windows drops: "
                                                                   f"there it is {windows_name(name)}; rename it"))
        else:
            by_folder.setdefault(os.path.dirname(path), {}).setdefault(name.casefold(), []).append(name)
    for folder, groups in by_folder.items():
        for folded, alike in groups.items():
            if len(alike) < 2:
                continue
            kept = folded if folded in alike else min(alike)
            problems += [Problem(project.rel(Path(folder, name)), 1, 1,
                                 f"differs from {kept} only in case: one file where case is ignored (macOS, Windows); "
                                 "rename one") for name in alike if name != kept]
    return problems


def _snippet_folder_files(snippets: str) -> list[tuple[str, str]]:
    """(folder, name) of every `*.py` in a folder of `snippets`, as `Path.rglob("*.py")` finds them
    there (folders that are symlinks not entered, unreadable ones skipped), with `os.scandir`:
    pathlib costs more than the file system here, on every `mkdocs serve` rebuild."""
    found = []
    try:
        with os.scandir(snippets) as folders:
            inside = [one for one in folders if _is_folder(one)]
    except PermissionError:
        return []
    for folder in inside:
        try:
            with os.scandir(folder.path) as files:
                found += [(folder.name, one.name) for one in files if one.name.endswith(".py")]  # what `*.py` matches
        except PermissionError:
            continue
    return sorted(found)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder that is not a symlink, as `rglob` enters it."""
    try:
        return entry.is_dir() and not entry.is_symlink()
    except OSError:
        return False


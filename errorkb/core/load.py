"""YAML entries → validated `Entry` objects, strictly, with every problem located.

Stages, one function each; every stage collects problems instead of stopping:

1. `parse_yaml`      text → YAML node tree (safe loader); malformed YAML and duplicate keys
                     (which PyYAML would silently merge) become problems with their marks.
2. `validate_entry`  node tree → `Entry` through the pydantic model; each validation error is
                     placed on the line of the key or value it concerns, with "did you mean".
3. `cross_check`     what one file cannot know: file name = id, folder = library, snippet
                     files exist, ids unique, `related` ids resolve, no orphan snippet files.

Nothing here imports the runtime: `errorkb check` and `mkdocs serve` must start fast.
"""

from __future__ import annotations

import difflib
import typing
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from errorkb.core.entry import Entry, library_folder
from errorkb.core.message import is_degenerate
from errorkb.core.problems import Problem
from errorkb.core.project import Project

Loc = tuple[str | int, ...]
# libyaml's safe loader when PyYAML was built with it (the same marks, several times faster).
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Positions:
    """1-based (line, col) of every key and value in one YAML document, by path."""

    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)

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


@dataclass
class LoadResult:
    entries: list[LoadedEntry]
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    def by_id(self) -> dict[str, LoadedEntry]:
        return {loaded.entry.id: loaded for loaded in self.entries}


def load_project_entries(project: Project) -> LoadResult:
    """Every entry of the project, and every problem found on the way."""
    problems: list[Problem] = []
    loaded: list[LoadedEntry] = []
    files = _entry_files(project, problems)
    for path in files:
        one, found = load_entry_file(path, project)
        problems += found
        if one is not None:
            loaded.append(one)
    problems += cross_check(loaded, project)
    problems += orphan_snippets(loaded, {path.stem for path in files}, project)
    return LoadResult(loaded, sorted(set(problems)))


def load_entry_file(path: Path, project: Project) -> tuple[LoadedEntry | None, list[Problem]]:
    where = project.rel(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return None, [Problem(where, 1, 1, f"cannot read entry: {error}")]
    node, positions, problems = parse_yaml(text, where)
    if node is None:
        return None, problems
    entry, invalid = validate_entry(node, positions, where)
    problems += invalid
    return (LoadedEntry(entry, path, positions) if entry else None), problems


# -- stage 1: YAML ----------------------------------------------------------------------------


def parse_yaml(text: str, where: str) -> tuple[object | None, Positions, list[Problem]]:
    """Python data of the single YAML document in `text`, with positions; None if unusable."""
    positions = Positions()
    loader = _SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None, positions, [Problem(where, 1, 1, "empty entry: expected a mapping of keys")]
        problems = _index_nodes(root, (), positions, where)
        data = loader.construct_document(root)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(filter(None, [error.context, error.problem]))
        if "simple key" in what or "mapping values are not allowed" in what:
            what += "; text containing ': ' must be quoted or written as a block (key: |)"
        return None, positions, [Problem(where, line, col, f"malformed YAML: {what}")]
    except yaml.YAMLError as error:
        return None, positions, [Problem(where, 1, 1, f"malformed YAML: {error}")]
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        line, col = positions.of_value(())
        return None, positions, [Problem(where, line, col, f"expected a mapping of keys, found {_kind(data)}")]
    return data, positions, problems


def _index_nodes(node: yaml.Node, loc: Loc, positions: Positions, where: str) -> list[Problem]:
    """Record positions under `node` and report duplicate keys, which YAML forbids."""
    positions.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        first_seen: dict[object, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
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
    return problems


# -- stage 2: the model -----------------------------------------------------------------------


def validate_entry(data: object, positions: Positions, where: str) -> tuple[Entry | None, list[Problem]]:
    try:
        return Entry.model_validate(data), []
    except ValidationError as error:
        return None, [_locate(item, positions, where) for item in error.errors()]


def _locate(error: ErrorDetails, positions: Positions, where: str) -> Problem:
    loc: Loc = tuple(error["loc"])
    name = ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in loc).replace(".[", "[")
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
    return Problem(where, line, col, f"{name}: {message}{got}{hint}")


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


def _entry_files(project: Project, problems: list[Problem]) -> list[Path]:
    """Entry files; anything else in the entries folder is reported, never skipped silently."""
    if not project.entries.is_dir():
        return []
    found = []
    for path in sorted(project.entries.rglob("*")):
        if path.is_dir() or path.name.startswith("."):
            continue
        if path.suffix == ".yml" and path.parent.parent == project.entries:
            found.append(path)
        elif path.suffix in {".yml", ".yaml"}:
            where = project.rel(path)
            fix = (f"rename it to {path.stem}.yml" if path.suffix == ".yaml"
                   else "move it to docs/errors/<library>/<id>.yml")
            problems.append(Problem(where, 1, 1, f"not loaded as an entry: {fix}"))
    return found


def cross_check(loaded: list[LoadedEntry], project: Project) -> list[Problem]:
    problems: list[Problem] = []
    first_with_id: dict[str, LoadedEntry] = {}
    for one in loaded:
        entry, where, pos = one.entry, project.rel(one.path), one.positions
        if entry.id in first_with_id:
            other = first_with_id[entry.id]
            problems.append(Problem(where, *pos.of_value(("id",)),
                                    f"duplicate id '{entry.id}' (also used by {project.rel(other.path)}"
                                    f":{other.positions.of_value(('id',))[0]}); ids must be unique"))
        else:
            first_with_id[entry.id] = one
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
    ids = set(first_with_id)
    for one in loaded:
        for index, related in enumerate(one.entry.related):
            if related == one.entry.id:
                problems.append(Problem(project.rel(one.path), *one.positions.of_value(("related", index)),
                                        f"related id '{related}' is the entry itself; remove it"))
            elif related not in ids:
                close = difflib.get_close_matches(related, sorted(ids), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                problems.append(Problem(project.rel(one.path), *one.positions.of_value(("related", index)),
                                        f"related id '{related}' does not match any entry{hint}"))
    return problems


def _check_devices(one: LoadedEntry, project: Project) -> list[Problem]:
    """Device kinds are the runtime's: a misspelt one would silently never run. Messages must say
    more than the runtime's generic wordings (its device errors all read `<kind> error: ...`)."""
    from errorkb.plugs import runtime_for

    runtime = runtime_for(project.library.runtime)
    where = project.rel(one.path)
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


def _check_snippets(one: LoadedEntry, project: Project) -> list[Problem]:
    problems = []
    entry = one.entry
    locations: list[tuple[str, Loc]] = [(entry.before.file, ("before",)), (entry.after.file, ("after",))]
    locations += [(guard.file, ("guards", i, "file")) for i, guard in enumerate(entry.guards)]
    seen: set[str] = set()
    for file, loc in locations:
        path = project.snippet_path(entry.id, file)
        if file in seen:
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet {file} is used twice; give each snippet its own file"))
        seen.add(file)
        if not path.is_file():
            problems.append(Problem(project.rel(one.path), *one.positions.of_value(loc),
                                    f"snippet file {project.rel(path)} does not exist; create it or fix the name"))
    return problems


def orphan_snippets(loaded: list[LoadedEntry], entry_stems: set[str], project: Project) -> list[Problem]:
    """Snippet files no entry uses: an author's work that would silently never run.

    Folders of an entry file that failed to load are left alone: its own problems say enough.
    """
    if not project.snippets.is_dir():
        return []
    used = {(one.entry.id, file) for one in loaded for _, file in one.entry.snippet_files()}
    ids = {one.entry.id for one in loaded}
    problems = []
    for path in sorted(project.snippets.rglob("*.py")):
        entry_id = path.parent.name
        if path.parent.parent != project.snippets or (entry_id, path.name) in used:
            continue
        if entry_id in entry_stems and entry_id not in ids:
            continue
        if entry_id in ids:
            message = f"not used by entry '{entry_id}'; reference it (before, after or a guard) or delete it"
        else:
            message = f"no entry has id '{entry_id}'; add docs/errors/<library>/{entry_id}.yml or delete the folder"
        problems.append(Problem(project.rel(path), 1, 1, message))
    return problems


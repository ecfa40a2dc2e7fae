"""The format of a report or matrix file, and the fields of a newer minor format kept through a rewrite.

The contract (both kinds of file, one owner: this module):

- A file says its format: `schema`, the major, and `minor` (absent: 0). This errorkb writes its own major and the
  larger of its own minor and the minor of any field it writes back (the minor only when it is not 0: the files of
  format 2.0, written before minors were said, read and write back byte for byte).
- A newer major may change what any field means: such a file is refused, naming it and saying to upgrade errorkb
  (regenerating it would throw away what the newer one measured).
- A newer minor only *adds* fields, each one that stays true when an older errorkb rewrites the file around it: a
  record's field travels with its record (a record this run measured again is its own, and carries only what it
  wrote); a header's field stays with the file. A field whose meaning an older writer's rewrite would falsify is a
  new major. This errorkb keeps every field of a newer minor it does not know (`Kept`), at its place, and writes it
  back on every rewrite (a run's update, a merge): a newer errorkb's measurements are never dropped by an older one.
- In a file of a minor this errorkb reads whole, a field it does not know is a hand's (or a damaged file's):
  refused, naming the file, the field and its line, and saying to remove it.
"""

from __future__ import annotations

import copy
import json
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

MINOR = 0  # this errorkb's minor, of reports and matrix files alike: a field added to either is a new minor
RECORDS = ("checks", "releases", "results")  # the lists whose items are records: a record keeps its own fields

Patch = dict[str, Any]  # the unknown fields of one object, nested as in the file ({"before": {"peak": 1}})


class FormatError(ValueError):
    """The file's `minor` is no minor; the message says what it should be."""


def minor_of(data: dict[str, Any]) -> int:
    """The file's minor; `FormatError` when it is no whole number >= 0."""
    found = data.get("minor", 0)
    if type(found) is not int or not 0 <= found < 2**31:
        shown = json.dumps(found)[:40] if not isinstance(found, int) or abs(found) < 10**40 else "a huge number"
        raise FormatError(f"minor {shown} is not the format's minor version, a whole number from 0 on")
    return found


def newer_value(minor: int, error: ValidationError, where: Callable[[tuple[int | str, ...]], str]) -> str | None:
    """What to say of a file of a newer minor that does not validate: at the first value this errorkb does not know
    (a new outcome, a new code, a field's new kind, which that minor may add as it adds fields; its new fields are
    kept, so they are not the problem), named by `where(loc)`. It is that errorkb's file, not a damaged one:
    "restore the file from the run that wrote it" sent its reader to restore what was whole, and a new field beside
    the value was called a hand's "in a file that says it is of that format". None for a file of a minor this
    errorkb reads whole (what does not validate there is damage)."""
    if minor <= MINOR:
        return None
    problems = error.errors()
    problem = next((one for one in problems if one["type"] != "extra_forbidden"), problems[0])
    return (f"written by a newer errorkb (format minor {minor}; this one reads minor {MINOR} and earlier): "
            f"{where(problem['loc'])}: {problem['msg']}; upgrade errorkb to read it, and keep the file as it is")


@dataclass
class Kept:
    """The unknown fields of a newer minor's file: the header's, and each record's, by the record object they
    belong to (records are immutable: the same object, wherever a merge puts it, is the record as read)."""

    minor: int = 0
    header: Patch = field(default_factory=dict)


_RECORDS: dict[int, tuple[weakref.ref[BaseModel], int, Patch]] = {}  # id(record) -> (the record, its minor, fields)


def _forget(key: int) -> None:
    _RECORDS.pop(key, None)


def keep_record(record: BaseModel, minor: int, patch: Patch) -> None:
    _RECORDS[id(record)] = (weakref.ref(record), minor, patch)
    weakref.finalize(record, _forget, id(record))


def record_fields(record: BaseModel) -> tuple[int, Patch] | None:
    found = _RECORDS.get(id(record))
    if found is None or found[0]() is not record:
        return None
    return found[1], found[2]


def unknown_fields(error: ValidationError) -> list[tuple[tuple[int | str, ...], Any]] | None:
    """Where each field the model does not know is, with its value; None when the error is anything else too."""
    problems = error.errors()
    if any(problem["type"] != "extra_forbidden" for problem in problems):
        return None
    return [(tuple(problem["loc"]), problem["input"]) for problem in problems]


def without_unknown(data: dict[str, Any], found: list[tuple[tuple[int | str, ...], Any]]
                    ) -> tuple[Patch, dict[tuple[str, int | None], Patch]]:
    """Take the unknown fields out of `data` (in place): the header's own (its top level), and the patch of each
    object that holds the others: a record by (list, index), an object of the header by (field, None). An object's
    fields stay with that object: written again as it was read, or not at all (a shard the rewrite no longer says
    takes its fields with it, rather than leaving them as a shard no reader can read)."""
    header: Patch = {}
    objects: dict[tuple[str, int | None], Patch] = {}
    for loc, _ in found:
        holder: Any = data
        for part in loc[:-1]:
            holder = holder[part]
        value = holder.pop(loc[-1])
        if len(loc) >= 3 and loc[0] in RECORDS and isinstance(loc[1], int):
            _put(objects.setdefault((str(loc[0]), loc[1]), {}), loc[2:], value)
        elif len(loc) >= 2:
            _put(objects.setdefault((str(loc[0]), None), {}), loc[1:], value)
        else:
            header[str(loc[0])] = value
    return header, objects


def keep_objects(model: BaseModel, minor: int, objects: dict[tuple[str, int | None], Patch]) -> None:
    """Attach each patch of `without_unknown` to the object of the validated `model` it belongs to."""
    for (name, index), patch in objects.items():
        held = getattr(model, name)
        keep_record(held if index is None else held[index], minor, patch)


Model = TypeVar("Model", bound=BaseModel)


def validated(model: type[Model], data: dict[str, Any], minor: int) -> tuple[Model, Kept]:
    """The file in `data` (of format `minor`) as `model`, and the fields of a newer minor it does not know, taken out
    and kept for its rewrite; `ValidationError` for anything else, or for an unknown field in a file of a minor this
    errorkb reads whole (a hand's). The one reading of both kinds of file."""
    try:
        return model.model_validate(data), Kept(minor)
    except ValidationError as error:
        found = unknown_fields(error) if minor > MINOR else None
        if found is None:
            raise
        header, objects = without_unknown(data, found)
    read = model.model_validate(data)
    keep_objects(read, minor, objects)
    return read, Kept(minor, header)


def _put(patch: Patch, loc: tuple[int | str, ...], value: Any) -> None:
    for part in loc[:-1]:
        patch = patch.setdefault(part, {})  # type: ignore[arg-type]
    patch[loc[-1]] = value  # type: ignore[index]


def applied(written: Any, patch: Mapping[Any, Any]) -> Any:
    """`written` (a record or header as JSON data) with the kept fields put back where they were."""
    for key, value in patch.items():
        inside = (isinstance(written, list) and isinstance(key, int) and key < len(written)
                  or isinstance(written, dict) and key in written and isinstance(value, dict))
        if inside:
            written[key] = applied(written[key], value)
        elif isinstance(written, dict):
            written[key] = value
    return written


def record_text(record: BaseModel, text: str) -> str:
    """The record's line as written (`text`), with the fields it was read with and this errorkb does not know."""
    found = record_fields(record)
    if found is None:
        return text
    return json.dumps(applied(json.loads(text), found[1]), ensure_ascii=False, separators=(",", ":"))


def said(header: dict[str, Any], kept: Kept, records: Iterable[BaseModel], parts: Mapping[str, object]
         ) -> dict[str, Any]:
    """The header a rewrite writes: its format's minor (this errorkb's, or the newest of the fields it writes back;
    said after `schema` where it is not 0) and the header's kept fields; `parts`: the header's values by name, whose
    objects carry their own."""
    minors = [MINOR, kept.minor if kept.header else 0]
    minors += [found[0] for record in records if (found := record_fields(record)) is not None]
    fields = {key: value for key, value in header.items() if key != "minor"}
    for name, value in fields.items():  # an object of the header (a shard) with the fields it was read with
        if isinstance(held := parts.get(name), BaseModel) and (found := record_fields(held)) is not None:
            minors.append(found[0])
            fields[name] = applied(value, found[1])
    minor = {"minor": max(minors)} if max(minors) else {}
    out: dict[str, Any] = applied({"schema": fields.pop("schema"), **minor, **fields}, kept.header)
    return out


def carried(*sources: Kept | None) -> Kept:
    """One header's kept fields from several files' (a merge): the later file's where two say a field."""
    out = Kept()
    for source in sources:
        if source is not None and source.header:
            out.header = applied(out.header, copy.deepcopy(source.header))
            out.minor = max(out.minor, source.minor)
    return out

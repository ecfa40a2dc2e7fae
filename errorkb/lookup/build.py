"""Entries → what the lookup reads of them: the index items the page, the CLI and the hook all
match against, with each entry's *diagnosis* filled in from its declarations and its kind.

Stages (one function each):

1. `wordings_of`: the entry's wordings, each marked `own` (the library's own raise text) and
   `words` (its words alone tie a message to the entry: its own, or naming one of `names`);
2. `as_pasted`: the same wordings as pastes often show them (a `KeyError` without its quotes,
   backticks eaten by Markdown), after the authored ones;
3. `diagnosis_of`: frames that tie a traceback to it (default: `source.function` in its file),
   frames that rule it out, the raising frame's place (a removed name is used by the user's
   code, never by the library itself), the names whose use on a failing line ties it, typed
   placeholders, relations and the direction of a release mismatch;
4. `index_fields` / `index_item` / `index_document`: the JSON the lookup reads.

Only entry text (and the version matrix's raise lines, given by the caller) goes in the
matching part; nothing here reads a report or imports the runtime.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate
from errorkb.lookup._index import class_names_of
from errorkb.lookup._known import Known, Releases, Wording, since_words
from errorkb.lookup._match import fnv1a
from errorkb.lookup._rules import rules_document

__all__ = ["SCHEMA", "as_pasted", "diagnosis_of", "entries_digest", "index_document", "index_fields", "index_item",
           "installed_path", "known_from_entries", "library_classes", "rules_document", "uses_user_types",
           "wordings_of"]

if TYPE_CHECKING:
    from errorkb.core.entry import Entry
    from errorkb.core.project import LibraryProfile

SCHEMA = 1  # fields are only ever added; readers tolerate their absence


def installed_path(library: LibraryProfile | None, path: str) -> str | None:
    """A repository path as installed, as tracebacks print it: `src/pkg/x.py` → `pkg/x.py`."""
    inside = library.package_path(path) if library else None
    if not library or not inside:
        return None
    top = library.name.split(".")[0]
    return inside if inside == f"{top}.py" else f"{top}/{inside}"  # a library that is one module: its file


def names_of(entry: Entry) -> tuple[str, ...]:
    """The names that tie a message to the entry on its words: a removed or changed API's name
    (a constructor by its class: `StaticCache.__init__`), then the declared ones."""
    found: list[str] = []
    if entry.api is not None:
        owner = entry.api.owner.rsplit(".", 1)[-1]
        found.append(f"{owner}.{entry.api.name}" if entry.api.name.startswith("__") else entry.api.name)
    return tuple(dict.fromkeys([*found, *entry.diagnosis.names]))


def code_names(entry: Entry) -> tuple[str, ...]:
    """Names whose use on the failing line of the user's code ties the paste to the entry."""
    if entry.api is None:
        return ()
    owner = entry.api.owner.rsplit(".", 1)[-1]
    return (owner,) if entry.api.name.startswith("__") else (entry.api.name,)


def _names_in(message: str, names: tuple[str, ...]) -> bool:
    try:
        fixed = "\x00".join(MessageTemplate.parse(message).pieces)
    except ValueError:
        return False
    return any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", fixed) for name in names)


def wordings_of(entry: Entry) -> tuple[Wording, ...]:
    """Stage 1: the entry's main wording, then each of its `also_seen_as`; `own` when the library's
    own raise prints it (its raising frame is the library's by design)."""
    names = names_of(entry)
    # A raise site in the runtime (`source.runtime`) prints its words for whatever object reached it, the
    # library's or not: they are the runtime's, and tie the entry only with other evidence (`recognised_by`).
    own_main = entry.kind == "raise" and not entry.source.implicit and not entry.source.runtime
    # Raised within the library's call (its own raise, or Python's or the runtime's beneath its function): not by
    # the user's code (`source.user_code`, `raised_in: user-code`, a removed or changed API) nor by the runtime for
    # any caller; an `also_seen_as` only where it names the library's function that raises it.
    called = entry.kind == "raise" and not entry.source.user_code and not entry.source.runtime and \
        entry.diagnosis.raised_in != "user-code"
    found = [Wording(entry.message, entry.exception, words=own_main or _names_in(entry.message, names), own=own_main,
                     main=True, called=called)]
    for one in entry.also_seen_as:
        # A wording raised by a function of the library's is its own text, unless the entry's error is
        # raised by Python or the runtime under that function (`source.implicit`): then the words are theirs.
        own = one.function is not None and not entry.source.implicit and not entry.source.runtime
        found.append(Wording(one.message, one.exception or entry.exception, one.releases, one.device, one.note,
                             words=own or _names_in(one.message, names), own=own, main=False,
                             called=called and one.function is not None))
    return tuple(found)


def as_pasted(wordings: tuple[Wording, ...]) -> tuple[Wording, ...]:
    """Stage 2: the wordings, then how each may reach a paste changed by the way it was printed: a
    `KeyError` shows its message quoted, but a log or an issue's title often drops the quotes;
    Markdown (an issue, a chat) eats backticks. The variants come last, so an exact paste still
    matches the authored wording first."""
    variants: list[Wording] = []
    for one in wordings:
        message = pasted_form(one.message, one.exception)
        if message != one.message and all(message != w.message for w in (*wordings, *variants)):
            variants.append(replace(one, message=message))
    return (*wordings, *variants)


def pasted_form(message: str, exception: str) -> str:
    """A wording as a paste may show it (`as_pasted`): a `KeyError`'s quotes and Markdown's backticks gone."""
    if exception.rsplit(".", 1)[-1] == "KeyError" and len(message) > 2 and message[0] == message[-1] == "'":
        message = message[1:-1]
    return message.replace("`", "")


def other_causes_of(entry: Entry) -> list[dict[str, Any]]:
    """The entry's other causes as the index carries them: `messages`, the wording each concerns as
    written and as a paste may show it (empty: every wording), for the matcher to compare with the
    matched wording's text, its values put back."""
    found = []
    for cause in entry.diagnosis.other_causes:
        messages = [] if cause.message is None else \
            list(dict.fromkeys([cause.message, pasted_form(cause.message, entry.exception)]))
        found.append({"releases": cause.releases, "note": one_line(cause.note), "message": cause.message,
                      "messages": messages, "same_frames": cause.same_frames})
    return found


def releases_of(entry: Entry) -> Releases:
    found = entry.releases
    if found is None:
        return Releases()
    return Releases(found.raises, found.last_good, found.replacement, found.replacement_since)


def diagnosis_of(entry: Entry, installed: str | None) -> dict[str, Any]:
    """Stage 3: the entry's diagnosis as the index carries it (`installed`: its source file as a
    traceback names it, `<package>/<file>.py`, when known)."""
    declared = entry.diagnosis
    package = installed.split("/", 1)[0] if installed else None
    # A library that is one module (`six.py`): its frames are that file's, a pattern of a file, not a folder.
    where = None if package is None else package if package.endswith(".py") else f"{package}/"
    if declared.frames is not None:
        frames = [rule.model_dump(mode="json") for rule in declared.frames]
    elif entry.kind == "raise" and installed and not entry.source.user_code:  # user code raises those
        functions = [entry.source.function, *(one.function for one in entry.also_seen_as if one.function)]
        frames = [{"file": installed, "function": name} for name in dict.fromkeys(functions)]
    else:
        frames = []
    raised_in = declared.raised_in or ("user-code" if entry.kind in ("removed", "signature") else "anywhere")
    return {
        "frames": frames, "require_frame": declared.require_frame,
        "exclude": [rule.model_dump(mode="json") for rule in declared.exclude],
        "innermost_exclude": [{"file": where, "function": None}] if raised_in == "user-code" and where
        else [],
        "code": list(code_names(entry)),
        "placeholders": {name: {"type": rule.type, "allow": list(rule.allow),
                                **({"withhold": [one.model_dump(mode="json") for one in rule.withhold]}
                                   if rule.withhold else {}),
                                **({"ties": [one.model_dump(mode="json") for one in rule.ties]}
                                   if rule.ties else {})}
                         for name, rule in declared.placeholders.items()},
        "relations": [list(triple) for triple in declared.relation_triples()],
        "direction": declared.direction,
        "other_causes": other_causes_of(entry),
        # The library's package folder: a wording raised within the library's call (`called`) has a frame there.
        "within": where,
        # Raised by the runtime for whatever code reached it (`source.runtime`): a caller's failing line that is
        # none of `recognised_by` says nothing of another cause, so it never rules the entry out.
        "runtime": entry.source.runtime,
    }


def index_fields(entry: Entry, by_release: dict[str, int] | None = None,
                 installed: str | None = None) -> dict[str, Any]:
    """Stage 4: what the lookup reads of an entry beyond schema 1. `installed` is the entry's
    source file as installed (`<package>/<file>.py`), which is how a traceback names it."""
    releases = releases_of(entry)
    return {
        "kind": entry.kind,
        "origin": list(entry.origin),  # where it comes from, in the pages' words (`Entry.origin`)
        "wordings": [{"message": w.message, "exception": w.exception, "releases": w.releases, "device": w.device,
                      "note": w.note, "words": w.words, "own": w.own, "main": w.main, "called": w.called}
                     for w in as_pasted(wordings_of(entry))],
        "recognised_by": list(entry.recognised_by),
        "raises_in": releases.raises, "last_good": releases.last_good, "replacement": releases.replacement,
        "replacement_since": releases.replacement_since,
        "lines": {"path": installed or entry.source.path, "by_release": dict(by_release)} if by_release else None,
        "diagnosis": diagnosis_of(entry, installed),
    }


def fix_of(entry: Entry) -> str:
    """The fix in one line: the replacement of a removed API, else the first solution's title."""
    releases = entry.releases
    if releases and releases.replacement:
        return one_line(f"use {releases.replacement}{since_words(releases.replacement, releases.replacement_since)}")
    return one_line(entry.solutions[0].title)


def one_line(text: str) -> str:
    """Prose as one line of a terminal: whitespace runs, newlines included, become one space."""
    return " ".join(text.split())


def index_item(entry: Entry, library: LibraryProfile, url: str, by_release: dict[str, int] | None = None,
               shown_fix: str | None = None) -> dict[str, Any]:
    """One entry of the shipped index: the page's fields, the lookup's, and what `errorkb show`
    prints without the entries at hand."""
    releases = entry.releases
    return {
        "id": entry.id, "title": one_line(entry.title), "exception": entry.exception, "message": entry.message,
        "function": entry.source.function, "library": entry.library, "url": url, "tags": list(entry.tags),
        **index_fields(entry, by_release, installed_path(library, entry.source.path)),
        "fix": fix_of(entry),
        "show": {"meaning": entry.meaning, "trigger": entry.trigger,
                 "solutions": [solution.title for solution in entry.solutions],
                 "after": shown_fix, "source": entry.source_url,
                 # the library release it was verified at: a runtime source's own release is the runtime's
                 "pinned": library.release if entry.source.runtime else entry.source.release,
                 "raises": releases.raises if releases else None, "related": list(entry.related)},
    }


def uses_user_types(entries: Iterable[Entry]) -> bool:
    """Whether an entry declares a `user` or `library-class` placeholder (only then is the library's
    class list needed)."""
    return any(rule.type in ("user", "library-class") or any(one.library for one in rule.withhold)
               or any(one.foreign for one in rule.ties)
               for entry in entries for rule in entry.diagnosis.placeholders.values())


def library_classes(library: LibraryProfile) -> str:
    """The class names the installed library defines at the top level of its modules (read from
    its files, never imported), each as 8 hex digits of its FNV-1a hash, sorted and joined: a
    `user` placeholder standing for one of them is not the user's code. "" when not installed."""
    return _classes_of(library.name.split(".")[0])


@functools.lru_cache(maxsize=8)
def _classes_of(package: str) -> str:
    return "".join(sorted({fnv1a(name) for name in class_names_of(package)}))


def entries_digest(paths: Iterable[Path]) -> str:
    """A digest of entry files (names and bytes): an index built from other entries is stale."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.name):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def beneath_library(library: LibraryProfile, runtime_packages: Iterable[str]) -> list[str]:
    """The packages the library calls into, whose frames never raise an entry's error (the index's
    `runtime.packages`): the runtime's, and the profile's backends as folders (a backend `pkg.sub` is
    `pkg/sub`), whose errors start beneath the library's call as the runtime's do (the verifier
    counts them so too: docs/contributing.md, 'Errors raised by a backend the library calls')."""
    return [*runtime_packages, *(backend.replace(".", "/") for backend in library.backends)]


def index_document(library: LibraryProfile, entries: Iterable[Entry], url_of: Callable[[Entry], str],
                   site: str | None, lines: dict[str, dict[str, int]] | None = None,
                   generic: Iterable[str] = GENERIC_WORDINGS, fixes: dict[str, str] | None = None,
                   classes: str | None = None, digest: str = "", runtime: Iterable[str] = ()) -> dict[str, Any]:
    """The whole index: the library, the rules, the site's address and every entry."""
    generic = list(generic)
    entries = list(entries)
    return {
        "schema": SCHEMA,
        "library": {"name": library.name, "distribution": library.dist, "repository": library.repository,
                    "release": library.release, "others": library.other_prefixes,
                    "classes": (library_classes(library) if uses_user_types(entries) else "")
                    if classes is None else classes},
        "site": site or "",
        "runtime": {"packages": beneath_library(library, runtime)},
        "generic": generic,
        "rules": rules_document(generic),
        "entries_digest": digest,
        "entries": [index_item(entry, library, url_of(entry), (lines or {}).get(entry.id),
                               (fixes or {}).get(entry.id))
                    for entry in sorted(entries, key=lambda one: one.id)],
    }


def known_from_entries(entries: Iterable[Entry], lines: dict[str, dict[str, int]] | None = None,
                       library: LibraryProfile | None = None,
                       url_of: Callable[[Entry], str] | None = None) -> list[Known]:
    """Entries straight from the loaded YAML, as an index would list them (`url_of`: each entry's
    page, as the site names it)."""
    return [Known.from_index({"id": entry.id, "title": entry.title, "exception": entry.exception,
                              "message": entry.message, "url": url_of(entry) if url_of else "",
                              "function": entry.source.function,
                              **index_fields(entry, (lines or {}).get(entry.id),
                                             installed_path(library, entry.source.path))})
            for entry in entries]

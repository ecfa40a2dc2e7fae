"""Which entry does a pasted error belong to? The matcher behind `errorkb lookup` and the
"paste your error" box.

Readers paste what their terminal printed: a bare message, `ValueError: message`, a whole
traceback, a chain of them, pytest's `E   ValueError: ...` lines, a distributed launcher's `[rank0]: ` on
every line, a log's timestamps, colours. The rules, identical in
`errorkb/site/assets/lookup.js` (tests/site/test_lookup_js.py runs both on the same inputs and
compares answers and counted work):

1. Size: a paste longer than `CAP` characters keeps its last `CAP` (where the error is),
   from the first line that starts inside them; the answer says how much it cut.
2. Normalisation: BOMs go; no-break spaces become spaces; typographic quotes (‘’ “”) become
   ASCII ones (in wordings too); `\\r\\n`, `\\r`, U+2028 and U+2029 become
   `\\n`; ANSI escape sequences go; `PREFIX` is removed from the start of every line (a launcher's
   `[rank0]: `, pytest's `E   `, `2025-01-01 12:00:00,123 - ERROR - `, `tool-name | `, stacked);
   Python's own hint `. Did you mean: 'x'?` goes from the end of a line (the exception's message
   never holds it); then ASCII whitespace is stripped from both ends. Templates are stripped
   the same way (a source message may end in a space that no paste keeps).
3. Candidates: every line shaped `[indent]Name: message` (`Name` may be dotted) is an
   exception line; the last `CHAIN` of them are candidates, the last first (in a chain,
   `During handling ...` or `The above exception ...`, the last exception is the one that
   surfaced). Each gives its one-line message and, when lines follow before a blank line, a
   traceback marker or the next exception line, the multi-line message too. Then the whole
   text is a candidate, as a bare message. Candidates end at the next exception line, so
   together they hold each line at most twice.
4. An entry matches when one of its wordings (the main message, then `also_seen_as`) matches a
   candidate whole (`MessageTemplate.match`) and the candidate's exception name, if any, has
   the wording's class name as its last part (`builtins.ValueError` is `ValueError`). Failing
   that, the wording may be found anywhere in the text (`MessageTemplate.search`), which ranks
   lower. Degenerate wordings (`is_degenerate`: `{msg}`, `'{a}' object has no attribute '{b}'`)
   are ignored: they would claim every paste.
5. Ranking: whole over found inside; a named, agreeing exception over none; the later
   exception of the paste over the earlier; an entry whose `recognised_by` text the paste holds
   over one whose does not (several entries may share a message), and such an entry is dropped
   when the paste shows more than the bare message but none of its texts; more fixed text (more
   specific) over less; the main wording over the others; then id. The index lists each
   wording also as pastes often show it (`as_pasted`: a `KeyError`'s message without its
   quotes, any message without backticks), after the authored ones.
6. Release: a frame `File ".../<package>/<file>.py", line N` narrows the installed
   release to those whose raise line for the entry's source file is N (the version matrix's
   lines); `--release X` names it. The answer then says whether that release raises the error
   (the entry's `raises_in` specifier) and what to do on it.

Work is linear in the paste's size: each normalisation pass, the exception-line scan and the
frame scan read the text once; every piece search resumes where the previous one stopped
(no regex backtracking over pasted text); candidates add up to at most twice the text. The
`Meter` counts it, and the tests hold that count to a linear bound. Nothing here imports the runtime
or MkDocs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from errorkb.core.entry import Entry
from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate, Meter, TemplateSyntaxError, is_degenerate
from errorkb.core.project import LibraryProfile, Project

CAP = 1 << 16  # characters of a paste read: its last 64 KiB
CHAIN = 64  # exception lines tried whole, counted from the end of the paste
WHITESPACE = " \t\n\v\f\r"  # ASCII only: JavaScript's \s and Python's str.strip() differ

ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
TIMESTAMP = (r"\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
             r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]?(?:[ \t,]+(?:-[ \t]+)?(?:[A-Za-z0-9_.<>-]+[ \t]+[-|:][ \t]+)?"
             r"\[?(?:CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)\]?:?)?[ \t]*(?:[-|:][ \t]*)?")
PREFIX = re.compile(r"(?<![^\n])(?:\[(?:rank|default)[0-9]+\]:[ \t]?|E(?: {2,}|\t)"
                    r"|[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]+\|[ \t]?|" + TIMESTAMP + r")+")
SUFFIX = re.compile(r"\. Did you (?:mean:(?: '[^'\n]*'\??)?(?: Or did you forget to import '[^'\n]*'\??)?"
                    r"|forget to import '[^'\n]*'\??)[ \t]*(?![^\n])")
EXCEPTION_LINE = re.compile(r"(?<![^\n])[ \t]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*): ([^\n]*)")
STOP_LINE = re.compile(r"(?<![^\n])(?:[ \t]*(?![^\n])|Traceback \(most recent call last\):"
                       r"|During handling of the above exception|The above exception was the direct cause)")
FRAME = re.compile(r"File \"([^\"\n]*)\", line ([0-9]+)")
PLAIN_RELEASE = re.compile(r"^[0-9]+(?:\.[0-9]+)*$")
CLAUSE = re.compile(r"^(~=|==|!=|<=|>=|<|>)[ \t]*([0-9]+(?:\.[0-9]+)*)(\.\*)?$")


# -- what the lookup knows of an entry ---------------------------------------------------------


@dataclass(frozen=True)
class Wording:
    """One way the error's message reads: the entry's own, or one of its `also_seen_as`."""

    message: str
    exception: str  # the class that raises it (an `also_seen_as` without one: the entry's)
    releases: str | None = None  # PEP 440 specifier of the releases that word it so
    device: str | None = None  # the device kind, when only that device words it so
    note: str | None = None


@dataclass(frozen=True)
class Releases:
    """In which releases the entry's error is raised, and what replaces the failing code."""

    raises: str | None = None  # PEP 440 specifier, e.g. ">=4.49,<5.0"
    last_good: str | None = None  # the last release where the old code ran
    replacement: str | None = None
    replacement_since: str | None = None


@dataclass(frozen=True)
class Known:
    """One entry as the lookup sees it: what `api/errors/index.json` holds for it."""

    id: str
    title: str
    exception: str
    message: str
    url: str = ""
    function: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    wordings: tuple[Wording, ...] = ()  # the main message first; filled in when left empty
    releases: Releases = Releases()
    lines_path: str | None = None  # the source file the raise lines refer to
    lines: tuple[tuple[str, int], ...] = ()  # (release, raise line), in release order
    recognised_by: tuple[str, ...] = ()  # text of a traceback that tells this case from others worded alike

    def __post_init__(self) -> None:
        if not self.wordings:
            object.__setattr__(self, "wordings", (Wording(self.message, self.exception),))

    @classmethod
    def from_index(cls, item: dict[str, Any]) -> Known:
        """An entry of the published index; every field added after schema 1 may be absent."""
        core = {key: item[key] for key in ("id", "title", "exception", "message")}
        wordings = tuple(_wording(w, item["exception"]) for w in item.get("wordings") or [])
        lines = item.get("lines") or {}
        return cls(**core, url=item.get("url", ""), function=item.get("function", ""),
                   extra={k: v for k, v in item.items() if k not in core}, wordings=wordings,
                   releases=Releases(_text(item.get("raises_in")), _text(item.get("last_good")),
                                     _text(item.get("replacement")), _text(item.get("replacement_since"))),
                   lines_path=_text(lines.get("path")),
                   lines=tuple((str(r), n) for r, n in (lines.get("by_release") or {}).items()
                               if isinstance(n, int) and not isinstance(n, bool)),
                   recognised_by=tuple(str(text) for text in item.get("recognised_by") or [] if text))


def _get(thing: object, name: str) -> object:
    """A field of a dict or of a model: entries gain `also_seen_as` and `releases` as mappings
    in the index and as models on `Entry`; either may be absent."""
    return thing.get(name) if isinstance(thing, dict) else getattr(thing, name, None)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _wording(thing: object, exception: str) -> Wording:
    return Wording(_text(_get(thing, "message")) or "", _text(_get(thing, "exception")) or exception,
                   _text(_get(thing, "releases")), _text(_get(thing, "device")), _text(_get(thing, "note")))


def wordings_of(entry: Entry) -> tuple[Wording, ...]:
    """The entry's main wording, then each of its `also_seen_as`."""
    return (Wording(entry.message, entry.exception), *(_wording(one, entry.exception) for one in entry.also_seen_as))


def as_pasted(wordings: tuple[Wording, ...]) -> tuple[Wording, ...]:
    """The wordings, then how each may reach a paste changed by the way it was printed: a
    `KeyError` shows its message quoted, but a log or an issue's title often drops the quotes;
    Markdown (an issue, a chat) eats backticks. The variants come last, so an exact paste still
    matches the authored wording first."""
    variants: list[Wording] = []
    for one in wordings:
        message = one.message
        if one.exception.rsplit(".", 1)[-1] == "KeyError" and len(message) > 2 and message[0] == message[-1] == "'":
            message = message[1:-1]
        message = message.replace("`", "")
        if message != one.message and all(message != w.message for w in (*wordings, *variants)):
            variants.append(replace(one, message=message))
    return (*wordings, *variants)


def releases_of(entry: Entry) -> Releases:
    found = entry.releases
    if found is None:
        return Releases()
    return Releases(*(_text(_get(found, name)) for name in ("raises", "last_good", "replacement", "replacement_since")))


def index_fields(entry: Entry, by_release: dict[str, int] | None = None,
                 installed_path: str | None = None) -> dict[str, Any]:
    """What the lookup reads of an entry beyond schema 1, as `api/errors/index.json` holds it.
    `installed_path` is the entry's source file as installed (`<package>/<file>.py`), which is
    how a traceback names it."""
    releases = releases_of(entry)
    return {
        "wordings": [{"message": w.message, "exception": w.exception, "releases": w.releases, "device": w.device,
                      "note": w.note} for w in as_pasted(wordings_of(entry))],
        "recognised_by": list(entry.recognised_by),
        "raises_in": releases.raises, "last_good": releases.last_good, "replacement": releases.replacement,
        "replacement_since": releases.replacement_since,
        "lines": {"path": installed_path or entry.source.path, "by_release": dict(by_release)}
        if by_release else None,
    }


def known_from_index(path: Path) -> list[Known]:
    """Entries from a published `api/errors/index.json`."""
    return [Known.from_index(item) for item in json.loads(path.read_text(encoding="utf-8"))["entries"]]


def known_from_entries(entries: Iterable[Entry], lines: dict[str, dict[str, int]] | None = None,
                       library: LibraryProfile | None = None) -> list[Known]:
    """Entries straight from the loaded YAML, as the site's index would list them; `lines` maps
    an entry id to its raise line per release (the version matrix), where known."""
    from errorkb.site.render import site_url

    known = []
    for entry in entries:
        item = {"id": entry.id, "title": entry.title, "exception": entry.exception, "message": entry.message,
                "url": site_url(entry), "function": entry.source.function,
                **index_fields(entry, (lines or {}).get(entry.id), installed_path(library, entry.source.path))}
        known.append(Known.from_index(item))
    return known


def installed_path(library: LibraryProfile | None, path: str) -> str | None:
    """A repository path as installed, as tracebacks print it: `src/pkg/x.py` → `pkg/x.py`."""
    inside = library.package_path(path) if library else None
    return f"{library.name.split('.')[0]}/{inside}" if library and inside else None


@dataclass(frozen=True)
class Index:
    """A published `api/errors/index.json`: its entries, and what the lookup needs besides."""

    known: list[Known]
    library: str  # the documented library's name, for the release advice
    generic: tuple[str, ...]  # wordings every error of a kind shares: never enough to identify one


def read_index(path: Path) -> Index:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Index([Known.from_index(item) for item in data["entries"]],
                 str((data.get("library") or {}).get("name") or "the library"),
                 tuple(str(w) for w in data.get("generic") or GENERIC_WORDINGS))


def index_lookup(path: Path) -> Lookup:
    """The lookup of a published `api/errors/index.json`."""
    index = read_index(path)
    return Lookup(index.known, library=index.library, generic=index.generic)


def project_lookup(project: Project, entries: list[Entry]) -> Lookup:
    """The lookup of a project's entries, as its site's index would hold them: the version
    matrix's raise lines where it ran, the runtime's generic wordings."""
    from errorkb.plugs import runtime_for
    from errorkb.results.matrix import read_matrix, summarize

    data = read_matrix(project)
    lines: dict[str, dict[str, int]] = {}
    for entry in entries if data else []:
        summary = summarize(entry.id, data, None) if data else None
        if summary and summary.lines:
            lines[entry.id] = summary.lines
    generic = (*GENERIC_WORDINGS, *runtime_for(project.library.runtime).generic_messages)
    return Lookup(known_from_entries(entries, lines, project.library), library=project.library.name,
                  generic=generic)


# -- one paste ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    message: str
    exception: str | None  # the name written before the message, if any
    chain: int = CHAIN  # the exception line's place from the end of the paste (0: the last)


@dataclass(frozen=True)
class Verdict:
    """What the release a paste came from means for the matched entry."""

    releases: tuple[str, ...]  # the release given, or those the paste's frames point to
    given: bool  # named by the reader (`--release`), not read from the paste
    raises: bool | None  # every one of them raises the error; False: none does; None: unknown
    advice: str  # what to do on it, one sentence ("" when nothing is known)


@dataclass(frozen=True)
class Match:
    known: Known
    values: dict[str, str]  # placeholder expression → the text it stood for
    exception: str | None  # the exception name seen in the paste, when it agreed
    exact: bool  # the message matched whole; False: found inside the text
    fixed: int = 0  # characters of fixed text in the wording: more is more specific
    wording: int = 0  # which of `known.wordings` matched: 0 is the entry's own message
    chain: int = CHAIN  # the candidate's place from the end of the paste
    release: Verdict | None = None
    recognised: bool = False  # the paste holds one of the entry's `recognised_by` texts

    @property
    def score(self) -> tuple[bool, bool, int, bool, int, int]:
        return (self.exact, self.exception is not None, -self.chain, self.recognised, self.fixed, -self.wording)

    @property
    def matched(self) -> Wording:
        return self.known.wordings[self.wording]


@dataclass(frozen=True)
class Answer:
    matches: list[Match]  # best first
    cut: int  # characters dropped from the start of the paste (0: it was read whole)
    kept: int  # characters read
    work: int  # characters the scans may have examined: linear in `kept`


def strip(text: str) -> str:
    return text.strip(WHITESPACE)


def keep_tail(text: str, cap: int = CAP) -> str:
    """The paste's last `cap` characters, from the first line that starts inside them."""
    if len(text) <= cap:
        return text
    tail = text[len(text) - cap:]
    newline = tail.find("\n")
    return tail[newline + 1:] if newline >= 0 else tail


def plain_quotes(text: str) -> str:
    """Typographic quotes (a word processor, a forum, a translated title) as Python prints them;
    pastes and wordings alike."""
    return text.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')


def normalize(text: str, meter: Meter | None = None) -> str:
    """Rule 2: what terminals and tools add, taken away."""
    meter = meter or Meter()
    meter.work += 14 * len(text)  # the fourteen passes below each read the text once
    text = text.replace("\ufeff", "").replace("\u00a0", " ")
    text = plain_quotes(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    text = ANSI.sub("", text)
    text = PREFIX.sub("", text)
    text = SUFFIX.sub("", text)
    return strip(text)


def candidates(text: str, meter: Meter | None = None) -> list[Candidate]:
    """Rule 3: messages a normalised paste may hold, most likely first."""
    meter = meter or Meter()
    meter.work += len(text)
    lines = list(EXCEPTION_LINE.finditer(text))[-CHAIN:]
    found: list[Candidate] = []
    for chain, line in enumerate(reversed(lines)):
        name, first = line.group(1), line.group(2)
        found.append(Candidate(first.rstrip(WHITESPACE), name, chain))
        after = lines[len(lines) - chain].start() - 1 if chain else len(text)
        more = _continuation(text, line.end() + 1, after, meter)
        if more:
            found.append(Candidate((first + "\n" + more).rstrip(WHITESPACE), name, chain))
    found.append(Candidate(text, None))
    return found


def _continuation(text: str, start: int, end: int, meter: Meter) -> str:
    """The lines in text[start:end] before the first blank line or traceback marker."""
    if start >= end:
        return ""
    region = text[start:end]
    meter.work += len(region)
    stop = STOP_LINE.search(region)
    return region if stop is None else region[:max(stop.start() - 1, 0)]


def same_exception(seen: str, documented: str) -> bool:
    return seen.rsplit(".", 1)[-1] == documented.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class _Template:
    """One wording, ready to match: its template and the pieces every match must contain."""

    known: Known
    wording: int
    template: MessageTemplate
    pieces: tuple[str, ...]  # distinct non-empty fixed pieces, longest first
    fixed: int


class Lookup:
    """Every entry's wordings parsed once; `answer` (or `find`) handles one paste."""

    def __init__(self, known: Iterable[Known], cap: int = CAP, library: str = "the library",
                 generic: Iterable[str] = GENERIC_WORDINGS):
        self.cap = cap
        self.library = library
        generic = tuple(generic)
        self._items: list[_Template] = []
        self.ignored: list[tuple[str, str]] = []  # (entry id, why a wording of it is ignored)
        self._known: list[Known] = []
        for one in known:
            self._known.append(one)
            for index, wording in enumerate(one.wordings):
                try:
                    template = MessageTemplate.parse(strip(plain_quotes(wording.message)))
                except TemplateSyntaxError as error:
                    self.ignored.append((one.id, f"wording {index}: {error}"))
                    continue
                reason = is_degenerate(template, generic)
                if reason:
                    self.ignored.append((one.id, f"wording {index}: {reason}"))
                    continue
                pieces = tuple(sorted({p for p in template.pieces if p}, key=len, reverse=True))
                self._items.append(_Template(one, index, template, pieces, sum(len(p) for p in template.pieces)))

    def __len__(self) -> int:
        return len(self._known)

    def find(self, pasted: str, release: str | None = None) -> list[Match]:
        """Every matching entry, best first; empty when nothing matches."""
        return self.answer(pasted, release).matches

    def answer(self, pasted: str, release: str | None = None) -> Answer:
        """The matches, what was read of the paste, and the work it took."""
        meter = Meter()
        kept = keep_tail(pasted, self.cap)
        text = normalize(kept, meter)
        cut = len(pasted) - len(kept)
        if not text:
            return Answer([], cut, len(kept), meter.work)
        options = candidates(text, meter)
        best: dict[str, Match] = {}
        for item in self._items:
            found = _match_one(item, text, options, meter)
            if found is not None and (item.known.id not in best or found.score > best[item.known.id].score):
                best[item.known.id] = found
        matches = _told_apart(list(best.values()), text, meter)
        matches.sort(key=lambda m: m.known.id)
        matches.sort(key=lambda m: m.score, reverse=True)
        frames = _frames(text, meter) if any(m.known.lines for m in matches) else []
        matches = [_with_release(m, frames, release, self.library) for m in matches]
        return Answer(matches, cut, len(kept), meter.work)


def _has_piece(text: str, piece: str, meter: Meter) -> bool:
    """Whether the text holds the piece, counting what the scan read: up to the end of the piece
    where found, the whole text where not. Callers use it with `all` or `any`, which stop at the
    first piece that decides, so the pieces after it are neither scanned nor counted."""
    at = text.find(piece)
    meter.work += len(text) if at < 0 else at + len(piece)
    return at >= 0


def _match_one(item: _Template, text: str, options: list[Candidate], meter: Meter) -> Match | None:
    # A wording can only match a text holding every one of its fixed pieces.
    if not all(_has_piece(text, piece, meter) for piece in item.pieces):
        return None
    wording = item.known.wordings[item.wording]
    # Whether the text holds one of the entry's `recognised_by` texts.
    recognised = any(_has_piece(text, piece, meter) for piece in item.known.recognised_by)
    best = None
    for option in options:
        if option.exception is not None and not same_exception(option.exception, wording.exception):
            continue
        values = item.template.match(option.message, meter)
        if values is not None:
            found = Match(item.known, values, option.exception, True, item.fixed, item.wording, option.chain,
                          recognised=recognised)
            if best is None or found.score > best.score:
                best = found
    if best is None:
        values = item.template.search(text, meter)
        if values is not None:
            best = Match(item.known, values, None, False, item.fixed, item.wording, recognised=recognised)
    return best


def _told_apart(matches: list[Match], text: str, meter: Meter) -> list[Match]:
    """Drop an entry that says how its traceback reads (`recognised_by`) when the paste shows more
    than the bare message (a traceback, the failing line) and none of it: another mistake printed
    the same words. A bare message keeps every entry it matches."""
    doubtful = [m for m in matches if m.known.recognised_by and not m.recognised]
    if not doubtful:
        return matches
    meter.work += len(text)
    bare = "\n" not in text
    return [m for m in matches if m not in doubtful or (bare and m.exact)]


# -- the release a paste came from -------------------------------------------------------------


def _frames(text: str, meter: Meter) -> list[tuple[str, int]]:
    """(file path with forward slashes, line) of every traceback frame in the paste."""
    meter.work += len(text)
    return [(m.group(1).replace("\\", "/"), int(m.group(2))) for m in FRAME.finditer(text)]


def releases_in_paste(known: Known, frames: list[tuple[str, int]]) -> tuple[str, ...]:
    """The releases whose raise line, in the entry's source file (as installed), is a line the
    paste's frames in that file show: `.../site-packages/<package>/<file>.py", line 1471`."""
    if not known.lines_path or not known.lines:
        return ()
    installed = known.lines_path
    seen = {line for path, line in frames if path == installed or path.endswith("/" + installed)}
    return tuple(release for release, line in known.lines if line in seen)


def _with_release(match: Match, frames: list[tuple[str, int]], release: str | None, library: str) -> Match:
    releases = (release,) if release else releases_in_paste(match.known, frames)
    if not releases:
        return match
    return replace(match, release=verdict(match.known.releases, releases, given=bool(release), library=library))


def verdict(facts: Releases, releases: tuple[str, ...], given: bool = False, library: str = "the library") -> Verdict:
    """Whether `releases` raise the error, and what to do on them (identical in lookup.js)."""
    where = describe(releases)
    inside = [contains(facts.raises, r) for r in releases] if facts.raises is not None else [None]
    if None in inside:
        return Verdict(releases, given, None, "")
    if not any(inside):
        return Verdict(releases, given, False, f"{library} {where} does not raise it as documented (it raises "
                                               f"in {facts.raises}): the paste may come from another release or code.")
    if not all(inside):
        return Verdict(releases, given, None, f"Of {library} {where}, only some raise it ({facts.raises}).")
    return Verdict(releases, given, True, advice(facts, releases))


def advice(facts: Releases, releases: tuple[str, ...]) -> str:
    """What to do on releases that raise the error: the replacement, an upgrade or a downgrade."""
    back = f" or downgrade to {facts.last_good}, the last release where the old code ran" if facts.last_good else ""
    if facts.replacement and facts.replacement_since:
        if all(contains(f">={facts.replacement_since}", r) for r in releases):
            return f"Use {facts.replacement} (available since {facts.replacement_since})."
        return f"Upgrade to {facts.replacement_since} or later and use {facts.replacement}{',' if back else ''}{back}."
    if facts.replacement:
        return f"Use {facts.replacement}."
    if back:
        return f"Apply the fix on this page,{back}."
    return "Apply the fix on this page."


def describe(releases: tuple[str, ...]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]} – {releases[-1]}"


def contains(specifier: str, release: str) -> bool | None:
    """Does the PEP 440 `specifier` contain the final release `release`? Release numbers only
    (==, !=, <, <=, >, >=, ~=, `==X.*`, comma = and), as lookup.js implements them; None when
    either is not understood. `packaging` decides, and the parity test holds the JS to it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    if "||" in specifier:  # parts joined by "||": any part may contain it (errorkb.core.releases)
        parts = [contains(part, release) for part in specifier.split("||")]
        return True if True in parts else None if None in parts else False
    if not PLAIN_RELEASE.fullmatch(release):
        return None
    for clause in specifier.split(","):
        if strip(clause) and not CLAUSE.fullmatch(strip(clause)):
            return None
    try:
        return SpecifierSet(specifier).contains(Version(release), prereleases=True)
    except InvalidSpecifier:
        return None

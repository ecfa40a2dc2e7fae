"""Which entry does a paste belong to, and how sure is it? The matcher behind the paste box,
`errorkb lookup`, the hook, the pytest hint and `errorkb new --from-traceback`.

For one paste, stage by stage (each a function below):

1. `read`: the paste made comparable (`_paste`: its tail, normalised; candidate messages; its
   frames; a release it states).
2. `_match_one`: an entry's wording matches a candidate whole (`MessageTemplate.match`; the
   candidate's exception name, if any, has the wording's class name as its last part), else
   is found anywhere in the text (`search`, ranked lower). Its placeholders' values must have
   their declared type (`{cls}` never stands for `tuple` or `NoneType` unless the entry allows
   it) and keep their declared relations (`a > b`). Degenerate wordings (`{msg}`) are ignored.
3. `_grade`: the evidence that ties the match to the entry's cause, and what rules it out:

   - *words*: the wording is the library's own message, or names what the entry is about
     (the removed name), and no typed value withholds it (a `user` class the library defines);
     where the entry declares another cause of these words (`other_causes`: the same text printed
     on other releases for another reason), only with a release outside every such range and
     inside the wording's (else a hint quotes the other cause);
   - *frame*: a frame of the exception's traceback in the entry's documented function or file;
   - *code*: a frame's source line uses the documented name (the user's code, for a removed API);
   - *recognised*: the paste shows one of the entry's `recognised_by` texts;
   - *release*: the release (stated, installed, or read from frames) lies in the matched
     wording's range; consistent, never enough alone.

   A release outside the wording's range, a frame the entry excludes, or a raising frame the
   entry excludes (a removed name read by the library itself) rules the entry out; so does a
   traceback whose failing lines show none of the entry's `recognised_by` texts, unless the
   runtime raises the entry's error (`diagnosis.runtime`: a runtime's `__getattr__` answers any
   caller, so the caller's line is no evidence against it). A match is
   **confirmed** when nothing rules it out and words, a frame, code or a recognised text ties it
   (and, where the entry requires a frame, a traceback shown has one), and it is of the error the
   paste ended with (`_paste.final_lines`: its last exception, its chain, a line restating it, the
   lines of a list of errors shown without a traceback; a device's own wording, printed before the
   exception that reports it, counts too); otherwise it is a
   **candidate**, with what would confirm it or rule it out.
4. Ranking: confirmed before candidates; then whole over found inside; a named, agreeing
   exception over none; the later exception of a chain over the earlier; a release inside the
   range over an unknown one; a recognised text; more fixed text; the main wording; then id.

Work is linear in the paste: every scan reads the text once, piece searches resume where the
previous stopped, and the `Meter` counts it (the JavaScript counts the same). Nothing here
imports the runtime, the library or MkDocs.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from errorkb.core.message import (
    GENERIC_WORDINGS,
    MIN_PIECE,
    MessageTemplate,
    Meter,
    TemplateSyntaxError,
    fixed_text,
    is_degenerate,
)
from errorkb.lookup import _rules as rules
from errorkb.lookup._known import Diagnosis, FrameRule, Known, OtherCause, Wording
from errorkb.lookup._paste import (
    Candidate,
    Frame,
    arrows,
    candidates,
    chained,
    complete,
    ends,
    final_lines,
    frames,
    frames_after,
    installed_at,
    keep_tail,
    line_start,
    markers,
    normalize,
    own_file,
    plain_quotes,
    releases_beside,
    said_at,
    stated_releases,
    strip,
    traceback_of,
    traceback_start,
)
from errorkb.lookup._release import (
    FRAMES,
    STATED,
    Verdict,
    contains,
    contradicted,
    describe,
    plain,
    releases_in_paste,
    verdict,
    wording_range,
)


class Hint(str):
    """One thing that would confirm a candidate, as a code and its parameters (`rules.HINT_WORDS`): the string itself is
    its words at the paste box (what the page's script says too); `words` gives them at another front, where the user
    pasted nothing (the hook has the whole traceback and the installed release). A hint without a code is a `str`:
    its words are the same at every front."""

    code: str
    params: dict[str, str]

    def __new__(cls, code: str, /, **params: str) -> Hint:
        self = super().__new__(cls, _worded(code, "paste", params) or "")
        self.code, self.params = code, params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return _hint, (self.code, self.params)


def _hint(code: str, params: dict[str, str]) -> Hint:
    return Hint(code, **params)


def _worded(code: str, front: str, params: dict[str, str]) -> str | None:
    template = rules.HINT_WORDS[code][front]
    return None if template is None else template.format(**params)


def hint_words(hint: str, front: str) -> str | None:
    """A hint's words at `front` (one of `rules.FRONTS`); None: not said there."""
    return _worded(hint.code, front, hint.params) if isinstance(hint, Hint) else hint


def hint_json(hint: str, front: str) -> dict[str, Any]:
    """A hint for `--json` (docs/api.md): its code (None: plain words) and parameters, and its words at `front`."""
    if isinstance(hint, Hint):
        return {"code": hint.code, "params": dict(hint.params), "words": hint_words(hint, front)}
    return {"code": None, "params": {}, "words": hint}


EARLIER = Hint("earlier")
CHECKED = Hint("checked")


class Grade(StrEnum):
    CONFIRMED = "confirmed"  # the message and evidence tie the paste to the entry's cause
    CANDIDATE = "candidate"  # the message fits, but nothing yet tells this cause from others worded alike


@dataclass(frozen=True)
class Evidence:
    kind: str  # one of rules.WORDS, FRAME_EVIDENCE, CODE, RECOGNISED, RELEASE
    detail: str  # what was seen, in words


@dataclass(frozen=True)
class Match:
    known: Known
    values: dict[str, str]  # placeholder expression → the text it stood for
    exception: str | None  # the exception name seen in the paste, when it agreed
    exact: bool  # the message matched whole; False: found inside the text
    fixed: int = 0  # characters of fixed text in the wording: more is more specific
    wording: int = 0  # which of `known.wordings` matched: 0 is the entry's own message
    chain: int = rules.CHAIN  # the candidate's place from the end of the paste
    release: Verdict | None = None
    recognised: bool = False  # the paste holds one of the entry's `recognised_by` texts
    grade: Grade = Grade.CONFIRMED
    evidence: tuple[Evidence, ...] = ()
    missing: tuple[str, ...] = ()  # what would confirm it or rule it out (a `Hint` has words per front)
    at: int = -1  # where the matched exception line starts (-1: a bare message or found inside)
    shown: bool = False  # the paste shows frames of this exception's traceback
    names: dict[str, str] = field(default_factory=dict)  # placeholder → the whole name its value is part of
    withheld: tuple[str, ...] = ()  # values whose kind argues against the entry (its words withheld)
    others: tuple[OtherCause, ...] = ()  # the entry's other causes that print the matched words too
    held: tuple[str, ...] = ()  # why a value the entry's `withhold` names keeps it a candidate
    tail: str = ""  # the wording's beginning the paste does not show (a paste of the wording's end alone)
    head: str = ""  # the wording's beginning the paste shows, when it shows only that (`Lookup._beginnings`)

    @property
    def confirmed(self) -> bool:
        return self.grade is Grade.CONFIRMED

    @property
    def score(self) -> tuple[bool, bool, bool, int, int, bool, int, int]:
        inside = 1 if self.release is not None and self.release.raises else 0
        return (self.confirmed, self.exact, self.exception is not None, -self.chain, inside, self.recognised,
                self.fixed, -self.wording)

    @property
    def matched(self) -> Wording:
        return self.known.wordings[self.wording]


@dataclass(frozen=True)
class RuledOut:
    match: Match
    reason: str


@dataclass(frozen=True)
class Answer:
    matches: list[Match]  # confirmed first, then candidates; best first
    cut: int  # characters dropped from the start of the paste (0: it was read whole)
    kept: int  # characters read
    work: int  # characters the scans may have examined: linear in `kept`
    ruled_out: list[RuledOut] = field(default_factory=list)  # matched words, but evidence says another cause
    release: str | None = None  # the release the answer was checked against, if one was known
    release_source: str | None = None

    @property
    def confirmed(self) -> list[Match]:
        return [m for m in self.matches if m.confirmed]

    @property
    def candidates(self) -> list[Match]:
        return [m for m in self.matches if not m.confirmed]


@dataclass(frozen=True)
class _Template:
    """One wording, ready to match: its template and the pieces every match must contain."""

    known: Known
    wording: int
    template: MessageTemplate
    pieces: tuple[str, ...]  # distinct non-empty fixed pieces, longest first
    fixed: int
    typed: bool  # a placeholder of it has a type (declared, or by its name)
    context: dict[str, tuple[str, str]]  # placeholder → the name characters written right before and after it
    on_class: bool = False  # the wording read in the class's form (`_on_class`): only ever possible


class _Reading:
    """One paste, read once: its candidates at once; its frames, failing lines, traceback markers and
    a release it states only when a first match is graded (a paste nothing matches costs no more)."""

    def __init__(self, text: str, options: list[Candidate], library: str, release: str | None, source: str,
                 meter: Meter, other_names: tuple[tuple[str, ...], ...] = (), logged: frozenset[int] = frozenset()):
        self.text, self.options, self.logged = text, options, logged  # logged: lines that carried a log record's prefix
        self._library, self._given, self._given_source, self._meter = library, release, source, meter
        self._other_names = other_names  # the words before the library's name in other distributions' names
        self._read = False
        self._found: dict[str, int] = {}
        self._joined: str | None = None
        self._multiline: bool | None = None
        self._found_joined: dict[str, int] = {}
        self._spaced: str | None = None
        self._found_spaced: dict[str, int] = {}
        self._frames: list[Frame] = []
        self._arrows: list[Frame] = []
        self._markers: list[int] = []
        self._ends: list[tuple[int, str]] = []
        self._starts: dict[int, int] = {}
        self._release: str | None = None
        self._releases: tuple[str, ...] = ()
        self._source: str | None = None
        self._final: frozenset[int] | None = None
        self._final_read = False
        self._checked: bool | None = None

    def at(self, piece: str) -> int:
        """Where `piece` first occurs in the text (-1: nowhere); each distinct piece is scanned once."""
        found = self._found.get(piece)
        if found is None:
            found = self._found[piece] = self.text.find(piece)
        return found

    @property
    def multiline(self) -> bool:
        """Whether the text has a line break (read once, counted once)."""
        if self._multiline is None:
            self._meter.work += len(self.text)
            self._multiline = "\n" in self.text
        return self._multiline

    @property
    def joined(self) -> str:
        """The text with its line breaks taken out: a terminal that wraps a long line at its width
        breaks words (`"i⏎ndex_copy_(): ...`) and keeps the space before a break at a word."""
        if self._joined is None:
            self._meter.work += len(self.text)
            self._joined = self.text.replace("\n", "")
        return self._joined

    def at_joined(self, piece: str) -> int:
        found = self._found_joined.get(piece)
        if found is None:
            found = self._found_joined[piece] = self.joined.find(piece)
        return found

    @property
    def spaced(self) -> str:
        """The text with each line break, and the blanks around it, made one space: a form or an editor that wraps
        a long line at its width puts the break where a space was (`... no attribute⏎'key_cache'`), and may
        indent the lines it goes on over. One pass over the lines, never a pattern that could backtrack."""
        if self._spaced is None:
            self._meter.work += len(self.text)
            lines = self.text.split("\n")
            last = len(lines) - 1
            self._spaced = " ".join(line.rstrip(" \t") if at == 0 else line.strip(" \t") if at < last
                                    else line.lstrip(" \t") for at, line in enumerate(lines))
        return self._spaced

    def at_spaced(self, piece: str) -> int:
        found = self._found_spaced.get(piece)
        if found is None:
            found = self._found_spaced[piece] = self.spaced.find(piece)
        return found

    def _read_all(self) -> None:
        if self._read:
            return
        self._read = True
        self._frames = frames(self.text, self._meter)
        self._arrows = arrows(self.text, self._meter)
        self._markers = markers(self.text, self._meter)
        self._ends = ends(self.text, self._meter)
        release, source = self._given, self._given_source
        said = [release] if release is not None else stated_releases(self.text, self._library, self._meter,
                                                                     self._other_names)
        named = said if release is not None or not said else \
            said + releases_beside(self.text, self._library, self._meter, self._other_names)
        if release is None:
            release, source = (said[-1] if said else None), STATED
        self._release, self._source = plain(release), source if release else None
        self._releases = tuple(dict.fromkeys(one for one in map(plain, named) if one))

    @property
    def frames(self) -> list[Frame]:
        self._read_all()
        return self._frames

    @property
    def arrows(self) -> list[Frame]:  # failing lines marked by IPython: code only
        self._read_all()
        return self._arrows

    @property
    def markers(self) -> list[int]:
        self._read_all()
        return self._markers

    def shown(self, at: int) -> list[Frame]:
        """The frames of the traceback of the exception line at `at`: those before it (`traceback_of`), else those
        it states itself before (`frames_after`: the error written first, then where it was raised)."""
        start = self.start_of(at)
        found = traceback_of(self.frames, start, at)
        return found or frames_after(self.frames, self.text, at, self._markers, self._ends)

    def start_of(self, at: int) -> int:
        """Where the traceback of the exception line at `at` starts (`traceback_start`), read once per line."""
        self._read_all()
        found = self._starts.get(at)
        if found is None:
            found = self._starts[at] = traceback_start(self._markers, self._ends, at, said_at(self.text, at)) \
                if at >= 0 else -1
        return found

    @property
    def final(self) -> frozenset[int] | None:
        """Where the lines start that state the error the paste ended with (`final_lines`; None: none does),
        read once, when a confirmed match asks."""
        if not self._final_read:
            self._read_all()
            self._final_read = True
            self._final = final_lines(self.text, self.options, self._ends, chained(self.text, self._meter),
                                      self._markers, bool(self._frames or self._arrows or self._markers),
                                      self.logged)
        return self._final

    @property
    def checked(self) -> bool:
        """Whether the error the paste ended with is a failed check (`rules.CHECK_NAME`, `rules.CHECK_LINE`): a test's
        `AssertionError`, whose message quotes what it compared. Read once, when a match found inside the text asks."""
        if self._checked is None:
            final = self.final
            if final is not None:
                self._checked = any(option.at >= 0 and option.exception is not None
                                    and _CHECK_NAME.search(option.exception) is not None
                                    and line_start(self.text, option.at) in final for option in self.options)
            else:
                self._meter.work += len(self.text)
                self._checked = _CHECK_LINE.search(self.text) is not None
        return self._checked

    @property
    def ended(self) -> list[tuple[int, str]]:
        """Where each exception line that ends a traceback ends, with what it says (`_paste.ends`)."""
        self._read_all()
        return self._ends

    @property
    def given(self) -> str | None:
        return self._given

    @property
    def given_source(self) -> str:
        return self._given_source

    @property
    def release(self) -> str | None:
        self._read_all()
        return self._release

    @property
    def releases(self) -> tuple[str, ...]:
        """The release given, else every release the paste states (the last is `release`)."""
        self._read_all()
        return self._releases

    @property
    def source(self) -> str | None:
        self._read_all()
        return self._source


_TYPES = {name: re.compile(pattern) for name, pattern in rules.TYPES.items() if pattern}
_SPACES = re.compile("[" + re.escape(rules.WHITESPACE) + "]+")


class Lookup:
    """Every entry's wordings parsed once; `answer` (or `find`) handles one paste."""

    def __init__(self, known: Iterable[Known], cap: int = rules.CAP, library: str = "the library",
                 generic: Iterable[str] = GENERIC_WORDINGS, classes: Iterable[str] = (),
                 runtime: Iterable[str] = (), other_names: Iterable[tuple[str, ...]] = ()):
        self.cap = cap
        self.library = library
        # the words before the library's name in other distributions' names (the index's `library.others`)
        self.other_names = tuple(tuple(one) for one in other_names)
        self.classes = frozenset(classes)  # fnv1a hashes of the class names the library defines
        self.runtime = tuple(runtime)  # the runtime's import packages: their frames never raise an entry's error
        generic = tuple(generic)
        self._items: list[_Template] = []
        self.ignored: list[tuple[str, str]] = []  # (entry id, why a wording of it is ignored)
        self._known: list[Known] = []
        self._wordings: dict[tuple[str, int], MessageTemplate] = {}  # (entry id, wording) → its template
        self._others: dict[str, list[tuple[OtherCause, tuple[MessageTemplate, ...]]]] = {}
        self._tails: list[tuple[str, tuple[tuple[_Template, str], ...]]] = []  # (gate piece, its wording's ends)
        self._heads: list[tuple[str, tuple[tuple[_Template, str], ...]]] = []  # (first piece, its beginnings)
        self._retold: dict[str, list[Known]] = {}  # a removed API's name → its entries (`_retold_names`)
        for one in known:
            self._known.append(one)
            # An entry whose own wordings say `type object ...` declares the class's words: read as declared.
            declares = any(strip(plain_quotes(w.message)).startswith(rules.ON_CLASS_PREFIX) for w in one.wordings)
            if one.kind == "removed":
                for name in one.diagnosis.code:
                    if _RETOLD_NAME.match(name):
                        self._retold.setdefault(name, []).append(one)
            self._others[one.id] = [(cause, _forms(cause)) for cause in one.diagnosis.other_causes]
            for index, wording in enumerate(one.wordings):
                try:
                    template = read_wording(wording.message)
                except TemplateSyntaxError as error:
                    self.ignored.append((one.id, f"wording {index}: {error}"))
                    continue
                source = template.source
                self._wordings[(one.id, index)] = template
                reason = is_degenerate(template, generic)
                if reason:
                    self.ignored.append((one.id, f"wording {index}: {reason}"))
                    continue
                on_class = () if declares else _on_class(source)
                for variant in (template, *_capitalised(source), *on_class):
                    pieces = tuple(sorted(dict.fromkeys(p for p in variant.pieces if p), key=len, reverse=True))
                    typed = _typed(one.diagnosis, variant.slots)
                    self._items.append(_Template(one, index, variant, pieces, sum(len(p) for p in variant.pieces),
                                                 typed, _context(variant), variant in on_class))
                tails = _tails(one, index, template, generic)
                if tails is not None:
                    self._tails.append(tails)
                heads = _heads(one, index, template, generic)
                if heads is not None:
                    self._heads.append(heads)

    def __len__(self) -> int:
        return len(self._known)

    @property
    def known(self) -> list[Known]:
        return list(self._known)

    def find(self, pasted: str, release: str | None = None) -> list[Match]:
        """Every match not ruled out, confirmed first, best first; empty when nothing matches."""
        return self.answer(pasted, release).matches

    def answer(self, pasted: str, release: str | None = None, source: str = STATED) -> Answer:
        """The graded matches, what was read of the paste, and the work it took. `release` is the
        library release the paste came from when known (`source`: stated or installed)."""
        meter = Meter()
        kept = keep_tail(pasted, self.cap)
        logged: set[int] = set()
        text = normalize(kept, meter, logged)
        cut = len(pasted) - len(kept)
        if not text:
            return Answer([], cut, len(kept), meter.work)
        reading = self.read(text, release, source, meter, frozenset(logged))
        best, out = self._graded(reading, meter)
        if out or any(not match.confirmed for match in best.values()):
            self._relayed(reading, meter, best, out)
        matches = _shared_words(_framed_first(list(best.values())))
        matches.sort(key=lambda m: m.known.id)
        matches.sort(key=lambda m: m.score, reverse=True)
        ruled = sorted(out.values(), key=lambda r: r.match.known.id)
        read = matches or ruled or release is not None  # the release is known, or was read to grade a match
        stated, stated_source = (reading.release, reading.source) if read else (None, None)
        return Answer(matches, cut, len(kept), meter.work, ruled, stated, stated_source)

    def _graded(self, reading: _Reading, meter: Meter) -> tuple[dict[str, Match], dict[str, RuledOut]]:
        """Stages 2 and 3 for one reading: each entry's best graded match, and those ruled out."""
        best: dict[str, Match] = {}
        out: dict[str, RuledOut] = {}
        mismatched: dict[str, Match] = {}
        held: dict[str, tuple[str, ...]] = {}
        for spaced in (False, True):  # then, when no wording matched, the text with its line breaks made spaces
            if spaced and (best or out or mismatched or not reading.multiline):
                break
            for item in self._items:
                found, mismatch = _match_one(item, reading, self.library, meter, spaced)
                if mismatch is not None:
                    mismatched.setdefault(item.known.id, mismatch)
                if found is None:
                    continue
                graded = self._grade(found, reading, meter)
                if item.on_class and isinstance(graded, Match):
                    graded = replace(graded, grade=Grade.CANDIDATE, missing=(_on_class_hint(item), *graded.missing))
                if isinstance(graded, Match) and graded.held:
                    held.setdefault(found.known.id, graded.held)
                if isinstance(graded, RuledOut):
                    if found.known.id not in best and (found.known.id not in out
                                                        or graded.match.score > out[found.known.id].match.score):
                        out[found.known.id] = graded
                    continue
                if found.known.id not in best or graded.score > best[found.known.id].score:
                    best[found.known.id] = graded
                    out.pop(found.known.id, None)
        for entry_id, mismatch in mismatched.items():  # a value this entry's message never holds
            best.pop(entry_id, None)
            values = ", ".join(f"{{{k}}} = {v}" for k, v in mismatch.values.items())
            out[entry_id] = RuledOut(mismatch, f"the message fits its words, but not its values ({values}): "
                                               "another error worded alike")
        if not best and not out:  # nothing matched: a message that is only the end of a wording
            best, out = self._ends(reading, meter)
        if not best and not out:  # ... or only its beginning, cut where a clause ends
            best, out = self._beginnings(reading, meter)
        if not best and not out:  # ... or no wording at all: a removed name retold in the reporter's words
            best, out = self._retold_names(reading, meter)
        # A value one wording shows withholds the entry, whichever wording ranks first (one without the
        # placeholder, such as a title's cut form, would otherwise confirm what the whole message withholds).
        for entry_id, why in held.items():
            if entry_id in best and best[entry_id].confirmed:
                best[entry_id] = replace(best[entry_id], grade=Grade.CANDIDATE, held=why,
                                         missing=(*best[entry_id].missing, *why))
        return best, out

    def _relayed(self, reading: _Reading, meter: Meter, best: dict[str, Match], out: dict[str, RuledOut]) -> None:
        """An error of the chain the paste ended with whose words the next part's exception line says again (any
        class: `raise ValueError(str(error))`, `raise RuntimeError(*error.args)` in a handler) read on its own, the
        paste up to that chain sentence, by the same stages: an entry the paste's words matched but did not confirm
        is confirmed from there, where that part's own exception line matched and ties it by more than the words the
        user's raise printed too (its own frame, failing line, recognised text or value). Round thirty-two: the last
        part alone, the user's raise, shows no frame of the library ("another caller's"). At most `rules.RELAYS`
        parts, from the last."""
        final, text = reading.final, reading.text
        if not final:
            return
        links, ended, read = chained(text, meter), reading.ended, 0
        for place in range(len(links) - 1, -1, -1):
            link = links[place]
            index = bisect_left(ended, (link,))
            if read >= rules.RELAYS:
                break
            if not index or index >= len(ended):
                continue
            (before, earlier), (after, later) = ended[index - 1], ended[index]
            stop = links[place + 1] if place + 1 < len(links) else len(text)
            line = line_start(text, before - 1)
            if (place and before < links[place - 1]) or after > stop or line not in final \
                    or line_start(text, after - 1) not in final or not _same_words(earlier, later):
                continue
            read += 1
            part = self.read(text[:link].rstrip(rules.WHITESPACE), reading.given, reading.given_source, meter,
                             reading.logged)
            for entry_id, match in self._graded(part, meter)[0].items():
                if not match.confirmed or match.at < 0 or line_start(text, match.at) != line or \
                        (entry_id in best and best[entry_id].confirmed) or \
                        (entry_id not in best and entry_id not in out) or \
                        not any(one.kind in rules.CONFIRMING and one.kind != rules.WORDS for one in match.evidence):
                    continue
                chain = next((option.chain for option in reading.options if option.at == match.at), match.chain)
                best[entry_id] = replace(match, chain=chain)
                out.pop(entry_id, None)

    def read(self, text: str, release: str | None, source: str, meter: Meter,
             logged: frozenset[int] = frozenset()) -> _Reading:
        """Stage 1: the candidates of a normalised paste (its frames and release when needed; `logged`: the numbers of
        its lines that carried a log record's prefix)."""
        return _Reading(text, candidates(text, meter), self.library, release, source, meter, self.other_names,
                        logged)

    # -- stage 3 ---------------------------------------------------------------------------------

    def _grade(self, match: Match, reading: _Reading, meter: Meter) -> Match | RuledOut:
        known, wording, diagnosis = match.known, match.matched, match.known.diagnosis
        evidence: list[Evidence] = []
        missing: list[str] = []
        shown = reading.shown(match.at)
        # Release: stated or installed, else read from the frames of this exception's traceback (the version
        # matrix's raise lines): another traceback's frames tell the release of another error's code path.
        releases = reading.releases if reading.release else releases_in_paste(known, shown)
        if releases:
            said = verdict(known, wording, releases, reading.source or FRAMES, self.library)
            match = replace(match, release=said)
            if said.raises is False:
                return RuledOut(match, said.advice)
            if said.raises:
                evidence.append(Evidence(rules.RELEASE, f"{self.library} {', '.join(releases[:3])} "
                                                        f"({said.source}) raises this wording ({said.range})"))
        excluded = _first(shown, diagnosis.exclude)
        if excluded is not None:
            return RuledOut(match, f"a frame in {_where(excluded)} shows another error worded alike")
        # Raised within the library's call: a whole traceback without a frame in the library's folder (installed or
        # a copy of it, which runs the same code) shows the stack of another caller (corpus h304).
        within = diagnosis.within
        if wording.called and within is not None and not any(_path_matches(frame.path, within) for frame in shown) \
                and complete(reading.text, reading.start_of(match.at), match.at, meter):
            return RuledOut(match, f"a complete traceback shows no frame of {self.library}, whose call raises this "
                                   "error: another caller's")
        raising = self._raising(shown)
        # The user's own `raise` wrote the words (their script, their project): no entry's error, whatever they say,
        # under whatever class. (Words inside a longer message are a wrapper's retelling of an earlier error:
        # `failed: {error}`.) A `raise` of a value alone (`rules.RELAYED`) may relay the library's error: possible.
        whole = self._said_whole(match, reading, meter)
        writer = raising if match.exact else None if whole is None else self._raising(reading.shown(whole))
        if writer is None and raising is not None and self._writes_words(match, raising.code):
            writer = raising  # words inside a longer message, in the raise's own literal: no retelling
        relayed = None
        if writer is not None and _OWN_RAISE.match(writer.code) and \
                own_file(writer.path, (self.library, *self.runtime)):
            if not _RELAYED.match(writer.code):
                return RuledOut(match, f"your own code raises these words ({_where(writer)}: "
                                       f"{code_span(writer.code[:120])}), not an error this entry documents")
            relayed = writer
        if raising is not None and not wording.own and _first([raising], diagnosis.innermost_exclude) is not None:
            return RuledOut(match, f"raised in {_where(raising)}: {self.library}'s own code, not the change "
                                   "this entry documents")
        # A device's own wording is reported asynchronously, by whichever later call syncs: not by its frame.
        if raising is not None and diagnosis.require_frame and not wording.device and \
                _first([raising], diagnosis.frames) is None:
            return RuledOut(match, f"raised in {_where(raising)}, not where this error is raised "
                                   f"({_where(diagnosis.frames[0]) if diagnosis.frames else '?'})")
        # Raised in a file named like the documented one, but not in the installed library (another package's
        # copy, a project's folder): neither where the entry says nor elsewhere; nothing confirms it.
        copied = raising if raising is not None and diagnosis.require_frame and not wording.device and \
            _first([raising], diagnosis.frames, installed=True) is None else None
        # A stated release whose series raises this wording at a line no frame of a whole traceback shows, the last
        # frame in that file: the paste ran other code than the release stated; neither ties it. (The hook's
        # installed release is what ran: an edited install still runs it.)
        clash = contradicted(known, wording, releases, shown) if reading.release and reading.source == STATED \
            and shown and complete(reading.text, reading.start_of(match.at), match.at, meter) else None
        # A recognised text counts where it may be this error's: not inside another exception's traceback.
        if match.recognised and _recognised_elsewhere(match, reading, meter):
            match = replace(match, recognised=False)
        # Words found inside an exception line of another class (`ValueError: list index out of range`): the
        # traceback shown is that class's, where it was raised; its frames, failing lines and recognised texts tie
        # nothing to the entry's error, only the words may (a retelling: round twenty-four).
        other = self._other_class(match, reading, meter)
        arrows = traceback_of(reading.arrows, reading.start_of(match.at), match.at)
        failing = [frame for frame in (*shown, *arrows) if frame.code]
        # A raise in the runtime (a module's `__getattr__`) is reached from any caller: its failing lines tell
        # nothing against the entry, only a recognised text for it (corpus h205-h207, part ten).
        if not wording.words and known.recognised_by and not match.recognised and failing and not diagnosis.runtime:
            return RuledOut(match, "the failing lines shown are not the ones this case shows")
        # What ties it.
        named = {expression: match.names.get(expression, value) for expression, value in match.values.items()}
        own = [value for expression, value in named.items()
               if _type(diagnosis, expression) == "user" and self._defines(value)]
        foreign = [value for expression, value in named.items()
                   if _type(diagnosis, expression) == "library-class" and self.classes and not self._defines(value)]
        # A value of the other kind leaves the words to the release: one inside the wording's range tells.
        if (own or foreign) and any(one.kind == rules.RELEASE for one in evidence):
            own = foreign = []
        # Another cause prints these words on other releases: they tie the entry only on a release outside
        # every such range (and inside the wording's); else the traceback must.
        others = self.other_causes(match, meter)
        apart = bool(releases) and match.release is not None and \
            (match.release.raises is True or match.release.range is None) and \
            all(contains(cause.releases, release) is False for cause in others for release in releases)
        if wording.words and not own and not foreign and (not others or apart):
            tie = f"{self.library} itself raises this message" if wording.own \
                else "the message names what this entry is about"
            if others:
                tie += f", and {self.library} {describe(releases)} is outside " + \
                    ", ".join(cause.releases for cause in others) + ", where another cause prints it too"
            evidence.append(Evidence(rules.WORDS, tie))
        for value in own:
            missing.append(f"{code_span(value)} is a class {self.library} defines: if your code calls it so, your code "
                           f"is newer than the installed {self.library} (upgrade {self.library}); the traceback or the "
                           "release tells")
        for value in foreign:
            missing.append(f"{code_span(value)} is not a class {self.library} defines: the same words come from "
                           f"another cause when {self.library} reads this from a class of your own; the traceback or "
                           "the release tells")
        # An other cause raised through the same frames: they tie the paste to neither; the release must.
        blind = not apart and any(cause.same_frames for cause in others)
        unseen = blind or other is not None  # frames that tie the paste to nothing
        framed = None if unseen else _first(shown, diagnosis.frames, installed=True)
        if framed is not None:
            evidence.append(Evidence(rules.FRAME_EVIDENCE, f"a frame in {_where(framed)}"))
        coded = None if unseen else next((frame for frame in reversed(failing) if _uses(frame.code, diagnosis.code)),
                                         None)
        if coded is not None:
            evidence.append(Evidence(rules.CODE, f"the failing line {code_span(coded.code[:120])} uses "
                                                 f"{', '.join(code_span(n) for n in diagnosis.code)}"))
        if match.recognised and other is None:
            evidence.append(Evidence(rules.RECOGNISED, "the paste shows the failing line this case shows"))
        for value, because in tied_values(diagnosis, named, self._defines_class if self.classes else None):
            evidence.append(Evidence(rules.VALUE, f"{code_span(value)} {because}"))
        # A value the entry says prints these words for another cause: nothing else shown confirms it.
        withheld = withheld_values(diagnosis, named, self._defines_class if self.classes else None) + \
            located_elsewhere(diagnosis, named, self.library)
        # Words found inside a failed check's message are what the test compared, not the library's error (round
        # twenty); an entry whose own exception is a check's (a runtime's `AssertionError`) reads them as before.
        checked = not match.exact and whole is None and not _CHECK_NAME.search(wording.exception) and reading.checked
        confirmed = not withheld and copied is None and clash is None and relayed is None and not checked and \
            any(one.kind in rules.CONFIRMING for one in evidence)
        # Only the error the paste ended with is the user's; a device's own wording is printed before the
        # exception that reports it, by whichever later call syncs.
        earlier = confirmed and not wording.device and not self._ended_with(match, reading, meter)
        confirmed = confirmed and not earlier
        held = tuple(f"{code_span(value)} {because}" for value, because in withheld)
        if earlier:
            missing.append(EARLIER)
        elif checked:
            missing.append(CHECKED)
        elif relayed is not None:
            missing.append(f"your code relays these words from a value ({_where(relayed)}: "
                           f"{code_span(relayed.code[:120])}): an error {self.library} raised, or words of your own; "
                           "the original error's traceback tells (raise it `from` the error, not `from None`)")
        elif withheld:
            missing += held
        elif copied is not None:
            missing.append(f"raised in {_where(copied)}, a file named like {self.library}'s in another package or "
                           f"folder: a frame of the installed {self.library} confirms it")
        elif clash is not None:
            missing.append(f"the traceback was raised at line {clash[1]} of {known.lines_path}, but {self.library} "
                           f"{clash[0]} raises it at line {clash[2]}: the release given and the traceback disagree "
                           "(another install, or edited code); give the release the traceback ran with")
        elif not confirmed:
            told = [_other_hint(cause, releases, wording_range(known, wording), self.library)
                    for cause in others] if wording.words and not own and not foreign else []
            if other is not None:
                documented = code_span(wording.exception)
                missing += told + [f"the traceback shown raised {code_span(other)}, not {documented}: its frames are "
                                   f"that error's (another error's, or a retelling's); the {documented}'s own "
                                   "traceback confirms it"]
            else:
                missing += told + _hints(match, diagnosis, shown, releases, self.library, bool(told), blind)
        return replace(match, grade=Grade.CONFIRMED if confirmed else Grade.CANDIDATE, evidence=tuple(evidence),
                       missing=tuple(missing), shown=bool(shown),
                       withheld=tuple(own + foreign + [value for value, _ in withheld]), others=tuple(others),
                       held=held)

    def _ends(self, reading: _Reading, meter: Meter) -> tuple[dict[str, Match], dict[str, RuledOut]]:
        """A candidate of the paste that is, whole, the end of a wording from one of its clauses on
        (corpus h125: a title that kept only a message's last clause). Only possible: the words the paste
        lacks may be another error's; it says so, and what would confirm it."""
        def find(item: _Template, omitted: str) -> Match | None:
            found = _whole_end(item, reading, self.library, meter)
            return None if found is None else replace(found, tail=omitted)

        return self._part_of_wording(self._tails, reading, meter, find, lambda omitted: (
            f"the paste shows only the end of the message; the whole message begins "
            f"{code_span(omitted.rstrip(rules.WHITESPACE))}: paste it whole, or the traceback, to confirm it"))

    def _beginnings(self, reading: _Reading, meter: Meter) -> tuple[dict[str, Match], dict[str, RuledOut]]:
        """A wording's beginning that the paste shows cut where a clause or a word ends, closed by a quote or its
        line's end (corpus h436: a title that quoted a message up to its comma; h848: a code span up to a word).
        Only possible, as an end is: the words the paste lacks may be another error's; it says so, and what would
        confirm it."""
        def find(item: _Template, omitted: str) -> Match | None:
            found = _closed_beginning(item, reading, self.library, meter)
            return None if found is None else replace(found, head=item.template.source)

        return self._part_of_wording(
            self._heads, reading, meter, find,
            lambda omitted: (f"the paste shows only the beginning of the message; the whole message goes on "
                             f"{code_span(omitted)}: paste it whole, or the traceback, to confirm it"))

    def _part_of_wording(self, groups: list[tuple[str, tuple[tuple[_Template, str], ...]]], reading: _Reading,
                         meter: Meter, find: Callable[[_Template, str], Match | None], hint: Callable[[str], str],
                         ) -> tuple[dict[str, Match], dict[str, RuledOut]]:
        """The one walk of `_ends` and `_beginnings`: for each group (its gate, a piece every part in it holds), the
        longest part the paste shows (`find`), graded, and only a candidate, with `hint` saying what it lacks."""
        best: dict[str, Match] = {}
        out: dict[str, RuledOut] = {}
        for gate, parts in groups:
            if not _has_piece(reading, gate, meter):
                continue
            for item, omitted in parts:  # the longest part first
                if not all(_has_piece(reading, piece, meter) for piece in item.pieces):
                    continue
                found = find(item, omitted)
                if found is None:
                    continue
                graded = self._grade(found, reading, meter)
                entry_id = item.known.id
                if isinstance(graded, RuledOut):
                    if entry_id not in best and (entry_id not in out or graded.match.score > out[entry_id].match.score):
                        out[entry_id] = graded
                    break
                graded = replace(graded, grade=Grade.CANDIDATE, missing=(hint(omitted), *graded.missing))
                if entry_id not in best or graded.score > best[entry_id].score:
                    best[entry_id] = graded
                    out.pop(entry_id, None)
                break
        return best, out

    def _retold_names(self, reading: _Reading, meter: Meter) -> tuple[dict[str, Match], dict[str, RuledOut]]:
        """A removed API's own name, whole, on a line that says it is gone (`rules.RETOLD_GONE`), where no
        wording matched: the error retold in the reporter's words (corpus h416, h458). Only possible: the words
        are not the library's, and only the message or the traceback can tell the removal from another cause."""
        best: dict[str, Match] = {}
        out: dict[str, RuledOut] = {}
        if not self._retold:
            return best, out
        meter.work += len(reading.text)
        for line in reading.text.split("\n"):
            named = [found.group() for found in _NAME.finditer(line) if found.group() in self._retold]
            meter.work += len(line)
            if not named or _RETOLD_GONE.search(line.lower()) is None:
                continue
            for name in named:
                for one in self._retold[name]:
                    if one.id in best or one.id in out:
                        continue
                    graded = self._grade(Match(one, {}, None, False), reading, meter)
                    if isinstance(graded, RuledOut):
                        out[one.id] = graded
                        continue
                    hint = (f"the paste names {code_span(name)} but does not show the error's message: paste the "
                            "message, or the traceback, to confirm it")
                    best[one.id] = replace(graded, grade=Grade.CANDIDATE, missing=(hint, *graded.missing))
        return best, out

    def other_causes(self, match: Match, meter: Meter | None = None) -> list[OtherCause]:
        """The entry's other causes that concern the matched wording: every wording's, or the one whose
        message (as written or as pasted) the matched wording's text, its values put back, fits."""
        meter = meter or Meter()
        found = []
        for cause, forms in self._others.get(match.known.id, ()):
            if not cause.messages or not forms:
                found.append(cause)
                continue
            template = self._wordings.get((match.known.id, match.wording))
            if template is None:
                continue
            slots = template.slots
            text = "".join(piece + (match.values.get(slots[index], "") if index < len(slots) else "")
                           for index, piece in enumerate(template.pieces))
            meter.work += len(text)
            if any(form.match(text, meter) is not None for form in forms):
                found.append(cause)
        return found

    def _ended_with(self, match: Match, reading: _Reading, meter: Meter) -> bool:
        """Whether the match is of the error the paste ended with (`_Reading.final`): its exception line is
        one of that error's, or, found inside the text (prose, a title), its wording (or the beginning of it the
        paste shows alone) is inside that error's message. A paste without an exception line ended with no other
        error."""
        final = reading.final
        if final is None:
            return True
        if match.at >= 0:
            return line_start(reading.text, match.at) in final
        # A beginning the paste shows alone is looked for as shown: the whole wording is in no message of the paste.
        template = MessageTemplate.parse(match.head) if match.head else \
            self._wordings.get((match.known.id, match.wording))
        if template is None:
            return False
        forms = (template, *_capitalised(template.source), *_on_class(template.source))
        return any(form.search(option.message, meter) is not None for option in reading.options
                   if option.at >= 0 and line_start(reading.text, option.at) in final for form in forms)

    def _said_whole(self, match: Match, reading: _Reading, meter: Meter) -> int | None:
        """Where the exception line is whose whole message the matched words are (None: none's): `match.at` for a
        whole match; for words found inside the text, the last exception line of any class whose message is the
        wording whole (`raise RuntimeError(str(error)) from None` prints the library's words under another class)."""
        if match.exact:
            return match.at
        template = self._wordings.get((match.known.id, match.wording))
        if template is None:
            return None
        return next((option.at for option in reading.options if option.at >= 0 and option.exception is not None
                     and template.match(option.message, meter) is not None), None)

    def _other_class(self, match: Match, reading: _Reading, meter: Meter) -> str | None:
        """For words found inside the text, the class of the exception lines whose messages hold them, when none is
        the wording's own class (the last such line's); None for a whole match, or where no exception line holds
        them (prose, a title)."""
        if match.exact:
            return None
        template = self._wordings.get((match.known.id, match.wording))
        if template is None:
            return None
        other = None
        for option in reading.options:
            if option.at < 0 or option.exception is None or template.search(option.message, meter) is None:
                continue
            if same_exception(option.exception, match.matched.exception):
                return None
            other = option.exception
        return other

    def _writes_words(self, match: Match, code: str) -> bool:
        """Whether a failing line (its comment aside, escapes read) holds the matched wording's longest fixed piece,
        of `rules.WRITTEN_MIN` characters or more: a literal that wrote the words, where a retelling
        (`failed: {error}`) holds none of them (round seventeen)."""
        template = self._wordings.get((match.known.id, match.wording))
        piece = max(template.pieces, key=len) if template is not None and template.pieces else ""
        return len(piece) >= rules.WRITTEN_MIN and piece in without_comment(code).replace("\\", "")

    def _raising(self, shown: list[Frame]) -> Frame | None:
        """The frame that raised: the traceback's last frame outside the runtime's packages."""
        return next((frame for frame in reversed(shown)
                     if not any(_path_matches(frame.path, f"{package}/") for package in self.runtime)), None)

    def _defines_class(self, value: str) -> bool:
        """Whether the library defines the class a name means: its first dotted part, or its last (a
        qualified `package.ClassName`)."""
        return self._defines(value) or self._defines(value.rsplit(".", 1)[-1])

    def _defines(self, value: str) -> bool:
        """Whether the library defines the class a `user` value names (its first dotted part)."""
        return fnv1a(value.split(".", 1)[0]) in self.classes


def _recognised_elsewhere(match: Match, reading: _Reading, meter: Meter) -> bool:
    """Whether every place the paste shows one of the entry's `recognised_by` texts lies inside the traceback
    of another exception line (from its first frame to its exception line): a failing line of another error
    (an earlier traceback, a chain's first exception) says nothing of this one, and neither does the source line a
    warning echoes under its header (`rules.WARNING_HEADER`: the line that issued the warning, not one that failed).
    Text outside these (a warning's message printed before it, a title) still counts."""
    meter.work += len(reading.text)
    regions = _warning_sources(reading.text, meter)
    if match.at >= 0:
        ats = [frame.at for frame in reading.frames]
        own = reading.start_of(match.at)
        for at in sorted({option.at for option in reading.options if option.at >= 0}):
            start = reading.start_of(at)
            first = bisect_left(ats, start)
            if start != own and first < len(ats) and ats[first] < at:
                regions.append((ats[first], at))
    if not regions:
        return False
    for piece in match.known.recognised_by:
        meter.work += len(reading.text)
        found = reading.text.find(piece)
        while found >= 0:
            if not any(begin <= found < end for begin, end in regions):
                return False
            found = reading.text.find(piece, found + 1)
    return True


def _same_words(earlier: str, later: str) -> bool:
    """Whether two exception lines (`Name: message`) say the same message, whatever their classes."""
    first, second = earlier.partition(": "), later.partition(": ")
    return bool(first[1] and second[1] and strip(first[2])) and strip(first[2]) == strip(second[2])


def _warning_sources(text: str, meter: Meter | None = None) -> list[tuple[int, int]]:
    """Where the paste shows the source lines its warnings echo: the first indented line after each warning's
    header and the lines its message runs on (`rules.WARNING_HEADER`). The message ends, with no echo shown, at
    a line that starts something else: another header, an exception line, a frame, an arrow, a stop (a blank
    line, a traceback's marker). Each line is read by one header's scan at most: the next header ends it."""
    meter = meter or Meter()
    regions = []
    for header in _WARNING_HEADER.finditer(text):
        begin = text.find("\n", header.end()) + 1
        while begin:
            end = text.find("\n", begin)
            end = len(text) if end < 0 else end
            line = text[begin:end]
            meter.work += len(line) + 1
            if line.startswith((" ", "\t")):
                if line.strip(rules.WHITESPACE) and not _FRAME_LINE.match(line):  # a frame: a traceback's, no echo
                    regions.append((begin, end))
                break
            if _ends_message(line):
                break
            begin = end + 1 if end < len(text) else 0
    return regions


def _ends_message(line: str) -> bool:
    """Whether an unindented line after a warning's header starts something other than its message."""
    return any(pattern.match(line) for pattern in (_WARNING_HEADER, _EXCEPTION_LINE, _STOP_LINE, _FRAME_LINE,
                                                   _ARROW_LINE))


_OWN_RAISE = rules.compiled(rules.OWN_RAISE)
_RELAYED = rules.compiled(rules.RELAYED)
_CHECK_NAME = rules.compiled(rules.CHECK_NAME)
_CHECK_LINE = rules.compiled(rules.CHECK_LINE)
_NAME = rules.compiled(rules.NAME)
_WARNING_HEADER = rules.compiled(rules.WARNING_HEADER)
_EXCEPTION_LINE = rules.compiled(rules.EXCEPTION_LINE)
_STOP_LINE = rules.compiled(rules.STOP_LINE)
_FRAME_LINE = rules.compiled(rules.FRAME_LINE)
_ARROW_LINE = rules.compiled(rules.ARROW_LINE)
_RETOLD_NAME = rules.compiled(rules.RETOLD_NAME)
_RETOLD_GONE = rules.compiled(rules.RETOLD_GONE)
_COUNT = rules.compiled(rules.COUNT)
_SOURCE_VALUE = rules.compiled(rules.SOURCE_VALUE)


def _tails(one: Known, index: int, template: MessageTemplate,
           generic: tuple[str, ...]) -> tuple[str, tuple[tuple[_Template, str], ...]] | None:
    """A wording's ends that start a clause of its first fixed piece (a word after `rules.TAIL_AFTER`'s
    punctuation and a blank) and keep at least `rules.TAIL_MIN` fixed characters, longest first, each with
    the beginning it leaves out; and the piece every one of them holds (the longest later piece, else the
    first piece's last characters)."""
    first = template.pieces[0]
    if not first or "{" in first or "}" in first or not template.source.startswith(first):
        return None
    rest = template.source[len(first):]
    later = [piece for piece in template.pieces[1:] if piece]
    gate = max(later, key=len) if later else first[-rules.TAIL_MIN:]
    ends = []
    for at in range(1, len(first)):
        if first[at - 1] not in rules.WHITESPACE or first[at] in rules.WHITESPACE:
            continue
        before = first[:at].rstrip(rules.WHITESPACE)
        if not before or before[-1] not in rules.TAIL_AFTER:
            continue
        end = MessageTemplate.parse(first[at:] + rest)
        fixed = sum(len(piece) for piece in end.pieces)
        if fixed < rules.TAIL_MIN:
            break
        if is_degenerate(end, generic):
            continue
        pieces = tuple(sorted(dict.fromkeys(p for p in end.pieces if p), key=len, reverse=True))
        typed = _typed(one.diagnosis, end.slots)
        ends.append((_Template(one, index, end, pieces, fixed, typed, _context(end)), first[:at]))
    return (gate, tuple(ends)) if ends else None


def _whole_end(item: _Template, reading: _Reading, library: str, meter: Meter) -> Match | None:
    """A wording's end that a candidate of the paste is, whole (`_exact`, no title words trimmed)."""
    recognised = any(_has_piece(reading, piece, meter) for piece in item.known.recognised_by)
    return _exact(item, reading, library, recognised, meter, trim=False)[0]


def _heads(one: Known, index: int, template: MessageTemplate,
           generic: tuple[str, ...]) -> tuple[str, tuple[tuple[_Template, str], ...]] | None:
    """A wording's beginnings that end where a clause does (just before `rules.TAIL_AFTER`'s punctuation and a
    blank) with fixed text, keeping at least `rules.HEAD_MIN` letters and digits of it, or at a word's end just
    before a blank, keeping at least `rules.HEAD_WORD_MIN` and leaving out `rules.HEAD_WORD_REST` names; longest
    first, each with the rest it leaves out; and the shortest one's first piece, which every one of them holds (the
    wording's first piece may be cut too). None for a wording whose first piece is too short to place it by (as
    `MessageTemplate.prefix` asks)."""
    source, first = template.source, template.pieces[0]
    if sum(map(str.isalnum, first)) < MIN_PIECE:
        return None
    heads = []
    for at in range(len(source) - 2, 0, -1):
        clause = source[at] in rules.TAIL_AFTER and source[at + 1] in rules.WHITESPACE
        word = source[at] in rules.WHITESPACE and (source[at - 1].isalnum() or source[at - 1] == "_")
        if not clause and not word:
            continue
        try:
            head = MessageTemplate.parse(source[:at])
        except TemplateSyntaxError:  # the punctuation or the blank is inside a placeholder
            continue
        if not head.pieces[-1] or source[at - 1] in rules.WHITESPACE:
            continue
        kept = fixed_text(head).total
        if kept < rules.HEAD_MIN:
            break
        if not clause and (kept < rules.HEAD_WORD_MIN or _names_left_out(source[at:]) < rules.HEAD_WORD_REST):
            continue
        if is_degenerate(head, generic):
            continue
        pieces = tuple(sorted(dict.fromkeys(p for p in head.pieces if p), key=len, reverse=True))
        typed = _typed(one.diagnosis, head.slots)
        heads.append((_Template(one, index, head, pieces, sum(len(p) for p in head.pieces), typed, _context(head)),
                      source[at:]))
    return (heads[-1][0].template.pieces[0], tuple(heads)) if heads else None


def _names_left_out(rest: str) -> int:
    """The names (`rules.NAME`, holding a letter) of fixed text in a wording's `rest` that a beginning leaves out."""
    try:
        fixed = "".join(MessageTemplate.parse(rest).pieces)
    except TemplateSyntaxError:
        return 0
    return sum(1 for found in _NAME.finditer(fixed) if any(char.isalpha() for char in found.group()))


def _closed_beginning(item: _Template, reading: _Reading, library: str, meter: Meter) -> Match | None:
    """A wording's beginning found in the paste, starting a word, and closed right after by one of
    `rules.HEAD_CLOSE`'s quotes or its line's end: a quoted message cut at a clause, not words running on."""
    text, template = reading.text, item.template
    first = template.pieces[0]
    if not _at_word(item, text, reading.at(first)):
        return None
    values = template.search(text, meter)
    if values is None:
        return None
    values = _trim_leading(item, values)
    shown = "".join(piece + (values.get(template.slots[k], "") if k < len(template.slots) else "")
                    for k, piece in enumerate(template.pieces))
    at = text.find(shown)
    meter.work += len(text) if at < 0 else at + len(shown)
    end = at + len(shown)
    if at < 0 or not _at_word(item, text, at) or (end < len(text) and text[end] not in rules.HEAD_CLOSE + "\n"):
        return None
    recognised = any(_has_piece(reading, piece, meter) for piece in item.known.recognised_by)
    names = _names(item, values)
    found = Match(item.known, values, None, False, item.fixed, item.wording, recognised=recognised, names=names)
    return found if fits(item.known.diagnosis, values, library, partial=True, names=names) else None


def read_wording(message: str) -> MessageTemplate:
    """A wording (an entry's message, an `also_seen_as`, an other cause's message) as the matcher reads
    it: typographic quotes as Python prints them, the blanks around it dropped; then its placeholders
    (TemplateSyntaxError where it does not parse). The one reading: the matcher's wordings and other
    causes, and `fits_wording` (the loader's check of an other cause) all go through it."""
    return MessageTemplate.parse(strip(plain_quotes(message)))


def fits_wording(text: str, wording: str) -> dict[str, str] | None:
    """Whether `text` fits `wording` as the matcher decides it: the values its placeholders stand for,
    or None. Both are read as the matcher reads them (`read_wording`; the text's quotes and blanks as a
    paste's message), so the loader's check that an other cause's message is a wording of its entry
    (`diagnosis.other_causes`) can never judge otherwise than the lookup that applies it. A text the
    matcher would see only in a paste's other form (a Markdown paste without the backticks) does not fit
    the wording as printed: an other cause written so would concern that form alone."""
    return read_wording(wording).match(strip(plain_quotes(text)))


def _forms(cause: OtherCause) -> tuple[MessageTemplate, ...]:
    """An other cause's wording, as written and as pasted, read as the wordings are (empty: every wording,
    or none of its texts parses, which concerns every wording too: never fewer than declared; the loader
    names such a message, `fits_wording`)."""
    found = []
    for message in cause.messages:
        try:
            found.append(read_wording(message))
        except TemplateSyntaxError:
            continue
    return tuple(found)


def _other_hint(cause: OtherCause, releases: tuple[str, ...], claim: str | None, library: str) -> str:
    """What tells an entry from another cause of its words: the release, or the traceback (not when the
    other cause raises through the same frames)."""
    if releases and any(contains(cause.releases, release) is not False for release in releases):
        tells = "Nothing in the traceback tells them apart: both raise through the same frames" if cause.same_frames \
            else "The traceback tells them apart"
        return (f"{library} {describe(releases)} is among the releases ({cause.releases}) where another cause prints "
                f"the same words: {cause.note.rstrip('.')}. {tells}")
    ours = f" (this entry: {claim})" if claim else ""
    tells = "tells them apart; the traceback does not (both raise through the same frames)" if cause.same_frames \
        else "or the traceback tells them apart"
    return (f"another cause prints the same words on {library} {cause.releases}: {cause.note.rstrip('.')}. Your "
            f"{library} release{ours} {tells}")


def _capitalised(source: str) -> tuple[MessageTemplate, ...]:
    """A wording that starts with a lowercase letter (Python's own messages do: `cannot import name
    ...`, `too many values ...`) as a title or a sentence writes it, that letter capitalised (`Cannot
    import name ...`): the same message, so matched and graded as the wording itself (its words still
    confirm only what they confirm in lowercase). Python never capitalises it, so this only reads what
    people retyped; no other letter's case is ever ignored."""
    if not source or source[0] not in rules.LOWER_FIRST:
        return ()
    return (MessageTemplate.parse(source[0].upper() + source[1:]),)


def _on_class(source: str) -> tuple[MessageTemplate, ...]:
    """A wording of the instance's form (`'{cls}' object has no attribute 'name'`) in the class's, as Python words
    the attribute missing from the class itself (`type object '{cls}' has no attribute 'name'`, corpus h510), and
    that capitalised as a title retypes it; none for another wording. Matched as the wording, graded as it, and
    then only possible (`_on_class_hint`): the class lacks what each instance sets in `__init__` on every release."""
    start = rules.ON_INSTANCE[0]
    if not source.startswith(start) or source.count(rules.ON_INSTANCE) != 1:
        return ()
    read = rules.ON_CLASS_PREFIX + source[len(start):].replace(rules.ON_INSTANCE, rules.ON_CLASS)
    return (MessageTemplate.parse(read), *_capitalised(read))


def _on_class_hint(item: _Template) -> str:
    """What the class's words lack: whether the class defined the attribute, which no paste of them tells."""
    source = item.template.source
    name = source[source.index(rules.ON_CLASS) + len(rules.ON_CLASS):].split("'")[0]
    words = rules.ON_CLASS_PREFIX.rstrip("'")
    return (f"{code_span(name)} was read from the class itself ({code_span(words + ' ...')}): the change "
            "this entry documents if the class defined it (a method, a class attribute), but an attribute each "
            "instance sets in `__init__` is missing from its class on every release: paste the traceback, or the "
            "error of an instance, to confirm it")


def _framed_first(matches: list[Match]) -> list[Match]:
    """Where a traceback shows the documented frame of one confirmed entry, another confirmed only
    without its own documented frame (the same words, raised elsewhere) is a candidate."""
    if not any(m.confirmed and any(e.kind == rules.FRAME_EVIDENCE for e in m.evidence) for m in matches):
        return matches
    out = []
    for m in matches:
        if m.confirmed and m.shown and m.known.diagnosis.frames and \
                not any(e.kind == rules.FRAME_EVIDENCE for e in m.evidence):
            hint = f"the traceback shows no frame in {_where(m.known.diagnosis.frames[0])}, where this error is raised"
            m = replace(m, grade=Grade.CANDIDATE, missing=(*m.missing, hint))
        out.append(m)
    return out


def _shared_words(matches: list[Match]) -> list[Match]:
    """Words tie a message to one entry only: where another entry's wording fits the same exception
    line with as much fixed text or more, an entry confirmed on its words alone is a candidate (the
    same message, two causes: the release, the frames or the failing line tell them apart). A rival whose
    own typed placeholders say the value is not of its kind (a class the library defines where it documents
    a class of the user's) is no rival."""
    out = []
    for m in matches:
        if m.confirmed and all(e.kind == rules.WORDS for e in m.evidence if e.kind in rules.CONFIRMING):
            rival = next((o for o in matches if o.known.id != m.known.id and o.at == m.at and o.fixed >= m.fixed
                          and not o.withheld), None)
            if rival is not None:
                m = replace(m, grade=Grade.CANDIDATE, missing=(
                    *m.missing, f"`{rival.known.id}` has the same words: the traceback, the failing line or the "
                                "release tells them apart"))
        out.append(m)
    return out


def code_span(text: str) -> str:
    """`text` as one Markdown code span whatever it holds: a fence one backtick longer than its longest run,
    padded where it starts or ends with a backtick (CommonMark; the page's `codeSpans` reads it back). A text
    from a paste or an entry (`doesn't inherit from `GenerationMixin``) broke out of a single-backtick span."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == " " and text[-1:] == " " and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fnv1a(name: str) -> str:
    """A class name's 32-bit FNV-1a hash (its UTF-8 bytes), as 8 hex digits: the index carries
    the library's class names so, small."""
    value = 0x811C9DC5
    for byte in name.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def _hints(match: Match, diagnosis: Diagnosis, shown: list[Frame], releases: tuple[str, ...],
           library: str, told: bool = False, blind: bool = False) -> list[str]:
    """What would confirm a candidate, or rule it out, as codes a front words (`Hint`). `told`: an other
    cause's hint (`_other_hint`) came first; it already asks for the release (or says the known one
    does not tell) and for the traceback, so neither question is asked again. `blind`: an other cause
    raises through the same frames, so the traceback would confirm nothing."""
    hints: list[str] = []
    if shown and diagnosis.frames:
        hints.append(f"the traceback shows no frame in {_where(diagnosis.frames[0])}, where this error is raised")
    elif blind:
        pass
    elif not shown and diagnosis.frames:
        hints.append(Hint("traceback-frame", where=_where(diagnosis.frames[0])))
    elif not shown and diagnosis.code:
        hints.append(Hint("traceback-line", code=code_span(diagnosis.code[0])))
    if match.known.recognised_by and not match.recognised:
        hints.append(Hint("recognised-line", line=code_span(match.known.recognised_by[0])))
    claim = wording_range(match.known, match.matched)
    if not releases and claim and not told:
        hints.append(Hint("release", library=library, claim=claim))
    if not hints and not told:
        hints.append(Hint("traceback-any", id=match.known.id))
    return hints


def _where(thing: FrameRule | Frame) -> str:
    if isinstance(thing, Frame):
        return f"`{thing.function}` ({thing.path})" if thing.function else thing.path
    return f"`{thing.function}` ({thing.file})" if thing.function else f"`{thing.file}`"


def frame_matches(frame: Frame, rule: FrameRule, installed: bool = False) -> bool:
    """Whether a frame lies in the rule's file (as installed; `*` any characters but `/`; a
    trailing `/` any file below) and, if the rule names one, its function (by its own name: Python
    prints `update`, a notebook `StaticLayer.update`). `installed`: only where the file's package folder
    stands where Python installs packages (`installed_at`): a frame that confirms an entry must be the
    library's own, never a same-named file of another package's copy or a project's folder. A rule that
    rules an entry out, or asks where the error was raised, takes any such frame (a copy raising the
    library's error is not "elsewhere")."""
    if rule.function is not None and frame.function.rsplit(".", 1)[-1] != rule.function.rsplit(".", 1)[-1]:
        return False
    return _path_matches(frame.path, rule.file, installed)


def _path_matches(path: str, pattern: str, installed: bool = False) -> bool:
    """Whether the path lies in the pattern's file or folder; `installed`: at a place of an installed
    package (some occurrence of the pattern's start does, for a folder)."""
    if pattern.endswith("/"):
        if path.startswith(pattern):
            return True
        at = path.find("/" + pattern)
        while at >= 0:
            if not installed or installed_at(path, at + 1):
                return True
            at = path.find("/" + pattern, at + 1)
        return False
    if "*" not in pattern:
        if path == pattern:
            return True
        return path.endswith("/" + pattern) and (not installed or installed_at(path, len(path) - len(pattern)))
    glob = "(?:^|/)" + "[^/]*".join(re.escape(part) for part in pattern.split("*")) + "$"
    found = re.search(glob, path)
    if found is None:
        return False
    start = found.start() + (1 if path[found.start():found.start() + 1] == "/" else 0)
    return not installed or installed_at(path, start)


def _first(found: list[Frame], wanted: tuple[FrameRule, ...], installed: bool = False) -> Frame | None:
    return next((frame for frame in reversed(found)
                 if any(frame_matches(frame, rule, installed) for rule in wanted)), None)


def _uses(code: str, names: tuple[str, ...]) -> bool:
    """Whether a line of code uses one of the names as a whole identifier, in its code (`code_used`): a
    comment (`# was cache.key_cache`) or a string's text (`log("no key_cache")`) uses nothing; a string
    that is the name does (`getattr(cache, 'key_cache')`)."""
    code = code_used(code)
    return any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", code) for name in names)


_NAMED_STRING = rules.compiled(rules.NAMED_STRING)
_STRING_PREFIX = rules.compiled(rules.STRING_PREFIX)


def code_used(code: str) -> str:
    """A line of Python as it uses names (round twenty-one): its comment dropped, each string literal's text
    blanked unless the whole of it is a name or a dotted name (`rules.NAMED_STRING`: read by reflection,
    `getattr(cache, "key_cache")`), an f-string's replacement fields kept as code. Quotes read in one pass
    as `without_comment` reads them, a backslash escaping the next character inside a literal."""
    kept, at = [], 0
    while at < len(code):
        char = code[at]
        if char == "#":
            break
        if char not in "'\"":
            kept.append(char)
            at += 1
            continue
        end = at + 1
        while end < len(code) and code[end] != char:
            end += 2 if code[end] == "\\" else 1
        text = code[at + 1:end]
        prefix = _STRING_PREFIX.search(code[max(0, at - 3):at])  # two letters and what stands before them
        if _NAMED_STRING.search(text):
            kept.append(" " + text + " ")
        elif prefix is not None and "f" in prefix.group(0).lower():
            kept.append(" " + " ".join(code_used(field) for field in _fields(text)) + " ")
        else:
            kept.append(" ")
        at = end + 1
    return "".join(kept)


def _fields(text: str) -> list[str]:
    """An f-string's replacement fields (`{cache.key_cache[0]!r:>8}`), nested braces counted; `{{` is a brace."""
    found, at = [], 0
    while at < len(text):
        if text.startswith("{{", at):
            at += 2
            continue
        if text[at] != "{":
            at += 1
            continue
        depth, end = 1, at + 1
        while end < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        found.append(text[at + 1:end - 1 if depth == 0 else end])
        at = end
    return found


def without_comment(code: str) -> str:
    """A line of Python without its comment: from the first `#` outside a string literal (quotes read in
    one pass, a backslash escaping the next character inside one)."""
    quote, at = "", 0
    while at < len(code):
        char = code[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return code[:at]
        at += 1
    return code


def withheld_values(diagnosis: Diagnosis, named: dict[str, str],
                    defines: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
    """The values (whole names) the entry's `withhold` declarations name, each with why: they print the
    entry's words for another cause. A rule for the library's own classes holds a value the library
    defines, or any value where the index carries no class list (`defines` None: it cannot tell)."""
    found = []
    for expression, value in named.items():
        declared = diagnosis.placeholders.get(expression)
        for rule in declared.withhold if declared else ():
            if rule.library and defines is not None and not defines(value):
                continue
            if any(name_matches(value, glob) for glob in rule.names) and \
                    not any(name_matches(value, glob) for glob in rule.unless):
                found.append((value, rule.because))
                break
    return found


def tied_values(diagnosis: Diagnosis, named: dict[str, str],
                defines: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
    """The values (whole names) the entry's `ties` declarations name, each with why: only the entry's cause
    prints its words with them. A rule for classes the library does not define ties nothing where the index
    carries no class list (`defines` None: it cannot tell)."""
    found = []
    for expression, value in named.items():
        declared = diagnosis.placeholders.get(expression)
        for rule in declared.ties if declared else ():
            if rule.foreign and (defines is None or defines(value)):
                continue
            if any(name_matches(value, glob) for glob in rule.names) and \
                    not any(name_matches(value, glob) for glob in rule.unless):
                found.append((value, rule.because))
                break
    return found


def located_elsewhere(diagnosis: Diagnosis, named: dict[str, str], library: str) -> list[tuple[str, str]]:
    """The `location` values (where an import found the module) that are not the installed library's folder,
    each with why: the import found another folder of that name, so the entry's cause is not what it shows."""
    return [(value, f"is not where {library} is installed (a folder named like it, or a namespace package "
                    f"without its files): the import found another `{library}`; fix what it imports first")
            for expression, value in named.items()
            if _type(diagnosis, expression) == "location" and not installed_location(value, library)]


def installed_location(value: str, library: str) -> bool:
    """Whether a location Python printed is a file in the library's folder where packages are installed
    (`installed_at`: one occurrence of the folder suffices), or cannot be judged: only `unknown location` and
    a whole path (a `/` or `\\`, no blank: a terminal's wrap puts one in, `site-packag es`) are; a title's
    own parenthesis (`(peft 0.13)`) is no location."""
    if value != "unknown location" and ("/" not in value and "\\" not in value
                                        or any(char in rules.WHITESPACE for char in value)):
        return True
    path = value.replace("\\", "/")
    at = path.find(library + "/")
    while at >= 0:
        if (at == 0 or path[at - 1] == "/") and installed_at(path, at):
            return True
        at = path.find(library + "/", at + 1)
    return False


def name_matches(value: str, glob: str) -> bool:
    """Whether a name fits a glob whose `*` stands for any run of characters: the pieces between the
    stars in order, the first at the start and the last at the end (linear: no backtracking, whatever
    a paste puts in the name)."""
    pieces = glob.split("*")
    if len(pieces) == 1:
        return value == glob
    first, last = pieces[0], pieces[-1]
    if len(value) < len(first) + len(last) or not value.startswith(first) or not value.endswith(last):
        return False
    at, end = len(first), len(value) - len(last)
    for piece in pieces[1:-1]:
        found = value.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _type(diagnosis: Diagnosis, expression: str) -> str:
    """A placeholder's type: declared, else by its name (`rules.DEFAULT_TYPES`), else `count` for a call of `len`."""
    declared = diagnosis.placeholders.get(expression)
    if declared:
        return declared.type
    return rules.DEFAULT_TYPES.get(expression) or ("count" if _COUNT.match(expression) else "any")


def _typed(diagnosis: Diagnosis, slots: Iterable[str]) -> bool:
    """Whether a wording names a value its entry holds to a type, which a text cut short may show against the entry
    (`_cut_short`). A count (`{len(x)}`) is held only where the whole message shows it: a cut text's last value runs
    on into the words after it (`'Cache only has 0 layers' during generation ...`, corpus h436)."""
    return any(_type(diagnosis, slot) not in ("any", "count") for slot in slots)


def fits(diagnosis: Diagnosis, values: dict[str, str], library: str = "", partial: bool = False,
         names: dict[str, str] | None = None) -> bool:
    """Whether the values have their placeholders' types and keep the entry's relations (`partial`:
    values of a text cut short, the last possibly cut too: only what they show is held to them;
    `names`: the whole name a value is part of, `LlamaAttention` for `{model}` in `'{model}Attention'`)."""
    for expression, value in values.items():
        kind = _type(diagnosis, expression)
        if partial and (not value or kind == "count"):  # a cut text's count may run on (`_typed`)
            continue
        if _SOURCE_VALUE.match(value):  # a placeholder as the raise's source line writes it: no value
            continue
        pattern = _TYPES.get(kind)
        if pattern is not None and not pattern.match(value):
            return False
        if kind == "library" and library and value != library and not value.startswith(library + ".") \
                and not (partial and library.startswith(value)):
            return False
        if kind in CLASS_TYPES:
            declared = diagnosis.placeholders.get(expression)
            allowed = declared.allow if declared else ()
            whole = (names or {}).get(expression, value)
            if whole in rules.BUILTIN_TYPES and whole not in allowed:
                return False
    for left, operator, right in () if partial else diagnosis.relations:
        # a side is a placeholder (its value) or an integer constant (its digits)
        a, b = (str(side) if isinstance(side, int) else values.get(side) for side in (left, right))
        if not a or not b:  # a wording that does not print both (a device's own, without numbers): not its concern
            continue
        if not _TYPES["int"].match(a) or not _TYPES["int"].match(b):
            return False
        if not _compare(int(a), operator, int(b)):
            return False
    return True


CLASS_TYPES = ("class", "user", "library-class")  # a class's name: never one of Python's own types unless allowed
NAME_TYPES = (*CLASS_TYPES, "name")  # found inside a text, the name the text before it ends with


def _compare(a: int, operator: str, b: int) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}.get(operator, False)


def _has_piece(reading: _Reading, piece: str, meter: Meter) -> bool:
    """Whether the text holds the piece, counting what the scan reads: up to the end of the piece
    where found, the whole text where not (counted every time it is asked, though the reading
    scans each distinct piece once). Callers use it with `all` or `any`, which stop at the first
    piece that decides, so the pieces after it are neither asked nor counted."""
    at = reading.at(piece)
    meter.work += len(reading.text) if at < 0 else at + len(piece)
    return at >= 0


def _has_joined(reading: _Reading, piece: str, meter: Meter) -> bool:
    """`_has_piece` on the text with its line breaks taken out."""
    at = reading.at_joined(piece)
    meter.work += len(reading.joined) if at < 0 else at + len(piece)
    return at >= 0


def _has_spaced(reading: _Reading, piece: str, meter: Meter) -> bool:
    """`_has_piece` on the text with each line break made one space."""
    at = reading.at_spaced(piece)
    meter.work += len(reading.spaced) if at < 0 else at + len(piece)
    return at >= 0


def same_exception(seen: str, documented: str) -> bool:
    return seen.rsplit(".", 1)[-1] == documented.rsplit(".", 1)[-1]


def _trim_leading(item: _Template, values: dict[str, str]) -> dict[str, str]:
    """Found inside a text (or matched by the whole paste), a wording that starts with a placeholder
    gave it everything before the first fixed piece; what stood for it is that text's last word
    (`LlavaLlamaForCausalLM.forward` in `ERROR Error LlavaLlamaForCausalLM.forward() got ...`), and for
    a placeholder typed as a name, the name that word ends with (`TinyChartPhiForCausalLM.forward` in
    a title `TinyChart推理报错TinyChartPhiForCausalLM.forward() got ...`)."""
    template = item.template
    if template.pieces[0] or not template.slots:
        return values
    first = template.slots[0]
    words = [word for word in _SPACES.split(values[first]) if word]
    value = words[-1] if words else ""
    if _type(item.known.diagnosis, first) in NAME_TYPES:
        start = len(value)
        while start > 0 and value[start - 1] in rules.DOTTED_NAME_CHARS:
            start -= 1
        value = value[start:]
    return {**values, first: value}


def _context(template: MessageTemplate) -> dict[str, tuple[str, str]]:
    """Each placeholder's name characters written right before and after it in the wording (`Attention`
    after `{model}` in `'{model}Attention'`): its value is part of that name."""
    pieces, found = template.pieces, dict[str, tuple[str, str]]()
    for index, slot in enumerate(template.slots):
        before, after = pieces[index], pieces[index + 1]
        start = len(before)
        while start > 0 and before[start - 1] in rules.NAME_CHARS:
            start -= 1
        end = 0
        while end < len(after) and after[end] in rules.NAME_CHARS:
            end += 1
        found.setdefault(slot, (before[start:], after[:end]))
    return found


def _names(item: _Template, values: dict[str, str]) -> dict[str, str]:
    """The whole name each value is part of, where the wording writes name characters around it."""
    return {slot: left + values[slot] + right for slot, (left, right) in item.context.items()
            if (left or right) and slot in values}


def _at_word(item: _Template, text: str, at: int) -> bool:
    """Whether a wording that starts with a name's characters, found at `at`, starts a word there: the
    fixed `LlamaModel.forward()` found inside `MyLlamaModel.forward()` is another class's message (after
    a dot it may be a method's name: `GenerationMixin._extract_past_from_model_output()`)."""
    first = item.template.pieces[0]
    return not first or first[0] not in rules.NAME_CHARS or at <= 0 or text[at - 1] not in rules.NAME_CHARS


def _match_one(item: _Template, reading: _Reading, library: str, meter: Meter,
               spaced: bool = False) -> tuple[Match | None, Match | None]:
    """Stage 2 for one wording: its best fit among the candidates, else found inside the text (or, for
    a wording the terminal wrapped, inside the text with its line breaks taken out); and, when the
    words fit but a value breaks the entry's types or relations, that fit (evidence against). `spaced`: only
    found inside the text with its line breaks made spaces, for a wording no other view of the text holds (asked
    when no wording matched otherwise: a form that wrapped the message where a space was)."""
    recognised = any(_has_piece(reading, piece, meter) for piece in item.known.recognised_by)
    if spaced:
        if (all(_has_piece(reading, piece, meter) for piece in item.pieces)
                or all(_has_joined(reading, piece, meter) for piece in item.pieces)
                or not all(_has_spaced(reading, piece, meter) for piece in item.pieces)):
            return None, None
        return _found_inside(item, reading, reading.spaced, reading.at_spaced, library, recognised, meter)
    if not all(_has_piece(reading, piece, meter) for piece in item.pieces):
        if reading.multiline and all(_has_joined(reading, piece, meter) for piece in item.pieces):
            return _found_inside(item, reading, reading.joined, reading.at_joined, library, recognised, meter)
        return None, _cut_short(item, reading, library, recognised, meter)
    best, mismatch = _exact(item, reading, library, recognised, meter)
    if best is None and mismatch is None:
        return _found_inside(item, reading, reading.text, reading.at, library, recognised, meter)
    return best, (mismatch if best is None else None)


def _exact(item: _Template, reading: _Reading, library: str, recognised: bool, meter: Meter,
           trim: bool = True) -> tuple[Match | None, Match | None]:
    """The wording's best fit among the paste's candidate messages, each matched whole, and the first fit
    whose values break the entry's types or relations. `trim`: a title's words before the message (a
    candidate with no exception, the whole paste) are taken out of its leading value."""
    wording = item.known.wordings[item.wording]
    best = mismatch = None
    for option in reading.options:
        if option.exception is not None and not same_exception(option.exception, wording.exception):
            continue
        values = item.template.match(option.message, meter)
        if values is None:
            continue
        if trim and option.exception is None:  # the whole paste: a title's words may stand before the message
            values = _trim_leading(item, values)
        names = _names(item, values)
        found = Match(item.known, values, option.exception, True, item.fixed, item.wording, option.chain,
                      recognised=recognised, at=option.at, names=names)
        if not fits(item.known.diagnosis, values, library, names=names):
            mismatch = mismatch or found
        elif best is None or found.score > best.score:
            best = found
    return best, mismatch


def _found_inside(item: _Template, reading: _Reading, text: str, at: Callable[[str], int], library: str,
                  recognised: bool, meter: Meter) -> tuple[Match | None, Match | None]:
    """The wording found anywhere in `text` (the paste, or the paste unwrapped), starting a word."""
    first = item.template.pieces[0]
    values = item.template.search(text, meter) if _at_word(item, text, at(first) if first else 0) else None
    if values is None:
        return None, _cut_short(item, reading, library, recognised, meter)
    values = _trailing_value(item, text, _trim_leading(item, values), meter)
    names = _names(item, values)
    found = Match(item.known, values, None, False, item.fixed, item.wording, recognised=recognised, names=names)
    return (found, None) if fits(item.known.diagnosis, values, library, names=names) else (None, found)


def _trailing_value(item: _Template, text: str, values: dict[str, str], meter: Meter) -> dict[str, str]:
    """A wording that ends with a placeholder, found inside a longer text, left it empty (the search stops at
    its last fixed piece): when the entry holds that placeholder to a type or a relation, its value is the word
    after that piece, less a sentence's or a quote's closing punctuation (`rules.TRAILING_PUNCTUATION`), so
    that its type and relations are held (`... asked for slot 9` under another exception's name). A
    word that has not the placeholder's type (an integer, for one a relation compares) leaves it unknown."""
    template, diagnosis = item.template, item.known.diagnosis
    slots = template.slots
    if template.pieces[-1] or not slots or values.get(slots[-1]):
        return values
    slot = slots[-1]
    kind = _type(diagnosis, slot)
    # a count takes any integer (`got -2`), for `fits` to hold it: a negative one is no count
    pattern = _TYPES["int"] if kind == "count" else _TYPES.get(kind)
    if pattern is None and any(slot in (one[0], one[2]) for one in diagnosis.relations):
        pattern = _TYPES["int"]  # a relation compares integers
    if pattern is None:
        return values
    before = "".join(piece + (values.get(slots[k], "") if k < len(slots) - 1 else "")
                     for k, piece in enumerate(template.pieces[:-1]))
    at = text.find(before)
    meter.work += len(text) if at < 0 else at + len(before)
    if at < 0:
        return values
    start = stop = at + len(before)
    while stop < len(text) and text[stop] not in rules.WHITESPACE:
        stop += 1
    meter.work += stop - start
    word = text[start:stop].rstrip(rules.TRAILING_PUNCTUATION)
    # a word of another kind (the wording's own source line in a traceback: `{slot}")`) is no value: left unknown
    return {**values, slot: word} if pattern.match(word) else values


def _cut_short(item: _Template, reading: _Reading, library: str, recognised: bool, meter: Meter) -> Match | None:
    """A text holding only the beginning of a typed wording (a title cut short) may still name what
    the wording never names: that fit, as evidence against the entry. Not of the class's form (`_on_class`),
    whose first words (`type object '`) every class's missing attribute starts with."""
    first = item.template.pieces[0]
    if item.on_class or not item.typed or not first or not _has_piece(reading, first, meter):
        return None
    values = item.template.prefix(reading.text, meter, reading.at(first))
    names = _names(item, values) if values else {}
    if not values or fits(item.known.diagnosis, values, library, partial=True, names=names):
        return None
    return Match(item.known, values, None, False, item.fixed, item.wording, recognised=recognised, names=names)

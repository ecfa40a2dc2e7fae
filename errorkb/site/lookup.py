"""Which entry does a pasted error belong to? The matcher behind `errorkb lookup` and the
"paste your error" box.

Readers paste what they have: a bare message, `ValueError: message`, a whole traceback, or
pytest's `E   ValueError: ...` lines. The rules, identical in `errorkb/site/assets/lookup.js`
(a test runs both on the same inputs):

1. Line endings become `\\n`; the text is stripped, and so is every template (a source
   message may end in a space that no paste keeps).
2. Candidates: every line shaped `[indent][E  ]Name: message` gives its one-line message and,
   when lines follow up to a blank line or a traceback marker, the multi-line message too
   (later exceptions first: the last one in a traceback is the one raised); then the whole
   text as a bare message.
3. An entry matches a candidate when its template (`MessageTemplate`) matches the candidate
   message exactly, and the candidate's exception name, if any, ends with the entry's class
   name (`builtins.ValueError` is `ValueError`). Failing that, the template may be found
   anywhere in the text (`MessageTemplate.search`), which ranks lower.
4. Ranking: exact match over search; a named, agreeing exception over none; then the more
   fixed text a template has, the more specific it is; then id.

Speed: a template can only match a text that contains every one of its fixed pieces, so
substring tests (longest piece first) rule out nearly every entry before any regex runs
(1,000 entries: well under a millisecond). Nothing here imports the runtime or MkDocs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.core.entry import Entry
from errorkb.core.message import Literal, MessageTemplate

EXCEPTION_LINE = re.compile(
    r"^([ \t]*(?:E[ \t]+)?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*): ([^\n]*)$"
)
STOP_LINE = re.compile(
    r"^\s*$|^Traceback \(most recent call last\):|^During handling of the above exception"
    r"|^The above exception was the direct cause"
)


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

    @classmethod
    def from_index(cls, item: dict[str, Any]) -> Known:
        core = {key: item[key] for key in ("id", "title", "exception", "message")}
        return cls(**core, url=item.get("url", ""), function=item.get("function", ""),
                   extra={k: v for k, v in item.items() if k not in core})


@dataclass(frozen=True)
class Candidate:
    message: str
    exception: str | None  # the name written before the message, if any


@dataclass(frozen=True)
class Match:
    known: Known
    values: dict[str, str]  # placeholder expression → the text it stood for
    exception: str | None  # the exception name seen in the paste, when it agreed
    exact: bool  # the message matched whole; False: found inside the text
    fixed: int = 0  # characters of fixed text in the template: more is more specific

    @property
    def score(self) -> tuple[bool, bool, int]:
        return (self.exact, self.exception is not None, self.fixed)


def normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def candidates(text: str) -> list[Candidate]:
    """Messages a pasted text may hold, most likely first (rule 2)."""
    lines = text.split("\n")
    found: list[Candidate] = []
    for index in range(len(lines) - 1, -1, -1):
        line = EXCEPTION_LINE.match(lines[index])
        if not line:
            continue
        prefix, name, first = line.groups()
        found.append(Candidate(first, name))
        more = []
        for following in lines[index + 1:]:
            if prefix.strip() and not following.startswith(prefix):
                break
            following = following[len(prefix):] if prefix.strip() else following
            if STOP_LINE.match(following):
                break
            more.append(following)
        if more:
            found.append(Candidate("\n".join([first, *more]), name))
    found.append(Candidate(text, None))
    return found


def same_exception(seen: str, documented: str) -> bool:
    return seen.rsplit(".", 1)[-1] == documented.rsplit(".", 1)[-1]


class Lookup:
    """Every entry's template compiled once; `find` answers one paste."""

    def __init__(self, known: Iterable[Known]):
        self._items = []
        for one in known:
            # Pastes are stripped, so templates are too: a source message may end in a space.
            template = MessageTemplate.parse(one.message.strip())
            pieces = sorted({p.text for p in template.parts if isinstance(p, Literal)}, key=len, reverse=True)
            fixed = sum(len(p.text) for p in template.parts if isinstance(p, Literal))
            self._items.append((one, template, tuple(pieces), fixed))

    def __len__(self) -> int:
        return len(self._items)

    def find(self, pasted: str) -> list[Match]:
        """Every matching entry, best first; empty when nothing matches."""
        text = normalize(pasted)
        if not text:
            return []
        options = candidates(text)
        matches = []
        for known, template, pieces, fixed in self._items:
            if pieces and (pieces[0] not in text or not all(piece in text for piece in pieces[1:])):
                continue
            best = _match_one(known, template, fixed, text, options)
            if best is not None:
                matches.append(best)
        matches.sort(key=lambda m: m.known.id)
        matches.sort(key=lambda m: m.score, reverse=True)
        return matches


def _match_one(known: Known, template: MessageTemplate, fixed: int, text: str,
               options: list[Candidate]) -> Match | None:
    best = None
    for option in options:
        if option.exception is not None and not same_exception(option.exception, known.exception):
            continue
        values = template.match(option.message.rstrip())
        if values is not None:
            found = Match(known, values, option.exception, True, fixed)
            if best is None or found.score > best.score:
                best = found
    if best is None:
        values = template.search(text)
        if values is not None:
            best = Match(known, values, None, False, fixed)
    return best


def known_from_index(path: Path) -> list[Known]:
    """Entries from a published `api/errors/index.json`."""
    return [Known.from_index(item) for item in json.loads(path.read_text(encoding="utf-8"))["entries"]]


def known_from_entries(entries: Iterable[Entry]) -> list[Known]:
    """Entries straight from the loaded YAML, as the site's index would list them."""
    from errorkb.site.render import site_url

    return [Known(e.id, e.title, e.exception, e.message, site_url(e), e.source.function) for e in entries]

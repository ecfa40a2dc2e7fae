"""What the lookup knows of an entry: one item of an index (`api/errors/index.json`, or the
index the package ships), read tolerantly (every field after schema 1 may be absent or odd:
an index is data from elsewhere) into typed objects.

An item carries, beside the entry's identity and releases, its *diagnosis*: what ties a
matched message to the entry's cause and what rules it out. The index builder
(`errorkb.lookup.build`) fills it from the entry's declarations and its kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Wording:
    """One way the error's message reads: the entry's own, or one of its `also_seen_as`."""

    message: str
    exception: str  # the class that raises it (an `also_seen_as` without one: the entry's)
    releases: str | None = None  # PEP 440 specifier of the releases that word it so
    device: str | None = None  # the device kind, when only that device words it so
    note: str | None = None
    words: bool = True  # its words alone tie a message to the entry (the library's own, or it names the entry's API)
    own: bool = False  # the library's own raise prints it (so the raising frame is the library's by design)
    main: bool = True  # the entry's own message (or it as pasted), not one of its `also_seen_as`
    called: bool = False  # raised within the library's call: a complete traceback shows a frame of the library


@dataclass(frozen=True)
class Releases:
    """In which releases the entry's error is raised, and what replaces the failing code."""

    raises: str | None = None  # PEP 440 specifier, e.g. ">=4.49,<5.0"
    last_good: str | None = None  # the last release where the old code ran
    replacement: str | None = None
    replacement_since: str | None = None


@dataclass(frozen=True)
class FrameRule:
    """A traceback frame: a file as installed (`<package>/cache_utils.py`; `*` stands for any
    characters but `/`; a path ending in `/` means any file under that folder) and, optionally,
    the function's name (its last part: `Cache.update` matches a frame `in update`)."""

    file: str
    function: str | None = None


@dataclass(frozen=True)
class Withhold:
    """Values of a placeholder that print the entry's words for another cause (globs: `*` any run of
    characters): a match naming one is only a candidate, `because` says why."""

    names: tuple[str, ...]
    unless: tuple[str, ...] = ()
    because: str = ""
    library: bool = False  # only classes the library defines (by the index's class list)


@dataclass(frozen=True)
class Tie:
    """Values of a placeholder that tie the entry's words to its cause (globs, as `Withhold`'s): a match
    naming one is confirmed on it, `because` says why."""

    names: tuple[str, ...]
    unless: tuple[str, ...] = ()
    because: str = ""
    foreign: bool = False  # only classes the library does not define (by the index's class list; none without it)


@dataclass(frozen=True)
class Placeholder:
    """What a placeholder's value must be: a type of `rules.TYPES`, and the builtin types a
    `class` may nevertheless name."""

    type: str = "any"
    allow: tuple[str, ...] = ()
    withhold: tuple[Withhold, ...] = ()
    ties: tuple[Tie, ...] = ()


@dataclass(frozen=True)
class OtherCause:
    """Another cause that prints the entry's words on other releases (`diagnosis.other_causes`)."""

    releases: str  # PEP 440 specifier of the releases where it does
    note: str  # what it is, in words
    message: str | None = None  # the wording it concerns, as written (None: every wording)
    messages: tuple[str, ...] = ()  # that wording as written and as pasted (empty: every wording)
    same_frames: bool = False  # it raises through the entry's frames too: only the release tells them apart


@dataclass(frozen=True)
class Diagnosis:
    """What tells the entry's cause from others worded alike (the index's `diagnosis`)."""

    frames: tuple[FrameRule, ...] = ()  # a frame here ties the paste to the entry
    require_frame: bool = False  # raised in one of `frames`: a traceback raised elsewhere rules it out
    exclude: tuple[FrameRule, ...] = ()  # a frame here rules the entry out
    innermost_exclude: tuple[FrameRule, ...] = ()  # the raising frame here rules it out
    code: tuple[str, ...] = ()  # a failing line of code using one of these names ties it
    placeholders: dict[str, Placeholder] = field(default_factory=dict)
    # (side, operator, side): integers compared; a side is a placeholder's text (str) or a constant (int)
    relations: tuple[tuple[str | int, str, str | int], ...] = ()
    direction: str | None = None  # "older-code": code written for an older release; "newer-code": for a newer one
    other_causes: tuple[OtherCause, ...] = ()  # other causes that print the same words on other releases
    # The library's package folder (`<package>/`): a complete traceback with no frame there rules out a wording
    # raised within the library's call (`Wording.called`).
    within: str | None = None
    runtime: bool = False  # raised by the runtime for any caller: a failing line not recognised never rules it out


@dataclass(frozen=True)
class Known:
    """One entry as the lookup sees it."""

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
    kind: str = "raise"
    diagnosis: Diagnosis = Diagnosis()
    # (words, name): where the error comes from, as the pages say it (`Entry.origin`, shipped in the index);
    # None for a removed or changed API in an index published before it was shipped
    origin: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if not self.wordings:
            object.__setattr__(self, "wordings", (Wording(self.message, self.exception),))

    @classmethod
    def from_index(cls, item: dict[str, Any]) -> Known:
        """An entry of a published index; every field added after schema 1 may be absent."""
        core = {key: str(item[key]) for key in ("id", "title", "exception", "message")}
        wordings = tuple(_wording(w, core["exception"]) for w in _list(item.get("wordings")) if isinstance(w, dict))
        lines = mapping(item.get("lines"))
        by_release = mapping(lines.get("by_release"))
        return cls(**core, url=str(item.get("url") or ""), function=str(item.get("function") or ""),
                   extra={k: v for k, v in item.items() if k not in core}, wordings=wordings,
                   releases=Releases(_text(item.get("raises_in")), _text(item.get("last_good")),
                                     _text(item.get("replacement")), _text(item.get("replacement_since"))),
                   lines_path=_text(lines.get("path")),
                   lines=tuple((str(r), n) for r, n in by_release.items()
                               if isinstance(n, int) and not isinstance(n, bool)),
                   recognised_by=tuple(str(text) for text in _list(item.get("recognised_by")) if text),
                   kind=str(item.get("kind") or "raise"),
                   diagnosis=_diagnosis(item.get("diagnosis")), origin=_origin(item))


def _origin(item: dict[str, Any]) -> tuple[str, str] | None:
    """The shipped origin; an older index's raise is still raised from its function, and a removed or
    changed API's is left unsaid (its function is the replacement: no reader is sent there)."""
    origin = item.get("origin")
    if isinstance(origin, list) and len(origin) == 2 and all(isinstance(part, str) and part for part in origin):
        return origin[0], origin[1]
    function = str(item.get("function") or "")
    return ("from", function) if function and str(item.get("kind") or "raise") == "raise" else None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _side(value: Any) -> str | int:
    """A relation's side as the index writes it: an integer constant (a JSON number), else a placeholder's text."""
    return value if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def mapping(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: an index is data from elsewhere."""
    return value if isinstance(value, dict) else {}


def _wording(item: dict[str, Any], exception: str) -> Wording:
    words = item.get("words")
    return Wording(_text(item.get("message")) or "", _text(item.get("exception")) or exception,
                   _text(item.get("releases")), _text(item.get("device")), _text(item.get("note")),
                   words if isinstance(words, bool) else True, item.get("own") is True, item.get("main") is not False,
                   item.get("called") is True)


def _rules(value: object) -> tuple[FrameRule, ...]:
    return tuple(FrameRule(str(one["file"]), _text(one.get("function")) or None)
                 for one in _list(value) if isinstance(one, dict) and one.get("file"))


def _diagnosis(value: object) -> Diagnosis:
    if not isinstance(value, dict):
        return Diagnosis()
    placeholders = mapping(value.get("placeholders"))
    return Diagnosis(
        frames=_rules(value.get("frames")), require_frame=value.get("require_frame") is True,
        exclude=_rules(value.get("exclude")), innermost_exclude=_rules(value.get("innermost_exclude")),
        code=tuple(str(name) for name in _list(value.get("code")) if name),
        placeholders={str(name): Placeholder(str(rule.get("type") or "any"),
                                             tuple(str(one) for one in _list(rule.get("allow"))),
                                             tuple(_withhold(one) for one in _list(rule.get("withhold"))
                                                   if isinstance(one, dict) and _list(one.get("names"))),
                                             tuple(_tie(one) for one in _list(rule.get("ties"))
                                                   if isinstance(one, dict) and _list(one.get("names"))))
                      for name, rule in placeholders.items() if isinstance(rule, dict)},
        relations=tuple((_side(one[0]), str(one[1]), _side(one[2])) for one in _list(value.get("relations"))
                        if isinstance(one, list) and len(one) == 3),
        direction=_text(value.get("direction")),
        other_causes=tuple(_other_cause(one) for one in _list(value.get("other_causes"))
                           if isinstance(one, dict) and one.get("releases")),
        within=_text(value.get("within")), runtime=value.get("runtime") is True)


def _withhold(item: dict[str, Any]) -> Withhold:
    return Withhold(tuple(str(one) for one in _list(item.get("names"))),
                    tuple(str(one) for one in _list(item.get("unless"))), str(item.get("because") or ""),
                    item.get("library") is True)


def _tie(item: dict[str, Any]) -> Tie:
    return Tie(tuple(str(one) for one in _list(item.get("names"))),
               tuple(str(one) for one in _list(item.get("unless"))), str(item.get("because") or ""),
               item.get("foreign") is True)


def _other_cause(item: dict[str, Any]) -> OtherCause:
    return OtherCause(str(item["releases"]), str(item.get("note") or ""), _text(item.get("message")),
                      tuple(str(text) for text in _list(item.get("messages")) if text), item.get("same_frames") is True)


_NAMES_A_RELEASE = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.]*\()")


def names_releases(text: str) -> bool:
    """Whether a replacement's text says its own releases ("`get_max_cache_shape()` (4.46 – 5.19); `get_max_length()`
    again from 5.13"), outside its code: then a "since" after it reads as its last clause's."""
    return bool(_NAMES_A_RELEASE.search(re.sub(r"`[^`]*`", "", text)))


def since_words(replacement: str, since: str | None) -> str:
    """" (since X)" after a replacement's text, or nothing where the text says its own releases (the one rule the
    page, `errorkb lookup`, `show` and the hook follow: "again from 5.13 (since 4.46.3)" contradicted itself)."""
    return f" (since {since})" if since and not names_releases(replacement) else ""

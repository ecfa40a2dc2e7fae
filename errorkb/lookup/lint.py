"""An entry's diagnosis held to its own verified before: the traceback the verifier captured
when the before raised the documented error (reports/latest.json) must be answered with the
entry, confirmed, by the very declarations the entry makes.

So a declaration that would rule out the entry's own case (a typed placeholder its message does
not fit, a relation its values break, a release range, an excluded frame, a raising frame
elsewhere) or that could never confirm it (frames its traceback does not show) is reported where
the entry is written, by `errorkb check`, instead of silently turning real reports away. So is
an other cause (`diagnosis.other_causes`) whose range holds the release the before was verified on:
the entry's own case would then read as the other cause's, at the other cause's `releases` line. And a
`ties` declaration (values that confirm the entry on their own) must tie the before's own value, and no
glob of it may fit every class the library defines (it would confirm the entry on any class a message names). A wording
that is only the first line of a message its own before printed over several is a header, not the message (`_header`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from errorkb.lookup import _rules as rules
from errorkb.lookup._index import Index, library_class_names
from errorkb.lookup._match import Match, fits_wording, name_matches
from errorkb.lookup._release import INSTALLED, contains, plain


@dataclass(frozen=True)
class Case:
    """One entry's verified before: the release it ran on and its captured traceback (which ends
    with the exception line, as Python printed it)."""

    entry: str
    release: str | None
    text: str
    passed: bool = True  # False: the before raised the error, with another message (held only to `_header`)


class Finding(NamedTuple):
    """A declaration its own verified before contradicts: the entry, what is wrong, and the key of
    the entry's YAML it lies at (`diagnosis`, or the other cause whose range is at fault)."""

    entry: str
    message: str
    key: tuple[str | int, ...] = ("diagnosis",)


def check(index: Index, cases: Iterable[Case], classes: Collection[str] | None = None) -> list[Finding]:
    """A finding for each case its own entry's declarations do not confirm, for each other cause
    whose range holds the release the case was verified on (the entry's own case would be ambiguous),
    and for each `ties` glob every one of `classes` fits (default: the installed library's classes)."""
    lookup = index.lookup()
    problems = broad_ties(index, classes)
    for case in cases:
        if case.entry not in index.items:
            continue
        if not case.passed:  # the verifier found the message differs: a header the lookup confirms is still one
            found = lookup.answer(case.text, case.release, INSTALLED).matches
            own = next((one for one in found if one.known.id == case.entry), None)
            problems += _header(case, own, f"its own before (at {case.release or 'an unknown release'})") if own else []
            continue
        where = f"its own verified before (at {case.release or 'an unknown release'})"
        release = plain(case.release)
        entry = next((one for one in lookup.known if one.id == case.entry), None)
        causes = entry.diagnosis.other_causes if entry is not None and release else ()
        ambiguous = [Finding(case.entry, f"other_causes[{number}].releases ({cause.releases}) holds "
                                         f"{release}, the release of {where}: the entry's own case would read as "
                                         "the other cause; narrow the other cause's range",
                             ("diagnosis", "other_causes", number, "releases"))
                     for number, cause in enumerate(causes) if release and contains(cause.releases, release)]
        if ambiguous:
            problems += ambiguous
            continue
        answer = lookup.answer(case.text, case.release, INSTALLED)
        ruled = next((one for one in answer.ruled_out if one.match.known.id == case.entry), None)
        own = next((one for one in answer.matches if one.known.id == case.entry), None)
        if ruled is not None and own is None:
            problems.append(Finding(case.entry, f"the diagnosis rules out {where}: {ruled.reason}"))
        elif own is None:
            problems.append(Finding(case.entry, f"no wording of the entry matches {where}'s message"))
        elif own.known.diagnosis.frames and not any(e.kind == rules.FRAME_EVIDENCE for e in own.evidence):
            named = ", ".join(f"{rule.file}{f' ({rule.function})' if rule.function else ''}"
                              for rule in own.known.diagnosis.frames)
            problems.append(Finding(case.entry,
                                    f"no frame of {where}'s traceback is one the diagnosis names ({named})"))
        elif any(rule.ties for rule in own.known.diagnosis.placeholders.values()) and \
                not any(e.kind == rules.VALUE for e in own.evidence):
            named = ", ".join(f"{{{name}}}" for name, rule in own.known.diagnosis.placeholders.items() if rule.ties)
            problems.append(Finding(case.entry, f"the value {where}'s message gives {named} is none the diagnosis's "
                                                "`ties` name: they would confirm what the verifier never saw"))
        elif not own.confirmed:
            problems.append(Finding(case.entry, f"{where} is only a candidate for it: {'; '.join(own.missing)}"))
        if own is not None:
            problems += _header(case, own, where)
    return problems


def _header(case: Case, own: Match, where: str) -> list[Finding]:
    """A finding at each wording of the entry that fits only the first lines of the message its own before printed over
    more (`1 validation error for {model}`, then the field and what is wrong with it): a header every error of the
    class prints, which would confirm any of them raised through the documented frames."""
    if own.at < 0:
        return []
    printed = [line for line in case.text[own.at:].rstrip(rules.WHITESPACE).split("\n") if line.strip()]
    name, colon, first = printed[0].partition(": ")
    if len(printed) < 2 or not colon or name.rsplit(".", 1)[-1] != own.known.exception.rsplit(".", 1)[-1]:
        return []
    message = [first, *printed[1:]]
    found = []
    for number, wording in enumerate(own.known.wordings):
        earlier = own.known.wordings[:number]
        if any(wording.message in (w.message, w.message.replace("`", ""), w.message[1:-1]) for w in earlier):
            continue  # a form a paste may show (`as_pasted`): its wording is checked as written
        key: tuple[str | int, ...] = ("message",) if not number else ("also_seen_as", number - 1, "message")
        kept = next((k for k in range(1, len(message)) if fits_wording("\n".join(message[:k]), wording.message)
                     is not None), None)
        if kept is not None:
            found.append(Finding(case.entry, f"the message of {where} is {len(message)} lines, this wording fits only "
                                             f"its first {kept} ({first!r}): a header every error of its class prints, "
                                             "which would confirm any of them; write the message whole (the lines "
                                             "that tell this error apart, their values as placeholders)", key))
    return found


def broad_ties(index: Index, classes: Collection[str] | None = None) -> list[Finding]:
    """A finding at each `ties` glob that every class the library defines fits: such a tie confirms the
    entry on the library's own classes as on any other, which is no evidence of the cause. Without a class
    list (the library is not installed) nothing is held."""
    tied = [(entry.id, name, number, at, glob)
            for entry in index.known for name, rule in entry.diagnosis.placeholders.items()
            for number, tie in enumerate(rule.ties) for at, glob in enumerate(tie.names)]
    if not tied:
        return []
    if classes is None:
        classes = library_class_names(index.library)
    if not classes:
        return []
    return [Finding(entry, f"ties[{number}].names[{at}] ({glob!r}) fits every class the library defines: it would "
                           "confirm the entry on any class the message names; write the shape only this cause's "
                           "values have, e.g. '*ForCausalLM' (with `foreign: true` for classes the library does "
                           "not define)",
                    ("diagnosis", "placeholders", name, "ties", number, "names", at))
            for entry, name, number, at, glob in tied if all(name_matches(one, glob) for one in classes)]

"""An entry's diagnosis held to its own verified before: the traceback the verifier captured
when the before raised the documented error (reports/latest.json) must be answered with the
entry, confirmed, by the very declarations the entry makes.

So a declaration that would rule out the entry's own case (a typed placeholder its message does
not fit, a relation its values break, a release range, an excluded frame, a raising frame
elsewhere) or that could never confirm it (frames its traceback does not show) is reported where
the entry is written, by `errorkb check`, instead of silently turning real reports away.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from errorkb.lookup import _rules as rules
from errorkb.lookup._index import Index
from errorkb.lookup._release import INSTALLED


@dataclass(frozen=True)
class Case:
    """One entry's verified before: the release it ran on and its captured traceback (which ends
    with the exception line, as Python printed it)."""

    entry: str
    release: str | None
    text: str


def check(index: Index, cases: Iterable[Case]) -> list[tuple[str, str]]:
    """(entry id, problem) for each case its own entry's declarations do not confirm."""
    lookup = index.lookup()
    problems = []
    for case in cases:
        if case.entry not in index.items:
            continue
        answer = lookup.answer(case.text, case.release, INSTALLED)
        where = f"its own verified before (at {case.release or 'an unknown release'})"
        ruled = next((one for one in answer.ruled_out if one.match.known.id == case.entry), None)
        own = next((one for one in answer.matches if one.known.id == case.entry), None)
        if ruled is not None and own is None:
            problems.append((case.entry, f"the diagnosis rules out {where}: {ruled.reason}"))
        elif own is None:
            problems.append((case.entry, f"no wording of the entry matches {where}'s message"))
        elif own.known.diagnosis.frames and not any(e.kind == rules.FRAME_EVIDENCE for e in own.evidence):
            named = ", ".join(f"{rule.file}{f' ({rule.function})' if rule.function else ''}"
                              for rule in own.known.diagnosis.frames)
            problems.append((case.entry, f"no frame of {where}'s traceback is one the diagnosis names ({named})"))
        elif not own.confirmed:
            problems.append((case.entry, f"{where} is only a candidate for it: {'; '.join(own.missing)}"))
    return problems

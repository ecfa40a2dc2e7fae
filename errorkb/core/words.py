"""A release range in a reader's words: one owner for every place one is said to a person (the pages, the
picture's words for screen readers, the verifier's "not applicable" reason that every badge shows). It lives
below the site and the verifier because both say it, and the verifier may not import the site."""

from __future__ import annotations

import re

__all__ = ["release_words"]

_BOUND = re.compile(r"(>=|<=|<|==)\s*(\d+(?:\.\d+)*)(\.\*)?")


def release_words(specifier: str) -> str:
    """A release range (`errorkb.core.releases`, a PEP 440 specifier set, parts joined by `||`) in a reader's words:
    ">=4.49,<5.13" → "4.49 – 5.12", "<4.42 || >=4.54" → "4.41 and earlier, 4.54 and later", ">=4.46,<4.47" → "4.46".
    An upper bound `<M.m` (m > 0) is the minor before it; any other upper bound says "before" or "up to, not
    including". A part with no plain words (`!=`, `~=`, `>`) leaves the whole range as written: never guessed at."""
    parts = [_part_words(part.strip()) for part in specifier.split("||")]
    return ", ".join(parts) if all(parts) else specifier


def _part_words(part: str) -> str:
    low: str | None = None
    high: tuple[str, bool] | None = None  # (release, inclusive)
    for one in (piece.strip() for piece in part.split(",")):
        found = _BOUND.fullmatch(one)
        if not found:
            return ""
        op, release, star = found.groups()
        if op == "==":
            if low or high:
                return ""
            return release
        if star:
            return ""
        if op == ">=" and low is None:
            low = release
        elif op in ("<", "<=") and high is None:
            high = (release, op == "<=") if op == "<=" else _before(release)
        else:
            return ""
    if low and high:
        if high[1] and high[0] == low:  # one minor (">=4.46,<4.47") or one release: said once
            return low
        return f"{low} – {high[0]}" if high[1] else f"{low} up to, not including, {high[0]}"
    if low:
        return f"{low} and later"
    if high:
        return f"{high[0]} and earlier" if high[1] else f"before {high[0]}"
    return ""


def _before(release: str) -> tuple[str, bool]:
    """`<release` as an inclusive bound where a reader can say it ("<5.13" → 5.12), else the bound itself."""
    numbers = release.split(".")
    if len(numbers) in (2, 3) and numbers[1] != "0" and numbers[2:] in ([], ["0"]):
        return f"{numbers[0]}.{int(numbers[1]) - 1}", True
    return release, False

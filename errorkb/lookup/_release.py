"""The release a paste came from, and what it means for a matched wording.

A release is *stated* (`--release`, or named in the paste: `<library>==4.41.2`), *installed*
(the hook knows it), or read from the paste's *frames* (the version matrix's raise line per
release: a frame `.../<package>/<file>.py", line 1471` narrows the release to those whose raise
line is 1471). It is checked against the matched **wording's** range (its `releases`, else the
entry's `raises`): a wording that only some releases print says nothing about the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errorkb.lookup import _rules as rules
from errorkb.lookup._known import Known, Releases, Wording
from errorkb.lookup._paste import Frame, installed_at, strip

_PLAIN_RELEASE = rules.compiled(rules.PLAIN_RELEASE)
_CLAUSE = rules.compiled(rules.CLAUSE)

STATED, INSTALLED, FRAMES = "stated", "installed", "frames"


@dataclass(frozen=True)
class Verdict:
    """What the release a paste came from means for the matched wording."""

    releases: tuple[str, ...]  # the release known, or those the paste's frames point to
    given: bool  # stated or installed, not read from the paste's frames
    raises: bool | None  # every one of them prints the wording; False: none does; None: unknown
    advice: str  # what to do on it, one sentence ("" when nothing is known)
    source: str = STATED  # STATED, INSTALLED or FRAMES
    range: str | None = None  # the range it was checked against


def wording_range(known: Known, wording: Wording) -> str | None:
    """The releases that print this wording: its own range; the entry's own message (and its
    variants as pasted) defaults to the entry's `raises`, another wording without one to any."""
    if wording.releases:
        return wording.releases
    return known.releases.raises if wording.main else None


def releases_in_paste(known: Known, found: list[Frame]) -> tuple[str, ...]:
    """The releases whose raise line, in the entry's source file (as installed), is the line the paste's
    innermost frame in that file shows (where the error was raised): `.../site-packages/<package>/<file>.py",
    line 1471`. An outer frame of the file (a caller in it) is at a line of its own, which some release's raise
    line may equal by chance. Only a frame of the installed package (`installed_at`): another package's copy
    of the file has lines of its own."""
    if not known.lines_path or not known.lines:
        return ()
    installed = known.lines_path
    raising = next((frame for frame in reversed(found) if frame.path.endswith("/" + installed)
                    and installed_at(frame.path, len(frame.path) - len(installed))), None)
    return tuple(release for release, line in known.lines if raising is not None and line == raising.line)


def contradicted(known: Known, wording: Wording, releases: tuple[str, ...],
                 found: list[Frame]) -> tuple[str, int, int] | None:
    """A stated release that the raising frame contradicts: the last frame shown is in the entry's source file as
    installed (where the error was raised, for a whole traceback), and every release in the stated releases'
    minor series that the raise lines cover raises the entry's own wording at one line, which no frame of that
    file shows (a frame at it is the documented raise on the stack, the error raised deeper in the same file).
    The first such release, the frame's line and the series' line; None when any release is not contradicted so."""
    if not wording.main or not known.lines_path or not known.lines or not releases or not found:
        return None
    installed, last = known.lines_path, found[-1]
    def inside(frame: Frame) -> bool:
        return frame.path.endswith("/" + installed) and installed_at(frame.path, len(frame.path) - len(installed))

    if not inside(last):
        return None
    in_file = {frame.line for frame in found if inside(frame)}
    first = None
    for release in releases:
        number = plain(release)
        series = number.split(".")[:2] if number is not None else None
        lines = {line for one, line in known.lines if one.split(".")[:2] == series}
        if len(lines) != 1 or lines & in_file:
            return None
        first = first or (release, last.line, lines.pop())
    return first


def verdict(known: Known, wording: Wording, releases: tuple[str, ...], source: str,
            library: str = "the library") -> Verdict:
    """Whether `releases` print the matched wording, and what to do on them."""
    facts, claim = known.releases, wording_range(known, wording)
    given = source != FRAMES
    where = describe(releases)
    inside = [contains(claim, r) for r in releases] if claim is not None else [None]
    if None in inside:
        return Verdict(releases, given, None, "", source, claim)
    if not any(inside):
        return Verdict(releases, given, False, f"{library} {where} does not raise it as documented (this wording "
                                               f"comes from {claim}): the error comes from other code or another "
                                               "release.", source, claim)
    if not all(inside):
        return Verdict(releases, given, None, f"Of {library} {where}, only some raise it ({claim}).", source, claim)
    return Verdict(releases, given, True, advice(facts, releases, known.diagnosis.direction), source, claim)


def advice(facts: Releases, releases: tuple[str, ...], direction: str | None = None) -> str:
    """What to do on releases that raise the error: the replacement, an upgrade or a downgrade.
    Code written for a *newer* release than the installed one needs an upgrade, never a pin to an
    older release."""
    back = f" or downgrade to {facts.last_good}, the last release where the old code ran" \
        if facts.last_good and direction != "newer-code" else ""
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
    (==, !=, <, <=, >, >=, ~=, `==X.*`, comma = and; parts joined by `||`: any part); None when
    either is not understood. `packaging` decides; the parity test holds the JS to it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    if "||" in specifier:
        parts = [contains(part, release) for part in specifier.split("||")]
        return True if True in parts else None if None in parts else False
    if not _PLAIN_RELEASE.fullmatch(release):
        return None
    for clause in specifier.split(","):
        if strip(clause) and not _CLAUSE.fullmatch(strip(clause)):
            return None
    try:
        return SpecifierSet(specifier).contains(Version(release), prereleases=True)
    except InvalidSpecifier:
        return None


def plain(release: str | None) -> str | None:
    """A release as `contains` reads it: `4.49.0.dev0` and `5.0.0rc1` are read as their final
    release numbers (a development build holds most of its release's code); else None."""
    if release is None:
        return None
    found = re.match(r"^v?([0-9]+(?:\.[0-9]+)*)", strip(release))
    return found.group(1) if found else None

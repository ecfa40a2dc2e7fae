"""Release ranges: which releases of the library an entry's statement is about.

A range is a PEP 440 specifier set (`>=4.49,<5.0`), or several joined by `||` when the releases
are not contiguous (`>=4.36,<4.54 || >=4.56,<5.0`): a release is in the range when any part
contains it. A pre-release in the range counts (a user may have installed one); the version matrix
runs final releases only and refuses any other it is given.

Only plain comparisons of a release number (`<`, `<=`, `>`, `>=`, `==`, `!=`, `~=`, and `==4.49.*`):
PEP 440's arbitrary equality (`===` followed by any text up to a space) would let a range carry
markup (`===<svg/onload=...>`) onto every page, tool and engine that shows it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

# packaging (its import compiles the PEP 440 patterns: ~10 ms) is imported where a range is first read,
# not with this module: a knowledge base whose profile and entries state no range never needs it.

SEPARATOR = "||"
_PLAIN = re.compile(r"\s*(?:~=|==|!=|<=|>=|<|>)\s*\d+(?:\.\d+)*(?:[a-z]+\d*)?(?:\.\*)?\s*")


@lru_cache(maxsize=512)
def _parts(text: str) -> tuple[SpecifierSet, ...]:
    from packaging.specifiers import SpecifierSet

    return tuple(SpecifierSet(part.strip()) for part in text.split(SEPARATOR))


def check_range(text: str) -> str:
    """`text` when it is a valid range; ValueError with a readable message otherwise."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    parts = [part.strip() for part in text.split(SEPARATOR)]
    if not all(parts):
        raise ValueError(f"{text!r}: an empty part around '||'")
    for part in parts:
        try:
            if not all(_PLAIN.fullmatch(one) for one in part.split(",")):
                raise InvalidSpecifier(part)
            SpecifierSet(part)
        except InvalidSpecifier:
            raise ValueError(f"{part!r} is not a release range like '>=4.49,<5.0' (plain comparisons "
                             "of release numbers, joined by ',' and '||')") from None
    return " || ".join(parts)


def contains(text: str, release: str) -> bool:
    """Whether `release` lies in the range `text`."""
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(release)
    except InvalidVersion:
        return False
    return any(part.contains(version, prereleases=True) for part in _parts(text))


ReleaseRange = Annotated[str, AfterValidator(check_range)]


def final_release(text: str) -> str:
    """`text` when it names a final release (`5.0.0`, not `5.0.0rc1` nor `5.0.0.dev1`); ValueError saying why
    otherwise. The version matrix runs, orders and shows final releases only: another one it was asked for was
    dropped without a word, and the run said it had no releases, or ran fewer than asked."""
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(text)
    except InvalidVersion:
        raise ValueError(f"{text!r} is not a release number; name a final release such as 4.49.0") from None
    if version.is_prerelease:
        raise ValueError(f"{text!r} is a pre-release, which the version matrix does not run or show; name a final "
                         f"release (such as {version.base_version})")
    return text


"""Release ranges: which releases of the library an entry's statement is about.

A range is a PEP 440 specifier set (`>=4.49,<5.0`), or several joined by `||` when the releases
are not contiguous (`>=4.36,<4.54 || >=4.56,<5.0`): a release is in the range when any part
contains it. Pre-releases count (a matrix may run a release candidate).

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

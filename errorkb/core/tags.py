"""A release's tag in the library's repository, from the profile's `tag` format: the one owner of what the format
may say (the profile checks it at load, `init` before writing it) and of the tag it forms (every source link).

Most repositories name a tag after the release (`v1.2.0`, `1.2.0`: `{release}`); some after part of it, as protobuf's
Python distribution 7.36.2 is tagged `v36.2` upstream (`v{minor}.{micro}`), which `{release}` alone cannot write.
"""

from __future__ import annotations

import re
from string import Formatter

FIELDS = ("release", "major", "minor", "micro")
_NUMBERS = re.compile(r"\d+(?:\.\d+)*")


def check_format(value: str) -> str:
    """`value` if it is a tag format errorkb can fill, else a ValueError saying what is wrong and what to write."""
    if not value or any(character.isspace() for character in value):
        raise ValueError(f"tag {value!r} must be one word (no blank), e.g. 'v{{release}}'")
    try:
        parts = list(Formatter().parse(value))
    except ValueError as error:
        raise ValueError(f"tag {value!r} is not a format errorkb can fill ({error}): write a field as "
                         "{release}, a brace nowhere else") from None
    fields = []
    for literal, name, spec, conversion in parts:
        if "{" in literal or "}" in literal:
            raise ValueError(f"tag {value!r}: a brace may only open or close a field ({{release}}), a tag holds none")
        if name is None:
            continue
        if name not in FIELDS:
            raise ValueError(f"tag {value!r}: unknown field {{{name}}}; a tag is formed from "
                             + ", ".join(f"{{{one}}}" for one in FIELDS)
                             + " (the release 7.36.2: 7, 36, 2), e.g. 'v{release}' or 'v{minor}.{micro}'")
        if spec or conversion:
            raise ValueError(f"tag {value!r}: the field {{{name}}} is written bare (no '!' or ':' after its name)")
        fields.append(name)
    if "release" not in fields and not {"minor", "micro"} <= set(fields):
        raise ValueError(f"tag {value!r} must name the release: {{release}}, or at least {{minor}} and {{micro}} "
                         "(a tag without them would be the same for several releases)")
    return value


def tag_of(value: str, release: str) -> str:
    """The tag `value` forms for `release`: `{release}` is the release as written; `{major}`, `{minor}` and `{micro}`
    its first three numbers, 0 where it has fewer (as packaging reads 1.2 as 1.2.0). Known limit: they leave a
    pre-release's suffix out (5.26.0rc1 forms the final's tag), so such a pin names its `commit`."""
    leading = _NUMBERS.match(release)
    numbers = [*(leading.group(0).split(".") if leading else []), "0", "0", "0"]
    major, minor, micro = (str(int(number)) for number in numbers[:3])
    return value.format(release=release, major=major, minor=minor, micro=micro)

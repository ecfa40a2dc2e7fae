"""benchmarks/check_phases.py times a check's stages by wrapping the verifier's functions by name from outside: a stage
renamed or moved must fail here, not leave a stand-in interpreter that breaks (or times nothing) when someone runs it."""

from __future__ import annotations

import re

from benchmarks.check_phases import STAND_IN


def test_every_stage_check_phases_wraps_exists():
    from errorkb.verify.inside import child, observer

    owners = {"child": child, "observer": observer}
    wrapped = re.findall(r'^wrap\((\w+), "(\w+)", "[^"]+"\)$', STAND_IN, re.MULTILINE)
    assert len(wrapped) >= 6, wrapped
    for owner, name in wrapped:
        assert callable(getattr(owners[owner], name, None)), f"{owner}.{name}"

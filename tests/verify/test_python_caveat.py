"""A verify run on a CPython the observer's own tests were not proven on says so, before any check."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("version", "warned"), [((3, 11, 7), False), ((3, 12, 3), True), ((3, 13, 0), True)])
def test_a_run_on_a_python_the_observer_is_not_proven_on_says_so(version, warned):
    """Seen on the GPU machine (CPython 3.12): six of the observer's own tests fail there."""
    from errorkb.verify.modes import python_caveat

    caveat = python_caveat(version)
    assert (caveat is not None) == warned
    if caveat:
        assert f"this is {version[0]}.{version[1]}" in caveat and "proven on CPython 3.11 only" in caveat

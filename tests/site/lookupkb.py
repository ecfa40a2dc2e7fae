"""The knowledge base's matcher for the diagnosis tests, built once per module that binds the fixture, and the
answer they compare: one definition, bound by name in each module (`kb = lookupkb.kb`). Not in a conftest: a
fixture named `kb` there would shadow the other `kb` fixtures of tests/site."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import Lookup


@pytest.fixture(scope="module")
def kb() -> Lookup:
    return project_known_lookup()


def answer(kb: Lookup, text: str, release: str | None = None) -> tuple[list[str], list[str]]:
    """The confirmed entries of a paste, best first, and its candidates, sorted."""
    found = kb.answer(text, release)
    return [m.known.id for m in found.confirmed], sorted(m.known.id for m in found.candidates)

"""The knowledge base's matcher for the diagnosis tests, built once per module that binds the fixture, and the
answer they compare: one definition, bound by name in each module (`kb = lookupkb.kb`). Not in a conftest: a
fixture named `kb` there would shadow the other `kb` fixtures of tests/site. Also the pastes the attack rounds
build on (a removed-API error, an error in `Cache.update`), one copy for every round."""

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


TB = "Traceback (most recent call last):"
KEY = "key-cache-removed"
K = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'"
IDX = "layer-idx-out-of-range"
SITE = "/venv/lib/python3.10/site-packages"
UPDATE_LINE = "self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)"
IE = "IndexError: list index out of range"


def traceback(path: str, function: str, line: str, exception: str) -> str:
    """A one-frame traceback of `exception` raised at `line` of `function` in `path`."""
    return "\n".join([TB, f'  File "{path}", line 120, in {function}', f"    {line}", exception])


def in_update(exception: str) -> str:
    """`exception` raised in the installed library's `Cache.update`."""
    return traceback(f"{SITE}/transformers/cache_utils.py", "update", UPDATE_LINE, exception)

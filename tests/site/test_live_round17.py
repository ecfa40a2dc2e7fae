"""Live authoring, round seventeen: an entry saved half-written under `mkdocs serve`.

Editors save by truncating the file and writing it again, and snippets are saved the same way: a rebuild that
reads between the two writes sees an empty file, or YAML cut anywhere (inside a block scalar too). Its page shows
the problems; every other page of the last good build keeps working; the JSON API and the lookup's index never
carry an entry read half (neither its old nor a half-read new text claims to be the file); and once the save
completes, the next rebuild publishes what a build from scratch publishes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.site.test_live import IDS, UNRELATED, kb, scratch_tree, serving, tree  # noqa: F401  (fixtures)

CHANGED = IDS[0]


def _entry(root: Path) -> Path:
    return root / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"


def _api(served: Path) -> tuple[dict | None, dict]:
    one = served / "api" / "errors" / f"{CHANGED}.json"
    index = json.loads((served / "api" / "errors" / "index.json").read_text())
    return (json.loads(one.read_text()) if one.exists() else None), index


def _index_ids(index: dict) -> set[str]:
    rows = index.get("errors") or index.get("entries") or []
    return {row["id"] for row in rows if isinstance(row, dict) and "id" in row}


def _cut(good: str) -> list[tuple[str, str]]:
    """The half-written texts a rebuild can read: nothing, and the file cut inside each block scalar."""
    cuts = [("empty", "")]
    for key in ("meaning: |", "solutions:"):
        at = good.index(key)
        cuts.append((f"inside {key}", good[: at + len(key) + 30]))
    return cuts


@pytest.mark.parametrize("which", [0, 1, 2], ids=["empty", "cut-in-meaning", "cut-in-solutions"])
def test_an_entry_read_half_written_is_shown_broken_and_ships_in_no_json(kb, tmp_path, serving, which):  # noqa: F811
    served = tmp_path / "served"
    serving(kb, served, "serve")
    path = _entry(kb)
    good = path.read_text()
    name, half = _cut(good)[which]
    path.write_text(half)
    serving(kb, served)
    page = (served / "errors" / "transformers" / CHANGED / "index.html").read_text()
    assert "This entry does not load" in page, name
    assert "What it means" in (served / "errors" / "transformers" / UNRELATED / "index.html").read_text()
    one, index = _api(served)
    assert one is None, (name, "the JSON of an entry read half-written")
    assert CHANGED not in _index_ids(index), name
    path.write_text(good)
    serving(kb, served)
    assert tree(served) == scratch_tree(kb, tmp_path / "fresh", serving)


@pytest.mark.parametrize("cut", ["empty", "half"])
def test_a_snippet_read_half_written_is_never_shown_verified(kb, tmp_path, serving, cut):  # noqa: F811
    """The snippet a rebuild read between the editor's two writes: its page and its JSON show the bytes read, and
    every badge and record of the checks that ran other bytes is stale, never "verified" beside code it never ran."""
    served = tmp_path / "served"
    serving(kb, served, "serve")
    one, _ = _api(served)
    assert one is not None and any(record["role"] == "after" and record["outcome"] == "pass" and not record["stale"]
                                   for record in one["verification"]), one["verification"]
    path = kb / "snippets" / CHANGED / "after.py"
    good = path.read_text()
    path.write_text("" if cut == "empty" else good[: len(good) // 2])
    serving(kb, served)
    one, _ = _api(served)
    assert one is not None
    assert not any(badge["outcome"] == "pass" and not badge["stale"] for badge in one["badges"]), one["badges"]
    after = [record for record in one["verification"] if record["role"] == "after"]
    assert after and all(record["stale"] for record in after), one["verification"]
    path.write_text(good)
    serving(kb, served)
    assert tree(served) == scratch_tree(kb, tmp_path / "fresh", serving)

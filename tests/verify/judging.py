"""What the `test_judge_*` files share: an entry's prose and guard (the judge never reads them) and a
before's check built from an entry's head, so each file writes only what its cases are about."""

from __future__ import annotations

from pathlib import Path

import yaml

from errorkb.core.entry import Entry
from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.plan import Check

ENTRY_PROSE = """\
meaning: What it means.
trigger: When it happens.
situations: [A situation.]
solutions: [{title: A solution}]
prevention: [A prevention.]
guards:
  - {title: A guard, strategy: fallback, file: guard.py, expect: {outcome: passes}}
"""


def before_check(tmp_path: Path, head: str, code: str, target: str = "bundled", release: str = "5.15.1") -> Check:
    """The check of a before holding `code`, for the entry whose fields up to its prose are `head`."""
    snippet = tmp_path / "before.py"
    snippet.write_text(code)
    entry = Entry.model_validate(yaml.safe_load(head + ENTRY_PROSE))
    return Check(entry, read_snippet(snippet, Role("before"), "before.py"), target, "cpu",
                 "transformers.cache_utils", release=release)

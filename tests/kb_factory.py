"""Build small knowledge-base projects in a temporary folder, for tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

VALID_ENTRY = """\
id: {id}
title: A documented error
library: huggingface/transformers
exception: ValueError
message: "`head_dim` was provided as a list of length {{len(num_heads)}}, but the Cache currently has {{len(self.layers)}} layers"
tags: [early-initialization]
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1471
  function: Cache.early_initialization
meaning: What it means.
trigger: When it happens.
situations:
  - A situation.
solutions:
  - title: A solution
prevention:
  - A prevention.
guards:
  - title: A guard
    strategy: validation
    file: guard.py
    expect:
      outcome: passes
related: []
"""

BEFORE = """\
import torch
from transformers import DynamicCache, LlamaConfig

cache = DynamicCache(config=LlamaConfig(num_hidden_layers=12))
cache.early_initialization(2, num_heads=8, head_dim=[128, 128], dtype=torch.float32, device="cpu")
"""

AFTER = """\
import torch
from transformers import DynamicCache, LlamaConfig

cache = DynamicCache(config=LlamaConfig(num_hidden_layers=12))
cache.early_initialization(2, num_heads=8, head_dim=128, dtype=torch.float32, device="cpu")
"""


# The transformers knowledge base's library profile, as pyproject.toml states it.
PROFILE = """\
[tool.errorkb.library]
name = "transformers"
repository = "huggingface/transformers"
source_root = "src"
bundled = "errorkb.kvcache"
backends = ["optimum.quanto"]
follow = ["src/transformers/cache_utils.py"]
release = "5.15.1"
commit = "a597f974857b3d92939971296bc0deb93d33d780"
runtime = "torch"
"""


def make_project(root: Path, entries: dict[str, str] | None = None,
                 snippets: dict[str, dict[str, str]] | None = None) -> Path:
    """A project at `root`: `entries` maps file names (under docs/errors/transformers/) to YAML,
    `snippets` maps entry ids to {file name: code}. Defaults: one valid entry, 'demo-error'."""
    (root / "pyproject.toml").write_text("[tool.errorkb]\ntimeout = 60\n\n" + PROFILE, encoding="utf-8")
    if entries is None:
        entries = {"demo-error.yml": VALID_ENTRY.format(id="demo-error")}
    if snippets is None:
        snippets = {Path(name).stem: {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER} for name in entries}
    folder = root / "docs" / "errors" / "transformers"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in entries.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    for entry_id, files in snippets.items():
        (root / "snippets" / entry_id).mkdir(parents=True, exist_ok=True)
        for name, code in files.items():
            (root / "snippets" / entry_id / name).write_text(code, encoding="utf-8")
    return root


def copy_entries(root: Path, source_root: Path, ids: list[str]) -> Path:
    """A project at `root` holding only the entries `ids` of `source_root` (with their snippets);
    `related` links to entries left behind are dropped, so the copy loads cleanly."""
    import re
    import shutil

    folder = root / "docs" / "errors" / "transformers"
    folder.mkdir(parents=True, exist_ok=True)
    for entry_id in ids:
        text = (source_root / "docs" / "errors" / "transformers" / f"{entry_id}.yml").read_text(encoding="utf-8")
        block = re.search(r"^related:\n((?:  - .*\n)*)", text, re.MULTILINE)
        if block:
            kept = [line for line in block.group(1).splitlines(keepends=True) if line[4:].strip() in ids]
            text = text[:block.start()] + ("related:\n" + "".join(kept) if kept else "related: []\n") + text[block.end():]
        (folder / f"{entry_id}.yml").write_text(text, encoding="utf-8")
        shutil.copytree(source_root / "snippets" / entry_id, root / "snippets" / entry_id)
    if not (root / "pyproject.toml").exists():
        (root / "pyproject.toml").write_text("[tool.errorkb]\n\n" + PROFILE, encoding="utf-8")
    return root

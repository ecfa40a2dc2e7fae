"""The one knowledge-base builder of the test suite: small projects in a temporary folder.

- `make_project`: a project written from scratch (entry YAML and snippet code given as text);
- `copy_kb`: a project holding some entries of a real knowledge base (the repository's, or a
  fixture's), `related` links to entries left behind dropped so the copy loads cleanly; with
  `site=True`, also the site's configuration, so that `mkdocs build` runs on it;
- (in tests/conftest.py, the fixtures `kb`, the repository's knowledge base loaded, and
  `kb_report`, it verified once per test session.)
"""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def importable(monkeypatch, *folders: Path) -> None:
    """`folders` first on this process's import path and on PYTHONPATH (so a check's process finds
    them too), in this order: how a test makes a fixture library (tinylib's upstream/, bundled/) installed."""
    paths = [str(folder) for folder in folders]
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("PYTHONPATH", ":".join(paths))

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
bundled = "transformers_errorkb.kvcache"
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


def copy_kb(root: Path, ids: list[str] | tuple[str, ...], *, source: Path = ROOT, settings: str | None = None,
            site: bool = False, site_url: str | None = None) -> Path:
    """A project at `root` with the entries `ids` of the knowledge base at `source` (and their
    snippets). `settings`: the `[tool.errorkb]` lines to use with the transformers profile
    (default: `source`'s own pyproject.toml). `site_url`: where the copy's site is, as its mkdocs.yml's
    `site_url` alone (the source's published address, `[tool.errorkb] site_url`, is left out)."""
    root.mkdir(parents=True, exist_ok=True)
    if settings is None:
        text = (source / "pyproject.toml").read_text(encoding="utf-8")
        if site_url:
            text = re.sub(r'(?m)^site_url = "[^"\n]*"\n', "", text)
        (root / "pyproject.toml").write_text(text, encoding="utf-8")
    else:
        (root / "pyproject.toml").write_text(f"[tool.errorkb]\n{settings}\n\n{PROFILE}", encoding="utf-8")
    for entry_id in ids:
        (found,) = (source / "docs" / "errors").glob(f"*/{entry_id}.yml")
        target = root / found.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_keep_related(found.read_text(encoding="utf-8"), ids), encoding="utf-8")
        shutil.copytree(source / "snippets" / entry_id, root / "snippets" / entry_id)
    (root / "reports").mkdir(exist_ok=True)
    if site:
        (root / "docs").mkdir(exist_ok=True)
        config = (source / "mkdocs.yml").read_text(encoding="utf-8")
        if site_url:
            config = re.sub(r"(?m)^site_url: .*$", f"site_url: {site_url}", config)
        (root / "mkdocs.yml").write_text(config, encoding="utf-8")
        shutil.copytree(source / "overrides", root / "overrides")
        for page in (source / "docs").glob("*.md"):
            shutil.copy(page, root / "docs" / page.name)
    return root


def _keep_related(text: str, ids) -> str:
    """The entry with `related` ids outside the copied set dropped (they would dangle)."""
    out, inside = [], False
    for line in text.splitlines():
        if re.match(r"^related:\s*$", line):
            inside = True
            out.append(line)
            continue
        item = re.match(r"^\s+-\s+(\S+)\s*$", line) if inside else None
        if item:
            if item.group(1) in ids:
                out.append(line)
            continue
        inside = False
        out.append(line)
    text = "\n".join(out) + "\n"
    return re.sub(r"(?m)^related:\s*\n(?!\s+-)", "related: []\n", text)


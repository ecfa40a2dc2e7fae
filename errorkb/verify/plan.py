"""Entries → checks. A check is one snippet of one entry, on one target and one device."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from errorkb.core.entry import Entry, GuardExpectation
from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project

DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class Check:
    entry: Entry
    role: str  # "before", "after" or "guard:<file stem>"
    snippet: Path
    target: str
    device: str

    @property
    def id(self) -> str:
        return f"{self.entry.id}::{self.role}[{self.target}-{self.device}]"

    @property
    def kind(self) -> str:
        return self.role.split(":")[0]

    @property
    def guard(self) -> GuardExpectation | None:
        if self.kind != "guard":
            return None
        return next(g.expect for g in self.entry.guards if f"guard:{g.file.removesuffix('.py')}" == self.role)

    def snippet_hash(self) -> str:
        return hashlib.sha256(self.snippet.read_bytes()).hexdigest()


def plan(loaded: list[LoadedEntry], project: Project, targets: list[str], devices: list[str],
         ids: list[str] | None = None) -> list[Check]:
    """Every check to run, in a stable order (entry, snippet, target, device)."""
    wanted = set(ids) if ids else None
    checks = []
    for one in sorted(loaded, key=lambda item: item.entry.id):
        if wanted is not None and one.entry.id not in wanted:
            continue
        for role, file in one.entry.snippet_files():
            for target in targets:
                for device in devices:
                    checks.append(Check(one.entry, role, project.snippet_path(one.entry.id, file), target, device))
    return checks


def parse_shard(text: str) -> tuple[int, int]:
    """`k/n` → (k, n) with 1 ≤ k ≤ n; ValueError with a readable message otherwise."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard takes k/n, e.g. 1/4; got {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: k must be between 1 and n")
    return k, n


def shard_of(check_id: str, n: int) -> int:
    """1-based shard of a check: a stable hash of its id, the same on every machine and run."""
    return int.from_bytes(hashlib.sha256(check_id.encode()).digest()[:8], "big") % n + 1


def select_shard(checks: list[Check], k: int, n: int) -> list[Check]:
    return [check for check in checks if shard_of(check.id, n) == k]


def transformers_imports(checks: list[Check]) -> list[str]:
    """`transformers` modules and names the snippets import, for a zygote to preload.

    `import transformers.x` → `transformers.x`; `from transformers.x import Y` →
    `transformers.x:Y` (an attribute, so an upstream lazy module resolves it once, up front).
    """
    import ast

    names: set[str] = set()
    for path in {check.snippet for check in checks}:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.split(".")[0] == "transformers")
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == "transformers":
                names.update(f"{node.module}:{a.name}" for a in node.names if a.name != "*")
    return sorted(names)

"""Entries → checks. A check is one snippet of one entry, on one target and one device."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from errorkb.entry import Entry, GuardExpectation
from errorkb.load import LoadedEntry
from errorkb.project import Project

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

"""Zygotes start in the sandbox while its probe runs (`engine.Verifier._choose`, `sandbox.candidate`):
the probe's verdict still decides. Where it fails, the zygotes started early are ended before any
check reaches them: "require" refuses, "auto" goes on without the sandbox in fresh zygotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from errorkb.core.project import load_project
from errorkb.verify import pool, sandbox
from errorkb.verify.engine import Verifier
from errorkb.verify.modes import SandboxUnavailable

ROOT = Path(__file__).resolve().parents[2]
KEY = ("upstream", "cpu", "transformers", "/usr/bin/python3")


class FakePool:
    """What `_choose` does with its pools: which sandbox, which zygotes started, whether ended."""

    def __init__(self, library: object, preload: object, chosen: sandbox.Sandbox | None):
        self.sandbox, self.warmed, self.closed = chosen, set(), False
        made.append(self)

    def warm(self, keys: set[tuple[str, str, str, str]]) -> None:
        self.warmed |= keys

    def close(self) -> None:
        self.closed = True


made: list[FakePool] = []


@pytest.fixture
def bwrap_here(monkeypatch):
    """bwrap found and, as root, a pids cgroup: the sandbox is a candidate; the probe is each test's."""
    made.clear()
    monkeypatch.setattr(pool, "WorkerPool", FakePool)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(sandbox, "task_groups", lambda: type("Groups", (), {"problem": lambda self: None})())


def verifier(mode: str) -> Verifier:
    return Verifier(load_project(ROOT), ["upstream"], sandbox=mode)


def test_a_failed_probe_under_require_ends_the_early_zygotes_and_refuses(bwrap_here, monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: "bwrap cannot create the sandbox here (made up)")
    with pytest.raises(SandboxUnavailable, match="made up"):
        verifier("require")._choose({KEY})
    assert len(made) == 1 and made[0].sandbox is not None and made[0].warmed == {KEY}  # started early, in it
    assert made[0].closed


def test_a_failed_probe_under_auto_goes_on_unsandboxed_in_fresh_zygotes(bwrap_here, monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: "bwrap cannot create the sandbox here (made up)")
    warnings: list[str] = []
    monkeypatch.setattr(sandbox, "_warn", warnings.append)
    chosen, used = verifier("auto")._choose({KEY})
    assert chosen is None and "WITHOUT a sandbox" in warnings[0]
    early, fresh = made
    assert early.sandbox is not None and early.closed  # the zygotes of the sandbox the probe failed: ended
    assert used is fresh and fresh.sandbox is None and fresh.warmed == {KEY} and not fresh.closed


def test_a_passed_probe_keeps_the_zygotes_that_started_in_that_very_sandbox(bwrap_here, monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: None)
    chosen, used = verifier("require")._choose({KEY})
    assert made == [used] and used.sandbox == chosen and chosen is not None and not used.closed


def test_without_zygotes_to_start_the_probe_comes_first(bwrap_here, monkeypatch):
    order: list[str] = []
    monkeypatch.setattr(sandbox, "probe", lambda: order.append("probe"))
    original = FakePool.__init__

    def recorded(self, *args: object) -> None:
        order.append("pool")
        original(self, *args)

    monkeypatch.setattr(FakePool, "__init__", recorded)
    verifier("require")._choose()
    assert order == ["probe", "pool"]

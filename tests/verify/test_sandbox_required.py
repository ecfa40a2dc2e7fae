"""Security tests never vanish silently: where the sandbox cannot be created, a test that needs it
skips, unless ERRORKB_SANDBOX=require (the full tier), where it fails and says what to install."""

from __future__ import annotations

import pytest

from errorkb.verify import sandbox
from tests.verify.verifykb import needs_sandbox


@pytest.fixture
def no_sandbox_here(monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: "bubblewrap is not installed (made up)")


def test_required_and_missing_fails_saying_what_to_install(no_sandbox_here, monkeypatch):
    monkeypatch.setenv("ERRORKB_SANDBOX", "require")
    with pytest.raises(pytest.fail.Exception) as failed:
        needs_sandbox()
    assert "bubblewrap is not installed (made up)" in str(failed.value)
    assert "apt-get install bubblewrap" in str(failed.value)
    with pytest.raises(pytest.fail.Exception):
        needs_sandbox(skip=False)  # a test that would otherwise go on unsandboxed fails too


def test_missing_without_the_requirement_skips_or_goes_on(no_sandbox_here, monkeypatch):
    monkeypatch.delenv("ERRORKB_SANDBOX", raising=False)
    with pytest.raises(pytest.skip.Exception, match="made up"):
        needs_sandbox()
    assert needs_sandbox(skip=False) is None


def test_a_working_sandbox_neither_skips_nor_fails(monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: None)
    monkeypatch.setenv("ERRORKB_SANDBOX", "require")
    assert needs_sandbox() is None


def test_every_test_module_that_needs_the_sandbox_asks_through_the_helper():
    """The sandbox tests and the adversarial suites go through `needs_sandbox`, not a skip of their own."""
    from pathlib import Path

    here = Path(__file__).parent
    for name in ("test_sandbox.py", "test_entry_modules.py", "test_stem.py", "adversarial.py", "verifykb.py"):
        text = (here / name).read_text(encoding="utf-8")
        assert "needs_sandbox(" in text, name
        assert "skipif(probe()" not in text and 'which("bwrap")' not in text, name


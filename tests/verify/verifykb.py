"""Shared fixtures for the verifier's tests: the broken knowledge base, verified once per session."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
import yaml

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.plugs import runtime_for
from errorkb.verify.engine import verify
from tests.kb import FIXTURES, copy_kb
from tests.lean import checks_in

FIXTURE = FIXTURES / "broken_kb"
TARGETS = ("bundled", "upstream")
UPSTREAM = importlib.util.find_spec("transformers") is not None
CUDA = runtime_for("torch").device_present("cuda")


INSTALL_SANDBOX = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; `bash scripts/setup.sh` does it "
                   "as root) and let it create user namespaces (docs/threat-model.md, 'Where the sandbox cannot be "
                   "created')")


def needs_sandbox(skip: bool = True) -> None:
    """For a test of the sandbox, or one whose verdicts must come from it: where the sandbox cannot
    be created here, fail when ERRORKB_SANDBOX=require (the full tier: a security test never vanishes
    silently), saying what to install; otherwise skip (`skip=False`: go on, unsandboxed, as `auto` does)."""
    from errorkb.verify import sandbox

    why = sandbox.probe()
    if why is None:
        return
    if os.environ.get("ERRORKB_SANDBOX") == "require":
        pytest.fail(f"ERRORKB_SANDBOX=require, and the sandbox cannot be created here: {why}. To run these tests, "
                    f"{INSTALL_SANDBOX}", pytrace=False)
    if skip:
        pytest.skip(f"the sandbox cannot be created here: {why} (ERRORKB_SANDBOX=require makes this a failure)")


def load_kb(root: Path):
    project = load_project(root)
    loaded = load_project_entries(project)
    assert loaded.problems == [], [str(p) for p in loaded.problems]
    return project, loaded.entries


def expectations() -> dict[str, dict[str, dict]]:
    """entry id → role → {"outcome", "reason" (regex)}: the fixture's answer key."""
    return yaml.safe_load((FIXTURE / "expected.yml").read_text(encoding="utf-8"))


def copy_fixture(destination: Path, ids: list[str], timeout: float = 6) -> Path:
    """A project with only some of the fixture's entries (and their snippets)."""
    return copy_kb(destination, ids, source=FIXTURE, settings=f"timeout = {timeout}")


@pytest.fixture(scope="session")
def broken_kb():
    return load_kb(FIXTURE)


# broken_report's wall-clock backstop: after-hangs sleeps until it, and the fixture's 6 s of CPU time
# give 36 s by default. Every other check of the fixture took at most 1.2 s of wall time from the warm
# zygote (measured at load 5-6 on this 2-core machine), so 20 s leaves a busy machine a wide margin.
BACKSTOP_S = 20.0


@pytest.fixture(scope="session")
def broken_report(broken_kb, lean_python):
    """Every check of the fixture, both targets, cpu and cuda, through the warm pool, no cache; in
    the sandbox wherever it can be created (and only there when ERRORKB_SANDBOX=require); in the lean
    interpreter (tests/lean.py: no entry of the fixture uses hqq).

    Four jobs on two cores: after-hangs' two checks sleep until the backstop, and with two jobs they
    held both while the fixture's other 320 checks waited behind them."""
    needs_sandbox(skip=False)
    project, entries = broken_kb
    with checks_in(lean_python):
        return verify(project, entries, targets=list(TARGETS), devices=["cpu", "cuda"], jobs=4, wall_s=BACKSTOP_S)


@pytest.fixture(scope="session")
def records(broken_report) -> dict[str, dict]:
    return {record.id: record for record in broken_report.checks}


def allowing(entry: str, *snippets: str, modules: tuple[str, ...] = ("transformers", "torch")) -> str:
    """The entry's YAML with an allowance for every primitive the snippets use: for tests of the judge's
    runtime rules, which a snippet without allowances never reaches (the allow-list fails it first)."""
    from errorkb.core.lint import lint_source

    found = sorted({finding.primitive for text in snippets for finding in lint_source(text, None, modules)})
    if not found:
        return entry
    lines = "".join(f"  - {{primitive: {name}, reason: a test of the judge's runtime rules}}\n" for name in found)
    return entry.rstrip("\n") + "\nallow:\n" + lines


# -- a small fixture library's knowledge base, verified end to end through the CLI -------------------------------

def library_kb(name: str, tmp_path: Path, monkeypatch) -> Path:
    """A copy of tests/fixtures/<name>_kb, its upstream package "installed" (on the path here and in every
    check's process): a library shaped like a real one, for the observer's rounds that need one."""
    import shutil

    from tests.kb import importable

    needs_sandbox()
    root = shutil.copytree(FIXTURES / f"{name}_kb", tmp_path / "kb")
    importable(monkeypatch, root / "upstream")
    return root


def verify_library_entry(root: Path, library: str, entry_id: str, capsys, role: str | None = None,
                         snippet: str | None = None) -> list[dict]:
    """`errorkb verify ENTRY --sandbox require` on a `library_kb` copy, uncached; with `snippet`, that `role`'s
    file is replaced first (and allowed the library's imports) and only it runs. The report's checks."""
    import json

    from errorkb.cli import main

    if snippet is not None:
        (root / "snippets" / entry_id / f"{role}.py").write_text(snippet)
        entry = root / "docs" / "errors" / library / f"{entry_id}.yml"
        entry.write_text(allowing(entry.read_text(), snippet, modules=(library,)))
    argv = ["--root", str(root), "verify", entry_id, "--no-cache", "--sandbox", "require", "--report",
            str(root / "r.json")]
    main([*argv, "--snippet", role] if role else argv)
    printed = capsys.readouterr()
    assert (root / "r.json").is_file(), printed.out + printed.err
    return json.loads((root / "r.json").read_text())["checks"]


def drafted_from_crash(root: Path, where: Path, entry_id: str, program: str) -> tuple[str, Path, str]:
    """`errorkb new ENTRY --from-traceback` on the traceback a real library prints when `program` runs (nothing
    written by hand): the traceback, the entry file drafted, and its text without comments."""
    import subprocess
    import sys

    from errorkb.cli import main

    script = where / f"{entry_id}.py"
    script.write_text(program)
    crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    (where / f"{entry_id}.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", entry_id, "--from-traceback", str(where / f"{entry_id}.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob(f"*/{entry_id}.yml")
    text = "\n".join(line for line in written.read_text().splitlines() if not line.lstrip().startswith("#")) + "\n"
    return crashed.stderr, written, text

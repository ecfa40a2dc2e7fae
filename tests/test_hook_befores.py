"""Every entry's before, run as a plain script with the hook on (issue 19, item 4): each one that
raises its documented error names its own entry, confirmed, and none names another.

Where each runs: an entry whose releases include the installed one (the project environment's
transformers 5.15.1) runs there, in an interpreter made like the project's with the hook's `.pth`
installed (`errorkb hook install`); an entry pinned to another release runs in that release's
environment under `.errorkb-cache/matrix/` when it has been built (`errorkb matrix
--environments-only`), with the hook imported by a `sitecustomize` (its environment is never
written to); otherwise it is reported as not run here, with why. Every before runs in its own
process, two at a time: about 40 minutes on a loaded 16-core machine, so the whole run is a slow test
(`pytest --slow tests/test_hook_befores.py -s` prints where each ran). Without `--slow` the same
answer is checked from each entry's recorded before (its captured traceback in reports/latest.json)
by `errorkb check` (errorkb/lookup/lint.py), and the quiet case below runs. `ERRORKB_HOOK_BEFORES=id,id`
runs only those entries' befores (the count of befores run is then not held to the whole set).
"""

from __future__ import annotations

import concurrent.futures
import importlib.metadata
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.hook_startup import make_env
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.lookup import contains
from tests.kb import ROOT

WORKERS = 2
CONFIRMED = re.compile(r"errorkb: a documented error — .*\n(?:  .*\n)*?  page: .*\(offline: errorkb show ([a-z0-9-]+)\)")
POSSIBLE = re.compile(r"\(offline: errorkb show ([a-z0-9-]+)\)")


@dataclass(frozen=True)
class Run:
    entry: str
    where: str  # "installed 5.15.1", "matrix 4.42.4", or "not run: why"
    returncode: int | None = None
    stderr: str = ""

    @property
    def confirmed(self) -> list[str]:
        return CONFIRMED.findall(self.stderr)

    @property
    def named(self) -> list[str]:
        return POSSIBLE.findall(self.stderr)


def _unmet(entry) -> str | None:
    """Why the before cannot run here: a distribution it needs absent, or one it must not see installed."""
    from packaging.requirements import Requirement

    def present(requirement: str) -> bool:
        wanted = Requirement(requirement)
        try:
            return wanted.specifier.contains(importlib.metadata.version(wanted.name), prereleases=True)
        except importlib.metadata.PackageNotFoundError:
            return False

    missing = [one for one in [*entry.requires, *entry.before.requires] if not present(one)]
    unwanted = [one for one in [*entry.without, *entry.before.without] if present(one)]
    if entry.devices and "cpu" not in entry.devices:
        return f"needs a {', '.join(entry.devices)} device"
    if missing or unwanted:
        return "needs " + ", ".join([*missing, *(f"no {one}" for one in unwanted)])
    return None


ONLY = tuple(one for one in os.environ.get("ERRORKB_HOOK_BEFORES", "").split(",") if one)


def plan(project, installed: str, only: tuple[str, ...] = ()) -> list[tuple[object, str, Path | None]]:
    """(entry, where, the release environment's python or None for the hooked project interpreter)."""
    planned = []
    for loaded in load_project_entries(project).entries:
        entry = loaded.entry
        if only and entry.id not in only:
            continue
        claim = entry.releases.raises if entry.releases else None
        here = contains(claim, installed) if claim else entry.source.release in (None, installed)
        why = _unmet(entry)
        if why:
            planned.append((entry, f"not run: {why}", None))
        elif here:
            planned.append((entry, f"installed {installed}", None))
        else:
            release = entry.source.release
            python = project.cache_dir / "matrix" / f"{project.library.dist}-{release}" / "bin" / "python"
            planned.append((entry, f"matrix {release}", python) if python.exists()
                           else (entry, f"not run: no environment for {release} (errorkb matrix --release {release})",
                                 None))
    return planned


def run_before(entry, where: str, python: Path, env: dict[str, str] | None, scratch: Path) -> Run:
    """The before, run from a copy of its snippet folder: a plain script writes where it runs (a Trainer's
    `output_dir`), and a file written into the repository's snippet folder changes the entry's inputs digest,
    so every verdict and matrix result of the entry read as stale."""
    folder = scratch / entry.id
    shutil.copytree(ROOT / "snippets" / entry.id, folder)
    try:
        result = subprocess.run([str(python), entry.before.file], cwd=folder, capture_output=True, text=True,
                                timeout=600, env=env)
    except subprocess.TimeoutExpired:
        return Run(entry.id, where, None, "timed out")
    return Run(entry.id, where, result.returncode, result.stderr)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request) -> list[Run]:
    if not request.config.getoption("slow"):
        pytest.skip("slow: runs every entry's before in its own process (about 40 minutes); run with --slow")
    project = load_project(ROOT)
    installed = importlib.metadata.version(project.library.dist)
    hooked = make_env(tmp_path_factory.mktemp("env") / "hooked", hook=True)
    starter = tmp_path_factory.mktemp("sitecustomize")
    (starter / "sitecustomize.py").write_text("import errorkb.hook  # the hook, without writing the environment\n")
    release_env = {**os.environ, "PYTHONPATH": f"{starter}{os.pathsep}{ROOT}", "PYTHONDONTWRITEBYTECODE": "1"}
    scratch = tmp_path_factory.mktemp("befores")
    snippets_before = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "snippets").rglob("*"))
    jobs, out = [], []
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        for entry, where, python in plan(project, installed, ONLY):
            if where.startswith("not run"):
                out.append(Run(entry.id, where))
            elif python is None:
                jobs.append(pool.submit(run_before, entry, where, hooked, None, scratch))
            else:
                jobs.append(pool.submit(run_before, entry, where, python, release_env, scratch))
        out += [job.result() for job in jobs]
    snippets_after = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "snippets").rglob("*"))
    assert snippets_after == snippets_before, "a before wrote into the repository's snippet folders"
    return sorted(out, key=lambda run: run.entry)


@pytest.mark.slow
@pytest.mark.upstream
@pytest.mark.timeout(4 * 3600)  # every before, in its own process, two at a time
def test_every_before_that_raises_names_its_own_entry_and_none_names_another(runs):
    ran = [run for run in runs if run.returncode is not None]
    assert len(ran) >= (len(ONLY) if ONLY else 80), [(run.entry, run.where) for run in runs if run.returncode is None]
    # None names another entry, confirmed or even as possible.
    wrong = [(run.entry, run.where, run.named) for run in ran if any(one != run.entry for one in run.named)]
    assert wrong == [], wrong
    raised = [run for run in ran if run.returncode != 0]
    silent = [(run.entry, run.where, run.named, run.stderr[-300:]) for run in raised if run.confirmed != [run.entry]]
    assert silent == [], silent
    print("\n".join(f"{run.entry}: {run.where}" for run in runs))


def test_a_generic_error_of_the_users_own_code_names_nothing(tmp_path):
    """The hook is quiet for an error it does not document, even worded like one of its entries."""
    hooked = make_env(tmp_path / "hooked", hook=True)
    script = tmp_path / "mine.py"
    script.write_text("items = [1, 2]\nprint(items[5])\n")
    result = subprocess.run([str(hooked), str(script)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "IndexError: list index out of range" in result.stderr
    assert "errorkb" not in result.stderr

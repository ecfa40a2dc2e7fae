"""The version matrix meets an older `requires:` as `errorkb verify` does: in an environment of the
snippet's pins layered on the RELEASE's environment (`matrix.ensure_pins`), one per release, or "not run"
saying what is missing and what builds it.

Before this, the matrix looked the pins up in this environment and ran the check in the release's own,
whose copy was outside their range: quanto-version-too-old was "not run" in every release. Offline here:
the releases' environments are made by hand (layered on this one, as `matrix.ensure_env` makes them), and
pip finds the pinned release in a folder of local wheels (PIP_NO_INDEX, PIP_FIND_LINKS)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.records import Code
from errorkb.verify.engine import Upstream, Verifier
from errorkb.verify.matrix import Env, ensure_pins, release_checks
from errorkb.verify.paths import BASE_PTH, environment_path
from errorkb.verify.requirements import absence, pinned_env, pinned_python
from tests.kb import VALID_ENTRY, make_project
from tests.verify.test_without import fake_wheel, seen_in_sandbox
from tests.verify.verifykb import needs_sandbox

pytestmark = pytest.mark.verifier

SEEN = """\
import importlib.metadata, json, demo_pinned
print(json.dumps({"which": demo_pinned.WHICH, "version": importlib.metadata.version("demo-pinned"),
                  "copies": len(list(importlib.metadata.distributions(name="demo-pinned")))}))
"""


def release_env(project, release: str, wheels: Path) -> Path:
    """A release's environment as `ensure_env` lays it out (on this one, through `BASE_PTH`), holding
    demo-pinned at `release`'s version from `wheels`; its interpreter."""
    folder = project.cache_dir / "matrix" / f"transformers-{release}"
    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(folder)], check=True)
    site = next(folder.glob("lib/python*/site-packages"))
    (site / BASE_PTH).write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"), "install", "--quiet",
                    "--disable-pip-version-check", "--no-deps", "--no-index", "--find-links", str(wheels),
                    f"demo-pinned=={release}"], check=True, capture_output=True)
    (folder / ".errorkb-ready").write_text(release, encoding="utf-8")  # built, as `ensure_env` says
    return folder / "bin" / "python"


@pytest.fixture
def pinned_project(tmp_path, monkeypatch):
    """A project whose entry's snippets require demo-pinned<2, which this environment does not have, and
    two releases' environments that have 3.0 and 4.0 (outside the range); pip sees local wheels only."""
    (tmp_path / "kb").mkdir()
    root = make_project(tmp_path / "kb", entries={"demo-error.yml": VALID_ENTRY.format(id="demo-error").replace(
        "guards:", "requires: ['demo-pinned<2']\nguards:")})
    project = load_project(root)
    wheels = tmp_path / "wheels"
    for version in ("1.5", "3.0", "4.0"):
        fake_wheel(wheels, "demo_pinned", version)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    pythons = {release: release_env(project, release, wheels) for release in ("3.0", "4.0")}
    return project, load_project_entries(project).entries, pythons, wheels


def test_the_matrix_builds_the_pins_of_each_release_on_that_release_and_meets_them(pinned_project, monkeypatch):
    project, loaded, pythons, _ = pinned_project
    verifier = Verifier(project, ["upstream"], upstream=Upstream.INSTALLED, environments=pythons, sandbox="off")
    checks = {release: release_checks(project, loaded, release, None) for release in pythons}
    before = {release: next(c for c in found if str(c.role) == "before") for release, found in checks.items()}
    # Not built yet: not run, saying what is missing in that release and the command that builds it.
    assert verifier.interpreter(before["3.0"]) == pythons["3.0"]
    skipped = verifier.reason_not_run(before["3.0"])
    assert skipped.code == Code.UNMET_NEED
    assert skipped.reason == ("needs demo-pinned<2 (installed: 3.0); `errorkb matrix --release 3.0 demo-error` "
                              "builds an environment that has it")

    for release, python in pythons.items():
        assert ensure_pins(project, Env(release, python), checks[release]) == []
    built = {release: pinned_python(project.cache_dir, ("demo-pinned<2",), python.parent.parent)
             for release, python in pythons.items()}
    assert None not in built.values() and built["3.0"] != built["4.0"], built  # one per release, never shared
    assert pinned_python(project.cache_dir, ("demo-pinned<2",)) is None  # nor the one on this environment
    for release, python in pythons.items():
        assert verifier.interpreter(before[release]) == built[release]
        release_site = str(next(python.parent.parent.glob("lib/python*/site-packages")))
        path = environment_path(built[release])
        assert path[1:] == [release_site, sysconfig.get_paths()["purelib"]], path  # on the release, on this one
        hidden = absence(before[release].entry, before[release].role, path)
        assert hidden.paths and all(p.startswith(release_site) for p in hidden.paths), hidden  # the release's copy

    # Met: its need holds with the release's copy hidden (only a sandbox hides), then its device decides.
    monkeypatch.setattr(verifier, "_hides", lambda: True)
    assert verifier.reason_not_run(before["4.0"]) is None
    on_cuda = dataclasses.replace(before["4.0"], device="cuda")
    assert verifier.reason_not_run(on_cuda) is None if verifier.runtime.device_present("cuda") else \
        verifier.reason_not_run(on_cuda).reason == "no cuda device"  # met for CUDA too: only the device lacks


def test_inside_the_sandbox_the_pinned_release_is_the_only_copy(pinned_project, tmp_path):
    needs_sandbox()
    project, loaded, pythons, _ = pinned_project
    checks = release_checks(project, loaded, "4.0", None)
    assert ensure_pins(project, Env("4.0", pythons["4.0"]), checks) == []
    python = pinned_python(project.cache_dir, ("demo-pinned<2",), pythons["4.0"].parent.parent)
    hidden = absence(checks[0].entry, checks[0].role, environment_path(python))
    seen = seen_in_sandbox(python, [python.parent.parent, pythons["4.0"].parent.parent], hidden.paths, SEEN, tmp_path)
    assert seen == {"which": "1.5", "version": "1.5", "copies": 1}


def test_a_pinned_environment_that_cannot_be_built_is_not_run_saying_why_and_is_not_retried(pinned_project,
                                                                                            monkeypatch, tmp_path):
    project, loaded, pythons, _ = pinned_project
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "empty"))  # no release below 2 to be had
    checks = release_checks(project, loaded, "3.0", None)
    problems = ensure_pins(project, Env("3.0", pythons["3.0"]), checks)
    assert len(problems) == 1 and problems[0].startswith("demo-pinned<2 on transformers 3.0: "), problems
    verifier = Verifier(project, ["upstream"], upstream=Upstream.INSTALLED, environments=pythons, sandbox="off")
    reason = verifier.reason_not_run(checks[0]).reason
    assert reason.startswith("needs demo-pinned<2 (installed: 3.0); building an environment that has it failed: "), \
        reason
    assert reason.endswith("; `errorkb matrix --release 3.0 demo-error` builds an environment that has it"), reason
    folder = pinned_env(project.cache_dir, ("demo-pinned<2",), pythons["3.0"].parent.parent)
    monkeypatch.setenv("PIP_FIND_LINKS", str(pinned_project[3]))
    assert ensure_pins(project, Env("3.0", pythons["3.0"]), checks) == []  # remembered: not tried again
    assert not (folder / ".errorkb-ready").is_file()
    assert ensure_pins(project, Env("3.0", pythons["3.0"]), checks, retry=True) == []  # what the reason says does
    assert (folder / ".errorkb-ready").is_file() and verifier.interpreter(checks[0]) == folder / "bin" / "python"


def test_environments_only_builds_the_environments_of_the_pins_too(pinned_project):
    from errorkb.cli import main

    project, _, pythons, _ = pinned_project
    assert main(["--root", str(project.root), "matrix", "--environments-only", "--release", "3.0"]) == 0
    assert (project.cache_dir / "matrix" / "transformers-3.0" / ".errorkb-ready").is_file()
    assert pinned_python(project.cache_dir, ("demo-pinned<2",), pythons["3.0"].parent.parent) is not None

"""Packaged like a tool (issue 21, item 5): one version source, the licence file the metadata declares,
py.typed, and the built wheel installed into an empty virtual environment runs `errorkb init` and
`mkdocs build --strict` on what it wrote (slow: it builds a wheel and installs its dependencies)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import errorkb
from tests.kb import ROOT


def test_one_version_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "errorkb.__version__"}
    assert errorkb.__version__ in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8") or \
        "Unreleased" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_licence_file_is_the_declared_licence():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert (ROOT / "errorkb" / "py.typed").is_file()


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.mark.slow
def test_the_wheel_in_an_empty_venv_runs_init_and_mkdocs_build(tmp_path):
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(ROOT)], tmp_path)
    (wheel,) = (tmp_path / "dist").glob("errorkb-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"errorkb/py.typed", "errorkb/hook/index.json", "errorkb/site/assets/lookup.js"} <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert f"errorkb-{errorkb.__version__}-" in wheel.name

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheel)], tmp_path)  # its dependencies from the index
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    version = _run([str(venv / "bin" / "errorkb"), "--version"], tmp_path, env)
    assert version.stdout.strip() == f"errorkb {errorkb.__version__}"
    _run([str(venv / "bin" / "errorkb"), "init", "kb", "--library", "packaging"], tmp_path, env)
    _run([str(venv / "bin" / "errorkb"), "check"], tmp_path / "kb", env)
    _run([str(venv / "bin" / "mkdocs"), "build", "--strict", "-q"], tmp_path / "kb", env)
    assert (tmp_path / "kb" / "site" / "index.html").is_file()
    assert 'class="ekb-lookup"' in (tmp_path / "kb" / "site" / "index.html").read_text()

"""Packaged like a tool (issue 21, items 4 and 5): one version source, the licence file the metadata
declares, py.typed; the errorkb wheel holds the tool alone, and this repository's knowledge base (its
index and bundled implementation) is a distribution of its own, `transformers-errorkb`, built from
transformers_errorkb/ as `errorkb init` lays out a knowledge base's package. The built wheel installed
into an empty virtual environment runs `errorkb init` and `mkdocs build --strict` on what it wrote, and
reads the knowledge base's index once that is installed beside it (slow: it builds the wheels and
installs their dependencies)."""

from __future__ import annotations

import os
import shutil
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


def test_the_repository_tracks_no_environment_or_cache_of_this_machine():
    """A worktree's link to the shared `.venv` or `.errorkb-cache`, once committed, replaces the real folder in every
    checkout that merges it (git overwrites ignored files): 8 GB of release environments were lost that way."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    local = {".venv", ".venv-gpu", ".errorkb-cache", "site", "test-artifacts"}
    assert sorted(name.decode() for name in tracked if name.split(b"/")[0].decode() in local) == []
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *sorted(local)], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert sorted(ignored) == sorted(local), "each must be ignored as a file or a link too, not only as a folder"


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


KB = ROOT / "transformers_errorkb"  # this repository's knowledge base's package and distribution


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """The errorkb wheel and the knowledge base's, built as `pip wheel` builds them."""
    dist = tmp_path_factory.mktemp("dist")
    # A copy of the knowledge base's project: pip builds in the project's folder, which is the package's.
    kb = shutil.copytree(KB, tmp_path_factory.mktemp("kb") / KB.name,
                         ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    for project in (ROOT, kb):
        _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(project)], dist)
    (tool,) = dist.glob("errorkb-*.whl")
    (kb,) = dist.glob("transformers_errorkb-*.whl")
    return {"tool": tool, "kb": kb}


def _contents(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.slow
def test_the_tool_wheel_holds_no_knowledge_base_and_the_knowledge_base_wheel_holds_it(wheels):
    """No library in the tool (issue 21, item 4): the bundled transformers cache and this knowledge
    base's index ship in the knowledge base's wheel, registered under `errorkb.indexes`, never in errorkb's."""
    tool = _contents(wheels["tool"])
    assert {"errorkb/py.typed", "errorkb/site/assets/lookup.js", "errorkb/hook/explain.py"} <= set(tool)
    assert [name for name in tool if "kvcache" in name or name.endswith("index.json")
            or name.startswith("transformers")] == []
    points = next(text for name, text in tool.items() if name.endswith(".dist-info/entry_points.txt")).decode()
    assert "errorkb.plugs" in points and "errorkb.indexes" not in points
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in tool)
    assert f"errorkb-{errorkb.__version__}-" in wheels["tool"].name

    kb = _contents(wheels["kb"])
    assert {"transformers_errorkb/__init__.py", "transformers_errorkb/index.json",
            "transformers_errorkb/kvcache/__init__.py", "transformers_errorkb/kvcache/cache_utils.py"} <= set(kb)
    assert kb["transformers_errorkb/index.json"] == (KB / "index.json").read_bytes()
    assert not [name for name in kb if name.startswith("errorkb/") or name.endswith("pyproject.toml")]
    points = next(text for name, text in kb.items() if name.endswith(".dist-info/entry_points.txt")).decode()
    assert "[errorkb.indexes]\ntransformers = transformers_errorkb" in points


@pytest.mark.slow
def test_the_wheel_in_an_empty_venv_runs_init_and_mkdocs_build(tmp_path, wheels):
    wheel = wheels["tool"]

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

    # errorkb alone knows no library's errors; installing the knowledge base's wheel beside it makes
    # its index the one `show` and `lookup` read, outside any checkout (the init'ed folder's has none).
    show = [str(venv / "bin" / "errorkb"), "show", "get-max-length-removed"]
    alone = subprocess.run(show, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert alone.returncode != 0 and "no knowledge base's index is installed here" in alone.stderr, alone
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheels["kb"])], tmp_path)
    shown = _run(show, tmp_path, env)
    assert "get_max_cache_shape" in shown.stdout
    found = _run([str(venv / "bin" / "errorkb"), "lookup", "AttributeError: 'DynamicCache' object has no attribute "
                  "'get_max_length'"], tmp_path, env)
    assert "get-max-length-removed" in found.stdout

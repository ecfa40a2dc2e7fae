"""The architecture holds: layers import one way, the tool names no library or runtime of its
own, the public API resolves, and the type checker is satisfied."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import errorkb

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "errorkb"
# Where the runtime may be named: its plug. The documented library's parts (its profile, its bundled
# implementation and index) belong to the knowledge base, outside the tool: pyproject.toml, transformers_errorkb/.
ALLOWED = [PACKAGE / "plugs" / "torch.py"]
NAMES = re.compile(r"torch|transformers|cuda", re.IGNORECASE)


def _tool_files() -> list[Path]:
    files = [path for suffix in ("*.py", "*.j2", "*.js", "*.css", "*.html") for path in PACKAGE.rglob(suffix)]
    return sorted(path for path in files
                  if not any(path == allowed or allowed in path.parents for allowed in ALLOWED))


def _mentions(files: list[Path]) -> list[str]:
    return [f"{path.name}:{number}: {line.strip()}"
            for path in files
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if NAMES.search(line)]


def test_the_generic_tool_names_neither_the_library_nor_the_runtime():
    files = _tool_files()
    assert len(files) > 30 and PACKAGE / "verify" / "inside" / "child.py" in files and PACKAGE / "plugs" / "torch.py" not in files
    assert _mentions(files) == []


def test_the_name_scan_sees_a_mention(tmp_path):
    """The scan above is not vacuous: code, a comment or a template that names them is found."""
    for text in ("import torch\n", "x = 1  # see transformers\n", "{{ 'CUDA' }}\n"):
        planted = tmp_path / "planted.py"
        planted.write_text(text, encoding="utf-8")
        assert _mentions([planted]), text


def test_import_layers_hold():
    """import-linter's contracts in pyproject.toml: layers one way, the bundled package and the
    runtime kept apart from the generator."""
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert f"{len(contracts['contracts'])} kept, 0 broken" in result.stdout


def test_a_reader_of_results_importing_the_verifier_breaks_a_contract(tmp_path):
    """The site, its lookup and the hook read reports and the matrix through errorkb.results; the
    contract that says so is not vacuous: a copy of the package whose site imports the verifier fails."""
    import shutil

    shutil.copytree(ROOT / "errorkb", tmp_path / "errorkb", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "transformers_errorkb").mkdir()  # the knowledge base's package, a root package of the contracts
    (tmp_path / "transformers_errorkb" / "__init__.py").write_text("")
    evidence = tmp_path / "errorkb" / "site" / "evidence.py"
    evidence.write_text(evidence.read_text(encoding="utf-8") + "\nfrom errorkb.verify import engine  # noqa\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter), "--config", str(tmp_path / "pyproject.toml")], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert result.returncode != 0, result.stdout[-3000:]
    assert "import no verifier module" in result.stdout and "errorkb.site.evidence -> errorkb.verify" in result.stdout


def test_the_type_checker_is_satisfied():
    """mypy, strict, on the tool (the bundled implementation excepted; see pyproject.toml)."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


@pytest.mark.parametrize("name", errorkb.__all__)
def test_every_public_name_resolves(name):
    assert getattr(errorkb, name) is not None


def test_importing_errorkb_imports_no_layer():
    """The public API is lazy: `import errorkb` costs nothing the CLI or a check does not need."""
    code = ("import sys, errorkb; print(sorted(m for m in sys.modules if m.startswith('errorkb.')));"
            "print('pydantic' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.splitlines() == ["[]", "False"], result.stdout + result.stderr

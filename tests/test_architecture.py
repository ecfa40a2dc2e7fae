"""The architecture holds: layers import one way, the tool names no library or runtime of its
own, the public API resolves, and the type checker is satisfied."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import errorkb

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "errorkb"
# Where the documented library and its runtime may be named: the runtime plug and the bundled
# implementation (the profile itself lives in pyproject.toml).
ALLOWED = [PACKAGE / "kvcache", PACKAGE / "plugs" / "torch.py"]
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
    kept = re.search(r"Contracts: (\d+) kept, 0 broken", result.stdout)
    assert kept and int(kept.group(1)) >= 5, result.stdout[-2000:]


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

"""Shared test set-up: the project root, and the `--slow` switch for long property runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/kb_factory.py and friends


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="run long tests (property-based suites at full size)")


@pytest.fixture
def project_root() -> Path:
    return ROOT

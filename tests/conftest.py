"""Shared test set-up: the fixtures of the site and verifier suites, the project root, and the
`--slow` switch for long property runs. The suite is a package: helpers are imported as
`tests.kb` (the one knowledge-base builder), `tests.site.sitekb`, `tests.verify.verifykb`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kb import ROOT

pytest_plugins = ["tests.site.sitekb", "tests.verify.verifykb", "tests.verify.adversarial"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="run long tests (property-based suites at full size)")


@pytest.fixture
def project_root() -> Path:
    return ROOT

"""The containment rounds' fixtures (tests/verify/containment.py owns what they are made of): one definition for
every round, each module getting its own (module scope). A module that needs files besides the snippet folder names
them in `PROJECT_FILES` (path → text); a module defining a fixture of the same name keeps its own."""

from __future__ import annotations

import pytest

from errorkb.verify.pool import WorkerPool
from tests.verify.containment import ENTRY, LIBRARY, make_project, sandbox_for


@pytest.fixture(scope="module")
def project(request, tmp_path_factory):
    """The round's project: good-head-dim's snippet folder and the module's `PROJECT_FILES`."""
    return make_project(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]),
                        getattr(request.module, "PROJECT_FILES", {}))


@pytest.fixture(scope="module")
def sandbox(project):
    return sandbox_for(project)


@pytest.fixture(scope="module")
def entry(broken_kb):
    return next(one.entry for one in broken_kb[1] if one.entry.id == ENTRY)


@pytest.fixture(scope="module")
def lean_pool(sandbox, lean_python):
    """A warm pool of the lean interpreter in the round's sandbox, shared by the module's tests."""
    with WorkerPool(LIBRARY, [], sandbox) as pool:
        yield pool

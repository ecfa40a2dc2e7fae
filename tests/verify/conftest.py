"""The containment rounds' fixtures (tests/verify/containment.py owns what they are made of): one definition for
every round, each module getting its own (module scope). A module that needs files besides the snippet folder names
them in `PROJECT_FILES` (path → text); a module defining a fixture of the same name keeps its own. The observer
rounds' forked scenario of a library `kept` (`observe_kept`) is here too, one set-up for every round using it."""

from __future__ import annotations

import sys
import textwrap

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



@pytest.fixture
def observe_kept(tmp_path):
    """The observer rounds' forked scenario (`test_observer.run_scenario`) watching `kept.<watched>`: `lib` (file name →
    text, `kept.py` among them) is the target's folder; `std` stands for Python's own library (on the path, under the
    check's stdlib and trusted roots); `mine` is a folder of the snippet's own, on the path. Returns
    `observe(body, watched, lib=..., std=..., mine=...)`: the observation of `import kept` then `body`."""
    from tests.verify.test_observer import read, run_scenario

    def observe(body: str, watched: str, *, lib: dict[str, str], std: dict[str, str] | None = None,
                mine: dict[str, str] | None = None):
        folders = {}
        for name, files in (("lib", lib), ("std", std), ("mine", mine)):
            if files is None:
                continue
            folder = folders[name] = tmp_path / name
            folder.mkdir(exist_ok=True)
            for file, text in files.items():
                (folder / file).write_text(text)
        configure = _kept_configure(watched, str(folders["std"]) if "std" in folders else None,
                                    str(folders["mine"]) if "mine" in folders else None)
        return read(run_scenario(tmp_path, "import kept\n" + textwrap.dedent(body), configure=configure)).observation

    return observe


def _kept_configure(watched: str, std: str | None, mine: str | None):
    """`observe_kept`'s configuration (a module-level function's closure: the lean parent finds its code by name).
    Python's frozen modules are trusted, as `child.python_roots` has them (the import system runs frozen), and the
    target's files count as beneath the watched function."""
    from tests.verify.test_observer_round12 import watch_in

    configure = watch_in("kept", watched)

    def configuring(config: dict) -> None:
        configure(config)
        python = ("<frozen ", *((std,) if std is not None else ()))
        sys.path.extend(folder for folder in (std, mine) if folder is not None)
        config["trusted_roots"] = (*config["trusted_roots"], *python)
        config["stdlib_roots"] = [*config["stdlib_roots"], *python]
        config["beneath_roots"] = [*config.get("beneath_roots", ()), *config["target_roots"]]

    return configuring

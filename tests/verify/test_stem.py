"""A stem's zygote is the release's own interpreter: its path, its prefix, its modules' very files.

Environments are made here as the matrix makes them (a venv without pip that sees this one's
packages through a .pth file), without installing a release: they all see the installed
transformers, so a verdict from a stem's zygote can be compared with one from the
environment's own interpreter. They see the lean environment's packages (tests/lean.py: this one's less hqq, which
imports torch._dynamo and torch._inductor: seconds of CPU in every stem and zygote, and the fixture's snippets never
use it), so the module the stem shares is one every release's cache_utils loads there, `huggingface_hub`; the
knowledge base's own stem shares hqq's quantizer (pyproject.toml: `[tool.errorkb.matrix.shared]`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.inside.stem import startup_signature
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose
from tests.verify.verifykb import needs_sandbox

TORCH = runtime_for("torch")
SOURCE_ROOT = str(Path(__file__).resolve().parents[2])
SHARED = {"huggingface_hub": "transformers.cache_utils"}  # what every release's cache_utils loads

needs_library = pytest.mark.skipif(importlib.util.find_spec("transformers") is None,
                                   reason="needs transformers installed")


def make_env(folder: Path, base: str | None = None) -> Path:
    """An environment as the matrix makes one, seeing `base`'s packages (default: this environment's)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = next(folder.glob("lib/python*/site-packages"))
    (site / "_errorkb_base.pth").write_text((base or sysconfig.get_paths()["purelib"]) + "\n", encoding="utf-8")
    return folder / "bin" / "python"


def site_of(python: Path) -> Path:
    return next(python.parent.parent.glob("lib/python*/site-packages"))


@pytest.fixture(scope="module")
def envs(tmp_path_factory, lean_python):
    """Three environments over the lean one: `a` (the stem's), `b` (as `a`), `shadow` (its own copies of `packaging`
    and of `typing_extensions`, which the runtime, and so the stem, loads)."""
    from tests.lean import site_packages

    root = tmp_path_factory.mktemp("envs")
    base = str(site_packages(lean_python.parent.parent))
    made = {name: make_env(root / name, base) for name in ("a", "b", "shadow")}
    package = Path(importlib.util.find_spec("packaging").origin).parent
    shutil.copytree(package, site_of(made["shadow"]) / "packaging")
    shutil.copy(importlib.util.find_spec("typing_extensions").origin, site_of(made["shadow"]) / "typing_extensions.py")
    return made


def run_in(python: Path, code: str) -> dict:
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True, cwd="/",
                          env=dict(os.environ, PYTHONPATH=SOURCE_ROOT))
    return json.loads(done.stdout.strip().splitlines()[-1])


BECOME = """
import json, sys
import packaging.version
from errorkb.verify.inside import stem
stem.become({python!r}, {prefix!r})
print(json.dumps({{"path": sys.path, "prefix": sys.prefix, "exec_prefix": sys.exec_prefix,
                  "executable": sys.executable, "foreign": stem.foreign_modules(),
                  "files": {{name: module.__spec__.origin for name, module in sys.modules.items()
                            if getattr(module, "__spec__", None) and module.__spec__.has_location}}}}))
"""

OWN = """
import importlib.util, json, sys
names = {names!r}
print(json.dumps({{"path": sys.path, "prefix": sys.prefix, "exec_prefix": sys.exec_prefix,
                  "executable": sys.executable,
                  "files": {{name: importlib.util.find_spec(name).origin for name in names}}}}))
"""


def test_a_zygote_from_a_stem_sees_what_the_release_s_own_interpreter_sees(envs):
    """Path, prefix, executable, and for every module already loaded, the file the release's own
    interpreter would load under that name."""
    a, b = envs["a"], envs["b"]
    worker = run_in(a, BECOME.format(python=str(b), prefix=str(b.parent.parent)))
    own = run_in(b, OWN.format(names=sorted(worker["files"])))
    assert worker["foreign"] == []
    for field in ("path", "prefix", "exec_prefix", "executable"):
        assert worker[field] == own[field], field
    assert str(site_of(b)) in worker["path"] and str(site_of(a)) not in worker["path"]
    assert "packaging.version" in worker["files"]
    assert worker["files"] == own["files"]


def test_a_module_the_release_has_its_own_copy_of_is_foreign(envs):
    worker = run_in(envs["a"], BECOME.format(python=str(envs["shadow"]), prefix=str(envs["shadow"].parent.parent)))
    (found,) = worker["foreign"]
    assert found.startswith("packaging (") and str(site_of(envs["shadow"]) / "packaging") in found


def test_environments_that_start_alike_share_a_signature_and_a_pth_file_tells_them_apart(envs, tmp_path):
    assert startup_signature(envs["a"]) == startup_signature(envs["b"])
    other = make_env(tmp_path / "other")
    (site_of(other) / "hack.pth").write_text("import os\n", encoding="utf-8")
    assert startup_signature(other) != startup_signature(envs["a"])


# -- through the pool: real checks ----------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox():
    needs_sandbox(skip=False)  # sandboxed wherever it can be, and only so under ERRORKB_SANDBOX=require
    return choose("auto", [Path(SOURCE_ROOT)], [], runtime=TORCH, packages=("torch", "transformers", "hqq"),
                  warn=lambda message: None)


@pytest.fixture(scope="module")
def check(broken_kb) -> Check:
    _, entries = broken_kb
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")
    path = Path(SOURCE_ROOT) / "tests" / "fixtures" / "broken_kb" / "snippets" / "good-head-dim" / "before.py"
    return Check(entry, read_snippet(path, Role("before"), path.name), "upstream", "cpu", "transformers.cache_utils")


def verdict(check: Check, pool: WorkerPool, python: Path) -> tuple:
    seen = judge(check, pool.run(check, 120, python), TORCH)
    return seen.outcome, seen.code, seen.reason


@needs_library
def test_releases_that_fit_get_their_zygotes_from_one_stem_with_the_same_verdicts(broken_kb, envs, check, sandbox):
    project, _ = broken_kb
    with WorkerPool(project.library, ["transformers:DynamicCache"], sandbox) as own:
        expected = verdict(check, own, envs["b"])
        assert not own.stems
    assert expected[0] == "pass", expected
    with WorkerPool(project.library, ["transformers:DynamicCache"], sandbox) as shared:
        for name in ("a", "b"):
            shared.share(envs[name], SHARED)
            assert verdict(check, shared, envs[name]) == expected
            zygote = next(z for key, z in shared.zygotes.items() if key[3] == str(envs[name]))
            assert zygote.stem is not None and zygote.unshared is None
            shared.retire(envs[name])
        assert len(shared.stems) == 1 and shared.unshared == {}


@needs_library
def test_a_release_that_does_not_fit_the_stem_gets_its_own_interpreter(broken_kb, envs, check, sandbox):
    """`shadow` loads its own typing_extensions, and starts the stem: the stem loads what all environments
    share, so it still serves `a`. A zygote that never loads the stem's importer is refused too."""
    project, _ = broken_kb
    with WorkerPool(project.library, ["transformers:DynamicCache"], sandbox) as pool:
        pool.share(envs["shadow"], SHARED)
        pool.share(envs["a"], SHARED)
        pool.share(envs["b"], {"huggingface_hub": "transformers.models.mamba"})  # never imported by this check
        for name in ("shadow", "a", "b"):
            assert verdict(check, pool, envs[name])[0] == "pass"
            zygote = next(z for key, z in pool.zygotes.items() if key[3] == str(envs[name]))
            assert (zygote.stem is not None) == (name == "a"), name
        assert len(pool.stems) == 1
        assert pool.unshared[str(envs["shadow"])].startswith("typing_extensions (")
        assert pool.unshared[str(envs["b"])] == \
            "this release's preparation did not load transformers.models.mamba"


def test_a_verify_run_forks_the_zygotes_of_its_release_environments_from_one_stem(broken_kb, lean_python, sandbox,
                                                                                   monkeypatch, tmp_path):
    """`errorkb verify` over entries pinned to releases not installed here (the knowledge base pins a dozen, with a
    few checks each): each release environment's zygote is forked from one stem, which imported the runtime once,
    instead of importing it again in an interpreter of its own; the verdicts are the release's own. (Environments
    over the lean one, tests/lean.py: the fixture's snippets need no hqq.)"""
    from errorkb.verify.engine import Verifier, plan_checks
    from tests.lean import site_packages

    project, entries = broken_kb
    checks = plan_checks(project, entries, ids=["good-head-dim"], targets=["upstream"], devices=["cpu"],
                         kinds=["before", "after"])
    base = str(site_packages(lean_python.parent.parent))
    released = {role: make_env(tmp_path / role, base) for role in ("before", "after")}  # as the entry would pin it
    monkeypatch.setattr(Verifier, "_base", lambda self, check: released.get(str(check.role), Path(sys.executable)))
    verifier = Verifier(project, ["upstream"], sandbox="require" if sandbox else "off")
    try:
        verifier.warm(checks)
        records = {str(check.role): verifier.record(check) for check in checks}
        pool = verifier.pool
        assert pool is not None
        stemmed = {key[3] for key, zygote in pool.zygotes.items() if zygote.stem is not None}
        assert stemmed == {str(python) for python in released.values()} and len(pool.stems) == 1
    finally:
        verifier.close()
    assert {role: record.outcome for role, record in records.items()} == \
        {role: "pass" for role in records}, {role: record.reason for role, record in records.items()}

"""`without:` needs met by the sandbox: the distribution is hidden from the check (`requirements.absence`,
`sandbox.Sandbox.wrap(absent=)`), in a zygote of its own hidden set; without the sandbox, not run.

Before this, a before that needs `hqq` absent was "not run" in every environment that has hqq (the
afters need it), so its page showed whatever an old run in a throwaway venv had said."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.records import Code, Outcome
from errorkb.verify.engine import Verifier, plan_checks
from errorkb.verify.pool import Zygote
from errorkb.verify.requirements import absence, unmet
from errorkb.verify.sandbox import Sandbox, runtime_paths
from tests.conftest import missing
from tests.test_requirements import TORCH, entry_with, installed
from tests.verify.verifykb import needs_sandbox

pytestmark = pytest.mark.verifier
ROOT = Path(__file__).resolve().parents[2]

SEEN = """\
import importlib.metadata, importlib.util, json, sys
sys.path.insert(0, {site!r})

def spec(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False

def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None

print(json.dumps({{"modules": {{name: spec(name) for name in ("ns", "ns.quanto", "ns.onnx", "alone")}},
                  "versions": {{name: version(name) for name in ("demo-quanto", "demo-onnx", "demo-alone")}}}}))
"""


def test_a_hidden_distribution_does_not_exist_inside_and_its_neighbours_do(tmp_path):
    """Not an empty folder in its place (that imports, as a namespace package): no name at all; and the
    distribution that shares its namespace folder keeps its files and its metadata."""
    needs_sandbox()
    site = tmp_path / "site"
    installed(site, "demo-quanto", ["ns/quanto/__init__.py"])
    installed(site, "demo-onnx", ["ns/onnx/__init__.py"])
    installed(site, "demo-alone", ["alone/__init__.py", "alone/deep/x.py"])
    hidden: list[str] = []
    for name in ("demo-quanto", "demo-alone"):
        (tmp_path / name).mkdir()
        entry = entry_with(tmp_path / name, {"guards:": f"without: [{name}]\nguards:"})
        hidden += absence(entry, "before", [str(site)]).paths
    sandbox = Sandbox(shutil.which("bwrap") or "bwrap", runtime_paths([site]))
    (tmp_path / "out").mkdir()

    def seen(absent: list[str]) -> dict:
        argv = sandbox.wrap([sys.executable, "-c", SEEN.format(site=str(site))], device="cpu",
                            writable=[tmp_path / "out"], absent=absent)
        done = subprocess.run(argv, capture_output=True, text=True, env=sandbox.env("cpu"), timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert seen([]) == {"modules": {"ns": True, "ns.quanto": True, "ns.onnx": True, "alone": True},
                        "versions": {"demo-quanto": "1.0", "demo-onnx": "1.0", "demo-alone": "1.0"}}
    assert seen(hidden) == {"modules": {"ns": True, "ns.quanto": False, "ns.onnx": True, "alone": False},
                            "versions": {"demo-quanto": None, "demo-onnx": "1.0", "demo-alone": None}}
    assert (site / "ns" / "quanto").is_dir() and (site / "alone").is_dir()  # hidden inside, untouched outside


def test_only_the_sandbox_hides_and_never_through_a_stem(tmp_path):
    """A zygote for a hidden set is its own interpreter in its own sandbox: never one without a sandbox,
    never forked from a stem (whose sandbox shows every distribution)."""
    project = load_project(ROOT)
    with pytest.raises(ValueError, match="only the sandbox hides"):
        Zygote("upstream", "cpu", "transformers", [], tmp_path, project.library, Path(sys.executable), None,
               absent=("/somewhere/hqq",))


def hqq_checks(isolation: str, sandbox: str):
    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    checks = plan_checks(project, loaded, ids=["hqq-not-installed"], targets=["upstream"], devices=["cpu"])
    return project, checks, Verifier(project, ["upstream"], isolation=isolation, sandbox=sandbox, timeout=120)


@pytest.fixture(scope="module")
def sandboxed_hqq_checks():
    """`hqq_checks(isolation, "require")`, made once per isolation for the module's tests: in fork mode its
    shared zygote (torch, the real transformers and hqq: seconds of CPU) serves every test's check that hides
    nothing; each check is still a fork of its own."""
    made: dict[str, tuple] = {}
    yield lambda isolation: made.setdefault(isolation, hqq_checks(isolation, "require"))
    for _, _, verifier in made.values():
        verifier.close()


@pytest.mark.upstream
@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_before_that_needs_its_backend_absent_runs_and_passes_where_it_is_installed(isolation,
                                                                                      sandboxed_hqq_checks):
    """hqq is installed (the after needs it): the before and the guard run with it hidden, and raise the
    documented error; the after runs with it, in the shared zygote."""
    needs_sandbox()
    pytest.importorskip("hqq")
    _, checks, verifier = sandboxed_hqq_checks(isolation)
    records = {str(check.role): verifier.record(check) for check in checks}
    outcomes = {role: (record.outcome, record.reason) for role, record in records.items()}
    assert all(record.outcome == Outcome.PASS for record in records.values()), outcomes
    assert "You need to install `HQQ`" in records["before"].exception.message
    if isolation == "fork":
        absent = {key[4] for key in verifier.pool.zygotes}
        assert () in absent and len(absent) == 2, absent  # the after's shared zygote, and the hidden set's
        (hidden,) = absent - {()}
        assert any(Path(path).name == "hqq" for path in hidden), hidden


@pytest.mark.upstream
def test_without_the_sandbox_the_need_stays_unmet():
    pytest.importorskip("hqq")
    _, checks, verifier = hqq_checks("fork", "off")
    try:
        before = next(check for check in checks if str(check.role) == "before")
        record = verifier.answer(before)
        assert record is not None and record.outcome == Outcome.NOT_RUN and record.code == Code.UNMET_NEED
        assert record.reason.startswith("needs hqq to be absent (installed: ")
        assert record.reason.endswith("; only the sandbox can hide it, and checks run without it here)")
    finally:
        verifier.close()


@pytest.mark.upstream
@pytest.mark.environments
def test_in_a_release_environment_shared_through_a_stem_the_hidden_set_gets_its_own_zygote():
    """The version matrix: a release's environment (layered over this one, so hqq is there too), its CPU
    zygotes forked from a stem. The before's hidden set is looked up on that environment's path and gets a
    zygote of its own interpreter; the after still comes from the stem."""
    needs_sandbox()
    pytest.importorskip("hqq")
    from errorkb.source.upstream import matrix_env
    from errorkb.verify.engine import Upstream
    from errorkb.verify.matrix import ensure_env, release_checks, shared_loads

    project = load_project(ROOT)
    release = "5.24.0"  # in the entry's range (5.1.0 -); the full tier builds it (an entry is pinned to it)
    if not (matrix_env(project, release) / ".errorkb-ready").is_file():
        missing(f"the release environment of {release} is not built (errorkb matrix --environments-only)")
    env = ensure_env(project, release)
    assert env.python is not None, env.error
    env = dataclasses.replace(env, python=matrix_env(project, release).resolve() / "bin" / "python")  # no link in it
    loaded = load_project_entries(project).entries
    checks = release_checks(project, loaded, release, ["hqq-not-installed"])
    verifier = Verifier(project, ["upstream"], upstream=Upstream.INSTALLED, environments={release: env.python},
                        sandbox="require", timeout=120)
    try:
        if loads := shared_loads(project, env):
            verifier.pool.share(env.python, loads)
        records = {str(check.role): verifier.record(check) for check in checks}
        outcomes = {role: (record.outcome, record.reason) for role, record in records.items()}
        assert records["before"].outcome == Outcome.PASS and records["after"].outcome == Outcome.PASS, outcomes
        hidden = [key[4] for key in verifier.pool.zygotes if key[4]]
        assert len(hidden) == 1 and any(Path(path).name == "hqq" for path in hidden[0]), hidden
        assert all(zygote.stem is None for key, zygote in verifier.pool.zygotes.items() if key[4])  # its own
    finally:
        verifier.close()


@pytest.mark.upstream
@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_check_whose_distribution_is_still_there_fails_its_setup_never_runs(isolation, sandboxed_hqq_checks):
    """The check's own process confirms that what the sandbox was to hide is gone, before the snippet's
    first line: here nothing was hidden (made up: the mounts failed), so it is a setup failure."""
    needs_sandbox()
    pytest.importorskip("hqq")
    from errorkb.verify.records import Status
    from errorkb.verify.requirements import Absence
    from errorkb.verify.run import run_check

    project, checks, verifier = sandboxed_hqq_checks(isolation)
    before = next(check for check in checks if str(check.role) == "before")
    for unhidden, said in [(Absence(distributions=("hqq",)), "hqq 0.2"),
                           (Absence(modules=("hqq",)), "hqq is still importable")]:
        run = verifier.pool.run(before, 60, absent=unhidden) if verifier.pool else \
            run_check(before, project.library, 60, None, verifier.sandbox, absent=unhidden)
        assert run.observation is not None and run.observation.status == Status.SETUP_FAILED, run
        assert said in run.observation.error and "was to hide it" in run.observation.error, run.observation.error


def fake_wheel(folder: Path, name: str, version: str) -> Path:
    """A wheel of `name` `version` whose package says which it is: what pip installs offline."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"WHICH = {version!r}\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: errorkb-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{file},,\n" for file in [*files, f"{info}/RECORD"])
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for file, text in files.items():
            archive.writestr(file, text)
    return wheel


PINNED = """\
import importlib.metadata, json, pytest
print(json.dumps({"which": getattr(pytest, "WHICH", None), "version": importlib.metadata.version("pytest"),
                  "copies": len(list(importlib.metadata.distributions(name="pytest")))}))
"""


def test_a_requires_older_than_the_installed_release_runs_in_an_environment_of_its_pins(tmp_path):
    """`requires: ['pytest<1']` where pytest 9 is installed: `build_pinned_env` installs the pinned release
    into an environment layered over this one (offline here: a local wheel), whose checks find only it
    (this environment's copy hidden); without a sandbox both copies would be found, the pinned one first."""
    from errorkb.verify.paths import environment_path
    from errorkb.verify.requirements import build_pinned_env, pinned_python, pins

    needs_sandbox()
    (tmp_path / "kb").mkdir()
    entry = entry_with(tmp_path / "kb", {"guards:": "requires: ['pytest<1']\nguards:"})
    needed = pins(entry, "before")
    assert needed == ("pytest<1",)
    cache = tmp_path / "cache"
    assert pinned_python(cache, needed) is None
    wheels = fake_wheel(tmp_path / "wheels", "pytest", "0.5.0").parent
    assert build_pinned_env(cache, needed, pip=("--no-index", "--find-links", str(wheels))) is None
    python = pinned_python(cache, needed)
    assert python is not None
    path = environment_path(python)
    assert unmet(entry, "before", "cpu", TORCH, path, hides=lambda: True) is None  # met there: its first copy is 0.5.0
    assert unmet(entry, "before", "cpu", TORCH, path).startswith("needs one copy of pytest, and there is another in ")
    hidden = absence(entry, "before", path)
    assert hidden.paths and all(not p.startswith(str(cache)) for p in hidden.paths), hidden  # this one's copy
    seen = seen_in_sandbox(python, [python.parent.parent], hidden.paths, PINNED, tmp_path)
    assert seen == {"which": "0.5.0", "version": "0.5.0", "copies": 1}


def seen_in_sandbox(python: Path, environments: list[Path], absent: list[str], code: str, tmp_path: Path) -> object:
    """What `code` prints (JSON), run by `python` in the sandbox showing `environments` with `absent` hidden."""
    sandbox = Sandbox(shutil.which("bwrap") or "bwrap", runtime_paths(environments))
    (tmp_path / "out").mkdir()
    argv = sandbox.wrap([str(python), "-c", code], device="cpu", writable=[tmp_path / "out"], python=python,
                        absent=absent)
    done = subprocess.run(argv, capture_output=True, text=True, env=sandbox.env("cpu"), timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_verifier_runs_a_pinned_snippet_in_its_environment_or_says_how_to_build_it(monkeypatch):
    from errorkb.verify import requirements

    pytest.importorskip("optimum.quanto")
    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    checks = plan_checks(project, loaded, ids=["quanto-version-too-old"], targets=["upstream"], devices=["cpu"])
    before = next(check for check in checks if str(check.role) == "before")
    after = next(check for check in checks if str(check.role) == "after")
    verifier = Verifier(project, ["upstream"], sandbox="off")
    monkeypatch.setattr(requirements, "pinned_python", lambda cache, needed, base: None)
    if requirements.pins(before.entry, before.role):  # this environment has optimum-quanto 0.2.6 or later
        assert verifier.interpreter(before) == Path(sys.executable)
        reason = verifier.reason_not_run(before).reason
        assert reason.endswith("`python -m errorkb.verify.requirements --build` builds an environment that has it")
        built = Path("/made/up/needs/bin/python")
        monkeypatch.setattr(requirements, "pinned_python", lambda cache, needed, base: built
                            if needed == ("optimum-quanto<0.2.6",) and base is None else None)
        assert verifier.interpreter(before) == built
    assert verifier.interpreter(after) == Path(sys.executable)  # its needs hold here: it runs here

"""The verdict cache: reused only while every part of its key holds, never for a flaky outcome,
never across a trust boundary; and a verdict it re-confirms replaces an older record."""

from __future__ import annotations

import ast
import json
import warnings
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.entry import Entry
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.results.keys import LOOKUP_ONLY, VerdictKey, inputs_digest, project_inputs
from errorkb.results.report import latest_results, read_report
from errorkb.site.render import badges, build_pages
from errorkb.verify import cache as cache_module
from errorkb.verify.cache import Trust, VerdictCache, cache_key, resolve_trust, untrusted_here
from errorkb.verify.engine import Verifier, verify
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check, plan
from errorkb.verify.records import Code, Observation, Outcome, Status
from errorkb.verify.run import Run
from errorkb.verify.watch import Kept
from tests.verify.verifykb import copy_fixture, load_kb

TORCH = runtime_for("torch")
MODULE = "transformers.cache_utils"

# Every check of this module runs in the lean interpreter (tests/lean.py): its snippets use no optional
# backend, and each zygote then loads torch and the bundled cache without hqq's torch._dynamo.
pytestmark = pytest.mark.usefixtures("lean_checks")


def check_of(entry, role, path, device="cpu", module=MODULE) -> Check:
    return Check(entry, read_snippet(path, Role(role), path.name), "bundled", device, module)


@pytest.fixture
def kb(tmp_path):
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    project, entries = load_kb(root)
    return project, entries[0].entry


def test_every_part_of_the_key_changes_the_key(kb, monkeypatch):
    project, entry = kb
    folder = project.snippets / entry.id
    path = folder / "before.py"
    library = project.library

    def key(check: Check, fingerprint: str = "bundled-abc", inputs: str | None = None, profile=library) -> str:
        return cache_key(check, inputs or project_inputs(project, check.entry), fingerprint, TORCH, profile)

    base = key(check_of(entry, "before", path))
    assert set(VerdictKey.__dataclass_fields__) == {"inputs", "role", "snippet", "module", "target", "runtime",
                                                   "device", "python", "profile", "verifier"}
    flipped = {
        "target fingerprint": lambda: key(check_of(entry, "before", path), "bundled-abd"),
        "device": lambda: key(check_of(entry, "before", path, "cuda")),
        "role": lambda: key(check_of(entry, "after", path)),
        "module": lambda: key(check_of(entry, "before", path, module="transformers.other")),
        "inputs": lambda: key(check_of(entry, "before", path), inputs="0" * 64),
        "profile": lambda: key(check_of(entry, "before", path),
                               profile=library.model_copy(update={"env_prefixes": ["HF_"]})),
    }
    for name, flip in flipped.items():
        assert flip() != base, name
    with monkeypatch.context() as patch:
        patch.setattr(type(TORCH), "version", lambda self: "9.9.9")
        assert key(check_of(entry, "before", path)) != base, "runtime version"
    with monkeypatch.context() as patch:
        patch.setattr(cache_module, "verifier_fingerprint", lambda: "2+ffff")
        assert key(check_of(entry, "before", path)) != base, "verifier"
    with monkeypatch.context() as patch:
        patch.setattr(cache_module.platform, "python_version", lambda: "3.99.0")
        assert key(check_of(entry, "before", path)) != base, "python"
    assert key(check_of(entry, "before", path)) == base, "the key is deterministic"


def test_the_inputs_are_the_whole_entry_and_every_file_of_its_snippet_folder(kb):
    """Every field of the entry but those only the lookup reads, and any file under its snippet
    folder (a module a snippet imports, a data file in a subfolder), changes the inputs: the key once
    held a hand-picked subset, and an edit of `also_seen_as`, `kind`, `api` or a helper module kept
    a pass nobody had checked. A field added later counts unless it is named lookup-only."""
    project, entry = kb
    folder = project.snippets / entry.id
    base = inputs_digest(entry, folder)
    assert LOOKUP_ONLY.issubset(Entry.model_fields), "a lookup-only name the entry does not have"
    with warnings.catch_warnings():  # a value of the wrong type still serialises (with a warning)
        warnings.simplefilter("ignore")
        for name in Entry.model_fields:
            other = entry.model_copy(update={name: f"changed {name}"})
            if name in LOOKUP_ONLY:
                assert inputs_digest(other, folder) == base, f"the lookup's `{name}` staled a verdict"
            else:
                assert inputs_digest(other, folder) != base, f"the entry's `{name}`"
    for relative in ("before.py", "helper.py", "data/shape.json", "data/deeper/more.txt", "__pycache__/x.pyc"):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_bytes() if path.exists() else None
        path.write_bytes((old or b"") + b"# edited\n")
        assert inputs_digest(entry, folder) != base, relative
        path.write_bytes(old) if old is not None else path.unlink()
    for leftover in ("data/deeper", "data", "__pycache__"):
        (folder / leftover).rmdir()
    assert inputs_digest(entry, folder) == base, "the same folder again"
    (folder / "link.py").symlink_to("/etc/passwd")  # named with its target, never followed
    assert inputs_digest(entry, folder) != base
    (folder / "link.py").unlink()
    import os

    os.mkfifo(folder / "pipe")  # named, never opened (it would block)
    assert inputs_digest(entry, folder) != base


def _imports(module: str, modules: dict[str, Path]) -> set[str]:
    """The modules of errorkb that `module` imports (any `import`, at any depth of its code)."""
    path = modules[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            named |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    found = set()
    for name in named:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)
    return found


def test_no_code_a_verdict_comes_from_reads_what_only_the_lookup_reads():
    """`LOOKUP_ONLY` checks itself: the verifier, the results and every errorkb module they import
    never name those fields (an attribute or a string), so leaving them out of the inputs cannot keep
    a verdict that depends on them. The loader validates every field (it imports the lookup to
    check a message), and the entry's model may read them in its validators only: both run before
    any verdict, on what is then the same entry."""
    package = Path(__file__).resolve().parents[2] / "errorkb"
    modules = {".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__"): path
               for path in package.rglob("*.py")}
    validating = {"errorkb.core.load", "errorkb.core.entry"}
    todo = [name for name in modules if name.startswith(("errorkb.verify", "errorkb.results"))]
    reached = set(todo)
    while todo:
        for name in _imports(todo.pop(), modules) - reached:
            reached.add(name)
            if name not in validating:
                todo.append(name)
    assert {"errorkb.verify.judge", "errorkb.core.message", "errorkb.core.entry"} <= reached
    assert not any(name.startswith("errorkb.lookup") for name in reached - validating), "the lookup, reached"

    def names_one(node: ast.AST) -> bool:
        return any((isinstance(inner, ast.Attribute) and inner.attr in LOOKUP_ONLY)
                   or (isinstance(inner, ast.Constant) and inner.value in LOOKUP_ONLY) for inner in ast.walk(node))

    def defines_them(statement: ast.stmt) -> bool:
        return isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "LOOKUP_ONLY" for target in statement.targets)

    readers = []
    for name in sorted(reached - validating):
        body = ast.parse(modules[name].read_text(encoding="utf-8")).body
        if any(names_one(statement) for statement in body if not defines_them(statement)):
            readers.append(name)
    entry_tree = ast.parse(modules["errorkb.core.entry"].read_text(encoding="utf-8"))
    for node in ast.walk(entry_tree):
        if isinstance(node, ast.FunctionDef) and names_one(node):
            validator = any("validator" in ast.unparse(decorator) for decorator in node.decorator_list)
            if not validator:
                readers.append(f"errorkb.core.entry.{node.name}")
    assert readers == [], f"these read a lookup-only field, so a verdict may depend on it: {readers}"


def run_of(observation=None, *, returncode=0, timed_out=False) -> Run:
    return Run(observation, returncode, timed_out, "", 0, 0.1, 6.0)


def test_only_verdicts_that_would_repeat_are_cached(kb):
    project, entry = kb
    good_check = check_of(entry, "before", project.snippets / entry.id / "before.py")
    returned = Observation(status=Status.RETURNED)
    assert judge(good_check, run_of(returned), TORCH).cacheable  # a plain failure repeats
    timed_out = judge(good_check, run_of(returned, timed_out=True), TORCH)
    assert (timed_out.code, timed_out.cacheable) == (Code.TIMEOUT, False)
    killed = judge(good_check, run_of(returncode=-9), TORCH)
    assert (killed.code, killed.cacheable) == (Code.KILLED, False)  # maybe the machine's OOM killer
    assert judge(good_check, run_of(returncode=-15), TORCH).cacheable
    died = judge(good_check, run_of(Observation(status=Status.WORKER_DIED, error="gone")), TORCH)
    assert (died.code, died.cacheable) == (Code.WORKER_DIED, False)
    no_device = judge(good_check, run_of(Observation(status=Status.NO_DEVICE)), TORCH)
    assert (no_device.outcome, no_device.cacheable) == (Outcome.NOT_RUN, False)
    # the target not loading is the environment's state (a release being rebuilt, a dependency missing), which
    # the key does not hold: a cached set-up failure would outlive the environment's repair
    failed = Observation(status=Status.SETUP_FAILED, error="No module named 'x'")
    setup = judge(good_check, Run(failed, 0, False, "", 0, 0.1, 6.0, ended=True, end_status="setup-failed"), TORCH)
    assert (setup.code, setup.cacheable) == (Code.SETUP_FAILED, False)


@pytest.fixture
def kept():
    """One warm pool for a test's successive runs, as `verify --watch` keeps it: each run still forks
    every check it runs afresh, but six runs need not start six sandboxed zygotes (30 s of the 37 s
    this test took in CI)."""
    held = Kept()
    yield held
    held.close()


def test_a_warm_cache_reruns_only_what_changed(tmp_path, kept):
    root = copy_fixture(tmp_path / "kb", ["good-head-dim", "before-wrong-type"])
    cache_dir = tmp_path / "cache"

    def run() -> dict:
        project, entries = load_kb(root)
        report = verify(project, entries, targets=["bundled"], devices=["cpu", "cuda"], cache_dir=cache_dir, jobs=2,
                        kept=kept)
        return {record.id: record for record in report.checks}

    def rerun(after: dict) -> set[str]:
        return {i for i in ran if not after[i].cached}

    first = run()
    ran = {i for i, r in first.items() if r.outcome.ran}
    assert len(ran) == 6 and not any(first[i].cached for i in ran)
    second = run()
    assert all(second[i].cached for i in ran)
    assert {i: (second[i].outcome, second[i].reason, second[i].verified_at) for i in ran} == \
           {i: (first[i].outcome, first[i].reason, first[i].verified_at) for i in ran}
    assert all(second[i].recorded_at >= first[i].recorded_at and second[i].inputs == first[i].inputs for i in ran)
    assert not any(r.cached for r in second.values() if not r.outcome.ran)
    good = {i for i in ran if i.startswith("good-head-dim::")}

    after = root / "snippets/good-head-dim/after.py"
    after.write_text(after.read_text() + "raise RuntimeError('edited')\n", encoding="utf-8")
    third = run()
    assert rerun(third) == good  # the edited folder's checks only
    assert third["good-head-dim::after[bundled-cpu]"].outcome is Outcome.FAIL

    entry_file = root / "docs/errors/transformers/before-wrong-type.yml"
    entry_file.write_text(entry_file.read_text().replace("exception: ValueError", "exception: TypeError"),
                          encoding="utf-8")
    fourth = run()
    assert rerun(fourth) == {i for i in ran if i.startswith("before-wrong-type::")}
    assert fourth["before-wrong-type::before[bundled-cpu]"].outcome is Outcome.FAIL

    # Each of these kept the cached pass before the key held the whole entry and folder.
    yml = root / "docs/errors/transformers/good-head-dim.yml"
    wording = ("also_seen_as:\n- message: '`head_dim` must have {n} values, one per layer'\n"
               "  exception: ValueError\n  releases: '<5'\nsource:")
    edits = {
        "also_seen_as": lambda: yml.write_text(yml.read_text().replace("source:", wording, 1), encoding="utf-8"),
        "a module in the snippet folder": lambda: ((root / "snippets/good-head-dim/lib").mkdir(),
                                                   (root / "snippets/good-head-dim/lib/shapes.py").write_text("X = 1\n")),
        "a data file in a subfolder": lambda: ((root / "snippets/good-head-dim/data").mkdir(),
                                               (root / "snippets/good-head-dim/data/shape.json").write_text("[4]")),
    }
    for name, edit in edits.items():
        edit()
        assert rerun(run()) == good, name


def test_an_untrusted_cache_is_never_read_nor_written(tmp_path, monkeypatch):
    """A cache a pull request's earlier push could have written (the `rewrite-verdict-cache`
    attack, or a poisoned CI cache) is worth nothing there: a forged pass under the right key is
    served to a trusted run, and never to an untrusted one, which runs every check."""
    root = copy_fixture(tmp_path / "kb", ["before-wrong-type"])
    project, entries = load_kb(root)
    cache_dir = tmp_path / "cache"
    (check,) = [c for c in plan(entries, project, ["bundled"], ["cpu"]) if c.role == "before"]
    verifier = Verifier(project, ["bundled"], cache_dir=cache_dir)
    try:
        key = verifier.key(check)
    finally:
        verifier.close()
    honest = verify(project, entries, ids=["before-wrong-type"], targets=["bundled"], devices=["cpu"], kinds=["before"])
    (record,) = honest.checks
    assert record.outcome is Outcome.FAIL
    forged = record.model_copy(update={"outcome": Outcome.PASS, "code": Code.RAISED_AS_DOCUMENTED, "key": key,
                                       "reason": "forged"})
    VerdictCache(cache_dir).put(key, forged)

    def once(trust: str):
        return verify(project, entries, ids=["before-wrong-type"], targets=["bundled"], devices=["cpu"],
                      kinds=["before"], cache_dir=cache_dir, trust=trust)

    assert once(Trust.TRUSTED).checks[0].reason == "forged", "the threat: a trusted cache is believed"
    files = sorted(cache_dir.rglob("*.json"))
    untrusted = once(Trust.UNTRUSTED)
    (fresh,) = untrusted.checks
    assert (fresh.outcome, fresh.cached) == (Outcome.FAIL, False)
    assert untrusted.run["cache"] == {"hits": 0, "misses": 1, "trust": "untrusted"}
    assert sorted(cache_dir.rglob("*.json")) == files, "an untrusted run writes nothing into the cache"

    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    assert resolve_trust("auto") is Trust.UNTRUSTED and "pull_request" in untrusted_here()
    code = main(["--root", str(root), "verify", "before-wrong-type", "--target", "bundled", "--device", "cpu",
                 "--snippet", "before", "--cache-dir", str(cache_dir)])
    assert code == 1, "the forged pass was not served: the check ran and failed"
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    assert resolve_trust("auto") is Trust.TRUSTED and untrusted_here() is None
    assert resolve_trust("untrusted") is Trust.UNTRUSTED
    assert untrusted_here({"CI_PIPELINE_SOURCE": "merge_request_event"})


def test_a_fix_reconfirmed_from_the_cache_shows_passed_in_the_report_and_on_the_page(tmp_path):
    """pass (cached) → an edit fails → the edit undone: the cache re-confirms the pass with its old
    `verified_at`. The report keeps the record written last, so the page says "verified", not
    "failing · stale" (the merge once kept the newest `verified_at`: the failure, forever)."""
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    after = root / "snippets/good-head-dim/after.py"
    good = after.read_text()
    command = ["--root", str(root), "verify", "--target", "bundled", "--device", "cpu", "--cache-dir",
               str(tmp_path / "cache")]
    check = "good-head-dim::after[bundled-cpu]"

    def standing():
        return {record.id: record for record in read_report(root / "reports" / "latest.json").checks}

    assert main(command) == 0
    first = standing()[check]
    after.write_text(good + "raise KeyError('broken')\n")
    assert main(command) == 1 and standing()[check].outcome is Outcome.FAIL
    after.write_text(good)
    assert main(command) == 0
    record = standing()[check]
    assert (record.outcome, record.cached, record.verified_at) == (Outcome.PASS, True, first.verified_at)
    assert record.recorded_at > first.recorded_at or record.recorded_at == first.recorded_at  # (a fast machine)
    project = load_project(root)
    loaded = load_project_entries(project).entries
    report = read_report(root / "reports" / "latest.json")
    (page,) = build_pages(project, loaded, latest_results([report]))
    cpu = next(b for b in badges(page) if (b.target, b.device) == ("bundled", "cpu"))
    assert cpu.label == "verified", cpu.label
    assert not any(page.is_stale(r) for r in page.records)


def test_records_say_whether_they_ran_or_came_from_the_cache(tmp_path):
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    command = ["--root", str(root), "verify", "--target", "bundled", "--device", "cpu", "--cache-dir",
               str(tmp_path / "cache"), "--report", str(tmp_path / "r.json")]
    assert main(command) == 0
    first = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert main(command) == 0
    second = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert {c["cached"] for c in first} == {False} and {c["cached"] for c in second} == {True}
    assert all("recorded_at" in c and "inputs" in c for c in first + second)


def test_the_verifier_fingerprint_covers_every_file_that_can_change_a_verdict():
    """The files left out of the verifier's fingerprint exist, and are the only ones left out: a
    judge, observer or child change throws the cached verdicts away; the matrix's orchestration does not."""
    verify_folder = Path(cache_module.__file__).parent
    package = verify_folder.parent
    sources = set(cache_module.verdict_sources())
    for name in cache_module.NOT_IN_VERDICTS:
        assert (verify_folder / name).is_file(), f"NOT_IN_VERDICTS names {name}, which errorkb/verify no longer has"
        assert verify_folder / name not in sources
    left_out = {path.name for path in verify_folder.glob("*.py")} - {
        path.name for path in sources if path.parent == verify_folder}
    assert left_out == set(cache_module.NOT_IN_VERDICTS)
    for name in ("judge.py", "engine.py", "sandbox.py", "targets.py", "inside/observer.py", "inside/child.py",
                 "inside/zygote.py", "inside/seal.py", "inside/seccomp.py", "inside/identity.py", "inside/jail.py"):
        assert verify_folder / name in sources, name
    assert set((verify_folder / "inside").glob("*.py")) <= sources
    for path in ("core/entry.py", "core/message.py", "core/snippets.py", "core/releases.py", "core/lint.py",
                 "results/keys.py"):
        assert package / path in sources, path
    assert any(path.parent == package / "plugs" for path in sources)


def _errorkb_imports(path: Path, package: Path) -> set[Path]:
    """The modules of errorkb a file imports (absolute imports, at any depth of the file: lazy ones too)."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("errorkb"):
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.startswith("errorkb"))
    found = set()
    for name in names:
        where = package.joinpath(*name.split(".")[1:])
        for candidate in (where / "__init__.py", where.with_suffix(".py")):
            if candidate.is_file():
                found.add(candidate.resolve())
                break
    return found


def test_every_module_the_verdicts_code_imports_is_in_the_fingerprint_or_exempt_with_a_reason():
    """A module a verdict's code imports (how an entry is loaded, the interpreter a check starts with, the record
    a verdict is written into) changes the verdict as the judge does: left out of the fingerprint, a verdict
    cached under the old code is reused under the new (a pass the new code never observed). Walked from the
    fingerprinted files through their imports; the exemptions name why and must still be reached."""
    verify_folder = Path(cache_module.__file__).resolve().parent
    package = verify_folder.parent
    sources = {path.resolve() for path in cache_module.verdict_sources()}
    not_judging = {verify_folder / name for name in cache_module.NOT_IN_VERDICTS}
    exempt = {name: package / name for name in cache_module.NOT_IN_VERDICTS_ELSEWHERE}
    reached, todo, used = set(), list(sources), set()
    while todo:
        path = todo.pop()
        if path in reached or path in not_judging:
            continue
        reached.add(path)
        for imported in _errorkb_imports(path, package):
            owner = next((name for name, folder in exempt.items() if imported.is_relative_to(folder)), None)
            if owner is not None:
                used.add(owner)
            else:
                todo.append(imported)
    missing = sorted(str(path.relative_to(package)) for path in reached - sources)
    assert not missing, f"imported by the verdict's code, in no fingerprint: {missing} (add to cache._VERIFIER_SOURCES)"
    assert used == set(exempt), f"exempt but no longer imported: {sorted(set(exempt) - used)}"


def test_a_run_answered_from_the_cache_neither_probes_the_sandbox_nor_starts_a_zygote(tmp_path, monkeypatch):
    """A warm re-run costs no bwrap and no torch import: the sandbox is chosen (and the pool made)
    only before the first check that must run."""
    from errorkb.verify import pool, sandbox

    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    command = ["--root", str(root), "verify", "--target", "bundled", "--device", "cpu", "--cache-dir",
               str(tmp_path / "cache"), "--report", str(tmp_path / "r.json")]
    assert main(command) == 0

    def refuse(*args, **kwargs):
        raise AssertionError("the sandbox was probed or a zygote started for a run the cache answers")

    real_init = pool.WorkerPool.__init__
    monkeypatch.setattr(sandbox, "probe", refuse)
    monkeypatch.setattr(pool.WorkerPool, "__init__", refuse)
    assert main([*command, "--sandbox", "require"]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert {c["cached"] for c in report["checks"] if c["outcome"] == "pass"} == {True}
    assert report["run"]["isolation"] == "fork (no check ran)"
    (root / "snippets" / "good-head-dim" / "after.py").write_text(
        (root / "snippets" / "good-head-dim" / "after.py").read_text() + "\n# changed\n")
    # One check must run now: the sandbox is asked for. Zygotes may start in the unprobed sandbox
    # while the probe runs (engine.Verifier._choose); they get no check, and end when it fails.
    monkeypatch.setattr(pool.WorkerPool, "__init__", real_init)
    monkeypatch.setattr(sandbox, "probe", lambda: "bubblewrap is not installed (made up)")
    assert main([*command, "--sandbox", "require"]) == 2  # refused: nothing runs outside the sandbox


def test_a_check_the_harness_cannot_answer_for_fails_alone_and_never_runs(tmp_path, monkeypatch):
    """Asking whether a check may run (or the cache) raising is that check's failure, not the run's;
    and such a check is never run, since nobody could say it may."""
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    project, entries = load_kb(root)

    def broken(self, check):
        raise OSError("made up: cannot read the release's environment")

    monkeypatch.setattr(Verifier, "reason_not_run", broken)
    monkeypatch.setattr(Verifier, "warm", lambda self, checks: pytest.fail("a check nobody could answer for ran"))
    report = verify(project, entries, targets=["bundled"], devices=["cpu"])
    assert report.checks and {record.outcome for record in report.checks} == {Outcome.FAIL}
    assert all("could not judge this check: OSError: made up" in record.reason for record in report.checks)


@pytest.mark.parametrize("edit", ["duplicate key", "NaN", "nested", "long number"])
def test_a_cached_record_json_does_not_read_alike_everywhere_is_a_miss_never_a_verdict(tmp_path, edit):
    """Round fourteen: the cache read its records with pydantic's JSON parser, which keeps the last of a key given
    twice without a word (`{"outcome": "fail", ..., "outcome": "pass"}` was served as a pass) and reads `NaN`;
    the reports' one reader (`store.parse_json`) refuses both, and so does the cache now: a miss, and the check
    runs."""
    project = load_project(Path(__file__).resolve().parents[2])
    (record, *_) = read_report(project.reports / "latest.json").checks
    key = "0" * 64
    good = record.model_copy(update={"key": key, "outcome": Outcome.PASS, "duration_s": 0.5})
    cache = VerdictCache(tmp_path)
    cache.put(key, good)
    path = tmp_path / "verify" / f"{key}.json"
    assert VerdictCache(tmp_path).get(key) is not None, "an honest record is a hit"
    text = path.read_text(encoding="utf-8")
    text = {"duplicate key": text.replace("{", '{"outcome": "fail", ', 1),
            "NaN": text.replace('"duration_s":0.5', '"duration_s":NaN'),
            "nested": text.replace("{", '{"evidence": ' + "{\"a\": " * 40 + "1" + "}" * 40 + ", ", 1),
            "long number": text.replace('"duration_s":0.5', '"duration_s":1' + "0" * 5000 + ".5")}[edit]
    assert text != path.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    reader = VerdictCache(tmp_path)
    assert reader.get(key) is None and reader.misses == 1


def test_what_a_check_is_shown_of_errorkb_is_the_fingerprinted_bytes(monkeypatch):
    """The shadow of the package a check sees (`sandbox.package_shadow`) holds exactly the files of the verifier's
    fingerprint, with the bytes it digested: the process's one read (`sources.verdict_bytes`). Code changed on disk
    since is neither shown nor keyed (no second read: tests/verify/test_containment_round25.py edits between)."""
    from errorkb.verify import sandbox as sandbox_module
    from errorkb.verify import sources

    files = sources.verdict_bytes()
    root = Path(sandbox_module.package_shadow.__wrapped__())
    shown = {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts}
    assert shown == dict(files)
    assert cache_module.fingerprint_of(files) == cache_module.verifier_fingerprint()
    changed = ((files[0][0], files[0][1] + b"\n# edited while it ran\n"), *files[1:])
    for module in (sources, cache_module):
        monkeypatch.setattr(module, "read_verdict_sources", lambda: changed)
    assert Path(sandbox_module.package_shadow.__wrapped__()) == root, "the shadow read the files again"
    assert cache_module.fingerprint_afresh() == cache_module.fingerprint_of(changed), \
        "`watch.identity` reads errorkb's code afresh"
    assert cache_module.verifier_fingerprint() == cache_module.fingerprint_of(files), "the key is the one read's"


def _package_of(tmp_path: Path, monkeypatch) -> Path:
    """A package folder whose `verify/` is what `sources.verdict_sources` lists (in place of errorkb's)."""
    from errorkb.verify import sources

    package = tmp_path / "pkg"
    (package / "verify").mkdir(parents=True)
    (package / "verify" / "judge.py").write_text("VERDICT = 'the keyed judge'\n")
    monkeypatch.setattr(sources, "_PACKAGE", package)
    monkeypatch.setattr(sources, "_HERE", package / "verify")
    monkeypatch.setattr(sources, "_VERIFIER_SOURCES", [package / "verify"])
    return package


@pytest.mark.parametrize("shadow", ["package", "extension-module"])
def test_a_verdict_source_python_would_not_import_is_refused_with_the_file_it_imports(tmp_path, monkeypatch, shadow):
    """A module newly shadowing a verdict source (round twenty-one): `judge/__init__.py`, or a compiled
    `judge.<abi>.so`, beside `judge.py` is what `import errorkb.verify.judge` runs in the harness; the key digested
    `judge.py`, which runs nowhere: a verdict keyed on code it did not come from. Refused, naming both files."""
    import importlib.machinery

    from errorkb.verify import sources

    package = _package_of(tmp_path, monkeypatch)
    if shadow == "package":
        (package / "verify" / "judge").mkdir()
        (package / "verify" / "judge" / "__init__.py").write_text("VERDICT = 'another judge'\n")
        imported = "verify/judge/__init__.py"
    else:
        imported = f"verify/judge{importlib.machinery.EXTENSION_SUFFIXES[0]}"
        (package / imported).write_bytes(b"\x7fELF")
    with pytest.raises(OSError) as raised:
        sources.read_verdict_sources()
    said = str(raised.value)
    assert str(package / "verify" / "judge.py") in said and imported in said and "remove" in said, said


def test_a_verdict_source_or_keyed_file_that_is_no_regular_file_is_refused_never_read(tmp_path, monkeypatch):
    """A FIFO named `*.py` among the verdict sources, or in the bundled package: `read_bytes` waited for a writer
    for ever (a verify that never started). Refused at once, naming it, by the same rule the rehearsal's record
    obeys (errorkb.core.filebytes: one owner)."""
    import os

    from errorkb.core import filebytes
    from errorkb.verify import sources

    package = _package_of(tmp_path, monkeypatch)
    os.mkfifo(package / "verify" / "waits.py")
    with pytest.raises(OSError, match=r"a FIFO, not a regular file.*waits\.py"):
        sources.read_verdict_sources()
    (package / "__init__.py").write_text("")
    monkeypatch.setattr(sources, "package_dirs", lambda name: [package])
    with pytest.raises(OSError, match=r"a FIFO, not a regular file.*waits\.py"):
        sources.keyed_files("pkg")
    assert filebytes.file_digest(str(package / "verify" / "waits.py")) == "no regular file"


def test_the_digest_of_files_tells_apart_every_two_sets_of_files():
    """The digest of a keyed package (and of the verdict sources, and of the rehearsal's code) hashed each name and
    its bytes back to back: `a.py` holding `Xb.pyY` digested as `a.py` holding `X` beside `b.py` holding `Y`, one
    key for two packages. Each name and each file's bytes are now delimited by their length."""
    from errorkb.verify import sources

    assert sources.keyed_digest((("a.py", b"Xb.pyY"),)) != sources.keyed_digest((("a.py", b"X"), ("b.py", b"Y")))


def test_the_verifier_fingerprint_tells_apart_every_two_sets_of_files():
    """As `keyed_digest` (above): the verifier's fingerprint of its sources, by the same one procedure."""
    assert cache_module.fingerprint_of((("a.py", b"Xb.pyY"),)) != \
        cache_module.fingerprint_of((("a.py", b"X"), ("b.py", b"Y")))

"""The warm pool's isolation: fresh state per check, own process group, group kill, no CUDA in CPU checks.

Each test runs real snippets (written to a temporary folder) through one WorkerPool, bound to
the fixture's good entry, and reads back what the snippet saw through a file it wrote.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.records import Status
from errorkb.verify.run import run_check

TORCH = runtime_for("torch")
MODULE = "transformers.cache_utils"


def judge(check, run):
    return judge_with(check, run, TORCH)


@pytest.fixture(scope="module")
def pool(broken_kb):
    project, _ = broken_kb
    with WorkerPool(project.library, ["transformers:DynamicCache", "transformers:LlamaConfig"]) as warm:
        yield warm


@pytest.fixture(scope="module")
def entry(broken_kb):
    _, entries = broken_kb
    return next(one.entry for one in entries if one.entry.id == "good-head-dim")


def check_for(entry, folder: Path, code: str, role: str = "after") -> Check:
    snippet = folder / f"{role}.py"
    snippet.write_text(code, encoding="utf-8")
    return Check(entry, read_snippet(snippet, Role(role), snippet.name), "bundled", "cpu", MODULE)


CALL = """
import torch
from transformers import DynamicCache, LlamaConfig
cache = DynamicCache(config=LlamaConfig(num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4, hidden_size=256))
cache.early_initialization(1, 4, 64, torch.float32, "cpu")
"""


def test_a_cpu_check_sees_no_cuda_and_the_zygote_never_initialised_it(pool, entry, tmp_path):
    seen = tmp_path / "seen.json"
    code = f"""import json, os, sys, torch
json.dump({{"visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "initialized_at_start": torch.cuda.is_initialized(),
           "available": torch.cuda.is_available(), "pid": os.getpid(), "pgid": os.getpgid(0),
           "ppid": os.getppid()}}, open({str(seen)!r}, "w"))
""" + CALL
    run = pool.run(check_for(entry, tmp_path, code), timeout=30)
    facts = json.loads(seen.read_text())
    assert facts == {**facts, "visible": "", "initialized_at_start": False, "available": False}
    assert facts["pgid"] == facts["pid"], "each check leads its own process group"
    assert facts["ppid"] != os.getpid(), "forked by the zygote, not by the test process"
    assert judge(check_for(entry, tmp_path, code), run).outcome == "pass"


def test_every_check_starts_from_the_pristine_zygote(pool, entry, tmp_path):
    marker = tmp_path / "marker.txt"
    dirty = "import torch, transformers\ntorch.errorkb_marker = 1\ntransformers.errorkb_marker = 1\n" + CALL
    probe = (f"import torch, transformers\nopen({str(marker)!r}, 'w').write("
             "repr((hasattr(torch, 'errorkb_marker'), hasattr(transformers, 'errorkb_marker'))))\n") + CALL
    assert pool.run(check_for(entry, tmp_path, dirty), timeout=30).observation.status is Status.RETURNED
    pool.run(check_for(entry, tmp_path, probe), timeout=30)
    assert marker.read_text() == "(False, False)"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


@pytest.mark.parametrize("hang", [True, False], ids=["timeout", "exited"])
def test_the_whole_process_group_is_killed(pool, entry, tmp_path, hang):
    """A snippet's own child process dies with it, whether it timed out or exited normally."""
    pidfile = tmp_path / "grandchild.pid"
    code = (f"import subprocess, time\np = subprocess.Popen(['sleep', '60'])\nopen({str(pidfile)!r}, 'w').write(str(p.pid))\n"
            + CALL + ("while True:\n    time.sleep(0.05)\n" if hang else ""))
    # A backstop of 8 s, not the 33 s the default gives a 3 s limit: the snippet reaches its loop in
    # 0.05-0.15 s from the warm zygote, measured at a load of 40-250 on this 2-core machine.
    run = pool.run(check_for(entry, tmp_path, code), timeout=3, wall_s=8 if hang else None)
    assert run.timed_out is hang
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_output_is_capped_and_captured(pool, entry, tmp_path):
    run = pool.run(check_for(entry, tmp_path, "print('hello from the snippet')\n" + CALL), timeout=30)
    assert "hello from the snippet" in run.output
    flood = pool.run(check_for(entry, tmp_path, CALL + "while True:\n    print('x' * 65536)\n"), timeout=30)
    assert flood.output_size >= flood.output_cap and len(flood.output) <= flood.output_cap


def test_a_dead_worker_fails_the_check_it_held_and_the_pool_recovers(pool, entry, tmp_path):
    code = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(1)\n" + CALL
    run = pool.run(check_for(entry, tmp_path, code), timeout=10)
    check = check_for(entry, tmp_path, code)
    assert judge(check, run).reason.startswith("the verifier's worker died")
    again = check_for(entry, tmp_path, CALL)
    assert judge(again, pool.run(again, timeout=30)).outcome == "pass"


def test_subprocess_isolation_gives_the_same_verdicts(records, broken_kb, lean_python):
    """The plain runner (a new interpreter per check) and the pool share the observe code. (The fresh
    interpreters are the lean one, tests/lean.py: none of these snippets uses hqq.)"""
    from concurrent.futures import ThreadPoolExecutor

    project, entries = broken_kb
    chosen = {("good-head-dim", "before"), ("before-os-exit", "before"), ("before-crash", "before"),
              ("after-replaces-class", "after")}
    checks = [Check(one.entry, read_snippet(project.snippet_path(one.entry.id, file), role, file), "bundled", "cpu",
                    MODULE)
              for one in entries for role, file in one.entry.snippet_files() if (one.entry.id, role) in chosen]
    assert len(checks) == len(chosen)
    with ThreadPoolExecutor(2) as threads:
        verdicts = list(threads.map(lambda check: judge(check, run_check(check, project.library, 120, lean_python)),
                                    checks))
    for check, verdict in zip(checks, verdicts):
        fork = records[check.id]
        assert (verdict.outcome, verdict.code, verdict.reason) == (fork.outcome, fork.code, fork.reason), check.id


def test_a_target_module_that_does_not_import_is_a_setup_failure_that_names_it(pool, entry, tmp_path):
    """A module missing from the release (Mamba before 4.39): the zygote cannot prepare it, and the
    verdict says why, as a fresh interpreter would, instead of "exited without reporting"."""
    check = check_for(entry, tmp_path, "print('never runs')\n")
    missing = Check(check.entry, check.snippet, "bundled", "cpu", "transformers.models.no_such_model")
    run = pool.run(missing, 60)
    verdict = judge(missing, run)
    assert run.observation is not None and run.observation.status is Status.SETUP_FAILED
    assert verdict.code.value == "setup-failed"
    assert "No module named 'transformers.models.no_such_model'" in verdict.reason


COLLECTOR = "import gc, json\nprint('collector:', json.dumps([gc.isenabled(), gc.get_threshold()]))\n"


def test_a_check_finds_the_collector_as_python_starts_it(pool, entry, broken_kb, tmp_path, lean_python):
    """The check's process imports the runtime and the target with the cyclic collector off (`child.prepare`):
    the snippet finds it on again, with the thresholds a fresh interpreter starts with, forked or fresh."""
    import subprocess

    project, _ = broken_kb
    fresh = subprocess.run([str(lean_python), "-c", COLLECTOR], capture_output=True, text=True, check=True).stdout
    assert fresh.startswith("collector: [true, "), fresh
    check = check_for(entry, tmp_path, COLLECTOR + CALL)
    for run in (run_check(check, project.library, 120, lean_python), pool.run(check, 120)):
        assert fresh in run.output, run.output


FROZEN = "import gc\nprint('frozen:', gc.get_freeze_count() >= 50_000, gc.isenabled())\n"


def test_a_check_finds_what_was_loaded_before_it_frozen_forked_or_fresh(pool, entry, broken_kb, tmp_path, lean_python):
    """What the check's process loaded before the snippet (the runtime, the target: hundreds of thousands of objects)
    is in the collector's permanent generation when the snippet starts, in a fresh interpreter as in a zygote's fork:
    no collection of the observer's copies or of the snippet walks it again (0.5 s of CPU a fresh check spent so:
    `benchmarks/fresh_check_collector.py`), and the snippet meets one collector in both isolation modes."""
    project, _ = broken_kb
    check = check_for(entry, tmp_path, FROZEN + CALL)
    for run in (run_check(check, project.library, 120, lean_python), pool.run(check, 120)):
        assert "frozen: True True" in run.output, run.output
        assert judge(check, run).outcome == "pass"


def test_a_zygote_prepares_the_modules_it_will_serve_before_its_first_check(broken_kb, entry, tmp_path, lean_python):
    """Started for every module it will serve (`WorkerPool.warm`), a CPU zygote prepares them all before it copies
    the namespaces it forks with, once, instead of once more before the first check of each module (a walk of
    every object it holds: benchmarks/zygote_modules.py). The first check already finds the other module loaded;
    a served module that cannot be prepared fails its own checks, and only them."""
    project, _ = broken_kb
    served = ["transformers.models.mamba.modeling_mamba", "transformers.models.no_such_model", MODULE]
    seen = tmp_path / "seen.json"
    code = f"import json, sys\njson.dump(sorted(sys.modules), open({str(seen)!r}, 'w'))\n" + CALL
    check = check_for(entry, tmp_path, code)
    first = Check(check.entry, check.snippet, "upstream", "cpu", MODULE)
    missing = Check(check.entry, check.snippet, "upstream", "cpu", "transformers.models.no_such_model")
    with WorkerPool(project.library, ["transformers:DynamicCache", "transformers:LlamaConfig"]) as warm:
        warm.warm({("upstream", "cpu", module, str(lean_python), ()) for module in served})
        assert judge(first, warm.run(first, 120, lean_python)).outcome == "pass"
        assert "transformers.models.mamba.modeling_mamba" in json.loads(seen.read_text())
        verdict = judge(missing, warm.run(missing, 120, lean_python))
        assert verdict.code.value == "setup-failed", verdict.reason
        assert "No module named 'transformers.models.no_such_model'" in verdict.reason
        assert len(warm.zygotes) == 1


BEFORE_THE_SNIPPET = """
import dataclasses, json, sys
from errorkb.verify.inside import child, zygote
from errorkb.verify.inside.spec import LibrarySpec
library = LibrarySpec.from_dict(json.loads(sys.argv[1]))
assert child.prepare("upstream", "transformers.cache_utils", library, freeze=True).error is None
zygote._snapshot(child, "upstream", library)
walked = set(sys.modules)
child._package_roots(tuple(library.backends))  # what each check's `observer_config` asks before its snippet
print(json.dumps(sorted(set(sys.modules) - walked)))
"""


def test_a_forked_check_s_set_up_finds_the_module_table_its_zygote_walked(broken_kb, lean_python):
    """A zygote walks its module table once before it forks (`observer._reader_modules`, `snapshot_trusted`), for
    every check to reuse while the table is unchanged. Each check's set-up asked where the profile's backends lie, and
    the question imported their parent package where the target had not (`optimum`, upstream): every upstream check
    found a table its zygote never walked, and walked it again (a third of a forked check's CPU,
    benchmarks/forked_check.py). The zygote now asks first."""
    import dataclasses
    import subprocess

    from errorkb.verify.run import library_spec

    project, _ = broken_kb
    assert project.library.backends, "the fixture's profile names a backend"
    done = subprocess.run([str(lean_python), "-P", "-c", BEFORE_THE_SNIPPET,
                           json.dumps(dataclasses.asdict(library_spec(project.library)))],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(Path(__file__).parents[2])))
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_runtime_modules_the_library_imports_on_first_call_are_found_in_its_loaded_modules(tmp_path, monkeypatch):
    """`zygote.lazy_runtime_modules`: what the runtime plug's `preload_names` finds in every loaded module of the
    target (an import inside a function, met on its first call), each once; a module outside the target's roots is
    not read, whatever it names."""
    import re
    import sys

    from errorkb.verify.inside.zygote import lazy_runtime_modules

    library, elsewhere = tmp_path / "demo_lib", tmp_path / "demo_other"
    for folder, files in ((library, {"__init__.py": "from demo_lib import a, b\n",
                                     "a.py": "def compiling():\n    import demo_rt.lazy\n    return demo_rt.lazy\n",
                                     "b.py": "def again():\n    import demo_rt.lazy, demo_rt.loaded\n"}),
                          (elsewhere, {"__init__.py": "def other():\n    import demo_rt.other\n"})):
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("demo_lib", "demo_lib.a", "demo_lib.b", "demo_other"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import demo_lib  # noqa: F401
    import demo_other  # noqa: F401

    loaded = {"demo_rt.loaded"}

    def preload_names(text: str) -> list[str]:  # as the torch plug's: what the source names, less what is loaded
        return sorted({f"demo_rt.{name}" for name in re.findall(r"\bdemo_rt\.(\w+)", text)} - loaded)

    assert lazy_runtime_modules(preload_names, ("demo_rt",), (str(library) + "/",)) == ["demo_rt.lazy"]
    assert lazy_runtime_modules(preload_names, ("demo_rt",), (str(tmp_path / "nothing") + "/",)) == []
    assert lazy_runtime_modules(preload_names, ("other_rt",), (str(library) + "/",)) == []  # not the runtime's


@pytest.mark.upstream
@pytest.mark.environments
def test_a_release_zygote_loads_the_runtime_module_its_library_imports_on_first_call(tmp_path):
    """transformers 4.41.2 imports `torch._dynamo` inside `is_torchdynamo_compiling` (called by `generate` and the
    attention masks): about 1 s of CPU that every forked check paid again. The release's zygote imports it once,
    before its first fork; its own interpreter, with the library and the target module loaded, has not."""
    import subprocess

    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.source.upstream import matrix_env
    from errorkb.verify.engine import plan_checks
    from tests.conftest import missing

    project = load_project(Path(__file__).resolve().parents[2])
    (planned,) = plan_checks(project, load_project_entries(project).entries, ids=["extract-past-from-model-output-unpack"],
                             targets=["upstream"], devices=["cpu"], kinds=["after"])
    release = planned.release
    assert release == "4.41.2", release  # the entry's pin: the full tier builds its environment
    python = matrix_env(project, release) / "bin" / "python"
    if not (matrix_env(project, release) / ".errorkb-ready").is_file():
        missing(f"the release environment of {release} is not built (errorkb matrix --environments-only)")
    alone = subprocess.run([str(python), "-c", f"import sys, {planned.module}; from transformers import "
                            "LlamaForCausalLM; print('torch._dynamo' in sys.modules)"],
                           capture_output=True, text=True, check=True).stdout
    assert alone.strip() == "False", alone
    seen = tmp_path / "seen.json"
    snippet = tmp_path / "after.py"
    snippet.write_text(f"import json, sys\njson.dump(sorted(sys.modules), open({str(seen)!r}, 'w'))\n")
    check = Check(planned.entry, read_snippet(snippet, Role("after"), snippet.name), "upstream", "cpu",
                  planned.module, release)
    with WorkerPool(project.library, ["transformers:LlamaForCausalLM"]) as warm:
        run = warm.run(check, 120, python)
    assert seen.is_file(), (run.observation, run.output)
    assert "torch._dynamo" in json.loads(seen.read_text())


# `python -m MODULE` puts the folder it runs in first on the import path, before the standard library
# (core/interpreter.py): a zygote or stem started so from a stranger's repository imported its `json.py` outside
# any sandbox, and a fresh check's interpreter the `json.py` beside its snippet before its observer was installed.
PLANTED = ("import os, sys\nopen(os.path.join({mark!r}, 'RAN-' + str(os.getpid())), 'w').write(repr(sys.argv))\n"
           "sys.path[:] = [entry for entry in sys.path if entry not in ('', {here!r})]\n"
           "del sys.modules['json']\nimport json as _json\nglobals().update(vars(_json))\n")


def test_no_interpreter_the_verifier_starts_imports_a_module_of_its_folder(broken_kb, entry, tmp_path, monkeypatch,
                                                                           lean_python):
    from errorkb.verify.pool import Stem

    project, _ = broken_kb
    marks, here, snippets = tmp_path / "marks", tmp_path / "here", tmp_path / "snippets"
    for folder in (marks, here, snippets):
        folder.mkdir()
    for folder in (here, snippets):  # where the harness runs, and beside the snippet (a fresh check's folder)
        (folder / "json.py").write_text(PLANTED.format(mark=str(marks), here=str(folder)), encoding="utf-8")
    monkeypatch.chdir(here)
    check = check_for(entry, snippets, CALL)
    assert judge(check, run_check(check, project.library, 120, lean_python)).outcome == "pass"
    with WorkerPool(project.library, ["transformers:DynamicCache", "transformers:LlamaConfig"]) as warm:
        assert judge(check, warm.run(check, 120, lean_python)).outcome == "pass"
    stem = Stem(lean_python, [], tmp_path, project.library)  # (says it lacks the runtime: this one is no release's,
    try:                                                       # whose environment shares it; it started, and read)
        assert stem.hello.wait(120), "the stem did not start"
    finally:
        if stem.process is not None:
            stem.process.kill()
    assert [path.read_text() for path in marks.iterdir()] == []


# -- a pool kept past its run for the next run that would start the same one (engine.Shelf) -----------------------


def _outcomes(report) -> dict[str, tuple[str, str]]:
    return {record.id: (record.outcome, record.code) for record in report.checks}


def _pool_alive(shelved) -> bool:
    pool = shelved[1]
    return any(zygote.process is not None and zygote.process.poll() is None for zygote in pool.zygotes.values())


def test_a_run_that_would_start_the_same_pool_takes_the_shelved_one_and_reads_alike(tmp_path, lean_checks):
    """Test sessions verify the same project again and again, each run's pool importing the runtime and the library
    anew; on the shelf the second run forks its checks from the first's zygotes, with the same verdicts."""
    from errorkb.verify import engine
    from tests.verify.verifykb import copy_fixture, load_kb, needs_sandbox

    needs_sandbox(skip=False)
    root = copy_fixture(tmp_path / "kb", ["good-head-dim", "before-wrong-type"])
    project, entries = load_kb(root)
    with engine.shelved_pools() as shelf:
        first = engine.verify(project, entries, targets=["bundled"], devices=["cpu"])
        (held,) = shelf.held
        pids = sorted(zygote.process.pid for zygote in held[1][1].zygotes.values())
        second = engine.verify(project, entries, targets=["bundled"], devices=["cpu"])
        assert (shelf.hits, shelf.misses) == (1, 1)
        assert shelf.held[0][1] is held[1] and _pool_alive(held[1])
        assert sorted(zygote.process.pid for zygote in held[1][1].zygotes.values()) == pids, "a zygote started again"
        assert second.run["isolation"] == first.run["isolation"]
    assert not _pool_alive(held[1]), "the shelf's pools end with it"
    assert _outcomes(second) == _outcomes(first) and len(first.checks) == 6
    assert {code for _, code in _outcomes(first).values()} >= {"raised-as-documented"}


def test_whatever_could_change_what_a_zygote_holds_or_shows_starts_another_pool(tmp_path, lean_checks, monkeypatch):
    """The key holds all that decides a zygote: a module the project could import, an environment variable, a
    replaced function of the harness, a folder the sandbox would now hide (made after the first run). Each makes a new pool, and the old one
    ends (one idle pool at most); what a check reads in its own process (a snippet) does not."""
    from errorkb.verify import engine, run
    from tests.verify.verifykb import copy_fixture, load_kb, needs_sandbox

    needs_sandbox(skip=False)
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    child_env = run.child_env
    edits = {
        "a snippet (read by the check's own process)": lambda: (root / "snippets/good-head-dim/after.py").write_text(
            (root / "snippets/good-head-dim/after.py").read_text() + "\n# saved again\n"),
        "a module at the project's root": lambda: (root / "helpers.py").write_text("X = 1\n"),
        "an environment variable": lambda: monkeypatch.setenv("ERRORKB_SHELF_TEST", "1"),
        "a function of the harness": lambda: monkeypatch.setattr(run, "child_env",
                                                                 lambda *a, **k: child_env(*a, **k)),
        ".git, a folder the sandbox now hides": lambda: (root / ".git").mkdir(),
    }
    with engine.shelved_pools() as shelf:
        project, entries = load_kb(root)
        engine.verify(project, entries, targets=["bundled"], devices=["cpu"], kinds=["after"])
        for name, edit in edits.items():
            (before,) = shelf.held
            edit()
            project, entries = load_kb(root)
            report = engine.verify(project, entries, targets=["bundled"], devices=["cpu"], kinds=["after"])
            assert [record.outcome for record in report.checks] == ["pass"], name
            (after,) = shelf.held
            if name.startswith("a snippet"):
                assert after[1] is before[1], f"{name}: a new pool"
                continue
            assert after[1] is not before[1], f"{name}: the shelved pool served"
            assert not _pool_alive(before[1]), f"{name}: the old pool still runs"
        assert (shelf.hits, shelf.misses) == (1, len(edits))


def test_an_interrupted_run_s_pool_is_never_shelved(tmp_path, lean_checks):
    """An interrupted run ends the checks still running by closing its pool: none of that pool serves again."""
    from errorkb.verify import engine
    from tests.verify.verifykb import copy_fixture, load_kb

    root = copy_fixture(tmp_path / "kb", ["good-head-dim"])
    project, entries = load_kb(root)
    with engine.shelved_pools() as shelf:
        verifier = engine.Verifier(project, ["bundled"], sandbox="off")
        verifier.preload([])
        checks = engine.plan_checks(project, entries, targets=["bundled"], devices=["cpu"], kinds=["after"])
        verifier.warm(checks)
        record = verifier.record(checks[0])
        assert record.outcome == "pass"
        chosen = verifier._chosen
        verifier.stopped = True
        verifier.close()
        assert shelf.held == [] and not _pool_alive(chosen)

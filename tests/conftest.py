"""Shared test set-up: the fixtures of the site and verifier suites, the project root, the
`--slow` switch for long property runs, and the two tiers. The suite is a package: helpers are
imported as `tests.kb` (the one knowledge-base builder), `tests.site.sitekb`, `tests.verify.verifykb`.

Tiers (`scripts/test.sh`, `scripts/test.sh --quick`):

- **quick** (`ERRORKB_TEST_TIER=quick`: the tests marked with any of `QUICK_DESELECTS` deselected,
  as `-m "not (browser or upstream or ...)"` would): the unit tier,
  for the inner loop. Every test that runs snippets, verifies the knowledge base, drives a
  browser, needs the real transformers or its release environments, starts `mkdocs serve` or
  runs the adversarial fixture carries one of the deselected markers: given by hand in its
  module, or here (`_tier_markers`) from the fixtures it uses and the modules below. The quick
  tier holds itself to that: a test in it that starts a snippet's process fails, naming the
  marker to add.
- **full** (`ERRORKB_TEST_TIER=full`, the README's and CI's command): everything, and what the
  security and parity tests need is *required*: where bubblewrap, Node (playwright's driver) or
  Chromium is missing the session fails at once, saying what to install, never skips.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.kb import ROOT

pytest_plugins = ["tests.lean", "tests.site.sitekb", "tests.verify.verifykb", "tests.verify.adversarial"]

# Markers the quick tier deselects (registered in pyproject.toml's [tool.pytest.ini_options]).
QUICK_DESELECTS = ("browser", "upstream", "slow", "kb", "verifier", "adversarial", "environments", "serve")

# A test that uses one of these fixtures gets the marker (pytest knows every fixture a test
# uses, however indirectly).
FIXTURE_MARKERS = {
    "chromium": "browser", "visit": "browser", "site_url": "browser",
    "kb_report": "kb",
    "broken_report": "verifier", "records": "verifier",
    "adversarial_run": "adversarial",
}

# Modules (and single tests, module::name) of the full tier only. Modules not listed are unit
# tests, except for what their own marks and their fixtures say. The quick tier found the single
# tests: each started a snippet's process (`_quick_tier_runs_no_snippet`).
MODULE_MARKERS = {
    "tests/verify/test_adversarial.py": ("adversarial", "verifier"),
    "tests/verify/test_adversarial_judging.py": ("adversarial", "verifier"),
    "tests/verify/test_sandbox.py": ("verifier",),
    "tests/verify/test_stem.py": ("verifier", "environments"),
    "tests/verify/test_verify_pool.py": ("verifier",),
    "tests/verify/test_verify_kinds.py": ("verifier",),
    "tests/verify/test_verify_cache.py": ("verifier",),
    "tests/verify/test_verify_fixture_kb.py": ("verifier",),
    "tests/verify/test_verify_pytest_plugin.py": ("verifier",),
    "tests/verify/test_verify_shard.py": ("verifier", "environments"),
    "tests/verify/test_torch_error_caught.py": ("verifier",),
    "tests/test_knowledge_base.py": ("kb", "verifier"),
    "tests/verify/test_library_globals.py": ("verifier",),
    "tests/verify/test_wrapped_signature.py": ("verifier",),
    "tests/test_second_library.py": ("verifier",),
    # Single tests (module::name, any parameters) that run snippets in modules of unit tests.
    "tests/test_authoring.py::test_check_names_drafts_and_verify_lists_what_is_missing_in_order": ("verifier",),
    "tests/test_reports_merge.py::test_matrix_for_one_entry_and_release_keeps_every_other_result": ("verifier",),
    "tests/test_reports_merge.py::test_reverifying_one_entry_changes_only_its_records_in_the_standing_report":
        ("verifier",),
    "tests/test_snippets.py::test_a_snippet_with_windows_line_endings_is_not_stale_after_verification": ("verifier",),
    "tests/test_versions.py::test_run_release_verifies_inside_the_release_s_interpreter": ("verifier", "environments"),
    "tests/test_versions.py::test_a_rerun_answers_from_the_cache_and_runs_only_what_changed":
        ("verifier", "environments"),
    "tests/test_versions.py::test_the_shared_modules_a_release_loads_are_measured_in_its_own_interpreter_once":
        ("environments",),
    "tests/verify/test_verify_cli_output.py::test_snippet_output_and_exception_text_are_inert_in_ci_logs": ("verifier",),
    "tests/kvcache/test_kvcache_surface.py": ("upstream",),  # as their own marks say: listed here so
    "tests/kvcache/test_kvcache_properties.py": ("upstream",),  # the quick tier does not even import them
    "tests/kvcache/test_kvcache_raise_sites.py": ("upstream",),  # (upstream transformers: seconds)
    "tests/kvcache/test_kvcache_quantized.py": ("upstream",),
    "tests/site/test_serve.py": ("serve",),
    "tests/site/test_search.py": ("browser",),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="run long tests (property-based suites at full size)")


def tier() -> str:
    """`quick`, `full`, or `` (a plain `pytest`: nothing deselected, nothing required)."""
    return os.environ.get("ERRORKB_TEST_TIER", "")


# -- every core (pytest-xdist, `-n N --dist loadgroup` in scripts/test.sh) --------------------------
#
# Each worker is its own process with its own session fixtures. A test that uses one of the
# session's expensive fixtures joins that fixture's group, and a group runs on one worker, so the
# knowledge base is verified once, each adversarial mode runs once, the broken fixture is verified
# once and each shared site is built once; every other test is grouped with its module (whose
# module-scoped fixtures then run once). The expensive groups are queued first, in this order (the
# scheduler hands a worker its next group when it runs low), so no worker starts one last. A new
# session fixture that takes minutes belongs here.
EXPENSIVE_GROUPS = (  # (fixture, group); a test joins the first one it uses
    ("kb_report", "kb"),
    ("adversarial_run[subprocess]", "adversarial-subprocess"),
    ("adversarial_run[fork]", "adversarial-fork"),
    ("broken_report", "broken-kb"),
    ("real_site", "browser"),
    ("real_pages", "real-pages"),
    ("real_page_sources", "real-pages"),
    ("site_url", "browser"),
    ("chromium", "browser"),
)

# The module groups that take longest, queued right after the expensive groups, longest first: a worker
# takes its next group when it is nearly done with its last, so a long module queued last made one worker
# run on alone while the others had finished (CI's quiet run of 2026-12-05: the workers ended at 666, 669 and
# 709 s, the last with test_without.py, 58 s, started at 650 s). Longest first leaves short groups for the
# end. Wall clock of each module in that run (`python -m tests.cpu_log LOG` lists them); a module missing
# here only loses its place in the queue, a path that no longer exists stops the session (`pytest_configure`).
LONG_MODULES = (
    "tests/test_reports_write.py",  # 72 s
    "tests/verify/test_without.py",  # 58 s
    "tests/site/test_live.py",  # 55 s
    "tests/verify/test_sandbox.py",  # 54 s
    "tests/verify/test_observer.py",  # 121 s then; its cases now fork from a lean parent: 40 s of CPU alone
    "tests/test_hostile_input.py",  # 36 s
    "tests/site/test_lookup_js.py",  # 32 s
    "tests/verify/test_stem.py",  # 32 s
    "tests/verify/test_verify_interrupted.py",  # 31 s
    "tests/site/test_build.py",  # 30 s
    "tests/test_packaging.py",  # 30 s
    "tests/verify/test_verify_cache.py",  # 29 s
)


# pytest-timeout's limit (600 s, pyproject) covers a test's fixtures too, so the first test of an
# expensive group also pays for its session fixture: the knowledge base's whole verification took
# over 600 s in a fresh-clone run with the other worker's adversarial run beside it, and all four of
# its tests errored. Every test of an expensive group gets this limit unless it sets its own.
SETUP_TIMEOUT = 3600


def xdist_group(item: pytest.Item) -> str:
    """The group `item` runs in: its expensive fixture's, or its module's."""
    fixtures = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    for fixture, group in EXPENSIVE_GROUPS:
        name, _, param = fixture.partition("[")
        if name in fixtures and (not param or params.get(name) == param.rstrip("]")):
            return group
    return _module(item.path) or item.nodeid.split("::")[0]


def pytest_configure(config: pytest.Config) -> None:
    """Before any worker starts: every module of errorkb compiled, so that no test writes a `.pyc`
    into the repository's package while another worker's adversarial run watches it for changes
    (tests/verify/adversarial.py: `snapshot`); a compiled module that is up to date is not written again.
    The bundled package too: a check's sandbox shows it read-only, so without its bytecode every fresh
    interpreter of a check (`--isolation subprocess`: one per check) and every zygote compiled it anew."""
    if hasattr(config, "workerinput"):
        return
    gone = [module for module in LONG_MODULES if not (ROOT / module).is_file()]
    if gone:
        raise pytest.UsageError(f"tests/conftest.py: LONG_MODULES names modules that do not exist: {gone}; "
                                "remove them or name the module they became")
    import compileall

    from errorkb.core.project import load_project

    bundled = load_project(ROOT).library.bundled  # the knowledge base's package, in the repository
    for package in ("errorkb", *([bundled.split(".")[0]] if bundled else [])):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    _compile_the_tests(config)


# Where nothing writes bytecode (PYTHONDONTWRITEBYTECODE, as on CI's machine) every worker compiled each test
# module, and rewrote its asserts, anew at collection: 2-3 s of CPU per worker here. Done once, before any
# worker starts, as pytest itself would cache it (a module changed since is compiled again, as always).
REWRITTEN = {"conftest.py", *(f"{name.replace('.', '/')}.py" for name in pytest_plugins)}


def _compile_the_tests(config: pytest.Config) -> None:
    import compileall

    try:  # pytest's own cache of rewritten modules: a speed-up only, so without it the workers do it as before
        from _pytest.assertion import rewrite
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc, get_cache_dir
    except ImportError:
        return
    state = config.stash.get(rewrite.assertstate_key, None)
    if state is None:  # --assert=plain: nothing is rewritten
        return
    for path in (ROOT / "tests").rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(("tests/fixtures/", "tests/corpus/")):
            continue  # snippets and inputs, which the tests copy or read: never imported by the session
        if not (path.name.startswith("test_") or path.name in REWRITTEN or relative in REWRITTEN):
            compileall.compile_file(str(path), quiet=1)
            continue
        pyc = get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc) is None and rewrite.try_makedirs(pyc.parent):
            source_stat, code = _rewrite_test(path, config)
            _write_pyc(state, code, source_stat, pyc)


def _group_order(group: str) -> int:
    """Where `group` is queued: the expensive groups (below `len(EXPENSIVE_GROUPS)`), then `LONG_MODULES`,
    then every other module in collection order."""
    names = [name for _, name in EXPENSIVE_GROUPS]
    if group in names:
        return names.index(group)
    if group in LONG_MODULES:
        return len(names) + LONG_MODULES.index(group)
    return len(names) + len(LONG_MODULES)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the `xdist_group` marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker in _tier_markers(item):
            item.add_marker(marker)
        if _group_order(xdist_group(item)) < len(EXPENSIVE_GROUPS) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SETUP_TIMEOUT))
    if hasattr(config, "workerinput"):  # a worker of `-n`: every worker collects, in the same order
        groups = {item.nodeid: xdist_group(item) for item in items}
        for item in items:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
        items.sort(key=lambda item: _group_order(groups[item.nodeid]))  # stable: modules keep their order
    if tier() == "quick":  # as `-m "not (browser or upstream or ...)"` would
        dropped = [item for item in items if any(item.get_closest_marker(name) for name in QUICK_DESELECTS)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if item not in set(dropped)]


# -- where the CPU goes: ERRORKB_CPU_LOG=path appends one JSON line per test ------------------------
#
# A busy machine stretches wall-clock durations (`--durations`) by its load; CPU time (user + sys,
# this process and the processes it waited for: mkdocs builds, CLIs, the checks) does not. Each
# worker appends its lines, so the log covers a parallel run; `{"collection": ...}` is the CPU a
# process spent before its first test (start-up and collection). Sort it with
# `python -m tests.cpu_log PATH`.


def _cpu_seconds() -> float:
    """CPU time (user + sys) of this process and every process it started, in seconds: from the
    process's own cpuacct cgroup where one could be made (`_own_cgroup`), else from rusage."""
    if _CGROUP is not None:
        try:
            return int((_CGROUP / "cpuacct.usage").read_text()) / 1e9
        except OSError:
            pass
    return _rusage_seconds() + _unreaped_cpu()


def _rusage_seconds() -> float:
    import resource

    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


# A cgroup (v1 cpuacct) of this test process alone, which every process it starts joins: it counts the CPU
# that rusage cannot see. bwrap does not pass its sandbox's CPU on to its parent (the outer bwrap exits
# without waiting for the namespace's init): with rusage alone a sandboxed zygote's 7 s of CPU counted as
# nothing, and a zygote reaped in a later test counted there (a 0.04 s test once showed 60 s). Made only
# with ERRORKB_CPU_LOG, where the machine lets this process make one (root, cgroup v1); left at the end.
_CGROUP: Path | None = None


def _own_cgroup() -> Path | None:
    try:
        current = next(line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                       if line.split(":", 2)[1] == "cpuacct")
        parent = Path("/sys/fs/cgroup/cpuacct") / current.lstrip("/")
        for stale in parent.glob("errorkb-tests-*"):  # an earlier run's, left while its last process ended
            if not Path(f"/proc/{stale.name.rsplit('-', 1)[1]}").exists():
                try:
                    stale.rmdir()  # refused unless empty
                except OSError:
                    pass
        folder = parent / f"errorkb-tests-{os.getpid()}"
        folder.mkdir(exist_ok=True)
        (folder / "cgroup.procs").write_text(str(os.getpid()))
        return folder
    except (OSError, StopIteration, IndexError):
        return None


def _leave_cgroup() -> None:
    global _CGROUP
    if _CGROUP is None:
        return
    import time

    try:
        (_CGROUP.parent / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        pass
    for _ in range(40):  # refused while a process started here is still ending; the next run removes it
        try:
            _CGROUP.rmdir()
            break
        except OSError:
            time.sleep(0.05)
    _CGROUP = None


def _unreaped_cpu() -> float:
    """CPU of this process's descendants not reaped yet (running, or exited and unwaited): a warm
    pool's zygote, say. RUSAGE_CHILDREN counts a child only once it is waited for (and then in whichever
    test reaps it). Still missed: a sandbox's processes once they end, and any process reaped outside this
    tree (hence the cgroup, where there is one)."""
    total, stack = 0, [os.getpid()]
    while stack:
        pid = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as children:
                    found = [int(child) for child in children.read().split()]
            except OSError:
                continue
            for child in found:
                try:
                    with open(f"/proc/{child}/stat", encoding="utf-8", errors="replace") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime, in ticks
                stack.append(child)
    return total / os.sysconf("SC_CLK_TCK")


def _cpu_log(line: dict) -> None:
    import json

    with open(os.environ["ERRORKB_CPU_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({**line, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main")}) + "\n")


def pytest_collection_finish(session: pytest.Session) -> None:
    global _CGROUP
    if os.environ.get("ERRORKB_CPU_LOG"):
        _CGROUP = _CGROUP or _own_cgroup()  # from here on, what this process starts is counted there
        _cpu_log({"collection": round(_rusage_seconds(), 3), "items": len(session.items),
                  "counted": "rusage" if _CGROUP is None else "cgroup"})


def pytest_unconfigure(config: pytest.Config) -> None:
    _leave_cgroup()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    if not os.environ.get("ERRORKB_CPU_LOG"):
        yield
        return
    import time

    before, started = _cpu_seconds(), time.monotonic()
    yield
    _cpu_log({"test": item.nodeid, "cpu": round(_cpu_seconds() - before, 3),
              "wall": round(time.monotonic() - started, 3)})


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The quick tier does not import the modules it would deselect whole (some import upstream
    transformers to collect their tests)."""
    if tier() == "quick" and set(MODULE_MARKERS.get(_module(collection_path), ())) & set(QUICK_DESELECTS):
        return True
    return None


def _module(path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return ""


def _tier_markers(item: pytest.Item) -> set[str]:
    names = set(FIXTURE_MARKERS[name] for name in getattr(item, "fixturenames", ()) if name in FIXTURE_MARKERS)
    module = _module(item.path)
    names.update(MODULE_MARKERS.get(module, ()))
    names.update(MODULE_MARKERS.get(f"{module}::{getattr(item, 'originalname', item.name)}", ()))
    return names


def pytest_sessionstart(session: pytest.Session) -> None:
    """The full tier refuses to start where a security or parity test would have to skip."""
    if tier() != "full":
        return
    missing = [f"{what}: {fix}" for what, fix in full_tier_needs() if fix]
    if missing:
        raise pytest.UsageError("the full test tier needs what this machine lacks (it never skips them):\n  "
                                + "\n  ".join(missing))


def full_tier_needs() -> list[tuple[str, str | None]]:
    """(what, how to install it, or None when present) for each thing the full tier requires."""
    from errorkb.verify.sandbox import probe

    needs: list[tuple[str, str | None]] = []
    sandbox = probe()
    needs.append(("the sandbox (bubblewrap), for the sandbox and adversarial tests",
                  None if sandbox is None else f"{sandbox}; see docs/threat-model.md"))
    needs.append(("Node.js (playwright's driver), for the Python/JS lookup parity tests",
                  None if playwright_node() is not None else
                  "pip install -r requirements/dev.txt -c requirements/constraints.txt (the playwright wheel ships it)"))
    chromium = Path("/usr/bin/chromium")
    needs.append(("Debian's Chromium, for the browser tests",
                  None if chromium.exists() else "bash scripts/setup.sh --browser (or: sudo apt-get install chromium)"))
    return needs


def playwright_node() -> Path | None:
    """The Node.js binary the playwright wheel ships, or None."""
    try:
        import playwright
    except ImportError:
        return None
    path = Path(playwright.__file__).parent / "driver" / "node"
    return path if path.exists() else None


def missing(reason: str) -> None:
    """Skip for want of `reason` (a tool this machine lacks), except in the full tier, where the
    test fails: there nothing that guards security or parity may vanish silently."""
    if tier() == "full":
        pytest.fail(f"the full tier requires it: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(autouse=True, scope="session")
def _snippet_processes():
    """In the quick tier, the snippet processes each test starts (a zygote, a stem, a check's own
    interpreter), by their module: they are let run (stopping one half-started would leave its
    test waiting), and the test fails afterwards (`_quick_tier_runs_no_snippet`)."""
    started: list[str] = []
    if tier() != "quick":
        yield started
        return
    import subprocess

    original = subprocess.Popen.__init__

    def watched(self, args, *rest, **options):  # type: ignore[no-untyped-def]
        words = [str(arg) for arg in args] if isinstance(args, (list, tuple)) else [str(args)]
        started.extend(word for word in words if word in SNIPPET_PROCESSES)
        original(self, args, *rest, **options)

    subprocess.Popen.__init__ = watched  # type: ignore[method-assign]
    yield started
    subprocess.Popen.__init__ = original  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _quick_tier_runs_no_snippet(_snippet_processes):
    """A test of the quick tier that ran snippets fails, naming the marker it lacks."""
    before = len(_snippet_processes)
    yield
    if tier() == "quick" and len(_snippet_processes) > before:
        pytest.fail(f"this test started {sorted(set(_snippet_processes[before:]))}: it runs snippets, which the "
                    "quick tier does not; mark it `verifier` (@pytest.mark.verifier, or tests/conftest.py: "
                    "MODULE_MARKERS)", pytrace=False)


@pytest.fixture(autouse=True, scope="session")
def _shelved_pools():
    """The full tier's verify runs keep their pool for the next run of this worker that would start the very same
    one (`engine.Shelf`: the same project files, sandbox, environment, preloads and harness): a test that verifies
    a project again, or a module whose tests verify one shared copy, forks its checks from zygotes already warm
    instead of importing the runtime and the library again. One idle pool at most; all end with the session."""
    if tier() == "quick":  # no snippet runs there
        yield None
        return
    from errorkb.verify.engine import shelved_pools

    with shelved_pools() as shelf:
        yield shelf


# The modules a process runs to execute snippets: the zygote, a check's own interpreter, the stem.
SNIPPET_PROCESSES = frozenset({"errorkb.verify.zygote", "errorkb.verify.child", "errorkb.verify.stem"})


# -- the repository's knowledge base, loaded and verified once per session --------------------------


@pytest.fixture(scope="session")
def kb():
    """(project, load result) of the repository's knowledge base; it loads without a problem."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    project = load_project(ROOT)
    loaded = load_project_entries(project)
    assert [str(problem) for problem in loaded.problems] == []
    return project, loaded


@pytest.fixture(scope="session")
def kb_report(kb, tmp_path_factory):
    """Every check of the knowledge base (bundled and upstream, cpu and cuda), run once per
    session with no verdict cache, so every verdict is observed now; in the sandbox, required where
    the tier requires it (`ERRORKB_SANDBOX=require`). The report is also written to a temp folder
    (its path is printed when a test using it fails: `kb_report.json`) for a look after the run."""
    from errorkb.verify.engine import verify

    project, loaded = kb
    if importlib.util.find_spec("transformers") is None:
        missing("the upstream target needs transformers==5.15.1 installed (bash scripts/setup.sh)")
    sandbox = "require" if os.environ.get("ERRORKB_SANDBOX") == "require" else "auto"
    report = verify(project, loaded.entries, targets=["bundled", "upstream"], sandbox=sandbox)
    path = tmp_path_factory.mktemp("kb-report") / "kb_report.json"
    path.write_text(report.model_dump_json(indent=1), encoding="utf-8")
    print(f"the knowledge base's report of this session: {path}")
    return report


@pytest.fixture
def project_root() -> Path:
    return ROOT

"""The version matrix: does each entry's error, and its fix, hold in every upstream release?

Stages, one function each:
1. `discover_releases`  the releases to run: configured, or every one the index serves since `since`.
2. `ensure_env`         one cached virtual environment per release (created once, reused). It sees
                        the base environment's packages (the runtime, errorkb's own dependencies)
                        through a .pth file and installs only the release and what its era needs
                        (`era_requirements`). A failed set-up is recorded for that release and the
                        matrix goes on; it is never counted as "does not raise". A snippet whose
                        `requires:` pins an older release of a distribution the release's environment
                        has gets an environment of its pins layered on it (`ensure_pins`), as
                        `errorkb verify` has one layered on this environment.
3. `run_release`        the release's upstream CPU checks through one verifier for the whole run
                        (`engine.Verifier`: its sandbox, cache and judge are those of `errorkb verify`),
                        each in a zygote of the release's own interpreter. A verdict cached under its
                        full key (the release's fingerprint is its version) starts nothing: a rerun
                        after one entry changed starts that entry's checks only. Releases whose own
                        interpreter was measured to load the `shared` modules (`shared_loads`) get
                        their zygote forked from a stem that imported the runtime and those once.
                        A release "does not import here" only when the library itself does not
                        (`library_problem`, measured in its interpreter, `import_failure`); an entry
                        whose checks could not set up there (its module is newer) has its own row.
4. `collect`            per entry and release: the before's and after's verdicts (codes included,
                        and whether they came from the cache), the raise line (captured, else
                        re-resolved by AST), and the inputs digest they were measured with
                        (`results.keys`), so a later change makes exactly those results stale.

The matrix file's format, merging and summaries live in `errorkb.results.matrix`. It is merged
per (entry, release) and per release with what is on disk, under a lock, after every release,
so a run killed half way keeps what it measured, `errorkb matrix ID --release X` replaces only
that entry's result there (and the release's status only when it measured the release itself:
`measured_release`), and two runs at once keep both. `--shard K/N` runs the releases
`shard_releases` gives shard K; `errorkb report merge` joins the shards' files.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from errorkb.core.entry import Entry
from errorkb.core.interpreter import python_command
from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project
from errorkb.core.snippets import AFTER, BEFORE
from errorkb.results import store
from errorkb.results.matrix import (
    MatrixFile,
    ReleaseStatus,
    Result,
    Verdicts,
    load_matrix,
    matrix_path,
    merged,
    sort_releases,
    write_matrix,
)
from errorkb.results.records import UPSTREAM, CheckRecord, Code, Outcome
from errorkb.results.report import later_verifier_than, now, stamped
from errorkb.source.drift import SourceIndex, resolve_line
from errorkb.source.upstream import matrix_env
from errorkb.verify.engine import Upstream, Verifier
from errorkb.verify.paths import BASE_PTH, environment_path
from errorkb.verify.plan import Check, library_imports, plan, shard_of
from errorkb.verify.requirements import (
    FAILED,
    READY,
    build_pinned_env,
    built_python,
    pinned_failure,
    pinned_python,
    pins,
    refused,
)
from errorkb.verify.run import child_env


@dataclass(frozen=True)
class Env:
    release: str
    python: Path | None
    error: str | None = None


# -- 1. releases ------------------------------------------------------------------------------


def discover_releases(package: str, since: str, runner: Callable[..., subprocess.CompletedProcess[str]] =
                      subprocess.run) -> list[str]:
    """Every final release of `package` at or after `since` that the package index serves, oldest first."""
    found = runner(python_command(sys.executable, "-m", "pip", "index", "versions", package), capture_output=True,
                   text=True, timeout=120)
    line = next((text for text in found.stdout.splitlines() if text.startswith("Available versions:")), None)
    if found.returncode != 0 or line is None:
        raise RuntimeError(f"could not list {package} releases: {(found.stderr or found.stdout).strip()[-300:]}")
    return sort_releases([v.strip() for v in line.split(":", 1)[1].split(",")], since)


def shard_releases(releases: list[str], k: int, n: int) -> list[str]:
    """The releases shard k of n runs: each release by a stable hash of its name (the same
    function `verify --shard` uses for checks), so a release keeps its shard whatever list the
    package index served each job, and the shards together run every release once."""
    return [release for release in releases if shard_of(release, n) == k]


# -- 2. environments --------------------------------------------------------------------------


def ensure_env(project: Project, release: str, *, rebuild: bool = False) -> Env:
    """The release's environment, built once: a venv that sees this one's packages through a .pth
    file, with the release and its era's requirements installed into it, checked by importing it."""
    folder = matrix_env(project, release)
    if (why := refused(project.cache_dir, folder)) is not None:  # a repository's own: never run, nor built over
        return Env(release, None, why)
    python = folder / "bin" / "python"
    ready, failed = folder / READY, folder / FAILED
    if not rebuild and built_python(project.cache_dir, folder) is not None and python.exists():
        return Env(release, python)
    if not rebuild and failed.is_file():  # remembered, so a release that cannot install is not retried each run
        return Env(release, None, f"{failed.read_text(encoding='utf-8')}\n(remembered from an earlier run in "
                                  f"{failed}; `errorkb matrix --rebuild --release {release}` tries again)")
    folder.mkdir(parents=True, exist_ok=True)
    ready.unlink(missing_ok=True)
    failed.unlink(missing_ok=True)
    library = project.library
    # This environment's pip installs into it: the environment itself has no pip, no setuptools and
    # so nothing of its own that runs at startup (setuptools' distutils hack would be a module of
    # each environment's own, and no two releases could share a stem: `stem.py`).
    install = python_command(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                             "--disable-pip-version-check")
    wanted = f"{library.dist}=={release}"
    steps: list[list[str] | None] = [
        python_command(sys.executable, "-m", "venv", "--clear", "--without-pip", str(folder)),
        None,  # the .pth file, written between the two commands
        [*install, wanted, *project.matrix.requirements_for(release)],
        # pip calls the release "already satisfied" when this environment has it: put its own copy here
        [*install, "--no-deps", "--ignore-installed", wanted],
    ]
    for step in steps:
        if step is None:
            site = next(folder.glob("lib/python*/site-packages"))
            (site / BASE_PTH).write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
            continue
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:  # a busy machine or a slow index: not remembered, built again next time
            return Env(release, None, f"set-up timed out after 900 s: {' '.join(step[-2:])}; run the command again "
                                      f"(or with --rebuild) when the machine or the package index is less busy")
        if done.returncode != 0:
            return _failed(failed, release, f"set-up failed: {' '.join(step[-2:])}: "
                                            f"{(done.stderr or done.stdout).strip()[-500:]}")
    try:
        problem = library_problem(project, python, release)
    except subprocess.TimeoutExpired:
        return Env(release, None, f"importing {wanted} timed out after 300 s; run the command again when the "
                                  f"machine is less busy")
    if problem is not None:
        return _failed(failed, release, problem)
    ready.write_text(release, encoding="utf-8")
    return Env(release, python)


def ensure_pins(project: Project, env: Env, checks: list[Check], *, retry: bool = False) -> list[str]:
    """The environments that meet the older `requires:` of `checks` in the release's environment
    (`requirements.pins`, looked up there), each layered on it and built once (`build_pinned_env`: from
    wheels, no code of theirs run), as `errorkb verify` has them built on this one. A failed build is
    remembered (its checks are "not run", saying why: `requirements.not_met`), and tried again on `retry`
    (`--rebuild`, or a run that names the entries: what that reason says to run). Returns a line per failure."""
    if env.python is None:
        return []
    base, path = env.python.parent.parent, environment_path(env.python)
    needed = sorted({found for check in checks if (found := pins(check.entry, check.role, path))})
    problems = []
    for one in needed:
        if pinned_python(project.cache_dir, one, base) is not None or \
                (not retry and pinned_failure(project.cache_dir, one, base) is not None):
            continue
        if (why := build_pinned_env(project.cache_dir, one, base=base)) is not None:
            problems.append(f"{', '.join(one)} on {project.library.dist} {env.release}: {why}")
    return problems


# Run in a release's own interpreter: load the runtime as a check's process does, import the library,
# say which release it is and where it lies.
_IMPORT = """
import importlib, importlib.metadata, sys
from errorkb.plugs import runtime_for
runtime_for(sys.argv[1]).load()
library = importlib.import_module(sys.argv[2])
print(importlib.metadata.version(sys.argv[3]))
print(library.__file__)
"""


def library_problem(project: Project, python: Path, release: str) -> str | None:
    """Why the library itself does not import as `release` in the environment of `python` (its own
    copy, found in that environment), or None: it does. The one measurement of "the release does
    not import here": at build (`ensure_env`), and again when every check of a release failed its
    set-up (`import_failure`). Raises `subprocess.TimeoutExpired` past 300 s: a busy machine
    measured nothing."""
    library = project.library
    done = subprocess.run(python_command(python, "-c", _IMPORT, library.runtime, library.name, library.dist),
                          capture_output=True, text=True, timeout=300, env=child_env(library, "cpu", python))
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and len(lines) >= 2 and lines[-2] == release and \
            lines[-1].startswith(str(python.parent.parent)):
        return None
    return f"{library.dist}=={release} does not import here: {(done.stderr or done.stdout).strip()[-500:]}"


def _failed(marker: Path, release: str, error: str) -> Env:
    marker.write_text(error, encoding="utf-8")
    return Env(release, None, error)


# -- 3. answering and running -----------------------------------------------------------------


def release_checks(project: Project, loaded: list[LoadedEntry], release: str, ids: list[str] | None) -> list[Check]:
    """The checks the matrix runs at `release`: upstream, CPU, befores and afters."""
    return plan(loaded, project, [UPSTREAM], ["cpu"], ids, release, [str(BEFORE), str(AFTER)])


# Run in the release's own interpreter: load the runtime, import each loader, say which asked
# modules (and their loaders) are loaded then.
_PROBE = """
import importlib, json, sys
from errorkb.plugs import runtime_for
runtime_for(sys.argv[1]).load()
asked = json.loads(sys.argv[2])
for loader in sorted(set(asked.values())):
    try:
        importlib.import_module(loader)
    except Exception:
        pass
print(json.dumps({module: loader for module, loader in asked.items()
                  if module in sys.modules and loader in sys.modules}))
"""


def shared_loads(project: Project, env: Env) -> dict[str, str]:
    """Which of the `shared` modules the release's own interpreter loads when it imports the modules
    that load them (measured there once, kept in its environment): {module: its loader}."""
    asked = project.matrix.shared
    if env.python is None or not asked:
        return {}
    kept = kept_loads(project, env.python)
    if kept is not None:
        return kept
    record = _loads_record(env.python)
    done = subprocess.run(python_command(env.python, "-c", _PROBE, project.library.runtime, json.dumps(asked)),
                          capture_output=True, text=True, timeout=600,
                          env=child_env(project.library, "cpu", env.python))
    try:
        loads = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, TypeError):
        return {}  # not measured: the release gets a zygote of its own, as without a stem
    record.write_text(json.dumps({"asked": asked, "loads": loads}), encoding="utf-8")
    return loads


def kept_loads(project: Project, python: Path) -> dict[str, str] | None:
    """`shared_loads` as an earlier measurement kept it in `python`'s environment, or None where none was
    kept for the `shared` modules configured now (nothing is measured here)."""
    try:
        kept = json.loads(_loads_record(python).read_text(encoding="utf-8"))
        if kept.get("asked") == project.matrix.shared:
            return dict(kept["loads"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def _loads_record(python: Path) -> Path:
    return python.parent.parent / ".errorkb-shared.json"


def answer_known(verifier: Verifier, checks: list[Check]) -> tuple[list[CheckRecord], list[Check]]:
    """(the records of the checks that need no run: cached, or unable to run here; the checks left)."""
    known, left = [], []
    for check in checks:
        record = verifier.answer(check)
        if record is None:
            left.append(check)
        else:
            known.append(record)
    return known, left


def run_release(verifier: Verifier, checks: list[Check], jobs: int = 2) -> list[CheckRecord]:
    """The records of the release's checks; its zygotes are closed after (their memory back)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        records = list(threads.map(verifier.record_safely, checks))
    for python in {verifier.interpreter(check) for check in checks}:
        if verifier.pool is not None and python not in (None, Path(sys.executable)):
            verifier.pool.retire(python)
    return records


def import_failure(project: Project, env: Env, records: list[CheckRecord]) -> str | None:
    """Why the release as a whole did not load: the library itself does not import in its environment
    (`library_problem`, measured now), or None. Every check that ran having failed its set-up is the
    reason to measure, never the answer: one entry's checks (`errorkb matrix ID`), or every entry's
    when all name modules the release lacks, fail their set-up while the library imports; each such
    entry then has its own row saying so. A probe past its time measured nothing: None."""
    ran = [c for c in records if c.outcome.ran]
    if env.python is None or not ran or any(c.code is not Code.SETUP_FAILED for c in ran):
        return None
    try:
        return library_problem(project, env.python, env.release)
    except subprocess.TimeoutExpired:
        return None


def measured_release(records: list[CheckRecord]) -> bool:
    """Whether this run measured the release as a whole: a check of it ran now (not from the cache),
    got past its set-up and reported the environment it ran in, so the runtime and the isolation
    are this run's. A worker that died first (a sandbox that could not start) measured nothing."""
    return any(c.outcome.ran and not c.cached and c.code is not Code.SETUP_FAILED and c.environment
               for c in records)


# -- 4. collecting ----------------------------------------------------------------------------


def collect(entries: list[Entry], release: str, records: list[CheckRecord],
            indexes: Callable[[str], SourceIndex | None], digests: dict[str, str],
            earlier: dict[str, Result] | None = None, recorded: str | None = None) -> list[Result]:
    """This release's result for every entry that has records in it, written at `recorded` (now).
    An entry whose checks could not set up here (the module it names is newer than the release) gets
    its row all the same, with that reason: the page shows the release as not applicable to that
    entry and why, where a missing row would read as "not measured" (`release_states`).
    The raise line of a before that did not raise is found in the release's source, or kept from
    `earlier` (the same entry's result there) when that was measured with the same inputs and the
    same verdict."""
    by_role = {(c.entry, c.role): c for c in records}
    earlier = earlier or {}
    recorded = recorded or now()
    results = []
    for entry in entries:
        found = {role: by_role.get((entry.id, role)) for role in (BEFORE, AFTER)}
        if not any(found.values()):
            continue
        verdicts = {role: Verdicts(outcome=r.outcome, code=r.code, reason=r.reason, sha256=r.snippet_sha256,
                                   wording=r.wording, cached=r.cached, claim=r.claim)
                    for role, r in found.items() if r is not None}
        before = found[BEFORE]
        site = before.raise_site if before is not None and before.outcome is Outcome.PASS else None
        statement = entry.kind == "raise" and not entry.source.implicit  # a raise statement the AST can find
        kept = earlier.get(entry.id)
        same = kept is not None and kept.digest == digests[entry.id] and \
            _verdict(kept.before) == _verdict(verdicts.get(BEFORE))
        line: int | None
        if entry.source.runtime:  # the runtime's file: every release's environment reuses this runtime
            line = site.line if site else entry.source.line
        elif site is None and statement and kept is not None and same:
            line = kept.line
        else:
            index = indexes(entry.source.path) if statement and not site else None
            line = site.line if site else (resolve_line(entry, index) if index else None)
        observed = max(r.verified_at for r in found.values() if r is not None)  # a cached verdict's own time
        verifier, release_ran = _judged([r for r in found.values() if r is not None])
        results.append(Result(entry=entry.id, release=release, before=verdicts.get(BEFORE),
                              after=verdicts.get(AFTER), line=line, digest=digests[entry.id], measured=observed,
                              recorded=recorded, verifier=verifier, errorkb=release_ran))
    return results


def _judged(records: list[CheckRecord]) -> tuple[str, str | None]:
    """Whose rules judged a result's records, as they say (`report.stamped`: a verdict reused from the cache keeps
    the errorkb release that ran it): the earliest verifier among them, and the errorkb release where they share
    one (None, "not said", where a before and its after ran under different releases)."""
    stamps = [stamped(record) for record in records]
    earliest = str(stamps[0].verifier)
    for stamp in stamps[1:]:
        if later_verifier_than(earliest, str(stamp.verifier)):
            earliest = str(stamp.verifier)
    releases = {stamp.errorkb for stamp in stamps}
    return earliest, releases.pop() if len(releases) == 1 else None


def _verdict(verdicts: Verdicts | None) -> Verdicts | None:
    """A verdict as measured, whether or not it came from the cache."""
    return verdicts.model_copy(update={"cached": None}) if verdicts is not None else None


@dataclass
class Progress:
    """n of N and a time estimate, from the releases done so far."""

    total: int
    done: int = 0
    started: float = field(default_factory=time.monotonic)

    def step(self) -> str:
        self.done += 1
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        return f"[{self.done}/{self.total}, {_minutes(elapsed)} elapsed, about {_minutes(left)} left]"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def run_matrix(project: Project, loaded: list[LoadedEntry], releases: list[str], *, ids: list[str] | None = None,
               rebuild: bool = False, cache: bool = True, parallel: int = 2,
               progress: Callable[[str], None] = lambda message: None,
               shard: tuple[int, int] | None = None) -> MatrixFile:
    """Run the releases, `parallel` at a time (each in its own environment and processes),
    merging each into the matrix file as soon as it is done: a run killed half way keeps them.
    Raises `store.Refused` before running anything when the matrix file there does not parse.
    `shard`: the `--shard K/N` the releases are, which the file says (also when the shard has no release:
    a merge that checks the split is whole then finds it)."""
    package = project.library.dist
    entries = [one.entry for one in loaded if not ids or one.entry.id in ids]
    path = matrix_path(project)
    try:
        state: dict[str, MatrixFile | None] = {"data": load_matrix(path, package)}
    except store.Unreadable as error:
        raise store.Refused(f"{error}; nothing was run. To recover: restore it (git checkout {path}) "
                            "or move it away") from None
    lock = threading.Lock()
    steps = Progress(len(releases))
    numbers = {release: number for number, release in enumerate(releases, 1)}
    planned = {release: release_checks(project, loaded, release, ids) for release in releases}
    pythons: dict[str, Path] = {}  # release → its environment's interpreter, once built
    verifier = Verifier(project, [UPSTREAM], upstream=Upstream.INSTALLED, environments=pythons,
                        cache_dir=project.cache_dir if cache else None)
    digests = {entry.id: verifier.inputs(entry) for entry in entries}  # the digests the cache keys hold
    # What needs no run is answered first, in the releases already built: the warm workers then
    # preload what the checks left import (after one entry changed: that entry's), not all of it.
    known: dict[str, list[CheckRecord]] = {}
    for release in releases:
        if not rebuild and built_python(project.cache_dir, matrix_env(project, release)) is not None and \
                (env := ensure_env(project, release)).python is not None:
            pythons[release] = env.python
            for problem in ensure_pins(project, env, planned[release], retry=bool(ids)):
                progress(f"{package} {release}: {problem}")
            known[release], planned[release] = answer_known(verifier, planned[release])
    if verifier.pool is not None:
        verifier.pool.preload = library_imports([c for checks in planned.values() for c in checks],
                                                project.library.name)

    def one(release: str) -> None:
        at = f"{package} {release} ({numbers[release]} of {len(releases)})"
        progress(f"{at}: environment")
        env = ensure_env(project, release, rebuild=rebuild)
        records: list[CheckRecord] = []
        error = env.error
        if env.python is not None:
            pythons[release] = env.python
            for problem in ensure_pins(project, env, planned[release], retry=rebuild or bool(ids)):
                progress(f"{at}: {problem}")
            if planned[release] and verifier.pool is not None and (loads := shared_loads(project, env)):
                verifier.pool.share(env.python, loads)
            records = known.get(release, []) + run_release(verifier, planned[release], jobs=2)
            measured = sum(1 for record in records if record.outcome.ran and not record.cached)
            progress(f"{at}: {measured} of {len(records)} checks run, "
                     f"{sum(1 for record in records if record.cached)} from the cache")
            error = import_failure(project, env, records)
        index = functools.cache(lambda path: SourceIndex.read(project, release, path))  # read if needed
        fresh = sorted(records, key=lambda c: bool(c.cached))  # what this run measured first
        runtime = next((str(c.environment.get("runtime_version")) for c in fresh if c.environment), None)
        isolation = next((c.isolation for c in fresh if c.isolation), None)
        status = ReleaseStatus(release=release, ran=error is None, error=error, runtime=runtime, isolation=isolation,
                               measured=now())
        # A status this run measured replaces the file's; one it only vouches for (its checks came from
        # the cache, were not run, or all failed their own set-up while the library imports) fills in
        # where the file has none or says the release did not run, and otherwise leaves it as measured.
        vouched_only = error is None and not measured_release(records)
        with lock:
            before = state["data"]
        earlier = {r.entry: r for r in before.results if r.release == release} if before else {}
        results = collect(entries, release, records, index, digests, earlier, status.measured) \
            if error is None else []
        with lock:  # merged with the file as it is on disk now: another run's releases are kept
            state["data"] = write_matrix(path, package, [] if vouched_only else [status], results,
                                         fallback=[status] if vouched_only else [], shard=shard)
            progress(f"{package} {release}: {'ran' if error is None else error} {steps.step()}")

    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            for done in [pool.submit(one, release) for release in releases]:
                done.result()
        if shard is not None and not releases:  # a shard of no release ran all the same: the file says so
            state["data"] = write_matrix(path, package, [], [], shard=shard)
    finally:
        verifier.close()
    return state["data"] or merged(None, package, [], [])

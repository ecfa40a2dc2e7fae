"""The version matrix: does each entry's error, and its fix, hold in every upstream release?

Stages, one function each:
1. `discover_releases`  the releases to run: configured, or every one the index serves since `since`.
2. `ensure_env`         one cached virtual environment per release (created once, reused). It sees
                        the base environment's packages (the runtime, errorkb's own dependencies)
                        through a .pth file and installs only the release and what its era needs
                        (`era_requirements`). A failed set-up is recorded for that release and the
                        matrix goes on; it is never counted as "does not raise".
3. `run_release`        the release's upstream CPU checks through one verifier for the whole run
                        (`engine.Verifier`: its sandbox, cache and judge are those of `errorkb verify`),
                        each in a zygote of the release's own interpreter. A verdict cached under its
                        full key (the release's fingerprint is its version) starts nothing: a rerun
                        after one entry changed starts that entry's checks only. Releases whose own
                        interpreter was measured to load the `shared` modules (`shared_loads`) get
                        their zygote forked from a stem that imported the runtime and those once.
4. `collect`            per entry and release: the before's and after's verdicts (codes included),
                        the raise line (captured, else re-resolved by AST), and the hashes they
                        were measured with, so a later change makes exactly those results stale.
5. `summarize`          ranges for the page: "raises in 5.5.1 – 5.24.0", "fixed in X".

The matrix file (`<reports>/matrix/<distribution>.json`) is merged per (entry, release) and per
release, written atomically after every release, one record per line, so a run killed half way
keeps what it measured and `errorkb matrix ID --release X` replaces only that entry's result there.
"""

from __future__ import annotations

import functools
import json
import platform
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project
from errorkb.core.snippets import AFTER, BEFORE, read_snippet
from errorkb.source.drift import SourceIndex, resolve_line
from errorkb.source.upstream import matrix_env
from errorkb.verify.engine import Upstream, Verifier
from errorkb.verify.plan import Check, library_imports, plan
from errorkb.verify.records import CheckRecord, Code, Outcome
from errorkb.verify.report import now, write_lines
from errorkb.verify.run import child_env
from errorkb.verify.targets import UPSTREAM

SCHEMA = 2

@dataclass(frozen=True)
class Env:
    release: str
    python: Path | None
    error: str | None = None


# -- the matrix file --------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Verdicts(_Model):
    outcome: Outcome
    code: Code
    reason: str
    sha256: str | None = None  # of the snippet bytes that ran
    wording: int | None = None  # which wording of the error matched (0: the entry's own)


class ReleaseStatus(_Model):
    release: str
    ran: bool  # False: the environment could not be set up or the release does not import here
    error: str | None = None
    runtime: str | None = None  # the runtime's version the release ran on
    isolation: str | None = None  # how its checks were contained ('fork+bwrap'; 'fork': without a sandbox)
    measured: str


class Result(_Model):
    entry: str
    release: str
    before: Verdicts | None = None
    after: Verdicts | None = None
    line: int | None = None  # the raise line in the entry's source.path at this release
    digest: str  # the entry's expectation when measured
    measured: str


class MatrixFile(_Model):
    schema_version: int = Field(default=SCHEMA, alias="schema")
    package: str
    updated: str
    environment: dict[str, Any] = Field(default_factory=dict)
    releases: list[ReleaseStatus] = Field(default_factory=list)
    results: list[Result] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def ordered_releases(self) -> list[str]:
        return sort_releases([r.release for r in self.releases], "0")

    def status(self, release: str) -> ReleaseStatus | None:
        return next((r for r in self.releases if r.release == release), None)

    def results_of(self, entry_id: str) -> dict[str, Result]:
        return {r.release: r for r in self.results if r.entry == entry_id}


def matrix_path(project: Project) -> Path:
    return project.reports / "matrix" / f"{project.library.dist}.json"


def read_matrix(project: Project) -> MatrixFile | None:
    """The matrix file, or None when there is none (or it is not of this schema)."""
    try:
        return MatrixFile.model_validate_json(matrix_path(project).read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return None


def merged(old: MatrixFile | None, package: str, releases: Iterable[ReleaseStatus],
           results: Iterable[Result]) -> MatrixFile:
    """`old` with these releases' statuses and these (entry, release) results replaced; the rest kept."""
    statuses = {r.release: r for r in (old.releases if old else [])}
    statuses.update({r.release: r for r in releases})
    kept = {(r.entry, r.release): r for r in (old.results if old else [])}
    kept.update({(r.entry, r.release): r for r in results})
    order = {release: index for index, release in enumerate(sort_releases(list(statuses), "0"))}
    return MatrixFile(package=package, updated=now(),
                      environment={"python": platform.python_version(), "platform": platform.platform(terse=True)},
                      releases=sorted(statuses.values(), key=lambda r: order[r.release]),
                      results=sorted(kept.values(), key=lambda r: (r.entry, order.get(r.release, 0))))


def write_matrix(path: Path, data: MatrixFile) -> None:
    header = data.model_dump(mode="json", by_alias=True, exclude={"releases", "results"})
    write_lines(path, header, {"releases": [r.model_dump_json() for r in data.releases],
                               "results": [r.model_dump_json(exclude_none=True) for r in data.results]})


# -- 1. releases ------------------------------------------------------------------------------


def discover_releases(package: str, since: str, runner: Callable[..., subprocess.CompletedProcess[str]] =
                      subprocess.run) -> list[str]:
    """Every final release of `package` at or after `since` that the package index serves, oldest first."""
    found = runner([sys.executable, "-m", "pip", "index", "versions", package], capture_output=True, text=True,
                   timeout=120)
    line = next((text for text in found.stdout.splitlines() if text.startswith("Available versions:")), None)
    if found.returncode != 0 or line is None:
        raise RuntimeError(f"could not list {package} releases: {(found.stderr or found.stdout).strip()[-300:]}")
    return sort_releases([v.strip() for v in line.split(":", 1)[1].split(",")], since)


def sort_releases(versions: list[str], since: str) -> list[str]:
    keep = []
    for text in versions:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease and version >= Version(since):
            keep.append(version)
    return [str(version) for version in sorted(set(keep))]


# -- 2. environments --------------------------------------------------------------------------


def ensure_env(project: Project, release: str, *, rebuild: bool = False) -> Env:
    """The release's environment, built once: a venv that sees this one's packages through a .pth
    file, with the release and its era's requirements installed into it, checked by importing it."""
    folder = matrix_env(project, release)
    python = folder / "bin" / "python"
    ready, failed = folder / ".errorkb-ready", folder / ".errorkb-failed"
    if not rebuild and ready.is_file() and python.exists():
        return Env(release, python)
    if not rebuild and failed.is_file():
        return Env(release, None, failed.read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    ready.unlink(missing_ok=True)
    failed.unlink(missing_ok=True)
    library = project.library
    # This environment's pip installs into it: the environment itself has no pip, no setuptools and
    # so nothing of its own that runs at startup (setuptools' distutils hack would be a module of
    # each environment's own, and no two releases could share a stem: `stem.py`).
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
               "--disable-pip-version-check"]
    wanted = f"{library.dist}=={release}"
    steps: list[list[str] | None] = [
        [sys.executable, "-m", "venv", "--clear", "--without-pip", str(folder)],
        None,  # the .pth file, written between the two commands
        [*install, wanted, *project.matrix.requirements_for(release)],
        # pip calls the release "already satisfied" when this environment has it: put its own copy here
        [*install, "--no-deps", "--ignore-installed", wanted],
    ]
    for step in steps:
        if step is None:
            site = next(folder.glob("lib/python*/site-packages"))
            (site / "_errorkb_base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
            continue
        done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return _failed(failed, release, f"set-up failed: {' '.join(step[-2:])}: "
                                            f"{(done.stderr or done.stdout).strip()[-500:]}")
    probe = (f"import importlib.metadata, {library.name}, sys; "
             f"print(importlib.metadata.version({library.dist!r})); print({library.name}.__file__)")
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) < 2 or lines[-2] != release or not lines[-1].startswith(str(folder)):
        return _failed(failed, release, f"{wanted} does not import here: "
                                        f"{(done.stderr or done.stdout).strip()[-500:]}")
    ready.write_text(release, encoding="utf-8")
    return Env(release, python)


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
    record = env.python.parent.parent / ".errorkb-shared.json"
    try:
        kept = json.loads(record.read_text(encoding="utf-8"))
        if kept.get("asked") == asked:
            return dict(kept["loads"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    done = subprocess.run([str(env.python), "-c", _PROBE, project.library.runtime, json.dumps(asked)],
                          capture_output=True, text=True, timeout=600,
                          env=child_env(project.library, "cpu", env.python))
    try:
        loads = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, TypeError):
        return {}  # not measured: the release gets a zygote of its own, as without a stem
    record.write_text(json.dumps({"asked": asked, "loads": loads}), encoding="utf-8")
    return loads


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


def import_failure(project: Project, release: str, records: list[CheckRecord]) -> str | None:
    """Why the release as a whole did not load, when no check of it could load its target."""
    ran = [c for c in records if c.outcome.ran]
    if ran and all(c.code is Code.SETUP_FAILED for c in ran):
        return f"{project.library.dist} {release} does not import here: {ran[0].reason}"
    return None


# -- 4. collecting ----------------------------------------------------------------------------


def collect(entries: list[Entry], release: str, records: list[CheckRecord],
            indexes: Callable[[str], SourceIndex | None], digests: dict[str, str],
            earlier: dict[str, Result] | None = None) -> list[Result]:
    """This release's result for every entry that has records in it. The raise line of a before
    that did not raise is found in the release's source, or kept from `earlier` (the same entry's
    result there) when that was measured with the same expectation and the same verdict."""
    by_role = {(c.entry, c.role): c for c in records}
    earlier = earlier or {}
    results = []
    for entry in entries:
        found = {role: by_role.get((entry.id, role)) for role in (BEFORE, AFTER)}
        if not any(found.values()):
            continue
        verdicts = {role: Verdicts(outcome=r.outcome, code=r.code, reason=r.reason, sha256=r.snippet_sha256,
                                   wording=r.wording)
                    for role, r in found.items() if r is not None}
        before = found[BEFORE]
        site = before.raise_site if before is not None and before.outcome is Outcome.PASS else None
        statement = entry.kind == "raise" and not entry.source.implicit  # a raise statement the AST can find
        kept = earlier.get(entry.id)
        if site is None and statement and kept is not None and kept.digest == digests[entry.id] and \
                kept.before == verdicts.get(BEFORE):
            line = kept.line
        else:
            index = indexes(entry.source.path) if statement and not site else None
            line = site.line if site else (resolve_line(entry, index) if index else None)
        observed = max(r.verified_at for r in found.values() if r is not None)  # a cached verdict's own time
        results.append(Result(entry=entry.id, release=release, before=verdicts.get(BEFORE),
                              after=verdicts.get(AFTER), line=line, digest=digests[entry.id], measured=observed))
    return results


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
               progress: Callable[[str], None] = lambda message: None) -> MatrixFile:
    """Run the releases, `parallel` at a time (each in its own environment and processes),
    merging each into the matrix file as soon as it is done: a run killed half way keeps them."""
    package = project.library.dist
    entries = [one.entry for one in loaded if not ids or one.entry.id in ids]
    digests = {entry.id: entry.expectation_digest() for entry in entries}
    path = matrix_path(project)
    state: dict[str, MatrixFile | None] = {"data": read_matrix(project)}
    lock = threading.Lock()
    steps = Progress(len(releases))
    numbers = {release: number for number, release in enumerate(releases, 1)}
    planned = {release: release_checks(project, loaded, release, ids) for release in releases}
    pythons: dict[str, Path] = {}  # release → its environment's interpreter, once built
    verifier = Verifier(project, [UPSTREAM], upstream=Upstream.INSTALLED, environments=pythons,
                        cache_dir=project.cache_dir if cache else None)
    # What needs no run is answered first, in the releases already built: the warm workers then
    # preload what the checks left import (after one entry changed: that entry's), not all of it.
    known: dict[str, list[CheckRecord]] = {}
    for release in releases:
        if not rebuild and (matrix_env(project, release) / ".errorkb-ready").is_file() and \
                (python := ensure_env(project, release).python) is not None:
            pythons[release] = python
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
            if planned[release] and verifier.pool is not None and (loads := shared_loads(project, env)):
                verifier.pool.share(env.python, loads)
            records = known.get(release, []) + run_release(verifier, planned[release], jobs=2)
            measured = sum(1 for record in records if record.outcome.ran and not record.cached)
            progress(f"{at}: {measured} of {len(records)} checks run, "
                     f"{sum(1 for record in records if record.cached)} from the cache")
            error = import_failure(project, release, records)
        index = functools.cache(lambda path: SourceIndex.read(project, release, path))  # read if needed
        runtime = next((str(c.environment.get("runtime_version")) for c in records if c.environment), None)
        isolation = next((c.isolation for c in records if c.isolation), None)
        status = ReleaseStatus(release=release, ran=error is None, error=error, runtime=runtime, isolation=isolation,
                               measured=now())
        with lock:
            before = state["data"]
        earlier = {r.entry: r for r in before.results if r.release == release} if before else {}
        results = collect(entries, release, records, index, digests, earlier) if error is None else []
        with lock:
            data = state["data"] = merged(state["data"], package, [status], results)
            write_matrix(path, data)
            progress(f"{package} {release}: {'ran' if error is None else error} {steps.step()}")

    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            for done in [pool.submit(one, release) for release in releases]:
                done.result()
    finally:
        verifier.close()
    return state["data"] or merged(None, package, [], [])


# -- 5. summaries -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    raises: list[tuple[str, str]]  # (first, last) release spans where the before raised the error
    fixed_in: str | None  # first release after the last raising span where the before ran and did not raise it
    after_passes: list[tuple[str, str]]
    failed_setup: list[str]
    lines: dict[str, int]  # release → raise line
    stale: bool  # a snippet or the expectation changed since the matrix ran
    tested: int = 0  # releases in which the before actually ran
    fixed_reason: str | None = None  # what the before did instead, in `fixed_in`
    not_run: str | None = None  # why the before never ran (an unmet need), if it never did
    worked_until: str | None = None  # a removed API: the last release before it raised where the old call ran
    wordings: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # wording → spans it was raised so
    ran: list[str] = field(default_factory=list)  # the releases in which the before ran, in order

    def disagreements(self, entry: Entry) -> list[str]:
        """The releases where the entry's declared range (`releases.raises`) and the measurement differ."""
        measured = self.measured_raises()
        return [release for release in self.ran if entry.raises_at(release) not in (None, release in measured)]

    def measured_raises(self) -> set[str]:
        """Every release in which the before raised the documented error."""
        spans = {(first, last) for first, last in self.raises}
        return {release for release in self.ran
                if any(self.ran.index(first) <= self.ran.index(release) <= self.ran.index(last)
                       for first, last in spans)}


def summarize(entry_id: str, matrix: MatrixFile, current: dict[str, str]) -> Summary | None:
    """Ranges over the releases in which a snippet actually ran; "not run" is never "does not raise".

    `current` holds the sha256 of the before and after snippets as they are now, and the entry's
    expectation digest under "entry": a result measured with others is stale.
    """
    results = matrix.results_of(entry_id)
    if not results:
        return None
    releases = matrix.ordered_releases()

    def verdicts(release: str, role: str) -> Verdicts | None:
        result = results.get(release)
        status = matrix.status(release)
        if result is None or status is None or not status.ran:
            return None
        return result.before if role == BEFORE else result.after

    def spans(role: str) -> tuple[list[str], list[tuple[str, str]]]:
        # A snippet whose target module does not load at a release (Mamba before 4.39) never ran there.
        ran = [r for r in releases if (v := verdicts(r, role)) is not None and v.outcome.ran
               and v.code is not Code.SETUP_FAILED]
        return ran, _spans(ran, [verdicts(r, role).outcome is Outcome.PASS for r in ran])  # type: ignore[union-attr]

    ran, raises = spans(BEFORE)
    fixed_in = fixed_reason = None
    if raises:
        last = ran.index(raises[-1][1])
        if last + 1 < len(ran):
            fixed_in = ran[last + 1]
            fixed_reason = verdicts(fixed_in, BEFORE).reason  # type: ignore[union-attr]
    not_run = None
    if not ran:
        reasons = [v.reason for r in releases if (v := verdicts(r, BEFORE)) is not None]
        not_run = next((reason for reason in reasons if reason), None)
    stale = any(_stale(result, current) for result in results.values())
    lines = {r: results[r].line for r in ran if results[r].line}
    failed = [r.release for r in matrix.releases if not r.ran]
    worked_until = None
    if raises:
        before_first = ran[:ran.index(raises[0][0])]
        clean = [r for r in before_first if verdicts(r, BEFORE).code is Code.OLD_API_RAN]  # type: ignore[union-attr]
        worked_until = clean[-1] if clean else None
    by_wording: dict[int, list[str]] = {}
    for release in ran:
        found = verdicts(release, BEFORE)
        if found is not None and found.outcome is Outcome.PASS and found.wording is not None:
            by_wording.setdefault(found.wording, []).append(release)
    wordings = {index: _spans(ran, [r in own for r in ran]) for index, own in by_wording.items()}
    return Summary(raises, fixed_in, spans(AFTER)[1], failed, lines, stale, len(ran),  # type: ignore[arg-type]
                   fixed_reason, not_run, worked_until, wordings, ran)


def _stale(result: Result, current: dict[str, str]) -> bool:
    if "entry" in current and result.digest != current["entry"]:
        return True
    for role, verdict in ((BEFORE, result.before), (AFTER, result.after)):
        if verdict is not None and role in current and verdict.sha256 != current[role]:
            return True
    return False


def current_hashes(project: Project, entry: Entry) -> dict[str, str]:
    """What `summarize` compares results with: the snippets' hashes now and the expectation digest."""
    hashes = {"entry": entry.expectation_digest()}
    for role, file in entry.snippet_files():
        if role in (BEFORE, AFTER):
            try:
                hashes[role] = read_snippet(project.snippet_path(entry.id, file), role, file).sha256
            except OSError:
                continue
    return hashes


def _spans(releases: list[str], flags: list[bool]) -> list[tuple[str, str]]:
    spans, start = [], None
    for index, flag in enumerate(flags):
        if flag and start is None:
            start = index
        if (not flag or index == len(flags) - 1) and start is not None:
            end = index if flag else index - 1
            spans.append((releases[start], releases[end]))
            start = None
    return spans


def line_spans(lines: dict[str, int], releases: list[str]) -> list[tuple[str, str, int]]:
    """Consecutive releases (in matrix order) that raise from the same line, merged."""
    spans: list[tuple[str, str, int]] = []
    for release in (r for r in releases if r in lines):
        if spans and spans[-1][2] == lines[release]:
            spans[-1] = (spans[-1][0], release, lines[release])
        else:
            spans.append((release, release, lines[release]))
    return spans


def describe_spans(spans: list[tuple[str, str]]) -> str:
    return ", ".join(first if first == last else f"{first} – {last}" for first, last in spans)

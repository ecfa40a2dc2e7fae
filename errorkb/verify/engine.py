"""plan → (cache) → run → judge → report: the verification of a whole knowledge base.

Checks that cannot run here (a target that is not installed, a device this machine lacks, an
unmet need) are recorded as "not run" with the reason, never skipped and never passed. A cached
verdict is reused only under its full key (`cache.py`), only from a trusted cache, and says so
(`cached: true`, with the time it was really observed in `verified_at`). Every record names the
inputs it was made from (`inputs`: the entry and its snippet folder, `results.keys`) and when
this run wrote it (`recorded_at`), which is what makes a re-confirmed fix replace the failure
recorded in between.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry
from errorkb.core.project import LibraryProfile, Project
from errorkb.plugs import Runtime, runtime_for
from errorkb.results.keys import project_inputs
from errorkb.results.records import (
    BUNDLED,
    UPSTREAM,
    Calls,
    CheckRecord,
    Claim,
    Code,
    ExceptionInfo,
    Exit,
    Outcome,
    Site,
    unrooted,
)
from errorkb.results.report import Report, new_report, now
from errorkb.verify.cache import Trust, VerdictCache, cache_key
from errorkb.verify.inside.library import module_file, package_folders
from errorkb.verify.modes import Isolation
from errorkb.verify.paths import environment_path
from errorkb.verify.plan import Check, library_imports, plan, select_shard
from errorkb.verify.requirements import THIS_ONE, Absence, absence, built_python, essential, not_met, runs_in
from errorkb.verify.sources import Keyed, read_keyed
from errorkb.verify.targets import availability, bundled_has, fingerprint, installed_version

if TYPE_CHECKING:  # what runs a check is imported when one first must run: a cached run never loads it
    from errorkb.verify.pool import WorkerPool
    from errorkb.verify.records import Verdict
    from errorkb.verify.run import Run
    from errorkb.verify.sandbox import Sandbox
    from errorkb.verify.watch import Kept


def not_run(code: Code, reason: str) -> Verdict:
    """`records.not_run`: the judge's vocabulary (`verify.records`, `verify.judge`) is imported where a
    check is skipped, judged or recorded afresh, never by a run whose every verdict comes from the cache."""
    from errorkb.verify.records import not_run as verdict

    return verdict(code, reason)


class Upstream(StrEnum):
    """Which upstream release a check runs against."""

    PINNED = "pinned"  # each entry's own `source.release` (its matrix environment when not installed)
    INSTALLED = "installed"  # whatever is installed here, for every entry (the version matrix)


def plan_checks(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
                targets: list[str] | None = None, devices: list[str] | None = None,
                shard: tuple[int, int] | None = None, upstream: str = Upstream.PINNED,
                kinds: list[str] | None = None) -> list[Check]:
    runtime = runtime_for(project.library.runtime)
    at = installed_version(project.library) if Upstream(upstream) is Upstream.INSTALLED else None
    checks = plan(loaded, project, list(targets or project.targets), list(devices or runtime.devices), ids, at, kinds)
    return select_shard(checks, *shard) if shard else checks


class Verifier:
    """Turns one check into one report record; shared by `verify` and the pytest plugin.

    Thread-safe: the pool and the cache may be used from many threads. Close it when done
    (it owns the warm zygotes).
    """

    def __init__(self, project: Project, targets: list[str], *, isolation: str = Isolation.FORK,
                 cache_dir: Path | None = None, timeout: float | None = None, preload: list[str] | None = None,
                 upstream: str = Upstream.PINNED, sandbox: str = "auto",
                 environments: Mapping[str, Path] | None = None, trust: str = Trust.TRUSTED,
                 kept: Kept | None = None, wall_s: float | None = None):
        self.kept = kept  # `verify --watch`: the sandbox and pool of the last round, while still the right ones
        self.stopped = False  # interrupted: checks still running end with the pool, and are no verdicts
        self.project, self.isolation, self.upstream = project, Isolation(isolation), Upstream(upstream)
        # release → its interpreter, for every release (the installed one too): the matrix's own
        self.environments = environments
        self.library = project.library
        self.runtime: Runtime = runtime_for(self.library.runtime)
        self.installed = installed_version(self.library)
        # Hidden from every check: the verdicts and reports, and .git (CI checkouts keep a token in
        # .git/config). The matrix environments stay visible, read-only: checks at other releases run in them.
        hidden = list(dict.fromkeys([project.cache_dir / "verify", project.reports, project.root / ".git",
                                     *([VerdictCache(cache_dir).folder] if cache_dir else [])]))
        # The library's, its backends' and the bundled implementation's packages, wherever they are
        # installed: the knowledge base's folder need not hold its bundled package.
        named = (self.library.name, *self.library.backends, *filter(None, [self.library.bundled]))
        packages = tuple(dict.fromkeys(name.split(".")[0] for name in named))
        self._preload = preload
        # The run's one read of the bundled package's keyed files (`sources.read_keyed`): its target's fingerprint
        # digests these bytes and its sandbox shows them, never a second read (an edit in between would key a
        # verdict on bytes it did not run); without a sandbox, the key is of this read too.
        self.keyed: tuple[Keyed, ...] = read_keyed(list(filter(None, [self.library.bundled])))
        self._sandbox_args: tuple[tuple[Any, ...], dict[str, Any]] = ((sandbox, [project.root], hidden),
                              {"runtime": self.runtime, "private": [project.snippets],
                               "packages": (*self.runtime.packages, *packages),
                               "env_prefixes": tuple(self.library.env_prefixes),
                               # of the bundled package, a check sees what its target's fingerprint digests
                               "keyed": self.keyed})
        self._chosen: tuple[Sandbox | None, WorkerPool | None] | None = None
        self._shelved: tuple[object, ...] | None = None  # the `Shelf` key its pool was taken or held under
        # The release environments (not this interpreter, nor an environment of a snippet's pins) the checks
        # run in (`warm`): their zygotes come from a stem (`pool.Stem`), which loaded the runtime once. Each
        # would import it anew, and the knowledge base pins a dozen releases with a few checks each. The stem
        # also loads the `shared` modules a release was measured to load, where the version matrix kept that
        # measurement (`matrix.kept_loads`); a release that does not fit the stem gets its own interpreter
        # (the stem's own rule), so its verdicts are its own.
        self._release_pythons: set[Path] = set()
        # What a `without:` need may never hide: what the check itself imports (`requirements.essential`).
        self._keep = essential(self.library.dist, self.runtime.name, self.library.bundled)
        self._choosing = threading.Lock()
        self.unavailable = {target: availability(target, self.library) for target in targets}
        self.fingerprints: dict[str, str] = {}
        self.paths: dict[Path, list[str]] = {}  # another environment's interpreter → its import path
        self.cache = VerdictCache(cache_dir, Trust(trust)) if cache_dir is not None else None
        self._inputs: dict[str, str] = {}  # entry id → its inputs digest, read once per run
        self.timeout = timeout or project.timeout
        self.wall_s = wall_s  # each check's wall-clock backstop; None: the generous one `Limits.of` gives

    def _choose(self, warm: set[tuple[Any, ...]] | None = None) -> tuple[Sandbox | None, WorkerPool | None]:
        """The sandbox and the pool, made when a check first needs to run, never before: a run whose
        every verdict comes from the cache neither probes the sandbox nor starts a zygote. Raises
        SandboxUnavailable for "require" where it cannot be created; says so for "auto".

        With the zygotes to `warm`, they start in the sandbox before its probe has run, and load the
        runtime while it runs (see `sandbox.candidate`): they get no check before the probe passed,
        and are ended if it did not. A check is isolated exactly as when the probe ran first."""
        with self._choosing:
            if self._chosen is None and self.kept is not None:
                self._chosen = self.kept.take(self)
            shelf = _shelf if self.kept is None and self.environments is None and self.isolation is Isolation.FORK \
                else None
            if self._chosen is None and shelf is not None:
                self._shelved = shelf.key(self)
                self._chosen = shelf.take(self._shelved)
            elif self._chosen is None and _shelf is not None:
                _shelf.make_room()  # this run's pool is its own: the idle ones go before it starts
            if self._chosen is None:
                from errorkb.verify.sandbox import candidate, choose

                args, kwargs = self._sandbox_args
                early = candidate(*args, **kwargs) if warm and self.isolation is Isolation.FORK else None
                pool = self._new_pool(early, warm) if early is not None else None
                try:
                    sandbox = choose(*args, **kwargs)  # the probe (run once per process)
                except BaseException:  # "require" where it cannot be made: the early zygotes end too
                    if pool is not None:
                        pool.close()
                    raise
                if pool is not None and sandbox != early:  # not the sandbox the zygotes started in: none of them
                    pool.close()
                    pool = None
                if pool is None and self.isolation is Isolation.FORK:
                    pool = self._new_pool(sandbox, warm)
                self._chosen = (sandbox, pool)
                if self.kept is not None:
                    self.kept.hold(self._chosen, self)
                elif shelf is not None and self._shelved is not None:
                    shelf.hold(self._shelved, self._chosen)
            return self._chosen

    def _new_pool(self, sandbox: Sandbox | None, warm: set[tuple[Any, ...]] | None) -> WorkerPool:
        """The pool, its release environments shared (`_release_pythons`), its zygotes to `warm` started."""
        from errorkb.verify.pool import WorkerPool

        pool = WorkerPool(self.library, self._preload, sandbox)
        if self.environments is None:  # the version matrix shares its releases itself, as it measures them
            from errorkb.verify.matrix import kept_loads

            for python in sorted(self._release_pythons):
                pool.share(python, kept_loads(self.project, python) or {})
        if warm:
            pool.warm(warm)
        return pool

    def preload(self, names: list[str]) -> None:
        """What the zygotes import besides the target (`plan.library_imports`); before the first check runs."""
        with self._choosing:
            if self._chosen is None:
                self._preload = names

    @property
    def sandbox(self) -> Sandbox | None:
        return self._choose()[0]

    @property
    def pool(self) -> WorkerPool | None:
        return self._choose()[1]

    @property
    def isolation_level(self) -> str:
        sandbox = self.sandbox
        return f"{self.isolation}+{sandbox.label}" if sandbox else str(self.isolation)

    @property
    def ran(self) -> bool:
        """Whether this run needed to run a check (so chose its sandbox)."""
        return self._chosen is not None

    def inputs(self, entry: Entry) -> str:
        """The entry's inputs digest (`results.keys`), computed on first use in this run."""
        if entry.id not in self._inputs:
            self._inputs[entry.id] = project_inputs(self.project, entry)
        return self._inputs[entry.id]

    def key(self, check: Check) -> str:
        return cache_key(check, self.inputs(check.entry), self.fingerprint(check), self.runtime, self.library)

    def interpreter(self, check: Check) -> Path | None:
        """The Python that runs the check: the environment of the snippet's pins where it needs one and
        that is built (`requirements.runs_in`), else the environment it would be layered on (`_base`)."""
        base = self._base(check)
        return runs_in(check.entry, check.role, self.project.cache_dir, base, self._path_of) if base else None

    def _base(self, check: Check) -> Path | None:
        """The interpreter of the environment the check's release is installed in: this one, or the matrix
        environment of a release not installed here (None: it is not built)."""
        if check.target == UPSTREAM and check.release is not None and self.environments is not None:
            return self.environments.get(check.release)
        if check.target != UPSTREAM or check.release in (None, self.installed):
            return Path(sys.executable)
        from errorkb.source.upstream import matrix_env  # (a release not installed here: the version matrix's)

        python = built_python(self.project.cache_dir, matrix_env(self.project, check.release))
        return python if python is not None and python.exists() else None

    def fingerprint(self, check: Check) -> str:
        label = check.target if check.target == BUNDLED or (check.release == self.installed and
                                                            self.environments is None) \
            else f"{check.target}@{check.release}"
        if label not in self.fingerprints:
            self.fingerprints[label] = fingerprint(check.target, self.library, self.keyed) \
                if label == check.target else f"{self.library.dist}=={check.release}"
        return self.fingerprints[label]

    def reason_not_run(self, check: Check) -> Verdict | None:
        if check.entry.targets is not None and check.target not in check.entry.targets:
            return not_run(Code.NOT_APPLICABLE, f"the entry is verified on {', '.join(check.entry.targets)} only"
                                                + (f": its raise site lies in {self.library.runtime}, reached through "
                                                   f"{self.library.name}'s real code" if check.entry.source.runtime
                                                   else ""))
        if (pinned := self._runtime_pin(check.entry)) is not None:
            return not_run(Code.TARGET_UNAVAILABLE, pinned)
        if (claim := self.claimed(check)) is not None:
            return not_run(Code.NOT_APPLICABLE, claim.words)
        if check.target == BUNDLED:
            api = check.entry.api
            for needed in (check.module, *([api.owner] if api else [])):
                if not bundled_has(needed, self.library):
                    return not_run(Code.NOT_APPLICABLE, f"the bundled implementation has no {needed}: it "
                                                        f"reproduces part of {self.library.name} only")
        target = self.unavailable[check.target]
        if target and not (check.target == UPSTREAM and check.release != self.installed):
            return not_run(Code.TARGET_UNAVAILABLE, target)
        base = self._base(check)
        if base is None:
            return not_run(Code.TARGET_UNAVAILABLE,
                           f"{self.library.dist} {check.release} is neither installed here nor built "
                           f"(errorkb matrix --release {check.release} builds its environment)")
        build = THIS_ONE if base == Path(sys.executable) else \
            f"`errorkb matrix --release {check.release} {check.entry.id}`"
        found = not_met(check.entry, check.role, check.device, self.runtime, self.project.cache_dir, base,
                        path_of=self._path_of, hides=self._hides, keep=self._keep, build=build)
        return not_run(*found) if found else None

    def claimed(self, check: Check) -> Claim | None:
        """The entry's claim where it is why the check does not apply (`reason_not_run`): its record keeps the claim,
        and every view words it when it shows it (`CheckRecord.said`). None where the claim does not decide it."""
        if check.entry.targets is not None and check.target not in check.entry.targets:
            return None
        if self.upstream is not Upstream.PINNED or applicable(check, self.library):
            return None
        return _claim(check, self.library)

    def _runtime_pin(self, entry: Entry) -> str | None:
        """Why an entry whose raise site lies in the runtime (`source.runtime`) cannot run here: its line
        and wording were read from the runtime release it names, and this machine has another."""
        from errorkb.source.upstream import runtime_version

        installed = runtime_version(self.project) if entry.source.runtime else None
        if installed in (None, entry.source.release):
            return None
        name = self.runtime.name
        return (f"its raise site is pinned to {name} {entry.source.release}, and {name} {installed} is installed "
                f"here: verify it where {name} {entry.source.release} is installed")

    def _hides(self) -> bool:
        """Whether the checks run in the sandbox, which meets a `without:` need by hiding the distribution
        (asked only where one is installed: its probe costs a sandbox's start, once per process)."""
        from errorkb.verify.sandbox import probe

        return self._sandbox_args[0][0] != "off" and probe() is None

    def absent(self, check: Check, python: Path) -> Absence:
        """What the sandbox hides from `check` to meet its `without:` needs (`requirements.absence`)."""
        return absence(check.entry, check.role, self._path_of(python), self._keep)

    def _path_of(self, python: Path) -> list[str] | None:
        """Where `python` finds packages, when it is another environment's interpreter."""
        if python == Path(sys.executable):
            return None
        if python not in self.paths:
            self.paths[python] = environment_path(python)
        return self.paths[python]

    def warm(self, checks: list[Check]) -> None:
        """Start the zygotes the runnable checks will need, in parallel, before the first check."""
        runnable: set[tuple[Any, ...]] = set()
        for check in checks:
            if self.reason_not_run(check) is not None or (python := self.interpreter(check)) is None:
                continue
            runnable.add((check.target, check.device, check.module, str(python), self.absent(check, python).paths))
            if python != Path(sys.executable) and python == self._base(check):
                self._release_pythons.add(python)
        if runnable:
            _, pool = self._choose(runnable)
            if pool is not None:
                pool.warm(runnable)  # (already started by `_choose` where it made the pool)

    def answer(self, check: Check) -> CheckRecord | None:
        """The check's record when it needs no run: why it cannot run here, or its cached verdict."""
        skipped = self.reason_not_run(check)
        if skipped:
            claim = self.claimed(check) if skipped.code is Code.NOT_APPLICABLE else None
            return record_of(check, self.project, skipped, inputs=self.inputs(check.entry), claim=claim)
        hit = self.cache.get(self.key(check)) if self.cache else None
        return reused(hit, check, self.project, self.inputs(check.entry)) if hit is not None else None

    def answer_safely(self, check: Check) -> CheckRecord | None:
        """`answer`, but a check the harness cannot answer for fails alone (`failed`), never the whole run."""
        try:
            return self.answer(check)
        except Exception as error:
            return self.failed(check, error)

    def failed(self, check: Check, error: Exception) -> CheckRecord:
        from errorkb.verify.records import Verdict

        verdict = Verdict(outcome=Outcome.FAIL, code=Code.MALFORMED_OBSERVATION, cacheable=False,
                          reason=f"the verifier could not judge this check: {type(error).__name__}: {error}")
        return record_of(check, self.project, verdict, inputs=self.inputs(check.entry))

    def record(self, check: Check, asked: bool = False) -> CheckRecord:
        """The check's record; `asked`: `answer` already said it must run (the cache is asked once)."""
        known = None if asked else self.answer(check)
        if known is not None:
            return known
        key = self.key(check)
        python = self.interpreter(check) or Path(sys.executable)
        from errorkb.verify.run import run_check

        absent = self.absent(check, python)
        run = self.pool.run(check, self.timeout, python, wall_s=self.wall_s, absent=absent) if self.pool else \
            run_check(check, self.library, self.timeout, python, self.sandbox, wall_s=self.wall_s, absent=absent)
        from errorkb.verify.judge import judge

        verdict = judge(check, run, self.runtime)
        # The key's digest of the snippet folder was read before the check ran, a module beside the snippet when the
        # check imported it: changed between the two (an author saving under `--watch`; without the sandbox, the
        # snippet itself), the verdict speaks for neither. Never stored, its record names no inputs (stale on the
        # pages), and later checks of the entry are keyed by the folder as it is now.
        inputs = self.inputs(check.entry)
        held = project_inputs(self.project, check.entry) == inputs
        if not held:
            self._inputs.pop(check.entry.id, None)
        record = record_of(check, self.project, verdict, run, self.isolation_level, key, inputs if held else None)
        if self.cache and verdict.cacheable and held and not self.stopped:
            self.cache.put(key, record)
        return record

    def record_safely(self, check: Check, asked: bool = False) -> CheckRecord:
        """`record`, but a check the harness cannot judge fails alone, never the whole run."""
        try:
            return self.record(check, asked)
        except Exception as error:
            return self.failed(check, error)

    def close(self) -> None:
        """End the pool, unless it is `kept` for the next round (whose `Kept.take` decides) or on the `Shelf`
        (which decides whether it may serve again: never after an interrupted run, whose checks it ended)."""
        if self._chosen is None or self._chosen[1] is None or self.kept is not None:
            return
        if self._shelved is not None and _shelf is not None:
            _shelf.release(self._shelved, self._chosen, keep=not self.stopped)
        else:
            self._chosen[1].close()


class Shelf:
    """Pools kept past the run that started them, for a later run of this process that would start the very same
    zygotes: a test session verifies the same project (and its copies' fixtures) again and again, and each run's
    own pool imported the runtime and the library anew (a sandboxed zygote: 1.5-2 s of CPU, one per target).

    A shelved pool serves only a run whose key (`key`) equals the one it was made under, which holds all that
    decides what its zygotes hold or show: errorkb's own code (`verifier_fingerprint`), this interpreter, its
    environment variables and import path, the sandbox a run would make (its mode and the paths it shows and hides),
    the library's profile, each target's fingerprint and availability, the preloads, the release environments it
    shares, and every file a zygote could import from outside this interpreter's prefix (the project's folder but
    its entries, snippets and hidden folders, which a check reads in its own process, and the library's packages
    installed elsewhere: path, size, mtime, inode). A run still forks each check afresh from a zygote its checks
    leave untouched (`tests/verify/test_watch_isolation.py`); a pool an interrupted run used, or whose zygote did
    not start, is never shelved. At most `size` idle pools are kept (each zygote holds the runtime's memory)."""

    def __init__(self, size: int = 1) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.held: list[list[Any]] = []  # [key, chosen, runs using it], the most recently released last
        self.hits = self.misses = 0

    @staticmethod
    def key(verifier: Verifier) -> tuple[object, ...]:
        from errorkb.verify.cache import verifier_fingerprint
        from errorkb.verify.matrix import kept_loads
        from errorkb.verify.sandbox import candidate

        args, kwargs = verifier._sandbox_args
        library = verifier.library
        targets = tuple(sorted((target, fingerprint(target, library, verifier.keyed), why or "")
                               for target, why in verifier.unavailable.items()))
        releases = tuple((str(python), tuple(sorted((kept_loads(verifier.project, python) or {}).items())))
                         for python in sorted(verifier._release_pythons))
        return (verifier_fingerprint(), sys.executable, tuple(sorted(os.environ.items())), tuple(sys.path),
                args[0], candidate(*args, **kwargs), library.model_dump_json(), targets,
                tuple(verifier._preload or ()), releases, _importable_files(verifier), _harness())

    def take(self, key: tuple[object, ...]) -> tuple[Sandbox | None, WorkerPool | None] | None:
        """The shelved pool made under `key`, now used by one run more; None (a miss): the run makes its own,
        and the idle pools beyond `size - 1` end first, so that no more than `size` are held beside those in use."""
        with self.lock:
            for held in self.held:
                if held[0] == key:
                    held[2] += 1
                    self.hits += 1
                    return held[1]  # type: ignore[no-any-return]
            self.misses += 1
        self.make_room()
        return None

    def make_room(self) -> None:
        """End the idle pools beyond `size - 1`: a pool is about to start outside the shelf."""
        with self.lock:
            ended = self._trim(self.size - 1)
        for pool in ended:
            pool.close()

    def _trim(self, size: int) -> list[WorkerPool]:
        """Take the idle pools beyond `size`, oldest first, off the shelf (lock held); the caller ends them."""
        idle = [held for held in self.held if held[2] == 0]
        ended = []
        for old in idle[:max(0, len(idle) - size)]:
            self.held.remove(old)
            if old[1][1] is not None:
                ended.append(old[1][1])
        return ended

    def hold(self, key: tuple[object, ...], chosen: tuple[Sandbox | None, WorkerPool | None]) -> None:
        with self.lock:
            self.held.append([key, chosen, 1])

    def release(self, key: tuple[object, ...], chosen: tuple[Sandbox | None, WorkerPool | None], *,
                keep: bool) -> None:
        """A run is done with `chosen`: kept for the next run with `key` while it may serve one, else ended."""
        pool = chosen[1]
        usable = keep and pool is not None and all(
            zygote.ready and not zygote.dead and not zygote.fallback and zygote.unshared is None
            for zygote in list(pool.zygotes.values()))
        ended: list[WorkerPool] = []
        with self.lock:
            held = next((held for held in self.held if held[1] is chosen), None)
            if held is None:  # no longer (or never) on the shelf
                ended.append(pool) if pool is not None else None
            else:
                held[2] -= 1
                if not usable:
                    held[0] = ("ended",)  # no later run takes it; ended when its last run is done
                if held[2] == 0:
                    self.held.remove(held)
                    if usable:
                        self.held.append(held)
                    else:
                        ended.append(pool) if pool is not None else None
                ended += self._trim(self.size)
        for pool in ended:
            pool.close()

    def close(self) -> None:
        with self.lock:
            held, self.held = self.held, []
        for _, chosen, _ in held:
            if chosen[1] is not None:
                chosen[1].close()


_shelf: Shelf | None = None
_NOT_IMPORTED = frozenset({"__pycache__", ".git", "node_modules"})  # bytecode follows its source; no Python there


@contextlib.contextmanager
def shelved_pools(size: int = 1) -> Iterator[Shelf]:
    """While open, every run of this process keeps its pool on a `Shelf` for the next run that would start the
    same one (a test session); the pools end when it closes."""
    global _shelf
    previous, _shelf = _shelf, Shelf(size)
    try:
        yield _shelf
    finally:
        shelf, _shelf = _shelf, previous
        shelf.close()


_HARNESS = ("errorkb.verify.engine", "errorkb.verify.pool", "errorkb.verify.run", "errorkb.verify.sandbox",
            "errorkb.verify.requirements", "errorkb.verify.targets", "errorkb.verify.matrix", "errorkb.verify.paths",
            "errorkb.verify.inside.jail", "errorkb.verify.inside.spec", "errorkb.verify.inside.stem",
            "errorkb.verify.inside.library", "errorkb.core.interpreter", "errorkb.plugs")


def _harness() -> tuple[tuple[str, str, object], ...]:
    """The identity of every function and class (and each of its members) of the modules that start a pool and its
    zygotes, as loaded in this process: one replaced since (a test's `monkeypatch`) makes another pool, never this
    one. (Their other globals are the data they keep, such as what a probe found.)"""
    found = []
    for name in _HARNESS:
        module = sys.modules.get(name)
        for attribute, value in sorted(vars(module).items()) if module is not None else ():
            if not callable(value):
                continue
            found.append((name, attribute, value))
            if isinstance(value, type) and value.__module__ == name:
                found.extend((f"{name}.{attribute}", inner, member)
                             for inner, member in sorted(vars(value).items()))
    return tuple(found)


def _importable_files(verifier: Verifier) -> frozenset[tuple[str, int, int, int]]:
    """(path, size, mtime, inode) of every file a zygote could import from outside this interpreter's prefix: the
    project's folder but what a check reads in its own process (entries, snippets) and what it never sees (the
    hidden folders, the cache with its release environments, each named by its interpreter in the key), and the
    library's packages installed elsewhere."""
    project = verifier.project
    skipped = {str(path) for path in (project.entries, project.snippets, project.cache_dir,
                                      *verifier._sandbox_args[0][2])}
    library = verifier.library
    prefixes = tuple(dict.fromkeys(os.path.realpath(prefix) + os.sep for prefix in (sys.prefix, sys.base_prefix)))
    roots = [project.root, *(folder for name in (library.name, *library.backends, *filter(None, [library.bundled]))
                             for folder in package_folders(name.split(".")[0])
                             if not os.path.realpath(folder).startswith(prefixes))]
    found: set[tuple[str, int, int, int]] = set()
    stack = [str(root) for root in roots]
    while stack:
        here = stack.pop()
        if here in skipped:
            continue
        try:
            status = os.stat(here, follow_symlinks=False)
        except OSError:
            continue
        found.add((here, status.st_size, status.st_mtime_ns, status.st_ino))
        if stat.S_ISDIR(status.st_mode):  # a link is its own entry, never followed (a `.venv` beside the project)
            try:
                stack.extend(entry.path for entry in os.scandir(here) if entry.name not in _NOT_IMPORTED)
            except OSError:
                continue
    return frozenset(found)


def verify(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
           targets: list[str] | None = None, devices: list[str] | None = None, jobs: int | None = None,
           isolation: str = Isolation.FORK, cache_dir: Path | None = None, shard: tuple[int, int] | None = None,
           timeout: float | None = None, on_start: Callable[[int], None] | None = None,
           on_result: Callable[[CheckRecord], None] | None = None, upstream: str = Upstream.PINNED,
           kinds: list[str] | None = None, sandbox: str = "auto", trust: str = Trust.TRUSTED,
           kept: Kept | None = None, wall_s: float | None = None) -> Report:
    """Verify the planned checks; `cache_dir=None` runs every check afresh, and so does an
    untrusted cache (`trust`), which is neither read nor written. `kept`: the zygotes of an earlier
    round of `verify --watch`, reused while they are what this run would start (`watch.Kept`). `wall_s`:
    each check's wall-clock backstop, for tests whose checks hang on purpose (default: `run.Limits.of`'s)."""
    targets = list(targets or project.targets)
    checks = plan_checks(project, loaded, ids=ids, targets=targets, devices=devices, shard=shard,
                         upstream=upstream, kinds=kinds)
    if on_start:
        on_start(len(checks))
    verifier = Verifier(project, targets, isolation=isolation, cache_dir=cache_dir, timeout=timeout,
                        upstream=upstream, sandbox=sandbox, trust=trust, kept=kept, wall_s=wall_s)
    try:
        # Checks answered without a run (not runnable here, or a cached verdict) first: only the rest
        # need the sandbox and a zygote, chosen and started (in parallel) before the first of them runs.
        answers = [verifier.answer_safely(check) for check in checks]
        to_run = [check for check, answer in zip(checks, answers, strict=True) if answer is None]
        if to_run:  # what the snippets that will run import, preloaded (a cached run parses none of them)
            verifier.preload(library_imports(to_run, project.library.name))
            verifier.warm(to_run)

        finished: dict[int, CheckRecord] = {}

        def one(number: int) -> CheckRecord:
            record = answers[number] or verifier.record_safely(checks[number], asked=True)
            if stopping.is_set():  # the interruption ended this check: no verdict of the snippet's
                return record
            finished[number] = record
            if on_result:
                on_result(record)
            return record

        stopping = threading.Event()
        try:
            if to_run:
                from concurrent.futures import ThreadPoolExecutor

                threads = ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1)
                try:
                    records = [future.result() for future in [threads.submit(one, n) for n in range(len(checks))]]
                finally:
                    stopping.set()
                    threads.shutdown(wait=False, cancel_futures=True)
            else:  # every check answered without a run (a warm re-run): nothing to wait for, no threads to start
                records = [one(number) for number in range(len(checks))]
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (a job's time limit): what finished is kept
            verifier.stopped = True  # closing the pool ends the running checks: none of that is cached
            done = [finished[number] for number in sorted(finished)]
            raise Interrupted(_report(verifier, done, shard, interrupted=True), len(checks)) from None
    finally:
        verifier.close()
    return _report(verifier, records, shard)


class Interrupted(KeyboardInterrupt):
    """`verify` stopped before every check finished: `report` holds the checks that did (nothing of the
    others: a check the interruption ended is no verdict), of `planned`."""

    def __init__(self, report: Report, planned: int) -> None:
        super().__init__(f"{len(report.checks)} of {planned} checks finished")
        self.report, self.planned = report, planned


def _report(verifier: Verifier, records: list[CheckRecord], shard: tuple[int, int] | None,
            interrupted: bool = False) -> Report:
    cache = verifier.cache
    isolation_level = verifier.isolation_level if verifier.ran else f"{verifier.isolation} (no check ran)"
    run = {"isolation": isolation_level, "shard": f"{shard[0]}/{shard[1]}" if shard else None,
           "upstream": str(verifier.upstream), "cache": cache.stats() if cache else None,
           **({"interrupted": True} if interrupted else {})}
    return new_report(verifier.fingerprints, records, run)


def reused(hit: CheckRecord, check: Check, project: Project, inputs: str) -> CheckRecord:
    """A cached record as this check's: marked cached, observed when it says (`verified_at`),
    written into this run's report now (`recorded_at`), so it replaces any older record there."""
    return _unrooted_record(hit.model_copy(update={
        "id": check.id, "entry": check.entry.id, "role": check.role, "snippet": project.rel(check.snippet.path),
        "cached": True, "recorded_at": now(), "inputs": inputs}), project)


RECORD_BYTES = 64 << 10  # the most one check's record takes in a report, as JSON (an honest one: 1-5 KiB)
_CUTS = ((4000, 20), (1000, 5), (200, 1), (0, 0))  # characters of each text, entries of each list, tried in turn


def bounded(record: CheckRecord) -> CheckRecord:
    """The record within `RECORD_BYTES`: what the snippet chose to raise, print or compile is cut until it fits.

    A report holds every check's record and is refused past its own limit (`store.MAX_BYTES`); a check's stream may
    carry 8 MiB (2000 calls' exception messages of 20 000 characters, escaped six-fold as JSON), so five hostile
    checks took the whole run's report with them. Counts stay whole (`raised_count`); a cut says so."""
    if _size(record) <= RECORD_BYTES:
        return record
    smaller = record
    for characters, entries in _CUTS:
        update: dict[str, Any] = {name: _cut(getattr(record, name), characters) for name in ("reason", "actual")}
        update["output"] = _cut(record.output, characters, tail=True)
        update["tampered"] = _first(record.tampered, entries)
        update["interference"] = [_cut(phrase, characters) for phrase in _first(record.interference, entries)]
        if record.exception is not None:
            update["exception"] = record.exception.model_copy(update={
                "message": _cut(record.exception.message, characters),
                "traceback": _cut(record.exception.traceback, characters, tail=True)})
        for name in ("calls", "old_calls"):
            calls: Calls | None = getattr(record, name)
            if calls is not None:
                update[name] = calls.model_copy(update={
                    "raised": [one.model_copy(update={"message": _cut(one.message, characters)})
                               for one in calls.raised[:entries]],
                    "raised_count": max(calls.raised_count, len(calls.raised))})
        smaller = record.model_copy(update=update)
        if _size(smaller) <= RECORD_BYTES:
            break
    return smaller


def _size(record: CheckRecord) -> int:
    return len(record.model_dump_json(exclude_none=True).encode())


def _cut(text: str | None, characters: int, tail: bool = False) -> str | None:
    if text is None or len(text) <= characters:
        return text
    said = f"[{len(text) - characters} characters cut]"
    return said + text[len(text) - characters:] if tail else text[:characters] + said


def _first(items: list[str], entries: int) -> list[str]:
    return items if len(items) <= entries else [*items[:entries], f"[{len(items) - entries} more]"]


def record_of(check: Check, project: Project, verdict: Verdict, run: Run | None = None,
              isolation: str | None = None, key: str | None = None, inputs: str | None = None,
              claim: Claim | None = None) -> CheckRecord:
    from errorkb.verify.judge import actual, expected, snippet_line

    moment = now()
    fields: dict[str, Any] = {
        "id": check.id, "entry": check.entry.id, "role": check.role, "snippet": project.rel(check.snippet.path),
        "snippet_sha256": check.snippet.sha256, "target": check.target, "device": check.device,
        "release": check.release,
        "outcome": verdict.outcome, "code": verdict.code, "reason": verdict.reason, "expected": expected(check),
        "wording": verdict.wording, "device_basis": verdict.device_basis,
        "verified_at": moment, "cached": False, "recorded_at": moment, "inputs": inputs,
        "claim": claim if claim is not None else verdict.claim,  # a not-applicable's `Claim`, a wording's `Worded`
    }
    if run is None:
        return _unrooted_record(CheckRecord(**fields), project)
    seen = run.observation
    fields.update({
        "actual": actual(check, run),
        "snippet_line": snippet_line(check, run),
        "duration_s": run.duration_s,
        "isolation": isolation,
        "exit": Exit(returncode=run.returncode, signal=run.signal, timed_out=run.timed_out),
        "output": run.output[-4000:],
        "key": key,
        "snippet_sha256": run.sha256 or check.snippet.sha256,  # of the bytes the check's process ran
    })
    if seen is not None:
        fields.update({"exception": seen.exception, "calls": seen.calls,
                       "old_calls": seen.old_calls,
                       "tampered": seen.tampered, "interference": seen.interference, "evidence": seen.evidence,
                       "environment": seen.environment})
    return bounded(_unrooted_record(CheckRecord(**fields), project))


def applicable(check: Check, library: LibraryProfile) -> bool:
    """Whether the entry's error can happen at the check's release: inside its `releases.raises`;
    without that claim, at its pinned release (the bundled implementation reproduces one release)."""
    if check.release is None:
        return True
    claim = check.entry.raises_at(check.release)
    if claim is not None:
        return claim
    return check.entry.source.release in (None, check.release) or check.target == UPSTREAM \
        or check.entry.source.runtime


def _claim(check: Check, library: LibraryProfile) -> Claim:
    """Where the entry says the before raises, as the entry says it: its not-applicable record keeps this, and every
    view words it when it shows it (`Claim.words`)."""
    releases = check.entry.releases
    raises = releases.raises if releases and releases.raises else None
    return Claim(library=library.name, release=str(check.release), raises=raises,
                 pinned=None if raises else check.entry.source.release)


def _public_exception(error: ExceptionInfo | None, project: Project,
                      installed: tuple[str, ...]) -> ExceptionInfo | None:
    """The exception as a reader may see it: its frames' files as `_short_path` says them (the traceback's, where
    it was raised, where it started); its texts are unrooted with the rest of the record (`_unrooted_record`)."""
    if error is None:
        return None
    update: dict[str, Any] = {}
    for name in ("raise_site", "origin"):
        site: Site | None = getattr(error, name)
        if site is not None:
            update[name] = site.model_copy(update={"file": _short_path(site.file, project, installed)})
    if error.started is not None and error.started.file:
        update["started"] = error.started.model_copy(
            update={"file": _short_path(error.started.file, project, installed)})
    if error.traceback:
        update["traceback"] = _strip_roots(error.traceback, project, installed)
    return error.model_copy(update=update)


def _unrooted_record(record: CheckRecord, project: Project) -> CheckRecord:
    """The record as reports store it: every text it holds, at any depth (a reason, what the snippet printed, an
    exception's or a call's message, the evidence), without this machine's folders: `unrooted`'s rule, the one the
    views read older records by, given this project's bundled package, root and the folders the library is installed
    in, so two machines verifying the same code store the same words (merged shards, git diffs) and a reader of the
    JSON sees no one's folders; its frames' files as `_short_path` says them. Applied after judging (the judge
    compares what it observed); the one place a record is made public, for a run's records and the cache's alike."""
    installed = _installed_roots(project.library)
    stored = functools.partial(unrooted, bundled=project.library.bundled, root=str(project.root), installed=installed)
    if record.exception is not None:
        record = record.model_copy(update={"exception": _public_exception(record.exception, project, installed)})
    changed: CheckRecord = _each_text(record, stored)
    return changed


def _each_text(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with `change` applied to every string in it (a model's fields, lists, dicts' values): the very object
    where nothing in it changed (most of a record: ids, codes, texts that name no folder), so that unchanged parts
    are neither copied nor compared."""
    if isinstance(value, str):
        changed = change(value)
        return value if changed == value else changed
    if isinstance(value, BaseModel):
        update = {name: new for name in type(value).model_fields if (new := _each_text(old := getattr(value, name),
                                                                                        change)) is not old}
        return value.model_copy(update=update) if update else value
    if isinstance(value, list):
        items = [_each_text(item, change) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        found = {key: _each_text(item, change) for key, item in value.items()}
        return value if all(found[key] is item for key, item in value.items()) else found
    return value


def _installed_roots(library: LibraryProfile) -> tuple[str, ...]:
    """The folders the library's package is installed in (where the import system finds it: an environment's
    site-packages, a folder on the path, an editable checkout's `src`): a frame there prints from the package's
    folder, as one in site-packages does, so that every reader (the lookup's frame rules above all) sees the
    installed library's frames alike wherever this machine put it."""
    module = module_file(library.name)  # a library that is one module (`six.py`): the folder that holds it
    folders = package_folders(library.name) or ([module] if module is not None else [])
    return tuple(str(folder.parent).rstrip("/") + "/" for folder in folders)


def _short_path(path: str, project: Project, installed: tuple[str, ...]) -> str:
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    for root in installed:
        if path.startswith(root):
            return path[len(root):]
    bundled = project.library.bundled
    marker = "/" + bundled.replace(".", "/") + "/" if bundled else None
    if marker and marker in path:
        return marker[1:] + path.split(marker, 1)[1]
    return project.rel(Path(path))


def _strip_roots(text: str, project: Project, installed: tuple[str, ...]) -> str:
    def short(found: re.Match[str]) -> str:
        return f'File "{_short_path(found.group(1), project, installed)}"'

    return re.sub(r'File "([^"]+)"', short, text)

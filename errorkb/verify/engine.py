"""plan → (cache) → run → judge → report: the verification of a whole knowledge base.

Checks that cannot run here (a target that is not installed, CUDA on a machine without a
CUDA device) are recorded as "not run" with the reason, never skipped and never passed.
A cached verdict is reused only under its full key (`cache.py`) and says so (`cached: true`,
with the time it was really observed in `verified_at`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project
from errorkb.verify.cache import VerdictCache, cache_key, cacheable
from errorkb.verify.judge import FAIL, NOT_RUN, Verdict, actual, expected, judge, snippet_line
from errorkb.verify.plan import DEVICES, Check, plan, select_shard, transformers_imports
from errorkb.verify.pool import WorkerPool
from errorkb.verify.report import Report, new_report
from errorkb.verify.requirements import unmet
from errorkb.verify.run import Run, run_check
from errorkb.verify.sandbox import choose as choose_sandbox
from errorkb.verify.targets import availability, fingerprint

ISOLATIONS = ("fork", "subprocess")


def plan_checks(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
                targets: list[str] | None = None, devices: list[str] | None = None,
                shard: tuple[int, int] | None = None) -> list[Check]:
    checks = plan(loaded, project, list(targets or project.targets), list(devices or DEVICES), ids)
    return select_shard(checks, *shard) if shard else checks


class Verifier:
    """Turns one check into one report record; shared by `verify` and the pytest plugin.

    Thread-safe: the pool and the cache may be used from many threads. Close it when done
    (it owns the warm zygotes).
    """

    def __init__(self, project: Project, targets: list[str], *, isolation: str = "fork",
                 cache_dir: Path | None = None, timeout: float | None = None, preload: list[str] | None = None,
                 sandbox: str = "auto"):
        if isolation not in ISOLATIONS:
            raise ValueError(f"unknown isolation {isolation!r}; known: {', '.join(ISOLATIONS)}")
        self.project, self.isolation = project, isolation
        # Raises SandboxUnavailable for "require" where it cannot be created; says so for "auto". Hidden:
        # the verdicts, and .git (CI checkouts keep a token in .git/config).
        hidden = [project.root / ".errorkb-cache", project.reports, project.root / ".git",
                  *([cache_dir] if cache_dir else [])]
        self.sandbox = choose_sandbox(sandbox, [project.root], hidden)
        self.isolation_level = f"{isolation}+{self.sandbox.label}" if self.sandbox else isolation
        self.unavailable = {target: availability(target) for target in targets}
        self.fingerprints = {target: fingerprint(target) for target in targets if not self.unavailable[target]}
        self.cuda_absent = None if cuda_device_present() else "no CUDA device"
        self.cache = VerdictCache(cache_dir) if cache_dir is not None else None
        self.pool = WorkerPool(preload, self.sandbox) if isolation == "fork" else None
        self.timeout = timeout or project.timeout

    def reason_not_run(self, check: Check) -> str | None:
        return (self.unavailable[check.target] or unmet(check.entry, check.role, check.device)
                or (self.cuda_absent if check.device == "cuda" else None))

    def warm(self, checks: list[Check]) -> None:
        """Start the zygotes the runnable checks will need, in parallel, before the first check."""
        if self.pool:
            self.pool.warm({(c.target, c.device, c.entry.source.module) for c in checks
                            if self.reason_not_run(c) is None})

    def record(self, check: Check) -> dict:
        project = self.project
        reason = self.reason_not_run(check)
        if reason:
            return _record(check, project, Verdict(NOT_RUN, reason), None)
        key = cache_key(check, self.fingerprints[check.target])
        hit = self.cache.get(key) if self.cache else None
        if hit is not None:
            return {**hit, "id": check.id, "entry": check.entry.id, "role": check.role,
                    "snippet": project.rel(check.snippet), "cached": True}
        run = self.pool.run(check, self.timeout) if self.pool else run_check(check, self.timeout, self.sandbox)
        record = _record(check, project, judge(check, run), run, self.isolation_level)
        record["key"] = key
        if self.cache and cacheable(record, run.timed_out):
            self.cache.put(key, record)
        return record

    def close(self) -> None:
        if self.pool:
            self.pool.close()


def verify(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
           targets: list[str] | None = None, devices: list[str] | None = None, jobs: int | None = None,
           isolation: str = "fork", cache_dir: Path | None = None, shard: tuple[int, int] | None = None,
           timeout: float | None = None, on_start: Callable[[int], None] | None = None,
           on_result: Callable[[dict], None] | None = None, sandbox: str = "auto") -> Report:
    """Verify the planned checks; `cache_dir=None` runs every check afresh."""
    targets = list(targets or project.targets)
    checks = plan_checks(project, loaded, ids=ids, targets=targets, devices=devices, shard=shard)
    if on_start:
        on_start(len(checks))
    verifier = Verifier(project, targets, isolation=isolation, cache_dir=cache_dir, timeout=timeout,
                        preload=transformers_imports(checks), sandbox=sandbox)
    if cache_dir is None:  # with a cache, most checks may never need a zygote
        verifier.warm(checks)

    def one(check: Check) -> dict:
        try:
            record = verifier.record(check)
        except Exception as error:  # one check's malformed observation must not bring the whole run down
            verdict = Verdict(FAIL, f"the verifier could not judge this check: {type(error).__name__}: {error} "
                                    "(a malformed observation)")
            record = {**_record(check, project, verdict, None), "isolation": verifier.isolation_level}
        if on_result:
            on_result(record)
        return record

    try:
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as threads:
            records = list(threads.map(one, checks))
    finally:
        verifier.close()
    report = new_report(verifier.fingerprints, records)
    cache = verifier.cache
    report.run = {"isolation": verifier.isolation_level, "shard": f"{shard[0]}/{shard[1]}" if shard else None,
                  "cache": {"hits": cache.hits, "misses": cache.misses} if cache else None}
    return report


def cuda_device_present() -> bool:
    """Whether an NVIDIA driver exposes a device; cheap, and imports no torch.

    A machine that passes this still proves CUDA inside the check (`torch.cuda.is_available()`
    in the child, and allocated memory for a pass); one that fails it certainly has none.
    """
    return Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia/gpus").is_dir()


def _record(check: Check, project: Project, verdict: Verdict, run: Run | None, isolation: str | None = None) -> dict:
    record = {
        "id": check.id,
        "entry": check.entry.id,
        "role": check.role,
        "snippet": project.rel(check.snippet),
        "snippet_sha256": check.snippet_hash(),
        "target": check.target,
        "device": check.device,
        "outcome": verdict.outcome,
        "reason": verdict.reason,
        "expected": expected(check),
        "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "cached": False,
    }
    if run is None:
        return record
    seen = run.observation
    error = _public_exception(seen.get("exception"), project)
    record.update({
        "actual": actual(check, run),
        "snippet_line": snippet_line(check, run),
        "duration_s": run.duration_s,
        "isolation": isolation,
        "exit": {"returncode": run.returncode, "signal": run.signal, "timed_out": run.timed_out},
        "exception": error,
        "raise_site": (error or {}).get("raise_site"),
        "calls": seen.get("calls"),
        "tampered": seen.get("tampered") or [],
        "cuda": seen.get("cuda"),
        "environment": seen.get("environment"),
        "output": run.output[-4000:].replace(str(project.root) + "/", ""),  # no paths of this machine
    })
    return record


def _public_exception(error: dict | None, project: Project) -> dict | None:
    """The exception as a reader may see it: no absolute paths of this machine."""
    if not error:
        return None
    public = dict(error)
    for key in ("raise_site", "origin"):
        site = public.get(key)
        if site:
            public[key] = {**site, "file": _short_path(site["file"], project)}
    if "traceback" in public:
        public["traceback"] = _strip_roots(public["traceback"], project)
    return public


def _short_path(path: str, project: Project) -> str:
    for marker in ("/site-packages/", "/errorkb/kvcache/"):
        if marker in path:
            head = "errorkb/kvcache/" if marker == "/errorkb/kvcache/" else ""
            return head + path.split(marker, 1)[1]
    return project.rel(Path(path))


def _strip_roots(text: str, project: Project) -> str:
    import re

    def short(found: re.Match) -> str:
        return f'File "{_short_path(found.group(1), project)}"'

    return re.sub(r'File "([^"]+)"', short, text)

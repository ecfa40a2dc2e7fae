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

from errorkb.load import LoadedEntry
from errorkb.project import Project
from errorkb.verify.cache import VerdictCache, cache_key, cacheable
from errorkb.verify.judge import NOT_RUN, Verdict, actual, expected, judge, snippet_line
from errorkb.verify.plan import DEVICES, Check, plan, select_shard, transformers_imports
from errorkb.verify.pool import WorkerPool
from errorkb.verify.report import Report, new_report
from errorkb.verify.requirements import unmet
from errorkb.verify.run import Run, run_check
from errorkb.verify.targets import availability, fingerprint

ISOLATIONS = ("fork", "subprocess")


def plan_checks(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
                targets: list[str] | None = None, devices: list[str] | None = None,
                shard: tuple[int, int] | None = None) -> list[Check]:
    checks = plan(loaded, project, list(targets or project.targets), list(devices or DEVICES), ids)
    return select_shard(checks, *shard) if shard else checks


def verify(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
           targets: list[str] | None = None, devices: list[str] | None = None, jobs: int | None = None,
           isolation: str = "fork", cache_dir: Path | None = None, shard: tuple[int, int] | None = None,
           timeout: float | None = None, on_start: Callable[[int], None] | None = None,
           on_result: Callable[[dict], None] | None = None) -> Report:
    """Verify the planned checks; `cache_dir=None` runs every check afresh."""
    if isolation not in ISOLATIONS:
        raise ValueError(f"unknown isolation {isolation!r}; known: {', '.join(ISOLATIONS)}")
    targets = list(targets or project.targets)
    checks = plan_checks(project, loaded, ids=ids, targets=targets, devices=devices, shard=shard)
    if on_start:
        on_start(len(checks))
    unavailable = {target: availability(target) for target in targets}
    fingerprints = {target: fingerprint(target) for target in targets if not unavailable[target]}
    cuda_absent = None if cuda_device_present() else "no CUDA device"
    cache = VerdictCache(cache_dir) if cache_dir is not None else None
    pool = WorkerPool(transformers_imports(checks)) if isolation == "fork" else None
    limit = timeout or project.timeout

    def one(check: Check) -> dict:
        reason = (unavailable[check.target] or unmet(check.entry, check.device)
                  or (cuda_absent if check.device == "cuda" else None))
        key = cache_key(check, fingerprints[check.target]) if not reason else None
        hit = cache.get(key) if cache and key else None
        if reason:
            record = _record(check, project, Verdict(NOT_RUN, reason), None)
        elif hit is not None:
            record = {**hit, "id": check.id, "entry": check.entry.id, "role": check.role,
                      "snippet": project.rel(check.snippet), "cached": True}
        else:
            run = pool.run(check, limit) if pool else run_check(check, limit)
            record = _record(check, project, judge(check, run), run, isolation)
            record["key"] = key
            if cache and cacheable(record, run.timed_out):
                cache.put(key, record)  # type: ignore[arg-type]
        if on_result:
            on_result(record)
        return record

    try:
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as threads:
            records = list(threads.map(one, checks))
    finally:
        if pool:
            pool.close()
    report = new_report(fingerprints, records)
    report.run = {"isolation": isolation, "shard": f"{shard[0]}/{shard[1]}" if shard else None,
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
        "output": run.output[-4000:],
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

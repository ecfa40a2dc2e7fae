"""plan → run → judge → report: the verification of a whole knowledge base.

Checks that cannot run here (a target that is not installed, CUDA on a machine without a
CUDA device) are recorded as "not run" with the reason, never skipped and never passed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from errorkb.load import LoadedEntry
from errorkb.project import Project
from errorkb.verify.judge import NOT_RUN, Verdict, judge
from errorkb.verify.plan import DEVICES, Check, plan
from errorkb.verify.report import Report, new_report
from errorkb.verify.requirements import unmet
from errorkb.verify.run import Run, run_check
from errorkb.verify.targets import availability, fingerprint


def verify(project: Project, loaded: list[LoadedEntry], *, ids: list[str] | None = None,
           targets: list[str] | None = None, devices: list[str] | None = None, jobs: int | None = None,
           on_result: Callable[[dict], None] | None = None) -> Report:
    targets = list(targets or project.targets)
    checks = plan(loaded, project, targets, list(devices or DEVICES), ids)
    unavailable = {target: availability(target) for target in targets}
    cuda_absent = None if cuda_device_present() else "no CUDA device"

    def one(check: Check) -> dict:
        reason = (unavailable[check.target] or unmet(check.entry, check.device)
                  or (cuda_absent if check.device == "cuda" else None))
        if reason:
            record = _record(check, project, Verdict(NOT_RUN, reason), None)
        else:
            run = run_check(check, check.entry.source.module, project.timeout)
            record = _record(check, project, judge(check, run), run)
        if on_result:
            on_result(record)
        return record

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        records = list(pool.map(one, checks))
    fingerprints = {target: fingerprint(target) for target in targets if not unavailable[target]}
    return new_report(fingerprints, records)


def cuda_device_present() -> bool:
    """Whether an NVIDIA driver exposes a device; cheap, and imports no torch.

    A machine that passes this still proves CUDA inside the check (`torch.cuda.is_available()`
    in the child, and allocated memory for a pass); one that fails it certainly has none.
    """
    return Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia/gpus").is_dir()


def _record(check: Check, project: Project, verdict: Verdict, run: Run | None) -> dict:
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
        "verified_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if run is None:
        return record
    seen = run.observation
    record.update({
        "duration_s": run.duration_s,
        "exception": _public_exception(seen.get("exception"), project),
        "calls": seen.get("calls"),
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

"""Verification reports: what ran, against what, where, when, and what it found.

A report is plain JSON so that CI jobs on different machines (a CPU runner, a CUDA runner)
can each write one and the site can read them all. `latest_results` is the one rule for
combining them: per check, the newest result that actually ran wins over "not run".
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = 1
VERIFIER_VERSION = "1"


@dataclass
class Report:
    created: str
    environment: dict
    targets: dict[str, str]  # target → fingerprint
    checks: list[dict]
    run: dict | None = None  # how this report was made: isolation, shard, cache hits

    @property
    def summary(self) -> dict[str, int]:
        counts = {"pass": 0, "fail": 0, "not-run": 0}
        for check in self.checks:
            counts[check["outcome"]] += 1
        return counts

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "verifier": VERIFIER_VERSION, "created": self.created,
                "environment": self.environment, "targets": self.targets, "summary": self.summary,
                "run": self.run, "checks": self.checks}

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
        temporary.replace(path)


def new_report(targets: dict[str, str], checks: list[dict]) -> Report:
    environment = {"python": platform.python_version(), "platform": platform.platform(terse=True),
                   "machine": platform.machine()}
    for check in checks:  # torch and device facts come from the children, which imported torch
        for key, value in (check.get("environment") or {}).items():
            if key not in ("transformers", "device", "device_name"):  # these vary per check
                environment.setdefault(key, value)
        if check.get("cuda") and check["cuda"].get("device_name"):
            environment.setdefault("cuda_device", check["cuda"]["device_name"])
    return Report(datetime.now(UTC).isoformat(timespec="seconds"), environment, targets, checks)


def read_report(path: Path) -> Report:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: report schema {data.get('schema')!r}, expected {SCHEMA}")
    return Report(data["created"], data["environment"], data["targets"], data["checks"], data.get("run"))


def read_reports(folder: Path) -> tuple[list[Report], list[str]]:
    """Every readable report in `folder`, and a message for each unreadable one."""
    reports, problems = [], []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            reports.append(read_report(path))
        except (OSError, ValueError, KeyError) as error:
            problems.append(f"{path}: not a verification report ({error})")
    return reports, problems


def latest_results(reports: list[Report]) -> dict[str, dict]:
    """Check id → its newest record; a record that ran beats a newer "not run"."""
    chosen: dict[str, dict] = {}
    records = [(check.get("verified_at", report.created), report, check)
               for report in reports for check in report.checks]
    for _, report, check in sorted(records, key=lambda item: item[0]):
        record = {**check, "environment": {**report.environment, **(check.get("environment") or {})}}
        previous = chosen.get(check["id"])
        if previous is None or record["outcome"] != "not-run" or previous["outcome"] == "not-run":
            chosen[check["id"]] = record
    return chosen


def merge(reports: list[Report]) -> Report:
    """One report from several (CI jobs, shards): per check, `latest_results` decides."""
    results = latest_results(reports)
    targets: dict[str, str] = {}
    for report in reports:
        targets.update(report.targets)
    environment = reports[-1].environment if reports else {}
    checks = sorted(results.values(), key=lambda record: record["id"])
    return Report(datetime.now(UTC).isoformat(timespec="seconds"), environment, targets, checks,
                  {"merged": len(reports)})

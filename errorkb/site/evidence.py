"""What the verification reports say about an entry, shaped for a reader.

Reports hold one record per check (entry × snippet × target × device). A reader wants the
verdict per target × device, whether it still holds (a snippet edited since its check is
*stale*), and when nothing ran, to be told so rather than shown a pass. These functions are
the one place those rules live; the entry page, the error lists and the verification page
all call them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

TARGETS = ("bundled", "upstream")
DEVICES = ("cpu", "cuda")
OUTCOME_WORDS = {"pass": "verified", "fail": "failing", "not-run": "not run", "partial": "partly verified"}


@dataclass(frozen=True)
class Badge:
    target: str
    device: str
    outcome: str  # pass | fail | not-run | partial
    stale: bool  # a snippet changed since the check that gave this verdict
    date: str | None  # the newest check's day, YYYY-MM-DD
    detail: str  # why: failure or not-run reasons, or how many checks passed
    versions: str = ""  # e.g. "torch 2.13.0+cpu · Python 3.11.7"

    @property
    def label(self) -> str:
        return OUTCOME_WORDS[self.outcome] + (" · stale" if self.stale else "")

    @property
    def icon(self) -> str:
        return {"pass": "✓", "fail": "✗", "not-run": "–", "partial": "◐"}[self.outcome]


def is_stale(record: dict, snippet_hashes: dict[str, str]) -> bool:
    """True when the snippet a check ran is not the snippet on disk now."""
    if record.get("outcome") == "not-run":
        return False
    return snippet_hashes.get(record["role"]) != record.get("snippet_sha256")


def badges(records: list[dict], snippet_hashes: dict[str, str],
           targets: tuple[str, ...] = TARGETS, devices: tuple[str, ...] = DEVICES) -> list[Badge]:
    """One badge per target × device. *verified* only when every snippet of the entry passed
    there; *failing* when any failed; *not run* when no check ran (no report, or e.g. no CUDA
    device); *partly verified* when some snippets have no result yet."""
    result = []
    roles = list(snippet_hashes)
    for target in targets:
        for device in devices:
            mine = [r for r in records if r["target"] == target and r["device"] == device]
            ran = [r for r in mine if r["outcome"] != "not-run"]
            by_role = {r["role"]: r for r in ran}
            if not ran:
                reasons = sorted({r.get("reason") or "not run" for r in mine})
                result.append(Badge(target, device, "not-run", False, _newest(mine),
                                    "; ".join(reasons) or "no verification report for this target and device"))
                continue
            outcomes = {by_role[role]["outcome"] if role in by_role else "missing" for role in roles}
            if "fail" in outcomes:
                outcome = "fail"
            elif outcomes == {"pass"}:
                outcome = "pass"
            else:
                outcome = "partial"
            failures = sorted({f"{r['role']}: {r['reason']}" for r in ran if r["outcome"] == "fail"})
            missing = [role for role in roles if role not in by_role]
            detail = "; ".join(failures) if failures else (
                f"no result for {', '.join(missing)}" if missing else f"all {len(roles)} snippets passed")
            result.append(Badge(target, device, outcome, any(is_stale(r, snippet_hashes) for r in ran),
                                _newest(ran), detail, versions(ran)))
    return result


def _newest(records: list[dict]) -> str | None:
    dates = sorted(r["verified_at"][:10] for r in records if r.get("verified_at"))
    return dates[-1] if dates else None


def versions(records: list[dict]) -> str:
    """The software a target ran on, from the records' environment."""
    env = next((r.get("environment") or {} for r in records if r.get("environment")), {})
    parts = []
    if env.get("torch"):
        parts.append(f"torch {env['torch']}")
    if env.get("python"):
        parts.append(f"Python {env['python']}")
    device = (next((r.get("cuda") for r in records if r.get("cuda")), None) or {}).get("device_name") \
        or env.get("cuda_device")
    if device:
        parts.append(device)
    return " · ".join(parts)


def captured_error(records: list[dict], snippet_hashes: dict[str, str]) -> dict | None:
    """The before snippet's error as a check captured it: fresh first, upstream first, CPU first."""
    found = [r for r in records if r["role"] == "before" and r["outcome"] == "pass" and r.get("exception")]
    found.sort(key=lambda r: (is_stale(r, snippet_hashes), r["target"] != "upstream", r["device"] != "cpu"))
    return found[0] if found else None


def clean_run(records: list[dict], snippet_hashes: dict[str, str], role: str = "after") -> dict | None:
    """A passing check of `role` (the after snippet, a guard), chosen like `captured_error`."""
    found = [r for r in records if r["role"] == role and r["outcome"] == "pass"]
    found.sort(key=lambda r: (is_stale(r, snippet_hashes), r["target"] != "upstream", r["device"] != "cpu"))
    return found[0] if found else None


def role_verdict(records: list[dict], snippet_hashes: dict[str, str], role: str) -> str:
    """pass | fail | not-run for one snippet across every target and device it ran on."""
    ran = [r for r in records if r["role"] == role and r["outcome"] != "not-run"]
    if not ran:
        return "not-run"
    return "fail" if any(r["outcome"] == "fail" for r in ran) else "pass"


def summary(records: list[dict], snippet_hashes_by_entry: dict[str, dict[str, str]]) -> dict[str, int]:
    """Counts for the verification page: pass, fail, not-run, and stale among those that ran."""
    counts = Counter(r["outcome"] for r in records)
    stale = sum(1 for r in records if is_stale(r, snippet_hashes_by_entry.get(r["entry"], {})))
    return {"checks": len(records), "pass": counts["pass"], "fail": counts["fail"],
            "not-run": counts["not-run"], "stale": stale}


def environments(records: list[dict]) -> list[dict]:
    """Distinct environments checks ran in, newest run first, with what ran there."""
    seen: dict[tuple, dict] = {}
    for record in records:
        if record["outcome"] == "not-run":
            continue
        env = record.get("environment") or {}
        cuda = (record.get("cuda") or {}).get("device_name") or env.get("cuda_device") or ""
        key = (record["target"], record["device"], env.get("python", ""), env.get("torch", ""),
               env.get("transformers", ""), env.get("platform", ""), cuda)
        row = seen.setdefault(key, {"target": key[0], "device": key[1], "python": key[2], "torch": key[3],
                                    "transformers": key[4], "platform": key[5], "cuda_device": cuda,
                                    "checks": 0, "last": ""})
        row["checks"] += 1
        row["last"] = max(row["last"], (record.get("verified_at") or "")[:10])
    return sorted(seen.values(), key=lambda row: (row["last"], row["target"], row["device"]), reverse=True)

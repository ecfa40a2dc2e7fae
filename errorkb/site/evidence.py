"""What the verification reports say about an entry, shaped for a reader.

Reports hold one record per check (entry × snippet × target × device). A reader wants the
verdict per target × device, whether it still holds (a snippet edited since its check is
*stale*), and when nothing ran, to be told so rather than shown a pass; and "not applicable"
(the error cannot happen on that target) apart from "not run". These functions are the one
place those rules live; the entry page, the error lists and the verification page all call them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from errorkb.results.keys import STALE_WHY, holds
from errorkb.results.records import TARGETS, UPSTREAM, CheckRecord, DeviceBasis, Outcome

OUTCOME_WORDS = {"pass": "verified", "fail": "failing", "not-run": "not run", "not-applicable": "not applicable",
                 "partial": "partly verified"}
# What a badge says where a pass on a device rests on the object the function ran on (`Badge.on_object`).
ON_OBJECT = "on the object it ran on"
ON_OBJECT_WHY = ("the function itself allocated nothing on the device; the library's own calls on the object it was "
                 "called on did, so the object was the device's, not the function's own work")
ICONS = {"pass": "✓", "fail": "✗", "not-run": "–", "not-applicable": "∅", "partial": "◐"}


@dataclass(frozen=True)
class Badge:
    target: str
    device: str
    outcome: str  # an Outcome's value, or "partial"
    stale: bool  # the entry or its snippet folder changed since a check that gave this verdict
    date: str | None  # the newest check's day, YYYY-MM-DD; None where none ran ("not run · <day>" read as a run)
    detail: str  # why: failure or not-run reasons, or how many checks passed; and why it is stale
    versions: str = ""  # e.g. "<runtime> 2.13.0 · Python 3.11.7", and "verifier 1" where the entry's records
    # were judged by different verifiers
    verifiers: tuple[str, ...] = ()  # the versions of the verifiers that judged the records it stands for
    # How many of its passing snippets the judge passed on the narrower device claim (`DeviceBasis.OBJECT`): the
    # library's own work on the object their function was called on, not the function's own work on the device.
    on_object: int = 0

    @property
    def label(self) -> str:
        return OUTCOME_WORDS[self.outcome] + (f" · {ON_OBJECT}" if self.on_object else "") + \
            (" · stale" if self.stale else "")

    @property
    def icon(self) -> str:
        return ICONS[self.outcome]

    @property
    def verified(self) -> bool:
        """What every count of verified entries counts: a pass on the entry and snippet folder as they are now (a
        stale pass is no verdict on the files a reader copies)."""
        return self.outcome == "pass" and not self.stale


# Where one badge stands for the whole entry (`standing`): after a fresh pass, the news first (a failure), a stale
# pass before "not run", which would say that nothing ran.
_STANDING = ("fail", "partial", "pass", "not-run", "not-applicable")


def standing(found: list[Badge]) -> Badge | None:
    """The one badge that says where an entry stands, where a line names the entry once (a coverage row): a fresh
    pass if it has one (verified on at least one target and device), else its strongest other badge; None without
    badges. The words are the badge's own (`label`), so a line and the entry's page never disagree."""
    return min(found, key=lambda b: (not b.verified, _STANDING.index(b.outcome), b.stale), default=None)


def fresh_key(inputs: str, snippet_sha256: str) -> str:
    """What a record of a role must have been made from to be fresh, one value of `EntryPage.hashes`: the entry's
    inputs digest now (`keys.inputs_digest`) and the hash of the role's snippet bytes now."""
    return f"{inputs} {snippet_sha256}"


def is_stale(record: CheckRecord, snippet_hashes: dict[str, str]) -> bool:
    """True when the check ran on other inputs than the entry and snippet folder on disk now
    (`snippet_hashes`: role → `fresh_key`, `EntryPage.hashes`; or the inputs digest alone), or names other
    snippet bytes than those there now: the inputs cover the bytes, so a record saying both is not the run of
    these (a hand-edited or merged-wrong report), and its pass is no verdict on the snippet shown."""
    if not record.outcome.ran:
        return False
    inputs, _, sha = snippet_hashes.get(record.role, "").partition(" ")
    return not holds(record.inputs, inputs) or (bool(sha) and record.snippet_sha256 != sha)


def badges(records: list[CheckRecord], snippet_hashes: dict[str, str], devices: tuple[str, ...],
           targets: tuple[str, ...] = TARGETS) -> list[Badge]:
    """One badge per target × device. *verified* only when every snippet of the entry passed
    there; *failing* when any failed; *not applicable* when the entry cannot apply there; *not
    run* when no check ran (no report, or e.g. no such device); *partly verified* when some
    snippets have no result yet. Where the entry's records were judged by different verifiers (a run after an
    upgrade repeated some checks), each badge names the verifier of its records."""
    result = []
    roles = list(snippet_hashes)
    mixed = len({r.verifier for r in records}) > 1
    for target in targets:
        for device in devices:
            mine = [r for r in records if r.target == target and r.device == device]
            ran = [r for r in mine if r.outcome.ran]
            by_role: dict[str, CheckRecord] = {r.role: r for r in ran}
            if not ran:
                reasons = sorted({r.reason or "not run" for r in mine})
                applicable = not mine or any(r.outcome is not Outcome.NOT_APPLICABLE for r in mine)
                outcome = Outcome.NOT_RUN if applicable else Outcome.NOT_APPLICABLE
                result.append(Badge(target, device, outcome.value, False, None,  # a day belongs to a check that ran
                                    "; ".join(reasons) or "no verification report for this target and device",
                                    _judged_by(mine) if mixed else "", judges(mine)))
                continue
            outcomes = {by_role[role].outcome.value if role in by_role else "missing" for role in roles}
            if "fail" in outcomes:
                outcome_text = "fail"
            elif outcomes == {"pass"}:
                outcome_text = "pass"
            else:
                outcome_text = "partial"
            failures = sorted({f"{r.role}: {r.reason}" for r in ran if r.outcome is Outcome.FAIL})
            missing = [role for role in roles if role not in by_role]
            detail = "; ".join(failures) if failures else (
                f"no result for {', '.join(missing)}" if missing else f"all {len(roles)} snippets passed")
            on_object = sorted(role for role, r in by_role.items()
                               if r.outcome is Outcome.PASS and r.device_basis is DeviceBasis.OBJECT)
            if on_object and not failures:
                detail += f"; {', '.join(on_object)} on {device}: {ON_OBJECT_WHY}"
            stale = any(is_stale(r, snippet_hashes) for r in ran)
            if stale:  # the mark never without its reason: the hover text, the terminal, the JSON API
                detail += f"; stale: {STALE_WHY}"
            said = " · ".join(part for part in (versions(ran), _judged_by(ran) if mixed else "") if part)
            result.append(Badge(target, device, outcome_text, stale, _newest(ran), detail, said, judges(ran),
                                len(on_object) if not failures else 0))
    return result


def judges(records: list[CheckRecord]) -> tuple[str, ...]:
    """The verifiers that judged these records (a record in a report always names one)."""
    return tuple(sorted({r.verifier for r in records if r.verifier}))


def _judged_by(records: list[CheckRecord]) -> str:
    return " · ".join(f"verifier {verifier}" for verifier in judges(records))


def _newest(records: list[CheckRecord]) -> str | None:
    dates = sorted(r.verified_at[:10] for r in records if r.verified_at)
    return dates[-1] if dates else None


def versions(records: list[CheckRecord]) -> str:
    """The software a target ran on, from the records' environment: for the real library, first the
    release(s) it ran against (measured, which the page's pinned release is not: a CI job may install
    another); for the bundled target no library release, since the library itself did not run."""
    env = next((r.environment for r in records if r.environment), None) or {}
    parts = []
    if library_release(records):
        parts.append(library_release(records))
    if env.get("runtime") and env.get("runtime") != "python" and env.get("runtime_version"):
        parts.append(f"{env['runtime']} {env['runtime_version']}")
    if env.get("python"):
        parts.append(f"Python {env['python']}")
    device = next((r.environment.get("device_name") for r in records
                   if r.device != "cpu" and r.environment and r.environment.get("device_name")), None)
    if device:
        parts.append(device)
    return " · ".join(parts)


def library_release(records: list[CheckRecord]) -> str:
    """The release(s) of the real library these records' checks imported, e.g. "<library> 1.2.0"
    (measured, from their environment); "" for the bundled target, where the library did not run."""
    real = [r.environment for r in records if r.target == UPSTREAM and r.environment]
    releases = sorted({str(e["library_version"]) for e in real if e.get("library_version")}, key=_release_order)
    return f"{real[0].get('library') or 'library'} {', '.join(releases)}" if releases else ""


def _release_order(text: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in text.replace("+", ".").split("."))


def _preferred(record: CheckRecord, snippet_hashes: dict[str, str]) -> tuple[bool, bool, bool]:
    """Fresh first, the real library first, CPU first."""
    return is_stale(record, snippet_hashes), record.target != UPSTREAM, record.device != "cpu"


def captured_error(records: list[CheckRecord], snippet_hashes: dict[str, str]) -> CheckRecord | None:
    """The before snippet's error as a check captured it."""
    found = [r for r in records if r.role == "before" and r.outcome is Outcome.PASS and r.exception]
    found.sort(key=lambda r: _preferred(r, snippet_hashes))
    return found[0] if found else None


def clean_run(records: list[CheckRecord], snippet_hashes: dict[str, str], role: str = "after") -> CheckRecord | None:
    """A passing check of `role` (the after snippet, a guard), chosen like `captured_error`."""
    found = [r for r in records if r.role == role and r.outcome is Outcome.PASS]
    found.sort(key=lambda r: _preferred(r, snippet_hashes))
    return found[0] if found else None


def failed_run(records: list[CheckRecord], role: str, snippet_hashes: dict[str, str]) -> CheckRecord | None:
    """A failing check of `role`, chosen like `captured_error`: what the page says under a snippet that has no pass to
    show, so a snippet that ran and failed is never said not to have been verified yet."""
    found = [r for r in records if r.role == role and r.outcome is Outcome.FAIL]
    found.sort(key=lambda r: _preferred(r, snippet_hashes))
    return found[0] if found else None


def raised_so(records: list[CheckRecord], wording: int, snippet_hashes: dict[str, str]) -> list[CheckRecord]:
    """The checks of the files as they are now whose before raised the entry's wording number `wording`
    (`CheckRecord.wording`; 0 is its own message): where a page may say that wording was verified, and on what."""
    return sorted((r for r in records if r.role == "before" and r.outcome is Outcome.PASS and r.wording == wording
                   and not is_stale(r, snippet_hashes)), key=lambda r: (r.target, r.device))


def ran_on(records: list[CheckRecord], device: str) -> bool:
    """Whether any check ran on `device` (a pass or a failure): "no check has run on one" is said where none did."""
    return any(r.device == device and r.outcome.ran for r in records)


@dataclass(frozen=True)
class RoleVerdict:
    """One snippet's verdict across every target and device it ran on, as a chip or a terminal line
    says it: the outcome, whether a check behind it ran on other inputs than the files now (a pass
    on an older snippet is no pass of this one), and where and when it ran."""

    outcome: str  # pass | fail | not-run
    stale: bool
    where: tuple[str, ...]  # "target · device" of the checks that ran
    date: str | None

    @property
    def words(self) -> str:
        return f"{ICONS[self.outcome]} {OUTCOME_WORDS[self.outcome]}" + (" · stale" if self.stale else "")

    @property
    def detail(self) -> str:
        if not self.where:
            return "no check of this snippet ran"
        said = f"{', '.join(self.where)}, {self.date}" if self.date else ", ".join(self.where)
        return said + (f"; stale: {STALE_WHY}" if self.stale else "")


def role_verdict(records: list[CheckRecord], role: str, snippet_hashes: dict[str, str]) -> RoleVerdict:
    """pass | fail | not-run for one snippet across every target and device it ran on; stale when any
    check behind it ran on other inputs than the entry and snippet folder on disk now."""
    ran = [r for r in records if r.role == role and r.outcome.ran]
    outcome = "not-run" if not ran else "fail" if any(r.outcome is Outcome.FAIL for r in ran) else "pass"
    where = tuple(dict.fromkeys(f"{r.target} · {r.device}" for r in sorted(ran, key=lambda r: (r.target, r.device))))
    return RoleVerdict(outcome, any(is_stale(r, snippet_hashes) for r in ran), where, _newest(ran))


def summary(records: list[CheckRecord], snippet_hashes_by_entry: dict[str, dict[str, str]]) -> dict[str, int]:
    """Counts for the verification page: per outcome, and stale among those that ran."""
    counts = Counter(r.outcome.value for r in records)
    stale = sum(1 for r in records if is_stale(r, snippet_hashes_by_entry.get(r.entry, {})))
    return {"checks": len(records), **{outcome.value: counts[outcome.value] for outcome in Outcome}, "stale": stale}


def environments(records: list[CheckRecord]) -> list[dict[str, Any]]:
    """Distinct environments checks ran in, newest run first, with what ran there."""
    seen: dict[tuple[str, ...], dict[str, Any]] = {}
    for record in records:
        if not record.outcome.ran:
            continue
        env = record.environment or {}
        device_name = str(env.get("device_name") or "")
        runtime = " ".join(str(env[key]) for key in ("runtime", "runtime_version") if env.get(key))
        key = (record.target, record.device, str(env.get("python", "")), runtime,
               str(env.get("library_version") or ""), str(env.get("platform", "")), device_name,
               record.verifier or "")
        row = seen.setdefault(key, {"target": key[0], "device": key[1], "python": key[2], "runtime": key[3],
                                    "library": key[4], "platform": key[5], "device_name": device_name,
                                    "verifier": key[7], "checks": 0, "last": ""})
        row["checks"] += 1
        row["last"] = max(row["last"], record.verified_at[:10])
    # Within a day, target and device, the newest release first: a reader finds a release where it belongs (rows came
    # in the order the reports held their records: 4.48.3, 4.52.4, 4.53.3, 4.44.2...).
    return sorted(seen.values(), key=lambda row: (row["last"], row["target"], row["device"], _release(row["library"])),
                  reverse=True)


def _release(text: str) -> tuple[int, Version | str]:
    """A release as it sorts: by its version where it is one, after those by its text."""
    try:
        return 1, Version(text)
    except InvalidVersion:
        return 0, text

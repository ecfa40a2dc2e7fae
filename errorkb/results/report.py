"""Verification reports: what ran, against what, where, when, and what it found.

A report is JSON so that CI jobs on different machines (a CPU runner, a GPU runner) can each
write one and the site can read them all. Two rules live here and nowhere else:

- `latest_results`: per check, the record written last wins (`CheckRecord.written`: a verdict
  reused from the cache enters the report when the run that reused it does, so a fix
  re-confirmed from the cache replaces the failure recorded in between), except that a record
  that ran is never replaced by one that did not;
- `update_standing`: a run updates the standing report per record, never replacing it, keeping
  records of checks it did not run exactly as they were; the records of entries the knowledge base no longer
  has are dropped, and said (`dropped_said`).

`write_report` takes the folder's lock, merges with what is on disk at that moment (two runs at
once keep both runs' results), never overwrites a file that does not parse, keeps the file's
mode, and writes records in a stable order, one per line, so that the diff of a run that
re-verified one entry shows that entry's records and nothing else.
"""

from __future__ import annotations

import functools
import json
import platform
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, computed_field, model_validator

from errorkb.core.problems import quoted
from errorkb.results import kept as format_
from errorkb.results import store
from errorkb.results.records import CheckRecord, Code, Outcome

SCHEMA = 2
MINOR = format_.MINOR  # the format: `errorkb.results.kept` says what a newer minor or major is
VERIFIER_VERSION = "2"
VERIFIER_LENGTH = 40  # the longest verifier a report names
# The only report files the site reads, in reports/: the standing report (`errorkb verify`) and one
# per accelerator kind of the runtime, `<device>.json`, written where that device is (the GPU
# runner's `scripts/gpu-check.sh`). Any other file there is nobody's verdict.
STANDING = "latest.json"


def report_files(devices: Sequence[str]) -> tuple[str, ...]:
    """The files the site reads for a runtime with these device kinds (the first is the host's)."""
    return (STANDING, *(f"{device}.json" for device in devices[1:]))


CLOCK_SKEW = timedelta(minutes=10)  # a record dated further ahead than this was not made by a run that happened


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: int = Field(default=SCHEMA, alias="schema")
    minor: int = Field(default=MINOR, ge=0, strict=True)  # the format's minor (`errorkb.results.kept`)
    verifier: str = Field(VERIFIER_VERSION, max_length=VERIFIER_LENGTH)  # a version, quoted by the merge and the site
    created: str
    environment: dict[str, Any]
    targets: dict[str, str]  # target → fingerprint
    run: dict[str, Any] | None = None  # how this report was made: isolation, shard, cache hits
    checks: list[CheckRecord]
    # The header's fields of a newer minor this errorkb does not know, written back (`errorkb.results.kept`).
    _kept: format_.Kept = PrivateAttr(default_factory=format_.Kept)
    # Of each entry the knowledge base no longer has, how many records `update_standing` left out of this report.
    _dropped: dict[str, int] = PrivateAttr(default_factory=dict)

    def keeping(self, *sources: Report | None) -> Report:
        """This report, keeping the header fields of a newer minor that `sources` (the files it merges) kept."""
        self._kept = format_.carried(*(source._kept for source in sources if source is not None))
        return self

    @model_validator(mode="before")
    @classmethod
    def _summary_is_derived(cls, data: Any) -> Any:
        """A report file carries its summary for readers; it is always recomputed from the checks."""
        if isinstance(data, dict):
            data = {key: value for key, value in data.items() if key != "summary"}
        return data

    @model_validator(mode="before")
    @classmethod
    def _records_read_name_their_verifier(cls, data: Any) -> Any:
        """`_records_name_their_verifier` for the records of a file, before they are validated: a record read is
        made once, naming its verifier (a copy of each validated record cost a fifth of reading a report)."""
        if not isinstance(data, dict) or not isinstance(checks := data.get("checks"), list):
            return data
        verifier = data.get("verifier", VERIFIER_VERSION)
        if type(verifier) is not str or len(verifier) > VERIFIER_LENGTH:
            return data  # refused at `verifier` by the validation, not once per record
        named = [dict(check, verifier=verifier) if type(check) is dict and check.get("verifier") is None else check
                 for check in checks]
        return {**data, "checks": named}

    @model_validator(mode="after")
    def _records_name_their_verifier(self) -> Report:
        """A record that names no verifier (written before records did, or not yet in a report) is this report's
        verifier's; named, it keeps its own, so a run never relabels the records of checks it did not repeat.
        The file names a record's verifier only where it is not the report's (`text`): one verifier's report
        reads and writes back as before."""
        if any(check.verifier is None for check in self.checks):
            self.checks = [check if check.verifier is not None else check.model_copy(update={"verifier": self.verifier})
                           for check in self.checks]
        return self

    def verifiers(self) -> Counter[str]:
        """How many of its records each verifier judged."""
        return Counter(check.verifier or self.verifier for check in self.checks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> dict[str, int]:
        return self.counts()

    def counts(self) -> dict[str, int]:
        counts = {outcome.value: 0 for outcome in Outcome}
        for check in self.checks:
            counts[check.outcome.value] += 1
        return counts

    def text(self) -> str:
        dumped = self.model_dump(mode="json", by_alias=True, exclude={"checks"})
        header = format_.said(dumped, self._kept, self.checks, vars(self))
        own = {"verifier"}  # a record's verifier is written only where it is not the report's
        return lines_text(header, {"checks": [format_.record_text(record, record.model_dump_json(
            exclude_none=True, exclude=own if record.verifier == self.verifier else None)) for record in self.checks]})

    def write(self, path: Path) -> None:
        """Replace `path` with this report alone (a file of its own: a shard's, a merge's output).
        The standing report is written with `write_report`, which merges. Raises `store.Refused`
        when it cannot be written (a read-only folder, a full disk, a file where the folder should
        be): the file is left as it was and this report saved elsewhere, as `write_report` does."""
        store.update(path, lambda _: None, lambda _: self, Report.text, f"make {path.parent} a folder of its own")


def lines_text(header: dict[str, Any], sections: dict[str, list[str]]) -> str:
    """`header` as indented JSON, then each section a list of JSON texts, one per line."""
    parts = [json.dumps(header, indent=1, ensure_ascii=False).removesuffix("\n}")]
    for key, lines in sections.items():
        items = "[\n" + ",\n".join(lines) + "\n]" if lines else "[]"
        parts.append(f"{json.dumps(key)}: {items}")
    return ",\n".join(parts) + "\n}\n"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_report(targets: dict[str, str], checks: list[CheckRecord], run: dict[str, Any] | None = None) -> Report:
    environment: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(terse=True),
                                   "machine": platform.machine()}
    for check in checks:  # runtime and device facts come from the children, which loaded the runtime
        for key, value in (check.environment or {}).items():
            if key not in ("library_version", "device", "device_name"):  # these vary per check
                environment.setdefault(key, value)
    judged = [stamped(check) for check in checks]
    return Report(created=now(), environment=environment, targets=targets, checks=judged, run=run)


def stamped(record: CheckRecord) -> CheckRecord:
    """The record with whose rules judged it: this verifier's version and this errorkb release, where it names no
    verifier yet (made by this run). The one owner of the stamp: the verdict cache stores records stamped, so a
    verdict reused from it keeps the release that ran it (the cache key holds the verifier's version and code, not
    the release), and a record that names its verifier is never relabelled."""
    if record.verifier is not None:
        return record
    from errorkb import __version__

    return record.model_copy(update={"verifier": VERIFIER_VERSION, "errorkb": __version__})


class ReportError(store.Unreadable):
    """A file that is not a readable verification report of this schema; `advised` when the message
    already says what to do (upgrade errorkb, regenerate it), else the reader adds how to recover."""

    def __init__(self, message: str, advised: bool = False):
        super().__init__(message)
        self.advised = advised


def parse_report(text: str, path: Path) -> Report:
    if not text or text.isspace():  # never `strip`: a copy of the whole text
        raise ReportError(f"{path}: empty, not a verification report")
    try:
        data = store.parse_json(text)
    except ValueError as error:  # json.JSONDecodeError is one
        raise ReportError(f"{path}: not a verification report ({error})") from None
    if not isinstance(data, dict):  # valid JSON, but no report was ever written so: restored, not regenerated
        raise ReportError(f"{path}: not a verification report (the file holds {json_kind(data)}, where a report is "
                          "an object)")
    if data.get("schema") != SCHEMA:
        found = data.get("schema")
        if type(found) is int and found > SCHEMA:  # regenerating it here would throw away what that one measured
            raise ReportError(f"{path}: written by a newer errorkb (schema {found}); upgrade errorkb to read it "
                              f"(this one reads schema {SCHEMA})", advised=True)
        raise ReportError(f"{path}: report schema {found!r}, expected {SCHEMA} (an older errorkb wrote it, and this "
                          "one can neither read nor merge it); move it away, then errorkb verify writes it anew",
                          advised=True)
    try:
        minor = format_.minor_of(data)
    except format_.FormatError as error:
        raise ReportError(f"{path}: not a verification report ({error}); restore the file from the run that wrote "
                          "it", advised=True) from None
    try:
        report, kept = format_.validated(Report, data, minor)
    except ValidationError as error:
        newer = format_.newer_value(minor, error, lambda loc: _where(loc, data, text))
        if newer is not None:
            raise ReportError(f"{path}: {newer}", advised=True) from None
        first = first_error(error)
        where = _where(first["loc"], data, text)
        if first["type"] == "extra_forbidden":
            raise ReportError(f"{path}: not a verification report of this errorkb ({where}: {UNKNOWN_FIELD})",
                              advised=True) from None
        raise ReportError(f"{path}: not a verification report ({error.error_count()} problems; {where}: "
                          f"{first['msg']})") from None
    report._kept = kept
    for index, check in enumerate(report.checks):
        if check.id != check.named:  # another check's verdict under this id, or a second one of its own
            line = _line_of(text, check.id)
            raise ReportError(f"{path}: not a verification report (checks.{index}{line}: id {check.id!r} is not the "
                              f"check its entry, role, target and device name, {check.named!r}: a second verdict "
                              "for one check, which merging would keep beside the first; restore the file from "
                              "the run that wrote it)", advised=True)
    return report


# A field of this format's file that this errorkb's model has not, in a file of a minor it reads whole (a newer
# minor's fields are kept: `errorkb.results.kept`): a hand's, or a damaged file's.
UNKNOWN_FIELD = (f"a field format {SCHEMA}.{MINOR} does not have, in a file that says it is of that format or an "
                 "earlier one: by a hand? remove the field; by a newer errorkb that did not say its format? upgrade "
                 "errorkb to read it")


def _where(loc: tuple[int | str, ...], data: dict[str, Any], text: str) -> str:
    """A field of the report's `data` by its path, with the line of its record in `text`."""
    index = loc[1] if loc[:1] == ("checks",) and len(loc) > 1 else None
    check = data["checks"][index] if isinstance(index, int) and isinstance(data.get("checks"), list) else None
    return ".".join(str(part) for part in loc) + (_line_of(text, check.get("id")) if isinstance(check, dict) else "")


def first_error(error: ValidationError) -> Any:
    """The problem a message names: a field this errorkb does not know first (it says what to do), else the first."""
    problems = error.errors()
    return next((one for one in problems if one["type"] == "extra_forbidden"), problems[0])


def json_kind(data: object) -> str:
    """What a JSON value is, in words: 'a list', 'a string', 'null'..."""
    return ("null" if data is None else "a boolean" if isinstance(data, bool) else
            "a number" if isinstance(data, int | float) else "a string" if isinstance(data, str) else
            "a list" if isinstance(data, list) else "an object")


def _line_of(text: str, check_id: object) -> str:
    """", line N": the line of the report's text where a record with this id starts to say it ("" when none does)."""
    at = text.find(json.dumps(check_id, ensure_ascii=False)) if isinstance(check_id, str) else -1
    return f", line {text.count(chr(10), 0, at) + 1}" if at >= 0 else ""


def read_report(path: Path) -> Report:
    """The report in `path`; `ReportError` when there is none or it does not parse."""
    report = existing_report(path)
    if report is None:
        raise ReportError(f"{path}: no such report")
    return report


def existing_report(path: Path) -> Report | None:
    """The report in `path`, None when there is none; `ReportError` when it does not parse."""
    try:
        text = store.read_regular(path)
    except store.Unreadable as error:
        raise ReportError(f"{error}: not a verification report") from None
    return parse_report(text, path) if text is not None else None


RECOVER = "restore it (git checkout {path}) or move it away"
SITE_RECOVER = "restore it (git checkout {path}), or move it away and run errorkb verify"


def write_report(path: Path, fresh: Report, combine: Callable[[Report | None, Report], Report]) -> Report:
    """Merge `fresh` into the report on disk now, under the folder's lock, and write it; `combine`
    decides how (e.g. `update_standing`). Raises `store.Refused` when the file there does not
    parse, or holds a record of a check `fresh` ran that a later verifier judged (`later_verifier`):
    the file is left as it was and this run's report saved beside it."""
    def current(at: Path) -> Report | None:
        report = existing_report(at)
        if report is not None:
            later_verifier(at, report, fresh)
        return report

    return store.update(path, current, lambda on_disk: combine(on_disk, fresh), Report.text, RECOVER.format(path=path))


def later_verifier(path: Path, on_disk: Report, fresh: Report) -> None:
    """`ReportError` when `on_disk` holds a record of a check `fresh` ran that a later verifier judged than the one
    that judged fresh's: of two records of a check the later-written wins, so an older errorkb's run would replace
    a verdict its rules could not reach (a hole the later rules closed, passed again)."""
    ours = {check.id: check.verifier or fresh.verifier for check in fresh.checks}
    later = sorted({f"{check.verifier} ({check.id})" for check in on_disk.checks
                    if check.id in ours and later_verifier_than(check.verifier or on_disk.verifier, ours[check.id])})
    if later:
        raise ReportError(f"{path}: holds records a later verifier judged than this errorkb's ({fresh.verifier}): "
                          f"{listed(later)}; this run would replace them; upgrade errorkb, or, where no errorkb has "
                          f"that verifier (a hand-edited file), restore it (git checkout {path})", advised=True)


def later_verifier_than(version: str, than: str) -> bool:
    """Whether verifier `version` comes after `than`: both whole numbers, as `VERIFIER_VERSION` is; a version of
    another form comes after none."""
    plain = re.compile(r"[0-9]{1,9}")
    return bool(plain.fullmatch(version) and plain.fullmatch(than)) and int(version) > int(than)


def read_reports(folder: Path, devices: Sequence[str], now: datetime | None = None,
                 reader: Callable[[Path], Report] | None = None) -> tuple[list[Report], list[str]]:
    """The reports the site expects in `folder` (`report_files(devices)`), and a message for each
    file or record left out: another file, an unreadable one, a record dated in the future, a pass on a
    device other than the host's (`devices[0]`) that carries no device evidence (`unproven_on_device`);
    and for environment values shown cut (`ENVIRONMENT_SHOWN`). `reader`: how one file is read (`read_report`;
    `mkdocs serve` keeps the last good read of a file read while it is being written: `errorkb.site.live`)."""
    reader = reader or read_report
    reports, problems, read, ignored = [], [], [], []
    moment = now or datetime.now(UTC)
    expected = report_files(devices)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name not in expected:
            ignored.append(path)
            continue
        try:
            report = reader(path)
        except ReportError as error:
            problems.append(str(error) if error.advised else f"{error}; {SITE_RECOVER.format(path=path)}")
            continue
        if _in_the_future(report.created, moment):
            problems.append(f"{path}: ignored: created {report.created}, in the future" if _is_date(report.created)
                            else f"{path}: ignored: created {report.created[:40]!r}, which is not a date")
            continue
        undated: list[CheckRecord] = []
        kept: list[CheckRecord] = []
        dropped = 0
        for check in report.checks:  # each record's times read once; no record compared with another
            verified, written = _dated(check.verified_at), _dated(check.written)
            if verified is None or written is None:
                undated.append(check)
            elif _after(verified, moment) or _after(written, moment):
                dropped += 1
            else:
                kept.append(check)
        if undated:
            problems.append(_undated_said(path, undated))
        if dropped:
            problems.append(f"{path}: {dropped} record{'s' if dropped > 1 else ''} dated in the future ignored")
        if len(kept) != len(report.checks):
            report = report.model_copy(update={"checks": kept})
        proven: list[CheckRecord] = []
        unproven: list[CheckRecord] = []
        for check in report.checks:
            (unproven if unproven_on_device(check, expected_host(devices)) else proven).append(check)
        if unproven:
            problems.append(_unproven_said(path, unproven))
            report = report.model_copy(update={"checks": proven})
        clipped = sorted({key for check in report.checks for key in _long_environment(check)})
        if clipped:
            problems.append(f"{path}: environment values longer than {ENVIRONMENT_SHOWN} characters "
                            f"({listed(clipped)}) are shown cut: no device, runtime or platform is named at such "
                            "length; the file keeps them whole")
            report = report.model_copy(update={"checks": [_environment_shown(check) for check in report.checks]})
        times_listed = Counter(check.id for check in report.checks)
        twice = [(check, times) for check, times in sorted(times_listed.items()) if times > 1]
        if len(twice) == 1:
            problems.append(f"{path}: check {twice[0][0]} listed {twice[0][1]} times: only the record written last "
                            "is shown")
        elif twice:  # one line however many: 10^4 checks listed twice were 10^4 warnings
            problems.append(f"{path}: {len(twice):,} checks listed more than once ("
                            f"{listed([f'{check} {times} times' for check, times in twice])}): of each, only the "
                            "record written last is shown")
        reports.append(report)
        read.append(path)
    if ignored:  # one line however many: a folder of 10,000 files nobody expects is one warning, not 10,000
        files = str(ignored[0]) if len(ignored) == 1 else f"{folder}: " + listed([path.name for path in ignored])
        problems.insert(0, f"{files}: ignored: the site reads only {', '.join(expected)}")
    judged = [(path, report.verifiers()) for path, report in zip(read, reports, strict=True)]
    if len({verifier for _, counts in judged for verifier in counts}) > 1:  # the pages show them side by side
        versions = "; ".join(f"{path.name}: " + ", ".join(f"verifier {verifier} ({count} record{'s' * (count > 1)})"
                                                          for verifier, count in sorted(counts.items()))
                             for path, counts in judged)
        problems.append(f"{folder}: records judged by different verifiers ({versions}): each check shows its latest "
                        "record and the pages say which verifier judged it; re-run the older ones' checks with one "
                        "errorkb (errorkb verify)")
    return reports, [quoted(problem) for problem in problems]  # they name files and keys a pull request chose


def _undated_said(path: Path, undated: Sequence[CheckRecord]) -> str:
    """The records of the report at `path` whose times are not dates, in one line naming the first and its line:
    they were counted as "dated in the future", which sent the author to a clock. The file keeps them."""
    first = undated[0]
    stamp = first.verified_at if not _is_date(first.verified_at) else first.written
    try:
        text = store.read_regular(path) or ""
    except store.Unreadable:
        text = ""
    at = text.find(json.dumps(first.id, ensure_ascii=False))
    at = text.find(json.dumps(stamp, ensure_ascii=False), max(at, 0)) if at >= 0 else -1
    line = f", line {text.count(chr(10), 0, at) + 1}" if at >= 0 else ""
    count = len(undated)
    return (f"{path}: {count} record{'s' * (count > 1)} whose time is not a date left out of the pages (check "
            f"{first.id}{line}: {stamp[:40]!r}); the file keeps {'them' if count > 1 else 'it'}: restore the file "
            "from the run that wrote it, or re-run the checks (errorkb verify)")


# Characters of one value of a record's environment the pages show (a device's name, a platform: 50 or so): a report
# is text a pull request chose, and each value reaches the badges, the verification page and the JSON API.
ENVIRONMENT_SHOWN = 200


def _long_environment(check: CheckRecord) -> list[str]:
    """The keys of `check`'s environment whose value is longer than `ENVIRONMENT_SHOWN` as shown, or is no plain
    value (a list, an object: a page shows it as its text)."""
    return [key for key, value in (check.environment or {}).items()
            if not isinstance(value, _PLAIN) or len(str(value)) > ENVIRONMENT_SHOWN]


_PLAIN = (str, int, float, bool, type(None))  # a tuple: `isinstance` with a union type is several times slower


def _environment_shown(check: CheckRecord) -> CheckRecord:
    """`check` with each environment value `_long_environment` names as its first `ENVIRONMENT_SHOWN` characters
    and how long it is; a list or an object as its JSON text, cut alike. For the pages only: the file is not written."""
    long = _long_environment(check)
    if not long:
        return check
    environment = dict(check.environment or {})
    for key in long:
        value = environment[key]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        environment[key] = text if len(text) <= ENVIRONMENT_SHOWN else \
            f"{text[:ENVIRONMENT_SHOWN]}… ({len(text):,} characters)"
    return check.model_copy(update={"environment": environment})


def expected_host(devices: Sequence[str]) -> str:
    """The host's own device: the first the runtime names (every check ran on it, with no device to prove)."""
    return devices[0] if devices else ""


def unproven_on_device(check: CheckRecord, host: str) -> bool:
    """Whether `check` claims a pass on a device other than the host's without what a check there records: what the
    runtime read on the device in the check's process (`evidence`), and for a clean run what the judge rested the
    pass on (`device_basis`, which it gives every clean run on such a device). Such a record is a pass nobody
    observed on the device (a hand's, a forged artefact's, a runner whose probe read nothing): never shown as one."""
    if check.outcome is not Outcome.PASS or check.device == host:
        return False
    return not check.evidence or (check.code is Code.RAN_CLEAN and check.device_basis is None)


def _unproven_said(path: Path, unproven: Sequence[CheckRecord]) -> str:
    count = len(unproven)
    devices = ", ".join(sorted({check.device for check in unproven}))
    return (f"{path}: {count} record{'s' if count > 1 else ''} passing on {devices} left out "
            f"({listed(sorted(check.id for check in unproven))}): {'they carry' if count > 1 else 'it carries'} none "
            "of the device evidence a check there records (what the runtime read on the device; for a clean run, "
            "what the pass rests on), so no run on the device was observed; re-run them there (errorkb verify "
            f"--device {unproven[0].device})")


def without_unknown_entries(reports: list[Report], known: Collection[str], folder: Path
                            ) -> tuple[list[Report], list[str]]:
    """The reports less the records of entries not in `known` (removed or renamed since they were verified:
    they speak for no page), and a message naming them, with what to do."""
    unknown = sorted({check.entry for report in reports for check in report.checks if check.entry not in known})
    if not unknown:
        return reports, []
    left = [report.model_copy(update={"checks": [check for check in report.checks if check.entry in known]})
            for report in reports]
    count = sum(len(report.checks) for report in reports) - sum(len(report.checks) for report in left)
    shown = listed(unknown)
    said = (f"{folder}: {count} record{'s' if count > 1 else ''} of {'entries' if len(unknown) > 1 else 'an entry'} "
            f"the knowledge base does not have ({shown}) left out: `errorkb verify` drops such records from the "
            "standing report")
    return left, [quoted(said)]


def without_unplanned_checks(reports: list[Report], planned: dict[str, set[str]], folder: Path
                             ) -> tuple[list[Report], list[str]]:
    """The reports less the records of an entry in `planned` (entry → the ids of its checks: its snippets on
    every target and device the pages show) that are none of its checks: a guard renamed since it ran, a
    device the runtime has not, a target nobody has. They showed as rows of the entry's page though no check
    of the knowledge base is theirs. Entries not in `planned` (not loaded) keep theirs; a message names them."""
    def expected(check: CheckRecord) -> bool:
        return check.entry not in planned or check.id in planned[check.entry]

    left, dropped = [], []
    for report in reports:
        dropped += [check.id for check in report.checks if not expected(check)]
        left.append(report.model_copy(update={"checks": [check for check in report.checks if expected(check)]}))
    if not dropped:
        return reports, []
    shown = listed(sorted(set(dropped)))
    said = (f"{folder}: {len(dropped)} record{'s' if len(dropped) > 1 else ''} of checks the knowledge base does not "
            f"have ({shown}) left out: a snippet the entry has not (renamed since?), or a target or device its pages "
            "do not show")
    return left, [quoted(said)]


def listed(names: Sequence[str], most: int = 10, separator: str = ", ") -> str:
    """The first `most` names, and how many more: a message stays one short line however many there are."""
    rest = len(names) - most
    return separator.join(names[:most]) + (f" and {rest:,} more" if rest > 0 else "")


def _dated(stamp: str) -> datetime | None:
    """A record's or report's time, UTC when it names no zone; None for what is not a date. The one reading of a
    stamp: whether it is a date, whether it lies in the future, which of two records is newer."""
    return _read_stamp(stamp) if isinstance(stamp, str) and len(stamp) <= 64 else _stamp(stamp)


# A run stamps its records within a few seconds, and reading a report reads each stamp four times: a stamp read once
# (no longer than a date is: the cache holds no file's long strings).
_read_stamp = functools.lru_cache(maxsize=4096)(lambda stamp: _stamp(stamp))


def _stamp(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _is_date(stamp: str) -> bool:
    return _dated(stamp) is not None


is_date = _is_date  # for the matrix file's reader


def _in_the_future(stamp: str, now: datetime) -> bool:
    """Dated after now (beyond the clocks' skew), or not a date at all."""
    when = _dated(stamp)
    return when is None or _after(when, now)


def _after(when: datetime, now: datetime) -> bool:
    """Later than `now` beyond the clocks' skew: made by no run that has happened."""
    return when > now + CLOCK_SKEW


NEVER = datetime.min.replace(tzinfo=UTC)


def moment(stamp: str, now: datetime | None = None) -> datetime:
    """A record's time for choosing the newer of two: one that is not a date, or is dated in the
    future (beyond the clocks' skew), sorts first: it never wins, so a forged date cannot keep a
    record in place of every later run's."""
    when = _dated(stamp)
    return NEVER if when is None or when > (now or datetime.now(UTC)) + CLOCK_SKEW else when


def latest_results(reports: Iterable[Report]) -> dict[str, CheckRecord]:
    """Check id → its record written last; a record that ran beats a later one that did not."""
    chosen: dict[str, CheckRecord] = {}
    moment_now = datetime.now(UTC)
    records = [(moment(check.written, moment_now), index, check) for index, report in enumerate(reports)
               for check in report.checks]
    for _, _, check in sorted(records, key=lambda item: (item[0], item[1])):
        previous = chosen.get(check.id)
        if previous is None or check.outcome.ran or not previous.outcome.ran:
            chosen[check.id] = check
    return chosen


def merge(reports: list[Report], names: Sequence[str] | None = None) -> Report:
    """One report from several (CI jobs, shards), named for messages by `names`: per check, `latest_results`
    decides; all of one verifier (`one_verifier`), whose version the merged report keeps."""
    verifier = one_verifier(list(zip(names or [f"report {number}" for number in range(1, len(reports) + 1)],
                                     reports, strict=True)))
    results = latest_results(reports)
    targets: dict[str, str] = {}
    for report in reports:
        targets.update(report.targets)
    environment = reports[-1].environment if reports else {}
    checks = sorted(results.values(), key=lambda record: record.id)
    return Report(verifier=verifier, created=now(), environment=environment, targets=targets, checks=checks,
                  run={"merged": len(reports)}).keeping(*reports)


def one_verifier(named: Sequence[tuple[str, Report]]) -> str:
    """The verifier version the named reports share; `ReportError` naming each one's when they differ. Records
    judged by different verifiers are never merged: of two records of a check the later one wins, so an older
    verifier's record written later replaced the newer verifier's verdict (a hole its rules closed, passed
    again), and the merged report named one verifier for both."""
    versions = {report.verifier for _, report in named}
    if len(versions) > 1:
        listed = "; ".join(f"{name}: verifier {report.verifier}" for name, report in named)
        raise ReportError(f"reports of different verifiers are not merged ({listed}): their records were judged by "
                          "different rules; re-run the older ones' checks with one errorkb (errorkb verify), or "
                          "merge each verifier's reports apart", advised=True)
    return versions.pop() if versions else VERIFIER_VERSION


def disagreements(named: Sequence[tuple[str, Report]]) -> list[str]:
    """For `merge`'s caller: each check that two of the named reports both ran, one failing and one passing,
    in one line naming the inputs, their outcomes and dates, and whose record `latest_results` keeps. Merged
    shards keep one record per check, as one run would; a failure another machine measured is not dropped
    without a word."""
    kept = latest_results([report for _, report in named])
    now = datetime.now(UTC)
    ran_by_check: dict[str, list[tuple[str, CheckRecord]]] = {}
    for name, report in named:
        for record in report.checks:
            if record.outcome.ran:
                ran_by_check.setdefault(record.id, []).append((name, record))
    said = []
    for check, ran in sorted(ran_by_check.items()):
        if len({record.outcome for _, record in ran}) < 2:
            continue
        chosen = kept[check]
        measured = listed([f"{name}: {record.outcome.value} ({record.written})" for name, record in ran],
                          separator="; ")  # a check listed 10^5 times in an input was a line of megabytes
        keeper = next(name for name, record in ran if record is chosen)
        if any(moment(record.written, now) is NEVER for _, record in ran):
            why = "the others are dated in the future or not dated, and never win"
        elif sum(record.written == chosen.written for _, record in ran) > 1:
            why = "dated alike, the later input's"
        else:
            why = "the record written last"
        said.append(quoted(f"{check}: measured both failing and passing ({measured}); kept {keeper}'s ({why})"))
    return said


def of_known_entries(named: Sequence[tuple[str, Report]], known: Collection[str]) -> tuple[list[Report], list[str]]:
    """For `merge`'s caller: each named report less its records of entries not in `known` (a shard of another
    knowledge base's run, or of entries removed since), and per report that had some, one line naming them. A CI
    artefact holds whatever its job uploaded; merged, they spoke for no page and the next run dropped them unsaid."""
    left, said = [], []
    for name, report in named:
        foreign = sorted({check.entry for check in report.checks if check.entry not in known})
        if not foreign:
            left.append(report)
            continue
        ours = [check for check in report.checks if check.entry in known]
        count = len(report.checks) - len(ours)
        said.append(quoted(f"{name}: {count} record{'s' if count > 1 else ''} of "
                           f"{'entries' if len(foreign) > 1 else 'an entry'} this knowledge base does not have "
                           f"({listed(foreign)}) left out: another knowledge base's report, or entries removed since?"))
        left.append(report.model_copy(update={"checks": ours}))
    return left, said


def shard_named(report: Report) -> tuple[int, int] | None:
    """(k, n) of the `--shard k/n` run that wrote `report` (its `run.shard`); None for a whole run, a merge, or a
    value that is no shard (a hand's or a pull request's: read as no shard, never trusted to split)."""
    found = re.fullmatch(r"([1-9]\d{0,5})/([1-9]\d{0,5})", str((report.run or {}).get("shard") or ""))
    if found is None or int(found[1]) > int(found[2]):
        return None
    return int(found[1]), int(found[2])


def of_own_shards(named: Sequence[tuple[str, Report]], shard_of: Callable[[str, int], int]
                  ) -> tuple[list[Report], list[str]]:
    """For `merge`'s caller: the named reports, each written by a `--shard k/n` run less its records of another
    shard's checks that would replace the record the input of that shard holds (a shard runs its own checks
    only: its file holds the others' records as the checkout had them, older than the shard that ran them;
    one newer is a claim, and the shard that ran the check keeps it); and lines saying what was left out, and
    where the inputs are not one split's shards once each (two splits, a shard missing or given twice), which
    merged are not one run. `shard_of(check id, n)`: the split `errorkb verify --shard` makes."""
    shards = [(name, report, shard_named(report)) for name, report in named]
    said = _split_said([(name, shard) for name, _, shard in shards if shard is not None])
    runners: dict[tuple[int, int], dict[str, list[CheckRecord]]] = {}  # a shard's inputs' records, by check
    for _, report, shard in shards:
        if shard is not None:
            held = runners.setdefault(shard, {})
            for check in report.checks:
                held.setdefault(check.id, []).append(check)
    left = []
    for name, report, shard in shards:
        claims = [] if shard is None else [check for check in report.checks
                                           if _claims(check, shard, runners, shard_of)]
        if shard is not None and claims:
            count = len(claims)
            k, n = shard
            said.append(quoted(f"{name} (shard {k}/{n}): {count} record{'s' * (count > 1)} of checks of other shards "
                               f"({listed([check.id for check in claims])}) newer than the records of the shards "
                               "that ran them, left out: a shard's run writes its own checks' records only; are "
                               "its inputs another split's, or edited? Re-run that shard"))
            claimed = {id(check) for check in claims}  # by identity: by equality, every record with every other
            report = report.model_copy(update={"checks": [check for check in report.checks
                                                          if id(check) not in claimed]})
        left.append(report)
    return left, said


def _claims(check: CheckRecord, shard: tuple[int, int], runners: dict[tuple[int, int], dict[str, list[CheckRecord]]],
            shard_of: Callable[[str, int], int]) -> bool:
    """Whether `check`, held by a report of `shard`, is of another shard of its split that an input ran, and
    would replace (`latest_results`) the record that input holds of it. `runners`: each shard's inputs' records,
    by check id."""
    k, n = shard
    owner = shard_of(check.id, n)
    theirs = runners.get((owner, n), {}).get(check.id, [])
    if owner == k or not theirs:
        return False
    kept = latest_results([_holding(theirs), _holding([check])])[check.id]
    return kept is check and all(check != one for one in theirs)


def _holding(checks: list[CheckRecord]) -> Report:
    return Report(created=now(), environment={}, targets={}, checks=checks)


def _split_said(shards: Sequence[tuple[str, tuple[int, int]]]) -> list[str]:
    """Where the named shards are not the shards of one split, once each: what merging them is instead."""
    if not shards:
        return []
    splits = {n for _, (_, n) in shards}
    if len(splits) > 1:
        return [quoted(f"shards of different splits ({'; '.join(f'{name}: {k}/{n}' for name, (k, n) in shards)}): "
                       "merged, they are not one run (a check can lie in a shard of each, or in none); merge the "
                       "shards of one --shard K/N split")]
    n = splits.pop()
    said = []
    given: dict[int, list[str]] = {}
    for name, (k, _) in shards:
        given.setdefault(k, []).append(name)
    missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in given]
    if missing:
        said.append(f"shard{'s' * (len(missing) > 1)} {listed(missing)} not among the inputs: "
                    f"{'their' if len(missing) > 1 else 'its'} checks keep the records the inputs (and OUT) held "
                    "before")
    said += [quoted(f"shard {k}/{n} given twice or more ({', '.join(names)}): per check, the record written last "
                    "is kept") for k, names in sorted(given.items()) if len(names) > 1]
    return said


def future_dated(named: Sequence[tuple[str, Report]]) -> list[str]:
    """For `merge`'s caller: per named report, its records `latest_results` never lets win (dated past now and
    the clocks' skew, or not dated at all: `moment`), in one line. A runner whose clock runs ahead wrote them
    honestly; their checks keep another input's record where there is one, and the merge says so."""
    now = datetime.now(UTC)
    said = []
    for name, report in named:
        count = sum(moment(record.written, now) is NEVER for record in report.checks)
        if count:
            said.append(quoted(f"{name}: {count} record{'s' if count > 1 else ''} dated in the future (past now and "
                               f"the clocks' {CLOCK_SKEW.seconds // 60}-minute skew) or not dated: each stays only "
                               "where no other record of its check is (another input's, or OUT's); is the clock of "
                               "the machine that wrote it right?"))
    return said


def update_standing(previous: Report | None, fresh: Report, known_entries: set[str]) -> Report:
    """The standing report after a (possibly partial) run: fresh records replace their check's
    record by `latest_results`; every other record stays exactly as it was; records of entries
    that no longer exist are dropped, and counted for the run to say (`dropped_said`). The environment
    and the run are the newest run's that observed a check: a run that ran none (every check not
    applicable or not runnable here) keeps them."""
    if previous is None:
        return fresh
    merged = latest_results([previous, fresh])
    kept = sorted((record for record in merged.values() if record.entry in known_entries), key=lambda r: r.id)
    observed = fresh if any(record.environment for record in fresh.checks) else previous
    standing = Report(created=fresh.created, environment=observed.environment,
                      targets={**previous.targets, **fresh.targets}, checks=kept, run=observed.run)
    standing._dropped = dict(Counter(record.entry for record in merged.values() if record.entry not in known_entries))
    return standing.keeping(previous, fresh)


def dropped_said(report: Report, path: str) -> list[str]:
    """What `update_standing` left out of the standing report `report` (written at `path`), for the run to say: the
    records of entries removed or renamed since they ran went without a word, and a run of one entry's checks
    emptied the report of every record of an entry renamed meanwhile."""
    if not report._dropped:
        return []
    count = sum(report._dropped.values())
    entries = "entries" if len(report._dropped) > 1 else "an entry"
    return [f"{path}: {count} record{'s' if count > 1 else ''} of {entries} the knowledge base no longer has "
            f"({listed(sorted(report._dropped))}) dropped: removed or renamed since they ran (the file's previous "
            f"version holds them: git show HEAD:{path}); verify a renamed entry under its new id"]

"""The version-matrix file (`<reports>/matrix/<distribution>.json`): its records, reading,
merging, writing, and what it says about one entry.

- `MatrixFile`     per release whether it ran (`ReleaseStatus`), per entry and release the
                   before's and after's verdicts (`Result`), each with the inputs digest it was
                   measured with and when a run wrote it.
- `read_matrix`    for readers (the site, the lookup): the file, or None; `matrix_problem` says
                   why a file that is there cannot be read (the site warns, `--strict` fails).
- `merged`         per (entry, release) and per release, the record written last wins: a run,
                   a shard or a partial run replaces only what it measured.
- `write_matrix`   merges with what is on disk at write time under the folder's lock, never
                   overwrites a file that does not parse, keeps the file's mode.
- `summarize`      ranges for the page: "raises in 5.5.1 – 5.24.0", "fixed in X".
- `release_states` what was measured at each release the matrix knows, one `State` each: the
                   cells of the page's release strip and of the knowledge base's heat map.
"""

from __future__ import annotations

import functools
import json
import platform
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Self

from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from errorkb.core.entry import Entry
from errorkb.core.problems import quoted
from errorkb.core.project import Project
from errorkb.core.snippets import AFTER, BEFORE
from errorkb.results import kept as format_
from errorkb.results import store
from errorkb.results.keys import holds
from errorkb.results.records import Claim, Code, Outcome, Worded, said_of
from errorkb.results.report import (
    NEVER,
    UNKNOWN_FIELD,
    VERIFIER_VERSION,
    first_error,
    is_date,
    json_kind,
    later_verifier_than,
    lines_text,
    moment,
    now,
)

SCHEMA = 2
MINOR = format_.MINOR  # the format: `errorkb.results.kept` says what a newer minor or major is


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Verdicts(_Model):
    outcome: Outcome
    code: Code
    reason: str
    sha256: str | None = None  # of the snippet bytes that ran
    wording: int | None = Field(None, ge=0)  # which wording of the error matched (0: the entry's own)
    cached: bool | None = None  # reused from the verdict cache (False: run); None: written before errorkb said
    # What the reason rests on, as the record kept it (`CheckRecord.claim`: a not-applicable's `Claim`, a pass through
    # another wording's `Worded`), worded when shown (`records.said_of`); None: another reason, or written before.
    claim: Claim | Worded | None = None


class ReleaseStatus(_Model):
    release: str
    ran: bool  # False: the environment could not be set up or the library itself does not import here
    error: str | None = None
    runtime: str | None = None  # the runtime's version the release ran on
    isolation: str | None = None  # how its checks were contained ('fork+bwrap'; 'fork': without a sandbox)
    measured: str  # when the run that wrote this status ran the release


class Result(_Model):
    entry: str
    release: str
    before: Verdicts | None = None
    after: Verdicts | None = None
    line: int | None = None  # the raise line in the entry's source.path at this release
    digest: str  # the inputs digest (`keys.inputs_digest`) of the entry and its snippets it was measured with
    measured: str  # when its newest verdict was observed (a cached verdict's own time)
    recorded: str | None = None  # when a run wrote it (None: written before errorkb recorded it)
    # Whose rules judged it, as a report's record says (`CheckRecord.verifier`): the verifier's version and the
    # errorkb release that ran it; None: written before results said.
    verifier: str | None = Field(None, max_length=40)
    errorkb: str | None = Field(None, max_length=40)

    @property
    def written(self) -> str:
        return self.recorded or self.measured


class Shard(_Model):
    """Which shards of a `--shard K/N` split wrote the file: `ran` (K of each, ascending, once each) of `of` (N).
    A merge checks its inputs against it (`split_checked`): two files of one shard, or of two splits, are no run."""

    ran: list[int] = Field(min_length=1)
    of: int = Field(ge=1)

    @model_validator(mode="after")
    def _one_split(self) -> Self:
        if self.of > MAX_RELEASES:  # a shard runs at least one release, or there is no point to it
            raise ValueError(f"a split into {self.of:,} shards, more than the {MAX_RELEASES:,} releases a file holds")
        if self.ran != sorted(set(self.ran)) or not all(1 <= k <= self.of for k in self.ran):
            raise ValueError(f"shards {self.ran[:10]} are not shards of {self.of} named once each, in order")
        return self

    def __str__(self) -> str:
        return f"{','.join(map(str, self.ran))}/{self.of}"


class MatrixFile(_Model):
    schema_version: int = Field(default=SCHEMA, alias="schema")
    minor: int = Field(default=MINOR, ge=0, strict=True)  # the format's minor (`errorkb.results.kept`)
    package: str
    updated: str
    shard: Shard | None = None  # the shards whose `errorkb matrix --shard` wrote it last; None: no shard's
    environment: dict[str, Any] = Field(default_factory=dict)
    releases: list[ReleaseStatus] = Field(default_factory=list)
    results: list[Result] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    # The header's fields of a newer minor this errorkb does not know, written back (`errorkb.results.kept`).
    _kept: format_.Kept = PrivateAttr(default_factory=format_.Kept)

    def keeping(self, *sources: MatrixFile | None) -> Self:
        """This file, keeping the header fields of a newer minor that `sources` (the files it merges) kept."""
        self._kept = format_.carried(*(source._kept for source in sources if source is not None))
        return self

    # Looked up once per release for every entry page: indexed once per file (a scan per lookup made a
    # page's summary quadratic in the releases, 25 s of CPU per page at 20,000 of them).
    @functools.cached_property
    def release_order(self) -> tuple[str, ...]:
        return tuple(sort_releases([r.release for r in self.releases], "0"))

    @functools.cached_property
    def status_index(self) -> dict[str, ReleaseStatus]:
        return {status.release: status for status in reversed(self.releases)}  # the first listed, as before

    @functools.cached_property
    def results_index(self) -> dict[str, dict[str, Result]]:
        index: dict[str, dict[str, Result]] = {}
        for result in self.results:
            index.setdefault(result.entry, {})[result.release] = result
        return index

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, its indexes made again from its own releases and results (pydantic copies them as they were)."""
        copy = super().model_copy(update=update, deep=deep)
        for index in ("release_order", "status_index", "results_index"):
            copy.__dict__.pop(index, None)
        return copy

    def ordered_releases(self) -> list[str]:
        return list(self.release_order)

    def status(self, release: str) -> ReleaseStatus | None:
        return self.status_index.get(release)

    def results_of(self, entry_id: str) -> dict[str, Result]:
        return dict(self.results_index.get(entry_id, {}))

    def text(self) -> str:
        dumped = self.model_dump(mode="json", by_alias=True, exclude={"releases", "results"}, exclude_none=True)
        header = format_.said(dumped, self._kept, [*self.releases, *self.results], vars(self))
        return lines_text(header, {"releases": [format_.record_text(r, r.model_dump_json()) for r in self.releases],
                                   "results": [format_.record_text(r, r.model_dump_json(exclude_none=True))
                                               for r in self.results]})


class MatrixError(store.Unreadable):
    """A file that is not a readable version-matrix file of this schema."""


def matrix_path(project: Project) -> Path:
    return project.reports / "matrix" / f"{project.library.dist}.json"


def parse_matrix(text: str, path: Path) -> MatrixFile:
    try:
        data = store.parse_json(text)
    except ValueError as error:  # json.JSONDecodeError is one
        raise MatrixError(f"{path}: not a version-matrix file ({error})") from None
    if not isinstance(data, dict):  # valid JSON, but no matrix file was ever written so: restored, not regenerated
        raise MatrixError(f"{path}: not a version-matrix file (the file holds {json_kind(data)}, where a matrix file "
                          f"is an object); restore it (git checkout {path}) or move it away")
    if data.get("schema") != SCHEMA:
        found = data.get("schema")
        if type(found) is int and found > SCHEMA:  # regenerating it here would throw away what that one measured
            raise MatrixError(f"{path}: written by a newer errorkb (schema {found}); upgrade errorkb to read it "
                              f"(this one reads schema {SCHEMA})")
        raise MatrixError(f"{path}: matrix schema {found!r}, expected {SCHEMA}; regenerate it with errorkb matrix")
    try:
        minor = format_.minor_of(data)
    except format_.FormatError as error:
        raise MatrixError(f"{path}: not a version-matrix file ({error}); restore the file from the run that wrote "
                          "it") from None
    try:
        matrix, kept = format_.validated(MatrixFile, data, minor)
        matrix._kept = kept
    except ValidationError as error:
        newer = format_.newer_value(minor, error, lambda loc: ".".join(str(part) for part in loc))
        if newer is not None:
            raise MatrixError(f"{path}: {newer}") from None
        first = first_error(error)
        where = ".".join(str(part) for part in first["loc"])
        if first["type"] == "extra_forbidden":
            raise MatrixError(f"{path}: not a version-matrix file of this errorkb ({where}: {UNKNOWN_FIELD})") from None
        raise MatrixError(f"{path}: not a version-matrix file ({error.error_count()} problems; {where}: "
                          f"{first['msg']})") from None
    if len(matrix.releases) > MAX_RELEASES:  # every entry page draws a cell per release
        raise MatrixError(f"{path}: not a version-matrix file (it lists {len(matrix.releases):,} releases, more than "
                          f"errorkb measures ({MAX_RELEASES:,}); restore it or move it away)")
    listed: list[tuple[str, int, str, str | None]] = [  # (list, index, release, entry: None for a status)
        *(("releases", index, status.release, None) for index, status in enumerate(matrix.releases)),
        *(("results", index, result.release, result.entry) for index, result in enumerate(matrix.results))]
    seen: dict[tuple[str | None, Version | str], str] = {}
    for kind, index, release, entry in listed:
        if canonical(release) != release:
            raise MatrixError(f"{path}: not a version-matrix file ({kind}.{index}{_line_of(text, release)}: "
                              f"release {release!r} is not a release as errorkb writes it"
                              f"{f' ({canonical(release)!r})' if canonical(release) else ''}: merged by "
                              "its text, it is a second record of one release, or one no page shows)")
        if Version(release).is_prerelease:  # canonical: a version; `release_order` leaves pre-releases out
            raise MatrixError(f"{path}: not a version-matrix file ({kind}.{index}{_line_of(text, release)}: "
                              f"release {release!r} is a pre-release, where errorkb runs and shows final releases "
                              "only: no page would show it; remove it, or restore the file from the run that "
                              "wrote it)")
        if (entry, release_key(release)) in seen:
            what = f"{entry} at {release}" if entry is not None else release
            raise MatrixError(f"{path}: not a version-matrix file ({kind}.{index}: {what} is listed twice (as "
                              f"{seen[entry, release_key(release)]!r} before): one release holds one record; keep "
                              "one of them)")
        seen[entry, release_key(release)] = release
    _dates_checked(matrix, text, path)
    for index, result in enumerate(matrix.results):  # every run writes a release's status with its results
        if (None, release_key(result.release)) not in seen:
            raise MatrixError(f"{path}: not a version-matrix file (results.{index}{_line_of(text, result.release)}: "
                              f"{result.entry} at {result.release}, a release the file has no status for: no run "
                              "wrote it, and no page would show it; restore the file from the run that wrote it, or "
                              "remove the result)")
    return matrix


def _dates_checked(matrix: MatrixFile, text: str, path: Path) -> None:
    """`MatrixError` naming the first time of the file that is not a date, and its line: merged, such a status or
    result never wins (`moment`), and the pages would say it was measured at 'banana'."""
    stamps = [("updated", matrix.updated),
              *((f"releases.{index}.measured", status.measured) for index, status in enumerate(matrix.releases)),
              *((f"results.{index}.{name}", stamp) for index, result in enumerate(matrix.results)
                for name, stamp in (("measured", result.measured), ("recorded", result.recorded))
                if stamp is not None)]
    for where, stamp in stamps:
        if not is_date(stamp):
            at = text.find(json.dumps(stamp, ensure_ascii=False))
            line = f", line {text.count(chr(10), 0, at) + 1}" if at >= 0 else ""
            raise MatrixError(f"{path}: not a version-matrix file ({where}{line}: {stamp[:40]!r} is not a date, where "
                              "errorkb writes when it measured; restore the file from the run that wrote it)")


MAX_RELEASES = 2000  # releases one matrix file may list: a package's whole history, many times over


def canonical(release: str) -> str | None:
    """`release` as errorkb writes it (`packaging`'s normal form: '5.0.0', never 'v5.0.0'), None when it is
    no version at all: statuses and results are merged by this text, and pages read it as a version."""
    try:
        return str(Version(release))
    except InvalidVersion:
        return None


def release_key(release: str) -> Version | str:
    """What tells releases apart: the version (5.0 and 5.0.0 are one release), or the text of one that is none."""
    try:
        return Version(release)
    except InvalidVersion:
        return release


def _line_of(text: str, release: str) -> str:
    found = re.search(r'"release"\s*:\s*' + re.escape(json.dumps(release, ensure_ascii=False)), text)
    return f", line {text.count(chr(10), 0, found.start()) + 1}" if found else ""


def load_matrix(path: Path, package: str | None = None) -> MatrixFile | None:
    """The matrix file at `path`, None when there is none; `MatrixError` when it does not parse, or
    is the matrix of another package than `package` (when given)."""
    try:
        text = store.read_regular(path)
    except store.Unreadable as error:
        raise MatrixError(f"{error}: not a version-matrix file") from None
    data = parse_matrix(text, path) if text is not None else None
    if data is not None and package is not None and data.package != package:
        raise MatrixError(f"{path}: the version matrix of {data.package!r}, not of {package!r}; "
                          f"restore {package!r}'s (git checkout {path}) or move it away")
    return data


def same_package(files: Iterable[tuple[Path, MatrixFile]]) -> None:
    """`MatrixError` unless every file is the matrix of one package: merged, the other package's
    releases would read as this one's, under the last file's name."""
    named = list(files)
    for path, data in named[1:]:
        if data.package != named[0][1].package:
            raise MatrixError(f"{path}: the version matrix of {data.package!r}, {named[0][0]} of "
                              f"{named[0][1].package!r}: matrix files of different packages are not merged")


def read_matrix(project: Project) -> MatrixFile | None:
    """The project's matrix file for readers: None when there is none or it cannot be read
    (`matrix_problem` says why, for a warning)."""
    try:
        return load_matrix(matrix_path(project), project.library.dist)
    except MatrixError:
        return None


def matrix_problem(project: Project) -> str | None:
    """Why the project's matrix file cannot be read (None: it reads, or there is none). The site
    shows no version information without it, so its build warns (and `--strict` fails)."""
    try:
        load_matrix(matrix_path(project), project.library.dist)
    except MatrixError as error:
        return f"{error}; {NO_RANGES}"
    return None


NO_RANGES = "the site shows no version ranges until it is restored or regenerated"


def merged(old: MatrixFile | None, package: str, releases: Iterable[ReleaseStatus],
           results: Iterable[Result], fallback: Iterable[ReleaseStatus] = (), shard: Shard | None = None) -> MatrixFile:
    """`old` with these releases' statuses and these (entry, release) results merged in: per
    release and per (entry, release), the record written last wins; the rest is kept.

    `fallback`: statuses a run vouches for without having measured the release (its checks came
    from the cache, or failed their own set-up while the library imported): each stands only where
    no status is kept, or the one kept says the release did not run; a measured status stays.
    `shard`: the writer's (`written_shard`), never `old`'s: the file says who wrote it last."""
    moment_now = datetime.now(UTC)
    statuses: dict[Version | str, ReleaseStatus] = {}  # by `release_key`: 5.0 and 5.0.0 are one release
    for status in [*(old.releases if old else []), *releases]:
        kept = statuses.get(release_key(status.release))
        if kept is None or moment(status.measured, moment_now) >= moment(kept.measured, moment_now):
            statuses[release_key(status.release)] = status
    for status in fallback:
        kept = statuses.get(release_key(status.release))
        if kept is None or not kept.ran:
            statuses[release_key(status.release)] = status
    kept_results: dict[tuple[str, Version | str], Result] = {}
    for result in [*(old.results if old else []), *results]:
        earlier = kept_results.get((result.entry, release_key(result.release)))
        if earlier is None or supersedes(result, earlier, moment_now):
            kept_results[(result.entry, release_key(result.release))] = result
    written = sort_releases([status.release for status in statuses.values()], "0")
    order = {release: index for index, release in enumerate(written)}
    return MatrixFile(package=package, updated=now(), shard=shard,
                      environment={"python": platform.python_version(), "platform": platform.platform(terse=True)},
                      releases=sorted(statuses.values(), key=lambda r: order.get(r.release, 0)),
                      results=sorted(kept_results.values(), key=lambda r: (r.entry, order.get(r.release, 0)))
                      ).keeping(old)


def supersedes(result: Result, kept: Result, moment_now: datetime) -> bool:
    """Whether `result` replaces `kept`, the result of its (entry, release) met before it: the one written last wins
    (the later met where alike), except that a result where a check ran is never replaced by one where none did (a
    shard whose checks could not run there, one holding no verdict at all), as a report's record that ran never is
    (`report.latest_results`): the merged file would lose what was measured. The one choice `merged`, `outranked`
    and `disagreements` make."""
    if ran_any(kept) and not ran_any(result):
        return False
    return moment(result.written, moment_now) >= moment(kept.written, moment_now)


def ran_any(result: Result) -> bool:
    """Whether a check of the result ran (passed or failed) at its release."""
    return any(verdicts is not None and verdicts.outcome.ran for verdicts in (result.before, result.after))


def outranked(named: Iterable[tuple[str, Result]]) -> list[str]:
    """Each (entry, release) whose result `merged` would keep (the one written last) was judged by an earlier
    verifier than another of the named results of it, in one line naming both. Of two results the later written
    wins, so an older errorkb's run (or shard) would replace a verdict its rules could not reach: a hole the
    later rules closed, passed again (`report.later_verifier` refuses the same in a report)."""
    now_moment = datetime.now(UTC)
    found: dict[tuple[str, Version | str], list[tuple[str, Result]]] = {}
    for name, result in named:
        found.setdefault((result.entry, release_key(result.release)), []).append((name, result))
    said = []
    for results in found.values():
        keeper, kept = results[0]
        for name, result in results[1:]:  # `merged`'s choice
            if supersedes(result, kept, now_moment):
                keeper, kept = name, result
        later = sorted({f"{name}'s verifier {result.verifier}" for name, result in results
                        if result.verifier and kept.verifier and later_verifier_than(result.verifier, kept.verifier)})
        if later:
            said.append(quoted(f"{kept.entry} at {kept.release}: {keeper}'s result (verifier {kept.verifier}) would "
                               f"replace a later verifier's ({', '.join(later)})"))
    return sorted(said)


_OUTRANKED = ("results a later verifier judged are not replaced by an earlier one's: run errorkb matrix with the "
              "later errorkb, or leave those results out")


def merge_files(files: list[MatrixFile], names: Sequence[str] | None = None) -> MatrixFile:
    """One matrix file from several (the shards of `errorkb matrix --shard`): as one run would write it.
    `MatrixError` where an earlier verifier's result would replace a later one's (`outranked`)."""
    named = names or [f"matrix file {number}" for number in range(1, len(files) + 1)]
    problems = outranked((name, result) for name, one in zip(named, files, strict=True) for result in one.results)
    if problems:
        raise MatrixError(f"{'; '.join(problems)}; {_OUTRANKED}")
    data: MatrixFile | None = None
    for one in files:
        data = merged(data, one.package, one.releases, one.results).keeping(data, one)
    if data is None:
        raise ValueError("no matrix file to merge")
    return data


def disagreements(named: Sequence[tuple[str, MatrixFile]]) -> list[str]:
    """For a merge's caller: each (entry, release) two of the named files measured with different outcomes (a
    before or an after failing in one, passing in another), in one line naming the inputs, what each measured
    and when, and whose result `merged` keeps. Shards keep one result per entry and release, as one run would;
    a measurement another machine made is not dropped without a word (as `report.disagreements` says checks)."""
    now_moment = datetime.now(UTC)
    measured: dict[tuple[str, Version | str], list[tuple[str, Result]]] = {}
    for name, data in named:
        for result in data.results:
            measured.setdefault((result.entry, release_key(result.release)), []).append((name, result))

    def outcomes(result: Result) -> tuple[str | None, str | None]:
        return tuple(verdicts.outcome.value if verdicts is not None and verdicts.outcome.ran else None
                     for verdicts in (result.before, result.after))  # type: ignore[return-value]

    said = []
    for (entry, _), found in sorted(measured.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        ran = [outcomes(result) for _, result in found]
        if not any(len({one[role] for one in ran if one[role] is not None}) > 1 for role in (0, 1)):
            continue
        keeper, chosen = found[0]
        for name, result in found[1:]:  # `merged`'s choice: the later written, the later input where alike
            if supersedes(result, chosen, now_moment):
                keeper, chosen = name, result
        listed = "; ".join(f"{name}: before {before or 'not run'}, after {after or 'not run'} ({result.written})"
                           for (name, result), (before, after) in zip(found, ran, strict=True))
        why = ("the others are dated in the future or not dated, and never win"
               if any(moment(result.written, now_moment) is NEVER for _, result in found)
               else "a later one ran no check, and never replaces one that did"
               if any(not ran_any(result) and moment(result.written, now_moment) > moment(chosen.written, now_moment)
                      for _, result in found)
               else "dated alike, the later input's" if sum(result.written == chosen.written for _, result in found) > 1
               else "the result written last")
        said.append(quoted(f"{entry} at {chosen.release}: measured differently ({listed}); kept {keeper}'s ({why})"))
    return said


def write_matrix(path: Path, package: str, releases: Iterable[ReleaseStatus], results: Iterable[Result],
                 fallback: Iterable[ReleaseStatus] = (), *, judged_here: bool = True,
                 shard: tuple[int, int] | None = None, keeping: MatrixFile | None = None) -> MatrixFile:
    """Merge these statuses and results (and `fallback` statuses: `merged`) into the file on disk now,
    under the folder's lock. Raises `store.Refused` when the file there does not parse (this run's
    part is saved beside it). `judged_here`: the results are this run's, so one that names no verifier is
    stamped with this one's and this errorkb release; a merge of files judged nothing (False), and a result
    written before results named theirs stays unnamed. `shard`: the `--shard K/N` of the run writing it, which
    the file then says (`written_shard`); None, a run of no shard or a merge: the file says none. `keeping`: the
    merged files whose header fields of a newer minor the file keeps too (`errorkb.results.kept`)."""
    from errorkb import __version__

    releases, fallback = list(releases), list(fallback)
    results = [result if result.verifier is not None or not judged_here  # this run's: its verifier judged them
               else result.model_copy(update={"verifier": VERIFIER_VERSION, "errorkb": __version__})
               for result in results]
    def current(at: Path) -> MatrixFile | None:
        data = load_matrix(at, package)
        problems = outranked([*((str(at), result) for result in (data.results if data else [])),
                              *(("this run" if judged_here else "the merged files", result) for result in results)])
        if problems:
            raise MatrixError(f"{at}: {'; '.join(problems)}; {_OUTRANKED}")
        return data

    return store.update(path, current, lambda current: merged(current, package, releases, results, fallback,
                                                              written_shard(shard, current)).keeping(current, keeping),
                        MatrixFile.text, f"restore it (git checkout {path}) or move it away")


def written_shard(run: tuple[int, int] | None, on_disk: MatrixFile | None) -> Shard | None:
    """The shard a write says: this run's `--shard K/N` (None: no shard's run, the file is no shard's now), with
    the shards of the same split the file on disk says already ran (two shards run into one file hold both)."""
    if run is None:
        return None
    k, n = run
    kept = on_disk.shard.ran if on_disk is not None and on_disk.shard is not None and on_disk.shard.of == n else []
    return Shard(ran=sorted({*kept, k}), of=n)


def split_checked(named: Sequence[tuple[str, MatrixFile]], complete: bool = False) -> list[str]:
    """For a merge's caller: notes on the named files' shards, or `MatrixError` where they are not one split's
    shards once each (merged, they would read as one run that they are not): files of two splits, one shard in
    two files, and with `complete`, a shard of the split in none (or a file that cannot say which it is)."""
    said = [quoted(f"{name} names no shard (written by a whole run, or by an errorkb before shard files said "
                   "theirs): merged as it is; which shard it holds is not checked")
            for name, data in named if data.shard is None and len(named) > 1]
    shards = [(name, data.shard) for name, data in named if data.shard is not None]
    redo = "merge the files of one `errorkb matrix --shard K/N` split, each shard's once"
    if len({shard.of for _, shard in shards}) > 1:
        listed = "; ".join(f"{name}: shard {shard}" for name, shard in shards)
        raise MatrixError(quoted(f"shards of different splits ({listed}): merged, they are not one run; {redo}"))
    given: dict[int, list[str]] = {}
    for name, shard in shards:
        for k in shard.ran:
            given.setdefault(k, []).append(name)
    twice = [f"shard {k}/{shards[0][1].of} in {', '.join(names)}" for k, names in sorted(given.items())
             if len(names) > 1]
    if twice:
        raise MatrixError(quoted(f"{'; '.join(twice[:10])}: a shard given twice (a re-run beside the first, or one "
                                 f"file copied?) is not one run; keep the file of the run you trust, and {redo}"))
    if complete:
        unnamed = [name for name, data in named if data.shard is None]
        if unnamed or not shards:
            raise MatrixError(quoted(f"--complete: {', '.join(unnamed) or 'no input'} names no shard, so the split "
                                     "cannot be checked whole; re-run those shards with this errorkb, or merge "
                                     "without --complete"))
        n = shards[0][1].of
        missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in given]
        if missing:
            raise MatrixError(quoted(f"--complete: shard{'s' * (len(missing) > 1)} {', '.join(missing[:10])}"
                                     f"{' and more' if len(missing) > 10 else ''} missing from the inputs "
                                     f"({', '.join(name for name, _ in shards)}); give "
                                     f"{'their files' if len(missing) > 1 else 'its file'} too, or merge without "
                                     "--complete"))
    return said


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


# -- what the matrix says about one entry ------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    raises: list[tuple[str, str]]  # (first, last) release spans where the before raised the error
    fixed_in: str | None  # first release after the last raising span where the before ran and did not raise it
    after_passes: list[tuple[str, str]]
    failed_setup: list[str]
    lines: dict[str, int]  # release → raise line
    stale: list[str]  # releases whose result was measured before the entry or its snippet folder last changed
    tested: int = 0  # releases in which the before actually ran
    fixed_reason: str | None = None  # what the before did instead, in `fixed_in`
    not_run: str | None = None  # why the before never ran (an unmet need), if it never did
    worked_until: str | None = None  # a removed API: the last release before it raised where the old call ran
    wordings: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # wording → spans it was raised so
    ran: list[str] = field(default_factory=list)  # the releases in which the before ran, in order
    measured: list[str] = field(default_factory=list)  # the releases holding a result for the entry, in order

    def disagreements(self, entry: Entry) -> list[str]:
        """The releases where the entry's declared range (`releases.raises`) and the measurement differ."""
        measured = self.measured_raises()
        return [release for release in self.ran if entry.raises_at(release) not in (None, release in measured)]

    def measured_raises(self) -> set[str]:
        """Every release in which the before raised the documented error."""
        place = {release: index for index, release in enumerate(self.ran)}
        return {release for first, last in self.raises for release in self.ran[place[first]:place[last] + 1]}


def summarize(entry_id: str, matrix: MatrixFile, inputs: str | None) -> Summary | None:
    """Ranges over the releases in which a snippet actually ran; "not run" is never "does not raise".

    `inputs` is the entry's inputs digest now (`keys.project_inputs`): a result measured with
    other inputs is stale. None: staleness is not asked (the lookup reads raise lines only).
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
    measured = [release for release in releases if release in results]
    stale = [release for release in measured if inputs is not None and not holds(results[release].digest, inputs)]
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
    wordings = {index: _spans(ran, [r in own for r in ran])
                for index, own in ((index, set(own)) for index, own in by_wording.items())}
    return Summary(raises, fixed_in, spans(AFTER)[1], failed, lines, stale, len(ran),  # type: ignore[arg-type]
                   fixed_reason, not_run, worked_until, wordings, ran, measured)


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


STALE_SPANS_SHOWN = 6


def describe_stale(summary: Summary) -> str:
    """Which of the releases measured hold a stale result, worded for the page ("" when none):
    "in 1 of the 45 releases measured (5.23.0)", "in all 45 releases measured". One stale release
    must not read like a matrix that is stale everywhere."""
    stale, measured = summary.stale, summary.measured
    if not stale:
        return ""
    if len(stale) == len(measured):
        return f"in all {len(measured)} release{'s' if len(measured) != 1 else ''} measured"
    stale_set = set(stale)
    spans = _spans(measured, [release in stale_set for release in measured])
    shown = describe_spans(spans[:STALE_SPANS_SHOWN])
    more = f" and {len(spans) - STALE_SPANS_SHOWN} more" if len(spans) > STALE_SPANS_SHOWN else ""
    return f"in {len(stale)} of the {len(measured)} releases measured ({shown}{more})"


# -- what was measured at each release ---------------------------------------------------------


class State(StrEnum):
    """What one release showed for one entry, read from its before's verdict (then its after's).
    Values are stable: the site's styles and the JSON name them."""

    RAISES = "raises"  # the before raised the documented error, in the entry's own wording
    OTHER_WORDING = "other-wording"  # ...in one of `also_seen_as`'s wordings
    OLD_CODE_RUNS = "old-code-runs"  # a removed API's before ran clean: the old name still exists there
    # The before raised the documented words, but not from the documented cause (another function, another
    # entry's own error, another object's missing name): the error is there, its cause is not shown, and the
    # after's outcome there proves nothing about this entry. Not "fix runs clean", which it was.
    RAISES_ELSEWHERE = "raises-elsewhere"
    FIX_RUNS = "fix-runs"  # the before did not raise the error there, and the after ran clean
    NEITHER = "neither"  # the before did not raise the error there, and the after did not run clean either
    NOT_APPLICABLE = "not-applicable"  # the documented function or the snippet's module is not in that release
    NOT_RUN = "not-run"  # no verdict: the release did not run, a need was unmet, or no result was recorded


# A verdict of these codes means the release does not have what the entry is about.
_ABSENT = {Code.NO_FUNCTION, Code.SETUP_FAILED, Code.NOT_APPLICABLE}
# A before's failure of these codes: it raised the documented words from somewhere the entry does not name.
_ELSEWHERE = {Code.WRONG_RAISE_SITE, Code.OTHER_ENTRY, Code.NOT_THE_LIBRARY}


@dataclass(frozen=True)
class ReleaseState:
    release: str
    state: State
    before: str | None = None  # the before's reason there (first line, `records.said_of`), None when none was recorded
    after: Outcome | None = None  # the after's outcome there
    wording: int | None = None  # which wording was raised (0: the entry's own)


def release_states(entry_id: str, matrix: MatrixFile) -> list[ReleaseState] | None:
    """One `ReleaseState` per release of the matrix, in release order (None: the matrix has no
    result for the entry). A release the matrix adds is one more state here: nothing else lists them."""
    results = matrix.results_of(entry_id)
    if not results:
        return None
    states = []
    for release in matrix.ordered_releases():
        status, result = matrix.status(release), results.get(release)
        if status is None or not status.ran or result is None or result.before is None:
            why = (status.error if status is not None and not status.ran else None) or "no result recorded"
            states.append(ReleaseState(release, State.NOT_RUN, why.splitlines()[0] if why else None))
            continue
        before, after = result.before, result.after
        said = said_of(before.code, before.reason, before.claim).splitlines()[0] if before.reason else None
        states.append(ReleaseState(release, _state(before, after), said, after.outcome if after else None,
                                   before.wording))
    return states


def _state(before: Verdicts, after: Verdicts | None) -> State:
    if before.outcome is Outcome.PASS:
        return State.OTHER_WORDING if before.wording else State.RAISES
    if before.code is Code.OLD_API_RAN:
        return State.OLD_CODE_RUNS
    if before.outcome is Outcome.NOT_RUN:
        return State.NOT_RUN
    if before.outcome is Outcome.NOT_APPLICABLE or before.code in _ABSENT:
        return State.NOT_APPLICABLE
    if before.code in _ELSEWHERE:
        return State.RAISES_ELSEWHERE
    return State.FIX_RUNS if after is not None and after.outcome is Outcome.PASS else State.NEITHER

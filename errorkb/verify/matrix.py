"""The version matrix: does each entry's error, and its fix, hold in every upstream release?

Stages, one function each:
1. `discover_releases`  the releases to run: configured, or every one PyPI serves since `since`.
2. `ensure_env`         one cached virtual environment per release (created once, reused). It sees
                        the base environment's packages (torch, errorkb's own dependencies) through
                        a .pth file and installs only the release and what it needs differently.
                        A failed set-up is recorded for that release and the matrix goes on.
3. `run_release`        `errorkb verify --target upstream --device cpu` inside that environment, so
                        the verifier, its isolation and its verdicts are exactly those of CI.
4. `collect`            per entry and release: before raised?, after passed?, and the raise line
                        (from the captured raise site, else re-resolved by AST).
5. `summarize`          ranges for the page: "raises in 5.5.1 – 5.24.0", "fixed in X".

The report is written to `<reports>/matrix/<package>.json`, apart from verification reports.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from packaging.version import InvalidVersion, Version

import errorkb
from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry
from errorkb.core.project import Project
from errorkb.site.render import read_snippet
from errorkb.source.drift import SourceIndex, resolve_line
from errorkb.source.upstream import matrix_env

SCHEMA = 1


@dataclass(frozen=True)
class Env:
    release: str
    python: Path | None
    error: str | None = None


# -- 1. releases ------------------------------------------------------------------------------


def discover_releases(package: str, since: str, runner: Callable[..., subprocess.CompletedProcess] = subprocess.run
                      ) -> list[str]:
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


def ensure_env(project: Project, package: str, release: str, *, rebuild: bool = False) -> Env:
    folder = matrix_env(project, package, release)
    python = folder / "bin" / "python"
    ready, failed = folder / ".errorkb-ready", folder / ".errorkb-failed"
    if not rebuild and ready.is_file() and python.exists():
        return Env(release, python)
    if not rebuild and failed.is_file():
        return Env(release, None, failed.read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    ready.unlink(missing_ok=True)
    failed.unlink(missing_ok=True)
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(folder)],
        None,  # the .pth file, written between the two commands
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{package}=={release}"],
    ]
    for step in steps:
        if step is None:
            site = next(folder.glob("lib/python*/site-packages"))
            (site / "_errorkb_base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
            continue
        done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            error = f"set-up failed: {' '.join(step[-2:])}: {(done.stderr or done.stdout).strip()[-500:]}"
            failed.write_text(error, encoding="utf-8")
            return Env(release, None, error)
    ready.write_text(release, encoding="utf-8")
    return Env(release, python)


# -- 3. running -------------------------------------------------------------------------------


def run_release(project: Project, env: Env, ids: list[str], timeout: float = 1800) -> tuple[dict | None, str | None]:
    """The verification report of `ids` against the release in `env`, or why there is none."""
    if env.python is None:
        return None, env.error
    with tempfile.TemporaryDirectory(prefix="errorkb-matrix-") as scratch:
        report = Path(scratch) / "report.json"
        command = [str(env.python), "-m", "errorkb.cli", "--root", str(project.root), "verify", *ids,
                   "--target", "upstream", "--device", "cpu", "--no-cache", "--report", str(report)]
        source_root = str(Path(errorkb.__file__).resolve().parent.parent)
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [source_root,
                                                                                 os.environ.get("PYTHONPATH")])))
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
        if not report.is_file():
            return None, f"verify did not run: {(done.stderr or done.stdout).strip()[-500:]}"
        data = json.loads(report.read_text(encoding="utf-8"))
    checks = [c for c in data["checks"] if c["outcome"] != "not-run"]
    if checks and all((c.get("reason") or "").startswith("could not load the target") for c in checks):
        return None, f"transformers {env.release} does not import here: {checks[0]['reason']}"
    return data, None


# -- 4. collecting ----------------------------------------------------------------------------


def collect(entries: list[Entry], release: str, report: dict | None, error: str | None,
            index: SourceIndex | None) -> dict[str, dict]:
    """Entry id → this release's result: outcome of before and after, and the raise line."""
    results = {}
    records = {(c["entry"], c["role"]): c for c in (report or {}).get("checks", [])}
    for entry in entries:
        if error:
            results[entry.id] = {"status": "setup-failed", "error": error}
            continue
        result: dict = {"status": "ran"}
        for role in ("before", "after"):
            record = records.get((entry.id, role))
            result[role] = ({"outcome": record["outcome"], "reason": record["reason"],
                             "snippet_sha256": record.get("snippet_sha256")} if record else None)
        site = ((records.get((entry.id, "before")) or {}).get("exception") or {}).get("raise_site") or {}
        line = site.get("line") if result["before"] and result["before"]["outcome"] == "pass" else None
        result["line"] = line or (resolve_line(entry, index) if index and not entry.source.implicit else None)
        results[entry.id] = result
    return results


def run_matrix(project: Project, loaded: list[LoadedEntry], releases: list[str], *, ids: list[str] | None = None,
               rebuild: bool = False, progress: Callable[[str], None] = lambda message: None) -> dict:
    package = project.matrix.package
    entries = [one.entry for one in loaded if not ids or one.entry.id in ids]
    per_entry: dict[str, dict[str, dict]] = {entry.id: {} for entry in entries}
    release_status = []
    for release in releases:
        progress(f"{package} {release}: environment")
        env = ensure_env(project, package, release, rebuild=rebuild)
        progress(f"{package} {release}: verifying {len(entries)} entries")
        report, error = run_release(project, env, [entry.id for entry in entries])
        index = _index(project, package, release)
        for entry_id, result in collect(entries, release, report, error, index).items():
            per_entry[entry_id][release] = result
        torch = ((report or {}).get("environment") or {}).get("torch")
        release_status.append({"release": release, "status": "setup-failed" if error else "ran", "error": error,
                               "torch": torch})
    hashes = {one.entry.id: {**{role: read_snippet(project, one.entry, role, file).sha256
                                for role, file in one.entry.snippet_files() if role in ("before", "after")},
                             "entry": one.entry.expectation_digest()}
              for one in loaded if one.entry.id in per_entry}
    return {"schema": SCHEMA, "package": package, "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "environment": {"python": platform.python_version(), "platform": platform.platform(terse=True)},
            "releases": release_status, "snippets": hashes, "entries": per_entry}


def _index(project: Project, package: str, release: str) -> SourceIndex | None:
    from errorkb.source.upstream import source_file

    path = source_file(project, package, release, project.coverage.path)
    return SourceIndex.of(path.read_text(encoding="utf-8")) if path else None


def matrix_path(project: Project) -> Path:
    return project.reports / "matrix" / f"{project.matrix.package}.json"


def read_matrix(project: Project) -> dict | None:
    path = matrix_path(project)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("schema") == SCHEMA else None


# -- 5. summaries -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    raises: list[tuple[str, str]]  # (first, last) release spans where the before raised the error
    fixed_in: str | None  # first release after the last raising span where the before ran and did not raise it
    after_passes: list[tuple[str, str]]
    failed_setup: list[str]
    lines: dict[str, int]  # release → raise line
    stale: bool  # a snippet changed since the matrix ran
    tested: int = 0  # releases in which the before actually ran
    fixed_reason: str | None = None  # what the before did instead, in `fixed_in`
    not_run: str | None = None  # why the before never ran (an unmet need), if it never did


def summarize(entry_id: str, matrix: dict, current_hashes: dict[str, str]) -> Summary | None:
    """Ranges over the releases in which a snippet actually ran; "not run" is never "does not raise"."""
    results = matrix.get("entries", {}).get(entry_id)
    if not results:
        return None
    releases = [r["release"] for r in matrix.get("releases", [])]

    def outcome(release: str, role: str) -> str | None:
        result = results.get(release) or {}
        return (result.get(role) or {}).get("outcome") if result.get("status") == "ran" else None

    def spans(role: str) -> tuple[list[str], list[tuple[str, str]]]:
        ran = [r for r in releases if outcome(r, role) in ("pass", "fail")]
        return ran, _spans(ran, [outcome(r, "before" if role == "before" else role) == "pass" for r in ran])

    ran, raises = spans("before")
    fixed_in = fixed_reason = None
    if raises:
        last = ran.index(raises[-1][1])
        if last + 1 < len(ran):
            fixed_in = ran[last + 1]
            fixed_reason = (results[fixed_in].get("before") or {}).get("reason")
    not_run = None
    if not ran:
        reasons = [(results.get(r, {}).get("before") or {}).get("reason") for r in releases
                   if outcome(r, "before") == "not-run"]
        not_run = next((reason for reason in reasons if reason), None)
    recorded = matrix.get("snippets", {}).get(entry_id, {})
    stale = any(recorded.get(role) != sha for role, sha in current_hashes.items() if role in recorded)
    lines = {r: results[r]["line"] for r in ran if results[r].get("line")}
    failed = [r for r in releases if results.get(r, {}).get("status") == "setup-failed"]
    return Summary(raises, fixed_in, spans("after")[1], failed, lines, stale, len(ran), fixed_reason, not_run)


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

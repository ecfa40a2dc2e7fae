"""`errorkb` on the command line: thin glue over load, verify and render.

Exit codes: 0 all good, 1 problems in the knowledge base or failed checks, 2 bad usage.
Nothing here imports the runtime: snippets run in child processes.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from errorkb.core.load import LoadedEntry, LoadResult, load_project_entries
from errorkb.core.problems import Problem, ProblemsFound
from errorkb.core.project import Project, load_project
from errorkb.verify.run import Isolation
from errorkb.verify.targets import TARGETS

if TYPE_CHECKING:
    from errorkb.site.lookup import Match

# What a terminal acts on instead of showing.
_CONTROL = re.compile(r"""
      \x1b\[ [0-?]* [ -/]* [@-~]                              # CSI: colours, cursor moves, erasing
    | \x9b [0-?]* [ -/]* [@-~]                                # the same, 8-bit
    | (?: \x1b\] | \x9d ) [^\x07\x1b\x9c]* (?: \x07 | \x1b\\ | \x9c )?  # OSC: window title, links
    | \x1b [ -~]?                                             # any other escape (ESC c resets)
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]                           # C0 and C1 controls but tab and newline
    | [\u200e\u200f\u202a-\u202e\u2066-\u2069]                 # bidirectional marks and overrides
""", re.VERBOSE)


def terminal_text(text: str) -> str:
    """`text` as a terminal should show it: entry text and problems come from strangers' pull
    requests, and an escape sequence in a title could clear the screen, retitle the window or
    hide a line; every other character, tabs and newlines included, is kept."""
    return _CONTROL.sub("", text)


class _PlainConsole(Console):
    """Rich's console for text that must print as it is: no emoji codes (`path:100:1` is not
    `path💯1`), and every string passed through `terminal_text`. Markup stays off unless a
    call asks for it with its own literal text."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(terminal_text(o) if isinstance(o, str) else o for o in objects), **kwargs)


out = _PlainConsole(highlight=False, soft_wrap=True, emoji=False)
err = _PlainConsole(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if not args.needs_project:  # completion, the hook's .pth: no knowledge base needed
            plain: int = args.command(args)
            return plain
        project = load_project(Path(args.root) if args.root else None)
        code: int = args.command(project, args)
        return code
    except ProblemsFound as found:
        for problem in found.problems:
            err.print(str(problem), markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130


def _parser() -> argparse.ArgumentParser:
    from errorkb import __version__

    parser = argparse.ArgumentParser(prog="errorkb", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"errorkb {__version__}")
    parser.add_argument("--root", help="project folder (default: nearest with pyproject.toml or mkdocs.yml)")
    parser.set_defaults(needs_project=True)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    new = commands.add_parser("new", help="write an entry and its snippet stubs from a pasted traceback or a "
                                          "similar entry (never overwrites a file)")
    new.add_argument("id", metavar="ID", help="the new entry's id: kebab-case, e.g. static-layer-crop-negative")
    new.add_argument("--from-traceback", metavar="FILE", default=None,
                     help="a file holding the traceback (or the message), '-' for stdin")
    _complete_ids(new.add_argument("--like", metavar="ID", default=None,
                                   help="start from this entry: its kind, pin, tags and snippets"))
    new.set_defaults(command=cmd_new)

    show = commands.add_parser("show", help="an entry in the terminal: message, meaning, the verified fix, "
                                            "verification per target and device, releases")
    _complete_ids(show.add_argument("id", metavar="ID", help="the entry's id"))
    show.set_defaults(command=cmd_show)

    hook = commands.add_parser("hook", help="the opt-in hook that prints the entry after a documented error's "
                                            "traceback")
    hook_actions = hook.add_subparsers(required=True, metavar="ACTION")
    for action, text in (("install", "write errorkb-hook.pth into this environment's site-packages"),
                         ("uninstall", "remove errorkb-hook.pth from this environment's site-packages"),
                         ("status", "say whether the hook is installed in this environment")):
        one = hook_actions.add_parser(action, help=text)
        one.set_defaults(command=cmd_hook, action=action, needs_project=False)
    index = hook_actions.add_parser("index", help="regenerate the index the hook ships with (errorkb/hook/"
                                                  "index.json) from the entries")
    index.add_argument("--check", action="store_true", help="only say whether it is stale (exit 1 when it is)")
    index.set_defaults(command=cmd_hook_index)

    completion = commands.add_parser("completion", help="print a shell completion script: "
                                                        "eval \"$(errorkb completion bash)\"")
    completion.add_argument("shell", choices=["bash", "zsh"])
    completion.set_defaults(command=cmd_completion, needs_project=False)

    check = commands.add_parser("check", help="validate every entry; print path:line:col problems",
                                description="Validate every entry, render every page the site generates with the "
                                            "site's Markdown settings within the render budget, and print each "
                                            "problem as path:line:col. Writes nothing.")
    check.add_argument("--drift", action="store_true",
                       help="also check every source pin against the pinned release's source (by AST)")
    check.set_defaults(command=cmd_check)

    matrix = commands.add_parser(
        "matrix", help="run before/after of every entry against many upstream releases",
        description="Run each entry's before and after against every upstream release, one environment per release "
                    "(built once under .errorkb-cache/matrix/). Writes reports/matrix/<distribution>.json, merged per "
                    "entry and release (results of other entries and releases are kept), after every release; "
                    "verdicts are cached under .errorkb-cache/verify/, so a rerun re-runs only what changed.")
    _complete_ids(matrix.add_argument("ids", nargs="*", metavar="ID", help="entries (default: all)"))
    matrix.add_argument("--release", action="append", default=None,
                        help="release to run (repeatable; default: [tool.errorkb.matrix] releases, else every "
                             "release since `since` that PyPI serves)")
    matrix.add_argument("--rebuild", action="store_true", help="recreate the releases' environments")
    matrix.add_argument("--no-cache", action="store_true", help="re-run every check in every release")
    matrix.add_argument("--parallel", type=int, default=2, help="releases run at a time (default: 2)")
    matrix.add_argument("--environments-only", action="store_true",
                        help="only build the environments of the releases the entries pin (or of --release ones), "
                             "which `verify --target upstream` and `check --drift` need; run nothing")
    matrix.set_defaults(command=cmd_matrix)

    cover = commands.add_parser("coverage", help="raise sites of the followed files and the entries documenting them")
    cover.add_argument("--json", action="store_true", help="print the table as JSON")
    cover.set_defaults(command=cmd_coverage)

    schema = commands.add_parser("schema", help="print the JSON Schema of an entry (or of a report's check record)")
    schema.add_argument("--check-record", action="store_true", help="the schema of one check in a report")
    schema.set_defaults(command=cmd_schema)

    verify = commands.add_parser(
        "verify", help="run every snippet and judge it; write a JSON report",
        description="Run every snippet of the chosen entries and judge it. Writes the standing report "
                    "reports/latest.json, merged per check (records of other checks are kept as they were), or the "
                    "--report file (this run's records only); caches verdicts under .errorkb-cache/verify/.")
    _complete_ids(verify.add_argument("ids", nargs="*", metavar="ID", help="entries to verify (default: all)"))
    verify.add_argument("--target", action="append", choices=TARGETS,
                        help="implementation to run against (repeatable; default from [tool.errorkb])")
    verify.add_argument("--device", action="append",
                        help="device kind (repeatable; default: every device of the runtime)")
    verify.add_argument("--jobs", type=int, default=None, help="checks run in parallel (default: CPU count)")
    verify.add_argument("--report", type=Path, default=None,
                        help="report file (default: <reports>/latest.json, updated in place)")
    verify.add_argument("--isolation", choices=[mode.value for mode in Isolation], default=Isolation.FORK.value,
                        help="fork: fresh process per check from a warm preloaded interpreter (default); "
                             "subprocess: a new interpreter per check")
    verify.add_argument("--snippet", action="append", choices=["before", "after", "guard"], dest="kinds",
                        help="verify only snippets of this kind (repeatable; default: all)")
    verify.add_argument("--upstream", choices=["pinned", "installed"], default="pinned",
                        help="upstream checks run at each entry's pinned release (its matrix environment when that "
                             "release is not installed; default), or all at the installed release (the version matrix)")
    verify.add_argument("--sandbox", choices=["auto", "require", "off"], default="auto",
                        help="run snippets in a bubblewrap sandbox: auto (where it can be created; says so "
                             "loudly where not), require (CI: refuse to run without it), off")
    verify.add_argument("--no-cache", action="store_true",
                        help="run every check, ignoring and not updating the verdict cache")
    verify.add_argument("--cache-dir", type=Path, default=None,
                        help="verdict cache folder (default: <root>/.errorkb-cache)")
    verify.add_argument("--shard", default=None, metavar="K/N",
                        help="run only shard K of N (deterministic split by check id, for CI matrices)")
    verify.add_argument("--timeout", type=float, default=None, help="seconds per check (default from [tool.errorkb])")
    verify.add_argument("--json", action="store_true",
                        help="print the report as JSON on stdout (human output on stderr)")
    verify.add_argument("--junit", type=Path, default=None, metavar="PATH", help="also write JUnit XML to PATH")
    verify.set_defaults(command=cmd_verify)

    report = commands.add_parser("report", help="work with verification reports")
    report_commands = report.add_subparsers(required=True, metavar="ACTION")
    merge = report_commands.add_parser("merge", help="combine reports (CI jobs, shards) into one")
    merge.add_argument("output", type=Path, metavar="OUT", help="merged report to write")
    merge.add_argument("inputs", type=Path, nargs="+", metavar="IN", help="reports to merge")
    merge.set_defaults(command=cmd_report_merge)

    lookup = commands.add_parser("lookup", help="find the entry whose message template matches an error "
                                                "(the site's paste box, in a terminal)")
    lookup.add_argument("message", nargs="?", default="-",
                        help="a message, 'ValueError: ...' or a whole traceback; '-' or nothing: read stdin")
    lookup.add_argument("--index", type=Path, default=None,
                        help="match against a published api/errors/index.json instead of the entries")
    lookup.add_argument("--all", action="store_true", help="list every matching entry, not only the best")
    lookup.add_argument("--json", action="store_true", help="print the matches as JSON")
    lookup.add_argument("--release", default=None,
                        help="the library release you run (e.g. 4.49.0): says whether it raises the error and "
                             "what to do on it; otherwise read from the traceback's frames where it can be")
    lookup.set_defaults(command=cmd_lookup)

    render_site = commands.add_parser("render", description="Write the site's pages as plain Markdown, with the JSON "
                                      "API and assets, into --out (files there are replaced). Reads the entries and "
                                      "reports; runs no snippet.",
                                      help="write the site's pages as plain Markdown, with the JSON "
                                                     "API and assets, for any static-site engine")
    render_site.add_argument("--out", type=Path, required=True, help="folder to write into (files are replaced)")
    render_site.set_defaults(command=cmd_render)
    return parser


# Entry ids for shell completion: the YAML files' names under the entries folder of the project
# the shell is in (read by the shell itself; nothing of errorkb runs while completing).
_IDS_PREAMBLE = {
    "bash": '_errorkb_ids() { compgen -W "$(ls docs/errors/*/*.yml 2>/dev/null | sed \'s#.*/##; s#\\.yml$##\')" '
            '-- "$1"; }\n',
    "zsh": "_errorkb_ids() { local -a ids; ids=(docs/errors/*/*.yml(N:t:r)); _describe 'entry' ids }\n",
}


def _complete_ids(action: argparse.Action) -> None:
    action.complete = {"bash": "_errorkb_ids", "zsh": "_errorkb_ids"}  # type: ignore[attr-defined]


def cmd_completion(args: argparse.Namespace) -> int:
    """The completion script (shtab's), entry ids completed from the project's entries folder."""
    import shtab

    preamble: Any = _IDS_PREAMBLE  # shtab takes a str or a {shell: str} mapping; its stub says str
    print(shtab.complete(_parser(), shell=args.shell, preamble=preamble))
    return 0


def _reserved_ids() -> frozenset[str]:
    """Ids the site publishes its own files under (imported late: `check` starts fast)."""
    from errorkb.site.files import reserved_ids

    return reserved_ids()


def _load_or_report(project: Project) -> LoadResult:
    result = load_project_entries(project, _reserved_ids())
    if result.problems:
        raise ProblemsFound(result.problems)
    return result


def cmd_check(project: Project, args: argparse.Namespace) -> int:
    from errorkb.core.lint import lint_entries

    result = _load_or_report(project)
    flagged = lint_entries(result.entries, project)  # deception primitives in snippets, for the reviewer
    if args.drift:
        from errorkb.source.drift import pinned_problems

        flagged += pinned_problems(result.entries, project)
    flagged += _rendering_problems(project, result)
    if flagged:
        raise ProblemsFound(flagged)
    if args.drift:
        out.print(f"{len(result.entries)} entries OK; every source pin holds")
        return 0
    out.print(f"{len(result.entries)} entries OK")
    _note_drafts(project, result)
    return 0


def _rendering_problems(project: Project, result: LoadResult) -> list[Problem]:
    """Every page the site generates, rendered with the site's Markdown settings within the budget,
    in a child process (errorkb.site.budget): a page past it, or that makes the renderer raise, is
    a problem at the field (or snippet) that does it."""
    from errorkb.plugs import runtime_for
    from errorkb.site import budget
    from errorkb.site.files import site_files
    from errorkb.verify.report import read_reports

    reports, _ = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    pages, files = site_files(project, result, reports)
    sources = {file.path: file.source for file in files}
    config = project.root / "mkdocs.yml"
    try:
        verdicts = budget.rehearse(budget.rehearsals(project, result, pages, files),
                                   config if config.is_file() else None)
    except budget.SettingsUnreadable as error:
        return [Problem(project.rel(config), 1, 1, f"cannot read the site's Markdown settings to render the pages "
                                                   f"({error}); fix mkdocs.yml")]
    return [Problem(*budget.problem(verdict, sources.get(verdict.key))) for verdict in verdicts if not verdict.ok]


def _note_drafts(project: Project, result: LoadResult) -> None:
    """Entries that load but still hold TODOs (stubs of `errorkb new`): named, not failed."""
    from errorkb.author.todo import unfinished

    drafts = [one.entry.id for one in result.entries if unfinished(one, project)]
    if drafts:
        err.print(f"{len(drafts)} draft(s) with TODOs left: {', '.join(drafts)} (errorkb verify ID lists them)",
                  markup=False)


def cmd_matrix(project: Project, args: argparse.Namespace) -> int:
    from errorkb.verify import matrix

    result = _load_or_report(project)
    settings = project.matrix
    if args.environments_only:
        return _build_environments(project, result.entries, args)
    releases = matrix.sort_releases(args.release or settings.releases or [], "0") \
        or matrix.discover_releases(project.library.dist, settings.since)
    data = matrix.run_matrix(project, result.entries, releases, ids=args.ids or None, rebuild=args.rebuild,
                             cache=not args.no_cache, parallel=args.parallel,
                             progress=lambda message: err.print(message, markup=False))
    hashes = {one.entry.id: matrix.current_hashes(project, one.entry) for one in result.entries}
    entries = {one.entry.id: one.entry for one in result.entries}
    for entry_id in sorted(args.ids or hashes):
        summary = matrix.summarize(entry_id, data, hashes.get(entry_id, {}))
        if summary is None:
            continue
        if summary.not_run:
            out.print(f"{entry_id}: not run in any release ({summary.not_run})", markup=False)
            continue
        raises = matrix.describe_spans(summary.raises) or f"none of the {summary.tested} releases"
        fixed = f"; fixed in {summary.fixed_in}" if summary.fixed_in else ""
        out.print(f"{entry_id}: raises in {raises}{fixed}", markup=False)
        disagree = summary.disagreements(entries[entry_id]) if entry_id in entries else []
        if disagree:
            declared = entries[entry_id].releases.raises  # type: ignore[union-attr]  # a claim: it disagrees
            err.print(f"{entry_id}: declared to raise in {declared}, but the matrix disagrees in "
                      f"{', '.join(disagree)}", markup=False)
    failed = [status for status in data.releases if status.release in releases and not status.ran]
    for status in failed:
        err.print(f"{status.release}: {status.error}", markup=False)
    out.print(f"{len(releases) - len(failed)} of {len(releases)} releases ran — report: "
              f"{project.rel(matrix.matrix_path(project))}", markup=False)
    return 0


def _build_environments(project: Project, loaded: list[LoadedEntry], args: argparse.Namespace) -> int:
    """The release environments the entries' pins need (those not installed here), built once each."""
    from concurrent.futures import ThreadPoolExecutor

    from errorkb.verify import matrix
    from errorkb.verify.targets import installed_version

    installed = installed_version(project.library)
    pinned = {one.entry.source.release for one in loaded if one.entry.source.release}
    releases = matrix.sort_releases(args.release or sorted(pinned - {installed}), "0")
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        envs = list(pool.map(lambda release: matrix.ensure_env(project, release, rebuild=args.rebuild), releases))
    for env in envs:
        if env.python is None:
            err.print(f"{project.library.dist} {env.release}: {env.error}", markup=False)
    built = sum(env.python is not None for env in envs)
    out.print(f"{built} of {len(envs)} release environments ready under "
              f"{project.rel(project.cache_dir / 'matrix')}", markup=False)
    return 0 if built == len(envs) else 1


def cmd_coverage(project: Project, args: argparse.Namespace) -> int:
    from errorkb.source.coverage import coverage

    result = _load_or_report(project)
    table = coverage(result.entries, project)
    if args.json:
        print(json.dumps({"files": [
            {"path": one.path, "release": one.release, "followed": one.followed, "sites": one.sites,
             "implicit": one.implicit,
             "rows": [{"line": r.site.line, "function": r.site.function, "exception": r.site.exception,
                       "entries": list(r.entries), "exemption": r.exemption} for r in one.rows]}
            for one in table.files]}, indent=1))
    else:
        for one in table.files:
            out.print(f"{one.path} ({one.release})" + ("" if one.followed else " — documented sites only"),
                      markup=False)
            for row in one.rows:
                status = ", ".join(row.entries) or (f"exempt: {row.exemption}" if row.exemption else "MISSING")
                out.print(f"{row.site.line:>5}  {row.site.function:<45} {row.site.exception or '':<13} {status}",
                          markup=False)
            of = f" of {one.sites}" if one.sites is not None else ""
            out.print(f"  {one.documented}{of} raise sites documented"
                      + (f"; {len(one.implicit)} implicit errors documented too" if one.implicit else ""),
                      markup=False)
    for problem in table.problems:
        err.print(str(problem), markup=False)
    return 1 if table.problems else 0


def cmd_schema(project: Project, args: argparse.Namespace) -> int:
    if args.check_record:
        from errorkb.verify.records import CheckRecord

        print(json.dumps(CheckRecord.model_json_schema(), indent=2))
        return 0
    from errorkb.core.entry import Entry

    print(json.dumps(Entry.model_json_schema(), indent=2))
    return 0


def cmd_verify(project: Project, args: argparse.Namespace) -> int:
    from errorkb.verify import output
    from errorkb.verify.engine import verify
    from errorkb.verify.plan import UnreadableSnippet, parse_shard
    from errorkb.verify.records import Outcome
    from errorkb.verify.report import STANDING, ReportError, read_report, update_standing

    result = _load_or_report(project)
    known = sorted(result.by_id())
    unknown = [entry_id for entry_id in args.ids if entry_id not in known]
    for entry_id in unknown:
        close = difflib.get_close_matches(entry_id, known, n=1)
        err.print(f"errorkb verify: no entry '{entry_id}'" + (f" (did you mean '{close[0]}'?)" if close else ""),
                  markup=False)
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as error:
        err.print(f"errorkb verify: {error}", markup=False)
        return 2
    if unknown:
        return 2
    human = err if args.json else out
    path = args.report or project.reports / STANDING
    previous = None
    if path.is_file():
        try:
            previous = read_report(path)
        except ReportError as error:
            err.print(f"errorkb verify: {error}; it will be replaced", markup=False)

    from errorkb.verify.sandbox import SandboxUnavailable

    try:
        with _progress(human, enabled=human.is_terminal) as progress:
            fresh = verify(project, result.entries, ids=args.ids or None, targets=args.target, devices=args.device,
                           jobs=args.jobs, isolation=args.isolation, shard=shard, timeout=args.timeout,
                           cache_dir=None if args.no_cache else (args.cache_dir or project.cache_dir),
                           on_start=progress.start, on_result=progress.advance, upstream=args.upstream,
                           kinds=args.kinds, sandbox=args.sandbox)
    except UnreadableSnippet as error:
        err.print(f"errorkb verify: {error}", markup=False)
        return 1
    except SandboxUnavailable as why:
        err.print(f"errorkb verify: --sandbox require, but the sandbox cannot be created here: {why}", markup=False)
        return 2
    for record in sorted(fresh.checks, key=lambda r: r.id):
        if record.outcome is Outcome.FAIL:
            human.print(output.failure_view(record, project.root), markup=False, style="red")
    report = fresh if args.report is not None else update_standing(previous, fresh, set(known))
    report.write(path)
    if args.junit:
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        args.junit.write_bytes(output.junit_xml(fresh))
    for line in output.summary_lines(fresh, previous, project.rel(path)):
        human.print(line, markup=False)
    for line in _still_missing(project, result, args.ids, fresh):
        human.print(line, markup=False)
    if args.json:
        print(json.dumps(fresh.model_dump(mode="json", by_alias=True, exclude_none=True), indent=1))
    return 1 if fresh.counts()[Outcome.FAIL] else 0


def _still_missing(project: Project, result: LoadResult, ids: list[str], fresh: Any) -> list[str]:
    """For each entry asked for by id, or still holding a TODO: what stands between it and a
    finished entry, in the order to do it (TODO prose, TODO comments such as placeholders to
    confirm, TODO lines of snippets), then its checks that do not pass yet."""
    from errorkb.author.todo import unfinished
    from errorkb.verify.records import Outcome

    lines = []
    for one in result.entries:
        todo = unfinished(one, project)
        if one.entry.id not in ids and not todo:
            continue
        failing = [r for r in fresh.checks if r.entry == one.entry.id and r.outcome is Outcome.FAIL]
        order = {role: place for place, (role, _) in enumerate(one.entry.snippet_files())}
        items = [f"{m.where}: {m.what}" for m in todo]
        items += [f"{r.snippet}{f':{r.snippet_line}' if r.snippet_line else ''}: {r.role} [{r.target}-{r.device}] "
                  f"does not {'raise as documented' if r.role == 'before' else 'pass'} yet: "
                  f"{r.reason.splitlines()[0]}" for r in sorted(failing, key=lambda r: (order.get(r.role, 9), r.id))]
        if items:
            lines.append(f"still missing for {one.entry.id}, in order:")
            lines += [f"  {number}. {item}" for number, item in enumerate(items, 1)]
    return lines


class _progress:
    """A rich progress bar on a terminal, nothing elsewhere (CI logs, pipes, --json)."""

    def __init__(self, console: Console, enabled: bool):
        self.console, self.enabled = console, enabled
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> _progress:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TimeRemainingColumn(), console=self.console, transient=True)
            self.bar.__enter__()
        return self

    def start(self, total: int) -> None:
        if self.bar is not None:
            self.task = self.bar.add_task("verify", total=total)

    def advance(self, record: object) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def cmd_report_merge(project: Project, args: argparse.Namespace) -> int:
    from errorkb.verify.report import ReportError, merge, read_report

    reports = []
    for path in args.inputs:
        try:
            reports.append(read_report(path))
        except ReportError as error:
            err.print(f"errorkb report merge: {error}", markup=False)
            return 1
    merged = merge(reports)
    merged.write(args.output)
    counts = merged.counts()
    out.print(f"merged {len(reports)} reports: {len(merged.checks)} checks ({counts['pass']} passed, "
              f"{counts['fail']} failed, {counts['not-run']} not run) — {args.output}", markup=False)
    return 0


def cmd_lookup(project: Project, args: argparse.Namespace) -> int:
    """Same rules as the paste box (errorkb.site.lookup); exit 1 when nothing matches."""
    from errorkb.site.lookup import index_lookup, project_lookup

    text = sys.stdin.read() if args.message == "-" else args.message
    if not text.strip():
        err.print("errorkb lookup: give a message, or pipe one in", markup=False)
        return 2
    loaded = LoadResult([], [])
    if args.index is not None:
        lookup = index_lookup(args.index)
    else:
        loaded = load_project_entries(project)
        if loaded.problems:
            err.print(f"errorkb lookup: {len(loaded.problems)} problem(s) in the entries (see errorkb check); "
                      "looking among the entries that load", markup=False)
        lookup = project_lookup(project, [one.entry for one in loaded.entries])
    answer = lookup.answer(text, args.release)
    matches = answer.matches
    shown = matches if args.all else matches[:1]
    if answer.cut:
        err.print(f"errorkb lookup: the paste is long; read its last {answer.kept:,} characters "
                  f"({answer.cut:,} cut from the start)", markup=False)
    if args.json:
        print(json.dumps([_match_json(m) for m in shown], indent=1, ensure_ascii=False))
    if not args.json and len(matches) == 1 and args.index is None:
        _print_match(matches[0], lookup.library, details=False)
        from errorkb.site.terminal import entry_pages, entry_view

        page = next(p for p in entry_pages(project, loaded) if p.entry.id == matches[0].known.id)
        out.print(entry_view(project, page), soft_wrap=False)
        return 0
    for match in [] if args.json else shown:
        _print_match(match, lookup.library)
    if not matches:
        err.print("errorkb lookup: no entry matches this message", markup=False)
        if args.index is None and not args.json:
            _print_nearest(project, text, [one.entry for one in loaded.entries])
        return 1
    if not args.all and len(matches) > 1 and not args.json:
        err.print(f"({len(matches) - 1} more match; --all lists them)", markup=False)
    return 0


def _match_json(match: Match) -> dict[str, Any]:
    wording, release = match.matched, match.release
    return {"id": match.known.id, "title": match.known.title, "exception": match.known.exception,
            "function": match.known.function, "url": match.known.url, "values": match.values, "exact": match.exact,
            "wording": {"index": match.wording, "message": wording.message, "exception": wording.exception,
                        "releases": wording.releases, "device": wording.device, "note": wording.note},
            "release": None if release is None else {"releases": list(release.releases), "given": release.given,
                                                     "raises": release.raises, "advice": release.advice}}


def _print_nearest(project: Project, text: str, entries: list[Any]) -> None:
    """The three entries whose messages or titles read most like the paste, and the site."""
    from errorkb.site.terminal import nearest, page_address

    near = nearest(text, entries)
    if near:
        err.print("the nearest entries:", markup=False)
        for one in near:
            err.print(f"  {one.entry.id}  {one.entry.title}  ({one.score:.0%} alike)", markup=False)
            err.print(f"    {one.entry.exception}: {one.entry.message}", markup=False)
            err.print(f"    {page_address(project, one.entry)}", markup=False)
    if project.site_url:
        err.print(f"every entry: {project.site_url}errors/ — not there? errorkb new ID --from-traceback - "
                  "(docs/contributing.md)", markup=False)


def _print_match(match: Match, library: str, details: bool = True) -> None:
    values = ", ".join(f"{{{expression}}} = {value}" for expression, value in match.values.items())
    out.print(f"[bold]{match.known.id}[/]  ", end="")
    out.print(match.known.title, markup=False)
    out.print(f"  {match.known.exception} from {match.known.function}"
              + ("" if match.exact else " (found inside the text)"), markup=False)
    if match.wording:
        wording = match.matched
        where = ", ".join(x for x in (wording.releases and f"{library} {wording.releases}", wording.device) if x)
        out.print(f"  matched another wording{f' ({where})' if where else ''}: {wording.message}"
                  + (f" — {wording.note}" if wording.note else ""), markup=False)
    if values:
        out.print(f"  {values}", markup=False)
    if match.release is not None:
        release = match.release
        source = "as given" if release.given else "from the traceback's frames"
        state = "raises it" if release.raises is True else "does not raise it" if release.raises is False else \
            "some of them raise it" if release.advice else "the entry records no release range"
        where = release.releases[0] if len(release.releases) == 1 else \
            f"{release.releases[0]} – {release.releases[-1]}"
        out.print(f"  {library} {where} ({source}): {state}. {release.advice}".rstrip(), markup=False)
    if details:
        out.print(f"  page: {match.known.url}", markup=False)


def cmd_new(project: Project, args: argparse.Namespace) -> int:
    """Entry and snippet stubs; exit 1 (nothing written) when the id is taken or a file exists."""
    from errorkb.author import scaffold
    from errorkb.author.paste import read_paste

    if args.from_traceback is None and args.like is None:
        err.print("errorkb new: give --from-traceback FILE (or - for stdin) and/or --like ID", markup=False)
        return 2
    loaded = load_project_entries(project)
    known = {one.entry.id: one for one in loaded.entries}
    try:
        scaffold.check_id(args.id, _reserved_ids(), lambda entry_id: entry_id in known or any(
            project.entries.glob(f"*/{entry_id}.yml")) or (project.snippets / entry_id).exists())
        pasted = None
        if args.from_traceback is not None:
            text = _read_input(args.from_traceback)
            pasted = scaffold.from_paste(project, args.id, read_paste(text))
        if args.like is not None:
            if args.like not in known:
                close = difflib.get_close_matches(args.like, sorted(known), n=1)
                raise scaffold.ScaffoldError(f"no entry '{args.like}' to start from"
                                             + (f" (did you mean '{close[0]}'?)" if close else ""))
            draft = scaffold.from_like(project, args.id, known[args.like], pasted)
        else:
            assert pasted is not None
            draft = pasted
        written = scaffold.write_files(scaffold.stub_files(project, draft))
    except (scaffold.ScaffoldError, OSError) as error:
        err.print(f"errorkb new: {error}", markup=False)
        return 1
    for path in written:
        out.print(f"wrote {project.rel(path)}", markup=False)
    out.print(f"next: fill in the TODOs, then `errorkb verify {args.id}` lists what is still missing, in order "
              "(docs/contributing.md walks through it)", markup=False)
    return 0


_MAX_INPUT = 16 << 20  # characters read from a pasted traceback: the paste reader keeps the last 64 KiB anyway


def _read_input(name: str) -> str:
    """A file's text, or stdin's for '-', bounded; undecodable bytes replaced, never fatal."""
    if name == "-":
        return sys.stdin.read(_MAX_INPUT)
    with open(name, encoding="utf-8", errors="replace") as handle:
        return handle.read(_MAX_INPUT)


def cmd_show(project: Project, args: argparse.Namespace) -> int:
    from errorkb.site.terminal import entry_pages, entry_view

    loaded = load_project_entries(project)
    pages = {page.entry.id: page for page in entry_pages(project, loaded)}
    if args.id not in pages:
        close = difflib.get_close_matches(args.id, sorted(pages), n=1)
        err.print(f"errorkb show: no entry '{args.id}'" + (f" (did you mean '{close[0]}'?)" if close else ""),
                  markup=False)
        return 1
    out.print(entry_view(project, pages[args.id]), soft_wrap=False)
    return 0


def cmd_hook(args: argparse.Namespace) -> int:
    from errorkb.hook import pth

    done, said = {"install": pth.install, "uninstall": pth.uninstall, "status": pth.status}[args.action]()
    (out if done else err).print(said, markup=False)
    return 0 if done or args.action == "status" else 1


def cmd_hook_index(project: Project, args: argparse.Namespace) -> int:
    from errorkb.site.hookindex import HOOK_INDEX, hook_index, index_text, stale

    entries = [one.entry for one in _load_or_report(project).entries]
    if args.check:
        if stale(project, entries):
            err.print(f"{HOOK_INDEX} is stale: run `errorkb hook index` and commit it", markup=False)
            return 1
        out.print(f"{HOOK_INDEX} is up to date", markup=False)
        return 0
    document = hook_index(project, entries)
    HOOK_INDEX.write_text(index_text(document), encoding="utf-8")
    count = len(document["entries"]) if isinstance(document["entries"], list) else 0
    out.print(f"wrote {HOOK_INDEX} ({count} entries)", markup=False)
    return 0


def cmd_render(project: Project, args: argparse.Namespace) -> int:
    """The site's generated files written to disk; exit 1 when an entry has problems."""
    from errorkb.plugs import runtime_for
    from errorkb.site.files import site_files
    from errorkb.verify.report import read_reports

    loaded = load_project_entries(project, _reserved_ids())
    for problem in loaded.problems:
        err.print(str(problem), markup=False)
    reports, unreadable = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    for message in unreadable:
        err.print(message, markup=False)
    pages, files = site_files(project, loaded, reports, edit_url=_edit_urls(project))
    out_dir = args.out.resolve()
    for file in files:
        path = args.out / file.path
        if not path.resolve().is_relative_to(out_dir):  # page_path keeps pages in place; this keeps --out whole
            err.print(f"errorkb render: {file.path} would be written outside {args.out}; skipped", markup=False)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.content, encoding="utf-8")
    out.print(f"{len(pages)} entry pages, {len(files)} files written to {args.out}", markup=False)
    return 1 if loaded.problems else 0


def _edit_urls(project: Project) -> Any:
    """The plugin's edit links, from the project's mkdocs.yml when it has one: `render --out` writes
    the bytes the site publishes."""
    config_path = project.root / "mkdocs.yml"
    if not config_path.is_file():
        return None
    from mkdocs.config import load_config

    from errorkb.site.files import edit_url

    config = load_config(str(config_path))
    return lambda path: edit_url(config.repo_url, config.edit_uri, Path(config.docs_dir), project, path)


if __name__ == "__main__":
    sys.exit(main())

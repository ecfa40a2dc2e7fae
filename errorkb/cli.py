"""`errorkb` on the command line: thin glue over load, verify and render.

Exit codes: 0 all good, 1 problems in the knowledge base or failed checks, 2 bad usage.
Nothing here imports torch: snippets run in child processes.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from errorkb.load import LoadResult, load_project_entries
from errorkb.problems import ProblemsFound
from errorkb.project import Project, load_project

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        project = load_project(Path(args.root) if args.root else None)
        return args.command(project, args)
    except ProblemsFound as found:
        for problem in found.problems:
            err.print(str(problem), markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="project folder (default: nearest with pyproject.toml or mkdocs.yml)")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    check = commands.add_parser("check", help="validate every entry; print path:line:col problems")
    check.set_defaults(command=cmd_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of an entry")
    schema.set_defaults(command=cmd_schema)

    verify = commands.add_parser("verify", help="run every snippet and judge it; write a JSON report")
    verify.add_argument("ids", nargs="*", metavar="ID", help="entries to verify (default: all)")
    verify.add_argument("--target", action="append", choices=["bundled", "upstream"],
                        help="implementation to run against (repeatable; default from [tool.errorkb])")
    verify.add_argument("--device", action="append", choices=["cpu", "cuda"],
                        help="device kind (repeatable; default: cpu and cuda)")
    verify.add_argument("--jobs", type=int, default=None, help="checks run in parallel (default: CPU count)")
    verify.add_argument("--report", type=Path, default=None,
                        help="report file (default: <reports>/latest.json, updated in place)")
    verify.set_defaults(command=cmd_verify)
    return parser


def _load_or_report(project: Project) -> LoadResult:
    result = load_project_entries(project)
    if result.problems:
        raise ProblemsFound(result.problems)
    return result


def cmd_check(project: Project, args: argparse.Namespace) -> int:
    result = _load_or_report(project)
    out.print(f"{len(result.entries)} entries OK")
    return 0


def cmd_schema(project: Project, args: argparse.Namespace) -> int:
    from errorkb.entry import Entry

    print(json.dumps(Entry.model_json_schema(), indent=2))
    return 0


def cmd_verify(project: Project, args: argparse.Namespace) -> int:
    from errorkb.verify.engine import verify
    from errorkb.verify.report import Report, latest_results, read_report

    result = _load_or_report(project)
    known = sorted(result.by_id())
    unknown = [entry_id for entry_id in args.ids if entry_id not in known]
    for entry_id in unknown:
        close = difflib.get_close_matches(entry_id, known, n=1)
        err.print(f"errorkb verify: no entry '{entry_id}'" + (f" (did you mean '{close[0]}'?)" if close else ""),
                  markup=False)
    if unknown:
        return 2

    def show(record: dict) -> None:
        if record["outcome"] == "fail":
            out.print(f"[red]FAIL[/] {escape(record['id'])}", end="")
            out.print(f"  {_snippet_location(record)}\n  {record['reason']}", markup=False)

    fresh = verify(project, result.entries, ids=args.ids or None, targets=args.target, devices=args.device,
                   jobs=args.jobs, on_result=show)
    path = args.report or project.reports / "latest.json"
    report = fresh
    if args.report is None and path.is_file():  # a partial run updates the standing report
        try:
            previous = read_report(path)
        except (OSError, ValueError, KeyError):
            previous = None
        if previous is not None:
            merged = latest_results([previous, fresh])
            kept = sorted((r for r in merged.values() if r["entry"] in known), key=lambda r: r["id"])
            report = Report(fresh.created, fresh.environment, {**previous.targets, **fresh.targets}, kept)
    report.write(path)
    counts = fresh.summary
    not_run = sorted({record["reason"] for record in fresh.checks if record["outcome"] == "not-run"})
    out.print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['not-run']} not run"
              + (f" ({'; '.join(not_run)})" if not_run else "") + f" — report: {project.rel(path)}", markup=False)
    return 1 if counts["fail"] else 0


def _snippet_location(record: dict) -> str:
    line = (record.get("exception") or {}).get("snippet_line")
    return f"{record['snippet']}:{line}" if line else record["snippet"]


if __name__ == "__main__":
    sys.exit(main())

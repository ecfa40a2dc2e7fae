"""Save → page under `mkdocs serve`: how long the rebuild after one save takes, incremental
(`errorkb.site.live`) against the whole site rebuilt, side by side in one run.

For each size (default 100 and 1,000 entries of the synthetic knowledge base of
`benchmarks/site_build.py`), in one process, as `mkdocs serve` does it (the plugin kept across
builds, a fresh configuration per build, `build(config, serve_url=..., dirty=True)` as
scripts/serve.sh's `mkdocs serve --dirty`; `--no-dirty`: as plain `mkdocs serve`):

- a first build (everything made; not timed against anything);
- then, each save in turn, the incremental rebuild that follows it: an entry's prose, one of its
  snippets, its title (which the lists show), and its record in the report, the changed entry's
  page checked to show the change, with the garbage collector's share (`gc.callbacks`: seconds in
  collections, and the full collections, which scan every object the process keeps);
- then the same rebuild with the plugin making and MkDocs writing everything (as it did before, and as `mkdocs
  build` does), the ratio beside each row.

Goal: the incremental rebuild under 1 s at 100 entries and under 2 s at 1,000 (wall clock: what
the author waits; CPU time beside it, since this machine is shared). The file watcher's own
delay before the rebuild starts is not included.

    .venv/bin/python benchmarks/live_authoring.py [--entries 100 1000] [--repeat 3] [--no-dirty] [--no-freeze]
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

from benchmarks import site_build  # noqa: E402

ENTRY = "synthetic-error-{:04d}"


def make_site(folder: Path, entries: int) -> Path:
    site_build.N_ENTRIES = entries
    site_build.make_kb(folder, entries)
    config, _ = site_build.site_configs(folder)
    return config


DIRTY = True  # as scripts/serve.sh runs it: `mkdocs serve --dirty`


class Collections:
    """The garbage collector's work during one rebuild (`gc.callbacks`): the collections of each
    generation and the seconds spent in them, the full (generation 2) ones apart."""

    def __init__(self) -> None:
        self.seconds = self.full_seconds = 0.0
        self.counts = [0, 0, 0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        self.seconds += took
        self.counts[info["generation"]] += 1
        if info["generation"] == 2:
            self.full_seconds += took

    def __enter__(self) -> Collections:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self)


Timing = tuple[float, float, Collections]  # wall s, CPU s, the collections


def build(config_file: Path, site_dir: Path, command: str) -> Timing:
    """One rebuild as `mkdocs serve` runs it (`command`: "serve" keeps what the plugin made last
    time, and writes only what changed with `--dirty`; "build" makes and writes everything).
    Returns wall and CPU seconds and the garbage collections it ran."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    with Collections() as collections:
        start, cpu = time.perf_counter(), time.process_time()
        config = load_config(str(config_file), site_dir=str(site_dir))
        if command == "build":
            config.plugins.on_startup(command="build", dirty=False)
        mkdocs_build(config, serve_url="http://127.0.0.1:8000/", dirty=DIRTY and command == "serve")
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return wall, cpu, collections


FREEZE = True  # `errorkb.site.live.Survivors`: the kept state frozen out of the collector's generations


def start_serving(config_file: Path) -> None:
    from mkdocs.config import load_config

    plugins = load_config(str(config_file)).plugins
    plugins.on_startup(command="serve", dirty=DIRTY)
    if not FREEZE:  # the collector as before `Survivors`: every full collection scans the kept state
        plugins["errorkb"]._survivors = None


def saves(folder: Path, index: int) -> list[tuple[str, Callable[[int], str]]]:
    """(what, save(n) → the text the entry's page must then show)."""
    entry_id = ENTRY.format(index)
    yaml_path = folder / "docs" / "errors" / "transformers" / f"{entry_id}.yml"
    snippet = folder / "snippets" / entry_id / "after.py"
    report = folder / "reports" / "latest.json"

    def prose(n: int) -> str:
        text = yaml_path.read_text()
        yaml_path.write_text(text.replace("meaning: |\n", f"meaning: |\n  Edited prose {n}.\n", 1))
        return f"Edited prose {n}."

    def code(n: int) -> str:
        text = snippet.read_text()
        snippet.write_text(text.replace("# --8<-- [start:show]\n", f"# --8<-- [start:show]\nedited_{n} = {n}\n", 1))
        return f"edited_{n}"

    def title(n: int) -> str:
        lines = yaml_path.read_text().splitlines(keepends=True)
        yaml_path.write_text("".join(f'title: "Retitled {n}"\n' if line.startswith("title:") else line
                                     for line in lines))
        return f"Retitled {n}"

    def record(n: int) -> str:
        data = json.loads(report.read_text())
        for check in data["checks"]:
            if check["entry"] == entry_id and check["role"] == "after":
                check["reason"], check["outcome"], check["code"] = f"ran clean, run {n}", "pass", "ran-clean"
                check["verified_at"] = f"2026-12-01T10:{n % 60:02d}:00+00:00"
        report.write_text(json.dumps(data))
        return "Ran clean when verified"

    return [("an entry's prose", prose), ("one of its snippets", code), ("its title", title),
            ("its record in the report", record)]


def measure(entries: int, repeat: int) -> tuple[list[tuple[str, list[Timing]]], list[Timing]]:
    """Per save, the incremental rebuilds after it; then the whole site rebuilt (as before)."""
    folder = Path(tempfile.mkdtemp(prefix="errorkb-live-"))
    try:
        config = make_site(folder, entries)
        site_dir = folder / "site"
        start_serving(config)
        first = build(config, site_dir, "serve")
        print(f"\n{entries} entries, mkdocs serve{' --dirty' if DIRTY else ''}{'' if FREEZE else ', no freezing'}: first build {first[0]:.1f} s wall, {first[1]:.1f} s CPU "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        page = site_dir / "errors" / "transformers" / ENTRY.format(entries // 2) / "index.html"
        rows, n = [], 0
        for what, save in saves(folder, entries // 2):
            times = []
            for _ in range(repeat):
                n += 1
                shown = save(n)
                times.append(build(config, site_dir, "serve"))
                assert shown in page.read_text(), f"{what}: the page does not show {shown!r} after the rebuild"
            rows.append((what, times))
        everything = []
        for _ in range(repeat):
            n += 1
            shown = saves(folder, entries // 2)[0][1](n)
            everything.append(build(config, site_dir, "build"))
            assert shown in page.read_text()
        return rows, everything
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def gc_columns(times: list[Timing]) -> str:
    fastest = min(times, key=lambda t: t[0])[2]
    full = sum(t[2].counts[2] for t in times) / len(times)
    full_s = sum(t[2].full_seconds for t in times) / len(times)
    return f"{fastest.seconds:6.2f} {full:4.1f} {full_s:5.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dirty", action="store_true", help="serve without --dirty (the site folder emptied and "
                        "written again on every rebuild)")
    parser.add_argument("--no-freeze", action="store_true", help="hold off the freezing of the kept state "
                        "between rebuilds (live.Survivors): the garbage collector as before it, for a side-by-side run")
    args = parser.parse_args()
    global DIRTY, FREEZE
    DIRTY, FREEZE = not args.no_dirty, not args.no_freeze
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    goals = {100: 1.0, 1000: 2.0}
    for entries in args.entries:
        rows, everything = measure(entries, args.repeat)
        goal = goals.get(entries, 2.0)
        wall_e, cpu_e = min(t[0] for t in everything), min(t[1] for t in everything)
        print(f"  {'rebuild after saving':<28} {'wall s':>8} {'CPU s':>8} {'GC s':>6} {'full GCs':>12}"
              f"   {'vs. everything rebuilt':>22}")
        for what, times in rows:
            wall, cpu = min(t[0] for t in times), min(t[1] for t in times)
            ok = "OK" if wall < goal else f"OVER GOAL ({goal:g} s wall)"
            print(f"  {what:<28} {wall:8.2f} {cpu:8.2f} {gc_columns(times)}"
                  f"   {wall_e / wall:9.1f}x wall {cpu_e / cpu:6.1f}x CPU  {ok}")
        print(f"  {'everything rebuilt (before)':<28} {wall_e:8.2f} {cpu_e:8.2f} {gc_columns(everything)}")
        print("  (GC s: seconds in the garbage collector during the fastest rebuild; full GCs: generation-2 "
              "collections per rebuild, mean of the repeats, and their mean seconds; with freezing, they scan only "
              "what is not frozen, one of them the collection at the start of each rebuild)")
    print(f"\n(best of {args.repeat} per row; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

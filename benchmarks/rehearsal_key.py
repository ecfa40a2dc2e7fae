"""What keying `errorkb check`'s record of rehearsed pages on the code as the import system finds it costs: side by
side, in one run, on this repository's site.

    PYTHONPATH=. .venv/bin/python benchmarks/rehearsal_key.py [--n 20]

1. The renderer's key at the start of a warm `errorkb check` (every page skipped), over the modules a real
   rehearsal rendered with: `digest only` hashes each file's bytes (session 59's key: the files, read after the
   run); `resolved + digest` also finds where the import system resolves each module's name now
   (`filebytes.resolved`, so a module newly shadowing one is seen) and delimits each file (`rehearsed.observe`,
   `rehearsed.renderer_digest`).
2. The rehearsal child's report of the code it rendered with, once per child (`budget.rendering_code`), with and
   without the digest of each module's bytes as the child first saw it.
3. A warm rehearsal of every page of the site (`rehearsed.rehearse`, the record just written): how many pages it
   skipped, and its seconds (the whole key is in it).

Each line: the median of N in milliseconds; the ratio is the new to the old.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def median_ms(function, n: int) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.plugs import runtime_for
    from errorkb.results.report import read_reports
    from errorkb.site import budget, rehearsed
    from errorkb.site.files import site_files

    project = load_project(ROOT)
    result = load_project_entries(project)
    reports, _ = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    pages, files = site_files(project, result, reports)
    pages_to_rehearse = budget.rehearsals(project, result, pages, files, parts=False)
    config = ROOT / "mkdocs.yml"
    with tempfile.TemporaryDirectory(prefix="errorkb-rehearsal-key-") as folder:
        memo = rehearsed.Rehearsed(Path(folder), trusted=True)
        started = time.perf_counter()
        rehearsed.rehearse(pages_to_rehearse, config, memo)
        cold = time.perf_counter() - started
        memo = rehearsed.Rehearsed(Path(folder), trusted=True)
        if not memo.code:
            sys.exit("the cold rehearsal recorded nothing: the key could not be checked")
        started = time.perf_counter()
        verdicts, skipped = rehearsed.rehearse(pages_to_rehearse, config, memo)
        warm = time.perf_counter() - started
    code, path = memo.code, memo.import_path
    settings = rehearsed.settings_digest(config) or ""

    def digest_only() -> None:
        digest = hashlib.sha256(settings.encode())
        for _, file in sorted(code, key=lambda module: module[1]):
            digest.update(f"\0{file}\0{rehearsed.filebytes.file_digest(file)}".encode())

    def resolved_and_digest() -> None:
        rehearsed.renderer_digest(settings, rehearsed.observe(code, path))

    def child_report(with_digests: bool) -> None:
        seen: set[str] = set()
        if with_digests:
            budget.rendering_code(seen)
        else:  # session 59's report: the files only
            import os

            for name in sys.modules.keys() - seen:
                file = getattr(sys.modules.get(name), "__file__", None)
                if isinstance(file, str):
                    os.path.realpath(file)

    budget.converter(str(config))("# warm the renderer's imports\n\n```python\nx = 1\n```\n")
    rows = [("renderer key: digest only", median_ms(digest_only, args.n)),
            ("renderer key: resolved + digest", median_ms(resolved_and_digest, args.n)),
            ("child's report: files only", median_ms(lambda: child_report(False), args.n)),
            ("child's report: files + digests", median_ms(lambda: child_report(True), args.n))]
    print(f"{len(code)} modules of rendering code, {len(pages_to_rehearse)} pages; median of {args.n}, ms")
    for index, (name, ms) in enumerate(rows):
        ratio = f"{ms / rows[index - 1][1]:6.2f}x" if index % 2 else ""
        print(f"{name:36} {ms:9.2f} {ratio}")
    print(f"rehearsal, cold (every page rendered): {cold:.1f} s; warm: {warm:.2f} s, "
          f"{skipped} of {len(verdicts)} pages skipped")


if __name__ == "__main__":
    main()

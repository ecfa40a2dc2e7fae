"""The version matrix after one entry changed: zygotes forked from a shared stem vs each release's own.

    .venv/bin/python benchmarks/matrix_stem.py [--entry ID] [--releases N] [--since 4.36] [--parallel 2]

Takes the first N release environments since SINCE already built (`errorkb matrix
--environments-only`) that load the `[tool.errorkb.matrix.shared]` modules themselves, and runs
ENTRY's before and
after at each of them, with no verdict cache, `--parallel` releases at a time, as the matrix
does after that one entry changed. In one run, side by side:

1. own:  every release's zygote started from its own interpreter (imports torch, hqq's
         quantizer and the release's transformers);
2. stem: every release's zygote forked from one stem that imported torch and the shared
         modules once (`errorkb/verify/stem.py`).

Prints both wall times and the ratio, and the releases the stem could not serve, with why (a
release that installs its own copy of a package the stem loaded: before 4.45, numpy); exits 1
if the two sides' verdicts differ, if a check did not run, or if no release's zygote came from
the stem, so the figures cannot be quoted from a broken run.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from packaging.version import Version  # noqa: E402

from errorkb.core.load import load_project_entries  # noqa: E402
from errorkb.core.project import load_project  # noqa: E402
from errorkb.verify import matrix  # noqa: E402
from errorkb.verify.engine import Upstream, Verifier  # noqa: E402
from errorkb.verify.plan import library_imports  # noqa: E402
from errorkb.verify.targets import UPSTREAM  # noqa: E402


def run(project, planned, pythons, loads, parallel: int, share: bool) -> tuple[float, dict, set, dict]:
    verifier = Verifier(project, [UPSTREAM], upstream=Upstream.INSTALLED, environments=pythons, cache_dir=None,
                        preload=library_imports([c for checks in planned.values() for c in checks],
                                                project.library.name))
    stemmed: set[str] = set()

    def one(release: str) -> list:
        if share:
            verifier.pool.share(pythons[release], loads[release])
        records = [verifier.record_safely(check) for check in planned[release]]
        if any(z.stem is not None for key, z in list(verifier.pool.zygotes.items()) if key[3] == str(pythons[release])):
            stemmed.add(release)
        verifier.pool.retire(pythons[release])
        return records

    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=parallel) as threads:
            records = dict(zip(planned, threads.map(one, planned), strict=True))
        unshared = dict(verifier.pool.unshared)
    finally:
        verifier.close()
    return time.perf_counter() - started, records, stemmed, unshared


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entry", default="get-usable-length-removed")
    parser.add_argument("--releases", type=int, default=20)
    parser.add_argument("--since", default="4.36")
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    pythons, loads = {}, {}
    since = Version(args.since)
    for release in project.matrix.releases or []:
        if Version(release) < since:
            continue
        env = matrix.ensure_env(project, release) if (matrix.matrix_env(project, release) / ".errorkb-ready").is_file() \
            else None
        if env is None or env.python is None or not (found := matrix.shared_loads(project, env)):
            continue
        pythons[release], loads[release] = env.python, found
        if len(pythons) == args.releases:
            break
    if not pythons:
        print("no built release environment loads the shared modules: run `errorkb matrix --environments-only`")
        return 1
    planned = {release: matrix.release_checks(project, loaded, release, [args.entry]) for release in pythons}
    checks = sum(len(checks) for checks in planned.values())
    print(f"{args.entry}: {checks} checks at {len(pythons)} releases ({', '.join(pythons)}), "
          f"{args.parallel} releases at a time, no cache")
    own, own_records, _, _ = run(project, planned, pythons, loads, args.parallel, share=False)
    print(f"  own interpreter per release: {own:6.1f} s ({own / len(pythons):.2f} s a release)")
    stem, stem_records, stemmed, unshared = run(project, planned, pythons, loads, args.parallel, share=True)
    print(f"  zygotes forked from a stem:  {stem:6.1f} s ({stem / len(pythons):.2f} s a release; "
          f"{len(stemmed)} of {len(pythons)} releases from the stem)")
    print(f"  ratio: {own / stem:.1f}x faster from the stem")
    for python, why in sorted(unshared.items()):
        print(f"  own interpreter for {Path(python).parent.parent.name}: {why[:150]}")

    def verdicts(records: dict) -> dict:
        return {(release, r.id): (r.outcome, r.code, r.reason) for release, rs in records.items() for r in rs}

    problems = []
    if verdicts(own_records) != verdicts(stem_records):
        problems.append("the two runs' verdicts differ")
    if any(not r.outcome.ran for rs in stem_records.values() for r in rs):
        problems.append("a check did not run")
    if not stemmed:
        problems.append("no release's zygote came from the stem")
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

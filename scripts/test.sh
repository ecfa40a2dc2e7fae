#!/usr/bin/env bash
# Runs the tests. Extra arguments go to pytest (e.g. -k loader, --slow, tests/site).
#   bash scripts/test.sh          the full tier (the README's and CI's command): loader, verifier,
#                                 bundled cache vs upstream, every entry of the knowledge base verified,
#                                 the strict site build and the browser tests; the sandbox and the
#                                 Python/JS lookup parity are required (missing: the run fails and
#                                 says what to install, never skips)
#   bash scripts/test.sh --quick  the unit tier, for the inner loop (loader, lint, lookup, render, the
#                                 judge on recorded observations, CLI): no snippet runs, no knowledge-
#                                 base verification, no browser, no release environments, no
#                                 adversarial runs, no `mkdocs serve` (tests/conftest.py says which is which)
#
# Both tiers run on every core (pytest-xdist: ERRORKB_TEST_JOBS workers; `-n 0` after the command runs in
# this process). The quick tier: one worker per core (`auto`). The full tier: one more than the cores, since
# its tests wait on sandboxes, interpreters starting, Chromium and time limits: with one per core a quiet
# fresh-clone run used 62% of the two cores (1,400 s of CPU in 1,090 s of pytest). Tests are grouped (tests/conftest.py: `xdist_group`):
# the tests of one expensive session fixture (the knowledge base's verification, each adversarial
# mode, the broken fixture's verification, the repository's built site and the browser) run on one
# worker, so each runs once; those groups start first, then the longest modules (LONG_MODULES), longest first. ERRORKB_CPU_LOG=PATH logs each test's CPU time
# and `python -m tests.cpu_log PATH` sorts it (docs/ci.md): measure with CPU time on a shared machine.
# Measured 2026-12-01 at load 7-40 (five sessions sharing 2 cores): --quick, 996 tests on 2 workers,
# 360 s CPU (user+sys), 45 min wall (the load, not the tests: the workers got 13% of the machine);
# full tier: collection 15.9 s CPU per worker, the run itself not measured to the end.
# Measured 2026-12-03, a quiet fresh clone (`.ci/run`, nothing else running): the full tier, 2,147 tests,
# 19.5 min of pytest (24 min with set-up); its longest test, the subprocess-mode adversarial run, 8.7 min.
# CI's quiet runs of 2026-12-06: 4,123 tests, 839-877 s of pytest, 1,633-1,705 s of CPU on three workers that end
# within 9 s of one another: the wall is the CPU over two cores (docs/ci.md says what the tier costs, by consumer).
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_MKDOCS_2_WARNING=1
parallel() { PARALLEL=(-n "${ERRORKB_TEST_JOBS:-$1}" --dist loadgroup --no-loadscope-reorder); }

if [ "${1:-}" = "--quick" ]; then
  shift
  bash scripts/setup.sh
  export ERRORKB_TEST_TIER=quick
  parallel auto
  exec .venv/bin/python -m pytest "${PARALLEL[@]}" "$@"  # deselects the full tier's markers (tests/conftest.py: QUICK_DESELECTS)
fi

bash scripts/setup.sh --browser
# Entries pinned to other releases are verified in those releases' environments (built once, from
# PyPI, under .errorkb-cache/matrix/; the tests never download anything).
.venv/bin/errorkb matrix --environments-only
# A `requires:` older than .venv's (optimum-quanto<0.2.6) is met in an environment of its own, built once from
# PyPI under .errorkb-cache/needs/ (errorkb.verify.requirements.pins): every CPU check of the knowledge base runs.
.venv/bin/python -m errorkb.verify.requirements --build
export ERRORKB_TEST_TIER=full ERRORKB_SANDBOX=require
parallel $(($(nproc) + 1))
exec .venv/bin/python -m pytest "${PARALLEL[@]}" "$@"

#!/usr/bin/env bash
# Runs the whole test suite: loader, verifier, bundled cache vs upstream, every entry of the
# knowledge base verified, the strict site build and the browser tests.
# Extra arguments go to pytest (e.g. -k loader, --slow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
export NO_MKDOCS_2_WARNING=1
# Entries pinned to other releases are verified in those releases' environments (built once, from
# PyPI, under .errorkb-cache/matrix/; the tests never download anything).
.venv/bin/errorkb matrix --environments-only
exec .venv/bin/python -m pytest "$@"

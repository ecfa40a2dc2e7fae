#!/usr/bin/env bash
# Runs the whole test suite: loader, verifier, bundled cache vs upstream, every entry of the
# knowledge base verified, the strict site build and the browser tests.
# Extra arguments go to pytest (e.g. -k loader, --slow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
export NO_MKDOCS_2_WARNING=1
exec .venv/bin/python -m pytest "$@"

#!/usr/bin/env bash
# Serves the knowledge base on http://127.0.0.1:8000, rebuilding when an entry, a snippet or a
# report changes. Extra arguments go to `mkdocs serve`. `--dirty`: a rebuild writes only what the
# save changed (the errorkb plugin decides which of its pages and files did; errorkb.site.live).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NO_MKDOCS_2_WARNING=1
exec .venv/bin/mkdocs serve --livereload --dirty -a 127.0.0.1:8000 "$@"

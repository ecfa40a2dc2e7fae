#!/usr/bin/env bash
# Creates .venv with the pinned dev stack, errorkb itself and this repository's knowledge base
# (transformers_errorkb: its hook index and bundled implementation); quick when nothing changed.
#   bash scripts/setup.sh            # Python packages (enough to serve the site), and bubblewrap
#   bash scripts/setup.sh --browser  # also Debian's Chromium, for the browser tests
# bubblewrap (bwrap) is the sandbox `errorkb verify` runs snippets in (docs/threat-model.md).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.errorkb-installed
want=$(cat requirements/dev.txt requirements/constraints.txt pyproject.toml transformers_errorkb/pyproject.toml \
  | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the pinned stack into .venv (torch CPU, transformers, mkdocs, ...)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  # hqq ships as an sdist whose setup.py also tries to build optional CUDA kernels (with os.system,
  # ignoring failure); its torch code paths need none of them, so skip the attempt.
  DISABLE_CUDA=1 .venv/bin/python -m pip install --quiet -r requirements/dev.txt -c requirements/constraints.txt
  .venv/bin/python -m pip install --quiet --no-deps -e .
  # The knowledge base, installed as a second knowledge base would be: its own distribution, whose
  # `errorkb.indexes` entry point the hook, `errorkb lookup` and `errorkb show` find.
  .venv/bin/python -m pip install --quiet --no-deps -e ./transformers_errorkb
  echo "$want" > "$stamp"
fi

if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: /usr/bin/chromium is missing; install it with: sudo apt-get install chromium" >&2
  fi
fi

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing bubblewrap, the sandbox errorkb verify runs snippets in"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "setup: WARNING: bubblewrap (bwrap) is missing: errorkb verify will run snippets WITHOUT a sandbox" >&2
    echo "setup:          (they can write the project, the verdict cache and reports/, and reach the network)." >&2
    echo "setup:          Install it with: sudo apt-get install bubblewrap  (see docs/threat-model.md)" >&2
  fi
fi

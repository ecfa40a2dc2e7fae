#!/usr/bin/env bash
# Creates .venv with the pinned dev stack and errorkb itself; quick when nothing changed.
#   bash scripts/setup.sh            # Python packages only (enough to serve the site)
#   bash scripts/setup.sh --browser  # also Debian's Chromium, for the browser tests
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.errorkb-installed
want=$(cat requirements/dev.txt requirements/constraints.txt pyproject.toml | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the pinned stack into .venv (torch CPU, transformers, mkdocs, ...)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  # hqq ships as an sdist whose setup.py also tries to build optional CUDA kernels (with os.system,
  # ignoring failure); its torch code paths need none of them, so skip the attempt.
  DISABLE_CUDA=1 .venv/bin/python -m pip install --quiet -r requirements/dev.txt -c requirements/constraints.txt
  .venv/bin/python -m pip install --quiet --no-deps -e .
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

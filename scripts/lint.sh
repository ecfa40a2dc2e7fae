#!/usr/bin/env bash
# The fast checks, as CI's `lint` job and the pre-commit hooks (.pre-commit-config.yaml) run them:
#   ruff        ruff check . (style, imports, bugbear, pyupgrade)
#   mypy        mypy --strict on errorkb/ (pyproject.toml [tool.mypy])
#   imports     the import contracts (pyproject.toml [tool.importlinter]): layers, one way
#   entries     errorkb check: every entry loads, renders within budget, no deception primitive
#   hook-index  errorkb hook index --check: the index the hook ships matches the entries
# With no argument, all of them (every one runs; the exit status says whether any failed).
#   bash scripts/lint.sh [ruff|mypy|imports|entries|hook-index]...
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash scripts/setup.sh

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(ruff mypy imports entries hook-index)
failed=()
for step in "${steps[@]}"; do
  echo "lint: $step"
  case "$step" in
    ruff) .venv/bin/ruff check . ;;
    mypy) .venv/bin/mypy ;;
    imports) .venv/bin/lint-imports --config pyproject.toml ;;
    entries) .venv/bin/errorkb check ;;
    hook-index) .venv/bin/errorkb hook index --check ;;
    *) echo "lint: unknown step '$step' (ruff, mypy, imports, entries, hook-index)" >&2; exit 2 ;;
  esac || failed+=("$step")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "lint: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "lint: all passed (${steps[*]})"

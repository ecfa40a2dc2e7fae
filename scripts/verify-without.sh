#!/usr/bin/env bash
# Verifies the snippets whose `requires:` names an older release of a package than .venv has: .venv
# has optimum-quanto 0.2.7 for the quantized-cache afters, so the before and guard that need
# `optimum-quanto<0.2.6` (quanto-version-too-old) are "not run" there. (A `without:` need no longer
# comes here: the sandbox hides the distribution from the check, `errorkb verify` runs it.)
#   1. a throwaway worktree of HEAD with a venv hard-linked from .venv (seconds, nothing copied) less
#      the package, the older release installed into it, and its transformers 5.15.1 environment;
#   2. `errorkb verify` of the entries, in the sandbox;
#   3. the report merged into reports/latest.json (per check; a record that ran beats a later one
#      that did not, so the afters measured with the newer release are kept).
#   bash scripts/verify-without.sh [DIST==VERSION ENTRY...]   (default: optimum-quanto==0.2.5 quanto-version-too-old)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
PIN=${1:-optimum-quanto==0.2.5}
if [ $# -gt 1 ]; then ENTRIES=("${@:2}"); else ENTRIES=(quanto-version-too-old); fi
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/tree" HEAD
.venv/bin/python - "$work/tree/.venv" "${PIN%%==*}" <<'EOF_PY'
import importlib.metadata, shutil, subprocess, sys, venv
from pathlib import Path
here = Path(".venv/lib/python3.11/site-packages").resolve()
folder, dist = Path(sys.argv[1]), sys.argv[2]
venv.EnvBuilder(symlinks=True, with_pip=False).create(folder)
there = folder / "lib/python3.11/site-packages"
shutil.rmtree(there)
subprocess.run(["cp", "-al", str(here), str(there)], check=True)  # unlinking below leaves .venv's files alone
found = importlib.metadata.distribution(dist)  # its files, as its RECORD lists them, gone from the copy
folders = set()
for file in found.files or []:
    (there / file).unlink(missing_ok=True)
    folders.update(parent for parent in (there / file).parents if there in parent.parents)
shutil.rmtree(there / found._path.name, ignore_errors=True)
for emptied in sorted(folders, key=lambda path: -len(path.parts)):  # no empty folder left: it would import
    shutil.rmtree(emptied / "__pycache__", ignore_errors=True)       # as a namespace package
    if emptied.is_dir() and not any(emptied.iterdir()):
        emptied.rmdir()
for script in Path(".venv/bin").iterdir():  # console scripts, pointed at the new interpreter
    target = folder / "bin" / script.name
    if not target.exists() and script.is_file() and script.read_bytes().startswith(b"#!") and \
            b"python" in script.read_bytes().split(b"\n", 1)[0]:
        target.write_text(f"#!{folder}/bin/python\n" + script.read_text().split("\n", 1)[1])
        target.chmod(0o755)
EOF_PY
"$repo/.venv/bin/python" -m pip --python "$work/tree/.venv/bin/python" install --quiet --no-deps "$PIN"
cd "$work/tree"
.venv/bin/errorkb matrix --environments-only --release 5.15.1
.venv/bin/errorkb verify "${ENTRIES[@]}" --device cpu --target bundled --target upstream --sandbox require --no-cache \
    --report "$work/older.json"
cd "$repo"
.venv/bin/errorkb report merge reports/latest.json "$work/older.json"

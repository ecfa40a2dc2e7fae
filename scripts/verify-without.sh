#!/usr/bin/env bash
# Verifies the snippets whose needs .venv cannot meet: it has hqq and optimum-quanto 0.2.7 installed
# for the quantized-cache entries, so the befores and guards that need them absent (`without:`) or
# older (`requires: optimum-quanto<0.2.6`) are "not run" there. This runs them where their needs hold:
#   1. a throwaway worktree of HEAD with a venv hard-linked from .venv (seconds, nothing copied) less
#      hqq and optimum-quanto, and its own transformers 5.15.1 environment (upstream) built on it;
#   2. `errorkb verify` of the entries that need a backend absent, in the sandbox;
#   3. optimum-quanto 0.2.5 installed into that venv, and the entries that need an older one;
#   4. both reports merged into reports/latest.json (per check; a record that ran beats a later one
#      that did not, so the afters measured with the backends installed are kept).
#   bash scripts/verify-without.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
ABSENT=(hqq-not-installed quanto-not-installed)
OLD_QUANTO=(quanto-version-too-old)
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/tree" HEAD
.venv/bin/python - "$work/tree/.venv" <<'EOF'
import shutil, subprocess, sys, venv
from pathlib import Path
here = Path(".venv/lib/python3.11/site-packages").resolve()
folder = Path(sys.argv[1])
venv.EnvBuilder(symlinks=True, with_pip=False).create(folder)
there = folder / "lib/python3.11/site-packages"
shutil.rmtree(there)
subprocess.run(["cp", "-al", str(here), str(there)], check=True)  # unlinking below leaves .venv's files alone
for name in ("hqq", "optimum/quanto"):
    shutil.rmtree(there / name)
for info in [*there.glob("hqq-*.dist-info"), *there.glob("optimum_quanto-*.dist-info")]:
    shutil.rmtree(info)
for script in Path(".venv/bin").iterdir():  # console scripts, pointed at the new interpreter
    target = folder / "bin" / script.name
    if not target.exists() and script.is_file() and script.read_bytes().startswith(b"#!") and \
            b"python" in script.read_bytes().split(b"\n", 1)[0]:
        target.write_text(f"#!{folder}/bin/python\n" + script.read_text().split("\n", 1)[1])
        target.chmod(0o755)
EOF
cd "$work/tree"
.venv/bin/python -c "import importlib.util as u; assert not u.find_spec('hqq') and not u.find_spec('optimum.quanto')"
.venv/bin/errorkb matrix --environments-only --release 5.15.1
verify() { .venv/bin/errorkb verify "$@" --device cpu --target bundled --target upstream --sandbox require --no-cache; }
verify "${ABSENT[@]}" --report "$work/absent.json"
"$repo/.venv/bin/python" -m pip --python .venv/bin/python install --quiet --no-deps optimum-quanto==0.2.5
verify "${OLD_QUANTO[@]}" --report "$work/old-quanto.json"
cd "$repo"
.venv/bin/errorkb report merge reports/latest.json "$work/absent.json" "$work/old-quanto.json"

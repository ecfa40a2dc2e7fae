#!/usr/bin/env bash
# Every CUDA check of the knowledge base, in one command, on a machine with an NVIDIA GPU:
#   bash scripts/gpu-check.sh
# 1. refuses (exit 2) unless nvidia-smi lists a GPU: CUDA checks elsewhere would only be "not run";
# 2. sets up .venv with the pinned stack (scripts/setup.sh) and makes sure its torch is the CUDA
#    build of torch 2.13.0 from PyPI (the constraints pin torch==2.13.0, which a local CPU build
#    "2.13.0+cpu" also satisfies; `torch===2.13.0` names the PyPI build alone);
#    or, with GPU_CHECK_WHEELS=DIR on a machine that reaches no package index, builds .venv-gpu over
#    the machine's own CUDA torch (GPU_CHECK_PYTHON's, default python3) from the wheels
#    scripts/gpu-wheels.sh put in DIR: the report then names that torch, whatever its version;
# 3. runs `errorkb verify --device cuda --target bundled --target upstream --sandbox require` (or
#    GPU_CHECK_SANDBOX's mode: `auto` where the sandbox cannot be made), writing
#    reports/cuda.json, then the tests whose behaviour depends on CUDA;
# 4. adds the machine (nvidia-smi, driver, torch, CUDA) to the report's environment.
# Everything runs within GPU_CHECK_BUDGET seconds (default 600). Exit 0 only when every CUDA
# check ran and passed and the tests passed; the report is written either way.
set -euo pipefail
cd "$(dirname "$0")/.."

budget=${GPU_CHECK_BUDGET:-600}
deadline=$(( $(date +%s) + budget ))
report=reports/cuda.json

refuse() {
  echo "gpu-check: REFUSED: $*" >&2
  echo "gpu-check: run this on a machine with an NVIDIA GPU and its driver; nothing was set up or run." >&2
  exit 2
}

left() {  # seconds left before the deadline (at least 1)
  local now
  now=$(date +%s)
  echo $(( deadline > now ? deadline - now : 1 ))
}

# -- 1. a GPU, or nothing ------------------------------------------------------------------------
command -v nvidia-smi >/dev/null 2>&1 || refuse "nvidia-smi is not installed (no NVIDIA driver on this machine)"
gpus=$(nvidia-smi -L 2>&1) || refuse "nvidia-smi failed: ${gpus:-no output}"
grep -q '^GPU [0-9]' <<<"$gpus" || refuse "nvidia-smi lists no GPU: ${gpus:-no output}"
echo "gpu-check: $gpus"

# -- 2. the CUDA stack ---------------------------------------------------------------------------
venv=.venv
cuda_build() { "$venv"/bin/python -c "import torch, sys; sys.exit(0 if torch.version.cuda else 1)"; }
if [ -n "${GPU_CHECK_WHEELS:-}" ]; then
  base=${GPU_CHECK_PYTHON:-python3}
  ls "$GPU_CHECK_WHEELS"/errorkb-*.whl >/dev/null 2>&1 \
    || refuse "GPU_CHECK_WHEELS=$GPU_CHECK_WHEELS holds no errorkb wheel (make it with: bash scripts/gpu-wheels.sh DIR)"
  "$base" -c "import torch, sys; sys.exit(0 if torch.version.cuda else 1)" \
    || refuse "GPU_CHECK_WHEELS needs a CUDA build of torch in $base (the machine's own); it has none"
  venv=.venv-gpu  # its own: the developer's .venv is never replaced
  echo "gpu-check: offline set-up: $venv over $base's torch, the rest from $GPU_CHECK_WHEELS"
  rm -rf "$venv"
  "$base" -m venv --without-pip "$venv"
  # it sees the machine's packages (its torch) after its own (the wheels), as a release's matrix environment does
  "$base" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
    > "$(echo "$venv"/lib/python3*/site-packages)/_errorkb_base.pth"
  timeout "$(left)" "$base" -m pip --python "$venv"/bin/python install --quiet --no-index --no-deps \
    --disable-pip-version-check "$GPU_CHECK_WHEELS"/*.whl
else
  timeout "$(left)" bash scripts/setup.sh
fi
if ! cuda_build && [ -z "${GPU_CHECK_WHEELS:-}" ]; then
  echo "gpu-check: $venv has a CPU build of torch; installing the CUDA build of torch 2.13.0 from PyPI"
  timeout "$(left)" $venv/bin/python -m pip install --quiet --force-reinstall "torch===2.13.0" \
    -c requirements/constraints.txt
fi
cuda_build || refuse "torch in $venv is not a CUDA build: $($venv/bin/python -c 'import torch; print(torch.__version__)')"
$venv/bin/python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" \
  || refuse "torch $($venv/bin/python -c 'import torch; print(torch.__version__)') sees no usable CUDA device"

# -- 3. every CUDA check, then the CUDA tests ----------------------------------------------------
status=0
mkdir -p reports
export NO_MKDOCS_2_WARNING=1
# The CUDA tests keep their share (GPU_CHECK_TEST_SECONDS, default 120): a verify run stopped by its
# limit still writes the checks that finished, but tests never started would say nothing.
test_seconds=${GPU_CHECK_TEST_SECONDS:-120}
verify_seconds=$(( $(left) > test_seconds + 60 ? $(left) - test_seconds : $(left) ))
timeout "$verify_seconds" $venv/bin/errorkb verify --device cuda --target bundled --target upstream \
  --sandbox "${GPU_CHECK_SANDBOX:-require}" \
  --jobs "${GPU_CHECK_JOBS:-4}" --report "$report" || status=1
timeout "$(left)" $venv/bin/python -m pytest -q -k cuda \
  tests/kvcache/test_kvcache_behaviour.py tests/kvcache/test_kvcache_raise_sites.py || status=1

# -- 4. the machine, in the report ---------------------------------------------------------------
if [ -f "$report" ]; then
  NVIDIA_SMI="$(nvidia-smi 2>&1 || true)" \
  NVIDIA_QUERY="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true)" \
  $venv/bin/python - "$report" <<'PY' || status=1
import json, os, sys
import torch
from errorkb.plugs import runtime_for
from errorkb.plugs.torch import C_FUNCTIONS

touched = runtime_for("torch").device_touched()  # by the import alone: a zygote then cannot fork CUDA checks
path = sys.argv[1]
data = json.load(open(path, encoding="utf-8"))
name, driver, memory = ([part.strip() for part in os.environ["NVIDIA_QUERY"].splitlines()[0].split(",")] + ["", "", ""])[:3]
data["environment"]["gpu_check"] = {
    "nvidia_smi": os.environ["NVIDIA_SMI"], "gpu": name, "driver": driver, "memory": memory,
    "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
    "device_name": torch.cuda.get_device_name(0), "device_count": torch.cuda.device_count(),
}
# Whether the observer can read CUDA's allocation counter with this torch (a CUDA after counts only then):
# the C functions it reads, and the probe the torch plug makes of them, here in the harness's process.
data["environment"]["gpu_check"]["device_probe"] = {
    "functions": {name: type(getattr(torch._C, name, None)).__name__ for name in C_FUNCTIONS},
    "made": runtime_for("torch").device_probe(torch, "cuda") is not None,
    "touched_by_import": touched,
}
tmp = path + ".tmp"
with open(tmp, "w", encoding="utf-8") as out:
    json.dump(data, out, indent=1)
    out.write("\n")
os.replace(tmp, path)
cuda = [c for c in data["checks"] if c["device"] == "cuda"]
ran = [c for c in cuda if c["outcome"] != "not-run"]
failed = [c["id"] for c in cuda if c["outcome"] == "fail"]
print(f"gpu-check: {len(ran)} of {len(cuda)} CUDA checks ran, {len(failed)} failed; report: {path}")
for reason in sorted({c["reason"] for c in cuda if c["outcome"] == "not-run"}):
    print(f"gpu-check: not run: {reason}")
sys.exit(0 if ran and not failed else 1)
PY
else
  echo "gpu-check: no report was written ($report)" >&2
  status=1
fi
exit "$status"

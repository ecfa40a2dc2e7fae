set -u
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
start=$(date +%s); el() { echo "[$(( $(date +%s) - start )) s]"; }
export PATH=$PWD/.gpu/bin:$PATH
log=$OUT/run2.log
{
python3 -m venv --without-pip .venv
python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$(echo .venv/lib/python3*/site-packages)/_errorkb_base.pth"
python3 -m pip --python .venv/bin/python install --quiet --no-index --no-deps --disable-pip-version-check .gpu/whl/*.whl
el; echo "== one check, sandbox require"
time timeout 45 .venv/bin/errorkb verify from-legacy-cache-removed --device cuda --target bundled --jobs 1 --sandbox require --report /tmp/one.json
el; echo "== the same, sandbox off"
time timeout 30 .venv/bin/errorkb verify from-legacy-cache-removed --device cuda --target bundled --jobs 1 --sandbox off --no-cache --report /tmp/two.json
el
for k in 1 2 3 4 5 6 7 8; do
  left=$(( 225 - ($(date +%s) - start) )); [ "$left" -gt 15 ] || break
  echo "== shard $k/8 ($left s left)"
  timeout "$left" .venv/bin/errorkb verify --device cuda --target bundled --target upstream --sandbox require \
    --jobs 14 --shard "$k/8" --report reports/cuda.json 2>&1 | tail -3
  el
done
} > "$log" 2>&1
if [ -f reports/cuda.json ]; then
  NVIDIA_SMI="$(nvidia-smi 2>&1)" NVIDIA_QUERY="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)" \
  .venv/bin/python - reports/cuda.json >> "$log" 2>&1 <<'PY'
import json, os, sys
import torch
path = sys.argv[1]
data = json.load(open(path, encoding="utf-8"))
name, driver, memory = ([p.strip() for p in os.environ["NVIDIA_QUERY"].splitlines()[0].split(",")] + ["", "", ""])[:3]
data["environment"]["gpu_check"] = {"nvidia_smi": os.environ["NVIDIA_SMI"], "gpu": name, "driver": driver, "memory": memory,
    "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
    "device_name": torch.cuda.get_device_name(0), "device_count": torch.cuda.device_count()}
json.dump(data, open(path, "w", encoding="utf-8"), indent=1)
print("gpu_check environment added")
PY
  cp reports/cuda.json "$OUT/cuda.json"
fi

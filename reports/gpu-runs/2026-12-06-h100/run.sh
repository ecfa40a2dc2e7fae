# One device call: the probe's facts on this torch, then scripts/gpu-check.sh offline (wheels in .gpu/whl,
# bubblewrap in .gpu/bin), everything to $OUT.
set -u
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1 PATH=$PWD/.gpu/bin:$PATH
start=$(date +%s)
{ date -u; nvidia-smi -L; nproc; python3 -V; bwrap --version
  PYTHONPATH=$PWD timeout 90 python3 .gpu/diag.py; echo "diag exit $? after $(( $(date +%s) - start )) s"
} > "$OUT/diag.log" 2>&1
GPU_CHECK_WHEELS=.gpu/whl GPU_CHECK_BUDGET=${BUDGET:-420} GPU_CHECK_JOBS=${JOBS:-12} GPU_CHECK_TEST_SECONDS=100 \
  bash scripts/gpu-check.sh > "$OUT/gpu-check.log" 2>&1
echo "gpu-check exit $? after $(( $(date +%s) - start )) s" >> "$OUT/gpu-check.log"
cp reports/cuda.json "$OUT/cuda.json" 2>/dev/null
# the verdict cache, so a later call can go on where this one stopped
[ -d .errorkb-cache/verify ] && tar czf "$OUT/verify-cache.tgz" .errorkb-cache/verify
ls -la "$OUT"

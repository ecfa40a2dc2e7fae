# One device call: what the machine is, every CUDA check (scripts/gpu-check.sh, offline), then the
# verifier's own observer/judge/adversarial tests under this machine's Python (3.12), all to $OUT.
set -u
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
start=$(date +%s)
{
  date -u; uname -a; head -2 /etc/os-release; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  which python3; python3 -V; python3 -m pip --version
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda, torch.cuda.is_available())"
  echo "-- libcuda"; ldconfig -p | grep -E "libcuda\.so|libnvidia-ml\.so"; echo "-- mounts"; mount | grep -E "cgroup|nvidia|/usr"
  echo "-- cgroup"; cat /proc/self/cgroup; ls /sys/fs/cgroup | head -30; cat /sys/fs/cgroup/cgroup.subtree_control 2>&1
  ls -la /dev/nvidia* ; cat /proc/sys/user/max_user_namespaces; nproc; free -g
  echo "-- bwrap"; which bwrap
} > "$OUT/probe.log" 2>&1
if ! command -v bwrap >/dev/null; then
  export PATH=$PWD/.gpu/bin:$PATH
  if ldd .gpu/bin/bwrap | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
fi
{ ldd "$(command -v bwrap)"; bwrap --version; bwrap --ro-bind / / --unshare-all --unshare-user -- true && echo "bwrap: plain sandbox ok"; } >> "$OUT/probe.log" 2>&1
GPU_CHECK_WHEELS=.gpu/whl GPU_CHECK_BUDGET=300 GPU_CHECK_JOBS=8 bash scripts/gpu-check.sh > "$OUT/gpu-check.log" 2>&1
echo "gpu-check exit $? after $(( $(date +%s) - start )) s" >> "$OUT/gpu-check.log"
if [ ! -f reports/cuda.json ] && grep -q "sandbox cannot be created" "$OUT/gpu-check.log"; then
  echo "== the sandbox cannot be made here: again with --sandbox auto (each check's isolation is in the report)" >> "$OUT/gpu-check.log"
  GPU_CHECK_SANDBOX=auto GPU_CHECK_WHEELS=.gpu/whl GPU_CHECK_BUDGET=150 GPU_CHECK_JOBS=8 bash scripts/gpu-check.sh >> "$OUT/gpu-check.log" 2>&1
  echo "gpu-check (auto) exit $? after $(( $(date +%s) - start )) s" >> "$OUT/gpu-check.log"
fi
cp reports/cuda.json "$OUT/cuda.json" 2>/dev/null
left=$(( 530 - ($(date +%s) - start) ))
if [ -x .venv/bin/python ] && [ "$left" -gt 60 ]; then
  ERRORKB_SANDBOX=${ERRORKB_SANDBOX_TESTS:-require} timeout "$left" .venv/bin/python -m pytest -q -p no:cacheprovider \
    -n 12 --dist loadgroup -k "not subprocess" tests/verify/test_adversarial_judging.py tests/verify/test_observer.py \
    tests/verify/test_judge_exception_type.py tests/verify/test_judge_raise_site.py tests/verify/test_judge_getattr_protocol.py > "$OUT/py312-tests.log" 2>&1
  echo "tests exit $? after $(( $(date +%s) - start )) s" >> "$OUT/py312-tests.log"
fi

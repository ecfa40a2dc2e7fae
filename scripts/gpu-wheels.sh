#!/usr/bin/env bash
# The wheels scripts/gpu-check.sh installs on a GPU machine that reaches no package index
# (an air-gapped runner, a rented GPU box): run it here, carry DIR there, then
#   GPU_CHECK_WHEELS=DIR bash scripts/gpu-check.sh
#   bash scripts/gpu-wheels.sh DIR [PYTHON_VERSION]     # PYTHON_VERSION: the GPU machine's, default 3.12
# DIR gets errorkb and this repository's knowledge base (built from the checkout), and what
# `errorkb verify`, the library's pinned release and the CUDA tests import, at the versions
# requirements/constraints.txt pins, for that Python on manylinux x86-64. Not torch: the GPU
# machine's own CUDA build is used, and the report names it.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:?usage: bash scripts/gpu-wheels.sh DIR [PYTHON_VERSION]}
version=${2:-3.12}
mkdir -p "$dir"
wanted=(pydantic pydantic_core annotated-types typing-inspection typing_extensions PyYAML packaging shtab
        transformers tokenizers huggingface_hub safetensors regex
        pytest pluggy iniconfig pytest-timeout pytest-xdist execnet hypothesis sortedcontainers)
pins=()
for name in "${wanted[@]}"; do
  pin=$(grep -i -m1 "^${name}==" requirements/constraints.txt) || { echo "gpu-wheels: $name is not pinned in requirements/constraints.txt" >&2; exit 1; }
  pins+=("$pin")
done
platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$tag")
done
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version "$version" --implementation cp \
  "${platforms[@]}" -d "$dir" "${pins[@]}"
PYTHON=${PYTHON:-.venv/bin/python}
"$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation -w "$dir" . ./transformers_errorkb
echo "gpu-wheels: $(ls "$dir"/*.whl | wc -l) wheels ($(du -sh "$dir" | cut -f1)) in $dir for Python $version"

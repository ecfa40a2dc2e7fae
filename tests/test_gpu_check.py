"""scripts/gpu-check.sh refuses loudly, before setting anything up, on a machine without an
NVIDIA GPU, and on a GPU machine without a package index, before touching .venv, unless the wheels
and a CUDA torch are there. (Its GPU path, set-up, CUDA checks and report, needs a GPU machine: not
tested here; docs/ci.md says what ran on one.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_script(tmp_path: Path, fake_nvidia_smi: str | None, **extra: str) -> subprocess.CompletedProcess:
    """The script from a copy of scripts/ in an empty folder (so a refusal that failed to stop
    could set up nothing), with PATH holding only the system's tools and the fake nvidia-smi."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "gpu-check.sh", tmp_path / "scripts" / "gpu-check.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if fake_nvidia_smi is not None:
        fake = bin_dir / "nvidia-smi"
        fake.write_text("#!/bin/sh\n" + fake_nvidia_smi + "\n")
        fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", **extra}
    return subprocess.run(["bash", str(tmp_path / "scripts" / "gpu-check.sh")], capture_output=True, text=True,
                          env=env, timeout=60)


@pytest.mark.parametrize("fake, why", [
    (None, "nvidia-smi is not installed"),
    ("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'; exit 9",
     "nvidia-smi failed: NVIDIA-SMI has failed"),
    ("echo 'No devices were found'; exit 0", "nvidia-smi lists no GPU: No devices were found"),
])
def test_refuses_without_a_gpu_and_touches_nothing(tmp_path, fake, why):
    if fake is None and shutil.which("nvidia-smi", path="/usr/bin:/bin"):
        pytest.skip("this machine has nvidia-smi")
    result = run_script(tmp_path, fake)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"gpu-check: REFUSED: {why}" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "scripts"]  # no .venv, no reports/


GPU = "echo 'GPU 0: NVIDIA H200 (UUID: GPU-0)'"


def test_offline_refuses_without_the_wheels_and_touches_nothing(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    result = run_script(tmp_path, GPU, GPU_CHECK_WHEELS=str(wheels))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"gpu-check: REFUSED: GPU_CHECK_WHEELS={wheels} holds no errorkb wheel" in result.stderr
    assert "scripts/gpu-wheels.sh" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "scripts", "wheels"]


def test_offline_refuses_a_python_without_a_cuda_torch(tmp_path):
    """Here torch is the CPU build: the machine's own torch must be a CUDA build, or nothing is set up."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "errorkb-0-py3-none-any.whl").write_bytes(b"")
    python = str(ROOT / ".venv" / "bin" / "python")
    cuda = subprocess.run([python, "-c", "import torch; print(torch.version.cuda or '')"], capture_output=True,
                          text=True, timeout=120)
    if cuda.stdout.strip():
        pytest.skip("this machine's torch is a CUDA build")
    result = run_script(tmp_path, GPU, GPU_CHECK_WHEELS=str(wheels), GPU_CHECK_PYTHON=python)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"gpu-check: REFUSED: GPU_CHECK_WHEELS needs a CUDA build of torch in {python}" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "scripts", "wheels"]

"""scripts/gpu-check.sh refuses loudly, before setting anything up, on a machine without an
NVIDIA GPU. (Its GPU path, set-up, CUDA checks and report, needs a GPU machine: not tested here.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_script(tmp_path: Path, fake_nvidia_smi: str | None) -> subprocess.CompletedProcess:
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
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
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

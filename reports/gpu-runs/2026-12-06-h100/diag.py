"""What this machine's torch offers the CUDA probe, read before and after CUDA starts (one process)."""
import time

import torch

from errorkb.plugs import runtime_for
from errorkb.plugs.torch import C_FUNCTIONS
from errorkb.verify.inside import observer

C = torch._C
print("torch", torch.__version__, "cuda", torch.version.cuda)
for name in (*C_FUNCTIONS, "_cuda_isInitialized"):
    print(f"  torch._C.{name}: {type(getattr(C, name, None)).__name__}")
started = time.perf_counter()
plug = runtime_for("torch")
probe = plug.device_probe(torch, "cuda")
print("probe made:", probe is not None, f"({time.perf_counter() - started:.2f} s)")


def reading():
    observer._S["probe"] = probe
    return observer._p_probe()


print("before CUDA starts: context", C._cuda_hasPrimaryContext(0), "probe reads", reading())
try:
    print("  raw read:", C._cuda_memoryStats(0)["allocated_bytes"]["all"])
except Exception as error:
    print("  raw read raises:", type(error).__name__, str(error)[:120])
started = time.perf_counter()
torch.cuda.init()
print(f"after torch.cuda.init() ({time.perf_counter() - started:.2f} s): context", C._cuda_hasPrimaryContext(0),
      "probe reads", reading())
started = time.perf_counter()
x = torch.ones(1 << 20, device="cuda")
print(f"after a 4 MiB tensor ({time.perf_counter() - started:.2f} s): context", C._cuda_hasPrimaryContext(0),
      "probe reads", reading())

"""Bundled cache (transformers_errorkb.kvcache) vs transformers.cache_utils, side by side, on CPU.

Prints import times (fresh interpreters, median of several) and update / crop / reorder
throughput of both implementations, each with a ratio oriented so that > 1 means the bundled
package is faster (upstream time / bundled time, bundled rate / upstream rate).

    .venv/bin/python benchmarks/cache_ops.py [--repeats 7] [--import-repeats 7]

Import time is reported for a cold interpreter (torch included, which both need) and with torch
already imported (the cost of the package itself), each in wall and CPU seconds. Throughput is
measured in CPU time of a single-threaded process, in rounds that alternate between the two
implementations so that machine load affects both alike; the median round is reported.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # run from a checkout without installing its knowledge base

IMPORTS = {
    "bundled": "transformers_errorkb.kvcache",
    "upstream": "transformers.cache_utils",
}


def import_seconds(module: str, preload_torch: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of `import module` in a fresh interpreter, optionally after `import torch`.

    CPU time is reported too because on a shared machine wall time mostly measures the neighbours.
    """
    code = (
        ("import torch\n" if preload_torch else "")
        + "import time, warnings\nwarnings.simplefilter('ignore')\n"
        + "t, c = time.perf_counter(), time.process_time()\n"
        + f"import {module}\n"
        + "print(time.perf_counter() - t, time.process_time() - c)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def median_import(module: str, preload_torch: bool, repeats: int) -> tuple[float, float]:
    runs = [import_seconds(module, preload_torch) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


# --- throughput ------------------------------------------------------------------------------------


def load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "bundled":
            import transformers_errorkb.kvcache as top
        else:
            import transformers as top

            top.logging.set_verbosity_error()
    return top


LAYERS, BATCH, HEADS, HEAD_DIM, PREFILL, DECODE = 8, 2, 8, 64, 64, 192


def config(top):
    return top.LlamaConfig(
        num_hidden_layers=LAYERS, hidden_size=HEADS * HEAD_DIM, num_attention_heads=HEADS, num_key_value_heads=HEADS
    )


def states(torch, length):
    return torch.randn(BATCH, HEADS, length, HEAD_DIM)


def _generate(cache, torch):
    """One generation: a prefill then single-token decode steps through every layer."""
    prefill, step = states(torch, PREFILL), states(torch, 1)
    start = time.process_time()
    for layer in range(LAYERS):
        cache.update(prefill, prefill, layer)
    for _ in range(DECODE):
        for layer in range(LAYERS):
            cache.update(step, step, layer)
    return LAYERS * (DECODE + 1), time.process_time() - start


def bench_dynamic_update(top, torch):
    return _generate(top.DynamicCache(config=config(top)), torch)


def bench_static_update(top, torch):
    return _generate(top.StaticCache(config=config(top), max_cache_len=PREFILL + DECODE), torch)


def _filled_cache(top, torch):
    cache = top.DynamicCache(config=config(top))
    prefill = states(torch, PREFILL + DECODE)
    for layer in range(LAYERS):
        cache.update(prefill, prefill, layer)
    return cache


def bench_crop(top, torch):
    """Speculative-decoding style rollbacks: remove one token at a time."""
    cache = _filled_cache(top, torch)
    calls = DECODE
    start = time.process_time()
    for _ in range(calls):
        cache.crop(-1)
    return calls, time.process_time() - start


def bench_reorder(top, torch):
    """Beam search: reorder the batch rows of every layer."""
    cache = _filled_cache(top, torch)
    beams = torch.tensor([1, 0])
    calls = 200
    start = time.process_time()
    for _ in range(calls):
        cache.reorder_cache(beams)
    return calls, time.process_time() - start


BENCHMARKS = {
    "DynamicCache.update": bench_dynamic_update,
    "StaticCache.update": bench_static_update,
    "DynamicCache.crop": bench_crop,
    "DynamicCache.reorder_cache": bench_reorder,
}


def throughput(repeats: int) -> dict[str, dict[str, float]]:
    """Calls per second, median over `repeats` rounds that alternate implementations."""
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)  # steadier on a shared machine; both sides alike
    tops = {name: load(name) for name in IMPORTS}
    rates: dict[str, dict[str, list[float]]] = {bench: {name: [] for name in tops} for bench in BENCHMARKS}
    for bench, fn in BENCHMARKS.items():
        for top in tops.values():  # warm-up (lazy imports, allocator)
            fn(top, torch)
        for _ in range(repeats):
            for name, top in tops.items():
                calls, seconds = fn(top, torch)
                rates[bench][name].append(calls / seconds)
    return {bench: {name: statistics.median(values) for name, values in per.items()} for bench, per in rates.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="throughput rounds per implementation")
    parser.add_argument("--import-repeats", type=int, default=7, help="fresh interpreters per import measurement")
    args = parser.parse_args(argv)

    import torch

    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, CPU only, {args.import_repeats} import runs, "
          f"{args.repeats} throughput rounds")
    print()
    print(f"{'import (median, s)':40} {'bundled':>10} {'upstream':>10} {'upstream/bundled':>18}")
    for label, preload in (("cold, torch included", False), ("incremental, torch preloaded", True)):
        ours = median_import(IMPORTS["bundled"], preload, args.import_repeats)
        theirs = median_import(IMPORTS["upstream"], preload, args.import_repeats)
        for clock, index in (("wall", 0), ("CPU", 1)):
            name = f"{label}, {clock}"
            print(f"{name:40} {ours[index]:10.4f} {theirs[index]:10.4f} {theirs[index] / ours[index]:17.1f}x")
    print()
    print(f"{'throughput (median, calls per CPU s)':40} {'bundled':>10} {'upstream':>10} {'bundled/upstream':>18}")
    for bench, rate in throughput(args.repeats).items():
        print(f"{bench:40} {rate['bundled']:10.0f} {rate['upstream']:10.0f} {rate['bundled'] / rate['upstream']:17.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

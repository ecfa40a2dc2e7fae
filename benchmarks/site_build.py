"""How much does generating pages through the plugin cost, and how fast is a lookup?

Generates a synthetic knowledge base of N entries (default 1,000: YAML, three snippet files
each, a verification report), then prints side by side, in one run:

- `mkdocs build` through the errorkb plugin (load YAML, read reports, render, build), against
  `mkdocs build` of the same pages already written as Markdown (`errorkb render --out`), with the
  same theme, extensions and nav. Goal: plugin ≤ 1.25× pre-written.
- one lookup (a pasted `ValueError: ...` message, and a whole traceback) against all N
  templates, in Python (`errorkb lookup`'s matcher) and, when Node is at hand, in the page's
  JavaScript. Goal: < 5 ms. Also the worst case where every template shares its fixed text,
  so the substring pre-filter rules nothing out.

With `--real`, the repository's own knowledge base (its entries, snippets, reports and version
matrix) instead of a synthetic one: the figure to compare across commits (issue 23: the render
budget and the escaping must not make the real build slower).

    .venv/bin/python benchmarks/site_build.py [--entries 1000] [--repeat 3]
    .venv/bin/python benchmarks/site_build.py --real [--repeat 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ["cache", "layer", "tensor", "shape", "batch", "device", "dtype", "sequence", "window", "offset", "index", "length", "mask", "head", "value", "key", "position", "token", "buffer", "capacity", "slot", "prefix", "quantized", "sliding", "static", "dynamic", "offloaded", "encoder", "decoder", "beam", "chunk", "stream", "rotary", "state", "config", "export", "compile"]
EXCEPTIONS = ("ValueError", "IndexError", "RuntimeError", "TypeError", "NotImplementedError", "KeyError")
CLASSES = ("Cache", "DynamicCache", "StaticCache", "DynamicLayer", "StaticLayer", "QuantizedCache",
           "EncoderDecoderCache", "SlidingWindowLayer", "OffloadedCache", "HybridCache")
METHODS = ("update", "get_seq_length", "early_initialization", "crop", "reorder_cache", "lazy_initialization",
           "batch_repeat_interleave", "get_mask_sizes", "reset", "__init__")
COMMIT = "a597f974857b3d92939971296bc0deb93d33d780"



def library_profile() -> str:
    """The knowledge base's `[tool.errorkb.library]` table, as the project's pyproject.toml states it."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r"(?ms)^\[tool\.errorkb\.library\]\n.*?(?=^\[|\Z)", text)
    assert found, "pyproject.toml has no [tool.errorkb.library]"
    return found.group()

def message_for(rng: random.Random, index: int, shared: bool = False) -> str:
    if shared:  # worst case for the pre-filter: every template shares its longest fixed piece
        return f"`value` was provided as a list of length {{n}}, but cache_{index} currently has {{m}} layers"
    words = rng.sample(WORDS, 6)
    return (f"`{words[0]}_{index}` {words[1]} {words[2]} {{{words[3]}}} but the {words[4]} has "
            f"{{len(self.{words[5]})}} entries")


def entry_yaml(index: int, rng: random.Random) -> tuple[str, str]:
    entry_id = f"synthetic-error-{index:04d}"
    message = message_for(rng, index).replace('"', '\\"')
    owner, method = rng.choice(CLASSES), rng.choice(METHODS)
    related = f"synthetic-error-{(index + 1) % N_ENTRIES:04d}"
    text = f"""id: {entry_id}
title: "Synthetic error {index}: {rng.choice(WORDS)} {rng.choice(WORDS)} does not fit"
library: huggingface/transformers
exception: {rng.choice(EXCEPTIONS)}
message: "{message}"
tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}-{rng.choice(WORDS)}]
source:
  commit: {COMMIT}
  path: src/transformers/cache_utils.py
  line: {100 + index % 1500}
  function: {owner}.{method}
  release: 5.15.1
meaning: |
  `{owner}.{method}()` checks its arguments before it touches any layer. This error means the
  {rng.choice(WORDS)} you passed does not fit the {rng.choice(WORDS)} the cache holds, so nothing was changed.
  A second paragraph, as real entries have, with `code` and **emphasis**.
trigger: |
  Calling `cache.{method}(...)` with a {rng.choice(WORDS)} that does not match `len(cache.layers)`.
situations:
  - Code copied from a smaller test model and reused with the full model.
  - A config read from a different checkpoint than the cache was built from.
  - Hybrid models whose cache has fewer layers than `num_hidden_layers`.
solutions:
  - title: Pass one value for every layer
    body: |
      Build per-layer lists from `len(cache.layers)`, so they follow the cache.
  - title: Rebuild the cache from the same config
prevention:
  - Derive every per-layer argument from the cache itself.
  - Check lengths before the call in code that builds caches dynamically.
before: before.py
after: after.py
guards:
  - title: Validate before calling
    strategy: validation
    file: guard_validate.py
    expect:
      outcome: passes
related:
  - {related}
notes: |
  Introduced in transformers 5.{index % 15}.0; still present in 5.24.0.
"""
    return entry_id, text


SNIPPET = '''"""Synthetic snippet {n} for {entry_id}."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=12)
cache = DynamicCache(config=config)

# --8<-- [start:show]
cache.early_initialization(batch_size=2, num_heads=8, head_dim={value}, dtype=torch.float32, device="cpu")
# --8<-- [end:show]
'''


def make_kb(folder: Path, entries: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    entry_dir = folder / "docs" / "errors" / "transformers"
    entry_dir.mkdir(parents=True)
    (folder / "reports").mkdir()
    (folder / "pyproject.toml").write_text('[tool.errorkb]\nentries = "docs/errors"\nsnippets = "snippets"\n'
                                           'reports = "reports"\n\n' + library_profile())
    checks = []
    for index in range(entries):
        entry_id, text = entry_yaml(index, rng)
        (entry_dir / f"{entry_id}.yml").write_text(text)
        snippets = folder / "snippets" / entry_id
        snippets.mkdir(parents=True)
        for n, (role, file) in enumerate([("before", "before.py"), ("after", "after.py"),
                                          ("guard:guard_validate", "guard_validate.py")]):
            body = SNIPPET.format(n=n, entry_id=entry_id, value=[128, 128] if role == "before" else 128)
            (snippets / file).write_text(body)
            checks.append({"id": f"{entry_id}::{role}[bundled-cpu]", "entry": entry_id, "role": role,
                           "snippet": f"snippets/{entry_id}/{file}",
                           "snippet_sha256": hashlib.sha256(body.encode()).hexdigest(), "target": "bundled",
                           "device": "cpu", "outcome": "pass", "code": "ran-clean" if role != "before"
                           else "raised-as-documented", "reason": "ok", "expected": "as documented",
                           "verified_at": "2026-11-30T10:00:00+00:00",
                           "exception": {"type": "ValueError", "message": "synthetic",
                                         "traceback": "Traceback (most recent call last):\nValueError: synthetic\n"}
                           if role == "before" else None,
                           "environment": {"python": "3.11.7", "runtime": "torch", "runtime_version": "2.13.0+cpu"}})
    (folder / "reports" / "latest.json").write_text(json.dumps({
        "schema": 2, "verifier": "2", "created": "2026-11-30T10:00:00+00:00",
        "environment": {"python": "3.11.7", "runtime": "torch"}, "targets": {"bundled": "synthetic"},
        "checks": checks}))
    for page in ("index.md", "tags.md", "api.md"):
        shutil.copy(ROOT / "docs" / page, folder / "docs" / page)
    shutil.copytree(ROOT / "overrides", folder / "overrides")


def copy_real_kb(folder: Path) -> int:
    """The repository's knowledge base and site, as they are; returns the number of entries."""
    for name in ("docs", "snippets", "reports", "overrides"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    return sum(1 for _ in (folder / "docs" / "errors").glob("*/*.yml"))


def site_configs(folder: Path) -> tuple[Path, Path]:
    """mkdocs.yml through the plugin, and the same site over pre-written Markdown."""
    from errorkb.site import files as site

    base = (ROOT / "mkdocs.yml").read_text()
    plugin = folder / "mkdocs.yml"
    plugin.write_text(base)
    # The same site with no errorkb plugin: its pages, JSON and assets are files in docs_md/,
    # entry pages are kept out of the nav as the plugin keeps them, the same CSS/JS are listed.
    prewritten = re.sub(r"(?m)^  - errorkb\b[^\n]*\n(?:    [^\n]*\n)*", "", base)  # with its options
    prewritten += "\ndocs_dir: docs_md\nnot_in_nav: |\n  /errors/transformers/\n"
    prewritten += "extra_css:\n" + "".join(f"  - {p}\n" for p in site.STYLES)
    prewritten += "extra_javascript:\n" + "".join(f"  - {p}\n" for p in site.SCRIPTS)
    markdown = folder / "mkdocs-prewritten.yml"
    markdown.write_text(prewritten)
    return plugin, markdown


def timed_build(config: Path, site_dir: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `mkdocs build` process. CPU time is what the build
    costs; wall time also counts waiting for a busy machine's cores."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(site_dir)],
                            capture_output=True, text=True, env=env, cwd=config.parent)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"build failed ({config.name}):\n{result.stderr[-3000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def time_lookup(entries: int, repeat: int = 300) -> dict[str, float]:
    from errorkb.lookup import Known, Lookup

    rng = random.Random(5)
    results = {}
    for label, shared in (("varied templates", False), ("worst case: shared longest piece", True)):
        known = [Known(f"e{i}", f"t{i}", "ValueError", message_for(rng, i, shared)) for i in range(entries)]
        lookup = Lookup(known)
        template = known[entries // 2].message
        message = "ValueError: " + re.sub(r"\{[^{}]*\}", "42", template)
        traceback = ("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n"
                     "    cache.update(k, v, layer_idx)\n" + message + "\n")
        for kind, text in (("message", message), ("traceback", traceback)):
            found = lookup.find(text)
            assert found and found[0].known.id == known[entries // 2].id, "lookup found the wrong entry"
            samples = []
            for _ in range(repeat):
                start = time.perf_counter()
                lookup.find(text)
                samples.append(time.perf_counter() - start)
            results[f"python, {label}, {kind}"] = statistics.median(samples) * 1000
        results.update(_time_js(known, message, traceback, label))
    return results


def _time_js(known, message: str, traceback: str, label: str) -> dict[str, float]:
    try:
        import playwright
    except ImportError:
        return {}
    node = Path(playwright.__file__).parent / "driver" / "node"
    if not node.exists():
        return {}
    script = """
      const L = require(process.argv[1]);
      const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const lookup = new L.Lookup(data.entries);
      const out = {};
      for (const [kind, text] of Object.entries(data.texts)) {
        for (let i = 0; i < 50; i++) lookup.find(text);  // warm the JIT
        const samples = [];
        for (let i = 0; i < 300; i++) { const t = process.hrtime.bigint(); lookup.find(text);
          samples.push(Number(process.hrtime.bigint() - t) / 1e6); }
        samples.sort((a, b) => a - b); out[kind] = samples[150];
      }
      console.log(JSON.stringify(out));"""
    entries = [{"id": k.id, "title": k.title, "exception": k.exception, "message": k.message} for k in known]
    result = subprocess.run([str(node), "-e", script, str(ROOT / "errorkb" / "site" / "assets" / "lookup.js")],
                            input=json.dumps({"entries": entries, "texts": {"message": message, "traceback": traceback}}),
                            capture_output=True, text=True)
    if result.returncode != 0:
        return {}
    return {f"javascript, {label}, {kind}": ms for kind, ms in json.loads(result.stdout).items()}


N_ENTRIES = 1000


def main() -> int:
    global N_ENTRIES
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="builds of each kind (alternating)")
    parser.add_argument("--keep", type=Path, default=None, help="build the KB here and keep it")
    parser.add_argument("--real", action="store_true", help="the repository's own knowledge base, not a synthetic one")
    args = parser.parse_args()
    N_ENTRIES = args.entries

    folder = Path(tempfile.mkdtemp(prefix="errorkb-bench-")) if args.keep is None else args.keep
    try:
        start = time.perf_counter()
        if args.real:
            N_ENTRIES = copy_real_kb(folder)
            shutil.copytree(folder / "docs", folder / "docs_md")  # its hand-written pages and the entries' YAML
        else:
            make_kb(folder, args.entries)
        plugin_config, prewritten_config = site_configs(folder)
        render = subprocess.run([sys.executable, "-m", "errorkb.cli", "--root", str(folder), "render", "--out",
                                 str(folder / "docs_md")], capture_output=True, text=True)
        if render.returncode != 0:
            raise SystemExit(f"errorkb render failed:\n{render.stderr[-3000:]}")
        if args.real:
            print(f"the repository's knowledge base: {N_ENTRIES} entries ({time.perf_counter() - start:.1f} s to copy)")
        else:
            for page in ("index.md", "tags.md", "api.md"):
                shutil.copy(folder / "docs" / page, folder / "docs_md" / page)
            print(f"synthetic knowledge base: {args.entries} entries, {3 * args.entries} snippets, "
                  f"one report ({time.perf_counter() - start:.1f} s to generate)")

        plugin_times, prewritten_times = [], []
        for _ in range(args.repeat):  # alternate, so drift in machine load hits both alike
            plugin_times.append(timed_build(plugin_config, folder / "site-plugin"))
            prewritten_times.append(timed_build(prewritten_config, folder / "site-prewritten"))
        pages = sum(1 for _ in (folder / "site-plugin").rglob("index.html"))
        same = sum(1 for _ in (folder / "site-prewritten").rglob("index.html"))
        print(f"\nmkdocs build: {pages} pages through the plugin, {same} pre-written "
              f"(best of {args.repeat}, whole process; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        print(f"  {'':<30} {'CPU s':>8} {'wall s':>8}   runs (CPU/wall)")
        for label, times in (("through the errorkb plugin", plugin_times), ("pre-written Markdown", prewritten_times)):
            print(f"  {label:<30} {min(t[1] for t in times):8.2f} {min(t[0] for t in times):8.2f}   "
                  + ", ".join(f"{c:.1f}/{w:.1f}" for w, c in times))
        cpu = min(t[1] for t in plugin_times) / min(t[1] for t in prewritten_times)
        wall = min(t[0] for t in plugin_times) / min(t[0] for t in prewritten_times)
        print(f"  {'ratio (goal <= 1.25x)':<30} {cpu:7.2f}x {wall:7.2f}x   {'OK' if cpu <= 1.25 else 'OVER GOAL'} (CPU)")

        if args.real:
            return 0
        print(f"\nlookup of one pasted error against {args.entries} templates (median; goal < 5 ms)")
        for label, ms in time_lookup(args.entries).items():
            print(f"  {label:<58} {ms:7.3f} ms  {'OK' if ms < 5 else 'OVER GOAL'}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the containment rounds (tests/verify/test_containment_round2*.py) share, one owner: the library and runtime
they check against, the honest work every hostile snippet ends with, the round's project (the broken fixture's
`good-head-dim` snippet folder, plus the files a round's module names in `PROJECT_FILES`), the sandbox the engine
would make for it, and the readers of what a snippet prints. Their fixtures (`project`, `sandbox`, `entry`,
`lean_pool`) are tests/verify/conftest.py's, built from these: a fixture imported from another test module needs a
`noqa: F811` on every test that requests it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from errorkb.core.project import load_project
from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.records import Verdict
from errorkb.verify.run import Run
from errorkb.verify.sandbox import Sandbox, choose
from tests.verify.verifykb import FIXTURE, needs_sandbox

TORCH = runtime_for("torch")
LIBRARY = load_project(FIXTURE).library
MODULE = "transformers.cache_utils"
ENTRY = "good-head-dim"  # the snippet folder every round's hostile snippets are written into

HONEST = """
import torch
from transformers import DynamicCache, LlamaConfig

cache = DynamicCache(config=LlamaConfig(num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4,
                                        hidden_size=256))
cache.early_initialization(1, 4, 64, torch.float32, "cpu")
"""


def make_project(root: Path, files: dict[str, str]) -> Path:
    """At `root`: `snippets/good-head-dim` copied from the broken fixture, then each of `files` (path → text)."""
    shutil.copytree(FIXTURE / "snippets" / ENTRY, root / "snippets" / ENTRY)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def sandbox_for(project: Path) -> Sandbox:
    """The sandbox `--sandbox require` makes for `project` (its snippets private, as the engine's); skipped, or
    failed under ERRORKB_SANDBOX=require, where it cannot be made."""
    needs_sandbox()
    made = choose("require", [project], [], runtime=TORCH, packages=("torch", "transformers", "optimum"),
                  env_prefixes=tuple(LIBRARY.env_prefixes), private=[project / "snippets"])
    assert made is not None
    return made


def seen(output: str, tag: str = "SEEN") -> dict:
    """What the snippet printed as `<tag> <json>`."""
    line = next((line for line in output.splitlines() if line.startswith(tag + " ")), None)
    assert line is not None, output
    return json.loads(line.removeprefix(tag + " "))


def run_snippet(pool: WorkerPool, python: Path, entry, project: Path, name: str, code: str, role: str = "after",
                wall_s: float | None = None) -> tuple[Run, Verdict]:
    """`code` as a snippet of good-head-dim, run in `pool` (60 s of CPU time, `wall_s` of wall clock), judged."""
    path = project / "snippets" / ENTRY / name
    path.write_text(code)
    check = Check(entry, read_snippet(path, Role(role), path.name), "bundled", "cpu", MODULE)
    run = pool.run(check, 60, python, wall_s=wall_s)
    return run, judge_with(check, run, TORCH)

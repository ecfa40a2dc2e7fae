"""A runtime source whose error starts in C code: the JIT wording of the legacy ONNX export.

`torch.onnx.export(model, (input_ids,), f, dynamo=False)` of a causal LM with its cache on raises torch's
JIT wording from C (`torch._C._jit_flatten`), called at `torch/jit/_trace.py:134` in the nested function
`ONNXTracedModule.forward.<locals>.wrapper`, which C (`_create_graph_by_tracing`) calls in turn. The entry
`torch-onnx-legacy-export-dynamic-cache` pins that runtime line with `implicit: true`. What must hold:

- the honest before passes (the C raise beneath the watched nested function is that function's);
- the same words raised by the snippet's own code, or by a snippet callback beneath `wrapper` (the traced
  module's forward), fail;
- a snippet class that merely shares the library class's name, returned to torch's flattening by the
  snippet's forward, fails (the C code prints only the bare type name, so the words cannot tell it from
  transformers' `DynamicCache`: the undeclared callback does);
- swapping the enclosing function's code is tampered.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.snippets import BEFORE, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check, library_imports
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose
from tests.kb import copy_kb
from tests.verify.verifykb import needs_sandbox

TORCH = runtime_for("torch")
ID = "torch-onnx-legacy-export-dynamic-cache"
MODULE = "torch.jit._trace"

MODEL = '''import io

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])
'''
EXPORT = "torch.onnx.export(model, (input_ids,), io.BytesIO(), dynamo=False)\n"
WORDS = ("Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and strings are also "
         "accepted, but their usage is not recommended. Here, received an input of unsupported type: DynamicCache")

HOSTILE = {
    # the same words, raised by the snippet's own code
    "own-raise": MODEL + f"raise RuntimeError({WORDS!r})\n",
    # the same words, raised by the snippet's module's forward, which `wrapper` calls through the tracer
    "callback-raise": MODEL + f'''

class Traced(torch.nn.Module):
    def forward(self, input_ids):
        raise RuntimeError({WORDS!r})


model = Traced()
''' + EXPORT,
    # torch's own C flattening, handed an object of the snippet's class that shares the library class's name
    "namesake-class": MODEL + '''

class DynamicCache:
    pass


class Traced(torch.nn.Module):
    def forward(self, input_ids):
        return input_ids * 2, DynamicCache()


model = Traced()
''' + EXPORT,
    # the enclosing function's code swapped for the snippet's, whose nested wrapper raises the words
    "swaps-code": MODEL + f'''import torch.jit._trace as trace


def forward(self, *args):
    def wrapper(*args):
        raise RuntimeError({WORDS!r})
    return wrapper(*args)


trace.ONNXTracedModule.forward.__code__ = forward.__code__
''' + EXPORT,
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, lean_python):
    """Every hostile before and the honest one, judged, through one warm pool in the sandbox (of the lean
    interpreter, tests/lean.py: none of them uses hqq)."""
    if importlib.util.find_spec("transformers") is None:
        pytest.skip("transformers is not installed: the entry is verified upstream only")
    needs_sandbox()
    tmp_path = tmp_path_factory.mktemp("runtime-source-jit")
    root = copy_kb(tmp_path / "kb", [ID], settings="timeout = 60")
    folder = root / "snippets" / ID
    for name, text in HOSTILE.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    project = load_project(root)
    (loaded,) = load_project_entries(project).entries
    release = importlib.metadata.version("transformers")
    checks = {name: Check(loaded.entry, read_snippet(folder / f"{name}.py", BEFORE, f"{name}.py"), "upstream", "cpu",
                          MODULE, release)
              for name in [*HOSTILE, "before"]}
    sandbox = choose("require", [root], [], runtime=TORCH, packages=("torch", "transformers", "optimum"))
    preload = library_imports(list(checks.values()), "transformers")  # as `errorkb verify` warms its zygotes
    with WorkerPool(project.library, preload, sandbox) as pool:
        return {name: judge(check, pool.run(check, 120, lean_python), TORCH) for name, check in checks.items()}


def test_the_honest_before_passes(verdicts):
    verdict = verdicts["before"]
    assert verdict.outcome == "pass", verdict.reason
    assert verdict.code == "raised-as-documented", verdict.reason
    assert "ONNXTracedModule.forward.<locals>.wrapper" in verdict.reason


@pytest.mark.parametrize(("name", "why"), [
    ("own-raise", r"raised from <module> \(own-raise.py:\d+\), outside the target; expected ONNXTracedModule"),
    ("callback-raise", r"ran its own code inside the library's call \(callback-raise.py:\d+ \(Traced\.forward\)\)"),
    ("namesake-class", r"ran its own code inside the library's call \(namesake-class.py:\d+ \(Traced\.forward\)\)"),
    ("swaps-code", r"replaced ONNXTracedModule\.forward\.<locals>\.wrapper \(its code\)"),
])
def test_a_hostile_before_fails(verdicts, name, why):
    verdict = verdicts[name]
    assert verdict.outcome == "fail", (name, verdict.reason)
    assert re.search(why, verdict.reason), (name, verdict.reason)

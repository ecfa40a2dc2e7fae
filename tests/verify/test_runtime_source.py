"""A source whose raise site lies in the runtime's package (`source.runtime`, issue 19 item 7).

torch.export of a model that returns a `DynamicCache` raises in torch's own code, in a function nested
in another (`create_tree_flattened_fn.<locals>.flat_fn`), after the library's forward has returned. The
entry `torch-export-dynamic-cache-output` pins that site to the installed torch. What must hold:

- the loader refuses such a source unless the entry is upstream only and its module lies in the runtime's
  package, each at the entry's file and line; on a machine with another runtime release than the
  entry's, its checks are not run (and say why), and nothing else is held up;
- the verifier watches the nested function's code, found among its enclosing function's constants,
  and the before fails when the snippet raises the same words itself, rebinds what the watched code
  reads (torch's `pytree.tree_flatten`, the known-types table), or swaps the enclosing function's code.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.snippets import BEFORE, read_snippet
from errorkb.plugs import runtime_for
from errorkb.results.records import Code
from errorkb.verify.engine import Verifier, plan_checks
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check, library_imports
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose
from tests.kb import ROOT, copy_kb
from tests.verify.verifykb import needs_sandbox

TORCH = runtime_for("torch")
ID = "torch-export-dynamic-cache-output"
ENTRY = ROOT / "docs" / "errors" / "transformers" / f"{ID}.yml"
MODULE = "torch._functorch._aot_autograd.utils"
INSTALLED = TORCH.version().split("+")[0]


def _project(tmp_path, text: str | None = None):
    """A project with the entry alone (its `related` ids left out: the other entries are not copied)."""
    root = copy_kb(tmp_path / f"kb{len(list(tmp_path.glob('kb*')))}", [ID], settings="timeout = 60")
    text = ENTRY.read_text() if text is None else text
    text = text.replace("related:\n  - static-cache-config-object-no-get\n", "related: []\n")
    (root / "docs" / "errors" / "transformers" / f"{ID}.yml").write_text(text, encoding="utf-8")
    return root


def _problems(tmp_path, text: str) -> list[str]:
    return [str(problem) for problem in load_project_entries(load_project(_project(tmp_path, text))).problems]


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


# -- the loader -------------------------------------------------------------------------------------------------


def test_the_entry_loads(tmp_path):
    assert _problems(tmp_path, ENTRY.read_text()) == []


@pytest.mark.parametrize("targets", [None, "[bundled, upstream]", "[bundled]"])
def test_a_runtime_source_that_is_not_upstream_only_is_refused(tmp_path, targets):
    text = ENTRY.read_text()
    text = text.replace("targets: [upstream]\n", "" if targets is None else f"targets: {targets}\n")
    found = [p for p in _problems(tmp_path, text) if "verified upstream only" in p]
    line = _line_of(text, "targets:") if targets else _line_of(text, "  runtime: true")
    assert found and found[0].startswith(f"docs/errors/transformers/{ID}.yml:{line}:"), _problems(tmp_path, text)


@pytest.mark.parametrize("module", ["transformers.cache_utils", "snippets.lib.evil", "torchx.utils"])
def test_a_runtime_source_whose_module_lies_outside_the_runtime_is_refused(tmp_path, module):
    text = ENTRY.read_text().replace(f"  module: {MODULE}\n", f"  module: {module}\n")
    found = [p for p in _problems(tmp_path, text) if "not a module of the runtime's package" in p]
    assert found and found[0].startswith(f"docs/errors/transformers/{ID}.yml:{_line_of(text, '  module:')}:"), \
        _problems(tmp_path, text)


def test_a_runtime_source_pinned_to_another_runtime_release_is_not_run_here(tmp_path):
    """Which torch a machine has is no fault of the entry's: a GPU machine's own torch (another release)
    loads every entry, and only this one's checks say why they did not run; the others still run."""
    text = ENTRY.read_text().replace(f"  release: {INSTALLED}\n", "  release: 2.12.0\n")
    assert _problems(tmp_path, text) == []
    project = load_project(_project(tmp_path, text))
    loaded = load_project_entries(project).entries
    verifier = Verifier(project, ["upstream"], sandbox="off")
    try:
        checks = plan_checks(project, loaded, ids=[ID], targets=["upstream"], devices=["cpu"])
        reasons = {check.role: verifier.reason_not_run(check) for check in checks}
    finally:
        verifier.close()
    assert reasons and all(v is not None and v.code is Code.TARGET_UNAVAILABLE for v in reasons.values()), reasons
    assert all(f"pinned to torch 2.12.0, and torch {INSTALLED} is installed here" in v.reason
               for v in reasons.values() if v is not None), reasons


def test_a_runtime_source_pinned_to_the_installed_runtime_runs(tmp_path):
    project = load_project(_project(tmp_path))
    verifier = Verifier(project, ["upstream"], sandbox="off")
    try:
        checks = plan_checks(project, load_project_entries(project).entries, ids=[ID], targets=["upstream"],
                             devices=["cpu"])
        assert checks and all(verifier.reason_not_run(check) is None for check in checks)
    finally:
        verifier.close()


def test_a_library_source_still_may_not_name_a_runtime_module(tmp_path):
    """Without `runtime: true` a torch module is, as before, no module an entry may name."""
    text = ENTRY.read_text().replace("  runtime: true\n", "").replace(f"  release: {INSTALLED}\n", "  release: 5.15.1\n")
    assert any("source.module: 'torch._functorch._aot_autograd.utils' is not a module of transformers" in p
               for p in _problems(tmp_path, text)), _problems(tmp_path, text)


def test_a_runtime_source_needs_its_module_and_the_library_releases(tmp_path):
    without_module = ENTRY.read_text().replace(f"  module: {MODULE}\n", "")
    assert any("runtime: true needs `module`" in p for p in _problems(tmp_path, without_module))
    without_claim = ENTRY.read_text().replace("releases:\n  raises: \">=4.48,<4.50 || >=4.56\"\n", "")
    assert any("needs releases.raises" in p for p in _problems(tmp_path, without_claim)), \
        _problems(tmp_path, without_claim)


# -- the check's process: hostile befores ------------------------------------------------------------------------

MODEL = '''import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])
'''
EXPORT = 'torch.export.export(model, (input_ids,), {"use_cache": True})\n'
WORDS = ("Found <class 'transformers.cache_utils.DynamicCache'> in output, which is not a known type. If this type "
         "holds tensors, you need to register a pytree for it. See https://github.com/pytorch/functorch/issues/475 "
         "for a brief explanation why. If you don't need to register a pytree, please leave a comment explaining "
         "your use case and we'll make this more ergonomic to deal with")

HOSTILE = {
    # the same words, raised by the snippet's own code
    "own-raise": MODEL + f"raise RuntimeError({WORDS!r})\n",
    # torch's flattening, rebound (to a partial of itself: C code, so only the rebinding can tell)
    "rebinds-tree-flatten": MODEL + '''import functools
import torch.utils._pytree as pytree
pytree.tree_flatten = functools.partial(pytree.tree_flatten)
''' + EXPORT,
    # the known-types table the watched code reads, rebound to a list of the snippet's
    "rebinds-known-types": MODEL + f'''import importlib
utils = importlib.import_module("{MODULE}")
utils.KNOWN_TYPES = list(utils.KNOWN_TYPES)
''' + EXPORT,
    # the enclosing function's code swapped for the snippet's, whose nested function raises the words
    "swaps-code": MODEL + f'''import importlib
utils = importlib.import_module("{MODULE}")


def create_tree_flattened_fn(fn, args, kwargs=None):
    def flat_fn(*flat_args):
        raise RuntimeError({WORDS!r})
    return flat_fn, None


utils.create_tree_flattened_fn.__code__ = create_tree_flattened_fn.__code__
''' + EXPORT,
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, lean_python):
    """Every hostile before and the honest one, judged, through one warm pool in the sandbox (of the lean
    interpreter, tests/lean.py: none of them uses hqq)."""
    if importlib.util.find_spec("transformers") is None:
        pytest.skip("transformers is not installed: the entry is verified upstream only")
    needs_sandbox()
    tmp_path = tmp_path_factory.mktemp("runtime-source")
    root = _project(tmp_path)
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
    assert "create_tree_flattened_fn.<locals>.flat_fn" in verdict.reason


@pytest.mark.parametrize(("name", "why"), [
    ("own-raise", r"raised from <module> \(own-raise.py:\d+\), outside the target; expected create_tree_flattened_fn"),
    ("rebinds-tree-flatten", r"replaced torch\.utils\._pytree\.tree_flatten"),
    ("rebinds-known-types", r"replaced torch\._functorch\._aot_autograd\.utils\.KNOWN_TYPES"),
    ("swaps-code", r"replaced create_tree_flattened_fn\.<locals>\.flat_fn \(its code\)"),
])
def test_a_hostile_before_fails(verdicts, name, why):
    import re

    verdict = verdicts[name]
    assert verdict.outcome == "fail", (name, verdict.reason)
    assert re.search(why, verdict.reason), (name, verdict.reason)


def test_a_runtime_module_without_the_flag_is_refused_inside(tmp_path):
    """The child's second line: a torch module handed over without `source.runtime` is no module of the target."""
    from errorkb.verify.inside import child
    from errorkb.verify.run import library_spec

    project = load_project(_project(tmp_path))
    prepared = child.prepare("upstream", MODULE, library_spec(project.library), runtime_site=False)
    assert prepared.error is not None and "not a module of transformers" in prepared.error


def test_drift_reads_the_installed_runtime_file(tmp_path):
    """`errorkb check --drift` reads the raise line from the installed torch, not from the library."""
    from errorkb.source.drift import pinned_problems

    root = _project(tmp_path)
    project = load_project(root)
    loaded = load_project_entries(project).entries
    assert [str(p) for p in pinned_problems(loaded, project)] == []
    text = ENTRY.read_text().replace("  line: 197\n", "  line: 196\n")
    (root / "docs" / "errors" / "transformers" / f"{ID}.yml").write_text(
        text.replace("related:\n  - static-cache-config-object-no-get\n", "related: []\n"), encoding="utf-8")
    loaded = load_project_entries(project).entries
    moved = [str(p) for p in pinned_problems(loaded, project)]
    assert any("expected a raise in create_tree_flattened_fn.<locals>.flat_fn at line 196" in p and "197" in p
               for p in moved), moved


# -- what reads the pin: coverage, the matrix, the page, the lookup ------------------------------------------------

# Observed (torch 2.13.0): torch.export of a module whose forward returns an object of a class of its own.
OTHER_CLASS = ("RuntimeError: Found <class '__main__.Holder'> in output, which is not a known type. If this type "
               "holds tensors, you need to register a pytree for it. See https://github.com/pytorch/functorch/issues/"
               "475 for a brief explanation why. If you don't need to register a pytree, please leave a comment "
               "explaining your use case and we'll make this more ergonomic to deal with")


def _loaded(tmp_path):
    project = load_project(_project(tmp_path))
    (one,) = load_project_entries(project).entries
    return project, one.entry


def test_coverage_leaves_a_runtime_site_out_of_the_library_files(tmp_path):
    from errorkb.source.coverage import coverage

    project = load_project(_project(tmp_path))
    loaded = load_project_entries(project).entries
    entry = loaded[0].entry
    found = coverage(loaded, project)
    assert all(not table.path.startswith("torch/") for table in found.files), [t.path for t in found.files]
    assert all(entry.id not in row.entries for table in found.files for row in table.rows)
    assert all(entry.id not in table.implicit for table in found.files)


def test_the_matrix_keeps_the_runtime_line_in_every_release(tmp_path):
    """A release where the before does not raise (4.50 - 4.55 register the cache) keeps torch's line; the
    library's file of that release is never read for it."""
    from errorkb.verify.matrix import collect

    _, entry = _loaded(tmp_path)

    def indexes(path):
        raise AssertionError(f"the library's {path} was read for a runtime site")

    (result,) = collect([entry], "4.52.4", [_record(entry, "fail")], indexes, {entry.id: "d"})
    assert result.line == 197


def _record(entry, outcome):
    from errorkb.results.records import CheckRecord

    return CheckRecord.model_validate({
        "id": f"{entry.id}::before[upstream-cpu]", "entry": entry.id, "role": "before", "target": "upstream",
        "device": "cpu", "outcome": outcome, "code": "exited-normally", "reason": "exited normally",
        "snippet": f"snippets/{entry.id}/before.py", "expected": "raises", "snippet_sha256": "0" * 64, "duration_s": 1.0, "verified_at": "2026-12-03T00:00:00+00:00"})


def test_the_page_links_and_shows_the_runtime_source(tmp_path):
    from errorkb.site.render import source_excerpt

    project, entry = _loaded(tmp_path)
    assert entry.source_url == f"https://github.com/pytorch/pytorch/blob/v{INSTALLED}/{entry.source.path}#L197"
    assert entry.line_url("4.52.4", 197) == entry.source_url  # the same torch in every release's environment
    excerpt = dict(source_excerpt(project, entry) or [])
    assert "in output, which is not a known type" in excerpt[198]  # the f-string under the raise at 197
    assert excerpt[197].strip() == "raise RuntimeError("


def test_the_lookup_confirms_the_library_class_only(tmp_path):
    """torch prints these words for any object it cannot flatten: the library's class ties them to the
    entry, another class's are at most a candidate."""
    from errorkb.lookup import Lookup
    from errorkb.lookup.build import known_from_entries

    project, entry = _loaded(tmp_path)
    kb = Lookup(known_from_entries([entry], library=project.library))
    ours = kb.answer("RuntimeError: " + WORDS)
    assert [(m.known.id, m.grade.value) for m in ours.matches] == [(ID, "confirmed")]
    theirs = kb.answer(OTHER_CLASS)
    assert [m.known.id for m in theirs.confirmed] == [], [(m.known.id, m.evidence) for m in theirs.confirmed]
    theirs_on_a_release = kb.answer(OTHER_CLASS, release="5.15.1")
    assert [m.known.id for m in theirs_on_a_release.confirmed] == []

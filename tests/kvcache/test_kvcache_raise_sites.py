"""Differential: every `raise` of upstream cache_utils.py (5.15.1, 33 sites) and the implicit errors.

Each scenario runs against the bundled package and the real transformers; both must raise the same
exception class with a byte-identical message from a frame with the same ``co_qualname``. For the
33 explicit sites the upstream frame must also be the documented source line, which proves that the
scenario reaches the site it is named after.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from tests.kvcache.kvcache_support import BUNDLED, upstream

pytestmark = pytest.mark.upstream


def k(*shape, dtype=torch.float32):
    """Deterministic states: identical on both sides, so messages that print tensors agree."""
    n = 1
    for dim in shape:
        n *= dim
    return torch.arange(n, dtype=dtype).reshape(shape)


def llama(top, n=2, **kw):
    return top.LlamaConfig(num_hidden_layers=n, num_attention_heads=2, hidden_size=8, **kw)


def hybrid(top, layer_types, **kw):
    return top.PreTrainedConfig(num_hidden_layers=len(layer_types), layer_types=layer_types, **kw)


# --- scenarios: each gets (top-level package, cache_utils module) and must raise --------------


def dsw_crop_without_recording(top, cu):
    layer = cu.DynamicSlidingWindowLayer(sliding_window=3)
    layer.update(k(1, 1, 4, 2), k(1, 1, 4, 2))
    layer.crop(-1)


def dsw_crop_positive_while_recording(top, cu):
    layer = cu.DynamicSlidingWindowLayer(sliding_window=3)
    layer.activate_past_recording()
    layer.update(k(1, 1, 4, 2), k(1, 1, 4, 2))
    layer.crop(2)


def hqq_missing(top, cu):
    if importlib.util.find_spec("hqq") is not None:
        pytest.skip("hqq is installed here; the stubbed 'too old' case covers this site")
    cu.HQQQuantizedLayer(nbits=4)


def linear_crop_without_recording(top, cu):
    cu.LinearAttentionLayer().crop(-1)


def linear_crop_positive(top, cu):
    layer = cu.LinearAttentionLayer()
    layer.activate_past_recording()
    layer.crop(1)


def cache_both_layers_and_class(top, cu):
    cu.Cache(layers=[cu.DynamicLayer()], layer_class_to_replicate=cu.DynamicLayer)


def cache_neither_layers_nor_class(top, cu):
    cu.Cache()


def conv_state_on_attention_layer(top, cu):
    top.DynamicCache(config=llama(top)).update_conv_state(k(1, 2, 3), layer_idx=0)


def recurrent_state_on_attention_layer(top, cu):
    top.DynamicCache(config=llama(top)).update_recurrent_state(k(1, 2, 3), layer_idx=1)


def indexer_on_plain_layer(top, cu):
    top.DynamicCache(config=llama(top)).update_indexer(k(1, 2, 3), layer_idx=1)


def early_init_num_heads_list(top, cu):
    top.DynamicCache(config=llama(top, 12)).early_initialization(2, [8, 8], 128, torch.float32, "cpu")


def early_init_head_dim_list(top, cu):
    top.DynamicCache(config=llama(top, 12)).early_initialization(
        2, num_heads=8, head_dim=[128, 128], dtype=torch.bfloat16, device="cpu"
    )


def seq_length_on_linear_layer(top, cu):
    config = hybrid(top, ["full_attention", "linear_attention"])
    top.DynamicCache(config=config).get_seq_length(1)


def seq_length_only_linear(top, cu):
    top.DynamicCache(config=hybrid(top, ["linear_attention", "moe"])).get_seq_length()


def previous_state_only_attention(top, cu):
    top.DynamicCache(config=llama(top)).has_previous_state()


def previous_state_on_attention_layer(top, cu):
    config = hybrid(top, ["full_attention", "linear_attention"])
    top.DynamicCache(config=config).has_previous_state(0)


def mask_sizes_on_linear_layer(top, cu):
    config = hybrid(top, ["full_attention", "conv"])
    top.DynamicCache(config=config).get_mask_sizes(3, 1)


def mask_sizes_only_linear(top, cu):
    top.DynamicCache(config=hybrid(top, ["conv"])).get_mask_sizes(3, 0)


def inconsistent_batch_size(top, cu):
    cache = top.StaticCache(config=llama(top), max_cache_len=4)
    cache.update(k(1, 2, 1, 4), k(1, 2, 1, 4), 0)
    cache.update(k(3, 2, 1, 4), k(3, 2, 1, 4), 1)
    cache.batch_size


def quantized_unknown_backend(top, cu):
    top.QuantizedCache("fp8", llama(top))


def quantized_non_full_attention(top, cu):
    top.QuantizedCache("quanto", top.Gemma2Config(num_hidden_layers=4, sliding_window=8))


def encdec_bad_tuple_length(top, cu):
    top.EncoderDecoderCache([(k(1, 1, 1, 2), k(1, 1, 1, 2), k(1, 1, 1, 2))])


def encdec_not_caches(top, cu):
    top.EncoderDecoderCache(top.DynamicCache(), 3) if False else top.EncoderDecoderCache(3, "cache")


def encdec_argument_count(top, cu):
    top.EncoderDecoderCache(top.DynamicCache(), top.DynamicCache(), top.DynamicCache())


def _static_encdec(top):
    return top.EncoderDecoderCache(
        top.StaticCache(config=llama(top), max_cache_len=4), top.StaticCache(config=llama(top), max_cache_len=4)
    )


def encdec_crop_static(top, cu):
    _static_encdec(top).crop(-1)


def encdec_repeat_static(top, cu):
    _static_encdec(top).batch_repeat_interleave(2)


def encdec_select_static(top, cu):
    _static_encdec(top).batch_select_indices(torch.tensor([0]))


@dataclass(frozen=True)
class Site:
    line: int  # the `raise` line in upstream cache_utils.py at a597f974 / 5.15.1
    exception: str
    function: str  # the knowledge base's `source.function`
    scenario: Callable


SITES = {
    "L293-dsw-crop-no-recording": Site(293, "RuntimeError", "DynamicSlidingWindowLayer.crop", dsw_crop_without_recording),
    "L298-dsw-crop-positive": Site(298, "RuntimeError", "DynamicSlidingWindowLayer.crop", dsw_crop_positive_while_recording),
    "L847-hqq-missing": Site(847, "ImportError", "HQQQuantizedLayer.__init__", hqq_missing),
    "L973-linear-crop-no-recording": Site(973, "RuntimeError", "LinearAttentionCacheLayerMixin.crop", linear_crop_without_recording),
    "L978-linear-crop-positive": Site(978, "RuntimeError", "LinearAttentionCacheLayerMixin.crop", linear_crop_positive),
    "L1290-cache-both": Site(1290, "ValueError", "Cache.__init__", cache_both_layers_and_class),
    "L1296-cache-neither": Site(1296, "ValueError", "Cache.__init__", cache_neither_layers_nor_class),
    "L1401-conv-state-attention": Site(1401, "ValueError", "Cache.update_conv_state", conv_state_on_attention_layer),
    "L1423-recurrent-state-attention": Site(1423, "ValueError", "Cache.update_recurrent_state", recurrent_state_on_attention_layer),
    "L1441-indexer-plain-layer": Site(1441, "ValueError", "Cache.update_indexer", indexer_on_plain_layer),
    "L1467-early-init-num-head": Site(1467, "ValueError", "Cache.early_initialization", early_init_num_heads_list),
    "L1471-early-init-head-dim": Site(1471, "ValueError", "Cache.early_initialization", early_init_head_dim_list),
    "L1494-seq-length-linear-idx": Site(1494, "ValueError", "Cache.get_seq_length", seq_length_on_linear_layer),
    "L1502-seq-length-only-linear": Site(1502, "ValueError", "Cache.get_seq_length", seq_length_only_linear),
    "L1539-previous-state-only-attention": Site(1539, "ValueError", "Cache.has_previous_state", previous_state_only_attention),
    "L1544-previous-state-attention-idx": Site(1544, "ValueError", "Cache.has_previous_state", previous_state_on_attention_layer),
    "L1570-mask-sizes-linear-idx": Site(1570, "ValueError", "Cache.get_mask_sizes", mask_sizes_on_linear_layer),
    "L1578-mask-sizes-only-linear": Site(1578, "ValueError", "Cache.get_mask_sizes", mask_sizes_only_linear),
    "L1641-batch-size-inconsistent": Site(1641, "ValueError", "Cache.batch_size", inconsistent_batch_size),
    "L1923-quantized-unknown-backend": Site(1923, "ValueError", "QuantizedCache.__init__", quantized_unknown_backend),
    "L1929-quantized-non-full": Site(1929, "ValueError", "QuantizedCache.__init__", quantized_non_full_attention),
    "L1986-encdec-tuple-length": Site(1986, "ValueError", "EncoderDecoderCache.__init__", encdec_bad_tuple_length),
    "L1992-encdec-not-caches": Site(1992, "TypeError", "EncoderDecoderCache.__init__", encdec_not_caches),
    "L1997-encdec-argument-count": Site(1997, "ValueError", "EncoderDecoderCache.__init__", encdec_argument_count),
    "L2045-encdec-crop-static": Site(2045, "TypeError", "EncoderDecoderCache.check_dynamic_cache", encdec_crop_static),
    "L2045-encdec-repeat-static": Site(2045, "TypeError", "EncoderDecoderCache.check_dynamic_cache", encdec_repeat_static),
    "L2045-encdec-select-static": Site(2045, "TypeError", "EncoderDecoderCache.check_dynamic_cache", encdec_select_static),
}


def capture(scenario, impl):
    """(exception class name, message, innermost frame qualname, its file name, its line)."""
    try:
        scenario(impl.top, impl.cache_utils)
    except Exception as err:
        tb = err.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        return type(err).__name__, str(err), code.co_qualname, Path(code.co_filename).name, tb.tb_lineno
    pytest.fail(f"{impl.name}: scenario did not raise")


@pytest.mark.parametrize("site_id", list(SITES))
def test_raise_site(site_id):
    site = SITES[site_id]
    up = capture(site.scenario, upstream())
    ours = capture(site.scenario, BUNDLED)
    assert up[:3] == (site.exception, up[1], site.function)
    assert (up[3], up[4]) == ("cache_utils.py", site.line), "scenario does not reach the documented upstream line"
    assert ours[:3] == up[:3]
    assert ours[3] == "cache_utils.py"


# --- sites that need an optional backend: run in a child with a stub package on the path ---------

_STUB_QUANTO = {
    "optimum/__init__.py": "",
    "optimum/quanto/__init__.py": (
        "__version__ = '{version}'\n"
        "class MaxOptimizer:\n    pass\n"
        "qint2, qint4 = 'qint2', 'qint4'\n"
    ),
}
# A regular (non-namespace) `optimum` package without `quanto` hides any installed optimum-quanto.
_STUB_OPTIMUM_ONLY = {"optimum/__init__.py": ""}
_STUB_HQQ = {
    "hqq/__init__.py": "__version__ = '{version}'\n",
    "hqq/core/__init__.py": "",
    "hqq/core/quantize.py": "class Quantizer:\n    pass\n",
    # transformers reads the version from the distribution's metadata: with a real hqq installed
    # (it is in the pinned stack), the stub's own metadata must come first on the path.
    "hqq-stub.dist-info/METADATA": "Metadata-Version: 2.1\nName: hqq\nVersion: {version}\n",
}

_CHILD = textwrap.dedent(
    """
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import transformers_errorkb.kvcache.cache_utils as ours
    import transformers.cache_utils as theirs
    results = []
    for cls_name, kwargs in json.loads(sys.argv[1]):
        out = []
        for module in (theirs, ours):
            try:
                getattr(module, cls_name)(**kwargs)
                out.append(None)
            except Exception as err:
                tb = err.__traceback__
                while tb.tb_next is not None:
                    tb = tb.tb_next
                out.append([type(err).__name__, str(err), tb.tb_frame.f_code.co_qualname, tb.tb_lineno])
        results.append(out)
    print(json.dumps(results))
    """
)

_STUBS = {"quanto": _STUB_QUANTO, "optimum-only": _STUB_OPTIMUM_ONLY, "hqq": _STUB_HQQ}

BACKEND_SITES = {
    "L793-quanto-missing": ("optimum-only", "-", "QuantoQuantizedLayer", {}, 793, "ImportError"),
    "L800-quanto-too-old": ("quanto", "0.2.4", "QuantoQuantizedLayer", {}, 800, "ImportError"),
    "L800-quanto-exactly-0.2.5": ("quanto", "0.2.5", "QuantoQuantizedLayer", {}, 800, "ImportError"),
    "L805-quanto-nbits": ("quanto", "0.3.0", "QuantoQuantizedLayer", {"nbits": 3}, 805, "ValueError"),
    "L808-quanto-axis-key": ("quanto", "0.3.0", "QuantoQuantizedLayer", {"axis_key": 1}, 808, "ValueError"),
    "L811-quanto-axis-value": ("quanto", "0.3.0", "QuantoQuantizedLayer", {"axis_value": 2}, 811, "ValueError"),
    "L847-hqq-too-old": ("hqq", "0.2.0", "HQQQuantizedLayer", {}, 847, "ImportError"),
    "L853-hqq-nbits": ("hqq", "0.2.5", "HQQQuantizedLayer", {"nbits": 5}, 853, "ValueError"),
    "L858-hqq-axis-key": ("hqq", "0.2.5", "HQQQuantizedLayer", {"axis_key": -1}, 858, "ValueError"),
    "L861-hqq-axis-value": ("hqq", "0.2.5", "HQQQuantizedLayer", {"axis_value": 3}, 861, "ValueError"),
}


# One interpreter imports torch (and the parts of it the real hqq pulls in: torch._dynamo, torch._inductor)
# once, then forks a child per (stub, version) that imports the rest as a fresh `python -c _CHILD` with
# PYTHONPATH=<stub root>:<repo> would: the stub root in the same place on sys.path, nothing of
# transformers, optimum or hqq loaded before (the parent asserts it). Six fresh interpreters took 44 s
# of CPU in CI; torch is the part they all shared.
_PRELOAD = ("torch", "torch._dynamo", "torch._inductor.compile_fx")
_FORKS = textwrap.dedent(
    """
    import importlib, json, os, sys, traceback
    for name in {preload!r}:
        importlib.import_module(name)
    loaded = sorted(name for name in sys.modules
                    if name.split(".")[0] in ("transformers", "transformers_errorkb", "optimum", "hqq"))
    assert not loaded, f"the shared parent loaded what a child must import itself: {{loaded}}"
    children = []
    for root, cases, output in json.loads(sys.argv[1]):
        pid = os.fork()
        if pid == 0:
            try:
                sys.path.insert(1, root)  # where PYTHONPATH=root puts it: after '' (python -c), before the repo
                sys.argv = ["-c", json.dumps(cases)]
                os.dup2(os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
                exec(compile({child!r}, "<child>", "exec"), {{"__name__": "__main__"}})
                sys.stdout.flush()
                os._exit(0)
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
        children.append((root, pid))
    failed = [root for root, pid in children if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0]
    sys.exit(f"children failed: {{failed}}" if failed else 0)
    """
).format(preload=_PRELOAD, child=_CHILD)


@pytest.fixture(scope="module")
def stub_backend_results(tmp_path_factory):
    """Run every stubbed-backend case, one forked child per (stub, version) of one interpreter that
    imported torch (`_FORKS`): each child imports transformers and the backend stub afresh."""
    repo = Path(__file__).resolve().parents[2]
    groups: dict[tuple[str, str], list[str]] = {}
    for site_id, (stub, version, *_rest) in BACKEND_SITES.items():
        groups.setdefault((stub, version), []).append(site_id)
    jobs = []
    for (stub, version), site_ids in groups.items():
        root = tmp_path_factory.mktemp(f"{stub}-{version}")
        for rel, text in _STUBS[stub].items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.format(version=version))
        cases = [[BACKEND_SITES[s][2], BACKEND_SITES[s][3]] for s in site_ids]
        jobs.append((site_ids, str(root), cases, str(root.parent / f"{root.name}.json")))
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run([sys.executable, "-c", _FORKS, json.dumps([job[1:] for job in jobs])],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    results = {}
    for site_ids, _root, _cases, output in jobs:
        for site_id, pair in zip(site_ids, json.loads(Path(output).read_text().strip().splitlines()[-1])):
            results[site_id] = pair
    return results


@pytest.mark.parametrize("site_id", list(BACKEND_SITES))
def test_raise_site_with_stub_backend(site_id, stub_backend_results):
    upstream()
    *_rest, line, exception = BACKEND_SITES[site_id]
    theirs, ours = stub_backend_results[site_id]
    assert theirs is not None and ours is not None
    assert theirs[0] == exception and theirs[3] == line
    assert ours[:3] == theirs[:3]


# --- implicit errors: raised by Python or torch, no `raise` in cache_utils ----------------------


def update_past_last_layer(top, cu):
    cache = top.DynamicCache(config=llama(top))
    cache.update(k(1, 2, 1, 4), k(1, 2, 1, 4), 2)


def static_overflow(top, cu):
    cache = top.StaticCache(config=llama(top), max_cache_len=3)
    cache.update(k(1, 2, 4, 4), k(1, 2, 4, 4), 0)


def static_overflow_after_fill(top, cu):
    cache = top.StaticCache(config=llama(top), max_cache_len=3)
    cache.update(k(1, 2, 2, 4), k(1, 2, 2, 4), 0)
    cache.update(k(1, 2, 2, 4), k(1, 2, 2, 4), 0)


def encdec_early_init(top, cu):
    top.EncoderDecoderCache(top.DynamicCache(), top.DynamicCache()).early_initialization(1, 2, 4, torch.float32, "cpu")


def encdec_update(top, cu):
    top.EncoderDecoderCache(top.DynamicCache(), top.DynamicCache()).update(k(1, 1, 1, 1), k(1, 1, 1, 1), 0)


def early_init_tensor_heads(top, cu):
    top.DynamicCache(config=llama(top)).early_initialization(1, torch.tensor(8), 4, torch.float32, "cpu")


def early_init_negative_head_dim(top, cu):
    top.StaticCache(config=llama(top), max_cache_len=4).early_initialization(1, 2, -1, torch.float32, "cpu")


def cache_crop_max_length_kwarg(top, cu):
    top.DynamicCache(config=llama(top)).crop(max_length=3)


def cache_subscript(top, cu):
    top.DynamicCache(config=llama(top))[99]


def static_cache_crop(top, cu):
    top.StaticCache(config=llama(top), max_cache_len=4).crop(-1)


def static_cache_repeat(top, cu):
    top.StaticCache(config=llama(top), max_cache_len=4).batch_repeat_interleave(2)


def linear_select(top, cu):
    top.DynamicCache(config=hybrid(top, ["linear_attention"])).batch_select_indices(torch.tensor([0]))


def offloading_on_cpu(top, cu):
    cache = top.DynamicCache(config=llama(top), offloading=True)
    cache.update(k(1, 2, 1, 4), k(1, 2, 1, 4), 0)


def crop_uninitialized_layer(top, cu):
    top.DynamicCache(config=llama(top)).crop(-2)


def crop_early_initialized_dynamic(top, cu):
    cache = top.DynamicCache(config=llama(top))
    cache.early_initialization(1, 2, 4, torch.float32, "cpu")
    cache.crop(-2)


def max_length_of_empty_cache(top, cu):
    top.DynamicCache().get_max_length()


def unknown_layer_type(top, cu):
    hybrid(top, ["full_attention", "bogus_attention"])


def layer_types_length_mismatch(top, cu):
    top.PreTrainedConfig(num_hidden_layers=3, layer_types=["full_attention"])


def positional_config(top, cu):
    top.LlamaConfig(4)


def indivisible_hidden_size(top, cu):
    top.LlamaConfig(hidden_size=10, num_attention_heads=3)


def quantized_update_after_early_init(top, cu):
    class Identity(cu.QuantizedLayer):
        def _quantize(self, tensor, axis):
            return tensor

        def _dequantize(self, q_tensor):
            return q_tensor

    layer = Identity()
    cache = cu.Cache(layers=[layer])
    cache.early_initialization(1, 2, 4, torch.float32, "cpu")
    cache.update(k(1, 2, 1, 4), k(1, 2, 1, 4), 0)


def linear_crop_before_any_state(top, cu):
    layer = cu.LinearAttentionLayer()
    layer.activate_past_recording()
    layer.crop(0)


def sliding_window_none(top, cu):
    top.DynamicCache(config=top.Gemma2Config(num_hidden_layers=2, sliding_window=None))


def get_mask_sizes_tensor_window(top, cu):
    cache = top.DynamicCache(config=top.MistralConfig(num_hidden_layers=1, sliding_window=2))
    cache.update(k(1, 1, 3, 2), k(1, 1, 3, 2), 0)
    cache.crop(0)


IMPLICIT = {
    "update-layer-idx-out-of-range": update_past_last_layer,
    "static-overflow": static_overflow,
    "static-overflow-after-fill": static_overflow_after_fill,
    "encdec-early-initialization": encdec_early_init,
    "encdec-update": encdec_update,
    "early-init-0d-tensor": early_init_tensor_heads,
    "early-init-negative-head-dim": early_init_negative_head_dim,
    "cache-crop-max-length-kwarg": cache_crop_max_length_kwarg,
    "cache-not-subscriptable": cache_subscript,
    "static-cache-crop": static_cache_crop,
    "static-cache-batch-repeat": static_cache_repeat,
    "linear-batch-select": linear_select,
    "offloading-without-cuda": offloading_on_cpu,
    "crop-uninitialized-layer": crop_uninitialized_layer,
    "crop-early-initialized-dynamic": crop_early_initialized_dynamic,
    "max-length-empty-cache": max_length_of_empty_cache,
    "config-unknown-layer-type": unknown_layer_type,
    "config-layer-types-length": layer_types_length_mismatch,
    "config-positional-argument": positional_config,
    "config-indivisible-hidden-size": indivisible_hidden_size,
    "quantized-update-after-early-init": quantized_update_after_early_init,
    "linear-crop-before-any-state": linear_crop_before_any_state,
    "sliding-window-none": sliding_window_none,
    "dsw-crop-full-without-recording": get_mask_sizes_tensor_window,
}

# Config errors come from upstream's dataclass validation machinery, not from a cache function; only
# the class name and the message are compared there.
_CONFIG_CASES = {
    "config-unknown-layer-type",
    "config-layer-types-length",
    "config-positional-argument",
    "config-indivisible-hidden-size",
}


@pytest.mark.parametrize("case", list(IMPLICIT))
def test_implicit_error(case):
    if case == "offloading-without-cuda" and torch.cuda.is_available():
        pytest.skip("needs a CPU-only torch")
    up = capture(IMPLICIT[case], upstream())
    ours = capture(IMPLICIT[case], BUNDLED)
    assert ours[:2] == up[:2]
    if case not in _CONFIG_CASES:
        assert ours[2] == up[2]


def test_every_upstream_raise_statement_has_a_test():
    """Parse the installed upstream cache_utils.py: each of its `raise` lines is exercised above."""
    import ast

    source = Path(upstream().cache_utils.__file__).read_text()
    raise_lines = {node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Raise)}
    covered = {site.line for site in SITES.values()} | {entry[4] for entry in BACKEND_SITES.values()}
    assert len(raise_lines) == 33
    assert covered == raise_lines

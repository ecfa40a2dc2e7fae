"""Differential property tests: random configs and random operation sequences, both implementations.

Every step's return value (or exception class + message) and every layer's full state afterwards
must be equal: tensor values, shapes, dtypes and devices, counters, flags. The number of generated
sequences is bounded by default; see conftest.py for the slow run.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.kvcache.kvcache_support import BUNDLED, Raised, normalize, outcome, property_examples, upstream

pytestmark = pytest.mark.upstream

ATTENTION_TYPES = ["full_attention", "sliding_attention", "chunked_attention", "deepseek_sparse_attention"]
LINEAR_TYPES = ["linear_attention", "conv", "moe", "hybrid", "hybrid_sliding"]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]

# Everything a layer can carry that a user could observe.
LAYER_ATTRIBUTES = (
    "keys",
    "values",
    "is_initialized",
    "cumulative_length",
    "cumulative_length_int",
    "sliding_window",
    "_sliding_window_tensor",
    "record_past",
    "max_cache_len",
    "batch_size",
    "num_heads",
    "k_head_dim",
    "v_head_dim",
    "dtype",
    "device",
    "indexer_keys",
    "is_indexer_initialized",
    "indexer_cumulative_length",
    "conv_states",
    "recurrent_states",
    "has_previous_state",
    "conv_kernel_size",
    "is_conv_states_initialized",
    "is_recurrent_states_initialized",
    "number_of_states",
)


def snapshot(cache):
    if hasattr(cache, "self_attention_cache"):  # EncoderDecoderCache has no layers of its own
        return [snapshot(cache.self_attention_cache), snapshot(cache.cross_attention_cache), cache.is_updated]
    layers = getattr(cache, "layers", [])
    return [
        (type(layer).__name__, [normalize(getattr(layer, name, "<absent>")) for name in LAYER_ATTRIBUTES])
        for layer in layers
    ]


def observe(cache):
    """Every length/mask/capacity query, for every layer index (and one past the end)."""
    seen = []
    for idx in range(len(cache) + 1):
        seen.append(
            [
                normalize(outcome(cache.get_seq_length, idx)),
                normalize(outcome(cache.get_mask_sizes, 1, idx)),
                normalize(outcome(cache.get_mask_sizes, 3, idx)),
                normalize(outcome(cache.get_max_length, idx)),
                normalize(outcome(cache.has_previous_state, idx)),
            ]
        )
    return seen


def stringify(value):
    """dtypes and devices print the same on both sides; compare them as text."""
    if isinstance(value, (torch.dtype, torch.device)):
        return str(value)
    return value


# --- configs ----------------------------------------------------------------------------------


@st.composite
def configs(draw):
    """A recipe (kind + keywords) that either implementation turns into its own config object."""
    kind = draw(st.sampled_from(["llama", "mistral", "gemma2", "generic", "chunked", "t5"]))
    n = draw(st.integers(1, 4))
    window = draw(st.integers(1, 6))
    if kind == "llama":
        return "LlamaConfig", {"num_hidden_layers": n, "hidden_size": 8, "num_attention_heads": 2}
    if kind == "mistral":
        return "MistralConfig", {"num_hidden_layers": n, "hidden_size": 8, "num_attention_heads": 2, "sliding_window": window}
    if kind == "gemma2":
        return "Gemma2Config", {"num_hidden_layers": n, "sliding_window": window}
    if kind == "t5":
        return "T5Config", {"num_layers": n, "num_decoder_layers": draw(st.integers(1, 4))}
    if kind == "chunked":
        return "PreTrainedConfig", {"num_hidden_layers": n, "attention_chunk_size": window}
    layer_types = draw(st.lists(st.sampled_from(ATTENTION_TYPES + LINEAR_TYPES), min_size=1, max_size=5))
    kwargs = {"num_hidden_layers": len(layer_types), "layer_types": layer_types}
    if draw(st.booleans()) or any("sliding" in t for t in layer_types):
        if draw(st.integers(0, 9)) > 0:  # occasionally omit it: both must fail alike
            kwargs["sliding_window"] = window
    if "chunked_attention" in layer_types:
        kwargs["attention_chunk_size"] = draw(st.integers(1, 6))
    if draw(st.integers(0, 4)) == 0:
        kwargs["num_kv_shared_layers"] = draw(st.integers(0, len(layer_types)))
    if draw(st.integers(0, 3)) == 0:
        kwargs["number_of_conv_states"] = draw(st.integers(1, 2))
    return "PreTrainedConfig", kwargs


# --- operations ---------------------------------------------------------------------------------

# Mostly valid indices (configs have 1-5 layers), sometimes past the end.
layer_index = st.one_of(st.integers(0, 2), st.integers(0, 5))
# Decoding steps (one token) matter most for sliding windows; prefills of a few tokens too.
seq_lengths = st.one_of(st.just(1), st.integers(1, 5))
seeds = st.integers(0, 2**16)

update = st.tuples(st.just("update"), layer_index, seq_lengths, seeds, st.integers(0, 15))
per_layer_list = st.lists(st.integers(1, 3), min_size=0, max_size=5)

_OTHER_OPERATIONS = [
    st.tuples(
        st.just("early_initialization"),
        st.integers(1, 3),
        st.one_of(st.integers(1, 3), per_layer_list),
        st.one_of(st.integers(1, 4), per_layer_list),
        st.sampled_from(DTYPES),
    ),
    st.tuples(st.just("crop"), st.integers(-5, 5)),
    st.tuples(st.just("crop"), st.integers(-2, 0)),
    st.tuples(st.just("reorder_cache"), st.lists(st.integers(0, 3), min_size=1, max_size=4)),
    st.tuples(st.just("batch_repeat_interleave"), st.integers(1, 3)),
    st.tuples(st.just("batch_select_indices"), st.lists(st.integers(0, 3), min_size=1, max_size=3)),
    st.tuples(st.just("reset")),
    st.tuples(st.just("activate_past_recording")),
    st.tuples(st.just("get_seq_length"), layer_index),
    st.tuples(st.just("get_mask_sizes"), st.integers(1, 4), layer_index),
    st.tuples(st.just("get_max_length"), st.one_of(st.none(), layer_index)),
    st.tuples(st.just("get_query_offset"), layer_index),
    st.tuples(st.just("has_previous_state"), st.one_of(st.none(), layer_index)),
    st.tuples(st.just("update_conv_state"), layer_index, st.integers(1, 4), seeds),
    st.tuples(st.just("update_recurrent_state"), layer_index, seeds),
    st.tuples(st.just("update_indexer"), layer_index, st.integers(1, 3), seeds),
    st.tuples(st.just("properties")),
]
# `one_of` draws its branches about evenly (and merges duplicates), so weight by index instead:
# about half the steps are updates, the state changes every other step.
operations = st.integers(0, 2 * len(_OTHER_OPERATIONS) - 1).flatmap(
    lambda i: _OTHER_OPERATIONS[i] if i < len(_OTHER_OPERATIONS) else update
)


def tensor(seed, shape, dtype):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator).to(dtype)


class Driver:
    """Turns an abstract operation into the same concrete call on one implementation's cache.

    Shapes come from a per-sequence `dims` record (batch, heads, head_dim, dtype) so most updates
    are valid; `odd` (0 of 12) perturbs the head size to exercise shape errors.
    """

    def __init__(self, cache, dims):
        self.cache = cache
        self.dims = dims

    def run(self, op):
        name, *args = op
        cache, (batch, heads, head_dim, dtype) = self.cache, self.dims
        if name == "update":
            layer_idx, seq, seed, odd = args
            dim = head_dim + 1 if odd == 0 else head_dim
            key = tensor(seed, (batch, heads, seq, dim), dtype)
            value = tensor(seed + 1, (batch, heads, seq, dim), dtype)
            if hasattr(cache, "self_attention_cache"):
                # An encoder-decoder model writes each half itself; `update` on the wrapper fails.
                half = cache.cross_attention_cache if odd % 2 else cache.self_attention_cache
                return half.update(key, value, layer_idx)
            return cache.update(key, value, layer_idx)
        if name == "early_initialization":
            batch_size, num_heads, head_dims, dt = args
            return cache.early_initialization(batch_size, num_heads, head_dims, dt, "cpu")
        if name == "crop":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return cache.crop(args[0])
        if name == "reorder_cache":
            return cache.reorder_cache(torch.tensor(args[0]))
        if name == "batch_select_indices":
            return cache.batch_select_indices(torch.tensor(args[0]))
        if name == "update_conv_state":
            layer_idx, width, seed = args
            return cache.update_conv_state(tensor(seed, (batch, 3, width), dtype), layer_idx)
        if name == "update_recurrent_state":
            layer_idx, seed = args
            return cache.update_recurrent_state(tensor(seed, (batch, 3, 2), dtype), layer_idx)
        if name == "update_indexer":
            layer_idx, seq, seed = args
            return cache.update_indexer(tensor(seed, (batch, seq, 2), dtype), layer_idx)
        if name == "properties":
            return {
                prop: stringify(outcome(getattr, cache, prop))
                for prop in ("batch_size", "is_compileable", "is_initialized", "is_sliding", "is_linear")
            } | {"len": len(cache), "repr": repr(cache)}
        return getattr(cache, name)(*args)


def build(impl, recipe, cache_kind, max_cache_len):
    config_class, kwargs = recipe
    top = impl.top
    config = getattr(top, config_class)(**kwargs)
    if cache_kind == "dynamic":
        return top.DynamicCache(config=config)
    if cache_kind == "static":
        return top.StaticCache(config=config, max_cache_len=max_cache_len)
    if cache_kind == "encdec":
        return top.EncoderDecoderCache(top.DynamicCache(config=config), top.DynamicCache(config=config))
    if cache_kind == "encdec-static":
        return top.EncoderDecoderCache(
            top.StaticCache(config=config, max_cache_len=max_cache_len), top.DynamicCache(config=config)
        )
    return top.DynamicCache()


def compare_sequence(recipe, cache_kind, max_cache_len, dims, ops):
    theirs_impl = upstream()
    theirs_impl.top.logging.set_verbosity_error()
    built = [outcome(build, impl, recipe, cache_kind, max_cache_len) for impl in (theirs_impl, BUNDLED)]
    if any(isinstance(b, Raised) for b in built):
        # Construction failed on at least one side: it must fail identically on both.
        assert normalize(built[0]) == normalize(built[1])
        return
    theirs, ours = (Driver(cache, dims) for cache in built)
    for step, op in enumerate(ops):
        expected = normalize(outcome(theirs.run, op))
        got = normalize(outcome(ours.run, op))
        assert got == expected, f"step {step}: {op}"
        assert snapshot(ours.cache) == snapshot(theirs.cache), f"state after step {step}: {op}"
        assert observe(ours.cache) == observe(theirs.cache), f"queries after step {step}: {op}"


@settings(
    max_examples=property_examples(),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    recipe=configs(),
    cache_kind=st.sampled_from(["dynamic", "static", "bare", "dynamic", "static", "encdec", "encdec-static"]),
    max_cache_len=st.integers(1, 8),
    dims=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.sampled_from(DTYPES)),
    ops=st.lists(operations, min_size=1, max_size=24),
)
def test_random_operation_sequences_agree(recipe, cache_kind, max_cache_len, dims, ops):
    compare_sequence(recipe, cache_kind, max_cache_len, dims, ops)


@settings(max_examples=max(20, property_examples() // 4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(
        st.tuples(st.integers(1, 4), st.one_of(st.none(), st.integers(1, 5)), seeds), min_size=1, max_size=3
    ),
    ops=st.lists(operations, min_size=1, max_size=8),
)
def test_ddp_cache_data_agrees(entries, ops):
    """DynamicCache(ddp_cache_data=...) pre-fills layers (sliding ones when a window tensor is given)."""
    theirs_impl = upstream()

    def make(impl):
        data = []
        for seq, window, seed in entries:
            k, v = tensor(seed, (2, 2, seq, 3), torch.float32), tensor(seed + 1, (2, 2, seq, 3), torch.float32)
            data.append((k, v) if window is None else (k, v, torch.tensor([window, window])))
        return impl.top.DynamicCache(ddp_cache_data=data)

    theirs, ours = Driver(make(theirs_impl), (2, 2, 3, torch.float32)), Driver(make(BUNDLED), (2, 2, 3, torch.float32))
    assert snapshot(ours.cache) == snapshot(theirs.cache)
    assert normalize(list(ours.cache)) == normalize(list(theirs.cache))
    for step, op in enumerate(ops):
        assert normalize(outcome(ours.run, op)) == normalize(outcome(theirs.run, op)), f"step {step}: {op}"
        assert snapshot(ours.cache) == snapshot(theirs.cache), f"state after step {step}: {op}"


@settings(max_examples=max(30, property_examples() // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    window=st.integers(1, 6),
    chunked=st.booleans(),
    cache_kind=st.sampled_from(["dynamic", "static"]),
    max_cache_len=st.integers(1, 9),
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("update"), st.just(0), seq_lengths, seeds, st.just(1)),
            st.tuples(st.just("update"), st.just(0), st.just(1), seeds, st.just(1)),
            st.tuples(st.just("crop"), st.integers(-3, 2)),
            st.tuples(st.just("activate_past_recording")),
            st.tuples(st.just("reset")),
            st.tuples(st.just("reorder_cache"), st.lists(st.integers(0, 1), min_size=2, max_size=2)),
        ),
        min_size=1,
        max_size=30,
    ),
)
def test_sliding_window_streams_agree(window, chunked, cache_kind, max_cache_len, steps):
    """Long single-layer streams through a window: fills, overflows, one-token rolls, rollbacks."""
    key = "attention_chunk_size" if chunked else "sliding_window"
    recipe = ("PreTrainedConfig", {"num_hidden_layers": 1, key: window})
    compare_sequence(recipe, cache_kind, max_cache_len, (2, 2, 3, torch.float32), steps)


@settings(max_examples=max(30, property_examples() // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    layers=st.integers(1, 3),
    static_self=st.booleans(),
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("update"), st.integers(0, 3), seq_lengths, seeds, st.integers(1, 4)),
            st.tuples(st.just("crop"), st.integers(-3, 2)),
            st.tuples(st.just("batch_repeat_interleave"), st.integers(1, 2)),
            st.tuples(st.just("batch_select_indices"), st.lists(st.integers(0, 1), min_size=1, max_size=2)),
            st.tuples(st.just("reorder_cache"), st.lists(st.integers(0, 1), min_size=2, max_size=2)),
            st.tuples(st.just("reset")),
            st.tuples(st.just("properties")),
        ),
        min_size=1,
        max_size=16,
    ),
)
def test_encoder_decoder_sequences_agree(layers, static_self, steps):
    """Self- and cross-attention halves written separately, then cropped, reshaped, reset together."""
    recipe = ("LlamaConfig", {"num_hidden_layers": layers, "hidden_size": 8, "num_attention_heads": 2})
    kind = "encdec-static" if static_self else "encdec"
    compare_sequence(recipe, kind, 6, (2, 2, 4, torch.float32), steps)

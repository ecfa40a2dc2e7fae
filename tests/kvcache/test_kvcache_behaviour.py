"""Behaviour of the bundled cache on its own, with hand-derived expectations.

Covers what upstream's pure-CPU cache unit tests cover (static shapes for MHA/GQA/MQA, sliding
windows, hybrid and chunked layouts, cropping, batch selection and beam reordering) plus the parts
of 5.15.1 that only show in state: deprecations, registration, offloading selection, the DDP forms.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import warnings

import pytest
import torch

import transformers_errorkb.kvcache as kv
from tests.kvcache.kvcache_support import BUNDLED, Impl, upstream
from transformers_errorkb.kvcache import _compat
from transformers_errorkb.kvcache import cache_utils as cu


def seq(batch, heads, length, dim, start=0):
    """States whose values encode the token position, so slices are easy to read back."""
    positions = torch.arange(start, start + length, dtype=torch.float32).view(1, 1, length, 1)
    return positions.expand(batch, heads, length, dim).clone()


def positions(states):
    return states[0, 0, :, 0].tolist()


# --- static caches -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kv_heads", "expected_heads"), [(None, 32), (4, 4), (1, 1)], ids=["mha", "gqa", "mqa"]
)
def test_static_cache_shapes_follow_kv_heads(kv_heads, expected_heads):
    config = kv.LlamaConfig(num_attention_heads=32, num_key_value_heads=kv_heads)
    cache = kv.StaticCache(config=config, max_batch_size=1, max_cache_len=10, device="cpu")  # legacy kwargs ignored
    head_dim = config.hidden_size // config.num_attention_heads
    keys, values = cache.update(torch.rand(1, expected_heads, 1, head_dim), torch.rand(1, expected_heads, 1, head_dim), 0)
    assert keys.shape == values.shape == (1, expected_heads, 10, 128)


def test_static_cache_reset_keeps_buffers():
    cache = kv.StaticCache(config=kv.LlamaConfig(num_hidden_layers=1, hidden_size=8, num_attention_heads=2), max_cache_len=5)
    keys, _ = cache.update(seq(1, 2, 3, 4, start=1), seq(1, 2, 3, 4, start=1), 0)
    address = keys.data_ptr()
    cache.reset()
    assert int(cache.get_seq_length()) == 0 and torch.count_nonzero(cache.layers[0].keys) == 0
    assert cache.layers[0].keys.data_ptr() == address


# --- sliding windows -----------------------------------------------------------------------------


def test_dynamic_sliding_window_keeps_window_minus_one():
    layer = cu.DynamicSlidingWindowLayer(sliding_window=4)
    full, _ = layer.update(seq(1, 1, 3, 2), seq(1, 1, 3, 2))
    assert positions(full) == [0, 1, 2]
    full, _ = layer.update(seq(1, 1, 2, 2, start=3), seq(1, 1, 2, 2, start=3))
    assert positions(full) == [0, 1, 2, 3, 4]  # the query sees everything it needs
    assert positions(layer.keys) == [2, 3, 4]  # only window - 1 are kept
    assert layer.get_seq_length() == 5
    assert layer.get_mask_sizes(1) == (4, 2)
    assert layer.get_max_length() == 4


def test_static_sliding_window_fills_then_rolls():
    layer = cu.StaticSlidingWindowLayer(max_cache_len=10, sliding_window=4)
    assert layer.max_cache_len == 4
    layer.update(seq(1, 1, 3, 2), seq(1, 1, 3, 2))
    assert layer.get_mask_sizes(1) == (4, 0)
    out, _ = layer.update(seq(1, 1, 1, 2, start=3), seq(1, 1, 1, 2, start=3))
    assert positions(out) == [0, 1, 2, 3] and out is layer.keys
    out, _ = layer.update(seq(1, 1, 1, 2, start=4), seq(1, 1, 1, 2, start=4))
    assert positions(out) == [1, 2, 3, 4]  # rolled left, newest last
    assert layer.get_seq_length() == 5 and layer.get_mask_sizes(1) == (4, 2)
    out, _ = layer.update(seq(1, 1, 2, 2, start=5), seq(1, 1, 2, 2, start=5))
    assert positions(out) == [2, 3, 4, 5, 6]  # several tokens at once: full states returned
    assert positions(layer.keys) == [3, 4, 5, 6]


def test_static_sliding_window_long_prefill_returns_input():
    layer = cu.StaticSlidingWindowLayer(max_cache_len=10, sliding_window=4)
    prefill = seq(1, 1, 6, 2)
    out, _ = layer.update(prefill, prefill)
    assert out is prefill and positions(layer.keys) == [2, 3, 4, 5]


# --- layouts from configs ------------------------------------------------------------------------


def test_gemma2_alternates_sliding_and_full():
    config = kv.Gemma2Config(num_hidden_layers=6, sliding_window=4)
    dynamic = kv.DynamicCache(config=config)
    assert [type(layer).__name__ for layer in dynamic.layers] == ["DynamicSlidingWindowLayer", "DynamicLayer"] * 3
    static = kv.StaticCache(config=config, max_cache_len=10)
    assert [layer.get_max_length() for layer in static.layers] == [4, 10] * 3
    assert static.get_max_length() == 10
    static.early_initialization(1, 4, 32, torch.float32, "cpu")
    assert [tuple(layer.keys.shape) for layer in static.layers[:2]] == [(1, 4, 4, 32), (1, 4, 10, 32)]
    assert static.is_sliding == [True, False] * 3


def test_mistral_is_all_sliding_with_effective_length():
    cache = kv.StaticCache(config=kv.MistralConfig(num_hidden_layers=3, sliding_window=8), max_cache_len=16)
    assert [layer.max_cache_len for layer in cache.layers] == [8, 8, 8]


def test_chunk_size_overrides_sliding_window():
    config = kv.PreTrainedConfig(
        num_hidden_layers=2, layer_types=["sliding_attention", "chunked_attention"], sliding_window=5, attention_chunk_size=3
    )
    assert [layer.sliding_window for layer in kv.DynamicCache(config=config).layers] == [3, 3]
    only_chunks = kv.PreTrainedConfig(num_hidden_layers=2, attention_chunk_size=3)
    assert [type(layer).__name__ for layer in kv.DynamicCache(config=only_chunks).layers] == ["DynamicSlidingWindowLayer"] * 2


def test_hybrid_layout_and_early_initialization():
    config = kv.PreTrainedConfig(
        num_hidden_layers=4,
        layer_types=["full_attention", "linear_attention", "sliding_attention", "moe"],
        sliding_window=4,
    )
    dynamic = kv.DynamicCache(config=config)
    assert [type(layer).__name__ for layer in dynamic.layers] == [
        "DynamicLayer",
        "LinearAttentionLayer",
        "DynamicSlidingWindowLayer",
        "LinearAttentionLayer",
    ]
    static = kv.StaticCache(config=config, max_cache_len=8)
    static.early_initialization(1, 2, 16, torch.float32, "cpu")
    shapes = [tuple(layer.keys.shape) if hasattr(layer, "keys") else None for layer in static.layers]
    assert shapes == [(1, 2, 8, 16), None, (1, 2, 4, 16), None]
    assert static.is_initialized and static.is_linear == [False, True, False, True]
    # The default index falls through to the first attention layer; linear layers answer -1.
    assert static.get_seq_length() == 0 and static.get_max_length(1) == -1


def test_hybrid_layers_register_both_halves():
    config = kv.PreTrainedConfig(num_hidden_layers=2, layer_types=["hybrid", "hybrid_sliding"], sliding_window=3, number_of_conv_states=2)
    cache = kv.DynamicCache(config=config)
    assert [layer.number_of_states for layer in cache.layers] == [2, 2]
    assert cache.is_linear == [False, True]  # full-attention hybrids do not count as linear
    assert not any(layer.supports_early_init for layer in cache.layers)
    cache.update(seq(1, 1, 2, 2), seq(1, 1, 2, 2), 0)
    cache.update_conv_state(torch.ones(1, 3, 4), 0, state_idx=1)
    assert cache.get_seq_length(0) == 2 and cache.has_previous_state(0, state_idx=1)
    assert cache.has_previous_state(0) is False  # state 0 has not seen a prefill


def test_kv_shared_layers_get_no_cache():
    config = kv.PreTrainedConfig(num_hidden_layers=6, layer_types=["full_attention"] * 6, num_kv_shared_layers=2)
    assert len(kv.DynamicCache(config=config)) == 4


def test_t5_uses_encoder_depth_for_the_decoder_side():
    config = kv.T5Config(num_layers=3, num_decoder_layers=5)
    assert config.num_hidden_layers == 3 and config.head_dim == 64
    assert len(kv.DynamicCache(config=config)) == 3


def test_config_validation_mirrors_upstream():
    with pytest.raises(Exception) as info:
        kv.PreTrainedConfig(num_hidden_layers=1, layer_types=["bogus"])
    assert type(info.value).__name__ == "StrictDataclassClassValidationError"
    assert "The `layer_types` entries must be in" in str(info.value)
    assert kv.PretrainedConfig is kv.PreTrainedConfig


# --- cropping ------------------------------------------------------------------------------------


def test_dynamic_crop_negative_and_legacy_positive(caplog):
    _compat._already_warned.clear()
    cache = kv.DynamicCache()
    cache.update(seq(1, 1, 10, 2), seq(1, 1, 10, 2), 0)
    cache.crop(-3)
    assert cache.get_seq_length() == 7
    with caplog.at_level(logging.WARNING, logger="transformers_errorkb.kvcache"):
        cache.crop(4)
    assert cache.get_seq_length() == 4
    assert "Calling `crop` with a positive value is deprecated and will be removed in version 5.18" in caplog.text
    cache.crop(100)
    cache.crop(0)
    assert cache.get_seq_length() == 4 and positions(cache.layers[0].keys) == [0, 1, 2, 3]


def test_layer_crop_accepts_deprecated_max_length():
    layer = cu.DynamicLayer()
    layer.update(seq(1, 1, 5, 2), seq(1, 1, 5, 2))
    with pytest.warns(FutureWarning, match="`max_length` is deprecated and will be removed in version 5.18 for `DynamicLayer.crop`"):
        layer.crop(max_length=-2)
    assert layer.get_seq_length() == 3
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_length'"):
        kv.DynamicCache().crop(max_length=1)


def test_sliding_crop_with_recorded_past():
    layer = cu.DynamicSlidingWindowLayer(sliding_window=4)
    layer.activate_past_recording()
    layer.update(seq(1, 1, 6, 2), seq(1, 1, 6, 2))
    assert positions(layer.keys) == [0, 1, 2, 3, 4, 5]  # everything kept while recording
    layer.crop(-2)
    assert positions(layer.keys) == [1, 2, 3] and layer.get_seq_length() == 4
    layer.update(seq(1, 1, 2, 2, start=4), seq(1, 1, 2, 2, start=4))
    layer.crop(0)  # not a no-op past the window: trims back to window - 1
    assert positions(layer.keys) == [3, 4, 5]


def test_linear_crop_rolls_back_conv_states():
    layer = cu.LinearAttentionLayer()
    layer.activate_past_recording()
    states = torch.arange(4, dtype=torch.float32).view(1, 1, 4)
    layer.update_conv_state(states)
    layer.update_conv_state(torch.tensor([[[4.0]]]))
    layer.update_conv_state(torch.tensor([[[5.0]]]))
    assert layer.conv_states[0].tolist() == [[[0, 1, 2, 3, 4, 5]]]
    layer.crop(-2)
    assert layer.conv_states[0].tolist() == [[[0, 1, 2, 3]]]


def test_conv_state_prefill_is_left_padded():
    layer = cu.LinearAttentionLayer()
    full = layer.update_conv_state(torch.ones(1, 2, 2), conv_kernel_size=4)
    assert full.tolist() == [[[0, 0, 1, 1], [0, 0, 1, 1]]]
    full = layer.update_conv_state(torch.full((1, 2, 1), 2.0))
    assert full.shape == (1, 2, 5) and layer.conv_states[0][0, 0].tolist() == [0, 1, 1, 2]


# --- batch operations ----------------------------------------------------------------------------


def _batched_cache():
    cache = kv.DynamicCache()
    states = torch.arange(3, dtype=torch.float32).view(3, 1, 1, 1).expand(3, 2, 2, 2).clone()
    cache.update(states, states, 0)
    return cache


def test_batch_select_repeat_and_reorder():
    cache = _batched_cache()
    cache.batch_select_indices(torch.tensor([2, 0]))
    assert cache.layers[0].keys[:, 0, 0, 0].tolist() == [2, 0]
    cache.batch_repeat_interleave(2)
    assert cache.layers[0].keys[:, 0, 0, 0].tolist() == [2, 2, 0, 0]
    cache.reorder_cache(torch.tensor([3, 0, 1, 2]))
    assert cache.layers[0].keys[:, 0, 0, 0].tolist() == [0, 2, 2, 0]


def test_batch_operations_skip_empty_layers():
    cache = kv.DynamicCache(config=kv.LlamaConfig(num_hidden_layers=2, hidden_size=8, num_attention_heads=2))
    cache.early_initialization(2, 2, 4, torch.float32, "cpu")
    cache.batch_select_indices(torch.tensor([0]))
    cache.reorder_cache(torch.tensor([1, 0]))
    assert cache.layers[0].keys.shape == (0,)


def test_inconsistent_batch_size_is_reported():
    cache = kv.StaticCache(config=kv.LlamaConfig(num_hidden_layers=2, hidden_size=8, num_attention_heads=2), max_cache_len=2)
    assert cache.batch_size == -1
    cache.early_initialization(2, 2, 4, torch.float32, "cpu")
    assert cache.batch_size == 2
    cache.layers[1].batch_size = 3
    with pytest.raises(ValueError, match=r"The batch size is not consistent across layers: \[2, 3\]"):
        cache.batch_size


# --- the other caches ----------------------------------------------------------------------------


def test_encoder_decoder_cache_from_ddp_tuples():
    a, b = seq(1, 1, 2, 2), seq(1, 1, 3, 2)
    cache = kv.EncoderDecoderCache([(a, a, b, b)])
    assert cache.is_updated == {0: True}
    assert len(cache) == 1 and cache.get_seq_length() == 2
    (entry,) = list(cache)
    assert len(entry) == 6 and entry[2] is None
    cache.crop(-1)
    assert cache.get_seq_length() == 1 and cache.cross_attention_cache.get_seq_length() == 3
    cache.reset()
    assert cache.is_updated == {0: False}
    assert repr(cache).startswith("EncoderDecoderCache(self_attention_cache=DynamicCache(layers=[DynamicLayer])")


def test_ddp_data_with_window_tensor_makes_sliding_layers():
    k = seq(2, 1, 3, 2)
    cache = kv.DynamicCache(ddp_cache_data=[(k, k, torch.tensor([4, 4])), (k, k)])
    assert [type(layer).__name__ for layer in cache.layers] == ["DynamicSlidingWindowLayer", "DynamicLayer"]
    assert [entry[2] is None for entry in cache] == [False, True]


def test_mtp_and_dflash_offsets():
    mtp = cu.MtpCache()
    mtp.update(seq(1, 1, 3, 2), seq(1, 1, 3, 2), 1)
    assert mtp.get_query_offset(1) == 5 and mtp.get_mask_sizes(2, 1) == (5, 2)
    dflash = cu.DFlashCache()
    dflash.update(seq(1, 1, 3, 2), seq(1, 1, 3, 2), 0)
    dflash.set_previous_accepted_tokens(2)
    assert dflash.get_query_offset() == 5 and dflash.get_mask_sizes(1, 0) == (6, 0)
    assert cu.SlidingWindowCache is kv.StaticCache


def test_deprecated_accessors_still_work(caplog):
    _compat._already_warned.clear()
    cache = kv.StaticCache(config=kv.LlamaConfig(num_hidden_layers=1, hidden_size=8, num_attention_heads=2), max_cache_len=6)
    with caplog.at_level(logging.WARNING, logger="transformers_errorkb.kvcache"):
        assert cache.max_cache_len == 6 and cache.max_batch_size == -1 and cache.get_max_cache_shape() == 6
    assert caplog.text.count("will be removed in version 5.16") == 3


def test_layer_subclass_registers_its_type():
    class MyDynamic(cu.DynamicLayer):
        _layer_type = "my_dynamic_type"

    class MyStatic(cu.StaticLayer):
        _layer_type = "my_static_type"

    try:
        assert cu.DYNAMIC_LAYER_TYPE_MAPPING["my_dynamic_type"] is MyDynamic
        assert cu.STATIC_LAYER_TYPE_MAPPING["my_static_type"] is MyStatic
        assert "my_static_type" not in cu.DYNAMIC_LAYER_TYPE_MAPPING
    finally:
        cu.DYNAMIC_LAYER_TYPE_MAPPING.pop("my_dynamic_type", None)
        cu.STATIC_LAYER_TYPE_MAPPING.pop("my_static_type", None)


def test_indexed_layers_keep_indexer_keys():
    dynamic = cu.DynamicIndexedLayer()
    dynamic.update(seq(1, 1, 2, 2), seq(1, 1, 2, 2))
    assert dynamic.update_indexer(torch.ones(1, 2, 3)).shape == (1, 2, 3)
    dynamic.crop(-1)
    assert dynamic.indexer_keys.shape == (1, 1, 3) and dynamic.get_seq_length() == 1
    static = cu.StaticIndexedLayer(max_cache_len=4)
    assert static.update_indexer(torch.ones(1, 3, 2)).shape == (1, 4, 2)
    assert int(static.indexer_cumulative_length) == 3


# --- offloading ----------------------------------------------------------------------------------


class _Recorder:
    def __init__(self):
        self.calls = []


def test_prefetch_and_offload_choose_layers_on_cpu():
    """The layer-selection logic, with the stream replaced by a no-op (no CUDA needed)."""
    config = kv.PreTrainedConfig(
        num_hidden_layers=4,
        layer_types=["full_attention", "sliding_attention", "linear_attention", "full_attention"],
        sliding_window=2,
    )
    cache = kv.DynamicCache(config=config, offloading=True, offload_only_non_sliding=True)
    cache.prefetch_stream = contextlib.nullcontext()
    calls = []
    for idx, layer in enumerate(cache.layers):
        layer.prefetch = lambda idx=idx: calls.append(("prefetch", idx))
        layer.offload = lambda idx=idx: calls.append(("offload", idx))
    cache.prefetch(1)  # skips the sliding and the linear layer
    cache.prefetch(4)  # past the end: wraps to the first offloaded layer
    cache.offload(1)  # sliding: kept resident
    cache.offload(3)
    cache.prefetch(1, only_non_sliding=False)
    assert calls == [("prefetch", 3), ("prefetch", 0), ("offload", 3), ("prefetch", 1)]
    assert kv.DynamicCache(offloading=True).only_non_sliding is False
    assert kv.StaticCache(config=config, max_cache_len=4, offloading=True).only_non_sliding is True


def _offloading_round_trip(impl: Impl) -> list[list[str]]:
    """Where each layer's keys are after each update of a 3-layer offloaded cache, over two steps."""
    config = impl.top.LlamaConfig(num_hidden_layers=3, hidden_size=8, num_attention_heads=2)
    cache = impl.top.DynamicCache(config=config, offloading=True)
    states = torch.randn(1, 2, 3, 4, device="cuda")
    seen = []
    for idx in (0, 1, 2, 0):
        keys, _ = cache.update(states, states, idx)
        torch.cuda.synchronize()
        assert keys.device.type == "cuda" and keys.shape == (1, 2, 6 if len(seen) == 3 else 3, 4)
        seen.append([keys.device.type if (keys := getattr(layer, "keys", None)) is not None else None
                     for layer in cache.layers])
    return seen


@pytest.mark.skipif(not torch.cuda.is_available(), reason="offloading streams need CUDA")
def test_offloading_round_trip_on_cuda():
    """Each update offloads its layer and prefetches the next, circling back to the first after the last:
    so after a step the first layer is already back on the GPU for the next. (First written expecting
    every layer on the CPU after a step; the first run on a GPU, an H200, showed the prefetch.)"""
    seen = _offloading_round_trip(BUNDLED)
    assert seen[2] == ["cuda", "cpu", "cpu"], seen
    assert seen == _offloading_round_trip(upstream()), "the bundled cache places layers as transformers does"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only failure")
def test_offloading_without_cuda_fails_on_first_update():
    cache = kv.DynamicCache(offloading=True)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        cache.update(torch.zeros(1, 1, 1, 1), torch.zeros(1, 1, 1, 1), 0)


# --- packaging -----------------------------------------------------------------------------------


def test_import_is_light_and_self_contained():
    code = (
        "import sys, transformers_errorkb.kvcache; "
        "print(sorted(m for m in sys.modules if m.startswith(('errorkb', 'transformers', 'huggingface_hub'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)  # our own printed list
    assert all(name == "transformers_errorkb" or name.startswith("transformers_errorkb.kvcache") for name in loaded), loaded


def test_top_level_exports_match_upstream_cache_exports():
    expected = {
        "Cache", "CacheLayerMixin", "DynamicCache", "DynamicIndexedLayer", "DynamicLayer", "EncoderDecoderCache",
        "HQQQuantizedLayer", "QuantizedCache", "QuantoQuantizedLayer", "StaticCache", "StaticIndexedLayer",
        "StaticLayer", "StaticSlidingWindowLayer",
    }
    assert expected <= set(kv.__all__)
    assert not hasattr(kv, "DynamicSlidingWindowLayer")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(getattr(kv, name).__qualname__ == name for name in expected)


# --- synthetic one-value-per-token scenarios (the shape of upstream's SyntheticCacheTest) ---------


def tokens(*values):
    return torch.tensor(values)[None, None, :, None]


def stored(cache, layer=0):
    return cache.layers[layer].keys[0, 0, :, 0].tolist()


def one_layer(layer_types, window=4):
    return kv.Gemma2Config(
        num_hidden_layers=len(layer_types), num_key_value_heads=1, num_attention_heads=1, head_dim=1, hidden_size=1,
        sliding_window=window, layer_types=layer_types,
    )


def test_synthetic_static_fill_and_overflow():
    cache = kv.StaticCache(config=one_layer(["full_attention"]), max_cache_len=4)
    cache.update(tokens(1.0, 2.0), tokens(1.0, 2.0), 0, cache_kwargs=None)  # extra kwargs pass through
    cache.update(tokens(3.0), tokens(3.0), 0)
    assert stored(cache) == [1.0, 2.0, 3.0, 0.0]
    cache.update(tokens(4.0), tokens(4.0), 0)
    assert stored(cache) == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(IndexError):
        cache.update(tokens(5.0), tokens(5.0), 0)


def test_synthetic_static_sliding_scenarios():
    config = one_layer(["sliding_attention"])
    cache = kv.StaticCache(config=config, max_cache_len=4)
    cache.update(tokens(1.0, 2.0), tokens(1.0, 2.0), 0)
    cache.update(tokens(3.0), tokens(3.0), 0)
    assert stored(cache) == [1.0, 2.0, 3.0, 0.0]

    cache = kv.StaticCache(config=config, max_cache_len=4)
    cache.update(tokens(1.0, 2.0, 3.0, 4.0), tokens(1.0, 2.0, 3.0, 4.0), 0)
    cache.update(tokens(5.0), tokens(5.0), 0)
    assert stored(cache) == [2.0, 3.0, 4.0, 5.0]
    cache.update(tokens(6.0), tokens(6.0), 0)
    assert stored(cache) == [3.0, 4.0, 5.0, 6.0]

    cache = kv.StaticCache(config=config, max_cache_len=4)
    cache.update(tokens(1.0, 2.0, 3.0, 4.0, 5.0, 6.0), tokens(1.0, 2.0, 3.0, 4.0, 5.0, 6.0), 0)
    assert stored(cache) == [3.0, 4.0, 5.0, 6.0]


def test_synthetic_dynamic_layers_grow_independently():
    cache = kv.DynamicCache()
    cache.update(tokens(1.0, 2.0), tokens(1.0, 2.0), 0)
    cache.update(tokens(10.0, 20.0), tokens(10.0, 20.0), 1)
    for value, other in ((3.0, 30.0), (4.0, 40.0)):
        cache.update(tokens(value), tokens(value), 0)
        cache.update(tokens(other), tokens(other), 1)
    assert stored(cache, 0) == [1.0, 2.0, 3.0, 4.0] and stored(cache, 1) == [10.0, 20.0, 30.0, 40.0]


def test_synthetic_static_plus_sliding_window_of_two():
    cache = kv.StaticCache(config=one_layer(["full_attention", "sliding_attention"], window=2), max_cache_len=4)
    full, _ = cache.update(tokens(1.0, 2.0, 3.0), tokens(1.0, 2.0, 3.0), 0)
    window, _ = cache.update(tokens(10.0, 20.0, 30.0), tokens(10.0, 20.0, 30.0), 1)
    assert full[0, 0, :, 0].tolist() == [1.0, 2.0, 3.0, 0.0]
    assert window[0, 0, :, 0].tolist() == [10.0, 20.0, 30.0]  # the whole prompt is returned
    assert stored(cache, 1) == [20.0, 30.0]  # only the window is kept
    cache.update(tokens(5.0), tokens(5.0), 0)
    cache.update(tokens(50.0), tokens(50.0), 1)
    assert stored(cache, 0) == [1.0, 2.0, 3.0, 5.0] and stored(cache, 1) == [30.0, 50.0]

"""The walking-skeleton slice: Cache construction, Dynamic/Static layers and early initialization."""

from __future__ import annotations

import pytest
import torch

from tests.kvcache.kvcache_support import raising_qualname
from transformers_errorkb.kvcache import (
    Cache,
    DynamicCache,
    DynamicLayer,
    LlamaConfig,
    PreTrainedConfig,
    StaticCache,
    StaticLayer,
)
from transformers_errorkb.kvcache.cache_utils import DynamicSlidingWindowLayer, LinearAttentionLayer


def llama(n=12):
    return LlamaConfig(num_hidden_layers=n, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)


def test_cache_needs_exactly_one_of_layers_or_class():
    with pytest.raises(ValueError, match="either from a list `layers`"):
        Cache(layers=[DynamicLayer()], layer_class_to_replicate=DynamicLayer)
    with pytest.raises(ValueError) as info:
        Cache()
    assert str(info.value) == (
        "You should provide exactly one of `layers` or `layer_class_to_replicate` to initialize a Cache."
    )


def test_config_builds_one_layer_per_hidden_layer():
    assert [type(layer) for layer in DynamicCache(config=llama()).layers] == [DynamicLayer] * 12
    static = StaticCache(config=llama(3), max_cache_len=16)
    assert [type(layer) for layer in static.layers] == [StaticLayer] * 3
    assert static.get_max_length() == 16


def test_bare_dynamic_cache_grows_lazily():
    cache = DynamicCache()
    assert len(cache) == 0
    k = torch.randn(1, 2, 3, 4)
    cache.update(k, k, 5)
    assert len(cache) == 6
    assert cache.get_seq_length(5) == 3 and cache.get_seq_length(0) == 0


def test_config_cache_rejects_out_of_range_layer():
    cache = DynamicCache(config=llama(2))
    k = torch.randn(1, 2, 3, 4)
    with pytest.raises(IndexError, match="list index out of range"):
        cache.update(k, k, 2)


def test_dynamic_update_concatenates_and_returns_everything():
    cache = DynamicCache(config=llama(1))
    a, b = torch.randn(2, 8, 3, 16), torch.randn(2, 8, 2, 16)
    cache.update(a, a, 0)
    keys, values = cache.update(b, b, 0)
    assert torch.equal(keys, torch.cat([a, b], dim=-2)) and torch.equal(values, keys)
    assert cache.get_seq_length() == 5
    assert cache.get_mask_sizes(4, 0) == (9, 0)


def test_static_update_writes_in_place_and_counts_with_a_tensor():
    cache = StaticCache(config=llama(1), max_cache_len=6)
    a = torch.randn(1, 2, 4, 3)
    keys, _ = cache.update(a, a, 0)
    assert keys.shape == (1, 2, 6, 3)
    assert torch.equal(keys[:, :, :4], a) and torch.count_nonzero(keys[:, :, 4:]) == 0
    length = cache.get_seq_length()
    assert isinstance(length, torch.Tensor) and length.dim() == 0 and int(length) == 4
    assert cache.get_mask_sizes(1, 0) == (6, 0)


def test_static_overflow_is_torch_index_error_and_still_counts():
    cache = StaticCache(config=llama(1), max_cache_len=3)
    a = torch.randn(1, 1, 4, 2)
    with pytest.raises(IndexError) as info:
        cache.update(a, a, 0)
    assert str(info.value) == "index_copy_(): index 3 is out of bounds for dimension 2 with size 3"
    assert int(cache.get_seq_length()) == 4
    assert raising_qualname(cache.update, a, a, 0) == "StaticLayer.update"


class TestEarlyInitialization:
    def test_head_dim_list_reports_num_heads_length(self):
        cache = DynamicCache(config=llama())
        with pytest.raises(ValueError) as info:
            cache.early_initialization(2, num_heads=8, head_dim=[128, 128], dtype=torch.bfloat16, device="cpu")
        assert str(info.value) == (
            "`head_dim` was provided as a list of length 12, but the Cache currently has 12 layers"
        )
        assert cache.is_initialized is False

    def test_num_heads_checked_first_with_singular_wording(self):
        cache = DynamicCache(config=llama())
        with pytest.raises(ValueError) as info:
            cache.early_initialization(1, num_heads=[8] * 3, head_dim=[128] * 5, dtype=torch.float32, device="cpu")
        assert str(info.value) == "`num_head` was provided as a list of length 3, but the Cache currently has 12 layers"

    def test_raise_sites_are_early_initialization(self):
        cache = DynamicCache(config=llama())
        for kwargs in ({"num_heads": [8], "head_dim": 4}, {"num_heads": 8, "head_dim": [4]}):
            qualname = raising_qualname(cache.early_initialization, 1, dtype=torch.float32, device="cpu", **kwargs)
            assert qualname == "Cache.early_initialization"

    def test_int_broadcast_initializes_dynamic_layers_empty(self):
        cache = DynamicCache(config=llama())
        cache.early_initialization(2, num_heads=8, head_dim=128, dtype=torch.bfloat16, device="cpu")
        assert cache.is_initialized
        for layer in cache.layers:
            assert layer.keys.shape == (0,) and layer.keys.dtype == torch.bfloat16
        assert (cache.get_seq_length(), cache.get_max_length(), cache.batch_size) == (0, -1, -1)
        k = torch.randn(2, 8, 3, 128)
        keys, _ = cache.update(k, k, 0)
        assert keys.shape == (2, 8, 3, 128) and keys.dtype == torch.float32

    def test_static_lists_and_skip_of_initialized_layers(self):
        cache = StaticCache(config=llama(2), max_cache_len=4)
        cache.early_initialization(1, num_heads=[8, 4], head_dim=[64, 32], dtype=torch.float16, device="cpu")
        assert [tuple(layer.keys.shape) for layer in cache.layers] == [(1, 8, 4, 64), (1, 4, 4, 32)]
        cache.early_initialization(3, num_heads=2, head_dim=128, dtype=torch.float32, device="cpu")
        assert [tuple(layer.keys.shape) for layer in cache.layers] == [(1, 8, 4, 64), (1, 4, 4, 32)]
        assert cache.layers[0].keys.dtype == torch.float16 and cache.batch_size == 1

    def test_layers_that_opt_out_are_skipped(self):
        cache = Cache(layers=[DynamicLayer(), LinearAttentionLayer(), DynamicSlidingWindowLayer(4)])
        cache.early_initialization(1, 2, 4, torch.float32, "cpu")
        assert [getattr(layer, "is_initialized", None) for layer in cache.layers] == [True, None, True]
        assert cache.is_initialized

    def test_empty_cache_and_non_int_arguments(self):
        cache = DynamicCache()
        cache.early_initialization(1, 8, 128, torch.float32, "cpu")
        assert len(cache) == 0 and cache.is_initialized is False
        with pytest.raises(ValueError, match="length 0, but the Cache currently has 0 layers"):
            cache.early_initialization(1, 8, [128, 128], torch.float32, "cpu")
        with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
            DynamicCache(config=llama(2)).early_initialization(1, torch.tensor(8), 4, torch.float32, "cpu")
        # bool is an int for the broadcast; tuples are lists.
        DynamicCache(config=llama(2)).early_initialization(1, True, (4, 4), torch.float32, "cpu")


def test_pretrained_config_carries_layer_types():
    config = PreTrainedConfig(num_hidden_layers=3, layer_types=["full_attention", "sliding_attention", "moe"], sliding_window=2)
    cache = DynamicCache(config=config)
    assert [type(layer).__name__ for layer in cache.layers] == [
        "DynamicLayer",
        "DynamicSlidingWindowLayer",
        "LinearAttentionLayer",
    ]

"""A "is this a decoding step?" helper that works for hybrid and attention-only caches."""

import torch
from transformers import DynamicCache, LlamaConfig, PreTrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def is_decoding(cache):
    if any(isinstance(layer, LinearAttentionCacheLayerMixin) for layer in cache.layers):
        return cache.has_previous_state()  # state layers know whether they saw a prefill
    return cache.get_seq_length() > 0  # attention-only: anything cached means decoding
# --8<-- [end:show]


hybrid = DynamicCache(config=PreTrainedConfig(num_hidden_layers=2, layer_types=["conv", "full_attention"]))
assert not is_decoding(hybrid)
hybrid.update_conv_state(torch.randn(2, 256, 3, device=device), layer_idx=0)
assert is_decoding(hybrid)

attention_only = DynamicCache(config=LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8))
assert not is_decoding(attention_only)
attention_only.update(torch.randn(2, 8, 3, 64, device=device), torch.randn(2, 8, 3, 64, device=device), 0)
assert is_decoding(attention_only)

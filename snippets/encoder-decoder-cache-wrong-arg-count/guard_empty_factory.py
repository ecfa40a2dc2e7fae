"""One helper for "a fresh cache for this model", so the two-cache shape is written once."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, LlamaConfig, T5Config


# --8<-- [start:show]
def fresh_cache(config):
    if config.is_encoder_decoder:
        return EncoderDecoderCache(DynamicCache(config=config), DynamicCache(config=config))
    return DynamicCache(config=config)
# --8<-- [end:show]


device = "cuda" if torch.cuda.is_available() else "cpu"
keys = torch.randn(1, 4, 1, 16, device=device)
t5 = fresh_cache(T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4))
t5.self_attention_cache.update(keys, keys, layer_idx=0)
llama = fresh_cache(LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4))
llama.update(keys, keys, layer_idx=0)
assert isinstance(t5, EncoderDecoderCache) and len(t5) == 2 and llama.get_seq_length() == 1

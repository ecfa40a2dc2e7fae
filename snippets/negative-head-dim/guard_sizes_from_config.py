"""Fill in unknown sizes from the model config instead of passing placeholders."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def kv_shape_from_config(config):
    """(num_kv_heads, head_dim) as the attention layers will produce them."""
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    num_kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    return num_kv_heads, head_dim


config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)
num_kv_heads, head_dim = kv_shape_from_config(config)
cache.early_initialization(1, num_kv_heads, head_dim, torch.float32, device)
# --8<-- [end:show]

assert cache.batch_size == 1
cache.update(torch.randn(1, 8, 3, 64, device=device), torch.randn(1, 8, 3, 64, device=device), layer_idx=0)

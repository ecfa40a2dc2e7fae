"""Accept the spellings people actually write: package names and any capitalisation."""

import torch
from transformers import LlamaConfig, QuantizedCache

# --8<-- [start:show]
ALIASES = {"quanto": "quanto", "optimum-quanto": "quanto", "optimum.quanto": "quanto", "hqq": "hqq"}


def quantized_cache(backend, config, **options):
    name = ALIASES.get(backend.strip().lower(), backend)  # unknown names still reach the real check
    return QuantizedCache(backend=name, config=config, **options)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = quantized_cache("optimum-quanto", config)
keys = torch.randn(1, 4, 8, 64, device=device)
cache.update(keys, keys, layer_idx=0)
assert cache.get_seq_length() == 8

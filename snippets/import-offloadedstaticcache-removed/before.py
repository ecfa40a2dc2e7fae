"""A static, CPU-offloaded cache for compiled generation, written for 4.45-4.57."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers import OffloadedStaticCache  # gone since transformers 5.0

cache = OffloadedStaticCache(config=config, max_batch_size=1, max_cache_len=64, device="cpu")
# --8<-- [end:show]

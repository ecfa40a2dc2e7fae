"""Code written for 4.52-4.57: a Gemma-2 style sliding/global static cache whose layers are offloaded to CPU."""

# --8<-- [start:show]
from transformers.cache_utils import OffloadedHybridCache  # gone since transformers 5.0
from transformers import Gemma2Config

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

cache = OffloadedHybridCache(config=config, max_batch_size=1, max_cache_len=32)
# --8<-- [end:show]

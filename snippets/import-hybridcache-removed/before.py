"""Code written for 4.44-4.57 that builds a Gemma-2 style sliding/global cache itself."""

# --8<-- [start:show]
from transformers import HybridCache  # gone since transformers 5.0
from transformers import Gemma2Config

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

cache = HybridCache(config=config, max_batch_size=1, max_cache_len=32)
# --8<-- [end:show]

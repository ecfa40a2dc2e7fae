"""Code written for 4.44-4.57 that builds a sliding-window static cache for a Mistral-style model."""

from transformers import MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
from transformers import SlidingWindowCache  # gone since transformers 5.0

cache = SlidingWindowCache(config=config, max_batch_size=1, max_cache_len=32)
# --8<-- [end:show]

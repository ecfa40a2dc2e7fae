"""Code written for transformers >= 4.56 (`DynamicCache(config=...)`) run on an older release."""

from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = DynamicCache(config=config)
# --8<-- [end:show]

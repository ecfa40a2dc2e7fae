"""Code written for 4.45-4.49, which let DynamicCache pre-allocate its layer list from `num_hidden_layers`."""

from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = DynamicCache(num_hidden_layers=config.num_hidden_layers)  # 4.45-4.49 only
# --8<-- [end:show]

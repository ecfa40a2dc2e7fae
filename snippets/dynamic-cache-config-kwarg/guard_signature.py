"""Pass `config` only where DynamicCache takes it."""

import inspect

from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
takes_config = "config" in inspect.signature(DynamicCache.__init__).parameters  # 4.56+
cache = DynamicCache(config=config) if takes_config else DynamicCache()
# --8<-- [end:show]

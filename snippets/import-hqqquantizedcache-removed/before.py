"""An HQQ-quantized KV cache, written for 4.56-4.57 (the per-backend class with the 4.56 keywords)."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers import HQQQuantizedCache  # gone since transformers 5.0

cache = HQQQuantizedCache(config=config, nbits=4, axis_key=1, axis_value=1)
# --8<-- [end:show]

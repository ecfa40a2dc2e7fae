"""Generation with the KV cache offloaded to CPU memory (OmniGen, IndexTTS2 style), written for 4.44-4.57."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers.cache_utils import DynamicCache, OffloadedCache  # OffloadedCache: 4.44-4.57 only

cache = OffloadedCache()
# --8<-- [end:show]

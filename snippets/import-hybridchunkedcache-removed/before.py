"""Code written for 4.54-4.57 that builds a Llama-4 style chunked/global static cache itself."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, attention_chunk_size=8,
                     layer_types=["chunked_attention", "chunked_attention", "chunked_attention", "full_attention"])

# --8<-- [start:show]
from transformers import HybridChunkedCache  # gone since transformers 5.0

cache = HybridChunkedCache(config=config, max_batch_size=1, max_cache_len=32)
# --8<-- [end:show]

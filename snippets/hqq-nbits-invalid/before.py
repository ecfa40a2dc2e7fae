"""A bit-width sweep for the quantized KV cache with the HQQ backend, including 6 bits."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
caches = {
    nbits: QuantizedCache(backend="hqq", config=config, nbits=nbits, axis_key=1, axis_value=1)
    for nbits in (8, 6, 4, 3, 2)
}
# --8<-- [end:show]

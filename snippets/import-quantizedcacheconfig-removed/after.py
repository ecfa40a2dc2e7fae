"""The settings are keywords of QuantizedCache (4.56+); needs optimum-quanto for the quanto backend."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers.cache_utils import QuantizedCache

cache = QuantizedCache(backend="quanto", config=config, nbits=4, residual_length=128)
# --8<-- [end:show]

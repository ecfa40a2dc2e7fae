"""Give the cache the language model's own config: the one that has num_hidden_layers."""

import torch
from transformers import DynamicCache, PretrainedConfig, LlamaConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


class SpeechConfig(PretrainedConfig):
    model_type = "speech_demo"

    def __init__(self, decoder_config=None, **kwargs):
        self.decoder_config = decoder_config
        super().__init__(**kwargs)


config = SpeechConfig(decoder_config=LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                                                 num_key_value_heads=2, intermediate_size=128, vocab_size=128))

# --8<-- [start:show]
cache = DynamicCache(config=config.decoder_config)  # the sub-config that describes the decoder's layers
# --8<-- [end:show]
keys = torch.zeros(1, 2, 3, 16, device=device)
cache.update(keys, keys.clone(), 0)
cache.update(keys, keys.clone(), 1)
assert cache.get_seq_length() == 3

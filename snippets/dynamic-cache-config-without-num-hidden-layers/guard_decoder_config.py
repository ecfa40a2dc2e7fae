"""Pick the config that describes the decoder's layers, and say so when none does."""

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
def decoder_config_of(config):
    """The config whose layers the cache mirrors: the config itself, or the sub-config that has them."""
    for candidate in (config, getattr(config, "decoder_config", None)):  # your model's name for it
        if candidate is not None and (hasattr(candidate, "layer_types") or hasattr(candidate, "num_hidden_layers")):
            return candidate
    raise ValueError(f"{type(config).__name__} has no num_hidden_layers or layer_types, nor a sub-config with them")


cache = DynamicCache(config=decoder_config_of(config))
# --8<-- [end:show]
keys = torch.zeros(1, 2, 3, 16, device=device)
cache.update(keys, keys.clone(), 0)

"""A composite model config (a speech model whose language model settings live in a sub-config) given to DynamicCache."""

from transformers import DynamicCache, PretrainedConfig, LlamaConfig


class SpeechConfig(PretrainedConfig):
    model_type = "speech_demo"

    def __init__(self, decoder_config=None, **kwargs):
        self.decoder_config = decoder_config  # the language model's settings, under a name transformers does not know
        super().__init__(**kwargs)


config = SpeechConfig(decoder_config=LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                                                 num_key_value_heads=2, intermediate_size=128, vocab_size=128))

# --8<-- [start:show]
cache = DynamicCache(config=config)  # generate() does the same with model.config.get_text_config(decoder=True)
# --8<-- [end:show]

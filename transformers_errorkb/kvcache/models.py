"""The model configs documentation snippets build caches from, with upstream 5.15.1 defaults.

Only the fields that shape a cache (depth, heads, head size, sliding window, layer types) and
their derivation rules are modelled; any other keyword is kept as a plain attribute.
"""

from __future__ import annotations

from .configuration_utils import PreTrainedConfig


class _DecoderOnlyConfig(PreTrainedConfig):
    """Shared derivation of Llama-style decoders: head size and KV heads default from the rest."""

    def __post_init__(self, **kwargs):
        if self.head_dim is None:
            self.head_dim = self.hidden_size // self.num_attention_heads
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        super().__post_init__(**kwargs)

    def validate_architecture(self):
        if self.hidden_size % self.num_attention_heads != 0:
            raise ValueError(
                f"The hidden size ({self.hidden_size}) is not a multiple of the number of attention "
                f"heads ({self.num_attention_heads})."
            )


class LlamaConfig(_DecoderOnlyConfig):
    model_type = "llama"
    _defaults = {
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": None,
        "max_position_embeddings": 2048,
        "head_dim": None,
    }


class MistralConfig(_DecoderOnlyConfig):
    model_type = "mistral"
    _defaults = {
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": None,
        "max_position_embeddings": 4096 * 32,
        "sliding_window": 4096,
    }

    # Upstream Mistral has no architecture validator.
    validate_architecture = None


class Gemma2Config(_DecoderOnlyConfig):
    """Alternates sliding and full attention, starting with sliding, unless told otherwise."""

    model_type = "gemma2"
    _defaults = {
        "vocab_size": 256000,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 8192,
        "sliding_window": 4096,
        "layer_types": None,
    }

    def __post_init__(self, **kwargs):
        if self.layer_types is None:
            self.layer_types = [
                "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(self.num_hidden_layers)
            ]
        super().__post_init__(**kwargs)


class T5Config(PreTrainedConfig):
    """Encoder-decoder with T5's own field names, aliased to the generic ones."""

    model_type = "t5"
    attribute_map = {
        "hidden_size": "d_model",
        "num_attention_heads": "num_heads",
        "num_hidden_layers": "num_layers",
        "head_dim": "d_kv",
    }
    _defaults = {
        "vocab_size": 32128,
        "d_model": 512,
        "d_kv": 64,
        "d_ff": 2048,
        "num_layers": 6,
        "num_decoder_layers": None,
        "num_heads": 8,
        "feed_forward_proj": "relu",
        "is_encoder_decoder": True,
        "is_decoder": False,
    }

    def __post_init__(self, **kwargs):
        if self.num_decoder_layers is None:
            self.num_decoder_layers = self.num_layers
        super().__post_init__(**kwargs)

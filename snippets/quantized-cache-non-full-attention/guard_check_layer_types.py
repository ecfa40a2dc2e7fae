"""See which layer kinds the config produces before asking for a quantized cache."""

from transformers import DynamicCache, MistralConfig, QuantizedCache


# --8<-- [start:show]
def quantized_cache(backend, config, **options):
    # A DynamicCache built from the config shows the layer kinds the model needs.
    kinds = {type(layer).__name__ for layer in DynamicCache(config=config).layers} - {"DynamicLayer"}
    if kinds:
        raise ValueError(
            f"QuantizedCache needs full attention in every layer, but this model has "
            f"{', '.join(sorted(kinds))} layers; use DynamicCache(config=config) for it"
        )
    return QuantizedCache(backend=backend, config=config, **options)
# --8<-- [end:show]


config = MistralConfig(
    num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4, sliding_window=4096
)
full = MistralConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4,
                     sliding_window=None)
quantized_cache("quanto", full)  # full attention in every layer: built by the library
quantized_cache("quanto", config)

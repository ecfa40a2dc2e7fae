"""Check the backend name against what this release accepts, and list the choices."""

from transformers import LlamaConfig, QuantizedCache

# --8<-- [start:show]
KV_CACHE_BACKENDS = ("quanto", "hqq")  # transformers 5.15.1


def quantized_cache(backend, config, **options):
    if backend not in KV_CACHE_BACKENDS:
        raise ValueError(
            f"unknown KV cache quantization backend {backend!r}; this transformers accepts "
            f"{', '.join(KV_CACHE_BACKENDS)}"
        )
    return QuantizedCache(backend=backend, config=config, **options)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4)
quantized_cache("quanto", config)  # a backend it accepts: built by the library
quantized_cache("fp8", config)

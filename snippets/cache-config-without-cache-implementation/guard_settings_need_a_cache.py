"""Build generation settings in one place that refuses cache settings without the cache they configure."""

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
def generation_config(cache_implementation=None, cache_config=None, **kwargs):
    if cache_config is not None and cache_implementation is None:
        raise ValueError(f"cache_config {cache_config} given without cache_implementation: say which cache it "
                         "configures, e.g. cache_implementation='quantized'")
    return GenerationConfig(cache_implementation=cache_implementation, cache_config=cache_config, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
settings = generation_config(cache_config={"backend": "quanto", "nbits": 4}, do_sample=False, max_new_tokens=3,
                             pad_token_id=0)
model.generate(torch.tensor([[1, 2, 3, 4]]), attention_mask=torch.ones(1, 4, dtype=torch.long),
               generation_config=settings)

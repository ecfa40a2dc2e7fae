"""A token-pruning patch of the decoder forward (HoliTom on LLaVA-OneVision style) that builds the mask the 4.52 way."""

import torch
from transformers import DynamicCache, Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
config = Qwen2Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
decoder = Qwen2ForCausalLM(config).eval().model
inputs_embeds = decoder.embed_tokens(torch.tensor([[5, 6, 7, 8]]))
attention_mask = torch.ones(1, 4, dtype=torch.long)
cache_position = torch.arange(4)
past_key_values = DynamicCache()

# --8<-- [start:show]
causal_mask = decoder._update_causal_mask(  # the decoder models lost this method in 4.53
    attention_mask, inputs_embeds, cache_position, past_key_values, False
)
# --8<-- [end:show]

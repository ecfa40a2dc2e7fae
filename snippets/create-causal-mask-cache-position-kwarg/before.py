"""Remote modeling code (granite-vision style) that builds its attention mask the 4.5x way."""

import torch
from transformers import DynamicCache, LlamaConfig
from transformers.masking_utils import create_causal_mask

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
inputs_embeds = torch.randn(1, 4, 64)
attention_mask = torch.ones(1, 4, dtype=torch.long)
past_key_values = DynamicCache(config=config)

# --8<-- [start:show]
cache_position = torch.arange(4)
mask = create_causal_mask(
    config=config,
    inputs_embeds=inputs_embeds,
    attention_mask=attention_mask,
    cache_position=cache_position,  # gone since transformers 5.9
    past_key_values=past_key_values,
    position_ids=cache_position.unsqueeze(0),
)
# --8<-- [end:show]

"""5.9+: the mask is derived from the cache and the position ids; there is no `cache_position` any more."""

import torch
from transformers import DynamicCache, LlamaConfig
from transformers.masking_utils import create_causal_mask

device = "cuda" if torch.cuda.is_available() else "cpu"

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
inputs_embeds = torch.randn(1, 4, 64, device=device)
attention_mask = torch.ones(1, 4, dtype=torch.long, device=device)
past_key_values = DynamicCache(config=config)

# --8<-- [start:show]
position_ids = torch.arange(4, device=device).unsqueeze(0)
mask = create_causal_mask(
    config=config,
    inputs_embeds=inputs_embeds,
    attention_mask=attention_mask,
    past_key_values=past_key_values,
    position_ids=position_ids,
)
# --8<-- [end:show]

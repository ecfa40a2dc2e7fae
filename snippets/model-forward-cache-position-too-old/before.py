"""A decoding loop written for transformers >= 4.38 (ChatTTS style), run on 4.36 or 4.37."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaModel

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
gpt = LlamaModel(config).eval()
inputs_embeds = torch.randn(1, 4, 64)  # the application's own text and audio embeddings

# --8<-- [start:show]
outputs = gpt.forward(
    inputs_embeds=inputs_embeds,
    attention_mask=torch.ones(1, 4, dtype=torch.long),
    past_key_values=DynamicCache(),
    use_cache=True,
    cache_position=torch.arange(4),  # LlamaModel.forward takes it from transformers 4.38 on
)
# --8<-- [end:show]

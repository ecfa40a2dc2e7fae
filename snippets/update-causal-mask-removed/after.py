"""Build the mask with transformers.masking_utils, as the decoder models themselves do from 4.53 on."""

import torch
from transformers import DynamicCache, Qwen2Config, Qwen2ForCausalLM
from transformers.masking_utils import create_causal_mask

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = Qwen2Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
decoder = Qwen2ForCausalLM(config).to(device).eval().model
inputs_embeds = decoder.embed_tokens(torch.tensor([[5, 6, 7, 8]], device=device))
attention_mask = torch.ones(1, 4, dtype=torch.long, device=device)
cache_position = torch.arange(4, device=device)
past_key_values = DynamicCache()

# --8<-- [start:show]
causal_mask = create_causal_mask(  # the keywords of 4.53 - 5.1
    config=decoder.config,
    input_embeds=inputs_embeds,
    attention_mask=attention_mask,
    cache_position=cache_position,
    past_key_values=past_key_values,
)
# --8<-- [end:show]

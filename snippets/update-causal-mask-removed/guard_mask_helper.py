"""One helper for the decoder's causal mask, whichever way the installed release builds it."""

import inspect

import torch
from transformers import DynamicCache, Qwen2Config, Qwen2ForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

try:
    from transformers.masking_utils import create_causal_mask
except ImportError:  # before 4.53 the decoder built its own mask
    create_causal_mask = None


# --8<-- [start:show]
def causal_mask_for(decoder, inputs_embeds, attention_mask, cache_position, past_key_values):
    """masking_utils from 4.53 on, with only the keywords this release takes; the model's method before."""
    if create_causal_mask is None:
        return decoder._update_causal_mask(attention_mask, inputs_embeds, cache_position, past_key_values, False)
    params = inspect.signature(create_causal_mask).parameters
    kwargs = {"config": decoder.config, "attention_mask": attention_mask}
    kwargs["inputs_embeds" if "inputs_embeds" in params else "input_embeds"] = inputs_embeds  # renamed in 5.2
    kwargs["cache" if "cache" in params else "past_key_values"] = past_key_values  # renamed in 5.24
    if "cache_position" in params:  # 4.53 - 5.8
        kwargs["cache_position"] = cache_position
    if "position_ids" in params:  # 4.53.1 on
        kwargs["position_ids"] = cache_position.unsqueeze(0)
    return create_causal_mask(**kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = Qwen2Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
decoder = Qwen2ForCausalLM(config).to(device).eval().model
inputs_embeds = decoder.embed_tokens(torch.tensor([[5, 6, 7, 8]], device=device))
mask = causal_mask_for(decoder, inputs_embeds, torch.ones(1, 4, dtype=torch.long, device=device),
                       torch.arange(4, device=device), DynamicCache())

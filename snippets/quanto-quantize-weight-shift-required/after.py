"""Stuck on transformers 4.46: hand its quanto cache the scale and shift optimum-quanto now needs."""

import optimum.quanto
import torch
from optimum.quanto import MaxOptimizer
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# transformers 4.46 calls quantize_weight(tensor, qtype, axis, group_size): put the group size back
# where it belongs and compute the scale and shift first, as transformers 4.47 does.
_quantize_weight = optimum.quanto.quantize_weight


def quantize_weight(t, qtype, axis, scale, shift=None, group_size=None, **kwargs):
    if not torch.is_tensor(scale):  # the group size, from transformers 4.46
        group_size = scale
        scale, shift = MaxOptimizer()(t, qtype, axis, group_size)
    return _quantize_weight(t, qtype, axis, scale, shift, group_size, **kwargs)


optimum.quanto.quantize_weight = quantize_weight
# --8<-- [end:show]

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
input_ids = torch.tensor([[1, 2, 3, 4]], device=device)

# --8<-- [start:show]
model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=3, do_sample=False,
               pad_token_id=0, cache_implementation="quantized", cache_config={"backend": "quanto", "nbits": 4})
# --8<-- [end:show]

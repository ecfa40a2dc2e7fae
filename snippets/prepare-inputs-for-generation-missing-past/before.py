"""A model whose `prepare_inputs_for_generation` still takes the cache as a positional `past` (transformers 3.x style)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
class OldStyleCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past, attention_mask=None, **kwargs):
        if past is not None:
            input_ids = input_ids[:, -1:]  # with a cache, only the new token
        return {"input_ids": input_ids, "past_key_values": past, "attention_mask": attention_mask,
                "use_cache": kwargs.get("use_cache")}
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = OldStyleCausalLM(config).eval()
model.generate(torch.tensor([[1, 2, 3, 4]]), max_new_tokens=3, do_sample=True, pad_token_id=0)

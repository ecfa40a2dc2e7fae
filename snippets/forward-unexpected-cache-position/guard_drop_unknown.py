"""When the forward cannot change (vendored code), drop what it does not accept in prepare_inputs_for_generation."""

import inspect

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


class ForkedCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None,
                output_hidden_states=None, return_dict=None):
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, return_dict=return_dict)

    # --8<-- [start:show]
    def prepare_inputs_for_generation(self, *args, **kwargs):
        inputs = super().prepare_inputs_for_generation(*args, **kwargs)
        accepted = inspect.signature(self.forward).parameters
        return {name: value for name, value in inputs.items() if name in accepted}
    # --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = ForkedCausalLM(config).to(device).eval()
model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=False, pad_token_id=0)

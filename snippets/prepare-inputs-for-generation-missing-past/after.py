"""Name the cache `past_key_values`, take the rest as keywords, and let the parent build the inputs."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class OldStyleCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):
        # ... custom inputs would be added here ...
        return super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = OldStyleCausalLM(config).to(device).eval()
output = model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=True,
                        pad_token_id=0)
assert output.shape[1] > 4

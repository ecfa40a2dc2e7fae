"""Release-independent: take everything as **kwargs and pass it through untouched."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class ForkedCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, **kwargs):
        # custom handling of input_ids here; the cache travels in kwargs whatever its name
        return super().forward(input_ids=input_ids, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = ForkedCausalLM(config).to(device).eval()
model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=False, pad_token_id=0)

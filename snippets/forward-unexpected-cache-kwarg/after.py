"""5.24 passes the cache as `cache=`: accept it (and **kwargs) and hand it on."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class ForkedCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, cache=None,
                inputs_embeds=None, labels=None, use_cache=None, logits_to_keep=0, **kwargs):
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               cache=cache, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, logits_to_keep=logits_to_keep, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = ForkedCausalLM(config).to(device).eval()
model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=False, pad_token_id=0)

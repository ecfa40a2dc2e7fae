"""An adapter library's attention subclass (adapters / LoRA-style), written for transformers 4.48-4.55."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaAttention


# --8<-- [start:show]
class AttentionWithAdapters(LlamaAttention):
    def forward(self, hidden_states, position_embeddings, attention_mask, past_key_value=None,
                cache_position=None, position_ids=None, use_cache=False, output_attentions=False):
        # ... adapter logic around the original attention ...
        return super().forward(hidden_states, position_embeddings, attention_mask,
                               past_key_value=past_key_value, cache_position=cache_position)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
for layer in model.model.layers:
    layer.self_attn.__class__ = AttentionWithAdapters  # how adapter libraries patch a loaded model
model(torch.tensor([[1, 2, 3, 4]]), use_cache=True)

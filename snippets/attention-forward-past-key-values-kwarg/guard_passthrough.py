"""Release-independent: name only what the adapter needs and pass the rest through, whatever it is called."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaAttention

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class AttentionWithAdapters(LlamaAttention):
    def forward(self, hidden_states, *args, **kwargs):
        # ... adapter logic on hidden_states ...; the cache travels in args/kwargs under its release's name
        return super().forward(hidden_states, *args, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
for layer in model.model.layers:
    layer.self_attn.__class__ = AttentionWithAdapters
model(torch.tensor([[1, 2, 3, 4]], device=device), use_cache=True)

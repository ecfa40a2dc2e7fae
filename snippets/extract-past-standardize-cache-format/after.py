"""Take the cache from the model output and let the library's own hook do the bookkeeping."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class GLMStyleForCausalLM(LlamaForCausalLM):
    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False, **kwargs):
        model_kwargs["past_key_values"] = outputs.past_key_values  # what the forward returned, on every release
        # ... model-specific updates (position ids, attention mask) go here ...
        return model_kwargs
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).to(device).eval()
outputs = model(torch.tensor([[1, 2, 3, 4]], device=device), use_cache=True)
kwargs = model._update_model_kwargs_for_generation(outputs, {})
assert kwargs["past_key_values"] is outputs.past_key_values

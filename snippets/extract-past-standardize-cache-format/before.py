"""GLM / ChatGLM / CogVLM2 remote code: `_update_model_kwargs_for_generation` written for transformers <= 4.43."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
class GLMStyleForCausalLM(LlamaForCausalLM):
    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False,
                                            standardize_cache_format=False, **kwargs):
        model_kwargs["past_key_values"] = self._extract_past_from_model_output(
            outputs, standardize_cache_format=standardize_cache_format)
        return model_kwargs
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).eval()
outputs = model(torch.tensor([[1, 2, 3, 4]]), use_cache=True)
kwargs = model._update_model_kwargs_for_generation(outputs, {})

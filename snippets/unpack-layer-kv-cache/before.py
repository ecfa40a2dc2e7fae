"""GLM-4V / CogVLM2 style remote code written for transformers <= 4.41, run on 4.42 or 4.43."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
class GLMStyleForCausalLM(LlamaForCausalLM):
    _supports_cache_class = False  # remote code of that time keeps a tuple of (keys, values) per layer

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False,
                                            standardize_cache_format=False, **kwargs):
        # up to 4.41 the helper returned the cache; from 4.42 it returns ("past_key_values", cache)
        model_kwargs["past_key_values"] = self._extract_past_from_model_output(
            outputs, standardize_cache_format=standardize_cache_format)
        model_kwargs["attention_mask"] = torch.cat(
            [model_kwargs["attention_mask"], model_kwargs["attention_mask"][:, -1:]], dim=-1)
        return model_kwargs

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if past_key_values is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,
                "use_cache": True}

    def forward(self, input_ids=None, past_key_values=None, **kwargs):
        if past_key_values is not None:
            for kv_cache in past_key_values:  # what each GLM attention layer does with its entry
                cache_k, cache_v = kv_cache
        return super().forward(input_ids=input_ids, past_key_values=past_key_values, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).eval()
model.generate(torch.tensor([[1, 2, 3, 4]]), attention_mask=torch.ones(1, 4, dtype=torch.long), max_new_tokens=3,
               do_sample=True, pad_token_id=0)

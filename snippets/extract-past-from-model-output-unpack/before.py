"""GLM-4 / LongWriter style remote code updated for transformers 4.42, run on an older release."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
class GLMStyleForCausalLM(LlamaForCausalLM):
    _supports_cache_class = False

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False, **kwargs):
        # 4.42+ return ("past_key_values", cache); up to 4.41 the helper returns the cache itself
        cache_name, cache = self._extract_past_from_model_output(outputs)
        model_kwargs[cache_name] = cache
        model_kwargs["attention_mask"] = torch.cat(
            [model_kwargs["attention_mask"], model_kwargs["attention_mask"][:, -1:]], dim=-1)
        return model_kwargs

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if past_key_values is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,
                "use_cache": True}
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=3, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).eval()
model.generate(torch.tensor([[1, 2, 3, 4]]), attention_mask=torch.ones(1, 4, dtype=torch.long), max_new_tokens=3,
               do_sample=True, pad_token_id=0)

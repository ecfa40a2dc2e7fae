"""Remote code that must keep calling the helper: accept both of its return shapes."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def extracted_cache(result):
    """4.42-4.48 return ("past_key_values", cache); earlier releases return the cache itself."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        return result[1]
    return result


class GLMStyleForCausalLM(LlamaForCausalLM):
    _supports_cache_class = False

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False, **kwargs):
        model_kwargs["past_key_values"] = extracted_cache(self._extract_past_from_model_output(outputs))
        model_kwargs["attention_mask"] = torch.cat(
            [model_kwargs["attention_mask"], model_kwargs["attention_mask"][:, -1:]], dim=-1)
        return model_kwargs
# --8<-- [end:show]

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[2]
            input_ids = input_ids[:, past_length:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,
                "use_cache": True}


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).to(device).eval()
model.generate(torch.tensor([[1, 2, 3, 4]], device=device),
               attention_mask=torch.ones(1, 4, dtype=torch.long, device=device), max_new_tokens=3, do_sample=True,
               pad_token_id=0)

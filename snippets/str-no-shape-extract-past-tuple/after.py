"""Let the library's own update step extract the cache: it knows its release's return value."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class GLMStyleForCausalLM(LlamaForCausalLM):
    _supports_cache_class = False

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False, **kwargs):
        # the parent stores the cache (and extends the attention mask) the way this release needs
        return super()._update_model_kwargs_for_generation(
            outputs, model_kwargs, is_encoder_decoder=is_encoder_decoder, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if past_key_values is not None:
            if hasattr(past_key_values, "get_seq_length"):
                past_length = past_key_values.get_seq_length()
            else:  # a tuple of (keys, values) pairs, as older releases return here
                past_length = past_key_values[0][0].shape[2]
            input_ids = input_ids[:, past_length:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,
                "use_cache": True}
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = GLMStyleForCausalLM(config).to(device).eval()
model.generate(torch.tensor([[1, 2, 3, 4]], device=device),
               attention_mask=torch.ones(1, 4, dtype=torch.long, device=device), max_new_tokens=3, do_sample=True,
               pad_token_id=0)

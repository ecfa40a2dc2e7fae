"""Check the override's signature before generating: a clear error instead of a TypeError from deep in generate()."""

import inspect

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


class CurrentCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):
        return super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, **kwargs)


class OldStyleCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past, attention_mask=None, **kwargs):
        if past is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids, "past_key_values": past, "attention_mask": attention_mask,
                "use_cache": kwargs.get("use_cache")}


# --8<-- [start:show]
def generate_checked(model, input_ids, **kwargs):
    """generate() passes the cache as `past_key_values`: an override that names `past` is written for 3.x."""
    parameters = inspect.signature(model.prepare_inputs_for_generation).parameters
    if "past" in parameters:
        raise TypeError(f"{type(model).__name__}.prepare_inputs_for_generation takes `past`; generate() passes "
                        "the cache as `past_key_values` since transformers 4.26")
    return model.generate(input_ids, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
prompt = torch.tensor([[1, 2, 3, 4]], device=device)
current = CurrentCausalLM(config).to(device).eval()
generate_checked(current, prompt, max_new_tokens=3, do_sample=True, pad_token_id=0)  # runs
old = OldStyleCausalLM(config).to(device).eval()
generate_checked(old, prompt, max_new_tokens=3, do_sample=True, pad_token_id=0)  # stopped with the fix in the message

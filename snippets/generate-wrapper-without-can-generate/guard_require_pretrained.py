"""Refuse to run generate() on anything but a PreTrainedModel, naming the model to call instead."""

import torch
from transformers import GenerationMixin, GPT2Config, GPT2LMHeadModel, PreTrainedModel

device = "cuda" if torch.cuda.is_available() else "cpu"


class PromptForGeneration(torch.nn.Module, GenerationMixin):
    def __init__(self, plm):
        super().__init__()
        self.plm = plm
        self.config = plm.config
        self.generation_config = plm.generation_config
        self.main_input_name = "input_ids"

    def forward(self, input_ids=None, **kwargs):
        return self.plm(input_ids=input_ids, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        return self.plm.prepare_inputs_for_generation(input_ids, **kwargs)


# --8<-- [start:show]
def generate_checked(model, input_ids, **kwargs):
    """generate() reads PreTrainedModel's attributes as it goes: a bare nn.Module wrapper fails on one of them."""
    if not isinstance(model, PreTrainedModel):
        raise TypeError(f"{type(model).__name__} is not a PreTrainedModel: call generate() on the model it wraps "
                        "(self.plm.generate)")
    return model.generate(input_ids=input_ids, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64, bos_token_id=0, eos_token_id=0)
plm = GPT2LMHeadModel(config).to(device).eval()
prompt = torch.tensor([[1, 2, 3]], device=device)
generate_checked(plm, prompt, max_new_tokens=3, do_sample=False, pad_token_id=0)  # runs
generate_checked(PromptForGeneration(plm), prompt, max_new_tokens=3, do_sample=False, pad_token_id=0)  # stopped

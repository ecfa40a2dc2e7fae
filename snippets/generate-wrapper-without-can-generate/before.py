"""A prompt wrapper (OpenPrompt-style) that mixes GenerationMixin into a plain nn.Module and generates through it."""

import torch
from transformers import GenerationMixin, GPT2Config, GPT2LMHeadModel


# --8<-- [start:show]
class PromptForGeneration(torch.nn.Module, GenerationMixin):
    def __init__(self, plm):
        super().__init__()
        self.plm = plm
        self.config = plm.config
        self.generation_config = plm.generation_config
        self.main_input_name = "input_ids"

    @property
    def device(self):
        return self.plm.device

    def forward(self, input_ids=None, **kwargs):
        # ... the prompt template would be applied here ...
        return self.plm(input_ids=input_ids, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        return self.plm.prepare_inputs_for_generation(input_ids, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
plm = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64)).eval()
prompt_model = PromptForGeneration(plm)
prompt_model.generate(input_ids=torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False, pad_token_id=0)

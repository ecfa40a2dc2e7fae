"""The wrapper prepares the inputs and hands generation to the PreTrainedModel it holds."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class PromptForGeneration(torch.nn.Module):
    def __init__(self, plm):
        super().__init__()
        self.plm = plm

    def forward(self, input_ids=None, **kwargs):
        # ... the prompt template would be applied here ...
        return self.plm(input_ids=input_ids, **kwargs)

    def generate(self, input_ids, **kwargs):
        # ... the prompt template would be applied to input_ids here ...
        return self.plm.generate(input_ids=input_ids, **kwargs)  # not super().generate(): plm is a PreTrainedModel
# --8<-- [end:show]


torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64, bos_token_id=0, eos_token_id=0)
plm = GPT2LMHeadModel(config).to(device).eval()
prompt_model = PromptForGeneration(plm)
output = prompt_model.generate(torch.tensor([[1, 2, 3]], device=device), max_new_tokens=3, do_sample=False,
                               pad_token_id=0)
assert output.shape[1] > 3

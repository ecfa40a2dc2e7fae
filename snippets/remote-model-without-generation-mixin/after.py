"""The model class lists GenerationMixin after PreTrainedModel, as transformers' own generating classes do."""

import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput


class TinyConfig(PretrainedConfig):
    model_type = "tiny-remote-lm"

    def __init__(self, vocab_size=32, hidden_size=16, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        super().__init__(**kwargs)


# --8<-- [start:show]
class TinyLanguageForConditionalGeneration(PreTrainedModel, GenerationMixin):  # GenerationMixin after PreTrainedModel
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def forward(self, input_ids, attention_mask=None, **kwargs):
        return CausalLMOutput(logits=self.lm_head(self.embed(input_ids)))

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        return {"input_ids": input_ids}


class TinyForConditionalGeneration(PreTrainedModel):  # the outer remote class, as Florence-2's
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.language_model = TinyLanguageForConditionalGeneration(config)
        self.post_init()

    def generate(self, input_ids, **kwargs):
        return self.language_model.generate(input_ids, **kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
model = TinyForConditionalGeneration(TinyConfig(pad_token_id=0, bos_token_id=1, eos_token_id=2)).eval()
output = model.generate(torch.tensor([[1, 5, 6]]), max_new_tokens=3, do_sample=False, use_cache=False)
assert output.shape == (1, 6)

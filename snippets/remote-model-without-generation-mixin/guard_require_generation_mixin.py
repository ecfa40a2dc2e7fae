"""Check that a loaded model can generate before calling generate(), and say what to change when it cannot."""

import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput


# --8<-- [start:show]
def generate_with(model, input_ids, **kwargs):
    if not isinstance(model, GenerationMixin):  # PreTrainedModel alone has no generate() from 4.52
        raise TypeError(
            f"{type(model).__name__} does not inherit GenerationMixin, so it has no generate() on this "
            f"transformers release; declare it as class {type(model).__name__}(PreTrainedModel, GenerationMixin)"
        )
    return model.generate(input_ids, **kwargs)
# --8<-- [end:show]


class TinyConfig(PretrainedConfig):
    model_type = "tiny-remote-lm"

    def __init__(self, vocab_size=32, hidden_size=16, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        super().__init__(**kwargs)


class TinyForCausalLM(PreTrainedModel, GenerationMixin):
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


class RemoteTinyForCausalLM(PreTrainedModel):  # the remote-code class as it is written today
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


torch.manual_seed(0)
config = TinyConfig(pad_token_id=0, bos_token_id=1, eos_token_id=2)
input_ids = torch.tensor([[1, 5, 6]])
good = generate_with(TinyForCausalLM(config).eval(), input_ids, max_new_tokens=3, do_sample=False, use_cache=False)
assert good.shape == (1, 6)
generate_with(RemoteTinyForCausalLM(config).eval(), input_ids, max_new_tokens=3, do_sample=False, use_cache=False)

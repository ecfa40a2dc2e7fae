"""Answer the capability flags generate() reads from the wrapped language model, whichever ones the release reads."""

import torch
from torch import nn
from transformers import GenerationConfig, GenerationMixin, LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
class PrismaticVLM(nn.Module, GenerationMixin):
    """Dispatches generate() to the language model's own forward, as Prismatic's VLM class does."""

    main_input_name = "input_ids"

    def __init__(self, llm):
        super().__init__()
        self.llm = llm
        self.config = llm.config
        self.generation_config = GenerationConfig.from_model_config(llm.config)

    @property
    def device(self):
        return next(self.parameters()).device

    def can_generate(self):
        return True

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None,
                use_cache=None, return_dict=None, **kwargs):
        return self.llm(input_ids=input_ids, attention_mask=attention_mask, past_key_values=past_key_values,
                        inputs_embeds=inputs_embeds, use_cache=use_cache, return_dict=return_dict, **kwargs)

    def prepare_inputs_for_generation(self, *args, **kwargs):
        return self.llm.prepare_inputs_for_generation(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("_supports_"):  # capability flags: the wrapped model's answer is the right one
            return getattr(self.llm, name)
        return super().__getattr__(name)  # parameters, buffers and submodules, as nn.Module does
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
vlm = PrismaticVLM(LlamaForCausalLM(config).eval())
vlm.generate(torch.tensor([[1, 2, 3, 4]]), attention_mask=torch.ones(1, 4, dtype=torch.long), max_new_tokens=3,
             do_sample=False, pad_token_id=0)

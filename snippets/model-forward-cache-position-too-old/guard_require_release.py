"""Say at start-up which transformers the code needs, instead of failing at the first forward call."""

import torch
import transformers
from packaging.version import Version
from transformers import DynamicCache, LlamaConfig, LlamaModel

device = "cuda" if torch.cuda.is_available() else "cpu"

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
gpt = LlamaModel(config).to(device).eval()
# what this release has still works: a forward call without cache_position, run by the library
gpt.forward(inputs_embeds=torch.randn(1, 4, 64, device=device),
            attention_mask=torch.ones(1, 4, dtype=torch.long, device=device), use_cache=False)

# --8<-- [start:show]
if Version(transformers.__version__) < Version("4.38"):
    raise RuntimeError(
        f"this code passes cache_position to LlamaModel.forward, which needs transformers>=4.38 "
        f"(installed: {transformers.__version__}); run: pip install -U transformers"
    )
# --8<-- [end:show]

gpt.forward(inputs_embeds=torch.randn(1, 4, 64, device=device),
            attention_mask=torch.ones(1, 4, dtype=torch.long, device=device), past_key_values=DynamicCache(),
            use_cache=True, cache_position=torch.arange(4, device=device))

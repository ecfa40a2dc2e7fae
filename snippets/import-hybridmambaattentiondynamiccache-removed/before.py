"""Remote code for a Granite-4 hybrid model (granite-vision style) written for transformers 4.52-5.4."""

import torch
from transformers import GraniteMoeHybridConfig

config = GraniteMoeHybridConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=64, num_attention_heads=4,
                                num_key_value_heads=2, vocab_size=128, layer_types=["mamba", "attention"],
                                mamba_n_heads=4, mamba_d_head=32, mamba_d_state=16, mamba_n_groups=1,
                                num_local_experts=0, shared_intermediate_size=64)

# --8<-- [start:show]
from transformers.models.granitemoehybrid.modeling_granitemoehybrid import (  # gone since 5.5
    HybridMambaAttentionDynamicCache,
)

cache = HybridMambaAttentionDynamicCache(config, batch_size=1, dtype=torch.float32, device="cpu")
# --8<-- [end:show]

"""Ask the model that generates (it inherits GenerationMixin), not its inner language model."""

import torch
from transformers import GemmaConfig, PaliGemmaConfig, PaliGemmaForConditionalGeneration, SiglipVisionConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
text = GemmaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                   num_key_value_heads=1, head_dim=16, vocab_size=300, pad_token_id=0, bos_token_id=2, eos_token_id=1)
vision = SiglipVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                            image_size=28, patch_size=14)
config = PaliGemmaConfig(text_config=text.to_dict(), vision_config=vision.to_dict(), image_token_index=257,
                         projection_dim=64, hidden_size=64)
paligemma = PaliGemmaForConditionalGeneration(config).to(device).eval()
input_ids = torch.tensor([[2, 5, 6, 7]], device=device)

# --8<-- [start:show]
model_inputs = paligemma.prepare_inputs_for_generation(
    input_ids, attention_mask=torch.ones(1, 4, dtype=torch.long, device=device),
    cache_position=torch.arange(4, device=device), use_cache=True)
# --8<-- [end:show]
assert model_inputs["input_ids"].shape == (1, 4)

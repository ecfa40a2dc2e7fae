"""Declare on the config which outputs are not predictions: every later evaluate() and predict() skips them."""

import torch
from transformers import Idefics2Config, Idefics2ForConditionalGeneration, Trainer, TrainingArguments

torch.manual_seed(0)
config = Idefics2Config(
    text_config={"model_type": "mistral", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128, "pad_token_id": 0},
    vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                   "image_size": 28, "patch_size": 14},
    perceiver_config={"hidden_size": 64, "resampler_n_latents": 4, "resampler_depth": 1, "resampler_n_heads": 2,
                      "resampler_head_dim": 16, "num_key_value_heads": 1},
    image_token_id=127)
model = Idefics2ForConditionalGeneration(config)
# --8<-- [start:show]
model.config.keys_to_ignore_at_inference = ["past_key_values"]  # what most decoder configs already declare
# --8<-- [end:show]
eval_dataset = [{"input_ids": torch.tensor([1, 2, 3, 4]), "labels": torch.tensor([1, 2, 3, 4])} for _ in range(4)]


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    # numpy arrays, as Trainer hands them
    return {"accuracy": float((logits.argmax(-1)[:, :-1] == labels[:, 1:]).mean())}


args = TrainingArguments(output_dir="idefics2-ft", per_device_eval_batch_size=2, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, eval_dataset=eval_dataset, compute_metrics=compute_metrics)
metrics = trainer.evaluate()
assert "eval_accuracy" in metrics

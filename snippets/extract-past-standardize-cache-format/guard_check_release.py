"""Fail at load time, with a message that names the fix, when remote code and release disagree."""

import inspect

from transformers import GenerationMixin


# --8<-- [start:show]
def check_generation_helpers():
    """Remote code written for transformers <= 4.43 passes `standardize_cache_format`."""
    helper = getattr(GenerationMixin, "_extract_past_from_model_output", None)
    if helper is None or "standardize_cache_format" not in inspect.signature(helper).parameters:
        raise RuntimeError("this model's remote code was written for transformers<=4.43: update the model "
                           "files (or pin transformers==4.43.4)")


check_generation_helpers()
# --8<-- [end:show]

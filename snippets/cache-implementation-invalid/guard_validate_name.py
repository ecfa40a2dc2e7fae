"""Check the name against the release's own list before calling generate(), with your own message."""

from transformers.generation import configuration_utils

# --8<-- [start:show]
requested = "sink"
known = getattr(configuration_utils, "ALL_CACHE_IMPLEMENTATIONS", None)  # the list generate() validates against
configuration_utils.GenerationConfig(cache_implementation="static").validate()  # a name it knows: validated
if known is not None and requested not in known:
    raise ValueError(f"cache_implementation={requested!r} is not available here; choose one of {sorted(set(known))}")
# --8<-- [end:show]

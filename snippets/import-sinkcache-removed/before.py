"""Attention-sink generation (StreamingLLM style), written for 4.36-4.52."""

# --8<-- [start:show]
from transformers import SinkCache  # a stub that raises from 4.53, gone since 5.0

cache = SinkCache(window_length=256, num_sink_tokens=4)
# --8<-- [end:show]

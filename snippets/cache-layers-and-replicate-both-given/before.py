"""A hand-built cache: pre-build the first layers, and hope the rest get appended on demand."""

from transformers.cache_utils import Cache, DynamicLayer, DynamicSlidingWindowLayer

# --8<-- [start:show]
# Intent: two sliding-window layers up front, plain layers appended by `update` for the others.
cache = Cache(
    layers=[DynamicSlidingWindowLayer(sliding_window=4096), DynamicSlidingWindowLayer(sliding_window=4096)],
    layer_class_to_replicate=DynamicLayer,
)
# --8<-- [end:show]

"""Model configuration, reduced to what the cache reads.

Snippets build configs in code (``LlamaConfig(num_hidden_layers=12)``) and hand them to
``DynamicCache(config=...)`` / ``StaticCache(config=...)``. The cache only looks at a handful of
attributes, so a config here is a plain attribute bag with upstream's defaults for those
attributes, upstream's keyword-only constructor, its ``attribute_map`` aliasing and its
``layer_types`` validation. Everything else a user passes is stored as an attribute, as upstream
does with unknown keywords.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

ALLOWED_ATTN_LAYER_TYPES = (
    "full_attention",
    "sliding_attention",
    "chunked_attention",
    "window_attention",
    "compressed_sparse_attention",
    "heavily_compressed_attention",
    "minimax_m3_sparse",
    "conv",
    "moe",
    "hybrid",
    "hybrid_sliding",
    "deepseek_sparse_attention",
    "linear_attention",
)
ALLOWED_MLP_LAYER_TYPES = ("sparse", "dense")
ALLOWED_LAYER_TYPES = ALLOWED_ATTN_LAYER_TYPES + ALLOWED_MLP_LAYER_TYPES


class StrictDataclassClassValidationError(Exception):
    """Same name and text as huggingface_hub's error, which upstream configs raise on validation.

    Upstream wraps the validator's exception; keeping the wrapper's wording lets a snippet that
    prints the error read the same on both targets.
    """

    def __init__(self, validator: str, cause: Exception):
        self.validator = validator
        super().__init__(
            f"Class validation error for validator '{validator}':\n    {type(cause).__name__}: {cause}"
        )


class PreTrainedConfig:
    """Keyword-only attribute bag with per-class defaults (collected along the MRO)."""

    model_type: ClassVar[str] = ""
    attribute_map: ClassVar[dict[str, str]] = {}
    # Defaults for the fields a class declares; subclasses extend it, they never mutate it.
    _defaults: ClassVar[dict[str, Any]] = {
        "is_encoder_decoder": False,
        "dtype": None,
        "output_hidden_states": False,
        "return_dict": True,
        "chunk_size_feed_forward": 0,
    }

    def __init__(self, *args, **kwargs):
        if args:
            raise ValueError(
                f"{type(self).__name__} accepts only keyword arguments, but found `{len(args)}` positional args."
            )
        for name, default in self._all_defaults().items():
            setattr(self, name, kwargs.pop(name) if name in kwargs else copy.copy(default))
        self.__post_init__(**kwargs)
        self._validate()

    @classmethod
    def _all_defaults(cls) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            merged.update(klass.__dict__.get("_defaults", {}))
        return merged

    def __post_init__(self, **kwargs):
        """Unknown keywords become attributes: that is how hybrid configs get ``layer_types``."""
        torch_dtype = kwargs.pop("torch_dtype", None)  # the pre-5.0 name of `dtype`
        if torch_dtype is not None and self.dtype is None:
            self.dtype = torch_dtype
        if isinstance(self.dtype, str):
            import torch

            self.dtype = getattr(torch, self.dtype)
        for key, value in kwargs.items():
            setattr(self, key, value)

    # attribute_map aliases (e.g. T5's num_hidden_layers -> num_layers) work for reads and writes.
    def __setattr__(self, key, value):
        key = type(self).attribute_map.get(key, key)
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and not key.startswith("__"):
            key = type(self).attribute_map.get(key, key)
        return super().__getattribute__(key)

    def __delattr__(self, key):
        super().__delattr__(type(self).attribute_map.get(key, key))

    def __repr__(self):
        return f"{type(self).__name__} {self.to_dict()}"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def _validate(self):
        for name in ("validate_layer_type", "validate_architecture"):
            validator = getattr(self, name, None)
            if validator is None:
                continue
            try:
                validator()
            except (ValueError, TypeError) as err:
                raise StrictDataclassClassValidationError(name, err) from err

    def validate_layer_type(self):
        """Reject unknown layer types and a ``layer_types`` whose length disagrees with the depth."""
        for allowed, attr in ((ALLOWED_ATTN_LAYER_TYPES, "layer_types"), (ALLOWED_MLP_LAYER_TYPES, "mlp_layer_types")):
            layers = getattr(self, attr, None)
            if layers is None or not hasattr(self, "num_hidden_layers"):
                return
            if any(layer_type not in allowed for layer_type in layers):
                raise ValueError(f"The `{attr}` entries must be in {allowed} but got {layers}")
            if self.num_hidden_layers is not None and self.num_hidden_layers != len(layers):
                raise ValueError(
                    f"`num_hidden_layers` ({self.num_hidden_layers}) must be equal to the number of `{attr}` "
                    f"({len(layers)})"
                )

    def get_text_config(self, decoder=None, encoder=None) -> PreTrainedConfig:
        """Return the sub-config that produces text; the cache asks for the decoder side."""
        return_both = decoder == encoder
        decoder_names = ("decoder", "generator", "text_config")
        encoder_names = ("text_encoder",)
        if return_both:
            names = encoder_names + decoder_names
        else:
            names = decoder_names if decoder else encoder_names
        found = [name for name in names if getattr(self, name, None) is not None]
        if len(found) > 1:
            raise ValueError(
                f"Multiple valid text configs were found in the model config: {found}. In this "
                "case, using `get_text_config()` would be ambiguous. Please specify the desired text config directly, "
                "e.g. `text_config = config.sub_config_name`"
            )
        if found:
            return getattr(self, found[0])
        if return_both or not self.is_encoder_decoder:
            return self
        # Legacy flat encoder-decoder configs (T5): keep one side, renaming `decoder_*` fields.
        side = copy.deepcopy(self)
        prefix = "decoder" if decoder else "encoder"
        for key in list(side.to_dict()):
            if not key.startswith(prefix):
                continue
            if key == f"{prefix}_layers":
                new_key = "num_hidden_layers"
            elif key == f"{prefix}_attention_heads":
                new_key = "num_attention_heads"
            else:
                new_key = key[len(prefix) + 1 :]
            value = getattr(side, key)
            delattr(side, key)
            setattr(side, new_key, value)
        return side


# Upstream keeps the pre-5.0 spelling as an alias.
PretrainedConfig = PreTrainedConfig


def layer_type_validation(layer_types: list[str], num_hidden_layers: int | None = None, attention: bool = True):
    """Standalone check that model configs of upstream call in their own ``__post_init__``."""
    if not all(layer_type in ALLOWED_LAYER_TYPES for layer_type in layer_types):
        raise ValueError(f"The `layer_types` entries must be in {ALLOWED_LAYER_TYPES}")
    if num_hidden_layers is not None and num_hidden_layers != len(layer_types):
        raise ValueError(
            f"`num_hidden_layers` ({num_hidden_layers}) must be equal to the number of layer types "
            f"({len(layer_types)})"
        )

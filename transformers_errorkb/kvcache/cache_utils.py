"""A torch implementation of ``transformers.cache_utils`` as released in transformers 5.15.1.

Why it exists: errorkb runs documentation snippets against it, and judges them by the exception
type, the message and the raising function. So every class and method carries upstream's
qualified name, every ``raise`` sits in the same function as upstream's, checks run in the same
order, and messages are byte-identical, upstream's slips included (they are flagged where they
occur). Tensor operations mirror upstream's closely on purpose: the errors torch raises from
them (a static cache overflowing, cropping an empty layer) are part of the observable behaviour.

Layout, top to bottom: attention layers (dynamic, sliding, indexed, static, static sliding,
static indexed), quantized layers, linear-attention layers and their hybrids, the layer-type
mappings, the ``Cache`` container, and the concrete caches.
"""


from abc import ABC, abstractmethod
from collections.abc import Iterable

import torch

from ._compat import (
    deprecate_kwarg,
    is_hqq_available,
    is_optimum_quanto_available,
    is_quanto_greater,
    is_torchdynamo_compiling,
    logger,
    torch_at_least,
    warning_once,
)
from .configuration_utils import PreTrainedConfig

# As upstream: hqq's quantizer is imported with the cache when hqq is available (and the answer cached), so
# a process that imports the cache has it loaded, as one that imports transformers' does.
if is_hqq_available():
    from hqq.core.quantize import Quantizer as HQQQuantizer

# torch >= 2.7 has the device-generic `torch.Stream`; older builds need the CUDA one.
_GENERIC_STREAMS = torch_at_least(2, 7)


def _mark_static(*tensors: torch.Tensor) -> None:
    """Tag preallocated buffers so cudagraphs keep their address; dynamo refuses it while tracing."""
    if not is_torchdynamo_compiling():
        for tensor in tensors:
            torch._dynamo.mark_static_address(tensor)


# --------------------------------------------------------------------------------------------
# Attention layers
# --------------------------------------------------------------------------------------------


class CacheLayerMixin(ABC):
    """One attention layer's keys and values."""

    is_compileable = False
    supports_early_init = True
    # A subclass defined elsewhere (a modeling file) registers itself under this layer type.
    _layer_type: str | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._layer_type is not None:
            mapping = STATIC_LAYER_TYPE_MAPPING if issubclass(cls, StaticLayer) else DYNAMIC_LAYER_TYPE_MAPPING
            mapping[cls._layer_type] = cls

    def __init__(self, **kwargs):
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None
        self.is_initialized = False

    def __repr__(self):
        return type(self).__name__

    @abstractmethod
    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None: ...

    @abstractmethod
    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]: ...

    @abstractmethod
    def get_mask_sizes(self, query_length: int) -> tuple[int, int]: ...

    @abstractmethod
    def get_seq_length(self) -> int: ...

    @abstractmethod
    def get_max_length(self) -> int:
        """-1 means unbounded or undefined."""

    def offload(self):
        """Move the tensors to CPU (offloading); `prefetch` brings them back."""
        if self.is_initialized:
            self.keys = self.keys.to("cpu", non_blocking=True)
            self.values = self.values.to("cpu", non_blocking=True)

    def prefetch(self):
        if self.is_initialized and self.keys.device != self.device:
            self.keys = self.keys.to(self.device, non_blocking=True)
            self.values = self.values.to(self.device, non_blocking=True)

    def reset(self) -> None:
        """Zero in place: static buffers must keep their address."""
        if self.is_initialized:
            self.keys.zero_()
            self.values.zero_()
        if hasattr(self, "cumulative_length"):
            # A Python int on dynamic layers, a 0-d tensor on static ones.
            if isinstance(self.cumulative_length, int):
                self.cumulative_length = 0
            else:
                self.cumulative_length.zero_()

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        if self.get_seq_length() > 0:
            self.keys = self.keys.index_select(0, beam_idx.to(self.keys.device))
            self.values = self.values.index_select(0, beam_idx.to(self.values.device))

    def get_max_cache_shape(self) -> int:
        logger.warning(
            "`get_max_cache_shape` is deprecated, and will be removed in version 5.16. Please use `get_max_length` instead"
        )
        return self.get_max_length()


class DynamicLayer(CacheLayerMixin):
    """Grows by concatenation on the sequence axis; shape ``[batch, heads, seq, head_dim]``."""

    is_sliding = False

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        # Only dtype and device are kept: the empty 1-D tensors adopt any later shape via `cat`.
        self.dtype, self.device = key_states.dtype, key_states.device
        self.keys = torch.tensor([], dtype=self.dtype, device=self.device)
        self.values = torch.tensor([], dtype=self.dtype, device=self.device)
        self.is_initialized = True

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        self.keys = torch.cat([self.keys, key_states], dim=-2)
        self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.get_seq_length() + query_length, 0

    def get_seq_length(self) -> int:
        if not self.is_initialized or self.keys.numel() == 0:
            return 0
        return self.keys.shape[-2]

    def get_max_length(self) -> int:
        return -1

    @deprecate_kwarg("max_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        """Drop the last ``-tokens_to_remove`` tokens.

        A positive value is the pre-5.15 meaning, an absolute target length: still honoured in
        5.15.1, with a deprecation notice, and a no-op when it is not shorter than the cache.
        """
        if tokens_to_remove > 0:
            warning_once(
                "Calling `crop` with a positive value is deprecated and will be removed in version 5.18. Please use a negative "
                "integer to remove that number of tokens from the cache instead."
            )
            if tokens_to_remove >= self.get_seq_length():
                return
            tokens_to_remove = self.get_seq_length() - tokens_to_remove
        if tokens_to_remove == 0:
            return
        self.keys = self.keys[..., : -abs(tokens_to_remove), :]
        self.values = self.values[..., : -abs(tokens_to_remove), :]

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.get_seq_length() > 0:
            self.keys = self.keys.repeat_interleave(repeats, dim=0)
            self.values = self.values.repeat_interleave(repeats, dim=0)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.get_seq_length() > 0:
            self.keys = self.keys[indices, ...]
            self.values = self.values[indices, ...]


class DynamicSlidingWindowLayer(DynamicLayer):
    """Keeps the last ``sliding_window - 1`` tokens (all of them while recording the past).

    ``update`` still returns the full concatenation, so the current query sees a whole window.
    ``cumulative_length`` counts every token ever seen, not what is stored.
    """

    is_sliding = True

    def __init__(self, sliding_window: int, **kwargs):
        super().__init__()
        self.sliding_window = sliding_window
        self.cumulative_length = 0
        self._sliding_window_tensor = torch.tensor(self.sliding_window, dtype=torch.long)
        self.record_past = False

    def activate_past_recording(self):
        """Keep everything until the next `crop`, so that speculative tokens can be rolled back."""
        self.record_past = True

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        super().lazy_initialization(key_states, value_states)
        self._sliding_window_tensor = self._sliding_window_tensor.to(self.device)

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        self.cumulative_length += key_states.shape[-2]

        full_keys = torch.cat([self.keys, key_states], dim=-2)
        full_values = torch.cat([self.values, value_states], dim=-2)
        if self.record_past:
            self.keys, self.values = full_keys, full_values
        else:
            # Note: with a window of 1 the start index is -0, which keeps everything (as upstream).
            keep_from = -self.sliding_window + 1
            self.keys = full_keys[:, :, keep_from:, :]
            self.values = full_values[:, :, keep_from:, :]
        return full_keys, full_values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        kv_offset = max(self.cumulative_length - self.sliding_window + 1, 0)
        if self.cumulative_length >= self.sliding_window:
            return self.sliding_window - 1 + query_length, kv_offset
        return self.cumulative_length + query_length, kv_offset

    def get_seq_length(self) -> int:
        return self.cumulative_length

    def get_max_length(self) -> int:
        return self.sliding_window

    @deprecate_kwarg("max_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        """Like a full layer until the window is reached; past it, only a recorded past can be cut.

        Once full, ``crop(0)`` is not a no-op: it trims a recorded past back to the window.
        """
        if self.get_seq_length() >= self.sliding_window:
            if not self.record_past:
                raise RuntimeError(
                    "`crop` was called, but the current layer does not track past states, and the sliding window size was already "
                    "reached. Call `activate_past_recording` before `crop` to be able to rollback the cache."
                )
            if tokens_to_remove > 0:
                raise RuntimeError(
                    "Once the sliding window size has been reached, `DynamicSlidingWindowLayer` can only be cropped by passing a "
                    "negative int, to specify how many tokens to remove"
                )
            if tokens_to_remove == 0:
                self.keys = self.keys[:, :, -self.sliding_window + 1 :, :]
                self.values = self.values[:, :, -self.sliding_window + 1 :, :]
            else:
                removed = abs(tokens_to_remove)
                start = -self.sliding_window + 1 - removed
                self.keys = self.keys[:, :, start:-removed, :]
                self.values = self.values[:, :, start:-removed, :]
                self.cumulative_length = self.cumulative_length - removed
        else:
            super().crop(tokens_to_remove)
            self.cumulative_length = self.keys.shape[-2]


class DynamicIndexedLayer(DynamicLayer):
    """Dynamic layer plus the single-head indexer keys ``[batch, seq, index_head_dim]`` of DSA models."""

    def __init__(self, **kwargs):
        super().__init__()
        self.indexer_keys: torch.Tensor | None = None
        self.is_indexer_initialized: bool = False

    def lazy_initialization_indexer(self, indexer_key_states: torch.Tensor) -> None:
        self.indexer_dtype, self.indexer_device = indexer_key_states.dtype, indexer_key_states.device
        self.indexer_keys = torch.tensor([], dtype=self.indexer_dtype, device=self.indexer_device)
        self.is_indexer_initialized = True

    def update_indexer(self, indexer_key_states: torch.Tensor) -> torch.Tensor:
        if not self.is_indexer_initialized:
            self.lazy_initialization_indexer(indexer_key_states)
        self.indexer_keys = torch.cat([self.indexer_keys, indexer_key_states], dim=1)
        return self.indexer_keys

    def offload(self):
        super().offload()
        if self.is_indexer_initialized:
            self.indexer_keys = self.indexer_keys.to("cpu", non_blocking=True)

    def prefetch(self):
        super().prefetch()
        if self.is_indexer_initialized and self.indexer_keys.device != self.device:
            self.indexer_keys = self.indexer_keys.to(self.device, non_blocking=True)

    def reset(self) -> None:
        super().reset()
        if self.is_indexer_initialized:
            self.indexer_keys.zero_()

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        super().reorder_cache(beam_idx)
        if self.is_indexer_initialized and self.indexer_keys.numel() > 0:
            self.indexer_keys = self.indexer_keys.index_select(0, beam_idx.to(self.indexer_keys.device))

    @deprecate_kwarg("max_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        super().crop(tokens_to_remove)
        if not (self.is_indexer_initialized and self.indexer_keys.numel() > 0):
            return
        if tokens_to_remove > 0:
            current = self.indexer_keys.shape[1]
            if tokens_to_remove >= current:
                return
            tokens_to_remove = current - tokens_to_remove
        if tokens_to_remove == 0:
            return
        self.indexer_keys = self.indexer_keys[:, : -abs(tokens_to_remove), :]

    def batch_repeat_interleave(self, repeats: int) -> None:
        super().batch_repeat_interleave(repeats)
        if self.is_indexer_initialized and self.indexer_keys.numel() > 0:
            self.indexer_keys = self.indexer_keys.repeat_interleave(repeats, dim=0)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        super().batch_select_indices(indices)
        if self.is_indexer_initialized and self.indexer_keys.numel() > 0:
            self.indexer_keys = self.indexer_keys[indices, ...]


class StaticLayer(CacheLayerMixin):
    """Preallocated ``[batch, heads, max_cache_len, head_dim]`` buffers, written in place.

    Built for ``torch.compile``: the buffers and the 0-d ``cumulative_length`` tensor keep their
    addresses for the layer's life. There is deliberately no ``crop`` or batch reshaping.
    """

    is_compileable = True
    is_sliding = False

    def __init__(self, max_cache_len: int, **kwargs):
        super().__init__()
        self.max_cache_len = max_cache_len
        # A tensor, not an int, so compiled graphs do not specialise on the position.
        self.cumulative_length = torch.tensor(0, dtype=int)

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        """Allocate from the first states' shape, dtype and device (or early, via the Cache)."""
        self.dtype, self.device = key_states.dtype, key_states.device
        self.batch_size, self.num_heads = key_states.shape[:2]
        self.v_head_dim = value_states.shape[-1]
        self.k_head_dim = key_states.shape[-1]
        self.keys = torch.zeros(
            (self.batch_size, self.num_heads, self.max_cache_len, self.k_head_dim), dtype=self.dtype, device=self.device
        )
        self.values = torch.zeros(
            (self.batch_size, self.num_heads, self.max_cache_len, self.v_head_dim), dtype=self.dtype, device=self.device
        )
        self.cumulative_length = self.cumulative_length.to(self.device)
        _mark_static(self.keys, self.values, self.cumulative_length)
        self.is_initialized = True

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Write at the next positions and return the whole buffers.

        The length is advanced before the write, so an overflowing update (IndexError from
        ``index_copy_``) still counts its tokens, as upstream does.
        """
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        kv_length = key_states.shape[-2]
        positions = torch.arange(kv_length, device=self.device) + self.cumulative_length
        self.cumulative_length.add_(kv_length)
        try:
            self.keys.index_copy_(2, positions, key_states)
            self.values.index_copy_(2, positions, value_states)
        except NotImplementedError:  # no index_copy_ on some backends (MPS)
            self.keys[:, :, positions] = key_states
            self.values[:, :, positions] = value_states
        return self.keys, self.values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.max_cache_len, 0

    def get_seq_length(self) -> int:
        # The live 0-d tensor itself once initialized (it keeps counting), a plain 0 before.
        return self.cumulative_length if self.is_initialized else 0

    def get_max_length(self) -> int:
        return self.max_cache_len


class StaticSlidingWindowLayer(StaticLayer):
    """Static buffers of ``min(sliding_window, max_cache_len)`` tokens, rolled once full.

    It also tracks the length as a Python int (``cumulative_length_int``) to branch on it without
    data-dependent control flow in compiled code.
    """

    is_sliding = True

    def __init__(self, max_cache_len: int, sliding_window: int, **kwargs):
        super().__init__(max_cache_len=min(sliding_window, max_cache_len))
        self.cumulative_length_int = 0

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the buffers while they hold everything; the full states when the window overflows."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        kv_length = key_states.shape[-2]
        seen = self.cumulative_length_int
        self.cumulative_length_int += kv_length

        if seen >= self.max_cache_len:
            if kv_length == 1:
                # Decoding step: roll left by one and write the new token last. Copy back into the
                # buffers (never rebind) to keep their static address; index with a tensor, as
                # dynamo mishandles an int index here (pytorch#159855).
                rolled_keys = self.keys.roll(-1, dims=-2)
                rolled_values = self.values.roll(-1, dims=-2)
                last = torch.tensor([-1], dtype=int, device=self.device)
                rolled_keys[:, :, last] = key_states
                rolled_values[:, :, last] = value_states
                self.keys.copy_(rolled_keys)
                self.values.copy_(rolled_values)
                return self.keys, self.values
            full_keys = torch.cat((self.keys[:, :, 1:, :], key_states), dim=-2)
            full_values = torch.cat((self.values[:, :, 1:, :], value_states), dim=-2)
        elif seen + kv_length > self.max_cache_len:
            # Becomes full during this update.
            if seen == 0:
                full_keys, full_values = key_states, value_states
            else:
                full_keys = torch.cat((self.keys[:, :, :seen, :], key_states), dim=-2)
                full_values = torch.cat((self.values[:, :, :seen, :], value_states), dim=-2)
        else:
            # Still room: write in place at positions from the tensor length (cudagraph-safe).
            positions = torch.arange(kv_length, device=self.device) + self.cumulative_length
            try:
                self.keys.index_copy_(2, positions, key_states)
                self.values.index_copy_(2, positions, value_states)
            except NotImplementedError:
                self.keys[:, :, positions] = key_states
                self.values[:, :, positions] = value_states
            self.cumulative_length.add_(kv_length)
            return self.keys, self.values

        self.keys.copy_(full_keys[:, :, -self.max_cache_len :, :])
        self.values.copy_(full_values[:, :, -self.max_cache_len :, :])
        return full_keys, full_values

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        window = self.max_cache_len
        seen = self.cumulative_length_int
        kv_offset = max(seen - window + 1, 0)
        if seen >= window:
            kv_length = window + query_length - 1
        elif seen + query_length > window:
            kv_length = seen + query_length
        else:
            kv_length = window  # static: the mask always spans the whole buffer
        return kv_length, kv_offset

    def get_seq_length(self) -> int:
        return self.cumulative_length_int

    def reset(self):
        super().reset()
        self.cumulative_length_int = 0


class StaticIndexedLayer(StaticLayer):
    """Static layer plus a preallocated indexer key buffer ``[batch, max_cache_len, index_head_dim]``.

    The indexer is written after the main K/V update, so it keeps its own length.
    """

    def __init__(self, max_cache_len: int, **kwargs):
        super().__init__(max_cache_len=max_cache_len)
        self.indexer_keys: torch.Tensor | None = None
        self.is_indexer_initialized: bool = False
        self.indexer_cumulative_length = torch.tensor(0, dtype=int)

    def lazy_initialization_indexer(self, indexer_key_states: torch.Tensor) -> None:
        self.indexer_dtype, self.indexer_device = indexer_key_states.dtype, indexer_key_states.device
        batch_size, _, index_head_dim = indexer_key_states.shape
        self.indexer_keys = torch.zeros(
            (batch_size, self.max_cache_len, index_head_dim), dtype=self.indexer_dtype, device=self.indexer_device
        )
        self.indexer_cumulative_length = self.indexer_cumulative_length.to(self.indexer_device)
        _mark_static(self.indexer_keys, self.indexer_cumulative_length)
        self.is_indexer_initialized = True

    def update_indexer(self, indexer_key_states: torch.Tensor) -> torch.Tensor:
        """Write in place and return the whole buffer (unfilled slots are masked downstream)."""
        if not self.is_indexer_initialized:
            self.lazy_initialization_indexer(indexer_key_states)
        seq_len = indexer_key_states.shape[1]
        positions = torch.arange(seq_len, device=self.indexer_device) + self.indexer_cumulative_length
        self.indexer_cumulative_length.add_(seq_len)
        try:
            self.indexer_keys.index_copy_(1, positions, indexer_key_states)
        except NotImplementedError:
            self.indexer_keys[:, positions] = indexer_key_states
        return self.indexer_keys

    def reset(self) -> None:
        super().reset()
        if self.is_indexer_initialized:
            self.indexer_keys.zero_()
            self.indexer_cumulative_length.zero_()


# --------------------------------------------------------------------------------------------
# Quantized layers (KIVI-style: a full-precision residual, the rest quantized)
# --------------------------------------------------------------------------------------------


class QuantizedLayer(DynamicLayer):
    """Keeps up to ``residual_length`` recent tokens in full precision, the rest quantized.

    When the residual is full, everything is requantized and the residual emptied.
    """

    def __init__(
        self,
        nbits: int = 4,
        axis_key: int = 0,
        axis_value: int = 0,
        q_group_size: int = 64,
        residual_length: int = 128,
    ):
        super().__init__()
        self.nbits = nbits
        self.axis_key = axis_key
        self.axis_value = axis_value
        self.q_group_size = q_group_size
        self.residual_length = residual_length
        self.cumulative_length = 0

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        self.cumulative_length += key_states.shape[-2]
        if not self.is_initialized:
            # The prefill is quantized at once and returned as it came.
            self.lazy_initialization(key_states, value_states)
            self._quantized_keys = self._quantize(key_states.contiguous(), axis=self.axis_key)
            self._quantized_values = self._quantize(value_states.contiguous(), axis=self.axis_value)
            return key_states, value_states

        dequantized_keys = self._dequantize(self._quantized_keys)
        dequantized_values = self._dequantize(self._quantized_values)
        keys_out = torch.cat([dequantized_keys, self.keys, key_states], dim=-2)
        values_out = torch.cat([dequantized_values, self.values, value_states], dim=-2)
        if self.keys.dim() == 4 and self.keys.shape[-2] + 1 >= self.residual_length:
            self._quantized_keys = self._quantize(keys_out.contiguous(), axis=self.axis_key)
            self._quantized_values = self._quantize(values_out.contiguous(), axis=self.axis_value)
            self.keys = torch.tensor([], dtype=key_states.dtype, device=key_states.device)
            self.values = torch.tensor([], dtype=key_states.dtype, device=key_states.device)
        else:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        return keys_out, values_out

    @abstractmethod
    def _quantize(self, tensor, axis): ...

    @abstractmethod
    def _dequantize(self, q_tensor): ...

    def get_seq_length(self) -> int:
        return self.cumulative_length


class QuantoQuantizedLayer(QuantizedLayer):
    """optimum-quanto backend. Note: upstream wants a version strictly above 0.2.5 despite its message."""

    def __init__(
        self,
        nbits: int = 4,
        axis_key: int = 0,
        axis_value: int = 0,
        q_group_size: int = 64,
        residual_length: int = 128,
    ):
        super().__init__(
            nbits=nbits, axis_key=axis_key, axis_value=axis_value, q_group_size=q_group_size, residual_length=residual_length
        )
        if not is_optimum_quanto_available():
            raise ImportError(
                "You need to install optimum-quanto in order to use KV cache quantization with optimum-quanto "
                "backend. Please install it via  with `pip install optimum-quanto`"
            )
        elif is_quanto_greater("0.2.5"):
            from optimum.quanto import MaxOptimizer, qint2, qint4
        else:
            raise ImportError(
                "You need optimum-quanto package version to be greater or equal than 0.2.5 to use `QuantoQuantizedLayer`. "
            )

        if self.nbits not in [2, 4]:
            raise ValueError(f"`nbits` for `quanto` backend has to be one of [`2`, `4`] but got {self.nbits}")
        if self.axis_key not in [0, -1]:
            raise ValueError(f"`axis_key` for `quanto` backend has to be one of [`0`, `-1`] but got {self.axis_key}")
        if self.axis_value not in [0, -1]:
            raise ValueError(
                f"`axis_value` for `quanto` backend has to be one of [`0`, `-1`] but got {self.axis_value}"
            )

        self.qtype = qint4 if self.nbits == 4 else qint2
        self.optimizer = MaxOptimizer()  # the only per-channel optimizer quanto has

    def _quantize(self, tensor, axis):
        from optimum.quanto import quantize_weight

        scale, zeropoint = self.optimizer(tensor, self.qtype, axis, self.q_group_size)
        return quantize_weight(tensor, self.qtype, axis, scale, zeropoint, self.q_group_size)

    def _dequantize(self, qtensor):
        return qtensor.dequantize()


class HQQQuantizedLayer(QuantizedLayer):
    """HQQ backend (hqq >= 0.2.1)."""

    def __init__(
        self,
        nbits: int = 4,
        axis_key: int = 0,
        axis_value: int = 0,
        q_group_size: int = 64,
        residual_length: int = 128,
    ):
        super().__init__(
            nbits=nbits, axis_key=axis_key, axis_value=axis_value, q_group_size=q_group_size, residual_length=residual_length
        )
        if not is_hqq_available():
            raise ImportError(
                "You need to install `HQQ` in order to use KV cache quantization with HQQ backend. "
                "Please install it via  with `pip install hqq`"
            )
        if self.nbits not in [1, 2, 3, 4, 8]:
            raise ValueError(
                f"`nbits` for `HQQ` backend has to be one of [`1`, `2`, `3`, `4`, `8`] but got {self.nbits}"
            )
        if self.axis_key not in [0, 1]:
            raise ValueError(f"`axis_key` for `HQQ` backend has to be one of [`0`, `1`] but got {self.axis_key}")
        if self.axis_value not in [0, 1]:
            raise ValueError(f"`axis_value` for `HQQ` backend has to be one of [`0`, `1`] but got {self.axis_value}")

        self.quantizer = HQQQuantizer

    def _quantize(self, tensor, axis):
        qtensor, meta = self.quantizer.quantize(
            tensor,
            axis=axis,
            device=self.keys.device,
            compute_dtype=self.keys.dtype,
            nbits=self.nbits,
            group_size=self.q_group_size,
        )
        meta["compute_dtype"] = self.keys.dtype
        self.quantizer.cuda(qtensor, meta=meta, device=self.keys.device)  # moves and casts
        meta["scale"] = meta["scale"].to(qtensor.device)
        meta["zero"] = meta["zero"].to(qtensor.device)
        return qtensor, meta

    def _dequantize(self, qtensor):
        quant_tensor, meta = qtensor
        return self.quantizer.dequantize(quant_tensor, meta)


# --------------------------------------------------------------------------------------------
# Linear-attention (conv / recurrent state) layers and attention hybrids
# --------------------------------------------------------------------------------------------


class LinearAttentionCacheLayerMixin(ABC):
    """Conv and recurrent states of a linear-attention (Mamba/SSM-like) layer.

    Not a ``CacheLayerMixin``: it has no sequence axis, so the Cache routes length queries to an
    attention layer instead. A layer may carry several states (``number_of_states``).
    """

    is_compileable = True  # every shape is static
    supports_early_init = False  # states have their own lazy path, not the K/V one

    def __init__(self, number_of_states: int = 1, **kwargs):
        self.number_of_states = number_of_states
        states = range(number_of_states)
        self.conv_states: dict[int, torch.Tensor | None] = dict.fromkeys(states)
        self.recurrent_states: dict[int, torch.Tensor | None] = dict.fromkeys(states)
        self.is_conv_states_initialized = dict.fromkeys(states, False)
        self.is_recurrent_states_initialized = dict.fromkeys(states, False)
        self.has_previous_state = dict.fromkeys(states, False)
        self.conv_kernel_size = dict.fromkeys(states)
        self.device = None
        self.dtype = None
        self.record_past = False

    def __repr__(self):
        return type(self).__name__

    @abstractmethod
    def lazy_initialization(
        self,
        conv_states: torch.Tensor | None = None,
        recurrent_states: torch.Tensor | None = None,
        state_idx: int = 0,
    ) -> None: ...

    @abstractmethod
    def update_conv_state(self, conv_states: torch.Tensor, state_idx: int = 0) -> torch.Tensor: ...

    @abstractmethod
    def update_recurrent_state(self, recurrent_states: torch.Tensor, state_idx: int = 0) -> torch.Tensor: ...

    def offload(self):
        for i in range(self.number_of_states):
            if self.is_conv_states_initialized[i]:
                self.conv_states[i] = self.conv_states[i].to("cpu", non_blocking=True)
            if self.is_recurrent_states_initialized[i]:
                self.recurrent_states[i] = self.recurrent_states[i].to("cpu", non_blocking=True)

    def prefetch(self):
        for i in range(self.number_of_states):
            if self.is_conv_states_initialized[i] and self.conv_states[i].device != self.device:
                self.conv_states[i] = self.conv_states[i].to(self.device, non_blocking=True)
            if self.is_recurrent_states_initialized[i] and self.recurrent_states[i].device != self.device:
                self.recurrent_states[i] = self.recurrent_states[i].to(self.device, non_blocking=True)

    def reset(self) -> None:
        for i in range(self.number_of_states):
            if self.is_conv_states_initialized[i]:
                self.conv_states[i].zero_()
            if self.is_recurrent_states_initialized[i]:
                self.recurrent_states[i].zero_()
            self.has_previous_state[i] = False

    def reorder_cache(self, beam_idx: torch.LongTensor):
        for i in range(self.number_of_states):
            if self.is_conv_states_initialized[i]:
                self.conv_states[i] = self.conv_states[i].index_select(0, beam_idx.to(self.device))
            # Some models (lfm2) only ever fill the conv state.
            if self.is_recurrent_states_initialized[i]:
                self.recurrent_states[i] = self.recurrent_states[i].index_select(0, beam_idx.to(self.device))

    def activate_past_recording(self):
        """Keep whole conv states until the next `crop`, so that they can be rolled back."""
        self.record_past = True

    def crop(self, tokens_to_remove: int):
        """Roll back a recorded past by ``-tokens_to_remove`` tokens and trim to the kernel size."""
        if not self.record_past:
            raise RuntimeError(
                "`crop` was called, but the current layer does not track past states. Call `activate_past_recording` before "
                "`crop` to be able to rollback the cache."
            )
        if tokens_to_remove > 0:
            raise RuntimeError(
                "Linear attention layers can only be cropped by passing a negative int, to specify how many tokens to remove"
            )
        for i in range(self.number_of_states):
            tokens_to_remove = abs(tokens_to_remove)
            if tokens_to_remove == 0:
                self.conv_states[i] = self.conv_states[i][..., -self.conv_kernel_size[i] :]
            else:
                self.conv_states[i] = self.conv_states[i][
                    ..., -tokens_to_remove - self.conv_kernel_size[i] : -tokens_to_remove
                ]

    def get_max_length(self) -> int:
        return -1  # no sequence axis


class LinearAttentionLayer(LinearAttentionCacheLayerMixin):
    def lazy_initialization(
        self,
        conv_states: torch.Tensor | None = None,
        recurrent_states: torch.Tensor | None = None,
        state_idx: int = 0,
        conv_kernel_size: int | None = None,
    ) -> None:
        if conv_states is not None:
            if self.device is None:
                self.dtype, self.device = conv_states.dtype, conv_states.device
            # The kernel size is the prefill's width unless given (needed when recording the past).
            kernel = conv_states.shape[-1] if conv_kernel_size is None else conv_kernel_size
            self.conv_kernel_size[state_idx] = kernel
            self.conv_states[state_idx] = torch.zeros(
                (*conv_states.shape[:-1], kernel), dtype=conv_states.dtype, device=conv_states.device
            )
            if not self.record_past:
                _mark_static(self.conv_states[state_idx])
            self.is_conv_states_initialized[state_idx] = True

        if recurrent_states is not None:
            self.recurrent_states[state_idx] = torch.zeros_like(recurrent_states)
            _mark_static(self.recurrent_states[state_idx])
            self.is_recurrent_states_initialized[state_idx] = True

    def update_conv_state(
        self, conv_states: torch.Tensor, state_idx: int = 0, conv_kernel_size: int | None = None, **kwargs
    ) -> torch.Tensor:
        """Return the states the causal conv needs (left context included); cache the last kernel-width."""
        if not self.is_conv_states_initialized[state_idx]:
            self.lazy_initialization(conv_states=conv_states, state_idx=state_idx, conv_kernel_size=conv_kernel_size)

        kernel = self.conv_kernel_size[state_idx]
        if not self.has_previous_state[state_idx]:
            # Prefill: left-pad a short prompt to the kernel width.
            full = conv_states
            self.has_previous_state[state_idx] = True
            if not self.record_past and full.shape[-1] < kernel:
                full = torch.nn.functional.pad(full, (kernel - full.shape[-1], 0), value=0)
        else:
            full = torch.cat([self.conv_states[state_idx], conv_states], dim=-1)

        if self.record_past:
            self.conv_states[state_idx] = full
        else:
            self.conv_states[state_idx].copy_(full[..., -kernel:])  # copy: keep the static address
        return full

    def update_recurrent_state(self, recurrent_states: torch.Tensor, state_idx: int = 0, **kwargs) -> torch.Tensor:
        if not self.is_recurrent_states_initialized[state_idx]:
            self.lazy_initialization(recurrent_states=recurrent_states, state_idx=state_idx)
        self.recurrent_states[state_idx].copy_(recurrent_states)
        return self.recurrent_states[state_idx]


def _dispatch_lazy_initialization(layer, attention_class, args, kwargs) -> None:
    """Hybrids get two positional tensors from `update` (attention) and 1-3 keywords from the
    conv/recurrent updates (linear); any other call shape initializes nothing, as upstream."""
    if len(args) == 2 and len(kwargs) == 0:
        attention_class.lazy_initialization(layer, *args)
    if len(args) == 0 and len(kwargs) in (1, 2, 3):
        LinearAttentionLayer.lazy_initialization(layer, **kwargs)


class LinearAttentionAndFullAttentionLayer(LinearAttentionLayer, DynamicLayer):
    is_compileable = False  # the dynamic attention half grows

    def __init__(self, number_of_states: int = 1, **kwargs):
        DynamicLayer.__init__(self)
        LinearAttentionLayer.__init__(self, number_of_states=number_of_states)

    def lazy_initialization(self, *args, **kwargs) -> None:
        _dispatch_lazy_initialization(self, DynamicLayer, args, kwargs)

    def offload(self):
        DynamicLayer.offload(self)
        LinearAttentionLayer.offload(self)

    def prefetch(self):
        DynamicLayer.prefetch(self)
        LinearAttentionLayer.prefetch(self)

    def reset(self) -> None:
        LinearAttentionLayer.reset(self)
        DynamicLayer.reset(self)

    def reorder_cache(self, beam_idx: torch.LongTensor):
        LinearAttentionLayer.reorder_cache(self, beam_idx)
        DynamicLayer.reorder_cache(self, beam_idx)

    @deprecate_kwarg("max_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        LinearAttentionLayer.crop(self, tokens_to_remove)
        DynamicLayer.crop(self, tokens_to_remove)


class LinearAttentionAndSlidingWindowAttentionLayer(LinearAttentionLayer, DynamicSlidingWindowLayer):
    is_compileable = False

    def __init__(self, sliding_window: int, number_of_states: int = 1, **kwargs):
        DynamicSlidingWindowLayer.__init__(self, sliding_window=sliding_window)
        LinearAttentionLayer.__init__(self, number_of_states=number_of_states)

    def lazy_initialization(self, *args, **kwargs) -> None:
        _dispatch_lazy_initialization(self, DynamicSlidingWindowLayer, args, kwargs)

    def reset(self) -> None:
        LinearAttentionLayer.reset(self)
        DynamicSlidingWindowLayer.reset(self)

    def reorder_cache(self, beam_idx: torch.LongTensor):
        LinearAttentionLayer.reorder_cache(self, beam_idx)
        DynamicSlidingWindowLayer.reorder_cache(self, beam_idx)

    @deprecate_kwarg("max_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        LinearAttentionLayer.crop(self, tokens_to_remove)
        DynamicSlidingWindowLayer.crop(self, tokens_to_remove)


class LinearAttentionAndStaticFullAttentionLayer(LinearAttentionLayer, StaticLayer):
    def __init__(self, max_cache_len: int, number_of_states: int = 1, **kwargs):
        StaticLayer.__init__(self, max_cache_len)
        LinearAttentionLayer.__init__(self, number_of_states=number_of_states)

    def lazy_initialization(self, *args, **kwargs) -> None:
        _dispatch_lazy_initialization(self, StaticLayer, args, kwargs)

    def offload(self):
        StaticLayer.offload(self)
        LinearAttentionLayer.offload(self)

    def prefetch(self):
        StaticLayer.prefetch(self)
        LinearAttentionLayer.prefetch(self)

    def reset(self) -> None:
        LinearAttentionLayer.reset(self)
        StaticLayer.reset(self)

    def reorder_cache(self, beam_idx: torch.LongTensor):
        LinearAttentionLayer.reorder_cache(self, beam_idx)
        StaticLayer.reorder_cache(self, beam_idx)


class LinearAttentionAndStaticSlidingWindowAttentionLayer(LinearAttentionLayer, StaticSlidingWindowLayer):
    def __init__(self, max_cache_len: int, sliding_window: int, number_of_states: int = 1, **kwargs):
        StaticSlidingWindowLayer.__init__(self, max_cache_len=max_cache_len, sliding_window=sliding_window)
        LinearAttentionLayer.__init__(self, number_of_states=number_of_states)

    def lazy_initialization(self, *args, **kwargs) -> None:
        _dispatch_lazy_initialization(self, StaticSlidingWindowLayer, args, kwargs)

    def reset(self) -> None:
        LinearAttentionLayer.reset(self)
        StaticSlidingWindowLayer.reset(self)

    def reorder_cache(self, beam_idx: torch.LongTensor):
        LinearAttentionLayer.reorder_cache(self, beam_idx)
        StaticSlidingWindowLayer.reorder_cache(self, beam_idx)


# Which layer class a config's `layer_types` entry becomes. Sliding and chunked attention cache
# alike (only the mask differs). `moe`/`mlp` layers need no cache; they are linear-attention
# placeholders so that length queries skip them.
DYNAMIC_LAYER_TYPE_MAPPING = {
    "full_attention": DynamicLayer,
    "sliding_attention": DynamicSlidingWindowLayer,
    "chunked_attention": DynamicSlidingWindowLayer,
    "conv": LinearAttentionLayer,
    "linear_attention": LinearAttentionLayer,
    "hybrid": LinearAttentionAndFullAttentionLayer,
    "hybrid_sliding": LinearAttentionAndSlidingWindowAttentionLayer,
    "deepseek_sparse_attention": DynamicIndexedLayer,
    "moe": LinearAttentionLayer,
    "mlp": LinearAttentionLayer,
}
STATIC_LAYER_TYPE_MAPPING = {
    "full_attention": StaticLayer,
    "sliding_attention": StaticSlidingWindowLayer,
    "chunked_attention": StaticSlidingWindowLayer,
    "conv": LinearAttentionLayer,
    "linear_attention": LinearAttentionLayer,
    "hybrid": LinearAttentionAndStaticFullAttentionLayer,
    "hybrid_sliding": LinearAttentionAndStaticSlidingWindowAttentionLayer,
    "deepseek_sparse_attention": StaticIndexedLayer,
    "moe": LinearAttentionLayer,
    "mlp": LinearAttentionLayer,
}


# --------------------------------------------------------------------------------------------
# The container
# --------------------------------------------------------------------------------------------


class Cache:
    """A list of layer caches, one per model layer, plus offloading.

    Built either from ready ``layers`` or from a ``layer_class_to_replicate`` that ``update``
    instantiates lazily for each new ``layer_idx``; exactly one of the two.
    """

    def __init__(
        self,
        layers: list[CacheLayerMixin | LinearAttentionCacheLayerMixin] | None = None,
        layer_class_to_replicate: type[CacheLayerMixin | LinearAttentionCacheLayerMixin] | None = None,
        offloading: bool = False,
        offload_only_non_sliding: bool = True,
    ):
        if layers is not None and layer_class_to_replicate is not None:
            raise ValueError(
                "You can construct a Cache either from a list `layers` of all the predefined `CacheLayer`, or from a "
                "`layer_class_to_replicate`, in which case the Cache will append a new layer corresponding to "
                "`layer_class_to_replicate` for each new call to `update` with an idx not already in the Cache."
            )
        if layers is None and layer_class_to_replicate is None:
            raise ValueError(
                "You should provide exactly one of `layers` or `layer_class_to_replicate` to initialize a Cache."
            )
        self.layers = layers if layers is not None else []
        self.layer_class_to_replicate = layer_class_to_replicate
        self.offloading = offloading
        if self.offloading:
            self.only_non_sliding = offload_only_non_sliding
            self.prefetch_stream = torch.Stream() if _GENERIC_STREAMS else torch.cuda.Stream()

    def __repr__(self):
        return f"{type(self).__name__}(layers={self.layers})"

    def __len__(self):
        """Number of layers; a lazily grown cache counts only the layers updated so far."""
        return len(self.layers)

    # -- offloading (CUDA) -------------------------------------------------------------------

    def prefetch(self, layer_idx: int, only_non_sliding: bool = True):
        """Bring the next offloaded layer at or after ``layer_idx`` (wrapping) back, on a side stream."""
        offloaded = [
            not linear and not (only_non_sliding and sliding) for linear, sliding in zip(self.is_linear, self.is_sliding)
        ]
        try:
            layer_idx = layer_idx + offloaded[layer_idx:].index(True)
        except ValueError:
            layer_idx = offloaded.index(True)
        with self.prefetch_stream if _GENERIC_STREAMS else torch.cuda.stream(self.prefetch_stream):
            self.layers[layer_idx].prefetch()

    def offload(self, layer_idx: int, only_non_sliding: bool = True):
        """Offload on the default stream, so the layer's own update has finished first."""
        if not (only_non_sliding and self.is_sliding[layer_idx]):
            self.layers[layer_idx].offload()

    # -- updates ------------------------------------------------------------------------------

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int, *args, **kwargs
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Store the new states of ``layer_idx`` and return what attention should use."""
        if self.layer_class_to_replicate is not None:
            while len(self.layers) <= layer_idx:
                self.layers.append(self.layer_class_to_replicate())

        if self.offloading:
            torch.cuda.default_stream(key_states.device).wait_stream(self.prefetch_stream)
            self.prefetch(layer_idx + 1, self.only_non_sliding)

        keys, values = self.layers[layer_idx].update(key_states, value_states, *args, **kwargs)

        if self.offloading:
            self.offload(layer_idx, self.only_non_sliding)
        return keys, values

    def update_conv_state(
        self, conv_states: torch.Tensor, layer_idx: int, state_idx: int = 0, **kwargs
    ) -> torch.Tensor:
        if not isinstance(self.layers[layer_idx], LinearAttentionCacheLayerMixin):
            raise ValueError("Cannot call `update_conv_state` on a non-LinearAttention layer!")
        return self.layers[layer_idx].update_conv_state(conv_states, state_idx, **kwargs)

    def update_recurrent_state(
        self, recurrent_states: torch.Tensor, layer_idx: int, state_idx: int = 0, **kwargs
    ) -> torch.Tensor:
        # Upstream slip kept: the message names `update_conv_state`.
        if not isinstance(self.layers[layer_idx], LinearAttentionCacheLayerMixin):
            raise ValueError("Cannot call `update_conv_state` on a non-LinearAttention layer!")
        return self.layers[layer_idx].update_recurrent_state(recurrent_states, state_idx, **kwargs)

    def update_indexer(self, indexer_key_states: torch.Tensor, layer_idx: int) -> torch.Tensor:
        if not hasattr(self.layers[layer_idx], "update_indexer"):
            raise ValueError(
                f"Cannot call `update_indexer` on layer {layer_idx} which is a "
                f"{type(self.layers[layer_idx]).__name__}; it has no indexer key cache "
                f"(expected a `DynamicIndexedLayer` or `StaticIndexedLayer`)."
            )
        return self.layers[layer_idx].update_indexer(indexer_key_states)

    def early_initialization(
        self,
        batch_size: int,
        num_heads: int | list[int],
        head_dim: int | list[int],
        dtype: torch.dtype,
        device: torch.device,
    ):
        """Initialize every layer now rather than on its first ``update`` (``torch.export`` needs it).

        Ints are broadcast to every layer; lists give one value per layer. Both lengths are
        checked before any layer is touched. Layers that opt out or are already initialized are
        left alone. Two upstream slips are kept on purpose: the first message says `num_head`,
        and the second reports ``len(num_heads)`` where it means ``len(head_dim)``.
        """
        if isinstance(num_heads, int):
            num_heads = [num_heads] * len(self)
        if isinstance(head_dim, int):
            head_dim = [head_dim] * len(self)

        if len(num_heads) != len(self.layers):
            raise ValueError(
                f"`num_head` was provided as a list of length {len(num_heads)}, but the Cache currently has {len(self.layers)} layers"
            )
        if len(head_dim) != len(self.layers):
            raise ValueError(
                f"`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has {len(self.layers)} layers"
            )

        for layer, layer_num_heads, layer_head_dim in zip(self.layers, num_heads, head_dim):
            if not layer.supports_early_init or layer.is_initialized:
                continue
            # Zero tokens long: carries every dimension, dtype and device, allocates nothing.
            fake = torch.zeros((batch_size, layer_num_heads, 0, layer_head_dim), dtype=dtype, device=device)
            layer.lazy_initialization(fake, fake)

    # -- queries ------------------------------------------------------------------------------

    def get_seq_length(self, layer_idx: int = 0) -> int:
        """Tokens cached in ``layer_idx``; the default index skips to the first attention layer."""
        if layer_idx >= len(self.layers):
            return 0
        if not isinstance(self.layers[layer_idx], CacheLayerMixin):
            if layer_idx != 0:
                raise ValueError(
                    f"You called `get_seq_length` on layer index {layer_idx}, but this layer is a LinearAttention layer, which "
                    "does not track sequence length."
                )
            try:
                layer_idx = next(idx for idx in range(len(self)) if isinstance(self.layers[idx], CacheLayerMixin))
            except StopIteration:
                raise ValueError(
                    "`get_seq_length` can only be called on Attention layers, and the current Cache seem to only contain "
                    "LinearAttention layers."
                )
        return self.layers[layer_idx].get_seq_length()

    def get_max_length(self, layer_idx: int | None = None) -> int:
        """Capacity of one layer, or the largest over all; -1 means unbounded or undefined."""
        if layer_idx is not None and layer_idx >= len(self.layers):
            return -1  # a lazily grown layer that does not exist yet
        if layer_idx is None:
            return max(layer.get_max_length() for layer in self.layers)
        return self.layers[layer_idx].get_max_length()

    def has_previous_state(self, layer_idx: int | None = None, state_idx: int | None = None) -> bool:
        """Whether a linear-attention layer (default: the last one) has seen a prefill."""
        if layer_idx is not None and layer_idx >= len(self.layers):
            return False
        if layer_idx is None:
            try:
                layer_idx = next(
                    idx
                    for idx in range(len(self) - 1, -1, -1)
                    if isinstance(self.layers[idx], LinearAttentionCacheLayerMixin)
                )
            except StopIteration:
                raise ValueError(
                    "`has_previous_state` can only be called on LinearAttention layers, and the current Cache seem to "
                    "only contain Attention layers."
                )
        elif not isinstance(self.layers[layer_idx], LinearAttentionCacheLayerMixin):
            raise ValueError(
                f"You called `has_previous_state` on layer index {layer_idx}, but this layer is an Attention layer, which "
                "does not support calling it."
            )
        flags = self.layers[layer_idx].has_previous_state
        return all(flags.values()) if state_idx is None else flags[state_idx]

    def get_mask_sizes(self, query_length: int, layer_idx: int) -> tuple[int, int]:
        """``(kv_length, kv_offset)`` the attention mask of ``layer_idx`` must cover."""
        if layer_idx >= len(self.layers):
            return query_length, 0  # not created yet: only the query itself
        if not isinstance(self.layers[layer_idx], CacheLayerMixin):
            if layer_idx != 0:
                raise ValueError(
                    f"You called `get_mask_sizes` on layer index {layer_idx}, but this layer is a LinearAttention layer, which "
                    "does not track sequence length."
                )
            try:
                layer_idx = next(idx for idx in range(len(self)) if isinstance(self.layers[idx], CacheLayerMixin))
            except StopIteration:
                raise ValueError(
                    "`get_mask_sizes` can only be called on Attention layers, and the current Cache seem to only contain "
                    "LinearAttention layers."
                )
        return self.layers[layer_idx].get_mask_sizes(query_length)

    def get_query_offset(self, layer_idx: int = 0) -> int:
        """Position of the next query: the cached length, except for MTP/DFlash caches."""
        return self.get_seq_length(layer_idx=layer_idx)

    # -- whole-cache operations ----------------------------------------------------------------

    def reset(self):
        for layer in self.layers:
            layer.reset()

    def reorder_cache(self, beam_idx: torch.LongTensor):
        """Beam search: keep and reorder batch rows."""
        for layer in self.layers:
            layer.reorder_cache(beam_idx)

    def crop(self, tokens_to_remove: int) -> None:
        """Remove ``-tokens_to_remove`` tokens from every layer (see the layers for positive values).

        No ``max_length`` alias here, unlike the layers' ``crop``.
        """
        for layer in self.layers:
            layer.crop(tokens_to_remove)

    def batch_repeat_interleave(self, repeats: int):
        for layer in self.layers:
            layer.batch_repeat_interleave(repeats)

    def batch_select_indices(self, indices: torch.Tensor):
        for layer in self.layers:
            layer.batch_select_indices(indices)

    def activate_past_recording(self):
        """Make rollback possible on the layers that support it (sliding and linear ones)."""
        for layer in self.layers:
            if hasattr(layer, "activate_past_recording"):
                layer.activate_past_recording()

    # -- properties ---------------------------------------------------------------------------

    @property
    def batch_size(self) -> int:
        """Batch size of the layers that know it (static, once initialized); -1 when none does."""
        values = [layer.batch_size for layer in self.layers if hasattr(layer, "batch_size")]
        if not values:
            return -1
        if len(set(values)) > 1:
            raise ValueError(f"The batch size is not consistent across layers: {values}")
        return values[0]

    @property
    def is_compileable(self) -> bool:
        # A lazily grown cache with no layer yet is not (all([]) would say it is).
        if len(self.layers) == 0:
            return False
        return all(layer.is_compileable for layer in self.layers)

    @property
    def is_initialized(self) -> bool:
        layers = [layer for layer in self.layers if layer.supports_early_init]
        return len(layers) > 0 and all(layer.is_initialized for layer in layers)

    @property
    def is_sliding(self) -> list[bool]:
        return [getattr(layer, "is_sliding", False) for layer in self.layers]

    @property
    def is_linear(self) -> list[bool]:
        """Linear-attention layers, not counting the linear + full-attention hybrids."""
        return [
            isinstance(layer, LinearAttentionCacheLayerMixin) and not isinstance(layer, LinearAttentionAndFullAttentionLayer)
            for layer in self.layers
        ]

    # -- deprecated in 5.15, gone in 5.16+ -----------------------------------------------------

    def get_max_cache_shape(self, layer_idx: int = 0) -> int:
        warning_once(
            "`get_max_cache_shape` is deprecated, and will be removed in version 5.16. Please use `get_max_length` instead"
        )
        return self.get_max_length(layer_idx)

    @property
    def max_cache_len(self) -> int:
        warning_once(
            "`max_cache_len` is deprecated, and will be removed in version 5.16. Please use `get_max_length()` instead"
        )
        return self.get_max_length()

    @property
    def max_batch_size(self) -> int:
        warning_once(
            "`max_batch_size` is deprecated, and will be removed in version 5.16. Please use the simpler `batch_size` instead"
        )
        return self.batch_size


def get_layer_types_and_kwargs(config: PreTrainedConfig) -> tuple[list[str], dict]:
    """The layer types a config describes, and the constructor kwargs shared by all its layers."""
    layer_types = getattr(config, "layer_types", None)
    if layer_types is None:
        if getattr(config, "sliding_window", None) is not None:
            kind = "sliding_attention"
        elif getattr(config, "attention_chunk_size", None) is not None:
            kind = "chunked_attention"
        else:
            kind = "full_attention"
        layer_types = [kind for _ in range(config.num_hidden_layers)]

    # KV-shared trailing layers (Gemma3n) reuse earlier caches and get none of their own.
    num_kv_shared_layers = getattr(config, "num_kv_shared_layers", None)
    if num_kv_shared_layers is not None and num_kv_shared_layers > 0:
        layer_types = layer_types[: -config.num_kv_shared_layers]

    layer_kwargs = {}
    if "sliding_attention" in layer_types or "hybrid_sliding" in layer_types:
        layer_kwargs["sliding_window"] = config.sliding_window
    if "chunked_attention" in layer_types:
        layer_kwargs["sliding_window"] = config.attention_chunk_size  # overrides the window above
    if "heavily_compressed_attention" in layer_types or "compressed_sparse_attention" in layer_types:
        layer_kwargs["config"] = config
    if any(layer_type in ("conv", "linear_attention", "hybrid", "hybrid_sliding") for layer_type in layer_types):
        layer_kwargs["number_of_states"] = getattr(config, "number_of_conv_states", 1)
    return layer_types, layer_kwargs


# --------------------------------------------------------------------------------------------
# Concrete caches
# --------------------------------------------------------------------------------------------


class DynamicCache(Cache):
    """The default generation cache: layers grow with the sequence.

    With a ``config`` the layers follow its layer types (sliding layers keep only a window);
    with ``ddp_cache_data`` (``(keys, values[, sliding_window_tensor])`` per layer) they start
    filled; with neither, ``DynamicLayer``s are created as ``update`` reaches new indices.
    Unlike ``Cache``, ``offload_only_non_sliding`` defaults to False.
    """

    def __init__(
        self,
        ddp_cache_data: Iterable[tuple[torch.Tensor | None, ...]] | None = None,
        config: PreTrainedConfig | None = None,
        offloading: bool = False,
        offload_only_non_sliding: bool = False,
    ):
        layers = []
        if config is not None:
            layer_types, layer_kwargs = get_layer_types_and_kwargs(config.get_text_config(decoder=True))
            layers = [DYNAMIC_LAYER_TYPE_MAPPING[layer_type](**layer_kwargs) for layer_type in layer_types]

        if ddp_cache_data is not None:
            for layer_idx, entry in enumerate(ddp_cache_data):
                if config is None:
                    sliding_window_tensor = entry[2] if len(entry) == 3 else None
                    if sliding_window_tensor is not None:
                        # Replicas share the layer, hence the window: read it from the first one.
                        layers.append(DynamicSlidingWindowLayer(sliding_window=sliding_window_tensor[0].item()))
                    else:
                        layers.append(DynamicLayer())
                layers[layer_idx].update(entry[0], entry[1])

        if len(layers) == 0:
            super().__init__(
                layer_class_to_replicate=DynamicLayer,
                offloading=offloading,
                offload_only_non_sliding=offload_only_non_sliding,
            )
        else:
            super().__init__(layers=layers, offloading=offloading, offload_only_non_sliding=offload_only_non_sliding)

    def __iter__(self):
        """The DDP form: ``(keys, values, sliding_window_tensor or None)`` per layer."""
        for layer in self.layers:
            yield layer.keys, layer.values, getattr(layer, "_sliding_window_tensor", None)


class StaticCache(Cache):
    """Preallocated caches for ``torch.compile``/``torch.export``, layer types from ``config``.

    Extra keywords (``max_batch_size``, ``device``, ``dtype``, ...) of older releases are
    accepted and ignored.
    """

    def __init__(
        self,
        config: PreTrainedConfig,
        max_cache_len: int,
        offloading: bool = False,
        offload_only_non_sliding: bool = True,
        **kwargs,
    ):
        layer_types, layer_kwargs = get_layer_types_and_kwargs(config.get_text_config(decoder=True))
        layer_kwargs["max_cache_len"] = max_cache_len
        layers = [STATIC_LAYER_TYPE_MAPPING[layer_type](**layer_kwargs) for layer_type in layer_types]
        super().__init__(layers=layers, offloading=offloading, offload_only_non_sliding=offload_only_non_sliding)


class QuantizedCache(Cache):
    """Quantized KV cache (``backend`` "quanto" or "hqq"), for full-attention-only models."""

    def __init__(
        self,
        backend: str,
        config: PreTrainedConfig,
        nbits: int = 4,
        axis_key: int = 0,
        axis_value: int = 0,
        q_group_size: int = 64,
        residual_length: int = 128,
    ):
        if backend == "quanto":
            layer_class = QuantoQuantizedLayer
        elif backend == "hqq":
            layer_class = HQQQuantizedLayer
        else:
            raise ValueError(f"Unknown quantization backend `{backend}`")

        config = config.get_text_config(decoder=True)
        layer_types, _ = get_layer_types_and_kwargs(config)
        invalid_layer_types = set(layer_types) - {"full_attention"}
        if len(invalid_layer_types) > 0:
            raise ValueError(
                "`QuantizedCache` is only supported for models with only full attention layers. We found the following invalid layer "
                f"types: {invalid_layer_types}"
            )
        layers = [
            layer_class(nbits, axis_key, axis_value, q_group_size, residual_length)
            for _ in range(config.num_hidden_layers)
        ]
        super().__init__(layers=layers)


class EncoderDecoderCache(Cache):
    """A self-attention cache and a cross-attention cache side by side.

    Takes ``(self_attention_cache, cross_attention_cache)``, or one DDP-style iterable of
    4-tuples ``(k, v, cross_k, cross_v)`` / 6-tuples (with sliding-window tensors). It never
    calls ``Cache.__init__`` and so has no ``layers``: inherited methods that read
    ``self.layers`` (``early_initialization``, ``update``, ...) raise AttributeError, as upstream.
    """

    def __init__(self, *caches) -> None:
        if len(caches) == 1:
            self_attention_data, cross_attention_data = [], []
            for combined_cache_data in caches[0]:
                if len(combined_cache_data) == 6:
                    self_attention_data.append(combined_cache_data[:3])
                    cross_attention_data.append(combined_cache_data[3:])
                elif len(combined_cache_data) == 4:  # older form, without sliding-window tensors
                    self_attention_data.append(combined_cache_data[:2])
                    cross_attention_data.append(combined_cache_data[2:])
                else:
                    raise ValueError(f"Expected {len(combined_cache_data) = } to be 4 or 6.\n{combined_cache_data = }")
            self.self_attention_cache = DynamicCache(self_attention_data)
            self.cross_attention_cache = DynamicCache(cross_attention_data)
        elif len(caches) == 2:
            if not isinstance(caches[0], Cache) or not isinstance(caches[1], Cache):
                raise TypeError(f"One of the two arguments is not a Cache: {type(caches[0]) = }, {type(caches[1]) = }")
            self.self_attention_cache = caches[0]
            self.cross_attention_cache = caches[1]
        else:
            raise ValueError(f"Expected 1 or 2 arguments, got {len(caches)}")

        # Cross-attention states are computed once; this records which layers already have them.
        self.is_updated = {}
        for layer_idx in range(len(self.cross_attention_cache)):
            self.is_updated[layer_idx] = bool(self.cross_attention_cache.get_seq_length(layer_idx) > 0)

    def __iter__(self):
        """The DDP form: 6-tuples, self-attention entry then cross-attention entry."""
        for self_attention_layer, cross_attention_layer in zip(self.self_attention_cache, self.cross_attention_cache):
            yield self_attention_layer + cross_attention_layer

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(self_attention_cache={self.self_attention_cache}, cross_attention_cache="
            f"{self.cross_attention_cache})"
        )

    def __len__(self):
        return len(self.self_attention_cache)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.self_attention_cache.get_seq_length(layer_idx)

    def get_max_length(self, layer_idx: int | None = None) -> int:
        return self.self_attention_cache.get_max_length(layer_idx)

    def reset(self):
        self.self_attention_cache.reset()
        self.cross_attention_cache.reset()
        for layer_idx in self.is_updated:
            self.is_updated[layer_idx] = False

    def reorder_cache(self, beam_idx: torch.LongTensor):
        self.self_attention_cache.reorder_cache(beam_idx)
        self.cross_attention_cache.reorder_cache(beam_idx)

    def check_dynamic_cache(self, method: str):
        """Cropping and batch reshaping are only defined when both halves are dynamic."""
        if not (
            isinstance(self.self_attention_cache, DynamicCache) and isinstance(self.cross_attention_cache, DynamicCache)
        ):
            raise TypeError(
                f"`{method}` is only defined for dynamic cache, got {self.self_attention_cache.__str__()} for the self "
                f"attention cache and {self.cross_attention_cache.__str__()} for the cross attention cache."
            )

    @deprecate_kwarg("maximum_length", new_name="tokens_to_remove", version="5.18")
    def crop(self, tokens_to_remove: int) -> None:
        """Crop the self-attention half only: cross-attention states do not grow with decoding."""
        self.check_dynamic_cache(self.crop.__name__)
        self.self_attention_cache.crop(tokens_to_remove)

    def batch_repeat_interleave(self, repeats: int):
        self.check_dynamic_cache(self.batch_repeat_interleave.__name__)
        self.self_attention_cache.batch_repeat_interleave(repeats)
        self.cross_attention_cache.batch_repeat_interleave(repeats)

    def batch_select_indices(self, indices: torch.Tensor):
        self.check_dynamic_cache(self.batch_select_indices.__name__)
        self.self_attention_cache.batch_select_indices(indices)
        self.cross_attention_cache.batch_select_indices(indices)

    def get_mask_sizes(self, query_length: int, layer_idx: int) -> tuple[int, int]:
        return self.self_attention_cache.get_mask_sizes(query_length, layer_idx)

    @property
    def is_sliding(self):
        return self.self_attention_cache.is_sliding

    @property
    def is_compileable(self) -> bool:
        return self.self_attention_cache.is_compileable

    def activate_past_recording(self):
        self.self_attention_cache.activate_past_recording()

    def get_max_cache_shape(self, layer_idx: int = 0) -> int:
        warning_once(
            "`get_max_cache_shape` is deprecated, and will be removed in version 5.16. Please use `get_max_length` instead"
        )
        return self.get_max_length(layer_idx)


# Removed in transformers v5; kept by upstream as a name for StaticCache.
SlidingWindowCache = StaticCache


class MtpCache(DynamicCache):
    """Multi-token prediction: queries of depth ``k`` run ``k + 1`` tokens ahead."""

    def get_query_offset(self, layer_idx: int = 0):
        return super().get_query_offset(layer_idx) + layer_idx + 1

    def get_mask_sizes(self, query_length: int, layer_idx: int) -> tuple[int, int]:
        kv_length, kv_offset = super().get_mask_sizes(query_length, layer_idx)
        return kv_length, kv_offset + layer_idx + 1


class DFlashCache(DynamicCache):
    """Block drafting: keys/values run ahead of the queries by the tokens accepted last step."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._previous_number_of_accepted_tokens = 0

    def set_previous_accepted_tokens(self, number_of_accepted_tokens: int):
        self._previous_number_of_accepted_tokens = number_of_accepted_tokens

    def get_query_offset(self, layer_idx: int = 0):
        return super().get_query_offset(layer_idx) + self._previous_number_of_accepted_tokens

    def get_mask_sizes(self, query_length: int, layer_idx: int) -> tuple[int, int]:
        kv_length, kv_offset = super().get_mask_sizes(query_length, layer_idx)
        return kv_length + self._previous_number_of_accepted_tokens, kv_offset

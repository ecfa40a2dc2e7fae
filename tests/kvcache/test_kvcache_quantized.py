"""Differential: the quantized layer's residual/requantize logic, and the real quanto backend.

The logic test plugs the same toy quantizer (round to a grid) into both implementations'
`QuantizedLayer`, so it runs without any backend. The real-backend test needs optimum-quanto and
is slow on first use (kernel builds), so it runs only with the slow profile.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings

import pytest
import torch

from tests.kvcache import kvcache_support
from tests.kvcache.kvcache_support import BUNDLED, normalize, outcome, upstream

pytestmark = pytest.mark.upstream


def toy_layer(cache_utils, **kwargs):
    class GridQuantizedLayer(cache_utils.QuantizedLayer):
        """Quantize by rounding to a 1/4 grid; enough to see what was quantized and when."""

        def _quantize(self, tensor, axis):
            return (tensor * 4).round()

        def _dequantize(self, q_tensor):
            return q_tensor / 4

    return GridQuantizedLayer(**kwargs)


@pytest.mark.parametrize("residual_length", [1, 2, 3, 5])
@pytest.mark.parametrize("prefill", [1, 4])
def test_quantized_layer_logic_agrees(residual_length, prefill):
    theirs_cu = upstream().cache_utils
    generator = torch.Generator().manual_seed(residual_length * 10 + prefill)
    steps = [torch.randn(2, 2, prefill if i == 0 else 1, 8, generator=generator) for i in range(8)]
    layers = {
        "upstream": toy_layer(theirs_cu, residual_length=residual_length),
        "bundled": toy_layer(BUNDLED.cache_utils, residual_length=residual_length),
    }
    for step in steps:
        results = {name: normalize(outcome(layer.update, step, step)) for name, layer in layers.items()}
        assert results["bundled"] == results["upstream"]
        views = {
            name: (layer.get_seq_length(), normalize(layer.keys), normalize(layer._quantized_keys))
            for name, layer in layers.items()
        }
        assert views["bundled"] == views["upstream"]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("optimum") is None, reason="optimum-quanto is not installed")
def test_quanto_backend_agrees():
    if not kvcache_support.SLOW:
        pytest.skip("slow: builds quanto kernels on first use; run with HYPOTHESIS_PROFILE=slow")
    theirs = upstream().top
    outputs = {}
    for name, top in (("upstream", theirs), ("bundled", BUNDLED.top)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = top.LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2)
            cache = top.QuantizedCache("quanto", config, nbits=4, q_group_size=16, residual_length=3)
            generator = torch.Generator().manual_seed(0)
            seen = []
            for i in range(6):
                states = torch.randn(1, 2, 4 if i == 0 else 1, 32, generator=generator)
                seen.append(normalize(cache.update(states, states, 0)))
            outputs[name] = (seen, cache.get_seq_length())
    assert outputs["bundled"] == outputs["upstream"]


@pytest.mark.skipif(importlib.util.find_spec("hqq") is None, reason="needs hqq installed")
def test_building_quantized_layers_reads_no_distribution_metadata(monkeypatch):
    """Upstream maps import names to distributions once, when transformers is imported, and caches every
    `is_*_available`; so does the bundled cache. Read per layer, the mapping cost 0.3 s a layer here and
    5-40 s a check under the verifier's instruments."""
    import importlib.metadata

    from transformers_errorkb.kvcache import LlamaConfig, QuantizedCache, _compat

    upstream()  # the real transformers, or a clean skip
    theirs = importlib.import_module("transformers.utils.import_utils").PACKAGE_DISTRIBUTION_MAPPING
    assert {name: _compat._DISTRIBUTIONS.get(name) for name in ("hqq", "optimum")} == \
        {name: theirs.get(name) for name in ("hqq", "optimum")}

    def walked():
        raise AssertionError("the distribution mapping was read again")

    monkeypatch.setattr(importlib.metadata, "packages_distributions", walked)
    config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
    for nbits in (8, 4):
        QuantizedCache(backend="hqq", config=config, nbits=nbits, axis_key=1, axis_value=1)


def test_importing_the_cache_loads_what_upstreams_import_loads():
    """Upstream's cache_utils imports hqq's quantizer at its top when hqq is available, optimum-quanto only
    when a layer is built; the bundled cache does the same, so a check's process (forked from a zygote that
    imported the cache) has loaded what a fresh process importing the library would have, nothing more."""
    import subprocess
    import sys

    upstream()
    probe = ("import sys, warnings; warnings.simplefilter('ignore'); import {0}.cache_utils; "
             "print([name in sys.modules for name in ('hqq.core.quantize', 'optimum.quanto')])")
    seen = [subprocess.run([sys.executable, "-c", probe.format(package)], capture_output=True, text=True,
                           timeout=300, check=True).stdout.strip().splitlines()[-1]
            for package in ("transformers", "transformers_errorkb.kvcache")]
    assert seen[0] == seen[1], seen

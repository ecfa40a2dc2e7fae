"""An error raised under the function by the runtime, and caught by the snippet, fails the check (issue 12).

Found as a new contributor would: static-cache-overflow's after, written to stop generating when
the cache is full, catches `index_copy_`'s IndexError under `StaticLayer.update`; phase 1 passed
it (the `except` clause's line events made the tracer forget the exception). Tested on the real
knowledge base's entry: its own after (the cache sized for every token: never overflows) passes,
on both targets; the catching one fails, and so does a guard that catches and resets.
"""

from __future__ import annotations

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify
from errorkb.verify.records import Code, Outcome
from tests.kb import copy_kb

CATCHES = """\
import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2)
cache = StaticCache(config=config, max_cache_len=16)


def forward(cache, num_tokens):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, 64)
        cache.update(kv, kv, layer_idx)


forward(cache, 12)
for _ in range(8):
    try:
        forward(cache, 1)
    except IndexError:
        break  # the cache is full: stop generating
"""


def test_the_real_after_passes_and_one_that_catches_the_overflow_fails(tmp_path, lean_checks):
    root = copy_kb(tmp_path / "kb", ["static-cache-overflow"])
    (root / "snippets" / "static-cache-overflow" / "after_caught.py").write_text(CATCHES)
    entry = root / "docs" / "errors" / "transformers" / "static-cache-overflow.yml"
    entry.write_text(entry.read_text().replace(
        "  - title: Reset a reused cache at the start of every request\n",
        "  - title: Catch the overflow and stop\n    strategy: fallback\n    file: after_caught.py\n"
        "    expect:\n      outcome: passes\n"
        "    allow:\n      - {primitive: catches-documented, reason: the user's loop stops on the overflow}\n"
        "  - title: Reset a reused cache at the start of every request\n"))
    project = load_project(root)
    loaded = load_project_entries(project)
    assert loaded.problems == [], [str(p) for p in loaded.problems]
    report = verify(project, loaded.entries, targets=["bundled", "upstream"], devices=["cpu"], jobs=2)
    records = {record.id: record for record in report.checks}
    for target in ("bundled", "upstream"):
        after = records[f"static-cache-overflow::after[{target}-cpu]"]
        assert after.outcome is Outcome.PASS, after.reason
        assert after.calls.count == after.calls.returned == 18  # 2 layers × (the prompt + 8 tokens)
        caught = records[f"static-cache-overflow::guard:after_caught[{target}-cpu]"]
        assert (caught.outcome, caught.code) == (Outcome.FAIL, Code.LET_ERROR_THROUGH), caught.reason
        assert caught.calls.raised[0].type == "IndexError"
        assert caught.calls.raised[0].message.startswith("index_copy_(): index 16 is out of bounds")
        before = records[f"static-cache-overflow::before[{target}-cpu]"]
        assert before.outcome is Outcome.PASS, before.reason
        assert before.exception.started.where == "target" and before.exception.started.opcode != "RAISE_VARARGS"

"""Bounded work: every paste is answered in time linear in its size (issue 13, item 3).

The lookup counts the characters its scans may examine (`Answer.work`: each normalisation
pass, the exception-line scan, every piece search and comparison); these tests assert that
count, which is deterministic, rather than wall-clock time. Absolute timings are the
benchmark's job (benchmarks/lookup_speed.py). One hang guard runs every family at 1 MB in a
child process with a generous timeout: before the lookup was made linear it ran out of time
and memory there.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from errorkb import lookup
from errorkb.core.message import MessageTemplate
from errorkb.lookup import Known, Lookup, candidates, normalize
from tests.site.hostile import ENTRIES, FAMILIES, REAL

CAP = getattr(lookup, "CAP", 1 << 20)  # the paste size read whole

KB = Lookup(Known.from_index(item) for item in ENTRIES)
PARTS = sum(len(MessageTemplate.parse(item["message"]).parts) for item in ENTRIES)
SIZE = 16 * 1024  # below the cap: the algorithm itself is measured, not the cut


def work(text: str) -> int:
    return KB.answer(text).work


def test_candidates_add_up_to_a_few_times_the_text():
    """Candidates end at the next exception line: their total size is linear, not quadratic."""
    text = normalize(FAMILIES["many exception lines"](SIZE))
    assert sum(len(c.message) for c in candidates(text)) <= 3 * len(text)


@pytest.mark.parametrize("family", FAMILIES)
def test_work_grows_linearly_with_the_paste(family):
    small, large = FAMILIES[family](SIZE), FAMILIES[family](2 * SIZE)
    assert 2 * SIZE <= CAP
    w_small, w_large = work(small), work(large)
    assert w_large <= 2.1 * w_small + 1000, (w_small, w_large)
    assert w_small <= (16 + 4 * PARTS) * len(small), (w_small, len(small))


@pytest.mark.parametrize("family", ["many exception lines", "deep traceback", "blank lines", "prefixed lines",
                                    "ANSI storm"])
def test_the_real_error_at_the_end_of_a_hostile_paste_is_still_found(family):
    found = KB.find(FAMILIES[family](SIZE))
    assert found and found[0].known.id == "head-dim" and found[0].exact, family


def test_a_paste_over_the_cap_keeps_its_end_and_says_how_much_it_cut():
    text = "ValueError: CUDA out of memory. Tried to allocate 2 GiB\n" + "x" * CAP + "\n" + REAL
    answer = KB.answer(text)
    assert answer.cut > 0 and answer.cut + answer.kept == len(text)
    assert [m.known.id for m in answer.matches][:1] == ["head-dim"]
    assert "oom" not in [m.known.id for m in answer.matches]  # it was in the part cut off


def test_a_paste_under_the_cap_is_read_whole():
    answer = KB.answer(REAL)
    assert answer.cut == 0 and answer.kept == len(REAL)


HANG_GUARD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from hostile import ENTRIES, FAMILIES
from errorkb.lookup import Known, Lookup
kb = Lookup(Known.from_index(item) for item in ENTRIES)
times = {}
for name, make in FAMILIES.items():
    text = make(1 << 20)
    start = time.perf_counter()
    kb.find(text)
    times[name] = round((time.perf_counter() - start) * 1000, 1)
print(json.dumps(times))
"""


def test_every_hostile_family_at_one_megabyte_finishes():
    """A hang guard, not a timing assertion: the old lookup needed minutes and gigabytes here."""
    from pathlib import Path

    here = str(Path(__file__).parent)
    try:
        result = subprocess.run([sys.executable, "-c", HANG_GUARD, here], capture_output=True, text=True,
                                timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a hostile paste of 1 MB kept the lookup busy for over 60 s")
    assert result.returncode == 0, result.stderr[-2000:]
    assert set(json.loads(result.stdout)) == set(FAMILIES)

"""Exception groups (Python 3.11's `ExceptionGroup`, anyio's and asyncio's `TaskGroup`): every line of a group
stands behind its margin (`| `, indented once more for each nested group), the group's own traceback under
`+ Exception Group Traceback (most recent call last):`, each sub-exception after a separator
(`+-+---------------- 1 ----------------`). The lookup reads the frames behind the margin as Python's own, and
each sub-exception's evidence from its own traceback: the group's frames (where the group was raised) and
another sub-exception's frames never confirm a sub-exception's entry. A group that holds several errors does
not say which one is the user's: only the last is the error the paste ended with, the others candidates.
Asked of the real entries, and of the page's script and the hook alike."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import Lookup, frames, normalize
from tests.site.test_lookup_composite import OOM, SITE, frame


def grouped(*subs: str, frames_of_group: str = "", depth: int = 1) -> str:
    """A group printed as Python prints it (traceback.py's `_ExceptionPrintContext`), `subs` its sub-exceptions'
    own printed tracebacks (each its marker, frames and exception line, or the exception line alone for one
    never raised), nested `depth` groups deep."""
    def margin(text: str, indent: str) -> list[str]:
        return [f"{indent}| {line}" if line else f"{indent}|" for line in text.rstrip("\n").split("\n")]

    def group(level: int) -> list[str]:
        indent, inner = " " * (2 * level + 2), " " * (2 * level + 4)
        out = [f"{indent}{'+' if level == 0 else '|'} Exception Group Traceback (most recent call last):"]
        out += margin(frames_of_group, indent) if frames_of_group else []
        count = 1 if level + 1 < depth else len(subs)
        out.append(f"{indent}| ExceptionGroup: unhandled errors in a TaskGroup ({count} sub-exception"
                   f"{'s' if count > 1 else ''})")
        if level + 1 < depth:
            out.append(f"{indent}+-+---------------- 1 ----------------")
            out += group(level + 1)
            return out
        for index, sub in enumerate(subs):
            out.append(f"{indent}{'+-' if index == 0 else '  '}+---------------- {index + 1} ----------------")
            out += margin(sub, inner)
        out.append(f"{inner}+------------------------------------")
        return out

    return "\n".join(group(0)) + "\n"


# The cache's update frames where layer-idx-out-of-range is raised, and its words (Python's, any list).
UPDATE = OOM.split("torch.OutOfMemoryError", 1)[0]  # the marker and the frames, no exception line
INDEX = "IndexError: list index out of range\n"
GROUP_FRAMES = (frame(f"{SITE}/transformers/cache_utils.py", 1376, "update",
                      "keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)"))
FOREIGN = [
    # the group raised inside the cache's update; its sub-exception was never raised (no traceback of its own)
    grouped(INDEX, frames_of_group=GROUP_FRAMES),
    # sub-exception 1 ran out of memory in the cache's update; sub-exception 2, never raised, says the words
    grouped(OOM, INDEX),
    # the same, two groups deep
    grouped(OOM, INDEX, depth=3),
    # sub-exception 1 raised the words through the cache's update, sub-exception 2 another error: the group
    # does not say which one is the user's, and the paste ended with the second
    grouped(UPDATE + INDEX, "Traceback (most recent call last):\n" + frame("/me/run.py", 9, "main", "await step()")
            + "RuntimeError: step 2 failed\n"),
]
OWN = [
    grouped(UPDATE + INDEX),
    grouped(UPDATE + INDEX, frames_of_group=frame("/me/run.py", 3, "main", "async with TaskGroup() as tg:")),
    grouped(UPDATE + INDEX, depth=4),
    # a nested group's sub-exception, then the outer group's chained context
    grouped(UPDATE + INDEX, depth=2) + "\nDuring handling of the above exception, another exception occurred:\n\n"
    + grouped(UPDATE + INDEX),
]


@pytest.fixture(scope="module")
def kb() -> Lookup:
    return project_known_lookup()


def confirmed(kb: Lookup, text: str, release: str | None = None) -> list[str]:
    return [m.known.id for m in kb.answer(text, release).confirmed]


def test_a_groups_frames_read_as_python_prints_them_and_its_separators_go():
    text = normalize(grouped(UPDATE + INDEX, depth=3))
    assert "| " not in text and "+--" not in text
    assert [(f.path, f.line, f.function) for f in frames(text)] == [
        ("/srv/app/serve.py", 88, "handle"), (f"{SITE}/transformers/cache_utils.py", 1376, "update"),
        (f"{SITE}/transformers/cache_utils.py", 120, "update")]
    assert [f.code for f in frames(text)][-1] == "self.keys = torch.cat([self.keys, key_states], dim=-2)"


@pytest.mark.parametrize("paste", OWN, ids=["alone", "group-frames", "nested", "chained"])
def test_a_sub_exceptions_own_traceback_confirms_its_entry(kb, paste):
    assert confirmed(kb, paste) == ["layer-idx-out-of-range"]


@pytest.mark.parametrize("paste", FOREIGN, ids=["group-frames", "sibling", "sibling-nested", "not-the-last"])
def test_frames_of_the_group_or_another_sub_exception_never_confirm(kb, paste):
    assert confirmed(kb, paste) == []
    assert "layer-idx-out-of-range" in [m.known.id for m in kb.answer(paste).candidates]


@pytest.mark.parametrize("release", [None, "5.15.1"])
def test_groups_get_the_same_answers_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*FOREIGN, *OWN], release)
    assert all(not any(one[1] == "confirmed" for one in p["found"]) for p in python[:len(FOREIGN)])
    assert all(("layer-idx-out-of-range", "confirmed") in [tuple(one[:2]) for one in p["found"]]
               for p in python[len(FOREIGN):])


# -- bounded: groups, chains and frames scaled up are answered in time linear in the paste (_paste.py's CAP) -----
def _nested(size: int) -> str:
    """Groups nested until the paste is `size` long, each margin two spaces deeper (Python stops at depth 10; a
    hand-made paste need not), the error in the innermost."""
    out, depth = [], 0
    while sum(map(len, out)) < size:
        out += [" " * depth + "| Exception Group Traceback (most recent call last):",
                " " * depth + "| ExceptionGroup: g (1 sub-exception)", " " * depth + "+-+---------------- 1 ----------------"]
        depth += 2
    return "\n".join(out) + "\n" + " " * depth + "| " + INDEX


HOSTILE = {
    "nested groups": _nested,
    # runs of blanks before a margin: the margin's one `[ \t]*` reads each run once
    "blanks before a margin": lambda size: (" " * 4096 + "| y\n") * (size // 4096) + INDEX,
    "chained exceptions": lambda size: ("Traceback (most recent call last):\n" + frame("/me/a.py", 1, "f", "g()")
                                        + "ValueError: x\n\nDuring handling of the above exception, another "
                                        "exception occurred:\n\n") * (size // 160) + INDEX,
    "frames in a group": lambda size: "  | Traceback (most recent call last):\n" + frame(
        f"{SITE}/transformers/cache_utils.py", 1376, "update", "x").replace("  File", "  |   File").replace(
        "\n    x", "\n  |     x") * (size // 120) + "  | " + INDEX,
    "one long line of margins": lambda size: "| " * (size // 2) + INDEX,
}


@pytest.mark.parametrize("family", HOSTILE)
def test_a_hostile_group_is_answered_in_linear_work_and_time(kb, family):
    """The cap keeps 64 KiB of any paste (16 MiB on one line, 100,000 frames, 10,000 chained exceptions); within
    it the work grows linearly, and a paste far over it is cut, then read, in a bounded time."""
    import time

    small, large = HOSTILE[family](24 * 1024), HOSTILE[family](48 * 1024)
    assert kb.answer(large).work <= 2.1 * kb.answer(small).work + 1000
    huge = HOSTILE[family](16 << 20) if family == "one long line of margins" else HOSTILE[family](4 << 20)
    start = time.perf_counter()
    answer = kb.answer(huge)
    assert time.perf_counter() - start < 10 and answer.cut > 0


def test_hostile_groups_finish_in_the_page_too():
    """The page's script reads the same pastes at 1 MiB (cut to its cap as the paste box cuts them) in time."""
    import json
    import subprocess

    from tests.site.test_lookup_js import LOOKUP_JS, RULES, node

    pastes = {name: make(1 << 20) for name, make in HOSTILE.items()}
    program = f"const L = require({json.dumps(str(LOOKUP_JS))});\nconst RULES = {json.dumps(RULES)};\n" + """
      const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const lookup = new L.Lookup([], undefined, { rules: RULES });
      const out = {};
      for (const [name, text] of Object.entries(data.pastes)) out[name] = lookup.find(text).length;
      console.log(JSON.stringify(out));"""
    try:
        result = subprocess.run([str(node()), "-e", program], input=json.dumps({"pastes": pastes}),
                                capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a hostile group of 1 MiB kept the page's lookup busy for over 60 s")
    assert result.returncode == 0, result.stderr[-2000:]
    assert set(json.loads(result.stdout)) == set(HOSTILE)

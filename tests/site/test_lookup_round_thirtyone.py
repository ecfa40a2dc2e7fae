"""Round thirty-one (session 57): an exception line a terminal hard-wrapped at the width it wrapped the frames at.

r192 (pingpong-ai/dialogue-generation-models#9) was pasted from a terminal 80 columns wide: each frame line stops at
exactly 80 characters and goes on at the next line's start (`...generation_utils.py"` / `, line 676, in
greedy_search`), which `rules.FRAME_WRAP` rejoins; its exception line stops at 80 characters too, mid-word
(`...missing 1 required positional argumen` / `t: 'past'`). On main the frames were rejoined but the exception line
was not: the paste's final error read `...positional argumen`, its wording found only inside the text, and the answer
was a candidate with the "earlier" hint.

The class (`rules.EXCEPTION_WRAP_END`, `_paste.py:_exception_unwrapped`): when the longest frame line the first pass of
`FRAME_WRAP` rejoined is W characters long and no line from the first of them on is longer than W, an exception line
of exactly W characters goes on at the next line with nothing between (the terminal put no separator there), again
while each part is W long; never onto a blank line, a traceback's marker or chaining line, a frame line or a line
that reads as another exception.

Session 58 (rules 45): a frame line cut right after one of its blanks (`...run.py", line ` / `120, in main`) read one
character short, `LINE_END` having taken the blank, so the width was W - 1: the exception line of W stayed cut, and a
line of W - 1 with a plain rest was joined (a wrong join). A cut where Python's frame grammar puts a blank
(`rules.FRAME_CUT_BLANK`) whose rest starts with none counts the blank, and every join puts the blank back; a cut inside
the function's name (`rules.FRAME_NAME_WRAP`) gives the width too. An exception line cut right after one of its
message's blanks was a strict xfail until session 60 (`rules.CUT_BLANK_END`: test_lookup_round_thirtyfive.py).
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import KEY, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import real_index  # noqa: F401  (the fixture)

KEY_TB = traceback("/home/me/projects/assistant/run.py", "main", "cache.key_cache[0]", K)
WIDTHS = (36, 40, 48)


def hard_wrapped(text: str, width: int) -> str:
    """`text` as a terminal `width` columns wide shows it: each line cut every `width` characters."""
    out = []
    for line in text.split("\n"):
        out.extend(line[at:at + width] for at in range(0, max(len(line), 1), width))
    return "\n".join(out)


def _r192() -> dict:
    from benchmarks import lookup_recall

    return next(item for item in lookup_recall.read_corpus(lookup_recall.CORPUS) if item["id"] == "r192")


def test_r192_reads_its_whole_exception_line():
    from errorkb.lookup import normalize

    assert normalize(_r192()["paste"]).endswith(
        "\nTypeError: prepare_inputs_for_generation() missing 1 required positional argument: 'past'")


def test_r192_is_confirmed(kb):  # noqa: F811
    assert answer(kb, _r192()["paste"]) == (["prepare-inputs-for-generation-missing-past"], [])


@pytest.mark.parametrize("width", WIDTHS)
def test_a_traceback_hard_wrapped_at_one_width_reads_as_unwrapped(kb, width):  # noqa: F811
    """Frames and exception line cut at `width` (the exception line twice at 36): the same text, the same answer."""
    from errorkb.lookup import normalize

    wrapped = hard_wrapped(KEY_TB, width)
    assert wrapped.count("\n") > KEY_TB.count("\n") + 1
    assert normalize(wrapped) == normalize(KEY_TB)
    assert answer(kb, wrapped) == answer(kb, KEY_TB) == ([KEY], [])


def _kept_apart(text: str, line: str, rest: str) -> bool:
    from errorkb.lookup import normalize

    return line + "\n" + rest in normalize(text)


def _frames(width: int) -> str:
    """A wrapped traceback's frames (cut at `width`), without its exception line."""
    return hard_wrapped(KEY_TB.rsplit("\n", 1)[0], width)


@pytest.mark.parametrize("width", WIDTHS + (50, 58, 59))  # 50, 58: frames cut after a blank; 59: inside the name
def test_a_line_of_the_width_that_was_not_wrapped_stays(width):
    """The hostile twins: a line of exactly W characters whose next line is a new frame, a new exception, a blank
    line, a traceback's marker or chaining line stays a line of its own; so does one of W - 1 or W + 1 characters
    with a plain rest, and one of W when the frames were not wrapped (no width) or cut at a wider width, or a line
    after the first rejoined frame is longer than W (not a terminal of that width)."""
    line = ("ValueError: " + "x" * width)[:width]
    frame = '  File "/home/me/other.py", line 3, in g'
    for rest in (frame, "KeyError: 'x'", "", "Traceback (most recent call last):",
                 "During handling of the above exception, another exception occurred:"):
        assert _kept_apart(_frames(width) + "\n" + line + "\n" + rest + "\nIndexError: y", line, rest), rest
    for other in (width - 1, width + 1):
        near = ("ValueError: " + "x" * other)[:other]
        assert _kept_apart(_frames(width) + "\n" + near + "\nyz", near, "yz"), other
    assert _kept_apart(KEY_TB.rsplit("\n", 1)[0] + "\n" + line + "\nyz", line, "yz")  # frames not wrapped
    wider = hard_wrapped(KEY_TB.rsplit("\n", 1)[0], width + 3)
    assert _kept_apart(wider + "\n" + line + "\nyz", line, "yz")  # frames cut at a wider width
    long = _frames(width) + "\n    " + "y" * (width + 5) + "\n" + line + "\nyz"
    assert _kept_apart(long, line, "yz")  # a line longer than W: no terminal W wide printed it


def test_a_frame_cut_after_a_blank_still_gives_the_width():
    """Session 58 (closes the xfail of session 57): `LINE_END` takes the blank a terminal left at the cut line's end
    (`...run.py", line ` / `120, in main`), so the line reads W - 1. Where Python's frame grammar puts a blank after
    the cut (`",`, `line`, `line N,`, `in`: `rules.FRAME_CUT_BLANK`) and the next line starts with none, the blank was
    the cut line's last character: it counts, and the join puts it back."""
    from errorkb.lookup import normalize

    wrapped = hard_wrapped(KEY_TB, 50)  # `...run.py", line ` / `120, in main`: the only cut, after a blank
    assert normalize(wrapped) == normalize(KEY_TB)


# Every width at which a terminal cuts KEY_TB's frame line (34: the marker's width, below it the marker itself is
# cut; 61: the frame line's). 44, 49, 54 and 57 cut the frame line before a blank (the rest starts with it), 50 after
# one; 38, 42, 45 and 55 cut the exception line right after one of the message's blanks (a strict xfail until session
# 60: test_lookup_round_thirtyfive.py).
FRAME_CUT_WIDTHS = list(range(34, 62))


@pytest.mark.parametrize("width", FRAME_CUT_WIDTHS)
def test_a_frame_cut_at_any_point_of_its_grammar_reads_as_printed(kb, width):  # noqa: F811
    """Cut after a blank or before one, mid-path, mid-number or mid-name: the frame line joined reads as Python printed
    it (its blanks where the grammar puts them), and the exception line cut at the same width is joined."""
    from errorkb.lookup import normalize

    wrapped = hard_wrapped(KEY_TB, width)
    assert normalize(wrapped) == normalize(KEY_TB)
    assert answer(kb, wrapped) == ([KEY], [])


def test_a_frame_cut_before_a_blank_or_indented_again_keeps_the_width():
    """A cut whose rest starts with its blank (the terminal cut before it) or goes on indented again (a web form)
    counts as it reads: no character was lost at the cut line's end, the width is not raised."""
    from errorkb.lookup._paste import _wrap_width

    head = '  File "/home/me/run.py", line'
    frame = (head + "\n 120, in main", head + "\n    120, in main")
    for text in frame:
        assert _wrap_width(text + "\n") == len(head)


def _pastes() -> list[str]:
    pastes = [_r192()["paste"]] + [hard_wrapped(KEY_TB, width) for width in WIDTHS + tuple(FRAME_CUT_WIDTHS)]
    for width in WIDTHS:
        line = ("ValueError: " + "x" * width)[:width]
        pastes += [_frames(width) + "\n" + line + "\n" + rest + "\n" + K
                   for rest in ('  File "/a.py", line 3, in g', "KeyError: 'x'", "", "yz", " yz")]
    return pastes


def test_the_page_unwraps_as_the_lookup_does():
    from errorkb.lookup import normalize
    from tests.site.test_lookup_js import run_js

    pastes = _pastes()
    js = run_js("console.log(JSON.stringify(data.map((text) => L.normalize(text, R))))", pastes)
    assert js == [normalize(text) for text in pastes]


def test_the_page_answers_as_the_lookup_does(real_index):  # noqa: F811
    from errorkb.lookup import read_index
    from tests.site.test_lookup_js import full_python, js_on_index

    pastes = _pastes()
    python = full_python([], pastes, None, lookup=read_index(real_index).lookup(), work=True)
    js = js_on_index(real_index, pastes, None, work=True)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste



HOSTILE = [
    # an exception line of the width after frames cut at 40, then 60,000 lines of 40 characters: all joined into it
    _frames(40) + "\nValueError: " + "x" * 28 + "\n" + "\n".join(["y" * 40] * 60000) + "\nyz",
    # 30,000 exception lines of the width, each followed by a new exception's line: nothing joined
    _frames(40) + ("\nValueError: " + "x" * 28 + "\nKeyError: 'k'") * 30000,
]


def test_unwrapping_is_bounded():
    """A hang guard (generous, in a child process): normalising each 1.6 - 2.5 MB paste whole (the lookup reads its
    last 64 KiB) takes well under the limit (0.7 s each here): the first reads as its frames and one line, the second
    keeps its 60,000 lines."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_thirtyone import HOSTILE; "
            "from errorkb.lookup import normalize; "
            "print(json.dumps([normalize(text).count(chr(10)) for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [3, 3 + 60000 - 1]

"""Round thirty-five (lookup36, session 60): an exception line a terminal cut right after one of its message's blanks.

Round thirty-one's strict xfail, as a class. A terminal W columns wide that cuts the exception line right after a blank
(`AttributeError: 'DynamicCache' object ` / `has no attribute 'key_cache'` at 38) leaves that blank as the cut line's
last character; `rules.LINE_END` took it before the width was read, so the line read W - 1 and was not joined (a line
of W - 1 with a plain rest is one the program printed so: round thirty-one's hostile twin). The fact is now noted
before `LINE_END` takes it (`rules.CUT_BLANK_END`: the lines that end with exactly one blank, by their text), carried
to the join (`_paste._exception_unwrapped`, `lookup.js` `exceptionUnwrapped`) and read there as the blank it was: the
line is W long and the join puts the blank back. Python and the page read the same rules from the index.

Hostile twins, each kept apart: a line of W - 1 without the blank; a line noted but W - 2 long; a line whose text is
also printed elsewhere without a blank (a text printed twice, once cut, tells nothing); a paste whose lines are padded
to one width (`rules.PADDED_END`: a console, an editor or a quoted reply that pads, never a cut); and the lines
`rules.EXCEPTION_WRAP_END` always keeps apart (a frame, a new exception, a blank line, a marker).
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import KEY, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index  # noqa: F401  (the fixture)
from tests.site.test_lookup_round_thirtyone import KEY_TB, hard_wrapped

# The widths at which a terminal cuts KEY_TB's exception line right after one of its message's blanks (round
# thirty-one's CUT_AFTER_A_MESSAGE_BLANK; at 45 its frame line is cut after a blank too).
CUT_AFTER_A_MESSAGE_BLANK = (38, 42, 45, 55)


def _frames(width: int) -> str:
    return hard_wrapped(KEY_TB.rsplit("\n", 1)[0], width)


def _normalize(text: str) -> str:
    from errorkb.lookup import normalize

    return normalize(text)


@pytest.mark.parametrize("width", CUT_AFTER_A_MESSAGE_BLANK)
def test_an_exception_line_cut_after_a_blank_reads_as_printed(kb, width):  # noqa: F811
    """main: the line stayed cut (`...object` / `has no attribute 'key_cache'`), its wording found nowhere whole."""
    wrapped = hard_wrapped(KEY_TB, width)
    assert wrapped.split("\n")[-2].endswith(" ")
    assert _normalize(wrapped) == _normalize(KEY_TB)
    assert answer(kb, wrapped) == ([KEY], [])


def test_a_message_cut_after_a_blank_twice_is_joined_twice():
    """A message three lines long, each cut right after a blank (frames cut at 40)."""
    width = 40
    lines = ["ValueError: " + "a" * (width - 13) + " ", "b" * (width - 1) + " ", "ccc"]
    assert [len(line) for line in lines[:2]] == [width, width]
    assert _normalize(_frames(width) + "\n" + "\n".join(lines)) == _normalize(_frames(width) + "\n" + "".join(lines))


def _apart(text: str, line: str, rest: str) -> bool:
    return line.rstrip(" \t") + "\n" + rest in _normalize(text)


def _line(length: int) -> str:
    return ("ValueError: " + "x" * length)[:length]


@pytest.mark.parametrize("width", (40, 48))
def test_the_twins_stay_apart(width):
    """Each of these reads as a line of its own, as on main."""
    cut = _line(width - 1) + " "
    # without the blank, W - 1 (round thirty-one's twin); noted but W - 2 long
    assert _apart(_frames(width) + "\n" + _line(width - 1) + "\nyz", _line(width - 1), "yz")
    assert _apart(_frames(width) + "\n" + _line(width - 2) + " \nyz", _line(width - 2), "yz")
    # the lines EXCEPTION_WRAP_END keeps apart
    for rest in ('  File "/home/me/other.py", line 3, in g', "KeyError: 'x'", "", "Traceback (most recent call last):"):
        assert _apart(_frames(width) + "\n" + cut + "\n" + rest + "\nIndexError: y", cut, rest), rest
    # the same text printed elsewhere without the blank: which copy was cut is not told
    twice = _line(width - 1) + "\n" + _frames(width) + "\n" + cut + "\nyz"
    assert _apart(twice, cut, "yz")
    # a paste padded to one width: every short line ends with blanks, the one blank of a line of W - 1 is padding
    padded = "\n".join(line + " " * (width - len(line)) for line in (_frames(width) + "\n" + cut + "\nyz").split("\n"))
    assert _apart(padded, cut, "yz")
    # no width (frames not wrapped): nothing is joined
    assert _apart(KEY_TB.rsplit("\n", 1)[0] + "\n" + cut + "\nyz", cut, "yz")


@pytest.mark.parametrize("width", (40, 48))
def test_a_noted_line_of_the_width_less_one_is_joined_with_its_blank(width):
    """The class, on a line of the test's own: W - 1 characters and the blank the cut left, then a plain rest."""
    cut = _line(width - 1) + " "
    assert _normalize(_frames(width) + "\n" + cut + "\nyz").endswith("\n" + cut + "yz")


def test_the_join_puts_back_the_blank_the_cut_left():
    """A tab left at the cut is put back as a tab; a text noted once with a blank and once with a tab tells nothing."""
    width = 40
    tab = _line(width - 1) + "\t"
    assert _normalize(_frames(width) + "\n" + tab + "\nyz").endswith("\n" + tab + "yz")
    both = _frames(width) + "\n" + _line(width - 1) + " \nab\n" + tab + "\nyz"
    assert _apart(both, tab, "yz")


def _pastes() -> list[str]:
    pastes = [hard_wrapped(KEY_TB, width) for width in CUT_AFTER_A_MESSAGE_BLANK]
    for width in (40, 48):
        cut = _line(width - 1) + " "
        pastes += [_frames(width) + "\n" + cut + "\nyz", _frames(width) + "\n" + _line(width - 1) + "\nyz",
                   _line(width - 1) + "\n" + _frames(width) + "\n" + cut + "\nyz",
                   "\n".join(line + " " * (width - len(line))
                             for line in (_frames(width) + "\n" + cut + "\nyz").split("\n")),
                   _frames(width) + "\n" + cut + "\n\nyz", _frames(width) + "\n" + _line(width - 1) + "\t\nyz",
                   _frames(width) + "\n" + cut + "\nab\n" + _line(width - 1) + "\t\nyz"]
    return pastes


def test_the_page_normalizes_as_the_lookup_does():
    from tests.site.test_lookup_js import run_js

    pastes = _pastes()
    js = run_js("console.log(JSON.stringify(data.map((text) => L.normalize(text, R))))", pastes)
    assert js == [_normalize(text) for text in pastes]


def test_the_page_the_cli_and_the_hook_answer_alike(real_index):  # noqa: F811
    python = _same_in_page_cli_and_hook(real_index, _pastes(), None)
    assert [[one[:2] for one in result["found"]] for result in python[:len(CUT_AFTER_A_MESSAGE_BLANK)]] == \
        [[[KEY, "confirmed"]]] * len(CUT_AFTER_A_MESSAGE_BLANK)


HOSTILE = [
    # an exception line, then 60,000 lines of W - 1 each ending with one blank, all distinct: all joined into it
    _frames(40) + "\nValueError: " + "x" * 27 + " \n" + "\n".join(f"{n:039d} " for n in range(60000)) + "\nyz",
    # one line of 1.5 MB of words and blanks ending with one blank, then the same without padding: no backtracking
    _frames(40) + "\n" + "ab " * 500000 + "\n" + "ValueError: " + "x" * 26 + " \nyz",
]


def test_noting_the_cut_blanks_is_bounded():
    """A hang guard (generous, in a child process): normalising each paste whole takes well under the limit. The first
    reads as its frames and one line (every part filled, so every next line is joined), the second keeps its lines."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_thirtyfive import HOSTILE; "
            "from errorkb.lookup import normalize; "
            "print(json.dumps([normalize(text).count(chr(10)) for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [3, 5]

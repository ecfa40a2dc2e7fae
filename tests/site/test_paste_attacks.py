"""Pastes are whatever a terminal printed: more hostile families than `tests/site/hostile.py`
holds (carriage-return storms, exception chains, escape sequences that never end, NUL bytes,
combining marks, giant file names, stacked prefixes...), each answered in work linear in its
size, with the real error at its end still found, and the page's lookup (lookup.js) giving the
same answer with the same counted work.

And what reaches `errorkb lookup -` as bytes: a terminal capture holds bytes that are not
UTF-8 (binary output, a Latin-1 file name) and raw 8-bit control bytes; the command must answer
it, never print a traceback, and never echo a byte a terminal would act on.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from errorkb.lookup import Known, Lookup
from tests.kb import ROOT
from tests.site.hostile import ENTRIES, HEAD_DIM_PIECES, REAL, _fill

KB = Lookup(Known.from_index(item) for item in ENTRIES)
SIZE = 16 * 1024


def _units(unit, tail: str = REAL):
    return lambda size: _fill(unit, size, tail)


def _one_run(head: str, unit: str, tail: str = "\n" + REAL):
    """`head`, then `unit` repeated to the size, then the real error."""
    return lambda size: head + unit * max(0, (size - len(head) - len(tail)) // len(unit)) + tail


FAMILIES = {
    "carriage returns only": _units(lambda i: f"UserWarning: step {i}\r"),
    "windows line endings": _units(lambda i: "UserWarning: x\r\n"),
    "unicode line separators": _units(lambda i: "UserWarning: x\u2028"),
    "exception chains": _units(lambda i: "ValueError: x\n\nDuring handling of the above exception, "
                                         "another exception occurred:\n\n"),
    "direct causes": _units(lambda i: "ValueError: x\n\nThe above exception was the direct cause of the "
                                      "following exception:\n\n"),
    "traceback headers": _units(lambda i: "Traceback (most recent call last):\n"),
    "frames without code": _units(lambda i: f'  File "/x/transformers/cache_utils.py", line {i}, in f\n'),
    "an OSC never ended": _one_run("\x1b]8;;", "a"),
    "a CSI with a giant parameter": _one_run("\x1b[", "1", "m\n" + REAL),
    "CSIs never ended": _units(lambda i: "\x1b[1", "\n" + REAL),
    "NUL bytes": _units(lambda i: "\x00", "\n" + REAL),
    "combining marks": _one_run("ValueError: a", "\u0301"),
    "did-you-mean hints": _units(lambda i: "AttributeError: 'DynamicCache' object has no attribute "
                                           "'get_max_length'. Did you mean: 'get_max_length'?\n"),
    "a giant file name": _one_run('  File "', "a/", '", line 1, in x\n' + REAL),
    "colons": _one_run("", "a: "),
    "a giant dotted name": _one_run("", "a.", "Error: x\n" + REAL),
    "pytest prefixes stacked": _one_run("", "E   ", "\n" + REAL),
    "pytest prefix on every line": _units(lambda i: "E   ValueError: x\n", "E   " + REAL),
    "timestamps stacked": _one_run("", "2026-01-01 10:00:00,123 "),
    "rank prefixes of every kind": _units(lambda i: f"[rank{i}]:[default{i}]: "),
    "the template's first half, once a line": _units(lambda i: f"ValueError: {HEAD_DIM_PIECES[0]}{i}"
                                                               f"{HEAD_DIM_PIECES[1]}\n"),
    "bare exception names": _units(lambda i: "ValueError:\n"),
    "open parentheses": _units(lambda i: "(", "\n" + REAL),
    "open braces": _units(lambda i: "{", "\n" + REAL),
    "quotes": _units(lambda i: "'", "\n" + REAL),
    "backslashes": _units(lambda i: "\\", "\n" + REAL),
    "lines of spaces": _units(lambda i: " " * 100 + "\n"),
    "IPython rulers in colour": _units(lambda i: "\x1b[0;31m" + "-" * 75 + "\x1b[0m\n"),
}


def work(text: str) -> int:
    return KB.answer(text).work


@pytest.mark.parametrize("family", FAMILIES)
def test_work_grows_linearly_and_the_real_error_is_found(family):
    small, large = FAMILIES[family](SIZE), FAMILIES[family](2 * SIZE)
    assert len(small) <= SIZE and len(large) > 1.9 * SIZE, (len(small), len(large))
    w_small, w_large = work(small), work(large)
    assert w_large <= 2.1 * w_small + 1000, (w_small, w_large)
    found = KB.find(large)
    assert found and found[0].known.id == "head-dim" and found[0].exact, family


def test_the_page_s_lookup_gives_the_same_answers_with_the_same_work():
    from tests.site.test_lookup_js import js_answers, python_answers

    pastes = [make(size) for make in FAMILIES.values() for size in (2048, 8192)]
    python, js = python_answers(ENTRIES, pastes), js_answers(ENTRIES, pastes)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste[:80]


def test_astral_characters_get_the_same_answer_and_work_within_their_width():
    """Work is counted in each language's string units: JavaScript's are UTF-16, so an astral
    character (emoji, CJK extension) is two there and one in Python. The answers (matches, cut, kept:
    those count code points in both) must be equal, and the page's work stay within twice Python's:
    as linear, never more."""
    from tests.site.test_lookup_js import js_answers, python_answers

    pastes = ["\U0001f600" * 1000 + "\n" + REAL, REAL.replace("12", "1\U0001f6002"), "\U00020000" * 5000]
    python, js = python_answers(ENTRIES, pastes), js_answers(ENTRIES, pastes)
    for paste, p, j in zip(pastes, python, js):
        assert {**p, "work": 0} == {**j, "work": 0}, paste[:40]
        assert p["work"] <= j["work"] <= 2 * p["work"], (paste[:40], p["work"], j["work"])


# -- errorkb lookup -: bytes as a terminal captured them ---------------------------------------------

def lookup_cli(paste: bytes, **env: str) -> subprocess.CompletedProcess:
    code = "import sys; from errorkb.cli import main; sys.exit(main())"
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-c", code, "lookup", "-"], input=paste, capture_output=True,
                          cwd=ROOT, env=environment, timeout=120)


NOT_UTF8 = b"build log: caf\xe9 \xff\xfe binary \x80\x81\n" + REAL.encode()


def test_a_paste_that_is_not_utf8_is_answered_under_a_strict_utf8_locale():
    result = lookup_cli(NOT_UTF8, PYTHONIOENCODING="utf-8:strict")
    assert "Traceback" not in result.stderr.decode("utf-8", "replace"), result.stderr[-1500:]
    assert result.returncode == 0 and b"head-dim-list-length" in result.stdout, result.stdout[-1500:]


def test_a_paste_that_is_not_utf8_is_answered_under_the_c_locale():
    result = lookup_cli(NOT_UTF8, LC_ALL="C.UTF-8")
    assert "Traceback" not in result.stderr.decode("utf-8", "replace"), result.stderr[-1500:]
    assert result.returncode == 0 and b"head-dim-list-length" in result.stdout, result.stdout[-1500:]


def _answered_about_the_entry(result: subprocess.CompletedProcess) -> None:
    """The command answered about the entry whose words the paste has (exit 0, a match; exit 1, none, the entry
    named as ruled out or nearest): the undecodable byte stands inside the count `{len(...)}` prints, so the value
    read (`131m2`, no count) rules the entry out. What matters here is that the answer shows no raw byte."""
    assert result.returncode in (0, 1), result.stderr[-1500:]
    assert b"head-dim-list-length" in result.stdout + result.stderr, (result.stdout + result.stderr)[-1500:]


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_raw_control_bytes_in_a_paste_are_never_echoed(json_output):
    paste = REAL.replace("length 12", "length 1\x9b31m2").encode("latin-1").replace(b"\xc2", b"")
    assert b"\x9b" in paste
    code = "import sys; from errorkb.cli import main; sys.exit(main())"
    args = ["lookup", *(["--json"] if json_output else []), "-"]
    result = subprocess.run([sys.executable, "-c", code, *args], input=paste, capture_output=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}, timeout=120)
    _answered_about_the_entry(result)
    text = (result.stdout + result.stderr).decode("utf-8")  # strictly: no undecodable byte went out
    assert not [char for char in text if "\x80" <= char <= "\x9f"], text[-800:]


def test_a_paste_longer_than_what_is_read_keeps_its_end_where_the_error_is():
    """A build log of 20 MB on stdin: the command keeps its last bytes, where Python prints the error
    (it read the first 16 MB, and answered nothing)."""
    result = lookup_cli(b"step 1 of a long build: ok\n" * (20 * 1024 * 1024 // 27) + REAL.encode(), LC_ALL="C.UTF-8")
    assert result.returncode == 0 and b"head-dim-list-length" in result.stdout, result.stderr[-1500:]


def test_a_text_stream_in_stdins_place_is_read_alike(monkeypatch):
    """An embedding program (or a test) may put a text stream without `.buffer` in stdin's place."""
    import io

    from errorkb import cli

    monkeypatch.setattr(sys, "stdin", io.StringIO("caf\udce9 log\n" + REAL))
    text = cli._read_input("-")
    assert text.endswith(REAL) and text.startswith("caf\ufffd log")  # the escaped byte read as a paste's are


def test_a_message_argument_that_is_not_utf8_is_answered_and_never_echoed_raw():
    """The message as an argument: bytes that are not UTF-8 arrive surrogate-escaped and must neither
    stop the command nor come back out as raw bytes."""
    code = "import sys; from errorkb.cli import main; sys.exit(main())"
    message = REAL.replace("length 12", "length 1\x9b31m2").encode("latin-1").replace(b"\xc2", b"")
    result = subprocess.run([sys.executable.encode(), b"-c", code.encode(), b"lookup", message], capture_output=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}, timeout=120)
    _answered_about_the_entry(result)
    text = (result.stdout + result.stderr).decode("utf-8")  # strictly: no undecodable byte went out
    assert not [char for char in text if "\x80" <= char <= "\x9f"], text[-800:]


def test_with_nothing_matched_the_answer_says_which_entry_was_ruled_out_and_why():
    """An entry whose words fit but whose values do not (a count is never negative) is no answer; the person who
    pasted it is told which entry and why, not only "no entry matches" (before, only `--all` said it)."""
    result = lookup_cli(REAL.replace("length 12", "length -2").encode(), LC_ALL="C.UTF-8")
    assert result.returncode == 1, result.stderr[-1500:]
    out = result.stdout.decode()
    assert "ruled out: head-dim-list-length: the message fits its words, but not its values" in out, out[-1500:]
    assert "= -2" in out and "no entry matches this message" in result.stderr.decode()

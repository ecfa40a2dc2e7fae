"""Round thirty-four (hookred13, session 59): one relayed error, one answer, whatever blanks the user's raise adds.

The user's handler catches a library's error and raises it again in its own words, `from None`: the paste shows the
user's part alone. Main answered twins of one paste three ways: `raise RuntimeError(f'  {error}') from None` (leading
blanks) confirmed, `raise RuntimeError(f'{error} ') from None` (a trailing blank) ruled out as "your own code raises
these words", `raise RuntimeError(str(error)) from None` possible. Two classes: the exception line's message was read
with its trailing blanks dropped but its leading ones kept (`_paste.candidates`: leading blanks made the words "found
inside a longer message", a retelling's path), and the rules' `RELAYED` (a `raise` that builds its message from a
value alone) knew an f-string of placeholders only, not one with blanks, nor `'%s' % error` or `'{}'.format(error)`.

What the paste carries decides: a user's own raise whose literals hold nothing but placeholders and blanks relays a
value (possible, never confirmed: the words may be the library's or the user's); one whose literal holds the words
wrote them (ruled out); one with words of its own around the value (`f'export failed: {error}'`) is a retelling,
judged by the words it quotes (round seventeen, corpus r104), alike in every formatting style. The page, the CLI and
the hook answer each alike (`_same_in_page_cli_and_hook`). The message is the entry's own (round thirty-two's
traceback of `head-dim-list-length`): no library message invented here.
"""

from __future__ import annotations

from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index  # noqa: F401  (the fixture)
from tests.site.test_lookup_round_thirtytwo import HEAD, MSG


def relayed(line: str, message: str, exception: str = "RuntimeError") -> str:
    """The user's handler raising `message` at `line`, `from None`: Python prints the user's part alone."""
    return "\n".join(["Traceback (most recent call last):", '  File "/home/me/export.py", line 11, in main',
                      f"    {line}", f"{exception}: {message}", ""])


# (the raise's code, the message it prints): each relays the value alone, blanks aside
VALUE_ALONE = {
    "str": ("raise {}(str(error)) from None", MSG),
    "f-string": ("raise {}(f'{{error}}') from None", MSG),
    "leading-blanks": ("raise {}(f'  {{error}}') from None", "  " + MSG),
    "trailing-blank": ("raise {}(f'{{error}} ') from None", MSG + " "),
    "tab-and-blanks": ('raise {}(f"\\t{{error}}  ") from None', "\t" + MSG + "  "),
    "percent": ("raise {}('%s' % error) from None", MSG),
    "percent-blanks": ("raise {}('  %s' % (error,)) from None", "  " + MSG),
    "format": ("raise {}('{{}}'.format(error)) from None", MSG),
    "format-blank": ("raise {}('{{}} '.format(error)) from None", MSG + " "),
    "concatenated": ("raise {}(' ' + str(error)) from None", " " + MSG),
}
# words of the user's own around the value: a retelling, one answer in every style
AROUND = {
    "f-string": ("raise RuntimeError(f'export failed: {error}') from None", "export failed: " + MSG),
    "f-string-blanks": ("raise RuntimeError(f'export failed:  {error} ') from None", "export failed:  " + MSG + " "),
    "percent": ("raise RuntimeError('export failed: %s' % error) from None", "export failed: " + MSG),
    "format": ("raise RuntimeError('export failed: {}'.format(error)) from None", "export failed: " + MSG),
}
# the raise's own literal holds the words, blanks or not: the user's code wrote them
OWN_WORDS = [relayed(f"raise RuntimeError('  {MSG}') from None", "  " + MSG),
             relayed(f"raise RuntimeError(f'{MSG} ') from None", MSG + " ")]


def _graded(python: list) -> list:
    return [[tuple(one[:2]) for one in result["found"]] for result in python]


def test_a_relay_of_the_value_alone_is_possible_whatever_blanks_or_formatting(real_index):  # noqa: F811
    """main: leading blanks confirmed; a trailing blank, `%s` and `.format` ruled out as the user's own words."""
    pastes = [relayed(code.format("RuntimeError"), message) for code, message in VALUE_ALONE.values()]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert _graded(python) == [[(HEAD, "candidate")]] * len(pastes), dict(zip(VALUE_ALONE, _graded(python)))
    assert all(any("relays these words" in hint for hint in result["found"][0][9]) for result in python)


def test_the_entrys_own_class_relayed_gets_one_answer_whatever_blanks(real_index):  # noqa: F811
    """Under the entry's own class (`ValueError`), each twin gets the answer `str(error)` gets (main: leading blanks
    confirmed what `str(error)` rules out, a complete traceback with no frame of the library)."""
    pastes = [relayed(code.format("ValueError"), message, "ValueError") for code, message in VALUE_ALONE.values()]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    answers = [(_graded([result])[0], [tuple(one[:1]) for one in result["ruled"]]) for result in python]
    assert answers == [answers[0]] * len(pastes), dict(zip(VALUE_ALONE, answers))
    assert not any(grade == "confirmed" for found in _graded(python) for _, grade in found)


def test_a_retelling_with_words_around_the_value_gets_one_answer_in_every_style(real_index):  # noqa: F811
    pastes = [relayed(code, message) for code, message in AROUND.values()]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert _graded(python) == [_graded(python)[0]] * len(pastes), dict(zip(AROUND, _graded(python)))
    assert _graded(python)[0] and _graded(python)[0][0][0] == HEAD
    assert not any("your own code raises" in reason for result in python for _, reason in result["ruled"])


def test_the_users_own_literal_of_the_words_stays_ruled_out_whatever_blanks(real_index):  # noqa: F811
    python = _same_in_page_cli_and_hook(real_index, OWN_WORDS, None)
    assert _graded(python) == [[]] * len(OWN_WORDS), _graded(python)
    assert all("your own code raises" in result["ruled"][0][1] for result in python)

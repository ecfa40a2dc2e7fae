"""Round sixteen: what a log's records say about a list of errors, asked of the matcher and of the page's script
alike (the strict xfail part nineteen left).

A paste that is several exception lines one under the other, with no traceback, ended with each of them (part
nineteen, corpus h558). But a line that carried a log record's prefix (a timestamp, a level, a serving engine's
header, Python logging's default `LEVEL:logger:`, absl's `W0402 12:49:21.589 123 file.py:12] `) is a record the
program logged and went on from: a handled error, said before the error the paste ended with, never one of a list
of errors. The prefix goes before the lines are read (`rules.PREFIX`); which lines carried one is kept
(`_paste.logged_lines`). The last exception line is the error the paste ended with, logged or not (a record at
ERROR, `logger.exception()`); lines above a logged last line are no list either. A record's own continuation lines
(no prefix of their own) still list errors, and a launcher's `[rank0]: ` or pytest's `E   ` is no log record.
"""

from __future__ import annotations

import pytest

from tests.site.test_lookup_js import full_js, full_python
from tests.site.test_lookup_part_nineteen import OLD, OTHER, answers_alike, graded

STAMP = "2025-04-02 12:49:21,589 - acme - {} - "
LOGGED = [
    STAMP.format("WARNING") + OLD + OTHER,
    "WARNING 09-07 19:28:33 [store.py:12] " + OLD + OTHER,  # a serving engine's header
    "WARNING:acme.store:" + OLD + OTHER,  # Python logging's default format (the prefix stays; the name is inside)
    "W0402 12:49:21.589123 12345 store.py:12] " + OLD + OTHER,  # absl / glog
    "[rank0]: 2025-04-02 12:49:21 ERROR " + OLD + "[rank0]: " + OTHER,  # a launcher's tag before a record, at ERROR
    STAMP.format("ERROR") + OLD + STAMP.format("ERROR") + OTHER,  # two records: the first was logged, then the run
    OLD + STAMP.format("ERROR") + OTHER,  # went on; a line above a logged last one is no list either
    "[2025-04-02 12:49:21] " + OLD + OTHER,  # a bare timestamp: a logger (or `docker logs -t`) wrote the line
]
LISTED = [
    STAMP.format("ERROR") + "Import errors found:\n" + OLD + OTHER,  # a record's continuation lines: a list
    "[rank0]: " + OLD + "[rank0]: " + OTHER,  # a launcher's tag is no log record
    "E   " + OLD + "E   " + OTHER,  # nor pytest's margin
    OTHER + STAMP.format("ERROR") + OLD,  # the final error itself logged at ERROR: the error the paste ended with
    "WARNING:acme.store:" + OLD,  # the only exception line, logged: still the one the paste ended with
]


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_an_error_a_log_record_carried_is_no_error_the_paste_ended_with_in_both(release):
    answers_alike(LOGGED, release, "candidate", unlisted=True)


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_a_record_s_own_lines_a_launcher_s_tag_and_a_logged_final_error_still_confirm_in_both(release):
    answers_alike(LISTED, release, "confirmed")


# -- a handler that relays a library's error by its text ------------------------------------------------------------
# The own-raise rule (round fifteen) rules an entry out when the user's own file raises its words. A handler that
# relays an error by its text (`except Exception as e: raise RuntimeError(str(e)) from None`, a framework wrapping
# it) loses the chain: the paste shows the user's `raise` alone. By the paste's evidence only: a `raise` whose line
# holds the message's words in a literal of its own (`raise AttributeError("'Store' object has no ...")`) wrote
# them, ruled out as before; a `raise` that builds its message from a value alone, no words of its own
# (`raise RuntimeError(str(error)) from None`, `raise AttributeError(message)`, an f-string of placeholders only:
# the rules' `RELAYED`), may relay the library's error: possible, never confirmed, and it says what would tell.

from tests.site.test_lookup_round_fifteen import ENTRIES as FIELD_ENTRIES  # noqa: E402
from tests.site.test_lookup_round_fifteen import MESSAGE, frame  # noqa: E402

RELAYS = [frame("/home/me/run.py", "raise RuntimeError(str(error)) from None"),
          frame("/home/me/run.py", "raise AttributeError(message)"),
          frame("C:/Users/me/run.py", "raise type(error)(*error.args) from None"),
          frame("/home/me/app/node.py", "raise NodeError(f\"{error}\") from None")]
OWN_WORDS = [frame("/home/me/run.py", "raise AttributeError(\"'Store' object has no attribute 'old_field'\")"),
             frame("/home/me/run.py", "raise AttributeError(f\"'{name}' object has no attribute 'old_field'\")"),
             frame("/home/me/run.py", "raise AttributeError('no attribute ' + repr(name))")]


def test_a_raise_that_relays_a_value_is_possible_and_one_with_its_own_words_ruled_out_in_both():
    pastes = [one + MESSAGE for one in RELAYS + OWN_WORDS]
    python, js = full_python(FIELD_ENTRIES, pastes, "2.3.0"), full_js(FIELD_ENTRIES, pastes, "2.3.0")
    assert graded(python) == [[("old-field-removed", "candidate")]] * len(RELAYS) + [[]] * len(OWN_WORDS), \
        graded(python)
    assert all(any("relays" in hint for hint in result["found"][0][9]) for result in python[:len(RELAYS)])
    assert all("your own code raises" in result["ruled"][0][1] for result in python[len(RELAYS):])
    assert [r["found"] for r in python] == [r["found"] for r in js] and \
        [r["ruled"] for r in python] == [r["ruled"] for r in js]


def test_the_whole_words_under_another_class_are_judged_by_the_raise_too_in_both():
    """`raise RuntimeError(str(error)) from None` prints the library's words whole under the handler's class: found
    inside the text, they were confirmed on main by the words and the release, and a literal of the user's own under
    another class (`raise RuntimeError("'Store' object has no attribute 'old_field'")`) too. The raise of the
    exception line whose whole message they are decides, as for the entry's own class."""
    line = "RuntimeError: 'Store' object has no attribute 'old_field'\n"
    pastes = [frame("/home/me/run.py", "raise RuntimeError(str(error)) from None") + line,
              frame("/home/me/run.py", "raise RuntimeError(\"'Store' object has no attribute 'old_field'\")") + line,
              frame("/venv/lib/python3.11/site-packages/acme/store.py", "raise RuntimeError(message)") + line]
    python, js = full_python(FIELD_ENTRIES, pastes, "2.3.0"), full_js(FIELD_ENTRIES, pastes, "2.3.0")
    assert graded(python) == [[("old-field-removed", "candidate")], [], [("old-field-removed", "confirmed")]], \
        graded(python)
    assert "your own code raises" in python[1]["ruled"][0][1]
    assert python == js


# -- shapes a paste reaches the reader in, not tried before -----------------------------------------------------------
# A traceback copied from a web page's source or an HTML-escaped field (`&lt;module&gt;`, `&#39;Store&#39;`) and one
# a web form or an editor laced with invisible marks (a zero-width space inside a class's name, a right-to-left mark
# before it) were silent on main: the words never met. What a browser shows, the user saw: the marks go and the five
# entities a traceback can hold are read once (`rules.INVISIBLE`, `rules.HTML_ENTITY`), so each reads as the plain
# traceback does, confirmed where it is. A traceback in a Markdown table's cells or under an editor's line numbers
# (`12 | File ...`) already read so (guarded here). A decoded `&amp;lt;` is `&lt;`, never `<`: decoded once.

PLAIN = frame("/home/me/run.py", "value = store.old_field") + MESSAGE


def html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;") \
        .replace('"', "&quot;")


DRESSED = [html(PLAIN), PLAIN.replace("'", "&#x27;").replace('"', "&#34;").replace("<", "&lt;"),
           PLAIN.replace("Store", "St\u200bore"), PLAIN.replace("'Store'", "\u200f'Store'\u200e"),
           PLAIN.replace("old_field'", "old\u2060_field\u00ad'"), PLAIN.replace("AttributeError", "Attribute\u200dError"),
           "".join(f"| {line} |\n" for line in PLAIN.splitlines()),
           "".join(f"{number + 12} | {line}\n" for number, line in enumerate(PLAIN.splitlines()))]


@pytest.mark.parametrize("release", [None, "2.3.0"])
def test_an_html_escaped_or_invisibly_marked_traceback_reads_as_the_plain_one_in_both(release):
    plain = full_python(FIELD_ENTRIES, [PLAIN], release)
    python, js = full_python(FIELD_ENTRIES, DRESSED, release), full_js(FIELD_ENTRIES, DRESSED, release)
    assert graded(plain)[0], graded(plain)
    assert graded(python) == graded(plain) * len(DRESSED), graded(python)
    assert python == js


def test_entities_are_decoded_once_in_both():
    """`&amp;lt;module&amp;gt;` shows `&lt;module&gt;`: a paste's text, not a frame's `<module>`."""
    twice = html(html(PLAIN))
    python, js = full_python(FIELD_ENTRIES, [twice], "2.3.0"), full_js(FIELD_ENTRIES, [twice], "2.3.0")
    assert graded(python) == [[]], graded(python)
    assert python == js

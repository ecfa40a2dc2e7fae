"""Round seventeen: the rules round sixteen added, attacked, asked of the matcher and of the page's script alike.

A list of errors (`_paste.listed`, part nineteen) is exception lines Python or a test runner printed, one under the
other, with no traceback: the paste ended with each. On main any line that named an exception, wherever the name
stood in it, joined the list, and the earlier line's entry was confirmed: a name quoted in the question's prose
above the real error (`Before I had ImportError: ... but I fixed that`), a print of the user's handler
(`print(f"Error: {e}")`, `caught ImportError: ...`), and a log record whose prefix `LOG_RECORD` does not know (rich's
`[12:00:00] WARNING `, `[WARNING] `, uvicorn's `ERROR:    `, tornado's `[W 2024-... app:12] `, syslog's) all
confirmed an error the program had handled or the user had already fixed. Now an earlier line is one of the list
only where the name starts the line or stands after pytest's summary of a test that met it (`rules.LISTED_LEAD`),
and not under a print's bare `Error:` / `Exception:` (`rules.PRINTED_NAME`): the class, not each log format.
"""

from __future__ import annotations

import pytest

from tests.site.test_lookup_js import full_js, full_python
from tests.site.test_lookup_part_nineteen import OLD, OTHER, answers_alike, graded

NOT_LISTED = [
    "Before I had " + OLD.strip() + " but I fixed that. Now:\n" + OTHER,  # prose above the real error
    "Error: cannot import name 'OldCache' from 'acme'\n" + OTHER,  # the user's print(f"Error: {e}")
    "Exception: cannot import name 'OldCache' from 'acme'\n" + OTHER,  # print("Exception:", e)
    "caught " + OLD + OTHER,  # print(f"caught {type(e).__name__}: {e}")
    "[12:00:00] WARNING  " + OLD + OTHER,  # rich's logging handler
    "[01/01/24 12:00:00] ERROR    " + OLD + OTHER,
    "12:00:00.123 [WARN] " + OLD + OTHER,
    "ERROR:    " + OLD + OTHER,  # uvicorn's default format
    "[WARNING] " + OLD + OTHER,  # `[%(levelname)s] %(message)s`
    "[W 2024-01-01 12:00:00.123 app:12] " + OLD + OTHER,  # tornado / jupyter
    "Jan  1 12:00:00 host app[123]: " + OLD + OTHER,  # syslog, journalctl
    "- I had " + OLD + "- " + OTHER,  # a list item's prose
]
STILL_LISTED = [
    "FAILED tests/test_a.py::test_x - " + OLD + "FAILED tests/test_b.py::test_y - " + OTHER,  # pytest's summary
    "ERROR tests/test_a.py - " + OLD + "ERROR tests/test_b.py - " + OTHER,  # collection errors
    "100%|##########| 10/10 [00:01<00:00]\n" + OLD + OTHER,  # a progress bar above the list
    "    " + OLD + "    " + OTHER,  # indented as pasted in an issue
    "- " + OLD + "- " + OTHER,  # a Markdown list the user wrote them as
    "1. " + OLD + "2. " + OTHER,
]


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_a_name_in_prose_a_print_or_an_unknown_log_format_is_no_line_of_a_list_in_both(release):
    answers_alike(NOT_LISTED, release, "candidate", unlisted=True)


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_pytest_s_summary_and_a_plain_list_still_end_with_each_error_in_both(release):
    answers_alike(STILL_LISTED, release, "confirmed")


# -- the user's own literal around a placeholder ----------------------------------------------------------------------
# Words found inside a longer message are a wrapper's retelling of an earlier error (`raise RuntimeError(f"failed:
# {error}")`, round fifteen): confirmed by the library's words. On main so was a `raise` whose own literal held the
# words with a placeholder or other text around them (`raise RuntimeError(f"step {i}: 'Store' object has no attribute
# 'old_field'")`): the user wrote them, and the entry was confirmed. Now the raise that printed words found inside a
# longer message is judged as a whole own raise is, where its line holds the wording's longest fixed piece
# (`rules.WRITTEN_MIN` characters or more): ruled out; a retelling holds none of it and is confirmed as before.

from tests.site.test_lookup_round_fifteen import ENTRIES as FIELD_ENTRIES  # noqa: E402
from tests.site.test_lookup_round_fifteen import frame  # noqa: E402

WORDS = "'Store' object has no attribute 'old_field'"
OWN_LITERALS = [
    frame("/home/me/run.py", f'raise RuntimeError(f"step {{i}}: {WORDS}")') + f"RuntimeError: step 3: {WORDS}\n",
    frame("/home/me/run.py", f'raise AttributeError(f"{WORDS} (in {{name}})")') + f"AttributeError: {WORDS} (in main)\n",
    frame("/home/me/run.py", f'raise ValueError("failed: {WORDS}")') + f"ValueError: failed: {WORDS}\n",
    frame("C:/Users/me/run.py", "raise ValueError('failed: \\'Store\\' object has no attribute \\'old_field\\'')")
    + f"ValueError: failed: {WORDS}\n",  # escaped quotes in the literal
]
RETOLD = [
    frame("/home/me/run.py", 'raise RuntimeError(f"failed: {e}")') + f"RuntimeError: failed: {WORDS}\n",
    frame("/home/me/run.py", 'raise Exception("bad: %s" % e)') + f"Exception: bad: {WORDS}\n",
    frame("/home/me/run.py", 'raise RuntimeError(f"failed: {e}")  # ' + WORDS) + f"RuntimeError: failed: {WORDS}\n",
]


@pytest.mark.parametrize("release", [None, "2.3.0"])
def test_the_users_literal_around_a_placeholder_is_their_own_raise_and_a_retelling_still_confirms_in_both(release):
    pastes = OWN_LITERALS + RETOLD
    python, js = full_python(FIELD_ENTRIES, pastes, release), full_js(FIELD_ENTRIES, pastes, release)
    assert graded(python) == [[]] * len(OWN_LITERALS) + [[("old-field-removed", "confirmed")]] * len(RETOLD), \
        graded(python)
    assert all("your own code raises" in result["ruled"][0][1] for result in python[:len(OWN_LITERALS)])
    assert python == js


# -- a traceback whose every line a tool stamped ----------------------------------------------------------------------
# Jenkins' timestamper and moreutils' `ts` stamp each line with a time alone (`12:00:00 `), journalctl with syslog's
# `Jan  1 12:00:00 host python[123]: `. `PREFIX` took dates with times only: these tracebacks read as no traceback,
# their frames unread, and a user's own raise of an entry's words was confirmed on its words. A time alone and
# syslog's header are stamps now (`rules.SYSLOG`, the time in `TIMESTAMP` and `LOG_RECORD`): read as the plain
# traceback is, in both.

OWN_RAISE = frame("/home/me/run.py", f'raise AttributeError("{WORDS}")') + f"AttributeError: {WORDS}\n"


def stamped(text: str, stamp: str) -> str:
    return "".join(stamp + line + "\n" for line in text.splitlines())


STAMPS = ["12:00:00 ", "12:00:00.123 ", "[12:00:00] ", "Jan 01 12:00:00 host python[123]: ",
          "Dec  5 23:01:02 box app.py[9]: "]


@pytest.mark.parametrize("release", [None, "2.3.0"])
def test_a_traceback_stamped_with_a_time_alone_or_syslog_s_header_reads_as_the_plain_one_in_both(release):
    pastes = [stamped(OWN_RAISE, stamp) for stamp in STAMPS]
    python, js = full_python(FIELD_ENTRIES, pastes, release), full_js(FIELD_ENTRIES, pastes, release)
    assert graded(python) == [[]] * len(STAMPS), graded(python)
    assert all("your own code raises" in result["ruled"][0][1] for result in python)
    assert python == js


def test_a_traceback_stamped_line_by_line_in_a_logger_s_format_is_read():
    """A stamp only a logger's own format prints (loguru's, structlog's, absl's), the same before every line of a
    traceback, is a tag learned from the marker's line (round twenty; a strict xfail here before)."""
    pastes = [stamped(OWN_RAISE, stamp) for stamp in ("2024-01-01 12:00:00.123 | ERROR    | app:main:12 - ",
                                                      "2024-01-01 12:00:00 [error    ] ",
                                                      "I0101 12:00:00.123 123 x.py:1] ")]
    assert graded(full_python(FIELD_ENTRIES, pastes, "2.3.0")) == [[]] * 3

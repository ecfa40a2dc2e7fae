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
from tests.site.test_lookup_part_nineteen import ENTRIES, OLD, OTHER, graded

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
    python, js = full_python(ENTRIES, LOGGED, release), full_js(ENTRIES, LOGGED, release)
    assert graded(python) == [[("old-cache-import-removed", "candidate")]] * len(LOGGED), graded(python)
    assert all(any("not in the error it ended with" in hint for hint in result["found"][0][9]) for result in python)
    assert python == js


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_a_record_s_own_lines_a_launcher_s_tag_and_a_logged_final_error_still_confirm_in_both(release):
    python, js = full_python(ENTRIES, LISTED, release), full_js(ENTRIES, LISTED, release)
    assert graded(python) == [[("old-cache-import-removed", "confirmed")]] * len(LISTED), graded(python)
    assert python == js

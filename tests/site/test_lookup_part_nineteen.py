"""What the held-out part nineteen (corpus h554-h599) showed the diagnosis lacked, asked of the matcher and of the
page's script alike.

- A list of errors: a paste that is several exception lines, one under the other, with no traceback
  (`After updating I get the following import errors:` and the three lines, corpus h558). Each line is an error
  the user met and none led to another: the paste ended with every one of them, not only the last. The first
  line's entry was offered only as possible ("found earlier in the paste"), even with the release stated. An
  exception line is one of such a list only when the paste shows no traceback (no marker, no frame) and the
  lines stand directly one under the other; an exception line that another line, a frame or a traceback
  separates from the last is earlier in the run, as before.
"""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from tests.site.test_lookup_js import full_js, full_python

GONE = "cannot import name 'OldCache' from 'acme'"
ENTRIES = [{"id": "old-cache-import-removed", "title": "OldCache removed", "exception": "ImportError",
            "message": GONE, "wordings": [{"message": GONE, "exception": "ImportError", "releases": ">=2.0"}],
            "diagnosis": {"kind": "removed"}}]
OLD = "ImportError: cannot import name 'OldCache' from 'acme'\n"
OTHER = "ImportError: cannot import name 'Other' from 'acme'\n"
THIRD = "ModuleNotFoundError: No module named 'acme.layers'\n"
FRAME = '  File "/home/me/run.py", line 3, in <module>\n    import acme\n'

LISTS = [OLD + OTHER + THIRD, OLD + OTHER, "[rank0]: " + OLD + "[rank0]: " + OTHER, OTHER + OLD + THIRD,
         "After updating I get these errors:\n" + OLD + OTHER,
         OLD + "RuntimeError: step 2 failed: " + OTHER]  # a wrapper's line names its error inside
EARLIER = [
    OLD + "INFO: falling back to the plain cache\n" + OTHER,  # a log line stands between: OLD was handled
    OLD + "\n" + OTHER,  # a blank line: two pastes, or the second printed later
    OLD + "Traceback (most recent call last):\n" + FRAME + OTHER,  # OTHER has a traceback of its own
    FRAME + OLD + OTHER,  # a traceback's tail: the lines are no list of errors
    OLD + OTHER + "Traceback (most recent call last):\n" + FRAME + THIRD,  # the run ended with a traceback
]


def graded(results: list) -> list:
    return [[(one[0], one[1]) for one in result["found"]] for result in results]


def answers_alike(pastes: list[str], release: str | None, grade: str, unlisted: bool = False) -> None:
    """Each paste answers `old-cache-import-removed` as `grade`, in Python and the page's script alike; `unlisted`:
    each also says the entry's words are not in the error the paste ended with."""
    python, js = full_python(ENTRIES, pastes, release), full_js(ENTRIES, pastes, release)
    assert graded(python) == [[("old-cache-import-removed", grade)]] * len(pastes), graded(python)
    if unlisted:
        assert all(any("not in the error it ended with" in hint for hint in result["found"][0][9])
                   for result in python)
    assert python == js


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_a_list_of_errors_ended_with_each_of_them_in_both(release):
    answers_alike(LISTS, release, "confirmed")


@pytest.mark.parametrize("release", [None, "2.1.0"])
def test_an_error_a_line_or_a_traceback_separates_from_the_end_stays_possible_in_both(release):
    answers_alike(EARLIER, release, "candidate", unlisted=True)


def test_the_reports_list_of_import_errors_confirms_its_entry():
    """Corpus h558 (transformers#45278): three import errors after an upgrade to 5.5.0, the first the entry's."""
    paste = ("ImportError: cannot import name 'HybridCache' from 'transformers'\n"
             "ImportError: cannot import name 'AutoModelForVision2Seq' from 'transformers'\n"
             "ImportError: cannot import name 'PretrainedConfig' from 'transformers.modeling_utils'")
    kb = project_known_lookup()
    for release in (None, "5.5.0"):
        assert [m.known.id for m in kb.answer(paste, release).confirmed] == ["import-hybridcache-removed"]
    assert not kb.answer(paste, "4.57.0").confirmed  # a release before the removal still rules it out

"""Round twenty-two: attacks aimed at a confirmed wrong answer, in shapes rounds one to twenty-one did not try.

None found one: the matcher's answer to each is kept as a test, so that a later change that lets one of these shapes
confirm an entry fails here.

- a release stated for *another* machine ("on my laptop 4.57.0 works, here 4.46.0"): the words of an entry whose
  words alone confirm only on a release (`key-cache-removed`, `>=4.56`, with the 4.46 compile failure of the same
  words as another cause) stay a candidate, whichever machine the sentence names first;
- a traceback whose frames are a fork's or a vendored copy's under another package's name (`ipex_llm/transformers/`,
  `optimum/habana/transformers/`, `vendored/transformers/`): no frame of the library, so a frame-required entry is
  a candidate; a source checkout of the library itself (`.../src/transformers/`) is the library and still confirms;
- two errors in one paste where the entry's is handled and the user's own error ends the chain: the entry's error is
  not the one the user met last, and its frames tie no other error to it;
- placeholders filled with values that break the entry's declared relation (`Cache only has 5 layers, attempted to
  access layer with index 2`: an index below the count never raises), with or without the entry's own frame;
- evidence that ties to the entry only through text the user's program printed: a log line quoting a frame of the
  library (`INFO root: retrying after error: File ".../cache_utils.py" ...`) is no frame.
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import IDX, IE, KEY, SITE, UPDATE_LINE, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)

ZERO = "cache-only-has-0-layers"


# -- a release stated for another machine ----------------------------------------------------------------------------

OTHER_MACHINE = [
    "On my laptop transformers 4.57.0 works fine, here on the server it fails:\n",
    "On my laptop transformers 4.57.0 works, here 4.46.0 fails:\n",
    "on my laptop 4.57 works, here 4.46\n",
    "here transformers 4.46.0 fails, on my laptop 4.57.0 works:\n",
    "works with transformers==4.57.0 on my laptop; on the cluster:\n",
]


@pytest.mark.parametrize("prose", OTHER_MACHINE)
def test_a_release_stated_for_another_machine_confirms_nothing(kb, prose):  # noqa: F811
    assert answer(kb, prose + K) == ([], [KEY])


def test_the_release_given_for_the_users_machine_still_confirms(kb):  # noqa: F811
    assert answer(kb, OTHER_MACHINE[0] + K, "4.57.0") == ([KEY], [])


# -- frames of a fork or a vendored copy under another package's name ------------------------------------------------



@pytest.mark.parametrize("root", [f"{SITE}/ipex_llm/transformers", f"{SITE}/optimum/habana/transformers",
                                  f"{SITE}/vendored/transformers"])
def test_a_forks_frames_are_no_frames_of_the_library(kb, root):  # noqa: F811
    assert answer(kb, traceback(f"{root}/cache_utils.py", "update", UPDATE_LINE, IE)) == ([], [IDX])


@pytest.mark.parametrize("root", [f"{SITE}/transformers", "/home/u/proj/third_party/transformers/src/transformers"])
def test_the_librarys_own_frames_installed_or_checked_out_confirm(kb, root):  # noqa: F811
    assert answer(kb, traceback(f"{root}/cache_utils.py", "update", UPDATE_LINE, IE)) == ([IDX], [])


# -- two errors, the entry's handled ---------------------------------------------------------------------------------

ZERO_WORDS = "KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'"


def test_the_entrys_error_handled_before_the_users_own_is_no_confirmed_answer(kb):  # noqa: F811
    text = "\n".join([traceback(f"{SITE}/transformers/cache_utils.py", "__getitem__", "raise KeyError(", ZERO_WORDS),
                      "", "During handling of the above exception, another exception occurred:", "",
                      traceback("/home/u/run.py", "<module>", "x = foo()", "ValueError: bad value")])
    assert answer(kb, text) == ([], [ZERO])


# -- placeholders that break the entry's declared relation -----------------------------------------------------------

BELOW = "KeyError: 'Cache only has 5 layers, attempted to access layer with index 2'"


def test_values_that_break_the_declared_relation_are_not_the_entry(kb):  # noqa: F811
    assert answer(kb, BELOW) == ([], [])
    assert answer(kb, traceback(f"{SITE}/transformers/cache_utils.py", "__getitem__", "raise KeyError(", BELOW)) \
        == ([], [])
    assert answer(kb, ZERO_WORDS) == ([ZERO], [])  # the same words with the relation kept


# -- a frame only quoted in a line the program printed ---------------------------------------------------------------

def test_a_log_line_quoting_a_frame_is_no_frame(kb):  # noqa: F811
    text = (f'INFO root: retrying after error: File "{SITE}/transformers/cache_utils.py", line 100, in update\n' + K)
    assert answer(kb, text) == ([], [KEY])

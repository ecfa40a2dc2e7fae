"""A release the prose says works (or fixes the error) is not the one that raised (round five, item 2).

key-cache-removed (>=4.56) has another cause that prints the same words below 4.56 (a compiled Whisper forward on
4.46): only the release tells them apart. A line that states a release and says that something works, worked or
was fixed there (`rules.TOLD_WORKING`; such a line compares releases, and a reader cannot tell which one is
installed) states no release: the entry stays a candidate that asks for it. Before, the release the user was told to
upgrade to was read as the installed one and confirmed the entry. Said the other way round ("doesn't work on
4.57.1") it states the release that raised (round six: tests/site/test_lookup_round_six.py)."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import normalize, stated_releases

KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n"
TRACEBACK = ('Traceback (most recent call last):\n  File "/me/asr.py", line 12, in <module>\n'
             "    out = compiled(input_features)\n")
NOT_THE_USERS = [
    "transformers 4.57.1 works, mine is older\n",
    "Upgrading to transformers 4.57.1 fixes it.\n",
    "Worked fine with transformers==4.57.1 in my other env; this one:\n",
    "- `transformers` version: 4.57.1 (solved there)\n",
]
STILL_STATED = [
    "transformers==4.57.1\n",
    "- `transformers` version: 4.57.1\n- Platform: Linux (the workaround from #123 works)\n",
    "pip install transformers==4.57.1\nSuccessfully installed transformers-4.57.1\n",
]


@pytest.fixture(scope="module")
def kb():
    return project_known_lookup()


@pytest.mark.parametrize("prose", NOT_THE_USERS, ids=["works", "upgrade-fixes", "other-env", "template-solved"])
def test_a_release_said_to_work_does_not_confirm_by_release(kb, prose):
    text = prose + TRACEBACK + KEY_CACHE
    assert stated_releases(normalize(text), "transformers") == []
    answer = kb.answer(text)
    assert [m.known.id for m in answer.confirmed] == []
    assert "key-cache-removed" in [m.known.id for m in answer.candidates]


@pytest.mark.parametrize("prose", STILL_STATED, ids=["pinned", "works-on-another-line", "pip"])
def test_a_release_stated_on_a_line_of_its_own_still_tells_the_causes_apart(kb, prose):
    text = prose + TRACEBACK + KEY_CACHE
    assert stated_releases(normalize(text), "transformers") == ["4.57.1"]
    assert [m.known.id for m in kb.answer(text).confirmed] == ["key-cache-removed"]


def test_a_quoted_reply_that_says_so_on_the_next_line():
    """Left open in round five (a strict xfail); round six reads the next line (`rules.TOLD_NEXT`)."""
    text = "> transformers==4.57.1\n> fixed it for me\n" + TRACEBACK + KEY_CACHE
    assert [m.known.id for m in project_known_lookup().answer(text).confirmed] == []


@pytest.mark.parametrize("release", [None, "4.46.0"])
def test_a_release_said_to_work_is_read_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [prose + TRACEBACK + KEY_CACHE for prose in (*NOT_THE_USERS, *STILL_STATED)]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    if release is None:
        assert all(not any(one[1] == "confirmed" for one in p["found"]) for p in python[:len(NOT_THE_USERS)])

"""A release the prose names as the one that works is not the user's (round five, item 2; left open).

key-cache-removed (>=4.56) has another cause that prints the same words below 4.56 (a compiled Whisper forward on
4.46): only the release tells them apart. A paste whose one stated release is the one that works, or the one the
user was told to upgrade to, states a release that did not raise; today the lookup reads it as the installed one
and confirms the entry on it. Known gap, kept as a strict expected failure so that the fix shows: a line that says
its release works (or fixes it) must not tell the causes apart."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup

KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n"
TRACEBACK = ('Traceback (most recent call last):\n  File "/me/asr.py", line 12, in <module>\n'
             "    out = compiled(input_features)\n")
NOT_THE_USERS = [
    "transformers 4.57.1 works, mine is older\n",
    "Upgrading to transformers 4.57.1 fixes it.\n",
    "> transformers==4.57.1\n> fixed it for me\n",
]


@pytest.mark.xfail(strict=True, reason="a release the prose says works is read as the installed one (open)")
@pytest.mark.parametrize("prose", NOT_THE_USERS, ids=["works", "upgrade-fixes", "quoted-reply"])
def test_a_release_said_to_work_does_not_confirm_by_release(prose):
    answer = project_known_lookup().answer(prose + TRACEBACK + KEY_CACHE)
    assert [m.known.id for m in answer.confirmed] == []

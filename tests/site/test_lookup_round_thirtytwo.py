"""Round thirty-two (issue 19, "where the user is"): a library's error relayed in the user's own `raise`, pasted.

hookred12 found it from the hook's side (errorkb/hook/explain.py `_relayed` reads the live chain): a PASTED traceback
whose earlier part shows the library raising an entry's error (a frame of `cache_utils.py` raising the head_dim
ValueError), then "During handling of the above exception, another exception occurred:", then a last part where the
user's own handler raises the same words again (`raise ValueError(str(error))`), was "ruled out: ... another
caller's": the matcher graded the last part only, whose complete traceback shows no frame of the library.

The class (`_match.py:Lookup._relayed`, lookup.js `relayed`): an exception line of the chain the paste ended with whose
words the next part's exception line says again (any class: `raise RuntimeError(*e.args)`) is read on its own, the
paste up to the chain sentence, by the same matcher; an entry the words matched is confirmed from there only when that
part ties it by more than its words (a frame of the library, a failing line, a recognised text, a value: its own
evidence). `from None` hides the earlier part in a paste: nothing to read. No report of the corpus shows such a relay
(searched the issues corpus for the chain sentence with an entry's words: none), so the pastes below are built.
"""

from __future__ import annotations

from tests.site.lookupkb import SITE, answer, kb  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index  # noqa: F401  (the fixture)

HEAD = "head-dim-list-length"
MSG = "`head_dim` was provided as a list of length 12, but the Cache currently has 12 layers"
CALL = 'cache.early_initialization(2, num_heads=8, head_dim=[128, 128], dtype=torch.float32, device="cpu")'
HANDLING = "During handling of the above exception, another exception occurred:"
CAUSE = "The above exception was the direct cause of the following exception:"


def library_part(package: str = "transformers", message: str = MSG) -> str:
    """The library's raise of the entry's error (`package`'s cache_utils.py), as Python prints it."""
    return "\n".join(["Traceback (most recent call last):", '  File "/home/me/export.py", line 9, in main',
                      f"    {CALL}", f'  File "{SITE}/{package}/cache_utils.py", line 1471, in early_initialization',
                      "    raise ValueError(", f"ValueError: {message}", ""])


def user_part(line: str, exception: str = "ValueError", message: str = MSG, sentence: str = HANDLING) -> str:
    """The user's handler raising `message` again at `line`, after the chain `sentence`."""
    return "\n".join(["", sentence, "", "Traceback (most recent call last):",
                      '  File "/home/me/export.py", line 11, in main', f"    {line}", f"{exception}: {message}", ""])


RELAYED = {
    "str": library_part() + user_part("raise ValueError(str(error))"),
    "f-string": library_part() + user_part('raise ValueError(f"{error}")'),
    "from-error": library_part() + user_part("raise ValueError(str(error)) from error", sentence=CAUSE),
    "args-other-class": library_part() + user_part("raise RuntimeError(*error.args)", "RuntimeError"),
    "relayed-twice": library_part() + user_part("raise ValueError(str(error))")
    + user_part("raise ValueError(str(error))"),
}


def test_the_librarys_error_relayed_with_the_same_words_is_confirmed(kb):  # noqa: F811
    """main: "str", "f-string", "from-error" and "relayed-twice" were ruled out (another caller's)."""
    for name, paste in RELAYED.items():
        assert answer(kb, paste) == ([HEAD], []), name


def test_the_relayed_match_keeps_the_librarys_frame_as_its_evidence(kb):  # noqa: F811
    found = kb.answer(RELAYED["str"])
    assert [one.kind for one in found.confirmed[0].evidence if one.kind == "frame"] == ["frame"]
    assert not found.ruled_out


# Hostile twins: each keeps the answer main gives.
ALONE = "\n".join(["Traceback (most recent call last):", '  File "/home/me/export.py", line 11, in main',
                   "    raise ValueError(str(error))", f"ValueError: {MSG}", ""])
ANOTHER = library_part("otherlib") + user_part("raise ValueError(str(error))")
CHANGED = library_part() + user_part("raise ValueError(str(error))", message=MSG + " (while exporting)")
BARE = f"ValueError: {MSG}\n" + user_part("raise ValueError(str(error))")  # the earlier part shows no traceback
OWN = "\n".join(["Traceback (most recent call last):", '  File "/home/me/export.py", line 5, in main',
                 f"    raise ValueError('{MSG}')", f"ValueError: {MSG}", ""]) + user_part("raise ValueError(str(error))")


FELL_BACK = RELAYED["str"] + "\n".join(["", HANDLING, "", "Traceback (most recent call last):",
                                         '  File "/home/me/export.py", line 14, in main', "    fallback(cache)",
                                         "KeyError: 'layers'", ""])  # a handler that fell back, and failed there


def test_a_relay_the_paste_did_not_end_with_confirms_nothing(kb):  # noqa: F811
    """The handler's fallback failed with another error: the relay is no part of the error the paste ended with."""
    assert not kb.answer(FELL_BACK).confirmed


def test_a_release_given_reads_the_relayed_part_with_it(kb):  # noqa: F811
    assert answer(kb, RELAYED["str"], "5.15.1") == ([HEAD], [])


def test_a_users_raise_of_the_words_without_an_earlier_part_stays_ruled_out(kb):  # noqa: F811
    found = kb.answer(ALONE)
    assert not found.matches and [r.match.known.id for r in found.ruled_out] == [HEAD]


def test_another_librarys_raise_of_the_same_words_is_never_confirmed(kb):  # noqa: F811
    found = kb.answer(ANOTHER)
    assert not found.confirmed and "another caller's" in found.ruled_out[0].reason


def test_words_changed_between_the_parts_keep_todays_answer(kb):  # noqa: F811
    """The earlier line matches whole and the handler's raise ties it (main confirms it already: its own line)."""
    found = kb.answer(CHANGED)
    assert [m.known.id for m in found.confirmed] == [HEAD] and found.confirmed[0].chain == 1


def test_an_earlier_part_that_ties_nothing_but_its_words_confirms_nothing(kb):  # noqa: F811
    """No traceback above the chain sentence: only the words, which the user's raise printed too."""
    assert not kb.answer(BARE).confirmed


def test_the_users_own_raise_relayed_again_is_still_their_own(kb):  # noqa: F811
    found = kb.answer(OWN)
    assert not found.confirmed


def test_the_page_the_cli_and_the_hook_read_a_relay_alike(real_index):  # noqa: F811
    pastes = [*RELAYED.values(), ALONE, ANOTHER, CHANGED, BARE, OWN, FELL_BACK]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert [[one[:2] for one in p["found"]] for p in python[:len(RELAYED)]] == [[[HEAD, "confirmed"]]] * len(RELAYED)

"""Round thirty-three (issue 19, held-out part thirty): a message quoted up to where the reporter's sentence went on.

h848 (huggingface/transformers#32234) quotes the 4.43 stub's words in a code span and goes on with its own sentence:
`` I'm still getting `NotImplementedError: Make sure that a `_reorder_cache` function is correctly implemented` when
... ``. The message is cut at a word inside its fixed text (the wording goes on `in {module} to enable beam search for
{cls}`), not where a clause ends, so no beginning the lookup knew (rules 10, `_heads`: cut just before `. , ; : ! ?`)
held it, and main said nothing. The class (`_match.py:_heads`, lookup.js `headsOf`, rules 47): a wording's beginning
cut at a word's end, just before a blank, is offered as a clause's is (only possible, closed by a quote or its line's
end, saying what it lacks) when it keeps at least `HEAD_WORD_MIN` letters and digits (twice a clause's: with
`HEAD_MIN`, corpus h503's `too many values to unpack` and h107's sentence gained a candidate) and leaves out at least
`HEAD_WORD_REST` names of fixed text (a cut right before the last name drops the word that tells entries apart).
The gate of a wording's beginnings is now the shortest one's first piece: a cut inside the first piece does not hold
all of it. And a beginning shown alone no longer reads as "found earlier in the paste" (`_ended_with` looked for the
whole wording in the last error's message, where only its beginning is): the hint said so of every such candidate.
"""

from __future__ import annotations

from tests.site.lookupkb import answer, kb  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index  # noqa: F401  (the fixture)

REORDER = "reorder-cache-removed"
QUANTO = "quanto-not-installed"
STUB = "NotImplementedError: Make sure that a `_reorder_cache` function is correctly implemented"

CUT = {
    "line": STUB,
    "code-span-in-a-sentence": f"I'm still getting `{STUB}` when I turn on beam search.",
    "another-entry": "ImportError: You need to install optimum-quanto in order to use KV cache quantization",
    "in-a-traceback": "\n".join(["Traceback (most recent call last):", '  File "/home/me/search.py", line 40, in step',
                                 "    past = model._reorder_cache(past, beam_idx)", STUB]),
}
EXPECTED = {"line": REORDER, "code-span-in-a-sentence": REORDER, "another-entry": QUANTO, "in-a-traceback": REORDER}


def test_a_wording_cut_at_a_word_is_a_candidate_saying_what_it_lacks(kb):  # noqa: F811
    """main: nothing for every one of them."""
    for name, paste in CUT.items():
        assert answer(kb, paste) == ([], [EXPECTED[name]]), name
        hint = kb.answer(paste).candidates[0].missing[0]
        assert hint.startswith("the paste shows only the beginning of the message; the whole message goes on"), name


def test_a_beginning_shown_alone_is_never_confirmed_not_even_with_a_release_in_range(kb):  # noqa: F811
    for paste in CUT.values():
        assert not kb.answer(paste, "4.45.0").confirmed


def test_a_beginning_of_the_error_the_paste_ended_with_is_not_called_an_earlier_one(kb):  # noqa: F811
    """main (for a clause's beginning too): every such candidate said 'found earlier in the paste'."""
    clause = "ValueError: Invalid `cache_implementation` (foo). Choose one of"
    for paste in [STUB, clause]:
        missing = kb.answer(paste).candidates[0].missing
        assert not any("found earlier in the paste" in str(one) for one in missing), paste


def test_a_beginning_of_an_earlier_error_still_says_so(kb):  # noqa: F811
    paste = "\n".join([STUB, "", "During handling of the above exception, another exception occurred:", "",
                       "Traceback (most recent call last):", '  File "/home/me/search.py", line 44, in step',
                       "    fallback()", "KeyError: 'beams'"])
    found = kb.answer(paste)
    assert [m.known.id for m in found.candidates] == [REORDER]
    assert any("found earlier in the paste" in str(one) for one in found.candidates[0].missing)


# Hostile twins: each keeps main's answer (nothing).
TWINS = {
    "cut-inside-a-word": STUB[:-6],
    "words-running-on": f"{STUB} before you call generate",
    "too-short": "NotImplementedError: Make sure that a `_reorder_cache`",
    "only-the-last-name-left-out": "AttributeError: 'DynamicCache' object has no attribute",
    "only-the-keyword-left-out": "TypeError: DynamicCache.__init__() got an unexpected keyword argument",
    "a-generic-words-cut": "ValueError: too many values to unpack",
    "unclosed-in-a-sentence": f"I'm still getting {STUB}s everywhere",
}


def test_cuts_that_do_not_keep_enough_or_run_on_are_not_beginnings(kb):  # noqa: F811
    for name, paste in TWINS.items():
        assert answer(kb, paste) == ([], []), name


def test_the_page_the_cli_and_the_hook_read_a_cut_beginning_alike(real_index):  # noqa: F811
    pastes = [*CUT.values(), *TWINS.values()]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert [[one[:2] for one in p["found"]] for p in python[:len(CUT)]] == \
        [[[EXPECTED[name], "candidate"]] for name in CUT]

"""Round nine of the diagnosis (issue 19): what the held-out part sixteen (corpus h418–h458) showed, and what earlier
rounds left open, each as a class, each tried in the page's script, the CLI's matcher and the hook alike.

- a title that kept only the beginning of a message, cut where a clause ends and closed by a quote (corpus h436:
  `'Cache only has 0 layers' during generation after upgrading ...`): nothing matched, though the words are the
  entry's own up to its comma. It is now offered as possible, never confirmed, with the words it lacks;
- a removed name retold in the reporter's words (corpus h416: `QuantizedCacheConfig from transformers cannot
  import`; h458: `` `DynamicCache.to_legacy_cache` which was removed in transformers v5 ``): silent. A removed or
  renamed API's own name, written as a whole name on a line that says it is gone, is now offered as possible;
- a question (`Does transformers 4.57.1 not work with this model?`) was read as a statement that the release does not
  work, that is, as the release that raised;
- a wording that ends with a placeholder, found inside a longer text (`IndexError: Cache only has 32 layers, attempted
  to access layer with index 31`), gave that placeholder no value: its relations were not held, and the words were
  confirmed.
"""

from __future__ import annotations

import pytest

from errorkb.lookup import normalize, stated_releases
from tests.site import lookupkb

kb = lookupkb.kb
_answer = lookupkb.answer

H436 = "'Cache only has 0 layers' during generation after upgrading Transformers from 4.49 to 4.50"
H416 = "QuantizedCacheConfig from transformers cannot import"
H458 = "The huggingface backend uses `DynamicCache.to_legacy_cache` which was removed in transformers v5."


# -- a message's beginning, cut where a clause ends ---------------------------------------------------------------

@pytest.mark.parametrize("text", [H436, "KeyError: 'Cache only has 0 layers'", "'Cache only has 0 layers'",
                                  "Generation fails with \"Cache only has 0 layers\" on 4.50"])
def test_a_messages_beginning_cut_where_a_clause_ends_is_possible(kb, text):
    assert _answer(kb, text) == ([], ["cache-only-has-0-layers"])


def test_a_beginning_says_what_the_paste_lacks(kb):
    match = kb.answer(H436).candidates[0]
    assert any("only the beginning" in hint and "attempted to access layer with index" in hint for hint in match.missing)


def test_a_beginning_is_never_confirmed_by_a_release_in_its_range(kb):
    assert _answer(kb, H436, "4.50.0") == ([], ["cache-only-has-0-layers"])


@pytest.mark.parametrize("text", [
    "Cache only has 0 layers during generation",  # the beginning, run on into prose: no cut, another sentence
    "'Cache only has 0 layers and 2 heads'",  # more words inside the quotes: not where the message was cut
    "The cache only has 0 layers'",  # not at the beginning of a word
])
def test_a_beginning_that_runs_on_is_not_offered(kb, text):
    assert _answer(kb, text) == ([], [])


def test_a_beginning_is_only_tried_when_nothing_else_matched(kb):
    whole = "KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'"
    assert _answer(kb, f"{whole}\n(the title said 'Cache only has 0 layers')") == (["cache-only-has-0-layers"], [])


# -- a removed name retold in the reporter's words ------------------------------------------------------------------

@pytest.mark.parametrize(("text", "entry"), [(H416, "import-quantizedcacheconfig-removed"),
                                             (H458, "to-legacy-cache-removed"),
                                             ("seen_tokens no longer exists on DynamicCache", "seen-tokens-removed")])
def test_a_removed_name_retold_on_a_line_that_says_it_is_gone_is_possible(kb, text, entry):
    assert _answer(kb, text) == ([], [entry])
    assert _answer(kb, text, "5.2.0") == ([], [entry])  # a release in range still confirms nothing


def test_a_retold_name_says_what_would_confirm_it(kb):
    match = kb.answer(H458).candidates[0]
    assert any("to_legacy_cache" in hint and "message" in hint for hint in match.missing)


@pytest.mark.parametrize("text", [
    "How do I call DynamicCache.to_legacy_cache on 5.0?",  # named, nothing said to be gone
    "my_to_legacy_cache_helper was removed",  # inside a longer name
    "to_legacy_cache works\nthe old loader was removed",  # the name and the words on different lines
    "the dtype attribute was removed",  # a name that is an English word: not told apart from prose
])
def test_a_name_without_words_that_it_is_gone_on_its_line_is_not_offered(kb, text):
    assert _answer(kb, text) == ([], [])


# -- a trailing value found inside a text ----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "IndexError: Cache only has 32 layers, attempted to access layer with index 31",  # under another exception's name
    "Title: Cache only has 32 layers, attempted to access layer with index 31.",  # a sentence's full stop after it
    "(Cache only has 32 layers, attempted to access layer with index 31)",
])
def test_a_trailing_value_found_inside_a_text_is_held_to_the_relations(kb, text):
    answer = kb.answer(text)
    assert answer.matches == []
    assert [r.match.known.id for r in answer.ruled_out] == ["cache-only-has-0-layers"]


def test_a_trailing_word_of_another_kind_is_no_value(kb):
    """The wording's own source line printed in a traceback (`raise KeyError(f"... index {layer_idx}")`) ends with
    no integer: the placeholder stays unknown, and the exception line below still confirms the entry."""
    paste = ('  File "/venv/lib/python3.11/site-packages/transformers/cache_utils.py", line 314, in __getitem__\n'
             '    raise KeyError(f"Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}")\n'
             "KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'\n")
    assert _answer(kb, paste) == (["cache-only-has-0-layers"], [])


# -- a question states no release -------------------------------------------------------------------------------------

@pytest.mark.parametrize("prose", ["Does transformers 4.57.1 not work with this model?\n",
                                   "Why does it not work on transformers 4.57.1?\n",
                                   "transformers 4.57.1 doesn't work?\n"])
def test_a_question_whether_a_release_works_states_none(prose):
    assert stated_releases(normalize(prose), "transformers") == []


@pytest.mark.parametrize(("prose", "said"), [("Doesn't work on transformers 4.57.1. Any idea why?\n", ["4.57.1"]),
                                             ("Is this known? It fails on transformers 4.57.1\n", ["4.57.1"]),
                                             # on a later line: its sentences are that line's
                                             ("Logs below.\n" * 8 + "Is it known? It fails on transformers 4.57.1.\n",
                                              ["4.57.1"]),
                                             ("Logs below.\n" * 8 + "Does transformers 4.57.1 not work?\n", [])])
def test_a_statement_beside_a_question_still_states_its_release(prose, said):
    assert stated_releases(normalize(prose), "transformers") == said


# -- the page, the CLI and the hook ---------------------------------------------------------------------------------

@pytest.mark.parametrize("release", [None, "4.50.0", "5.2.0"])
def test_round_nine_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [H436, "KeyError: 'Cache only has 0 layers'", "'Cache only has 0 layers'", H416, H458,
              "seen_tokens no longer exists on DynamicCache", "Cache only has 0 layers during generation",
              "my_to_legacy_cache_helper was removed", "the dtype attribute was removed",
              "Does transformers 4.57.1 not work with this model?\nKeyError: 'Cache only has 0 layers'",
              "Doesn't work on transformers 4.57.1. Any idea why?\nKeyError: 'Cache only has 0 layers'",
              "IndexError: Cache only has 32 layers, attempted to access layer with index 31",
              "Title: Cache only has 32 layers, attempted to access layer with index 31.",
              "Logs below.\n" * 3 + "Is it known? It fails on transformers 4.57.1.\nKeyError: 'Cache only has 0 layers'",
              "Logs below.\n" * 3 + "Does transformers 4.57.1 not work?\nKeyError: 'Cache only has 0 layers'"]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    if release == "5.2.0":  # a release 5.x never raises it: ruled out, in all three
        assert [one[0] for one in python[0]["ruled"]] == ["cache-only-has-0-layers"]
    else:
        assert [(one[0], one[1]) for one in python[0]["found"]] == [("cache-only-has-0-layers", "candidate")]

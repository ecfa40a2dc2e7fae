"""Round eleven of the diagnosis (issue 19), from the held-out part seventeen (tests/corpus, h466-h511): the class
of failure it showed, written first as a test that failed on main, then closed in the page's script, the CLI's
matcher and the hook alike.

- An attribute read from the class itself, not from an instance, is missing in other words: Python says
  `type object 'Qwen2Model' has no attribute '_update_causal_mask'`, not `'Qwen2Model' object has no attribute ...`
  (corpus h510, RoboRefer#4: code patching the method 4.53 removed, on the class). No wording matched, so the paste
  got no answer at all. The class's words are the removal's only for what the class itself defines (a method, a
  class attribute): an attribute each instance sets in `__init__` (`rotary_emb`, `num_heads`, a cache's
  `key_cache` on some releases) is missing from every release's class. Nothing the paste shows tells which the
  name is, so the class's words are offered as possible, never confirmed, with what tells; an entry that declares
  the class's words itself (`supports-cache-class-removed`) confirms them as before.

And one of round ten's known limits, closed as a class: a count a wording prints (`{len(caches)}`) was held to the
entry's relations, not to being a count, so a negative one (`Expected 1 or 2 arguments, got -2`, which no `len()`
prints) confirmed the words. A placeholder that calls `len` is now a `count` where the whole message shows it; a
text cut short (whose last value runs on) and the raise's own source line (`{len(self)}` as written) are held to
nothing, as before.
"""

from __future__ import annotations

import pytest

from tests.site import lookupkb

kb = lookupkb.kb
_answer = lookupkb.answer

H510 = "AttributeError: type object 'Qwen2Model' has no attribute '_update_causal_mask'该如何解决"
ON_CLASS = [
    (H510, "update-causal-mask-removed"),
    ("AttributeError: type object 'Qwen2Model' has no attribute '_update_causal_mask'", "update-causal-mask-removed"),
    ("type object 'DynamicCache' has no attribute 'get_max_length'", "get-max-length-removed"),
    ("AttributeError: type object 'LlamaAttention' has no attribute 'rotary_emb'", "attention-rotary-emb-removed"),
]


@pytest.mark.parametrize(("text", "entry"), ON_CLASS)
def test_an_attribute_read_from_the_class_is_the_entrys_possible_error(kb, text, entry):
    confirmed, candidates = _answer(kb, text)
    assert confirmed == []
    assert entry in candidates


def test_the_class_s_words_say_what_would_confirm_them(kb):
    found = kb.answer(H510)
    match = next(m for m in found.candidates if m.known.id == "update-causal-mask-removed")
    assert any("read from the class" in hint and "`_update_causal_mask`" in hint for hint in match.missing)


TRACEBACK = ("Traceback (most recent call last):\n"
             '  File "/home/me/patch.py", line 3, in <module>\n'
             "    original = {cls}.{name}\n"
             "AttributeError: type object '{cls}' has no attribute '{name}'\n")


@pytest.mark.parametrize(("cls", "name"), [("LlamaAttention", "rotary_emb"), ("Qwen2Model", "_update_causal_mask"),
                                           ("Phi3Attention", "num_heads")])
@pytest.mark.parametrize("release", [None, "4.56.0", "5.2.0"])
def test_a_failing_line_and_a_release_never_confirm_the_class_s_words(kb, cls, name, release):
    """The failing line uses the removed name and the release may lie in the wording's range: an instance's
    attribute is missing from its class on every release all the same, so nothing the paste shows confirms it."""
    assert _answer(kb, TRACEBACK.format(cls=cls, name=name), release)[0] == []


def test_an_entry_that_declares_the_class_s_words_still_confirms_them(kb):
    """Confirmed by its own declared wording; the entry that shares its words is offered beside it, as it is
    for the instance's words (`'LlamaForCausalLM' object has no attribute ...`)."""
    text = "AttributeError: type object 'LlamaForCausalLM' has no attribute '_supports_cache_class'"
    assert _answer(kb, text) == _answer(kb, text.replace("type object 'LlamaForCausalLM'", "'LlamaForCausalLM' object"))
    assert _answer(kb, text)[0] == ["supports-cache-class-removed"]


def test_the_class_s_first_words_are_no_evidence_against_another_entry(kb):
    """`type object '` starts every class's missing attribute: a wording cut short there names no value of its own
    (`{model}` in `type object '{model}Attention' ...` is not `MyWrapper' has no ...`), so nothing is ruled out."""
    found = kb.answer("AttributeError: type object 'MyWrapper' has no attribute '_supports_cache_class'")
    assert found.ruled_out == []


@pytest.mark.parametrize("text", [
    "type object 'ImageCache' has no attribute 'CACHE_DIR'\nwarnings.warn(str(e))",  # corpus h498
    "AttributeError: type object 'Qwen2Model' has no attribute '_update_causal_mask_mm'",  # another name
    "AttributeError: type object object 'Qwen2Model' has no attribute '_update_causal_mask'",  # not Python's words
    "AttributeError: 'Qwen2Model' has no attribute '_update_causal_mask'",  # neither form
])
def test_other_names_and_other_words_get_no_answer(kb, text):
    assert _answer(kb, text) == ([], [])


def test_the_instance_s_words_are_read_as_before(kb):
    assert _answer(kb, "AttributeError: 'Qwen2Model' object has no attribute '_update_causal_mask'") == \
        (["update-causal-mask-removed"], [])


# -- a count is never negative (round ten's known limit, closed) --------------------------------------------------

@pytest.mark.parametrize(("text", "entry"), [
    ("ValueError: Expected 1 or 2 arguments, got -2", "encoder-decoder-cache-wrong-arg-count"),
    ("Title: Expected 1 or 2 arguments, got -2.", "encoder-decoder-cache-wrong-arg-count"),  # found inside a text
    ("KeyError: 'Cache only has -1 layers, attempted to access layer with index 0'", "cache-only-has-0-layers"),
    ("ValueError: `num_head` was provided as a list of length -3, but the Cache currently has 2 layers",
     "num-heads-list-length"),
    ("ValueError: `head_dim` was provided as a list of length 3, but the Cache currently has -2 layers",
     "head-dim-list-length"),
])
def test_a_value_len_never_prints_is_no_value_of_the_librarys_raise(kb, text, entry):
    """A placeholder whose expression calls `len` (`{len(caches)}`, `{len(self.layers)}`) is a count: a negative
    value (or any text but digits) is another error's message, ruled out, never confirmed."""
    found = kb.answer(text)
    assert entry not in [m.known.id for m in found.matches]
    assert entry in [r.match.known.id for r in found.ruled_out]


@pytest.mark.parametrize(("text", "entry"), [
    ("ValueError: Expected 1 or 2 arguments, got 3", "encoder-decoder-cache-wrong-arg-count"),
    ("KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'", "cache-only-has-0-layers"),
    ("ValueError: `num_head` was provided as a list of length 3, but the Cache currently has 2 layers",
     "num-heads-list-length"),
])
def test_a_count_len_prints_still_confirms(kb, text, entry):
    assert _answer(kb, text)[0] == [entry]


def test_a_count_in_a_text_cut_short_is_not_held_against_the_entry(kb):
    """A title that quoted the message up to its comma runs on after the count (corpus h436): the words after it are
    no value of the count's, so the beginning is still offered; the raise's own source line (`{len(self)}` as
    written, corpus r115) is no value either."""
    assert _answer(kb, "'Cache only has 0 layers' during generation after upgrading Transformers from 4.49 to 4.50") \
        == ([], ["cache-only-has-0-layers"])
    source = ('    raise KeyError(f"Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}")\n'
              "KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'\n")
    assert _answer(kb, source)[0] == ["cache-only-has-0-layers"]


# -- the page, the CLI and the hook ---------------------------------------------------------------------------------

@pytest.mark.parametrize("release", [None, "4.56.0", "5.2.0"])
def test_round_eleven_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [text for text, _ in ON_CLASS] + [
        TRACEBACK.format(cls="LlamaAttention", name="rotary_emb"),
        "AttributeError: type object 'LlamaForCausalLM' has no attribute '_supports_cache_class'",
        "type object 'ImageCache' has no attribute 'CACHE_DIR'",
        "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
        "AttributeError: type object 'DynamicCache' has no attribute 'get_max_length'\n"
        "\nDuring handling of the above exception, another exception occurred:\n\n"
        "ValueError: no\n",  # the class's words earlier in the paste, not in the error it ended with
        "ValueError: Expected 1 or 2 arguments, got -2", "ValueError: Expected 1 or 2 arguments, got 3",
        "KeyError: 'Cache only has -1 layers, attempted to access layer with index 0'"]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    if release != "5.2.0":
        assert [(one[0], one[1]) for one in python[0]["found"]] == [("update-causal-mask-removed", "candidate")]

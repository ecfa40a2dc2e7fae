"""The wrong answers issue 19 names, each asked of the real entries (this checkout's, as `errorkb
lookup` reads them), and the declarations that tell them apart: confirmed only with the evidence,
a candidate that says what would tell otherwise, ruled out where the evidence says another cause."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import INSTALLED, Known, Lookup, fnv1a


@pytest.fixture(scope="module")
def kb() -> Lookup:
    return project_known_lookup()


def grades(answer) -> list[tuple[str, str]]:
    return [(m.known.id, m.grade.value) for m in answer.matches]


def frame(path: str, line: int, function: str, code: str) -> str:
    return f'  File "{path}", line {line}, in {function}\n    {code}\n'


SITE = "/venv/lib/python3.11/site-packages"


def test_a_legacy_tuple_is_never_a_class_whose_method_was_removed(kb):
    """`{cls}` never stands for tuple: a tuple on 4.36 is not the 4.54 removal of get_usable_length."""
    answer = kb.answer("AttributeError: 'tuple' object has no attribute 'get_usable_length'")
    assert answer.confirmed == [] and "get-usable-length-removed" not in [m.known.id for m in answer.matches]


def test_supports_cache_class_read_from_a_model_class_of_ones_own(kb):
    """4.42–4.53 generate() reads the flag from a class that is not a PreTrainedModel: the same words as the
    4.54 removal. A class transformers defines had it until 4.54; a class of one's own needs the release."""
    mine = "AttributeError: 'PrismaticVLM' object has no attribute '_supports_cache_class'"
    alone = kb.answer(mine)
    assert grades(alone) == [("supports-cache-class-removed", "candidate")]
    assert any("`PrismaticVLM` is not a class transformers defines" in hint for hint in alone.matches[0].missing)
    assert grades(kb.answer(mine, "4.45.0")) == []  # before the removal: not this entry
    assert grades(kb.answer(mine, "4.56.0")) == [("supports-cache-class-removed", "confirmed")]
    theirs = "AttributeError: 'Qwen2ForCausalLM' object has no attribute '_supports_cache_class'"
    assert grades(kb.answer(theirs)) == [("supports-cache-class-removed", "confirmed")]
    generate = ("Traceback (most recent call last):\n" + frame("/me/run.py", 4, "<module>", "vlm.generate(**inputs)")
                + frame(f"{SITE}/transformers/generation/utils.py", 1744, "generate",
                        "if not self._supports_cache_class:")
                + frame(f"{SITE}/torch/nn/modules/module.py", 1729, "__getattr__",
                        "raise AttributeError(f\"'{type(self).__name__}' object has no attribute '{name}'\")")
                + mine + "\n")
    assert grades(kb.answer(generate)) == []  # raised by transformers' own generate(): not a name it removed


def test_cache_position_passed_by_code_newer_than_the_installed_release(kb):
    """ChatTTS on 4.36 passes `cache_position` to transformers' own LlamaModel: the caller is newer. Never
    answered with the custom-forward entry's advice (pin an older release)."""
    message = "TypeError: LlamaModel.forward() got an unexpected keyword argument 'cache_position'"
    alone = kb.answer(message)
    assert [m.grade.value for m in alone.matches] == ["candidate"]
    assert any("upgrade transformers" in hint for hint in alone.matches[0].missing)
    assert grades(kb.answer(message, "4.36.2")) == []
    hooked = kb.answer(message, "4.36.2", INSTALLED)
    assert hooked.confirmed == []
    custom = kb.answer("TypeError: MyModel.forward() got an unexpected keyword argument 'cache_position'")
    assert grades(custom) == [("forward-unexpected-cache-position", "confirmed")]


def test_a_mask_and_cache_size_mismatch_the_other_way_round(kb):
    """The entry's case is the cache shorter than the mask ({a} < {b}); the reverse is another error."""
    reverse = "RuntimeError: The size of tensor a (1024) must match the size of tensor b (7) at non-singleton dimension 3"
    answer = kb.answer(reverse)
    assert "static-cache-too-small-mask-mismatch" not in [m.known.id for m in answer.matches]
    forward = "RuntimeError: The size of tensor a (5) must match the size of tensor b (6) at non-singleton dimension 3"
    assert [m.grade.value for m in kb.answer(forward).matches
            if m.known.id == "static-cache-too-small-mask-mismatch"] == ["candidate"]


def test_list_index_out_of_range_needs_the_cache_update_frame(kb):
    message = "IndexError: list index out of range"
    assert grades(kb.answer(message)) == [("layer-idx-out-of-range", "candidate")]
    other = ("Traceback (most recent call last):\n"
             + frame("/srv/lmcache/connector.py", 88, "retrieve", "block = self.blocks[layer][idx]") + message)
    assert grades(kb.answer(other)) == []
    update = ("Traceback (most recent call last):\n"
              + frame(f"{SITE}/transformers/cache_utils.py", 776, "update",
                      "keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)")
              + message)
    assert grades(kb.answer(update)) == [("layer-idx-out-of-range", "confirmed")]


def test_nonetype_has_no_shape_is_the_empty_cache_only_with_its_failing_line(kb):
    message = "AttributeError: 'NoneType' object has no attribute 'shape'"
    assert grades(kb.answer(message)) == [("cache-only-has-0-layers", "candidate")]
    mlx = ("Traceback (most recent call last):\n"
           + frame("/u/mlx_lm/generate.py", 301, "generate_step", "y, logprobs = _step(y)")
           + frame("/u/mlx_lm/models/base.py", 41, "create_attention_mask", "offset = cache[0].offset.shape[0]")
           + message)
    assert kb.answer(mlx).confirmed == []
    ours = ("Traceback (most recent call last):\n"
            + frame("/u/modeling_remote.py", 824, "prepare_inputs_for_generation",
                    "past_length = past_key_values[0][0].shape[2]") + message)
    assert grades(kb.answer(ours, "4.55.2")) == [("cache-only-has-0-layers", "confirmed")]


# -- the declarations themselves, on made-up entries -----------------------------------------------


def test_two_entries_with_the_same_words_are_candidates_until_something_tells_them_apart():
    words = "'{cls}' object has no attribute '_flag'"
    old = Known.from_index({"id": "old", "title": "t", "exception": "AttributeError", "message": words,
                            "raises_in": ">=4.42,<4.54", "wordings": [{"message": words, "releases": ">=4.42,<4.54"}]})
    new = Known.from_index({"id": "new", "title": "t", "exception": "AttributeError", "message": words,
                            "raises_in": ">=4.54", "wordings": [{"message": words, "releases": ">=4.54"}]})
    kb = Lookup([old, new])
    alone = kb.answer("AttributeError: 'Mine' object has no attribute '_flag'")
    assert sorted(grades(alone)) == [("new", "candidate"), ("old", "candidate")]
    assert any("`new` has the same words" in hint for hint in alone.matches[1].missing + alone.matches[0].missing)
    assert grades(kb.answer("AttributeError: 'Mine' object has no attribute '_flag'", "4.56.0")) == [
        ("new", "confirmed")]


def test_a_more_specific_wording_keeps_its_confirmation_over_a_template():
    exact = Known("exact", "t", "TypeError", "create_mask() got an unexpected keyword argument 'position'")
    template = Known("template", "t", "TypeError", "{function}() got an unexpected keyword argument 'position'")
    found = Lookup([exact, template]).answer("TypeError: create_mask() got an unexpected keyword argument 'position'")
    assert grades(found) == [("exact", "confirmed"), ("template", "candidate")]


def test_a_library_class_placeholder_withholds_the_words_for_a_class_the_library_does_not_define():
    words = "'{cls}' object has no attribute '_flag'"
    known = Known.from_index({"id": "flag", "title": "t", "exception": "AttributeError", "message": words,
                              "raises_in": ">=4.54", "wordings": [{"message": words, "releases": ">=4.54"}],
                              "diagnosis": {"placeholders": {"cls": {"type": "library-class"}}}})
    kb = Lookup([known], library="transformers", classes=[fnv1a("LlamaForCausalLM")])
    assert grades(kb.answer("AttributeError: 'LlamaForCausalLM' object has no attribute '_flag'")) == [
        ("flag", "confirmed")]
    assert grades(kb.answer("AttributeError: 'Mine' object has no attribute '_flag'")) == [("flag", "candidate")]
    assert grades(kb.answer("AttributeError: 'Mine' object has no attribute '_flag'", "4.60.0")) == [
        ("flag", "confirmed")]
    assert grades(kb.answer("AttributeError: 'tuple' object has no attribute '_flag'")) == []

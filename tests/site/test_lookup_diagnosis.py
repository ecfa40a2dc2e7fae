"""The wrong answers issue 19 names, each asked of the real entries (this checkout's, as `errorkb
lookup` reads them), and the declarations that tell them apart: confirmed only with the evidence,
a candidate that says what would tell otherwise, ruled out where the evidence says another cause."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import INSTALLED, Known, Lookup, fits_wording, fnv1a


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
    4.54 removal. A class transformers defines had it until 4.54; a class of one's own needs the traceback
    or the release, and the 4.42–4.53 entry needs generate()'s own frame."""
    mine = "AttributeError: 'PrismaticVLM' object has no attribute '_supports_cache_class'"
    alone = kb.answer(mine)
    assert sorted(grades(alone)) == [("supports-cache-class-non-pretrained-model", "candidate"),
                                     ("supports-cache-class-removed", "candidate")]
    removal = next(m for m in alone.matches if m.known.id == "supports-cache-class-removed")
    assert any("`PrismaticVLM` is not a class transformers defines" in hint for hint in removal.missing)
    assert grades(kb.answer(mine, "4.45.0")) == [("supports-cache-class-non-pretrained-model", "candidate")]
    assert grades(kb.answer(mine, "4.56.0")) == [("supports-cache-class-removed", "confirmed")]
    theirs = "AttributeError: 'Qwen2ForCausalLM' object has no attribute '_supports_cache_class'"
    assert grades(kb.answer(theirs))[0] == ("supports-cache-class-removed", "confirmed")  # the 4.42 entry is no rival
    generate = ("Traceback (most recent call last):\n" + frame("/me/run.py", 4, "<module>", "vlm.generate(**inputs)")
                + frame(f"{SITE}/transformers/generation/utils.py", 1777, "generate",
                        "elif generation_config.cache_implementation is None and "
                        "self._supports_default_dynamic_cache():")
                + frame(f"{SITE}/transformers/generation/utils.py", 1454, "_supports_default_dynamic_cache",
                        'return self._supports_cache_class and "jamba" not in self.__class__.__name__.lower()')
                + frame(f"{SITE}/torch/nn/modules/module.py", 1729, "__getattr__",
                        "raise AttributeError(f\"'{type(self).__name__}' object has no attribute '{name}'\")")
                + mine + "\n")
    assert grades(kb.answer(generate)) == [("supports-cache-class-non-pretrained-model", "confirmed")]
    # 4.54+: remote code of one's own, called by generate(), reads the flag itself: generate()'s frames are
    # on the stack, but the raise is the remote code's, so not the 4.42–4.53 read.
    remote = ("Traceback (most recent call last):\n" + frame("/me/run.py", 4, "<module>", "model.generate(**inputs)")
              + frame(f"{SITE}/transformers/generation/utils.py", 2564, "generate", "result = self._sample(")
              + frame(f"{SITE}/transformers/generation/utils.py", 3262, "_sample",
                      "model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)")
              + frame("/hf/modules/transformers_modules/modeling_mine.py", 88, "prepare_inputs_for_generation",
                      "if self._supports_cache_class:")
              + frame(f"{SITE}/torch/nn/modules/module.py", 1729, "__getattr__",
                      "raise AttributeError(f\"'{type(self).__name__}' object has no attribute '{name}'\")")
              + "AttributeError: 'MineForCausalLM' object has no attribute '_supports_cache_class'\n")
    assert grades(kb.answer(remote)) == [("supports-cache-class-removed", "confirmed")]


def test_cache_position_passed_by_code_newer_than_the_installed_release(kb):
    """ChatTTS on 4.36 passes `cache_position` to transformers' own LlamaModel: the caller is newer, and the
    answer is the upgrade. Never answered with the custom-forward entry's advice (pin an older release)."""
    message = "TypeError: LlamaModel.forward() got an unexpected keyword argument 'cache_position'"
    alone = kb.answer(message)
    assert grades(alone) == [("model-forward-cache-position-too-old", "confirmed"),
                             ("forward-unexpected-cache-position", "candidate")]
    assert any("upgrade transformers" in hint for hint in alone.matches[1].missing)
    assert grades(kb.answer(message, "4.36.2")) == [("model-forward-cache-position-too-old", "confirmed")]
    hooked = kb.answer(message, "4.37.2", INSTALLED)
    assert grades(hooked) == [("model-forward-cache-position-too-old", "confirmed")]
    assert "downgrade" not in hooked.matches[0].release.advice
    # From 4.38 transformers' LlamaModel takes it: a class so named is a copy of one's own, too old for generate().
    assert grades(kb.answer(message, "4.40.0")) == [("forward-unexpected-cache-position", "confirmed")]
    vendored = ("Traceback (most recent call last):\n" + frame("/me/run.py", 9, "<module>", "model.generate(**inputs)")
                + frame(f"{SITE}/transformers/generation/utils.py", 2786, "_sample",
                        "outputs = self(**model_inputs, return_dict=True)")
                + frame(f"{SITE}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)")
                + message + "\n")
    assert grades(kb.answer(vendored)) == [("forward-unexpected-cache-position", "confirmed")]
    custom = kb.answer("TypeError: MyModel.forward() got an unexpected keyword argument 'cache_position'")
    assert grades(custom) == [("forward-unexpected-cache-position", "confirmed")]
    comfy = "Error occurred when executing ChatTTS_: LlamaModel.forward() got an unexpected keyword argument 'cache_position'"
    assert grades(kb.answer(comfy))[0] == ("model-forward-cache-position-too-old", "confirmed")


def test_a_fixed_wording_inside_a_longer_name_is_another_classs_message(kb):
    """`LlamaModel.forward()` found inside `MyLlamaModel.forward()` names another class: the user's."""
    mine = kb.answer("TypeError: MyLlamaModel.forward() got an unexpected keyword argument 'cache_position'")
    assert grades(mine) == [("forward-unexpected-cache-position", "confirmed")]
    titled = kb.answer("Running MyLlamaModel.forward() got an unexpected keyword argument 'cache_position' again")
    assert "model-forward-cache-position-too-old" not in [m.known.id for m in titled.matches]


def test_a_title_glued_to_the_class_name_still_names_the_class(kb):
    """A title whose words run into the class name (`推理报错TinyChartPhiForCausalLM.forward()`): the value
    of a placeholder typed as a class is the name those words end with."""
    glued = kb.answer("TinyChart推理报错TinyChartPhiForCausalLM.forward() got an unexpected keyword argument "
                      "'cache_position'")
    assert grades(glued) == [("forward-unexpected-cache-position", "confirmed")]
    assert glued.matches[0].values == {"function": "TinyChartPhiForCausalLM.forward"}
    spaced = kb.answer("报错 LlavaLlamaForCausalLM.forward() got an unexpected keyword argument 'cache_position'")
    assert grades(spaced) == [("forward-unexpected-cache-position", "confirmed")]


def test_an_exception_named_inside_a_line_after_a_tools_words(kb):
    """`❌ ...: Node processing failed: AttributeError: <message>`: the exception and its message are read
    from inside the line, as if the line began there."""
    pasted = ("❌ TTS Text generation failed: Node processing failed: AttributeError: property of 'DynamicCache' "
              "object has no setter")
    answer = kb.answer(pasted)
    assert grades(answer) == [("dynamic-cache-compat-property-no-setter", "confirmed")]
    assert answer.matches[0].exact and answer.matches[0].exception == "AttributeError"
    # A tool's own words with a colon are no exception's name: read as the tool wrote them.
    assert kb.answer("❌ Generation failed: Node processing failed: see the log").matches == []


def test_a_property_without_a_setter_is_a_patched_in_property_only_without_its_name(kb):
    """Python names the property unless it was set on the class after the class was made: the name-less
    words are a shim's. The named words are the library's own property (4.56+) and another error."""
    bare = "AttributeError: property of 'DynamicCache' object has no setter"
    assert grades(kb.answer(bare)) == [("dynamic-cache-compat-property-no-setter", "confirmed")]
    assert grades(kb.answer(bare, "4.56.1")) == []
    named = "AttributeError: property 'key_cache' of 'DynamicCache' object has no setter"
    assert grades(kb.answer(named)) == []
    assert grades(kb.answer("AttributeError: property of 'MyCache' object has no setter")) == []


def test_a_terminal_that_wraps_inside_a_word_still_shows_the_cuda_wording(kb):
    """A CUDA assert wrapped at the terminal's width in the middle of a word (`"i⏎ndex_copy_`), as in
    transformers#39593: the wording is read from the text with its line breaks taken out."""
    wrapped = ('/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:175: operator(): block: \n[0,0,0], thread: '
               '[66,0,0] Assertion `idx >= 0 && idx < self_dim_size && "i\nndex_copy_(): index out of bounds"` '
               'failed.\n')
    answer = kb.answer(wrapped)
    assert grades(answer) == [("static-cache-overflow", "candidate")]  # a device's words: no frame can tell
    assert not answer.matches[0].exact


def test_an_attention_module_without_num_heads(kb):
    """`'{model}Attention'` stands for a whole class name: one transformers defines, from 4.48."""
    theirs = "AttributeError: 'LlamaAttention' object has no attribute 'num_heads'"
    assert grades(kb.answer(theirs)) == [("phi3-attention-num-heads-removed", "confirmed")]
    assert grades(kb.answer(theirs, "4.45.0")) == []
    mine = kb.answer("AttributeError: 'MyAttention' object has no attribute 'num_heads'")
    assert grades(mine) == [("phi3-attention-num-heads-removed", "candidate")]
    assert any("`MyAttention` is not a class transformers defines" in hint for hint in mine.matches[0].missing)


def test_a_model_without_prepare_inputs_for_generation(kb):
    """From 4.52 a class without GenerationMixin: a class transformers defines had it before; a wrapper of
    one's own (AutoAWQ's on 4.47, ms-swift#3089) may never have had it."""
    theirs = "AttributeError: 'Qwen2Model' object has no attribute 'prepare_inputs_for_generation'"
    assert grades(kb.answer(theirs)) == [("base-model-prepare-inputs-for-generation-removed", "confirmed")]
    assert grades(kb.answer(theirs, "4.47.1")) == []
    awq = "AttributeError: 'Qwen2VLAWQForCausalLM' object has no attribute 'prepare_inputs_for_generation'"
    assert grades(kb.answer(awq)) == [("base-model-prepare-inputs-for-generation-removed", "candidate")]
    assert grades(kb.answer(awq, "4.47.1")) == []


def test_a_base_model_asked_to_generate_is_not_a_model_class_without_generation_mixin(kb):
    """Since 4.52 a VLM's `language_model` is its base model (`LlamaModel`, no language-model head): old code's
    `model.language_model.generate(` prints the words, and the failing line a remote model's own inner call
    shows, yet giving the class GenerationMixin is not the fix (the outer model generates). A base model's
    name withholds the confirmation and says why, if transformers defines the class; a class with a head keeps
    it (InternVL's remote `InternLM2ForCausalLM`, BLIP's vendored `BertLMHeadModel`), and so does a vendored
    class named like a base model that transformers does not define (XTTS's `GPT2InferenceModel`)."""
    def paste(cls: str, line: str) -> str:
        return ("Traceback (most recent call last):\n" + frame("/me/run_vlm.py", 40, "<module>", line)
                + frame(f"{SITE}/torch/nn/modules/module.py", 1962, "__getattr__", "raise AttributeError(")
                + f"AttributeError: '{cls}' object has no attribute 'generate'\n")

    entry = "remote-model-without-generation-mixin"
    for base in ("LlamaModel", "Qwen2_5_VLModel", "transformers.GemmaModel"):
        answer = kb.answer(paste(base, "out = model.language_model.generate(inputs_embeds=embeds)"))
        assert (entry, "candidate") in grades(answer) and answer.confirmed == [], (base, grades(answer))
        own = next(m for m in answer.matches if m.known.id == entry)
        assert any("base model" in hint for hint in own.missing), own.missing
    for headed, line in (("InternLM2ForCausalLM", "outputs = self.language_model.generate("),
                         ("BertLMHeadModel", "outputs = self.text_decoder.generate(input_ids=input_ids,"),
                         ("Florence2LanguageForConditionalGeneration", "return self.language_model.generate("),
                         ("GPT2InferenceModel", "outputs = self.language_model.generate(")):
        assert grades(kb.answer(paste(headed, line)))[0] == (entry, "confirmed"), headed


# Only classes that once had the attribute lost it: `GPT2Attention`, `BertSelfAttention` never built a
# `rotary_emb` (no rotary embeddings); a model with a head or an encoder never defined `_update_causal_mask`
# (it lived on the decoder). The words are the entry's, the cause is code written for another object.
REMOVED_FROM_SOME_CLASSES = [
    ("attention-rotary-emb-removed", "rotary_emb", ("LlamaAttention", "MistralAttention", "Qwen2Attention",
                                                    "Phi3Attention"),
     ("GPT2Attention", "BertSelfAttention", "T5Attention"), "never built its own"),
    ("update-causal-mask-removed", "_update_causal_mask", ("Qwen2Model", "LlamaModel",
                                                           "Gemma3ForConditionalGeneration", "MT5Stack"),
     ("LlamaForCausalLM", "BertModel", "CLIPTextModel"), "never defined"),
]


@pytest.mark.parametrize(("entry", "attribute", "lost", "never", "why"), REMOVED_FROM_SOME_CLASSES,
                         ids=[case[0] for case in REMOVED_FROM_SOME_CLASSES])
def test_an_attribute_missing_from_a_class_that_never_had_it_is_not_the_removal(kb, entry, attribute, lost, never,
                                                                                  why):
    for name in lost:
        answer = kb.answer(f"AttributeError: '{name}' object has no attribute '{attribute}'")
        assert grades(answer)[0] == (entry, "confirmed"), name
    for name in never:
        answer = kb.answer(f"AttributeError: '{name}' object has no attribute '{attribute}'")
        assert answer.confirmed == [] and (entry, "candidate") in grades(answer), name
        own = next(m for m in answer.matches if m.known.id == entry)
        assert any(why in hint for hint in own.missing), own.missing


def test_a_cache_detached_elsewhere_than_in_the_trainers_evaluation(kb):
    message = "AttributeError: 'DynamicCache' object has no attribute 'detach'"
    assert grades(kb.answer(message)) == [("trainer-eval-dynamic-cache-detach", "candidate")]
    mine = ("Traceback (most recent call last):\n"
            + frame("/me/loop.py", 31, "<module>", "cache = outputs.past_key_values.detach()") + message)
    assert grades(kb.answer(mine)) == []
    trainer = ("Traceback (most recent call last):\n"
               + frame(f"{SITE}/transformers/trainer.py", 3858, "prediction_step", "logits = nested_detach(logits)")
               + frame(f"{SITE}/transformers/trainer_pt_utils.py", 193, "nested_detach", "return tensors.detach()")
               + message)
    assert grades(kb.answer(trainer)) == [("trainer-eval-dynamic-cache-detach", "confirmed")]


def test_a_cache_config_object_read_as_a_dict_elsewhere_than_in_the_export_wrappers(kb):
    message = "AttributeError: 'StaticCacheConfig' object has no attribute 'get'"
    mine = ("Traceback (most recent call last):\n"
            + frame("/me/export.py", 12, "<module>", 'size = config.cache_config.get("max_cache_len")') + message)
    assert grades(kb.answer(mine)) == []
    wrapper = ("Traceback (most recent call last):\n"
               + frame(f"{SITE}/transformers/integrations/executorch.py", 293, "__init__",
                       'max_batch_size=self.model.generation_config.cache_config.get("batch_size"),') + message)
    assert grades(kb.answer(wrapper)) == [("static-cache-config-object-no-get", "confirmed")]


def test_a_mask_and_cache_size_mismatch_the_other_way_round(kb):
    """The entry's case is the cache shorter than the mask ({a} < {b}); the reverse is another error."""
    reverse = "RuntimeError: The size of tensor a (1024) must match the size of tensor b (7) at non-singleton dimension 3"
    answer = kb.answer(reverse)
    assert "static-cache-too-small-mask-mismatch" not in [m.known.id for m in answer.matches]
    forward = "RuntimeError: The size of tensor a (5) must match the size of tensor b (6) at non-singleton dimension 3"
    assert [m.grade.value for m in kb.answer(forward).matches
            if m.known.id == "static-cache-too-small-mask-mismatch"] == ["candidate"]


def test_a_mask_over_the_new_tokens_only_against_a_reused_cache(kb):
    """The scores over cached plus new keys (a) against a mask over the new tokens (b), raised in the
    attention: a > b. Raised by another library's attention, or the other way round, it is another error."""
    message = ("RuntimeError: The size of tensor a (8) must match the size of tensor b (2) at non-singleton "
               "dimension 3")
    assert ("reused-cache-mask-covers-new-tokens-only", "candidate") in grades(kb.answer(message))
    attention = ("Traceback (most recent call last):\n"
                 + frame(f"{SITE}/transformers/models/llama/modeling_llama.py", 648, "forward",
                         "attn_output = torch.nn.functional.scaled_dot_product_attention(") + message)
    assert grades(kb.answer(attention)) == [("reused-cache-mask-covers-new-tokens-only", "confirmed")]
    shared = ("Traceback (most recent call last):\n"
              + frame(f"{SITE}/transformers/integrations/sdpa_attention.py", 89, "sdpa_attention_forward",
                      "attn_output = torch.nn.functional.scaled_dot_product_attention(") + message)
    assert grades(kb.answer(shared)) == [("reused-cache-mask-covers-new-tokens-only", "confirmed")]
    assert grades(kb.answer(shared, "4.50.0")) == [("reused-cache-mask-covers-new-tokens-only", "confirmed")]
    diffusers = ("Traceback (most recent call last):\n"
                 + frame(f"{SITE}/diffusers/models/attention_processor.py", 2313, "__call__",
                         "hidden_states = F.scaled_dot_product_attention(") + message)
    assert grades(kb.answer(diffusers)) == []


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


def test_a_release_pip_or_conda_printed_counts_as_stated():
    """What pip and conda print about the installed release: `pip show` (`Name: transformers` then
    `Version: 4.60.0`), pip's `Successfully installed ... transformers-4.60.0`, a conda spec
    `transformers=4.60.0`. A constraint (`>=`, `~=`), another distribution, a longer or cut number never."""
    from errorkb.lookup import stated_release

    for shown in ("Name: transformers\nVersion: 4.60.0\nSummary: State-of-the-art ...",
                  "Successfully installed accelerate-1.2.0 transformers-4.60.0 tokenizers-0.21.0",
                  "Successfully installed transformers-4.60.0", "  - transformers=4.60.0\n  - torch=2.5.1"):
        assert stated_release(shown, "transformers") == "4.60.0", shown
    for other in ("transformers>=4.60.0", "transformers~=4.60.0", "Name: sentence-transformers\nVersion: 4.60.0",
                  "Successfully installed sentence-transformers-4.60.0", "transformers-4.60.0/src/x.py",
                  "transformers=4.60.0x", "Name: transformers\n\nVersion: 4.60.0"):
        assert stated_release(other, "transformers") is None, other


def test_a_release_the_paste_shows_in_an_installed_distribution_name_counts_as_stated():
    """pip's and conda's names for an installed release (`transformers-4.60.0.dist-info`, an egg's
    `transformers-4.60.0-py3.10.egg/`, a conda build `transformers-4.60.0-pyhd8ed1ab_0`) say which
    release it is, as `transformers==4.60.0` does; another distribution's name never does."""
    from errorkb.lookup import stated_release

    for shown in ("/env/lib/python3.11/site-packages/transformers-4.60.0.dist-info/METADATA",
                  'File "/env/site-packages/transformers-4.60.0-py3.10.egg/transformers/cache_utils.py", line 3',
                  "transformers-4.60.0-pyhd8ed1ab_0.conda", "transformers-4.60.0.egg-info"):
        assert stated_release(shown, "transformers") == "4.60.0", shown
    for other in ("sentence-transformers-4.60.0.dist-info", "transformers-4.60.0x", "transformers-4.60.0.1.2",
                  "my_transformers-4.60.0.dist-info", "transformers-4.60"):
        assert stated_release(other, "transformers") is None, other
    # A period after the release ends a sentence (round six: it was read as a release cut short and dropped); a longer
    # release (a dev build) is still none stated.
    assert stated_release("transformers==4.41.2.", "transformers") == "4.41.2"
    assert stated_release("transformers==4.41.2.dev0", "transformers") is None
    assert stated_release("transformers version: 4.41.2", "transformers") == "4.41.2"
    words = "'{cls}' object has no attribute '_flag'"
    known = Known.from_index({"id": "flag", "title": "t", "exception": "AttributeError", "message": words,
                              "raises_in": ">=4.54", "wordings": [{"message": words, "releases": ">=4.54"}],
                              "diagnosis": {"placeholders": {"cls": {"type": "library-class"}}}})
    kb = Lookup([known], library="transformers", classes=[fnv1a("LlamaForCausalLM")])
    paste = ("Location: /env/lib/python3.11/site-packages/transformers-{}.dist-info\n"
             "AttributeError: 'Mine' object has no attribute '_flag'")
    assert grades(kb.answer(paste.format("4.60.0"))) == [("flag", "confirmed")]
    assert grades(kb.answer(paste.format("4.50.0"))) == []  # a release that never prints it rules it out


def test_an_error_a_backend_raises_beneath_the_library_s_call_is_the_library_function_s(kb):
    """optimum-quanto (the profile's backend) raises `shift must be specified` inside transformers 4.46's
    `QuantoQuantizedCache._quantize`: the raising frame is the backend's, as torch's is for a runtime error,
    so the entry's `require_frame` looks through it (the verifier judges it so too). The same words from a
    quantize_weight() call of one's own, with no frame of the library's function, never confirm the entry."""
    message = "ValueError: shift must be specified for qtypes lower than 8-bit"
    quanto = frame(f"{SITE}/optimum/quanto/tensor/weights/quantization.py", 72, "quantize_weight",
                   'raise ValueError("shift must be specified for qtypes lower than 8-bit")')
    cache = ("Traceback (most recent call last):\n" + frame("/me/run.py", 9, "<module>", "model.generate(**inputs)")
             + frame(f"{SITE}/transformers/cache_utils.py", 705, "update",
                     "self._quantized_key_cache.append(self._quantize(key_states.contiguous(), axis=self.axis_key))")
             + frame(f"{SITE}/transformers/cache_utils.py", 816, "_quantize",
                     "qtensor = quantize_weight(tensor, self.qtype, axis, self.q_group_size)")
             + quanto + message + "\n")
    assert grades(kb.answer(cache)) == [("quanto-quantize-weight-shift-required", "confirmed")]
    mine = ("Traceback (most recent call last):\n" + frame("/me/quantize.py", 12, "<module>",
                                                         "q = quantize_weight(w, qint4, 0, 64)")
            + quanto + message + "\n")
    assert "confirmed" not in [grade for _, grade in grades(kb.answer(mine))]
    assert [grade for _, grade in grades(kb.answer(message))] == ["candidate"]  # the words alone: possible


# -- an entry whose exact words another cause prints on other releases (diagnosis.other_causes) ---

KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'"


def test_words_another_cause_prints_on_other_releases_confirm_only_with_the_release_or_the_traceback(kb):
    """r048 (transformers#34626's title): a DynamicCache built inside a compiled Whisper forward on 4.46
    lacks `key_cache`, in the very words of the 4.56 removal. The words alone are a candidate that names
    the other cause; a release outside its range (and inside the wording's) confirms; so does the user's
    failing line using the removed name; a release inside it leaves the traceback to tell."""
    alone = kb.answer(KEY_CACHE)
    assert grades(alone) == [("key-cache-removed", "candidate")]
    (match,) = alone.matches
    assert [cause.releases for cause in match.others] == ["<4.56"]
    assert any("another cause prints the same words on transformers <4.56" in hint and "34626" in hint
               for hint in match.missing), match.missing
    assert grades(kb.answer(KEY_CACHE, "4.57.0")) == [("key-cache-removed", "confirmed")]
    assert grades(kb.answer(KEY_CACHE, "4.57.0", INSTALLED)) == [("key-cache-removed", "confirmed")]
    words = next(e for e in kb.answer(KEY_CACHE, "4.57.0").matches[0].evidence if e.kind == "words")
    assert "4.57.0 is outside <4.56" in words.detail
    assert kb.answer(KEY_CACHE, "4.46.2").matches == []  # outside the wording's own range: ruled out, as before
    stated = kb.answer(f"transformers==4.57.1\n{KEY_CACHE}")
    assert grades(stated) == [("key-cache-removed", "confirmed")]
    mine = ("Traceback (most recent call last):\n" + frame("/me/compress.py", 12, "prune", "k = cache.key_cache[i]")
            + KEY_CACHE + "\n")
    assert grades(kb.answer(mine)) == [("key-cache-removed", "confirmed")]
    # Another class's name is the subclass wording, which the other cause does not print: its words still tie it.
    assert grades(kb.answer("AttributeError: 'DynamicCacheWithRepeat' object has no attribute 'key_cache'")) == \
        [("key-cache-removed", "confirmed")]


TUPLE_LENGTH = "AttributeError: 'tuple' object has no attribute 'get_seq_length'"


def test_a_tuple_cache_s_words_from_prefix_tuning_on_4_46_confirm_only_with_the_release(kb):
    """Corpus h132 (peft#869): on 4.46 prefix tuning with gradient checkpointing (`use_cache` off) handed the
    forward a tuple it did not convert, in the very words of the 4.48 change. The words alone are a candidate
    naming that cause; a release from 4.48 on confirms; 4.46 is outside the entry's wording: ruled out."""
    alone = kb.answer(TUPLE_LENGTH)
    assert grades(alone) == [("legacy-tuple-forward-get-seq-length", "candidate")]
    assert any("<4.48" in hint and "peft#869" in hint for hint in alone.matches[0].missing), alone.matches[0].missing
    assert grades(kb.answer(TUPLE_LENGTH, "4.48.0")) == [("legacy-tuple-forward-get-seq-length", "confirmed")]
    assert grades(kb.answer(TUPLE_LENGTH, "4.57.0", INSTALLED)) == [("legacy-tuple-forward-get-seq-length",
                                                                    "confirmed")]
    assert kb.answer(TUPLE_LENGTH, "4.46.0").matches == []


def test_a_traceback_through_the_same_forward_does_not_tell_the_other_cause_apart(kb):
    """Both causes raise in the model's forward (`same_frames`): the frame and the failing line are no
    evidence against peft#869's cause, so without a release the traceback stays a candidate that asks for
    the release alone; with one from 4.48 on it is confirmed, with 4.46 ruled out."""
    traceback = ("Traceback (most recent call last):\n"
                 + frame("/me/train.py", 101, "train", "trainer.train()")
                 + frame(f"{SITE}/transformers/models/qwen2/modeling_qwen2.py", 550, "forward",
                         "past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0")
                 + TUPLE_LENGTH + "\n")
    (match,) = kb.answer(traceback).matches
    assert (match.known.id, match.grade.value) == ("legacy-tuple-forward-get-seq-length", "candidate")
    assert any("the traceback does not" in hint and "peft#869" in hint for hint in match.missing), match.missing
    assert not any("paste the whole traceback" in hint for hint in match.missing), match.missing
    assert grades(kb.answer(traceback, "4.57.0")) == [("legacy-tuple-forward-get-seq-length", "confirmed")]
    assert grades(kb.answer(traceback, "4.57.0", INSTALLED)) == [("legacy-tuple-forward-get-seq-length",
                                                                 "confirmed")]
    assert kb.answer(traceback, "4.46.0").matches == []
    # An other cause whose frames differ (key-cache-removed's compiled Whisper forward) is still told apart
    # by the user's own failing line.
    mine = ("Traceback (most recent call last):\n" + frame("/me/compress.py", 12, "prune", "k = cache.key_cache[i]")
            + KEY_CACHE + "\n")
    assert grades(kb.answer(mine)) == [("key-cache-removed", "confirmed")]


def asks_the_release(hints, library: str = "transformers") -> list[str]:
    """The hints that ask which release: the generic one and an other cause's (when no release is known)."""
    return [hint for hint in hints if hint.startswith(f"which {library} release?") or f"Your {library} release" in hint]


def test_a_candidate_with_an_other_cause_asks_for_the_release_once(kb):
    """The other cause's hint already asks which release ("Your transformers release (this entry: >=4.56) or the
    traceback tells them apart"): the generic "which transformers release?" beside it asked twice."""
    (match,) = kb.answer(KEY_CACHE).matches
    asked = asks_the_release(match.missing)
    assert len(asked) == 1 and asked[0].startswith("another cause prints the same words"), match.missing
    # Without an other cause the generic question stays.
    bare = Lookup([Known.from_index({"id": "x", "title": "t", "exception": "ValueError", "message": "frob broke",
                                     "raises_in": ">=2.0", "wordings": [{"message": "frob broke", "words": False}]})],
                  library="pkg")
    (alone,) = bare.answer("ValueError: frob broke").matches
    assert not alone.confirmed
    assert len(asks_the_release(alone.missing, "pkg")) == 1, alone.missing


OTHER = "'{cls}' object has no attribute 'frobnicate'"


def other_kb(**cause) -> Lookup:
    return Lookup([Known.from_index({
        "id": "frob-removed", "title": "t", "exception": "AttributeError", "message": "'Box' object has no attribute "
        "'frobnicate'", "raises_in": ">=2.0", "kind": "removed",
        "wordings": [{"message": "'Box' object has no attribute 'frobnicate'", "words": True, "main": True},
                     {"message": OTHER, "releases": ">=2.0", "words": True, "main": False}],
        "diagnosis": {"code": ["frobnicate"], "other_causes": [{"releases": "<2.0", "note": "a compiled Box.", **cause}]},
    })], library="pkg")


@pytest.mark.parametrize("cause", [{}, {"messages": ["'Box' object has no attribute 'frobnicate'"]}])
def test_an_other_cause_concerns_every_wording_or_the_one_whose_text_the_match_fills(cause):
    kb = other_kb(**cause)
    box = "AttributeError: 'Box' object has no attribute 'frobnicate'"
    assert grades(kb.answer(box)) == [("frob-removed", "candidate")]
    assert grades(kb.answer(box, "2.1")) == [("frob-removed", "confirmed")]
    # the subclass wording filled with `Box` is the other cause's text: still only a candidate on words
    sub = kb.answer("AttributeError: 'MyBox' object has no attribute 'frobnicate'")
    assert grades(sub) == [("frob-removed", "candidate" if not cause else "confirmed")]


@pytest.mark.parametrize(("message", "fits"), [
    ("'Box' object has no attribute 'frobnicate'", True),
    ("\u2018Box\u2019 object has no attribute \u2018frobnicate\u2019", True),  # a forum's typographic quotes
    (" 'Box' object has no attribute 'frobnicate'\n", True),
    ("AttributeError: 'Box' object has no attribute 'frobnicate'", False),  # the exception line, not the wording
    ("'Box' object has no attribute 'frobnicate'.", False),
    ("'Box' object has no attribute frobnicate", False),
])
def test_the_loaders_fits_wording_is_what_the_matcher_applies_an_other_cause_by(message, fits):
    """One owner of "this text fits this wording" (issue 19): `fits_wording`, which the loader's check of an
    other cause calls, answers as the matcher that applies the other cause to a paste of that wording."""
    assert (any(fits_wording(message, wording.message) is not None for wording in other_kb().known[0].wordings)
            is fits)
    kb = other_kb(message=message, messages=[message])
    (match,) = kb.answer("AttributeError: 'Box' object has no attribute 'frobnicate'").matches
    assert bool(match.others) is fits, match
    assert match.confirmed is not fits


def test_a_release_inside_an_other_causes_range_and_the_wordings_leaves_the_traceback_to_tell():
    kb = Lookup([Known.from_index({
        "id": "shared", "title": "t", "exception": "ValueError", "message": "the frobnicator broke down",
        "raises_in": ">=1.0", "diagnosis": {"frames": [{"file": "pkg/frob.py", "function": "run"}],
                                            "other_causes": [{"releases": ">=1.0,<1.5", "note": "a bad config."}]}})],
        library="pkg")
    message = "ValueError: the frobnicator broke down"
    answer = kb.answer(message, "1.2")
    assert grades(answer) == [("shared", "candidate")]
    assert "pkg 1.2 is among the releases (>=1.0,<1.5) where another cause prints the same words: a bad config. " \
        "The traceback tells them apart" in answer.matches[0].missing
    framed = 'Traceback (most recent call last):\n  File "/v/site-packages/pkg/frob.py", line 3, in run\n    x()\n' + message
    assert grades(kb.answer(framed, "1.2")) == [("shared", "confirmed")]
    assert grades(kb.answer(message, "1.6")) == [("shared", "confirmed")]


GETATTR = frame(f"{SITE}/torch/nn/modules/module.py", 1962, "__getattr__", "raise AttributeError(")


def test_a_remote_model_without_generation_mixin_is_possible_from_any_caller(kb):
    """torch raises these words in `Module.__getattr__` for whatever code asked for `generate`: the entry's
    raise site is the runtime's (`source.runtime`), so a caller's failing line that is not one the entry lists
    is no evidence of another cause. Part ten's UniVLA#33 (the script's own `model.generate(`) and
    ComfyUI-Index-TTS#31 (`self.inference_model.generate(`) were ruled out for that and missed; they are the
    entry, possible, asking for the release. The hand-over the entry recognises still confirms it."""
    entry = "remote-model-without-generation-mixin"
    direct = ("Traceback (most recent call last):\n" + frame("/UniVLA/inference_vision.py", 359, "<module>",
                                                              "outputs = model.generate(")
              + GETATTR + "AttributeError: 'Emu3MoE' object has no attribute 'generate'\n")
    answer = kb.answer(direct)
    assert grades(answer) == [(entry, "candidate")]
    assert any("release" in hint for hint in answer.matches[0].missing)
    assert grades(kb.answer(direct, "4.51.3")) == []  # before the split: another cause
    handed = ("Traceback (most recent call last):\n"
              + frame("D:\\ComfyUI\\custom_nodes\\indextts\\gpt\\model.py", 665, "inference_speech",
                      "gen = self.inference_model.generate(inputs, **generate_kwargs)")
              + GETATTR + "AttributeError: 'GPT2InferenceModel' object has no attribute 'generate'\n")
    assert grades(kb.answer(handed)) == [(entry, "candidate")]
    inner = ("Traceback (most recent call last):\n"
             + frame("/hf/modules/transformers_modules/moondream2/moondream.py", 89, "generate",
                     "output_ids = self.text_model.generate(")
             + GETATTR + "AttributeError: 'PhiForCausalLM' object has no attribute 'generate'\n")
    assert grades(kb.answer(inner)) == [(entry, "confirmed")]


def test_a_failing_line_of_another_case_still_rules_out_an_entry_the_library_raises(kb):
    """Only a raise in the runtime is reached from any caller: where the library's (or its remote code's)
    own line is the case, a traceback failing elsewhere rules the entry out (corpus n048)."""
    other = ("Traceback (most recent call last):\n" + frame("/me/run.py", 40, "backwarp", "intWidth = numpyImage.shape[1]")
             + "AttributeError: 'NoneType' object has no attribute 'shape'\n")
    assert grades(kb.answer(other)) == []

"""A placeholder's value that ties an entry's words to its cause (`diagnosis.placeholders.<name>.ties`).

torch prints `'{cls}' object has no attribute 'generate'` for any module without `generate`; what tells
`remote-model-without-generation-mixin` from a DDP wrapper, a base model, a class of 2019 or a `str` is the class:
one named like a generating model (`*ForCausalLM`, `*ForConditionalGeneration`) that the library does not define is
a remote or vendored model's (transformers' own generating classes have `generate` on every release that names them
so). Corpus h068, h069, h145, h146, h155, h165, h188-h193, h732 (a candidate on main); the negatives of that wording
(n055, h164, h197-h200, h214, h531, h620, h635) stay unconfirmed."""

from __future__ import annotations

import pytest

from tests.site.lookupkb import answer, kb  # noqa: F401  (the fixture)

ENTRY = "remote-model-without-generation-mixin"
TB = "Traceback (most recent call last):"


def message(cls: str) -> str:
    return f"AttributeError: '{cls}' object has no attribute 'generate'"


def traceback(cls: str, line: str = "model.generate(**inputs)") -> str:
    return "\n".join([TB, '  File "/app/run.py", line 39, in <module>', f"    {line}",
                      '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1940, in __getattr__',
                      "    raise AttributeError(", message(cls)])


TIED = ["InternLM2ForCausalLM", "Florence2LanguageForConditionalGeneration", "MiniCPMForCausalLM",
        "FlashSlothForCausalLM", "HFAdaptedLLaMAForCausalLM"]


@pytest.mark.parametrize("cls", TIED)
def test_a_generating_class_the_library_does_not_define_confirms(kb, cls):  # noqa: F811
    assert answer(kb, message(cls)) == ([ENTRY], [])
    assert answer(kb, traceback(cls)) == ([ENTRY], [])


def test_the_evidence_says_which_value_tied_it(kb):  # noqa: F811
    found = kb.answer(message("InternLM2ForCausalLM")).confirmed[0]
    assert [e.kind for e in found.evidence if e.kind == "value"] == ["value"]
    assert "`InternLM2ForCausalLM`" in next(e.detail for e in found.evidence if e.kind == "value")


UNTIED = [
    "LlamaForCausalLM",  # the library's own (n055): on every release that names it, it has `generate`
    "GPT2LMHeadModel",  # 2019's (h199, h635): before `generate` existed
    "TransfoXLLMHeadModel",  # 2019's too, since removed: `*LMHeadModel` is that era's name shape
    "BertLMHeadModel",  # the library's (h196 stays a candidate: BLIP's vendored copy shares the name)
    "ModernBertForSequenceClassification",  # no generating head (h164)
    "DistributedDataParallel", "DataParallel",  # a wrapper (h197, h198, h620)
    "MambaTransformer", "Emu3MoE", "GPT2InferenceModel",  # names that do not say a generating model
    "TFMyForCausalLM", "FlaxMyForConditionalGeneration",  # not the runtime's modules
    "LlamaModel",  # a base model: withheld
]


@pytest.mark.parametrize("cls", UNTIED)
def test_other_classes_stay_candidates(kb, cls):  # noqa: F811
    confirmed, _ = answer(kb, message(cls))
    assert ENTRY not in confirmed


def test_a_release_before_the_change_still_rules_it_out(kb):  # noqa: F811
    assert ENTRY not in answer(kb, message("InternLM2ForCausalLM"), "4.51.3")[0] + \
        answer(kb, message("InternLM2ForCausalLM"), "4.51.3")[1]


def test_the_words_on_a_class_object_stay_a_candidate(kb):  # noqa: F811
    text = "AttributeError: type object 'InternLM2ForCausalLM' has no attribute 'generate'"
    assert ENTRY not in answer(kb, text)[0]

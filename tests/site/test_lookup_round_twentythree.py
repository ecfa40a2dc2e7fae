"""Round twenty-three: attacks aimed at a confirmed wrong answer through `ties` (rules version 35), the rule that
confirms `remote-model-without-generation-mixin` on a `{cls}` named like a generating model transformers does not
define (`*ForCausalLM`, `*ForConditionalGeneration`).

None found one a paste could tell apart: the matcher's answer to each is kept as a test, so that a later change that
lets one of these shapes confirm fails here.

- a release the paste states before 4.52 (a pip line, prose, `pip show`'s block), or one given: the tie never outweighs
  the wording's range (every PreTrainedModel had `generate` before 4.52);
- the tied words not being the error the paste ended with: a log line before another exception's traceback, a handled
  exception whose handler raised another one, a failed check quoting them, the user's own `raise` writing them;
- names the tie must leave alone: the library's own class however qualified, TensorFlow's and Flax's classes, 2019's
  `*LMHeadModel` shape, a base model (withheld), a class object (`type object ...`), another attribute;
- where the words sit: a Markdown table row of a CI triage, a title glued to a node's name, a non-English prefix still
  confirm (the class and the words are all there), as the entry's own reports do.

Known limit, not a test: a module of another library named as transformers names its models (vLLM's
`InternLM2ForCausalLM` is an `nn.Module` without `generate`) would be confirmed if someone called `generate` on it; the
paste shows only the class's name and torch's raise, as for the remote class. No report in the corpus does so.
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import answer, kb  # noqa: F401  (the fixture)

ENTRY = "remote-model-without-generation-mixin"
TB = "Traceback (most recent call last):"
TORCH = ['  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1940, in __getattr__',
         "    raise AttributeError("]


def words(cls: str = "InternLM2ForCausalLM") -> str:
    return f"AttributeError: '{cls}' object has no attribute 'generate'"


def confirmed(kb, text: str, release: str | None = None) -> bool:  # noqa: F811
    return ENTRY in answer(kb, text, release)[0]


def possible(kb, text: str, release: str | None = None) -> bool:  # noqa: F811
    return ENTRY in answer(kb, text, release)[1]


# -- a release before the change ---------------------------------------------------------------------------------------

STATED_EARLY = [
    "transformers==4.40.0\n",
    "I use transformers 4.51.3 and get\n",
    "Name: transformers\nVersion: 4.45.2\n",
]


@pytest.mark.parametrize("prose", STATED_EARLY)
def test_a_release_stated_before_the_change_rules_the_tie_out(kb, prose):  # noqa: F811
    assert answer(kb, prose + words()) == ([], [])


def test_a_release_given_before_the_change_rules_it_out_and_one_after_confirms(kb):  # noqa: F811
    assert answer(kb, words(), "4.51.3") == ([], [])
    assert confirmed(kb, words(), "4.57.1")


# -- not the error the paste ended with ------------------------------------------------------------------------------


def test_tied_words_logged_before_another_exception_are_a_candidate(kb):  # noqa: F811
    text = "\n".join(["INFO worker: " + words(), TB, '  File "/app/run.py", line 9, in <module>', "    x = d['k']",
                      "KeyError: 'k'"])
    assert not confirmed(kb, text) and possible(kb, text)


def test_tied_words_handled_before_another_error_are_a_candidate(kb):  # noqa: F811
    text = "\n".join([TB, '  File "/app/run.py", line 9, in <module>', "    out = model.generate(x)", *TORCH, words(), "",
                      "During handling of the above exception, another exception occurred:", "", TB,
                      '  File "/app/run.py", line 11, in <module>', "    fallback()", "ValueError: fallback failed"])
    assert not confirmed(kb, text) and possible(kb, text)


def test_tied_words_inside_a_failed_check_are_a_candidate(kb):  # noqa: F811
    text = "AssertionError: assert \"" + words().replace('"', "'") + "\" == ''"
    assert not confirmed(kb, text) and possible(kb, text)


def test_tied_words_the_users_own_raise_writes_are_ruled_out(kb):  # noqa: F811
    text = "\n".join([TB, '  File "/app/run.py", line 9, in <module>',
                      "    raise AttributeError(\"'InternLM2ForCausalLM' object has no attribute 'generate'\")", words()])
    assert answer(kb, text) == ([], [])


# -- names the tie leaves alone ----------------------------------------------------------------------------------------

UNTIED = [
    "transformers.models.llama.modeling_llama.LlamaForCausalLM",  # the library's own, qualified
    "FlaxMarianMTForConditionalGeneration", "TFGPT2LMHeadModel",  # not the runtime's modules
    "TransfoXLLMHeadModel",  # 2019's shape, since removed
    "Qwen2Model",  # a base model the library defines: withheld
]


@pytest.mark.parametrize("cls", UNTIED)
def test_names_the_tie_leaves_alone_stay_candidates(kb, cls):  # noqa: F811
    assert not confirmed(kb, words(cls)) and possible(kb, words(cls))


def test_another_attribute_is_no_wording_of_the_entry(kb):  # noqa: F811
    text = "AttributeError: 'InternLM2ForCausalLM' object has no attribute 'generate_text'"
    assert ENTRY not in answer(kb, text)[0] + answer(kb, text)[1]


# -- where the tied words sit ------------------------------------------------------------------------------------------

WHERE = [
    "| test | error |\n|---|---|\n| test_gen | " + words() + " |",
    "LTXVConditioning node: 'Florence2LanguageForConditionalGeneration' object has no attribute 'generate'",
    "エラー: " + words(),
    "\n".join([TB, '  File "/app/run.py", line 39, in <module>', "    res = model.chat(tok, q)", *TORCH, words()]),
]


@pytest.mark.parametrize("text", WHERE)
def test_the_tied_words_confirm_wherever_the_paste_ends_with_them(kb, text):  # noqa: F811
    assert confirmed(kb, text)

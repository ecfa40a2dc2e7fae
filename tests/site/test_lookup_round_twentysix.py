"""Round twenty-six (issue 19): a candidate's "what would confirm it" is worded for where the answer is shown.

A candidate's hint said "paste the whole traceback" even when the hook or the pytest hint printed it: the user pasted
nothing, and the hook holds the whole traceback and reads the installed release itself. A hint is now a code with
parameters (`errorkb.lookup.Hint`); `rules.HINT_WORDS` words it per front (`paste` the page's box, `cli` `errorkb
lookup`, `hook`) and ships in the index's rules, so the page's script words it from the same table (no port). The
string a hint is stays its paste words, so the answers of Python and the page compare as before (test_lookup_js.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

from errorkb.lookup import Hint, hint_json, hint_words, rules
from tests.site.lookupkb import kb  # noqa: F401  (the fixture)
from tests.site.test_lookup_js import run_js

IDX = "layer-idx-out-of-range"
BARE = "IndexError: list index out of range"  # the words alone: `Cache.update`'s frame would confirm it
PARAMS = {"where": "`Cache.update` (transformers/cache_utils.py)", "code": "`key_cache`", "line": "`a {b} line`",
          "library": "transformers", "claim": ">=4.56", "id": "key-cache-removed"}


def test_every_hint_is_worded_at_every_front_and_the_hook_never_asks_for_a_paste():
    assert set(rules.FRONTS) == {"paste", "cli", "hook"}
    for code, fronts in rules.HINT_WORDS.items():
        assert set(fronts) == set(rules.FRONTS), code
        hook = hint_words(Hint(code, **PARAMS), "hook")
        assert hook is None or "paste" not in hook, (code, hook)  # the user pasted nothing; the hook has it all


def test_a_candidates_hint_carries_its_code_and_is_its_paste_words(kb):  # noqa: F811
    found = kb.answer(BARE)
    match = next(m for m in found.candidates if m.known.id == IDX)
    hint = match.missing[0]
    assert isinstance(hint, Hint) and hint.code == "traceback-frame"
    assert hint == hint_words(hint, "paste") and hint.startswith("paste the whole traceback: a frame in")
    hook = hint_words(hint, "hook")
    assert hook is not None and "paste" not in hook and "no frame in `Cache.update`" in hook
    assert hint_json(hint, "cli") == {"code": "traceback-frame", "params": dict(hint.params),
                                      "words": hint_words(hint, "cli")}


def test_a_plain_hint_has_the_same_words_everywhere_and_no_code():
    assert [hint_words("the words", front) for front in rules.FRONTS] == ["the words"] * 3
    assert hint_json("the words", "hook") == {"code": None, "params": {}, "words": "the words"}


def test_the_page_words_every_hint_from_the_rules_it_ships_as_python_does():
    cases = [[code, front] for code in rules.HINT_WORDS for front in rules.FRONTS]
    js = run_js("console.log(JSON.stringify(data.cases.map(([code, front]) => "
                "L.hintWords(R, code, data.params, front))));", {"cases": cases, "params": PARAMS})
    assert js == [hint_words(Hint(code, **PARAMS), front) for code, front in cases]


def test_a_hint_survives_a_copy_between_processes():
    import pickle

    hint = Hint("release", library="transformers", claim=">=4.56")
    again = pickle.loads(pickle.dumps(hint))
    assert isinstance(again, Hint) and again == hint and again.params == hint.params


def test_errorkb_lookup_prints_its_own_words_and_json_keeps_the_codes():
    result = subprocess.run([sys.executable, "-m", "errorkb.cli", "lookup", "--json", BARE], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 3, result.stderr  # only candidates
    match = next(m for m in json.loads(result.stdout)["candidates"] if m["id"] == IDX)
    assert match["hints"][0]["code"] == "traceback-frame" and match["hints"][0]["words"] == match["missing"][0]
    assert match["hints"][0]["params"]["where"].startswith("`Cache.update`")


def test_the_hooks_block_never_asks_for_a_paste():
    from benchmarks.lookup_recall import ROOT
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.hook.explain import block
    from errorkb.lookup import INSTALLED
    from errorkb.site.hookindex import project_index

    project = load_project(ROOT)
    index = project_index(project, [one.entry for one in load_project_entries(project).entries])
    answer = index.lookup().answer(BARE, None, INSTALLED)
    assert answer.candidates and not answer.confirmed
    printed = block(answer, index)
    assert "to tell:" in printed and "paste" not in printed, printed


# -- a header is not a message (newlib3's pydantic finding) ----------------------------------------------------------

PYDANTIC = (
    "Traceback (most recent call last):\n"
    '  File "/u/mine.py", line 3, in <module>\n'
    "    User(age='x')\n"
    '  File "/venv/lib/python3.11/site-packages/pydantic/main.py", line 212, in __init__\n'
    "    validated_self = self.__pydantic_validator__.validate_python(data, self_instance=self)\n"
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for User\n"
    "age\n"
    "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', "
    "input_type=str]\n"
)
HEADER = "1 validation error for {model}"
WHOLE = HEADER + "\n{field}\n  Input should be a valid integer, unable to parse string as an integer {details}"


def _validation(message: str):
    from errorkb.lookup import Known

    return Known.from_index({"id": "int-field", "title": "t", "exception": "ValidationError", "message": message,
                             "wordings": [{"message": message}],
                             "diagnosis": {"frames": [{"file": "pydantic/main.py", "function": "__init__"}]}})


def _lint(known):
    from errorkb.lookup import lint
    from errorkb.lookup._index import Index

    return lint.check(Index([known], items={known.id: {}}, library="pydantic"), [lint.Case(known.id, None, PYDANTIC)])


def test_a_wording_that_is_only_the_first_line_its_own_before_printed_is_refused():
    found = _lint(_validation(HEADER))
    assert [(one.entry, one.key) for one in found] == [("int-field", ("message",))], found
    assert "only its first" in found[0].message and "3 lines" in found[0].message


def test_the_whole_message_as_the_wording_passes():
    assert _lint(_validation(WHOLE)) == []


def test_a_before_the_verifier_failed_for_its_message_is_held_to_the_header_rule_alone():
    """The verifier compares the whole message, so a header's before fails (`message-differs`, newlib3's pydantic
    case) and is no verified before; its traceback still shows the header the lookup would confirm."""
    from errorkb.lookup import lint
    from errorkb.lookup._index import Index

    known = _validation(HEADER)
    index = Index([known], items={known.id: {}}, library="pydantic")
    found = lint.check(index, [lint.Case(known.id, "2.5.0", PYDANTIC, passed=False)])
    assert [one.key for one in found] == [("message",)] and "its own before (at 2.5.0)" in found[0].message
    assert lint.check(index, [lint.Case(known.id, "2.5.0", PYDANTIC.replace("\nage\n", "\n").rsplit("\n", 2)[0]
                                        + "\n", passed=False)]) == []


def test_an_also_seen_as_header_is_refused_at_its_own_key():
    from errorkb.lookup import Known, lint
    from errorkb.lookup._index import Index

    known = Known.from_index({"id": "int-field", "title": "t", "exception": "ValidationError", "message": WHOLE,
                              "wordings": [{"message": WHOLE}, {"message": HEADER, "main": False}]})
    found = lint.check(Index([known], items={known.id: {}}, library="pydantic"), [lint.Case(known.id, None, PYDANTIC)])
    assert [one.key for one in found] == [("also_seen_as", 0, "message")], found


def test_a_wording_whose_placeholder_can_hold_the_other_lines_is_still_a_header():
    """A placeholder's value may run over lines, so the header fits the whole message as well as its first line: that
    is how it confirms every error of the class. What the first line alone fits is refused, whatever else it fits."""
    from errorkb.lookup import fits_wording

    whole = PYDANTIC.split("ValidationError: ", 1)[1].rstrip("\n")
    assert fits_wording(whole, HEADER) is not None
    assert [one.key for one in _lint(_validation(HEADER))] == [("message",)]

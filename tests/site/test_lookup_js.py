"""The paste box's matcher (errorkb/site/assets/lookup.js) agrees with the Python one (errorkb.lookup)
on the same inputs: template parsing, `match`, `search`, candidates, grading (confirmed or
candidate, evidence, what would tell), ranking and counted work; on the whole corpus of real
reports, against the real index, and the hook (errorkb.hook.explain) too. The JavaScript reads
its rules from the index, as the page does. Runs it with the Node.js that ships inside the
playwright wheel (no browser needed)."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate, TemplateSyntaxError
from errorkb.core.project import load_project
from errorkb.lookup import Known, Lookup, candidates, rules
from errorkb.lookup._match import fnv1a
from errorkb.lookup._rules import rules_document

ROOT = Path(__file__).resolve().parents[2]
LOOKUP_JS = ROOT / "errorkb" / "site" / "assets" / "lookup.js"

TEMPLATES = [
    "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has {len(self.layers)} layers",
    "{a} and {a} again, then {b}",  # a repeated expression must repeat its text
    "literal {{braces}} and a {slot}",
    "dict {d['key']} and call {f(x, [1, 2])} and set {{{s}}}",
    "regex chars .*+?^$()[]|\\/ around {x}",
    "{x}",
    "unicode → ünïcödé {x} 🚀 done",
    "multi\nline {x}\nmessage",
    "no placeholders at all",
    "Expected {n} values, got {m}.",
    "bad {",  # syntax errors: both reject
    "bad }",
    "empty {} slot",
    "quote {x['}']} inside",
]
INPUTS = [
    "`head_dim` was provided as a list of length 12, but the Cache currently has 28 layers",
    "1 and 1 again, then 2", "1 and 2 again, then 3", "and  again, then ",
    "literal {braces} and a spoon", "dict v and call r and set {q}",
    "regex chars .*+?^$()[]|\\/ around y", "anything at all", "", "unicode → ünïcödé ✓ 🚀 done",
    "multi\nline 1\n2\nmessage", "no placeholders at all", "prefix no placeholders at all suffix",
    "Expected 3 values, got 4.", "Expected 3 values, got 4.\nExpected 5 values, got 6.",
    "quote v inside",
]
PASTES = [
    "`head_dim` was provided as a list of length 12, but the Cache currently has 28 layers",
    "ValueError: `head_dim` was provided as a list of length 12, but the Cache currently has 28 layers",
    "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: `num_head` was provided as "
    "a list of length 3, but the Cache currently has 2 layers\n",
    "E       ValueError: Expected 3 values, got 4.\nE       more text",
    "RuntimeError: Expected 3 values, got 4.",
    "  multi\r\nline 1\r\nmessage  ",
    "x.y.ValueError: 1 and 1 again, then 2",
    "ValueError: dict \u2018v\u2019 and call \u201cr\u201d and set {q}",  # typographic quotes
    "garbage",
    "",
]


def node() -> Path:
    """playwright's Node.js; without it the parity tests skip, except in the full tier: they fail."""
    from tests.conftest import missing, playwright_node

    path = playwright_node()
    if path is None:
        missing("the playwright wheel's Node.js driver is not installed "
                "(pip install -r requirements/dev.txt -c requirements/constraints.txt)")
    assert path is not None
    return path


RULES = rules_document(list(GENERIC_WORDINGS))  # what an index ships (a runtime adds its generic wordings)


def run_js(script: str, data) -> object:
    program = f"const L = require({json.dumps(str(LOOKUP_JS))});\n" \
              f"const RULES = {json.dumps(RULES)};\nconst R = L.compileRules(RULES);\n" \
              f"const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n{script}"
    result = subprocess.run([str(node()), "-e", program], input=json.dumps(data), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def python_template(source: str, text: str):
    try:
        template = MessageTemplate.parse(source)
    except TemplateSyntaxError:
        return "syntax-error"
    return {"parts": [["literal", p.text] if hasattr(p, "text") else ["placeholder", p.expression]
                      for p in template.parts],
            "match": template.match(text), "search": template.search(text), "literal": template.literal_text}


def test_template_parse_match_and_search_agree():
    cases = [[source, text] for source in TEMPLATES for text in INPUTS]
    js = run_js("""
      const out = data.map(([source, text]) => {
        let t;
        try { t = new L.MessageTemplate(source); } catch (e) {
          if (e instanceof L.TemplateSyntaxError) return "syntax-error"; throw e; }
        return { parts: t.parts.map((p) => "literal" in p ? ["literal", p.literal] : ["placeholder", p.placeholder]),
                 match: t.match(text), search: t.search(text), literal: t.literalText };
      });
      console.log(JSON.stringify(out));""", cases)
    python = [python_template(source, text) for source, text in cases]
    mismatches = [(case, p, j) for case, p, j in zip(cases, python, js) if p != j]
    assert not mismatches, mismatches[:3]
    assert sum(1 for p in python if isinstance(p, dict) and p["match"] is not None) > 10  # the corpus matches


def lookup_js(entries: list[dict], pastes: list[str], library: str = "transformers") -> list:
    return run_js("""
      const lookup = new L.Lookup(data.entries, undefined, { rules: RULES, library: data.library });
      console.log(JSON.stringify(data.pastes.map((text) => ({
        candidates: L.candidates(L.normalize(text, R), R).map((c) => [c.message, c.exception]),
        found: lookup.find(text).map((m) => [m.entry.id, m.values, m.exception, m.exact]) }))));""",
                  {"entries": entries, "pastes": pastes, "library": library})


def python_lookup(entries: list[dict], pastes: list[str], library: str = "transformers") -> list:
    from errorkb.lookup import normalize

    lookup = Lookup((Known.from_index(item) for item in entries), library=library)
    return [{"candidates": [[c.message, c.exception] for c in candidates(normalize(text))],
             "found": [[m.known.id, m.values, m.exception, m.exact] for m in lookup.find(text)]}
            for text in pastes]


def test_lookup_candidates_and_ranking_agree():
    entries = [{"id": f"e{i}", "title": f"t{i}", "exception": "ValueError", "message": source}
               for i, source in enumerate(TEMPLATES) if python_template(source, "") != "syntax-error"]
    entries.append({"id": "head", "title": "head", "exception": "builtins.ValueError",
                    "message": "`num_head` was provided as a list of length {n}, but the Cache currently has {m} layers"})
    js, python = lookup_js(entries, PASTES), python_lookup(entries, PASTES)
    for paste, p, j in zip(PASTES, python, js):
        assert p == j, paste
    assert sum(1 for result in python if result["found"]) >= 6


def test_every_entry_of_the_knowledge_base_is_found_by_both(tmp_path):
    """Each real entry, its placeholders filled with concrete values, is found first in both."""
    project = load_project(ROOT)
    entries = [{"id": one.entry.id, "title": one.entry.title, "exception": one.entry.exception,
                "message": one.entry.message} for one in load_project_entries(project).entries]
    assert entries, "no entries loaded"
    pastes = []
    for index, item in enumerate(entries):
        template = MessageTemplate.parse(item["message"])
        sample = {"cls": f"MyCache{index}", "module": f"{project.library.name}.m{index}"}  # their default types
        filled = "".join(part.text if hasattr(part, "text") else sample.get(part.expression, str(7 + index))
                         for part in template.parts)
        pastes.append(f"{item['exception']}: {filled}")
    js, python = lookup_js(entries, pastes), python_lookup(entries, pastes)
    assert js == python
    for item, result in zip(entries, python):
        assert item["id"] in [found[0] for found in result["found"]], item["id"]


# -- bounded work: the same hostile pastes, the same counted work --------------------------------


def python_answers(entries: list[dict], pastes: list[str]) -> list:
    lookup = Lookup(Known.from_index(item) for item in entries)
    out = []
    for text in pastes:
        answer = lookup.answer(text)
        out.append({"found": [[m.known.id, m.values, m.exception, m.exact] for m in answer.matches],
                    "cut": answer.cut, "kept": answer.kept, "work": answer.work})
    return out


def js_answers(entries: list[dict], pastes: list[str]) -> list:
    return run_js("""
      const lookup = new L.Lookup(data.entries, undefined, { rules: RULES });
      console.log(JSON.stringify(data.pastes.map((text) => {
        const answer = lookup.answer(text);
        return { found: answer.matches.map((m) => [m.entry.id, m.values, m.exception, m.exact]),
                 cut: answer.cut, kept: answer.kept, work: answer.work };
      })));""", {"entries": entries, "pastes": pastes})


def test_hostile_pastes_get_the_same_answer_and_the_same_work_in_both():
    """Line-for-line ports count the same work: the JS is exactly as linear as the Python."""
    from tests.site.hostile import ENTRIES, FAMILIES

    pastes = [make(size) for make in FAMILIES.values() for size in (4096, 16384)]
    python, js = python_answers(ENTRIES, pastes), js_answers(ENTRIES, pastes)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste[:80]


def test_every_hostile_family_at_one_megabyte_finishes_in_node():
    """A hang guard: the old page ran out of memory on 20,000 warning lines."""
    from tests.site.hostile import ENTRIES, FAMILIES

    pastes = {name: make(1 << 20) for name, make in FAMILIES.items()}
    program = f"const L = require({json.dumps(str(LOOKUP_JS))});\nconst RULES = {json.dumps(RULES)};\n" + """
      const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const lookup = new L.Lookup(data.entries, undefined, { rules: RULES });
      const times = {};
      for (const [name, text] of Object.entries(data.pastes)) {
        const start = process.hrtime.bigint();
        lookup.find(text);
        times[name] = Number(process.hrtime.bigint() - start) / 1e6;
      }
      console.log(JSON.stringify(times));"""
    try:
        result = subprocess.run([str(node()), "-e", program], input=json.dumps({"entries": ENTRIES, "pastes": pastes}),
                                capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a hostile paste of 1 MB kept the page's lookup busy for over 60 s")
    assert result.returncode == 0, result.stderr[-2000:]
    assert set(json.loads(result.stdout)) == set(FAMILIES)


# -- real pastes, wordings, releases, degenerate templates: the same answers ----------------------


def _verdict(release) -> list | None:
    return None if release is None else [list(release.releases), release.given, release.raises, release.advice,
                                         release.source, release.range]


def full_python(entries: list[dict], pastes: list[str], release: str | None = None, cap: int | None = None,
                lookup: Lookup | None = None, source: str = "stated", work: bool = False, classes: str = "") -> list:
    """`classes`: the class list as an index carries it (8 hex digits a name, joined)."""
    lookup = lookup or Lookup((Known.from_index(item) for item in entries), cap or rules.CAP,
                              classes=[classes[i:i + 8] for i in range(0, len(classes) - 7, 8)])
    out = []
    for text in pastes:
        answer = lookup.answer(text, release, source)
        out.append({"found": [[m.known.id, m.grade.value, m.values, m.exception, m.exact, m.wording, m.chain,
                               _verdict(m.release), [[e.kind, e.detail] for e in m.evidence], list(m.missing)]
                              for m in answer.matches],
                    "ruled": [[r.match.known.id, r.reason] for r in answer.ruled_out],
                    "cut": answer.cut, "kept": answer.kept, "release": answer.release,
                    "ignored": [list(one) for one in lookup.ignored], **({"work": answer.work} if work else {})})
    return out


FULL_JS = """
  const answers = data.pastes.map((text) => {
    const answer = lookup.answer(text, data.release, data.source || "stated");
    const verdict = (r) => r === null ? null : [r.releases, r.given, r.raises, r.advice, r.source, r.range];
    return { found: answer.matches.map((m) => [m.entry.id, m.grade, m.values, m.exception, m.exact, m.wording, m.chain,
               verdict(m.release), m.evidence.map((e) => [e.kind, e.detail]), m.missing]),
             ruled: answer.ruledOut.map((r) => [r.match.known.id, r.reason]),
             cut: answer.cut, kept: answer.kept, release: answer.release, ignored: lookup.ignored,
             ...(data.work ? { work: answer.work } : {}) };
  });
  console.log(JSON.stringify(answers));"""


def full_js(entries: list[dict], pastes: list[str], release: str | None = None, cap: int | None = None,
            classes: str = "") -> list:
    return run_js("const lookup = new L.Lookup(data.entries, data.cap || RULES.cap, { rules: RULES, "
                  "classes: data.classes });" + FULL_JS,
                  {"entries": entries, "pastes": pastes, "release": release, "cap": cap, "classes": classes})


def test_real_pastes_get_the_same_answers_in_both():
    from tests.site.pastes import ENTRIES, PASTES

    python, js = full_python(ENTRIES, PASTES), full_js(ENTRIES, PASTES)
    for paste, p, j in zip(PASTES, python, js):
        assert p == j, paste
    found = [result["found"] for result in python if result["found"]]
    assert len(found) > len(PASTES) * 0.7
    assert all(result["ignored"] == [["generic", result["ignored"][0][1]]] for result in python)
    assert sum(1 for one in found if one[0][6] is not None) >= 10  # release verdicts were given


@pytest.mark.parametrize("release", ["4.48.3", "4.49.0", "5.2.0", "5.0.0rc1"])
def test_a_given_release_gives_the_same_verdict_in_both(release):
    from tests.site.pastes import ENTRIES, PASTES

    assert full_python(ENTRIES, PASTES[:40], release) == full_js(ENTRIES, PASTES[:40], release)


def test_the_cap_cuts_the_same_characters_in_both():
    """Sizes count code points in both (a JavaScript string's length counts UTF-16 units)."""
    message = "`head_dim` was provided as a list of length 1, but the Cache currently has 2 layers"
    pastes = ["🚀" * 300 + "\n" + message, "a🚀\n" * 100 + message, "🚀" * 1000, "x" * 999 + "🚀" + "\n" + message,
              "\n".join(["ValueError: " + message] * 40),
              # one long last line, then a line break: cutting at the line would leave nothing
              "log\nValueError: " + message + " " + "🚀x" * 300 + "\n", "a\n" + "y" * 600 + "\n \t\n"]
    entries = [{"id": "h", "title": "h", "exception": "ValueError",
                "message": "`head_dim` was provided as a list of length {n}, but the Cache currently has {m} layers"}]
    python, js = full_python(entries, pastes, cap=256), full_js(entries, pastes, cap=256)
    assert python == js
    assert all(result["cut"] > 0 for result in python)


def test_a_paste_is_cut_never_dropped_and_the_box_cuts_with_the_matchers_function():
    """One long last line (then a line break) longer than the cap: both keep its last characters
    rather than nothing; the paste box (errorkb.js) owns no cut of its own."""
    from errorkb.lookup import keep_tail

    pastes = ["head\n" + "z" * 600 + "\n", "q" * 600 + "\n\n", "🚀" * 400 + "\n", "a\nb\n" + "w" * 300]
    python = [keep_tail(text, 256) for text in pastes]
    js = run_js("console.log(JSON.stringify(data.map((text) => L.keepTail(text, 256))));", pastes)
    assert python == js
    assert all(kept.strip() for kept in python), python
    assert python[3] == "w" * 256  # no line starts inside the last 256: the characters themselves
    box = (ROOT / "errorkb" / "site" / "assets" / "errorkb.js").read_text(encoding="utf-8")
    assert "errorkbLookup.keepTail(" in box and "function lastOf" not in box


def test_the_page_keeps_no_copy_of_a_rule():
    """Every pattern, limit, placeholder type and generic wording comes with the index: the script
    holds none of them (a copy would drift from errorkb/lookup/_rules.py)."""
    script = LOOKUP_JS.read_text(encoding="utf-8")
    copies = [rules.ANSI, rules.PREFIX[:40], rules.EXCEPTION_LINE[:40], rules.FRAME_LINE[:40], rules.STATED[:40],
              "Traceback \\(most recent", "1 << 16", str(rules.CAP), *GENERIC_WORDINGS, '"NoneType"', "'NoneType'",
              rules.TYPES["class"][:30]]
    assert [one for one in copies if one in script] == []
    js = run_js("console.log(JSON.stringify(Object.fromEntries(Object.entries(R.patterns)"
                ".map(([k, v]) => [k, typeof v === 'string' ? v : v.source.replaceAll('\\\\/', '/')]))));", {})
    assert js == RULES["patterns"]


DEGENERATE_CASES = [
    "'{cls}' object has no attribute '{name}'", "{msg}", " ", '" "', "{a}: {b}", "x", "layers {n}",
    "cannot import name '{name}' from '{module}'", "cannot import name '{name}' from 'transformers'",
    "'{cls}' object has no attribute 'get_max_length'", "{a} and {b} or {c} but {d} with {e}",
    "list index out of range", "CUDA error: {x}", "CUDA error: device-side assert triggered",
    "{f}() got an unexpected keyword argument '{k}'", "{f}() got an unexpected keyword argument 'cache_position'",
    "too many values to unpack (expected {n})", "too many values to unpack (expected 2)",
    "Expected {len(d) = } to be 4 or 6.\n{d = }", "ünïcödé wörds {x} everywhere", "日本語のメッセージ {x} です",
    "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has {len(self.layers)} layers",
]


def test_degenerate_templates_are_judged_the_same_in_both():
    from errorkb.core.message import is_degenerate

    js = run_js("console.log(JSON.stringify(data.map((t) => L.isDegenerate(t, RULES.generic))));", DEGENERATE_CASES)
    assert js == [is_degenerate(t) for t in DEGENERATE_CASES]
    assert sum(1 for reason in js if reason) >= 8 and sum(1 for reason in js if not reason) >= 8


SPECIFIERS = [">=4.49", "<5.0", ">=4.49,<5.0", "==4.49.*", "!=4.49.*", "==4.49", "!=4.49.0", "~=4.49", "~=4.49.1",
              ">4.49", "<=4.49.0", ">=4.49 , <4.50 ,", "", "~=4", ">=4.*", "==4.*", "nonsense", ">= 4.49", "==04.49",
              "<4.49.0.0", ">4.48.99", "===4.49.0", ">=4.49rc1"]
RELEASES = ["4.36.0", "4.48.3", "4.49", "4.49.0", "4.49.1", "4.49.10", "4.50.0", "4.9.0", "5.0.0", "5", "5.0.0.0",
            "4.49.0rc1", "v4.49", "04.49.0"]


def test_release_specifiers_agree_with_packaging():
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    from errorkb.lookup import contains

    cases = [[s, r] for s in SPECIFIERS for r in RELEASES]
    js = run_js("console.log(JSON.stringify(data.map(([s, r]) => L.contains(s, r, R))));", cases)
    python = [contains(s, r) for s, r in cases]
    assert js == python
    for (specifier, release), answer in zip(cases, python):
        if answer is not None:  # wherever both understand it, packaging agrees
            try:
                truth = SpecifierSet(specifier).contains(Version(release), prereleases=True)
            except InvalidSpecifier:
                truth = None
            assert answer == truth, (specifier, release)
    assert sum(1 for a in python if a is True) > 40 and sum(1 for a in python if a is False) > 40


def test_code_spans_of_a_title_are_split_as_commonmark_does():
    cases = ["`head_dim` list", "a ``b`c`` d", "unclosed `x", "`` ` ``", "<b>`<i>`</b>", "``", "` a `", "`  `"]
    js = run_js("console.log(JSON.stringify(data.map((t) => L.codeSpans(t).map((p) => [p.text, p.code]))));", cases)
    assert js == [[["head_dim", True], [" list", False]], [["a ", False], ["b`c", True], [" d", False]],
                  [["unclosed `x", False]], [["`", True]], [["<b>", False], ["<i>", True], ["</b>", False]],
                  [["``", False]], [["a", True]], [["  ", True]]]


def test_a_malformed_index_entry_is_read_the_same_way_and_never_crashes_either():
    entries = [{"id": "odd", "title": "t", "exception": "ValueError", "message": "bad {thing} in the cache",
                "wordings": [{"message": None}, {"message": "bad {thing} in the cache"}, {"message": "{x"}],
                "lines": {"path": None, "by_release": {"1.0": "12", "2.0": 12, "3.0": True, "4.0": 1.5}},
                "raises_in": 5},
               {"id": "plain", "title": "p", "exception": "ValueError", "message": "plain message in the cache"}]
    pastes = ["ValueError: bad spoon in the cache", 'File "x/cache.py", line 12\nValueError: plain message in the cache']
    assert full_python(entries, pastes, "2.0") == full_js(entries, pastes, "2.0")
    assert full_python(entries, pastes) == full_js(entries, pastes)


def test_entries_told_apart_by_their_traceback_get_the_same_answers_in_both():
    """Four mistakes print 'too many values to unpack (expected 2)': the words tie none of them
    (`words: false`); a `recognised_by` text confirms its entry, and a traceback whose failing line
    shows another rules out the entry that says how its line reads."""
    unpack = "too many values to unpack (expected 2)"
    wording = [{"message": unpack, "exception": "ValueError", "words": False}]
    entries = [{"id": "pair", "title": "pair", "exception": "ValueError", "message": unpack, "wordings": wording,
                "recognised_by": ["cache_k, cache_v = kv_cache"]},
               {"id": "helper", "title": "helper", "exception": "ValueError", "message": unpack, "wordings": wording,
                "recognised_by": ["= self._extract_past_from_model_output(outputs"]},
               {"id": "plain", "title": "plain", "exception": "ValueError", "message": unpack, "wordings": wording}]
    pastes = [f"ValueError: {unpack}",
              f"  File \"m.py\", line 563, in forward\n    cache_k, cache_v = kv_cache\nValueError: {unpack}",
              f"    cache_name, cache = self._extract_past_from_model_output(outputs)\nValueError: {unpack}",
              f"    hidden_states, _ = self.self_attn(\nValueError: {unpack}"]
    python, js = full_python(entries, pastes), full_js(entries, pastes)
    assert python == js
    graded = [[(one[0], one[1]) for one in result["found"]] for result in python]
    assert graded[0] == [("helper", "candidate"), ("pair", "candidate"), ("plain", "candidate")]
    assert graded[1] == [("pair", "confirmed"), ("plain", "candidate")]
    assert [one[0] for one in python[1]["ruled"]] == ["helper"]
    assert graded[2][0] == ("helper", "confirmed") and all(grade == "candidate" for _, grade in graded[2][1:])
    assert all(grade == "candidate" for _, grade in graded[3])


def test_values_an_entry_withholds_keep_it_a_candidate_alike_in_both():
    """`withhold`: a value named by its globs (and by none of its `unless`) keeps the entry a candidate,
    whatever confirms it, and says why; a wording without the placeholder (a title's cut form) does not
    confirm what the whole message withholds. Globs are matched linearly: a long hostile name costs the same."""
    generate = "'{cls}' object has no attribute 'generate'"
    rule = {"names": ["*Model", "Bad*Name*X"], "unless": ["*LMHeadModel", "*For*"], "because": "is a base model"}
    entries = [{"id": "mixin", "title": "mixin", "exception": "AttributeError", "message": generate,
                "wordings": [{"message": generate, "exception": "AttributeError", "words": False},
                             {"message": "object has no attribute 'generate'", "exception": "AttributeError",
                              "words": False, "main": False}],
                "recognised_by": ["language_model.generate("],
                "diagnosis": {"placeholders": {"cls": {"type": "class", "withhold": [rule]}}}}]
    line = "    out = model.language_model.generate(x)\n"
    names = ["LlamaModel", "InternLM2ForCausalLM", "BertLMHeadModel", "BadNameX", "BadxNameyX", "BadNamX",
             "Model", "A" * 5000 + "Mode", "*Model"]
    pastes = [f"{line}AttributeError: '{name}' object has no attribute 'generate'" for name in names]
    python, js = full_python(entries, pastes), full_js(entries, pastes)
    assert python == js
    graded = {name: [one[1] for one in result["found"]] for name, result in zip(names, python)}
    assert graded == {"LlamaModel": ["candidate"], "InternLM2ForCausalLM": ["confirmed"], "BertLMHeadModel": ["confirmed"],
                      "BadNameX": ["candidate"], "BadxNameyX": ["candidate"], "BadNamX": ["confirmed"],
                      "Model": ["candidate"], "A" * 5000 + "Mode": ["confirmed"], "*Model": []}
    assert "`LlamaModel` is a base model" in python[0]["found"][0][-1]


def test_values_an_entry_ties_confirm_it_alike_in_both():
    """`ties`: a value named by its globs (and by none of its `unless`) confirms the entry without other evidence,
    and the evidence says which; `foreign` ties only a class the library does not define, and none where the
    index carries no class list; a withheld value stays a candidate whatever ties it."""
    generate = "'{cls}' object has no attribute 'generate'"
    tie = {"names": ["*ForCausalLM"], "unless": ["TF*"], "foreign": True, "because": "names a remote model"}
    hold = {"names": ["Held*"], "because": "is held"}
    entries = [{"id": "mixin", "title": "mixin", "exception": "AttributeError", "message": generate,
                "wordings": [{"message": generate, "exception": "AttributeError", "words": False}],
                "diagnosis": {"placeholders": {"cls": {"type": "class", "ties": [tie], "withhold": [hold]}}}}]
    names = ["InternLM2ForCausalLM", "LlamaForCausalLM", "TFMyForCausalLM", "MambaTransformer",
             "HeldForCausalLM", "x.y.RemoteForCausalLM", "transformers.LlamaForCausalLM", "A" * 5000 + "ForCausalL"]
    pastes = [f"AttributeError: '{name}' object has no attribute 'generate'" for name in names]
    classes = fnv1a("LlamaForCausalLM")
    python, js = full_python(entries, pastes, classes=classes), full_js(entries, pastes, classes=classes)
    assert python == js
    graded = {name: [one[1] for one in result["found"]] for name, result in zip(names, python)}
    assert graded == {"InternLM2ForCausalLM": ["confirmed"], "LlamaForCausalLM": ["candidate"],
                      "TFMyForCausalLM": ["candidate"], "MambaTransformer": ["candidate"],
                      "HeldForCausalLM": ["candidate"], "x.y.RemoteForCausalLM": ["confirmed"],
                      "transformers.LlamaForCausalLM": ["candidate"], "A" * 5000 + "ForCausalL": ["candidate"]}
    unlisted = full_python(entries, pastes[:1])
    assert unlisted == full_js(entries, pastes[:1]) and [one[1] for one in unlisted[0]["found"]] == ["candidate"]


# -- the whole corpus, the real index: the page, the CLI and the hook answer alike ----------------


@pytest.fixture(scope="module")
def real_index() -> dict:
    """The real entries' index, as `errorkb hook index` writes it (the site's has the same shape)."""
    from errorkb.site.hookindex import hook_index

    project = load_project(ROOT)
    return json.loads(json.dumps(hook_index(project, [one.entry for one in load_project_entries(project).entries])))


@functools.cache
def corpus_texts() -> tuple[str, ...]:
    """Read once for the module's three releases (the corpus's YAML takes a second to parse)."""
    from benchmarks.lookup_recall import CORPUS, read_corpus

    return tuple(item.get("paste") or item.get("message") or "" for item in read_corpus(CORPUS))


def js_on_index(index: dict, pastes: list[str], release: str | None = None, source: str = "stated",
                work: bool = False) -> list:
    return run_js("""
      const index = data.index;
      const lookup = new L.Lookup(index.entries, undefined, { library: index.library.name, rules: index.rules,
        classes: index.library.classes, others: index.library.others, runtime: index.runtime.packages });""" + FULL_JS,
                  {"index": index, "pastes": pastes, "release": release, "source": source, "work": work})


@pytest.mark.parametrize("release", [None, "4.41.2", "5.15.1"])
def test_the_whole_corpus_gets_the_same_graded_answers_in_the_page_the_cli_and_the_hook(real_index, release):
    """Every report of tests/corpus (its paste, else its message), as pasted and as if a release were
    stated or installed: the page's script, `errorkb lookup`'s matcher and the hook's own path from
    an exception's text (errorkb.hook.explain.answer_text) give the same graded answers."""
    from errorkb.hook.explain import answer_text
    from errorkb.lookup import INSTALLED, read_index

    index = read_index(real_index)
    pastes = list(corpus_texts())
    assert len(pastes) >= 212
    source = INSTALLED if release else "stated"
    python = full_python([], pastes, release, lookup=index.lookup(), source=source)
    js = js_on_index(real_index, pastes, release, source)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste[:200]
    hook = [answer_text(text, index, release) for text in pastes]
    assert [[m.known.id for m in answer.matches] for answer in hook] == [[one[0] for one in p["found"]]
                                                                         for p in python]
    assert [[m.grade.value for m in answer.matches] for answer in hook] == [[one[1] for one in p["found"]]
                                                                           for p in python]
    confirmed = sum(1 for p in python if any(one[1] == "confirmed" for one in p["found"]))
    assert confirmed > (150 if release is None else 40)
    assert sum(1 for p in python if any(one[1] == "candidate" for one in p["found"])) > 5
    assert sum(1 for p in python if p["ruled"]) >= (1 if release is None else 100)


def test_a_withheld_base_model_is_read_alike_in_both(real_index):
    """The real index's `withhold` for the library's own classes (remote-model-without-generation-mixin): a
    base model transformers defines is a candidate, a vendored class of the same shape is not held, in both."""
    from errorkb.lookup import read_index

    line = '  File "/me/run.py", line 9, in <module>\n    out = model.language_model.generate(x)\n'
    names = ["LlamaModel", "transformers.GemmaModel", "GPT2InferenceModel", "InternLM2ForCausalLM"]
    pastes = [f"{line}AttributeError: '{name}' object has no attribute 'generate'" for name in names]
    python = full_python([], pastes, lookup=read_index(real_index).lookup())
    assert python == js_on_index(real_index, pastes)
    grades = [[one[1] for one in p["found"] if one[0] == "remote-model-without-generation-mixin"] for p in python]
    assert grades == [["candidate"], ["candidate"], ["confirmed"], ["confirmed"]]


def test_a_backend_s_raise_beneath_the_library_s_function_is_read_alike_in_both(real_index):
    """The index ships the profile's backends beside the runtime (`runtime.packages`): the page looks
    through optimum-quanto's raising frame to transformers' `_quantize` as the CLI does."""
    from errorkb.lookup import read_index

    site = "/venv/lib/python3.11/site-packages"
    paste = ("Traceback (most recent call last):\n"
             f'  File "{site}/transformers/cache_utils.py", line 816, in _quantize\n'
             "    qtensor = quantize_weight(tensor, self.qtype, axis, self.q_group_size)\n"
             f'  File "{site}/optimum/quanto/tensor/weights/quantization.py", line 72, in quantize_weight\n'
             '    raise ValueError("shift must be specified for qtypes lower than 8-bit")\n'
             "ValueError: shift must be specified for qtypes lower than 8-bit\n")
    assert "optimum/quanto" in real_index["runtime"]["packages"]
    python = full_python([], [paste], lookup=read_index(real_index).lookup())
    assert python == js_on_index(real_index, [paste])
    assert [one[:2] for one in python[0]["found"]] == [["quanto-quantize-weight-shift-required", "confirmed"]]


# Forms of a paste the reading handles since the second pass of issue 19: an exception named inside a
# tool's line, a class name glued to a title's words, a fixed wording inside a longer name, a terminal's
# wrap inside a word, a placeholder that is part of a class name.
READING_FORMS = [
    "❌ TTS Text generation failed: Node processing failed: AttributeError: property of 'DynamicCache' object has "
    "no setter",
    "RuntimeError: wrapped: AttributeError: 'DynamicCache' object has no attribute 'get_max_length'\nmore text",
    "TinyChart推理报错TinyChartPhiForCausalLM.forward() got an unexpected keyword argument 'cache_position'",
    "TypeError: MyLlamaModel.forward() got an unexpected keyword argument 'cache_position'",
    "Error occurred when executing ChatTTS_: LlamaModel.forward() got an unexpected keyword argument 'cache_position'",
    '/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:175: operator(): block: \n[0,0,0], thread: [66,0,0] '
    'Assertion `idx >= 0 && idx < self_dim_size && "i\nndex_copy_(): index out of bounds"` failed.\n',
    "AttributeError: 'LlamaAttention' object has no attribute 'num_heads'",
    "AttributeError: 'MyAttention' object has no attribute 'num_heads'",
    "AttributeError: 'Qwen2ForCausalLM' object has no attribute '_supports_cache_class'",
    "AttributeError: 'tuple' object has no attribute '_supports_cache_class'",
    # A release shown by the installed distribution's name (pip's dist-info, an egg, a conda build), and
    # one of another distribution whose name ends with the library's.
    "Location: /env/lib/python3.11/site-packages/transformers-4.47.1.dist-info\n"
    "AttributeError: 'MyModel' object has no attribute '_supports_cache_class'",
    'File "/env/site-packages/transformers-4.55.0-py3.10.egg/transformers/generation/utils.py", line 3, in generate\n'
    "AttributeError: 'MyModel' object has no attribute '_supports_cache_class'",
    "sentence-transformers-4.47.1.dist-info\nAttributeError: 'MyModel' object has no attribute '_supports_cache_class'",
]


def _same_in_page_cli_and_hook(index_data: dict, pastes: list[str], release: str | None) -> list:
    """Each paste's full answer, asserted equal from the page's JS, the Python lookup (the CLI's) and
    the hook (entries and grades), with the same counted work in JS and Python (part of the full answer:
    one Node run and one Python pass, not a second of each for the work); the Python answers. A release
    given is the CLI's and the page's stated one and the hook's installed one: the hook is held to the
    Python lookup on an installed release (a stated one a raising frame contradicts ties nothing; the
    installed one is what ran, round thirteen)."""
    from errorkb.hook.explain import answer_text
    from errorkb.lookup import read_index
    from errorkb.lookup._release import INSTALLED

    index = read_index(index_data)
    python = full_python([], pastes, release, lookup=index.lookup(), work=True)
    js = js_on_index(index_data, pastes, release, work=True)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste[:300]
    hook = [answer_text(text, index, release) for text in pastes]
    installed = python if release is None else \
        full_python([], pastes, release, lookup=index.lookup(), source=INSTALLED)
    assert [[(m.known.id, m.grade.value) for m in answer.matches] for answer in hook] == \
        [[(one[0], one[1]) for one in p["found"]] for p in installed]
    assert all(p["work"] > 0 for p in python if p["kept"])  # counted, and compared with the JS's above
    return python


@pytest.mark.parametrize("release", [None, "4.45.0", "4.56.0"])
def test_the_reading_forms_get_the_same_answers_and_work_in_the_page_the_cli_and_the_hook(real_index, release):
    python = _same_in_page_cli_and_hook(real_index, READING_FORMS, release)
    if release is None:
        assert python[0]["found"][0][:2] == ["dynamic-cache-compat-property-no-setter", "confirmed"]
        assert python[2]["found"][0][:3] == ["forward-unexpected-cache-position", "confirmed",
                                             {"function": "TinyChartPhiForCausalLM.forward"}]
        assert [one[0] for one in python[3]["found"]] == ["forward-unexpected-cache-position"]
        assert python[5]["found"][0][:2] == ["static-cache-overflow", "candidate"]
        assert python[7]["found"][0][:2] == ["phi3-attention-num-heads-removed", "candidate"]
        assert python[9]["found"] == []
        # The release read from the distribution's name rules out the entry whose wording it never prints.
        assert [one[:2] for one in python[-3]["found"]] == [["supports-cache-class-non-pretrained-model", "candidate"]]
        assert python[-2]["found"] == []
        assert sorted(one[0] for one in python[-1]["found"]) == ["supports-cache-class-non-pretrained-model",
                                                                "supports-cache-class-removed"]


# -- one traceback in the shapes other tools print it (tests/site/test_lookup_shapes.py) ------------


@functools.cache
def shaped_pastes(every: bool = True) -> tuple[str, ...]:
    """Every entry's verified before (its captured traceback) in every shape of tests/site/pastes.py (`every`;
    else each in two shapes, in turn), the shapes' own reference traceback in every shape, and lines that
    only look like frames. Made once for each `every` (a tuple: no test changes it)."""
    from errorkb.site.hookindex import diagnosis_cases
    from tests.site.pastes import NOTEBOOK_LINKS, SHAPES, shaped
    from tests.site.test_lookup_shapes import TRACEBACK

    shapes = sorted(SHAPES)
    cases = [case.text for case in diagnosis_cases(load_project(ROOT))]
    pastes = [shaped(TRACEBACK, shape) for shape in shapes]
    pastes += [shaped(text, shape) for index, text in enumerate(cases)
               for shape in (shapes if every else (shapes[index % len(shapes)], shapes[(index + 1) % len(shapes)]))]
    return tuple(pastes) + (
        "x.py:12: FutureWarning: old\nx.py:12:5: E501 long\nthe setup.py in the repo\n",
        "File \"a.py\", line 3, in f\nValueError: no source line\n", "/x/y.py in <module>\n--> 3 x()\n",
        "_ _ _\n\n    def g():\n>       h()\n\n/x/y.py:9: \n_ _\n>   z()\nE   KeyError: 'k'\n\n/x/z.py:2: KeyError\n",
        # releases pip and conda print (tests/site/test_lookup_diagnosis.py)
        "Name: transformers\nVersion: 4.45.0\nAttributeError: 'Mine' object has no attribute '_supports_cache_class'",
        "Successfully installed transformers-4.56.0\nAttributeError: 'Mine' object has no attribute '_supports_cache_class'",
        "- transformers=4.45.0\nAttributeError: 'Mine' object has no attribute '_supports_cache_class'") + tuple(paste for paste, _ in NOTEBOOK_LINKS)


def test_the_shapes_of_a_traceback_are_read_alike_in_both():
    from errorkb.lookup import frames, normalize

    pastes = list(shaped_pastes())
    js = run_js("console.log(JSON.stringify(data.map((text) => L.frames(L.normalize(text, R), R)"
                ".map((f) => [f.path, f.line, f.function, f.code, f.at]))));", pastes)
    python = [[list(frame) for frame in frames(normalize(text))] for text in pastes]
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste[:300]
    assert sum(len(one) for one in python) > 2 * len(pastes)


@pytest.mark.parametrize("release", [None, "5.15.1"])
def test_the_shapes_of_a_traceback_get_the_same_answers_and_work_in_the_page_the_cli_and_the_hook(real_index,
                                                                                                  release):
    pastes = list(shaped_pastes(every=False))
    python = _same_in_page_cli_and_hook(real_index, pastes, release)
    assert sum(1 for p in python if any(one[1] == "confirmed" for one in p["found"])) > len(pastes) // 2


def test_an_entry_with_other_causes_of_its_words_gets_the_same_answers_in_both():
    """`diagnosis.other_causes`: words alone a candidate naming the other cause; a release outside every
    other cause's range confirms; a release inside one leaves it to the traceback; an other cause's
    `messages` concern only the wording whose text the match fills."""
    words = "'Box' object has no attribute 'frobnicate'"
    entries = [{"id": "frob", "title": "t", "exception": "AttributeError", "message": words, "raises_in": ">=2.0",
                "kind": "removed",
                "wordings": [{"message": words, "words": True}, {"message": "'{cls}' object has no attribute "
                             "'frobnicate'", "releases": ">=2.0", "words": True, "main": False}],
                "diagnosis": {"code": ["frobnicate"],
                              "other_causes": [{"releases": "<2.0", "note": "a compiled Box.", "message": words,
                                                "messages": [words, "{x"]},
                                               {"releases": "<1.0 || ==2.5", "note": "an old one"},
                                               {"note": "no range: not read"}]}}]
    pastes = [f"AttributeError: {words}", "AttributeError: 'MyBox' object has no attribute 'frobnicate'",
              f"pkg==2.1\nAttributeError: {words}",
              f'Traceback (most recent call last):\n  File "m.py", line 3, in f\n    b.frobnicate()\nAttributeError: {words}']
    for release in (None, "2.1", "2.5", "1.5"):
        python, js = full_python(entries, pastes, release), full_js(entries, pastes, release)
        assert python == js, release
    def graded(release):
        return [[one[1] for one in result["found"]] for result in full_python(entries, pastes, release)]

    assert graded(None) == [["candidate"], ["candidate"], ["candidate"], ["confirmed"]]
    # The other causes' hints ask which release: the generic question is not asked beside them, in either.
    for answers in (full_python(entries, pastes[:1]), full_js(entries, pastes[:1])):
        hints = answers[0]["found"][0][9]
        asked = [hint for hint in hints if hint.startswith("which the library release?") or "release (this" in hint]
        assert len(asked) == 2 and all(hint.startswith("another cause prints") for hint in asked), hints
    assert graded("2.1") == [["confirmed"]] * 4
    assert graded("2.5") == [["candidate"], ["candidate"], ["candidate"], ["confirmed"]]
    assert graded("1.5") == [[], [], [], []]  # outside the wordings' own range: ruled out


def test_an_other_cause_through_the_same_frames_gets_the_same_answers_in_both():
    """`same_frames`: a frame or a failing line ties a traceback to neither cause; only the release does."""
    words = "'tuple' object has no attribute 'length'"
    entries = [{"id": "tup", "title": "t", "exception": "AttributeError", "message": words, "raises_in": ">=2.0",
                "wordings": [{"message": words, "words": True}],
                "diagnosis": {"frames": [{"file": "pkg/models/*/model_*.py", "function": "forward"}],
                              "code": ["length"],
                              "other_causes": [{"releases": "<2.0", "note": "a prefix with the cache off.",
                                                "same_frames": True}]}}]
    framed = ('Traceback (most recent call last):\n  File "/v/site-packages/pkg/models/a/model_a.py", line 9, in '
              f'forward\n    n = past.length()\nAttributeError: {words}')
    pastes = [f"AttributeError: {words}", framed]
    for release in (None, "2.1", "1.5"):
        python, js = full_python(entries, pastes, release), full_js(entries, pastes, release)
        assert python == js, release
    grades = [[one[1] for one in result["found"]] for result in full_python(entries, pastes)]
    assert grades == [["candidate"], ["candidate"]]
    hints = full_python(entries, pastes)[1]["found"][0][9]
    assert any("the traceback does not" in hint for hint in hints) and not any("paste the whole" in h for h in hints)
    assert [[one[1] for one in result["found"]] for result in full_python(entries, pastes, "2.1")] == \
        [["confirmed"], ["confirmed"]]


def test_a_paste_of_a_wordings_end_alone_gets_the_same_answers_and_work_in_both():
    """A message that is only the end of a wording from one of its clauses (corpus h125) is a candidate
    in both, with the same hint and the same counted work; too short an end, one cut inside a word or
    not at a clause, and one inside another message are not offered in either; the whole wording still
    confirms."""
    jit = ("Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and strings are also "
           "accepted, but their usage is not recommended. Here, received an input of unsupported type: {typename}")
    entries = [{"id": "jit", "title": "t", "exception": "RuntimeError", "message": jit, "raises_in": ">=2.0",
                "recognised_by": ["unsupported type: DynamicCache"]},
               {"id": "gone", "title": "t", "exception": "AttributeError", "raises_in": ">=3.0",
                "message": "'DynamicCache' object has no attribute 'get_max_length'"},
               {"id": "multi", "title": "t", "exception": "ValueError", "message": "The cache has the wrong size. "
                "The model wants {a} rows here, not {b}."}]
    pastes = ["received an input of unsupported type: DynamicCache",
              "RuntimeError: received an input of unsupported type: EncoderDecoderCache",
              "of unsupported type: DynamicCache", "ved an input of unsupported type: DynamicCache",
              "an input of unsupported type: DynamicCache",  # a word, not a clause's first
              "ValueError: received an input of unsupported type: DynamicCache",
              "RuntimeError: CUDA error: received an input of unsupported type: DynamicCache",
              "RuntimeError: " + jit.replace("{typename}", "DynamicCache"),
              "AttributeError: object has no attribute 'get_max_length'",  # no clause: no end offered
              "ValueError: The model wants 3 rows here, not 4.",
              "ValueError: model wants 3 rows here, not 4.",
              "ValueError: The model wants 3 rows there, not 4."]
    for release in (None, "2.1", "1.0", "3.5"):
        python = full_python(entries, pastes, release, work=True)
        js = run_js("const lookup = new L.Lookup(data.entries, RULES.cap, { rules: RULES });" + FULL_JS,
                    {"entries": entries, "pastes": pastes, "release": release, "work": True})
        for paste, p, j in zip(pastes, python, js):
            assert p == j, (release, paste)
    found = [[(one[0], one[1]) for one in result["found"]] for result in full_python(entries, pastes)]
    assert found == [[("jit", "candidate")], [("jit", "candidate")], [], [], [], [], [], [("jit", "confirmed")],
                     [], [("multi", "candidate")], [], []]
    hint = full_python(entries, pastes[:1])[0]["found"][0][9][0]
    assert hint.startswith("the paste shows only the end of the message") and "`Only tuples" in hint


def test_a_raise_in_the_runtime_is_not_ruled_out_by_its_callers_line_in_both():
    """torch's `Module.__getattr__` raises `'X' object has no attribute 'generate'` for any caller: an entry the
    runtime raises (`diagnosis.runtime`) stays possible under a failing line it does not recognise (part ten's
    h205-h207), and is confirmed by one it does; an entry without it is ruled out by the same traceback."""
    generate = "'{cls}' object has no attribute 'generate'"
    wording = [{"message": generate, "exception": "AttributeError", "words": False}]
    entries = [{"id": "runtime", "title": "runtime", "exception": "AttributeError", "message": generate,
                "wordings": wording, "recognised_by": ["language_model.generate("], "diagnosis": {"runtime": True}},
               {"id": "library", "title": "library", "exception": "AttributeError", "message": generate,
                "wordings": wording, "recognised_by": ["language_model.generate("]}]
    getattr_frame = ('  File "/venv/site-packages/torch/nn/modules/module.py", line 1962, in __getattr__\n'
                     "    raise AttributeError(\n")
    message = "AttributeError: 'Emu3MoE' object has no attribute 'generate'"
    pastes = [message,
              '  File "infer.py", line 359, in <module>\n    outputs = model.generate(\n' + getattr_frame + message,
              '  File "m.py", line 89, in generate\n    return self.language_model.generate(\n' + getattr_frame + message]
    python, js = full_python(entries, pastes), full_js(entries, pastes)
    assert python == js
    graded = [[(one[0], one[1]) for one in result["found"]] for result in python]
    assert graded[0] == [("library", "candidate"), ("runtime", "candidate")]
    assert graded[1] == [("runtime", "candidate")] and [one[0] for one in python[1]["ruled"]] == ["library"]
    assert graded[2] == [("library", "confirmed"), ("runtime", "confirmed")]


# Part eleven (h235, h236): a message quoted as Markdown code, or followed by a full stop, a bracket or prose.
QUOTED_ENDS = [
    "`cannot import name 'HybridCache' from 'transformers'`",
    "`Failed to import diffusers.loaders.peft because of the following error (look up to see its traceback): "
    "cannot import name 'HybridCache' from 'transformers'`",
    "`ImportError: cannot import name 'OffloadedCache' from 'transformers.cache_utils'`",
    "cannot import name 'SinkCache' from 'transformers'.",
    "(cannot import name 'HybridCache' from 'transformers')",
    "the node said `cannot import name 'HybridCache' from 'transformers'` when it loaded",
    "`cannot import name 'Cache' from 'aiocache'`", "cannot import name 'Cache' from 'aiocache",
    "type object 'DynamicCache' has no attribute 'from_legacy_c",
    "`type object 'DynamicCache' has no attribute 'from_legacy_cache'`",
]


def test_a_quoted_placeholder_where_a_cut_text_stops_is_read_alike_in_both():
    """`MessageTemplate.prefix`: a quoted placeholder's value ends at its closing quote in both twins, with the
    same counted work; an unquoted one still takes the rest of the line."""
    from errorkb.core.message import Meter

    templates = ["cannot import name 'HybridCache' from '{module}' ({path})",
                 "type object '{cls}' has no attribute 'from_legacy_cache'",
                 "the model says \"{what}\" right now", "Make sure that x is implemented in {module} to enable beam search for {cls}"]
    texts = [*QUOTED_ENDS, "the model says \"hi\". ok", "the model says \"hi", "Make sure that x is implemented in a.b'. then"]
    cases = [[source, text] for source in templates for text in texts]

    def python(source, text):
        meter = Meter()
        return [MessageTemplate.parse(source).prefix(text, meter), meter.work]

    js = run_js("""console.log(JSON.stringify(data.map(([source, text]) => {
        const meter = new L.Meter(); return [new L.MessageTemplate(source).prefix(text, meter), meter.work]; })));""",
                cases)
    assert [python(*case) for case in cases] == js
    assert python(templates[0], QUOTED_ENDS[0])[0] == {"module": "transformers"}
    assert python(templates[2], "the model says \"hi\". ok")[0] == {"what": "hi"}
    assert python(templates[3], texts[-1])[0] == {"module": "a.b'. then"}


@pytest.mark.parametrize("release", [None, "5.2.0"])
def test_a_message_quoted_where_its_wording_is_cut_gets_the_same_answers_in_the_page_the_cli_and_the_hook(
        real_index, release):
    python = _same_in_page_cli_and_hook(real_index, QUOTED_ENDS, release)
    confirmed = [[one[0] for one in p["found"] if one[1] == "confirmed"] for p in python]
    assert confirmed[:2] == [["import-hybridcache-removed"]] * 2
    if release is None:
        assert confirmed[2:6] == [["import-offloadedcache-removed"], ["import-sinkcache-removed"],
                                  ["import-hybridcache-removed"], ["import-hybridcache-removed"]]
        assert confirmed[6:8] == [[], []]

"""The lookup rules (errorkb.lookup) and `errorkb lookup` on the command line."""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import pytest

from errorkb.lookup import Known, Lookup, candidates
from tests.site.sitekb import MESSAGE, ROOT, TRACEBACK

HEAD_DIM = Known("head-dim-list-length", "head_dim list", "ValueError",
                 "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                 "{len(self.layers)} layers", "errors/transformers/head-dim-list-length/")
NUM_HEADS = Known("num-heads-list-length", "num_heads list", "ValueError",
                  "`num_head` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                  "{len(self.layers)} layers")
GENERIC = Known("generic", "anything with layers", "ValueError", "{what}, but the Cache currently has {n} layers")
OOM = Known("oom", "out of memory", "torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate {size}")
KB = Lookup([HEAD_DIM, NUM_HEADS, GENERIC, OOM])




def ids(text: str) -> list[str]:
    return [match.known.id for match in KB.find(text)]


@pytest.mark.parametrize("text", [MESSAGE, f"ValueError: {MESSAGE}", TRACEBACK, f"  \r\n{MESSAGE}\r\n",
                                  f"E       ValueError: {MESSAGE}", f"builtins.ValueError: {MESSAGE}"])
def test_every_form_of_the_message_finds_its_entry_first(text):
    found = KB.find(text)
    assert found and found[0].known.id == "head-dim-list-length"
    assert found[0].values == {"len(num_heads)": "12", "len(self.layers)": "28"}
    assert found[0].exact


def test_a_specific_template_outranks_a_generic_one_that_also_matches():
    assert ids(MESSAGE) == ["head-dim-list-length", "generic"]


def test_the_sibling_message_finds_the_sibling():
    assert ids(MESSAGE.replace("`head_dim`", "`num_head`"))[0] == "num-heads-list-length"


def test_a_different_exception_name_is_not_an_exact_match():
    found = {match.known.id: match for match in KB.find(f"RuntimeError: {MESSAGE}")}
    assert found["head-dim-list-length"].exact is False and found["head-dim-list-length"].exception is None


def test_dotted_exception_names_agree_on_the_class_name():
    found = KB.find("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert found[0].known.id == "oom" and found[0].values == {"size": "2.00 GiB"}


def test_a_message_inside_other_text_is_found_but_ranks_as_loose():
    found = KB.find(f"my log said {MESSAGE} and then it stopped")
    assert found[0].known.id == "head-dim-list-length" and not found[0].exact


def test_chained_tracebacks_try_the_last_exception_first():
    text = f"{TRACEBACK}\nDuring handling of the above exception, another exception occurred:\n\n" \
           "Traceback (most recent call last):\n  File \"x.py\", line 2\nKeyError: 'port'\n"
    assert candidates(text)[0].message == "'port'"
    assert ids(text)[0] == "head-dim-list-length"


def test_multi_line_messages_are_candidates_too():
    kb = Lookup([Known("two-lines", "t", "ValueError", "first line {a}\nsecond line {b}")])
    found = kb.find("Traceback (most recent call last):\n  File \"x\"\nValueError: first line 1\nsecond line 2\n")
    assert found and found[0].exact and found[0].values == {"a": "1", "b": "2"}


@pytest.mark.parametrize("text", ["", "   ", "completely unrelated", "ValueError: something else entirely"])
def test_nothing_matches_unrelated_text(text):
    assert Lookup([HEAD_DIM, NUM_HEADS, OOM]).find(text) == []


# -- command line -----------------------------------------------------------------------------


def run_cli(*args, stdin: str | None = None, cwd=None):
    return subprocess.run([sys.executable, "-m", "errorkb.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_cli_lookup_finds_the_entry_and_exits_0(project):
    result = run_cli("--root", str(project), "lookup", f"ValueError: {MESSAGE}")
    assert result.returncode == 0, result.stderr
    assert "head-dim-list-length" in result.stdout and "{len(self.layers)} = 28" in result.stdout


def test_cli_lookup_reads_a_traceback_from_stdin_and_prints_json(project):
    result = run_cli("--root", str(project), "lookup", "--json", stdin=TRACEBACK)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["confirmed"][0]["id"] == "head-dim-list-length" and answer["confirmed"][0]["grade"] == "confirmed"
    assert answer["confirmed"][0]["evidence"][0]["kind"] == "words" and answer["candidates"] == []


def test_cli_lookup_exits_1_when_nothing_matches(project):
    result = run_cli("--root", str(project), "lookup", "KeyError: 'port'")
    assert result.returncode == 1 and "no entry matches" in result.stderr


def test_cli_lookup_against_a_published_index(project, tmp_path):
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"entries": [{"id": "x", "title": "X", "exception": "ValueError",
                                              "message": "bad {thing} in the cache", "url": "x/"}]}))
    result = run_cli("--root", str(project), "lookup", "--index", str(index), "ValueError: bad spoon in the cache")
    assert result.returncode == 0 and result.stdout.startswith("x")


def test_cli_lookup_imports_no_torch(project):
    code = ("import sys; from errorkb.cli import main; rc = main(['--root', sys.argv[1], 'lookup', sys.argv[2]]); "
            "assert 'torch' not in sys.modules, 'torch imported'; sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, str(project), MESSAGE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_template_ending_in_a_space_still_matches_a_stripped_paste():
    kb = Lookup([Known("quanto", "q", "ImportError", "You need optimum-quanto {v} to use `X`. ")])
    found = kb.find("ImportError: You need optimum-quanto 0.2.5 to use `X`. \n")
    assert found and found[0].exact and found[0].values == {"v": "0.2.5"}


# -- real pastes: what terminals and tools add (issue 11, item 4) -------------------------------

ATTR = Known("get-max-length", "get_max_length removed", "AttributeError",
             "'DynamicCache' object has no attribute 'get_max_length'")
IMPORT = Known("hybrid-cache", "HybridCache removed", "ImportError", "cannot import name 'HybridCache' from 'transformers'")
ACCEL = Known("device-assert", "device-side assert", "torch.AcceleratorError",
              "CUDA error: device-side assert triggered")
REAL = Lookup([HEAD_DIM, NUM_HEADS, OOM, ATTR, IMPORT, ACCEL])


def first(text: str, kb: Lookup = REAL):
    found = kb.find(text)
    assert found, text
    return found[0]


def prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


@pytest.mark.parametrize("prefix", ["[rank0]: ", "[rank1]:", "E   ", "E       ", "[default0]:",
                                    "2025-01-01 12:00:00,123 - ERROR - ", "2025-01-01 12:00:00,123 - __main__ - ERROR - ",
                                    "[2025-01-01 12:00:00] ERROR: ", "2025-01-01T12:00:00.123456Z ",
                                    "trainer-1  | ", "web | 2025-01-01 12:00:00,123 - ERROR - "])
def test_a_prefix_on_every_line_is_read_through(prefix):
    match = first(prefixed(prefix, TRACEBACK))
    assert match.known.id == "head-dim-list-length" and match.exact and match.exception == "ValueError"
    assert match.values == {"len(num_heads)": "12", "len(self.layers)": "28"}


def test_a_multi_line_message_behind_prefixes_matches_whole():
    kb = Lookup([Known("two-lines", "t", "ValueError", "first line {a} of the cache\nsecond line {b} of the cache")])
    text = prefixed("[rank3]: ", "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                 "ValueError: first line 1 of the cache\nsecond line 2 of the cache")
    match = first(text, kb)
    assert match.exact and match.values == {"a": "1", "b": "2"}


@pytest.mark.parametrize("suffix", [". Did you mean: 'get_seq_length'?", ". Did you mean:", ". Did you mean: 'x'",
                                    ". Did you mean: 'get_seq_length'? Or did you forget to import 'x'?"])
def test_pythons_did_you_mean_hint_is_not_part_of_the_message(suffix):
    match = first(f"AttributeError: 'DynamicCache' object has no attribute 'get_max_length'{suffix}")
    assert match.known.id == "get-max-length" and match.exact


def test_ansi_colours_are_read_through():
    coloured = (f"\x1b[1;31mTraceback (most recent call last):\x1b[0m\n  File \x1b[35m\"x.py\"\x1b[0m, line 2\n"
                f"\x1b[1;35mValueError\x1b[0m: \x1b[35m{MESSAGE}\x1b[0m\n\x1b]8;;file:///x\x1b\\link\x1b]8;;\x1b\\")
    match = first(coloured)
    assert match.known.id == "head-dim-list-length" and match.exact and match.exception == "ValueError"


@pytest.mark.parametrize("text", [f"\ufeff{MESSAGE}", f"\ufeffValueError: {MESSAGE}\r\n",
                                  TRACEBACK.replace("\n", "\r\n"), TRACEBACK.replace("\n", "\r"),
                                  f"ValueError:\u00a0{MESSAGE}"])
def test_byte_order_marks_and_windows_line_endings_are_read_through(text):
    match = first(text)
    assert match.known.id == "head-dim-list-length" and match.exact


CHAINED = """Traceback (most recent call last):
  File "a.py", line 3, in <module>
    from transformers import HybridCache
ImportError: cannot import name 'HybridCache' from 'transformers'

{marker}

Traceback (most recent call last):
  File "a.py", line 5, in <module>
    cache.get_max_length()
AttributeError: 'DynamicCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?
"""


@pytest.mark.parametrize("marker", ["During handling of the above exception, another exception occurred:",
                                    "The above exception was the direct cause of the following exception:"])
def test_every_exception_of_a_chain_is_a_candidate_and_the_last_ranks_first(marker):
    found = REAL.find(CHAINED.format(marker=marker))
    assert [m.known.id for m in found] == ["get-max-length", "hybrid-cache"]
    assert all(m.exact for m in found) and [m.chain for m in found] == [0, 1]


@pytest.mark.parametrize("name", ["torch.AcceleratorError", "AcceleratorError", "torch.cuda.AcceleratorError"])
def test_dotted_exception_names(name):
    match = first(f"{name}: CUDA error: device-side assert triggered")
    assert match.known.id == "device-assert" and match.exact and match.exception == name


def test_builtins_prefixed_names():
    match = first("builtins.AttributeError: 'DynamicCache' object has no attribute 'get_max_length'")
    assert match.known.id == "get-max-length" and match.exact


# -- wordings, degenerate templates, releases (issue 11, items 3–4) -----------------------------


def test_another_wording_matches_and_says_which():
    known = Known.from_index({
        "id": "seen-tokens", "title": "seen_tokens", "exception": "AttributeError",
        "message": "'DynamicCache' object has no attribute 'seen_tokens'",
        "wordings": [{"message": "'DynamicCache' object has no attribute 'seen_tokens'", "exception": None},
                     {"message": "'{cls}' object has no attribute 'seen_tokens'", "exception": None,
                      "releases": "<4.40", "note": "older releases named the subclass"},
                     {"message": "The `seen_tokens` attribute is deprecated and will be removed in {version}",
                      "exception": "FutureWarning", "releases": ">=4.41,<4.49"}]})
    kb = Lookup([known])
    assert first("AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'", kb).wording == 0
    other = first("AttributeError: 'SinkCache' object has no attribute 'seen_tokens'", kb)
    assert other.wording == 1 and other.matched.releases == "<4.40" and other.exact
    warned = first("FutureWarning: The `seen_tokens` attribute is deprecated and will be removed in v4.49", kb)
    assert warned.wording == 2 and warned.exception == "FutureWarning" and warned.values == {"version": "v4.49"}


@pytest.mark.parametrize("message", ["'{cls}' object has no attribute '{name}'", "{msg}", " ", "{a}: {b}",
                                     "cannot import name '{name}' from '{module}'"])
def test_a_degenerate_template_never_matches(message):
    kb = Lookup([Known("claims-all", "everything", "AttributeError", message), ATTR])
    for text in ["AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", "anything at all",
                 "AttributeError: 'x' object has no attribute 'y'"]:
        assert "claims-all" not in [m.known.id for m in kb.find(text)]
    assert [one for one, _ in kb.ignored] == ["claims-all"]


REMOVED = Known.from_index({
    "id": "get-max-length", "title": "get_max_length removed", "exception": "AttributeError",
    "message": "'DynamicCache' object has no attribute 'get_max_length'",
    "raises_in": ">=4.49", "last_good": "4.48.3", "replacement": "`get_max_cache_shape()`",
    "replacement_since": "4.45.0",
    "lines": {"path": "transformers/generation/utils.py", "by_release": {"4.48.3": 1590, "4.49.0": 1602,
                                                                           "4.50.0": 1602, "4.51.0": 1650}}})
FRAMED = """Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/transformers/generation/utils.py", line {line}, in generate
    past_length = cache.get_max_length()
AttributeError: 'DynamicCache' object has no attribute 'get_max_length'
"""


def test_a_frame_in_the_packages_file_narrows_the_release_and_gives_the_verdict():
    match = first(FRAMED.format(line=1602), Lookup([REMOVED]))
    assert match.release.releases == ("4.49.0", "4.50.0") and match.release.given is False
    assert match.release.raises is True
    assert match.release.advice == "Use `get_max_cache_shape()` (available since 4.45.0)."


def test_windows_paths_narrow_the_release_too():
    text = FRAMED.format(line=1650).replace("/venv/lib/python3.11/site-packages/transformers/generation/utils.py",
                                            "C:\\py\\Lib\\site-packages\\transformers\\generation\\utils.py")
    assert first(text, Lookup([REMOVED])).release.releases == ("4.51.0",)


def test_a_release_that_does_not_raise_it_rules_the_entry_out_and_says_why():
    answer = Lookup([REMOVED]).answer(FRAMED.format(line=1590))
    assert answer.matches == [] and [r.match.known.id for r in answer.ruled_out] == ["get-max-length"]
    ruled = answer.ruled_out[0]
    assert ruled.match.release.releases == ("4.48.3",) and ruled.match.release.raises is False
    assert ">=4.49" in ruled.reason and ruled.reason == ruled.match.release.advice


def test_a_given_release_overrides_the_frames_and_advises_an_upgrade_when_the_replacement_is_newer():
    later = Known.from_index({**{k: v for k, v in REMOVED.extra.items()}, "id": "x", "title": "x",
                              "exception": "AttributeError", "message": REMOVED.message, "replacement_since": "4.60"})
    match = first(FRAMED.format(line=1602), Lookup([later]))
    assert match.release is None or match.release.releases == ("4.49.0", "4.50.0")
    given = Lookup([later]).find(FRAMED.format(line=1602), release="4.52.1")[0].release
    assert given.releases == ("4.52.1",) and given.given and given.raises is True
    assert given.advice == ("Upgrade to 4.60 or later and use `get_max_cache_shape()`, or downgrade to 4.48.3, "
                            "the last release where the old code ran.")


def test_no_frame_and_no_release_gives_no_verdict():
    assert first("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'",
                 Lookup([REMOVED])).release is None


@pytest.mark.parametrize("specifier, release, expected", [
    (">=4.49", "4.49.0", True), (">=4.49,<5.0", "5.0.0", False), ("~=4.49", "4.60.1", True),
    ("~=4.49.1", "4.50.0", False), ("==4.49.*", "4.49.3", True), ("!=4.49.*", "4.49.3", False),
    ("==4.49", "4.49.0", True), ("<4.49", "4.48.99", True), ("", "1.0", True), ("nonsense", "1.0", None),
    (">=4.49", "4.49.0rc1", None),
])
def test_release_specifiers(specifier, release, expected):
    from errorkb.lookup import contains

    assert contains(specifier, release) is expected


def test_every_wrapped_form_of_the_real_pastes_lands_on_its_entry():
    """The pastes the parity test runs in both languages: each base, under each prefix and
    transformation, lands exactly on its entry (or on nothing, for the errors not documented)."""
    from tests.site.pastes import BASES, ENTRIES, PASTES, PREFIXES

    expected = ["head-dim-list-length"] * 3 + ["get-max-length"] * 2 + ["device-assert", "get-max-length", None, None]
    kb = Lookup(Known.from_index(item) for item in ENTRIES)
    variants = len(PREFIXES) + 6
    assert len(expected) == len(BASES)
    for index, wanted in enumerate(expected):
        own = PASTES[index * len(PREFIXES):(index + 1) * len(PREFIXES)]
        own += PASTES[len(BASES) * len(PREFIXES) + index * 6:len(BASES) * len(PREFIXES) + (index + 1) * 6]
        assert len(own) == variants
        for text in own:
            found = kb.find(text)
            if wanted is None:
                assert found == [], text
            else:
                assert found and found[0].known.id == wanted and found[0].exact, text


def test_cli_lookup_gives_the_release_verdict_and_the_wording(tmp_path, project):
    from tests.site.pastes import ENTRIES

    index = tmp_path / "index.json"
    index.write_text(json.dumps({"library": {"name": "transformers"}, "entries": ENTRIES}))
    paste = FRAMED.format(line=1602).replace("'DynamicCache'", "'MyCache'")
    result = run_cli("--root", str(project), "lookup", "--index", str(index), stdin=paste)
    assert result.returncode == 0, result.stderr
    assert "matched another wording (transformers >=4.49): '{cls}' object has no attribute" in result.stdout
    assert ("transformers 4.49.0 – 4.50.0 (from the traceback's frames): raises it. Use `get_max_cache_shape()` "
            "(available since 4.45.0).") in result.stdout
    given = run_cli("--root", str(project), "lookup", "--index", str(index), "--release", "4.49.0", "--json", paste)
    match = json.loads(given.stdout)["confirmed"][0]
    assert match["wording"]["index"] == 1 and match["release"]["source"] == "stated"
    assert match["release"]["raises"] is True and match["release"]["releases"] == ["4.49.0"]
    assert match["release"]["range"] == ">=4.49"  # the matched wording's range
    older = run_cli("--root", str(project), "lookup", "--index", str(index), "--release", "4.48.3", "--json", paste)
    assert older.returncode == 1 and json.loads(older.stdout)["confirmed"] == []
    assert [r["id"] for r in json.loads(older.stdout)["ruled_out"]] == ["get-max-length"]


def test_cli_lookup_says_when_it_cut_a_long_paste(project):
    result = run_cli("--root", str(project), "lookup", stdin="x" * 100_000 + "\n" + TRACEBACK)
    assert result.returncode == 0 and "cut from the start" in result.stderr


def test_entries_with_also_seen_as_and_releases_are_read_from_the_model():
    """`also_seen_as` and `releases` of the entry model reach the lookup; an entry without them
    still works; the raise lines refer to the file as installed, as tracebacks print it."""
    from errorkb.core.entry import Entry
    from errorkb.core.project import load_project
    from errorkb.lookup.build import known_from_entries

    common = {"library": "huggingface/transformers", "exception": "AttributeError", "kind": "removed",
              "api": {"owner": "transformers.DynamicCache", "name": "get_max_length"},
              "message": "'DynamicCache' object has no attribute 'get_max_length'", "meaning": "m", "trigger": "t",
              "situations": ["s"], "solutions": [{"title": "s"}], "prevention": ["p"],
              "guards": [{"title": "g", "strategy": "fallback", "file": "guard.py", "expect": {"outcome": "passes"}}],
              "source": {"commit": "a" * 40, "path": "src/transformers/cache_utils.py", "line": 10,
                         "function": "Cache.get_max_cache_shape", "release": "4.49.0", "implicit": True}}
    plain = Entry.model_validate({**common, "id": "plain", "title": "t"})
    rich = Entry.model_validate({**common, "id": "rich", "title": "t",
                                 "also_seen_as": [{"message": "'{cls}' object has no attribute 'get_max_length'",
                                                   "releases": ">=4.49", "note": "subclasses"},
                                                  {"message": "CUDA error: device-side assert triggered",
                                                   "exception": "torch.AcceleratorError", "device": "cuda"}],
                                 "releases": {"raises": ">=4.49", "last_good": "4.48.3",
                                              "replacement": "`get_max_cache_shape()`"}})
    library = load_project(ROOT).library
    plain_known, rich_known = known_from_entries([plain, rich], {"rich": {"4.49.0": 10}}, library)
    assert len(plain_known.wordings) == 1 and plain_known.releases.raises is None and plain_known.lines == ()
    assert [w.exception for w in rich_known.wordings] == ["AttributeError", "AttributeError", "torch.AcceleratorError"]
    assert rich_known.wordings[2].device == "cuda" and rich_known.releases.last_good == "4.48.3"
    assert rich_known.lines == (("4.49.0", 10),) and rich_known.lines_path == "transformers/cache_utils.py"
    match = Lookup([rich_known]).find("torch.AcceleratorError: CUDA error: device-side assert triggered",
                                      release="4.50.0")[0]
    # A wording without releases of its own is printed by any release: the release says nothing about it.
    assert match.wording == 2 and match.release.raises is None and match.release.range is None
    assert Lookup([rich_known]).find("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'",
                                     release="4.50.0")[0].release.advice == "Use `get_max_cache_shape()`."


UNPACK = "too many values to unpack (expected 2)"


def test_a_shared_message_is_confirmed_by_the_failing_line_and_ruled_out_by_another():
    """Words many errors share (`words: false`) never confirm; the line a case shows does, and a
    traceback whose failing line is another one rules that case out."""
    shared = [{"message": UNPACK, "exception": "ValueError", "words": False}]
    pair = Known.from_index({"id": "pair", "title": "pair", "exception": "ValueError", "message": UNPACK,
                             "wordings": shared, "recognised_by": ["cache_k, cache_v = kv_cache"]})
    helper = Known.from_index({"id": "helper", "title": "helper", "exception": "ValueError", "message": UNPACK,
                               "wordings": shared, "recognised_by": ["_extract_past_from_model_output("]})
    kb = Lookup([pair, helper])
    bare = kb.answer(UNPACK)
    assert [(m.known.id, m.grade.value) for m in bare.matches] == [("helper", "candidate"), ("pair", "candidate")]
    assert any("cache_k, cache_v = kv_cache" in hint for hint in bare.matches[1].missing)
    traceback = f"  File \"modeling_chatglm.py\", line 563, in forward\n    cache_k, cache_v = kv_cache\nValueError: {UNPACK}"
    told = kb.answer(traceback)
    assert [(m.known.id, m.grade.value, m.recognised) for m in told.matches] == [("pair", "confirmed", True)]
    assert [r.match.known.id for r in told.ruled_out] == ["helper"]
    other = kb.answer(f"  File \"m.py\", line 9, in forward\n    hidden_states, _ = self.self_attn(\nValueError: {UNPACK}")
    assert other.matches == [] and len(other.ruled_out) == 2


def test_a_key_errors_message_without_its_quotes_and_a_message_without_backticks_still_match():
    """Issue titles and logs drop a KeyError's quotes; Markdown eats backticks: the real entries still answer."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.lookup.build import known_from_entries

    wanted = ("cache-only-has-0-layers", "model-does-not-support-static-cache")
    entries = [one.entry for one in load_project_entries(load_project(ROOT)).entries if one.entry.id in wanted]
    kb = Lookup(known_from_entries(entries))
    found = kb.find("Cache only has 0 layers, attempted to access layer with index 0")
    assert [m.known.id for m in found] == ["cache-only-has-0-layers"]
    assert found[0].matched.message == "Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}"
    quoted = kb.find("KeyError: 'Cache only has 0 layers, attempted to access layer with index 0'")
    assert quoted[0].wording == 0 and quoted[0].exact  # the authored wording first
    bare = kb.find("ValueError: This model does not support cache_implementation='static'. Please check the following "
                   "issue: https://github.com/huggingface/transformers/issues/28981")
    assert [m.known.id for m in bare] == ["model-does-not-support-static-cache"] and bare[0].exact


def test_typographic_quotes_read_as_the_ascii_quotes_python_printed():
    """A forum or a word processor turns 'x' into ‘x’: the entry still answers."""
    removed = Known("extract-past", "t", "AttributeError",
                    "'{cls}' object has no attribute '_extract_past_from_model_output'")
    found = Lookup([removed]).find(
        "AttributeError: \u2018ChatGLMForConditionalGeneration\u2019 object has no attribute "
        "\u2018_extract_past_from_model_output\u2019")
    assert [(m.known.id, m.exact, m.values) for m in found] == [
        ("extract-past", True, {"cls": "ChatGLMForConditionalGeneration"})]


@pytest.mark.parametrize("text", [
    "AutoRound\u2019s KV cache is incompatible. Critical error: AttributeError: 'QuantizedCache' object has no "
    "attribute 'key_cache'.",  # corpus h091: an apostrophe in the prose before, a full stop after
    "the model's cache broke: `'QuantizedCache' object has no attribute 'key_cache'` (see 'logs')",
    "it's 'QuantizedCache' object has no attribute 'key_cache' again",
])
def test_a_quote_in_the_prose_before_a_message_found_inside_does_not_start_its_value(text):
    """Found inside a sentence, a wording that starts with a quote starts at the quote nearest its next
    words: an apostrophe earlier on the line (`AutoRound's`) is not where the class's name begins."""
    removed = Known("key-cache-removed", "t", "AttributeError", "'{cls}' object has no attribute 'key_cache'")
    found = Lookup([removed]).find(text)
    assert [(m.known.id, m.values) for m in found] == [("key-cache-removed", {"cls": "QuantizedCache"})]


# -- anywhere: outside any checkout, from the index the package ships (issue 19, item 5) -----------


def errorkb_in(folder, *args, stdin=None):
    return subprocess.run([str(ROOT / ".venv" / "bin" / "errorkb"), *args], input=stdin, capture_output=True,
                          text=True, cwd=folder, timeout=120)


def test_lookup_and_show_answer_from_an_empty_folder(tmp_path):
    from errorkb.lookup import load_index

    found = errorkb_in(tmp_path, "lookup", "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'")
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("get-max-length-removed  [confirmed]")
    assert f"page: {load_index().site}errors/transformers/get-max-length-removed/" in found.stdout
    assert "(offline: errorkb show get-max-length-removed)" in found.stdout and "The fix" in found.stdout and "The verified fix" not in found.stdout
    shown = errorkb_in(tmp_path, "show", "get-max-length-removed")
    assert shown.returncode == 0 and "get_max_cache_shape" in shown.stdout and "Releases" in shown.stdout
    near = errorkb_in(tmp_path, "show", "get-max-lenght-removed")
    assert near.returncode == 1 and "did you mean 'get-max-length-removed'?" in near.stderr


def test_a_generic_message_alone_is_only_possible_and_json_keeps_the_two_apart(tmp_path):
    possible = errorkb_in(tmp_path, "lookup", "--json", "IndexError: list index out of range")
    answer = json.loads(possible.stdout)
    assert possible.returncode == 3 and answer["confirmed"] == []
    assert [one["id"] for one in answer["candidates"]] == ["layer-idx-out-of-range"]
    assert answer["candidates"][0]["grade"] == "candidate" and answer["candidates"][0]["missing"]
    text = errorkb_in(tmp_path, "lookup", "IndexError: list index out of range")
    assert text.returncode == 3 and text.stdout.startswith("possibly (not confirmed")
    assert "[possible]" in text.stdout and "to tell: paste the whole traceback" in text.stdout


def test_release_checks_the_matched_wordings_own_range(tmp_path):
    """`{cls}` wording of get_max_length: 4.49 – 5.12; a release outside it rules the entry out."""
    message = "AttributeError: 'MyCache' object has no attribute 'get_max_length'"
    inside = json.loads(errorkb_in(tmp_path, "lookup", "--json", "--release", "4.50.0", message).stdout)
    assert inside["confirmed"][0]["release"]["range"] == ">=4.49,<5.13"
    outside = errorkb_in(tmp_path, "lookup", "--json", "--release", "5.15.1", message)
    assert outside.returncode == 1 and json.loads(outside.stdout)["ruled_out"][0]["id"] == "get-max-length-removed"


def test_an_index_address_that_cannot_be_fetched_is_one_line_not_a_traceback(tmp_path):
    result = errorkb_in(tmp_path, "lookup", "--index", "http://127.0.0.1:9/api/errors/index.json", "ValueError: x")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "cannot fetch the index" in result.stderr
    missing = errorkb_in(tmp_path, "show", "--index", str(tmp_path / "nope.json"), "x")
    assert missing.returncode == 2 and "cannot read the index" in missing.stderr and "Traceback" not in missing.stderr


def test_lookup_imports_neither_the_settings_model_nor_rich_outside_a_checkout(tmp_path):
    code = ("import sys; from errorkb.cli import main; rc = main(['lookup', 'ValueError: x']);"
            "print(sorted(m for m in ('pydantic', 'rich', 'yaml', 'errorkb.verify', 'errorkb.site') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout + result.stderr


# -- a title's capital first letter (held-out h039: `Cannot import name ...`) ----------------------

IMPORT = Known("import-too-old", "t", "ImportError", "cannot import name 'EncoderDecoderCache' from 'transformers'")
SHARED_WORDS = Known.from_index({"id": "layer-idx", "title": "t", "exception": "IndexError",
                                 "message": "list index out of range",
                                 "wordings": [{"message": "list index out of range", "words": False}]})
UPPER = Known("upper", "t", "ValueError", "Attention mask should be of size {a}, but is {b}")
CASES = Lookup([IMPORT, SHARED_WORDS, UPPER])


@pytest.mark.parametrize("text", ["Cannot import name 'EncoderDecoderCache' from 'transformers'",
                                  "ImportError: Cannot import name 'EncoderDecoderCache' from 'transformers'",
                                  "[Bug] Cannot import name 'EncoderDecoderCache' from 'transformers'"])
def test_a_capitalised_first_letter_reads_as_pythons_message_and_confirms_as_it(text):
    confirmed = CASES.answer(text).confirmed
    assert [m.known.id for m in confirmed] == ["import-too-old"]


def test_only_the_first_letter_case_is_ignored_and_shared_words_stay_candidates():
    assert CASES.find("cannot Import name 'EncoderDecoderCache' from 'transformers'") == []
    assert CASES.find("CANNOT IMPORT NAME 'EncoderDecoderCache' FROM 'transformers'") == []
    answer = CASES.answer("IndexError: List index out of range")
    assert [m.known.id for m in answer.candidates] == ["layer-idx"] and answer.confirmed == []
    # A wording that starts with a capital is matched as written: its first letter lowercased is not it.
    assert CASES.find("attention mask should be of size 3, but is 4") == []
    assert [m.known.id for m in CASES.find("Attention mask should be of size 3, but is 4")] == ["upper"]


# -- a paste holding only the end of a documented wording (corpus h125) --------------------------

JIT = Known("jit-unsupported", "JIT input of unsupported type", "RuntimeError",
            "Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and strings are "
            "also accepted, but their usage is not recommended. Here, received an input of unsupported type: "
            "{typename}", recognised_by=("unsupported type: DynamicCache",))
TAILS = Lookup([JIT, HEAD_DIM, OOM])


def test_the_end_of_a_wording_alone_is_a_candidate_that_asks_for_the_whole_message():
    """h125 (pytorch#153998) states only the words' tail. It is offered, never confirmed (even with the
    entry's `recognised_by` in it), and says what is missing."""
    answer = TAILS.answer("received an input of unsupported type: DynamicCache")
    assert [m.known.id for m in answer.matches] == ["jit-unsupported"]
    match = answer.matches[0]
    assert not match.confirmed and match.values == {"typename": "DynamicCache"}
    assert "only the end of the message" in match.missing[0] and "Only tuples, lists" in match.missing[0]


def test_a_longer_end_from_an_earlier_clause_is_offered_alike():
    text = ("Dictionaries and strings are also accepted, but their usage is not recommended. Here, received an "
            "input of unsupported type: DynamicCache")
    match = TAILS.answer(text).matches[0]
    assert (match.known.id, match.confirmed) == ("jit-unsupported", False)
    assert "begins `Only tuples, lists and Variables are supported as JIT inputs/outputs.`" in match.missing[0]


@pytest.mark.parametrize("text", [
    "of unsupported type: DynamicCache",  # too little of the wording's fixed text to tell anything
    "ved an input of unsupported type: DynamicCache",  # not at a word of the wording
    "an input of unsupported type: DynamicCache",  # a word, but not the start of one of its clauses
    "RuntimeError: CUDA error: received an input of unsupported type: DynamicCache",  # inside another message
    "ValueError: received an input of unsupported type: DynamicCache",  # another exception
    "AttributeError: 'Foo' object has no attribute 'bar'",
])
def test_a_tail_too_short_cut_mid_word_or_inside_another_message_is_not_offered(text):
    assert [m.known.id for m in TAILS.find(text)] == []


def test_the_whole_wording_still_confirms_and_a_tail_is_not_tried_beside_it():
    whole = ("RuntimeError: Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and "
             "strings are also accepted, but their usage is not recommended. Here, received an input of "
             "unsupported type: DynamicCache")
    answer = TAILS.answer(whole)
    assert [(m.known.id, m.confirmed) for m in answer.matches] == [("jit-unsupported", True)]


# -- a message quoted where a cut wording stops (part eleven: h235, h236) --------------------------

QUOTED_NAME = "cannot import name 'HybridCache' from '{module}' ({path})"


@functools.cache
def project_lookup() -> Lookup:
    """The knowledge base's entries as `errorkb lookup` reads them (the library's own module names typed)."""
    from benchmarks.lookup_recall import project_known_lookup

    return project_known_lookup()


@pytest.mark.parametrize("text, module", [
    ("`cannot import name 'HybridCache' from 'transformers'`", "transformers"),  # a Markdown code span
    ("cannot import name 'HybridCache' from 'transformers.cache_utils'.", "transformers.cache_utils"),
    ("(cannot import name 'HybridCache' from 'transformers')", "transformers"),
    ("\"cannot import name 'HybridCache' from 'transformers'\" on 5.2", "transformers"),
    ("the node said `cannot import name 'HybridCache' from 'transformers'` when it loaded", "transformers"),
    ("cannot import name 'HybridCache' from 'aiocache'", "aiocache"),  # the text stops at the quote: as before
    ("cannot import name 'HybridCache' from 'aiocache", "aiocache"),  # ... or before it: the rest of the line
])
def test_a_quoted_placeholder_where_a_cut_text_stops_ends_at_its_closing_quote(text, module):
    """A title cut after `from 'transformers'` names the module between the quotes; what follows the closing
    quote (a code span's backtick, a full stop, a bracket, prose) is not part of the name."""
    from errorkb.core.message import MessageTemplate

    assert MessageTemplate.parse(QUOTED_NAME).prefix(text) == {"module": module}


def test_an_unquoted_placeholder_where_a_cut_text_stops_still_takes_the_rest_of_the_line():
    from errorkb.core.message import MessageTemplate

    template = MessageTemplate.parse("Make sure that a `_reorder_cache` function is correctly implemented in {module} "
                                     "to enable beam search for {cls}")
    assert template.prefix("Make sure that a `_reorder_cache` function is correctly implemented in x.y'. ok") == \
        {"module": "x.y'. ok"}


@pytest.mark.parametrize("text", [
    "`cannot import name 'HybridCache' from 'transformers'`",  # corpus h235 (a PR's description)
    "`Failed to import diffusers.loaders.peft because of the following error (look up to see its traceback): "
    "cannot import name 'HybridCache' from 'transformers'`",  # corpus h236
    "`ImportError: cannot import name 'HybridCache' from 'transformers'`",
    "cannot import name 'HybridCache' from 'transformers'.",
    "[Bug] cannot import name 'HybridCache' from 'transformers' (peft 0.13)",
])
def test_a_message_in_backticks_or_before_punctuation_still_confirms_its_entry(text):
    """The real entry: its short wording confirms these words; the main wording, cut short where the message
    ends, must not read the closing backtick or full stop as part of the module's name and rule it out."""
    answer = project_lookup().answer(text)
    assert [m.known.id for m in answer.confirmed] == ["import-hybridcache-removed"], answer.ruled_out


def test_another_module_between_the_quotes_still_rules_the_entry_out():
    """The same reading keeps what the cut short form is for: `from 'aiocache'` names another module."""
    kb = project_lookup()
    for text in ("cannot import name 'Cache' from 'aiocache'", "`cannot import name 'Cache' from 'aiocache'`",
                 "cannot import name 'Cache' from 'aiocache'."):
        answer = kb.answer(text)
        assert answer.confirmed == [] and "import-encoderdecodercache-too-old" in \
            [r.match.known.id for r in answer.ruled_out], text

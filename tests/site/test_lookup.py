"""The lookup rules (errorkb.site.lookup) and `errorkb lookup` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sitekb import MESSAGE, TRACEBACK

from errorkb.site.lookup import Known, Lookup, candidates

HEAD_DIM = Known("head-dim-list-length", "head_dim list", "ValueError",
                 "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                 "{len(self.layers)} layers", "errors/transformers/head-dim-list-length/")
NUM_HEADS = Known("num-heads-list-length", "num_heads list", "ValueError",
                  "`num_head` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                  "{len(self.layers)} layers")
GENERIC = Known("generic", "anything with layers", "ValueError", "{what} layers")
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
    assert json.loads(result.stdout)[0]["id"] == "head-dim-list-length"


def test_cli_lookup_exits_1_when_nothing_matches(project):
    result = run_cli("--root", str(project), "lookup", "KeyError: 'port'")
    assert result.returncode == 1 and "no entry matches" in result.stderr


def test_cli_lookup_against_a_published_index(project, tmp_path):
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"entries": [{"id": "x", "title": "X", "exception": "ValueError",
                                              "message": "bad {thing} here", "url": "x/"}]}))
    result = run_cli("--root", str(project), "lookup", "--index", str(index), "ValueError: bad spoon here")
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

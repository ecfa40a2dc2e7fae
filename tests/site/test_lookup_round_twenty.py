"""Round twenty: attacks on the paste reader in shapes rounds one to nineteen did not try, asked of the matcher, the
page's script and the hook alike.

One hole, a confirmed wrong answer: an entry's words inside a failed check's message. A test that compares an error's
text with the entry's (`assert str(err) == "..."`, unittest's `assertEqual`, `assert "..." in str(excinfo.value)`,
numpy's `assert_equal`) fails with an `AssertionError` whose message quotes both operands: the words were found inside
it, and a message that holds the library's words inside a longer one reads as a wrapper's retelling of the library's
error (`failed: {error}`), which confirms it. A check's message is no retelling: it quotes what the test expected, and
the error the library raised, if any, is the other operand. Words found inside the message of the error the paste ended
with, when that error is a failed check (`rules.CHECK_NAME`: its exception line names `AssertionError`; or, with no
exception line, pytest's rewritten `assert` line, `rules.CHECK_LINE`), are only possible now. The library's own
`AssertionError` (the runtime's `Torch not compiled with CUDA enabled`) is matched whole, and an entry whose exception is
`AssertionError` still reads its words inside one; a library error a check re-raised `from` is still its cause.

Three strict xfails closed as one class (rounds seventeen and eighteen): a tag no rule knows before every line of a
traceback (pdsh's `worker-1: `, a launcher's `[Rank 0] `, a logger's own format with its stamp) left the frames behind
it unread. The text before Python's traceback marker on its line, when a later line starts with it too, is a tag now
(`rules.TAG_CHARACTER`, `TAG_MAX`, `TAGS_MAX`; `_paste.learned_tags`): each such tag is one more process's marker, its
lines put together and the tag taken away, as a known launcher's are. No list of prefixes: the paste says what its tag
is.

The attacks that found nothing to fix are kept as tests of their answer: a traceback rendered from Markdown (its
indentation lost, `>` quote marks, a code fence in the middle), no-break spaces, zero-width marks and typographic quotes,
elided frames (`...`, `[Previous line repeated 996 more times]`), pytest's `E   ` lines and `>` source line, a log whose
last error is another, `repr(exception)`, and the user's own edited copy of the library's file.
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import answer, kb  # noqa: F401  (the fixture)
from tests.site.test_lookup_round_eighteen import INDEX_ERROR, SP, interleaved, tagged

REMOVED = "get-max-length-removed"
M = "'DynamicCache' object has no attribute 'get_max_length'"  # the entry's words, as a test would quote them
GOT = "'DynamicCache' object has no attribute 'get_seq_len'"  # what the library raised: another error

# -- the hole: the entry's words quoted by a failed check -----------------------------------------------------------

CHECKS = {
    # pytest's long entry of a rewritten `assert ... == ...`: no exception line, its location line names the class
    "pytest-eq": "\n".join(["    def test_message():", "        err = run()", f'>       assert str(err) == "{M}"',
                            f'E       assert "{GOT}" == "{M}"', "", "test_cache.py:12: AssertionError"]),
    "pytest-in": "\n".join([f'>       assert "{M}" in str(excinfo.value)', f'E       assert "{M}" in "{GOT}"', "",
                            "test_cache.py:30: AssertionError"]),
    # pytest's --tb=short and --tb=line, and its summary line
    "pytest-short": "\n".join(["test_cache.py:12: in test_message", f'    assert str(err) == "{M}"',
                               f'E   assert "{GOT}" == "{M}"']),
    "pytest-line": f'/opt/app/test_cache.py:12: assert "{GOT}" == "{M}"',
    "pytest-summary": f'FAILED test_cache.py::test_message - assert "{GOT}" == "{M}"',
    # an `AssertionError:` line: pytest with the class named, unittest, numpy.testing
    "assertion-line": "\n".join([f'>       assert str(err) == "{M}"', f'E       AssertionError: assert "{GOT}" == "{M}"',
                                 "", "test_cache.py:12: AssertionError"]),
    "unittest": "\n".join([
        "FAIL: test_message (test_cache.TestCache.test_message)",
        "----------------------------------------------------------------------",
        "Traceback (most recent call last):", '  File "/opt/app/test_cache.py", line 12, in test_message',
        f'    self.assertEqual(str(err), "{M}")', f'AssertionError: "{GOT}" != "{M}"', f"- {GOT}",
        "?                                            ^^^", f"+ {M}",
        "?                                            ^^^^^^ +++"]),
    "numpy-testing": "\n".join(["AssertionError: ", "Items are not equal:", f" ACTUAL: '{GOT}'", f' DESIRED: "{M}"']),
}


@pytest.mark.parametrize("text", CHECKS.values(), ids=CHECKS.keys())
def test_the_entrys_words_a_failed_check_quotes_are_only_possible(kb, text):  # noqa: F811
    """The check raised the error the paste ended with; the words are what it compared, not what the library raised."""
    assert answer(kb, text) == ([], [REMOVED])


def test_a_failed_check_says_what_would_confirm_it(kb):  # noqa: F811
    found = kb.answer(CHECKS["unittest"], None)
    assert [m.known.id for m in found.candidates] == [REMOVED]
    assert any("check" in line for line in found.candidates[0].missing)


# -- what still confirms --------------------------------------------------------------------------------------------

LIBRARY_ERROR = "\n".join(["Traceback (most recent call last):", '  File "/opt/app/run.py", line 8, in <module>',
                           "    n = cache.get_max_length()", f"AttributeError: {M}"])
STILL = {
    # the library's error itself, a check's error raised `from` it
    "raised-from": LIBRARY_ERROR + "\n\nThe above exception was the direct cause of the following exception:\n\n"
    + "\n".join(["Traceback (most recent call last):", '  File "/opt/app/run.py", line 10, in <module>',
                 '    raise AssertionError("generation failed") from error', "AssertionError: generation failed"]),
    # pytest's long entry of the library's error raised inside a test
    "pytest-raised": "\n".join(["    def test_length():", ">       n = cache.get_max_length()", f"E       AttributeError: {M}",
                                "", "test_cache.py:8: AttributeError"]),
    # a wrapper's retelling under another class is still the library's error
    "retold": f"RuntimeError: generation failed: {M}",
}


@pytest.mark.parametrize("text", STILL.values(), ids=STILL.keys())
def test_the_librarys_error_beside_or_under_a_check_still_confirms(kb, text):  # noqa: F811
    assert answer(kb, text)[0] == [REMOVED]


OFFLOADED = "\n".join(["Traceback (most recent call last):", '  File "/opt/app/run.py", line 8, in <module>',
                       "    out = model.generate(**inputs)",
                       f'  File "{SP}transformers/cache_utils.py", line 1373, in update', "    self.prefetch(layer_idx + 1)",
                       f'  File "{SP}torch/cuda/__init__.py", line 310, in _lazy_init',
                       '    raise AssertionError("Torch not compiled with CUDA enabled")'])


@pytest.mark.parametrize("message", ["Torch not compiled with CUDA enabled", "Torch not compiled with CUDA enabled on M1 Mac",
                                     "offload failed: Torch not compiled with CUDA enabled"])
def test_the_runtimes_own_assertion_error_still_confirms(kb, message):  # noqa: F811
    """The runtime raises `AssertionError` itself (an entry whose exception it is): its words, whole or inside a longer
    message, are its error."""
    assert answer(kb, OFFLOADED + "\nAssertionError: " + message) == (["offloading-without-cuda"], [])


# -- attacks that found nothing to fix (kept: their answers) ---------------------------------------------------------

L = INDEX_ERROR.split("\n")
CONFIRMED = (["layer-idx-out-of-range"], [])
READ = {
    # GitHub's Markdown: the indentation lost, a reply's quote marks, a code fence in the middle
    "no-indent": "\n".join(line.strip() for line in L),
    "quoted": "\n".join("> " + line for line in L),
    "quoted-twice": "\n".join("> > " + line for line in L),
    "fence-inside": "\n".join([*L[:3], "```", "```", *L[3:]]),
    "fenced": "```python\n" + INDEX_ERROR + "\n```",
    # a web page's characters: no-break spaces, a zero-width space, typographic quotes
    "no-break-spaces": INDEX_ERROR.replace("  ", "\u00a0\u00a0"),
    "zero-width": INDEX_ERROR.replace("IndexError", "Index\u200bError"),
    "typographic": INDEX_ERROR.replace('"', "\u201c", 1).replace('"', "\u201d", 1),
    # frames elided
    "elided": "\n".join([*L[:3], "  ...", "  [Previous line repeated 996 more times]", *L[3:]]),
    # pytest's long entry of the library's frame
    "pytest": "\n".join(["    def test_generate():", ">       out = model.generate(**inputs, past_key_values=cache)", "",
                         "test_gen.py:20: ", f"{SP}transformers/cache_utils.py:776: in update",
                         "    keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)",
                         "E   IndexError: list index out of range"]),
    # the traceback with its last line a repr
    "repr-line": "\n".join(L[:-1]) + "\nIndexError('list index out of range')",
}
NOT_CONFIRMED = {
    # the paste ended with another error: the entry's is earlier
    "handler-failed": INDEX_ERROR + "\n\nDuring handling of the above exception, another exception occurred:\n\n"
    + "\n".join(["Traceback (most recent call last):", '  File "/opt/app/run.py", line 25, in <module>',
                 "    log.flush()", "AttributeError: 'NoneType' object has no attribute 'flush'"]),
    "later-error": INDEX_ERROR + "\n2025-01-01 10:00:00 INFO retrying\n" + "\n".join([
        "Traceback (most recent call last):", '  File "/opt/app/run.py", line 40, in <module>', "    import foo",
        "ModuleNotFoundError: No module named 'foo'"]),
    # a repr alone: the generic words
    "repr": "IndexError('list index out of range')",
    # the user's own edited copy of the library's file, in their project
    "own-copy": INDEX_ERROR.replace(SP + "transformers/cache_utils.py", "/home/u/proj/cache_utils.py"),
    "own-copy-named": INDEX_ERROR.replace(SP + "transformers/cache_utils.py", "/home/u/proj/transformers/cache_utils.py"),
}


@pytest.mark.parametrize("text", READ.values(), ids=READ.keys())
def test_the_shapes_read_before_still_confirm(kb, text):  # noqa: F811
    assert answer(kb, text) == CONFIRMED


@pytest.mark.parametrize("text", NOT_CONFIRMED.values(), ids=NOT_CONFIRMED.keys())
def test_what_these_shapes_must_not_confirm(kb, text):  # noqa: F811
    assert answer(kb, text)[0] == []


# -- a tag no rule knows, learned from the line of the traceback's marker ---------------------------------------------

TAGS = ["worker-1: ", "[Rank 0] ", "gpu-node-07.cluster.local: ", "<job 42 task 3> ", "2024-01-01 12:00:00.123 | ERROR    | "
        "app:main:12 - ", "I0101 12:00:00.123 123 x.py:1] ", "[trainer] ", "工作节点1： "]


@pytest.mark.parametrize("tag", TAGS)
def test_a_traceback_behind_a_tag_no_rule_knows_is_read(kb, tag):  # noqa: F811
    assert answer(kb, tagged(tag, INDEX_ERROR)) == CONFIRMED
    # with the launcher's own lines around it, untagged
    assert answer(kb, "launching 2 workers\n" + tagged(tag, INDEX_ERROR) + "\nworker exited with code 1") == CONFIRMED


LEARNED_NOT_CONFIRMED = {
    # two hosts' lines interleaved: one printed the library's frames, the other's own error ended the paste
    "interleaved-hosts": interleaved("node-a: ", "node-b: "),
    "interleaved-ranks": interleaved("[Rank 0] ", "[Rank 1] "),
    # a tag on the marker's line only: nothing learned, the frames read as written (no traceback of the library's)
    "tag-once": "worker-1: " + INDEX_ERROR.replace(SP + "transformers/cache_utils.py", "/opt/app/cache_utils.py"),
    # the user's own error, tagged: the tag goes, the user's frame stays the user's
    "own-tagged": tagged("worker-1: ", INDEX_ERROR.replace(SP + "transformers/cache_utils.py", "/opt/app/store.py")),
}


@pytest.mark.parametrize("text", LEARNED_NOT_CONFIRMED.values(), ids=LEARNED_NOT_CONFIRMED.keys())
def test_a_learned_tag_confirms_nothing_another_process_printed(kb, text):  # noqa: F811
    assert answer(kb, text)[0] == []


def test_indentation_a_quote_or_a_group_margin_is_never_a_tag():
    """Before the marker, text with no letter or digit (an indentation, a quote's `> `, an exception group's `| `) or a
    prefix the rules remove whole (pytest's `E   `, a log's stamp) is read by its own rule, never learned."""
    from errorkb.lookup._paste import learned_tags

    for tag in ["    ", "> ", "  | ", "E   ", "[rank1]: ", "2025-01-01 12:00:00,123 - ERROR - ", "(pid=1) "]:
        assert learned_tags((tag + INDEX_ERROR.replace("\n", "\n" + tag)).split("\n")) == [], tag
    assert learned_tags(tagged("worker-1: ", INDEX_ERROR).split("\n")) == ["worker-1: "]


HOSTILE = [
    # 8,000 distinct tags, each before a marker; then lines starting with none of them
    "\n".join(f"host{n}: Traceback (most recent call last):" for n in range(8000)) + "\nx" * 20000,
    # a tag of 80 characters before every one of 700 lines
    tagged("t" * 79 + " ", "\n".join([INDEX_ERROR] * 100)),
    # a marker at the end of a 60 KB line
    "x" * 60000 + "Traceback (most recent call last):\n" + "x" * 1000,
]


def test_learning_tags_is_read_in_bounded_time():
    """A hang guard (generous, in a child process): each answers in well under the limit."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_twenty import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], ["layer-idx-out-of-range"], []]


def test_round_twenty_reads_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*CHECKS.values(), *STILL.values(), *READ.values(), *NOT_CONFIRMED.values(),
              *(tagged(tag, INDEX_ERROR) for tag in TAGS), *LEARNED_NOT_CONFIRMED.values(), *HOSTILE]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, None)
    confirmed = [[one[0] for one in result["found"] if one[1] == "confirmed"] for result in python]
    assert confirmed == [[]] * len(CHECKS) + [[REMOVED]] * len(STILL) + [["layer-idx-out-of-range"]] * len(READ) \
        + [[]] * len(NOT_CONFIRMED) + [["layer-idx-out-of-range"]] * len(TAGS) + [[]] * len(LEARNED_NOT_CONFIRMED) \
        + [[], ["layer-idx-out-of-range"], []]

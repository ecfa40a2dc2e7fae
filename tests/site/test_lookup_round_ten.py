"""Round ten of the diagnosis (issue 19): crafted confusers, each a paste whose words are an entry's but whose
error is not, written first as a test that failed on main, then closed in the page's script, the CLI's matcher and
the hook alike.

- pytest's own outcome (`Failed: DID NOT RAISE <class 'KeyError'>`, `Failed: Timeout >10.0s`, `_pytest.outcomes.
  Failed: ...`) is the error such a paste ended with, but its name reads as no exception's (`FATAL_NAME` wanted
  `...Error`, `...Exception`, ...): the message quoted in the test's `pytest.raises(..., match=...)`, which was
  *not* raised, or an earlier error the test went on after, was confirmed as the paste's error;
- a unified diff's hunk (`@@ -310,7 +310,7 @@`, then lines marked `-`, `+` or a blank) was read as the lines it marks:
  a removed line (`-KeyError: '...'`, the removed `raise`) confirmed the entry, though the text the diff leaves no longer
  says it, and an added exception line (`+RuntimeError: ...`) was no exception line at all;
- a doctest's report (`Expected:` what the example should print, `Got:` what it printed): the error the example was
  expected to raise, which it did not, was confirmed as the paste's.
"""

from __future__ import annotations

import pytest

from tests.site import lookupkb

kb = lookupkb.kb
_answer = lookupkb.answer

C0 = "Cache only has 0 layers, attempted to access layer with index 0"
KEY_ERROR = f"KeyError: '{C0}'"
RAISES = f'    def test_x():\n        with pytest.raises(KeyError, match="{C0}"):\n>           cache[0]\n'


# -- pytest's own outcome is the error the paste ended with ------------------------------------------------------

PYTEST_OUTCOMES = [
    RAISES + "E           Failed: DID NOT RAISE <class 'KeyError'>\n\ntests/test_x.py:5: Failed\n",
    RAISES + "E           _pytest.outcomes.Failed: DID NOT RAISE <class 'KeyError'>\n",
    f"{KEY_ERROR}\nretrying ...\nE       Failed: Timeout >10.0s\n",  # pytest-timeout ended the test after the error
]


@pytest.mark.parametrize("paste", PYTEST_OUTCOMES)
def test_pytests_failed_outcome_is_the_error_the_paste_ended_with(kb, paste):
    assert _answer(kb, paste) == ([], ["cache-only-has-0-layers"])


@pytest.mark.parametrize("paste", [
    RAISES.replace(">           cache[0]", ">           cache[0]\nE           " + KEY_ERROR),  # raised, not matched
    f"E       Failed: Timeout >10.0s\n{KEY_ERROR}\n",  # the error after pytest's outcome is the last
])
def test_the_entrys_error_after_or_instead_of_pytests_outcome_still_confirms(kb, paste):
    assert _answer(kb, paste) == (["cache-only-has-0-layers"], [])


def test_a_word_failed_that_names_no_outcome_ends_nothing(kb):
    """Only pytest's exception, `Failed` whole (or `....Failed`): a log's `TestFailed:` or `Build failed:` is none."""
    for prose in ("BuildFailed: yes", "Build failed: see above", "failed: retry"):
        assert _answer(kb, f"{KEY_ERROR}\n{prose}\n") == (["cache-only-has-0-layers"], [])


# -- a unified diff is read as the text it leaves ------------------------------------------------------------------

HUNK = "--- a/out-4.57.txt\n+++ b/out-5.0.txt\n@@ -1,3 +1,3 @@\n Traceback (most recent call last):\n"
DIFFS = [
    HUNK + f"-{KEY_ERROR}\n+RuntimeError: CUDA error: device-side assert triggered\n",  # the error the new run ends with
    HUNK + f"-{KEY_ERROR}\n+ok\n",  # removed, and nothing raised instead
    ("--- a/src/transformers/cache_utils.py\n+++ b/src/transformers/cache_utils.py\n@@ -312,3 +312,3 @@ class DynamicCache\n"
     f"         else:\n-            raise KeyError(\"{C0}\")\n+            return None\n"),  # a patch that removes the raise
]


@pytest.mark.parametrize("paste", DIFFS)
def test_a_diffs_removed_lines_are_no_error_of_the_paste(kb, paste):
    assert _answer(kb, paste)[0] == []


def test_a_diffs_added_lines_are_read_as_the_text_it_leaves(kb):
    """The `+` side is the new text: an exception line there is one, and confirms as it would unmarked."""
    added = HUNK + f"-RuntimeError: CUDA error: device-side assert triggered\n+{KEY_ERROR}\n"
    assert _answer(kb, added) == (["cache-only-has-0-layers"], [])
    context = HUNK + f" {KEY_ERROR}\n-ok\n+okay\n"  # a context line is in both texts
    assert _answer(kb, context) == (["cache-only-has-0-layers"], [])


def test_lines_marked_like_a_diffs_without_its_hunk_header_are_read_as_written(kb):
    """A Markdown list (`- KeyError: ...`) is no diff: only a hunk's header (`@@ -N,M +N,M @@`) starts one."""
    assert _answer(kb, f"Steps:\n- {KEY_ERROR}\n") == (["cache-only-has-0-layers"], [])


HEADLESS = [
    f"-{KEY_ERROR}\n+RuntimeError: CUDA error: device-side assert triggered\n",  # another error instead
    f"-{KEY_ERROR}\n+ok\n",  # removed, and nothing raised instead
    # a patch's change without its header: the removed `raise`, the code that replaced it
    f"         else:\n-            raise KeyError(\"{C0}\")\n+            return None\n",
]


@pytest.mark.parametrize("paste", HEADLESS)
def test_a_diff_without_its_hunk_header_is_read_as_the_text_it_leaves(kb, paste):
    """A removed line followed at once by an added one is a change, with or without its header: a Markdown list's
    item has one blank after its mark, and never changes mark from `-` to `+` between two lines."""
    assert _answer(kb, paste)[0] == []


def test_a_headless_changes_added_error_still_confirms(kb):
    assert _answer(kb, f"-RuntimeError: CUDA error: device-side assert triggered\n+{KEY_ERROR}\n") == (
        ["cache-only-has-0-layers"], [])


@pytest.mark.parametrize("paste", [
    f"Steps:\n- {KEY_ERROR}\n+ then it retried\n",  # a list's items (a blank after the mark), marks mixed
    f"-v given\n{KEY_ERROR}\n",  # a line that starts with `-`, no change after it
    f"--- run 1\n{KEY_ERROR}\n+++ done\n",  # doubled marks: a rule, a header, never a change
    f"-{KEY_ERROR}\n-retry\n",  # removed lines with none added after them: no change
])
def test_lines_that_are_no_change_are_read_as_written(kb, paste):
    assert _answer(kb, paste) == (["cache-only-has-0-layers"], [])


# -- a doctest's expected output is no error of the paste ------------------------------------------------------------

DOCTEST = ('File "/me/docs/cache.md", line 12, in cache.md\nFailed example:\n    cache[0]\nExpected:\n'
           f"    Traceback (most recent call last):\n    ...\n    {KEY_ERROR}\nGot:\n    (tensor([1.]), tensor([1.]))\n")
DOCTESTS = [DOCTEST, DOCTEST.replace("Got:\n    (tensor([1.]), tensor([1.]))\n", "Got nothing\n")]


@pytest.mark.parametrize("paste", DOCTESTS)
def test_the_error_a_doctest_expected_and_did_not_get_is_no_error_of_the_paste(kb, paste):
    assert _answer(kb, paste)[0] == []


def test_the_error_a_doctest_got_still_confirms(kb):
    got = ("Failed example:\n    cache[0]\nExpected:\n    (tensor([1.]),)\nGot:\n    Traceback (most recent call last):\n"
           f'      File "<doctest cache.md[3]>", line 1, in <module>\n        cache[0]\n    {KEY_ERROR}\n')
    assert _answer(kb, got) == (["cache-only-has-0-layers"], [])
    raised = got.replace("Expected:\n    (tensor([1.]),)\nGot:\n", "Exception raised:\n")
    assert _answer(kb, raised) == (["cache-only-has-0-layers"], [])


# -- known limits (docs/contributing.md 6b) ----------------------------------------------------------------------

def test_a_negative_count_is_no_value_the_librarys_raise_prints(kb):
    assert _answer(kb, "ValueError: Expected 1 or 2 arguments, got -2")[0] == []


def test_a_removed_name_only_inside_a_string_on_the_failing_line_is_no_use_of_it(kb):
    """A strict xfail until round twenty-one read a string's text as text (tests/site/test_lookup_round_twentyone.py);
    a string that is the name (`getattr(cache, "key_cache")`) still uses it."""
    paste = ('Traceback (most recent call last):\n  File "/me/run.py", line 12, in <module>\n'
             '    log("cache.key_cache is gone")\n'
             "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n")
    assert _answer(kb, paste) == ([], ["key-cache-removed"])


# -- the page, the CLI and the hook ---------------------------------------------------------------------------------

@pytest.mark.parametrize("release", [None, "4.50.0"])
def test_round_ten_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*PYTEST_OUTCOMES, f"E       Failed: Timeout >10.0s\n{KEY_ERROR}\n", f"{KEY_ERROR}\nBuildFailed: yes\n",
              *DIFFS, HUNK + f"-RuntimeError: CUDA error: device-side assert triggered\n+{KEY_ERROR}\n",
              HUNK + f" {KEY_ERROR}\n-ok\n+okay\n", f"Steps:\n- {KEY_ERROR}\n", *DOCTESTS]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    assert [[(one[0], one[1]) for one in p["found"]] for p in python] == \
        [[("cache-only-has-0-layers", "candidate")]] * 3 + [[("cache-only-has-0-layers", "confirmed")]] * 2 + \
        [[]] * 3 + [[("cache-only-has-0-layers", "confirmed")]] * 3 + [[]] * 2


LONG_RUNS = ["-x\n" * 21000, "-x\n" * 21000 + "+y\n" + KEY_ERROR, "- x\n-x\n" * 10000]  # about 63 KB each


def test_long_runs_of_removed_lines_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): a change's pattern that must find a `+` line after a run of `-`
    lines, tried again from each line of the run, took time quadratic in the run (150 s for the first paste)."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_ten import LONG_RUNS; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in LONG_RUNS]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], ["cache-only-has-0-layers"], []]


def test_a_headless_change_gets_the_same_answers_in_the_page_the_cli_and_the_hook():
    """The change's rule ships as data (`DIFF_CHANGE`): the page's script reads it as the matcher does."""
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*HEADLESS, f"-RuntimeError: CUDA error: device-side assert triggered\n+{KEY_ERROR}\n",
              f"Steps:\n- {KEY_ERROR}\n+ then it retried\n", f"-{KEY_ERROR}\n-retry\n"]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, None)
    confirmed = [[one[0] for one in result["found"] if one[1] == "confirmed"] for result in python]
    assert confirmed == [[]] * len(HEADLESS) + [["cache-only-has-0-layers"]] * 3

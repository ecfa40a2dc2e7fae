"""Round twenty-four: attacks aimed at a confirmed wrong answer, in shapes rounds one to twenty-three did not try, asked
of the matcher, the page's script and the hook alike.

Three holes, each a confirmed wrong answer, closed as a class:

- a release on a line commented out (a requirements file's `# <library>==4.56.0`, a Dockerfile's `# RUN pip install
  ...`, a notebook's `#!pip install ...`, a trailing `  # <library>==4.56.0`) was read as the release installed, and
  confirmed an entry whose words tie it only on that release (`key-cache-removed`: the 4.46 compile failure prints the
  same words). A comment is not in effect: a statement after a comment's marker (`rules.COMMENT`, found once per line)
  states no release, as a prompt's environment does;
- a release named as the one whose documents the user read ("the <library> 4.56.0 release notes say ...", "the
  changelog of <library> v4.56.0") is one of the library's history, not the one installed (`TOLD_OTHER_BEFORE`,
  `TOLD_OTHER_AFTER`);
- the entry's words under another exception's class (`ValueError: list index out of range`, `KeyError: 'list index
  out of range'`): the traceback above them is that class's, and its frames, failing lines and recognised texts tied
  the words to the entry (`layer-idx-out-of-range`, which only an `IndexError` raised in the cache's `update`
  is). A traceback shows where *its* error was raised: an `IndexError` the library raised is printed as one. The
  words alone still tie what they tie (a retelling, `raise RuntimeError(str(error)) from None`), never the frames.

The attacks that found nothing to fix are kept as tests of their answer: a release stated twice and disagreeing (a
pin and `__version__` printed), a pip resolver's conflict, a Windows path, a conda package's, an egg's and a zip's,
an ANSI-coloured notebook traceback, HTML entities, an escaped quote, a chain whose first error is the entry's, and a
paste of 50 MB or a million lines (cut to its tail, in bounded time).
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import IDX, IE, KEY, UPDATE_LINE, K, answer, in_update, kb, traceback  # noqa: F401  (kb: the fixture)

# -- a release on a line commented out -------------------------------------------------------------------------------

COMMENTED = {
    "requirements": "# transformers==4.56.0\n",
    "requirements, no blank": "#transformers==4.56.0\n",
    "dockerfile": "# RUN pip install transformers==4.56.0\n",
    "notebook": "#!pip install transformers==4.56.0\n",
    "python": "    # pip install transformers 4.56.0\n",
    "trailing": "torch==2.1.0  # transformers==4.56.0\n",
    "slashes": "// transformers 4.56.0\n",
    "heading": "## transformers 4.56.0\n",
}


@pytest.mark.parametrize("line", COMMENTED.values(), ids=COMMENTED.keys())
def test_a_release_on_a_line_commented_out_states_none(kb, line):  # noqa: F811
    assert answer(kb, line + K) == ([], [KEY])


STILL_STATED = {
    "a comment after it": "transformers==4.56.0  # pinned\n",
    "an issue's number": "see #123 with transformers 4.56.0\n",
    "the next line": "# requirements\ntransformers==4.56.0\n",
}


@pytest.mark.parametrize("line", STILL_STATED.values(), ids=STILL_STATED.keys())
def test_a_release_outside_a_comment_is_still_stated(kb, line):  # noqa: F811
    assert answer(kb, line + K) == ([KEY], [])


# -- a release whose documents the user read -------------------------------------------------------------------------

DOCUMENTS = {
    "release notes after": "The transformers 4.56.0 release notes say key_cache is gone.\n",
    "changelog after": "per the transformers v4.56.0 changelog\n",
    "docs after": "the transformers 4.56.0 docs show\n",
    "release notes before": "the release notes of transformers 4.56.0 say so\n",
    "migration guide before": "the migration guide for transformers 4.56.0 says\n",
    "changelog before": "In the changelog for transformers 4.56.0 I read\n",
}


@pytest.mark.parametrize("line", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_a_release_whose_documents_were_read_states_none(kb, line):  # noqa: F811
    assert answer(kb, line + K) == ([], [KEY])


def test_a_release_stated_beside_its_documents_still_confirms(kb):  # noqa: F811
    assert answer(kb, "I'm on transformers 4.56.0 and read its docs\n" + K) == ([KEY], [])


# -- the entry's words under another class ---------------------------------------------------------------------------

OTHER_CLASS = {
    "ValueError": "ValueError: list index out of range",
    "RuntimeError": "RuntimeError: list index out of range",
    "KeyError, quoted": "KeyError: 'list index out of range'",
    "inside another's": "ValueError: Error: list index out of range",
}


@pytest.mark.parametrize("exception", OTHER_CLASS.values(), ids=OTHER_CLASS.keys())
def test_frames_of_another_class_tie_nothing_to_the_entry(kb, exception):  # noqa: F811
    assert answer(kb, in_update(exception)) == ([], [IDX])


def test_the_entrys_own_class_still_confirms(kb):  # noqa: F811
    assert answer(kb, in_update(IE)) == ([IDX], [])
    assert answer(kb, in_update("builtins.IndexError: list index out of range")) == ([IDX], [])


def test_a_users_failing_line_under_another_class_ties_nothing(kb):  # noqa: F811
    text = traceback("/home/u/run.py", "<module>", "k = cache.key_cache[0]",
                     "RuntimeError: 'DynamicCache' object has no attribute 'key_cache'")
    assert answer(kb, text) == ([], [KEY])
    assert answer(kb, traceback("/home/u/run.py", "<module>", "k = cache.key_cache[0]", K)) == ([KEY], [])


def test_the_words_alone_under_another_class_are_still_a_retelling(kb):  # noqa: F811
    assert answer(kb, "RuntimeError: 'DynamicCache' object has no attribute 'key_cache'", "4.57.0") == ([KEY], [])


# -- found held ------------------------------------------------------------------------------------------------------

HELD = {
    "pin and __version__": ("transformers==4.46.1\n>>> transformers.__version__\n'4.56.0'\n" + K, ([], [KEY])),
    "resolver": ("vllm 0.10 requires transformers>=4.56.0, but you have transformers 4.46.1 which is incompatible.\n"
                 + K, ([], [KEY])),
    "html entities": ("AttributeError: &#39;DynamicCache&#39; object has no attribute &#39;key_cache&#39;", ([], [KEY])),
    "escaped quotes": ("AttributeError: \\'DynamicCache\\' object has no attribute \\'key_cache\\'", ([], [])),
    "windows": (traceback("C:\\Users\\me\\miniconda3\\envs\\x\\Lib\\site-packages\\transformers\\cache_utils.py",
                          "update", UPDATE_LINE, IE), ([IDX], [])),
    "zip": (traceback("/app/deps.zip/transformers/cache_utils.py", "update", UPDATE_LINE, IE), ([], [IDX])),
    "ansi": ("\x1b[0;31m" + in_update(IE).replace("\n", "\x1b[0m\n\x1b[0;31m") + "\x1b[0m", ([IDX], [])),
    "chain, the entry's first": (in_update(IE) + "\n\nDuring handling of the above exception, another exception "
                                 "occurred:\n\n" + traceback("/home/u/run.py", "<module>", "x()", "RuntimeError: bad"),
                                 ([], [IDX])),
}


@pytest.mark.parametrize("name", HELD)
def test_shapes_found_held(kb, name):  # noqa: F811
    text, expected = HELD[name]
    assert answer(kb, text) == expected


HOSTILE = [
    "# transformers==4.56.0 " * 20000 + "\n" + K,  # one commented line of 20,000 statements
    "# c\ntransformers==4.56.0 #\n" * 20000 + K,  # 40,000 lines, a comment on each
    "x" * 50_000_000 + "\n" + K,  # 50 MB
    "a\n" * 1_000_000 + K,  # a million lines
]


def test_hostile_pastes_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): each answers in well under the limit."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_twentyfour import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], [KEY], [], []]


@pytest.mark.parametrize("release", [None, "4.57.0"])
def test_round_twentyfour_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*(line + K for line in [*COMMENTED.values(), *STILL_STATED.values(), *DOCUMENTS.values()]),
              *(in_update(exception) for exception in OTHER_CLASS.values()), in_update(IE),
              traceback("/home/u/run.py", "<module>", "k = cache.key_cache[0]",
                        "RuntimeError: 'DynamicCache' object has no attribute 'key_cache'"),
              *(text for text, _ in HELD.values()), *HOSTILE[:2]]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    confirmed = [[one[0] for one in p["found"] if one[1] == "confirmed"] for p in python]
    if release is None:
        n = len(COMMENTED)
        assert confirmed[:n] == [[]] * n
        assert confirmed[n:n + len(STILL_STATED)] == [[KEY]] * len(STILL_STATED)
        at = n + len(STILL_STATED) + len(DOCUMENTS)
        assert confirmed[n + len(STILL_STATED):at] == [[]] * len(DOCUMENTS)
        assert confirmed[at:at + len(OTHER_CLASS) + 2] == [[]] * len(OTHER_CLASS) + [[IDX], []]


# -- the paste box's origin: the words `errorkb lookup` prints ----------------------------------------------------------

ORIGIN_ITEMS = [
    {"id": "a", "function": "Cache.update"},  # an older index's raise: from its function
    {"id": "b", "function": "DynamicCache.get_max_cache_shape", "kind": "removed"},  # a removed API's: unsaid
    {"id": "c", "origin": ["at a use of", "x.y"], "function": "z", "kind": "removed"},
    {"id": "d", "origin": ["at a use of"], "function": "z"},  # malformed: read as an older index's
    {"id": "e", "origin": ["", "x"], "kind": "removed"},
    {"id": "f", "origin": [1, 2], "function": "z", "kind": "raise"},
    {"id": "g"},
]


def test_the_page_reads_each_origin_as_the_cli_does(real_index):
    """lookup.js's `origin` (what the paste box shows beside the exception) and the Python `Known.origin` (what
    `errorkb lookup` prints) agree on every entry of the shipped index and on an older or malformed index's items."""
    from errorkb.lookup import Known
    from tests.site.test_lookup_js import run_js

    base = {"title": "t", "exception": "ValueError", "message": "m"}
    items = [*real_index["entries"], *({**base, **item} for item in ORIGIN_ITEMS)]
    js = run_js("console.log(JSON.stringify(data.map((item) => L.origin(item))));", items)
    python = [None if one is None else list(one) for one in (Known.from_index(item).origin for item in items)]
    assert js == python
    assert python[-len(ORIGIN_ITEMS):] == [["from", "Cache.update"], None, ["at a use of", "x.y"], ["from", "z"],
                                           None, ["from", "z"], None]
    assert sum(one is not None for one in python) > len(real_index["entries"]) // 2


@pytest.fixture(scope="module")
def real_index():
    from tests.site.test_lookup_js import real_index as built

    return built.__wrapped__()

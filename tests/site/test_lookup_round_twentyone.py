"""Round twenty-one: attacks on the paste reader in shapes rounds one to twenty did not try, asked of the matcher, the
page's script and the hook alike.

The new shapes found no confirmed wrong answer. Five known limits (strict xfails of rounds ten, fourteen, eighteen and
nineteen; the first two confirmed an entry on evidence the paste does not hold) closed, each as a class:

- a removed name only quoted inside a string's text on the failing line (`log("cache.key_cache is gone")`) read as a
  use of it, which confirms the removal. A string is text, not code: the failing line is read as it uses names
  (`_match.code_used`), each string literal's text blanked unless the whole literal is a name or a dotted name
  (`getattr(cache, "key_cache")`, `attrgetter("cache.key_cache")`: a use by reflection; `rules.NAMED_STRING`) or it
  is an f-string's replacement field (`f"{cache.key_cache[0]}"`: code). No list of functions: the string says what
  it is;
- an environment's name in a shell's prompt (`(transformers 4.57.0) u@host:~$ python run.py`, cmd's, PowerShell's,
  zsh's) was read as the release installed, which confirms an entry whose words only tie it on that release: the
  parentheses that open a prompt's line name the environment as its user chose (`rules.PROMPT_OPEN`, `PROMPT_CLOSE`);
- a JSON log record escaped three times was read two layers deep (`JSON_DEPTH` was 2): each pass now reads one layer,
  until a pass finds none, bounded by the layers a kept paste can hold (a layer doubles the backslashes);
- a traceback inside a Python repr (a dict printed, `{'exc_info': 'Traceback ...\\n...'}`) was left unread: it is
  read where a JSON record's string is, with Python's escapes (`rules.REPR_TRACEBACK`);
- a traceback split over one JSON record per line (Docker's json-file log of plain output, a log shipper's record of
  it) was left unread: a record whose value is one line ended by its escaped line break is read as that line
  (`rules.LINE_RECORD`).

The attacks that found nothing to fix are kept as tests of their answer:

- evidence lent from one error to another: a traceback whose frames are the entry's, ending in another error, and the
  entry's words in a second traceback from the user's own code (after prose, directly after, or chained by "During
  handling" or "direct cause");
- a chain whose inner error is the entry's and whose outer one is the user's own `raise`: the entry's error is the
  cause, confirmed;
- a release stated for another package read as the library's: a distribution whose name holds the library's
  (`sentence-transformers`, `transformers-stream-generator`, `spacy-transformers`, `ctransformers`), another package
  (`torch`, `vllm`, `peft`), a `pip list` or `pip show` of another package, `pipdeptree`'s `required:` range, a
  requirement's specifier, a model's `transformers_version`;
- an environment's folder named after a release (`envs/transformers-4.57.0/`), a project's folder so named;
- the entry's name inside a longer identifier, a path, a function's name, a comment.
"""

from __future__ import annotations

import json

import pytest

from tests.site.lookupkb import answer, kb  # noqa: F401  (the fixture)

KEY = "key-cache-removed"  # words alone a candidate: the release (>=4.56) or the failing line's use confirms
K = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'"
TB = "Traceback (most recent call last):"


def failing(line: str, path: str = "/home/u/app/run.py", function: str = "main") -> str:
    """The user's traceback whose failing line is `line`, ending in the entry's words."""
    return "\n".join([TB, f'  File "{path}", line 12, in {function}', f"    {line}", K])


# -- the known limit closed: a name only inside a string's text is no use of it --------------------------------------

TEXT = {
    "log": 'log("cache.key_cache is gone")',
    "print": "print('key_cache was removed, see the docs')",
    "f-string-text": 'logger.info(f"{n} layers, no key_cache any more")',
    "raise-message": 'warn("use layers[i].keys instead of key_cache")',
    "escaped-quote": 'print("it\'s the key_cache")',
    "bytes": "send(b'key_cache lost')",
}


@pytest.mark.parametrize("line", TEXT.values(), ids=TEXT.keys())
def test_a_name_only_inside_a_strings_text_is_no_use_of_it(kb, line):  # noqa: F811
    assert answer(kb, failing(line)) == ([], [KEY])


USED = {
    "attribute": "k = past.key_cache[0]",
    "getattr": "k = getattr(past, 'key_cache')",
    "hasattr": 'if hasattr(past, "key_cache"): k = past.key_cache',
    "attrgetter-dotted": 'k = attrgetter("past.key_cache")(self)',
    "f-string-field": 'print(f"first: {past.key_cache[0].shape}")',
    "f-string-nested": "print(f\"{getattr(past, 'key_cache')}\")",
    "rf-string-field": 'print(rf"{past.key_cache}")',
    "string-then-code": 'print("keys:", past.key_cache)',
    "triple-quoted-name": 'k = getattr(past, """key_cache""")',
}


@pytest.mark.parametrize("line", USED.values(), ids=USED.keys())
def test_a_use_of_the_name_in_code_or_by_reflection_still_confirms(kb, line):  # noqa: F811
    assert answer(kb, failing(line)) == ([KEY], [])


# -- the known limit closed: an environment's name in a shell's prompt states no release ---------------------------

PROMPTS = {
    "bash": "(transformers 4.57.0) u@host:~$ python run.py\n",
    "bash-root": "(transformers 4.57.0) root@1f2e:/workspace# python run.py\n",
    "bare": "(transformers==4.57.0) $ python run.py\n",
    "zsh": "(transformers 4.57.0) host% python run.py\n",
    "windows": "(transformers 4.57.0) C:\\Users\\u> python run.py\n",
    "powershell": "(transformers 4.57.0) PS C:\\Users\\u> python run.py\n",
    "prompt-alone": "(transformers 4.57.0) u@host:~$\n",
}


@pytest.mark.parametrize("prompt", PROMPTS.values(), ids=PROMPTS.keys())
def test_an_environments_name_in_a_shells_prompt_states_no_release(kb, prompt):  # noqa: F811
    assert answer(kb, prompt + K) == ([], [KEY])


STILL_STATED = {
    "parenthesised-alone": "(transformers 4.57.0)\n",
    "parenthesised-prose": "I run it here (transformers 4.57.0) and get:\n",
    "not-a-prompt": "(transformers 4.57.0) fails > see below\n",
    "installed-in-the-prompts-env": "(myenv) u@host:~$ pip show transformers\nName: transformers\nVersion: 4.57.0\n",
}


@pytest.mark.parametrize("stated", STILL_STATED.values(), ids=STILL_STATED.keys())
def test_a_release_in_parentheses_that_open_no_prompt_is_still_stated(kb, stated):  # noqa: F811
    assert answer(kb, stated + K) == ([KEY], [])


# -- the known limit closed: a record escaped at any depth is read ------------------------------------------------

def escaped(depth: int) -> str:
    """A JSON log record's traceback (`exc_info`) inside another record's string, `depth` layers of JSON in all."""
    from tests.site.test_lookup_round_nineteen import INDEX_ERROR

    text = json.dumps({"exc_info": INDEX_ERROR})
    for layer in range(depth - 1):
        text = json.dumps({f"log{layer}": text})
    return text


@pytest.mark.parametrize("depth", [3, 4, 6])
def test_a_record_escaped_at_any_depth_is_read(kb, depth):  # noqa: F811
    """Round nineteen read two layers (a strict xfail for three); each pass now reads one more, until none is left."""
    assert answer(kb, escaped(depth)) == (["layer-idx-out-of-range"], [])


def test_the_layers_a_kept_paste_can_hold_bound_the_passes():
    """Each layer doubles the backslashes before the marker's `n`: a paste of `CAP` characters holds `JSON_DEPTH`."""
    from errorkb.lookup import rules

    assert 2 ** (rules.JSON_DEPTH - 1) >= rules.CAP // 2


# -- the known limit closed: a traceback in a Python repr is read as in a JSON string -------------------------------

def reprs() -> dict[str, str]:
    from tests.site.test_lookup_round_nineteen import INDEX_ERROR

    odd = INDEX_ERROR.replace("list index", "list\x07index")  # repr writes `\x07`
    return {
        "dict": "{'levelname': 'ERROR', 'exc_info': " + repr(INDEX_ERROR) + "}",
        "alone": repr(INDEX_ERROR),
        "pprint-key": "{'levelname': 'ERROR',\n 'exc_info': " + repr(INDEX_ERROR) + "}",
        "logged": "2025-01-02 10:00:00,123 ERROR {'msg': 'failed', 'args': ('a', 1, None), 'exc_info': "
                  + repr(INDEX_ERROR) + "}",
        "escapes": "{'exc_info': " + repr(odd) + "}",
    }


@pytest.mark.parametrize("name", ["dict", "alone", "pprint-key", "logged"])
def test_a_traceback_in_a_python_repr_is_read(kb, name):  # noqa: F811
    assert answer(kb, reprs()[name]) == (["layer-idx-out-of-range"], [])


def test_a_reprs_escapes_are_read_as_python_writes_them():
    from errorkb.lookup import normalize

    assert "list\x07index" in normalize(reprs()["escapes"])
    astral = "{'exc_info': 'Traceback (most recent call last):\\n  File \"/me/x.py\", line 1, in f\\nKeyError: \\U0001f600'}"
    assert "KeyError: \U0001f600\n" in normalize(astral)  # (not in the page's set: a UTF-16 pair counts two there)


def test_a_repr_in_a_line_of_source_code_is_code(kb):  # noqa: F811
    """As round nineteen's JSON: a frame's code line holding a repr is never a record; the user's own error stays."""
    from tests.site.test_lookup_round_nineteen import INDEX_ERROR

    text = "\n".join([TB, '  File "/me/t.py", line 3, in <module>', "    rec = {'exc_info': " + repr(INDEX_ERROR) + "}",
                      "KeyError: 'x'"])
    assert answer(kb, text)[0] == []


# -- the known limit closed: a traceback split over one JSON record per line is read --------------------------------

def per_line(text: str, **fields: str) -> str:
    """Docker's json-file log of plain output: one record per line, each holding one line and its line break."""
    return "\n".join(json.dumps({"log": line + "\n", "stream": "stderr", **fields}) for line in text.split("\n"))


def split_records() -> dict[str, str]:
    from tests.site.test_lookup_round_nineteen import INDEX_ERROR

    return {
        "docker": per_line(INDEX_ERROR, time="2025-01-02T10:00:00Z"),
        "fluentd": "\n".join(json.dumps({"container_id": "1f2e", "source": "stderr", "log": line + "\n"})
                             for line in INDEX_ERROR.split("\n")),
        "stamped": "\n".join("2025-01-02 10:00:00 " + json.dumps({"log": line + "\n"}) for line in INDEX_ERROR.split("\n")),
        "windows-path": per_line(INDEX_ERROR.replace("/usr/local/lib/python3.10/dist-packages/",
                                                     "C:\\Python310\\Lib\\site-packages\\").replace("/", "\\")),
    }


@pytest.mark.parametrize("name", ["docker", "fluentd", "stamped", "windows-path"])
def test_a_traceback_split_over_one_record_per_line_is_read(kb, name):  # noqa: F811
    assert answer(kb, split_records()[name]) == (["layer-idx-out-of-range"], [])


def test_a_record_per_line_in_a_line_of_source_code_is_code(kb):  # noqa: F811
    """A frame's code line that holds such a record (five blanks before it) is code, as round nineteen's."""
    from tests.site.test_lookup_round_nineteen import INDEX_ERROR

    lines = ["    " + json.dumps({"log": line + "\n"}) for line in INDEX_ERROR.split("\n")]
    text = "\n".join([TB, '  File "/me/t.py", line 3, in <module>', *lines, "KeyError: 'x'"])
    assert answer(kb, text)[0] == []


def test_records_per_line_are_read_in_bounded_time():
    """A hang guard (a child process): lines of 60 KB of strings that end with a line break, or almost do, and a
    failing line of as many strings."""
    import subprocess
    import sys

    code = ("import json; from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "from tests.site.test_lookup_round_twentyone import HOSTILE_LINES; "
            "print(json.dumps([len(kb.answer(line, None).confirmed) for line in HOSTILE_LINES]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [0] * len(HOSTILE_LINES)


HOSTILE_LINES = [
    "{" + '"a\\n" ' * 12000 + "x",  # strings that end with a line break, never closed
    "{" + '"a\\\\n", ' * 8000,  # strings that end with an escaped backslash and `n`
    '{"log": "' + "a" * 60000,  # a string never closed
    "{" + '"a", ' * 12000 + '"b\\n", ' + '"c\\n" ' * 5000 + "x",  # the line found, the record never closed
    failing("x = f(" + 'f"a{b}", ' * 6000 + ")"),  # a failing line of many strings, read as it uses names
]


# -- attacks that found nothing to fix (kept: their answers) ---------------------------------------------------------

DETACH = "trainer-eval-dynamic-cache-detach"  # its frame in `nested_detach` confirms; words alone a candidate
D = "AttributeError: 'DynamicCache' object has no attribute 'detach'"
SP = "/opt/venv/lib/python3.10/site-packages/"
TRAINER = [f'  File "{SP}transformers/trainer.py", line 4000, in prediction_step', "    logits = nested_detach(logits)",
           f'  File "{SP}transformers/trainer_pt_utils.py", line 190, in nested_detach',
           "    return type(tensors)(nested_detach(t) for t in tensors)"]
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
USER = ['  File "/home/u/app/eval.py", line 40, in <module>', "    past = out.past_key_values.detach()"]
HANDLING = "During handling of the above exception, another exception occurred:"
CAUSE = "The above exception was the direct cause of the following exception:"
OWN_RAISE = ['  File "/home/u/app/eval.py", line 44, in <module>', '    raise RuntimeError("evaluation failed") from e',
             "RuntimeError: evaluation failed"]

LENT = {
    # the entry's frames belong to the first error, its words to the second (the user's own code)
    "after-prose": "\n".join([TB, *TRAINER, OOM, "", "I lowered the batch size and now:", "", TB, *USER, D]),
    "directly-after": "\n".join([TB, *TRAINER, OOM, TB, *USER, D]),
    "during-handling": "\n".join([TB, *TRAINER, OOM, "", HANDLING, "", TB, *USER, D]),
    "direct-cause": "\n".join([TB, *TRAINER, OOM, "", CAUSE, "", TB, *USER, D]),
    # the user's error first, the entry's frames under another error after it
    "frames-after": "\n".join([TB, *USER, D, "", HANDLING, "", TB, *TRAINER, OOM]),
}


@pytest.mark.parametrize("text", LENT.values(), ids=LENT.keys())
def test_frames_of_one_error_tie_no_other_error_to_the_entry(kb, text):  # noqa: F811
    assert answer(kb, text)[0] == []


@pytest.mark.parametrize("link", [HANDLING, CAUSE])
def test_the_entrys_error_under_the_users_own_raise_is_the_cause_and_confirms(kb, link):  # noqa: F811
    assert answer(kb, "\n".join([TB, *TRAINER, D, "", link, "", TB, *OWN_RAISE])) == ([DETACH], [])


OTHER_PACKAGE = {
    "sentence-transformers==": "sentence-transformers==4.57.0\n",
    "sentence-transformers": "sentence-transformers 4.57.0\n",
    "sentence_transformers": "sentence_transformers 4.57.0\n",
    "stream-generator": "transformers-stream-generator==4.57.0\n",
    "spacy-transformers": "spacy-transformers==4.57.0\n",
    "ctransformers": "ctransformers==4.57.0\n",
    "torch": "torch 4.57.0\n",
    "vllm": "vllm==4.57.0\n",
    "peft-template": "- `peft` version: 4.57.0\n",
    "pip-show": "Name: peft\nVersion: 4.57.0\n",
    "pip-list": "Package                  Version\n------------------------ -------\nsentence-transformers    4.57.0\n",
    "pipdeptree": "peft==0.13.0\n  - transformers [required: >=4.57.0, installed: 4.46.0]\n",
    "specifier": "transformers>=4.57.0\n",
    "model-config": '"transformers_version": "4.57.0",\n',
    "dist-info-of-another": f'  File "{SP}sentence_transformers-4.57.0.dist-info/x.py", line 1, in f\n',
}


@pytest.mark.parametrize("stated", OTHER_PACKAGE.values(), ids=OTHER_PACKAGE.keys())
def test_a_release_of_another_package_states_none_of_the_librarys(kb, stated):  # noqa: F811
    assert answer(kb, stated + K) == ([], [KEY])


def test_the_librarys_own_release_in_the_same_shapes_still_confirms(kb):  # noqa: F811
    for stated in ("transformers==4.57.0\n", "Name: transformers\nVersion: 4.57.0\n",
                   "Package                  Version\n------------------------ -------\ntransformers             4.57.0\n"):
        assert answer(kb, stated + K) == ([KEY], []), stated


WHISPER = ['  File "{root}/transformers/models/whisper/modeling_whisper.py", line 400, in forward',
           "    k = past_key_value.key_cache[self.layer_idx]"]
FOLDERS = {
    "venv": "/home/u/venvs/transformers-4.57.0/lib/python3.10/site-packages",
    "conda-env": "/opt/conda/envs/transformers-4.57.0/lib/python3.10/site-packages",
    "pyenv": "/home/u/.pyenv/versions/4.57.0/lib/python3.10/site-packages",
    "project": "/workspace/vllm-4.57.0/.venv/lib/python3.10/site-packages",
}


@pytest.mark.parametrize("root", FOLDERS.values(), ids=FOLDERS.keys())
def test_a_folder_named_after_a_release_states_none(kb, root):  # noqa: F811
    """The library's own frame reading `key_cache` is the other cause (a release that still had it): nothing."""
    text = "\n".join([TB, *(line.format(root=root) for line in WHISPER), K])
    assert answer(kb, text) == ([], [])


INSIDE = {
    "longer-identifier": "k = past.key_cache_fn(0)",
    "prefixed-identifier": "my_key_cache = past.layers[0].keys",
    "comment": "out = model(x)  # uses .key_cache",
}


@pytest.mark.parametrize("line", INSIDE.values(), ids=INSIDE.keys())
def test_the_name_inside_a_longer_name_or_a_comment_is_no_use(kb, line):  # noqa: F811
    assert answer(kb, failing(line)) == ([], [KEY])


@pytest.mark.parametrize("where", [{"path": "/home/u/key_cache/run.py"}, {"function": "key_cache"}])
def test_the_name_in_a_path_or_a_functions_name_is_no_use(kb, where):  # noqa: F811
    assert answer(kb, failing("out = model(x)", **where)) == ([], [KEY])


# -- the page, the CLI and the hook ---------------------------------------------------------------------------------

@pytest.mark.parametrize("release", [None, "4.46.0", "4.57.0"])
def test_round_twentyone_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*(failing(line) for line in [*TEXT.values(), *USED.values(), *INSIDE.values()]), *LENT.values(),
              *(stated + K for stated in [*OTHER_PACKAGE.values(), *PROMPTS.values(), *STILL_STATED.values()]),
              *(escaped(depth) for depth in (3, 4, 6)), *reprs().values(), *split_records().values(), *HOSTILE_LINES]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    if release is None:
        assert [p["found"][0][:2] for p in python[:len(TEXT)]] == [[KEY, "candidate"]] * len(TEXT)
        assert [p["found"][0][:2] for p in python[len(TEXT):len(TEXT) + len(USED)]] == [[KEY, "confirmed"]] * len(USED)

"""Composite pastes: what a terminal or a log holds besides the one error, built from real shapes (a
retried request's traceback before the error that ended the run, a worker's message quoting another
traceback, a report's prose naming two releases). The evidence that confirms an entry must belong to the
error it is read for: frames of an earlier traceback, which ended in its own exception line, are not the
frames of a later exception line; a paste that states two releases does not tell which one raised. Asked
of the real entries (as `errorkb lookup` reads them), and of the page's script and the hook alike."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import Lookup

SITE = "/venv/lib/python3.11/site-packages"


def frame(path: str, line: int, function: str, code: str) -> str:
    return f'  File "{path}", line {line}, in {function}\n    {code}\n'


# A request that ran out of memory inside the cache's update (a serving loop logs it and goes on).
OOM = ("Traceback (most recent call last):\n"
       + frame("/srv/app/serve.py", 88, "handle", "out = model.generate(**batch)")
       + frame(f"{SITE}/transformers/cache_utils.py", 1376, "update",
               "keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)")
       + frame(f"{SITE}/transformers/cache_utils.py", 120, "update",
               "self.keys = torch.cat([self.keys, key_states], dim=-2)")
       + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
         "79.19 GiB of which 1.06 GiB is free.\n")
# The same words as layer-idx-out-of-range (Python's, any list), raised later by other code, without a traceback.
LATER = [
    OOM + "IndexError: list index out of range\n",
    OOM + "INFO:     127.0.0.1:53122 - \"POST /generate HTTP/1.1\" 500 Internal Server Error\n"
          "ERROR:root:request 7 failed: IndexError: list index out of range\n",
    # a worker's error whose message quotes the remote traceback, then the error that ended the run
    ("Traceback (most recent call last):\n" + frame("/srv/app/run.py", 10, "<module>", "outs = engine.run(prompts)")
     + frame(f"{SITE}/myengine/worker.py", 50, "step", "raise RuntimeError(f'worker died: {remote}')")
     + "RuntimeError: worker died: Traceback (most recent call last):\n"
     + OOM.split("\n", 1)[1] + "\nIndexError: list index out of range\n"),
]
KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n"
# key-cache-removed (>=4.56) against its other cause on <4.56 (a compiled Whisper forward on 4.46): a paste that
# states a release of each side tells nothing; the last one named is not the one that raised.
TWO_RELEASES = [
    "Fails with transformers 4.46.0, works with transformers 4.57.1:\n" + KEY_CACHE,
    "transformers==4.46.0\n" + KEY_CACHE + "\nAfter pip install -U transformers:\nSuccessfully installed "
    "transformers-4.57.1\n",
    # the issue template's environment block, and an egg's path in the traceback: two installs, two releases
    "- `transformers` version: 4.57.1\n- Platform: Linux-5.15.0-x86_64-with-glibc2.35\n\nTraceback (most recent call "
    "last):\n" + frame("/me/asr.py", 12, "<module>", "out = compiled(input_features)")
    + frame(f"{SITE}/transformers-4.46.0-py3.10.egg/transformers/models/whisper/modeling_whisper.py", 1130, "forward",
            "past_key_values.key_cache")
    + KEY_CACHE,
]


# pytest's report: a failing test's long entries, its `E` line, then the summary line that says it again.
PYTEST_A = (
    "___________________________________ test_a ____________________________________\n\n"
    "    def test_a():\n>       model.generate(**batch)\n\ntests/test_x.py:8: \n"
    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n\n"
    "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
    ">       keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)\n"
    "E       {error}\n\n" + SITE + "/transformers/cache_utils.py:1376: {name}\n")
PYTEST_B = ("___________________________________ test_b ____________________________________\n\n"
            "    def test_b():\n>       row = rows[5]\nE       IndexError: list index out of range\n\n"
            "tests/test_x.py:12: IndexError\n")
SUMMARY = "=========================== short test summary info ============================\n"
PYTEST_ONE = (PYTEST_A.format(error="IndexError: list index out of range", name="IndexError") + SUMMARY
              + "FAILED tests/test_x.py::test_a - IndexError: list index out of range\n")
PYTEST_TWO = (PYTEST_A.format(error="torch.OutOfMemoryError: CUDA out of memory.", name="OutOfMemoryError") + PYTEST_B
              + SUMMARY + "FAILED tests/test_x.py::test_a - torch.OutOfMemoryError: CUDA out of memory.\n"
              "FAILED tests/test_x.py::test_b - IndexError: list index out of range\n")
LATER.append(PYTEST_TWO)
# A notebook's two cells, both failed (IPython prints no `Traceback (most recent call last):` line of Python's).
NOTEBOOK_OOM = (
    "---------------------------------------------------------------------------\n"
    "OutOfMemoryError                          Traceback (most recent call last)\nCell In[4], line 2\n"
    '      1 batch = tok(prompts, return_tensors="pt").to("cuda")\n'
    "----> 2 out = model.generate(**batch, max_new_tokens=64)\n\n"
    f"File {SITE}/transformers/cache_utils.py:1376, in DynamicCache.update(self, key_states, value_states, "
    "layer_idx, cache_kwargs)\n   1374     self.append_new_layers(layer_idx)\n"
    "-> 1376 keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)\n"
    "   1377 return keys, values\n\nOutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n\n")
LATER += [
    NOTEBOOK_OOM + "---------------------------------------------------------------------------\n"
    "IndexError                                Traceback (most recent call last)\nCell In[5], line 1\n"
    "----> 1 print(results[7])\n\nIndexError: list index out of range\n",
    NOTEBOOK_OOM + "IndexError: list index out of range\n",
]

# cache-only-has-0-layers knows its `'NoneType' object has no attribute 'shape'` by the failing line
# `past_key_values[0][0]` (recognised_by): a line of another error's traceback is not this error's.
LEGACY_INDEXING = ("Traceback (most recent call last):\n"
                   + frame("/me/run.py", 20, "step", "seq_len = past_key_values[0][0].shape[2]")
                   + "TypeError: 'NoneType' object is not subscriptable\n")
IMAGE = ("Traceback (most recent call last):\n" + frame("/me/run.py", 40, "load_image", "h, w = img.shape[:2]")
         + "AttributeError: 'NoneType' object has no attribute 'shape'\n")
RECOGNISED_ELSEWHERE = [
    LEGACY_INDEXING + "\n" + IMAGE,
    LEGACY_INDEXING + "\nDuring handling of the above exception, another exception occurred:\n\n" + IMAGE,
]


@pytest.fixture(scope="module")
def kb() -> Lookup:
    return project_known_lookup()


def confirmed(kb: Lookup, text: str, release: str | None = None) -> list[str]:
    return [m.known.id for m in kb.answer(text, release).confirmed]


@pytest.mark.parametrize("paste", LATER, ids=["bare", "logged", "quoted", "pytest", "notebook", "notebook-bare"])
def test_an_earlier_tracebacks_frames_never_confirm_a_later_exception_line(kb, paste):
    """The OOM traceback ran through `Cache.update`; the IndexError after it has no traceback of its own (a
    candidate), or one of its own raised elsewhere (pytest's second failing test: ruled out)."""
    assert confirmed(kb, paste) == []
    answer = kb.answer(paste)
    if paste is PYTEST_TWO:
        assert [one.match.known.id for one in answer.ruled_out] == ["layer-idx-out-of-range"]
    else:
        assert "layer-idx-out-of-range" in [m.known.id for m in answer.candidates]


def test_the_same_frames_above_their_own_exception_line_still_confirm(kb):
    """The control: the traceback whose frames they are, ending in the entry's error, is confirmed."""
    paste = OOM.rsplit("torch.OutOfMemoryError", 1)[0] + "IndexError: list index out of range\n"
    assert confirmed(kb, paste) == ["layer-idx-out-of-range"]
    chained = OOM + "\nDuring handling of the above exception, another exception occurred:\n\n" + paste
    assert confirmed(kb, chained) == ["layer-idx-out-of-range"]


def test_a_line_that_says_the_same_error_again_keeps_its_traceback(kb):
    """pytest's summary line (a log's `str(e)` likewise) restates the error whose traceback is above it."""
    assert confirmed(kb, PYTEST_ONE) == ["layer-idx-out-of-range"]


@pytest.mark.parametrize("paste", TWO_RELEASES, ids=["prose", "pip", "egg"])
def test_a_paste_that_states_two_releases_is_not_read_as_its_last(kb, paste):
    assert confirmed(kb, paste) == []
    if paste is not TWO_RELEASES[-1]:  # the egg's traceback reads `key_cache` in transformers' own file: ruled out
        assert [m.known.id for m in kb.answer(paste).candidates] == ["key-cache-removed"]


def test_one_stated_release_still_tells_the_causes_apart(kb):
    assert confirmed(kb, "transformers==4.57.1\n" + KEY_CACHE) == ["key-cache-removed"]
    assert confirmed(kb, "transformers 4.57.1 and transformers==4.57.1\n" + KEY_CACHE) == ["key-cache-removed"]
    assert kb.answer("transformers==4.46.0\n" + KEY_CACHE).matches == []  # ruled out: outside its wording's range


@pytest.mark.parametrize("paste", RECOGNISED_ELSEWHERE, ids=["separate", "chained"])
def test_a_recognised_line_in_another_errors_traceback_never_confirms(kb, paste):
    """The image's AttributeError shows its own failing line; the cache's indexing belongs to the TypeError."""
    assert confirmed(kb, paste) == []


def test_a_recognised_line_in_the_errors_own_traceback_still_confirms(kb):
    own = ("Traceback (most recent call last):\n" + frame("/me/run.py", 20, "step", "seq_len = past_key_values[0][0].shape[2]")
           + "AttributeError: 'NoneType' object has no attribute 'shape'\n")
    assert confirmed(kb, IMAGE + "\n" + own) == ["cache-only-has-0-layers"]
    assert confirmed(kb, own) == ["cache-only-has-0-layers"]


@pytest.mark.parametrize("release", [None, "4.46.0", "5.15.1"])
def test_composite_pastes_get_the_same_answers_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*LATER, *RECOGNISED_ELSEWHERE, *TWO_RELEASES, PYTEST_ONE], release)
    assert all(not any(one[1] == "confirmed" for one in p["found"]) for p in python[:len(LATER) + len(RECOGNISED_ELSEWHERE)])
    if release is None:  # a release given (installed) is the one: then a stated pair does not count
        assert all(not any(one[1] == "confirmed" for one in p["found"]) for p in python[len(LATER) + len(RECOGNISED_ELSEWHERE):-1])


# -- which error of a paste is the user's: the one that ended it ------------------------------------------------
# A retried step logged the removed method's AttributeError with its own traceback; the run then died of another.
GET_MAX = ("Traceback (most recent call last):\n"
           + frame("/me/.cache/huggingface/modules/transformers_modules/phi3/modeling_phi3.py", 1290,
                   "prepare_inputs_for_generation", "max_cache_length = past_key_values.get_max_length()")
           + "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'\n")
FATAL = ("Traceback (most recent call last):\n" + frame("/me/run.py", 31, "<module>", "out = model.generate(**batch)")
         + frame(f"{SITE}/torch/nn/modules/module.py", 1553, "_call_impl", "return forward_call(*args, **kwargs)")
         + "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n")
NOT_THE_LAST = [
    GET_MAX + "WARNING:root:retrying without the cache\n" + FATAL,  # a separate traceback, then the fatal one
    GET_MAX + "\n" + FATAL,
    # prose: the words alone, no exception line of their own
    "I fixed the 'DynamicCache' object has no attribute 'get_max_length' error, but now:\n" + FATAL,
    "I fixed the `AttributeError: 'DynamicCache' object has no attribute 'get_max_length'` error, but now:\n" + FATAL,
    # a bare exception line that ended the paste, another exception than the one above it
    GET_MAX + "ERROR:root:step 7 failed: KeyError: 'input_ids'\n",
    # round seven: a handler that caught the error and fell back to other code, which failed there (its failing line
    # is no `raise`, its message does not restate the first): the paste ended with a new error
    GET_MAX + "\nDuring handling of the above exception, another exception occurred:\n\n" + FATAL,
    # round seven: a later traceback whose exception has no message (Python prints its name alone)
    GET_MAX + "\nTraceback (most recent call last):\n" + frame("/me/run.py", 40, "<module>", "assert ok") + "AssertionError\n",
]
# The error that ended the paste: the same one as the documented error's, or tied to it.
THE_LAST = [
    GET_MAX,
    # a chain: the handler raised the later error (its failing line a `raise`), or `raise ... from`
    GET_MAX + "\nDuring handling of the above exception, another exception occurred:\n\n"
    + "Traceback (most recent call last):\n" + frame("/me/run.py", 33, "<module>", 'raise RuntimeError("generation failed")')
    + "RuntimeError: generation failed\n",
    GET_MAX + "\nThe above exception was the direct cause of the following exception:\n\n" + FATAL,
    # a wrapper quoting the error on its own line
    FATAL.rsplit("RuntimeError", 1)[0] + "RuntimeError: generation failed: AttributeError: 'DynamicCache' object "
                                         "has no attribute 'get_max_length'\n",
    # what a terminal prints after the error that is no exception: a log's level, a warning at shutdown
    GET_MAX + "INFO:     Shutting down\nINFO:     Finished server process [4242]\n",
    GET_MAX + "/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There "
              "appear to be 1 leaked semaphore objects to clean up at shutdown\n",
    # a title, then the traceback it names; pytest's summary line restating it (cut at the terminal's width)
    "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'\n\n" + GET_MAX,
    GET_MAX + SUMMARY + "FAILED tests/test_gen.py::test_generate - AttributeError: 'DynamicCache' object has no "
                        "attri...\n",
]


@pytest.mark.parametrize("paste", NOT_THE_LAST, ids=["logged", "separate", "prose", "prose-quoted", "bare-later",
                                                   "handled-fallback", "later-bare-exception"])
def test_an_error_the_paste_did_not_end_with_is_only_a_candidate(kb, paste):
    """The documented error is in the paste, but the run ended with another: a candidate, which says why."""
    answer = kb.answer(paste)
    assert confirmed(kb, paste) == []
    found = [m for m in answer.candidates if m.known.id == "get-max-length-removed"]
    assert found and any("not in the error it ended with" in hint for hint in found[0].missing)


@pytest.mark.parametrize("paste", THE_LAST, ids=["alone", "during", "cause", "inline", "log", "warning", "title",
                                                 "pytest-cut"])
def test_the_error_the_paste_ended_with_still_confirms(kb, paste):
    assert confirmed(kb, paste)[:1] == ["get-max-length-removed"]


def test_a_device_assert_printed_before_the_error_that_reports_it_is_unchanged(kb):
    """The kernel prints its assertion; a later call raises `CUDA error: device-side assert triggered`."""
    paste = ('/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:175: operator(): block: [0,0,0], thread: [66,0,0] '
             'Assertion `idx >= 0 && idx < self_dim_size && "index_copy_(): index out of bounds"` failed.\n'
             "Traceback (most recent call last):\n" + frame("/me/run.py", 9, "<module>", "out = model.generate(**b)")
             + frame(f"{SITE}/transformers/cache_utils.py", 480, "update",
                     "self.keys.index_copy_(2, cache_position, key_states)")
             + "RuntimeError: CUDA error: device-side assert triggered\n")
    assert [(m.known.id, m.grade.value) for m in kb.answer(paste).matches] == [("static-cache-overflow", "confirmed")]


@pytest.mark.parametrize("release", [None, "4.57.1"])
def test_the_error_a_paste_ended_with_decides_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*NOT_THE_LAST, *THE_LAST], release)
    for index, answer in enumerate(python):
        grades = {one[0]: one[1] for one in answer["found"]}
        expect = "candidate" if index < len(NOT_THE_LAST) else "confirmed"
        assert grades.get("get-max-length-removed") == expect, index

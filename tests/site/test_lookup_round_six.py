"""Round six of the diagnosis (issue 19): the shapes of a paste the lookup did not read, and statements of a release
it read wrongly, each as a class, each tried in the page's script, the CLI's matcher and the hook alike.

- loguru's traceback (`logger.exception`, `logger.catch`) marks the frame where the error was caught with `> `
  (`> File "app.py", line 8, in step`), puts a blank line between frames and draws the values of names below each
  failing line (`    └ <object ...>`): the marked frame is a frame like the others;
- a log that states the error before where it was raised (`ValueError: ...⏎  File "x.py", line 3, in f⏎    code`,
  corpus h299) shows that error's frames after it: read as its traceback, the same answer as in Python's order;
- a line that says the release named on the line before works or fixed it (a reply: `transformers==4.57.1⏎fixed it
  for me`) states no release, as the same words on one line do;
- a line that says something does *not* work on a release (`doesn't work on transformers 4.57.1`, `still not fixed
  with ...`) states the release that raised: nothing the user wrote is dropped.
"""

from __future__ import annotations

import pytest

from errorkb.lookup import normalize, stated_releases
from errorkb.lookup._paste import frames
from tests.site import lookupkb

kb = lookupkb.kb
_answer = lookupkb.answer


# -- the frames, in the orders and marks other tools print them ---------------------------------------------------

UNPACK = "ValueError: too many values to unpack (expected 2)"
MLX_FRAME = ('  File ".../mlx_lm/models/gemma3n.py", line 133, in __call__\n'
             "    keys, values = cache.state")
CACHE_FRAMES = ('  File "/app/run.py", line 31, in step\n'
                "    k, v = cache.update(key, value, 7)\n"
                '  File "/usr/lib/python3.11/site-packages/transformers/cache_utils.py", line 777, in update\n'
                "    keys, values = self.layers[layer_idx].update(key_states, value_states, cache_kwargs)")
USER_FRAMES = ('  File "/app/run.py", line 31, in step\n'
               "    k = past[7][0]")
INDEX = "IndexError: list index out of range"
# (the frames, the exception line): read in Python's order, each is answered as it should be (see `_plain`)
TRACEBACKS = [(MLX_FRAME, UNPACK), (CACHE_FRAMES, INDEX), (USER_FRAMES, INDEX)]


def _plain(frames_text: str, exception: str) -> str:
    return f"Traceback (most recent call last):\n{frames_text}\n{exception}\n"


def test_in_pythons_order_the_frames_tell(kb):
    """The baseline the other shapes must reach: a frame outside every cache rules the unpack entries out; a frame in
    `Cache.update` confirms the index error; a user's frame alone rules it out."""
    assert [_answer(kb, _plain(*one)) for one in TRACEBACKS] == [
        ([], []), (["layer-idx-out-of-range"], []), ([], [])]


def _loguru(frames_text: str, exception: str, caught: int) -> str:
    """The traceback as loguru prints it: a blank line after the marker and after each frame, the values of the names
    drawn under each failing line, the frame numbered `caught` marked `> ` (where the error was caught)."""
    blocks = []
    lines = frames_text.split("\n")
    for number, (frame, code) in enumerate(zip(lines[::2], lines[1::2])):
        frame = "> " + frame.lstrip() if number == caught else frame
        blocks.append(f"{frame}\n{code}\n    {' ' * (len(code) - len(code.lstrip()))}└ <object at 0x7f3a5c2e1d90>\n")
    return ("2025-03-01 10:12:44.120 | ERROR    | __main__:step:33 - step failed\n"
            "Traceback (most recent call last):\n\n" + "\n".join(blocks) + f"\n{exception}\n")


@pytest.mark.parametrize("frames_text, exception", TRACEBACKS, ids=["mlx", "cache-update", "user"])
def test_a_frame_loguru_marks_as_caught_is_a_frame(kb, frames_text, exception):
    count = frames_text.count("File ")
    for caught in range(count):
        text = _loguru(frames_text, exception, caught)
        assert len(frames(normalize(text))) == count, text
        assert _answer(kb, text) == _answer(kb, _plain(frames_text, exception)), text


def test_a_pytest_failing_line_is_still_no_frame():
    """pytest marks its failing source line `>`: that line is code, never a frame, even one that reads `File`."""
    text = ('    def load(path):\n>       File = open(path)\nE       NameError: name \'open\' is not defined\n\n'
            'app.py:3: NameError\n')
    assert [(one.path, one.line, one.function) for one in frames(normalize(text))] == [("app.py", 3, "load")]


@pytest.mark.parametrize("frames_text, exception", TRACEBACKS, ids=["mlx", "cache-update", "user"])
def test_an_exception_stated_before_its_frames_is_answered_as_in_pythons_order(kb, frames_text, exception):
    """corpus h299: `ValueError: ...` then the frame that raised it. Read as bare words before: the unpack entries
    were offered though the frame (mlx_lm's own cache) rules them out, and the frame in `Cache.update` confirmed
    nothing."""
    text = f"{exception}\n{frames_text}"
    assert _answer(kb, text) == _answer(kb, _plain(frames_text, exception))


def test_frames_followed_by_another_exception_line_are_that_ones(kb):
    """Frames between two exception lines are, in Python's order, the second one's: the first line, a log's note of
    another error, takes none of them."""
    text = f"KeyError: 'pad_token'\n{MLX_FRAME}\n{UNPACK}\n"
    assert _answer(kb, text) == _answer(kb, _plain(MLX_FRAME, UNPACK))
    text = f"{INDEX}\n{USER_FRAMES}\nRuntimeError: generation failed\n{CACHE_FRAMES}\n"
    assert _answer(kb, text)[0] == []  # the user's frame is the RuntimeError's, the cache's frames are none's


def test_frames_after_a_new_traceback_marker_are_not_the_earlier_lines(kb):
    """A marker between the exception line and the frames starts another traceback (cut before its exception line):
    its frames tell nothing of the line above."""
    text = f"{INDEX}\nTraceback (most recent call last):\n{CACHE_FRAMES}\n"
    assert _answer(kb, text) == _answer(kb, INDEX)


# -- what a line around a stated release says of it ----------------------------------------------------------------

KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n"
TRACEBACK = ('Traceback (most recent call last):\n  File "/me/asr.py", line 12, in <module>\n'
             "    out = compiled(input_features)\n")


@pytest.mark.parametrize("prose", [
    "> transformers==4.57.1\n> fixed it for me\n",
    "transformers==4.57.1\nworks for me\n",
    "pip install -U transformers==4.57.1\nand it works now\n",
    "Successfully installed transformers-4.57.1\nSolved, thanks!\n",
], ids=["quoted-reply", "works", "and-it-works", "solved"])
def test_a_release_the_next_line_says_fixed_it_states_none(kb, prose):
    text = prose + TRACEBACK + KEY_CACHE
    assert stated_releases(normalize(text), "transformers") == []
    assert _answer(kb, text) == ([], ["key-cache-removed"])


@pytest.mark.parametrize("prose", [
    "- `transformers` version: 4.57.1\n- Platform: Linux (the workaround from #123 works)\n",
    "transformers==4.57.1\nTraceback below; the model works on CPU.\n",
    "transformers==4.57.1\ndoesn't work\n",
], ids=["template", "other-sentence", "next-line-negated"])
def test_a_release_whose_next_line_says_something_else_is_still_stated(kb, prose):
    text = prose + TRACEBACK + KEY_CACHE
    assert stated_releases(normalize(text), "transformers") == ["4.57.1"]
    assert _answer(kb, text)[0] == ["key-cache-removed"]


@pytest.mark.parametrize("prose, release", [
    ("Doesn't work on transformers 4.57.1.\n", "4.57.1"),
    ("Still not fixed with transformers==4.57.1\n", "4.57.1"),
    ("transformers 4.57.1 does not work either\n", "4.57.1"),
    ("It stopped working after the upgrade to transformers 4.57.1\n", "4.57.1"),
    ("transformers==4.46.0 never worked for me\n", "4.46.0"),
], ids=["doesnt-work", "not-fixed", "does-not-work", "stopped-working", "never-worked"])
def test_a_release_said_not_to_work_is_the_one_that_raised(kb, prose, release):
    text = prose + TRACEBACK + KEY_CACHE
    assert stated_releases(normalize(text), "transformers") == [release]
    # 4.57.1 lies in the removal's range; on 4.46.0 the attribute still existed: another cause (a compiled Whisper
    # forward), which no entry documents, rules the removal out
    assert _answer(kb, text) == ((["key-cache-removed"], []) if release == "4.57.1" else ([], []))


@pytest.mark.parametrize("prose, said", [
    ("I'm on transformers 4.57.1.\n", ["4.57.1"]),
    ("transformers 4.57.1, torch 2.8\n", ["4.57.1"]),
    ("transformers 4.57.0.dev0 from source\n", []),
], ids=["sentence-end", "comma", "dev-build"])
def test_a_release_at_a_sentences_end_is_stated(kb, prose, said):
    """A period after a release ends the sentence: the release was dropped before (the pattern refused any `.` after
    it, to leave `4.57.0.dev0` unread, which it still does)."""
    assert stated_releases(normalize(prose + TRACEBACK + KEY_CACHE), "transformers") == said


@pytest.mark.parametrize("release", [None, "4.46.0"])
def test_round_six_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [_plain(*one) for one in TRACEBACKS]
    pastes += [_loguru(*one, caught) for one in TRACEBACKS for caught in range(one[0].count("File "))]
    pastes += [f"{exception}\n{frames_text}" for frames_text, exception in TRACEBACKS]
    pastes += [f"KeyError: 'pad_token'\n{MLX_FRAME}\n{UNPACK}\n", f"{INDEX}\nTraceback (most recent call last):\n"
               f"{CACHE_FRAMES}\n", f"{INDEX}\n{USER_FRAMES}\nRuntimeError: generation failed\n{CACHE_FRAMES}\n"]
    pastes += [prose + TRACEBACK + KEY_CACHE for prose in (
        "> transformers==4.57.1\n> fixed it for me\n", "transformers==4.57.1\nworks for me\n",
        "- `transformers` version: 4.57.1\n- Platform: Linux (the workaround from #123 works)\n",
        "Doesn't work on transformers 4.57.1.\n", "transformers==4.46.0 never worked for me\n",
        "I'm on transformers 4.57.1.\n", "transformers 4.57.0.dev0 from source\n")]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    assert len(python) == len(pastes)


# -- left open in round six, closed in round nine (test_lookup_round_nine.py) ---------------------------------------


def test_an_import_error_retold_in_other_words_is_offered(kb):
    """Comfy-Org/ComfyUI#10343's title: the removed class named, `cannot import` after it, no quote, no module path.
    Left open here, closed in round nine (test_lookup_round_nine.py: a removed name retold on a line that says it
    is gone): possible, never confirmed."""
    assert _answer(kb, "QuantizedCacheConfig from transformers cannot import") == \
        ([], ["import-quantizedcacheconfig-removed"])


def test_a_question_whether_a_release_works_states_none():
    """Asked, not told: the reader cannot say the release named is installed. `TOLD_NOT` read `not work` and stated
    it; left open here, closed in round nine (`rules.SENTENCE_END`: a statement in a sentence that ends with `?`)."""
    assert stated_releases(normalize("Does transformers 4.57.1 not work with this model?\n"), "transformers") == []

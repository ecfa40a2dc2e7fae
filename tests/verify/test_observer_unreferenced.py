"""The handed-error search answered by the reference count (speed8): an exception nothing holds is looked for nowhere.

`_p_handed_error` walks everything the snippet handed a watched call (its arguments, what its code returned into the
call, Python's tables, the runtime's held state) for the very exception the call raised: one the snippet made and
handed the library reads as the library's (round twelve). Every exception a watched function raises was searched so,
35 ms each on the real library (a `Module.__getattr__` raising `AttributeError` for every `hasattr`). An exception
that no object refers to, strongly or weakly, is reached by no walk: `_p_unreferenced` tells it by its reference
count, and the walk is skipped. These are the hostile twins of that shortcut: an exception the snippet made reaches the
call through each path the walk covers, each with the fewest holders that path needs (one), and is still caught; and
the honest side, a fresh exception the function makes and raises, is answered without the walk.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.verify.test_observer import parsed, run_scenario
from tests.verify.test_observer_round12 import MESSAGE, RAISING, _watch_raising

TWINS = RAISING + '''

def fresh(n):
    """Makes its error where it raises it: nothing but the interpreter holds it."""
    raise ValueError(f"n must be positive, got {n}")


def raise_argument(error):
    """Raises the error it is handed, held by its own argument alone."""
    raise error


def raise_popped(holder, reference):
    """Raises what it takes out of the list it is handed: once taken, held by the weak reference it is handed too."""
    raise holder.pop()


def raise_context(variable):
    """Raises what a context variable it is handed holds in the current context (a table no frame holds)."""
    raise variable.get()
'''


def _stream(tmp_path: Path, body: str, watched: str, callbacks: bool = False):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "raising.py").write_text(TWINS)
    body = f"MESSAGE = {MESSAGE!r}\nimport raising\n" + textwrap.dedent(body)
    configure = _watch_raising(watched)

    def configuring(config: dict) -> None:
        configure(config)
        config["beneath_roots"] = [*config.get("beneath_roots", ()), *config["target_roots"]]

    return parsed(run_scenario(tmp_path, body, configure=configuring, callbacks=callbacks))


def _handed(stream) -> list[str]:
    return [event.what for event in stream.tampered if "which trusted code raised as it was given" in event.what]


# Each path the walk covers, with one holder of the snippet's exception while the call raises it.
HANDED = {
    "its-argument": ("raising.raise_argument(ValueError(MESSAGE))\n", "raise_argument", False),
    "a-list-argument": ("raising.reraise([ValueError(MESSAGE)])\n", "reraise", False),
    "a-trusted-class": ("raising.Holder.error = ValueError(MESSAGE)\nraising.raise_held(raising.Holder())\n",
                        "raise_held", False),
    # made by the snippet's callback during the call, returned into it (on the value stack alone, then raised)
    "returned-into-the-call": ("raising.from_factory(lambda: ValueError(MESSAGE))\n", "from_factory", True),
    # its last strong holder emptied by the raise itself: a weak reference handed beside it still reaches it
    "a-weak-reference": ("import weakref\nclass Mine(ValueError):\n    pass\nmade = Mine(MESSAGE)\n"
                         "reference = weakref.ref(made)\nholder = [made]\ndel made\n"
                         "raising.raise_popped(holder, reference)\n", "raise_popped", False),
    "a-context-variable": ("import contextvars\nvariable = contextvars.ContextVar('error')\n"
                           "variable.set(ValueError(MESSAGE))\nraising.raise_context(variable)\n", "raise_context",
                           False),
}


@pytest.mark.parametrize("path", sorted(HANDED))
def test_an_exception_the_snippet_handed_the_call_is_still_found(tmp_path, path):
    body, watched, callbacks = HANDED[path]
    stream = _stream(tmp_path, body, watched, callbacks)
    assert stream.end is not None, stream
    raised = [event for event in stream.raised.values() if event.w == 0]
    assert raised and raised[0].message == MESSAGE, raised
    assert _handed(stream), [event.what for event in stream.tampered]
    assert stream.end.searched is not None and stream.end.searched["unreferenced"] == 0, stream.end.searched


def test_a_fresh_exception_the_function_raises_is_answered_without_the_walk(tmp_path):
    """The honest side: the function makes its error in its `raise`; nothing but the interpreter holds it, so the
    search reads nothing and finds nothing: no tampering, and the answer came from the reference count."""
    stream = _stream(tmp_path, "raising.fresh(-1)\n", "fresh")
    assert stream.end is not None and stream.tampered == [], [event.what for event in stream.tampered]
    assert stream.end.searched == {"handed": 0, "unreferenced": 1, "made": 0}, stream.end.searched


def test_an_exception_bound_to_a_name_before_its_raise_is_walked(tmp_path):
    """The function's own local holds what it raises (`error = ValueError(...); raise error`): one holder more than the
    interpreter's, so the count proves nothing. Alone in its thread, it was made inside the call, so it is not looked
    for (round twenty-eight, `_p_error_made_in_call`); with a thread of the snippet's alive beside the call (which could
    have made it and handed it meanwhile) the walk runs (and finds nothing of the snippet's)."""
    stream = _stream(tmp_path, "raising.made(-1)\n", "made")
    assert stream.end is not None and stream.tampered == [], [event.what for event in stream.tampered]
    assert stream.end.searched == {"handed": 0, "unreferenced": 0, "made": 1}, stream.end.searched
    beside = ("import threading\nready = threading.Event()\nbeside = threading.Thread(target=ready.wait)\n"
              "beside.start()\ntry:\n    raising.made(-1)\nfinally:\n    ready.set()\n    beside.join()\n")
    stream = _stream(tmp_path, beside, "made")
    assert stream.end is not None and stream.tampered == [], [event.what for event in stream.tampered]
    assert stream.end.searched == {"handed": 1, "unreferenced": 0, "made": 0}, stream.end.searched


def test_a_name_rebound_between_two_searches_is_found_at_the_second(tmp_path):
    """The search's comparison of each written trusted namespace with its copy is kept per namespace with the dict's
    version (`_p_differing`): a name the snippet rebinds after a first search (here to its own function) moves the
    version, and the second search compares again and fails closed on it."""
    body = ("import json\njson.dumps = json.loads\ntry:\n    raising.fresh(-1)\nexcept ValueError:\n    pass\n"
            "json.dumps = lambda *args: None\nraising.fresh(-2)\n")
    stream = _stream(tmp_path, body, "fresh")
    said = [event.what for event in stream.tampered]
    assert stream.end is not None and len([event for event in stream.raised.values() if event.w == 0]) == 2, stream
    assert len(said) == 1 and "json.dumps (rebound)" in said[0], said

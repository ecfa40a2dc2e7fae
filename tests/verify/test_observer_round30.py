"""Round thirty (red30): a module global the library's own code rebinds, judged by who bound it, not by its type.

babel loads its locale data into a module global on first use (`babel.core.get_global`: `global _global_data`,
`_global_data = pickle.load(fileobj)`); the end check accepted a library's rebinding of such a name only for plain
scalars, tuples and its own functions (`_p_library_data`), so an honest before failed "the snippet replaced
babel.core._global_data" (`tests/test_own_library_babel.py`, a strict xfail until now). The class is who made the
binding: a frame of the target's own file whose code names a global the module's functions assign under `global`
(`child.rebound_globals`) is followed as the runtime's rebinders are (`_p_follow_rebinder`); what it bound, no code of
the snippet's run meanwhile, not an object the frame was handed (its locals as it returns), and nothing of the
snippet's (`_p_foreign`), is the library's (`bound_by_trusted`, by identity). The hostile twins: the snippet binding
the name itself, before or after the library did; the library storing the very object the snippet handed it; the
library storing what a callback of the snippet's made inside it; the library storing a class of the snippet's.

The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), with
`lib/store.py`'s namespace held as `child._spaces` holds the library's.
"""

from __future__ import annotations

import importlib
import json
import textwrap
import types
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.verify.inside.child import rebound_globals
from tests.verify.test_observer import read, run_scenario
from tests.verify.test_observer_round12 import watch_in
from tests.verify.verifykb import drafted_from_crash

STORE = '''
_DATA = None
_KEPT = None


def get(key):
    """babel's `get_global`: loads its data into the module global on first use, then reads it."""
    global _DATA
    if _DATA is None:
        loaded = {"zone_aliases": {"UTC": "Etc/UTC"}, "likely_subtags": {"no": "nb_Latn_NO"}}
        _DATA = dict(loaded)
    return _DATA.get(key, {})


def keep(data):
    """Stores the very object it is handed."""
    global _KEPT
    _KEPT = data


def keep_made(make):
    """Stores what the function it is handed makes."""
    global _KEPT
    _KEPT = make()


def keep_first(items):
    """Stores the first of what it is handed (not held by the frame itself)."""
    global _KEPT
    _KEPT = items[0]


def get_waiting(ready, done):
    """Names its global as `get` does, and waits (in C code) while it runs: no frame of the snippet's starts."""
    global _DATA
    ready.set()
    done.wait(5)
    return _DATA


def parse(text):
    """Refuses what it has no data for: the library's own error."""
    if text not in get("likely_subtags"):
        raise ValueError(f"unknown locale {text!r}")
    return text
'''


def _configure(config: dict) -> None:
    watch_in("store", "parse")(config)
    module = importlib.import_module("store")
    config["spaces"] = [*config.get("spaces", []),
                        ("store", module, dict(vars(module)), type(module) is not types.ModuleType,
                         rebound_globals(module))]


def _run(tmp_path: Path, body: str):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "store.py").write_text(STORE)
    body = "import store\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, configure=_configure)).observation


def _replaced(seen) -> list[str]:
    return [what for what in seen.tampered if "store._" in what]


def test_the_librarys_own_code_loading_a_dict_into_its_global_is_not_the_snippet(tmp_path):
    """The honest case (babel's): the library loads a dict into its global on first use, then raises its own error.
    On main: "replaced store._DATA"."""
    seen = _run(tmp_path, 'store.parse("no_NO")\n')
    assert seen is not None and seen.exception is not None and seen.exception.type == "ValueError", seen
    assert seen.tampered == [] and seen.interference == [], (seen.tampered, seen.interference)


def test_the_snippet_binding_the_global_itself_is_replacing_it(tmp_path):
    seen = _run(tmp_path, 'store._DATA = {"likely_subtags": {}}\nstore.parse("no_NO")\n')
    assert seen is not None and _replaced(seen) != [], seen


def test_the_snippet_rebinding_the_global_after_the_library_did_is_replacing_it(tmp_path):
    seen = _run(tmp_path, 'store.get("x")\nstore._DATA = {"likely_subtags": {}}\nstore.parse("no_NO")\n')
    assert seen is not None and _replaced(seen) != [], seen


def test_the_library_storing_the_dict_the_snippet_handed_it_is_the_snippets(tmp_path):
    seen = _run(tmp_path, 'store.keep({"likely_subtags": {}})\nstore.parse("no_NO")\n')
    assert seen is not None and _replaced(seen) != [], seen


def test_the_library_storing_what_the_snippets_code_made_inside_it_is_the_snippets(tmp_path):
    seen = _run(tmp_path, 'store.keep_made(lambda: {"likely_subtags": {}})\nstore.parse("no_NO")\n')
    assert seen is not None and _replaced(seen) != [], seen


def test_a_thread_of_the_snippets_binding_the_global_while_the_librarys_frame_runs_is_replacing_it(tmp_path):
    """The snippet's thread, its frame started before, binds the global while a frame of the library's that names it
    waits: no frame of the snippet's starts meanwhile, yet the binding is the snippet's (the thread was not alone)."""
    body = """
    import threading

    ready, done = threading.Event(), threading.Event()


    def forge():
        ready.wait(5)
        store._DATA = {"likely_subtags": {}}
        done.set()


    threading.Thread(target=forge).start()
    store.get_waiting(ready, done)
    store.parse("no_NO")
    """
    seen = _run(tmp_path, body)
    assert seen is not None and _replaced(seen) != [], seen


def test_the_library_storing_a_class_of_the_snippets_is_the_snippets(tmp_path):
    seen = _run(tmp_path, 'class Mine:\n    pass\n\n\nstore.keep_first([Mine])\nstore.parse("no_NO")\n')
    assert seen is not None and _replaced(seen) != [], seen


# click's `UsageError` (`tests/test_own_library_round5.py`): `__str__` returns `self.message`, and the exception holds
# the Context of the snippet's command, whose callback is the snippet's function; the text was "could not be read"
# (everything the exception holds had to be plain data for its `__str__` to run). The class: a library `__str__` whose
# bytecode only returns one attribute of the exception reads that attribute alone (`_p_attribute_message`).
USAGE = '''
class Context:
    def __init__(self, command):
        self.command = command


class UsageError(Exception):
    def __init__(self, message, ctx=None):
        super().__init__(message)
        self.message = message
        self.ctx = ctx

    def __str__(self):
        return self.message


class CommandError(UsageError):
    def __str__(self):
        return self.ctx.command.__name__


def fail(command, args):
    """click's `Context.fail` under `parse_args`: its own message, the context of the command it parsed."""
    raise UsageError(f"Got unexpected extra argument ({args})", Context(command))


def fail_as(kind, command, args):
    raise kind(f"Got unexpected extra argument ({args})", Context(command))


def fail_with(message, command):
    raise UsageError(message, Context(command))
'''

EXTRA = "Got unexpected extra argument (extra)"


def _usage(tmp_path: Path, body: str, watched: str = "fail"):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "usage.py").write_text(USAGE)
    body = "import usage\n\n\ndef hello():\n    pass\n\n\n" + textwrap.dedent(body)
    seen = read(run_scenario(tmp_path, body, configure=watch_in("usage", watched))).observation
    assert seen is not None, seen
    return seen


def _messages(seen) -> list:
    return [error.message for error in seen.calls.raised]


def _unread(seen) -> bool:
    """Raised once, its text not read (nor the snippet's words taken for it)."""
    said = _messages(seen)
    return len(said) == 1 and "could not be read" in str(said[0]) and "forged" not in str(said)


def test_a_library_str_returning_one_attribute_is_read_past_the_snippets_objects_the_error_holds(tmp_path):
    """The honest case (click's): on main the message was None ("could not be read")."""
    seen = _usage(tmp_path, 'usage.fail(hello, "extra")\n')
    assert _messages(seen) == [EXTRA] and seen.tampered == [] and seen.interference == [], seen


def test_a_subclass_of_the_snippets_answering_attribute_reads_is_not_read(tmp_path):
    body = """
    class Forged(usage.UsageError):
        def __getattribute__(self, name):
            return "forged" if name == "message" else object.__getattribute__(self, name)


    usage.fail_as(Forged, hello, "extra")
    """
    assert _unread(_usage(tmp_path, body, "fail_as"))


def test_the_librarys_class_given_an_attribute_reader_by_the_snippet_is_not_read(tmp_path):
    body = """
    usage.UsageError.__getattribute__ = lambda self, name: "forged" if name == "message" \\
        else object.__getattribute__(self, name)
    usage.fail(hello, "extra")
    """
    assert _unread(_usage(tmp_path, body))


def test_a_library_str_reading_through_the_snippets_objects_is_still_not_read(tmp_path):
    body = """
    hello.__name__ = "forged"
    usage.fail_as(usage.CommandError, hello, "extra")
    """
    assert _unread(_usage(tmp_path, body, "fail_as"))


def test_an_attribute_holding_a_str_of_the_snippets_is_not_read(tmp_path):
    body = """
    class Text(str):
        def __str__(self):
            return "forged"


    usage.fail_with(Text("Got unexpected extra argument (extra)"), hello)
    """
    assert _unread(_usage(tmp_path, body, "fail_with"))


# pydantic (red27's note): `Model.model_rebuild(force=True)` before the error. The model's engines (its
# `__pydantic_validator__`, `__pydantic_computed_fields__`, ...) are recorded as the library's when its metaclass's
# `__new__` returns (`_p_maker_engines`); `model_rebuild` -> `_model_construction.complete_model_class` puts new ones
# there from a frame the observer does not follow (no metaclass `__new__`), so `_p_replaced_engine` reads them as the
# snippet's: "planted C code in what the snippet handed TypeAdapter.__init__ (M.__pydantic_computed_fields__ (not what
# the library made for it))". Telling who put them needs the rebuilding frame followed, as a maker's is; which frames
# to follow is decided once per code object, before the model exists, so it is not a small change: a strict xfail.
MODEL = "from pydantic import BaseModel, ConfigDict, TypeAdapter\n\n\nclass M(BaseModel):\n    x: int\n\n\n"
ADAPT = "TypeAdapter(M, config=ConfigDict(strict=True))"
SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"


def _pydantic_before(tmp_path, capsys, setup: str, allow: str = "") -> dict:
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    printed, written, text = drafted_from_crash(root, tmp_path, "config-unused", MODEL + ADAPT + "\n")
    assert "Cannot use `config` when the type is a BaseModel" in printed, printed
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"') + allow)
    (root / "snippets" / "config-unused" / "before.py").write_text(MODEL + setup + SHOW.format(ADAPT))
    capsys.readouterr()
    main(["--root", str(root), "verify", "config-unused", "--snippet", "before", "--no-cache", "--sandbox", "require"])
    (check,) = json.loads((root / "reports" / "latest.json").read_text())["checks"]
    return check


def test_pydantic_a_before_handing_its_model_passes(tmp_path, capsys):
    check = _pydantic_before(tmp_path, capsys, "")
    assert check["outcome"] == "pass", check


@pytest.mark.xfail(strict=True, reason="pydantic's model_rebuild puts new engines in the snippet's model from a frame "
                                       "the observer does not follow (no metaclass __new__): read as planted, "
                                       "'M.__pydantic_computed_fields__ (not what the library made for it)' "
                                       "(observer `_p_replaced_engine`, `_p_maker_engines`)")
def test_pydantic_a_before_rebuilding_its_model_passes(tmp_path, capsys):
    check = _pydantic_before(tmp_path, capsys, "M.model_rebuild(force=True)\n")
    assert check["outcome"] == "pass", check


def test_pydantic_a_model_given_another_models_engines_by_the_snippet_is_planted(tmp_path, capsys):
    """The hostile twin the rebuild's fix must keep failing: the snippet copies another model's engines into M."""
    setup = ("class Other(BaseModel):\n    y: str\n\n\n"
             "M.__pydantic_validator__ = Other.__pydantic_validator__\n"
             "M.__pydantic_serializer__ = Other.__pydantic_serializer__\n")
    allow = "allow:\n  - primitive: dunder\n    reason: the hostile twin sets the model's engines itself\n"
    check = _pydantic_before(tmp_path, capsys, setup, allow)
    assert check["outcome"] == "fail" and check["code"] == "tampered" and "not what the library made" in check["reason"], check

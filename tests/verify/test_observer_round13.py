"""Round thirteen (red14): C code the snippet planted where the library's C code looks it up, reached from no object.

The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), watching a
function of a module of the target's folder (`lib/hooks.py`).
"""

from __future__ import annotations

import dis
import textwrap
from pathlib import Path

from tests.verify.test_observer import read, run_scenario

MESSAGE = "n must be positive, got -1"

HOOKS = '''
import contextvars

_HOOK = contextvars.ContextVar("hook")


def hooked(text):
    """Calls what the context variable of its module holds in the current context (read by C: `ContextVar.get`),
    a temporary on the value stack alone."""
    return _HOOK.get(int)(text)


def own_hook(text):
    """Sets its own hook (a function of its own), then calls it."""
    _HOOK.set(parse)
    return hooked(text)


def parse(text):
    return int(text)


_PENDING = contextvars.ContextVar("pending")


def deferred():
    """Raises the error pending in the current context, by a `raise` of its own."""
    raise _PENDING.get()
'''

# C code that raises Python's ValueError with the documented text when called, running no code of the snippet's: a
# `max` whose key is the `throw` of an exhausted generator (round eight's gadget).
GADGET = """
import functools
import itertools

spent = (each for each in ())
for _ in spent:
    pass
throws = map(spent.throw, itertools.repeat(ValueError), itertools.repeat(MESSAGE))
chosen = functools.partial(max, key=functools.partial(next, throws))
"""


def _watch_hooks(name: str):
    """A `configure` that watches `hooks.<name>` (`lib/hooks.py`), the library's own files beneath it."""

    def configure(config: dict) -> None:
        import hooks

        function = getattr(hooks, name)
        code = function.__code__
        config["slots"][0].update(
            label=name, code=code, function=function, function_code=code, name=name, raw=function, reads=[],
            globals=function.__globals__,
            normal=[i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
            defaults=None, kwdefaults=None)
        config["owners"] = [(name, hooks, name, function)]
        config["beneath_roots"] = [*config.get("beneath_roots", ()), *config["target_roots"]]

    return configure


def _run(tmp_path: Path, body: str, watched: str):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooks.py").write_text(HOOKS)
    body = f"MESSAGE = {MESSAGE!r}\nimport hooks\n" + GADGET + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, configure=_watch_hooks(watched))).observation


def _planted(seen) -> bool:
    return any("planted" in what for what in seen.interference + seen.tampered)


def test_c_code_planted_in_a_context_variable_the_library_reads_is_planted(tmp_path):
    """Round thirteen, first hole: the snippet sets a context variable of the library's module (`ContextVar.set`, a
    method call, no import) to its planted C code; the function reads it through C (`ContextVar.get`) and calls it.
    The value lives in the thread's context, which no object the frame holds lists (a `ContextVar`'s referents are
    its name and default): Python's ValueError, the documented text, started in the function's frame, no tampering
    (an implicit entry's before passed)."""
    seen = _run(tmp_path, "hooks._HOOK.set(chosen)\ndel chosen, throws\nhooks.hooked('1')\n", "hooked")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.where == "target", seen.exception
    assert _planted(seen), (seen.interference, seen.tampered)


def test_c_code_planted_in_a_context_the_snippet_runs_the_call_in_is_planted(tmp_path):
    """The same, in a context of the snippet's own (`Context.run`): the call runs in it, so it is the current one."""
    body = """
    import contextvars

    context = contextvars.copy_context()
    context.run(hooks._HOOK.set, chosen)
    del chosen, throws
    context.run(hooks.hooked, "1")
    """
    seen = _run(tmp_path, body, "hooked")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_a_context_variable_holding_honest_values_is_not_planted(tmp_path):
    """The other side: the library's own hook (its function), and the snippet's plain data in another variable,
    then C code failing on the data the function was handed: the error is the library's, no tampering."""
    body = """
    import contextvars

    contextvars.ContextVar("other").set([1, 2, 3])
    try:
        hooks.own_hook("x")
    except ValueError:
        pass
    """
    seen = _run(tmp_path, body, "hooked")
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_an_exception_the_snippet_left_in_a_context_variable_is_not_the_librarys(tmp_path):
    """The same place for round twelve's handed exception: the snippet's own ValueError with the documented text, set
    in a context variable of the library's, raised by the function's own `raise`. Told as the snippet's by where it
    is reached from (the context, a table of Python's that the snippet fills)."""
    seen = _run(tmp_path, "hooks._PENDING.set(ValueError(MESSAGE))\nhooks.deferred()\n", "deferred")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert any("which trusted code raised as it was given" in what for what in seen.interference + seen.tampered), \
        (seen.interference, seen.tampered)

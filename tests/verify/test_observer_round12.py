"""Round twelve (red13): an exception the snippet made, raised by trusted code's own `raise`.

A `raise` of an exception object raises whatever object it holds, whoever made it. Trusted code that raises what it
is given (`xml.sax.handler.ErrorHandler.error`'s `raise exception`, a library's `raise errors[0]`) raised the
snippet's own `ValueError(text)`, with Python's class and the documented text, started beneath the function (or in
its own frame, at its own `raise`): an implicit entry's before (or a raise entry's) passed without the library making
the error. The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back).
"""

from __future__ import annotations

import dis
import textwrap
from pathlib import Path

from tests.verify.test_observer import _watch_call, read, run_scenario

MESSAGE = "n must be positive, got -1"

RAISING = '''
import re
import xml.sax.handler


def digits(text):
    """Python's own code beneath it, reading a cache of its module's (`re._compile`'s `_cache`)."""
    return re.match(r"\\d+", text)


def reraise(errors):
    """Raises the first error it is handed, by a `raise` of its own."""
    raise errors[0]


def made(n):
    """Makes its error, then raises it by a `raise` of the name it bound."""
    error = ValueError(f"n must be positive, got {n}")
    raise error


def handed_on(n):
    """Makes its error and hands it to Python's own code, which raises what it is given."""
    xml.sax.handler.ErrorHandler().error(ValueError(f"n must be positive, got {n}"))


class Holder:
    pass


def raise_held(holder):
    """Raises the error its argument's class holds."""
    raise holder.error


def lengths(items):
    """A generator of the library's, over what it is handed."""
    for item in items:
        yield len(item)


def first_length(items):
    """Makes its own generator over the items it is handed, and resumes it."""
    return next(lengths(items))


def from_factory(factory):
    """Raises what the factory it is handed returns."""
    raise factory()
'''


def _watch_raising(name: str):
    """A `configure` that watches `raising.<name>`, a module of the target's folder (`lib/raising.py`)."""

    def configure(config: dict) -> None:
        import raising

        function = getattr(raising, name)
        code = function.__code__
        config["slots"][0].update(
            label=name, code=code, function=function, function_code=code, name=name, raw=function, reads=[],
            globals=function.__globals__,
            normal=[i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
            defaults=None, kwdefaults=None)
        config["owners"] = [(name, raising, name, function)]

    return configure


def _run(tmp_path: Path, body: str, configure, callbacks: bool = False):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "raising.py").write_text(RAISING)
    body = f"MESSAGE = {MESSAGE!r}\nimport raising\nimport xml.sax.handler\n" + textwrap.dedent(body)

    def configuring(config: dict) -> None:
        configure(config)
        config["beneath_roots"] = list(config["target_roots"])  # the library's own code under the function, as `child`

    return read(run_scenario(tmp_path, body, configure=configuring, callbacks=callbacks)).observation


def _handed(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if "which trusted code raised as it was given" in what]


def test_an_exception_the_snippet_made_raised_beneath_the_function_is_not_the_librarys(tmp_path):
    """Python's own code beneath the function (`ErrorHandler.error`) raises the snippet's ValueError it was handed
    through the function's arguments: before, started beneath, Python's class, the documented text, no tampering."""
    seen = _run(tmp_path, "lib.call(xml.sax.handler.ErrorHandler().error, ValueError(MESSAGE))\n", _watch_call)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.where == "beneath", seen.exception
    assert _handed(seen), (seen.interference, seen.tampered)


def test_an_exception_the_snippet_made_raised_by_the_functions_own_raise_is_not_the_librarys(tmp_path):
    """The function's own `raise errors[0]`, of an error the snippet made and handed it inside a list: before,
    started in the function at its own `RAISE_VARARGS` (a raise entry's documented place), no tampering."""
    seen = _run(tmp_path, "raising.reraise([ValueError(MESSAGE)])\n", _watch_raising("reraise"))
    assert seen is not None and seen.exception is not None, seen
    started = seen.exception.started
    assert started is not None and (started.where, started.opcode) == ("target", "RAISE_VARARGS"), started
    assert _handed(seen), (seen.interference, seen.tampered)


def test_an_exception_the_snippet_put_in_a_trusted_class_is_not_the_librarys(tmp_path):
    """The snippet's error set as an attribute of the library's own class (a namespace written with no event, which
    the search reads against its copy, not inside), raised by the function's own `raise holder.error`."""
    seen = _run(tmp_path, "raising.Holder.error = ValueError(MESSAGE)\nraising.raise_held(raising.Holder())\n",
                _watch_raising("raise_held"))
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _handed(seen), (seen.interference, seen.tampered)


def test_an_exception_the_snippet_made_and_returned_into_the_call_is_not_the_librarys(tmp_path):
    """A declared callback of the snippet's returns its pre-made error into the call (a temporary, on the value stack
    alone), which the function's own `raise` raises."""
    seen = _run(tmp_path, "made = ValueError(MESSAGE)\nraising.from_factory(lambda: made)\n",
                _watch_raising("from_factory"), callbacks=True)
    assert seen is not None and seen.exception is not None, seen
    assert _handed(seen), (seen.interference, seen.tampered)


def test_an_exception_the_library_made_and_raised_by_a_name_or_through_python_is_its_own(tmp_path):
    """The other side: the function makes its error and raises it by a name it bound, or hands it to Python's code
    that raises what it is given: the library's error, no tampering, each started where it was raised."""
    for name, where in (("made", "target"), ("handed_on", "beneath")):
        seen = _run(tmp_path, f"raising.{name}(-1)\n", _watch_raising(name))
        assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
        assert seen.exception.started is not None and seen.exception.started.where == where, seen.exception
        assert seen.interference == [] and seen.tampered == [], (name, seen.interference, seen.tampered)


def test_a_generator_the_library_made_over_the_snippets_data_is_its_own(tmp_path):
    """The other side of the generator the snippet made (`test_observer.py`'s
    `test_a_trusted_generator_the_snippet_made_over_its_data_is_planted`, closed here): the function makes its own
    generator over the data it was handed and resumes it; the error starts beneath, in that generator, and is the
    library's: no tampering."""
    seen = _run(tmp_path, "raising.first_length([5])\n", _watch_raising("first_length"))
    assert seen is not None and seen.exception is not None, seen
    started = seen.exception.started
    assert started is not None and (started.where, started.code) == ("beneath", "lengths"), started
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_a_library_generator_the_snippet_made_and_handed_is_planted_in_the_target_too(tmp_path):
    """The generator the snippet made may be the library's own code, too: `raising.lengths([5])` handed to the
    function that resumes it is a binding the snippet chose, as a partial of it would be."""
    seen = _run(tmp_path, "lib.call(next, raising.lengths([5]))\n", _watch_call)
    assert seen is not None and seen.exception is not None, seen
    assert any("planted a generator of lengths" in what for what in seen.interference + seen.tampered), seen


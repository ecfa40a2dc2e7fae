"""A changed signature refused inside the library's own decorator wrapper (transformers 4.45 – 4.49
put `deprecate_kwarg` around `DynamicCache.__init__`; 5.24 around `create_causal_mask`): the
interpreter refuses the call in the wrapper, at its call of the real function. That counts, by
identity, only when the wrapper and the function it holds are the ones resolved before the snippet
ran: a snippet that swaps what the wrapper calls for a look-alike of the same name fails.

Runs on the second library's fixture (`tinyq`, the plain `python` runtime), whose queue gains a
method behind a `functools.wraps` decorator, on both targets.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"
WRAPPED = '''

def _renamed_keyword(old, new):
    """The library's own deprecation wrapper (as transformers' `deprecate_kwarg`)."""
    import functools

    def wrapper(func):
        @functools.wraps(func)
        def wrapped_func(*args, **kwargs):
            if old in kwargs and new not in kwargs:
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return wrapped_func
    return wrapper


def _resize(self, capacity):
    self.capacity = capacity


_resize.__qualname__ = "BoundedQueue.resize"
BoundedQueue.resize = _renamed_keyword("maximum", "capacity")(_resize)
'''
ENTRY = """\
id: resize-size-kwarg
title: "`resize(size=...)`"
library: example/tinyq
kind: signature
api: {owner: tinyq.BoundedQueue, name: resize}
exception: TypeError
message: "BoundedQueue.resize() got an unexpected keyword argument 'size'"
source:
  path: src/tinyq/queue.py
  line: 1
  function: BoundedQueue.resize
  implicit: true
  release: 1.2.0
meaning: The keyword is `capacity`.
trigger: Calling `resize(size=...)`.
situations: [Code written for another release.]
solutions: [{title: Pass capacity}]
prevention: [Read the signature.]
guards:
  - {title: Pass capacity, strategy: normalization, file: guard.py, expect: {outcome: passes}}
"""
AFTER = "from tinyq import BoundedQueue\nBoundedQueue(2).resize(capacity=3)\n"
HONEST = "from tinyq import BoundedQueue\nBoundedQueue(2).resize(size=3)\n"
# What the wrapper calls, swapped for a function of the same qualified name that has no `size`:
# the interpreter's refusal then reads exactly as documented, and no frame of the fake is created.
CELL_SWAP = """\
from tinyq import BoundedQueue
def fake(self, capacity):
    pass
fake.__qualname__ = "BoundedQueue.resize"
wrapper = BoundedQueue.__dict__["resize"]
cell = wrapper.__closure__[wrapper.__code__.co_freevars.index("func")]
cell.cell_contents = fake
BoundedQueue(2).resize(size=3)
"""
# The snippet's own wrapper of the genuine function, put on the class.
OWN_WRAPPER = """\
import functools
from tinyq import BoundedQueue
genuine = BoundedQueue.__dict__["resize"].__wrapped__
@functools.wraps(genuine)
def mine(*args, **kwargs):
    return genuine(*args, **kwargs)
BoundedQueue(2).__class__.resize = mine
BoundedQueue(2).resize(size=3)
"""


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    for queue in (root / "upstream" / "tinyq" / "queue.py", root / "bundled" / "tinyq_bundled" / "queue.py"):
        queue.write_text(queue.read_text() + WRAPPED)
    (root / "docs" / "errors" / "tinyq" / "resize-size-kwarg.yml").write_text(ENTRY)
    importable(monkeypatch, root / "upstream", root / "bundled")
    return root


def verify_before(root: Path, before: str, capsys) -> dict[str, dict]:
    folder = root / "snippets" / "resize-size-kwarg"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "before.py").write_text(before)
    (folder / "after.py").write_text(AFTER)
    (folder / "guard.py").write_text(AFTER)
    main(["--root", str(root), "verify", "resize-size-kwarg", "--no-cache", "--snippet", "before",
          "--report", str(root / "r.json")])
    printed = capsys.readouterr()
    assert (root / "r.json").is_file(), printed.out + printed.err
    checks = json.loads((root / "r.json").read_text())["checks"]
    return {check["target"]: check for check in checks}


def test_a_call_refused_inside_the_librarys_own_wrapper_is_the_documented_error(tinylib, capsys):
    checks = verify_before(tinylib, HONEST, capsys)
    assert set(checks) == {"bundled", "upstream"}
    for check in checks.values():
        assert (check["outcome"], check["code"]) == ("pass", "raised-as-documented"), check["reason"]
        assert "in its wrapper _renamed_keyword.<locals>.wrapper.<locals>.wrapped_func" in check["reason"]


@pytest.mark.parametrize("attack", [CELL_SWAP, OWN_WRAPPER], ids=["cell-swap", "own-wrapper"])
def test_a_wrapper_made_to_call_something_else_fails(tinylib, capsys, attack):
    checks = verify_before(tinylib, attack, capsys)
    assert set(checks) == {"bundled", "upstream"}
    for check in checks.values():
        assert check["outcome"] == "fail", check["reason"]

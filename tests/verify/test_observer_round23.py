"""Round twenty-three (red27): what a library's own code makes while it makes the snippet's class is the library's.

newlib3's pydantic knowledge base failed an honest before through `BaseModel.__init__` (a field that fails
validation, pydantic/pydantic#9227) with "the snippet planted C code where BaseModel.__init__ calls it (partial
(raising what the snippet chose))". Traced: pydantic's metaclass (`ModelMetaclass.__new__`) puts on every model a
`LazyClassAttribute` over `partial(generate_pydantic_signature, init=..., fields=...)`; the observer read every
partial that did not exist before the snippet ran as the snippet's. Its maker rule (round twenty-one) did not apply:
pydantic's namespace is its own `__prepare__`'s dict subclass, not a plain dict, so the maker was not followed; and
pydantic evaluates `BaseModel`'s own string annotations (`typing.ForwardRef`, compiled at run time under
`<string>`) while it makes the model, which read as code of the snippet's running inside the maker. The class: a
partial made while the target's maker ran, over trusted Python code, with no code of the snippet's run meanwhile, is
the library's making; a type expression the maker compiled and evaluated (no call in it) is no code of the snippet's.
The hostile twins hand the library C code of the snippet's making: each still fails, planted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.verify.verifykb import allowing, needs_sandbox

MODEL = "from pydantic import BaseModel\n\n\nclass Point(BaseModel):\n    x: int\n\n\n"
SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"


@pytest.fixture(scope="module")
def pydantic_kb(tmp_path_factory) -> Path:
    """`errorkb init` for pydantic and `new` from the traceback pydantic itself prints for a field that fails
    validation through `BaseModel.__init__` (no message written by hand), its TODOs filled."""
    from errorkb.cli import main

    needs_sandbox()
    where = tmp_path_factory.mktemp("round23")
    root = where / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    script = where / "model.py"
    script.write_text(MODEL + 'Point(x="abc")\n')
    crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "ValidationError: 1 validation error for Point" in crashed.stderr, crashed.stderr
    (where / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "bad-field", "--from-traceback", str(where / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/bad-field.yml")
    text = "\n".join(line for line in written.read_text().splitlines() if not line.lstrip().startswith("#")) + "\n"
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))
    snippets = root / "snippets" / "bad-field"
    (snippets / "before.py").write_text(MODEL + SHOW.format('Point(x="abc")'))
    for name in ("after.py", "guard_validate.py"):
        (snippets / name).write_text(MODEL + SHOW.format('print(Point(x="12"))'))
    return root


def _verify(root: Path, capsys, role: str | None = None, snippet: str | None = None) -> list[dict]:
    from errorkb.cli import main

    (written,) = (root / "docs" / "errors").glob("*/bad-field.yml")
    original = written.read_text()
    if snippet is not None:
        (root / "snippets" / "bad-field" / f"{role}.py").write_text(snippet)
        written.write_text(allowing(original, snippet, modules=("pydantic",)))
    try:
        argv = ["--root", str(root), "verify", "bad-field", "--no-cache", "--sandbox", "require", "--report",
                str(root / "r.json")]
        main([*argv, "--snippet", role] if role else argv)
        printed = capsys.readouterr()
        assert (root / "r.json").is_file(), printed.out + printed.err
        return json.loads((root / "r.json").read_text())["checks"]
    finally:
        written.write_text(original)
        (root / "snippets" / "bad-field" / "before.py").write_text(MODEL + SHOW.format('Point(x="abc")'))


def test_an_honest_model_whose_field_fails_is_not_planted(pydantic_kb, capsys):
    """The before raises pydantic's own ValidationError from `BaseModel.__init__`: no tampering. Its text is made by
    pydantic-core's compiled `__str__`, which the check never runs: that is the verifier's stated limit
    (message-differs, round three), never a pass it did not observe. The after and the guard pass. On main: the before
    failed 'the snippet planted C code where BaseModel.__init__ calls it (partial (raising what the snippet chose))'."""
    checks = _verify(pydantic_kb, capsys)
    outcomes = {check["role"]: (check["outcome"], check["code"], check["reason"]) for check in checks}
    before = outcomes.pop("before")
    assert before[1] == "message-differs" and "planted" not in before[2], before
    assert before[0] == "fail"  # the unread text: never a pass
    assert all(outcome == "pass" for outcome, _, _ in outcomes.values()), outcomes
    (check,) = [check for check in checks if check["role"] == "before"]
    assert check["exception"]["raise_site"]["function"] == "BaseModel.__init__", check["exception"]
    assert check["interference"] == [], check["interference"]


HOSTILE = {
    # a C method bound to data of the snippet's, handed pydantic as a field validator: `[].index(5)` raises the
    # ValueError pydantic turns into the ValidationError, with no frame of the snippet's
    "bound-validator": ("from typing import Annotated\n\nfrom pydantic import AfterValidator, BaseModel\n\n\n"
                        "class Point(BaseModel):\n    x: Annotated[int, AfterValidator([].index)]\n\n\n"),
    # a partial of the snippet's binding data to C code, as a field validator
    "partial-validator": ("import functools\nfrom typing import Annotated\n\nfrom pydantic import AfterValidator, "
                          "BaseModel\n\n\nclass Point(BaseModel):\n"
                          "    x: Annotated[int, AfterValidator(functools.partial(list.index, []))]\n\n\n"),
    # a model's validator pydantic made for another model named the same, set on the snippet's after pydantic made it
    "swapped-validator": ("from pydantic import BaseModel\n\n\ndef make():\n    class Point(BaseModel):\n"
                          "        x: int\n\n    return Point\n\n\nReal = make()\n\n\nclass Point(BaseModel):\n"
                          "    x: str\n\n\nPoint.__pydantic_validator__ = Real.__pydantic_validator__\n"),
    # the validator replaced by the snippet's own C callable
    "replaced-validator": ("import types\n\nfrom pydantic import BaseModel\n\n\nclass Point(BaseModel):\n"
                           "    x: int\n\n\nPoint.__pydantic_validator__ = types.SimpleNamespace("
                           "validate_python=[].index)\n"),
}


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_c_code_the_snippet_hands_the_librarys_maker_is_still_planted(pydantic_kb, capsys, how):
    """The snippet's own C callable in the model pydantic makes (a bound builtin, a partial of its own): the
    ValidationError it makes pydantic raise is still read as planted, never as pydantic's."""
    snippet = HOSTILE[how] + SHOW.format('Point(x="abc")')
    (check,) = [check for check in _verify(pydantic_kb, capsys, "before", snippet) if check["role"] == "before"]
    assert check["outcome"] == "fail" and "planted" in check["reason"], (check["outcome"], check["reason"])

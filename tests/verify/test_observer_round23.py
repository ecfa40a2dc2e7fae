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
from pathlib import Path

import pytest

from tests.verify.verifykb import allowing, drafted_from_crash, needs_sandbox

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
    printed, written, text = drafted_from_crash(root, where, "bad-field", MODEL + 'Point(x="abc")\n')
    assert "ValidationError: 1 validation error for Point" in printed, printed
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))
    snippets = root / "snippets" / "bad-field"
    (snippets / "before.py").write_text(MODEL + SHOW.format('Point(x="abc")'))
    for name in ("after.py", "guard_validate.py"):
        (snippets / name).write_text(MODEL + SHOW.format('print(Point(x="12"))'))
    _unannotated(root, where)
    return root


UNANNOTATED = "from pydantic import BaseModel\n\n\nclass Model(BaseModel):\n    x = 1\n"
HONEST_UNANNOTATED = "from pydantic import BaseModel\n\n\n" + SHOW.format("class Model(BaseModel):\n    x = 1")


def _unannotated(root: Path, where: Path) -> None:
    """A second entry, from pydantic's own traceback for a non-annotated attribute (pydantic/pydantic#8723): a
    `PydanticUserError` whose `__str__` is pydantic's own Python. The entry's message is the text pydantic printed,
    whole (`new` drafts its first paragraph only: not what this round is about)."""
    printed, written, drafted = drafted_from_crash(root, where, "unannotated", UNANNOTATED)
    head = "pydantic.errors.PydanticUserError: "
    assert head + "A non-annotated attribute was detected" in printed, printed
    text = printed[printed.index(head) + len(head):].rstrip("\n")
    text = text.replace("`x = 1`", "`{var_name} = {value!r}`").replace("if `x` is", "if `{var_name}` is")
    lines = drafted.splitlines()
    lines = [f"message: {json.dumps(text)}" if line.startswith("message:") else line for line in lines]
    written.write_text("\n".join(lines).replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"') + "\n")
    snippets = root / "snippets" / "unannotated"
    (snippets / "before.py").write_text(HONEST_UNANNOTATED)
    for name in ("after.py", "guard_validate.py"):
        (snippets / name).write_text(UNANNOTATED.replace("x = 1", "x: int = 1"))


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


def _verify_unannotated(root: Path, capsys, snippet: str | None = None) -> dict:
    from errorkb.cli import main

    (written,) = (root / "docs" / "errors").glob("*/unannotated.yml")
    before = root / "snippets" / "unannotated" / "before.py"
    original, honest = written.read_text(), before.read_text()
    if snippet is not None:
        before.write_text(snippet)
        written.write_text(allowing(original, snippet, modules=("pydantic",)))
    try:
        main(["--root", str(root), "verify", "unannotated", "--snippet", "before", "--no-cache", "--sandbox",
              "require", "--report", str(root / "r.json")])
        printed = capsys.readouterr()
        assert (root / "r.json").is_file(), printed.out + printed.err
        checks = json.loads((root / "r.json").read_text())["checks"]
        (check,) = [check for check in checks if check["role"] == "before" and check["entry"] == "unannotated"]
        return check
    finally:
        written.write_text(original)
        before.write_text(honest)


def test_a_library_error_whose_str_is_the_librarys_python_is_read(pydantic_kb, capsys):
    """`PydanticUserError.__str__` is pydantic's Python (`PydanticErrorMixin`), over the library's class and plain
    data: read, and the before passes. On main: 'the PydanticUserError's text could not be read': the snippet's
    `from pydantic import BaseModel` had pydantic's lazy `__getattr__` add `BaseModel` to `pydantic`'s namespace, and
    the import system `_validators` to `pydantic._internal`'s, which read as names of the library's rebound."""
    check = _verify_unannotated(pydantic_kb, capsys)
    assert check["outcome"] == "pass", (check["outcome"], check["reason"])
    assert check["exception"]["message"].startswith("A non-annotated attribute was detected: `x = 1`")


UNREAD = {
    # an exception class of the snippet's, deriving from the library's, with the library's `__str__`
    "own-subclass": ("from pydantic.errors import PydanticUserError\n\n\nclass Mine(PydanticUserError):\n"
                     "    pass\n\n\n"),
    # a name the library's `__str__` reads, rebound by the snippet to text of its own
    "rebound-url": ("import pydantic.errors\nfrom pydantic import BaseModel\n\n"
                    "pydantic.errors.DEV_ERROR_DOCS_URL = 'https://example.invalid/'\n\n\n"),
}


@pytest.mark.parametrize("how", sorted(UNREAD))
def test_what_the_snippet_chose_of_the_message_is_still_unread(pydantic_kb, capsys, how):
    """The library's `__str__` over the snippet's class, or over a name of the library's the snippet rebound to its
    own text: never read as the library's message, so the before fails."""
    if how == "own-subclass":
        (written,) = (pydantic_kb / "docs" / "errors").glob("*/unannotated.yml")
        message = json.loads(next(line for line in written.read_text().splitlines()
                                  if line.startswith("message:"))[len("message: "):])
        message = message.replace("{var_name}", "x").replace("{value!r}", "1")
        words, _, link = message.partition("\n\nFor further information visit https://errors.pydantic.dev/")
        code = link.rsplit("/", 1)[-1]
        snippet = UNREAD[how] + SHOW.format(f"raise Mine({words!r}, code={code!r})")
    else:
        snippet = UNREAD[how] + SHOW.format("class Model(BaseModel):\n    x = 1")
    check = _verify_unannotated(pydantic_kb, capsys, snippet)
    unread = "could not be read" in check["reason"] or "expected pydantic.errors.PydanticUserError" in check["reason"]
    assert check["outcome"] == "fail" and unread, (check["outcome"], check["reason"])

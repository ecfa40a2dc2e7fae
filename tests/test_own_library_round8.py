"""An eighth round of a newcomer's own library: release tags that are not the release, and an error raised in
compiled code.

1. protobuf's Python distribution 7.36.2 is tagged `v36.2` upstream (protocolbuffers/protobuf: the Python release
   is the protobuf release under another major), which a tag format holding `{release}` cannot write: init refused
   `--tag-format 'v{minor}.{micro}'`, and a hand-written profile saying so was refused at load with the bare regular
   expression. The format may now form a tag from `{major}`, `{minor}` and `{micro}` beside `{release}`
   (errorkb/core/tags.py, the one owner), checked at load and by init with an error naming the unknown field, and
   every source link is made through it.
2. An error raised in compiled code, with no Python frame at the raise. protobuf's upb extension raises
   `ValueError: Protocol message FileDescriptorProto has no "nme" field.` from C, straight under the user's own line
   `descriptor_pb2.FileDescriptorProto(nme="x")` (protocolbuffers/protobuf#1389's neighbour, the constructor's
   keyword check): the paste has no frame of the library at all. `new` told the author to "pin the line that
   raises", a line that does not exist, and drafted `import google.protobuf`, so the before died of NameError on
   `descriptor_pb2`. It now imports what the line uses of the library, and says in the TODO above `source:` that
   compiled code raised it, which errorkb cannot pin, and what can be pinned instead.
   pydantic's `ValidationError` (pydantic-core, in Rust) is raised under `BaseModel.__init__`'s Python line: the
   author's first hour end to end, where the judge stays as strict as it was: the after and the guard verify, the
   before fails with the verifier's limit (its compiled `__str__` is never run), never a pass it did not observe.
   numpy's `reshape` raises a plain ValueError from the array's compiled method, called by a Python line of the
   library (`_wrapfunc`): pinned there, its after and guard verify; its before fails closed in the observer (a
   strict xfail says why).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from errorkb.cli import main
from tests.site.sitekb import mkdocs_build
from tests.test_own_library_round6 import _filled

PROTOBUF = ["--library", "protobuf", "--repository", "protocolbuffers/protobuf", "--source-root", "python"]
PARSE = ('from google.protobuf import descriptor_pb2, json_format\n\n'
         'json_format.Parse(\'{"nme": "x"}\', descriptor_pb2.FileDescriptorProto())\n')


def _protobuf_entry(tmp_path, capsys, *flags: str):
    """init for protobuf with `flags`, and an entry drafted from the traceback the library prints (a frame in
    `json_format.py`), its prose filled."""
    root = tmp_path / "kb"
    assert main(["init", str(root), *PROTOBUF, *flags]) == 0, capsys.readouterr()
    crashed = subprocess.run([sys.executable, "-c", PARSE], capture_output=True, text=True, timeout=60)
    assert 'has no field named "nme"' in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "no-field-named", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/no-field-named.yml")
    _filled(written, written.read_text())
    capsys.readouterr()
    return root


def test_a_tag_formed_from_the_releases_numbers_is_the_tag_source_links_point_at(tmp_path, capsys):
    root = _protobuf_entry(tmp_path, capsys, "--tag-format", "v{minor}.{micro}")
    assert 'tag = "v{minor}.{micro}"' in (root / "pyproject.toml").read_text()
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    (loaded,) = load_project_entries(load_project(root)).entries
    assert loaded.entry.source_url.startswith(
        "https://github.com/protocolbuffers/protobuf/blob/v36.2/python/google/protobuf/json_format.py#L"), loaded
    assert loaded.entry.line_url("7.35.1", 1).startswith("https://github.com/protocolbuffers/protobuf/blob/v35.1/")


def test_an_unknown_field_of_a_hand_written_tag_is_refused_at_load_by_name(tmp_path, capsys):
    root = _protobuf_entry(tmp_path, capsys)
    profile = root / "pyproject.toml"
    profile.write_text(profile.read_text().replace('tag = "{release}"', 'tag = "v{mayor}.{minor}"'))
    assert main(["--root", str(root), "check"]) == 1
    said = capsys.readouterr().err
    line = next(number for number, text in enumerate(profile.read_text().splitlines(), 1) if text.startswith("tag ="))
    assert f"pyproject.toml:{line}:1: [tool.errorkb] library.tag: " in said, said
    assert "unknown field {mayor}" in said and "{release}, {major}, {minor}, {micro}" in said, said
    assert "String should match pattern" not in said, said


@pytest.mark.parametrize(("tag", "said"), [("v{mayor}", "unknown field {mayor}"),
                                           ("v{major}", "must name the release"),
                                           ("v{release!r}", "written bare"),
                                           ("v{}", "unknown field {}")])
def test_init_refuses_a_tag_it_cannot_form_saying_why(tmp_path, capsys, tag, said):
    assert main(["init", str(tmp_path / "kb"), *PROTOBUF, "--tag-format", tag]) == 2
    printed = capsys.readouterr().err
    assert printed.startswith("errorkb init: tag: ") and said in printed, printed
    assert not (tmp_path / "kb").exists()


@pytest.mark.parametrize(("tag", "release", "formed"), [
    ("v{minor}.{micro}", "7.36.2", "v36.2"), ("v{release}", "7.36.2", "v7.36.2"), ("{release}", "2.14.4", "2.14.4"),
    ("release-{major}_{minor}_{micro}", "1.2", "release-1_2_0"), ("v{minor}.{micro}", "5.26.0rc1", "v26.0"),
    ("v{major}.{minor}.{micro}", "1.2rc1", "v1.2.0"), ("{release}", "2.0.0rc1", "2.0.0rc1")])
def test_the_tag_of_a_release(tag, release, formed):
    from errorkb.core.tags import check_format, tag_of

    assert tag_of(check_format(tag), release) == formed


def test_a_source_link_s_tag_is_formed_by_the_one_owner():
    from errorkb.core.entry import SourceLinks

    assert SourceLinks(tag="v{minor}.{micro}").revision(None, "7.36.2") == "v36.2"
    assert SourceLinks(tag="v{minor}.{micro}").revision("a" * 40, "7.36.2") == "a" * 40


@pytest.mark.parametrize("tag", ["v{minor}", "v {release}", "v{{release}}", "v{release", "v}{release}", "v{0}",
                                 "v{release:>8}", "", "v{release.real}", "v{release[0]}", "v{major}.{micro}"])
def test_a_tag_format_errorkb_cannot_fill_is_refused(tag):
    from errorkb.core.tags import check_format

    with pytest.raises(ValueError, match=r"^tag "):
        check_format(tag)


def test_the_draft_of_a_kb_with_such_a_tag_loads(tmp_path, capsys):
    root = _protobuf_entry(tmp_path, capsys, "--tag-format", "v{minor}.{micro}")
    (written,) = (root / "docs" / "errors").glob("*/no-field-named.yml")
    assert yaml.safe_load(written.read_text())["source"]["release"] == "7.36.2"


COMPILED = 'from google.protobuf import descriptor_pb2\n\ndescriptor_pb2.FileDescriptorProto(nme="x")\n'


def _compiled_draft(tmp_path, capsys):
    from tests.verify.verifykb import drafted_from_crash

    root = tmp_path / "kb"
    assert main(["init", str(root), *PROTOBUF]) == 0, capsys.readouterr()
    printed, written, _ = drafted_from_crash(root, tmp_path, "no-such-field", COMPILED)
    assert printed.rstrip().endswith('ValueError: Protocol message FileDescriptorProto has no "nme" field.'), printed
    assert "google/protobuf" not in printed, printed  # no frame of the library: upb raised it, in C
    return root, written


def test_a_line_that_calls_compiled_code_directly_is_drafted_with_its_imports(tmp_path, capsys):
    root, _ = _compiled_draft(tmp_path, capsys)
    for role in ("before", "after", "guard_validate"):
        drafted = (root / "snippets" / "no-such-field" / f"{role}.py").read_text()
        assert "from google.protobuf import descriptor_pb2  #" in drafted, drafted


def test_an_error_compiled_code_raised_under_the_users_line_is_said_so_where_the_pin_is(tmp_path, capsys):
    root, written = _compiled_draft(tmp_path, capsys)
    text = written.read_text()
    above = text[:text.index("source:")]
    assert "pin the line that raises" not in above, above
    assert "compiled code" in above and "descriptor_pb2.FileDescriptorProto" in above, above
    assert "no Python frame of the library" in above and "a Python function of the library" in above, above
    said = capsys.readouterr()
    assert main(["--root", str(root), "check"]) in (0, 1), said  # the draft loads (its TODOs are listed)


MODEL = "from pydantic import BaseModel\n\n\nclass User(BaseModel):\n    id: int\n\n\n"
SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"


def _pydantic(tmp_path, capsys):
    """An author's first hour for pydantic's ValidationError, raised by pydantic-core's compiled validator under
    `BaseModel.__init__`: init, `new` from the traceback pydantic prints, prose and snippets written."""
    from tests.verify.verifykb import drafted_from_crash

    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    printed, written, text = drafted_from_crash(root, tmp_path, "int-parsing", MODEL + 'User(id="not a number")\n')
    assert "pydantic_core._pydantic_core.ValidationError: 1 validation error for User" in printed, printed
    entry = yaml.safe_load(text)
    assert entry["exception"] == "pydantic_core._pydantic_core.ValidationError", entry  # as the traceback names it
    assert (entry["source"]["path"], entry["source"]["function"], entry["source"]["implicit"]) == (
        "pydantic/main.py", "BaseModel.__init__", True), entry  # the Python line that called the compiled code
    _filled(written, text)
    snippets = root / "snippets" / "int-parsing"
    (snippets / "before.py").write_text('"""A string that is no number."""\n\n' + MODEL
                                        + SHOW.format('User(id="not a number")'))
    (snippets / "after.py").write_text('"""A number."""\n\n' + MODEL + SHOW.format('print(User(id="42"))'))
    (snippets / "guard_validate.py").write_text('"""Check the text first."""\n\n' + MODEL + SHOW.format(
        'raw = "not a number"\nprint(User(id=raw if raw.isdigit() else 0))'))
    capsys.readouterr()
    return root, written


def _outcomes(root) -> dict[str, tuple[str, str]]:
    report = json.loads((root / "reports" / "latest.json").read_text())
    return {check["snippet"].rsplit("/", 1)[-1]: (check["outcome"], check.get("reason") or "")
            for check in report["checks"]}


def test_an_error_raised_in_compiled_code_end_to_end_without_a_pass_never_observed(tmp_path, capsys):
    root, _ = _pydantic(tmp_path, capsys)
    at = ["--root", str(root)]
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()
    assert main([*at, "verify", "--no-cache"]) == 1
    shown = capsys.readouterr().out
    outcomes = _outcomes(root)
    assert outcomes["after.py"][0] == "pass" and outcomes["guard_validate.py"][0] == "pass", (outcomes, shown)
    # the error surfaced from BaseModel.__init__, but its words are made by pydantic-core's compiled `__str__`, which
    # the check never runs: the before fails, with the verifier's limit said as such (docs/own-library.md)
    assert outcomes["before.py"] == ("fail", "message differs: the ValidationError's text could not be read when "
                                             "it was raised without running code of its own"), (outcomes, shown)
    assert "the verifier's limit, not the snippet's" in shown and "from BaseModel.__init__, line 280" in shown, shown
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    main([*at, "lookup", str(tmp_path / "int-parsing.txt")])
    assert "int-parsing  [confirmed]" in capsys.readouterr().out
    built = mkdocs_build(root / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    page = (tmp_path / "site" / "errors" / "pydantic" / "int-parsing" / "index.html").read_text()
    assert "github.com/pydantic/pydantic/blob/v2.14.4/pydantic/main.py#L280" in page, page[:2000]
    # the before failed when verified: the page says so, with why, never "Not verified yet" nor a pass (reader round 7)
    assert "Failed when verified" in page and "Not verified yet" not in page, page[:2000]
    assert "could not be read when it was raised without running code of its own" in page, page[:2000]


def test_an_exception_named_by_the_package_that_imports_it_fails_saying_what_to_write(tmp_path, capsys):
    """`from pydantic import ValidationError` is how users name it; the class is pydantic-core's. The judge pins a
    dotted name's package (never the class's claim of itself), so the before fails, as it should; it said only
    "raised ValidationError: ...; expected pydantic.ValidationError", which reads as another class raised."""
    root, written = _pydantic(tmp_path, capsys)
    written.write_text(written.read_text().replace("exception: pydantic_core._pydantic_core.ValidationError",
                                                   "exception: pydantic.ValidationError"))
    main(["--root", str(root), "verify", "--no-cache", "--snippet", "before"])
    capsys.readouterr()
    outcome, reason = _outcomes(root)["before.py"]
    assert outcome == "fail" and reason.startswith("raised pydantic_core._pydantic_core.ValidationError, the class "
                                                   "the traceback names; expected pydantic.ValidationError"), reason
    assert "write `exception: pydantic_core._pydantic_core.ValidationError` (or `ValidationError` alone)" in reason


RESHAPE = "import numpy\n\nnumpy.reshape(numpy.arange(6), (4,))\n"


@pytest.fixture(scope="module")
def numpy_kb(tmp_path_factory):
    """numpy's `reshape` calls the array's compiled `reshape` from a Python line of the library (`_wrapfunc`'s
    `return bound(*args, **kwds)`), which raises a plain ValueError: init, `new` from the traceback numpy prints,
    the snippets as an author writes them, `check --drift` and one verify."""
    import contextlib
    import io

    from tests.verify.verifykb import drafted_from_crash

    where = tmp_path_factory.mktemp("numpy")
    root = where / "kb"
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        assert main(["init", str(root), "--library", "numpy", "--source-root", "", "--tag-format", "v{release}"]) == 0
        printed, written, text = drafted_from_crash(root, where, "cannot-reshape", RESHAPE)
        _filled(written, text)
        snippets = root / "snippets" / "cannot-reshape"
        head = '"""A shape the array\'s size does not fill."""\n\nimport numpy\n\n'
        (snippets / "before.py").write_text(head + SHOW.format("numpy.reshape(numpy.arange(6), (4,))"))
        (snippets / "after.py").write_text(head + SHOW.format("print(numpy.reshape(numpy.arange(6), (3, 2)))"))
        (snippets / "guard_validate.py").write_text(head + SHOW.format(
            "print(numpy.reshape(numpy.arange(6), (-1, 2)))  # let numpy work out the first dimension"))
        drift = main(["--root", str(root), "check", "--drift"])
        main(["--root", str(root), "verify", "--no-cache"])
    return printed, yaml.safe_load(text), drift, _outcomes(root), said.getvalue()


def test_compiled_code_under_a_python_line_of_the_library_is_pinned_there(numpy_kb):
    printed, entry, drift, outcomes, said = numpy_kb
    assert printed.rstrip().endswith("ValueError: cannot reshape array of size 6 into shape (4,)"), printed
    assert (entry["source"]["path"], entry["source"]["function"], entry["source"]["implicit"]) == (
        "numpy/_core/fromnumeric.py", "_wrapfunc", True), entry
    assert entry["message"] == "cannot reshape array of size {n} into shape {shape}", entry
    assert drift == 0, said
    assert outcomes["after.py"][0] == "pass" and outcomes["guard_validate.py"][0] == "pass", (outcomes, said)


@pytest.mark.xfail(strict=True, reason="the observer (verify/inside, not this round's): `_wrapfunc` binds the "
                   "array's C `reshape` itself (`getattr(obj, method)`), but a C method bound to an object made after "
                   "the snippet started reads as C code the snippet planted (docs/threat-model.md: 'whether the "
                   "library or the snippet bound it cannot be told, so it fails closed'); a false failure, never a "
                   "false pass")
def test_compiled_code_under_a_python_line_of_the_library_verifies_its_before(numpy_kb):
    _, _, _, outcomes, said = numpy_kb
    assert outcomes["before.py"][0] == "pass", (outcomes["before.py"], said)  # fails now: "the snippet planted C code"


@pytest.mark.parametrize("said", ["a\u2028source: {path: x}", "a\u2029b", "a\x85b", "a\rb", "a\nb", "a\x1b[31mb"])
def test_a_comment_new_writes_stays_one_line_whatever_the_paste_held(said):
    """The TODO above `source:` now quotes the user's line; a comment is made one line *before* the paste's text is
    cleaned, and cleaning turned a Unicode line separator into a line break: YAML would read what follows as keys."""
    from errorkb.author.scaffold import _comment

    written = _comment(said)
    assert len(f"# {written}".splitlines()) == 1 and "\n" not in written and "\r" not in written, repr(written)
    assert yaml.safe_load(f"id: x\n# {written}\n") == {"id": "x"}

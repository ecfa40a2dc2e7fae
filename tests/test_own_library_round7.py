"""A seventh round of a newcomer's own library: what plain `errorkb check` tells, a fifth library end to end, and an
author's first hour for a library that is one module or a namespace package.

1. A pinned function that raises on every call (click's `Context.fail`) was said only by `check --drift`, which
   authors rarely run; plain `errorkb check` (what they run) says it too: the warning reads one function's lines
   of the pinned file, not a parse of the library (benchmarks/check_failers.py prints the cost side by side).
2. A fifth library end to end: Pygments' `ClassNotFound` of `get_lexer_by_name` for an alias no lexer has
   (brechtm/rinohtype#47 and spine-tools/Spine-Toolbox#1252 show the traceback, `pygments/lexers/__init__.py` in
   `get_lexer_by_name`, "no lexer for alias 'executable' found"; Textualize/rich-cli#12 the caught fallback). The
   message is never written here: the test runs the library and drafts from the traceback it prints.
3. An author's first hour, as typed in an empty folder (`errorkb init`, `cd`, `errorkb new`, `check`, `verify`,
   `hook index`, `lookup`, `mkdocs build`), for a library that is one module (mypy_extensions.py) and for one that
   lives in a namespace package (protobuf's `google.protobuf`: `google/` has no `__init__.py` and is shared with
   other distributions). For the namespace, init told "cannot tell protobuf's import package" (and took optimum-
   quanto's for `optimum`, the namespace); given `--import-name google.protobuf`, `new` found no frame of the
   library in the paste (the installed package's folder was taken for the top package's) and drafted `import
   google`. Its error: json_format's ParseError for a field the message type lacks (protocolbuffers/protobuf#1389:
   `json_format.py`'s 'Message type "Foo" has no field named "fooId"'), drafted from the traceback the library
   prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from errorkb.cli import main
from tests.site.sitekb import mkdocs_build
from tests.test_own_library_round6 import FAILS_ON_PURPOSE, SHOW, _click, _filled
from tests.verify.verifykb import drafted_from_crash


def test_plain_check_warns_of_a_pin_that_raises_on_every_call(tmp_path, capsys):
    root, written = _click(tmp_path, capsys)
    _filled(written, written.read_text())
    (root / "snippets" / "extra-argument" / "after.py").write_text(FAILS_ON_PURPOSE)
    assert main(["--root", str(root), "check"]) == 0  # warnings: the entry loads
    said = capsys.readouterr().err
    assert "warning: Context.fail raises UsageError on every call" in said, said
    assert "after.py:6:9: warning: calls `ctx.fail(...)`" in said, said


def test_plain_check_of_one_entry_warns_of_that_entry_only(tmp_path, capsys):
    root, written = _click(tmp_path, capsys)
    _filled(written, written.read_text())
    assert main(["--root", str(root), "check", "extra-argument"]) == 0
    assert "warning: Context.fail raises UsageError on every call" in capsys.readouterr().err


LEXER = 'from pygments.lexers import get_lexer_by_name\n\nget_lexer_by_name("executable")\n'
KNOWN = ('from pygments.lexers import get_all_lexers, get_lexer_by_name\n\n'
         + SHOW.format('wanted = "executable"  # a name from the user, a config, a code fence\n'
                       'aliases = {alias for _, names, _, _ in get_all_lexers() for alias in names}\n'
                       'lexer = get_lexer_by_name(wanted if wanted in aliases else "text")\nprint(lexer.name)'))


def _pygments(tmp_path, capsys):
    """init for Pygments (its package lies at the repository's top), `new` from the traceback the library prints,
    the prose filled and the snippets written as an author would."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "Pygments", "--source-root", ""]) == 0, capsys.readouterr()
    printed, written, text = drafted_from_crash(root, tmp_path, "no-lexer-for-alias", LEXER)
    assert "pygments.util.ClassNotFound: no lexer for alias 'executable' found" in printed, printed
    entry = yaml.safe_load(text)
    assert entry["message"] == "no lexer for alias {_alias!r} found", entry
    assert (entry["source"]["path"], entry["source"]["function"]) == ("pygments/lexers/__init__.py",
                                                                     "get_lexer_by_name"), entry
    _filled(written, text)
    snippets = root / "snippets" / "no-lexer-for-alias"
    drafted = (snippets / "before.py").read_text()
    assert "from pygments.lexers import get_lexer_by_name  #" in drafted, drafted
    (snippets / "before.py").write_text('"""An alias no installed lexer has."""\n\n'
                                        'from pygments.lexers import get_lexer_by_name\n\n'
                                        + SHOW.format('get_lexer_by_name("executable")'))
    (snippets / "after.py").write_text('"""An alias a lexer has."""\n\nfrom pygments.lexers import get_lexer_by_name'
                                       '\n\n' + SHOW.format('print(get_lexer_by_name("python").name)'))
    (snippets / "guard_validate.py").write_text(f'"""Fall back to plain text for an alias no lexer has."""\n\n{KNOWN}')
    capsys.readouterr()
    return root


def test_pygments_end_to_end_check_verify_lookup_and_the_site(tmp_path, capsys):
    root = _pygments(tmp_path, capsys)
    at = ["--root", str(root)]
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()
    main([*at, "verify", "--no-cache", "--sandbox", "require"])
    shown = capsys.readouterr().out
    report = json.loads((root / "reports" / "latest.json").read_text())
    assert sorted((check["snippet"].rsplit("/", 1)[-1], check["outcome"]) for check in report["checks"]) == [
        ("after.py", "pass"), ("before.py", "pass"), ("guard_validate.py", "pass")], shown
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    main([*at, "lookup", str(tmp_path / "no-lexer-for-alias.txt")])
    assert "no-lexer-for-alias  [confirmed]" in capsys.readouterr().out
    built = mkdocs_build(root / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    page = (tmp_path / "site" / "errors" / "pygments" / "no-lexer-for-alias" / "index.html").read_text()
    assert "no lexer for alias" in page and "github.com/pygments/pygments/blob/2.21.0/pygments/lexers/__init__.py" \
        in page, page[:2000]


@pytest.mark.parametrize("dist", ["protobuf", "optimum-quanto"])
def test_init_names_the_package_a_namespace_holds(dist):
    from importlib import metadata

    from errorkb.author.init import _import_name

    expected = {"protobuf": "google.protobuf", "optimum-quanto": "optimum.quanto"}[dist]
    assert _import_name(metadata.distribution(dist)) == expected


FIRST_HOUR = {
    "single-module": ("mypy_extensions", ["--source-root", ""], "dict-and-keywords",
                      'from mypy_extensions import TypedDict\n\nMovie = TypedDict("Movie", {"title": str}, year=int)\n',
                      "from mypy_extensions import TypedDict  #",
                      ('Movie = TypedDict("Movie", {"title": str}, year=int)',
                       'Movie = TypedDict("Movie", {"title": str, "year": int})')),
    "namespace": ("protobuf", ["--repository", "protocolbuffers/protobuf", "--source-root", "python"], "no-field-named",
                  'from google.protobuf import descriptor_pb2, json_format\n\n'
                  'json_format.Parse(\'{"nme": "x"}\', descriptor_pb2.FileDescriptorProto())\n',
                  "from google.protobuf import descriptor_pb2, json_format  #",
                  ('json_format.Parse(\'{"nme": "x"}\', descriptor_pb2.FileDescriptorProto())',
                   'print(json_format.Parse(\'{"name": "x"}\', descriptor_pb2.FileDescriptorProto()))')),
}


def _typed(folder, *args: str) -> subprocess.CompletedProcess[str]:
    """A command as the author types it in `folder` (`errorkb ...`: `python -m errorkb`, the same command)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("kind", ["single-module", "namespace"])
def test_an_authors_first_hour_in_an_empty_folder(tmp_path, kind):
    dist, flags, entry_id, crash, imported, (raised, fixed) = FIRST_HOUR[kind]
    (tmp_path / "crash.py").write_text(crash)
    crashed = subprocess.run([sys.executable, "-W", "ignore", "crash.py"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=60)
    assert crashed.returncode == 1 and "Error: " in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    ran = _typed(tmp_path, "errorkb", "init", "kb", "--library", dist, *flags)
    assert ran.returncode == 0, ran.stderr
    kb = tmp_path / "kb"
    ran = _typed(kb, "errorkb", "new", entry_id, "--from-traceback", "../tb.txt")
    assert ran.returncode == 0, ran.stderr
    (written,) = (kb / "docs" / "errors").glob(f"*/{entry_id}.yml")
    text = "\n".join(line for line in written.read_text().splitlines() if not line.lstrip().startswith("#")) + "\n"
    _filled(written, text)
    snippets = kb / "snippets" / entry_id
    before = (snippets / "before.py").read_text()
    assert imported in before and raised in before, before
    (snippets / "before.py").write_text(before.replace("TODO: ", ""))
    for role in ("after", "guard_validate"):
        (snippets / f"{role}.py").write_text(before.replace("TODO: ", "").replace(raised, fixed))
    for command in (["check", "--drift"], ["verify", "--no-cache", "--sandbox", "require"], ["hook", "index"]):
        ran = _typed(kb, "errorkb", *command)
        assert ran.returncode == 0 and "Traceback" not in ran.stderr, (command, ran.stdout, ran.stderr)
    report = json.loads((kb / "reports" / "latest.json").read_text())
    assert sorted(check["outcome"] for check in report["checks"]) == ["pass"] * 3, report["checks"]
    ran = _typed(kb, "errorkb", "lookup", "../tb.txt")
    assert f"{entry_id}  [confirmed]" in ran.stdout, (ran.stdout, ran.stderr)
    built = mkdocs_build(kb / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    assert list((tmp_path / "site" / "errors").glob(f"*/{entry_id}/index.html")), built.stderr[-3000:]


def test_a_module_of_the_library_the_line_uses_is_imported_from_its_package(tmp_path, capsys):
    """`lexers.get_lexer_by_name(...)` uses `lexers`, a module of pygments that its top level never binds: the draft
    imported nothing for it, and the before raised NameError."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "Pygments", "--source-root", ""]) == 0
    printed, _, _ = drafted_from_crash(root, tmp_path, "no-lexer", 'from pygments import lexers\n\n'
                                                                   'lexers.get_lexer_by_name("executable")\n')
    assert "no lexer for alias 'executable' found" in printed, printed
    before = (root / "snippets" / "no-lexer" / "before.py").read_text()
    assert "from pygments import lexers  #" in before, before


def test_a_namespace_package_s_draft_imports_its_own_package(tmp_path, capsys):
    """With no line to read (`python -c`), the draft imports the library as a user does: `import google.protobuf`,
    never `import google` (the namespace, which holds other distributions' packages too)."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "protobuf", "--repository", "protocolbuffers/protobuf",
                 "--source-root", "python"]) == 0, capsys.readouterr()
    crashed = subprocess.run([sys.executable, "-c", FIRST_HOUR["namespace"][3]], capture_output=True, text=True,
                             timeout=60)
    assert "has no field named" in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "no-field-named", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    for role in ("before", "after", "guard_validate"):
        drafted = (root / "snippets" / "no-field-named" / f"{role}.py").read_text()
        assert "import google.protobuf  #" in drafted and "import google  #" not in drafted, drafted


def test_init_that_cannot_tell_the_package_names_what_the_distribution_installs(tmp_path, capsys, monkeypatch):
    """Two packages, neither named like the distribution, and a namespace whose files no one package holds: the
    author is shown the names to choose from, not only told to choose."""
    from importlib import metadata

    from errorkb.author import init

    site = tmp_path / "site"
    info = site / "twotops-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: twotops\nVersion: 1.0\n"
                                   "Project-URL: Source, https://github.com/o/twotops\n")
    files = ["alpha/__init__.py", "beta/__init__.py", "beta/core.py", "beta/sub/__init__.py", "ns/one/__init__.py",
             "ns/two/__init__.py"]
    (info / "RECORD").write_text("".join(f"{name},,\n" for name in files))
    monkeypatch.setattr(init.metadata, "distribution", lambda name: metadata.PathDistribution(info))
    assert main(["init", str(tmp_path / "kb"), "--library", "twotops"]) == 2
    said = capsys.readouterr().err
    assert "cannot tell twotops's import package from its files (it installs alpha, beta, ns.one, ns.two)" in said
    assert "give --import-name NAME" in said and "google.protobuf" in said, said
    assert not (tmp_path / "kb").exists()


def test_a_pin_to_fill_of_a_namespace_package_names_its_own_package(tmp_path, capsys):
    """A paste with no frame of the library leaves the pin to the author: its path was `python/google/__init__.py`,
    a file no distribution installs (the namespace has none); it is the library's own package's."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "protobuf", "--repository", "protocolbuffers/protobuf",
                 "--source-root", "python"]) == 0, capsys.readouterr()
    crashed = subprocess.run([sys.executable, "-c", "{}['absent']"], capture_output=True, text=True, timeout=60)
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "absent-key", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/absent-key.yml")
    assert yaml.safe_load(written.read_text())["source"]["path"] == "python/google/protobuf/__init__.py"


def test_a_frame_of_another_package_in_the_namespace_is_not_the_librarys(tmp_path, capsys):
    """`google/` holds other distributions' packages (`google/api_core/`): a frame there is theirs, never
    protobuf's, though the namespace's folder holds its file."""
    from errorkb.author.paste import Frame
    from errorkb.author.scaffold import library_frame
    from errorkb.core.project import load_project

    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "protobuf", "--repository", "protocolbuffers/protobuf",
                 "--source-root", "python"]) == 0, capsys.readouterr()
    top = tmp_path / "site-packages" / "google"
    for inside in ("protobuf/__init__.py", "protobuf/json_format.py", "api_core/retry.py"):
        (top / inside).parent.mkdir(parents=True, exist_ok=True)
        (top / inside).write_text("")
    theirs = Frame(path=f"{top}/api_core/retry.py", line=1, function="retry", code="", at=0)
    ours = Frame(path=f"{top}/protobuf/json_format.py", line=1, function="Parse", code="", at=0)
    project = load_project(root)
    assert library_frame(project, (theirs,), top) is None
    assert library_frame(project, (ours, theirs), top) == (ours, "python/google/protobuf/json_format.py")

"""A sixth round of a newcomer's own library: the import a user writes, a fourth library end to end (jinja2), and an
after that fails on purpose.

1. A drafted import named the module that *defines* what the pasted line called (`from jinja2.environment import
   Environment`, `from babel.core import Locale`, `from pydantic.type_adapter import TypeAdapter`), where users
   import from the package's top level, which re-exports the same object; and the line's other library names
   (`FileSystemLoader`) were not imported at all, so the before raised NameError.
2. jinja2's `TemplateNotFound` (pallets/jinja#1661 and its fix pallets/jinja#1663 give the wording "... not found
   in search path ..."; aruba/pyedgeconnect#31 is the same mistake: `FileSystemLoader("templates")` and a template
   beside the script): `FileSystemLoader.get_source` raises `TemplateNotFound(template, f"{template!r} not found
   in search {plural}: {paths_str}")`, whose message is its *second* argument. `new` drafted the user's values as
   words (`'{name}' not found in search path: '{name2}'`) instead of the source's f-string.
3. click's `Context.fail` raises on every call (its documented way to fail): an entry pinned there can never
   verify an after (an after must call the function and every call must return), and an after that calls it on
   purpose raises the library's own error. The author is told, by `new` and by the lint.

The tracebacks are the libraries' own: the tests run them; no message is written by hand.
"""

from __future__ import annotations

import json

import pytest
import yaml

from errorkb.cli import main
from tests.site.sitekb import mkdocs_build
from tests.verify.verifykb import drafted_from_crash

SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"
MISSING = ('from jinja2 import Environment, FileSystemLoader\n\n'
           'Environment(loader=FileSystemLoader("templates")).get_template("index.html")\n')


def _filled(written, text: str) -> None:
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))


def _jinja(tmp_path, capsys):
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "Jinja2"]) == 0, capsys.readouterr()
    printed, written, text = drafted_from_crash(root, tmp_path, "template-not-found", MISSING)
    assert "jinja2.exceptions.TemplateNotFound: 'index.html' not found in search path: 'templates'" in printed, printed
    capsys.readouterr()
    return root, written, text


def test_new_drafts_the_f_string_the_exception_is_given_as_its_message(tmp_path, capsys):
    root, written, text = _jinja(tmp_path, capsys)
    entry = yaml.safe_load(text)
    assert entry["message"] == "{template!r} not found in search {plural}: {paths_str}", entry
    assert entry["source"]["function"] == "FileSystemLoader.get_source", entry
    assert entry["expect"]["placeholders"] == {"template!r": "'index.html'", "plural": "path",
                                               "paths_str": "'templates'"}, entry
    _filled(written, text)
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()


def test_the_draft_imports_what_the_line_uses_from_where_users_import_it(tmp_path, capsys):
    root, _, _ = _jinja(tmp_path, capsys)
    for role in ("before", "after", "guard_validate"):
        drafted = (root / "snippets" / "template-not-found" / f"{role}.py").read_text()
        assert "from jinja2 import Environment, FileSystemLoader  #" in drafted, drafted
        assert "jinja2.environment" not in drafted, drafted


def test_a_name_the_top_level_re_exports_lazily_is_imported_from_there(tmp_path, capsys):
    """pydantic's top level binds `TypeAdapter` under `if TYPE_CHECKING:` (and lazily by `__getattr__`): the draft
    imports it from `pydantic`, not from `pydantic.type_adapter`, which defines it."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", ""]) == 0
    printed, _, _ = drafted_from_crash(root, tmp_path, "int-parsing",
                                       'from pydantic import TypeAdapter\n\nTypeAdapter(int).validate_python("x")\n')
    assert "1 validation error for int" in printed, printed
    before = (root / "snippets" / "int-parsing" / "before.py").read_text()
    assert "from pydantic import TypeAdapter  #" in before, before


def _package(tmp_path, files: dict[str, str]):
    folder = tmp_path / "tinyq"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_a_private_module_is_drafted_only_where_no_public_one_binds_the_same_object(tmp_path):
    from errorkb.author.public import public_module

    folder = _package(tmp_path, {
        "__init__.py": "from tinyq.widgets import *\nfrom ._impl._other import Gadget\n",
        "widgets.py": "from ._impl._core import Widget, Gadget\n__all__ = ['Widget']\n",
        "_impl/__init__.py": "",
        "_impl/_core.py": "class Widget:\n    pass\n\n\nclass Gadget:\n    pass\n\n\nclass Hidden:\n    pass\n",
        "_impl/_other.py": "class Gadget:  # a look-alike: not the object _core defines\n    pass\n",
    })
    assert public_module(folder, "tinyq", "tinyq._impl._core", "Widget") == "tinyq"  # through the star import
    assert public_module(folder, "tinyq", "tinyq._impl._core", "Gadget") == "tinyq.widgets"  # top's is another
    assert public_module(folder, "tinyq", "tinyq._impl._core", "Hidden") == "tinyq._impl._core"  # no public one


def test_a_re_export_cycle_ends(tmp_path):
    from errorkb.author.public import public_module

    folder = _package(tmp_path, {"__init__.py": "from .a import X\n", "a.py": "from .b import X\n",
                                 "b.py": "from .a import X\n", "_c.py": "class X:\n    pass\n"})
    assert public_module(folder, "tinyq", "tinyq._c", "X") == "tinyq._c"


def _written(tmp_path, capsys):
    root, written, text = _jinja(tmp_path, capsys)
    _filled(written, "\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n")
    snippets = root / "snippets" / "template-not-found"
    (snippets / "index.html").write_text("Hello {{ name }}!\n")  # beside the script, not in templates/
    (snippets / "before.py").write_text('"""The template lies beside the script, outside the loader\'s search path."""'
                                        '\n\nfrom jinja2 import Environment, FileSystemLoader\n\n'
                                        + SHOW.format('Environment(loader=FileSystemLoader("templates"))'
                                                      '.get_template("index.html")'))
    fixed = ('from jinja2 import Environment, FileSystemLoader\n\n'
             + SHOW.format('here = __file__.rpartition("/")[0]  # the script\'s folder, wherever it is run from\n'
                           'loader = FileSystemLoader([f"{here}/templates", here])\n'
                           'print(Environment(loader=loader).get_template("index.html").render(name="you"))'))
    (snippets / "after.py").write_text(f'"""Search the folder the template is in, anchored at the script."""\n\n{fixed}')
    (snippets / "guard_validate.py").write_text(f'"""A search path that holds the template."""\n\n{fixed}')
    return root


def test_jinja_end_to_end_drift_verify_lookup_and_the_site(tmp_path, capsys):
    root = _written(tmp_path, capsys)
    at = ["--root", str(root)]
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()
    for role in ("after", "guard"):
        assert main([*at, "verify", "template-not-found", "--snippet", role, "--no-cache", "--sandbox", "require"]) \
            == 0, capsys.readouterr().out
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    main([*at, "lookup", str(tmp_path / "template-not-found.txt")])
    assert "template-not-found  [confirmed]" in capsys.readouterr().out
    built = mkdocs_build(root / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    page = (tmp_path / "site" / "errors" / "jinja" / "template-not-found" / "index.html").read_text()
    assert "not found in search" in page and "github.com/pallets/jinja/blob/3.1.6/src/jinja2/loaders.py" in page


@pytest.mark.xfail(strict=True, reason="the observer (errorkb/verify/inside/observer.py, not this round's) runs a "
                   "library `__str__` only for an exception whose built-in bases are in its args-only list; "
                   "TemplateNotFound derives from OSError (IOError), whose C fields (errno, strerror, filename) its "
                   "data check does not cover, so the text is unread and the before fails 'message differs'")
def test_jinja_the_before_verifies(tmp_path, capsys):
    root = _written(tmp_path, capsys)
    main(["--root", str(root), "verify", "template-not-found", "--snippet", "before", "--no-cache", "--sandbox",
          "require"])
    shown = capsys.readouterr().out
    assert "the verifier's limit, not the snippet's" not in shown, shown  # today: the unread note, said as such
    report = json.loads((root / "reports" / "latest.json").read_text())
    assert [check["outcome"] for check in report["checks"]] == ["pass"], shown

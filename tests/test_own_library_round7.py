"""A seventh round of a newcomer's own library: what plain `errorkb check` tells, a fifth library end to end, and an
author's first hour for a library that is one module or a namespace package.

1. A pinned function that raises on every call (click's `Context.fail`) was said only by `check --drift`, which
   authors rarely run; plain `errorkb check` (what they run) says it too: the warning reads one function's lines
   of the pinned file, not a parse of the library (benchmarks/check_failers.py prints the cost side by side).
2. A fifth library end to end: Pygments' `ClassNotFound` of `get_lexer_by_name` for an alias no lexer has
   (brechtm/rinohtype#47 and spine-tools/Spine-Toolbox#1252 show the traceback, `pygments/lexers/__init__.py` in
   `get_lexer_by_name`, "no lexer for alias 'executable' found"; Textualize/rich-cli#12 the caught fallback). The
   message is never written here: the test runs the library and drafts from the traceback it prints.
"""

from __future__ import annotations

import json

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

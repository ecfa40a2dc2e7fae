"""A newcomer's next library from docs/own-library.md alone: babel (installed here), end to end — `init`, `new` from
the traceback babel prints, `check --drift`, `verify` in the sandbox, `hook index` and `lookup`, `mkdocs build`.

The error is the one users paste: `babel.core.UnknownLocaleError: unknown locale 'no_NO'`, raised by `Locale.parse`
under `format_datetime(..., locale="no_NO")` (Dielee/volvo2mqtt#24; python-babel/babel#639 through `Locale.parse`).
Two steps misled: the raise passes the identifier (`raise UnknownLocaleError(input_id)`) and the exception's
`__init__` makes the message (`f"unknown locale {identifier!r}"`), so `new` drafted `unknown locale '{name}'` and
`check --drift` failed a right pin ("found: None"); and the drafted before imported only `babel`, so the pasted
call (`Locale.parse(...)`) raised NameError until the author found the module to import from. The tracebacks are
babel's own: the tests run it.
"""

from __future__ import annotations

import json

import yaml

from errorkb.cli import main
from tests.site.sitekb import mkdocs_build
from tests.verify.verifykb import drafted_from_crash

SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"
PARSE = 'from babel import Locale\n\nLocale.parse("no_NO")\n'
DATES = ('from datetime import datetime\n\nfrom babel.dates import format_datetime\n\n'
         'format_datetime(datetime(2026, 1, 1), format="medium", locale="no_NO")\n')
FIXED = 'from babel import Locale\n\n' + SHOW.format('print(Locale.parse("nb_NO"))')


def _kb(tmp_path, capsys, program: str = PARSE):
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "babel", "--source-root", ""]) == 0, capsys.readouterr()
    printed, written, text = drafted_from_crash(root, tmp_path, "unknown-locale", program)
    assert "babel.core.UnknownLocaleError: unknown locale 'no_NO'" in printed, printed
    capsys.readouterr()
    return root, written, text


def _filled(written, text: str) -> None:
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))


def test_new_drafts_the_message_the_exception_makes_and_the_pin_holds(tmp_path, capsys):
    root, written, text = _kb(tmp_path, capsys, DATES)
    entry = yaml.safe_load(text)
    assert entry["message"] == "unknown locale {identifier!r}", entry
    assert entry["source"]["function"] == "Locale.parse" and entry["expect"]["placeholders"] == {
        "identifier!r": "'no_NO'"}, entry
    _filled(written, text)
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()
    before = (root / "snippets" / "unknown-locale" / "before.py").read_text()
    assert "from babel.dates import format_datetime" in before, before  # `datetime` is the user's: a TODO says so


def test_the_drafted_before_imports_what_the_pasted_call_uses_and_raises_as_documented(tmp_path, capsys):
    """packaging's InvalidVersion (nwg-piotr/nwg-panel#281, peterbe/hashin#190 paste it): the pasted line calls
    `Version(...)`, whose `__init__` raises; the draft imports `Version` from the module that defines it, and the
    before verifies as drafted. On main it imported only `packaging`: NameError."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "packaging"]) == 0, capsys.readouterr()
    printed, written, text = drafted_from_crash(root, tmp_path, "invalid-version",
                                                'from packaging.version import Version\n\nVersion("1.0-banana")\n')
    assert "InvalidVersion: Invalid version: '1.0-banana'" in printed, printed
    before = (root / "snippets" / "invalid-version" / "before.py").read_text()
    assert "from packaging.version import Version" in before, before
    _filled(written, text)
    capsys.readouterr()
    main(["--root", str(root), "verify", "invalid-version", "--snippet", "before", "--no-cache", "--sandbox",
          "require"])
    shown = capsys.readouterr().out
    report = json.loads((root / "reports" / "latest.json").read_text())
    (check,) = report["checks"]
    assert check["outcome"] == "pass", shown  # the draft as written: only its prose is the author's to do
    (babel, _, _) = _kb(tmp_path / "babel", capsys)
    assert "from babel import Locale" in (babel / "snippets" / "unknown-locale" / "before.py").read_text()


def _written(tmp_path, capsys):
    root, written, text = _kb(tmp_path, capsys)
    _filled(written, "\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n")
    snippets = root / "snippets" / "unknown-locale"
    (snippets / "before.py").write_text('"""A POSIX locale name babel has no data for."""\n\n'
                                        'from babel import Locale\n\n' + SHOW.format('Locale.parse("no_NO")'))
    (snippets / "after.py").write_text(f'"""Norwegian Bokmal\'s own identifier."""\n\n{FIXED}')
    (snippets / "guard_validate.py").write_text(f'"""An identifier babel has data for."""\n\n{FIXED}')
    return root


def test_babel_the_before_verifies(tmp_path, capsys):
    root = _written(tmp_path, capsys)
    main(["--root", str(root), "verify", "--no-cache", "--sandbox", "require"])
    report = json.loads((root / "reports" / "latest.json").read_text())
    assert report["summary"] == {**report["summary"], "pass": 3, "fail": 0}, capsys.readouterr().out


def test_babel_end_to_end_drift_verify_lookup_and_the_site(tmp_path, capsys):
    root = _written(tmp_path, capsys)
    at = ["--root", str(root)]
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()
    for role in ("after", "guard"):
        assert main([*at, "verify", "unknown-locale", "--snippet", role, "--no-cache", "--sandbox", "require"]) == 0
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    main([*at, "lookup", str(tmp_path / "unknown-locale.txt")])
    assert "unknown-locale  [confirmed]" in capsys.readouterr().out
    built = mkdocs_build(root / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    page = (tmp_path / "site" / "errors" / "babel" / "unknown-locale" / "index.html").read_text()
    assert "unknown locale" in page and "github.com/python-babel/babel/blob/" in page

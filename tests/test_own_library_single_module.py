"""A library that is one module (`mypy_extensions.py`, `yaml_env_tag.py`, `typing_extensions.py`), not a package
folder, gets a knowledge base as a package does: init, new (the pin: the module's file, its function), check
--drift (the source path), verify in the sandbox (the raise's documented place), coverage, the hook's index and
the lookup (a frame of the module's file is the library's), render.

The error is a real one: mypy_extensions' functional `TypedDict` refuses a field dict and keyword fields in one
call (its runtime implementation: python/mypy#2552; the same one-module form of the library raising in user code:
agronholm/typeguard#453, a traceback through `site-packages/typing_extensions.py`). The message is never written
here: the test runs the library and takes the traceback it prints.
"""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from errorkb.cli import main

CRASH = 'from mypy_extensions import TypedDict\n\nMovie = TypedDict("Movie", {"title": str}, year=int)\n'
BEFORE = ('"""A field dict and keyword fields in one call."""\n\nfrom mypy_extensions import TypedDict\n\n'
          '# --8<-- [start:show]\nMovie = TypedDict("Movie", {"title": str}, year=int)\n# --8<-- [end:show]\n')
AFTER = ('"""Every field in the one dict."""\n\nfrom mypy_extensions import TypedDict\n\n'
         '# --8<-- [start:show]\nMovie = TypedDict("Movie", {"title": str, "year": int})\n# --8<-- [end:show]\n'
         'print(Movie)\n')


def _started(tmp_path, capsys):
    """init for mypy_extensions, then `new` from the traceback the library prints; the draft's prose filled."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "mypy_extensions", "--source-root", ""]) == 0, capsys.readouterr()
    crashed = subprocess.run([sys.executable, "-W", "ignore", "-c", CRASH], capture_output=True, text=True,
                             timeout=60)
    assert "mypy_extensions.py" in crashed.stderr and "TypeError: TypedDict takes" in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "dict-and-keywords", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/dict-and-keywords.yml")
    snippets = root / "snippets" / "dict-and-keywords"
    (snippets / "before.py").write_text(BEFORE)
    (snippets / "after.py").write_text(AFTER)
    (snippets / "guard_validate.py").write_text(AFTER)
    text = written.read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n"
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))
    capsys.readouterr()
    return root, written


def test_init_and_new_pin_the_modules_file_and_function(tmp_path, capsys):
    root, written = _started(tmp_path, capsys)
    profile = (root / "pyproject.toml").read_text()
    assert 'name = "mypy_extensions"' in profile and 'source_root = ""' in profile
    source = yaml.safe_load(written.read_text())["source"]
    assert (source["path"], source["function"], source["line"]) == ("mypy_extensions.py", "_typeddict_new", 35)
    message = yaml.safe_load(written.read_text())["message"]
    assert message.startswith("TypedDict takes either a dict or keyword arguments"), message
    before = (root / "snippets" / "dict-and-keywords").iterdir()
    assert {path.name for path in before} == {"before.py", "after.py", "guard_validate.py"}
    assert main(["--root", str(root), "check"]) == 0, capsys.readouterr()


def test_every_command_on_a_single_module_library(tmp_path, capsys):
    root, _ = _started(tmp_path, capsys)
    at = ["--root", str(root)]
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()  # the source path is the module's file
    assert main([*at, "verify", "--no-cache", "--sandbox", "require"]) == 0, capsys.readouterr().out
    report = json.loads((root / "reports" / "latest.json").read_text())
    assert report["summary"]["pass"] == 3 and report["summary"]["fail"] == 0, report["summary"]
    before = next(c for c in report["checks"] if c["id"].startswith("dict-and-keywords::before"))
    assert before["exception"]["raise_site"]["function"] == "_typeddict_new"  # its documented place
    capsys.readouterr()
    assert main([*at, "coverage", "--json"]) == 0
    (followed,) = json.loads(capsys.readouterr().out)["files"]
    assert followed["path"] == "mypy_extensions.py" and any(row["entries"] for row in followed["rows"])
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    assert main([*at, "lookup", str(tmp_path / "tb.txt")]) == 0  # a frame of mypy_extensions.py is the library's
    assert "dict-and-keywords  [confirmed]" in capsys.readouterr().out
    assert main([*at, "render", "--out", str(tmp_path / "md")]) == 0
    (page,) = (tmp_path / "md" / "errors").glob("*/dict-and-keywords.md")
    assert "blob/1.2.0/mypy_extensions.py#L35" in page.read_text()

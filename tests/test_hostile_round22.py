"""Hostile input, round twenty-two: the loader, the reports and the site stage, bounded and lossless.

- the gap round twenty-one left in `errorkb check`'s record of pages that rendered within budget
  (errorkb.site.rehearsed): a file saved and saved back between a rehearsal child's import of it and its first look
  at it. The child imported one code, digested another, and the record said the pages passed with the second;
- mkdocs.yml's YAML aliases (errorkb.site.settings): a bomb of six lines read as a million values, copied one by
  one (11 s; each line more, ten times that), and an alias inside the value it names recursed for ever (a
  RecursionError traceback from `errorkb render --out`);
- (the escapes, each filter in each place a template writes it: tests/site/test_inert_round22.py; the reports:
  tests/test_reports_round22.py.)

Probed and held (no change): an entry's alias bomb, a lone surrogate escape in an entry, a flow nested 100,000 deep,
60,000 items in a list, entry files and library folders that differ only in case, a file name in NFD, a report of
an older or a newer schema, a minor that is no whole number, a record that is a list, mkdocs.yml linked out of the
repository, `!ENV` and `!relative` in mkdocs.yml.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import shutil
import sys
from pathlib import Path

import pytest

from errorkb.site import budget
from tests.kb import make_project
from tests.site.test_rehearsed import REFUSING_HELPER, check, local_code, rendered  # noqa: F401 (a fixture)


@pytest.mark.parametrize("imported_from", ["source", "bytecode"])
def test_code_saved_and_saved_back_while_a_child_imports_it_is_never_recorded_as_what_rendered(
        tmp_path: Path, rendered, monkeypatch, capsys, imported_from):  # noqa: F811
    """The helper on disk refuses a page (`REFUSING_HELPER`); the child imported a version that passed it, saved
    over it before the child first looked at the file (the module does it itself as it is imported: the same
    moment, every time). The child's look, the parent's before and after all read the refusing code, so the
    pages were recorded as passing with it, and the next run skipped them."""
    root = local_code(tmp_path, monkeypatch)
    counting = budget.rehearse  # one child: the one that imports the version saved over
    monkeypatch.setattr(budget, "rehearse", lambda pages, config, **options: counting(pages, config,
                                                                                       **{**options, "jobs": 1}))
    helper = tmp_path / "code" / "localhelper.py"
    helper.write_text("import os, pathlib\n"
                      f"if os.getpid() != {os.getpid()}:  # in the child: saved back once imported\n"
                      f"    pathlib.Path(__file__).write_text({REFUSING_HELPER!r})\n"
                      "def verdict(text):\n    return None\n")
    if imported_from == "bytecode":  # the child runs the cached bytecode of the version it imports
        py_compile.compile(str(helper), cfile=importlib.util.cache_from_source(str(helper)), doraise=True)
    else:  # the child compiles the source it reads
        monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
        monkeypatch.setattr(sys, "dont_write_bytecode", True)
        shutil.rmtree(helper.parent / "__pycache__", ignore_errors=True)
    assert check(root) == 0  # rendered by the passing code, which the child imported: right
    assert helper.read_text() == REFUSING_HELPER
    rendered.clear()
    capsys.readouterr()
    assert check(root) == 1, "pages were taken from a record keyed on code that never rendered them"
    assert "the new code refuses it" in capsys.readouterr().err
    assert rendered, "nothing rendered again"


# -- mkdocs.yml: YAML aliases (errorkb.site.settings) ---------------------------------------------------------------

def _bomb(levels: int) -> str:
    """Each level a list of ten aliases of the one before: 10**levels values, in a file of a few hundred bytes."""
    names = [chr(ord("a") + level) for level in range(levels + 1)]
    lines = [f"{names[0]}: &{names[0]} [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{name}: &{name} [{', '.join(['*' + before] * 10)}]" for before, name in zip(names, names[1:])]
    return "\n".join(lines) + "\n"


def _site(root: Path, settings: str) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    config = root / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n  - toc\n" + settings, encoding="utf-8")
    return config


def test_an_alias_bomb_in_mkdocs_yml_is_refused_at_its_line(tmp_path):
    """A million values from six lines: errorkb's reading of the settings rewrote every alias as a copy of what it
    names (`_named`), 11 s and the memory of a million-item tree; one line more, ten times that. A site's settings
    hold a few hundred values."""
    from errorkb.site.settings import SettingsError, markdown_settings

    config = _site(tmp_path, _bomb(6))
    with pytest.raises(SettingsError) as raised:
        markdown_settings(config)
    said = str(raised.value)
    assert said.startswith("mkdocs.yml:") and "aliases" in said and "more than 100,000 values" in said, said
    line = int(said.split(":")[1])
    assert config.read_text().splitlines()[line - 1].startswith("e: &e"), said  # the first key past the limit


@pytest.mark.parametrize("settings", ["a: &a [x, *a]\n", "a: &a {b: [1, {c: *a}]}\n"], ids=["list", "mapping"])
def test_an_alias_inside_the_value_it_names_is_refused_never_a_traceback(tmp_path, settings, capsys):
    """`&a [x, *a]`: a list holding itself, which PyYAML builds; the settings' reading recursed into it for ever
    (RecursionError: a traceback from `errorkb render --out`, and `errorkb check` said "RecursionError" at line 1)."""
    from errorkb.cli import main
    from errorkb.site.settings import SettingsError, markdown_settings

    config = _site(tmp_path, settings)
    with pytest.raises(SettingsError, match=r"^mkdocs\.yml:4: .*alias.*inside the value it names"):
        markdown_settings(config)
    make_project(tmp_path)
    capsys.readouterr()
    assert main(["--root", str(tmp_path), "render", "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "mkdocs.yml:4:" in err and "Traceback" not in err, err


def test_aliases_a_site_uses_still_read(tmp_path):
    """The control: an anchor named twice or thrice (a shared option), as a site's settings may."""
    from errorkb.site.settings import markdown_settings

    config = _site(tmp_path, "")
    config.write_text("site_name: t\nmarkdown_extensions:\n  - toc:\n      permalink: &mark true\n"
                      "  - admonition\nextra:\n  again: *mark\n", encoding="utf-8")
    extensions, configs = markdown_settings(config)
    assert "toc" in extensions and configs["toc"]["permalink"] is True

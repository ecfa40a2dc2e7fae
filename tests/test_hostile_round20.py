"""Hostile input, round twenty: what a stranger's pull request puts in mkdocs.yml, and errorkb check's record of
the pages it rehearsed.

- mkdocs.yml naming 10^4 Markdown extensions (a 1 MB file may): each was located in the file by reading the whole
  file again, before anything was known to be wrong: 10^4 reads of a megabyte and a search of every line, a
  `errorkb check` that never finished. Located now only where one is refused, from one reading.
- a record of rehearsed pages that names, as the code that rendered them, a file that is no regular file (a FIFO,
  a device): reading it to digest the renderer would block `errorkb check` for ever (tests/site/test_rehearsed.py).

The reports' round twenty is tests/test_reports_round20.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errorkb.site import settings


def test_many_extensions_are_located_from_one_reading_of_the_file(tmp_path, monkeypatch):
    names = [f"  - no_such_extension_{index}\n" for index in range(2_000)]
    (tmp_path / "docs").mkdir()
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n" + "".join(names), encoding="utf-8")
    reads = []
    real = Path.read_text

    def counting(self, *args, **kwargs):
        if self.name == "mkdocs.yml":
            reads.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    with pytest.raises(settings.SettingsError) as raised:
        settings.read(config)
    assert len(reads) <= 3, f"mkdocs.yml read {len(reads)} times"
    assert "mkdocs.yml:2: markdown_extensions:" in str(raised.value) and "no_such_extension_0" in str(raised.value)


def test_an_extension_of_the_repository_is_refused_at_its_line(tmp_path):
    (tmp_path / "localext.py").write_text("raise SystemExit('ran')\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - localext\n", encoding="utf-8")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(settings.SettingsError, match=r"mkdocs.yml:4: localext would be imported from localext.py"):
            settings.read(config)
    finally:
        sys.path.remove(str(tmp_path))


def test_an_extension_of_the_repository_is_refused_though_this_process_imported_its_name_from_elsewhere(tmp_path):
    """Where a module of the extension's name was already imported (from another folder: a test before, a plugin),
    the repository's file a fresh `mkdocs build` would import is still found (`importlib.util.find_spec` answers
    from `sys.modules` first: under xdist this test's twin above passed or failed by which tests its worker ran)."""
    import importlib
    import sys

    elsewhere, repository = tmp_path / "elsewhere", tmp_path / "repository"
    elsewhere.mkdir(), repository.mkdir()
    (elsewhere / "sameext_r20.py").write_text("X = 1\n", encoding="utf-8")
    (repository / "sameext_r20.py").write_text("raise SystemExit('ran')\n", encoding="utf-8")
    config = repository / "mkdocs.yml"
    config.write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - sameext_r20\n", encoding="utf-8")
    sys.path.insert(0, str(elsewhere))
    try:
        importlib.import_module("sameext_r20")
    finally:
        sys.path.remove(str(elsewhere))
    sys.path.insert(0, str(repository))
    try:
        with pytest.raises(settings.SettingsError, match=r"mkdocs.yml:4: sameext_r20 would be imported from "):
            settings.read(config)
    finally:
        sys.path.remove(str(repository))
        sys.modules.pop("sameext_r20", None)

"""Hostile input, round twenty-three, at the commands (errorkb/cli.py, errorkb/site/plugin.py): a special file named
mkdocs.yml, pyproject.toml or a report, and the settings the theme publishes unescaped (see
tests/test_hostile_round23.py for the readers).

- `errorkb check` took an mkdocs.yml that is a FIFO, a socket, a folder or a link to nothing for none ("1 entries
  OK"), and said nothing of a report it could not read (the site's build warns of it);
- `errorkb lookup` in a checkout whose pyproject.toml is a FIFO blocked for ever;
- `mkdocs build` published `repo_url`, `site_name`, `nav` and `extra` as they are: the plugin refuses them first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import make_project
from tests.test_hostile_round23 import KINDS, SAID, _never_blocks, _special


@pytest.mark.parametrize("kind", KINDS)
def test_check_says_what_a_special_mkdocs_yml_is_never_that_all_is_well(tmp_path, kind, capsys):
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    kept = _special(root / "mkdocs.yml", kind, tmp_path / "outside.yml")
    code = _never_blocks(lambda: main(["--root", str(root), "check"]), root / "mkdocs.yml", "errorkb check")
    printed = capsys.readouterr()
    assert code == 1 and "entries OK" not in printed.out, printed
    assert "mkdocs.yml:1:1: " in printed.err and SAID[kind] in printed.err, printed.err
    del kept


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_render_says_what_a_special_mkdocs_yml_is_and_writes_nothing(tmp_path, kind, capsys):
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    kept = _special(root / "mkdocs.yml", kind, tmp_path / "outside.yml")
    out = tmp_path / "out"
    code = _never_blocks(lambda: main(["--root", str(root), "render", "--out", str(out)]), root / "mkdocs.yml",
                         "errorkb render")
    err = capsys.readouterr().err
    assert code != 0 and SAID[kind] in err and not out.exists(), err
    del kept


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder"])
def test_check_says_it_could_not_read_a_report(tmp_path, kind, capsys):
    make_project(tmp_path)
    (tmp_path / "reports").mkdir()
    kept = _special(tmp_path / "reports" / "latest.json", kind, tmp_path / "outside.json")
    _never_blocks(lambda: main(["--root", str(tmp_path), "check"]), tmp_path / "reports" / "latest.json",
                  "errorkb check")
    err = capsys.readouterr().err
    assert "warning: " in err and "latest.json: not a regular file" in err, err
    del kept


def test_lookup_in_a_checkout_whose_pyproject_is_a_fifo_never_blocks(tmp_path, monkeypatch, capsys):
    make_project(tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    os.mkfifo(tmp_path / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    code = _never_blocks(lambda: main(["lookup", "some error"]), tmp_path / "pyproject.toml", "errorkb lookup")
    err = capsys.readouterr().err
    assert code != 0 and "a FIFO, not a regular file" in err, err


@pytest.mark.parametrize("setting", ["repo_url: 'javascript://x.org/%0aalert(1)'",
                                     "site_name: '<img src=x onerror=alert(1)>'",
                                     "extra:\n  social:\n    - link: 'javascript:alert(1)'"],
                         ids=["repo_url", "site_name", "extra"])
def test_the_plugin_refuses_settings_the_theme_would_publish_as_they_are(tmp_path, setting):
    """Before MkDocs writes a page: the same rule as `errorkb check`'s (`settings.refused`)."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError

    make_project(tmp_path)
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    text = f"site_name: kb\n{setting}\nplugins:\n  - errorkb\n"
    config_file.write_text(text if not setting.startswith("site_name") else text.replace("site_name: kb\n", ""),
                           encoding="utf-8")
    config = load_config(str(config_file))
    with pytest.raises(PluginError, match=r"errorkb: mkdocs\.yml:\d+: (repo_url|site_name|extra): "):
        config.plugins["errorkb"].on_config(config)


def test_the_plugin_takes_plain_settings(tmp_path):
    from mkdocs.config import load_config

    make_project(tmp_path)
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text("site_name: Q&A\nrepo_url: https://github.com/owner/name\nplugins:\n  - errorkb\n",
                           encoding="utf-8")
    config = load_config(str(config_file))
    assert config.plugins["errorkb"].on_config(config) is config
    assert Path(config.docs_dir).name == "docs"


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder", "dangling"])
def test_lookup_says_what_a_special_index_is_never_blocks(tmp_path, kind, capsys):
    """`errorkb lookup --index` (and the hook, and `show`, which read the installed index the same way) opened a
    FIFO and waited for a writer for ever."""
    index = tmp_path / "index.json"
    kept = _special(index, kind, tmp_path / "outside.json")
    code = _never_blocks(lambda: main(["lookup", "--index", str(index), "some error"]), index, "errorkb lookup")
    err = capsys.readouterr().err
    assert code != 0 and f"cannot read the index {index}: {SAID[kind]}" in err, err
    del kept


def test_the_recall_benchmark_says_what_a_special_corpus_is(tmp_path):
    from benchmarks.lookup_recall import read_corpus

    corpus = tmp_path / "reports.yml"
    os.mkfifo(corpus)
    raised = _never_blocks(lambda: read_corpus(corpus), corpus, "the recall benchmark")
    assert isinstance(raised, SystemExit) and "a FIFO, not a regular file" in str(raised), raised


def test_the_plugin_makes_the_copyright_line_inert_and_keeps_its_links(tmp_path):
    """`copyright` is HTML by Material's design (a link to the licence), written into every page's footer as it is:
    the plugin passes it through the pages' sanitiser."""
    from mkdocs.config import load_config

    make_project(tmp_path)
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text("site_name: kb\ncopyright: '&copy; kb, <a href=\"https://x.org/licence\">licence</a>"
                           "<script>alert(1)</script><img src=x onerror=alert(1)>'\nplugins:\n  - errorkb\n",
                           encoding="utf-8")
    config = load_config(str(config_file))
    config.plugins["errorkb"].on_config(config)
    assert '<a href="https://x.org/licence">licence</a>' in config.copyright, config.copyright
    assert "script" not in config.copyright and "onerror" not in config.copyright, config.copyright

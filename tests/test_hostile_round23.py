"""Hostile input, round twenty-three: special files where the tool reads a knowledge base, and the project's own
settings as input.

- every file the tool reads from a knowledge base being a FIFO, a socket, a folder, a link out of the repository or a
  link to nothing (a file that vanished between its listing and its reading): one reader
  (`errorkb.core.filebytes.read_bounded`) and one wording (`filebytes.said`). mkdocs.yml as a FIFO blocked its
  reading for ever (`markdown_settings`, and `mkdocs_site_url`, which every address the CLI prints is made from);
  pyproject.toml as a FIFO, a socket or a folder was taken for absent ("[tool.errorkb.library] is missing"), and a
  link out of the repository was read (its text quoted by the TOML error);
- mkdocs.yml's `site_name`, `site_url`, `repo_url`, `nav` and `extra` are written into every page by MkDocs' theme
  unescaped (and `repo_url` into an attribute by errorkb's own `overrides/partials/source.html`): markup, a
  `javascript:` address, a control character or a page's worth of text is refused at its line
  (`errorkb.site.settings.refused`); `[tool.errorkb] site_url` and `source_url` hold printable characters only (an
  escape sequence rewrote the terminal every printed address reached).

Probed and held (no change): an entry with a BOM, with CRLF line ends, with a NUL (raw or escaped); a snippet named
`../guard.py`, `/etc/passwd`, `sub/../guard.py` or with a NUL; a snippet or an entry as a FIFO, a socket, a folder,
a link out or a link to nothing; a report as any of them (the site's build says so: `errorkb check`'s silence about
it is errorkb/cli.py's, a patch). (The reports' own round: tests/test_reports_round23.py.)
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errorkb.core import filebytes
from errorkb.core.problems import ProblemsFound
from errorkb.core.project import load_project, mkdocs_site_url
from tests.kb import make_project

KINDS = ["fifo", "socket", "folder", "link-out", "dangling"]
SAID = {"fifo": "a FIFO, not a regular file", "socket": "a socket, not a regular file",
        "folder": "a folder, not a regular file", "link-out": "outside the repository",
        "dangling": "vanished as it was read (or a link to nothing)"}


def _special(path: Path, kind: str, outside: Path) -> list[Any]:
    """`path` made a `kind` of file; what must stay alive while it is one (a socket's listener)."""
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif os.path.lexists(path):
        path.unlink()
    kept: list[Any] = []
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
        kept.append(listener)
    elif kind == "folder":
        path.mkdir()
    elif kind == "link-out":
        outside.write_text("secret = 'the text of a file outside the repository'\nsite_url: https://x.org/\n")
        path.symlink_to(outside)
    else:  # listed, then gone when read: a link to nothing reads as a file that vanished in between
        path.symlink_to(path.parent / "gone-away")
    return kept


def _never_blocks(call: Callable[[], Any], fifo: Path, what: str) -> Any:
    """`call()`'s answer (or what it raised), in a thread; a failure naming `what` where it blocks on the FIFO
    `fifo`, which is then opened for writing to free it."""
    answer: list[Any] = []

    def run() -> None:
        try:
            answer.append(call())
        except BaseException as error:  # (handed to the test)
            answer.append(error)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(30)
    if reader.is_alive():
        if fifo.exists():
            with open(fifo, "wb"):  # the reader's open returns, its read ends
                pass
        reader.join(30)
        pytest.fail(f"{what} blocked on a FIFO")
    return answer[0]


# -- mkdocs.yml ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_a_special_mkdocs_yml_is_said_what_it_is_never_blocks_never_absent(tmp_path, kind):
    """The reading of mkdocs.yml errorkb's commands do (`errorkb check`'s rehearsal, `render --out`'s edit links):
    a FIFO blocked it for ever; a socket, a folder or a link to nothing said an errno. And the project's mkdocs.yml
    is there whatever it is (`config_file`): `errorkb check` took one that is no regular file for none."""
    from errorkb.site.settings import SettingsError, config_file, markdown_settings

    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    config = root / "mkdocs.yml"
    kept = _special(config, kind, tmp_path / "outside.yml")
    assert config_file(root) == config, f"mkdocs.yml, {kind}, taken for no file"
    raised = _never_blocks(lambda: markdown_settings(config), config, "reading mkdocs.yml")
    assert isinstance(raised, SettingsError), raised
    said = str(raised)
    assert said.startswith(f"{config}:1: ") and SAID[kind] in said, said
    assert "secret" not in said and "Errno" not in said, said
    del kept


def test_no_mkdocs_yml_is_none(tmp_path):
    """The control: nothing there is no settings file."""
    from errorkb.site.settings import config_file

    make_project(tmp_path)
    assert config_file(tmp_path) is None


@pytest.mark.parametrize("kind", KINDS)
def test_the_site_address_read_from_a_special_mkdocs_yml_never_blocks(tmp_path, kind):
    """`mkdocs_site_url` (every address the CLI and the hook print is made from it) opened a FIFO and waited for a
    writer for ever; through a link out of the repository it read another file's `site_url`."""
    root = tmp_path / "kb"
    root.mkdir()
    config = root / "mkdocs.yml"
    kept = _special(config, kind, tmp_path / "outside.yml")
    assert _never_blocks(lambda: mkdocs_site_url(config), config, "the site address") is None
    del kept


# -- pyproject.toml --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_a_special_pyproject_is_said_what_it_is_never_taken_for_absent(tmp_path, kind):
    """pyproject.toml as a FIFO, a socket or a folder was taken for no file ("[tool.errorkb.library] is missing");
    a link out of the repository was read, and a TOML error quoted its text; a link to nothing was named by
    where it pointed ("gone-away:1:1")."""
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root)
    pyproject = root / "pyproject.toml"
    kept = _special(pyproject, kind, tmp_path / "outside.toml")
    raised = _never_blocks(lambda: load_project(root), pyproject, "reading pyproject.toml")
    assert isinstance(raised, ProblemsFound), raised
    said = [str(one) for one in raised.problems]
    assert len(said) == 1 and said[0].startswith("pyproject.toml:1:1: ") and SAID[kind] in said[0], said
    assert "secret" not in said[0], said
    del kept


def test_a_pyproject_alone_a_fifo_is_not_passed_over_for_a_project_above(tmp_path):
    """The root is found by what is there: a FIFO named pyproject.toml is this project's file (said what it is),
    never a reason to take the folder above for the project."""
    make_project(tmp_path)
    inner = tmp_path / "inner"
    inner.mkdir()
    os.mkfifo(inner / "pyproject.toml")
    raised = _never_blocks(lambda: load_project(inner), inner / "pyproject.toml", "finding the project")
    assert isinstance(raised, ProblemsFound) and "a FIFO" in str(raised.problems[0]), raised


# -- the one reader --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_the_one_reader_says_what_each_special_file_is(tmp_path, kind):
    root = tmp_path / "kb"
    root.mkdir()
    path = root / "file.txt"
    kept = _special(path, kind, tmp_path / "outside.txt")
    raised = _never_blocks(lambda: filebytes.read_bounded(path, 100, inside=root), path, "the reader")
    assert isinstance(raised, OSError) and SAID[kind] in filebytes.said(raised), raised
    del kept


def test_the_one_reader_never_reads_past_its_limit_and_reads_a_plain_file(tmp_path):
    path = tmp_path / "file.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(filebytes.TooLarge, match="101 bytes, more than the 100"):
        filebytes.read_bounded(path, 100)
    assert filebytes.read_bounded(path, 101, inside=tmp_path) == b"x" * 101


def test_a_link_inside_the_folder_is_read(tmp_path):
    """The control: a link to a file of the same folder is the file."""
    (tmp_path / "real.txt").write_text("kept")
    (tmp_path / "link.txt").symlink_to("real.txt")
    assert filebytes.read_bounded(tmp_path / "link.txt", 100, inside=tmp_path) == b"kept"


# -- the project's own settings --------------------------------------------------------------------------------------

HOSTILE_SETTINGS = [
    ("repo_url: 'https://x.org/\"><script>alert(1)</script>'\n", "repo_url", "no http(s) address"),
    ("repo_url: 'javascript://x.org/%0aalert(1)'\n", "repo_url", "no http(s) address"),
    ("site_url: 'https://x.org/\"onmouseover=\"alert(1)'\n", "site_url", "no http(s) address"),
    ("site_name: '<img src=x onerror=alert(1)>'\n", "site_name", "markup included"),
    ("site_name: \"kb\\e]8;;https://evil.example/\\a\"\n", "site_name", "U+001B (a control character)"),
    ("site_name: " + "x" * 3000 + "\n", "site_name", "3,000 characters"),
    ("site_description: 'a\" http-equiv=\"refresh'\n", "site_description", "markup included"),
    ("nav:\n  - Home: index.md\n  - Evil: 'javascript:alert(1)'\n", "nav", "a javascript: address"),
    ("nav:\n  - '<b onclick=alert(1)>x</b>': index.md\n", "nav", "markup included"),
    ("extra:\n  social:\n    - icon: x\n      link: ' JavaScript:alert(1)'\n", "extra", "a javascript: address"),
    ("extra:\n  social:\n    - link: 'data:text/html,<script>alert(1)</script>'\n", "extra", "markup included"),
    ("extra:\n  homepage: 'data:text/html;base64,PHNjcmlwdD4='\n", "extra", "a data: address"),
    ("repo_url: https://x.org/o/n\nedit_uri: '\"><script>alert(1)</script>'\n", "edit_uri", "markup included"),
    ("extra_javascript:\n  - https://evil.example/track.js\n", "extra_javascript", "loaded from elsewhere"),
    ("extra_javascript:\n  - path: //evil.example/track.js\n    type: module\n", "extra_javascript",
     "loaded from elsewhere"),
    ("extra_css:\n  - 'data:text/css,body{}'\n", "extra_css", "loaded from elsewhere"),
]


@pytest.mark.parametrize("settings, key, what", HOSTILE_SETTINGS,
                         ids=[f"{key}-{number}" for number, (_, key, _) in enumerate(HOSTILE_SETTINGS)])
def test_settings_the_theme_publishes_as_they_are_are_refused_at_their_line(tmp_path, settings, key, what):
    """MkDocs' theme writes these into every page unescaped (its Jinja does not escape): errorkb's reading of
    mkdocs.yml (`errorkb check`, `render --out`) read them as MkDocs does, and published them."""
    from errorkb.site.settings import SettingsError, markdown_settings

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    config = tmp_path / "mkdocs.yml"
    text = settings if settings.startswith("site_name") else "site_name: kb\n" + settings
    config.write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError) as raised:
        markdown_settings(config)
    said = str(raised.value)
    line = next(number for number, one in enumerate(text.splitlines(), 1) if one.startswith(key))
    assert said.startswith(f"mkdocs.yml:{line}: {key}: ") and what in said, said
    assert "\x1b" not in said and "\x07" not in said, said


def test_settings_a_site_writes_still_read(tmp_path):
    """The control: an ampersand, a mail address, an external page, a page of the site, Material's social links."""
    from errorkb.site.settings import markdown_settings, read

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: Q&A of the cache\nsite_url: https://example.org/kb/\n"
                      "repo_url: https://github.com/owner/name\nsite_description: Errors, and what fixes them.\n"
                      "nav:\n  - Home: index.md\n  - Upstream: https://github.com/owner/name\n"
                      "  - Mail: mailto:kb@example.org\nextra:\n  social:\n    - icon: fontawesome/brands/github\n"
                      "      link: https://github.com/owner\n  generator: false\nedit_uri: edit/main/docs/\n"
                      "extra_css:\n  - styles/site.css\nextra_javascript:\n  - path: js/site.js\n    type: module\n",
                      encoding="utf-8")
    markdown_settings(config)
    assert read(config).site_name == "Q&A of the cache"


ESCAPE = "\\u001b]8;;https://evil.example/\\u0007"


@pytest.mark.parametrize("setting", [f'site_url = "https://example.org/{ESCAPE}"',
                                     'site_url = "https://example.org/\\u202ekb"',
                                     f'site_url = "https://example.org/{"a" * 2001}"'],
                         ids=["escape", "right-to-left", "huge"])
def test_a_site_address_in_the_settings_holds_printable_characters_only(tmp_path, setting):
    """`[tool.errorkb] site_url` is printed by the CLI and the hook before every entry's address: an escape
    sequence in it rewrote the reader's terminal (a link to elsewhere, a cleared screen); a right-to-left override
    reordered it."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "timeout = 60", f"timeout = 60\n{setting}"), encoding="utf-8")
    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path)
    said = str(raised.value.problems[0])
    assert "site_url" in said and "\x1b" not in said, said


def test_a_source_address_pattern_holds_printable_characters_only(tmp_path):
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert "[tool.errorkb.library]" in text
    pyproject.write_text(text.replace("[tool.errorkb.library]", "[tool.errorkb.library]\nsource_url = "
                                      f'"https://x.org/{{revision}}/{{path}}{ESCAPE}"', 1), encoding="utf-8")
    with pytest.raises(ProblemsFound, match="source_url"):
        load_project(tmp_path)


def test_a_site_address_in_mkdocs_yml_with_a_control_character_is_never_printed(tmp_path):
    """mkdocs.yml's `site_url` is read as a line (its tags are MkDocs'): one holding an escape sequence is no
    address (and `errorkb check` refuses it at its line: `refused`)."""
    make_project(tmp_path)
    (tmp_path / "mkdocs.yml").write_text("site_name: kb\nsite_url: https://example.org/\x1b]8;;x\x07kb/\n",
                                         encoding="utf-8")
    assert load_project(tmp_path).site_url is None
    (tmp_path / "mkdocs.yml").write_text("site_name: kb\nsite_url: https://example.org/kb/\n", encoding="utf-8")
    assert load_project(tmp_path).site_url == "https://example.org/kb/"


@pytest.mark.parametrize("reason", ["\\u001b[2J cleared", "a \\u202e reversed reason", "x" * 2001],
                         ids=["escape", "right-to-left", "huge"])
def test_a_coverage_exemptions_reason_is_text_as_an_entrys_is(tmp_path, reason):
    """`[[tool.errorkb.coverage.exempt]] reason` is shown on the coverage page beside the entries' text, which may
    hold no control or direction character: the settings' text is held to the same rule (`prose.unprintable`)."""
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + f'\n[[tool.errorkb.coverage.exempt]]\nline = 7\n'
                         f'reason = "{reason}"\n', encoding="utf-8")
    with pytest.raises(ProblemsFound) as raised:
        load_project(tmp_path)
    said = str(raised.value.problems[0])
    assert "coverage.exempt" in said and "\x1b" not in said and "\u202e" not in said, said

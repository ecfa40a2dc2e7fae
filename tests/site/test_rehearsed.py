"""`errorkb check` renders again only the pages whose bytes (or renderer) changed since they last rendered within
budget (errorkb.site.rehearsed), and never takes a record it cannot vouch for as a page that passed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.site import budget
from tests.kb import VALID_ENTRY, make_project

ENTRY_FILE = "docs/errors/transformers/demo-error.yml"
REPOSITORY = str(Path(__file__).resolve().parents[2])


@pytest.fixture
def rendered(monkeypatch) -> list[str]:
    """The keys of the pages each `budget.rehearse` call renders, and the burning extension on the child's path."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [REPOSITORY, os.environ.get("PYTHONPATH")])))
    for variable in ("GITHUB_EVENT_NAME", "CI_PIPELINE_SOURCE"):
        monkeypatch.delenv(variable, raising=False)
    keys: list[str] = []
    real = budget.rehearse

    def counting(rehearsals, *args, **kwargs):
        keys.extend(one.key for one in rehearsals)
        return real(rehearsals, *args, **kwargs)

    monkeypatch.setattr(budget, "rehearse", counting)
    return keys


def project(root: Path, trigger: str = "When it happens.") -> Path:
    """Two entries; the site renders with tests/site/burn.py, which raises on a page holding RAISE-HERE."""
    make_project(root, entries={"demo-error.yml": VALID_ENTRY.format(id="demo-error").replace(
        "trigger: When it happens.", f"trigger: {trigger}"), "other-error.yml": VALID_ENTRY.format(id="other-error")})
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - tests.site.burn\n")
    return root


def check(root: Path, *options: str) -> int:
    return main(["--root", str(root), "check", *options])


def set_trigger(root: Path, trigger: str) -> None:
    path = root / ENTRY_FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(text.split("trigger: ", 1)[1].split("\n", 1)[0], trigger, 1), encoding="utf-8")


def test_an_unchanged_page_is_not_rendered_again_and_a_changed_one_is(tmp_path, rendered, capsys):
    root = project(tmp_path)
    assert check(root) == 0
    every = list(rendered)
    assert len(every) > 5 and any(key.endswith("demo-error.md") for key in every)
    rendered.clear()
    assert check(root) == 0
    assert rendered == [], "pages whose bytes and renderer are unchanged rendered again"
    set_trigger(root, "When it happens, now in other words.")
    assert check(root) == 0
    changed = set(rendered)
    assert any(key.endswith("demo-error.md") for key in changed), rendered  # its own page
    assert not any(key.endswith("other-error.md") for key in changed), rendered  # the other's, unchanged
    rendered.clear()
    assert check(root, "--rehearse-all") == 0
    assert sorted(rendered) == sorted(every)


def test_a_hostile_page_is_found_after_a_clean_run_and_on_every_run_after(tmp_path, rendered, capsys):
    root = project(tmp_path)
    assert check(root) == 0
    set_trigger(root, "When it happens, RAISE-HERE.")
    capsys.readouterr()
    for _ in range(2):  # a page that went wrong is never recorded as one that passed
        assert check(root) == 1
        err = capsys.readouterr().err
        assert f"{ENTRY_FILE}:13:10: trigger: this text raised ValueError while rendering" in err, err


def test_the_settings_are_part_of_the_key(tmp_path, rendered, capsys):
    root = project(tmp_path)
    assert check(root) == 0
    rendered.clear()
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - admonition\n  - tests.site.burn\n")
    assert check(root) == 0
    assert len(rendered) > 5, "pages rendered before under other Markdown settings were taken as passing"


def forged(root: Path, monkeypatch) -> Path:
    """A hostile project whose record says its pages passed: written by a run whose rehearsal said every page was
    fine (as a stranger's record would). Returns the record."""
    set_trigger(root, "When it happens, RAISE-HERE.")
    lying = budget.rehearse
    monkeypatch.setattr(budget, "rehearse", lambda rehearsals, *a, **k: [budget.Verdict(one.key, True)
                                                                           for one in rehearsals])
    assert check(root) == 0
    monkeypatch.setattr(budget, "rehearse", lying)
    record = root / ".errorkb-cache" / "check" / "rehearsed.json"
    assert record.is_file()
    return record


def test_a_record_this_user_wrote_alone_is_trusted(tmp_path, rendered, monkeypatch):
    """The control for the next test: the record, as it is, makes check skip the hostile page."""
    record = forged(project(tmp_path), monkeypatch)
    os.chmod(record, 0o644)
    assert check(tmp_path) == 0


@pytest.mark.parametrize("how", ["group-writable", "anyone-writable", "tracked", "pull-request", "rehearse-all",
                                 "linked-out"])
def test_a_record_nobody_can_vouch_for_is_never_trusted(tmp_path, rendered, monkeypatch, capsys, how):
    (tmp_path / "project").mkdir()
    root = project(tmp_path / "project")
    record = forged(root, monkeypatch)
    options: list[str] = []
    if how == "group-writable":
        os.chmod(record, 0o664)
    elif how == "anyone-writable":
        os.chmod(record, 0o646)
    elif how == "tracked":  # a pull request committed it (`git add -f`)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-f", str(record)], check=True)
    elif how == "pull-request":
        monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    elif how == "rehearse-all":
        options = ["--rehearse-all"]
    else:  # the check folder is a link to a record outside the project
        outside = tmp_path / "elsewhere"
        (root / ".errorkb-cache" / "check").rename(outside)
        (root / ".errorkb-cache" / "check").symlink_to(outside)
    capsys.readouterr()
    assert check(root, *options) == 1
    assert "trigger: this text raised ValueError while rendering" in capsys.readouterr().err


LOCAL_EXTENSION = '''
from markdown import Extension
from markdown.preprocessors import Preprocessor
from {helper} import verdict


class _Local(Preprocessor):
    def run(self, lines):
        verdict("\\n".join(lines))
        return lines


class LocalExtension(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(_Local(md), "errorkb-test-local", 100)


def makeExtension(**kwargs):
    return LocalExtension(**kwargs)
'''


@pytest.mark.parametrize("changed", ["extension", "helper"])
def test_a_page_is_rendered_again_when_the_code_that_renders_it_changes(tmp_path, rendered, monkeypatch, capsys,
                                                                         changed):
    """A Markdown extension no release pins (a module on the path, an editable install, a package changed in
    place) changes while its distribution's release, if it has one, stays: the pages it passed before are
    rendered again by the new code, which may now find one of them over the budget. So is a module that
    extension imports (`changed == "helper"`)."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "localext.py").write_text(LOCAL_EXTENSION.format(helper="localhelper"))
    (code / "localhelper.py").write_text("def verdict(text):\n    return None\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(code), os.environ["PYTHONPATH"]]))
    monkeypatch.syspath_prepend(str(code))  # as it is for a process started with that PYTHONPATH
    (tmp_path / "project").mkdir()
    root = project(tmp_path / "project")
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - localext\n")
    assert check(root) == 0
    rendered.clear()
    assert check(root) == 0
    assert rendered == [], "the control: an unchanged renderer renders nothing again"
    refusing = "def verdict(text):\n    if 'demo-error' in text:\n        raise ValueError('the new code refuses it')\n"
    if changed == "extension":
        (code / "localext.py").write_text(LOCAL_EXTENSION.format(helper="localhelper").replace(
            'verdict("\\n".join(lines))', 'verdict("\\n".join(lines))\n        ' + refusing.split("\n", 1)[1]
            .replace("text", '"\\n".join(lines)').strip().replace("\n", "\n        ")))
    else:
        (code / "localhelper.py").write_text(refusing)
    capsys.readouterr()
    assert check(root) == 1, "a page the old code passed was taken from the record, unrendered by the new code"
    assert "the new code refuses it" in capsys.readouterr().err


@pytest.mark.parametrize("named", ["fifo", "device", "folder", "missing", "too-many"])
def test_a_record_naming_code_that_is_no_regular_file_is_never_read_from_it(tmp_path, rendered, capsys, named):
    """The record names the files of the code that rendered its pages, and is read back to digest them: a FIFO
    there (a module may name any file its `__file__`) blocked `errorkb check` for ever, a device never ended."""
    import json

    (tmp_path / "project").mkdir()
    root = project(tmp_path / "project")
    assert check(root) == 0
    record = root / ".errorkb-cache" / "check" / "rehearsed.json"
    document = json.loads(record.read_text())
    odd = tmp_path / "odd"
    if named == "fifo":
        os.mkfifo(odd)
    elif named == "folder":
        odd.mkdir()
    document["code"] = [*document["code"], [None, {"fifo": str(odd), "device": "/dev/zero", "folder": str(odd),
                                                   "missing": str(odd), "too-many": str(odd)}[named]]]
    if named == "too-many":
        document["code"] += [[None, f"/nowhere/{index}.py"] for index in range(20_001)]
    record.write_text(json.dumps(document))
    os.chmod(record, 0o644)
    rendered.clear()
    assert check(root) == 0
    assert len(rendered) > 5, "pages passed from a record whose renderer's code was never read"


REFUSING_HELPER = "def verdict(text):\n    if 'demo-error' in text:\n        raise ValueError('the new code refuses it')\n"


def local_code(tmp_path: Path, monkeypatch, *folders: str) -> Path:
    """A project rendered with `localext` (which calls `localhelper.verdict`), both in `code/`, behind the empty
    folders `folders` on the child's PYTHONPATH (and this process's path)."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "localext.py").write_text(LOCAL_EXTENSION.format(helper="localhelper"))
    (code / "localhelper.py").write_text("def verdict(text):\n    return None\n")
    before = [tmp_path / folder for folder in folders]
    for folder in before:
        folder.mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([*map(str, before), str(code), os.environ["PYTHONPATH"]]))
    for folder in [code, *before][::-1]:
        monkeypatch.syspath_prepend(str(folder))
    (tmp_path / "project").mkdir()
    root = project(tmp_path / "project")
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - localext\n")
    return root


def test_code_edited_while_the_pages_render_is_never_recorded_as_what_rendered_them(tmp_path, rendered, monkeypatch,
                                                                                   capsys):
    """Session 59's item: the record was keyed on the code's bytes read after the children rendered, so a helper
    saved in between (the children ran the old code, the new one refuses a page) was recorded as the code the pages
    passed with: the next run skipped them, and the new code never rendered them."""
    root = local_code(tmp_path, monkeypatch)
    helper = tmp_path / "code" / "localhelper.py"
    real = budget.rehearse

    def saved_meanwhile(rehearsals, *args, **kwargs):
        verdicts = real(rehearsals, *args, **kwargs)
        helper.write_text(REFUSING_HELPER)  # the author saves once the children have imported the old code
        return verdicts

    monkeypatch.setattr(budget, "rehearse", saved_meanwhile)
    assert check(root) == 0  # rendered by the old code: right
    monkeypatch.setattr(budget, "rehearse", real)
    capsys.readouterr()
    assert check(root) == 1, "pages were taken from a record keyed on code that never rendered them"
    assert "the new code refuses it" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["earlier-folder", "package-beside"])
def test_a_module_newly_shadowing_the_code_that_rendered_is_a_change_of_the_renderer(tmp_path, rendered, monkeypatch,
                                                                                    capsys, where):
    """Session 59's item: the record names the files the renderer ran, and digests them; a module of the same name
    found first now (in a folder earlier on the path, or a package beside the module) is what a render imports,
    but the recorded files are unchanged: the pages were skipped, the shadowing code never rendered them."""
    root = local_code(tmp_path, monkeypatch, "first")
    assert check(root) == 0
    rendered.clear()
    assert check(root) == 0
    assert rendered == [], "the control: an unchanged renderer renders nothing again"
    if where == "earlier-folder":
        (tmp_path / "first" / "localhelper.py").write_text(REFUSING_HELPER)
    else:
        (tmp_path / "code" / "localhelper").mkdir()
        (tmp_path / "code" / "localhelper" / "__init__.py").write_text(REFUSING_HELPER)
    capsys.readouterr()
    assert check(root) == 1, "the pages were skipped though another module now renders them"
    assert "the new code refuses it" in capsys.readouterr().err

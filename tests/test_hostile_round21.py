"""Hostile input, round twenty-one: what a Markdown extension does in `errorkb check`'s rehearsal child, and the
code a result is keyed on.

- an extension that writes to standard output (a debugging `print`, or `os.write(1, ...)`) while a page renders:
  the child's answers share that stream, the parent read a line that was no answer and its worker thread died on
  it, and `errorkb check` ended in a traceback (`KeyError: 0`) instead of its verdicts;
- an answer the parent cannot read (a child of another errorkb, a line cut short): the same traceback.

Session 59's two items (code saved while the pages render, a module newly shadowing the code that rendered) are in
tests/site/test_rehearsed.py and tests/verify/test_verify_cache.py. The reports and the loader held this round's
probes (a report nested 200,000 deep, a 5,000-digit or 1e99999 number, NaN, a FIFO, /dev/zero; an entry or a
snippet that is a FIFO, a snippet linked to /dev/zero): each a clear problem already, so no reports round this time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.site import budget
from tests.kb import VALID_ENTRY, make_project

REPOSITORY = str(Path(__file__).resolve().parents[1])

TALKING = '''
import os

from markdown import Extension
from markdown.preprocessors import Preprocessor


class _Talk(Preprocessor):
    def run(self, lines):
        {talk}
        return lines


class TalkExtension(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(_Talk(md), "errorkb-test-talk", 100)


def makeExtension(**kwargs):
    return TalkExtension(**kwargs)
'''


@pytest.fixture
def child_path(monkeypatch, tmp_path) -> Path:
    """A folder on the rehearsal child's path (and this errorkb first on it), for an extension of the test's own."""
    code = tmp_path / "code"
    code.mkdir()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [REPOSITORY, str(code),
                                                                   os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(code))
    for variable in ("GITHUB_EVENT_NAME", "CI_PIPELINE_SOURCE"):
        monkeypatch.delenv(variable, raising=False)
    return code


@pytest.mark.parametrize("talk", ['print("hello from the extension")',
                                  'os.write(1, b"{\\"key\\": 1}\\n" * 3)',
                                  'print("{\\"key\\": \\"page.md\\", \\"ok\\": true, \\"what\\": \\"\\"}")'])
def test_an_extension_writing_to_standard_output_neither_breaks_nor_speaks_for_the_rehearsal(tmp_path, child_path,
                                                                                           capsys, talk):
    """What an extension writes is not an answer: the pages still get their own verdicts (here: one page raises,
    and is found; a forged `ok` printed by the extension never passes it)."""
    (child_path / "talkext.py").write_text(TALKING.format(talk=talk + "\n        if 'RAISE-HERE' in '\\n'.join("
                                                          "lines):\n            raise ValueError('refused')"))
    root = tmp_path / "project"
    root.mkdir()
    make_project(root, entries={"demo-error.yml": VALID_ENTRY.format(id="demo-error").replace(
        "trigger: When it happens.", "trigger: When it happens, RAISE-HERE.")})
    (root / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n  - talkext\n")
    capsys.readouterr()
    assert main(["--root", str(root), "check"]) == 1
    err = capsys.readouterr().err
    assert "trigger: this text raised ValueError while rendering: refused" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("answer", ["not an answer", '{"key": "b.md", "ok": true, "what": ""}',
                                    '{"key": "a.md", "ok": true, "what": "", "code": ["x"], "path": []}', "[]"])
def test_an_answer_the_parent_cannot_read_is_that_page_s_verdict_never_a_traceback(monkeypatch, answer):
    """A child whose answer is no verdict on the page asked (a child of another errorkb, another page's key, a
    module list of another shape): that page is not passed, its child is not asked again, and the other pages
    still get theirs."""
    import sys

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [REPOSITORY, os.environ.get("PYTHONPATH")])))
    real = budget.python_command
    started = []

    def first_child_garbles(*arguments):
        started.append(arguments)
        if len(started) == 1:
            return [sys.executable, "-c", f"import sys\nfor line in sys.stdin:\n    print({answer!r}, flush=True)"]
        return real(*arguments)

    monkeypatch.setattr(budget, "python_command", first_child_garbles)
    verdicts = budget.rehearse([budget.Rehearsal("a.md", "# a\n"), budget.Rehearsal("b.md", "# b\n")], None,
                               jobs=1, code=budget.RenderingCode())
    assert [verdict.key for verdict in verdicts] == ["a.md", "b.md"]
    assert not verdicts[0].ok and "no verdict" in verdicts[0].what, verdicts[0]
    assert verdicts[1].ok and len(started) == 2

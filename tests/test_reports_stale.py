"""What makes a result stale, and that whoever shows "stale" says why.

Last session a test run left an empty `output_dir/` in an entry's snippet folder: the inputs
digest counted it, every one of the entry's 66 matrix results and its badges read stale, and
neither the page nor the CLI said anything an author could act on (nothing they wrote changed).
The rule now: a folder counts only through what it holds, any file counts, and every place that
shows "stale" says why (`results.keys.STALE_WHY`); `errorkb check` names what lies in the
snippet folder besides the entry's snippets, where a stray file would be."""

from __future__ import annotations

import json

import pytest

from errorkb.cli import main
from errorkb.results.keys import STALE_WHY, folder_digest
from tests.site.sitekb import record, site_project, write_report

ENTRY = "head-dim-list-length"


@pytest.fixture
def kb(tmp_path):
    return site_project(tmp_path / "kb", ids=(ENTRY,))


def test_an_empty_folder_left_in_a_snippet_folder_keeps_its_digest(kb):
    """A script that created `output_dir/` (and empty folders inside it) changed the digest."""
    folder = kb / "snippets" / ENTRY
    before = folder_digest(folder)
    (folder / "output_dir" / "runs" / "empty").mkdir(parents=True)
    assert folder_digest(folder) == before


def test_a_file_in_a_new_folder_of_a_snippet_folder_changes_its_digest(kb):
    """Any file counts, at any depth: a snippet may import it or read it."""
    folder = kb / "snippets" / ENTRY
    before = folder_digest(folder)
    (folder / "output_dir" / "runs").mkdir(parents=True)
    (folder / "output_dir" / "runs" / "log.txt").write_text("", encoding="utf-8")
    assert folder_digest(folder) != before


def _stale_report(kb) -> None:
    """A passing before and after, each recorded from the entry as it is now; then a file appears."""
    write_report(kb, [record(kb, ENTRY, "before", "before.py"), record(kb, ENTRY, "after", "after.py")])
    (kb / "snippets" / ENTRY / "output_dir").mkdir()
    (kb / "snippets" / ENTRY / "output_dir" / "trainer_state.json").write_text("{}", encoding="utf-8")


def test_a_page_never_shows_stale_without_saying_why(kb, tmp_path):
    """The badge said "verified · stale", and its hover text only "all 2 snippets passed"; the
    JSON API's badge said `stale: true` and nothing else. Every mark now carries the reason."""
    _stale_report(kb)
    out = tmp_path / "out"
    assert main(["--root", str(kb), "render", "--out", str(out)]) == 0
    page = (out / "errors" / "transformers" / f"{ENTRY}.md").read_text(encoding="utf-8")
    assert "stale" in page
    badges = [line for line in page.splitlines() if 'class="ekb-badge ' in line and "ekb-stale" in line]
    assert badges and all(STALE_WHY in line for line in badges), badges
    assert f"*stale*: {STALE_WHY}; run" in page  # under the verification table's "(stale)" cells
    document = json.loads((out / "api" / "errors" / f"{ENTRY}.json").read_text(encoding="utf-8"))
    stale_badges = [badge for badge in document["badges"] if badge["stale"]]
    assert stale_badges and all(STALE_WHY in badge["detail"] for badge in stale_badges), stale_badges
    stale_checks = [check for check in document["verification"] if check["stale"]]
    assert stale_checks and all(check.get("stale_why") == STALE_WHY for check in stale_checks), stale_checks
    index = json.loads((out / "api" / "errors" / "index.json").read_text(encoding="utf-8"))
    assert index["stale_why"] == STALE_WHY  # the paste box's badges say it (tests/site/test_paste_box.py)


def test_errorkb_check_says_which_results_are_stale_and_what_else_lies_in_the_snippet_folder(kb, capsys):
    """`errorkb check` was silent: an author whose page read stale had nothing to go on."""
    _stale_report(kb)
    assert main(["--root", str(kb), "check"]) == 0
    said = capsys.readouterr().err
    assert f"docs/errors/transformers/{ENTRY}.yml" in said and "2 verified check(s) are stale" in said, said
    assert STALE_WHY in said and f"snippets/{ENTRY}/output_dir/trainer_state.json" in said, said
    assert f"errorkb verify {ENTRY}" in said, said


def test_errorkb_check_says_nothing_of_staleness_when_every_result_is_fresh(kb, capsys):
    """A control: the same report with the snippet folder as it was recorded."""
    write_report(kb, [record(kb, ENTRY, "before", "before.py"), record(kb, ENTRY, "after", "after.py")])
    (kb / "snippets" / ENTRY / "output_dir").mkdir()  # empty: counts for nothing
    assert main(["--root", str(kb), "check"]) == 0
    assert "stale" not in capsys.readouterr().err

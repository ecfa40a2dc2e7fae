"""One definition of a snippet: its role, its bytes, their hash, the part a page shows."""

from __future__ import annotations

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.snippets import Role, Snippet, sha256
from errorkb.results.records import Outcome
from errorkb.results.report import latest_results
from errorkb.site.render import build_pages
from errorkb.verify.engine import verify
from tests.kb import copy_kb


@pytest.mark.parametrize("text", ["before", "after", "guard:check_lengths"])
def test_roles_parse_and_format(text):
    role = Role(text)
    assert str(role) == text and role == text
    assert role.kind == text.split(":")[0]
    assert role.stem == (text.split(":")[1] if ":" in text else None)


def test_a_guard_role_comes_from_its_file():
    assert Role.guard("guard_per_layer.py") == "guard:guard_per_layer"


@pytest.mark.parametrize("text", ["", "before:x", "guard", "guard:", "guard:a:b", "afterwards", "guard:../x"])
def test_malformed_roles_are_refused(text):
    with pytest.raises(ValueError, match="not a snippet role"):
        Role(text)


def test_the_hash_is_of_the_bytes_and_the_page_text_is_normalised(tmp_path):
    data = b"x = 1\r\n# --8<-- [start:show]\r\ny = 2\r\n# --8<-- [end:show]\r\n"
    path = tmp_path / "before.py"
    path.write_bytes(data)
    snippet = Snippet(Role("before"), "before.py", path, data)
    assert snippet.sha256 == sha256(data) != sha256(data.replace(b"\r\n", b"\n"))
    assert snippet.shown == "y = 2\n" and snippet.full == "x = 1\ny = 2\n"


def test_a_snippet_with_windows_line_endings_is_not_stale_after_verification(tmp_path, project_root, lean_checks):
    """The verifier and the site hash the same bytes: CRLF files are fresh right after a run."""
    root = copy_kb(tmp_path, ["head-dim-list-length"])
    for path in (root / "snippets" / "head-dim-list-length").glob("*.py"):
        path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    project = load_project(root)
    loaded = load_project_entries(project).entries
    report = verify(project, loaded, targets=["bundled"], devices=["cpu"])
    assert {record.outcome for record in report.checks} == {Outcome.PASS}
    (page,) = build_pages(project, loaded, latest_results([report]))
    assert len(page.records) == 4 and not any(page.is_stale(record) for record in page.records)
    assert "\r" not in page.snippets["before"].shown

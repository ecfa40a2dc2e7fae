"""One owner of where an error comes from: `Entry.origin` words it for every page, and the lookup index
ships it, so `errorkb lookup`'s terminal line says what the pages say instead of wording it itself (a removed
API's error is raised at the user's use of the old name, never "from" its replacement)."""

from __future__ import annotations

from errorkb import cli
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.lookup import Known
from errorkb.lookup._release import INSTALLED
from errorkb.site.hookindex import project_index
from tests.kb import ROOT

REMOVED = "get-max-length-removed"  # kind 'removed': its source.function is the replacement


def _project():
    project = load_project(ROOT)
    return project, [one.entry for one in load_project_entries(project).entries]


def test_the_index_ships_each_entry_s_origin_as_the_pages_word_it():
    project, entries = _project()
    index = project_index(project, entries)
    known = {one.id: one for one in index.known}
    assert {entry.id: tuple(entry.origin) for entry in entries} == {i: one.origin for i, one in known.items()}
    assert known[REMOVED].origin == ("at a use of", "transformers.DynamicCache.get_max_length")


def test_the_cli_line_says_what_the_page_says_for_a_removed_entry(capsys):
    project, entries = _project()
    entry = next(one for one in entries if one.id == REMOVED)
    index = project_index(project, entries)
    answer = index.lookup().answer("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'",
                                   None, INSTALLED)
    match = next(one for one in answer.matches if one.known.id == REMOVED)
    cli._print_match(match, index)
    lines = capsys.readouterr().out.splitlines()
    # the errors index's row, errors.md.j2: "{exception} {origin[0]} `{origin[1]}`"
    page = f"{entry.exception} {entry.origin[0]} {entry.origin[1]}"
    assert lines[1].strip() == page, lines


def test_an_index_without_origin_still_reads(capsys):
    """An index published before `origin` was shipped: a raise says where it is raised; a removed API says
    nothing it cannot know rather than send the reader to the replacement."""
    raised = Known.from_index({"id": "a", "title": "t", "exception": "ValueError", "message": "m",
                               "function": "Cache.update"})
    removed = Known.from_index({"id": "b", "title": "t", "exception": "AttributeError", "message": "m",
                                "function": "DynamicCache.get_max_cache_shape", "kind": "removed"})
    assert raised.origin == ("from", "Cache.update") and removed.origin is None

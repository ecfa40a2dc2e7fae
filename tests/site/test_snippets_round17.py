"""Snippet folders as untrusted input, round seventeen: a pull request's snippets/ tree can hold 10^5 files, folders
nested hundreds deep, or links that loop. Every `errorkb check`, `mkdocs serve` rebuild and `errorkb verify` walks
the tree (lint, compiled code, names) and hashes each entry's folder (the verdict key), so such a tree cost seconds
per build and grew without end, while `errorkb check` said "OK". Now a folder past the bounds is a problem naming
it and saying what to do, the walk stops at the bound, and no consumer reads the entry's folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from errorkb.core import snippets
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from tests.site.sitekb import site_project

ENTRY = "head-dim-list-length"


def _problems(project: Path) -> tuple[list[str], set[str]]:
    result = load_project_entries(load_project(project))
    return [str(problem) for problem in result.problems], {one.entry.id for one in result.entries}


def _check(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "errorkb", "check"], cwd=project, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})


def test_a_snippet_folder_of_too_many_files_is_a_problem_naming_it_and_its_entry_is_not_handed_on(tmp_path):
    project = site_project(tmp_path)
    many = project / "snippets" / ENTRY / "data"
    many.mkdir()
    for number in range(snippets.MAX_FOLDER_NAMES + 5):
        (many / f"f{number}.txt").write_bytes(b"x")
    problems, loaded = _problems(project)
    said = [one for one in problems if f"snippets/{ENTRY}" in one and f"{snippets.MAX_FOLDER_NAMES:,}" in one]
    assert said and "remove" in said[0], problems
    assert ENTRY not in loaded  # never hashed by the site or a check: nothing reads it whole
    run = _check(project)
    assert run.returncode == 1 and f"snippets/{ENTRY}" in run.stderr + run.stdout, run
    assert "Traceback" not in run.stderr


def test_snippet_folders_nested_past_the_bound_are_a_problem_naming_the_folder(tmp_path):
    project = site_project(tmp_path)
    deep = project / "snippets" / ENTRY
    for _ in range(snippets.MAX_FOLDER_DEPTH + 3):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("x")
    problems, loaded = _problems(project)
    assert any(f"snippets/{ENTRY}" in one and "deep" in one for one in problems), problems
    assert ENTRY not in loaded


def test_a_folder_nested_past_what_a_path_can_name_is_said_never_skipped_or_a_traceback(tmp_path):
    """25 folders of 200-character names: the path passes PATH_MAX (4,096), where listing a folder fails (the walk
    skipped it without a word, and `errorkb check` said OK). Made and walked relative to a folder, as git can."""
    project = site_project(tmp_path)
    name = "d" * 200
    descriptor = os.open(project / "snippets" / ENTRY, os.O_RDONLY)
    try:
        for _ in range(25):
            os.mkdir(name, dir_fd=descriptor)
            inner = os.open(name, os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    finally:
        os.close(descriptor)
    run = _check(project)
    assert run.returncode == 1 and f"snippets/{ENTRY}" in run.stderr + run.stdout and "deep" in run.stderr, run
    assert "Traceback" not in run.stderr


def test_links_that_loop_in_a_snippet_folder_end_in_an_answer(tmp_path):
    project = site_project(tmp_path)
    folder = project / "snippets" / ENTRY
    (folder / "a").symlink_to("b")
    (folder / "b").symlink_to("a")
    (folder / "up").symlink_to("..")
    (folder / "self").symlink_to(".")
    run = _check(project)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode in (0, 1)


def test_the_repository_snippets_are_far_inside_the_bounds():
    from tests.kb import ROOT

    for folder in (ROOT / "snippets").iterdir():
        if folder.is_dir():
            found, over = snippets.bounded_names(folder)
            assert over is None and len(found) * 20 < snippets.MAX_FOLDER_NAMES, (folder, over)

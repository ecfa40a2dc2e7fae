"""`errorkb check` parses the version matrix once (site.files.read_matrix), and never answers from a file it
parsed before once that file changed."""

from __future__ import annotations

import os

from errorkb.core.project import load_project
from errorkb.results.matrix import ReleaseStatus, matrix_path, write_matrix
from errorkb.site.files import read_matrix
from tests.kb import VALID_ENTRY, make_project


def test_the_matrix_is_parsed_once_while_its_file_is_the_same_and_again_once_it_changes(tmp_path):
    make_project(tmp_path, entries={"demo-error.yml": VALID_ENTRY.format(id="demo-error")})
    project = load_project(tmp_path)
    assert read_matrix(project) is None  # none yet: nothing kept
    path = matrix_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_matrix(path, project.library.dist, [ReleaseStatus(release="5.5.1", ran=True, measured="2026-12-01")], [])
    first = read_matrix(project)
    assert first is not None and [one.release for one in first.releases] == ["5.5.1"]
    assert read_matrix(project) is first  # the same file: not parsed again
    write_matrix(path, project.library.dist, [ReleaseStatus(release="5.6.0", ran=True, measured="2026-12-02")], [])
    again = read_matrix(project)
    assert again is not first and again is not None
    assert sorted(one.release for one in again.releases) == ["5.5.1", "5.6.0"]
    # rewritten in place with as many bytes and its times put back (a write within one tick of the clock)
    times = path.stat()
    text = path.read_text(encoding="utf-8")
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text.replace('"5.6.0"', '"5.7.0"'))
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert sorted(one.release for one in read_matrix(project).releases) == ["5.5.1", "5.7.0"]
    path.unlink()
    assert read_matrix(project) is None

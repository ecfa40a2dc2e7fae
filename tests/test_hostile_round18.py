"""Hostile input, round eighteen: releases that are no release the matrix can show.

`errorkb matrix --release 5.0.0rc1` and `[tool.errorkb.matrix] releases = ["5.0.0rc1", "banana"]` were dropped
without a word (the matrix runs final releases only): the command then said the settings name no releases, or ran
fewer than asked. A matrix file listing a pre-release read, and no page ever showed its results.
"""

from __future__ import annotations

import json

import pytest

from errorkb.cli import main
from errorkb.results import matrix as files
from tests.kb import make_project


@pytest.mark.parametrize("release", ["5.0.0rc1", "5.0.0.dev3", "banana"])
def test_errorkb_matrix_refuses_a_release_it_would_drop_and_says_which(tmp_path, capsys, release):
    make_project(tmp_path)
    assert main(["--root", str(tmp_path), "matrix", "--release", "5.0.0", "--release", release,
                 "--environments-only"]) == 2
    err = capsys.readouterr().err
    assert release in err and ("final release" in err or "expected a release" in err) and "Traceback" not in err, err


@pytest.mark.parametrize("setting", ['releases = ["5.0.0", "banana"]', 'releases = ["5.0.0rc1"]',
                                     'since = "banana"'])
def test_matrix_settings_that_name_no_final_release_are_a_located_problem(tmp_path, capsys, setting):
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    with pyproject.open("a", encoding="utf-8") as out:
        out.write(f"[tool.errorkb.matrix]\n{setting}\n")
    assert main(["--root", str(tmp_path), "check"]) == 1
    err = capsys.readouterr().err
    value = setting.split('"')[-2]
    assert "pyproject.toml:" in err and value in err and "final release" in err and "Traceback" not in err, err


def test_a_matrix_file_listing_a_pre_release_is_refused_naming_its_line(tmp_path):
    stamp = "2026-12-01T10:00:00+00:00"
    data = files.MatrixFile(package="transformers", updated=stamp,
                            releases=[files.ReleaseStatus(release="5.0.0", ran=True, measured=stamp)])
    raw = json.loads(data.text())
    raw["releases"].append({"release": "5.1.0rc1", "ran": True, "measured": stamp})
    path = tmp_path / "transformers.json"
    path.write_text(files.MatrixFile.model_validate(raw).text(), encoding="utf-8")
    with pytest.raises(files.MatrixError, match=r"line \d+: release '5\.1\.0rc1' is a pre-release.*final release"):
        files.load_matrix(path)

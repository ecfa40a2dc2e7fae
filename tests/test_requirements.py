"""What an entry or one of its snippets needs installed, absent, or built; unmet means 'not run'."""

from __future__ import annotations

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.plugs import runtime_for
from errorkb.verify.requirements import unmet
from tests.kb import VALID_ENTRY, make_project

TORCH = runtime_for("torch")


def entry_with(tmp_path, replacements: dict[str, str]):
    text = VALID_ENTRY.format(id="demo-error")
    for old, new in replacements.items():
        assert old in text
        text = text.replace(old, new)
    make_project(tmp_path, entries={"demo-error.yml": text})
    result = load_project_entries(load_project(tmp_path))
    assert [str(p) for p in result.problems] == []
    return result.entries[0].entry


def test_snippet_needs_add_to_the_entry_needs(tmp_path):
    entry = entry_with(tmp_path, {
        "guards:": "requires: [pytest]\nbefore:\n  file: before.py\n  without: [pytest]\n"
                   "after:\n  file: after.py\n  requires: [no-such-distribution-xyz>=1]\nguards:",
    })
    assert unmet(entry, "before", "cpu", TORCH).startswith("needs pytest to be absent (installed: ")
    assert unmet(entry, "after", "cpu", TORCH) == "needs no-such-distribution-xyz>=1 (not installed)"
    assert unmet(entry, "guard:guard", "cpu", TORCH) is None  # only the entry's own `requires: [pytest]`


def test_version_specifiers_are_honoured(tmp_path):
    entry = entry_with(tmp_path, {"guards:": "requires: ['pytest<1']\nguards:"})
    assert unmet(entry, "before", "cpu", TORCH).startswith("needs pytest<1 (installed: ")


def test_devices_and_runtime_build(tmp_path):
    other = "cuda" if TORCH.build() == "cpu" else "cpu"
    entry = entry_with(tmp_path, {"guards:": f"devices: [cpu]\nbuild: {other}\nguards:"})
    assert unmet(entry, "before", "cuda", TORCH) == "this error only happens on cpu"
    assert unmet(entry, "before", "cpu", TORCH) == f"needs a {other} build of torch (this one is a {TORCH.build()} build)"


def test_a_bad_requirement_string_is_a_located_problem(tmp_path):
    make_project(tmp_path, entries={"demo-error.yml": VALID_ENTRY.format(id="demo-error").replace(
        "guards:", "requires: ['not a requirement!!']\nguards:")})
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert len(problems) == 1 and "is not a requirement string like 'hqq>=0.2'" in problems[0], problems


def test_needs_are_looked_up_on_another_environments_path(tmp_path):
    """The version matrix answers a release's unmet needs from outside it, on that release's path."""
    entry = entry_with(tmp_path, {"guards:": "requires: ['demo-kernels>=2']\nguards:"})
    site = tmp_path / "site-packages"
    (site / "demo_kernels-1.0.dist-info").mkdir(parents=True)
    (site / "demo_kernels-1.0.dist-info" / "METADATA").write_text("Name: demo-kernels\nVersion: 1.0\n")
    assert unmet(entry, "before", "cpu", TORCH) == "needs demo-kernels>=2 (not installed)"  # not here
    assert unmet(entry, "before", "cpu", TORCH, [str(site)]) == "needs demo-kernels>=2 (installed: 1.0)"
    (site / "demo_kernels-1.0.dist-info" / "METADATA").write_text("Name: demo-kernels\nVersion: 2.1\n")
    assert unmet(entry, "before", "cpu", TORCH, [str(site)]) is None
    assert unmet(entry, "before", "cpu", TORCH, [str(tmp_path / "elsewhere")]) == \
        "needs demo-kernels>=2 (not installed)"

"""What an entry or one of its snippets needs installed, absent, or built; unmet means 'not run'."""

from __future__ import annotations

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.plugs import runtime_for
from errorkb.verify.requirements import Absence, absence, unmet
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


# -- `without:` is met by the sandbox hiding the distribution (`requirements.absence`) -------------


def installed(site, name: str, files: list[str], requires: list[str] = (), record: bool = True) -> None:
    """A distribution `name` 1.0 in the folder `site`: its files (each written), its metadata folder."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Name: {name}\nVersion: 1.0\n" + "".join(f"Requires-Dist: {r}\n" for r in requires))
    for file in files:
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text("")
    if record:
        listed = [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]
        (info / "RECORD").write_text("".join(f"{file},,\n" for file in listed))


def test_without_is_met_only_where_the_sandbox_hides_it(tmp_path):
    entry = entry_with(tmp_path, {"guards:": "without: [pytest]\nguards:"})
    assert unmet(entry, "before", "cpu", TORCH).startswith("needs pytest to be absent (installed: ")
    assert unmet(entry, "before", "cpu", TORCH, hides=lambda: False).endswith(
        "; only the sandbox can hide it, and checks run without it here)")
    assert unmet(entry, "before", "cpu", TORCH, hides=lambda: True) is None
    hidden = absence(entry, "before").paths
    names = {path.rsplit("/", 1)[1] for path in hidden}
    assert {"pytest", "_pytest"} <= names and any(name.startswith("pytest-") for name in names), hidden
    assert not any(name.startswith("pluggy") for name in names)  # what it needs stays


def test_a_without_that_is_not_installed_asks_nothing_of_the_sandbox(tmp_path):
    entry = entry_with(tmp_path, {"guards:": "without: [no-such-distribution-xyz]\nguards:"})

    def never() -> bool:
        raise AssertionError("the sandbox was asked for a distribution that is not even installed")

    assert unmet(entry, "before", "cpu", TORCH, hides=never) is None
    assert absence(entry, "before") == Absence()


def test_a_shared_namespace_folder_is_rebuilt_not_hidden(tmp_path):
    """optimum-quanto's files live in `optimum/quanto/`: where another distribution has `optimum/onnx/`,
    only `optimum/quanto` goes; where none has, `optimum/` goes whole (no empty namespace left)."""
    entry = entry_with(tmp_path, {"guards:": "without: [demo-quanto]\nguards:"})
    site = tmp_path / "site"
    installed(site, "demo-quanto", ["ns/quanto/__init__.py", "ns/quanto/core.py"])
    alone = absence(entry, "before", [str(site)]).paths
    assert alone == (str(site / "demo_quanto-1.0.dist-info"), str(site / "ns")), alone
    installed(site, "demo-onnx", ["ns/onnx/__init__.py"])
    beside = absence(entry, "before", [str(site)]).paths
    assert beside == (str(site / "demo_quanto-1.0.dist-info"), str(site / "ns" / "quanto")), beside


def test_a_distribution_sharing_a_file_with_another_is_not_run_never_half_hidden(tmp_path):
    entry = entry_with(tmp_path, {"guards:": "without: [demo-a]\nguards:"})
    site = tmp_path / "site"
    installed(site, "demo-a", ["shared/__init__.py", "shared/a.py"])
    installed(site, "demo-b", ["shared/__init__.py", "shared/b.py"])
    why = unmet(entry, "before", "cpu", TORCH, [str(site)], hides=lambda: True)
    assert why == "needs demo-a to be absent (installed: 1.0), and the sandbox cannot hide it: its file " \
                  "shared/__init__.py is also demo-b's", why
    assert absence(entry, "before", [str(site)]).paths == ()


def test_a_distribution_the_check_itself_needs_is_never_hidden(tmp_path):
    """Hiding what the library, the runtime or errorkb import (directly or not) would break the check,
    not show the snippet's error: not run, with who needs it."""
    entry = entry_with(tmp_path, {"guards:": "without: [demo-dep]\nguards:"})
    site = tmp_path / "site"
    installed(site, "demo-lib", ["demo_lib/__init__.py"], requires=["demo-mid>=1", "demo-extra; extra == 'x'"])
    installed(site, "demo-mid", ["demo_mid/__init__.py"], requires=["demo-dep"])
    installed(site, "demo-dep", ["demo_dep/__init__.py"])
    why = unmet(entry, "before", "cpu", TORCH, [str(site)], hides=lambda: True, keep=["demo-lib"])
    assert why == "needs demo-dep to be absent, and demo-lib needs it: hiding it would break the check's own " \
                  "imports, not the snippet's", why
    (tmp_path / "extra").mkdir()
    extra = entry_with(tmp_path / "extra", {"guards:": "without: [demo-extra]\nguards:"})
    installed(site, "demo-extra", ["demo_extra/__init__.py"])
    assert unmet(extra, "before", "cpu", TORCH, [str(site)], hides=lambda: True, keep=["demo-lib"]) is None


def test_a_distribution_that_lists_no_files_is_not_run(tmp_path):
    entry = entry_with(tmp_path, {"guards:": "without: [demo-bare]\nguards:"})
    site = tmp_path / "site"
    installed(site, "demo-bare", ["demo_bare.py"], record=False)
    assert unmet(entry, "before", "cpu", TORCH, [str(site)], hides=lambda: True) == \
        "needs demo-bare to be absent (installed: 1.0), and the sandbox cannot hide it: demo-bare does not list " \
        "its files (no RECORD)"


def test_without_naming_what_every_check_imports_is_a_located_problem(tmp_path):
    """errorkb, the library, its bundled implementation and the runtime cannot be hidden from a check."""
    text = VALID_ENTRY.format(id="demo-error").replace("guards:", "without: ['Torch>=2']\nguards:")
    text = text.replace("    file: guard.py\n", "    file: guard.py\n    without: [transformers_errorkb, hqq]\n", 1)
    make_project(tmp_path, entries={"demo-error.yml": text})
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert len(problems) == 2, problems
    assert all("which every check imports" in problem for problem in problems), problems
    lines = text.splitlines()
    assert {int(problem.split(":")[1]) for problem in problems} == \
        {next(n for n, line in enumerate(lines, 1) if marker in line) for marker in ("Torch>=2", "transformers_errorkb")}


def test_a_record_that_lists_a_folder_of_others_hides_nothing(tmp_path):
    """A RECORD lists files: one that names `torch` (a folder whose files torch lists) would hide torch."""
    entry = entry_with(tmp_path, {"guards:": "without: [demo-greedy]\nguards:"})
    site = tmp_path / "site"
    installed(site, "demo-runtime", ["runtime/__init__.py"])
    installed(site, "demo-greedy", ["greedy.py"])
    record = site / "demo_greedy-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + "runtime,,\n")
    assert unmet(entry, "before", "cpu", TORCH, [str(site)], hides=lambda: True) == \
        "needs demo-greedy to be absent (installed: 1.0), and the sandbox cannot hide it: it lists runtime, a " \
        "folder that holds other distributions' files"


def test_pins_name_only_other_releases_of_what_is_installed(tmp_path):
    """What `requirements.build_pinned_env` may install: another release, from the index, of a distribution
    installed here; never one that is not installed, never a URL (entries come from pull requests)."""
    from errorkb.verify.requirements import pins

    entry = entry_with(tmp_path, {"guards:": "requires: ['pytest<1', 'pytest>=1', 'no-such-distribution-xyz<1', "
                                             "'pluggy @ https://example.invalid/pluggy-0.1-py3-none-any.whl']\nguards:"})
    assert pins(entry, "before") == ("pytest<1",)

"""Snippets written to fool the verifier or escape it (issue 12), in the sandbox: containment.

The whole adversarial fixture runs as `errorkb verify --sandbox require`, with `--isolation fork`
and `subprocess`, each on its targets (`adversarial.TARGETS`), in a throwaway copy (`adversarial.py`).
For every snippet:

- nothing outside the check changes: the verdict cache (beyond the harness's own records),
  reports/, the project's files, errorkb's source, site-packages;
- nothing the run started is left running; nothing reached the network;
- the run completes, in the sandbox, and the honest entries beside the attacks still pass.

Every verdict, and zero false passes, are asserted in test_adversarial_judging.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.verify.adversarial import (
    JUDGE_ONLY,
    TARGETS,
    UNUSED_BACKENDS,
    Listener,
    Workspace,
    answer_key,
    attacks,
    cache_damage,
    control_ids,
    differences,
    reaches_outside,
    run_environment,
    snapshot,
    tree,
    without_tools,
)

KEY = answer_key()

pytestmark = pytest.mark.timeout(3600)  # the subprocess run imports torch for each of ~260 checks


def test_the_fixture_covers_every_attack_class_with_at_least_63_snippets():
    snippets = [(entry, role) for entry, roles in KEY.items() for role in roles]
    assert len(snippets) >= 126 and len(KEY) >= 42
    assert {want["outcome"] for roles in KEY.values() for want in roles.values()} == {"fail"}
    for roles in KEY.values():
        for want in roles.values():
            re.compile(want["reason"])


def test_the_attacks_left_to_fork_mode_reach_nothing_outside_the_interpreter():
    """`JUDGE_ONLY`, the attacks subprocess mode leaves out, checks itself: each is an attack of the key, and
    none of its snippets touches a file, a stream, the harness's frames or the import system."""
    assert set(JUDGE_ONLY) <= set(KEY), set(JUDGE_ONLY) - set(KEY)
    assert {entry: reaches_outside(entry) for entry in JUDGE_ONLY if reaches_outside(entry)} == {}
    # and the converse: an attack that reaches nothing outside meets in a fresh interpreter the same child, observer
    # and judge as in a fork, so that each of its snippets' fresh interpreters (a runtime's import apiece) would
    # prove nothing the fork run does not:
    assert [entry for entry in attacks("subprocess") if not reaches_outside(entry)] == []
    assert set(attacks("fork")) == set(KEY)
    assert set(attacks("subprocess")) == set(KEY) - set(JUDGE_ONLY)
    # The reading finds what a process-level attack does, also when the name is spelt as a string:
    assert "before.py:3: imports socket" in reaches_outside("reach-network")
    assert any(": imports pathlib" in found for found in reaches_outside("rewrite-own-snippet"))
    assert any(": names exec" in found for found in reaches_outside("lint-bypass-builtins-exec"))
    assert any(": imports lib" in found for found in reaches_outside("lint-bypass-helper"))  # its forger
    assert any(": uses _getframe" in found or ": uses f_back" in found or ": uses tb_frame" in found
               for found in reaches_outside("signal-frame-walk"))


def test_the_run_completes_in_the_sandbox(adversarial_run):
    outcome = adversarial_run.outcome
    assert not outcome.timed_out, "the run hung"
    assert outcome.report is not None, f"no report (exit {outcome.returncode}): {outcome.stderr[-2000:]}"
    assert outcome.returncode == 1, outcome.stderr[-2000:]
    targets = TARGETS[adversarial_run.isolation]
    planned = {f"{entry}::{role}[{target}-cpu]" for entry in attacks(adversarial_run.isolation)
               for role in KEY[entry] for target in targets}
    planned |= {f"{entry}::{role}[{target}-cpu]" for entry in control_ids()
                for role in ("before", "after", "guard:guard") for target in targets}
    assert set(outcome.records) == planned
    assert {record["isolation"] for record in outcome.records.values()} == {f"{adversarial_run.isolation}+bwrap"}
    assert outcome.report["run"]["isolation"] == f"{adversarial_run.isolation}+bwrap"


def test_nothing_outside_the_check_changed(adversarial_run):
    assert adversarial_run.damage == []


def test_nothing_the_run_started_is_left_running(adversarial_run):
    assert adversarial_run.outcome.leaked == []


def test_nothing_reached_the_network(adversarial_run):
    assert adversarial_run.reached == [], "the test's own listener on 127.0.0.1 was reached"
    said = [record["id"] for record in adversarial_run.outcome.records.values()
            if "network: reached" in (record.get("output") or "") or "network: sent" in (record.get("output") or "")]
    assert said == []
    tried = [record for record in adversarial_run.outcome.records.values() if record["entry"] == "reach-network"]
    assert tried and all("network: blocked" in (record.get("output") or "") for record in tried), \
        "the network snippets did not even try: this test would prove nothing"


def test_the_honest_entries_beside_the_attacks_still_pass(adversarial_run):
    controls = [record for record in adversarial_run.outcome.records.values() if record["entry"] in control_ids()]
    assert controls and all(record["outcome"] == "pass" for record in controls), \
        [f"{record['id']}: {record['reason']}" for record in controls if record["outcome"] != "pass"]


# -- the probes themselves must be able to fail ------------------------------------------------------


@pytest.fixture(scope="module")
def probe_python(tmp_path_factory):
    """One run environment for the probes of this module, which run no attack: each made its own (3-6 s of CPU
    apiece: every installed file linked, `TOOLS` found and removed)."""
    return run_environment(tmp_path_factory.mktemp("probe-environment") / "env")


@pytest.fixture
def workspace(tmp_path, probe_python):
    made = Workspace(tmp_path, probe_python)
    yield made
    made.close()


def test_the_snapshots_see_every_kind_of_damage(workspace):
    """Each probe of the containment test, shown a damage of its kind, reports it."""
    before = snapshot(workspace)
    seeded = tree(workspace.kb / ".errorkb-cache" / "verify")
    (workspace.kb / "reports" / "zz-forged.json").write_text("{}")
    (workspace.kb / "snippets" / "reach-network" / "before.py").write_text("print('rewritten')\n")
    (workspace.package / "errorkb" / "verify" / "judge.py").write_text("# patched\n")
    next(iter((workspace.kb / ".errorkb-cache" / "verify").glob("*.json"))).write_text('{"outcome": "pass"}')
    (workspace.kb / ".errorkb-cache" / "verify" / ("d" * 64 + ".json")).write_text('{"outcome": "pass"}')
    planted = workspace.site / "zz_planted.pth"
    planted.write_text("import os\n")  # in the run's own environment (the module's probes share it)
    try:
        found = differences(before, snapshot(workspace))
    finally:
        planted.unlink()
    assert any(line.startswith("reports/: zz-forged.json added") for line in found)
    assert any("project files: snippets/reach-network/before.py changed" in line for line in found)
    assert any("(the copy the CLI ran): errorkb/verify/judge.py changed" in line for line in found)
    assert f"site-packages: {workspace.site}/zz_planted.pth added" in found
    empty = type("Outcome", (), {"records": {}})()
    damage = cache_damage(workspace, empty, seeded)
    assert any("the seeded verdict was rewritten" in line for line in damage)
    assert any(line.startswith("d" * 64) for line in damage)


def test_the_process_probe_finds_a_setsid_daemon():
    """A double-forked setsid process outlives its parent: the probe must find it (and end it)."""
    from tests.verify.adversarial import _children, _end_leftovers, _subreaper

    before = set(_children(os.getpid()))
    _subreaper(True)
    try:
        subprocess.run([sys.executable, "-c", "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                        "    time.sleep(60)\n"], check=True)
        # no wait: the daemon exists once its parent's fork returned, and was ours (the subreaper's) before that
        # parent could be reaped (the kernel re-parents orphans before it reports the exit)
        leaked = _end_leftovers(before)
    finally:
        _subreaper(False)
    assert len(leaked) == 1 and "time.sleep(60)" in leaked[0]


def test_the_listener_hears_a_connection():
    import socket

    listener = Listener()
    try:
        with socket.create_connection(("127.0.0.1", listener.port), timeout=2) as connection:
            connection.sendall(b"hello")
        listener.heard.wait(300)  # set once the connection is read, however loaded the machine; 300 s: a hang's bound
        assert listener.reached == [b"hello"]
    finally:
        listener.close()


def test_the_run_has_everything_but_the_backends_no_attack_uses(workspace):
    """The run's environment imports what the fixture's checks import, from this environment's files,
    and cannot import `UNUSED_BACKENDS` (every fresh interpreter would pay for hqq's torch._dynamo), nor the
    project's `TOOLS` (every fresh interpreter's `packages_distributions()` would walk their file lists)."""
    tools = ("material", "playwright", "mypy", "onnx")  # import names of some of `TOOLS`
    names = ("torch", "transformers", "transformers_errorkb", "yaml", "errorkb", *UNUSED_BACKENDS, *tools)
    probe = ("import importlib.util, json\n"
             f"print(json.dumps({{name: getattr(importlib.util.find_spec(name), 'origin', None) for name in {names!r}}}))")
    found = json.loads(subprocess.run([str(workspace.python), "-c", probe], env=workspace.env, cwd=workspace.folder,
                                      capture_output=True, text=True, check=True).stdout)
    assert all(found[name] is None for name in UNUSED_BACKENDS), \
        f"the run's environment has {found}: were hard links refused (another file system)? see lean_environment"
    assert all(found[name] for name in ("torch", "transformers", "transformers_errorkb", "yaml")), found
    assert found["errorkb"].startswith(str(workspace.package))
    here = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert all(found[name] is None for name in tools), found
    assert all(json.loads(here)[name] for name in UNUSED_BACKENDS), "nothing to leave out: UNUSED_BACKENDS is stale"
    assert all(json.loads(here)[name] for name in tools), "nothing to leave out: TOOLS is stale"
    assert os.path.samefile(found["torch"], json.loads(here)["torch"])  # the same files, linked


def _distribution(site, name: str, files: dict[str, str]) -> None:
    """A distribution `name` installed in `site`: its files, and its metadata folder listing them (RECORD)."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for file, text in files.items():
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text(text)
    listed = [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{file},,\n" for file in listed))


def test_a_tool_the_run_cannot_leave_out_stops_it_by_name(tmp_path):
    """`TOOLS` checks itself, as `UNUSED_BACKENDS` does: a tool renamed, uninstalled or sharing its files with
    another distribution would stay in the run's environment without a word (every fresh interpreter paying for
    its file list again). `without_tools` removes what it can and names each one it could not, with why."""
    site = tmp_path / "site-packages"
    _distribution(site, "left-out", {"left_out/__init__.py": ""})
    _distribution(site, "sharer", {"shared/a.py": "", "shared/b.py": ""})
    _distribution(site, "owner", {"shared/a.py": ""})
    with pytest.raises(ValueError) as stale:
        without_tools(site, ("left-out", "no-such-tool", "sharer"))
    said = str(stale.value)
    assert "no-such-tool" in said and "not installed" in said, said
    assert "sharer" in said and "shared/a.py" in said, said
    assert "left-out" not in said.split(":", 1)[1], said  # the one it could leave out is not named
    assert not (site / "left_out").exists()  # and is gone
    assert without_tools(site, ()) == []


def test_leaving_tools_out_reads_the_file_lists_once_and_hides_each_as_in_the_whole_environment(tmp_path):
    """Each tool is hidden as the sandbox hides one distribution, against the environment as installed: its files
    are all found before the first is removed. Found one by one, each removal changed the folder (the key the file
    lists are cached under) and every installed distribution's RECORD was read again for each tool: 13 times, 6 s of
    CPU for each of the four environments the adversarial tests make (half of it that reading; benchmarks/without_tools.py).
    Two tools beside each other in one namespace folder leave nothing of it behind, not even the folder."""
    from errorkb.verify import requirements

    site = tmp_path / "site-packages"
    _distribution(site, "tool-a", {"ns/a/__init__.py": "", "alone_a.py": ""})
    _distribution(site, "tool-b", {"ns/b/__init__.py": ""})
    _distribution(site, "kept", {"kept/__init__.py": ""})
    before = requirements._owners.cache_info().misses
    assert without_tools(site, ("tool-a", "tool-b")) == ["tool-a", "tool-b"]
    assert requirements._owners.cache_info().misses - before == 1, "the file lists were read again for a later tool"
    assert sorted(path.name for path in site.iterdir()) == ["kept", "kept-1.0.dist-info"]


def test_tools_found_where_a_copy_was_linked_from_are_read_once_for_every_copy(tmp_path):
    """`lean_environment` makes a copy per test process and per adversarial run: the tools' files are found in the
    environment the copy was linked from (`installed`), whose file lists are read once per process, and removed from
    each copy at the same places; the copy's own would be read anew for each (3.4 s of CPU apiece). A tool's file
    that lies outside that environment is named, never removed from a place the copy does not mirror."""
    import shutil as _shutil

    from errorkb.verify import requirements

    source = tmp_path / "source" / "site-packages"
    _distribution(source, "tool-a", {"ns/a/__init__.py": "", "alone_a.py": ""})
    _distribution(source, "kept", {"kept/__init__.py": "", "ns/kept.py": ""})
    before = requirements._owners.cache_info().misses
    for copy in ("one", "two"):
        site = tmp_path / copy / "site-packages"
        _shutil.copytree(source, site, copy_function=os.link)
        assert without_tools(site, ("tool-a",), installed=source) == ["tool-a"]
        assert sorted(path.relative_to(site).as_posix() for path in site.rglob("*")) == \
            ["kept", "kept-1.0.dist-info", "kept-1.0.dist-info/METADATA", "kept-1.0.dist-info/RECORD",
             "kept/__init__.py", "ns", "ns/kept.py"]
    assert requirements._owners.cache_info().misses - before == 1, "the source's file lists were read for each copy"
    assert (source / "alone_a.py").exists() and (source / "ns" / "a").is_dir()  # the source keeps its files


def test_the_workspace_runs_a_copy_of_errorkb(workspace):
    imported = subprocess.run([sys.executable, "-c", "import errorkb; print(errorkb.__file__)"], env=workspace.env,
                              cwd=workspace.folder, capture_output=True, text=True, check=True).stdout
    assert imported.startswith(str(workspace.package))
    assert json.loads((workspace.kb / "reports" / "latest.json").read_text())["schema"] == 1

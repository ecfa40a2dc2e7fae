"""What a process of the command line imports, and so what it costs before it does anything (issue 22,
item 6: a warm `errorkb verify` under 0.3 s; benchmarks/verify_throughput.py measures it).

Checked by name in `sys.modules` of a real process, never by timing: a module imported on a path
that does not use it is a cost every run pays, whatever the machine's load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kb import FIXTURES, ROOT

TINYLIB = FIXTURES / "tinylib_kb"

# What prints the loaded modules of one `errorkb` command, as the last line of stderr.
PROBE = ("import json, sys; from errorkb.cli import main; code = main(sys.argv[1:]); "
         "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)")

# Imported by a warm `errorkb verify` of a knowledge base such as tinylib's (no other cause naming a
# wording of its own, no release range), never: each is the cost of a path this run does not take.
NOT_ON_A_WARM_VERIFY = {
    "errorkb.lookup": "the lookup: only an other cause with a wording of its own needs it (core.load)",
    "errorkb.author.init": "`errorkb init`'s scaffolding",
    "errorkb.site.render": "the page renderer",
    "errorkb.verify.pool": "the zygotes: started only for a check that must run",
    "errorkb.verify.sandbox": "the sandbox: probed only for a check that must run",
    "errorkb.verify.run": "what runs a check",
    "errorkb.verify.stream": "a check's event stream",
    "errorkb.verify.judge": "the judge: a cached verdict is not judged again",
    "errorkb.verify.records": "the runner's vocabulary (an observation, a verdict): imported where a check is "
                              "skipped, judged or recorded afresh",
    "concurrent.futures": "the thread pool: started only for checks that must run",
    "packaging": "release ranges: read only where a profile or an entry states one (core.releases)",
    "rich": "the console: a warm run off a terminal prints plain lines",
    "markdown": "the site's Markdown",
    "jinja2": "the site's templates",
}


def _env(root: Path) -> dict[str, str]:
    """This checkout's errorkb first, then the fixture's `installed` library and its bundled one."""
    env = {name: value for name, value in os.environ.items() if name not in ("FORCE_COLOR", "TTY_INTERACTIVE",
                                                                              "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(root / "upstream"), str(root / "bundled")])
    return env


def _modules(argv: list[str], root: Path) -> tuple[int, set[str], str]:
    """(exit code, modules loaded at the end, stdout) of `errorkb ARGV` in a process of its own."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=_env(root),
                          cwd=ROOT, timeout=300)
    assert done.stderr.strip(), done.stdout[-2000:]
    code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return code, set(modules), done.stdout


@pytest.mark.verifier
def test_a_warm_verify_imports_nothing_of_the_paths_it_does_not_take(tmp_path):
    root = Path(shutil.copytree(TINYLIB, tmp_path / "kb"))
    report = tmp_path / "report.json"
    argv = ["--root", str(root), "verify", "--cache-dir", str(tmp_path / "cache"), "--report", str(report)]
    code, cold, _ = _modules(argv, root)
    assert code == 0
    assert {record["cached"] for record in json.loads(report.read_text())["checks"]} == {False}
    assert "errorkb.verify.pool" in cold or "errorkb.verify.run" in cold  # the probe sees what a run imports

    code, warm, said = _modules(argv, root)
    checks = json.loads(report.read_text())["checks"]
    assert code == 0, said[-2000:]
    assert checks and {record["cached"] for record in checks} == {True}, "the second run was not answered warm"
    loaded = {name: why for name, why in NOT_ON_A_WARM_VERIFY.items()
              if any(module == name or module.startswith(name + ".") for module in warm)}
    assert loaded == {}, f"a warm `errorkb verify` imported what it does not use: {loaded}"


def test_the_command_s_own_process_keeps_what_its_imports_made_out_of_the_collector_s_passes():
    """`errorkb` (main() with no argv) freezes what its imports made (`gc.freeze`): the cycle collector
    never walks it again, at exit either. A caller's process (`main(argv)`: the tests, the hook) is left
    alone: its garbage of the moment would be kept for good."""
    import gc

    from errorkb.cli import main

    before = gc.get_freeze_count()
    assert main(["verify", "--jobs", "0"]) == 2  # a usage error, found once the parser is built
    assert gc.get_freeze_count() == before
    code = ("import gc, sys; from errorkb.cli import main; sys.argv = ['errorkb', 'verify', '--jobs', '0']; "
            "code = main(); print(gc.get_freeze_count() > 0, code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(TINYLIB), cwd=ROOT,
                          timeout=120)
    assert done.stdout.split() == ["True", "2"], done.stderr[-2000:]

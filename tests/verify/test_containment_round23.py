"""Round twenty-three: a verdict's key must cover what the check can read.

The verdict cache keys a check by its entry and its own snippet folder (`results.keys.folder_digest`). The sandbox
showed the check the whole project, read-only, at its own path: a snippet could build a path from `__file__` to a file
elsewhere in the project (another entry's folder, a data file under docs/ or tests/) and pass on what it read there; the
pass was cached under a key that holds none of it, and replayed after that file changed (found by red29, session 56).
The jail now shows each check, of the project, its own snippet folder and what the library and the runtime need.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.run import run_check
from tests.verify.containment import HONEST, LIBRARY, MODULE, TORCH
from tests.verify.containment import seen as _seen
from tests.verify.verifykb import needs_sandbox

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

# What the check looks for: the project's files outside its own folder, found from its own `__file__`.
LOOKS = """
import json, os
from pathlib import Path

here = Path(__file__).resolve().parent
root = here.parents[1]
seen = {}
for name in ("docs/layers.txt", "tests/data.json", "snippets/other-entry/before.py", "pyproject.toml",
             "snippets/good-head-dim/after.py"):
    try:
        seen[name] = (root / name).read_text()[:40]
    except OSError as error:
        seen[name] = type(error).__name__
try:
    (here / "written.txt").write_text("x")
    seen["write own folder"] = "written"
except OSError as error:
    seen["write own folder"] = type(error).__name__
seen["cwd"] = os.getcwd()
print("SEEN " + json.dumps(seen))
""" + HONEST

# Besides its snippet folder, the round's project (tests/verify/conftest.py) holds what the check must not read.
PROJECT_FILES = {"snippets/other-entry/before.py": "OTHER = 1\n", "docs/layers.txt": "4\n",
                 "tests/data.json": '{"layers": 4}\n', "pyproject.toml": "[tool.errorkb]\n"}


def _assert_own_folder_only(seen: dict, project: Path) -> None:
    outside = {name: what for name, what in seen.items() if name in ("docs/layers.txt", "tests/data.json",
                                                                     "snippets/other-entry/before.py", "pyproject.toml")}
    assert all(what == "FileNotFoundError" for what in outside.values()), f"the check read outside its folder: {seen}"
    assert seen["snippets/good-head-dim/after.py"] not in ("FileNotFoundError", "PermissionError"), seen
    assert seen["write own folder"] == "OSError", f"its own folder is the project's, read-only: {seen}"
    assert not (project / "snippets" / "good-head-dim" / "written.txt").exists()


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_check_sees_of_the_project_only_its_own_snippet_folder(entry, project, sandbox, lean_python, isolation):
    """Measured on main (fork+bwrap and subprocess+bwrap): the check read docs/layers.txt, tests/data.json, another
    entry's snippet and pyproject.toml, none of which its key holds. Its own folder stays, read-only, at its own path
    (tracebacks and `__file__` name it), and the honest work beside it still passes."""
    path = project / "snippets" / "good-head-dim" / "after.py"
    path.write_text(LOOKS)
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    if isolation == "fork":
        with WorkerPool(LIBRARY, [], sandbox) as pool:
            run = pool.run(check, 60, lean_python)
    else:
        run = run_check(check, LIBRARY, 60, lean_python, sandbox)
    verdict = judge_with(check, run, TORCH)
    assert verdict.outcome == "pass", (verdict.reason, run.output)
    _assert_own_folder_only(_seen(run.output), project)


READS_OUTSIDE = """
from pathlib import Path

layers = (Path(__file__).resolve().parents[2] / "docs" / "layers.txt").read_text().strip()
if layers != "4":
    raise SystemExit(3)
""" + HONEST


def test_a_cached_pass_never_rests_on_a_file_outside_the_snippets_folder(tmp_path):
    """End to end, fork mode in the sandbox with the verdict cache: an after that reads docs/layers.txt (a path built
    from `__file__`) passed with "4" and was cached; "3", which makes it exit 3, answered the same pass from the cache
    (measured on main: `cached: true`, outcome pass; a fresh run failed). Now the file is not there for the check:
    the first run does not pass, so there is no pass to replay."""
    from errorkb.verify.engine import Verifier
    from tests.verify.verifykb import copy_fixture, load_kb

    needs_sandbox()
    root = copy_fixture(tmp_path / "kb", ["good-head-dim"], timeout=60)
    (root / "docs").mkdir(exist_ok=True)
    data = root / "docs" / "layers.txt"
    data.write_text("4\n")
    folder = root / "snippets" / "good-head-dim"
    (folder / "after.py").write_text(READS_OUTSIDE)
    project, entries = load_kb(root)
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")

    def record():
        path = folder / "after.py"
        check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
        verifier = Verifier(project, ["bundled"], sandbox="require", cache_dir=tmp_path / "cache")
        try:
            return verifier.record(check)
        finally:
            verifier.close()

    first = record()
    data.write_text("3\n")  # outside the snippet's folder: not in its key
    again = record()
    assert not (again.outcome == "pass" and again.cached), \
        f"a cached pass replayed after a file it read changed (first: {first.outcome}: {first.reason})"
    assert first.outcome != "pass" and "FileNotFoundError" in first.reason, first.reason

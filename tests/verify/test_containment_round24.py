"""Round twenty-four: verdict integrity — what a check works in, reads and leaves behind.

1. The working folder. Round twenty-three ran a check in its snippet folder, read-only, and was reverted: an honest
   check writes beside it (a Trainer's `output_dir`). Since then a check ran in its private /tmp, where the snippet's
   own files (`open("data.txt")`) did not read by their relative path, while without the sandbox it ran in the
   checkout's snippet folder, writing there. Now, in both modes, it works in a private writable folder whose entries
   are read-only views (the sandbox's `jail.working_folder`) or read-only copies (`run.working_copy`) of its snippet
   folder's: what a relative path reads is what the verdict's key holds, and no write reaches the checkout.
2. What a check could leave for a later one, or read that its key does not hold (the tests below say each): the
   sandbox's root was a writable tmpfs shared by every check of a zygote (a module planted on the import path);
   now read-only to each check.
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

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

WORKS = """
import json, os
from pathlib import Path

seen = {"data": Path("data.txt").read_text().strip(), "inner": Path("inner/more.txt").read_text().strip()}
Path("out").mkdir()
(Path("out") / "result.txt").write_text("written")
seen["out"] = (Path("out") / "result.txt").read_text()
for name, attempt in (("write data.txt", lambda: Path("data.txt").write_text("changed")),
                      ("append after.py", lambda: open("after.py", "a").write("# changed")),
                      ("remove data.txt", lambda: os.remove("data.txt")),
                      ("rename data.txt", lambda: os.rename("data.txt", "moved.txt")),
                      ("write inner/", lambda: Path("inner/new.txt").write_text("x")),
                      ("write snippet folder", lambda: (Path(__file__).parent / "new.txt").write_text("x"))):
    try:
        attempt()
        seen[name] = "done"
    except OSError as error:
        seen[name] = type(error).__name__
print("SEEN " + json.dumps(seen))
""" + HONEST

# Besides its snippet folder, the round's project (tests/verify/conftest.py) holds the files the check reads there.
PROJECT_FILES = {"snippets/good-head-dim/data.txt": "4\n", "snippets/good-head-dim/inner/more.txt": "more\n"}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else b"<folder>"
            for path in sorted(folder.rglob("*"))}


def _run(check: Check, sandbox, python, isolation: str):
    if isolation == "fork":
        with WorkerPool(LIBRARY, [], sandbox) as pool:
            return pool.run(check, 60, python)
    return run_check(check, LIBRARY, 60, python, sandbox)


def _works(entry, project: Path, sandbox, python, isolation: str) -> dict:
    folder = project / "snippets" / "good-head-dim"
    path = folder / "after.py"
    path.write_text(WORKS)
    before = _snapshot(folder)
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    run = _run(check, sandbox, python, isolation)
    verdict = judge_with(check, run, TORCH)
    if sandbox is None:  # without it nothing stops a write by the folder's absolute path: only that one is let be
        (folder / "new.txt").unlink(missing_ok=True)
    assert verdict.outcome == "pass", (verdict.reason, run.output)
    assert _snapshot(folder) == before, "the check changed its snippet folder in the checkout"
    return _seen(run.output)


def _assert_honest_work(seen: dict, *, refused_in_place: bool = True) -> None:
    """Its files read, its output written; in the sandbox each write to a file of its snippet's is refused (without
    it, as root, a read-only copy's mode does not refuse: the write lands in the copy, the snapshot shows the
    checkout unchanged)."""
    assert (seen["data"], seen["inner"], seen["out"]) == ("4", "more", "written"), seen
    if not refused_in_place:
        return
    refused = {name: what for name, what in seen.items() if name.startswith(("write", "append", "remove", "rename"))}
    assert "done" not in {what for name, what in refused.items() if name != "write snippet folder"}, seen


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_an_honest_check_reads_its_files_and_writes_its_output_in_the_sandbox(entry, project, sandbox, lean_python,
                                                                              isolation):
    """Measured on main: FileNotFoundError for data.txt (the check worked in its private /tmp). Now it reads
    data.txt and inner/more.txt by relative path, writes out/result.txt, and none of its writes (to its snippet's
    files, beside them, in the snippet folder by its absolute path) reaches the checkout."""
    seen = _works(entry, project, sandbox, lean_python, isolation)
    _assert_honest_work(seen)
    assert seen["write snippet folder"] != "done", seen


def test_an_honest_check_reads_its_files_and_writes_its_output_without_the_sandbox_subprocess(entry, project,
                                                                                               lean_python):
    """Measured on main: out/ was made in the checkout's snippet folder (the check's working folder), which
    changed the entry's folder and so its verdict key. Now the check works in a read-only copy of the folder."""
    seen = _works(entry, project, None, lean_python, "subprocess")
    _assert_honest_work(seen, refused_in_place=False)


def test_an_honest_check_reads_its_files_and_writes_its_output_without_the_sandbox_fork(entry, project, lean_python):
    seen = _works(entry, project, None, lean_python, "fork")
    _assert_honest_work(seen, refused_in_place=False)


# -- a check that keeps /proc (a device's driver needs it): the processes it sees ----------------------------------------

PROCS = """
import json, os
from pathlib import Path

seen = {"pids": sorted(int(name) for name in os.listdir("/proc") if name.isdigit()), "self": os.readlink("/proc/self")}
mine = {int(seen["self"])} | {int(name) for name in os.listdir(f"/proc/self/task")}
for pid in seen["pids"]:
    try:
        if pid in mine or int(Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[1]) == int(seen["self"]):
            continue  # itself, or a process it started (the observer's helper)
    except OSError:
        pass
    for what in ("root/", "cwd/", "environ", "fd/0", "fd/1"):
        try:
            where = f"/proc/{pid}/{what}"
            seen[f"{pid} {what}"] = sorted(os.listdir(where))[:5] if what.endswith("/") else \\
                f"opened {os.open(where, os.O_RDONLY)}"
        except OSError as error:
            seen[f"{pid} {what}"] = type(error).__name__
seen["self root"] = sorted(os.listdir("/proc/self/root"))
print("SEEN " + json.dumps(seen))
""" + HONEST


def test_a_check_that_keeps_proc_sees_no_other_process_of_the_sandbox(entry, project, sandbox, lean_python,
                                                                       monkeypatch):
    """A check on a device keeps /proc (its driver reads it): it was the sandbox's, so the check saw every process
    of it, and opened the launcher's (the zygote's) root — the whole project, every check's scratch folder — its
    pipes to the harness (fd/0, fd/1) and its environment, and the timer's root (the zygote's
    mounts)? Measured on main (subprocess mode, the CPU with /proc kept as for a device): not a hole. It sees the
    sandbox's pids, but each other process holds capabilities it lacks (the launcher, the zygote, the timer) or lies
    in another user namespace (another check): the kernel refuses every one (EPERM; /proc/PID/mem is the observer's
    to refuse, as tampering). Kept as the round's regression test."""
    monkeypatch.setattr(type(TORCH), "needs_proc", lambda self, device: True)
    path = project / "snippets" / "good-head-dim" / "procs.py"
    path.write_text(PROCS)
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    run = run_check(check, LIBRARY, 60, lean_python, sandbox)
    verdict = judge_with(check, run, TORCH)
    assert verdict.outcome == "pass", (verdict.reason, run.output)
    seen = _seen(run.output)
    reached = {name: what for name, what in seen.items() if " " in name and not name.startswith("self ")
               and not (isinstance(what, str) and what.endswith(("Error", "PermissionError")))
               and what != []}
    assert not reached, f"the check reached another process of the sandbox: {reached} ({seen})"


# -- what one check leaves for the next, in the same warm zygote ----------------------------------------------------------

LEAVES = """
import os, socket, time
from pathlib import Path

Path("/dev/shm/errorkb-r24").write_text("left")
Path("/tmp/errorkb-r24").write_text("left")
for place in ("/errorkb-r24", "/run/errorkb-r24", "/run/errorkb/import/errorkb_r24.py", "/run/errorkb/r24"):
    try:
        Path(place).write_text("LEFT = 'left'\\n")
    except OSError:
        pass
os.environ["ERRORKB_R24"] = "left"
os.putenv("ERRORKB_R24_PUT", "left")
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind("\\0errorkb-r24")
server.listen(1)
if os.fork() == 0:  # a grandchild that outlives the check, and keeps serving what it wants the next check to read
    os.setsid()
    if os.fork() == 0:
        started = time.monotonic()
        while time.monotonic() - started < 20:
            try:
                connection, _ = server.accept()
                connection.sendall(b"left")
                connection.close()
            except OSError:
                time.sleep(0.05)
        os._exit(0)
    os._exit(0)
time.sleep(0.2)
""" + HONEST

LOOKS = """
import json, os, socket, time
from pathlib import Path

time.sleep(1.0)  # the grandchild of the check before has had its time to act
seen = {"shm": Path("/dev/shm/errorkb-r24").exists(), "tmp": Path("/tmp/errorkb-r24").exists(),
        "root": [place for place in ("/errorkb-r24", "/run/errorkb-r24", "/run/errorkb/import/errorkb_r24.py",
                                     "/run/errorkb/r24") if Path(place).exists()],
        "env": os.environ.get("ERRORKB_R24"), "putenv": os.environ.get("ERRORKB_R24_PUT")}
try:
    import errorkb_r24  # noqa: F401  (what the check before left on the import path, if anything)
    seen["import"] = "imported"
except ImportError as error:
    seen["import"] = type(error).__name__
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    client.connect("\\0errorkb-r24")
    seen["socket"] = client.recv(16).decode()
except OSError as error:
    seen["socket"] = type(error).__name__
print("SEEN " + json.dumps(seen))
""" + HONEST


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_check_leaves_nothing_for_the_next_one(entry, project, sandbox, lean_python, isolation):
    """A check writes /dev/shm, /tmp and the sandbox's root (`/`, `/run`, beside errorkb on the import path), sets
    environment variables, binds an abstract unix socket and leaves a daemon grandchild serving it for 20 s; the next
    check (the same warm zygote, in fork mode) finds none of it: its /dev/shm, /tmp and network are its own, the
    sandbox's root is read-only to it, the zygote's environment is not the check's, and the check's PID namespace
    ended with it (its init's end kills the daemon). Measured on main (fork): the next check found
    /errorkb-r24, /run/errorkb-r24 and /run/errorkb/import/errorkb_r24.py, and imported that module — bwrap's root
    is one writable tmpfs every check of a zygote shares, and /run/errorkb/import comes first on the import path. The rest was no hole (kept as the round's regression)."""
    folder = project / "snippets" / "good-head-dim"
    checks = []
    for name, code in (("leaves.py", LEAVES), ("looks.py", LOOKS)):
        (folder / name).write_text(code)
        checks.append(Check(entry, read_snippet(folder / name, Role("after"), name), "bundled", "cpu", MODULE))
    if isolation == "fork":
        with WorkerPool(LIBRARY, [], sandbox) as pool:
            runs = [pool.run(check, 60, lean_python) for check in checks]
    else:
        runs = [run_check(check, LIBRARY, 60, lean_python, sandbox) for check in checks]
    for check, run in zip(checks, runs, strict=True):
        verdict = judge_with(check, run, TORCH)
        assert verdict.outcome == "pass", (check.snippet.path.name, verdict.reason, run.output)
    seen = _seen(runs[1].output)
    assert seen == {"shm": False, "tmp": False, "root": [], "import": "ModuleNotFoundError", "env": None,
                    "putenv": None, "socket": "ConnectionRefusedError"}, seen


# -- errorkb's own package: read-only, and in the key? -----------------------------------------------------------------

PACKAGE = """
import errorkb, json, os
from pathlib import Path

files = {}
for root in {Path(errorkb.__file__).parent, Path(INSTALLED)}:  # the import folder's, and the harness's own path
    files[str(root)] = sorted(path.relative_to(root).as_posix() for path in root.rglob("*")
                              if path.is_file() and "__pycache__" not in path.parts) if root.is_dir() else None
try:
    (Path(errorkb.__file__).parent / "verify" / "planted.py").write_text("x")
    written = "done"
except OSError as error:
    written = type(error).__name__
print("SEEN " + json.dumps({"files": files, "write": written}))
""" + HONEST


def test_what_a_check_sees_of_errorkb_is_in_its_key(entry, project, sandbox, lean_python):
    """Measured on main (fork+bwrap): the check listed errorkb's every file — site/, lookup/, author/, cli.py —
    at the import folder and at the package's own path, and could write none (EROFS); the key's fingerprint covers
    verify/, plugs/ and the core modules a verdict reads. Now it sees, at both, exactly the fingerprinted files
    (`sandbox.package_shadow`)."""
    from errorkb.verify.cache import _PACKAGE, verdict_sources

    path = project / "snippets" / "good-head-dim" / "package.py"
    path.write_text(PACKAGE.replace("INSTALLED", repr(str(_PACKAGE))))
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    with WorkerPool(LIBRARY, [], sandbox) as pool:
        run = pool.run(check, 60, lean_python)
    seen = _seen(run.output)
    assert seen["write"] != "done", seen
    keyed = {source.relative_to(_PACKAGE).as_posix() for source in verdict_sources()}
    assert len(seen["files"]) == 2, seen["files"].keys()
    for root, files in seen["files"].items():
        if files is None:  # the harness's own path is not shown at all (an installed package under a hidden folder)
            continue
        outside = [name for name in files if name not in keyed]
        assert not outside, f"{len(outside)} files of errorkb under {root} a check can read are not in its key: " \
                            f"{outside[:8]}"
        assert set(files) == keyed, f"{root}: the key's files a check does not see: {sorted(keyed - set(files))[:8]}"

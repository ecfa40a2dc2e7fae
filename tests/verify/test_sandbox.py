"""The sandbox, seen from inside a check: what a snippet can reach, and what it cannot.

A probe snippet reports, as JSON on its output, what it finds when it tries each way out
(writing the project, the package, the cache; seeing other checks; signalling or opening other
processes; the network; capabilities; secrets in the environment), then makes the honest call,
so the check itself passes. Run through the warm pool and through a fresh interpreter.

The tests of what a check cannot do to its neighbours and of its limits run their checks in the lean
interpreter (`lean_python`, tests/lean.py: no snippet here uses hqq, whose import costs each zygote and
fresh interpreter seconds of CPU), the path a release's matrix environment takes; the probe's tests and
the import path's run in this interpreter, the default path.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from errorkb.core.project import load_project
from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.run import run_check as run_check_with
from errorkb.verify.sandbox import SandboxUnavailable
from errorkb.verify.sandbox import choose as choose_with
from tests.verify.verifykb import FIXTURE, needs_sandbox

TORCH = runtime_for("torch")
LIBRARY = load_project(FIXTURE).library
MODULE = "transformers.cache_utils"


def check_of(entry, path: Path, role: str = "after") -> Check:
    return Check(entry, read_snippet(path, Role(role), path.name), "bundled", "cpu", MODULE)


def judge(check, run):
    return judge_with(check, run, TORCH)


def run_check(check, timeout, sandbox, python=None):
    return run_check_with(check, LIBRARY, timeout, python, sandbox)


def choose(mode, read_only, hidden):
    return choose_with(mode, read_only, hidden, runtime=TORCH, packages=("torch", "transformers", "optimum"),
                       env_prefixes=tuple(LIBRARY.env_prefixes))


def pool_of(preload, sandbox) -> WorkerPool:
    return WorkerPool(LIBRARY, preload, sandbox)



@pytest.fixture(autouse=True)
def _sandbox_here():
    """Every test here needs the sandbox: skipped where it cannot be created, failed (saying what to
    install) where ERRORKB_SANDBOX=require."""
    needs_sandbox()


MARKER = "7777.4242"  # a sleep only these tests start: `ps` finds it if it outlives its check

PROBE = """import json, os, signal, socket, subprocess, sys
from pathlib import Path


def is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def privileged():
    \"\"\"What a capability would allow (chroot, another uid, a higher priority, the host name): all refused.\"\"\"
    done = []
    for name, action in (("chroot", lambda: os.chroot("/tmp")), ("setuid", lambda: os.setuid(12345)),
                         ("nice", lambda: os.nice(-5)), ("hostname", lambda: socket.sethostname("x"))):
        try:
            action()
            done.append(name)
        except OSError:
            pass
    return done


facts = {"fds": [fd for fd in range(64) if is_open(fd)], "uid": os.getuid(), "ppid": os.getppid(), "cwd": os.getcwd(),
         "home": os.environ.get("HOME"), "proc": os.path.exists("/proc/self"),
         "secrets": sorted(name for name in os.environ if "TOKEN" in name or "SECRET" in name)}
root = Path(__file__).resolve().parents[2]


def attempt(name, action):
    try:
        action()
        facts[name] = "done"
    except OSError as error:
        facts[name] = type(error).__name__ + ": " + str(error.strerror)


attempt("write project", lambda: (root / "planted.txt").write_text("x"))
attempt("write package", lambda: (Path(json.__file__).parent / "planted.py").write_text("x"))
attempt("write errorkb", lambda: (Path(sys.modules["errorkb"].__file__).parent / "planted.py").write_text("x"))
attempt("write tmp", lambda: Path("/tmp/mine.txt").write_text("x"))
attempt("network", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2).close())
facts["cache"] = sorted(os.listdir(root / ".errorkb-cache")) if (root / ".errorkb-cache").is_dir() else None
facts["git"] = sorted(os.listdir(root / ".git")) if (root / ".git").is_dir() else None
scratch = Path(sys.argv[-1]).parent.parent if len(sys.argv) > 1 else None
facts["capabilities"] = privileged()
facts["proc files"] = sorted(os.listdir("/proc")) if os.path.isdir("/proc") else None
others = []
for pid in range(1, 200):  # a /proc of the sandbox's: none to see (the check's own namespace, no /proc at all)
    try:
        os.listdir(f"/proc/{pid}/fd/")
        others.append(pid)
    except OSError:
        pass
facts["open other processes"] = others
os.kill(1, signal.SIGKILL)  # the namespace's init: ignored from inside
subprocess.Popen(["sleep", "MARKER"], start_new_session=True)
print("FACTS " + json.dumps(facts))

import torch
from transformers import DynamicCache, LlamaConfig

cache = DynamicCache(config=LlamaConfig(num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4, hidden_size=256))
cache.early_initialization(1, 4, 64, torch.float32, "cpu")
""".replace("MARKER", MARKER)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """good-head-dim's entry in a project under /tmp, with a verdict cache the sandbox must hide."""
    root = tmp_path_factory.mktemp("sandboxed")
    shutil.copytree(FIXTURE / "snippets" / "good-head-dim", root / "snippets" / "good-head-dim")
    (root / ".errorkb-cache" / "verify").mkdir(parents=True)
    (root / ".errorkb-cache" / "verify" / "seeded.json").write_text("{}")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text('[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n')
    (root / "snippets" / "good-head-dim" / "probe.py").write_text(PROBE)
    return root


@pytest.fixture(scope="module")
def sandbox(project):
    return choose("require", [project], [project / ".errorkb-cache", project / ".git"])


@pytest.fixture(scope="module")
def lean_pool(sandbox, lean_python):
    """One sandboxed pool for the module's tests of limits and neighbours, whose checks run in the lean
    interpreter: each check still forks afresh from the zygote (a zygote that dies is started again), as
    every check of one `errorkb verify` run does; one zygote instead of six (each ~3 s of CPU)."""
    with pool_of([], sandbox) as pool:
        yield pool


@pytest.fixture(scope="module")
def entry(broken_kb):
    return next(one.entry for one in broken_kb[1] if one.entry.id == "good-head-dim")


def facts_of(output: str) -> dict:
    line = next(line for line in output.splitlines() if line.startswith("FACTS "))
    return json.loads(line.removeprefix("FACTS "))


def assert_contained(facts: dict, project: Path) -> None:
    assert facts["write project"].startswith("OSError: Read-only file system")
    assert facts["write package"].startswith("OSError: Read-only file system")
    assert facts["write errorkb"].startswith("OSError: Read-only file system")
    # it works in its private /tmp's work folder (`jail.working_folder`): its snippet's files beside it, read-only
    assert facts["write tmp"] == "done" and facts["cwd"] == "/tmp/work" and facts["home"] == "/tmp"
    assert facts["network"].startswith("OSError: Network is unreachable")
    # the sandbox covers them with an empty read-only folder; the check's jail shows of the project only its own
    # snippet folder (and what the runtime needs): they are not there at all
    assert facts["cache"] is None, "the verdict cache is out of the check's sight"
    assert facts["git"] is None, ".git (a CI checkout's token in .git/config) is out of sight too"
    assert facts["capabilities"] == []
    assert facts["secrets"] == []
    assert facts["open other processes"] == [] and facts["proc"] is False, "no /proc in a check on the CPU"
    assert facts["proc files"] == ["cpuinfo", "meminfo"], "of /proc, only what describes the machine"
    assert facts["fds"] == [0, 1, 2, 3], "nothing of the zygote's (3: the observer's stream; the key's channel closed)"
    assert not (project / "planted.txt").exists()


def _outliving(within: float = 30.0) -> list[int]:
    """The tests' sleepers still running `within` seconds from now (polled: an empty list at once when
    none is). A check's end takes its processes with it, but the kernel kills a namespace's members one
    by one after its init exits: a fork bomb's 1,023 are not all gone the instant the check has ended
    (one was still listed once in a run beside other work, load ~10)."""
    deadline = time.monotonic() + within
    while (found := _sleepers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _sleepers() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if MARKER.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_forked_check_is_jailed(sandbox, entry, project, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_snippets")
    check = check_of(entry, project / "snippets" / "good-head-dim" / "probe.py")
    with pool_of(["transformers:DynamicCache", "transformers:LlamaConfig"], sandbox) as pool:
        run = pool.run(check, timeout=60)
        facts = facts_of(run.output)
        assert_contained(facts, project)
        assert facts["ppid"] == 0, "the zygote is outside the check's PID namespace"
        assert judge(check, run).outcome == "pass", run.output[-2000:]
        assert _outliving() == [], "a setsid process outlived its check"
        again = check_of(entry, project / "snippets" / "good-head-dim" / "after.py")
        assert judge(again, pool.run(again, timeout=60)).outcome == "pass", "the zygote survives every check"


def test_a_fresh_interpreter_is_sandboxed_the_same_way(sandbox, entry, project, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_not_for_snippets")
    check = check_of(entry, project / "snippets" / "good-head-dim" / "probe.py")
    run = run_check(check, 120, sandbox)
    assert_contained(facts_of(run.output), project)
    assert judge(check, run).outcome == "pass", run.output[-2000:]
    assert _outliving() == []


def test_checks_in_one_zygote_cannot_see_each_other(sandbox, entry, project, lean_python, lean_pool):
    """Two checks at once: neither sees the other's folder, nor its files in /tmp."""
    folder = project / "snippets" / "good-head-dim"
    (folder / "peer.py").write_text(
        "import os, sys, time\nfrom pathlib import Path\n"
        "Path('/tmp/peer-was-here').write_text('x')\n"
        "mine = Path(sys.argv[0]).parent\n"
        "print('TMP', sorted(os.listdir('/tmp')))\n"
        "time.sleep(1.5)\n"
        "print('LATER', sorted(os.listdir('/tmp')))\n")
    from concurrent.futures import ThreadPoolExecutor

    check = check_of(entry, folder / "peer.py")
    pool = lean_pool
    with ThreadPoolExecutor(2) as threads:
        runs = list(threads.map(lambda _: pool.run(check, 60, lean_python), range(2)))
    for run in runs:
        later = next(line for line in run.output.splitlines() if line.startswith("LATER"))
        assert later.count("peer-was-here") == 1, run.output
    (folder / "peer.py").unlink()


def test_a_timed_out_check_takes_everything_it_started_with_it(sandbox, entry, project, lean_python, lean_pool):
    """In the module's pool, after test_checks_in_one_zygote_cannot_see_each_other ran two checks at once from
    a thread pool (which once killed the zygote its threads had started: see the next test)."""
    folder = project / "snippets" / "good-head-dim"
    (folder / "hang.py").write_text(f"import subprocess, time\nsubprocess.Popen(['sleep', '{MARKER}'], "
                                    "start_new_session=True)\nprint('sleeper started', flush=True)\n"
                                    "while True:\n    time.sleep(0.1)\n")
    check = check_of(entry, folder / "hang.py")
    pool = lean_pool
    pool.zygote(check.target, check.device, check.module, str(lean_python))  # started before the clock
    started = time.monotonic()
    # A backstop of 8 s, not the 32 s the default gives a 2 s limit: a check reaches its snippet
    # in 0.05-0.15 s from the warm zygote, measured at a load of 40-250 on this 2-core machine.
    run = pool.run(check, 2, lean_python, wall_s=8)
    assert run.timed_out and time.monotonic() - started < 30
    assert "sleeper started" in run.output  # killed with a sleeper of its own running, not before
    assert judge(check, run).reason.startswith("timed out: still running after the 8 s wall-clock backstop "
                                               "(its limit is 2 s of CPU time")
    assert _outliving() == []  # the check's namespace ended with it, its sleeper with it
    (folder / "hang.py").unlink()


def test_a_zygote_outlives_the_thread_that_first_needed_it(sandbox, entry, project, lean_python):
    """bwrap's --die-with-parent kills the sandbox when the *thread* that started it ends (the kernel's
    parent-death signal is a thread's): a zygote started lazily by a short-lived thread (an `errorkb verify`
    run's thread pool, a `--watch` round's) must still serve checks after that thread is gone."""
    import threading

    check = check_of(entry, project / "snippets" / "good-head-dim" / "after.py")
    with pool_of([], sandbox) as pool:
        first: list = []
        runner = threading.Thread(target=lambda: first.append(pool.run(check, 60, lean_python)))
        runner.start()
        runner.join()
        assert first[0].observation.status.value == "returned", first[0].observation
        (zygote,) = pool.zygotes.values()
        time.sleep(0.5)  # the kernel's signal, had it come, has killed the sandbox by now
        assert zygote.dead is None and zygote.process.poll() is None, zygote.dead
        later = pool.run(check, 60, lean_python)
        assert later.observation.status.value == "returned", later.observation
        assert pool.zygotes[zygote.key] is zygote and zygote.dead is None  # served by the same zygote


def test_the_environment_inside_keeps_no_secrets(monkeypatch):
    for name in ("GITHUB_TOKEN", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "CUDA_API_KEY"):
        monkeypatch.setenv(name, "secret")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    from errorkb.verify.sandbox import Sandbox

    box = Sandbox("bwrap", (), runtime=TORCH, env_prefixes=(*LIBRARY.env_prefixes, *TORCH.env_prefixes))
    env = box.env("cpu")
    assert not {"GITHUB_TOKEN", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "CUDA_API_KEY"} & env.keys()
    assert env["OMP_NUM_THREADS"] == "1" and env["HOME"] == "/tmp" and env["CUDA_VISIBLE_DEVICES"] == ""
    assert "CUDA_VISIBLE_DEVICES" not in box.env("cuda") or os.environ.get("CUDA_VISIBLE_DEVICES")


def test_the_command_line_says_what_is_mounted_how(sandbox, project):
    command = sandbox.wrap(["python", "-c", "pass"], device="cpu", writable=[Path("/tmp/scratch")])
    text = " ".join(command)
    for option in ("--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
                   "--cap-drop ALL", f"--ro-bind {project} {project}", "--bind /tmp/scratch /tmp/scratch",
                   f"--tmpfs {project}/.errorkb-cache --remount-ro {project}/.errorkb-cache"):
        assert option in text, option
    assert "--cap-add" not in text and "/dev/nvidia" not in text
    assert "--cap-add CAP_SYS_ADMIN" in " ".join(sandbox.wrap(["x"], device="cpu", writable=[], jails=True))


def test_a_zygote_that_moves_checks_into_pids_cgroups_keeps_the_cgroup_namespace(sandbox, monkeypatch, tmp_path):
    """As root the zygote moves each check into a pids cgroup under the harness's: on a cgroup v2 with
    `nsdelegate` (a GPU machine's, systemd's) a cgroup namespace is a delegation boundary, and a move out
    of it fails with ENOENT, so that sandbox keeps the harness's cgroup namespace; every other keeps its own."""
    from errorkb.verify import sandbox as module

    class Groups:
        def new(self) -> Path:
            return tmp_path

    monkeypatch.setattr(module.os, "geteuid", lambda: 0)
    monkeypatch.setattr(module, "task_groups", lambda: Groups())
    jailing = sandbox.wrap(["x"], device="cpu", writable=[], jails=True)
    assert "--unshare-cgroup-try" not in jailing and "--unshare-all" not in jailing
    assert {"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"} <= set(jailing)
    assert "--unshare-cgroup-try" in sandbox.wrap(["x"], device="cpu", writable=[])
    monkeypatch.setattr(module.os, "geteuid", lambda: 1000)
    assert "--unshare-cgroup-try" in sandbox.wrap(["x"], device="cpu", writable=[], jails=True)


def test_require_refuses_and_auto_says_so_loudly(monkeypatch, capsys):
    from errorkb.verify import sandbox as module

    monkeypatch.setattr(module, "probe", lambda: "bwrap cannot create the sandbox here (made up)")
    with pytest.raises(SandboxUnavailable, match="made up"):
        choose("require", [], [])
    assert choose("auto", [], []) is None
    assert "WARNING: verifying WITHOUT a sandbox: bwrap cannot create the sandbox here (made up)" \
        in capsys.readouterr().err
    assert choose("off", [], []) is None
    assert "sandbox off" in capsys.readouterr().err


def test_the_cli_refuses_to_run_without_the_sandbox_when_required(monkeypatch, tmp_path, capsys, lean_checks):
    from errorkb.cli import main
    from errorkb.verify import sandbox as module
    from tests.verify.verifykb import copy_fixture as copy_kb

    monkeypatch.setattr(module, "probe", lambda: "bubblewrap is not installed (made up)")
    root = copy_kb(tmp_path / "kb", ["good-head-dim"])
    assert main(["--root", str(root), "verify", "--sandbox", "require", "--no-cache", "--target", "bundled"]) == 2
    assert "--sandbox require, but the sandbox cannot be created here: bubblewrap is not installed (made up)" \
        in capsys.readouterr().err
    assert main(["--root", str(root), "verify", "--sandbox", "auto", "--no-cache", "--target", "bundled",
                 "--device", "cpu", "--report", str(tmp_path / "report.json")]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["run"]["isolation"] == "fork"
    assert {record["isolation"] for record in report["checks"]} == {"fork"}, "recorded, never silently degraded"


def test_deaths_read_the_same_through_the_sandbox(broken_kb, records, lean_python):
    """A crash, a signal, os._exit, sys.exit: in a fresh sandboxed interpreter, the fork's very verdicts."""
    from concurrent.futures import ThreadPoolExecutor

    project, entries = broken_kb
    chosen = {"before-crash", "before-signal", "before-os-exit", "before-sys-exit"}
    checks = [check_of(one.entry, project.snippet_path(one.entry.id, "before.py"), "before")
              for one in entries if one.entry.id in chosen]
    sandbox = choose("require", [project.root], [])
    with ThreadPoolExecutor(2) as threads:
        verdicts = list(threads.map(lambda check: judge(check, run_check(check, 120, sandbox, lean_python)),
                                    checks))
    for check, verdict in zip(checks, verdicts):
        assert (verdict.outcome, verdict.reason) == (records[check.id].outcome, records[check.id].reason)


def test_the_verifier_hides_the_cache_the_reports_and_git(tmp_path):
    from errorkb.core.project import load_project
    from errorkb.verify.engine import Verifier
    from tests.verify.verifykb import copy_fixture as copy_kb

    root = copy_kb(tmp_path / "kb", ["good-head-dim"])
    for name in (".git", "reports", ".errorkb-cache/verify", "elsewhere-cache/verify"):
        (root / name).mkdir(parents=True, exist_ok=True)
    verifier = Verifier(load_project(root), ["bundled"], sandbox="require", cache_dir=root / "elsewhere-cache")
    try:
        assert set(verifier.sandbox.hidden) == {str(root / name) for name in
                                                (".git", "reports", ".errorkb-cache/verify", "elsewhere-cache/verify")}
        assert str(root) in verifier.sandbox.read_only and verifier.isolation_level == "fork+bwrap"
    finally:
        verifier.close()


def test_the_matrix_environments_stay_visible_with_the_default_cache(tmp_path):
    """Checks at another release run in .errorkb-cache/matrix/<release>: hiding the whole cache
    folder (not only its verdicts) made every matrix check die with 'execvp ... python: No such file'."""
    from errorkb.core.project import load_project
    from errorkb.source.upstream import matrix_env
    from errorkb.verify.engine import Verifier
    from tests.verify.verifykb import copy_fixture as copy_kb

    project = load_project(copy_kb(tmp_path / "kb", ["good-head-dim"]))
    verifier = Verifier(project, ["upstream"], sandbox="require", cache_dir=project.cache_dir)
    try:
        env = matrix_env(project, "4.36.0")
        assert not [path for path in verifier.sandbox.hidden if env.is_relative_to(path)], verifier.sandbox.hidden
    finally:
        verifier.close()


def test_an_interpreter_that_finds_errorkb_only_in_its_working_directory_is_sandboxed(tmp_path):
    """A release's matrix environment runs `python -m errorkb.cli` from the project: errorkb is on its
    path only as the working directory, which the sandbox does not share; the sandbox must still work."""
    import subprocess
    import sys

    env_folder = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_folder)], check=True)
    root = Path(__file__).resolve().parents[2]
    code = "from errorkb.verify.sandbox import probe; print(probe())"
    done = subprocess.run([str(env_folder / "bin" / "python"), "-c", code], cwd=root, capture_output=True,
                          text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.stdout.strip() == "None", done.stdout + done.stderr


EXFILTRATE = """import glob, os, posix
for folder in glob.glob("/tmp/errorkb-*/") + glob.glob("/tmp/errorkb-pool-*/check-*/"):
    for name, target in (("output.txt", SECRET), ("observation.json", SECRET)):
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass
        os.symlink(target, os.path.join(folder, name))
        print("planted", os.path.join(folder, name))
posix._exit(0)
"""


@pytest.mark.parametrize("isolation", ["fork", "subprocess"])
def test_a_check_cannot_make_the_harness_read_a_file_of_the_host(sandbox, entry, project, tmp_path, isolation,
                                                                 lean_python, lean_pool):
    """Links planted where the harness reads the check's output (and where phase 1 read its observation)
    are never followed."""
    secret = tmp_path / "secret.txt"
    secret.write_text('{"status": "returned", "token": "hunter2-on-the-host"}')
    folder = project / "snippets" / "good-head-dim"
    (folder / "exfiltrate.py").write_text(f"SECRET = {str(secret)!r}\n" + EXFILTRATE)
    check = check_of(entry, folder / "exfiltrate.py")
    if isolation == "fork":
        pool = lean_pool
        run = pool.run(check, 60, lean_python)
    else:
        run = run_check(check, 120, sandbox, lean_python)
    assert "hunter2" not in run.output and run.observation is None
    assert judge(check, run).reason.startswith("exited with status 0 without reporting")
    (folder / "exfiltrate.py").unlink()


def test_a_check_cannot_fill_the_disk_nor_fork_without_end(sandbox, entry, project, lean_python, lean_pool):
    folder = project / "snippets" / "good-head-dim"
    (folder / "exhaust.py").write_text(
        "import glob, os, threading, time\n"
        "mine = (glob.glob('/tmp/errorkb-pool-*/check-*/') or glob.glob('/tmp/errorkb-*/'))[0]\n"
        "written = 0\n"
        "try:\n"
        "    for number in range(64):\n"
        "        with open(os.path.join(mine, f'fill-{number}'), 'wb') as fill:\n"
        "            fill.write(b'x' * (1 << 20))\n"
        "        written += 1\n"
        "except OSError as error:\n"
        "    stopped = error.strerror\n"
        "for name in glob.glob(os.path.join(mine, 'fill-*')):\n"
        "    os.unlink(name)  # room again for what it prints\n"
        "print('disk stopped:', stopped)\n"
        "print('MiB written', written)\n"
        "threads = 0\n"
        "try:\n"
        "    for _ in range(5000):\n"
        "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
        "        threads += 1\n"
        "except RuntimeError as error:\n"
        "    print('threads stopped:', error)\n"
        "print('threads', threads)\n")
    check = check_of(entry, folder / "exhaust.py")
    pool = lean_pool
    run = pool.run(check, 60, lean_python)
    written = int(run.output.split("MiB written ")[1].split()[0])
    threads = int(run.output.split("threads ")[-1].split()[0])
    assert written <= 4 and "No space left on device" in run.output
    assert threads < 1024 and "can't start new thread" in run.output
    (folder / "exhaust.py").unlink()


def test_a_search_path_as_broad_as_the_root_or_home_is_not_mounted(monkeypatch):
    from errorkb.verify.sandbox import runtime_paths

    usual = runtime_paths()
    monkeypatch.setattr("sys.path", [*__import__("sys").path, "/", "/tmp", os.path.expanduser("~")])
    assert runtime_paths() == usual
    assert "/" not in usual and os.path.expanduser("~") not in usual


FORK_BOMB = f"""import os, shutil
sleep, children = shutil.which("sleep"), []
try:
    for _ in range(1500):
        children.append(os.posix_spawn(sleep, ["sleep", "{MARKER}"], os.environ))
except OSError as error:
    print("forks stopped:", error.strerror)
print("forked", len(children))
"""


def test_a_fork_bomb_stops_at_the_task_limit_even_as_root(sandbox, entry, project, lean_python, lean_pool):
    """RLIMIT_NPROC is void for uid 0: the limit must hold whoever runs errorkb (CI runs it as root).

    Each new process is a `sleep` that outlives the check unless the check's namespace takes it:
    os.posix_spawn, not os.fork: both make one task each, which is what the limit counts, but a fork
    copies the check's torch-sized address space and its exit unmaps it, so 1,023 forks (sleeping
    30 s) took this test 38 s in a quiet CI run and 65-113 s at a load of 40; 1,023 spawns take 2 s."""
    folder = project / "snippets" / "good-head-dim"
    (folder / "bomb.py").write_text(FORK_BOMB)
    check = check_of(entry, folder / "bomb.py")
    pool = lean_pool
    run = pool.run(check, 60, lean_python)
    forked = int(run.output.split("forked ")[1].split()[0])
    assert forked < 1024 and "forks stopped" in run.output, run.output[-2000:]
    assert _outliving() == []
    (folder / "bomb.py").unlink()


TALK = """import socket, sys, time
role, port = sys.argv[0].rsplit("/", 1)[1].split("-")[0], 47611
heard = []
if role == "listen":
    servers = []
    for family, address in ((socket.AF_INET, ("127.0.0.1", port)), (socket.AF_UNIX, "\\0errorkb-talk")):
        try:
            server = socket.socket(family, socket.SOCK_STREAM)
            server.bind(address)
            server.listen()
            server.settimeout(0.05)
            servers.append(server)
        except OSError as error:
            print("listen failed:", family, error)
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        for server in servers:
            try:
                connection, _ = server.accept()
                heard.append(connection.recv(64).decode())
            except OSError:
                pass
else:
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        for family, address in ((socket.AF_INET, ("127.0.0.1", port)), (socket.AF_UNIX, "\\0errorkb-talk")):
            try:
                with socket.socket(family, socket.SOCK_STREAM) as client:
                    client.connect(address)
                    client.sendall(b"hello from the other check")
                    heard.append("sent " + str(family))
            except OSError:
                pass
        time.sleep(0.05)
print("TALK", sorted(set(heard)))
"""


def test_two_checks_at_once_cannot_talk_over_loopback_or_abstract_sockets(entry, project, lean_python, lean_pool):
    """Each check has a network namespace of its own: its loopback and its abstract Unix sockets are its own."""
    from concurrent.futures import ThreadPoolExecutor

    folder = project / "snippets" / "good-head-dim"
    for role in ("listen", "connect"):
        (folder / f"{role}-talk.py").write_text(TALK)
    checks = [check_of(entry, folder / f"{role}-talk.py") for role in ("listen", "connect")]
    pool = lean_pool
    with ThreadPoolExecutor(2) as threads:
        runs = list(threads.map(lambda check: pool.run(check, 60, lean_python), checks))
    for run in runs:
        said = next(line for line in run.output.splitlines() if line.startswith("TALK"))
        assert said == "TALK []", run.output[-2000:]
    for role in ("listen", "connect"):
        (folder / f"{role}-talk.py").unlink()


def test_a_check_that_spins_ends_at_its_cpu_time_and_says_so(sandbox, entry, project, lean_python, lean_pool):
    folder = project / "snippets" / "good-head-dim"
    (folder / "spin.py").write_text("while True:\n    pass\n")
    check = check_of(entry, folder / "spin.py")
    pool = lean_pool
    run = pool.run(check, 2, lean_python)
    assert not run.timed_out and run.cpu_s is not None and run.cpu_s >= 2
    assert judge(check, run).reason.startswith("timed out: used its 2 s of CPU time (killed by SIGXCPU)")
    (folder / "spin.py").unlink()


def test_the_checkout_is_never_on_the_import_path(entry, project, monkeypatch):
    """The sandbox imports the harness's own errorkb from a folder that holds nothing else, and drops any
    PYTHONPATH folder that is, holds or lies inside the snippets folder (CI's `PYTHONPATH=.`)."""
    monkeypatch.setenv("PYTHONPATH", f"{project}:{project / 'snippets'}:/nonexistent-but-kept")
    box = choose_with("require", [project], [project / ".errorkb-cache", project / ".git"], runtime=TORCH,
                      packages=("torch", "transformers", "optimum"), private=[project / "snippets"])
    assert box.import_path() == ["/nonexistent-but-kept"]
    folder = project / "snippets" / "good-head-dim"
    (folder / "paths.py").write_text("import importlib.util, sys\nprint('PATH', sys.path)\n"
                                     "print('SNIPPETS', importlib.util.find_spec('snippets'))\n"
                                     "import errorkb\nprint('ERRORKB', errorkb.__file__)\n")
    check = check_of(entry, folder / "paths.py")
    with pool_of([], box) as pool:
        run = pool.run(check, timeout=60)
    assert "SNIPPETS None" in run.output, run.output
    assert "ERRORKB /run/errorkb/import/errorkb/__init__.py" in run.output, run.output
    assert f"'{project}'" not in run.output.split("PATH", 1)[1].split("\n")[0]
    (folder / "paths.py").unlink()


def test_errorkb_found_through_a_link_on_the_import_path_still_gets_its_shadow(tmp_path):
    """A folder on PYTHONPATH holding a link `errorkb` to the package (how a worktree's code is verified beside an
    editable install of another checkout): the shadow was bound onto the link itself, which bwrap cannot do
    (measured on main: "Can't bind mount ... on /newroot/.../errorkb: No such file or directory", so `--sandbox
    require` refused to run). A link is left as it is: the shadow covers the folder it leads to, and the import
    folder."""
    import subprocess
    import sys

    needs_sandbox()
    from errorkb.verify.cache import _PACKAGE

    links = tmp_path / "links"
    links.mkdir()
    (links / "errorkb").symlink_to(_PACKAGE)
    environment = {**os.environ, "PYTHONPATH": str(links)}
    done = subprocess.run([sys.executable, "-P", "-c", "import errorkb, sys\nfrom errorkb.verify.sandbox import probe\n"
                           "print(errorkb.__file__)\nprint(probe())"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=environment)
    found, said = done.stdout.strip().splitlines()[-2:]
    assert found == str(links / "errorkb" / "__init__.py"), done.stdout + done.stderr
    assert said == "None", said

"""The sandbox a snippet runs in: it may spoil its own verdict, nothing else.

Snippets come from strangers' pull requests and CI runs them, so every check runs inside
bubblewrap (`bwrap`, Debian's `bubblewrap`, the sandbox of Flatpak): new user, mount, PID,
network, IPC and UTS namespaces, built from what the kernel already provides.

The sandbox (`Sandbox.wrap`):

- sees the system (`/usr`, `/etc`'s loader and account files), the Python runtime, the
  virtual environment, the errorkb package and the project **read-only**, at their own paths
  (tracebacks, raise sites and snippet paths read the same inside and out);
- does not see the verdict cache, `reports/` or `.git` (an empty read-only tmpfs covers each);
- writes only a private tmpfs `/tmp` (its working folder and `HOME`) and the one folder where
  the harness collects the check's observation and output;
- has no network (a new network namespace holds only a loopback), a cleared environment
  (a short allow-list: no tokens), its own `/proc` and a minimal `/dev` (read-only), and the
  runtime's device nodes (a GPU's) only for checks on that device;
- dies with the harness (`--die-with-parent`) and has its own session (`--new-session`).

**One check, one jail.** The warm zygote (`zygote.py`) lives inside the sandbox, so a check
still costs one fork. It keeps `CAP_SYS_ADMIN` *inside* the sandbox's user namespace (never
outside it) to give each check a jail of its own before the snippet's first line (`Jail`):

1. a new PID namespace whose init is a `sleep` of the check's timeout: the check is PID 2 and
   sees neither the zygote nor other checks; when the check ends, or the timer runs out, the
   zygote kills that init and the kernel kills every process left in the namespace (`setsid`
   daemons included);
2. new mount, IPC and UTS namespaces: a fresh tmpfs on `/tmp` and `/dev/shm`, of the
   harness's scratch folder only this check's own subfolder (a small tmpfs the zygote copies the
   observation and output back from, as plain files), and System V IPC of its own;
3. a new user namespace (same uid), then every capability dropped: the mounts it inherits
   are locked, so it cannot uncover what was hidden or remount anything writable, and it
   cannot touch (`ptrace`, `/proc/<pid>/fd`) the zygote or another check.

`--isolation subprocess` runs one bwrap per check instead, the same mounts, and in it a small
launcher (`_run_jailed`) that jails the fresh interpreter exactly as the zygote jails a fork.

Whether the sandbox can be created here is measured, not assumed (`probe`): a missing `bwrap`,
a kernel without unprivileged user namespaces, Ubuntu's AppArmor restriction, a container's
seccomp profile. `choose` then says so loudly and the report records the isolation per check
(`fork+bwrap` or plain `fork`); `--sandbox require` (CI) refuses to run without it.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.plugs import Runtime
from errorkb.verify.paths import package_dirs

MODES = ("auto", "require", "off")
LABEL = "bwrap"
TMP_SIZE = "1g"  # a check's private /tmp (memory-backed)
FOLDER_SIZE = "4m"  # what a check may write where the harness collects it: observation and output, 1 MiB each
TASKS = 1024  # processes and threads one check may run at once (RLIMIT_NPROC, counted in its own user namespace)
COLLECTED = ("output.txt",)  # all the harness reads back from a check's folder (the stream is a pipe)
TIMER_MARGIN_S = 2.0  # the check's init outlives the harness's own timeout by this much
_JAIL_CAPS = ("CAP_SYS_ADMIN", "CAP_SETFCAP")  # namespaces and mounts per check; mapping uid 0 as root
_PACKAGES = ("errorkb",)  # wherever it is installed (editable too); the runtime's and the library's are added
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
        "localtime", "timezone", "hosts", "host.conf", "mime.types")
_ENV_NAMES = ("PATH", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "PYTHONPATH",
              "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUTF8")
_ENV_PREFIXES = ("LC_", "OMP_", "MKL_", "KMP_", "OPENBLAS_")  # the runtime's and the library's are added
_ENV_SECRETS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY", "AUTH")


class SandboxUnavailable(RuntimeError):
    """`--sandbox require` on a machine where the sandbox cannot be created; the message says why."""


# -- the harness side: which sandbox, and the bwrap command line ---------------------------------


@dataclass(frozen=True)
class Sandbox:
    """How to start a process in the sandbox: what it may read, what it must not see."""

    bwrap: str
    read_only: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    label: str = LABEL
    runtime: Runtime | None = None  # its device files and device environment
    env_prefixes: tuple[str, ...] = ()  # environment variables the runtime and the library read

    def wrap(self, argv: list[str], *, device: str, writable: list[Path], jails: bool = False,
             python: Path | None = None, also: Sequence[Path] = ()) -> list[str]:
        """`argv` run inside the sandbox; `writable` folders (the harness's scratch) bound read-write.

        With `jails`, `argv` (a zygote, or the launcher of one fresh interpreter) keeps the
        capabilities it needs to jail each check (`Jail`), inside the sandbox's user namespace
        only; the checks themselves run with none. `python`, another interpreter than this one
        (a release's matrix environment), is shown read-only too and finds errorkb on its path; so
        are the folders in `also` (a stem's: the other environments it forks zygotes for).
        """
        command = [self.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
                   "--hostname", "errorkb-sandbox", "--cap-drop", "ALL"]
        for capability in _JAIL_CAPS if jails else ():
            command += ["--cap-add", capability]
        command += ["--proc", "/proc", "--dev", "/dev"]
        command += self._device_binds(device)
        command += ["--remount-ro", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        environment = [*_environment_of(python), *(str(folder) for folder in also)]
        command += _read_only_binds(tuple(sorted({*self.read_only, *environment})))
        for path in self.hidden:  # after the project: covers the cache and reports inside it
            command += ["--tmpfs", path, "--remount-ro", path]
        for folder in writable:
            command += ["--bind", str(folder), str(folder)]
        env = self.env(device)
        # errorkb by its own folder: another interpreter (a release's environment) may find it only
        # through the harness's working directory, which is not the sandbox's (`--chdir /tmp`).
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SOURCE_ROOT, env.get("PYTHONPATH")]))
        command += ["--clearenv", *_setenv(env), "--chdir", "/tmp", "--", *argv]
        return command

    def env(self, device: str) -> dict[str, str]:
        """The environment inside: an allow-list of the harness's (never a token), then errorkb's own."""
        prefixes = (*_ENV_PREFIXES, *self.env_prefixes)
        env = {name: value for name, value in os.environ.items()
               if (name in _ENV_NAMES or name.startswith(prefixes))
               and not any(secret in name.upper() for secret in _ENV_SECRETS)}
        env.update(HOME="/tmp", TMPDIR="/tmp", PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.setdefault("LANG", "C.UTF-8")
        if self.runtime is not None:
            env.update(self.runtime.device_env(device))  # e.g. a CPU check sees no GPU
        return env

    def _device_binds(self, device: str) -> list[str]:
        """The runtime's device nodes and read-only folders for this device (none for the CPU,
        beyond the kernel's view of the CPUs that thread pools read)."""
        nodes, folders = self.runtime.device_files(device) if self.runtime else ([], [])
        if not nodes and not folders:
            return ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu",
                    "--ro-bind-try", "/sys/devices/system/node", "/sys/devices/system/node"]
        binds = [part for folder in folders for part in ("--ro-bind", folder, folder)]
        return binds + [part for node in nodes for part in ("--dev-bind", node, node)]


_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])  # where the errorkb package lies


def _environment_of(python: Path | None) -> list[str]:
    """The virtual environment of another interpreter (its prefix, and what it links to)."""
    if python is None or Path(python) == Path(sys.executable):
        return []
    prefix = Path(python).parent.parent
    return [str(prefix), str(prefix.resolve())] if prefix.is_dir() else []


def choose(mode: str, read_only: list[Path], hidden: list[Path], *, warn: Any = None,
           runtime: Runtime | None = None, packages: tuple[str, ...] = (),
           env_prefixes: tuple[str, ...] = ()) -> Sandbox | None:
    """The sandbox for `--sandbox MODE`, or None to run without one; never silently.

    `auto` uses it where it can be created and otherwise prints why not (stderr) before any
    check runs; `require` raises `SandboxUnavailable` instead; `off` says that it is off.
    """
    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}; known: {', '.join(MODES)}")
    say = warn or _warn
    if mode == "off":
        say("errorkb: sandbox off (--sandbox off): snippets run with your permissions and can write the "
            "project, the verdict cache and reports/, and reach the network")
        return None
    reason = probe()
    if reason is None:
        return Sandbox(shutil.which("bwrap") or "bwrap", runtime_paths(read_only, packages),
                       tuple(str(path) for path in hidden if path.is_dir()), runtime=runtime,
                       env_prefixes=(*env_prefixes, *(runtime.env_prefixes if runtime else ())))
    if mode == "require":
        raise SandboxUnavailable(reason)
    say(f"errorkb: WARNING: verifying WITHOUT a sandbox: {reason}. Snippets run with your permissions: they "
        "can write the project, the verdict cache and reports/, and reach the network. Reports record "
        "isolation 'fork' or 'subprocess' instead of '+bwrap'. CI uses --sandbox require.")
    return None


def _warn(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _setenv(env: dict[str, str]) -> list[str]:
    return [part for name, value in sorted(env.items()) for part in ("--setenv", name, value)]


def _read_only_binds(paths: tuple[str, ...]) -> list[str]:
    """Each path at its own place; a symbolic link (merged /usr: /lib -> usr/lib) as a link."""
    binds: list[str] = []
    for path in paths:
        if os.path.islink(path):
            binds += ["--symlink", os.readlink(path), path]
        else:
            binds += ["--ro-bind", path, path]
    return binds


def runtime_paths(extra: list[Path] | tuple[Path, ...] = (), packages: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What a check must read: the system, Python, the environment, errorkb, the runtime's and the
    library's `packages`, `extra`.

    Each path also under its resolved name (a venv's python is a link into pyenv, say), minus
    paths already inside another one. A search path as broad as `/`, `/tmp` or a folder holding
    the home directory (`PYTHONPATH=/`, say) is left out: it would show the host's secrets.
    """
    wanted = [*_SYSTEM, *(f"/etc/{name}" for name in _ETC)]
    wanted += [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    searched = [entry for entry in sys.path if entry and os.path.isabs(entry)]
    searched += [entry for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":") if entry]
    searched += [location for name in (*_PACKAGES, *packages) for location in map(str, package_dirs(name))]
    wanted += [entry for entry in searched if not _too_broad(entry)]
    wanted += [str(path) for path in extra]
    found: set[str] = set()
    for path in wanted:
        if not os.path.lexists(path):
            continue
        found.add(os.path.normpath(path))
        if os.path.islink(path) or os.path.realpath(path) != os.path.normpath(path):
            found.add(os.path.realpath(path))
    return tuple(sorted(path for path in found if not _inside_another(path, found)))


def _too_broad(path: str) -> bool:
    """`/`, `/tmp` (every other process's files), or a folder that holds the home directory."""
    folder = os.path.realpath(path)
    home = os.path.realpath(os.path.expanduser("~"))
    return folder in ("/", "/tmp", "/var", "/var/tmp") or home == folder or home.startswith(folder.rstrip("/") + "/")


def _inside_another(path: str, paths: set[str]) -> bool:
    parts = Path(path).parts
    return any(other != path and not os.path.islink(other) and parts[:len(Path(other).parts)] == Path(other).parts
               for other in paths)


def exit_status(code: int | None) -> int | None:
    """bwrap exits with 128 + N when the sandboxed process died of signal N: as Popen would say it."""
    if code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code


# -- can it be created here? ---------------------------------------------------------------------


@functools.cache
def probe() -> str | None:
    """None when the sandbox works here (a zygote can jail a check in it), else why not, with the fix.

    Runs the real thing once per process: bwrap with the zygote's options, and inside it a
    jail whose check writes a file the harness then reads, and finds no network.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    with tempfile.TemporaryDirectory(prefix="errorkb-probe-") as folder:
        check = Path(folder) / "check"
        check.mkdir()
        sandbox = Sandbox(bwrap, runtime_paths())
        argv = [sys.executable, "-m", "errorkb.verify.sandbox", "--probe", str(check)]
        try:
            done = subprocess.run(sandbox.wrap(argv, device="cpu", writable=[Path(folder)], jails=True),
                                  capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap could not be run: {error}"
        seen = (check / "output.txt").read_text() if (check / "output.txt").exists() else ""
        if done.returncode == 0 and seen and json.loads(seen).get("network") == "unreachable":
            return None
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"bwrap cannot create the sandbox here ({said}){_hint()}"


def _hint() -> str:
    """What usually stands in the way, from what this machine says about itself."""
    facts = {path: _read(path) for path in ("/proc/sys/kernel/unprivileged_userns_clone",
                                             "/proc/sys/user/max_user_namespaces",
                                             "/proc/sys/kernel/apparmor_restrict_unprivileged_userns")}
    if facts["/proc/sys/kernel/unprivileged_userns_clone"] == "0":
        return "; the kernel forbids unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1"
    if facts["/proc/sys/user/max_user_namespaces"] == "0":
        return "; user namespaces are disabled: sysctl -w user.max_user_namespaces=15000"
    if facts["/proc/sys/kernel/apparmor_restrict_unprivileged_userns"] == "1":
        return ("; AppArmor restricts unprivileged user namespaces (Ubuntu >= 23.10, GitHub's ubuntu-24.04 "
                "runners): sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap")
    seccomp = next((line.split()[1] for line in _read("/proc/self/status").splitlines()
                    if line.startswith("Seccomp:")), "0")
    if seccomp != "0" or os.path.exists("/.dockerenv"):
        return ("; in a container whose seccomp profile forbids namespaces (Docker's default): run it with "
                "--security-opt seccomp=unconfined, or verify on the host")
    return ""


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def _run_jailed(result: str, timeout: float, keep: int | None, argv: list[str]) -> int:
    """`--isolation subprocess` inside bwrap: the fresh interpreter gets the same jail as a forked check.

    This launcher is the jail's zygote for one check: it opens the jail, forks, the child enters
    it (keeping the stream's write end, `keep`) and execs `argv`; then it mirrors the child's end
    (its exit status, or its signal) so that bwrap, and the harness, see the check's own.
    """
    jail = Jail.open({"result": result, "timeout": timeout, "scratch": os.path.dirname(result)})
    pid = os.fork()
    if pid == 0:
        try:
            jail.enter(keep)
            if keep is not None and keep != _STREAM_FD:  # where a check's process finds its stream
                os.dup2(keep, _STREAM_FD)
                os.close(keep)
            os.execv(argv[0], argv)
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(70)
    jail.adopt(pid)
    _, status = os.waitpid(pid, 0)
    release(pid)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
            pass
        os.kill(os.getpid(), number)
        return 128 + number
    return os.waitstatus_to_exitcode(status)


def _probe_inside(folder: str) -> int:
    """Inside the sandbox, as a zygote: jail one forked check and let it report what it sees."""
    jail = Jail.open({"result": os.path.join(folder, "output.txt"), "timeout": 30})
    pid = os.fork()
    if pid == 0:
        try:
            jail.enter()
            network = "reachable"
            import socket

            try:
                socket.create_connection(("1.1.1.1", 53), timeout=2).close()
            except OSError:
                network = "unreachable"
            Path(folder, "output.txt").write_text(json.dumps({"network": network, "pid": os.getpid()}))
            os._exit(0)
        except BaseException:
            import traceback

            traceback.print_exc()
            os._exit(70)
    jail.adopt(pid)
    _, status = os.waitpid(pid, 0)
    release(pid)
    return os.waitstatus_to_exitcode(status)


# -- the zygote side: one jail per check --------------------------------------------------------

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID = 0x10000000, 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000
_MNT_DETACH = 2
_MAX_FD = 1 << 20
_STREAM_FD = 3  # as errorkb.verify.observer.STREAM_FD
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_jails: dict[int, Jail] = {}  # check pid → its jail, in the zygote


@dataclass
class Jail:
    """One check's PID namespace (its init is the timer), mounts, user namespace; see the module doc.

    In the zygote: `Jail.open(request)` just before the fork, `adopt(pid)` after it, and
    `release(pid)` once the check is reaped. In the check: `enter()` before the snippet runs.
    """

    folder: str  # the check's folder in the harness's scratch: observation and output
    scratch: str = ""  # what to hide besides the check's own folder: the folder of every check's folder
    init: int = 0  # pid of the namespace's init (the timer), in the zygote's namespace
    uid: int = field(default_factory=os.geteuid)
    gid: int = field(default_factory=os.getegid)

    @classmethod
    def open(cls, request: dict[str, Any]) -> Jail:
        """A new PID namespace for the next fork; its init ends the check when the timeout runs out."""
        folder = os.path.dirname(request["result"])
        jail = cls(folder, request.get("scratch") or os.path.dirname(folder))
        # The check writes to a small tmpfs over its folder, never to the harness's disk: `release`
        # copies back the files the harness reads, as plain files (a symbolic link is not followed).
        _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={FOLDER_SIZE},mode=700")
        _libc_call("setns", _own_pid_namespace(), _CLONE_NEWPID)  # the last check's namespace is done with
        _libc_call("unshare", _CLONE_NEWPID)
        timeout = request.get("timeout")
        seconds = "infinity" if timeout is None else f"{float(timeout) + TIMER_MARGIN_S:.3f}"
        sleep = shutil.which("sleep") or "/bin/sleep"
        jail.init = os.posix_spawn(sleep, ["sleep", seconds], {},
                                   setsigdef=(signal.SIGINT, signal.SIGTERM, signal.SIGHUP))
        return jail

    def adopt(self, pid: int) -> None:
        _jails[pid] = self

    def collect(self) -> None:
        """Copy the files the harness reads from the check's tmpfs to its folder underneath, then drop the tmpfs.

        Regular files only, read without following links and at most twice the output cap: what
        reaches the harness's disk is bytes, never a link to one of its own files.
        """
        found = {name: _read_plain(os.path.join(self.folder, name)) for name in COLLECTED}
        try:
            _libc_call("umount2", self.folder.encode(), _MNT_DETACH)
        except OSError:
            return  # still covered: the harness finds nothing, and says the check did not report
        for name, data in found.items():
            if data is None:
                continue
            try:
                fd = os.open(os.path.join(self.folder, name), _NEW_FILE, 0o600)
            except FileExistsError:  # output.txt of a fresh interpreter: the harness's own file already
                continue
            with os.fdopen(fd, "wb") as copy:
                copy.write(data)

    def enter(self, keep: int | None = None) -> None:
        """In the forked check, before any snippet code: private mounts, own user namespace, no capabilities.
        Of the file descriptors above 2 only `keep` (the check's stream) stays open."""
        if keep is None:
            os.closerange(3, _MAX_FD)  # the zygote's epoll set and namespace fds are not the check's business
        else:
            os.closerange(3, keep)
            os.closerange(keep + 1, _MAX_FD)
        _libc_call("unshare", _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWUTS)  # System V IPC is per namespace
        _mount("none", "/", None, _MS_REC | _MS_PRIVATE)
        scratch = self.scratch
        # Held open in this namespace before /tmp is covered: the check's own folder, and what the
        # sandbox bound under /tmp (a project in a temporary folder), minus the other checks' folders.
        kept = {path: os.open(path, os.O_PATH) for path in mount_points_under("/tmp", scratch)}
        own = os.open(self.folder, os.O_PATH | os.O_DIRECTORY)
        _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={TMP_SIZE},mode=1777")
        _mount("tmpfs", "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64m,mode=1777")
        if not _under(scratch, "/tmp"):  # under /tmp it is covered already
            _mount("tmpfs", scratch, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=755")
        for path, fd in [*kept.items(), (self.folder, own)]:
            _bind_back(fd, path)
        os.chdir("/tmp")
        _libc_call("unshare", _CLONE_NEWUSER)
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{self.uid} {self.uid} 1")
        _write("/proc/self/gid_map", f"{self.gid} {self.gid} 1")
        resource.setrlimit(resource.RLIMIT_NPROC, (TASKS, TASKS))  # a fork bomb stops here
        drop_capabilities()


def _read_plain(path: str, limit: int = 2 << 20) -> bytes | None:
    """The bytes of a regular file (not a link, not a pipe), at most `limit`; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return file.read(limit)


def mount_points_under(folder: str, leave_out: str) -> list[str]:
    """The outermost mount points below `folder`, except `leave_out` and what lies under it."""
    points = []
    for line in _read("/proc/self/mountinfo").splitlines():
        fields = line.split(" ")
        if len(fields) > 4:
            points.append(re.sub(r"\\([0-7]{3})", lambda found: chr(int(found.group(1), 8)), fields[4]))
    below = sorted({point for point in points if _under(point, folder) and not _under(point, leave_out)
                    and point != leave_out})
    return [point for point in below if not any(_under(point, other) for other in below if other != point)]


def _under(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def _bind_back(fd: int, path: str) -> None:
    """Bind what `fd` holds (a folder or file, with the mounts beneath it) at `path` again."""
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
    os.close(fd)


def release(pid: int) -> None:
    """The check `pid` was reaped: end its namespace (the kernel kills what is left), reap the timer,
    and hand the harness the check's observation and output."""
    jail = _jails.pop(pid, None)
    if jail is None or not jail.init:
        return
    try:
        os.kill(jail.init, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(jail.init, 0)  # returns once the namespace is empty: nothing writes any more
    except ChildProcessError:
        pass
    _libc_call("setns", _own_pid_namespace(), _CLONE_NEWPID)  # a fork into the ended namespace would fail
    jail.collect()


def release_all() -> None:
    for pid in list(_jails):
        release(pid)


def drop_capabilities() -> None:
    """No capability left, in any set, and none to be gained by exec."""
    _libc_call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _libc_call("prctl", _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    last = int(_read("/proc/sys/kernel/cap_last_cap") or 40)
    for capability in range(last + 1):
        _libc_call("prctl", _PR_CAPBSET_DROP, capability, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    _libc_call("capset", ctypes.byref(Header(_CAPABILITY_VERSION_3, 0)), ctypes.byref((Data * 2)()))


@functools.cache
def _own_pid_namespace() -> int:
    """The zygote's own PID namespace: a new one can only be made from there (else EINVAL)."""
    return os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _libc_call(name: str, *args: Any) -> None:
    if getattr(_libc(), name)(*args) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}{args[:2]}: {os.strerror(error)}")


def _mount(source: str, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    def encode(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None

    if _libc().mount(encode(source), encode(target), encode(kind), flags, encode(data)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount {target}: {os.strerror(error)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def jailed_command(argv: list[str], result: Path, timeout: float, keep: int | None = None) -> list[str]:
    """`argv` (a fresh interpreter's check) run in a jail of its own, keeping file descriptor `keep`:
    see `_run_jailed`. `result` is a file in the check's folder (its output)."""
    return [sys.executable, "-m", "errorkb.verify.sandbox", "--jail", str(result), str(timeout),
            str(-1 if keep is None else keep), "--", *argv]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"] and len(sys.argv) == 3:
        sys.exit(_probe_inside(sys.argv[2]))
    if sys.argv[1:2] == ["--jail"] and len(sys.argv) > 6 and sys.argv[5] == "--":
        kept = int(sys.argv[4])
        sys.exit(_run_jailed(sys.argv[2], float(sys.argv[3]), kept if kept >= 0 else None, sys.argv[6:]))
    print("usage (inside bwrap, by errorkb): python -m errorkb.verify.sandbox --probe FOLDER | "
          "--jail RESULT TIMEOUT KEEP_FD -- ARGV...", file=sys.stderr)
    sys.exit(2)

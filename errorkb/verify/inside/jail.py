"""One check, one jail: what the zygote (or the launcher of a fresh interpreter) does around each check.

Inside the sandbox (`errorkb/verify/sandbox.py` starts it) the process that forks checks keeps
`CAP_SYS_ADMIN` within the sandbox's user namespace, to give each check, before its first line:

1. `Jail.open` (before the fork): a new PID namespace whose init is a timer; when the check ends,
   or the timer runs out, `release` ends that init and the kernel kills everything left in it;
2. `Jail.enter` (in the forked check): new mount, IPC and UTS namespaces with a fresh `/tmp` and
   `/dev/shm`, of the harness's scratch folder only the check's own subfolder; then a user
   namespace of its own and no capabilities;
3. `release` (after the check is reaped): its namespace ended, its output copied back as a plain file.

`launch` is the same jail for `--isolation subprocess`: the launcher forks, the child enters the
jail and execs the fresh interpreter. `probe` is the sandbox's self-test. Standard library only.
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
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.verify.inside.spec import STREAM_FD

TMP_SIZE = "1g"  # a check's private /tmp (memory-backed)
FOLDER_SIZE = "4m"  # what a check may write where the harness collects it: its output, 1 MiB
TASKS = 1024  # processes and threads one check may run at once
COLLECTED = ("output.txt",)  # all the harness reads back from a check's folder (the stream is a pipe)
TIMER_MARGIN_S = 2.0  # the check's init outlives the harness's own timeout by this much


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


# -- the zygote side: one jail per check --------------------------------------------------------

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID = 0x10000000, 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000
_MNT_DETACH = 2
_MAX_FD = 1 << 20
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
    def open(cls, result: str, timeout: float | None, scratch: str | None = None) -> Jail:
        """A new PID namespace for the next fork; its init ends the check when the timeout runs out."""
        folder = os.path.dirname(result)
        jail = cls(folder, scratch or os.path.dirname(folder))
        # The check writes to a small tmpfs over its folder, never to the harness's disk: `release`
        # copies back the files the harness reads, as plain files (a symbolic link is not followed).
        _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={FOLDER_SIZE},mode=700")
        _libc_call("setns", _own_pid_namespace(), _CLONE_NEWPID)  # the last check's namespace is done with
        _libc_call("unshare", _CLONE_NEWPID)
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


def launch(result: str, timeout: float, keep: int | None, argv: list[str]) -> int:
    """`--isolation subprocess` inside bwrap: the fresh interpreter gets the same jail as a forked check.

    This launcher is the jail's zygote for one check: it opens the jail, forks, the child enters
    it (keeping the stream's write end, `keep`) and execs `argv`; then it mirrors the child's end
    (its exit status, or its signal) so that bwrap, and the harness, see the check's own.
    """
    jail = Jail.open(result, timeout, os.path.dirname(result))
    pid = os.fork()
    if pid == 0:
        try:
            jail.enter(keep)
            if keep is not None and keep != STREAM_FD:  # where a check's process finds its stream
                os.dup2(keep, STREAM_FD)
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


def probe(folder: str) -> int:
    """Inside the sandbox, as a zygote: jail one forked check and let it report what it sees."""
    jail = Jail.open(os.path.join(folder, "output.txt"), 30)
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


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"] and len(sys.argv) == 3:
        sys.exit(probe(sys.argv[2]))
    if sys.argv[1:2] == ["--jail"] and len(sys.argv) > 6 and sys.argv[5] == "--":
        kept = int(sys.argv[4])
        sys.exit(launch(sys.argv[2], float(sys.argv[3]), kept if kept >= 0 else None, sys.argv[6:]))
    print("usage (inside bwrap, by errorkb): python -m errorkb.verify.inside.jail --probe FOLDER | "
          "--jail RESULT TIMEOUT KEEP_FD -- ARGV...", file=sys.stderr)
    sys.exit(2)

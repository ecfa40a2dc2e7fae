"""One check, one jail: what the zygote (or the launcher of a fresh interpreter) does around each check.

Inside the sandbox (`errorkb/verify/sandbox.py` starts it) the process that forks checks keeps
`CAP_SYS_ADMIN` within the sandbox's user namespace, to give each check, before its first line:

1. `Jail.open` (before the fork): a new PID namespace whose init is a timer; when the check ends,
   or the timer runs out, `release` ends that init and the kernel kills everything left in it;
2. `Jail.enter` (in the forked check): new mount, IPC and UTS namespaces with a fresh `/tmp` and
   `/dev/shm`, of the harness's scratch folder only the check's own subfolder, a working folder
   `/tmp/work` of read-only views of its snippet folder's entries, the sandbox's root read-only;
   then a user namespace of its own and no capabilities;
3. `release` (after the check is reaped): its namespace ended, its output copied back as a plain file.

`launch` is the same jail for `--isolation subprocess`: the launcher forks, the child enters the
jail and execs the fresh interpreter. `probe` is the sandbox's self-test. Standard library only.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import json
import os
import re
import resource
import shutil
import signal
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.verify.inside.spec import KEY_FD, STREAM_FD

TMP_SIZE = "1g"  # a check's private /tmp (memory-backed)
FOLDER_SIZE = "4m"  # what a check may write where the harness collects it: its output, 1 MiB
TASKS = 1024  # processes and threads one check may run at once
COLLECTED = ("output.txt",)  # all the harness reads back from a check's folder (the stream is a pipe)
# A fresh interpreter's launcher writes here why the check failed that only its jail knows (it ran out of its memory),
# after the check's tmpfs is gone: a file no process of the check could write (the fork's zygote replies instead).
MEMORY_NOTE = "out-of-memory.txt"
TIMER_MARGIN_S = 2.0  # the check's init outlives the harness's own timeout by this much
MACHINE_FILES = ("cpuinfo", "meminfo")  # what a check sees of /proc: the machine, never a process
# A check's working folder, in its private /tmp: writable, and each entry of its snippet folder in it a read-only view
# (`working_folder`), so that `open("data.txt")` reads what the verdict's key holds and `mkdir("out")` works.
WORK = "/tmp/work"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


# -- the zygote side: one jail per check --------------------------------------------------------

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_MOVE, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x2000, 0x4000, 0x40000
_MNT_DETACH = 2
_MAX_FD = 1 << 20
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_jails: dict[int, Jail] = {}  # check pid → its jail, in the zygote
TASKS_ENV = "ERRORKB_TASKS"  # where the sandbox shows the zygote its pids cgroup (when the harness is root)
MEMORY_ENV = "ERRORKB_MEMORY"  # its memory cgroup (the pids one on cgroup v2), where one is writable
MEMORY_MAX_ENV = "ERRORKB_MEMORY_MAX"  # the bytes one check may use, all its processes together
PROJECT_ENV = "ERRORKB_PROJECT"  # the project's folders, of which a check sees its own snippet folder only
SHOWN_ENV = "ERRORKB_SHOWN"  # what else of them it sees: what the runtime, the library and their import path need
_opened = [0]  # checks jailed by this process, for unique cgroup names


@dataclass
class Jail:
    """One check's PID namespace (its init is the timer), mounts, user namespace; see the module doc.

    In the zygote: `Jail.open(...)` just before the fork, `adopt(pid)` after it, and
    `release(pid)` once the check is reaped. In the check: `enter()` before the snippet runs.
    """

    folder: str  # the check's folder in the harness's scratch: observation and output
    scratch: str = ""  # what to hide besides the check's own folder: the folder of every check's folder
    init: int = 0  # pid of the namespace's init (the timer), in the zygote's namespace
    uid: int = field(default_factory=os.geteuid)
    gid: int = field(default_factory=os.getegid)
    tasks: str | None = None  # the check's own pids cgroup (where the harness runs as root), or None
    cgroups: str | None = None  # the folder of every check's cgroup, hidden from the check
    memory: str | None = None  # the check's own memory cgroup (its pids one on cgroup v2), or None
    memory_root: str | None = None  # the folder of every check's memory cgroup, hidden from the check
    memory_max: int = 0  # its limit, bytes

    @classmethod
    def open(cls, result: str, timeout: float | None, scratch: str | None = None) -> Jail:
        """A new PID namespace for the next fork; its init ends the check when `timeout` (the wall-clock
        backstop) runs out. Where the harness runs as root, a pids cgroup of its own too."""
        folder = os.path.dirname(result)
        jail = cls(folder, scratch or os.path.dirname(folder))
        jail.cgroups = os.environ.get(TASKS_ENV) or None
        if jail.cgroups:
            _opened[0] += 1
            jail.tasks = os.path.join(jail.cgroups, f"check-{os.getpid()}-{_opened[0]}")
            os.mkdir(jail.tasks, 0o700)
            _write(os.path.join(jail.tasks, "pids.max"), str(TASKS))
        jail._open_memory()
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

    def _open_memory(self) -> None:
        """The check's memory cgroup, next to its pids one: every process it starts counts against one limit
        (RLIMIT_AS bounds each process alone, so N children may take N times it). On cgroup v2 a process is in
        one cgroup only: the pids one carries the limit, and `memory.oom.group` ends the whole check."""
        root, limit = os.environ.get(MEMORY_ENV) or None, os.environ.get(MEMORY_MAX_ENV, "")
        if not root or not self.tasks or not limit.isdigit():
            return
        self.memory_root, self.memory_max = root, int(limit)
        if root == self.cgroups:  # cgroup v2: the pids cgroup has the memory controller too, where enabled
            if not os.path.exists(os.path.join(self.tasks, "memory.max")):
                return
            self.memory = self.tasks
            _write(os.path.join(self.memory, "memory.max"), limit)
            for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                if os.path.exists(os.path.join(self.memory, name)):
                    _write(os.path.join(self.memory, name), value)
            return
        self.memory = os.path.join(root, os.path.basename(self.tasks))
        os.mkdir(self.memory, 0o700)
        _write(os.path.join(self.memory, "memory.limit_in_bytes"), limit)
        if os.path.exists(os.path.join(self.memory, "memory.memsw.limit_in_bytes")):  # no swap beyond it either
            _write(os.path.join(self.memory, "memory.memsw.limit_in_bytes"), limit)

    def out_of_memory(self) -> str | None:
        """What the check is told when the kernel killed any of its processes for its memory limit, else None."""
        if not self.memory:
            return None
        counts = "memory.events" if self.memory == self.tasks else "memory.oom_control"  # v2, v1
        events = _read(os.path.join(self.memory, counts))
        kills = next((int(line.split()[1]) for line in events.splitlines()
                      if line.startswith("oom_kill ") and line.split()[1].isdigit()), 0)
        if not kills:
            return None
        return (f"ran out of its {self.memory_max / (1 << 20):g} MiB of memory (all its processes together): the "
                f"kernel killed {kills} of its processes")

    def adopt(self, pid: int) -> None:
        _jails[pid] = self

    def collect(self, note: str | None = None) -> None:
        """Copy the files the harness reads from the check's tmpfs to its folder underneath, then drop the tmpfs.

        Regular files only, read without following links and at most twice the output cap: what
        reaches the harness's disk is bytes, never a link to one of its own files. `note` (it ran out of
        its memory) ends the output, in the harness's file too (a fresh interpreter's).
        """
        found = {name: read_plain(os.path.join(self.folder, name)) for name in COLLECTED}
        said = f"\nerrorkb: the check {note}\n".encode() if note else b""
        try:
            _libc_call("umount2", self.folder.encode(), _MNT_DETACH)
        except OSError:
            return  # still covered: the harness finds nothing, and says the check did not report
        for name, data in found.items():
            if data is None:  # nothing of the check's own: the harness's file, if any, still gets the note
                _append(os.path.join(self.folder, name), said)
                continue
            try:
                fd = os.open(os.path.join(self.folder, name), _NEW_FILE, 0o600)
            except FileExistsError:  # output.txt of a fresh interpreter: the harness's own file already
                _append(os.path.join(self.folder, name), said)
                continue
            with os.fdopen(fd, "wb") as copy:
                copy.write(data + said)

    def enter(self, keep: tuple[int, ...] = (), hide_proc: bool = True, snippet: str | None = None) -> None:
        """In the forked check, before any snippet code: its own cgroup (as root), network, mounts (no
        `/proc` unless `hide_proc` is false: a device's driver may need it), user namespace, and no
        capabilities. Of the file descriptors above 2 only those in `keep` (the stream, the key's
        channel) stay open. Of the project it sees only `snippet`, its snippet's folder (by default
        the working folder the zygote gave it: that folder), and what the runtime needs
        (`show_project_part`); it works in `WORK`, writable, where the snippet folder's files read by
        their relative paths (`working_folder`)."""
        low = 3
        for fd in sorted(keep):  # the zygote's epoll set and namespace fds are not the check's business
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, _MAX_FD)
        if self.tasks:  # joined before anything runs: whatever it starts is counted too
            _write(os.path.join(self.tasks, "cgroup.procs"), "0")
        if self.memory and self.memory != self.tasks:
            _write(os.path.join(self.memory, "cgroup.procs"), "0")
        # A network of its own (a loopback and abstract sockets no other check shares), System V IPC too.
        _libc_call("unshare", _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWUTS | _CLONE_NEWNET)
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
        snippet = snippet or os.getcwd()
        show_project_part(snippet, writable=self.folder)
        if self.cgroups:  # its cgroup's limit and the other checks' cgroups: out of sight, out of reach
            _mount("tmpfs", self.cgroups, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "size=4k,mode=555")
        if self.memory_root and self.memory_root != self.cgroups:
            _mount("tmpfs", self.memory_root, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                   "size=4k,mode=555")
        os.chdir(working_folder(snippet))
        # The sandbox's root is one tmpfs every check of the zygote shares (`/`, `/run`, `/etc`'s folder): read-only
        # here, else a check could leave a module on the import path (/run/errorkb/import) or /etc/ld.so.preload
        # for the next. Its own /tmp, /dev/shm and output folder are mounts of their own, writable as before.
        _mount("none", "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _kept_flags("/"))
        proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY)  # its own uid map is still to be written
        last_cap = int(_read("/proc/sys/kernel/cap_last_cap") or 40)
        if hide_proc:  # no /proc: no /proc/self/fd/N to reopen, no /proc/self/mem, no other process's files
            _hide_proc()
        _libc_call("unshare", _CLONE_NEWUSER)
        _write("self/setgroups", "deny", proc)
        _write("self/uid_map", f"{self.uid} {self.uid} 1", proc)
        _write("self/gid_map", f"{self.gid} {self.gid} 1", proc)
        os.close(proc)
        resource.setrlimit(resource.RLIMIT_NPROC, (TASKS, TASKS))  # a fork bomb stops here (and, as root, above)
        drop_capabilities(last_cap)


def show_project_part(snippet: str, writable: str) -> None:
    """Cover each of the project's folders (`PROJECT_ENV`, set by the sandbox) with an empty read-only tmpfs,
    into which the check's `snippet` folder and what the runtime, the library and their import path need
    (`SHOWN_ENV`) are bound back, read-only, at their own paths (and its `writable` folder, as it is, should the
    harness's scratch lie there). The verdict cache keys a check by its own snippet folder: a file elsewhere in the
    project (another entry's folder, a data file under docs/) that the check could read would let a cached verdict
    rest on bytes its key does not hold. Both variables are gone from the check's environment."""
    covered = _outermost([path for path in os.environ.pop(PROJECT_ENV, "").split(os.pathsep) if path])
    shown = [path for path in os.environ.pop(SHOWN_ENV, "").split(os.pathsep) if path]
    own = [os.path.normpath(path) for folder in (snippet, writable)
           for path in dict.fromkeys([folder, os.path.realpath(folder)])]
    inside = _outermost([path for path in [*own, *shown]
                         if any(_under(path, folder) for folder in covered) and os.path.lexists(path)])
    if not covered:
        return
    links = {path: os.readlink(path) for path in inside if os.path.islink(path)}
    held = {path: os.open(path, os.O_PATH) for path in inside if path not in links}
    flags = _MS_NOSUID | _MS_NODEV
    for folder in covered:
        _mount("tmpfs", folder, "tmpfs", flags, "size=1m,mode=755")
    for path, target in links.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)
    for path, fd in held.items():
        _bind_back(fd, path)
        if path in own[2:]:  # the scratch folder: the check's output, as writable as it was
            continue
        kept = os.statvfs(path).f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)  # ST_* are the MS_* bits
        _mount("none", path, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | kept)
    for folder in covered:
        _mount("none", folder, None, _MS_REMOUNT | _MS_RDONLY | flags)


def working_folder(snippet: str, work: str = WORK) -> str:
    """`work`, made in the check's private /tmp: writable (a Trainer's `output_dir`, an `out/` it makes), with each
    entry of the `snippet` folder bound into it read-only (a link as a link), so that a relative path reads the
    snippet's own files, which the verdict's key holds (`results.keys.folder_digest`), and no write reaches them:
    the bound entries can be neither written, removed nor renamed (EROFS, EBUSY). Returns `work`."""
    names = sorted(os.listdir(snippet))  # before `work` exists: a snippet folder of /tmp (the probe's) holds it
    os.mkdir(work, 0o755)
    for name in names:
        source, target = os.path.join(snippet, name), os.path.join(work, name)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
            continue
        if os.path.isdir(source):
            os.mkdir(target, 0o755)
        else:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o400))
        _mount(source, target, None, _MS_BIND | _MS_REC)
        _mount("none", target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _kept_flags(target))
    return work


def _kept_flags(path: str) -> int:
    """The flags a read-only remount of `path` must keep (a mount's nosuid, nodev, noexec: ST_* are the MS_* bits)."""
    return os.statvfs(path).f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)


def _outermost(paths: list[str]) -> list[str]:
    """The paths (normalised) that lie in none of the others."""
    found = sorted({os.path.normpath(path) for path in paths})
    return [path for path in found if not any(_under(path, other) for other in found if other != path)]


def _hide_proc() -> None:
    """A read-only tmpfs over /proc that shows only what describes the machine (`MACHINE_FILES`: the
    runtime's CPU detection reads /proc/cpuinfo), nothing of any process. Built aside in the check's
    own /tmp while the real /proc is still there to bind from, then moved over it."""
    aside = "/tmp/.errorkb-proc"
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    os.mkdir(aside, 0o755)
    _mount("tmpfs", aside, "tmpfs", flags, "size=4k,mode=755")
    for name in MACHINE_FILES:
        if os.path.exists(f"/proc/{name}"):
            os.close(os.open(f"{aside}/{name}", os.O_CREAT | os.O_WRONLY, 0o444))
            _mount(f"/proc/{name}", f"{aside}/{name}", None, _MS_BIND)
    _mount("none", aside, None, _MS_REMOUNT | _MS_RDONLY | flags)
    _mount(aside, "/proc", None, _MS_MOVE)
    os.rmdir(aside)


def read_plain(path: str, limit: int = 2 << 20) -> bytes | None:
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


def release(pid: int) -> str | None:
    """The check `pid` was reaped: end its namespace (the kernel kills what is left), reap the timer,
    and hand the harness the check's observation and output. Returns why the check failed that only
    its jail knows (it ran out of its memory: the kernel killed one of its processes), else None; the
    words are also added to its output."""
    jail = _jails.pop(pid, None)
    if jail is None or not jail.init:
        return None
    try:
        os.kill(jail.init, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(jail.init, 0)  # returns once the namespace is empty: nothing writes any more
    except ChildProcessError:
        pass
    _libc_call("setns", _own_pid_namespace(), _CLONE_NEWPID)  # a fork into the ended namespace would fail
    note = jail.out_of_memory()
    jail.collect(note)
    if jail.memory and jail.memory != jail.tasks:
        _remove_cgroup(jail.memory)
    if jail.tasks:
        _remove_cgroup(jail.tasks)
    return note


def _remove_cgroup(path: str) -> None:
    """An emptied cgroup's folder; its last tasks may take a moment to leave it."""
    for _ in range(200):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)


def release_all() -> None:
    for pid in list(_jails):
        release(pid)


def drop_capabilities(last: int) -> None:
    """No capability left, in any set (`last`: the kernel's highest), and none to be gained by exec."""
    _libc_call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _libc_call("prctl", _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
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


def _append(path: str, data: bytes) -> None:
    """`data` at the end of a plain file of the harness's (never through a link); nothing when empty."""
    if not data:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, data)
    finally:
        os.close(fd)


def _write(path: str, text: str, folder: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY, dir_fd=folder)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def launch(result: str, wall: float, keep: tuple[int, ...], hide_proc: bool, argv: list[str], snippet: str) -> int:
    """`--isolation subprocess` inside bwrap: the fresh interpreter gets the same jail as a forked check.

    This launcher is the jail's zygote for one check: it opens the jail, forks, the child enters
    it (keeping the stream's and the key channel's write ends, `keep`, which it moves to the
    places a check's process finds them) and execs `argv`; then it mirrors the child's end (its
    exit status, or its signal) so that bwrap, and the harness, see the check's own.
    """
    jail = Jail.open(result, wall, os.path.dirname(result))
    pid = os.fork()
    if pid == 0:
        try:
            jail.enter(keep, hide_proc, snippet)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in keep]  # out of the way of the places below
            for fd in keep:
                os.close(fd)
            for place, fd in zip((STREAM_FD, KEY_FD), high, strict=False):
                os.dup2(fd, place)  # inheritable: the interpreter exec'd next finds them (it closes them itself)
                os.close(fd)
            os.execv(argv[0], argv)
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(70)
    jail.adopt(pid)
    _, status = os.waitpid(pid, 0)
    note = release(pid)
    if note is not None:  # out of its memory: never a pass, whatever its main process said; the harness reads the
        status = signal.SIGKILL  # words (`run.run_check`), the kernel's SIGKILL as when the limit ends the check
        fd = os.open(os.path.join(os.path.dirname(result), MEMORY_NOTE), _NEW_FILE, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as said:
            said.write(note)
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


def command(result: str, wall: float, keep: tuple[int, ...], hide_proc: bool, argv: list[str],
            snippet: str) -> list[str]:
    """The launcher's command line (see `launch`); `snippet`: the check's snippet folder."""
    return [sys.executable, "-m", "errorkb.verify.inside.jail", "--jail", result, f"{wall:g}",
            ",".join(map(str, keep)) or "-", "hide-proc" if hide_proc else "keep-proc", snippet, "--", *argv]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"] and len(sys.argv) == 3:
        sys.exit(probe(sys.argv[2]))
    if sys.argv[1:2] == ["--jail"] and len(sys.argv) > 8 and sys.argv[7] == "--":
        kept = tuple(int(fd) for fd in sys.argv[4].split(",") if fd != "-")
        sys.exit(launch(sys.argv[2], float(sys.argv[3]), kept, sys.argv[5] == "hide-proc", sys.argv[8:], sys.argv[6]))
    print("usage (inside bwrap, by errorkb): python -m errorkb.verify.inside.jail --probe FOLDER | "
          "--jail RESULT WALL_SECONDS FD,FD hide-proc|keep-proc SNIPPET_FOLDER -- ARGV...", file=sys.stderr)
    sys.exit(2)

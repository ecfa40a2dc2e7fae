"""The check's seccomp filter: the stream's descriptor stays where the observer writes, and stays its.

Installed in the check's process before the snippet's first line (`child.run_and_exit`), in both
isolation modes and with or without the sandbox; inherited by everything the snippet starts and
kept across `exec`. It refuses, with `EPERM`:

- `dup2`/`dup3` onto the stream's descriptor, `close` of it, `close_range` over it: the snippet
  cannot point the observer's writes at a pipe of its own, nor put one in the descriptor's place;
- `io_uring_*` (which closes and opens descriptors behind the system calls above);
- `ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`: no reading another process's memory or
  taking its descriptors (a fork of the check holds the same observer);
- `unshare`, `setns`, `mount`, `umount2`, and `clone` asking for a new namespace (`clone3`, whose
  flags a filter cannot read, says it does not exist, so the C library falls back to `clone`):
  the check stays in the namespaces its jail made, under the mounts that hide `/proc`;

and a system call of another ABI (32-bit `int 0x80`, x32) ends the process, since its numbers
would slip past the rules. A classic BPF program, assembled here (no library needed), for the
x86-64 and AArch64 kernels; elsewhere `confine` says it cannot, and the check fails closed.
"""

from __future__ import annotations

import ctypes
import errno
import platform

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_KILL_PROCESS = 0x7FFF0000, 0x80000000
_RET_ERRNO = 0x00050000
_LD_W_ABS, _JEQ, _JGE, _JGT, _JSET, _RET = 0x20, 0x15, 0x35, 0x25, 0x45, 0x06
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (the low half of each argument)
_NEW_NAMESPACES = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET

# name → number, per ABI; `None`: the ABI has no such call (AArch64 has no dup2)
_ABIS: dict[str, tuple[int, dict[str, int | None]]] = {
    "x86_64": (0xC000003E, {"dup2": 33, "dup3": 292, "close": 3, "close_range": 436, "clone": 56, "clone3": 435,
                            "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
                            "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                            "unshare": 272, "setns": 308, "mount": 165, "umount2": 166}),
    "aarch64": (0xC00000B7, {"dup2": None, "dup3": 24, "close": 57, "close_range": 436, "clone": 220, "clone3": 435,
                             "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
                             "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                             "unshare": 97, "setns": 268, "mount": 40, "umount2": 39}),
}
_REFUSED = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "io_uring_setup", "io_uring_enter",
            "io_uring_register", "unshare", "setns", "mount", "umount2")
_X32 = 0x40000000


class Unconfined(OSError):
    """The filter could not be installed here; the message says why."""


class _Program:
    """A tiny assembler: instructions with symbolic jump targets, resolved to BPF's relative offsets."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def jump(self, op: int, value: int, true: str | int, false: str | int = 0) -> None:
        self.code.append((op, true, false, value))

    def ret(self, value: int) -> None:
        self.code.append((_RET, 0, 0, value))

    def assemble(self) -> bytes:
        out = bytearray()
        for index, (op, true, false, value) in enumerate(self.code):
            jt, jf = (self._offset(index, target) for target in (true, false))
            out += op.to_bytes(2, "little") + bytes([jt, jf]) + value.to_bytes(4, "little")
        return bytes(out)

    def _offset(self, index: int, target: str | int) -> int:
        if isinstance(target, int):
            return target
        offset = self.labels[target] - index - 1
        if not 0 <= offset < 256:
            raise ValueError(f"jump to {target} out of reach")
        return offset


def program(fd: int, machine: str | None = None) -> bytes:
    """The filter for this machine's ABI, guarding descriptor `fd`."""
    arch, numbers = _ABIS[machine or platform.machine()]
    deny = _RET_ERRNO | errno.EPERM
    p = _Program()
    p.load(_ARCH)
    p.jump(_JEQ, arch, 0, "kill")
    p.load(_NR)
    if arch == _ABIS["x86_64"][0]:
        p.jump(_JGE, _X32, "kill")
    for name in _REFUSED:
        number = numbers[name]
        if number is not None:
            p.jump(_JEQ, number, "deny")
    for name, check in (("dup2", "second_is_fd"), ("dup3", "second_is_fd"), ("close", "first_is_fd"),
                        ("close_range", "range_holds_fd"), ("clone", "new_namespace"), ("clone3", "no_such_call")):
        number = numbers[name]
        if number is not None:
            p.jump(_JEQ, number, check)
    p.ret(_RET_ALLOW)
    p.label("second_is_fd")
    p.load(_ARG1)
    p.jump(_JEQ, fd, "deny", "allow")
    p.label("first_is_fd")
    p.load(_ARG0)
    p.jump(_JEQ, fd, "deny", "allow")
    p.label("range_holds_fd")  # close_range(first, last, flags): refused when first <= fd <= last
    p.load(_ARG0)
    p.jump(_JGT, fd, "allow")
    p.load(_ARG1)
    p.jump(_JGE, fd, "deny", "allow")
    p.label("new_namespace")
    p.load(_ARG0)
    p.jump(_JSET, _NEW_NAMESPACES, "deny", "allow")
    p.label("no_such_call")
    p.ret(_RET_ERRNO | errno.ENOSYS)
    p.label("allow")
    p.ret(_RET_ALLOW)
    p.label("deny")
    p.ret(deny)
    p.label("kill")
    p.ret(_RET_KILL_PROCESS)
    return p.assemble()


def confine(fd: int) -> None:
    """Install the filter in this process (and so in all it starts); raises `Unconfined` where it cannot."""
    machine = platform.machine()
    if machine not in _ABIS:
        raise Unconfined(errno.ENOSYS, f"no seccomp filter for the {machine} ABI")
    code = program(fd, machine)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise Unconfined(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    fprog = SockFprog(len(code) // 8, code)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise Unconfined(number, f"prctl(PR_SET_SECCOMP) failed: {errno.errorcode.get(number, number)}")

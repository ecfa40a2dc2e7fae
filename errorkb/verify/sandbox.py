"""The sandbox a snippet runs in: it may spoil its own verdict, nothing else.

Snippets come from strangers' pull requests and CI runs them, so every check runs inside
bubblewrap (`bwrap`, Debian's `bubblewrap`, the sandbox of Flatpak): new user, mount, PID,
network, IPC and UTS namespaces, built from what the kernel already provides.

The sandbox (`Sandbox.wrap`):

- sees the system (`/usr`, `/etc`'s loader and account files), the Python runtime, the
  virtual environment and the project **read-only**, at their own paths (tracebacks, raise
  sites and snippet paths read the same inside and out);
- imports errorkb from the harness's own package, bound alone at `/run/errorkb/import`, never
  from a folder that holds the snippets (the checkout), whatever the harness's `PYTHONPATH`; and sees of
  that package, there and at its own path, only the files the verdict's key holds (`package_shadow`); and
  of each `keyed` package (the profile's bundled implementation) only the files its target's fingerprint digests
  (`keyed_files`), wherever its top-level folder shows: the very bytes the key digested (one read, `sources`),
  each module with its bytecode compiled from them (`_bytecode`), never a `.pyc` from disk;
- does not see the verdict cache, `reports/` or `.git` (an empty read-only tmpfs covers each);
- writes only a private tmpfs `/tmp` (`HOME`, and its working folder `/tmp/work`, where its snippet
  folder's entries are bound read-only) and the one folder where the harness collects the check's output;
  the sandbox's own root is read-only to each check (`jail.py`);
- has no network, a cleared environment (a short allow-list: no tokens), a minimal `/dev`
  (read-only), and the runtime's device nodes (a GPU's) only for checks on that device;
- where the harness runs as root, shows the zygote a pids cgroup of its own (`TaskGroups`),
  in which it makes one per check: `RLIMIT_NPROC` does not hold for uid 0; and, where a memory
  controller is writable, a memory cgroup too, so that one check's processes together use at most
  `CHECK_MEMORY` (elsewhere each process alone is bounded, `RLIMIT_AS`: `memory_bound` says which);
- dies with the harness (`--die-with-parent`) and has its own session (`--new-session`).

**One check, one jail.** The warm zygote (`inside/zygote.py`) lives inside the sandbox, so a check
still costs one fork. It keeps `CAP_SYS_ADMIN` *inside* the sandbox's user namespace (never
outside it) to give each check a jail of its own before the snippet's first line
(`inside/jail.py`): its own PID namespace (whose init is the wall-clock timer), pids cgroup (as
root), network, mount, IPC, UTS and user namespaces, no `/proc` on the CPU, no capabilities.
The check's own process then hands its stream's key over and installs its seccomp filter
(`inside/child.py`). `--isolation subprocess` runs one bwrap per check instead, the same mounts,
and in it a launcher (`jail.launch`) that jails the fresh interpreter exactly as the zygote jails
a fork. docs/threat-model.md says what each part guarantees.

Whether the sandbox can be created here is measured, not assumed (`probe`): a missing `bwrap`,
a kernel without unprivileged user namespaces, Ubuntu's AppArmor restriction, a container's
seccomp profile. `choose` then says so loudly and the report records the isolation per check
(`fork+bwrap` or plain `fork`); `--sandbox require` (CI) refuses to run without it.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import json
import marshal
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errorkb.core.interpreter import python_command
from errorkb.plugs import Runtime
from errorkb.verify.inside.jail import MEMORY_ENV, MEMORY_MAX_ENV, PROJECT_ENV, SHOWN_ENV, TASKS_ENV
from errorkb.verify.inside.library import package_dirs
from errorkb.verify.modes import SandboxUnavailable as SandboxUnavailable
from errorkb.verify.sources import Files, Keyed, read_keyed, verdict_bytes
from errorkb.verify.sources import keyed_files as keyed_files

MODES = ("auto", "require", "off")
LABEL = "bwrap"
_JAIL_CAPS = ("CAP_SYS_ADMIN", "CAP_SETFCAP")  # namespaces and mounts per check; mapping uid 0 as root
_PACKAGES = ("errorkb",)  # wherever it is installed (editable too); the runtime's and the library's are added
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
        "localtime", "timezone", "hosts", "host.conf", "mime.types")
# Not PYTHONPATH: the sandbox's import path is errorkb's own (`_IMPORT`), never a checkout's folder.
_ENV_NAMES = ("PATH", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "VIRTUAL_ENV",
              "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUTF8")
_ENV_PREFIXES = ("LC_", "OMP_", "MKL_", "KMP_", "OPENBLAS_")  # the runtime's and the library's are added
_ENV_SECRETS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY", "AUTH")
_PACKAGE = Path(__file__).resolve().parents[1]  # the errorkb package the harness runs
_IMPORT = "/run/errorkb/import"  # inside: a folder that holds that package and nothing else
_TASKS = "/run/errorkb/tasks"  # inside: the pids cgroup the zygote makes each check's in (harness as root)
_MEMORY = "/run/errorkb/memory"  # inside: the memory cgroup it makes each check's in (cgroup v1)
CHECK_MEMORY = 8 << 30  # what one check's processes together may use, where a memory cgroup holds it
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
    private: tuple[str, ...] = ()  # folders nothing may be imported from (the snippets), nor from above them
    check_memory: int = CHECK_MEMORY  # bytes one check may use, all its processes together (a memory cgroup)
    # folders of which each check sees its own snippet folder only (`jail.show_project_part`)
    project: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()  # what the system, the runtime and the library need: shown wherever it lies
    # (package, its top-level folder, the files of it a check is shown and keyed on): the run's one read of them
    # (`sources.read_keyed`), the bytes its target's fingerprint digests; never read again
    keyed: tuple[Keyed, ...] = ()

    def wrap(self, argv: list[str], *, device: str, writable: list[Path], jails: bool = False,
             python: Path | None = None, also: Sequence[Path] = (), absent: Sequence[str] = ()) -> list[str]:
        """`argv` run inside the sandbox; `writable` folders (the harness's scratch) bound read-write.

        With `jails`, `argv` (a zygote, or the launcher of one fresh interpreter) keeps the
        capabilities it needs to jail each check (`Jail`), inside the sandbox's user namespace
        only; the checks themselves run with none. `python`, another interpreter than this one
        (a release's matrix environment), is shown read-only too and finds errorkb on its path; so
        are the folders in `also` (a stem's: the other environments it forks zygotes for). The files
        and folders in `absent` (`requirements.absence`: a `without:` need's distribution) do not exist
        inside (`_absent_binds`).
        """
        tasks = jails and os.geteuid() == 0  # the checks' pids cgroups (`TaskGroups`)
        command = [self.bwrap, *_namespaces(cgroup=not tasks), "--die-with-parent", "--new-session",
                   "--hostname", "errorkb-sandbox", "--cap-drop", "ALL"]
        for capability in _JAIL_CAPS if jails else ():
            command += ["--cap-add", capability]
        command += ["--proc", "/proc", "--dev", "/dev"]
        command += self._device_binds(device)
        command += ["--remount-ro", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        environment = [*_environment_of(python), *(str(folder) for folder in also)]
        command += _read_only_binds(tuple(sorted({*self.read_only, *environment})))
        command += _absent_binds(absent)
        for path in self.hidden:  # after the project: covers the cache and reports inside it
            command += ["--tmpfs", path, "--remount-ro", path]
        for folder in writable:
            command += ["--bind", str(folder), str(folder)]
        env = self.env(device)
        # The very errorkb the harness runs, for every interpreter (a release's environment too), in a
        # folder that holds nothing else; then the harness's own PYTHONPATH, less any folder from which a
        # snippet folder's files would import (the checkout, or the snippets folder itself).
        # Of errorkb, a check sees only the files its verdict's key holds (`package_shadow`): at the import
        # folder, and over the package wherever else it shows (its installed path, a checkout on the path).
        shadow = package_shadow()
        command += ["--ro-bind", shadow, f"{_IMPORT}/errorkb"]
        for place in _package_places([*self.read_only, *environment]):
            command += ["--ro-bind", shadow, place]
        # Of a keyed package (the bundled implementation), the files its target's fingerprint digests (the bytes of
        # the one read it holds), at each place its top-level folder shows: never its data files, a build copy, a
        # `.pyc` on disk.
        for _, top, files in self.keyed:
            for place in _places([top], [*self.read_only, *environment]):
                command += ["--ro-bind", _shadow(files), place]
        env["PYTHONPATH"] = os.pathsep.join([_IMPORT, *self.import_path()])
        if self.project:  # each check sees of the project its own snippet folder and what the runtime needs
            env.update({PROJECT_ENV: os.pathsep.join(self.project),
                        SHOWN_ENV: os.pathsep.join(self.shown(environment))})
        if tasks:  # RLIMIT_NPROC does not hold for uid 0: a pids cgroup per check
            command += ["--bind", str(task_groups().new()), _TASKS]
            env[TASKS_ENV] = _TASKS
            memory = memory_groups()
            if memory.problem() is None:  # a memory cgroup per check, beside the pids one
                command += ["--bind", str(memory.new()), _MEMORY]
                env.update({MEMORY_ENV: _MEMORY, MEMORY_MAX_ENV: str(self.check_memory)})
            elif memory.in_pids:  # cgroup v2: the pids cgroups carry it, where their controller is on
                env.update({MEMORY_ENV: _TASKS, MEMORY_MAX_ENV: str(self.check_memory)})
        command += ["--clearenv", *_setenv(env), "--chdir", "/tmp", "--", *argv]
        return command

    def shown(self, environment: Sequence[str] = ()) -> list[str]:
        """What a check sees of the project besides its own snippet folder: what the system, the runtime, the
        library (`needs`), another interpreter's `environment` and the import path need that lies inside it;
        never a folder that is, holds or lies in a private one (the snippets: another entry's folder)."""
        wanted = [*self.needs, *environment, *(found for entry in self.import_path()
                                                for found in (entry, os.path.realpath(entry)))]
        return sorted({os.path.normpath(path) for path in wanted
                       if any(_within(path, folder) and path != folder for folder in self.project)
                       and not any(_within(path, private) or _within(private, path) for private in self.private)})

    def import_path(self) -> list[str]:
        """The harness's PYTHONPATH entries a check may import from: none that is a private folder, lies
        inside one, or holds one (`import snippets.<id>.lib.x` from the checkout)."""
        kept = []
        for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
            if not entry or not os.path.isabs(entry):
                continue
            folder = os.path.realpath(entry)
            if any(_within(folder, private) or _within(private, folder) for private in self.private):
                continue
            kept.append(entry)
        return kept

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


@functools.cache
def package_shadow() -> str:
    """A folder holding of errorkb exactly the files the verdict's key holds (`verdict_sources`), the very bytes
    its fingerprint digests (`cache.verifier_fingerprint`): what a check is shown in place of the package. The
    whole package (the pages' data, the lookup's rules, the CLI) would let a snippet that reads them pass on bytes
    its key does not hold, a cached pass replayed after they changed. Made once per process, of the process's one
    read (`sources.verdict_bytes`): the key and the shadow never read the files apart."""
    return _shadow(verdict_bytes())


@functools.cache
def _shadow(files: Files) -> str:
    """A read-only view's source: a folder holding exactly `files` ((path in it, bytes)), and the bytecode of each
    module among them compiled from those bytes (`_bytecode`); made once per process."""
    root = tempfile.mkdtemp(prefix="errorkb-shadow-")
    atexit.register(shutil.rmtree, root, True)
    for name, data in files:
        target = Path(root, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if name.endswith(".py"):
            _bytecode(target, data)
    return root


def _bytecode(source: Path, data: bytes) -> None:
    """Beside `source` (in the shadow), its `__pycache__` file compiled from `data`, its very bytes: else each fresh
    interpreter (subprocess mode, a zygote) compiles errorkb's verdict sources and the bundled package anew
    (benchmarks/shadow_bytecode.py). A checked hash-based pyc (PEP 552): the import system loads it only while the
    source it is shown hashes as `data` did, so it can never run other code than the keyed bytes (a `.pyc` on disk
    is never shown: the key holds no bytecode). This interpreter's tag and magic number; another Python finds none
    of its own and compiles the source, as before. A source that does not compile gets none (its check fails as
    it would)."""
    try:
        code = compile(data, str(source), "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return
    flags = 0b11  # hash-based, checked
    pyc = importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little") + importlib.util.source_hash(data) + \
        marshal.dumps(code)
    target = Path(importlib.util.cache_from_source(str(source), optimization=""))
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(pyc)


def _package_places(shown: Sequence[str]) -> list[str]:
    """Where errorkb's package lies inside what the sandbox shows (`shown`): its installed path and the
    harness's, each under its own and its resolved name."""
    return _places([_PACKAGE, *package_dirs(_PACKAGES[0])], shown)


def _places(folders: Sequence[Path | str], shown: Sequence[str]) -> list[str]:
    """Each of `folders` that lies inside what the sandbox shows (`shown`), under its own and its resolved name; never
    a link itself (bwrap cannot bind onto one: a PYTHONPATH folder of links to a checkout's packages), which leads to
    its resolved name, a place too."""
    places = {os.path.normpath(found) for path in folders
              for found in (str(path), os.path.realpath(path)) if os.path.isdir(found) and not os.path.islink(found)}
    return sorted(path for path in places if any(_within(path, folder) for folder in shown))


MEMORY_KINDS = ("cgroup v2", "cgroup v1", "rlimit", "none")  # which bound a check's memory had: `memory_kind`


def memory_kind(sandbox: Sandbox | None, device: str) -> str:
    """Which memory bound a check on `device` runs under here (`MEMORY_KINDS`): a memory cgroup per check (v2, where
    its pids cgroup carries the memory controller; v1, a hierarchy of its own), else each process alone on the CPU
    (RLIMIT_AS, which a device's driver cannot run under), else none. The record's `environment` keeps it."""
    if sandbox is not None and os.geteuid() == 0 and task_groups().problem() is None:
        if memory_groups().problem() is None:
            return "cgroup v1"
        if memory_groups().in_pids and task_groups().memory:
            return "cgroup v2"
    return "rlimit" if device == "cpu" else "none"


def memory_bound(sandbox: Sandbox | None, per_process: int) -> str:
    """Which memory limit a CPU check runs under here, in words (the run's information, the threat model)."""
    kind = memory_kind(sandbox, "cpu")
    if sandbox is not None and kind.startswith("cgroup"):
        return (f"{sandbox.check_memory / (1 << 20):g} MiB per check, all its processes together (a {kind} memory "
                f"cgroup); {per_process / (1 << 20):g} MiB of address space per process (RLIMIT_AS)")
    why = "not running as root" if os.geteuid() != 0 or sandbox is None else memory_groups().problem()
    return (f"{per_process / (1 << 20):g} MiB of address space per process (RLIMIT_AS; no memory cgroup per check: "
            f"{why if sandbox is not None else 'no sandbox'})")


def _namespaces(*, cgroup: bool) -> list[str]:
    """bwrap's `--unshare-all` (user, IPC, PID, network, UTS and, where it can, cgroup), less the cgroup
    namespace where the zygote moves checks into the harness's pids cgroups: on a cgroup v2 mounted with
    `nsdelegate` (systemd's default) a cgroup namespace is a delegation boundary, and those cgroups lie
    outside the harness's own, so from inside one every move fails (ENOENT)."""
    return ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            *(["--unshare-cgroup-try"] if cgroup else [])]


def _environment_of(python: Path | None) -> list[str]:
    """The virtual environment of another interpreter (its prefix, and what it links to), and each it is
    layered on (`paths.environment_path`: the environment of a snippet's pins, on a release's)."""
    if python is None or Path(python) == Path(sys.executable):
        return []
    from errorkb.verify.paths import environment_path

    prefixes = [Path(python).parent.parent, *(Path(site).parents[2] for site in environment_path(Path(python))[1:-1])]
    return [str(folder) for prefix in prefixes if prefix.is_dir()
            for folder in dict.fromkeys([prefix, prefix.resolve()])]


def choose(mode: str, read_only: list[Path], hidden: list[Path], *, warn: Any = None,
           runtime: Runtime | None = None, packages: tuple[str, ...] = (),
           env_prefixes: tuple[str, ...] = (), private: Sequence[Path] = (),
           keyed: Sequence[str | Keyed] = ()) -> Sandbox | None:
    """The sandbox for `--sandbox MODE`, or None to run without one; never silently. Of each package in `keyed` (the
    bundled implementation) a check sees only the files its target's fingerprint digests: a name is read here
    (`keyed_files`); a read already made (`sources.read_keyed`, the engine's: its key's bytes) is shown as it is.

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
        chosen = _sandbox(shutil.which("bwrap") or "bwrap", read_only, hidden, runtime, packages, env_prefixes, private,
                          keyed)
        from errorkb.verify.run import MEMORY_LIMIT  # run imports this module

        if os.geteuid() == 0 and "per check" not in (bound := memory_bound(chosen, MEMORY_LIMIT)):
            say(f"errorkb: memory is bounded per process, not per check: {bound}")  # as root, it could be
        return chosen
    if mode == "require":
        raise SandboxUnavailable(reason)
    say(f"errorkb: WARNING: verifying WITHOUT a sandbox: {reason}. Snippets run with your permissions: they "
        "can write the project, the verdict cache and reports/, and reach the network. Reports record "
        "isolation 'fork' or 'subprocess' instead of '+bwrap'. CI uses --sandbox require.")
    return None


def candidate(mode: str, read_only: list[Path], hidden: list[Path], *, runtime: Runtime | None = None,
              packages: tuple[str, ...] = (), env_prefixes: tuple[str, ...] = (),
              private: Sequence[Path] = (), keyed: Sequence[str | Keyed] = ()) -> Sandbox | None:
    """The sandbox `choose` returns where the probe passes, without running the probe; None for `off`
    or where it surely cannot be made (no bwrap; as root, no pids cgroup).

    For a warm zygote to start importing the runtime in it while the probe runs (the probe costs a
    bwrap and an interpreter): the harness sends a zygote no check before `choose` said yes, and
    ends it if `choose` says anything else, so no snippet ever runs in a sandbox the probe did not pass.
    """
    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}; known: {', '.join(MODES)}")
    bwrap = shutil.which("bwrap")
    if mode == "off" or bwrap is None or (os.geteuid() == 0 and task_groups().problem() is not None):
        return None
    return _sandbox(bwrap, read_only, hidden, runtime, packages, env_prefixes, private, keyed)


def _sandbox(bwrap: str, read_only: list[Path], hidden: list[Path], runtime: Runtime | None,
             packages: tuple[str, ...], env_prefixes: tuple[str, ...], private: Sequence[Path],
             keyed: Sequence[str | Keyed] = ()) -> Sandbox:
    project = {os.path.normpath(found) for path in read_only for found in (str(path), os.path.realpath(path))
               if os.path.isdir(found)}
    read = tuple(one for one in keyed if not isinstance(one, str))  # read by the caller: its key's bytes
    read += read_keyed([name for name in keyed if isinstance(name, str)])  # read here, once
    return Sandbox(bwrap, runtime_paths(read_only, packages), tuple(str(path) for path in hidden if path.is_dir()),
                   runtime=runtime, env_prefixes=(*env_prefixes, *(runtime.env_prefixes if runtime else ())),
                   private=tuple(os.path.realpath(path) for path in private), project=tuple(sorted(project)),
                   needs=runtime_paths((), packages, outermost=False), keyed=read)


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


def _absent_binds(absent: Sequence[str]) -> list[str]:
    """Binds under which the paths in `absent` do not exist: each folder that holds one becomes an
    empty read-only tmpfs into which every other entry of it is bound back, read-only, outer folders
    first. An empty folder or file left in the place of a package would still import (a namespace
    package): this leaves no name behind."""
    hidden = {os.path.normpath(path) for path in absent}
    hidden = {path for path in hidden if not any(_within(path, other) and path != other for other in hidden)}
    binds: list[str] = []
    for folder in sorted({os.path.dirname(path) for path in hidden}, key=lambda path: (path.count("/"), path)):
        binds += ["--tmpfs", folder]
        for name in sorted(os.listdir(folder)):
            inner = os.path.join(folder, name)
            if inner not in hidden:
                binds += ["--symlink", os.readlink(inner), inner] if os.path.islink(inner) \
                    else ["--ro-bind", inner, inner]
        binds += ["--remount-ro", folder]
    return binds


def runtime_paths(extra: list[Path] | tuple[Path, ...] = (), packages: tuple[str, ...] = (), *,
                  outermost: bool = True) -> tuple[str, ...]:
    """What a check must read: the system, Python, the environment, errorkb, the runtime's and the
    library's `packages`, `extra`.

    Each path also under its resolved name (a venv's python is a link into pyenv, say), minus
    paths already inside another one. A search path as broad as `/`, `/tmp` or a folder holding
    the home directory (`PYTHONPATH=/`, say) is left out: it would show the host's secrets. Without
    `outermost`, a path inside another one stays too (what the jail shows of a project: `Sandbox.needs`).
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
    return tuple(sorted(path for path in found if not outermost or not _inside_another(path, found)))


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


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
    if os.geteuid() == 0 and (why := task_groups().problem()) is not None:
        return why
    with tempfile.TemporaryDirectory(prefix="errorkb-probe-") as folder:
        check = Path(folder) / "check"
        check.mkdir()
        sandbox = Sandbox(bwrap, runtime_paths())
        argv = python_command(sys.executable, "-m", "errorkb.verify.inside.jail", "--probe", str(check))
        try:
            done = subprocess.run(sandbox.wrap(argv, device="cpu", writable=[Path(folder)], jails=True),
                                  capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap could not be run: {error}"
        seen = (check / "output.txt").read_text() if (check / "output.txt").exists() else ""
        if done.returncode == 0 and seen and json.loads(seen).get("network") == "unreachable":
            return None
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"bwrap cannot create the sandbox here ({said}){_hint(said)}"


# bwrap's words when a folder the check must read could not be made or bound inside the sandbox: a path problem, not
# one of namespaces (a virtual environment reached through a link printed "Can't mkdir ...", and was blamed on seccomp)
_PATH_TROUBLE = ("Can't mkdir", "Can't bind mount", "Can't create file", "Can't find source path", "No such file")


def _hint(said: str = "") -> str:
    """What usually stands in the way, from what bwrap `said` and what this machine says about itself."""
    if any(words in said for words in _PATH_TROUBLE):
        return ("; a folder the check reads could not be set up inside the sandbox: is the interpreter, its "
                "environment or the project reached through a symbolic link? Run it by its real path")
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


# -- the task limit where the harness runs as root -------------------------------------------------


class TaskGroups:
    """The cgroups of one controller this harness makes, one per sandbox that jails checks (its zygote makes one
    per check below it). `pids`: RLIMIT_NPROC does not hold for uid 0, a cgroup's `pids.max` does. `memory`: one
    limit for all of a check's processes, where RLIMIT_AS bounds each alone. Found on the machine's own hierarchy
    of the controller (cgroup v1's, or v2's with it), removed when the harness exits, and those of a harness that
    died before removing them, when the next starts. On cgroup v2 the pids cgroups carry the memory limit too
    (`in_pids`, and `memory` once enabled): a process is in one cgroup there."""

    def __init__(self, controller: str = "pids") -> None:
        self.controller = controller
        self.lock = threading.Lock()
        self.count = 0
        self.parent: Path | None = None
        self.why: str | None = None
        self.v2 = False
        self.memory = False  # pids on v2 with the memory controller: it is enabled beside pids
        self.in_pids = False  # memory on v2: the pids cgroups carry it (a process is in one cgroup there)

    def problem(self) -> str | None:
        """None when a check's limit can hold here as root; else why not, with the fix."""
        with self.lock:
            self._parent()
        return self.why

    def new(self) -> Path:
        with self.lock:
            parent = self._parent()
            if parent is None:
                raise SandboxUnavailable(self.why or f"no {self.controller} cgroup")
            self.count += 1
            folder = parent / f"sandbox-{self.count}"
            folder.mkdir(mode=0o700)
            if self.v2:
                (folder / "cgroup.subtree_control").write_text(self._enabled())
            return folder

    def _enabled(self) -> str:
        return " ".join(f"+{name}" for name in (self.controller, *(["memory"] if self.memory else [])))

    def _parent(self) -> Path | None:
        if self.parent is not None or self.why is not None:
            return self.parent
        found = _hierarchy(self.controller)
        if found is None:
            self.why = (f"running as root, and this machine shows no {self.controller} cgroup hierarchy: "
                        + _CONTROLLER_WHY[self.controller])
            return None
        mount, self.v2 = found
        if self.controller == "memory" and self.v2:  # the pids cgroups hold it, where they could enable it
            self.why, self.in_pids = "cgroup v2: the pids cgroups could not enable the memory controller", True
            return None
        self.memory = self.v2 and "memory" in _read(str(mount / "cgroup.controllers")).split()
        prefix = "errorkb-" if self.controller == "pids" else f"errorkb-{self.controller}-"
        for stale in mount.glob(f"{prefix}*"):
            if stale.name.removeprefix(prefix).isdigit() and not _alive(stale.name.removeprefix(prefix)):
                _remove_tree(stale)
        parent = mount / f"{prefix}{os.getpid()}"
        try:
            parent.mkdir(mode=0o700, exist_ok=True)
            if self.v2 and self.memory:
                try:
                    (parent / "cgroup.subtree_control").write_text(self._enabled())
                except OSError:  # pids alone, then: each process bounded alone (`memory_bound` says so)
                    self.memory = False
            if self.v2:
                (parent / "cgroup.subtree_control").write_text(self._enabled())
            if not self.v2 and not (parent / _CONTROLLER_FILE[self.controller]).exists():
                raise OSError(f"no {_CONTROLLER_FILE[self.controller]} in a new cgroup")
        except OSError as error:
            self.why = (f"running as root, and the {self.controller} cgroup {mount} is not writable here ({error}): "
                        + _CONTROLLER_WHY[self.controller])
            self.memory = False
            return None
        atexit.register(_remove_tree, parent)
        self.parent = parent
        return parent


_CONTROLLER_FILE = {"pids": "pids.max", "memory": "memory.limit_in_bytes"}
_CONTROLLER_WHY = {
    "pids": "a check's task limit (RLIMIT_NPROC) does not hold for uid 0; run errorkb as another user, or mount "
            "the pids cgroup controller",
    "memory": "each of a check's processes is bounded alone (RLIMIT_AS), not the check; mount the memory cgroup "
              "controller to bound the check",
}


@functools.cache
def task_groups() -> TaskGroups:
    return TaskGroups("pids")


@functools.cache
def memory_groups() -> TaskGroups:
    return TaskGroups("memory")


def _hierarchy(controller: str) -> tuple[Path, bool] | None:
    """(mount point, whether it is cgroup v2) of the hierarchy that has `controller`."""
    found = None
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if len(fields) < 5 or len(after) < 3:
            continue
        point = Path(re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal.group(1), 8)), fields[4]))
        if after[0] == "cgroup" and controller in after[2].split(","):
            return point, False
        if after[0] == "cgroup2" and controller in _read(str(point / "cgroup.controllers")).split():
            found = (point, True)
    return found


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _remove_tree(folder: Path) -> None:
    """A cgroup folder and those below it (rmdir only: a cgroup's files go with its folder)."""
    for inner in sorted((path for path in folder.rglob("*") if path.is_dir()), key=lambda p: -len(p.parts)):
        try:
            inner.rmdir()
        except OSError:
            pass
    try:
        folder.rmdir()
    except OSError:
        pass

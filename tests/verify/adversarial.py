"""The adversarial fixture, run as a stranger's pull request would be: in a throwaway copy, with probes.

`Workspace` copies the fixture (and the errorkb package, which the CLI then imports through
PYTHONPATH) into a temporary folder, so a snippet that escapes damages only copies. It adds
honest *control* entries right after the attacks that threaten their neighbours (a killed
zygote, a forging daemon), seeds a verdict cache and a standing report for the attacks to
rewrite, and runs a TCP listener on 127.0.0.1 for the network attacks to find.

`Workspace.verify` runs `errorkb verify` as a subprocess while this process is a child
subreaper, so whatever the run leaves running is re-parented here and found; `snapshot`
records what must not change (the cache beyond the harness's own records, reports/, the
project's files, errorkb's source, site-packages).

The run's Python is an environment of its own (`tests.lean.lean_environment`): this one's packages,
hard-linked, less the optional backends no attack uses (`UNUSED_BACKENDS`) and this project's own tools
(`TOOLS`).
"""

from __future__ import annotations

import compileall
import ctypes
import hashlib
import json
import os
import shutil
import signal
import site
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.lean import (
    TOOLS as TOOLS,  # re-exported, as UNUSED_BACKENDS and without_tools: test_adversarial reads them here
)
from tests.lean import UNUSED_BACKENDS as UNUSED_BACKENDS
from tests.lean import lean_environment
from tests.lean import site_packages as _site_packages
from tests.lean import without_tools as without_tools
from tests.processes import sigint_parent

ADVERSARIAL = Path(__file__).resolve().parent.parent / "fixtures" / "adversarial_kb"
BROKEN = Path(__file__).resolve().parent.parent / "fixtures" / "broken_kb"
REPO_PACKAGE = Path(__file__).resolve().parent.parent.parent / "errorkb"
# Attacks that reach for their neighbours (the zygote, other checks' files, the CLI): an honest
# entry is verified right after each, and must still pass.
CONTROLLED = ("kill-the-cli", "kill-the-zygote", "malformed-observation", "setsid-daemon", "zygote-pipe-garbage",
              "forged-observation")
PLANTED = ("errorkb_adversarial_fake_cuda.pth", "sitecustomize.py")  # what planted-startup-hook writes
_PR_SET_CHILD_SUBREAPER = 36
# The subprocess run's 168 checks are 168 fresh interpreters: 1,120 s of CPU with hqq installed (CI, 3da1a5d),
# 481 s without (1aff973); `lean_environment` leaves out `UNUSED_BACKENDS` (tests/lean.py).


def answer_key() -> dict[str, dict[str, dict]]:
    """entry → role → {"outcome", "reason" (regex)}."""
    return yaml.safe_load((ADVERSARIAL / "expected.yml").read_text(encoding="utf-8"))


def control_ids() -> list[str]:
    return [f"{attack}-control" for attack in CONTROLLED]


class Listener:
    """A TCP listener on this machine's loopback that counts who reached it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.reached: list[bytes] = []
        self.heard = threading.Event()  # set once something reached it: a test waits on it, never on a clock
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.reached.append(connection.recv(1024) or b"(connected)")
                except OSError:
                    self.reached.append(b"(connected)")
                self.heard.set()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.server.close()


@dataclass
class Outcome:
    """One `errorkb verify` run: its exit, its report, and what it left running."""

    returncode: int | None
    report: dict | None
    stderr: str
    leaked: list[str] = field(default_factory=list)  # "pid cmdline" of processes the run left behind
    timed_out: bool = False

    @property
    def records(self) -> dict[str, dict]:
        return {record["id"]: record for record in (self.report or {}).get("checks", [])}


class Workspace:
    def __init__(self, folder: Path, python: Path | None = None):
        """A workspace in `folder`; `python`: a run environment made already (`run_environment`), for probes that
        run no attack (an attack run makes its own, so that no run starts in what another run's snippets reached)."""
        self.folder = folder
        self.kb = folder / "kb"
        self.package = folder / "package"
        self.out = folder / "out"
        shutil.copytree(ADVERSARIAL, self.kb, ignore=shutil.ignore_patterns("expected.yml", "__pycache__"))
        shutil.copytree(REPO_PACKAGE, self.package / "errorkb", ignore=shutil.ignore_patterns("__pycache__"))
        # Compiled once here, before the first snapshot (which then holds the .pyc files too): else each fresh
        # interpreter of the run compiles what it imports from the copy anew where PYTHONDONTWRITEBYTECODE is set
        # (and where it is not, the run's own writes into the copy would read as damage).
        compileall.compile_dir(str(self.package), quiet=1)
        self.out.mkdir()
        self._python: Path | None = python
        # The CLI runs from this folder (never the repository: `python -m` puts the working folder first
        # on sys.path) and imports the copy of errorkb, which is all an escaped snippet could patch.
        self.env = dict(os.environ, PYTHONPATH=str(self.package))
        imported = subprocess.run([sys.executable, "-c", "import errorkb; print(errorkb.__file__)"], env=self.env,
                                  cwd=self.folder, capture_output=True, text=True, check=True).stdout.strip()
        if not imported.startswith(str(self.package)):
            raise RuntimeError(f"the CLI would import errorkb from {imported}, not from the copy in {self.package}")
        self._add_controls()
        self._seed()
        self.listener = Listener()
        (self.kb / "snippets" / "reach-network" / "listener-port.txt").write_text(str(self.listener.port))

    def _add_controls(self) -> None:
        honest = (BROKEN / "docs/errors/transformers/good-head-dim.yml").read_text(encoding="utf-8")
        for entry_id in control_ids():
            (self.kb / "docs/errors/transformers" / f"{entry_id}.yml").write_text(
                honest.replace("id: good-head-dim", f"id: {entry_id}"), encoding="utf-8")
            folder = self.kb / "snippets" / entry_id
            shutil.copytree(BROKEN / "snippets" / "good-head-dim", folder)
            for snippet in folder.glob("*.py"):  # a text of its own: a cache key of its own
                snippet.write_text(f"# honest control for {entry_id}\n" + snippet.read_text(), encoding="utf-8")

    def _seed(self) -> None:
        """A verdict cache and a standing report that the attacks will try to rewrite."""
        cache = self.kb / ".errorkb-cache" / "verify"
        cache.mkdir(parents=True)
        for digit in "abc":
            (cache / f"{digit * 64}.json").write_text(json.dumps({"outcome": "fail", "reason": "seeded"}))
        (self.kb / "reports").mkdir()
        (self.kb / "reports" / "latest.json").write_text(json.dumps(
            {"schema": 1, "verifier": "1", "created": "2026-01-01T00:00:00+00:00", "environment": {},
             "targets": {}, "summary": {"pass": 0, "fail": 1, "not-run": 0}, "run": None,
             "checks": [{"id": "seeded::before[bundled-cpu]", "entry": "seeded", "outcome": "fail"}]}))

    @property
    def python(self) -> Path:
        """The run's interpreter: `lean_environment`'s less `TOOLS`, made on first use (the probes' tests need
        none)."""
        if self._python is None:
            self._python = run_environment(self.folder / "env")
        return self._python

    @property
    def site(self) -> Path | None:
        """The run's own site-packages, once made: what a snippet that escaped would plant a hook in."""
        return None if self._python is None else _site_packages(self._python.parent.parent)

    def verify(self, *, isolation: str, sandbox: str, ids: list[str] | None = None, cache: bool = True,
               targets: tuple[str, ...] = ("bundled", "upstream"), timeout_per_check: float = 10,
               timeout: float = 3000) -> Outcome:
        """`errorkb verify` on the copy, cpu; whatever it leaves running is found and ended."""
        report = self.out / f"report-{isolation}-{sandbox}-{time.monotonic_ns()}.json"
        chosen = [argument for target in targets for argument in ("--target", target)]
        # SIGINT as at a terminal, whatever started the suite (a background job inherits it ignored, and the
        # attack that interrupts the CLI would then fail to land for a reason that is not the containment's)
        command = [*sigint_parent(False), str(self.python), "-m", "errorkb.cli", "--root", str(self.kb), "verify",
                   *(ids or []),
                   *chosen, "--device", "cpu", "--jobs", "2",
                   "--isolation", isolation, "--sandbox", sandbox, "--report", str(report),
                   "--timeout", str(timeout_per_check)]
        if not cache:
            command.append("--no-cache")
        before = set(_children(os.getpid()))
        _subreaper(True)
        try:
            process = subprocess.Popen(command, env=self.env, cwd=self.folder, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                       start_new_session=True)
            timed_out = False
            try:
                _, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(process.pid, signal.SIGKILL)
                _, stderr = process.communicate()
            time.sleep(0.5)  # let orphans be re-parented to us
            leaked = _end_leftovers(before)
        finally:
            _subreaper(False)
        data = json.loads(report.read_text()) if report.exists() else None
        return Outcome(process.returncode, data, stderr, leaked, timed_out)

    def close(self) -> None:
        self.listener.close()
        remove_planted(self)


def run_environment(folder: Path) -> Path:
    """A run's environment at `folder`, its own (`lean_environment`: this one's packages, hard-linked, less
    `UNUSED_BACKENDS` and `TOOLS`); its python."""
    return lean_environment(folder)


def _subreaper(on: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid → (parent pid, state, command line) of every process this machine shows."""
    found = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        found[int(name)] = (int(fields[1]), fields[0], cmdline.strip())
    return found


def _children(pid: int) -> list[int]:
    return [child for child, (parent, _, _) in _processes().items() if parent == pid]


def _end_leftovers(before: set[int]) -> list[str]:
    """Processes the run left behind (re-parented to us), with their descendants: described, killed, reaped."""
    processes = _processes()
    leaked = [pid for pid in _children(os.getpid()) if pid not in before]
    found, queue = [], list(leaked)
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue += [child for child, (parent, _, _) in processes.items() if parent == pid]
    described = [f"{pid} {processes[pid][2][:160]}" for pid in found if processes.get(pid, (0, "Z"))[1] != "Z"]
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in leaked:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return described


def tree(folder: Path, *, contents: bool = True) -> dict[str, tuple]:
    """Every file under `folder`: its size and mtime, and (small files) a hash of its bytes."""
    found = {}
    if not folder.exists():
        return found
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if contents and stat.st_size < 1 << 20 else None
        found[path.relative_to(folder).as_posix()] = (stat.st_size, stat.st_mtime_ns, digest)
    return found


def site_folders(workspace: Workspace | None = None) -> list[Path]:
    """Where a planted startup hook would run for every later Python: this environment's, the base's and
    the workspace's own."""
    base = _site_packages(Path(sys.base_prefix))
    own = [str(workspace.site)] if workspace is not None and workspace.site is not None else []
    return sorted({Path(folder) for folder in [*site.getsitepackages(), str(base), *own] if Path(folder).is_dir()})


def snapshot(workspace: Workspace) -> dict[str, dict]:
    """What no snippet may change. The cache is compared separately: the harness itself writes it."""
    workspace.python  # the run's environment is made before the first snapshot, so that both list it
    kb = workspace.kb
    return {
        "reports/": tree(kb / "reports"),
        "project files": {name: value for name, value in tree(kb).items()
                          if not name.startswith((".errorkb-cache/", "reports/"))},
        "errorkb package (the copy the CLI ran)": tree(workspace.package),
        "errorkb package (the repository's)": tree(REPO_PACKAGE, contents=False),
        "site-packages": {f"{folder}/{name}": value for folder in site_folders(workspace)
                          for name, value in _listing(folder).items()},
    }


def _listing(folder: Path) -> dict[str, tuple]:
    """Names and mtimes under site-packages (contents would take minutes: torch alone is thousands of files)."""
    found = {}
    for root, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in files:
            path = os.path.join(root, name)
            try:
                found[os.path.relpath(path, folder)] = (os.stat(path).st_mtime_ns,)
            except OSError:
                pass
    return found


def _as_cached(record: dict, cached: dict, verifier: str | None) -> dict:
    """`record`, from the run's report, as the verdict cache holds it: the report stamps the run's records with who
    judged them (`verifier`, `errorkb`: `new_report`) after the cache stored them, and names a record's verifier only
    where it is not the report's own (`Report.text`). Every field the check observed must still be equal."""
    expected = {key: value for key, value in record.items() if key in cached or key not in ("verifier", "errorkb")}
    if "verifier" in cached:
        expected.setdefault("verifier", verifier)
    return expected


def cache_damage(workspace: Workspace, outcome: Outcome, seeded: dict[str, tuple]) -> list[str]:
    """Cache files that neither the seed left nor the harness wrote (each must equal its report record)."""
    folder = workspace.kb / ".errorkb-cache" / "verify"
    by_key = {record.get("key"): record for record in outcome.records.values() if record.get("key")}
    verifier = (getattr(outcome, "report", None) or {}).get("verifier")
    problems = []
    for name, value in tree(folder).items():
        if name in seeded:
            if seeded[name] != value:
                problems.append(f"{name}: the seeded verdict was rewritten")
            continue
        record = by_key.get(name.removesuffix(".json"))
        if record is None:
            problems.append(f"{name}: written by no check of this run")
        elif (cached := json.loads((folder / name).read_text())) != _as_cached(record, cached, verifier):
            problems.append(f"{name}: differs from the verdict the harness stored ({record['id']})")
    problems += [f"{name}: the seeded verdict is gone" for name in seeded if not (folder / name).exists()]
    return problems


def remove_planted(workspace: Workspace | None = None) -> list[str]:
    """Take out any startup hook the planted-startup-hook snippets managed to plant (they are inert)."""
    removed = []
    for folder in site_folders(workspace):
        for name in PLANTED:
            path = folder / name
            if path.exists() and "errorkb adversarial fixture" in path.read_text(errors="replace"):
                path.unlink()
                removed.append(str(path))
    return removed


def differences(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """'<area>: <file> added/removed/changed' for every difference between two snapshots."""
    found = []
    for area, files in before.items():
        now = after[area]
        found += [f"{area}: {name} added" for name in sorted(now.keys() - files.keys())]
        found += [f"{area}: {name} removed" for name in sorted(files.keys() - now.keys())]
        found += [f"{area}: {name} changed" for name in sorted(files.keys() & now.keys()) if files[name] != now[name]]
    return found


# The targets each isolation mode's run covers. Fork mode: both. Subprocess mode: the bundled one, because
# the isolation is what it adds and the target changes nothing of it (the same child, observer and judge
# run either way; fork mode crosses every attack with both targets), while a fresh interpreter that
# imports the real transformers pays for torch._dynamo/_inductor and hqq each time: about 25 s of CPU
# per upstream check against 6 for a bundled one on a slow machine. With both targets the subprocess
# run cost 2,956 s of CPU in a fresh-clone run and was ended by `Workspace.verify`'s 3,000 s limit in
# CI's, so that every one of its verdict tests failed.
TARGETS = {"fork": ("bundled", "upstream"), "subprocess": ("bundled",)}

# The attacks each isolation mode's run covers. Fork mode: every one. Subprocess mode: all but those that aim
# at the judgement alone, for the same reason as its one target: what the mode adds is the process (how it
# starts, what it inherits, what it can reach), and these attacks meet the same child, observer and judge
# either way. Each misleads the observer through Python objects it makes or rebinds (exceptions and their
# tracebacks, code objects, wrappers, instances, the tracer) and reaches nothing outside the interpreter:
# `reaches_outside` reads its snippets and must find nothing (test_adversarial.py), so an attack that starts
# touching files, descriptors, processes, signals, the harness's frames or the import system leaves this list
# by failing that test. In a fresh-clone run the subprocess run was the suite's longest test (460 s of 1,090
# s, 2.5 s of torch import per check); these 20 attacks were 60 of its 168 attack checks. The converse holds
# too (test_adversarial.py): an attack that reaches nothing outside is listed here, so 30 attacks leave 117
# attack checks (and 18 of the controls) to the subprocess run.
JUDGE_ONLY = (
    "c-gadget-raise", "call-through-proxy", "chained-tracer", "foreign-globals", "forge-code-replace", "forge-code-swap",
    "guard-raises-untouched", "len-raises-message", "noop-on-instance", "override-unpublished",
    "patched-torch-zeros", "removed-delete-restore", "reraise-other-traceback", "settrace-off-around-call",
    "settrace-off-in-callback", "sibling-error-args", "sibling-wide-wording", "signature-wraps-lookalike",
    "stored-reraise", "subclass-forged-module", "tracer-recursion", "user-code-c-call", "user-code-planted",
    "user-code-temporary", "c-object-factory", "trusted-class-rebound", "metaclass-gadget", "weak-proxy-gadget",
    "torch-error-caught", "partial-chosen-data",
)
# What a judge-only attack may import, and names whose use reaches past the snippet's own objects (a file, a
# stream, another frame than its own, the interpreter's module table, its end).
_JUDGE_ONLY_IMPORTS = frozenset({"transformers", "torch", "sys", "types", "functools", "builtins", "collections"})
_REACHING_NAMES = frozenset({
    "open", "exec", "eval", "compile", "__import__", "breakpoint", "input", "exit", "_exit", "quit",
    "_getframe", "f_back", "f_globals", "f_locals", "tb_frame", "gi_frame", "cr_frame", "modules", "path",
    "meta_path", "path_hooks", "stdin", "stdout", "stderr", "__stdout__", "__stderr__", "addaudithook",
})


def attacks(isolation: str) -> list[str]:
    """The attack entries `isolation`'s run verifies (see `JUDGE_ONLY`)."""
    return [entry for entry in answer_key() if isolation == "fork" or entry not in JUDGE_ONLY]


def reaches_outside(entry: str) -> list[str]:
    """Where the snippets of `entry` (every Python file of its folder) reach past their own objects:
    `file:line: what`, empty when nowhere. A reading of the fixture's own files, to keep `JUDGE_ONLY` true
    as attacks change: names spelt as strings count; a name assembled at run time would not."""
    import ast

    found = []
    folder = ADVERSARIAL / "snippets" / entry
    for path in sorted(folder.rglob("*.py")):
        where = path.relative_to(folder)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = ["." if node.level else node.module or ""]
            else:
                modules = []
            found += [f"{where}:{node.lineno}: imports {module}" for module in modules
                      if module.split(".")[0] not in _JUDGE_ONLY_IMPORTS]
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in _REACHING_NAMES:
                found.append(f"{where}:{node.lineno}: uses {name}")
            elif isinstance(node, ast.Constant) and node.value in _REACHING_NAMES:  # getattr(__builtins__, "exec")
                found.append(f"{where}:{node.lineno}: names {node.value}")
    return found


@dataclass
class Run:
    """One isolation mode's run of the whole fixture, with everything measured around it."""

    isolation: str
    outcome: Outcome
    damage: list[str]
    reached: list[bytes]

    def record(self, check_id: str) -> dict:
        """The verdict on `check_id`; a run that ended without one fails the test with the run's own story."""
        if self.outcome.timed_out:
            pytest.fail(f"no verdict on {check_id}: the {self.isolation} run was ended at its time limit")
        if self.outcome.report is None:
            pytest.fail(f"no verdict on {check_id}: the {self.isolation} run wrote no report "
                        f"(exit {self.outcome.returncode}): {self.outcome.stderr[-2000:]}")
        if check_id not in self.outcome.records:
            pytest.fail(f"no verdict on {check_id} in the {self.isolation} run's report")
        return self.outcome.records[check_id]


# Each mode's run, once per test process: pytest tears a parametrized session fixture down whenever the next test
# asks for its other mode, and the per-verdict tests (indirectly parametrized, each a key of its own) interleave the
# modes in a run of both without xdist's groups (`-n 0`: fourteen runs of the fork mode before this). The run's
# verdicts are data, read only; its workspace is closed when it ends.
_RUNS: dict[str, Run] = {}


@pytest.fixture(scope="session", params=list(TARGETS))
def adversarial_run(request, tmp_path_factory) -> Run:
    """The adversarial fixture's `attacks` of the mode (+ controls), cpu, on its `TARGETS`, in the sandbox
    (`--sandbox require`).

    Fork mode uses the verdict cache (so that rewriting it is tried); subprocess mode does not, and
    gets a longer timeout per check (a fresh interpreter imports torch and transformers each time).
    Fork mode's 30 s: the tracer-recursion attack needs several seconds of CPU under the tracer, and
    on a slow shared machine (a fresh-clone run here, where `python -c pass` cost 4x its usual CPU) 10 s
    ended it by SIGXCPU before it lost the tracer, so its six checks failed for another reason.
    """
    from tests.verify.verifykb import needs_sandbox

    needs_sandbox()
    isolation = request.param
    if isolation in _RUNS:
        return _RUNS[isolation]
    workspace = Workspace(tmp_path_factory.mktemp(f"adversarial-{isolation}"))
    try:
        before = snapshot(workspace)
        seeded = tree(workspace.kb / ".errorkb-cache" / "verify")
        outcome = workspace.verify(isolation=isolation, sandbox="require", cache=isolation == "fork",
                                   ids=attacks(isolation) + control_ids(), targets=TARGETS[isolation],
                                   timeout_per_check=30 if isolation == "fork" else 120)
        damage = differences(before, snapshot(workspace)) + cache_damage(workspace, outcome, seeded)
        run = _RUNS[isolation] = Run(isolation, outcome, damage, list(workspace.listener.reached))
        return run
    finally:
        workspace.close()

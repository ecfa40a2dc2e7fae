"""A warm zygote is as clean on round 2 of `verify --watch` as on a cold start.

Round 1's snippet is hostile: it changes every piece of process state it can reach (the
environment, modules, builtins, the import path, the library's classes, the runtime's
settings, limits, signal handlers, the umask, /tmp, every shared writable mapping it inherited)
and prints what it sees, so the test knows each change really happened. Round 2, forked from the
same zygote (kept, same pid), prints the same state, which must equal what a check of a cold
pool sees after round 1: nothing flowed back into the zygote. With the sandbox and without it
(without it, a file written to /tmp is the machine's, and a cold run sees it too).
"""

from __future__ import annotations

import json
import shutil
import uuid

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.engine import Verifier
from errorkb.verify.plan import Check
from errorkb.verify.watch import Kept
from tests.verify.verifykb import copy_fixture, load_kb, needs_sandbox

# Every check in the lean interpreter (tests/lean.py): the snippets use no optional backend.
pytestmark = [pytest.mark.verifier, pytest.mark.timeout(1200), pytest.mark.usefixtures("lean_checks")]

MODULE = "transformers.cache_utils"
STATE = """
import builtins, ctypes, gc, json, os, resource, signal, sys
import torch, transformers
import transformers.cache_utils as cache_utils

TMP = {tmp!r}


def shared_mappings():
    try:
        lines = open("/proc/self/maps").read().splitlines()
    except OSError:  # no /proc in a jailed CPU check
        return None
    return [int(line.split("-")[0], 16) for line in lines if line.split()[1][:2] == "rw" and line.split()[1][3] == "s"]


def state():
    umask = os.umask(0o022)
    os.umask(umask)
    mappings = shared_mappings()
    return {{
        "env": os.environ.get("ERRORKB_LEFT"), "module": "errorkb_left" in sys.modules,
        "builtin": hasattr(builtins, "errorkb_left"), "path": "/errorkb-left" in sys.path,
        "recursion": sys.getrecursionlimit(), "dtype": str(torch.get_default_dtype()),
        "threads": torch.get_num_threads(), "umask": umask, "gc": gc.isenabled(),
        "library": hasattr(transformers.DynamicCache, "errorkb_left") or hasattr(cache_utils, "errorkb_left"),
        "signal": str(signal.getsignal(signal.SIGUSR1)), "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "tmp": os.path.exists(TMP),
        "shared": None if mappings is None else [ctypes.string_at(start, 8).hex() for start in mappings],
    }}
"""
LEAVE = """
os.environ["ERRORKB_LEFT"] = "1"
sys.modules["errorkb_left"] = sys
builtins.errorkb_left = True
sys.path.insert(0, "/errorkb-left")
sys.setrecursionlimit(4321)
torch.set_default_dtype(torch.float64)
torch.set_num_threads(torch.get_num_threads() + 3)
transformers.DynamicCache.errorkb_left = True
cache_utils.errorkb_left = True
os.umask(0o077)
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
gc.disable()
open(TMP, "w").write("left")
for start in shared_mappings() or []:
    ctypes.memmove(start, b"LEFTLEFT", 8)
"""
SHOW = '\nprint("STATE " + json.dumps(state()))\n'


@pytest.fixture(params=["off", "require"])
def mode(request):
    if request.param == "require":
        needs_sandbox()
    return request.param


@pytest.fixture
def kb(tmp_path):
    project, entries = load_kb(copy_fixture(tmp_path / "kb", ["good-head-dim"], timeout=60))
    return project, next(one.entry for one in entries if one.entry.id == "good-head-dim")


def seen(kb, mode: str, kept: Kept, code: str) -> dict:
    """One round of one check (the snippet saved as `code`), through a Verifier holding `kept`."""
    project, entry = kb
    path = project.snippets / entry.id / "after.py"
    path.write_text(code, encoding="utf-8")
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    verifier = Verifier(project, ["bundled"], sandbox=mode, kept=kept)
    try:
        record = verifier.record(check)
    finally:
        verifier.close()
    lines = [line for line in record.output.splitlines() if line.startswith("STATE ")]
    assert lines, f"the check printed no state: {record.reason}\n{record.output}"
    return json.loads(lines[-1].removeprefix("STATE "))


def zygote_pids(kept: Kept) -> list[int]:
    assert kept.chosen is not None and kept.chosen[1] is not None
    return sorted(zygote.process.pid for zygote in kept.chosen[1].zygotes.values())  # type: ignore[union-attr]


def test_a_check_leaves_nothing_in_a_kept_zygote_that_the_next_round_sees(kb, mode, tmp_path):
    state = STATE.format(tmp=f"/tmp/errorkb-left-{uuid.uuid4().hex}")
    warm, cold = Kept(), Kept()
    try:
        before = seen(kb, mode, warm, state + SHOW)
        pids = zygote_pids(warm)
        left = seen(kb, mode, warm, state + LEAVE + SHOW)
        changed = {name for name in before if before[name] != left[name]}
        assert changed >= set(before) - {"shared"}, f"round 1 could not change {set(before) - changed}"
        assert left["shared"] in (None, ["4c4546544c454654"] * len(left["shared"] or []))
        after = seen(kb, mode, warm, state + "\n# saved again\n" + SHOW)
        assert zygote_pids(warm) == pids and warm.restarts == 0, "round 2 did not fork from the kept zygote"
        fresh = seen(kb, mode, cold, state + "\n# a cold run\n" + SHOW)
        assert after == fresh, "round 2 of a kept zygote saw what a cold run does not"
        in_memory = set(before) - {"tmp"}  # /tmp is the machine's without the sandbox: a cold run sees it too
        assert {name: after[name] for name in in_memory} == {name: before[name] for name in in_memory}
        assert after["tmp"] is (mode == "off")
    finally:
        warm.close()
        cold.close()
        if mode == "off":
            path = state.split("TMP = ", 1)[1].split("\n", 1)[0].strip("'")
            __import__("pathlib").Path(path).unlink(missing_ok=True)


SECRET = """
import os
print("SECRET " + repr(os.path.exists({path!r})))
"""


def test_a_folder_made_after_the_sandbox_stays_hidden_from_a_kept_pool(kb):
    """reports/ (or the verdict cache) made by round 1: a cold run's sandbox hides it, so round 2's must."""
    needs_sandbox()
    project, entry = kb
    shutil.rmtree(project.reports, ignore_errors=True)  # a fresh checkout: no reports yet
    kept = Kept()
    path = project.snippets / entry.id / "after.py"
    try:
        for number, make_folder in enumerate([False, True]):
            if make_folder:
                project.reports.mkdir()
                (project.reports / "secret.txt").write_text("what round 1 reported")
            path.write_text(SECRET.format(path=str(project.reports / "secret.txt")) + f"# {number}\n")
            check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
            verifier = Verifier(project, ["bundled"], sandbox="require", kept=kept)
            try:
                output = verifier.record(check).output
            finally:
                verifier.close()
            assert "SECRET False" in output, output
        assert kept.restarts == 1  # the pool was made again, in a sandbox that hides reports/
    finally:
        kept.close()

"""Round twenty-five: a check sees of the bundled implementation's package only what its verdict's key holds.

Round twenty-four's last test found a check could read all of errorkb while its key held part of it (now a shadow,
`sandbox.package_shadow`). The same held for the bundled package (the profile's `bundled`): its target's fingerprint
(`targets.fingerprint`) digested the `*.py` under the bundled folder only, while the sandbox showed its whole
top-level package: the index the lookup reads, a pyproject.toml, a `build/` copy, the egg-info, `__pycache__` (a stale
`.pyc` runs in place of its source) and the parent package's `__init__.py`, which importing the bundled package runs.
A snippet reading any of them passes on bytes its key does not hold: a cached pass replayed after they changed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.inside.library import package_dirs
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose as choose_with
from errorkb.verify.sources import keyed_files
from tests.verify.containment import HONEST, LIBRARY, MODULE, TORCH
from tests.verify.containment import seen as _seen
from tests.verify.verifykb import FIXTURE, load_kb, needs_sandbox

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

BUNDLED = """
import json
from pathlib import Path

root = Path(ROOT)
files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()) \\
    if root.is_dir() else None
headers = {name: (root / name).read_bytes()[4:16].hex() for name in files or () if name.endswith(".pyc")}
try:
    (root / "planted.py").write_text("x")
    written = "done"
except OSError as error:
    written = type(error).__name__
print("SEEN " + json.dumps({"files": files, "write": written, "headers": headers}))
""" + HONEST


def test_what_a_check_sees_of_the_bundled_package_is_in_its_key(entry, project, lean_python):
    """Measured on main (fork+bwrap): the check listed the bundled package's top folder whole (`index.json`,
    `pyproject.toml`, `build/`, the egg-info, `__pycache__`), while the key digested `kvcache/*.py` alone. Now it sees
    exactly the keyed files (`sources.keyed_files`: the fingerprint's bytes), read-only."""
    needs_sandbox()
    assert LIBRARY.bundled is not None
    top = LIBRARY.bundled.split(".")[0]
    sandbox = choose_with("require", [project], [], runtime=TORCH, packages=("torch", "transformers", top),
                          env_prefixes=tuple(LIBRARY.env_prefixes), private=[project / "snippets"],
                          keyed=(LIBRARY.bundled,))
    root = package_dirs(top)[0]
    path = project / "snippets" / "good-head-dim" / "bundled.py"
    path.write_text(BUNDLED.replace("ROOT", repr(str(root))))
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    with WorkerPool(LIBRARY, [], sandbox) as pool:
        run = pool.run(check, 60, lean_python)
    seen = _seen(run.output)
    assert seen["write"] != "done", seen
    keyed = keyed_files(LIBRARY.bundled)
    assert keyed is not None and keyed[0] == str(root)
    names = {name for name, _ in keyed[1]}
    assert "__init__.py" in names, "importing the bundled package runs its parent's __init__.py: keyed too"
    # Besides the keyed files, only their bytecode compiled from the keyed bytes (`sandbox._bytecode`): a checked
    # hash-based pyc of each keyed module, holding the hash of its keyed source
    compiled = {Path(importlib.util.cache_from_source(name, optimization="")).as_posix(): data
                for name, data in keyed[1]}
    outside = [name for name in seen["files"] if name not in names and name not in compiled]
    assert not outside, f"{len(outside)} files of the bundled package a check can read are not in its key: " \
                        f"{outside[:8]}"
    sources = {name for name in seen["files"] if name in names}
    assert sources == names, f"keyed files a check does not see: {sorted(names - sources)}"
    assert set(seen["headers"]) == set(compiled), "a keyed module without its bytecode, or bytecode of another"
    for name, header in seen["headers"].items():
        assert header == (3).to_bytes(4, "little").hex() + importlib.util.source_hash(compiled[name]).hex(), name


def test_the_bundled_fingerprint_digests_the_files_a_check_is_shown(tmp_path, monkeypatch):
    """One owner: the fingerprint changes with each file a check is shown of the bundled package (the parent's
    `__init__.py` too), and with nothing else (the index, a build copy: a lookup-rules change keeps every verdict)."""
    from errorkb.verify.targets import fingerprint

    top = tmp_path / "kbpkg"
    (top / "impl").mkdir(parents=True)
    (top / "__init__.py").write_text("")
    (top / "impl" / "__init__.py").write_text("X = 1\n")
    (top / "index.json").write_text("{}")
    monkeypatch.syspath_prepend(str(tmp_path))
    library = LIBRARY.model_copy(update={"bundled": "kbpkg.impl"})
    before = fingerprint("bundled", library)
    (top / "index.json").write_text('{"rules": 1}')
    (top / "build").mkdir()
    (top / "build" / "copy.py").write_text("X = 2\n")
    assert fingerprint("bundled", library) == before, "a file no check is shown changed the key"
    (top / "__init__.py").write_text("import os\n")
    assert fingerprint("bundled", library) != before, "the parent's __init__.py runs in every check: it is keyed"
    assert [name for name, _ in keyed_files("kbpkg.impl")[1]] == ["__init__.py", "impl/__init__.py"]


# -- one read: the bytes a check is shown are the bytes its key digests ---------------------------------------------


def _bound(command: list[str], place: str) -> Path:
    """The folder bwrap's `command` shows at `place` (its last `--ro-bind` there: a later bind covers an earlier)."""
    found = [command[at + 1] for at in range(len(command) - 2)
             if command[at] == "--ro-bind" and command[at + 2] == place]
    assert found, f"nothing is bound at {place}"
    return Path(found[-1])


def _sources(folder: Path) -> dict[str, bytes]:
    """The source files a folder holds (its bytecode aside: what compiles from them is checked on its own)."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_key_digests_the_very_bytes_the_sandbox_shows_whatever_changes_between(tmp_path, monkeypatch):
    """Every read of a keyed file after the first returns other bytes (an edit between the key's read and the
    shadow's making). Measured on main: the key digested the first read of the bundled package and the sandbox,
    made later, read it again and showed the edited bytes (a verdict keyed on bytes it did not run); errorkb's
    shadow read its sources again and refused the run. Now both sides hold one read: the run's of the bundled
    package (`Verifier.keyed`), the process's of errorkb (`sources.verdict_bytes`)."""
    needs_sandbox()
    from errorkb.verify import cache as cache_module
    from errorkb.verify import sandbox as sandbox_module
    from errorkb.verify import sources, targets
    from errorkb.verify.engine import Verifier
    from tests.kb import copy_kb

    def edited_after_first(read):
        calls = []

        def reading(*args):
            found = read(*args)
            calls.append(args)
            if len(calls) == 1 or not found:
                return found
            files = found[1] if isinstance(found[0], str) else found
            changed = ((files[0][0], files[0][1] + b"\n# edited after the first read\n"), *files[1:])
            return (found[0], changed) if isinstance(found[0], str) else changed
        return reading

    for cached in (getattr(sources, "verdict_bytes", None), cache_module.verifier_fingerprint,
                   sandbox_module.package_shadow):
        if cached is not None:  # this process's one read is made in this test, then every later read is edited
            cached.cache_clear()
    keyed_reading = edited_after_first(sources.keyed_files)
    verdict_reading = edited_after_first(sources.read_verdict_sources)
    for module in (sources, targets, sandbox_module, cache_module):
        monkeypatch.setattr(module, "keyed_files", keyed_reading, raising=False)
        monkeypatch.setattr(module, "read_verdict_sources", verdict_reading, raising=False)
    project, loaded = load_kb(copy_kb(tmp_path / "kb", ["good-head-dim"], source=FIXTURE))
    entry = next(one.entry for one in loaded if one.entry.id == "good-head-dim")
    path = project.snippets / "good-head-dim" / "after.py"
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    verifier = Verifier(project, ["bundled"], sandbox="require")
    try:
        keyed_target, keyed_verifier = verifier.fingerprint(check), cache_module.verifier_fingerprint()
        sandbox = verifier.sandbox  # made after the key's read: every read from now on is edited
        assert sandbox is not None
        command = sandbox.wrap(["true"], device="cpu", writable=[])
    finally:
        verifier.close()
    bundled = project.library.bundled
    assert bundled is not None
    top = package_dirs(bundled.split(".")[0])[0]
    shown = _sources(_bound(command, str(top)))
    monkeypatch.undo()  # the files as they are: what the key's first read held
    first = keyed_files(bundled)
    assert first is not None
    assert shown == dict(first[1]), "the sandbox showed other bytes of the bundled package than its key digested"
    assert keyed_target == targets.fingerprint("bundled", project.library), "the key is not of the first read"
    errorkb_shown = _sources(_bound(command, "/run/errorkb/import/errorkb"))
    first_sources = sources.read_verdict_sources()
    assert errorkb_shown == dict(first_sources), "the shadow of errorkb is not of the first read"
    assert cache_module.fingerprint_of(first_sources) == keyed_verifier, "the key is not of the first read"


# -- the shadows' bytecode: compiled from the keyed bytes, never a `.pyc` from disk ------------------------------------

IMPORTS = """
import sys
import kbpkg.impl
print("X " + kbpkg.impl.X)
"""


def _kbpkg(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """A package `kbpkg.impl` on the path, whose folder holds bytecode the key does not: a planted pyc (an unchecked
    hash, which Python runs without looking at the source) and a stale one (a timestamp pyc of older code, its
    source's size and time forged to match). (The packages folder, and the package's top folder.)"""
    import py_compile

    packages = tmp_path / "packages"
    top = packages / "kbpkg"
    (top / "impl").mkdir(parents=True)
    (top / "__init__.py").write_text("")
    init = top / "impl" / "__init__.py"
    init.write_text("X = 'planted'\n")
    py_compile.compile(str(init), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    init.write_text("from kbpkg.impl.more import Y\nX = 'the source ' + Y\n")
    more = top / "impl" / "more.py"
    more.write_text("Y = 'stale'\n")
    py_compile.compile(str(more), invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP, doraise=True)
    stamp = more.stat()
    more.write_text("Y = 'keyed'\n")  # the same size: with the time set back, the stale pyc "matches" its source
    os.utime(more, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    monkeypatch.syspath_prepend(str(packages))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(packages), os.environ.get("PYTHONPATH")])))
    return packages, top


def test_a_check_runs_the_keyed_bytes_never_a_pyc_from_disk(tmp_path, monkeypatch, lean_python):
    """The bundled package's folder holds a planted pyc (unchecked hash) and a stale one (a timestamp pyc whose
    source's size and time match): outside the sandbox Python runs both ('planted'). In it, the check is shown the
    keyed sources and the bytecode compiled from them alone: it runs the keyed bytes, from that bytecode."""
    needs_sandbox()
    from errorkb.verify.sandbox import Sandbox, runtime_paths
    from errorkb.verify.sources import read_keyed

    packages, top = _kbpkg(tmp_path, monkeypatch)
    outside = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, env=dict(os.environ))
    assert "X planted" in outside.stdout, (outside.stdout, outside.stderr)
    sandbox = Sandbox("bwrap", runtime_paths([packages]), keyed=read_keyed(["kbpkg.impl"]))
    command = sandbox.wrap([str(lean_python), "-v", "-c", IMPORTS], device="cpu", writable=[], python=lean_python)
    inside = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert "X the source keyed" in inside.stdout, (inside.stdout, inside.stderr[-3000:])
    loaded = [line for line in inside.stderr.splitlines() if line.startswith("# code object from '")
              and f"{top}/" in line]
    assert len(loaded) == 3, f"the keyed modules were compiled in the check, not loaded from the shadow: {loaded}"


def test_the_shadows_bytecode_is_a_checked_pyc_of_the_keyed_bytes(tmp_path):
    """Each module of a shadow gets a checked hash-based pyc (PEP 552) compiled from the bytes it is shown: the import
    system reads its source and compares the hash before running it, so the pyc can only ever run those bytes; a
    source that does not compile gets none (the check fails on it as it would)."""
    import marshal

    from errorkb.verify.sandbox import _shadow

    files = (("a.py", b"A = 1\n"), ("inner/b.py", b"B = 2\n"), ("bad.py", b"def (:\n"), ("data.txt", b"x"))
    root = Path(_shadow(files))
    found = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.pyc"))
    tag = sys.implementation.cache_tag
    assert found == [f"__pycache__/a.{tag}.pyc", f"inner/__pycache__/b.{tag}.pyc"], found
    for name, data in files[:2]:
        pyc = Path(importlib.util.cache_from_source(str(root / name), optimization="")).read_bytes()
        assert pyc[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(pyc[4:8], "little") == 0b11, "not a checked hash-based pyc"
        assert pyc[8:16] == importlib.util.source_hash(data)
        namespace: dict[str, object] = {}
        exec(marshal.loads(pyc[16:]), namespace)
        assert namespace.keys() & {"A", "B"}

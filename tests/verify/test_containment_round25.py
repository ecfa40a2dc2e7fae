"""Round twenty-five: a check sees of the bundled implementation's package only what its verdict's key holds.

Round twenty-four's last test found a check could read all of errorkb while its key held part of it (now a shadow,
`sandbox.package_shadow`). The same held for the bundled package (the profile's `bundled`): its target's fingerprint
(`targets.fingerprint`) digested the `*.py` under the bundled folder only, while the sandbox showed its whole
top-level package: the index the lookup reads, a pyproject.toml, a `build/` copy, the egg-info, `__pycache__` (a stale
`.pyc` runs in place of its source) and the parent package's `__init__.py`, which importing the bundled package runs.
A snippet reading any of them passes on bytes its key does not hold: a cached pass replayed after they changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.inside.library import package_dirs
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose as choose_with
from errorkb.verify.sources import keyed_files
from tests.verify.test_containment_round20 import HONEST, LIBRARY, MODULE, TORCH
from tests.verify.verifykb import FIXTURE, load_kb, needs_sandbox

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

BUNDLED = """
import json
from pathlib import Path

root = Path(ROOT)
files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()) \\
    if root.is_dir() else None
try:
    (root / "planted.py").write_text("x")
    written = "done"
except OSError as error:
    written = type(error).__name__
print("SEEN " + json.dumps({"files": files, "write": written}))
""" + HONEST


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("round25")
    shutil.copytree(FIXTURE / "snippets" / "good-head-dim", root / "snippets" / "good-head-dim")
    return root


@pytest.fixture(scope="module")
def entry(broken_kb):
    return next(one.entry for one in broken_kb[1] if one.entry.id == "good-head-dim")


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
    line = next((line for line in run.output.splitlines() if line.startswith("SEEN ")), None)
    assert line is not None, run.output
    seen = json.loads(line[len("SEEN "):])
    assert seen["write"] != "done", seen
    keyed = keyed_files(LIBRARY.bundled)
    assert keyed is not None and keyed[0] == str(root)
    names = {name for name, _ in keyed[1]}
    assert "__init__.py" in names, "importing the bundled package runs its parent's __init__.py: keyed too"
    outside = [name for name in seen["files"] if name not in names]
    assert not outside, f"{len(outside)} files of the bundled package a check can read are not in its key: " \
                        f"{outside[:8]}"
    assert set(seen["files"]) == names, f"keyed files a check does not see: {sorted(names - set(seen['files']))}"


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

"""A check never runs compiled code it finds beside its snippet: the loader refuses a snippet folder's
`__pycache__` and extension modules (`load.compiled_code`), but one planted after loading (or written by
anything between the loading and the check) was imported by the check's process all the same: Python
reads a `__pycache__` file compiled with an unchecked hash without looking at the source (PEP 552), and
imports a sourceless `.pyc` as a module. The check's process imports the snippet folder's modules from
their sources only (`child.source_only`), while the library and the runtime keep their own bytecode."""

from __future__ import annotations

import importlib.util
import py_compile
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import Verifier, plan_checks
from tests.kb import AFTER, make_project
from tests.verify.verifykb import needs_sandbox

pytestmark = [pytest.mark.verifier, pytest.mark.upstream]

SOURCE, PLANTED = "the source the page shows", "code nobody reviewed"
AFTER_PRINTS = AFTER + """
from lib.helper import VALUE
print("helper:", VALUE)
try:
    from lib import alone
    print("alone:", alone.VALUE)
except ImportError:
    print("alone: none")
"""


def _compiled(source: str, target: Path, tmp: Path) -> None:
    """`source` compiled with an unchecked hash into `target`: Python runs it without reading any source."""
    other = tmp / "other.py"
    other.write_text(source, encoding="utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    py_compile.compile(str(other), cfile=str(target), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


@pytest.mark.parametrize(("isolation", "sandbox"), [("fork", "require"), ("subprocess", "require"), ("fork", "off")])
def test_bytecode_planted_after_loading_never_runs(tmp_path, isolation, sandbox):
    """The helper's `__pycache__` bytecode (unchecked hash) and a sourceless `lib/alone.pyc`, planted after
    the loader checked the folder: the helper runs from its source, and `lib.alone` does not exist."""
    if sandbox != "off":
        needs_sandbox()
    pytest.importorskip("transformers")
    root = tmp_path / "kb"
    root.mkdir()
    make_project(root, snippets={"demo-error": {"before.py": AFTER, "after.py": AFTER_PRINTS, "guard.py": AFTER}})
    folder = root / "snippets" / "demo-error"
    (folder / "lib").mkdir()
    (folder / "lib" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "lib" / "helper.py").write_text(f"VALUE = {SOURCE!r}\n", encoding="utf-8")
    project = load_project(root)
    loaded = load_project_entries(project)
    assert [str(p) for p in loaded.problems] == []
    _compiled(f"VALUE = {PLANTED!r}\n", Path(importlib.util.cache_from_source(str(folder / "lib" / "helper.py"))),
              tmp_path)
    _compiled(f"VALUE = {PLANTED!r}\n", folder / "lib" / "alone.pyc", tmp_path)
    checks = plan_checks(project, loaded.entries, ids=["demo-error"], targets=["upstream"], devices=["cpu"],
                         kinds=["after"])
    verifier = Verifier(project, ["upstream"], isolation=isolation, sandbox=sandbox, timeout=120)
    try:
        (record,) = [verifier.record(check) for check in checks]
    finally:
        verifier.close()
    printed = record.output or ""
    assert f"helper: {SOURCE}" in printed and "alone: none" in printed, (record.outcome, record.reason, printed)
    assert PLANTED not in printed


def test_the_bundled_package_s_bytecode_is_there_before_any_check_reads_it():
    """The session compiles the bundled package before any worker starts (tests/conftest.py): a check's sandbox
    shows it read-only, so without its bytecode each fresh interpreter of a check (`--isolation subprocess`: one
    per check) and each zygote compiled every module of it anew."""
    from tests.kb import ROOT

    bundled = load_project(ROOT).library.bundled
    assert bundled is not None
    spec = importlib.util.find_spec(bundled.split(".")[0])
    assert spec is not None and spec.origin is not None
    stale = []
    for source in sorted(Path(spec.origin).parent.rglob("*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        header = cached.read_bytes()[:16] if cached.is_file() else b""
        stat = source.stat()
        if header[8:16] != (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + \
                (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little"):
            stale.append(str(source))
    assert stale == []

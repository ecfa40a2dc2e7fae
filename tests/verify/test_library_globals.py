"""A module global the library rebinds itself (`global _causal_conv1d_cache` in transformers 4.57's
Mamba fills a kernel cache on first use) is not the snippet tampering with the library; the snippet
binding the same name to code of its own still is.

Runs on the second library's fixture (`tinyq`, the plain `python` runtime), whose `put` gains such a
lazily filled global, on both targets.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable
from tests.verify.verifykb import allowing

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"
LAZY_GLOBAL = '''

_kernels = None


def _load_kernels():
    global _kernels
    if _kernels is None:
        _kernels = (None, None)
    return _kernels
'''
HONEST = 'from tinyq import BoundedQueue\nqueue = BoundedQueue(2)\nfor item in ("a", "b", "c"):\n    queue.put(item)\n'
FORGED = 'import sys\nsys.modules["tinyq.queue"]._kernels = (print, None)\n' + HONEST


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    for queue in (root / "upstream" / "tinyq" / "queue.py", root / "bundled" / "tinyq_bundled" / "queue.py"):
        text = queue.read_text().replace("def put(self, item):\n", "def put(self, item):\n        _load_kernels()\n")
        queue.write_text(text + LAZY_GLOBAL)
    importable(monkeypatch, root / "upstream", root / "bundled")
    return root


def verify_before(root: Path, before: str, capsys) -> list[dict]:
    (root / "snippets" / "queue-full" / "before.py").write_text(before)
    entry = root / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(allowing(entry.read_text(), before, modules=("tinyq",)))
    main(["--root", str(root), "verify", "queue-full", "--no-cache", "--snippet", "before",
          "--report", str(root / "r.json")])
    printed = capsys.readouterr()
    assert (root / "r.json").is_file(), printed.out + printed.err
    checks = json.loads((root / "r.json").read_text())["checks"]
    assert {check["target"] for check in checks} == {"bundled", "upstream"}
    return checks


def test_a_global_the_library_fills_itself_is_not_tampering(tinylib, capsys):
    for check in verify_before(tinylib, HONEST, capsys):
        assert (check["outcome"], check["code"]) == ("pass", "raised-as-documented"), check["reason"]


def test_the_snippet_binding_that_global_to_its_own_callable_is_tampering(tinylib, capsys):
    for check in verify_before(tinylib, FORGED, capsys):
        assert check["code"] == "tampered", check["reason"]
        assert "_kernels" in check["reason"]

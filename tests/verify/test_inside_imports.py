"""What runs inside the sandbox imports the standard library and the runtime plug, nothing else.

import-linter (pyproject.toml) forbids the harness and the known third-party packages; this test
states the rule positively, as an allow-list over every import statement of the package, so a
new dependency cannot slip in under a name nobody thought to forbid.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

INSIDE = Path(__file__).resolve().parents[2] / "errorkb" / "verify" / "inside"
ALLOWED = ("errorkb.plugs", "errorkb.verify.inside")


def imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def outside_the_allow_list(path: Path) -> list[str]:
    return [f"{path.name}:{line}: {name}" for line, name in imports(path)
            if name.split(".")[0] not in sys.stdlib_module_names and name != "__future__"
            and not any(name == allowed or name.startswith(allowed + ".") for allowed in ALLOWED)]


def test_the_inside_imports_only_the_standard_library_and_the_runtime_plug():
    files = sorted(INSIDE.glob("*.py"))
    assert {"child.py", "observer.py", "zygote.py", "jail.py", "spec.py"} <= {path.name for path in files}
    assert [problem for path in files for problem in outside_the_allow_list(path)] == []


def test_the_rule_sees_a_third_party_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import json\nfrom pydantic import BaseModel\nfrom errorkb.core.entry import Entry\n")
    assert outside_the_allow_list(planted) == ["planted.py:2: pydantic", "planted.py:3: errorkb.core.entry"]


def test_the_target_names_the_check_receives_are_the_ones_reports_carry():
    """The inside keeps its own copy of the target names (it cannot import errorkb.results): a
    rename on one side only would make every check's target unknown, or a report's mislabelled."""
    from errorkb.results import records
    from errorkb.verify.inside import library

    assert (library.BUNDLED, library.UPSTREAM, library.TARGETS) == (records.BUNDLED, records.UPSTREAM, records.TARGETS)


LAZY = '''
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


def build(backend):
    if backend == "a":
        from json import decoder
    import email.mime.text as text
    from .sibling import helper
    from . import other
    import no_such_package_errorkb_x


class Layer:
    def __init__(self):
        from xml.dom import minidom
        import os


async def later():
    from html import parser
'''


def test_a_zygote_preloads_what_the_targets_functions_import_when_it_is_installed(monkeypatch):
    """The modules a function of the target imports when it first runs (upstream's optional backends),
    relative ones resolved against the target's package; never what the module imports at its top (already
    loaded), what is not installed, or what is loaded already."""
    from errorkb.verify.inside.child import lazy_imports

    for absent in ("email.mime.text", "xml.dom", "html"):
        monkeypatch.delitem(sys.modules, absent, raising=False)
    assert "json" in sys.modules  # `from json import decoder`: loaded already
    installed = {"json", "email", "xml", "html", "pkg"}
    monkeypatch.setattr("errorkb.verify.inside.child._installed", lambda name: name.split(".")[0] in installed)
    assert sorted(lazy_imports(LAZY, "pkg.cache_utils")) == ["email.mime.text", "html", "pkg", "pkg.sibling", "xml.dom"]
    assert lazy_imports("def broken(:\n", "pkg.cache_utils") == []


def test_what_a_zygote_preloads_is_read_from_the_source_never_imported_to_find_out():
    from errorkb.verify.inside.child import lazy_imports

    before = set(sys.modules)
    named = lazy_imports(LAZY, "pkg.cache_utils")
    assert named and "no_such_package_errorkb_x" not in named
    assert not {name for name in named if name not in before} & set(sys.modules)

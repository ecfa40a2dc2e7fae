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

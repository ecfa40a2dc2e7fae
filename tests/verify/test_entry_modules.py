"""Nothing an entry names runs outside a jailed check (issue 20, item 1).

`source.module` (and `api.owner`) name modules the verifier imports: one inside the snippet
folder (`snippets/<id>/lib/...`) would be imported by the zygote before it forks, with the
zygote's privileges, and could rebind the runner of every later check. The loader refuses any
module outside the library's package, with a located problem; the zygote and the child refuse
it again (an entry that reaches them some other way), and the child refuses a watched function
whose code does not lie in the target.
"""

from __future__ import annotations

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.pool import WorkerPool
from errorkb.verify.sandbox import choose
from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project
from tests.verify.verifykb import needs_sandbox

TORCH = runtime_for("torch")

EVIL = '''"""An entry's own module: if the zygote imports it, every later check's runner is the attacker's."""
import sys

for name, module in list(sys.modules.items()):
    if name.startswith("errorkb.verify") and hasattr(module, "run_and_exit"):
        original = module.run_and_exit

        def forged(spec, original=original):
            print("EVIL: the zygote ran an entry's own module")
            sys.stdout.flush()
            original(spec)

        module.run_and_exit = forged


def early_initialization(*args, **kwargs):
    """A look-alike the entry declares as 'the library function'."""
'''


def _entry_with(source_extra: str = "", top_extra: str = "") -> str:
    text = VALID_ENTRY.format(id="demo-error")
    text = text.replace("  function: Cache.early_initialization\n",
                        "  function: Cache.early_initialization\n" + source_extra)
    return text.replace("tags: [early-initialization]\n", "tags: [early-initialization]\n" + top_extra)


@pytest.mark.parametrize(("source_extra", "top_extra", "field"), [
    ("  module: snippets.demo_error.lib.evil\n", "", "source.module"),
    ("  module: transformers_errorkb.kvcache.cache_utils\n", "", "source.module"),
    ("", "kind: removed\napi: {owner: snippets.lib.evil.Cache, name: x}\n", "api.owner"),
    ("", "kind: removed\napi: {owner: transformers_errorkb.kvcache.Cache, name: x}\n", "api.owner"),
])
def test_the_loader_refuses_a_module_outside_the_library(tmp_path, source_extra, top_extra, field):
    if top_extra:
        source_extra = ""
        top_extra = top_extra.replace("exception: ValueError", "")
    root = make_project(tmp_path, {"demo-error.yml": _entry_with(source_extra, top_extra).replace(
        "exception: ValueError", "exception: AttributeError" if top_extra else "exception: ValueError")})
    problems = [str(problem) for problem in load_project_entries(load_project(root)).problems]
    named = [problem for problem in problems if field in problem and "not a module of transformers" in problem]
    assert named, problems
    assert named[0].startswith("docs/errors/transformers/demo-error.yml:"), named


def test_a_module_name_that_is_no_import_path_is_refused(tmp_path):
    root = make_project(tmp_path, {"demo-error.yml": _entry_with("  module: snippets.demo-error.lib.evil\n")})
    problems = [str(problem) for problem in load_project_entries(load_project(root)).problems]
    assert any("source.module: String should match pattern" in problem for problem in problems), problems


def test_a_module_inside_the_library_loads(tmp_path):
    root = make_project(tmp_path, {"demo-error.yml": _entry_with("  module: transformers.cache_utils\n")})
    assert load_project_entries(load_project(root)).problems == []


def test_the_zygote_never_imports_a_module_of_the_snippet_folder(tmp_path, monkeypatch, lean_python):
    """An entry that reached the verifier with its own module (the loader bypassed): the check fails
    before anything of it runs, and an honest failing check after it in the same zygote still fails."""
    needs_sandbox()
    root = make_project(tmp_path, snippets={"demo-error": {"before.py": BEFORE, "after.py": AFTER,
                                                           "guard.py": BEFORE}})
    (root / "snippets" / "demo-error" / "lib").mkdir()
    (root / "snippets" / "demo-error" / "lib" / "evil.py").write_text(EVIL)
    monkeypatch.setenv("PYTHONPATH", str(root))  # a checkout on the import path, as CI's `PYTHONPATH=.` puts it
    project = load_project(root)
    (loaded,) = load_project_entries(project).entries
    entry = loaded.entry
    guard = read_snippet(project.snippet_path("demo-error", "guard.py"), Role("guard:guard"), "guard.py")
    evil = Check(entry, guard, "bundled", "cpu", "snippets.demo-error.lib.evil")
    victim = Check(entry, guard, "bundled", "cpu", "transformers.cache_utils")  # a guard that lets the error out
    sandbox = choose("require", [root], [], runtime=TORCH, packages=("torch", "transformers", "optimum"))
    with WorkerPool(project.library, [], sandbox) as pool:
        attacked = pool.run(evil, 60, lean_python)  # the lean interpreter (tests/lean.py): no hqq needed
        after = pool.run(victim, 60, lean_python)
    assert "EVIL" not in attacked.output + after.output
    assert judge(evil, attacked, TORCH).outcome == "fail"
    assert "snippets.demo-error.lib.evil" in judge(evil, attacked, TORCH).reason
    assert judge(victim, after, TORCH).outcome == "fail", judge(victim, after, TORCH).reason

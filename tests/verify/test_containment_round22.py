"""Round twenty-two: fresh attacks on the judge, the sandbox and the verdict cache.

The question each time: can a snippet make the judge report a pass it did not observe, or an honest snippet fail?
The cache's key covers the entry and every file of the snippet's folder (`results.keys.inputs_digest`, the one
digest); a link in that folder is hashed as the path it names, never followed, while the check's process follows it
(the sandbox shows the project, read-only, at its own path). Resource and time attacks run in the round's sandboxed
pool (`test_containment_round20`), each beside an honest twin of the same zygote.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.verify.plan import Check
from errorkb.verify.records import Code
from tests.verify.test_containment_round20 import (  # the round's sandboxed pool and its fixtures, shared
    HONEST,
    MODULE,
    entry,  # noqa: F401
    lean_pool,  # noqa: F401
    project,  # noqa: F401
    run_snippet,
    sandbox,  # noqa: F401
)

pytestmark = [pytest.mark.verifier, pytest.mark.timeout(900)]

# -- the cache: a verdict rests only on bytes its key holds --------------------------------------------------------

def _kb(tmp_path: Path) -> Path:
    from tests.verify.verifykb import copy_fixture

    return copy_fixture(tmp_path / "kb", ["good-head-dim"], timeout=60)


LOADER_PATCH = ("the loader's rule lives in errorkb/core/load.py (redsite17's this session): closed by "
                "/work/brief/red29-load.py.patch, which removes this mark")


@pytest.mark.xfail(strict=True, reason=LOADER_PATCH)
@pytest.mark.parametrize("name, target", [("shapes", "package"), ("sizes.json", "data file")])
def test_a_verdict_never_rests_on_what_a_link_leads_out_of_the_snippets_folder_to(tmp_path, name, target):
    """A package folder beside the snippet that is a link out of the entry's folder (`shapes -> ../../elsewhere/
    shapes`), or a data file so linked: the key hashes the link's text, the check, in the sandbox too (the project is
    shown read-only at its own path), reads what it leads to. Measured (fork+bwrap): an after importing `shapes`
    passed with LAYERS = 4 and was cached; LAYERS = 3, which makes it exit 3, answered the same pass from the cache
    (`cached: true`), a fresh run failed. The loader held modules beside a snippet inside the folder, but listed no
    module inside a linked folder, and no file that is not Python: such a link is a problem, naming it and what to
    do, and `verify` runs nothing of a knowledge base with problems. A link that stays inside is the honest twin."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    root = _kb(tmp_path)
    folder = root / "snippets" / "good-head-dim"
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    if target == "package":
        (elsewhere / name).mkdir()
        (elsewhere / name / "__init__.py").write_text("LAYERS = 4\n")
    else:
        (elsewhere / name).write_text('{"layers": 4}\n')
    (folder / name).symlink_to(Path("..", "..", "elsewhere", name))
    (folder / "inside.json").write_text("{}\n")
    (folder / "twin.json").symlink_to("inside.json")  # the honest twin: a link to a file the folder holds
    found = load_project_entries(load_project(root)).problems
    said = [str(problem) for problem in found if f"good-head-dim/{name}" in problem.path]
    assert len(said) == 1 and "leads out of" in said[0] and "inside the folder" in said[0], [str(p) for p in found]
    assert not [problem for problem in found if "twin.json" in problem.path], [str(p) for p in found]

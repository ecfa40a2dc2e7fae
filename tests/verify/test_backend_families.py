"""An error a profile backend raises under the documented function is the function's (issue 19 item 7).

transformers 4.46's `QuantizedCache.update` calls `QuantoQuantizedCache._quantize`, which calls
optimum-quanto's `quantize_weight` with the group size where quanto 0.2.7 wants `scale`; quanto's own
`raise` then says `shift must be specified for qtypes lower than 8-bit`. The library raises nothing
itself (`implicit`), and the error starts in a package the profile declares as a backend.

Here the second library of tests/fixtures/tinylib_kb gets the same shape: `BoundedQueue.pack` imports
its backend `tinyback` when called (as transformers imports optimum.quanto) and calls its `pack`, which
raises. The backend lies in a `site-packages` folder, as an installed one does. Every check runs
through the real verifier on the upstream target, so what counts as the backend is what the check's
process found before the snippet ran, by file, never a name the snippet controls:

- the honest before passes only where the entry is `implicit` (the library has no raise of its own);
- the snippet raising the same words itself fails;
- a module of the snippet's folder named like the backend, which the library's late import picks up
  (the snippet's folder is first on the path), fails: its frames are the snippet's own code running
  inside the library's call;
- the snippet calling the real backend itself, with no frame of the documented function, fails.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"

BACKEND = '''\
"""A backend the library calls: it raises the error itself, as optimum-quanto does."""


def pack(items, scheme, shift=None):
    if scheme != "int8" and shift is None:
        raise ValueError(f"shift must be specified for {scheme}")
    return list(items)
'''

PACK = """
    def pack(self, scheme):
        from tinyback import pack

        return pack(self._items, scheme)
"""

ENTRY = """\
id: {id}
title: "The backend wants a shift"
library: example/tinyq
exception: ValueError
message: "shift must be specified for {{scheme}}"
{allow}source:
  path: src/tinyq/queue.py
  line: 24
  function: BoundedQueue.pack
  implicit: {implicit}
  release: 1.2.0
meaning: The backend packs items only with a shift below 8 bits.
trigger: Calling `pack` with a scheme below 8 bits.
situations:
  - Packing a queue with int4.
solutions:
  - title: Pack with int8
prevention:
  - Pack with int8.
guards:
  - {{title: Pack with int8, strategy: fallback, file: guard.py, expect: {{outcome: passes}}}}
"""

HONEST = 'from tinyq import BoundedQueue\n\nqueue = BoundedQueue(2)\nqueue.put("a")\nqueue.pack("int4")\n'
AFTER = (
    'from tinyq import BoundedQueue\n\nqueue = BoundedQueue(2)\nqueue.put("a")\nassert queue.pack("int8") == ["a"]\n'
)
BEFORES = {
    "pack-shift": HONEST,
    "pack-shift-not-implicit": HONEST,
    "pack-shift-own-raise": 'from tinyq import BoundedQueue\n\nqueue = BoundedQueue(2)\nqueue.pack("int8")\n'
    'raise ValueError("shift must be specified for int4")\n',
    "pack-shift-shadow": HONEST,  # with a tinyback/ of its own in the snippet folder
    "pack-shift-direct": "from tinyback import pack\nfrom tinyq import BoundedQueue\n\nqueue = BoundedQueue(2)\n"
    'queue.pack("int8")\npack(["a"], "int4")\n',
}
ALLOW = "allow:\n  - {primitive: import, reason: the snippet calls the backend itself}\n"
SHADOW = 'def pack(items, scheme, shift=None):\n    raise ValueError(f"shift must be specified for {scheme}")\n'


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    """The fixture with `tinyback` installed beside it as the profile's backend, and the entries above."""
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    site = root / "site-packages"
    (site / "tinyback").mkdir(parents=True)
    (site / "tinyback" / "__init__.py").write_text(BACKEND)
    for queue in (root / "upstream" / "tinyq" / "queue.py", root / "bundled" / "tinyq_bundled" / "queue.py"):
        queue.write_text(queue.read_text() + PACK)
    profile = root / "pyproject.toml"
    profile.write_text(profile.read_text().replace('runtime = "python"', 'runtime = "python"\nbackends = ["tinyback"]'))
    for name, before in BEFORES.items():
        (root / "docs" / "errors" / "tinyq" / f"{name}.yml").write_text(
            ENTRY.format(
                id=name,
                implicit="false" if name == "pack-shift-not-implicit" else "true",
                allow=ALLOW if name == "pack-shift-direct" else "",
            )
        )
        folder = root / "snippets" / name
        folder.mkdir()
        (folder / "before.py").write_text(before)
        (folder / "after.py").write_text(AFTER)
        (folder / "guard.py").write_text(AFTER)
    (root / "snippets" / "pack-shift-shadow" / "tinyback").mkdir()
    (root / "snippets" / "pack-shift-shadow" / "tinyback" / "__init__.py").write_text(SHADOW)
    importable(monkeypatch, root / "upstream", root / "bundled", site)
    return root


@pytest.mark.verifier
def test_only_the_backends_own_raise_beneath_the_function_passes(tinylib, capsys):
    report_file = tinylib / "r.json"
    main(
        ["--root", str(tinylib), "verify", *BEFORES, "--no-cache", "--target", "upstream", "--report", str(report_file)]
    )
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert report_file.is_file(), printed
    checks = {c["id"]: c for c in json.loads(report_file.read_text())["checks"]}

    def before(name: str) -> dict:
        return checks[f"{name}::before[upstream-cpu]"]

    honest = before("pack-shift")
    assert (honest["outcome"], honest["code"]) == ("pass", "raised-as-documented"), printed
    assert "BoundedQueue.pack" in honest["reason"] and "pack it called" in honest["reason"], honest["reason"]
    assert checks["pack-shift::after[upstream-cpu]"]["outcome"] == "pass", printed
    # The look-alike module is the snippet's own code running inside the library's call: refused as such.
    wanted = {
        "pack-shift-not-implicit": "wrong-raise-site",
        "pack-shift-own-raise": "wrong-raise-site",
        "pack-shift-shadow": "tampered",
        "pack-shift-direct": "wrong-raise-site",
    }
    for name, code in wanted.items():
        found = before(name)
        assert (found["outcome"], found["code"]) == ("fail", code), (name, found["reason"])

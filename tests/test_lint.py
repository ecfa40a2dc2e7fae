"""The reviewer's lint: every deception primitive flagged, nothing honest flagged, allowances that hold."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from errorkb.cli import main
from errorkb.core.lint import PRIMITIVES, lint_entries, lint_file, lint_source
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project

ROOT = Path(__file__).resolve().parent.parent
ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial_kb"


LIBRARY = ("transformers", "torch")  # what the transformers knowledge base's snippets may import


def lint(text: str, exception: str | None = "ValueError"):
    return lint_source(text, exception, LIBRARY)


def primitives(text: str, exception: str | None = "ValueError") -> set[str]:
    return {finding.primitive for finding in lint(text, exception)}


@pytest.mark.parametrize(("code", "primitive"), [
    ("import sys\nsys.settrace(None)\n", "settrace"),
    ("import sys as s\ns.settrace(None)\n", "settrace"),
    ("from sys import settrace\nsettrace(None)\n", "settrace"),
    ("import threading\nthreading.settrace(None)\n", "settrace"),
    ("import sys\ntracer = sys.gettrace()\n", "settrace"),
    ("import sys\nsys.setprofile(print)\n", "setprofile"),
    ("import _thread\n_thread.start_new_thread(print, ())\n", "_thread"),
    ("import signal\nsignal.signal(signal.SIGALRM, print)\n", "signal"),
    ("import os\nos.kill(os.getppid(), 9)\n", "os.kill"),
    ("import os\nos.killpg(0, 9)\n", "os.kill"),
    ("def f():\n    pass\nf.__code__ = (lambda: 1).__code__\n", "__code__"),
    ("exec(compile('1', 'x.py', 'exec'))\n", "exec"),
    ("c = f.__code__.replace(co_filename='cache_utils.py')\n", "code.replace"),
    ("import builtins\nbuiltins.len = lambda x: 4\n", "builtins"),
    ("import transformers\ntransformers.cache_utils.Cache.update = print\n", "monkeypatch"),
    ("from transformers import Cache\nCache.early_initialization = print\n", "monkeypatch"),
    ("import torch\ntorch.zeros = print\n", "monkeypatch"),
    ("import types\ncache.early_initialization = types.MethodType(print, cache)\n", "monkeypatch"),
    ("vars(cache)['update'] = print\n", "monkeypatch"),
    ("setattr(cache, 'update', print)\n", "monkeypatch"),
    ("class C:\n    __module__ = 'transformers.cache_utils'\n", "forged-identity"),
    ("class C(list):\n    def __len__(self):\n        raise ValueError('x')\n", "callback"),
    ("class C(list):\n    def __len__(self):\n        event.wait()\n        return 2\n", "callback"),
    ("try:\n    f()\nexcept ValueError:\n    pass\n", "catches-documented"),
    ("try:\n    f()\nexcept:\n    pass\n", "catches-documented"),
    ("raise ValueError('m').with_traceback(tb)\n", "traceback"),
    ("error.args = ('other message',)\n", "exception-args"),
    ("import sys\nframe = sys._getframe()\n", "frames"),
    ("x = frame.f_back.f_locals\n", "frames"),
    ("import gc\ngc.get_referrers(x)\n", "gc"),
    ("import ctypes\n", "ctypes"),
    ("import errorkb.verify.child\n", "errorkb"),
    ("from errorkb.verify import child\n", "errorkb"),
    ("open('/proc/1/fd/1', 'w')\n", "/proc"),
    ("import os\nos._exit(0)\n", "os._exit"),
    ("import threading\nthreading.Thread(target=f, daemon=True).start()\n", "daemon-thread"),
    ("worker.daemon = True\n", "daemon-thread"),
    ("import subprocess\n", "process"),
    ("import os\nos.fork()\n", "process"),
    ("import socket\n", "network"),
    ("open('out.txt', 'w').write('x')\n", "file-write"),
    ("from pathlib import Path\nPath('x').write_text('y')\n", "file-write"),
    ("import shutil\nshutil.rmtree('x')\n", "file-write"),
    ("import site\nsite.getsitepackages()\n", "startup-hook"),
    ("import sys\nsys.modules['transformers'] = fake\n", "import-system"),
    ("getattr(__import__('s' + 'ys'), name)\n", "import-system"),
    ("getattr(cache, name)(1)\n", "dynamic-attribute"),
    ("run = getattr(__builtins__, 'exec')\n", "builtins"),
    ("run = getattr(__builtins__, 'exec')\n", "exec"),
    ("import pickle\n", "pickle"),
    ("import marshal\n", "pickle"),
    ("import os\n", "os"),
    ("open(3, 'w')\n", "fd"),
    ("open('/etc/passwd')\n", "file"),
    ("open(name)\n", "file"),
    ("import email\n", "import"),
    ("from . import sibling\n", "import"),
    ("from transformers import DynamicCache\nclass Counting(DynamicCache):\n    def update(self, *a):\n"
     "        return super().update(*a)\n", "callback"),
    # a function of the snippet's put where the library (or its backend) will call it: its code runs inside
    # the library's call, which the verifier's judge refuses unless allowed (quanto-quantize-weight-shift-required)
    ("import optimum.quanto\ndef q(*a):\n    return a\noptimum.quanto.quantize_weight = q\n", "callback"),
    ("import transformers\ntransformers.cache_utils.Cache.update = lambda self, *a: a\n", "callback"),
    ("from functools import partial\ndef u(n, *a):\n    return a\ncache.update = partial(u, 1)\n", "callback"),
    ("def q(*a):\n    return a\nsetattr(cache, 'update', q)\n", "callback"),
    ("os_module = ().__class__.__base__.__subclasses__()\n", "dunder"),
    ("run = f.__globals__['exec']\n", "dunder"),
    ("from importlib.util import module_from_spec\n", "import-system"),
    ("from importlib.util import find_spec\nfind_spec('os').loader.load_module('os')\n", "import-system"),
    ("import importlib.util\nimportlib.util.spec_from_file_location('x', 'x.py')\n", "import-system"),
    ("from transformers import DynamicCache\nclass Quiet(DynamicCache):\n    def update(self, *a):\n        return None\n",
     "override"),
    ("from transformers import DynamicCache\ndef quiet(self, *a):\n    pass\nclass Quiet(DynamicCache):\n"
     "    update = quiet\n", "override"),
])
def test_each_primitive_is_flagged(code, primitive):
    assert primitive in PRIMITIVES
    assert primitive in primitives(code), lint(code)


@pytest.mark.parametrize("code", [
    "import torch\nfrom transformers import DynamicCache, LlamaConfig\nconfig = LlamaConfig()\n"
    "config.sliding_window = None\ncache = DynamicCache(config=config)\n",
    "import re\nimport torch\npattern = re.compile('x')\nmodel = torch.compile(f)\n",
    "class Layers(list):\n    def __len__(self):\n        return len(self.items)\n",
    "class Cache:\n    def __init__(self):\n        self.x = 1\n        raise ValueError('a guard of its own')\n",
    "from importlib.util import find_spec\nhqq = find_spec('hqq') is not None\n",
    "with open('data.txt') as f:\n    text = f.read()\n",
    "from importlib.metadata import PackageNotFoundError, version\ntry:\n    version('x')\n"
    "except PackageNotFoundError:\n    pass\n",
])
def test_honest_code_is_not_flagged(code):
    assert lint(code) == []


def test_a_patch_whose_value_is_no_code_of_the_snippet_s_is_no_callback():
    """`torch.zeros = print` replaces an attribute (monkeypatch), but no code of the snippet's runs inside
    the library's call; a function the snippet defines, put in its place, does (the judge says so too)."""
    assert primitives("import torch\ntorch.zeros = print\n") == {"monkeypatch"}
    assert primitives("from functools import partial\ncache.update = partial(print, 1)\n") == {"monkeypatch"}
    assert primitives("import torch\ndef z(*a):\n    return a\ntorch.zeros = z\n") == {"monkeypatch", "callback"}


# Attacks on the judge's identity rules, in code a reviewer would pass: the judge, not the lint, stops them.
JUDGED = ("guard-raises-untouched", "sibling-wide-wording", "signature-wraps-lookalike", "removed-delete-restore",
          "c-gadget-raise",  # its before uses nothing the lint reads as an attack: the observer judges it (tampered)
          "user-code-planted",  # the same, run into by the user's own code a user_code entry declares
          "c-object-factory",  # the same, held by a C object that calls it (a defaultdict's factory)
          "partial-chosen-data",  # a partial of Python's own `int` over a word, as the factory the library calls
          "metaclass-gadget", "weak-proxy-gadget")  # C code planted behind a metaclass, behind a weak proxy


def test_every_attack_of_the_adversarial_fixture_is_flagged():
    unflagged = []
    for snippet in sorted((ADVERSARIAL / "snippets").glob("*/*.py")):
        if snippet.parent.name in JUDGED:
            continue
        entry = yaml.safe_load((ADVERSARIAL / "docs/errors/transformers" / f"{snippet.parent.name}.yml").read_text())
        if not lint_file(snippet, entry["exception"], LIBRARY):
            unflagged.append(str(snippet.relative_to(ADVERSARIAL)))
    assert len(list((ADVERSARIAL / "snippets").glob("*/*.py"))) >= 63
    assert unflagged == []


def test_the_knowledge_base_has_no_false_positives():
    project = load_project(ROOT)
    loaded = load_project_entries(project)
    assert loaded.problems == []
    assert lint_entries(loaded.entries, project) == []


def test_check_reports_each_use_with_its_place_and_what_to_do(tmp_path, capsys):
    root = make_project(tmp_path, snippets={"demo-error": {
        "before.py": BEFORE, "after.py": "import sys\nsys.settrace(None)\n" + AFTER, "guard.py": AFTER}})
    assert main(["--root", str(root), "check"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    # what to write says how to write it: the entry's key and the primitive's name (a newcomer had to find
    # docs/threat-model.md), and, for an import, the profile's `imports` where it is the library's host
    assert lines == ["snippets/demo-error/after.py:1:1: import (import sys): imports a module outside what snippets "
                     "may use (the library, its runtime, the profile's `imports`, modules beside the snippet and a few "
                     "standard ones); allow it in the entry (allow: [{primitive: import, reason: ...}]), "
                     "or remove it",
                     "snippets/demo-error/after.py:2:1: settrace (sys.settrace): turns off or rewires the verifier's "
                     "call tracer; allow it in the entry (allow: [{primitive: settrace, reason: ...}]), or remove it"]


ALLOW_ENTRY = VALID_ENTRY.format(id="demo-error").replace("related: []\n", """related: []
allow:
  - primitive: signal
    reason: the error is about a timeout, so the snippet arms SIGALRM as a user would
""")
SIGNALS = "import signal\nsignal.alarm(0)\n" + AFTER


def test_an_allowance_with_a_reason_lets_the_primitive_pass(tmp_path):
    root = make_project(tmp_path, {"demo-error.yml": ALLOW_ENTRY},
                        {"demo-error": {"before.py": BEFORE, "after.py": SIGNALS, "guard.py": AFTER}})
    assert main(["--root", str(root), "check"]) == 0


def test_an_allowance_that_matches_nothing_is_a_problem(tmp_path, capsys):
    root = make_project(tmp_path, {"demo-error.yml": ALLOW_ENTRY},
                        {"demo-error": {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER}})
    assert main(["--root", str(root), "check"]) == 1
    assert capsys.readouterr().err.strip() == (
        "docs/errors/transformers/demo-error.yml:28:5: allowance for 'signal' matches nothing in the snippets of "
        "'demo-error'; remove it")


def test_a_snippets_own_allowance_covers_that_snippet_only(tmp_path, capsys):
    entry = VALID_ENTRY.format(id="demo-error").replace(
        "guards:\n", "after:\n  file: after.py\n  allow:\n    - {primitive: signal, reason: a timeout error}\nguards:\n")
    root = make_project(tmp_path, {"demo-error.yml": entry},
                        {"demo-error": {"before.py": BEFORE, "after.py": SIGNALS, "guard.py": SIGNALS}})
    assert main(["--root", str(root), "check"]) == 1
    problems = capsys.readouterr().err.strip().splitlines()
    assert problems and all(line.startswith("snippets/demo-error/guard.py:") for line in problems)


@pytest.mark.parametrize(("allow", "expected"), [
    ("  - {primitive: signal, reason: ''}", "allow[0].reason: String should match pattern"),
    ("  - {primitive: signal}", "missing required key 'reason'"),
    ("  - {primitive: settrase, reason: a typo}", "allow[0].primitive: unknown primitive 'settrase'; known: "),
])
def test_an_allowance_needs_a_known_primitive_and_a_reason(tmp_path, capsys, allow, expected):
    entry = VALID_ENTRY.format(id="demo-error").replace("related: []\n", f"related: []\nallow:\n{allow}\n")
    root = make_project(tmp_path, {"demo-error.yml": entry})
    assert main(["--root", str(root), "check"]) == 1
    assert expected in capsys.readouterr().err


# -- the allow-list (issue 20): what snippets may use is stated, everything else is flagged ---------------


@pytest.mark.parametrize("code", [
    "run = getattr(__builtins__, 'exec')\nrun('print(1)')\n",
    "run = __builtins__['exec']\nrun('print(1)')\n",
    "import builtins\nbuiltins.__dict__['ex' + 'ec']('print(1)')\n",
    "import pickle\npickle.loads(b'cbuiltins\\nexec\\n(Vprint(1)\\ntR.')\n",
    "import marshal\nmarshal.loads(data)\n",
    "import os\nos.dup2(4, 3)\n",
    "import os\nfd = os.open('/pr' + 'oc/self/fd/3', 0)\n",
    "import io\nio.FileIO(3, 'w')\n",
    "open(3, 'w')\n",
    "import copyreg\n",
    "import importlib\nimportlib.import_module('o' + 's')\n",
    "name = 'early_initialization'\ngetattr(cache, name)(1)\n",
    "import operator\noperator.attrgetter('__code__')(f)\n",
    "open('/etc/passwd').read()\n",
    "open('../other-entry/before.py').read()\n",
    "import email\n",
])
def test_everything_outside_the_allow_list_is_flagged(code):
    """The lint of issue 12 named what is dangerous; these reach the same through what it did not name."""
    assert lint(code) != [], code


def test_a_helper_module_beside_a_snippet_is_linted_as_a_snippet(tmp_path):
    root = make_project(tmp_path, snippets={"demo-error": {
        "before.py": BEFORE, "after.py": "from lib import helper\n" + AFTER, "guard.py": AFTER}})
    (root / "snippets" / "demo-error" / "lib").mkdir()
    (root / "snippets" / "demo-error" / "lib" / "helper.py").write_text("import os\nos.dup2(4, 3)\n")
    project = load_project(root)
    problems = [str(problem) for problem in lint_entries(load_project_entries(project).entries, project)]
    assert any(problem.startswith("snippets/demo-error/lib/helper.py:1:1: os (import os)") for problem in problems), \
        problems

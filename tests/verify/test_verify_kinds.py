"""Errors about a removed name or a changed signature, and other wordings of an error: judged by
identity (the library's own class or module, the interpreter's own instruction), never by words."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify
from errorkb.verify.records import Code, Outcome
from tests.kb import BEFORE as KB_BEFORE
from tests.kb import make_project
from tests.lean import checks_in
from tests.verify.verifykb import allowing

COMMON = """\
library: huggingface/transformers
meaning: What it means.
trigger: When it happens.
situations: [A situation.]
solutions: [{title: A solution}]
prevention: [A prevention.]
guards:
  - {title: A guard, strategy: fallback, file: guard.py, expect: {outcome: passes}}
"""
REMOVED_METHOD = """\
id: {id}
title: A removed method
kind: removed
api: {owner: transformers.DynamicCache, name: get_usable_length}
exception: AttributeError
message: "'DynamicCache' object has no attribute 'get_usable_length'"
releases: {raises: ">=5.0", last_good: 4.57.6, replacement: "`cache.get_seq_length()`"}
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1489
  function: Cache.get_seq_length
  release: 5.15.1
  implicit: true
""" + COMMON
REMOVED_IMPORT = """\
id: {id}
title: A removed class
kind: removed
api: {owner: transformers, name: HybridCache}
exception: ImportError
message: "cannot import name 'HybridCache' from 'transformers' ({path})"
releases: {raises: ">=5.0"}
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1489
  function: Cache.get_seq_length
  release: 5.15.1
  implicit: true
""" + COMMON
SETUP = "from transformers import DynamicCache\ncache = DynamicCache()\n"
AFTER = SETUP + "assert cache.get_seq_length() == 0\n"


CASES: dict[str, tuple[str, str, str]] = {}  # case → (entry, before, after): every verification of the module


def case(name: str, entry: str, before: str, after: str = AFTER) -> str:
    """Declare one verification (`name` is its entry's id); `verdicts` runs them all at once."""
    assert name not in CASES, name
    CASES[name] = (entry.replace("{id}", name), before, after)
    return name


@dataclass
class Verdicts:
    """Every case's records, by case and role, and what loading the cases' entries found wrong."""

    checks: dict[str, dict]
    problems: list[str]

    def __call__(self, name: str) -> dict:
        """`name`'s records by role, once its entry loaded cleanly and all three of its checks ran."""
        problems = [problem for problem in self.problems if f"{name}.yml" in problem]
        assert problems == [], problems
        found = self.checks.get(name, {})
        assert set(found) == {"before", "after", "guard:guard"}, (name, sorted(found))
        return found


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, lean_python) -> Verdicts:
    """Every case's entry in one project, verified in one run: one sandboxed zygote (torch and the bundled
    cache imported once, several seconds) instead of one per case; each check still runs in a process of
    its own, forked for it, so no case sees another's."""
    root = tmp_path_factory.mktemp("kinds")
    make_project(root, entries={f"{name}.yml": allowing(entry, before) for name, (entry, before, _) in CASES.items()},
                 snippets={name: {"before.py": before, "after.py": after, "guard.py": after}
                           for name, (_, before, after) in CASES.items()})
    project = load_project(root)
    loaded = load_project_entries(project)
    with checks_in(lean_python):  # no case uses hqq (tests/lean.py)
        report = verify(project, loaded.entries, targets=["bundled"], devices=["cpu"], jobs=1)
    checks: dict[str, dict] = {}
    for record in report.checks:
        checks.setdefault(record.entry, {})[record.role] = record
    return Verdicts(checks, [str(problem) for problem in loaded.problems])


def test_every_case_loads_and_is_verified(verdicts):
    assert verdicts.problems == []
    assert set(verdicts.checks) == set(CASES)


REMOVED_METHOD_CALLED = case("removed-method-called", REMOVED_METHOD, SETUP + "cache.get_usable_length(3, 0)\n")


def test_a_removed_method_called_on_the_library_object_passes(verdicts):
    records = verdicts(REMOVED_METHOD_CALLED)
    before = records["before"]
    assert (before.outcome, before.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), before.reason
    assert before.exception.api.via == "attribute" and before.exception.api.owner_is_target
    assert records["after"].outcome is Outcome.PASS, records["after"].reason


SOMETHING_ELSE = [case(f"removed-name-something-else-{index}", REMOVED_METHOD, before) for index, before in enumerate([
    # a look-alike class of the same name, written in the snippet
    "class DynamicCache:\n    pass\n\nDynamicCache().get_usable_length(3, 0)\n",
    # the words, raised by hand
    "raise AttributeError(\"'DynamicCache' object has no attribute 'get_usable_length'\")\n",
    # a subclass written in the snippet that hides the name
    SETUP + "class Mine(DynamicCache):\n    __qualname__ = 'DynamicCache'\n    def __getattr__(self, name):\n"
            "        raise AttributeError(f\"'DynamicCache' object has no attribute '{name}'\")\n"
            "Mine().get_usable_length(3, 0)\n",
    # the library's real object, but another name that happens to produce the documented words
    SETUP + "getattr(cache, 'get_usable' + '_length')(3, 0)\n",
])]


@pytest.mark.parametrize("name", SOMETHING_ELSE, ids=["look-alike-class", "raised-by-hand", "own-getattr", "getattr-builtin"])
def test_a_removed_name_error_about_something_else_fails(verdicts, name):
    record = verdicts(name)["before"]
    assert (record.outcome, record.code) == (Outcome.FAIL, Code.NOT_THE_LIBRARY), record.reason


IMPORTED = case("removed-class-imported", REMOVED_IMPORT, "from transformers import HybridCache\n")
IMPORTED_FROM_FAKE = case("removed-class-fake-module", REMOVED_IMPORT,
                          "import sys, types\nsys.modules['transformers'] = types.ModuleType('transformers')\n"
                          "from transformers import HybridCache\n")


def test_a_removed_class_imported_from_the_library_passes_and_a_fake_module_does_not(verdicts):
    good = verdicts(IMPORTED)["before"]
    assert (good.outcome, good.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), good.reason
    assert good.exception.api.via == "import" and good.exception.api.name == "HybridCache"
    bad = verdicts(IMPORTED_FROM_FAKE)["before"]
    assert bad.outcome is Outcome.FAIL and bad.code in (Code.NOT_THE_LIBRARY, Code.TAMPERED), bad.reason


STILL_EXISTS = case("removed-name-still-exists", REMOVED_METHOD.replace("get_usable_length", "get_seq_length"),
                    SETUP + "cache.get_seq_length()\n")


def test_a_removed_name_that_still_exists_reports_that_the_old_api_ran(verdicts):
    """The version matrix learns "worked until" from this: the old call ran, every call returned."""
    record = verdicts(STILL_EXISTS)["before"]
    assert (record.outcome, record.code) == (Outcome.FAIL, Code.OLD_API_RAN), record.reason
    assert record.old_calls.count == 1 and record.old_calls.returned == 1


ANOTHER_WORDING = textwrap.dedent("""\
        id: {id}
        title: Indexing a cache
        exception: KeyError
        message: "'Cache only has {n} layers, attempted to access layer with index {idx}'"
        releases: {raises: ">=4.36,<4.54 || >=5.0"}
        also_seen_as:
          - {exception: TypeError, message: "'DynamicCache' object is not subscriptable", releases: ">=5.0"}
        source:
          commit: a597f974857b3d92939971296bc0deb93d33d780
          path: src/transformers/cache_utils.py
          line: 1489
          function: Cache.get_seq_length
          release: 5.15.1
          implicit: true
        """) + COMMON
ANOTHER_WORDING_RAISED = case("another-wording-raised", ANOTHER_WORDING, SETUP + "cache[0]\n")
ANOTHER_WORDING_BY_HAND = case("another-wording-by-hand", ANOTHER_WORDING,
                               "raise TypeError(\"'DynamicCache' object is not subscriptable\")\n")


def test_another_wording_counts_only_where_it_applies(verdicts):
    """`also_seen_as` wordings: matched in their releases, raised by the interpreter, not by hand."""
    records = verdicts(ANOTHER_WORDING_RAISED)
    assert (records["before"].outcome, records["before"].wording) == (Outcome.PASS, 1), records["before"].reason
    forged = verdicts(ANOTHER_WORDING_BY_HAND)
    assert (forged["before"].outcome, forged["before"].code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE)


REMOVED_CLASS_ATTRIBUTE = REMOVED_METHOD.replace("get_usable_length", "from_legacy_cache").replace(
    "message: \"'DynamicCache' object has no attribute 'from_legacy_cache'\"",
    "message: \"type object 'DynamicCache' has no attribute 'from_legacy_cache'\"")


ON_THE_CLASS = case("removed-name-on-the-class", REMOVED_CLASS_ATTRIBUTE, SETUP + "DynamicCache.from_legacy_cache(())\n")
ON_A_CLASS_OF_THE_SNIPPET = case("removed-name-on-a-snippet-class", REMOVED_CLASS_ATTRIBUTE,
                                 SETUP + "type('DynamicCache', (DynamicCache,), {}).from_legacy_cache(())\n")


def test_a_removed_name_looked_up_on_the_library_class_itself_passes(verdicts):
    """`DynamicCache.from_legacy_cache(...)`: Python says `type object 'DynamicCache'`; the class is the owner."""
    record = verdicts(ON_THE_CLASS)["before"]
    assert (record.outcome, record.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), record.reason


def test_a_class_written_in_the_snippet_under_the_library_name_still_fails(verdicts):
    record = verdicts(ON_A_CLASS_OF_THE_SNIPPET)["before"]
    assert (record.outcome, record.code) == (Outcome.FAIL, Code.NOT_THE_LIBRARY), record.reason


NOT_IMPLEMENTED = case("removed-name-not-bundled",
                       REMOVED_METHOD.replace("owner: transformers.DynamicCache", "owner: transformers.LlamaForCausalLM"),
                       "from transformers import LlamaForCausalLM\n")


def test_the_bundled_target_does_not_apply_to_a_name_it_does_not_implement(verdicts):
    """The bundled implementation reproduces the cache API: a model class's removed helper is upstream's only."""
    records = verdicts(NOT_IMPLEMENTED)
    assert {record.outcome for record in records.values()} == {Outcome.NOT_APPLICABLE}
    assert "has no transformers.LlamaForCausalLM" in records["before"].reason


def test_an_owner_a_lazy_package_has_not_loaded_yet_still_resolves(monkeypatch):
    """transformers exports model classes through a module `__getattr__`: the owner must resolve
    before the snippet imports it, and a name the package does not export must not."""
    import sys
    import types

    from errorkb.verify.inside.identity import resolve_owner

    class Model:
        pass

    package = types.ModuleType("lazypkg")
    package.__getattr__ = lambda name: Model if name == "Model" else (_ for _ in ()).throw(AttributeError(name))
    monkeypatch.setitem(sys.modules, "lazypkg", package)
    assert resolve_owner("lazypkg.Model") is Model
    assert resolve_owner("lazypkg.Missing") is None


TWO_PLACES_MESSAGE = ("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
               "{len(self.layers)} layers")
TWO_PLACES = textwrap.dedent("""\
        id: {id}
        title: One message, two raise sites
        exception: ValueError
        message: "MESSAGE"
        source:
          commit: a597f974857b3d92939971296bc0deb93d33d780
          path: src/transformers/cache_utils.py
          line: 1489
          function: Cache.get_seq_length
          release: 5.15.1
          implicit: true
        """).replace("MESSAGE", TWO_PLACES_MESSAGE) + COMMON
ELSEWHERE = case("same-words-elsewhere", TWO_PLACES, KB_BEFORE)
PLACED = case("same-words-placed", TWO_PLACES + f"also_seen_as:\n  - {{message: \"{TWO_PLACES_MESSAGE}\", "
                                                "function: Cache.early_initialization}\n", KB_BEFORE)


def test_the_same_words_from_another_place_pass_as_the_wording_that_names_that_place(verdicts):
    """A message raised from one function in some releases and another in others: one wording each."""
    elsewhere = verdicts(ELSEWHERE)["before"]
    assert (elsewhere.outcome, elsewhere.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), elsewhere.reason
    record = verdicts(PLACED)["before"]
    assert (record.outcome, record.wording) == (Outcome.PASS, 1), record.reason


OVERFLOW = textwrap.dedent("""\
        id: {id}
        title: A static cache overflow
        exception: IndexError
        message: "index_copy_(): index {index} is out of bounds for dimension 2 with size {size}"
        also_seen_as:
          - {message: "index_copy_(): index {index} is out of bounds for dimension 2 with size {size}",
             function: StaticLayer.update}
        source:
          commit: a597f974857b3d92939971296bc0deb93d33d780
          path: src/transformers/cache_utils.py
          line: 1489
          function: Cache.get_seq_length
          release: 5.15.1
          implicit: true
        """) + COMMON
OVERFLOWED = case("words-of-another-function", OVERFLOW,
                  "import torch\nfrom transformers import LlamaConfig, StaticCache\n"
                  "config = LlamaConfig(num_hidden_layers=1, hidden_size=32, num_attention_heads=2)\n"
                  "cache = StaticCache(config=config, max_cache_len=2)\n"
                  "kv = torch.randn(1, 2, 3, 16)\ncache.update(kv, kv, 0)\n")


def test_the_same_words_raised_by_another_function_count_where_a_wording_names_it(verdicts):
    """A wording with its own `function` is judged even when the entry's own message, tried first,
    has the same words: it was raised there, not from `source.function`."""
    record = verdicts(OVERFLOWED)["before"]
    assert (record.outcome, record.wording) == (Outcome.PASS, 1), record.reason
    assert "from StaticLayer.update" in record.reason


OTHER_MODULE = case(
    "module-not-bundled",
    REMOVED_METHOD.replace("kind: removed\napi: {owner: transformers.DynamicCache, name: get_usable_length}\n", "")
    .replace("src/transformers/cache_utils.py", "src/transformers/generation/utils.py")
    .replace("function: Cache.get_seq_length", "function: GenerationMixin._sample")
    .replace("message: \"'DynamicCache' object has no attribute 'get_usable_length'\"",
             "message: \"'DynamicCache' object has no attribute 'get_usable_length' here\""),
    SETUP + "cache.get_usable_length(3, 0)\n")


def test_an_error_of_a_module_the_bundled_implementation_lacks_is_not_applicable_there(verdicts):
    """The bundled implementation reproduces the cache module only: generation or model errors are
    checked upstream, and the bundled target says why it does not apply."""
    records = verdicts(OTHER_MODULE)
    for record in records.values():
        assert record.outcome is Outcome.NOT_APPLICABLE, record.reason
        assert "has no transformers.generation.utils" in record.reason


def test_a_key_error_is_documented_with_the_quotes_python_prints():
    """`KeyError('x')` prints as `'x'`: the pin of an entry documenting it quoted holds."""
    from errorkb.source.drift import same_message

    assert same_message("Cache only has {n} layers", "KeyError", "'Cache only has {n} layers'")
    assert not same_message("Cache only has {n} layers", "ValueError", "'Cache only has {n} layers'")
    assert same_message("plain", "ValueError", "plain")


# -- errors raised under the function: by the runtime's own code, or by the user's code it calls ---------

ZERO_DIM = """\
id: {id}
title: A size passed as a 0-d tensor
exception: TypeError
message: "len() of a 0-d tensor"
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1466
  function: Cache.early_initialization
  implicit: true
  release: 5.15.1
""" + COMMON
ZERO_DIM_BEFORE = ("import torch\nfrom transformers import DynamicCache\ncache = DynamicCache()\n"
                   "cache.early_initialization(1, torch.tensor(6), 64, torch.float32, 'cpu')\n")
RUNTIME_BENEATH = case("runtime-beneath-implicit", ZERO_DIM, ZERO_DIM_BEFORE)
RUNTIME_BENEATH_NOT_IMPLICIT = case("runtime-beneath-not-implicit", ZERO_DIM.replace("  implicit: true\n", ""),
                                    ZERO_DIM_BEFORE)
RUNTIME_FROM_CALLBACK = case("runtime-from-snippet-callback", ZERO_DIM,
                             "import torch\nfrom transformers import DynamicCache\ncache = DynamicCache()\n"
                             "class Heads(list):\n    def __len__(self):\n        return len(torch.tensor(6))\n"
                             "cache.early_initialization(1, Heads([4]), 64, torch.float32, 'cpu')\n")


def test_an_error_the_runtime_raises_under_an_implicit_entrys_function_is_the_functions(verdicts):
    """torch raises it in `Tensor.__len__`, which `early_initialization` called: only torch between."""
    record = verdicts(RUNTIME_BENEATH)["before"]
    assert (record.outcome, record.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), record.reason
    assert record.exception.started.where == "beneath" and "Tensor.__len__" in record.reason


def test_the_same_error_under_an_entry_not_marked_implicit_is_misplaced(verdicts):
    record = verdicts(RUNTIME_BENEATH_NOT_IMPLICIT)["before"]
    assert (record.outcome, record.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), record.reason


def test_the_runtimes_error_raised_from_a_snippet_callback_under_the_function_is_not_the_functions(verdicts):
    """The snippet's own `__len__` between the function and torch: the snippet raised it, not the library."""
    record = verdicts(RUNTIME_FROM_CALLBACK)["before"]
    assert record.outcome is Outcome.FAIL, record.reason


UNPACK = """\
id: {id}
title: User code unpacking what the library returned
exception: ValueError
message: "too many values to unpack (expected 2)"
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1489
  function: Cache.get_seq_length
  implicit: true
  user_code: true
  release: 5.15.1
""" + COMMON
UNPACKED_UNDER = case("user-code-under-the-function", UNPACK,
                      "from transformers import DynamicCache\n"
                      "class Mine(DynamicCache):\n"
                      "    def __init__(self):\n        super().__init__()\n        self.layers = Layers([None])\n"
                      "class Layers(list):\n    def __getitem__(self, index):\n        a, b = (1, 2, 3)\n"
                      "Mine().get_seq_length()\n")
UNPACKED_ELSEWHERE = [case(f"user-code-elsewhere-{index}", UNPACK, before) for index, before in enumerate([
    "a, b = (1, 2, 3)\n",  # never under the function
    "from transformers import DynamicCache\nDynamicCache().get_seq_length()\n"
    "raise ValueError('too many values to unpack (expected 2)')\n",  # a raise statement
])]


def test_a_user_code_entry_passes_when_python_raises_it_in_the_code_the_function_called(verdicts):
    record = verdicts(UNPACKED_UNDER)["before"]
    assert (record.outcome, record.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), record.reason
    assert "Cache.get_seq_length" in record.exception.started.through


@pytest.mark.parametrize("name", UNPACKED_ELSEWHERE, ids=["not-under-the-function", "raised-by-hand"])
def test_a_user_code_entry_fails_when_the_error_never_unwound_the_function(verdicts, name):
    record = verdicts(name)["before"]
    assert record.outcome is Outcome.FAIL, record.reason


INHERITED = case("inherited-function",
                 REMOVED_METHOD.replace("function: Cache.get_seq_length", "function: DynamicCache.get_max_cache_shape"),
                 SETUP + "cache.get_usable_length(3, 0)\n", after=SETUP + "assert cache.get_max_cache_shape() == -1\n")


def test_a_function_the_class_inherits_is_not_taken_for_a_replaced_one(verdicts):
    """`DynamicCache.get_max_cache_shape` is `Cache`'s in 5.x: resolved through the MRO before the
    snippet ran, and compared the same way at the end (it was reported 'replaced')."""
    records = verdicts(INHERITED)
    assert records["after"].outcome is Outcome.PASS and not records["after"].tampered, records["after"].reason
    assert records["before"].outcome is Outcome.PASS, records["before"].reason

"""`errorkb new`: from a pasted traceback (or a similar entry) to stubs that load at once, say
what they still lack, and never overwrite a file; hostile pastes first."""

from __future__ import annotations

import io
import re
import sys
import time

import pytest
import yaml

from errorkb.author import scaffold
from errorkb.cli import main
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from tests.kb import copy_kb

SITE = "/venv/lib/python3.11/site-packages/transformers"
HEAD_DIM_TB = f"""Traceback (most recent call last):
  File "/home/me/export.py", line 14, in <module>
    cache.early_initialization(2, num_heads=8, head_dim=[128, 128], dtype=torch.float32, device="cpu")
  File "{SITE}/cache_utils.py", line 1471, in early_initialization
    raise ValueError(
ValueError: `head_dim` was provided as a list of length 12, but the Cache currently has 12 layers
"""
CAT_TB = f"""Traceback (most recent call last):
  File "/home/me/chat.py", line 9, in <module>
    cache.update(k, v, layer_idx=0)
  File "{SITE}/cache_utils.py", line 925, in update
    keys, values = self.layers[layer_idx].update(key_states, value_states, *args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SITE}/cache_utils.py", line 144, in update
    self.keys = torch.cat([self.keys, key_states], dim=-2)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Sizes of tensors must match except in dimension 2. Expected size 2 but got size 1 for tensor number 1 in the list.
"""
IMPORT_TB = """Traceback (most recent call last):
  File "/home/me/old_script.py", line 3, in <module>
    from transformers import HybridCache
ImportError: cannot import name 'HybridCache' from 'transformers' (/venv/lib/python3.11/site-packages/transformers/__init__.py)
"""

# torch.export of a model that returns its cache (torch 2.13.0's own raise; no frame of the library's),
# shortened from the real traceback of snippets/torch-export-dynamic-cache-output/before.py
TORCH = "/venv/lib/python3.11/site-packages/torch"
EXPORT_MESSAGE = ("Found <class 'transformers.cache_utils.DynamicCache'> in output, which is not a known type. If "
                  "this type holds tensors, you need to register a pytree for it. See "
                  "https://github.com/pytorch/functorch/issues/475 for a brief explanation why. If you don't need to "
                  "register a pytree, please leave a comment explaining your use case and we'll make this more "
                  "ergonomic to deal with")
EXPORT_TB = f"""Traceback (most recent call last):
  File "/home/me/export_llm.py", line 13, in <module>
    program = torch.export.export(model, (input_ids,), {{"use_cache": True}})
  File "{TORCH}/export/__init__.py", line 205, in export
    raise e
  File "{TORCH}/export/_trace.py", line 1798, in wrapped_fn
    return tuple(flat_fn(*args))
                 ^^^^^^^^^^^^^^
  File "{TORCH}/_functorch/_aot_autograd/utils.py", line 197, in flat_fn
    raise RuntimeError(
RuntimeError: {EXPORT_MESSAGE}
"""


@pytest.fixture
def kb(tmp_path):
    return copy_kb(tmp_path / "kb", ["head-dim-list-length", "num-heads-list-length"])


def new(kb, *args: str, paste: str | None = None, capsys=None) -> int:
    if paste is not None:
        sys.stdin = io.StringIO(paste)
    try:
        return main(["--root", str(kb), "new", *args])
    finally:
        sys.stdin = sys.__stdin__


def entry_text(kb, entry_id: str) -> str:
    return (kb / "docs/errors/transformers" / f"{entry_id}.yml").read_text()


def loads_cleanly(kb) -> dict:
    result = load_project_entries(load_project(kb))
    assert [str(p) for p in result.problems] == []
    return {one.entry.id: one.entry for one in result.entries}


# -- hostile pastes first ---------------------------------------------------------------------


def test_a_huge_paste_full_of_escapes_is_read_in_bounded_time_and_never_written_raw(kb):
    noise = "\x1b[31m\x07\x00\x1b]0;title\x07 junk line\r\n" * 400_000  # ~14 MB
    started = time.perf_counter()
    assert new(kb, "huge-paste", "--from-traceback", "-", paste=noise + HEAD_DIM_TB.replace("\n", "\r\n")) == 0
    assert time.perf_counter() - started < 10
    for path in [kb / "docs/errors/transformers/huge-paste.yml", *(kb / "snippets/huge-paste").iterdir()]:
        text = path.read_text()
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), path
    assert loads_cleanly(kb)["huge-paste"].source.line == 1471


def test_a_message_built_to_break_out_of_yaml_stays_one_value(kb):
    message = 'x": 1, meaning: pwned # {a} \\ `{{b}}` \'q\' 12 [1, 2] "\\u2028" &anchor *alias !!python/object'
    paste = f'Traceback (most recent call last):\n  File "/me/x.py", line 1, in <module>\n    f()\nValueError: {message}\n'
    assert new(kb, "yaml-escape", "--from-traceback", "-", paste=paste) == 0
    entry = loads_cleanly(kb)["yaml-escape"]
    assert "pwned" in entry.message and entry.meaning.startswith("TODO:")  # never became a key of its own
    assert entry.template.match(message) is not None, entry.message


def test_characters_yaml_reads_as_line_breaks_are_escaped():
    assert yaml.safe_load("v: " + scaffold.yaml_string("a\u2028b\x85c\ufeffd\n")) == {"v": "a\u2028b\x85c\ufeffd\n"}


def test_a_message_too_generic_to_identify_an_error_still_gives_a_stub_that_loads(kb):
    assert new(kb, "generic", "--from-traceback", "-", paste="ValueError: x: 1\n") == 0
    entry = loads_cleanly(kb)["generic"]
    assert entry.message.startswith("TODO: the template of this too generic message: x: 1")
    assert "# TODO: the pasted message is too generic" in entry_text(kb, "generic")


def test_a_message_longer_than_an_entry_takes_is_refused(kb, capsys):
    paste = "ValueError: " + "`head_dim` " * 1000
    assert new(kb, "too-long", "--from-traceback", "-", paste=paste) == 1
    assert "takes messages up to 2,000" in capsys.readouterr().err
    assert not (kb / "snippets/too-long").exists()


# -- from a traceback -------------------------------------------------------------------------


def test_a_raise_of_the_library_is_pinned_by_ast_with_the_sources_own_template(kb):
    assert new(kb, "head-dim-again", "--from-traceback", "-", paste=HEAD_DIM_TB) == 0
    entry = loads_cleanly(kb)["head-dim-again"]
    assert entry.message == ("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently "
                             "has {len(self.layers)} layers")
    assert entry.expect.placeholders == {"len(num_heads)": "12", "len(self.layers)": "12"}
    source = entry.source
    assert (source.path, source.line, source.function, source.release, source.implicit) == (
        "src/transformers/cache_utils.py", 1471, "Cache.early_initialization", "5.15.1", False)
    assert source.commit == "a597f974857b3d92939971296bc0deb93d33d780"  # the profile's commit of that release
    assert entry.kind == "raise" and entry.title.startswith("TODO:")
    before = (kb / "snippets/head-dim-again/before.py").read_text()
    assert "# --8<-- [start:show]\ncache.early_initialization(2, num_heads=8, head_dim=[128, 128]" in before
    assert "# TODO: set up what the call below uses (the paste's frame: export.py, line 14" in before
    assert "/home/me" not in before  # the author machine's path stays out of the committed stub
    assert main(["--root", str(kb), "check"]) == 0


def test_an_error_the_runtime_raises_inside_the_library_is_implicit_with_placeholders_to_confirm(kb):
    assert new(kb, "cat-mismatch", "--from-traceback", "-", paste=CAT_TB) == 0
    entry = loads_cleanly(kb)["cat-mismatch"]
    assert entry.exception == "RuntimeError"
    assert entry.message == ("Sizes of tensors must match except in dimension {n}. Expected size {n2} but got size "
                             "{n3} for tensor number {n4} in the list.")
    assert (entry.source.line, entry.source.function, entry.source.implicit) == (144, "DynamicLayer.update", True)
    text = entry_text(kb, "cat-mismatch")
    assert "# TODO: confirm the placeholders" in text
    assert '#     {n} was "2"' in text and '#     {n2} was "2"' in text and '#     {n3} was "1"' in text


def test_a_name_the_library_no_longer_has_is_kind_removed_and_its_before_is_the_paste(kb):
    assert new(kb, "hybrid-cache-import", "--from-traceback", "-", paste=IMPORT_TB) == 0
    entry = loads_cleanly(kb)["hybrid-cache-import"]
    assert entry.kind == "removed" and (entry.api.owner, entry.api.name) == ("transformers", "HybridCache")
    assert entry.exception == "ImportError"
    assert entry.message == "cannot import name 'HybridCache' from 'transformers' ({path})"
    assert "# TODO: pin the replacement's definition" in entry_text(kb, "hybrid-cache-import")
    before = (kb / "snippets/hybrid-cache-import/before.py").read_text()
    assert "# --8<-- [start:show]\nfrom transformers import HybridCache\n# --8<-- [end:show]" in before
    assert "set up" not in before


def test_a_paste_from_another_release_is_pinned_to_the_raise_that_fits(kb):
    assert new(kb, "moved-line", "--from-traceback", "-", paste=HEAD_DIM_TB.replace("line 1471", "line 1400")) == 0
    entry = loads_cleanly(kb)["moved-line"]
    assert (entry.source.line, entry.source.function) == (1471, "Cache.early_initialization")
    assert "# TODO: the paste's line 1400 is not in early_initialization" in entry_text(kb, "moved-line")


def test_a_folder_named_like_the_library_is_not_the_library(kb):
    paste = HEAD_DIM_TB.replace(f"{SITE}/cache_utils.py", "/home/me/transformers/my_utils.py")
    assert new(kb, "not-the-library", "--from-traceback", "-", paste=paste) == 0
    entry = loads_cleanly(kb)["not-the-library"]
    assert entry.source.function == "TODO"  # no library frame: the author pins it


def test_an_error_the_runtime_raises_in_its_own_code_is_pinned_in_the_runtime(kb):
    from errorkb.source.upstream import runtime_version

    assert new(kb, "export-again", "--from-traceback", "-", paste=EXPORT_TB) == 0
    entry = loads_cleanly(kb)["export-again"]
    source = entry.source
    assert (source.runtime, source.path, source.line, source.function, source.module, source.release,
            source.commit, source.implicit) == (
        True, "torch/_functorch/_aot_autograd/utils.py", 197, "create_tree_flattened_fn.<locals>.flat_fn",
        "torch._functorch._aot_autograd.utils", runtime_version(load_project(kb)), None, False)
    assert entry.message.startswith("Found {type(i)} in output, which is not a known type.")  # torch's f-string
    assert entry.expect.placeholders == {"type(i)": "<class 'transformers.cache_utils.DynamicCache'>"}
    assert entry.targets == ["upstream"] and entry.releases.raises  # the library's releases, for the author
    text = entry_text(kb, "export-again")
    assert "# TODO: the library releases" in text
    before = (kb / "snippets/export-again/before.py").read_text()
    assert 'program = torch.export.export(model, (input_ids,), {"use_cache": True})' in before
    assert "export_llm.py, line 13" in before
    assert main(["--root", str(kb), "check"]) == 0


def test_a_runtime_frame_from_another_runtime_release_is_pinned_to_the_raise_that_fits(kb):
    paste = EXPORT_TB.replace("utils.py\", line 197", "utils.py\", line 150")
    assert new(kb, "export-moved", "--from-traceback", "-", paste=paste) == 0
    source = loads_cleanly(kb)["export-moved"].source
    assert (source.runtime, source.line, source.function) == (True, 197, "create_tree_flattened_fn.<locals>.flat_fn")
    assert "# TODO: the paste's line 150 is not in flat_fn" in entry_text(kb, "export-moved")


def test_a_runtime_frame_under_the_library_still_pins_the_library(kb):
    """An error torch raises beneath the library's code is the library's call (implicit), as before."""
    paste = CAT_TB.replace('    self.keys = torch.cat([self.keys, key_states], dim=-2)\n'
                           '                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n',
                           '    self.keys = torch.cat([self.keys, key_states], dim=-2)\n'
                           f'  File "{TORCH}/_functorch/_aot_autograd/utils.py", line 197, in flat_fn\n'
                           '    raise RuntimeError(\n')
    assert new(kb, "cat-under-torch", "--from-traceback", "-", paste=paste) == 0
    source = loads_cleanly(kb)["cat-under-torch"].source
    assert (source.runtime, source.path, source.function) == (False, "src/transformers/cache_utils.py",
                                                              "DynamicLayer.update")


@pytest.mark.parametrize(("message", "template", "replaced"), [
    ("got 12 and 3.5", "got {n} and {n2}", [("n", "12"), ("n2", "3.5")]),
    ("shape torch.Size([2, 8, 3, 64]) vs (2, 8)", "shape {shape} vs {shape2}",
     [("shape", "torch.Size([2, 8, 3, 64])"), ("shape2", "(2, 8)")]),
    ("layer 'k_proj' of {x}", "layer '{name}' of {{x}}", [("name", "k_proj")]),
    ("version 5.15.1 and v2", "version 5.15.1 and v2", []),
    ("in dimension 2. Expected 3.", "in dimension {n}. Expected {n2}.", [("n", "2"), ("n2", "3")]),
    ("If you don't need it, we'll see 'k_proj'", "If you don't need it, we'll see '{name}'", [("name", "k_proj")]),
])
def test_run_time_values_become_named_placeholders(message, template, replaced):
    assert scaffold.templatize(message) == (template, replaced)


# -- from a similar entry, and refusals ---------------------------------------------------------


def test_like_copies_kind_pin_tags_and_snippets_and_links_back(kb):
    assert new(kb, "head-dim-variant", "--like", "head-dim-list-length") == 0
    entries = loads_cleanly(kb)
    entry = entries["head-dim-variant"]
    assert entry.related == ["head-dim-list-length"] and entry.tags == entries["head-dim-list-length"].tags
    assert entry.source.line == 1471
    before = (kb / "snippets/head-dim-variant/before.py").read_text()
    assert before.startswith("# TODO: adapt this copy of snippets/head-dim-list-length/before.py")


def test_like_a_runtime_entry_keeps_its_runtime_pin_and_targets(tmp_path):
    kb = copy_kb(tmp_path / "kb", ["torch-export-dynamic-cache-output"])
    assert new(kb, "export-variant", "--like", "torch-export-dynamic-cache-output") == 0
    entries = loads_cleanly(kb)
    like, entry = entries["torch-export-dynamic-cache-output"], entries["export-variant"]
    assert entry.source.runtime and entry.source.module == like.source.module
    assert (entry.source.path, entry.source.line, entry.source.release) == (like.source.path, like.source.line,
                                                                             like.source.release)
    assert entry.targets == ["upstream"] and entry.releases.raises == like.releases.raises


@pytest.mark.parametrize(("entry_id", "why"), [
    ("head-dim-list-length", "exists already"),
    ("Not_A_Slug", "is not a kebab-case id"),
    ("index", "is reserved"),
])
def test_an_id_that_is_taken_malformed_or_reserved_is_refused(kb, capsys, entry_id, why):
    assert new(kb, entry_id, "--from-traceback", "-", paste=HEAD_DIM_TB) == 1
    assert why in capsys.readouterr().err


def test_nothing_is_overwritten_not_even_a_stray_snippet(kb, capsys):
    (kb / "snippets/stray").mkdir()
    (kb / "snippets/stray/notes.txt").write_text("mine")
    assert new(kb, "stray", "--from-traceback", "-", paste=HEAD_DIM_TB) == 1
    assert "exists already" in capsys.readouterr().err
    folder = kb / "docs/errors/transformers"
    files = {folder / "half.yml": "x", kb / "snippets/half/before.py": "y"}
    (kb / "snippets/half").mkdir()
    (kb / "snippets/half/before.py").write_text("keep me")
    with pytest.raises(scaffold.ScaffoldError, match="not overwriting"):
        scaffold.write_files(files)
    assert (kb / "snippets/half/before.py").read_text() == "keep me" and not (folder / "half.yml").exists()


def test_new_needs_a_source(kb, capsys):
    assert new(kb, "nothing") == 2
    assert new(kb, "nothing", "--like", "no-such-entry") == 1
    assert "no entry 'no-such-entry'" in capsys.readouterr().err


@pytest.mark.parametrize("entry_id, said", [("a" + "-b" * 60, "id of 121 characters; the limit is 100"),
                                             ("con", "names a device on Windows")])
def test_new_refuses_an_id_the_loader_would_refuse_and_writes_nothing(kb, capsys, entry_id, said):
    """Round fourteen: `errorkb new` wrote the stubs of an id the loader then refused (too long for the files
    named after it, a Windows device name): the same rule, one owner, before anything is written."""
    assert new(kb, entry_id, "--like", "head-dim-list-length") == 1
    assert said in capsys.readouterr().err
    assert not (kb / "docs/errors/transformers" / f"{entry_id}.yml").exists()
    assert not (kb / "snippets" / entry_id).exists()


# -- what a draft still lacks --------------------------------------------------------------------


def test_check_names_drafts_and_verify_lists_what_is_missing_in_order(kb, capsys, lean_checks):
    assert new(kb, "cat-mismatch", "--from-traceback", "-", paste=CAT_TB) == 0
    capsys.readouterr()
    assert main(["--root", str(kb), "check"]) == 0
    assert "1 draft(s) with TODOs left: cat-mismatch" in capsys.readouterr().err
    code = main(["--root", str(kb), "verify", "cat-mismatch", "--target", "bundled", "--device", "cpu", "--no-cache"])
    assert code == 1
    text = capsys.readouterr().out
    items = text[text.index("still missing for cat-mismatch, in order:"):].splitlines()[1:]
    kinds = []
    for item in items:
        body = item.split(". ", 1)[1]
        kinds.append("prose" if "is still TODO" in body else "placeholders" if "confirm the placeholders" in body
                     else "pin" if ".yml:" in body else "failing" if "yet:" in body else "snippet")
    assert kinds[0] == "prose" and "placeholders" in kinds and kinds[-1] == "failing"
    assert kinds == sorted(kinds, key=["prose", "placeholders", "pin", "snippet", "failing"].index)
    assert any("before [bundled-cpu] does not raise as documented yet" in item for item in items)
    yaml.safe_load(entry_text(kb, "cat-mismatch"))


@pytest.mark.parametrize("linked", ["docs/errors/transformers", "snippets"])
def test_new_writes_nothing_through_a_link_out_of_the_repository(kb, tmp_path, capsys, linked):
    """A repository cloned from a stranger may commit a folder `errorkb new` writes into as a link elsewhere (the
    library's entries folder: the settings check only the top folders): the stub entry was written there, outside
    the repository, without a word. Nothing is written; the message names the link and what to do."""
    folder = kb / linked
    outside = tmp_path / "outside"
    folder.rename(outside)
    folder.symlink_to(outside)
    before = sorted(path.name for path in outside.rglob("*"))
    code = new(kb, "fresh-id", "--from-traceback", "-", paste=HEAD_DIM_TB)
    said = capsys.readouterr().err
    assert code == 1 and sorted(path.name for path in outside.rglob("*")) == before
    assert "out of the repository" in said and linked in said and "Traceback" not in said, said


# A message that goes on over lines that read as `name: text` of their own: PyYAML's error marks (met documenting
# pyyaml-env-tag, whose constructor raises it), a log line printed after the traceback. The exception the
# traceback ended with is the first exception line under its last frame, not the paste's last `name: text` line.
YAML_MARK_TB = """Traceback (most recent call last):
  File "/home/me/conf.py", line 4, in <module>
    print(yaml.load("key: !ENV {a: 1}", Loader=loader))
  File "/venv/lib/python3.11/site-packages/yaml_env_tag.py", line 23, in construct_env_tag
    raise yaml.constructor.ConstructorError(
yaml.constructor.ConstructorError: expected a scalar or sequence node, but found mapping
  in "<unicode string>", line 1, column 6:
    key: !ENV {a: 1}
         ^
"""


@pytest.mark.parametrize("after", ["", "INFO: shutting down\n"])
def test_the_exception_is_the_line_that_ends_the_traceback_not_a_later_name_colon_line(after):
    from errorkb.author.paste import read_paste

    pasted = read_paste(YAML_MARK_TB + after)
    assert pasted.exception == "yaml.constructor.ConstructorError"
    assert pasted.message == "expected a scalar or sequence node, but found mapping"

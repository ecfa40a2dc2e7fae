"""The opt-in hook, in real interpreters: a documented error that escapes prints its entry after
the traceback, graded by the same matcher as `errorkb lookup` (confirmed, or candidates labelled as
such); anything else prints exactly what Python prints; the exit status never changes; the `.pth`
imports nothing at start-up. Plus the pytest hint, the IPython extension, the shipped index
(stale → fail) and hostile exceptions."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks.hook_startup import make_env
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.hook import PTH_LINE
from errorkb.hook.explain import describe
from errorkb.lookup import CAP, load_index
from errorkb.site.hookindex import index_file, stale
from tests.kb import ROOT
from tests.scaling import assert_linear

HEAD_DIM = "`head_dim` was provided as a list of length 12, but the Cache currently has 12 layers"
REAL_ERROR = """\
import torch
from transformers import DynamicCache, LlamaConfig

cache = DynamicCache(config=LlamaConfig(num_hidden_layers=12))
cache.early_initialization(2, num_heads=8, head_dim=[128, 128], dtype=torch.float32, device="cpu")
"""
TITLE = "errorkb: a documented error — `head_dim` list does not have one value per cache layer"


def library_raise(folder: Path, name: str = "early_initialization") -> str:
    """Code that defines `name`, a function of a file in a folder named like the library's that raises HEAD_DIM, as
    the library's own raise does: a whole traceback of the user's frames alone is no error raised in its call."""
    path = folder / "site-packages" / "transformers" / "cache_utils.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"def {name}():\n    raise ValueError({HEAD_DIM!r})\n", encoding="utf-8")
    return ("import importlib.util\n"
            f"spec = importlib.util.spec_from_file_location('probe_cache_utils', {str(path)!r})\n"
            "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n"
            f"{name} = module.{name}\n")


def stub_library(folder: Path) -> str:
    """Code that puts first on the path a stand-in for the library, in a folder named like an installed one:
    `transformers.DynamicCache` (a class without `key_cache`, which the library removed) and
    `transformers.cache_utils.early_initialization` (`library_raise`'s). For the tests whose subject is where the
    hook chains in a real interpreter, not the library: importing the real one costs 5 s of CPU (torch) per
    interpreter. The installed release is still the real one's (its distribution's metadata)."""
    library_raise(folder)
    (folder / "site-packages" / "transformers" / "__init__.py").write_text("class DynamicCache:\n    pass\n",
                                                                           encoding="utf-8")
    return f"import sys\nsys.path.insert(0, {str(folder / 'site-packages')!r})\n"


@pytest.fixture(scope="module")
def envs(tmp_path_factory):
    """Two interpreters alike but for the hook's `.pth` (installed by `errorkb hook install`)."""
    folder = tmp_path_factory.mktemp("envs")
    return make_env(folder / "plain", hook=False), make_env(folder / "hooked", hook=True)


def run(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` run by `python` as `cwd/script.py`, with SIGINT as at a terminal (`tests.processes.sigint_parent`)."""
    from tests.processes import sigint_parent

    script = cwd / "script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    return subprocess.run([*sigint_parent(False), str(python), str(script)], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_a_real_uncaught_cache_error_prints_its_entry_after_the_traceback(envs, tmp_path):
    plain, hooked = envs
    result = run(hooked, REAL_ERROR, tmp_path)
    assert result.returncode == 1
    traceback_end = result.stderr.index(f"ValueError: {HEAD_DIM}")
    block = result.stderr[traceback_end:]
    assert TITLE in block, result.stderr
    assert "fix:  Pass a single int when every layer has the same head size" in block
    assert "transformers 5.15.1 (installed) raises it" in block
    assert f"page: {load_index().site}errors/transformers/head-dim-list-length/" in block
    assert "(offline: errorkb show head-dim-list-length)" in block and "why:  transformers itself raises" in block
    assert result.stderr.startswith("Traceback (most recent call last):")


def test_an_unrelated_error_prints_exactly_what_python_prints(envs, tmp_path):
    plain, hooked = envs
    code = "def f():\n    raise ValueError('nothing any entry documents')\nf()\n"
    with_hook, without = run(hooked, code, tmp_path), run(plain, code, tmp_path)
    assert (with_hook.returncode, with_hook.stderr, with_hook.stdout) == \
        (without.returncode, without.stderr, without.stdout) == (1, without.stderr, "")
    assert "errorkb" not in with_hook.stderr


def test_exit_statuses_never_change(envs, tmp_path):
    plain, hooked = envs
    for code, status in (("import sys; sys.exit(3)", 3), ("raise KeyboardInterrupt", -2), ("print('fine')", 0),
                         (f"raise ValueError({HEAD_DIM!r})", 1)):
        assert run(hooked, code, tmp_path).returncode == run(plain, code, tmp_path).returncode == status, code


def test_the_pth_line_imports_nothing_at_start_up(envs, tmp_path):
    plain, hooked = envs
    code = ("import sys; print(sorted(m for m in sys.modules if m.startswith('errorkb')), "
            "getattr(sys.excepthook, 'errorkb_hook', False))")
    assert run(hooked, code, tmp_path).stdout.split() == ["[]", "True"]
    assert run(plain, code, tmp_path).stdout.split() == ["[]", "False"]


def test_import_errorkb_hook_installs_it_once(envs, tmp_path):
    plain, _ = envs
    code = "import errorkb.hook, errorkb.hook, sys\nerrorkb.hook.install()\n" + library_raise(tmp_path) + \
        "early_initialization()\n"
    result = run(plain, code, tmp_path)
    assert result.returncode == 1 and result.stderr.count(TITLE) == 1, result.stderr


def test_a_broken_explainer_changes_nothing(envs, tmp_path):
    """The explainer cannot be imported (or raises): the traceback and status are Python's alone."""
    plain, hooked = envs
    code = f"import sys\nsys.modules['errorkb.hook.explain'] = None\nraise ValueError({HEAD_DIM!r})\n"
    with_hook, without = run(hooked, code, tmp_path), run(plain, code, tmp_path)
    assert (with_hook.returncode, with_hook.stderr) == (without.returncode, without.stderr)


def test_install_status_uninstall_and_a_file_errorkb_did_not_write(envs, tmp_path):
    plain, _ = envs

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(plain), "-m", "errorkb.cli", "hook", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)

    assert cli("status").stderr.startswith("not installed in ")
    installed = cli("install")
    assert installed.returncode == 0 and "installed: " in installed.stdout
    path = Path(installed.stdout.split("installed: ", 1)[1].split(" (")[0].strip())
    assert path.name == "errorkb-hook.pth" and path.read_text() == PTH_LINE
    assert cli("status").stdout.startswith("installed: ")
    assert cli("uninstall").returncode == 0 and not path.exists()
    path.write_text("import something_else\n")
    refused = cli("install")
    assert refused.returncode == 1 and "was not written by errorkb" in refused.stderr
    assert cli("uninstall").returncode == 1 and path.read_text() == "import something_else\n"
    path.unlink()


def test_the_shipped_index_is_current():
    """The knowledge base's index ([tool.errorkb] index) is generated from the entries: regenerate it
    with `errorkb hook index`."""
    project = load_project(ROOT)
    entries = [one.entry for one in load_project_entries(project).entries]
    assert not stale(project, entries), f"{index_file(project)} is stale: run `errorkb hook index` and commit it"


def test_a_stale_index_is_reported(tmp_path):
    from errorkb.cli import main

    project = load_project(ROOT)
    entries = [one.entry for one in load_project_entries(project).entries]
    assert stale(project, entries[1:]) and stale(project, entries, tmp_path / "absent.json")
    assert main(["--root", str(ROOT), "hook", "index", "--check"]) == 0


class Hostile(Exception):
    def __str__(self) -> str:
        raise RuntimeError("a __str__ that raises")


def test_hostile_exceptions_are_answered_quietly_and_in_bounded_time():
    assert describe(Hostile()) is None

    def run(size: int) -> None:
        assert describe(ValueError("`head_dim` was provided as a list of length " + "9" * size)) is None

    assert_linear(run, 1_250_000)
    looped = ValueError("first")
    other = ValueError("second")
    looped.__context__, other.__context__ = other, looped  # a cycle
    assert describe(looped) is None
    assert describe(KeyboardInterrupt()) is None


def test_a_documented_error_of_a_chain_is_found_and_control_characters_never_print(tmp_path):
    found: dict = {}
    exec(library_raise(tmp_path), found)
    try:
        try:
            found["early_initialization"]()
        except ValueError as inner:
            raise RuntimeError("wrapped \x1b[2J") from inner
    except RuntimeError as outer:
        text = describe(outer)
    assert text is not None and TITLE in text and "\x1b" not in text
    assert len(HEAD_DIM) < CAP


def test_the_ipython_extension_shows_the_traceback_then_the_entry(capsys):
    from errorkb.hook import load_ipython_extension, unload_ipython_extension

    class Shell:
        def set_custom_exc(self, kinds, handler):
            self.kinds, self.handler = kinds, handler

        def showtraceback(self, exc_tuple, tb_offset=None):
            sys.stderr.write(f"TRACEBACK {exc_tuple[0].__name__}\n")

    shell = Shell()
    load_ipython_extension(shell)
    assert shell.kinds == (Exception,)
    error = ValueError(HEAD_DIM)
    assert shell.handler(shell, ValueError, error, None, tb_offset=None) is None
    err = capsys.readouterr().err
    assert err.startswith("TRACEBACK ValueError\n") and TITLE in err
    unload_ipython_extension(shell)
    assert (shell.kinds, shell.handler) == ((), None)


def test_pytest_prints_the_entry_for_a_failing_test(tmp_path):
    (tmp_path / "test_user.py").write_text(
        library_raise(tmp_path) + "\ndef test_export():\n    early_initialization()\n\n"
        "def test_other():\n    assert 1 == 2\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_user.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    summary = result.stdout[result.stdout.index("errorkb: documented errors"):]
    assert "test_user.py::test_export:" in summary and TITLE in summary
    assert "test_user.py::test_other:" not in summary


def test_pytest_prints_the_entry_for_a_test_module_that_fails_to_import(tmp_path):
    """A documented error at a test module's import (a collection error, raised as it is or as the cause of
    pytest's own CollectError for an ImportError) gets the same hint as a failing test: it is where code written
    for one release most often meets another (`from <library> import <removed name>` at the top of a test file)."""
    (tmp_path / "test_at_import.py").write_text(library_raise(tmp_path) + "\nearly_initialization()\n")
    (tmp_path / "test_import_error.py").write_text(
        library_raise(tmp_path) + "\ntry:\n    early_initialization()\nexcept ValueError as error:\n"
        "    raise ImportError('cannot import the model') from error\n")
    (tmp_path / "test_unrelated.py").write_text("raise ImportError('no module named nothing_documented')\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "."],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stdout
    summary = result.stdout[result.stdout.index("errorkb: documented errors"):]
    summary = summary[:summary.index("short test summary info")]  # pytest's own list names every file
    assert "test_at_import.py:" in summary and "test_import_error.py:" in summary and TITLE in summary
    assert "test_unrelated.py" not in summary


def test_explain_writes_nothing_when_nothing_matches():
    from errorkb.hook.explain import explain

    stream = io.StringIO()
    explain(ValueError, ValueError("no entry says this"), None, stream)
    assert stream.getvalue() == ""


CAT = ("Sizes of tensors must match except in dimension 2. Expected size 1 but got size 2 for tensor number 1 "
       "in the list.")


def test_an_error_the_runtime_raises_counts_only_from_the_entrys_own_frame(tmp_path):
    """The runtime words this error alike for everyone: only raised under the library's function
    (a frame of `<package>/cache_utils.py` in `update`) is it the entry's, confirmed; raised in any
    other code it is ruled out; without a traceback it is only possible."""
    import importlib.util

    def raise_from(path: Path) -> BaseException:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def update():\n    raise RuntimeError({CAT!r})\n")
        spec = importlib.util.spec_from_file_location(f"probe_{abs(hash(path))}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        try:
            module.update()
        except RuntimeError as error:
            return error
        raise AssertionError("did not raise")

    bare = describe(RuntimeError(CAT))  # no traceback at all: possible, never confirmed
    assert bare is not None and "possibly a documented error, not confirmed" in bare
    assert "a documented error —" not in bare and "to tell: the traceback shows no frame in" in bare
    assert "paste" not in bare  # the hook has the traceback: it never asks for a paste (issue 19)
    assert describe(raise_from(tmp_path / "mine" / "cache_utils.py")) is None  # raised elsewhere: ruled out
    text = describe(raise_from(tmp_path / "site-packages" / "transformers" / "cache_utils.py"))
    assert text is not None and "a documented error — " in text and "New key/value states do not fit" in text
    assert "why:  a frame in `update`" in text


def test_the_pth_does_little_work_at_start_up(tmp_path):
    """What site.py runs for the hook's `.pth`, counted, not timed (benchmarks/hook_startup.py times it beside
    two interpreters' start-ups; a timing here would fail on a busy machine): the Python lines it executes
    stay a few dozen, whatever the chains it compiles later when threading or asyncio is imported."""
    import site

    from errorkb.hook.pth import NAME, install

    install(tmp_path)
    events: list[str] = []

    def trace(frame, event, arg):
        events.append(event)
        return trace

    saved, hooks = sys.excepthook, sys.unraisablehook
    meta_path = list(sys.meta_path)
    try:
        sys.settrace(trace)
        site.addpackage(str(tmp_path), NAME, set())
    finally:
        sys.settrace(None)
        sys.excepthook, sys.unraisablehook = saved, hooks
        sys.meta_path[:] = meta_path
    lines = events.count("line")
    assert 0 < lines <= 120, lines  # 58 at this writing, site.addpackage's own included


def test_a_removed_name_used_by_the_users_code_is_named_and_a_shared_message_is_not(tmp_path):
    """The hook reads the frames of the user's code: `from <package> import HybridCache` is the removal,
    confirmed by the failing line; a `list index out of range` raised by the user's own code is nobody's."""
    from errorkb.hook.explain import answer_text

    index = load_index()
    removed = ('Traceback (most recent call last):\n  File "/home/me/run.py", line 3, in <module>\n'
               "    from transformers import HybridCache\n"
               "ImportError: cannot import name 'HybridCache' from 'transformers' "
               "(/venv/lib/python3.11/site-packages/transformers/__init__.py)\n")
    answer = answer_text(removed, index, "5.15.1")
    assert [m.known.id for m in answer.confirmed][:1] == ["import-hybridcache-removed"]
    assert {e.kind for e in answer.confirmed[0].evidence} >= {"words", "code", "release"}
    assert answer_text(removed, index, "4.46.0").confirmed == []  # 4.46 has HybridCache: another error
    shared = ('Traceback (most recent call last):\n  File "/home/me/run.py", line 9, in <module>\n'
              "    item = items[3]\nIndexError: list index out of range\n")
    assert answer_text(shared, index, "5.15.1").matches == []


def test_a_chained_error_is_judged_by_its_own_frames_at_run_time(tmp_path):
    """A live chain: the cache's `update` ran out of memory, and the handler's own `rows[5]` failed. The
    IndexError's frames are the handler's (the OOM's `update` frame is not its evidence): nothing printed.
    Raised in `update` itself, or re-raised `from` it, the chain's cause is the documented error."""
    import importlib.util

    path = tmp_path / "site-packages" / "transformers" / "cache_utils.py"
    path.parent.mkdir(parents=True)
    path.write_text("def update(kind):\n    if kind == 'oom':\n        raise MemoryError('CUDA out of memory')\n"
                    "    return [][3]\n")
    spec = importlib.util.spec_from_file_location("chained_cache_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def caught(run) -> BaseException:
        try:
            run()
        except Exception as error:
            return error
        raise AssertionError("did not raise")

    def handler_fails() -> None:
        try:
            module.update("oom")
        except MemoryError:
            rows: list[int] = []
            rows[5]

    def re_raised() -> None:
        try:
            module.update("index")
        except IndexError as error:
            raise RuntimeError(f"generation failed: {error}") from error

    index = index_file(load_project(ROOT))
    assert describe(caught(handler_fails), index) is None
    for run in (lambda: module.update("index"), re_raised):
        text = describe(caught(run), index)
        assert text is not None and "a documented error — `IndexError: list index out of range`" in text


def test_an_index_parses_its_wordings_once_however_many_errors_it_answers():
    """The pytest hint and the IPython extension answer every failing test or cell in one process: the
    index's lookup (every wording parsed and judged, some milliseconds) is built once per cap, not again
    for each error, and still answers each one alike."""
    from errorkb.hook.explain import answer_text

    index = load_index()
    assert index.lookup() is index.lookup() and index.lookup(CAP) is index.lookup()
    assert index.lookup(100) is index.lookup(100) and index.lookup(100) is not index.lookup()
    assert (index.lookup(100).cap, index.lookup().cap) == (100, CAP)
    first = answer_text(f"ValueError: {HEAD_DIM}", index, "5.15.1")
    again = answer_text(f"ValueError: {HEAD_DIM}", index, "5.15.1")
    assert [m.known.id for m in first.confirmed] == [m.known.id for m in again.confirmed] == ["head-dim-list-length"]


def test_the_release_line_claims_no_verification_the_index_does_not_hold():
    """The shipped index holds the release an entry documents, not a verification record: the hook's line names the
    release as documented, never as verified (nor as raising, which only a range says)."""
    from types import SimpleNamespace

    from errorkb.hook.explain import _release_line
    from errorkb.lookup._release import INSTALLED, Verdict

    index = SimpleNamespace(library="acme", items={"entry": {"show": {"pinned": "2.0"}}})
    for installed, expected in (("2.0", "acme 2.0 (installed) raises it: the release the entry documents"),
                                ("1.0", "acme 1.0 (installed); the entry documents 2.0")):
        said = Verdict(releases=(installed,), given=True, raises=None, advice="", source=INSTALLED)
        line = _release_line(SimpleNamespace(release=said, known=SimpleNamespace(id="entry")), index)  # type: ignore[arg-type]
        assert line == expected and "verified" not in line, line

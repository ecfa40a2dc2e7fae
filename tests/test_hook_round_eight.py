"""The hook under attack, round eight, in real interpreters with the hook on: where real programs meet it. The modules
the hook imports share `sys.modules` with the program: one of the program's folder named like one of them (a script's
`csv.py`, `email.py`, `json.py`), imported by the program after an error it survived, or before the error (by the
program, or by a test pytest's hint reads); and the programs run another way that found nothing (`python -m`, a
zipapp, `runpy`, a `__main__` without `__file__`, chained errors, `SystemExit` and `KeyboardInterrupt` from the error,
a spawned process, a thread pool's result: kept, so that they stay so).
"""

from __future__ import annotations

import pytest

from tests.hookrun import BLOCK, LIBRARY, RAISE, both, compare, pair
from tests.test_hook import TITLE, envs, run, stub_library  # noqa: F401 (a fixture)

# Errors a program survives: Python reports them and the program goes on (then imports a module of its own).
SURVIVED = {
    "thread": "import threading\nthread = threading.Thread(target=early_initialization)\nthread.start()\nthread.join()\n",
    "del": "class Holder:\n    def __del__(self):\n        early_initialization()\nHolder()\n",
}
# Modules of the standard library the explainer imports (lazily, once an error happened), named as people name their
# own files. main: the explainer's import put the standard library's module in `sys.modules`, so the program's later
# `import csv` got it, not the program's own `csv.py` (stdout "stdlib" where Python alone printed "mine").
LATER = ["csv", "email", "calendar", "random"]
_USE = "import {name}\nprint(getattr({name}, 'MINE', 'the standard library s {name}'))\n"


@pytest.mark.parametrize("name", LATER)
@pytest.mark.parametrize("survived", list(SURVIVED))
def test_a_module_of_the_programs_folder_imported_after_the_hook_ran_is_the_programs_own(envs, tmp_path,  # noqa: F811
                                                                                         survived, name):
    (tmp_path / f"{name}.py").write_text(f"MINE = 'the program s own {name}'\n", encoding="utf-8")
    code = stub_library(tmp_path) + LIBRARY + SURVIVED[survived] + _USE.format(name=name)
    with_hook, without = pair(envs, code, tmp_path)
    assert without.stdout == f"the program s own {name}\n", without.stderr
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1, with_hook.stderr


# A module of the program's folder named like one of the standard library's that the explainer uses, imported by the
# program before the error: `import json` in the explainer's code gets the program's module (Python looks in
# `sys.modules` first, whatever the guard's finder says), and the explainer called its functions. main: the program's
# `json.loads` (its `dataclass`, at the explainer's import) ran, and printed, at the program's end. The hook now adds nothing there:
# Python's output alone, as for a program of its own named `errorkb` (round five).
BEFORE = {
    "json": "def loads(*args, **kwargs):\n    print('THE PROGRAM S json.loads RAN')\n",
    "dataclasses": ("def dataclass(*args, **kwargs):\n    print('THE PROGRAM S dataclass RAN')\n"
                    "    return args[0] if args else lambda kind: kind\nfield = replace = dataclass\n"),
}


@pytest.mark.parametrize("name", list(BEFORE))
def test_a_module_of_the_programs_folder_imported_before_the_error_never_runs_for_the_hook(envs, tmp_path,  # noqa: F811
                                                                                           name):
    (tmp_path / f"{name}.py").write_text(BEFORE[name], encoding="utf-8")
    code = stub_library(tmp_path) + f"import {name}\n" + LIBRARY + RAISE
    with_hook, without = pair(envs, code, tmp_path)
    assert without.stdout == "" and without.returncode == 1, without.stderr
    assert compare(with_hook, without) == "", with_hook.stdout + with_hook.stderr


def test_a_module_of_the_programs_own_named_like_one_the_explainer_never_imports_leaves_the_block(envs, tmp_path):  # noqa: F811
    """The explainer stays away only from the names it imports: a program's `secrets.py` or `queue.py` (names of the
    standard library's it never loads) costs the program nothing."""
    for name in ("secrets", "queue"):
        (tmp_path / f"{name}.py").write_text("MINE = True\n", encoding="utf-8")
    code = stub_library(tmp_path) + "import secrets, queue\nassert secrets.MINE and queue.MINE\n" + LIBRARY + RAISE
    with_hook, without = pair(envs, code, tmp_path)
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr


# What the explainer imports, measured: a documented error and an unrelated one reported in a `__del__`, a documented
# error reported by a thread's end, and the program's end with the entry's error. Each top-level module of the standard
# library's (or `packaging`) loaded after the program began must be one `guard.IMPORTS` names, or `guard.foreign`
# would miss a file of the program's folder named like it on a first error.
_MEASURED = """\
import _imp, atexit, sys
def loaded():
    return {{name for name in sys.modules if "." not in name and (name in sys.stdlib_module_names or
             name == "packaging") and name not in sys.builtin_module_names and not _imp.is_frozen(name)}}
started = loaded()
atexit.register(lambda: print(sorted(loaded() - started)))
{library}class Holder:
    def __init__(self, call):
        self.call = call
    def __del__(self):
        self.call()
def unrelated():
    raise ValueError("nothing any entry documents")
Holder(unrelated)
Holder(early_initialization)
import threading
thread = threading.Thread(target=early_initialization)
thread.start()
thread.join()
early_initialization()
"""


def test_the_modules_the_explainer_imports_are_those_the_guard_names(envs, tmp_path):  # noqa: F811
    import ast

    from errorkb.hook.guard import IMPORTS

    plain, hooked = envs
    result = run(hooked, _MEASURED.format(library=stub_library(tmp_path) + LIBRARY), tmp_path)
    assert result.stderr.count("errorkb:") == 3, result.stderr
    loaded = set(ast.literal_eval(result.stdout.strip().splitlines()[-1]))
    assert {"csv", "json", "email"} <= loaded, loaded  # it measured the explainer's imports
    assert loaded - IMPORTS == set(), sorted(loaded - IMPORTS)


def test_the_pytest_hint_never_runs_a_module_of_the_test_folder_named_like_one_the_explainer_imports(envs,  # noqa: F811
                                                                                                     tmp_path):
    """pytest's hint reads the failing test's error with the explainer too (`describe_within`), in the interpreter the
    hook's `.pth` started: a `json.py` of the tests' folder, imported by the test, must not run for it there either.
    main: the hint's `json.loads` was the folder's (its line printed in the session's output)."""
    import subprocess

    plain, hooked = envs
    (tmp_path / "json.py").write_text(BEFORE["json"], encoding="utf-8")
    (tmp_path / "test_it.py").write_text(stub_library(tmp_path) + "import json\n" + LIBRARY +
                                         "def test_it():\n    " + RAISE, encoding="utf-8")
    result = subprocess.run([str(hooked), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout + result.stderr
    assert "RAN" not in result.stdout + result.stderr, result.stdout


# Programs that are not a plain `python script.py`, and endings that found nothing: Python's output, status and stdout,
# then one block where the entry's error is the one reported (`True`), nothing otherwise. (files, argv, named); the
# stand-in library's lines are put at the top of each file named `*`.
_CAUSED = "try:\n    early_initialization()\nexcept ValueError as error:\n    raise RuntimeError('loading failed'){how}\n"
_SPAWN = ("import multiprocessing\nif __name__ == '__main__':\n    child = multiprocessing.get_context('spawn')"
          ".Process(target=early_initialization)\n    child.start()\n    child.join()\n    print(child.exitcode)\n")
NOTHING_FOUND = {
    "python-m-package": ({"app/__init__.py": "", "app/__main__.py*": RAISE}, ["-m", "app"], True),
    "zipapp": ({"app/__main__.py*": RAISE}, ["app.pyz"], True),
    "runpy-run-path": ({"other.py*": RAISE, "script.py": "import runpy\nrunpy.run_path('other.py', "
                        "run_name='__main__')\n"}, ["script.py"], True),
    "main-without-file": ({"script.py*": "import __main__\ndel __main__.__file__\n" + RAISE}, ["script.py"], True),
    "raised-from-the-error": ({"script.py*": _CAUSED.format(how=" from error")}, ["script.py"], True),
    "raised-while-handling-it": ({"script.py*": _CAUSED.format(how="")}, ["script.py"], True),
    "system-exit-with-its-message": ({"script.py*": "import sys\ntry:\n    early_initialization()\n"
                                      "except ValueError as error:\n    sys.exit(f'fatal: {error}')\n"},
                                     ["script.py"], False),
    "keyboard-interrupt-from-the-error": ({"script.py*": "try:\n    early_initialization()\nexcept ValueError as error:\n"
                                           "    raise KeyboardInterrupt from error\n"}, ["script.py"], False),
    "spawned-process": ({"script.py*": _SPAWN}, ["script.py"], True),
    "thread-pool-result": ({"script.py*": "import concurrent.futures\nwith concurrent.futures.ThreadPoolExecutor() as "
                            "pool:\n    pool.submit(early_initialization).result()\n"}, ["script.py"], True),
}


@pytest.mark.parametrize("case", list(NOTHING_FOUND))
def test_programs_run_another_way_print_pythons_output_then_one_block_or_none(envs, tmp_path, case):  # noqa: F811
    import zipapp

    files, argv, named = NOTHING_FOUND[case]
    for name, text in files.items():
        path = tmp_path / name.rstrip("*")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(stub_library(tmp_path) + LIBRARY + text if name.endswith("*") else text, encoding="utf-8")
    if case == "zipapp":
        zipapp.create_archive(tmp_path / "app", tmp_path / "app.pyz")
    with_hook, without = both(envs, tmp_path, argv=argv)
    added = compare(with_hook, without)
    assert (added.startswith(BLOCK) and added.count("errorkb:") == 1) if named else added == "", with_hook.stderr


def test_a_program_run_from_the_standard_librarys_own_folder_keeps_the_block(envs, tmp_path):  # noqa: F811
    """`python -c` run in the folder the standard library lives in: the program's entry of the path ('') resolves
    `json` to the very file the hook's path does, so the program's `json` is the standard library's, not one of its
    own: the block as ever."""
    import json
    import os

    code = stub_library(tmp_path) + "import json\n" + LIBRARY + RAISE
    folder = os.path.dirname(os.path.dirname(json.__file__))
    with_hook, without = both(envs, folder, argv=["-c", code])
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1, with_hook.stderr

"""One knowledge base per package, side by side (issue 21, item 3): each ships its own index in its
own package, registered under the `errorkb.indexes` entry point; the hook, `lookup` and `show` read
every installed one; `errorkb hook index` writes only the knowledge base's own file, never into
errorkb; runtime plugs are found the same way (`errorkb.plugs`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errorkb.cli import main
from tests.kb import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "tinylib_kb"
TRANSFORMERS_INDEX = ROOT / "transformers_errorkb" / "index.json"  # this repository's knowledge base's own package


def _dist_info(site: Path, name: str, entry_points: str) -> None:
    """An installed distribution as importlib.metadata sees one: what `pip install` of a knowledge
    base's package leaves in site-packages, without running pip."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def second(tmp_path) -> Path:
    """tinylib's knowledge base with its own index package, `tinyq_errorkb`, as `errorkb init` lays it out."""
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.errorkb]\n",
                                                       '[tool.errorkb]\nindex = "tinyq_errorkb/index.json"\n'))
    (root / "tinyq_errorkb").mkdir()
    (root / "tinyq_errorkb" / "__init__.py").write_text('"""The tinyq knowledge base\'s index."""\n')
    return root


def test_building_a_second_index_leaves_the_first_hook_working(second, tmp_path, monkeypatch):
    shipped = TRANSFORMERS_INDEX.read_bytes()
    paths = [str(second / "upstream"), str(second / "bundled")]
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    assert main(["--root", str(second), "hook", "index"]) == 0
    assert (second / "tinyq_errorkb" / "index.json").is_file()
    assert TRANSFORMERS_INDEX.read_bytes() == shipped  # nothing written into errorkb
    assert main(["--root", str(ROOT), "hook", "index", "--check"]) == 0

    site = tmp_path / "site"
    _dist_info(site, "tinyq_errorkb", "[errorkb.indexes]\ntinyq = tinyq_errorkb\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(second), *paths])}

    def hooked(code: str) -> str:
        result = subprocess.run([sys.executable, "-c", "import errorkb.hook\n" + code], capture_output=True,
                                text=True, env=env, cwd=tmp_path, timeout=120)
        assert result.returncode == 1, result.stderr
        return result.stderr

    tiny = hooked("from tinyq import BoundedQueue\nqueue = BoundedQueue(1)\nqueue.put(1)\nqueue.put(2)\n")
    assert "OverflowError: queue is full: capacity 1" in tiny
    assert "errorkb: a documented error — `put` on a full queue" in tiny
    transformers = hooked("from transformers import HybridCache\n")
    assert "errorkb: a documented error" in transformers and "HybridCache" in transformers.split("errorkb:")[1]

    for args, found in ((["show", "queue-full"], "`put` on a full queue"),
                        (["show", "get-max-length-removed"], "get_max_cache_shape"),
                        (["lookup", "OverflowError: queue is full: capacity 3"], "queue-full")):
        shown = subprocess.run([str(ROOT / ".venv" / "bin" / "errorkb"), *args], capture_output=True, text=True,
                               env=env, cwd=tmp_path, timeout=120)
        assert shown.returncode in (0, 3) and found in shown.stdout, (args, shown.stdout, shown.stderr)


def test_an_index_inside_the_errorkb_package_is_refused_for_another_knowledge_base(second, capsys, monkeypatch):
    """The index must lie inside the knowledge base's repository (an absolute path or `..` is refused
    as pyproject's folders are), and there, not inside an installed errorkb: here one installed in the
    knowledge base's own virtual environment (it counted as "this project's checkout" because it lies
    under the project's folder, and its index was written into errorkb)."""
    from errorkb.site import hookindex

    installed = second / ".venv" / "lib" / "python3.11" / "site-packages" / "errorkb"
    (installed / "hook").mkdir(parents=True)
    monkeypatch.setattr(hookindex, "installed_errorkb", lambda: installed)
    inside = installed / "hook" / "index.json"
    pyproject = second / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('index = "tinyq_errorkb/index.json"',
                                                       f'index = "{inside.relative_to(second).as_posix()}"'))
    assert main(["--root", str(second), "hook", "index"]) == 2
    assert "lies inside the installed errorkb package" in capsys.readouterr().err
    assert not inside.exists()


@pytest.mark.parametrize("index", ["{errorkb}/hook/index.json", "../elsewhere/index.json"])
def test_an_index_outside_the_repository_is_refused(second, capsys, index):
    pyproject = second / "pyproject.toml"
    index = index.format(errorkb=ROOT / "errorkb")
    pyproject.write_text(pyproject.read_text().replace('index = "tinyq_errorkb/index.json"', f'index = "{index}"'))
    assert main(["--root", str(second), "hook", "index"]) == 1  # a located problem of pyproject.toml
    said = capsys.readouterr().err
    assert "pyproject.toml:" in said and "[tool.errorkb] index: " in said and "leads out of the repository" in said
    assert not (ROOT / "errorkb" / "hook" / "index.json").exists() and not (second.parent / "elsewhere").exists()


def test_this_repositorys_own_errorkb_package_is_its_own():
    """errorkb's own checkout may write into its own package (the one installed from this folder)."""
    from errorkb.core.project import load_project
    from errorkb.site import hookindex

    assert hookindex.installed_errorkb() == ROOT / "errorkb" or hookindex.installed_errorkb().parent != ROOT
    assert hookindex.index_file(load_project(ROOT)) == TRANSFORMERS_INDEX


def test_this_knowledge_base_ships_from_its_own_package_not_errorkb():
    """Laid out as `errorkb init` lays out a knowledge base: the index in the knowledge base's own
    package, which its own distribution registers under `errorkb.indexes`, with the bundled
    implementation beside it; nothing of the knowledge base inside the errorkb package."""
    import tomllib
    from importlib.metadata import entry_points

    from errorkb.author import init
    from errorkb.core.project import load_project

    project = load_project(ROOT)
    library = init.Library(name=project.library.name, distribution=project.library.dist,
                           release=project.library.release, repository=project.library.repository,
                           source_url="", tag=project.library.tag, source_root=project.library.source_root)
    package = init.package_name(library)  # where `errorkb init` would put this knowledge base's package
    assert package == "transformers_errorkb" and ROOT / package / "index.json" == TRANSFORMERS_INDEX
    assert project.index == TRANSFORMERS_INDEX and TRANSFORMERS_INDEX.is_file()
    assert project.library.bundled == f"{package}.kvcache"
    own = tomllib.loads((ROOT / package / "pyproject.toml").read_text(encoding="utf-8"))
    assert own["project"]["name"] == f"{library.distribution}-errorkb"
    assert own["project"]["entry-points"]["errorkb.indexes"] == {library.name: package}
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "errorkb.indexes" not in tool.get("entry-points", {})
    # (a checkout from before the move may keep an errorkb/kvcache/ of ignored __pycache__: no package)
    assert not list((ROOT / "errorkb").rglob("index.json")) and not list((ROOT / "errorkb").rglob("kvcache/*.py"))
    installed = {point.name: point.value for point in entry_points(group="errorkb.indexes")}
    assert installed.get("transformers") == "transformers_errorkb", "run scripts/setup.sh: it installs the knowledge base"


@pytest.mark.verifier
def test_a_bundled_package_outside_the_knowledge_base_folder_runs_in_the_sandbox(tmp_path):
    """The bundled target is the knowledge base's installed package, wherever it lies: a knowledge base
    whose folder does not hold it (here a copy of broken_kb, whose bundled package is this repository's
    transformers_errorkb.kvcache) verifies it in the sandbox, which must show the package's files."""
    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap: only the sandbox can hide the package")
    kb = shutil.copytree(ROOT / "tests" / "fixtures" / "broken_kb", tmp_path / "kb")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([str(ROOT / ".venv" / "bin" / "errorkb"), "--root", str(kb), "verify", "good-head-dim",
                             "--target", "bundled", "--sandbox", "require"], capture_output=True, text=True,
                            cwd=tmp_path, env=env, timeout=600)
    assert result.returncode == 0 and "3 passed, 0 failed" in result.stdout, result.stdout + result.stderr


def test_hook_index_without_an_index_setting_says_how_to_set_one(second, capsys):
    pyproject = second / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('index = "tinyq_errorkb/index.json"\n', ""))
    assert main(["--root", str(second), "hook", "index"]) == 2
    err = capsys.readouterr().err
    assert "[tool.errorkb] index is not set" in err and 'entry-points.\\"errorkb.indexes\\"' not in err
    assert 'errorkb.indexes' in err


def test_a_runtime_plug_is_found_through_its_entry_point(tmp_path):
    site = tmp_path / "site"
    _dist_info(site, "tinyplug", "[errorkb.plugs]\ntiny = tinyplug:RUNTIME\n")
    (site / "tinyplug.py").write_text("from errorkb.plugs.python import PythonRuntime\n\n"
                                      "class Tiny(PythonRuntime):\n    name = 'tiny'\n\nRUNTIME = Tiny()\n")
    code = ("from errorkb.plugs import runtime_for, available\n"
            "print(runtime_for('tiny').name, runtime_for('torch').name, sorted(available()))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(site)})
    assert result.stdout.strip() == "tiny torch ['python', 'tiny', 'torch']", result.stderr


def test_an_unknown_runtime_is_a_located_problem_of_the_profile(second, capsys):
    pyproject = second / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('runtime = "python"', 'runtime = "jaxx"'))
    assert main(["--root", str(second), "check"]) == 1
    err = capsys.readouterr().err
    assert "pyproject.toml:" in err and "library.runtime: unknown runtime 'jaxx'" in err


# -- the entry points `lookup`, `show` and the hook read without importing importlib.metadata ----------

_NAMES = st.sampled_from(["tinyq_errorkb", "TinyQ-ErrorKB", "tinyq.errorkb", "other", "Other__KB", "third-kb"])
_LINES = st.one_of(
    st.builds("{} = {}".format, st.sampled_from(["tinyq", "transformers", "x"]),
              st.sampled_from(["tinyq_errorkb", "pkg.sub", "mod:attr", "mod : attr [extra]", "not a module!", ""])),
    st.sampled_from(["", "# a comment", "[errorkb.indexes]", "[console_scripts]", "[ errorkb.indexes ]",
                     "[[errorkb.indexes]]", "  [errorkb.indexes]  "]),
)


def _escaped(name: str) -> str:
    """A distribution's name in its metadata folder's name, as installers write it (`-` becomes `_`)."""
    return re.sub(r"[^\w.]+", "_", name)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.lists(st.lists(st.tuples(_NAMES, st.sampled_from([".dist-info", ".egg-info", ""]),
                                          st.none() | st.lists(_LINES, max_size=6)), max_size=4),
                       min_size=1, max_size=3))
def test_the_entry_points_read_are_importlib_metadatas(layout, tmp_path_factory, monkeypatch):
    """Any layout of distributions over several folders on `sys.path` (names in every spelling, the same
    distribution in two folders, no `entry_points.txt`, comments, other groups, values that name no module):
    the entry points of a group are exactly the ones importlib.metadata finds."""
    from importlib.metadata import entry_points as reference

    from errorkb.lookup._index import _ENTRY_POINT_VALUE, entry_points

    folders = []
    for distributions in layout:
        folder = tmp_path_factory.mktemp("site")
        for number, (name, suffix, lines) in enumerate(distributions):
            info = folder / f"{_escaped(name)}-{number}.0{suffix}"
            if info.exists():
                continue
            info.mkdir()
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {number}.0\n")
            if lines is not None:
                (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        folders.append(str(folder))
    monkeypatch.setattr(sys, "path", folders)
    for group in ("errorkb.indexes", "console_scripts"):
        expected = [(point.name, match["module"]) for point in reference(group=group)
                    if (match := _ENTRY_POINT_VALUE.match(point.value))]
        assert entry_points(group) == expected


def test_an_entry_point_line_importlib_metadata_fails_on_is_skipped(tmp_path, monkeypatch):
    _dist_info(tmp_path, "broken_kb", "[errorkb.indexes]\nno equals sign here\nbroken = broken_kb\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    from errorkb.lookup._index import entry_points

    assert entry_points("errorkb.indexes") == [("broken", "broken_kb")]


def test_where_sys_path_holds_a_zip_importlib_metadata_answers(tmp_path, monkeypatch):
    import zipfile

    archive = tmp_path / "kbs.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped_kb-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped_kb\nVersion: 0.1\n")
        zipped.writestr("zipped_kb-0.1.dist-info/entry_points.txt", "[errorkb.indexes]\nzipped = zipped_kb\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    from errorkb.lookup._index import entry_points

    assert entry_points("errorkb.indexes") == [("zipped", "zipped_kb")]

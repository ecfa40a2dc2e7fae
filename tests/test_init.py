"""`errorkb init` and the generic tool's words (issue 21, items 1, 2 and 4): what init reads from a
distribution's metadata and what it refuses, the profile's reference page held to the model, the
generic templates free of any one library's words, source links made by the profile, and a
matrix without a bound that says what it would run instead of running it."""

from __future__ import annotations

import json
import re
import shutil
import tomllib

import pytest
import yaml

from errorkb.cli import main
from errorkb.core.project import load_project, reference_markdown
from tests.kb import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "tinylib_kb"


def test_the_profile_page_is_the_model(capsys):
    page = (ROOT / "docs" / "profile.md").read_text(encoding="utf-8")
    generated = page.split("<!-- generated: errorkb schema --profile-reference -->\n", 1)[1]
    generated = generated.split("<!-- end of generated -->", 1)[0]
    assert generated == reference_markdown(), "docs/profile.md is stale: regenerate its tables with " \
                                              "`errorkb schema --profile-reference`"
    assert main(["schema", "--profile-reference"]) == 0
    printed = capsys.readouterr().out
    assert printed == reference_markdown()
    for key in ("index", "targets", "tag", "source_url", "source_root", "bundled", "follow", "runtime", "since"):
        assert f"| `{key}` |" in printed, key


def test_init_reads_the_metadata_and_says_what_it_assumed(tmp_path, capsys):
    assert main(["init", str(tmp_path / "kb"), "--library", "packaging"]) == 0
    printed = capsys.readouterr()
    profile = tomllib.loads((tmp_path / "kb" / "pyproject.toml").read_text())
    library = profile["tool"]["errorkb"]["library"]
    assert (library["name"], library["repository"], library["tag"], library["source_root"]) == (
        "packaging", "pypa/packaging", "{release}", "src")
    assert profile["project"]["entry-points"]["errorkb.indexes"] == {"packaging": "packaging_errorkb"}
    assert "assumed: tag = \"{release}\"" in printed.err and "assumed: source_root = \"src\"" in printed.err
    project = load_project(tmp_path / "kb")
    assert project.targets == ("upstream",) and project.index == tmp_path / "kb" / "packaging_errorkb" / "index.json"
    written = "".join(path.read_text() for path in (tmp_path / "kb").rglob("*") if path.is_file())
    assert str(tmp_path) not in written  # no path of the author's machine
    assert 'class="ekb-lookup"' in (tmp_path / "kb" / "docs" / "index.md").read_text()


def test_init_with_flags_writes_them(tmp_path):
    assert main(["init", str(tmp_path / "kb"), "--library", "packaging", "--tag-format", "v{release}",
                 "--source-root", "", "--repository", "someone/fork"]) == 0
    library = tomllib.loads((tmp_path / "kb" / "pyproject.toml").read_text())["tool"]["errorkb"]["library"]
    assert (library["tag"], library["source_root"], library["repository"]) == ("v{release}", "", "someone/fork")


@pytest.mark.parametrize(("args", "said"), [
    (["--library", "no-such-distribution-anywhere"], "no distribution 'no-such-distribution-anywhere' is installed"),
    (["--library", "packaging", "--tag-format", "release"], "tag"),
])
def test_init_refuses_in_one_line_and_writes_nothing(tmp_path, capsys, args, said):
    code = main(["init", str(tmp_path / "kb"), *args])
    err = capsys.readouterr().err
    assert code == 2 and said in err and err.count("\n") == 1, err
    assert not (tmp_path / "kb").exists()


def test_init_never_writes_into_a_folder_with_files(tmp_path, capsys):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "notes.txt").write_text("mine")
    assert main(["init", str(tmp_path / "kb"), "--library", "packaging"]) == 2
    assert "is not an empty folder" in capsys.readouterr().err
    assert [path.name for path in (tmp_path / "kb").iterdir()] == ["notes.txt"]


def test_the_generic_templates_name_no_library_and_no_cache():
    # and none of the first knowledge base's world: the migration page told a packaging reader that its code
    # "often meets another [release]: a remote-code model"
    words = re.compile(r"\b(cache|caches|transformers|github|torch|cuda|kv|models?|remote[- ]code|tensors?|layers?)\b",
                       re.IGNORECASE)
    allowed = re.compile(r"verdict cache|\.errorkb-cache", re.IGNORECASE)
    found = [f"{path.name}:{number}: {line.strip()[:120]}"
             for path in sorted((ROOT / "errorkb" / "site" / "templates").glob("*.j2"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if words.search(allowed.sub("", line))]
    assert found == []


def test_source_links_follow_the_profile(tmp_path):
    from errorkb.core.load import load_project_entries

    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'repository = "example/tinyq"', 'repository = "example/tinyq"\ntag = "release-{release}"\n'
        'source_url = "https://gitlab.com/{repository}/-/blob/{revision}/{path}#L{line}"'))
    entries = {one.entry.id: one.entry for one in load_project_entries(load_project(root)).entries}
    pinned, by_release = entries["queue-full"], entries["capacity-not-positive"]
    assert pinned.source_url == ("https://gitlab.com/example/tinyq/-/blob/0123456789abcdef0123456789abcdef01234567/"
                                 "src/tinyq/queue.py#L13")
    assert pinned.line_url("1.1.0", 12) == "https://gitlab.com/example/tinyq/-/blob/release-1.1.0/src/tinyq/queue.py#L12"
    assert pinned.source_host == "gitlab.com" and by_release.source_url.startswith("https://gitlab.com/example/tinyq")


def test_a_source_url_with_unknown_fields_is_a_located_problem(tmp_path, capsys):
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'repository = "example/tinyq"', 'repository = "example/tinyq"\nsource_url = "https://x.example/{file}"'))
    assert main(["--root", str(root), "check"]) == 1
    assert "source_url 'https://x.example/{file}' must use {revision} and {path}" in capsys.readouterr().err


def test_a_matrix_without_releases_says_what_it_would_run_and_runs_nothing(tmp_path, capsys, monkeypatch):
    from errorkb.verify import matrix

    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    monkeypatch.setattr(matrix, "discover_releases", lambda package, since: [f"1.{n}.0" for n in range(12)])
    monkeypatch.setattr(matrix, "run_matrix", lambda *args, **kwargs: pytest.fail("the matrix ran"))
    assert main(["--root", str(root), "matrix"]) == 2
    err = capsys.readouterr().err
    assert "[tool.errorkb.matrix] names no releases: it would run all 12 releases of tinyq since 5.0.0" in err
    assert "1.0.0, 1.1.0" in err and "bound it" in err and err.count("\n") == 1


# A folder name that a terminal does not show as it is (an escape sequence, a newline, a character that
# shows nothing, a byte that is not UTF-8): every path errorkb printed in it named another folder, the
# next step's `cd` was cut in two, and an OSC sequence retitled the author's window. Refused, nothing written.
@pytest.mark.parametrize("name", ["a\x1b]0;pwned\x07b", "kb\nrm -rf ~", "kb\t1", "k\u200bb", "kb\u202egpj.exe",
                                  "kb\r", "kb\x7f", "k\udcffb", "kb\U000e0041"])
def test_init_refuses_a_folder_whose_name_a_terminal_would_not_show_as_it_is(tmp_path, capsys, name):
    folder = tmp_path / name
    assert main(["init", str(folder), "--library", "packaging"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1, printed
    assert "U+" in printed.err and "choose a name" in printed.err, printed.err
    assert "\x1b" not in printed.err and "\r" not in printed.err
    assert not folder.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["my kb", "kb;touch pwned", "-kb", "kb's", "καφές"])
def test_the_next_step_init_prints_is_a_command_that_enters_the_folder(tmp_path, capsys, monkeypatch, name):
    import shlex

    monkeypatch.chdir(tmp_path)
    assert main(["init", "--library", "packaging", "--", name]) == 0
    step = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next: ")]
    assert len(step) == 1, step
    words = shlex.split(step[0].removeprefix("next: ").split(" && ")[0])
    assert words[0] == "cd" and (tmp_path / words[-1]).resolve() == (tmp_path / name).resolve(), words
    assert not words[-1].startswith("-")


# A distribution's metadata is a stranger's text: its Name was written as it was into the home page (HTML a
# reader's browser ran: `<img src=x onerror=...>`), the README, mkdocs.yml's site_name and pyproject.toml
# (a project name pip refuses). A name that is not a distribution name (PEP 508) is refused, nothing written.
@pytest.mark.parametrize("name", ['evil"<img src=x onerror=alert(1)>', "evil\n <script>alert(1)</script>",
                                  "evil name", "evil\x1b]0;x\x07", "-evil"])
def test_init_refuses_a_distribution_whose_metadata_name_is_no_distribution_name(tmp_path, capsys, monkeypatch,
                                                                                 name):
    site = tmp_path / "site"
    (site / "evil-1.0.dist-info").mkdir(parents=True)
    (site / "evil").mkdir()
    (site / "evil" / "__init__.py").write_text("")
    (site / "evil-1.0.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nProject-URL: Source, https://github.com/a/b\n")
    (site / "evil-1.0.dist-info" / "top_level.txt").write_text("evil\n")
    monkeypatch.syspath_prepend(str(site))
    assert main(["init", str(tmp_path / "kb"), "--library", "evil"]) == 2
    err = capsys.readouterr().err
    assert "distribution" in err and err.count("\n") == 1 and "\x1b" not in err and "<img" not in err.replace(
        "'evil\"<img", ""), err
    assert not (tmp_path / "kb").exists()


def test_the_profile_holds_its_distribution_to_a_distribution_name(tmp_path, capsys):
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'repository = "example/tinyq"', 'repository = "example/tinyq"\ndistribution = "tinyq <b>x</b>"'))
    assert main(["--root", str(root), "check"]) != 0
    err = capsys.readouterr().err
    assert "distribution" in err and "tinyq <b>x</b>" in err and "Traceback" not in err, err


# A distribution whose import name is one module (`yaml_env_tag.py`, `typing_extensions.py`), not a package, was
# refused; init now writes its knowledge base, whose profile names the module, and says where it assumed the
# module's file lies (`src/<name>.py`, not a folder). tests/test_own_library_single_module.py takes one through
# every command.
@pytest.mark.parametrize(("args", "name"), [
    (["--library", "pyyaml_env_tag"], "yaml_env_tag"),  # named by its top_level.txt
    (["--library", "typing_extensions"], "typing_extensions"),  # no top_level.txt: only its files say it
    (["--library", "typing_extensions", "--import-name", "typing_extensions"], "typing_extensions"),
])
def test_init_writes_a_knowledge_base_for_a_library_that_is_a_single_module(tmp_path, capsys, args, name):
    code = main(["init", str(tmp_path / "kb"), *args, "--repository", "owner/name"])
    said = capsys.readouterr()
    assert code == 0, said.err
    profile = tomllib.loads((tmp_path / "kb" / "pyproject.toml").read_text())["tool"]["errorkb"]["library"]
    assert profile["name"] == name and profile["source_root"] == "src"
    assert f"src/{name}.py" in said.err and f"src/{name}/" not in said.err, said.err


def test_a_single_module_library_gets_a_knowledge_base(tmp_path):
    import subprocess
    import sys

    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pyyaml_env_tag", "--source-root", ""]) == 0
    crashed = subprocess.run([sys.executable, "-c", "import yaml\nfrom yaml_env_tag import add_env_tag\n"
                              "yaml.load('key: !ENV {a: 1}', Loader=add_env_tag(yaml.SafeLoader))\n"],
                             capture_output=True, text=True, timeout=60)
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "env-tag-mapping", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/env-tag-mapping.yml")
    source = yaml.safe_load(written.read_text())["source"]
    assert (source["path"], source["function"]) == ("yaml_env_tag.py", "construct_env_tag")


def test_hook_index_says_when_the_pages_it_names_have_no_site(tmp_path, capsys):
    """init writes no site address (it cannot know one), so the index's pages were bare paths that the hook and
    `errorkb lookup` printed as `page: errors/packaging/x/`, an address of nothing, with no word of why. Writing
    the index says what is missing and where to set it; once set, nothing."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "packaging"]) == 0
    capsys.readouterr()
    assert main(["--root", str(root), "hook", "index"]) == 0
    said = capsys.readouterr().err
    assert "site_url" in said and "mkdocs.yml" in said, said
    mkdocs = root / "mkdocs.yml"
    mkdocs.write_text(mkdocs.read_text().replace("# site_url:", "site_url:"))
    assert main(["--root", str(root), "hook", "index"]) == 0
    assert "site_url" not in capsys.readouterr().err
    assert json.loads((root / "packaging_errorkb" / "index.json").read_text())["site"] == "https://example.org/"


def test_init_proposes_the_libraries_a_library_requires_as_imports(tmp_path, capsys):
    """pymdown-extensions extends Markdown (its Requires-Dist names `markdown` and `pyyaml`; `pygments` only for
    an extra): init proposes their import names as `imports`, commented out (an allowance is the author's to
    give), and says what it read; uncommented, the profile loads with them."""
    assert main(["init", str(tmp_path / "kb"), "--library", "pymdown-extensions", "--source-root", ""]) == 0
    printed = capsys.readouterr()
    text = (tmp_path / "kb" / "pyproject.toml").read_text()
    assert '# imports = ["markdown", "yaml"]' in text, text
    assert "imports" not in tomllib.loads(text)["tool"]["errorkb"]["library"]  # proposed, not given
    assert "Requires-Dist" in printed.err and "markdown (Markdown" in printed.err, printed.err
    assert "pygments" not in printed.err  # required only with an extra
    (tmp_path / "kb" / "pyproject.toml").write_text(text.replace('# imports = ["markdown"', 'imports = ["markdown"'))
    assert load_project(tmp_path / "kb").library.imports == ["markdown", "yaml"]


def test_init_proposes_no_imports_for_a_library_that_requires_none(tmp_path, capsys):
    assert main(["init", str(tmp_path / "kb"), "--library", "mypy_extensions", "--source-root", ""]) == 0
    assert "imports" not in (tmp_path / "kb" / "pyproject.toml").read_text()
    assert "Requires-Dist" not in capsys.readouterr().err

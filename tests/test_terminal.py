"""The terminal side: `errorkb show`, `lookup` with one hit (the same view) and with none (the
nearest entries and the site), `--version`, shell completion, the site address setting."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from errorkb import __version__
from errorkb.core.project import load_project
from tests.kb import ROOT, copy_kb
from tests.scaling import assert_linear
from tests.site.sitekb import MESSAGE, TRACEBACK

IDS = ["head-dim-list-length", "num-heads-list-length", "negative-head-dim", "static-cache-overflow"]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    root = copy_kb(tmp_path_factory.mktemp("kb"), IDS, site=True, site_url="https://kb.example/")
    shutil.copy(ROOT / "reports" / "latest.json", root / "reports" / "latest.json")
    shutil.copytree(ROOT / "reports" / "matrix", root / "reports" / "matrix")
    return root


def run(kb, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".venv/bin/errorkb"), "--root", str(kb), *args], input=stdin,
                          capture_output=True, text=True, timeout=120, env={"COLUMNS": "100", "PATH": "/usr/bin"})


def test_show_prints_the_entry_with_its_verified_fix_verification_and_releases(kb):
    result = run(kb, "show", "head-dim-list-length")
    text = result.stdout
    assert result.returncode == 0, result.stderr
    for part in ("ValueError: `head_dim` was provided as a list of length {len(num_heads)}",
                 "allocates every layer of a cache up front",
                 "The fix", "Pass a single int when every layer has the same head size",
                 "head_dim=config.head_dim,",
                 "raises in (measured)", "5.15.1: src/transformers/cache_utils.py:1471",
                 "https://kb.example/errors/transformers/head-dim-list-length/"):
        assert part in text, part
    assert text.index("The fix") < text.index("Verification") < text.index("Releases")
    # the targets in the page's words (render.target_words), never the report's internal names
    assert re.search(r"reimplemented transformers\s+cpu\s+✓ verified", text), text
    assert re.search(r"real transformers\s+cuda\s+– not run", text), text
    assert not re.search(r"^│ (bundled|upstream) ", text, re.M), text
    # the fix's own verdict, where and when (this copy's entries differ from the report's: stale)
    assert re.search(r"✓ verified( · stale)?: bundled · cpu, upstream · cpu, 20\d\d-", text), text


def test_show_at_80_columns_in_a_pipe_fits_and_dates_only_checks_that_ran(kb):
    """A CI log or `| less` at 80 columns: no line wider than the terminal, no escape sequence, and a
    'checked' day only on a row whose checks ran ('not run  2026-12-02' read like a check that day)."""
    result = subprocess.run([str(ROOT / ".venv/bin/errorkb"), "--root", str(kb), "show", "head-dim-list-length"],
                            capture_output=True, text=True, timeout=120, env={"COLUMNS": "80", "PATH": "/usr/bin"})
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    not_run = [line for line in result.stdout.splitlines() if "– not run" in line]
    assert len(not_run) == 2 and not any(re.search(r"\d{4}-\d\d-\d\d", line) for line in not_run), not_run
    # the release upstream ran, though the narrow cell wraps it onto the next line
    assert re.search(r"transformers[\s│]*5\.15\.1", result.stdout.split("Verification", 1)[1]), result.stdout


def test_show_says_a_fix_edited_since_its_check_is_stale(tmp_path):
    """The fix's verdict read '(verified)' from any passing record, on the snippet as it was then."""
    root = copy_kb(tmp_path, IDS, site=True, site_url="https://kb.example/")
    shutil.copy(ROOT / "reports" / "latest.json", root / "reports" / "latest.json")
    after = root / "snippets" / "head-dim-list-length" / "after.py"
    after.write_text(after.read_text() + "\n# edited after the check\n")
    text = run(root, "show", "head-dim-list-length").stdout
    assert "✓ verified · stale: bundled · cpu, upstream · cpu" in text, text


def test_show_from_the_shipped_index_claims_no_verification_it_does_not_hold(tmp_path):
    """Outside a checkout `show` (and a lookup's single hit) read the index the package ships, which
    holds no verification report (errorkb.site.hookindex): it printed 'The verified fix' all the same."""
    result = subprocess.run([str(ROOT / ".venv/bin/errorkb"), "show", "head-dim-list-length"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env={"COLUMNS": "80", "PATH": "/usr/bin"})
    assert result.returncode == 0, result.stderr
    assert "verified fix" not in result.stdout.lower()
    assert "The fix: Pass a single int" in result.stdout and "this index holds no report" in result.stdout


def corpus_paste(report_id: str) -> str:
    import yaml

    reports = yaml.safe_load((ROOT / "tests" / "corpus" / "reports.yml").read_text(encoding="utf-8"))
    return next(one for one in (reports if isinstance(reports, list) else reports["reports"])
                if one["id"] == report_id)["paste"]


@pytest.mark.parametrize("args, stdin", [
    (["lookup", "-"], "r033"),  # a real traceback, confirmed: the match, then the entry
    (["lookup", "--all", "ValueError: too many values to unpack (expected 2)"], None),  # candidates only
    (["lookup", "AttributeError: 'tuple' object has no attribute 'get_seq_length'"], None),
    (["show", "legacy-tuple-forward-get-seq-length"], None)], ids=["confirmed", "candidates", "long-hint", "show"])
def test_lookup_and_show_from_the_index_fit_80_columns(tmp_path, args, stdin):
    """Outside a checkout (the index's plain text, in a pipe at 80 columns) a match's title, hints and
    the entry's prose ran to 160 and 500 characters a line, which a terminal folds mid-word under the
    indentation. Prose wraps at word boundaries under its own indent; the fix's code is never wrapped
    (a folded line of Python no longer runs) and an address never broken."""
    from errorkb.lookup import load_index

    code, shown = on_a_terminal([str(ROOT / ".venv/bin/errorkb"), *args], tmp_path, 80,
                                corpus_paste(stdin) if stdin else None)
    assert code in (0, 3), shown
    index = load_index()
    snippet = {line.rstrip() for item in index.items.values()
               for line in str((item.get("show") or {}).get("after") or "").splitlines()}
    long = [line for line in shown.splitlines()
            if len(line) > 80 and line[4:].rstrip() not in snippet and not re.fullmatch(r"\s*\S+", line)]
    assert not long, long
    assert "\x1b" not in shown
    # into a pipe the same lines stay whole: `grep` finds a message, a CI log's viewer wraps it
    piped = subprocess.run([str(ROOT / ".venv/bin/errorkb"), *args], cwd=tmp_path, capture_output=True, text=True,
                           input=corpus_paste(stdin) if stdin else None, timeout=120,
                           env={"COLUMNS": "80", "PATH": "/usr/bin"}).stdout
    first = piped.splitlines()[1 if piped.startswith("possibly") else 0]
    assert first in shown.replace("\n  ", " ") and (len(first) > 80 or args[0] == "show"), (first, shown)


def on_a_terminal(argv: list[str], cwd, columns: int, stdin: str | None) -> tuple[int, str]:
    """`argv`'s exit status and output on a pseudo-terminal `columns` wide (stdin from a pipe)."""
    import os
    import pty

    main, side = pty.openpty()
    process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=side, stderr=side, text=True,
                               env={"COLUMNS": str(columns), "PATH": "/usr/bin", "TERM": "dumb"})
    os.close(side)
    process.stdin.write(stdin or "")
    process.stdin.close()
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return process.wait(timeout=120), b"".join(chunks).decode().replace("\r\n", "\n")


def test_show_suggests_a_near_id(kb):
    result = run(kb, "show", "head-dim-list-lenght")
    assert result.returncode == 1 and "did you mean 'head-dim-list-length'?" in result.stderr


def test_a_single_hit_of_lookup_prints_the_same_view(kb):
    result = run(kb, "lookup", "-", stdin=TRACEBACK)
    assert result.returncode == 0
    assert "{len(num_heads)} = 12" in result.stdout and "The fix" in result.stdout
    assert "https://kb.example/errors/transformers/head-dim-list-length/" in result.stdout


def test_no_hit_names_the_three_nearest_entries_and_the_site(kb):
    near_miss = MESSAGE.replace("was provided as a list of length", "was given as a list of size")
    result = run(kb, "lookup", f"ValueError: {near_miss}")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "errorkb lookup: no entry matches this message"
    assert lines[1] == "the nearest entries:"
    ids = [line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("    ")]
    assert len(ids) == 3 and ids[0] == "head-dim-list-length"
    assert "every entry: https://kb.example/errors/" in result.stderr


def test_a_hostile_paste_for_the_nearest_entries_is_bounded(kb):
    from errorkb.core.load import load_project_entries
    from errorkb.site.terminal import nearest

    entries = [one.entry for one in load_project_entries(load_project(kb)).entries]

    def run(size: int) -> None:
        assert nearest("\x1b[2J" + "ab" * size + "\n" + MESSAGE, entries)[0].entry.id == "head-dim-list-length"

    assert_linear(run, 500_000)


def test_an_escape_sequence_in_an_entry_never_reaches_the_terminal(tmp_path):
    from tests.kb import VALID_ENTRY, make_project

    hostile = VALID_ENTRY.format(id="demo-error").replace("title: A documented error",
                                                          'title: "\\e[2J\\e]0;pwned\\a cleared"')
    make_project(tmp_path, entries={"demo-error.yml": hostile})
    result = run(tmp_path, "show", "demo-error")  # issue 23: entry text refuses control characters
    shown = result.stdout + result.stderr
    assert "\x1b[2J" not in shown and "\x1b]0" not in shown and "\a" not in shown
    check = run(tmp_path, "check")
    assert "demo-error.yml:2:8: title: U+001B (a control character) is not allowed" in check.stderr


def test_version_and_completion():
    version = subprocess.run([str(ROOT / ".venv/bin/errorkb"), "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"errorkb {__version__}"
    for shell in ("bash", "zsh"):
        script = subprocess.run([str(ROOT / ".venv/bin/errorkb"), "completion", shell], capture_output=True,
                                text=True, cwd="/")
        assert script.returncode == 0 and "_errorkb_ids" in script.stdout and "verify" in script.stdout, shell
    bash = shutil.which("bash")
    if bash:
        checked = subprocess.run([bash, "-n"], input=script_for("bash"), capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr


def script_for(shell: str) -> str:
    return subprocess.run([str(ROOT / ".venv/bin/errorkb"), "completion", shell], capture_output=True,
                          text=True).stdout


def test_completion_offers_entry_ids_in_a_project(tmp_path):
    bash = shutil.which("bash")
    if not bash:
        pytest.skip("no bash")
    copy_kb(tmp_path, ["head-dim-list-length", "num-heads-list-length"])
    probe = script_for("bash") + '\n_errorkb_ids head-d\n'
    result = subprocess.run([bash], input=probe, capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.split() == ["head-dim-list-length"], result.stderr


def test_the_site_address_comes_from_the_setting_then_mkdocs_yml(tmp_path):
    copy_kb(tmp_path, ["head-dim-list-length"], site=True, site_url="https://from-mkdocs.example/docs")
    assert load_project(tmp_path).site_url == "https://from-mkdocs.example/docs/"
    text = (tmp_path / "pyproject.toml").read_text().replace("[tool.errorkb]\n",
                                                              '[tool.errorkb]\nsite_url = "https://set.example"\n', 1)
    (tmp_path / "pyproject.toml").write_text(text)
    assert load_project(tmp_path).site_url == "https://set.example/"


@pytest.mark.parametrize("where", ["checkout", "index"])
def test_show_says_a_declared_release_range_in_words(tmp_path, where):
    """The pages, the badges and the judge say a release range in words (`errorkb.core.words`); `show` printed the
    raw specifier (">=4.56,<5.24") under Releases, from a checkout and from the shipped index alike."""
    root = ["--root", str(ROOT)] if where == "checkout" else []
    result = subprocess.run([str(ROOT / ".venv/bin/errorkb"), *root, "show", "attention-forward-past-key-values-kwarg"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            env={"COLUMNS": "100", "PATH": "/usr/bin"})
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if "raises in" in line and "measured" not in line]
    assert said and all("4.56 – 5.23" in line and ">=" not in line for line in said), result.stdout

"""errorkb for any library (issue 21, "Done when"): from an empty folder, `errorkb init kb --library
packaging` (installed in the test environment), `errorkb new` from a real `InvalidVersion`
traceback (made here by running packaging), before/after written, `errorkb verify` passes them
against the real packaging, `mkdocs build --strict` builds a site whose source links use
packaging's tags (named like the release, no `v`: its repository's tags are `26.0`, `25.0`, ...),
and whose home page's paste box finds the entry in a real browser."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from playwright.sync_api import expect

from errorkb.cli import main
from tests.site.sitekb import mkdocs_build, serve

PACKAGING = version("packaging")
USER_CODE = 'from packaging.version import Version\n\nrequired = Version("1.0-banana")\n'
BEFORE = '''"""A version string that is not PEP 440, parsed as one."""

from packaging.version import Version

# --8<-- [start:show]
Version("1.0-banana")
# --8<-- [end:show]
'''
AFTER = '''"""Write the version as PEP 440 spells it (a local version label after `+`)."""

from packaging.version import Version

# --8<-- [start:show]
print(Version("1.0+banana"))
# --8<-- [end:show]
'''
GUARD = '''"""Check a version string against PEP 440's pattern before parsing it."""

import re

from packaging.version import VERSION_PATTERN, Version

# --8<-- [start:show]
PEP440 = re.compile(r"^\\s*" + VERSION_PATTERN + r"\\s*$", re.VERBOSE | re.IGNORECASE)


def parse(text):
    return Version(text) if PEP440.match(text) else None


print(parse("1.0.post1"), parse("1.0-banana"))
# --8<-- [end:show]
'''
PROSE = {
    'title: "TODO: a title that names the mistake, in the reader\'s words"':
        'title: "A version string that is not PEP 440"',
    "  TODO: what the error means: what the library checks, and what is wrong when it fails.":
        "  `Version` parses PEP 440 versions only; the string is not one.",
    "  TODO: the call and the arguments that raise it.": "  `Version(text)` with a string PEP 440 does not allow.",
    '  - "TODO: a situation in which people hit it (one per item)."': '  - "A tool\'s own version scheme."',
    '  - title: "TODO: the fix, as an imperative sentence"': '  - title: "Spell the version as PEP 440 does"',
    "      TODO: how, and why it works.": "      A local label goes after `+`.",
    '  - title: "TODO: a defensive pattern"': '  - title: "Catch InvalidVersion where versions come from outside"',
    '  - "TODO: how to keep it from happening."': '  - "Validate versions where they enter."',
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory) -> Path:
    """The knowledge base as an author leaves it after `init`, `new` and filling in the stub."""
    folder = tmp_path_factory.mktemp("empty")
    root = folder / "kb"
    assert main(["init", str(root), "--library", "packaging"]) == 0
    user = folder / "user.py"
    user.write_text(USER_CODE)
    crashed = subprocess.run([sys.executable, str(user)], capture_output=True, text=True, timeout=60)
    assert "packaging.version.InvalidVersion: Invalid version: '1.0-banana'" in crashed.stderr
    (folder / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "invalid-version", "--from-traceback", str(folder / "tb.txt")]) == 0
    entry = root / "docs" / "errors" / "packaging" / "invalid-version.yml"
    text = entry.read_text()
    for todo, done in PROSE.items():
        assert todo in text, todo
        text = text.replace(todo, done)
    entry.write_text("\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n")
    snippets = root / "snippets" / "invalid-version"
    (snippets / "before.py").write_text(BEFORE)
    (snippets / "after.py").write_text(AFTER)
    (snippets / "guard_validate.py").write_text(GUARD)
    return root


def test_init_new_verify_check_and_hook_index(kb, capsys):
    assert main(["--root", str(kb), "verify", "--no-cache"]) == 0, capsys.readouterr()
    report = json.loads((kb / "reports" / "latest.json").read_text())
    assert report["summary"] == {"pass": 3, "fail": 0, "not-run": 0, "not-applicable": 0}
    assert {check["target"] for check in report["checks"]} == {"upstream"}
    assert main(["--root", str(kb), "check", "--drift"]) == 0
    assert "1 entries OK; every source pin holds" in capsys.readouterr().out
    assert main(["--root", str(kb), "hook", "index"]) == 0
    index = json.loads((kb / "packaging_errorkb" / "index.json").read_text())
    assert [item["id"] for item in index["entries"]] == ["invalid-version"]


def test_the_site_builds_strictly_with_the_library_s_own_tags(kb, tmp_path):
    assert main(["--root", str(kb), "verify"]) == 0
    site = tmp_path / "site"
    built = mkdocs_build(kb / "mkdocs.yml", site)
    assert built.returncode == 0, built.stderr
    page = (site / "errors" / "packaging" / "invalid-version" / "index.html").read_text()
    links = set(re.findall(r'href="(https://github\.com/pypa/packaging/[^"]+)"', page))
    assert links == {f"https://github.com/pypa/packaging/blob/{PACKAGING}/src/packaging/version.py#L"
                     + re.search(r"#L(\d+)", next(iter(links)))[1]}, links
    assert "/blob/v" not in page and "github.com" in page
    # Only the targets the profile configures: no bundled implementation, no "bundled" badge or column.
    verification = (site / "verification" / "index.html").read_text()
    assert "upstream" in page and "bundled" not in page and "bundled" not in verification


@pytest.mark.browser
def test_the_home_page_paste_box_finds_the_entry(kb, tmp_path, visit):
    site = tmp_path / "site"
    assert mkdocs_build(kb / "mkdocs.yml", site).returncode == 0
    with serve(site) as url:
        tab = visit()
        tab.page.goto(url, wait_until="load")
        tab.page.locator(".ekb-lookup__input").fill("packaging.version.InvalidVersion: Invalid version: '2.0-dev-x'")
        first = tab.page.locator(".ekb-lookup__hit").first
        expect(first.locator("a.ekb-lookup__title")).to_have_attribute(
            "href", re.compile(r"errors/packaging/invalid-version/$"))
        assert tab.errors == [] and tab.outside == []

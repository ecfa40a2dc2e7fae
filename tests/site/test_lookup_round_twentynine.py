"""Round twenty-nine (session 57): an installer's lines, then the run, whatever the installer.

Round twenty-eight read pip's `Successfully installed ... <library>-X` directly before a run's traceback as the release
that ran (what the paste stated above it was replaced). uv prints the same record in its own words: `Installed N
packages in ...`, then one line per package, ` - <name>==old` for the release it removed and ` + <name>==new` for the
one it installed (astral-sh/uv#19541 shows `Installed 1 package in 18ms` / ` - my-module-name==0.22.2.dev4 (from
file:///...)` / ` + my-module-name==0.22.0 (f...`; a transcript of `uv pip install "transformers==4.45.0"` reads
`Installed 3 packages in 641ms` / ` - huggingface-hub==1.16.4` / ` + huggingface-hub==0.36.2` / ... / ` - transformers
==5.9.0` / ` + transformers==4.45.0`). On main a uv transcript followed by the run's traceback was held to the
release stated above it and to the removed one as well, and confirmed the removal in 4.56 on the 4.46.3 that ran (a
confirmed wrong answer).

The class: one rule for "an installer's record, then the run" (`rules.RAN_AFTER`): pip's line or uv's block, then
blank lines, at most one command that starts Python, and Python's marker. The release the record installed is the
one that ran; what was stated above it, uv's ` - <name>==old` line included, was replaced. Nothing else orders
releases: uv's block before a bare message or a note, a ` + <name>==X` line without uv's header (a diff, a list), or
the block below the traceback are held to every release as before. Conda's transactions are not read (no transcript
in the stored threads to test against): they keep being held to every release they state.
"""

from __future__ import annotations

from tests.site.lookupkb import KEY, TB, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import real_index  # noqa: F401  (the fixture)

KEY_TB = traceback("/home/me/run.py", "main", "cache.key_cache[0]", K)


def _uv(removed: str, installed: str, suffix: str = "") -> str:
    """uv's record of replacing the library's release `removed` by `installed` (its sorted `-`/`+` lines)."""
    return ("Resolved 3 packages in 12ms\nPrepared 3 packages in 593ms\nUninstalled 3 packages in 233ms\n"
            "Installed 3 packages in 641ms\n - huggingface-hub==1.16.4\n + huggingface-hub==0.36.2\n"
            f" - tokenizers==0.22.2\n + tokenizers==0.20.3\n - transformers=={removed}{suffix}\n"
            f" + transformers=={installed}{suffix}\n")


def _paste(freeze: str, removed: str, installed: str, after: str, between: str = "", suffix: str = "") -> str:
    return f"transformers=={freeze}\ntorch==2.4\n{_uv(removed, installed, suffix)}{between}{after}"


def _releases(kb, text: str) -> list[tuple[str, tuple[str, ...]]]:  # noqa: F811
    found = kb.answer(text, None)
    return [(m.known.id, m.release.releases if m.release else ()) for m in found.confirmed + found.candidates]


def test_uv_s_installed_release_that_ran_rules_out_what_it_never_raises(kb):  # noqa: F811
    """4.46.3 still had `key_cache`: the traceback after uv installed it is not the removal's (main: confirmed)."""
    assert answer(kb, _paste("4.57.0", "4.57.0", "4.46.3", KEY_TB)) == answer(kb, KEY_TB, "4.46.3") == ([], [])
    assert answer(kb, _paste("4.57.0", "4.57.0", "4.46.3", KEY_TB, suffix=" (from file:///home/me/transformers)")) \
        == ([], [])
    for between in ("\n", "$ python run.py\n", "(venv) me@box:~/x$ python3 -u train.py\n\n"):
        assert answer(kb, _paste("4.57.0", "4.57.0", "4.46.3", KEY_TB, between)) == ([], []), between


def test_uv_s_installed_release_is_the_one_the_answer_is_held_to(kb):  # noqa: F811
    """uv's ` - transformers==4.46.0` is the release it removed: the answer is held to the one it installed."""
    assert _releases(kb, _paste("4.46.0", "4.46.0", "4.57.0", KEY_TB)) == [(KEY, ("4.57.0",))]
    assert answer(kb, _paste("4.46.0", "4.46.0", "4.57.0", KEY_TB)) == ([KEY], [])


def test_pip_s_transcript_in_its_own_order(kb):  # noqa: F811
    """pip's upgrade as transformers#38914 printed it (`Found existing installation: transformers 4.46.1`, the
    library listed after another distribution on the `Successfully installed` line), then the run."""
    pip = ("  Attempting uninstall: transformers\n    Found existing installation: transformers {old}\n"
           "    Uninstalling transformers-{old}:\n      Successfully uninstalled transformers-{old}\n"
           "Successfully installed tokenizers-0.21.1 transformers-{new}\n")
    assert answer(kb, pip.format(old="4.57.0", new="4.46.3") + KEY_TB) == ([], [])
    assert _releases(kb, pip.format(old="4.46.1", new="4.57.0") + KEY_TB) == [(KEY, ("4.57.0",))]


def test_another_distribution_s_release_is_never_held_to_as_the_library_s(kb):  # noqa: F811
    """A number joined to another name by `-` or `==` is that distribution's (`rules.BESIDE_NUMBER`): a package uv
    installs after the library (sorted by name) with a number of the library's major is not a release of it (main held
    to both, and a release inside the entry's range confirmed the removal on the 4.46.3 that ran); a line that says its
    one release of the library works states none, whatever other distributions it names; a line naming two releases
    of the library is held to both, as before."""
    uv = "Installed 2 packages in 5ms\n - transformers==4.57.0\n + transformers==4.46.3\n + zzz-plugin==4.60.0\n"
    assert answer(kb, uv + KEY_TB) == ([], [])
    assert answer(kb, "transformers==4.57.0 tokenizers==0.21.1\n" + KEY_TB) == ([KEY], [])
    assert _releases(kb, "transformers==4.57.0 tokenizers==0.21.1\n" + KEY_TB) == [(KEY, ("4.57.0",))]
    assert answer(kb, "transformers==4.57.1 works with torch==2.4.0\n" + K) == ([], [KEY])
    assert _releases(kb, "transformers==4.46.0 fails but transformers==4.57.1 works\n" + K) == [(KEY, ("4.46.0", "4.57.1"))]


def test_nothing_else_orders_uv_s_releases(kb):  # noqa: F811
    """Held to every release stated: a bare message after the block, a note between, the `+` line without uv's
    header, the block after the traceback."""
    restart = ("WARNING: The following packages were previously imported in this runtime:\n  [transformers]\n"
               "You must restart the runtime in order to use newly installed versions.\n")
    for removed, installed in (("4.57.0", "4.46.3"), ("4.46.0", "4.57.0")):
        both = (removed, installed)
        assert answer(kb, _paste(removed, removed, installed, K)) == ([], [KEY])
        assert _releases(kb, _paste(removed, removed, installed, KEY_TB, restart)) == [(KEY, both)]
        assert _releases(kb, _paste(removed, removed, installed, KEY_TB, "Still the same:\n")) == [(KEY, both)]
        bare = f"transformers=={removed}\n + transformers=={installed}\n{KEY_TB}"  # a list or a diff, not uv's block
        assert _releases(kb, bare) == [(KEY, both)]
        after = f"transformers=={removed}\n{KEY_TB}\n{_uv(removed, installed)}"
        assert _releases(kb, after) == [(KEY, both)]


def test_the_page_reads_uv_s_record_as_the_lookup_does(real_index):  # noqa: F811
    from errorkb.lookup import read_index
    from tests.site.test_lookup_js import full_python, js_on_index

    pastes = [_paste("4.57.0", "4.57.0", "4.46.3", KEY_TB), _paste("4.46.0", "4.46.0", "4.57.0", KEY_TB, "\n"),
              _paste("4.57.0", "4.57.0", "4.46.3", KEY_TB, suffix=" (from file:///x)"),
              _paste("4.57.0", "4.57.0", "4.46.3", KEY_TB, "$ python run.py\n"),
              _paste("4.46.0", "4.46.0", "4.57.0", K), _paste("4.46.0", "4.46.0", "4.57.0", KEY_TB, "Still:\n"),
              f"transformers==4.57.0\n + transformers==4.46.3\n{KEY_TB}"]
    python = full_python([], pastes, None, lookup=read_index(real_index).lookup(), work=True)
    js = js_on_index(real_index, pastes, None, work=True)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste


HEADER = "Installed 1 package in 1ms\n"
HOSTILE = [
    HEADER + " - a==1.0.0\n" * 60000 + K,  # a long block naming other packages, no run after
    HEADER + " + transformers==4.57.0\n" * 60000 + K,  # the library's line again and again, no run after
    (HEADER + " + transformers==4.57.0\n" + TB + "\n") * 10000 + K,  # a run after each block
    (HEADER + " + transformers==4.57.0\n" + " ~ b==1.0.0 " + "x" * 2000 + "\n") * 300 + K,  # long lines
    HEADER * 60000 + " + transformers==4.57.0\n" + TB + "\n" + K,  # headers only, then one block and a run
]


def test_uv_s_lines_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): each paste (0.6 to 1.6 MB) answers well under the limit. The first
    names no release of the library (the words alone: a candidate); the others state 4.57.0, the removal's, in uv's
    `+` lines (kept in the last 64 KiB read), whether a run follows a block or not."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_twentynine import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], [KEY], [KEY], [KEY], [KEY]]

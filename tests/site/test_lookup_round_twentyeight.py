"""Round twenty-eight (session 56): which of two stated releases ran.

A paste that states two releases of the library (a freeze above naming one, an installer's `Successfully installed
<library>-X` naming another) was held to both, whatever their order: a release is evidence only when it is the one
that ran. With a traceback, the answer could still be confirmed on the frames' evidence (the user's line reading the
removed attribute) while one of the two, the one that ran, rules the entry out: a freeze of 4.57.0, then pip's
`Successfully installed transformers-4.46.3`, then the run's traceback confirmed the removal in 4.56 on a release
that still had the attribute.

The class: an installer's line followed directly by Python's marker (blank lines only between, and at most one shell
command that starts Python: `$ python run.py`) is a terminal's transcript, the install and then a fresh process's
run, so the release it installed is the one that ran and what the paste stated above it was replaced
(`rules.RAN_AFTER`). Nothing else orders them: a bare message after the line (a line copied from an earlier run), a
note between (a notebook's "restart the runtime": the kernel keeps the release it imported before the install, pip's
own warning), IPython's header or `%run` (the same kernel), or the installer's line after the traceback: all stay
held to both.
"""

from __future__ import annotations

from tests.site.lookupkb import KEY, TB, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import real_index  # noqa: F401  (the fixture)

KEY_TB = traceback("/home/me/run.py", "main", "cache.key_cache[0]", K)


def _paste(freeze: str, installed: str, after: str, between: str = "") -> str:
    return f"transformers=={freeze}\ntorch==2.4\nSuccessfully installed transformers-{installed}\n{between}{after}"


def _releases(kb, text: str) -> list[tuple[str, tuple[str, ...]]]:  # noqa: F811
    found = kb.answer(text, None)
    return [(m.known.id, m.release.releases if m.release else ()) for m in found.confirmed + found.candidates]


def test_the_installed_release_that_ran_rules_out_what_it_never_raises(kb):  # noqa: F811
    """4.46.3 still had `key_cache`: its traceback is not the removal's, whatever the freeze above said."""
    assert answer(kb, _paste("4.57.0", "4.46.3", KEY_TB)) == answer(kb, KEY_TB, "4.46.3") == ([], [])
    assert answer(kb, _paste("4.57.0", "4.46.3", KEY_TB, "\n\n")) == ([], [])
    for command in ("$ python run.py\n", "\n(venv) me@box:~/x$ python3.11 -u train.py --fast\n\n", "!python run.py\n",
                    "C:\\Users\\me> py run.py\n", "python\n"):
        assert answer(kb, _paste("4.57.0", "4.46.3", KEY_TB, command)) == ([], []), command


def test_the_installed_release_that_ran_is_the_one_the_answer_is_held_to(kb):  # noqa: F811
    assert _releases(kb, _paste("4.46.0", "4.57.0", KEY_TB)) == [(KEY, ("4.57.0",))]
    assert answer(kb, _paste("4.46.0", "4.57.0", KEY_TB)) == ([KEY], [])


def test_nothing_else_orders_two_releases(kb):  # noqa: F811
    """Each stays held to both releases: possible on a bare message, and on a traceback the frames' evidence."""
    restart = ("WARNING: The following packages were previously imported in this runtime:\n  [transformers]\n"
               "You must restart the runtime in order to use newly installed versions.\n")
    ipython = ("---------------------------------------------------------------------------\n"
               "AttributeError                            Traceback (most recent call last)\n"
               "Cell In[3], line 5\n----> 5 cache.key_cache[0]\n\n" + K)
    for freeze, installed in (("4.57.0", "4.46.3"), ("4.46.0", "4.57.0")):
        both = (freeze, installed)
        assert answer(kb, _paste(freeze, installed, K)) == ([], [KEY])
        assert _releases(kb, _paste(freeze, installed, KEY_TB, restart)) == [(KEY, both)]
        assert _releases(kb, _paste(freeze, installed, KEY_TB, "Still the same:\n")) == [(KEY, both)]
        assert _releases(kb, _paste(freeze, installed, ipython)) == [(KEY, both)]
        for between in ("%run run.py\n", "$ pythonic run.py\n", "$ python run.py\n$ python run.py\n",
                        "import transformers\n", "$ python run.py\nStill the same:\n"):
            assert _releases(kb, _paste(freeze, installed, KEY_TB, between)) == [(KEY, both)], between
        after = f"transformers=={freeze}\n{KEY_TB}\nSuccessfully installed transformers-{installed}\n"
        assert _releases(kb, after) == [(KEY, both)]
        # a statement below the run's traceback is held to as well: only what stood above the install is replaced
        below = _paste(freeze, installed, KEY_TB) + f"\ntransformers version: {freeze}\n"
        assert _releases(kb, below) == [(KEY, (installed, freeze))]


def test_another_distribution_s_install_orders_nothing(kb):  # noqa: F811
    """Round twenty-nine: `sentence-transformers-4.46.3` is that distribution's release, never the library's beside
    its own (`rules.RELEASE_NUMBER`: a number joined to a name by `-` or `==`); round twenty-eight held to it as a
    number of the same major. The freeze's 4.57.0 is the one stated."""
    text = f"transformers==4.57.0\nSuccessfully installed sentence-transformers-4.46.3\n{KEY_TB}"
    assert _releases(kb, text) == [(KEY, ("4.57.0",))]


def test_the_page_reads_which_release_ran_as_the_lookup_does(real_index):  # noqa: F811
    from errorkb.lookup import read_index
    from tests.site.test_lookup_js import full_python, js_on_index

    pastes = [_paste("4.57.0", "4.46.3", KEY_TB), _paste("4.46.0", "4.57.0", KEY_TB, "\n"),
              _paste("4.57.0", "4.46.3", KEY_TB, "(venv) me@box:~/x$ python3 run.py\n"),
              _paste("4.57.0", "4.46.3", KEY_TB, "%run run.py\n"),
              _paste("4.46.0", "4.57.0", K), _paste("4.46.0", "4.57.0", KEY_TB, "Still:\n"),
              _paste("4.46.0", "4.57.0", KEY_TB) + "\ntransformers 4.46.0\n"]
    python = full_python([], pastes, None, lookup=read_index(real_index).lookup(), work=True)
    js = js_on_index(real_index, pastes, None, work=True)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste


HOSTILE = [
    "Successfully installed " + "a " * 30000 + "transformers-4.57.0\n" + " \n" * 20000 + "x",  # a long line, blanks
    ("Successfully installed transformers-4.57.0\n" + " \t\n" * 50) * 5000 + K,  # many lines, no run after
    "Successfully installed " + "transformers-4.57 " * 20000 + "\n" + K,  # no whole release
    ("Successfully installed transformers-4.57.0\n" + TB + "\n") * 10000 + K,  # a run after each
    ("Successfully installed transformers-4.57.0\n" + "$ " * 2000 + "\n") * 300 + K,  # prompts, no command
    "Successfully installed transformers-4.57.0\n" + "$ " * 32000 + "\n" + K,  # one line of 64 KB
]


def test_installer_lines_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): each paste (64 KB to 1.2 MB) answers well under the limit; the kept
    tail's installer line followed by a run ties the release that ran (4.57.0: the removal's)."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_twentyeight import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], [KEY], [], [KEY], [KEY], [KEY]]

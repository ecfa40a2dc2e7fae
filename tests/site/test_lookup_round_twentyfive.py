"""Round twenty-five: attacks aimed at a confirmed wrong answer, in shapes rounds one to twenty-four did not try, asked
of the matcher, the page's script and the hook alike.

One hole, a confirmed wrong answer, closed as a class: a release an installer says it could *not* install was read as
the release installed. pip's `ERROR: No matching distribution found for <library>==4.56.0` (zjunlp/DocuNet#14,
huggingface/transfer-learning-conv-ai#93), its `Could not find a version that satisfies the requirement <library>==...
(from versions: none)` and uv's resolver (`Because there is no version of <library>==...`, astral-sh/uv#2172; `...
depend on <library>==4.33.3`, moment-timeseries-foundation-model/moment#79) name the release asked for, which the
install did not get: the one that ran is another (older, most often). It confirmed an entry whose words tie it only on
that release (`key-cache-removed`: the 4.46 compile failure prints the same words). Such a statement is a release to
get, as advice's is: `rules.TOLD_OTHER_BEFORE` reads the installer's words for a requirement it could not meet or
only requires (`found for`, `satisfies the requirement`, `no version of`, `depends on`, `requested`).

The attacks that found nothing to fix are kept as tests of their answer: the user's own file named like the library's
(`cache_utils.py` in their project, a folder of theirs named like the library), Python 3.11's carets and 3.13's `~`
markers between frames, a doctest's `Expected:` block (an error that was *not* raised), a traceback inside
multiprocessing's `RemoteTraceback` string or under Ray's `RayTaskError(...)` lending its frames to the user's own
error, an exception group's sub-exceptions lending frames to one another, the entry's words quoted inside another
message, a conda environment named like a release, and a paste of 50 MB or a million lines of the new words.

Known limit (a strict xfail until round twenty-seven, test_lookup_round_twentyseven.py): conda lists the packages it
could not find one per line under its own header (`PackagesNotFoundError: The following packages are not available
from current channels:` then `  - <library>==...`): the statement's line holds no word of the failure. Closed as a
class: an item of such a list (`rules.LIST_ITEM` under `rules.NOT_FOUND_HEADER`) states no release.
"""

from __future__ import annotations

import pytest

from tests.site.lookupkb import IDX, IE, KEY, SITE, TB, UPDATE_LINE, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)

# -- a release the installer could not install -----------------------------------------------------------------------

NOT_INSTALLED = {
    "pip, no distribution": "ERROR: No matching distribution found for transformers==4.56.0\n",
    "pip, no distribution, from a file": "ERROR: No matching distribution found for transformers==4.56.0 (from -r "
                                         "requirements.txt (line 3))\n",
    "pip, no version": "ERROR: Could not find a version that satisfies the requirement transformers==4.56.0 (from "
                       "versions: none)\n",
    "uv, no version": "  ╰─▶ Because there is no version of transformers==4.56.0 and you require transformers==4.56.0, "
                      "we can conclude that your requirements are unsatisfiable.\n",
    "uv, depends on": "  ╰─▶ Because all versions of momentfm depend on transformers==4.56.0 and your project depends on\n",
    "pip, user requested": "The conflict is caused by:\n    The user requested transformers==4.56.0\n",
}


@pytest.mark.parametrize("line", NOT_INSTALLED.values(), ids=NOT_INSTALLED.keys())
def test_a_release_the_installer_could_not_install_states_none(kb, line):  # noqa: F811
    assert answer(kb, line + K) == ([], [KEY])


STILL_STATED = {
    "installed": "Successfully installed transformers-4.56.0\n",
    "already satisfied": "Requirement already satisfied: transformers==4.56.0 in ./venv/lib/python3.10/site-packages "
                         "(4.56.0)\n",
    "pip install": "pip install transformers==4.56.0\n",
    "pip show": "Name: transformers\nVersion: 4.56.0\n",
    "failure first, then installed": "ERROR: No matching distribution found for transformers==4.56.1\n"
                                     "Successfully installed transformers-4.56.0\n",
}


@pytest.mark.parametrize("line", STILL_STATED.values(), ids=STILL_STATED.keys())
def test_a_release_installed_is_still_stated(kb, line):  # noqa: F811
    assert answer(kb, line + K) == ([KEY], [])


def test_a_release_conda_could_not_find_states_none(kb):  # noqa: F811
    """Closed in round twenty-seven: a list item under the installer's header (`rules.LIST_ITEM`,
    `rules.NOT_FOUND_HEADER`) states no release; the same item under another header, or none, still does."""
    header = "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
    for listed in ("  - transformers==4.56.0\n\n", "  - torch==2.4\n  - transformers==4.56.0\n\n"):
        assert answer(kb, header + listed + K) == ([], [KEY]), listed
    assert answer(kb, "Installed:\n  - transformers==4.56.0\n\n" + K) == ([KEY], [])
    assert answer(kb, "  - transformers==4.56.0\n\n" + K) == ([KEY], [])


# -- found held ------------------------------------------------------------------------------------------------------

GROUP_HEAD = ["  + Exception Group Traceback (most recent call last):",
              '  |   File "/home/u/run.py", line 9, in <module>', "  |     asyncio.run(main())",
              "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)"]
USERS = ["    | " + TB, '    |   File "/home/u/run.py", line 4, in a', "    |     return xs[5]", "    | " + IE]
LIBRARYS = ["    | " + TB, f'    |   File "{SITE}/transformers/cache_utils.py", line 120, in update',
            f"    |     {UPDATE_LINE}", "    | RuntimeError: boom"]
REMOTE = ["multiprocessing.pool.RemoteTraceback: ", '"""', TB,
          '  File "/usr/lib/python3.10/multiprocessing/pool.py", line 125, in worker',
          "    result = (True, func(*args, **kwds))",
          f'  File "{SITE}/transformers/cache_utils.py", line 120, in update', f"    {UPDATE_LINE}", "RuntimeError: boom",
          '"""', "", "The above exception was the direct cause of the following exception:", ""]
DOCTEST = ["Failed example:", "    cache.get_max_length()", "Expected:", "    " + TB, "    ...",
           "    AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", "Got:"]

HELD = {
    "the user's cache_utils.py": (traceback("/home/u/proj/cache_utils.py", "update", UPDATE_LINE, IE), ([], [])),
    "the user's folder named like the library": (
        traceback("/home/u/proj/transformers/cache_utils.py", "update", UPDATE_LINE, IE), ([], [IDX])),
    "3.11 carets": ("\n".join([TB, '  File "/home/u/run.py", line 3, in <module>', "    x = cache.update(k, v, 9)",
                               "        ^^^^^^^^^^^^^^^^^^^^^^^^", f'  File "{SITE}/transformers/cache_utils.py", '
                               "line 120, in update", f"    {UPDATE_LINE}", "    ~~~~~~~~~~~~~~^^^^^^^^^^^", IE]),
                    ([IDX], [])),
    "doctest, expected and not raised": ("\n".join([*DOCTEST, "    1024"]), ([], [])),
    "doctest, another error raised": ("\n".join([*DOCTEST, "    " + TB, '      File "/home/u/run.py", line 1, in '
                                                 "<module>", "        f()", "    ValueError: bad"]), ([], [])),
    "remote traceback lends its frames": ("\n".join([*REMOTE, TB, '  File "/home/u/run.py", line 10, in <module>',
                                                     "    out = xs[5]", IE]), ([], [])),
    "ray lends its frames": ("\n".join(["ray.exceptions.RayTaskError(RuntimeError): ray::f() (pid=12, ip=10.0.0.1)",
                                        f'  File "{SITE}/transformers/cache_utils.py", line 120, in update',
                                        f"    {UPDATE_LINE}", "RuntimeError: boom", "",
                                        "During handling of the above exception, another exception occurred:", "",
                                        TB, '  File "/home/u/run.py", line 10, in <module>', "    out = xs[5]", IE]),
                             ([], [])),
    "ray, the entry's error": ("\n".join([TB, '  File "/home/u/run.py", line 3, in <module>', "    ray.get(r)",
                                          "ray.exceptions.RayTaskError(IndexError): ray::f() (pid=12, ip=10.0.0.1)",
                                          f'  File "{SITE}/transformers/cache_utils.py", line 120, in update',
                                          f"    {UPDATE_LINE}", IE]), ([IDX], [])),
    "group, the user's first": ("\n".join([*GROUP_HEAD, "  +-+---------------- 1 ----------------", *USERS,
                                           "    +---------------- 2 ----------------", *LIBRARYS,
                                           "    +------------------------------------"]), ([], [])),
    "group, the library's first": ("\n".join([*GROUP_HEAD, "  +-+---------------- 1 ----------------", *LIBRARYS,
                                              "    +---------------- 2 ----------------", *USERS,
                                              "    +------------------------------------"]), ([], [])),
    "quoted inside another message": ('RuntimeError: Worker failed: "' + K + '"', ([], [KEY])),
    "a conda environment named like a release": (
        traceback("/home/u/miniconda3/envs/tf456/lib/python3.10/site-packages/mypkg/run.py", "main",
                  "out = model(**batch)", K), ([], [KEY])),
}


@pytest.mark.parametrize("name", HELD)
def test_shapes_found_held(kb, name):  # noqa: F811
    text, expected = HELD[name]
    assert answer(kb, text) == expected


HOSTILE = [
    "ERROR: No matching distribution found for transformers==4.56.0 " * 20000 + "\n" + K,  # one line, 20,000 of them
    "The user requested transformers==4.56.0\n" * 40000 + K,  # 40,000 lines
]


def test_hostile_pastes_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): each answers in well under the limit."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_twentyfive import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[], []]


@pytest.mark.parametrize("release", [None, "4.57.0"])
def test_round_twentyfive_reads_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [*(line + K for line in [*NOT_INSTALLED.values(), *STILL_STATED.values()]),
              *(text for text, _ in HELD.values()), *HOSTILE]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, release)
    confirmed = [[one[0] for one in p["found"] if one[1] == "confirmed"] for p in python]
    if release is None:
        n = len(NOT_INSTALLED)
        assert confirmed[:n] == [[]] * n
        assert confirmed[n:n + len(STILL_STATED)] == [[KEY]] * len(STILL_STATED)
        assert confirmed[n + len(STILL_STATED):len(confirmed) - len(HOSTILE)] == [expected[0] for _, expected in
                                                                                   HELD.values()]

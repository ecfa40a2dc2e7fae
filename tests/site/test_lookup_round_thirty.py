"""Round thirty (session 57): a release an installer's transcript says it replaced is not a release that ran.

pip prints its upgrade as `  Attempting uninstall: <name>` / `    Found existing installation: <name> <old>` /
`    Uninstalling <name>-<old>:` / `      Successfully uninstalled <name>-<old>` (pypa/pipenv#5953, Rubiksman78/MonikA.I#75,
transformers#38914); conda prints its transaction one package a line, the old build, an arrow, the new one
(`    requests:     2.12.3-py35_0     --> 2.12.1-py35_0     conda-forge`, conda/conda#4066; anaconda-issues#9328 and
#10221 the same, a channel before the arrow at times). On main the old release of each was read as stated
(`Found existing installation: <library> 4.57.0` is `<library> 4.57.0`; conda's `<library>:  4.57.0-...`) and the
answer confirmed on it: pip's uninstall lines then the traceback confirmed the removal in 4.56 on the 4.57.0 that was
uninstalled, and conda's `4.57.0 --> 4.46.3` confirmed it held to both, the 4.46.3 installed among them.

The class (`rules.REPLACED`, `rules.STATED`'s transition form): what a transcript says was replaced or uninstalled (pip's
`Found existing installation:` line, everything before the arrow of a line whose arrow leads to a release) states no
release and no number there is held beside; the release after conda's arrow is stated, as pip's `Successfully installed`
line is. A bare arrow in prose that leads to no release (`transformers 4.57.0 --> error`) is no transition.
"""

from __future__ import annotations

from tests.site.lookupkb import KEY, K, answer, kb, traceback  # noqa: F401  (kb: the fixture)
from tests.site.test_lookup_js import real_index  # noqa: F401  (the fixture)

KEY_TB = traceback("/home/me/run.py", "main", "cache.key_cache[0]", K)
UNINSTALL = ("  Attempting uninstall: transformers\n    Found existing installation: transformers {old}\n"
             "    Uninstalling transformers-{old}:\n      Successfully uninstalled transformers-{old}\n")
INSTALLED = "Successfully installed tokenizers-0.21.1 transformers-{new}\n"
CONDA = "  transformers:                {old}-pyhd8ed1ab_0      --> {new}-pyhd8ed1ab_0 conda-forge\n"
CONDA_CHANNEL = "    transformers:   {old}-pyhd8ed1ab_0   conda-forge --> {new}-pyhd8ed1ab_0    conda-forge\n"


def _releases(kb, text: str) -> list[tuple[str, tuple[str, ...]]]:  # noqa: F811
    found = kb.answer(text, None)
    return [(m.known.id, m.release.releases if m.release else ()) for m in found.confirmed + found.candidates]


def test_an_uninstalled_release_is_never_confirmed_on(kb):  # noqa: F811
    """pip's uninstall lines alone name the release removed, not the one that ran: the answer is that of the bare
    traceback (main: confirmed on the 4.57.0 uninstalled)."""
    bare = _releases(kb, KEY_TB)
    assert _releases(kb, UNINSTALL.format(old="4.57.0") + KEY_TB) == bare == [(KEY, ())]
    assert _releases(kb, UNINSTALL.format(old="4.46.1") + KEY_TB) == bare


def test_pip_s_replaced_release_is_not_held_beside_the_installed_one(kb):  # noqa: F811
    """With a note between the transcript and the run (no `RAN_AFTER`), the answer is held to the release installed
    only: main held it to the uninstalled 4.57.0 too, and confirmed the removal with 4.46.3 installed."""
    for old, new in (("4.57.0", "4.46.3"), ("4.46.1", "4.57.0")):
        text = UNINSTALL.format(old=old) + INSTALLED.format(new=new) + "Still fails:\n" + KEY_TB
        assert _releases(kb, text) == ([(KEY, (new,))] if new == "4.57.0" else []), text
    assert answer(kb, UNINSTALL.format(old="4.57.0") + INSTALLED.format(new="4.46.3") + "Still:\n" + KEY_TB) \
        == ([], [])


def test_conda_s_transaction_states_the_release_after_its_arrow(kb):  # noqa: F811
    """conda's `old --> new` line: the new release is stated and the old one held to nowhere (main: held to both,
    confirmed the removal with 4.46.3 installed; and held to the 4.40.0 replaced when 4.57.0 was installed)."""
    for line in (CONDA, CONDA_CHANNEL):
        assert answer(kb, line.format(old="4.57.0", new="4.46.3") + KEY_TB) == ([], []), line
        assert _releases(kb, line.format(old="4.40.0", new="4.57.0") + KEY_TB) == [(KEY, ("4.57.0",))], line
        assert answer(kb, line.format(old="4.40.0", new="4.57.0") + KEY_TB) == ([KEY], []), line


def test_an_arrow_that_leads_to_no_release_is_no_transition(kb):  # noqa: F811
    """Prose with an arrow (`transformers 4.57.0 --> this error`) states its release as before; a line naming two
    releases with an arrow between is a transition only when it names the library before it."""
    assert _releases(kb, "transformers 4.57.0 --> this error\n" + KEY_TB) == [(KEY, ("4.57.0",))]
    assert _releases(kb, "transformers==4.57.0\n" + KEY_TB) == [(KEY, ("4.57.0",))]


def test_the_page_reads_transitions_as_the_lookup_does(real_index):  # noqa: F811
    from errorkb.lookup import read_index
    from tests.site.test_lookup_js import full_python, js_on_index

    pastes = [UNINSTALL.format(old="4.57.0") + KEY_TB,
              UNINSTALL.format(old="4.57.0") + INSTALLED.format(new="4.46.3") + "Still:\n" + KEY_TB,
              UNINSTALL.format(old="4.46.1") + INSTALLED.format(new="4.57.0") + "Still:\n" + KEY_TB,
              CONDA.format(old="4.57.0", new="4.46.3") + KEY_TB, CONDA.format(old="4.40.0", new="4.57.0") + KEY_TB,
              CONDA_CHANNEL.format(old="4.40.0", new="4.57.0") + K,
              "transformers 4.57.0 --> this error\n" + KEY_TB]
    python = full_python([], pastes, None, lookup=read_index(real_index).lookup(), work=True)
    js = js_on_index(real_index, pastes, None, work=True)
    for paste, p, j in zip(pastes, python, js):
        assert p == j, paste


HOSTILE = [
    "  transformers: 4.57.0-py_0 --> " + "x::" * 20000 + "\n" + K,  # a token of channels after the arrow
    ("  transformers: 4.57.0-py_0 " + " --> a" * 10000 + "\n") * 3 + K,  # arrows that lead to no release
    ("a-" * 30000 + "-->" + " --> " + "a-" * 30000 + "\n") + K,  # names that never reach a release
    "    Found existing installation: transformers 4.40.0\n" * 1500 + "transformers: 4.40.0-py_0 --> 4.57.0-py_0\n" + K,
]


def test_transitions_are_read_in_bounded_time():
    """A hang guard (generous, in a child process): each paste (60 to 180 kB) answers well under the limit (0.06 s
    each here). An arrow that leads to no release is no transition: the first two state the 4.57.0 before it (the
    removal's release: confirmed, as on main); the third names no release; the last states the 4.57.0 after conda's
    arrow, the 4.40.0 of pip's 1,500 `Found existing installation` lines never held to."""
    import json
    import subprocess
    import sys

    code = ("import json; from tests.site.test_lookup_round_thirty import HOSTILE; "
            "from benchmarks.lookup_recall import project_known_lookup; kb = project_known_lookup(); "
            "print(json.dumps([[m.known.id for m in kb.answer(text, None).confirmed] for text in HOSTILE]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [[KEY], [KEY], [], [KEY]]

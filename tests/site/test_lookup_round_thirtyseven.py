"""Round thirty-seven (lookup38, session 62): the held-out part thirty-three (tests/corpus/README.md, h881–h894).

Every report of the part got its right answer on main's lookup (3 with an entry confirmed right, 11 negatives silent,
as pasted and with their stated releases). One of them shows a form of stating the installed release that main did
not read: h882 (billwuhao/ComfyUI_IndexTTS#43) writes "安装了最新版的 `transformers` (v4.56.1) 时" — the library's
name, then its release in parentheses. Main read no release there, so the same sentence naming a release where the
entry's cause cannot be (`QuantizedCacheConfig` was exported from `transformers.cache_utils` until 4.55) still
confirmed the removal on the words alone: a confirmed wrong answer for a paste that says which release ran. The class:
a release in parentheses right after the library's name (`transformers (4.50.0)`, `` `transformers` (v4.50.0) ``,
Poetry's `Installing transformers (4.50.0)`) states it, as `transformers 4.50.0` and `transformers v4.50.0` already
did; the rules' `STATED` gains the form, read by the Python matcher and the page's script alike (one pattern, shipped
as data). Its twins state nothing: an arrow inside the parentheses (Poetry's `Updating transformers (4.40.0 -> 4.46.3)`,
which names the replaced release first), a constraint (`(>=4.40)`), two releases, a longer release (`4.57.0.dev0`),
another distribution whose name ends with the library's, and the words that already said a release is wanted, not
installed (`requires transformers (4.56.1)`, `rules.TOLD_OTHER_BEFORE`) or that it works (`rules.TOLD_WORKING`).

The same class one form further: the prose forms read the name with its first letter capitalised (`{Name}` in
`rules.STATED`, expanded by both matchers as `{name}` is), as titles and sentences write it (corpus h091: "the installed
Transformers 4.57.6", now read; its answer was and stays right). Installers' records keep the distribution's own name.
"""

from __future__ import annotations

import functools

import pytest

from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index  # noqa: F401  (the fixture)

ENTRY = "import-quantizedcacheconfig-removed"
MESSAGE = "ImportError: cannot import name 'QuantizedCacheConfig' from 'transformers.cache_utils'"
# h882's paste as the thread printed it, its release written in parentheses after the library's name.
H882 = ("2.  当我的环境中安装了最新版的 `transformers` (v4.56.1) 时，启动 ComfyUI 会出现以下错误，指向 "
        "`transformers.cache_utils`：\n    ```\n    " + MESSAGE + "\n    ```")
# The same sentence and error where the release in parentheses is one that still exported the class (<4.56, >=4.42).
FORMS = ["`transformers` (v4.50.0)", "`transformers` (4.50.0)", "transformers (4.50.0)", "transformers (v4.50.0)",
         "transformers ( 4.50.0 )", "- Installing transformers (4.50.0)"]


def _said(lead: str) -> str:
    return f"当我的环境中安装了最新版的 {lead} 时，启动 ComfyUI 会出现以下错误：\n```\n{MESSAGE}\n```"


@functools.cache
def _project():
    from benchmarks import lookup_recall

    return lookup_recall.project_known_lookup()


def _answer(text: str, release: str | None = None) -> tuple[list[str], list[str]]:
    found = _project().answer(text, release)
    return [m.known.id for m in found.confirmed], [m.known.id for m in found.candidates]


def _stated(text: str) -> list[str]:
    from errorkb.lookup import normalize, stated_releases

    return stated_releases(normalize(text), "transformers", others=_project().other_names)


@pytest.mark.parametrize("lead", FORMS)
def test_a_release_in_parentheses_after_the_name_is_stated(lead):
    """main: [] (no release read)."""
    assert _stated(_said(lead)) == ["4.50.0"]


@pytest.mark.parametrize("lead", FORMS)
def test_a_release_in_parentheses_where_the_cause_cannot_be_confirms_nothing(lead):
    """main: the removal confirmed on the words, for a paste that states a release which still exported the class."""
    assert ENTRY not in _answer(_said(lead))[0]


def test_h882_reads_its_own_release():
    """main: no release read (the answer was right on the words alone); now the stated 4.56.1 ties it too."""
    assert _stated(H882) == ["4.56.1"]
    assert _project().answer(H882).release == "4.56.1"
    assert _answer(H882) == ([ENTRY], [])


@pytest.mark.parametrize("lead", [
    "- Updating transformers (4.40.0 -> 4.46.3)",  # Poetry names the replaced release first: an arrow, two releases
    "transformers (>=4.40)",  # a constraint
    "transformers (4.50.0, 4.51.0)",  # two releases
    "transformers (4.57.0.dev0)",  # a longer release states none (as `transformers 4.57.0.dev0` does)
    "sentence-transformers (4.50.0)",  # another distribution
    "requires transformers (4.50.0)",  # a release wanted (rules.TOLD_OTHER_BEFORE), not the one installed
    "transformers (4.50.0) works, mine is",  # a release that works (rules.TOLD_WORKING) states none
    "transformers(4.50.0)",  # a call's argument, not prose: no blank between the name and the parenthesis
], ids=["poetry-update", "constraint", "two", "dev", "other-distribution", "required", "works", "call"])
def test_the_parentheses_state_nothing_else(lead):
    """Guards (they pass on main too): the form is the name, blanks and one whole release closed at once."""
    assert _stated(_said(lead)) == []


def test_the_page_the_cli_and_the_hook_read_the_parentheses_alike(real_index):  # noqa: F811
    """main: the same answers in the three (none read the release), the removal confirmed for 4.50.0."""
    pastes = [_said(lead) for lead in FORMS] + [H882]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert [p["release"] for p in python] == ["4.50.0"] * len(FORMS) + ["4.56.1"]
    assert all(ENTRY not in [one[0] for one in p["found"] if one[1] == "confirmed"] for p in python[:len(FORMS)])


# The same class, one form further: the library's name capitalised as prose and titles write it (corpus h091, "the
# installed Transformers 4.57.6"; h436, "after upgrading Transformers from 4.49 to 4.50"). Main read none of these, so
# a release that rules the entry out confirmed it all the same.
CAPITALISED = ["Transformers 4.50.0", "Transformers version: 4.50.0", "Transformers==4.50.0", "Transformers v4.50.0",
               "`Transformers` (4.50.0)", "the installed Transformers 4.50.0 `DynamicCache` API"]


@pytest.mark.parametrize("lead", CAPITALISED)
def test_the_name_capitalised_states_a_release_too(lead):
    """main: [] (no release read)."""
    assert _stated(_said(lead)) == ["4.50.0"]


@pytest.mark.parametrize("lead", CAPITALISED)
def test_a_capitalised_statement_where_the_cause_cannot_be_confirms_nothing(lead):
    """main: the removal confirmed on the words."""
    assert ENTRY not in _answer(_said(lead))[0]


@pytest.mark.parametrize("lead", [
    "TRANSFORMERS 4.50.0",  # only the first letter: a name shouted whole is not read (as before)
    "Sentence Transformers 4.50.0",  # another distribution, capitalised as its own name is
    "Sentence-Transformers 4.50.0",
    "Transformers.js 3.0.1",  # another library
    "Requires Transformers 4.50.0",  # wanted, not installed (rules.TOLD_OTHER_BEFORE)
], ids=["shouted", "sentence-spaced", "sentence-hyphen", "js", "required"])
def test_the_capitalised_name_states_nothing_else(lead):
    """Guards (they pass on main too)."""
    assert _stated(_said(lead)) == []


def test_the_page_the_cli_and_the_hook_read_the_capitalised_name_alike(real_index):  # noqa: F811
    """main: no release read in the three."""
    pastes = [_said(lead) for lead in CAPITALISED] + [_said("Sentence Transformers 4.50.0")]
    python = _same_in_page_cli_and_hook(real_index, pastes, None)
    assert [p["release"] for p in python] == ["4.50.0"] * len(CAPITALISED) + [None]

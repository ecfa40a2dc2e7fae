"""The hook under attack, round thirteen, in real interpreters with the hook on (and in process where the subject is
a rule, not where the hook chains in).

One rule for "the same words": the hook's relay (`explain._relayed`: the program's error repeats the words of the
error it handled, `raise ValueError(str(error)) from None`) and the lookup's (`_match._same_words`, which the paste box
and `errorkb lookup` apply to the printed chain) each decided it, and had drifted: the lookup reads the exception
lines a reader sees (the message's first line, its blanks aside, as a paste is normalised), the hook compared the
whole messages character by character. A relay that adds a blank or a second line (`f"{error}\\n(while loading)"`)
was "the same words" to the lookup and another error to the hook: the block of its twin, `raise
ValueError(str(error)) from None`, was missing. Now the hook asks the lookup's rule.
"""

from __future__ import annotations

import pytest

from tests.hookrun import BLOCK_RE, added
from tests.test_hook import TITLE, envs  # noqa: F401 (a fixture)

POSSIBLE = "\nerrorkb: possibly a documented error, not confirmed"
_RELAY = "try:\n    early_initialization()\nexcept ValueError as error:\n    raise {raised}{tail}\n"

# Twins of round twelve's `raise ValueError(str(error)) from None` (a possible block): the words Python printed on the
# program's exception line are the library's error's, as the lookup reads a printed chain.
TWINS = {
    "exact": "ValueError(str(error))",
    "trailing-blank": "ValueError(f'{error} ')",
    "second-line": "ValueError(f'{error}\\n(while loading the model)')",
    "no-break-space": "ValueError(str(error).replace(' ', '\\u00a0'))",
}


@pytest.mark.parametrize("case", list(TWINS))
def test_a_relay_the_lookup_reads_as_the_same_words_is_possible_from_the_hook_too(envs, tmp_path, case):  # noqa: F811
    """main: no block for each twin but `exact` (the hook's own rule, whole messages equal, character by character)."""
    text = added(envs, tmp_path, _RELAY.format(raised=TWINS[case], tail=" from None"))
    assert text.startswith(POSSIBLE) and text.count("errorkb:") == 1 and BLOCK_RE.sub("", text) == "", text
    assert TITLE.removeprefix("errorkb: a documented error — ") in text and "from None" in text, text


def test_the_hook_and_the_lookup_agree_on_which_relays_repeat_the_words():
    """The rule itself, in process: for each pair of messages (a handled error's, the program's relay of it, `from
    None`), the hook calls the relay "the same words" exactly where the lookup does, reading the two exception lines
    as it reads a paste (`normalize`, `ends`) — main: they disagreed on the twins above, and on a message that starts
    with a line break (the hook: the same words; the lookup: an exception line with no message)."""
    from errorkb.hook import explain
    from errorkb.lookup import normalize
    from errorkb.lookup._match import _same_words
    from errorkb.lookup._paste import ends

    def relayed(first: str, second: str) -> bool:
        try:
            try:
                raise ValueError(first)
            except ValueError:
                raise RuntimeError(second) from None
        except RuntimeError as relay:
            return any(one is relay.__context__ for one, _ in explain._relayed(relay, explain._read(relay)[1]))

    def line(text: str) -> str:
        return ends(normalize(text))[0][1]

    pairs = [("cache words", "cache words"), ("cache words", "cache words "), ("cache words", "cache words\nmore"),
             ("cache words", " cache\u00a0words"), ("\ncache words", "\ncache words"), ("cache words", "other words"),
             ("cache words", ""), (" ", " "), ("a\nb", "a\nc"), ("\u2018a\u2019", "'a'")]
    disagree = [(first, second) for first, second in pairs
                if relayed(first, second) is not _same_words(line(f"ValueError: {first}"),
                                                             line(f"RuntimeError: {second}"))]
    assert disagree == [], disagree


def test_pytests_hint_survives_xdist_workers(tmp_path):
    """`pytest -n N` (pytest-xdist): each failing test runs in a worker, whose `pytest_exception_interact` made the
    hint and kept it in the worker's own config; the summary is the controller's, which never saw it. main: no
    "errorkb: documented errors" section at all under `-n 1`, where `-n 0` prints it. Now each worker hands its hints
    to the controller, as it hands an `--errorkb` run's records."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import errorkb
    from tests.test_hook import library_raise

    here = str(Path(errorkb.__file__).parent.parent)  # this checkout's errorkb, in the workers too

    (tmp_path / "test_user.py").write_text(
        library_raise(tmp_path) + "\ndef test_export():\n    early_initialization()\n\n"
        "def test_other():\n    assert 1 == 2\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "1", "-p", "xdist",
                             "test_user.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": here})
    assert result.returncode == 1 and "2 failed" in result.stdout, result.stdout + result.stderr
    assert result.stdout.count("errorkb: documented errors") == 1, result.stdout
    summary = result.stdout[result.stdout.index("errorkb: documented errors"):]
    assert "test_user.py::test_export:" in summary and TITLE in summary, summary
    assert "test_user.py::test_other:" not in summary and summary.count(TITLE) == 1, summary

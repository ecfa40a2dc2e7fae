"""Round fifteen of the diagnosis (issue 19): the hook under attack. A class found there is the matcher's too.

- The user's own code raising an entry's words: `raise AttributeError("'<Class>' object has no attribute 'x'")` in
  their script, while the library is installed. The words, the installed release and the failing line (which names
  `x`, in the message's string) confirmed the entry. A traceback whose raising frame is a `raise` statement in a
  file no installed package holds (the user's script or project) shows the user's code writing the words: no
  entry's error, whatever they say. A `raise` in an installed package or in a folder named like the library (its
  checkout), or a message that holds the words after its own (a wrapper's `failed: {error}`), is judged as before.
"""

from __future__ import annotations

from tests.site.test_lookup_js import full_js, full_python

GONE = "'{cls}' object has no attribute 'old_field'"
ENTRIES = [{"id": "old-field-removed", "title": "old field removed", "exception": "AttributeError",
            "message": GONE, "wordings": [{"message": GONE, "exception": "AttributeError", "releases": ">=2.0"}],
            "diagnosis": {"kind": "removed", "code": ["old_field"]}}]
MESSAGE = "AttributeError: 'Store' object has no attribute 'old_field'\n"


def frame(path: str, code: str) -> str:
    return f'Traceback (most recent call last):\n  File "{path}", line 3, in <module>\n    {code}\n'


OWN_RAISES = [frame("/home/me/run.py", "raise AttributeError(\"'Store' object has no attribute 'old_field'\")"),
              frame("/home/me/run.py", "raise AttributeError('\\'Store\\' object has no attribute ' + name)"),
              frame("C:/Users/me/run.py", "raise AttributeError(\"'Store' object has no attribute 'old_field'\")")]
# (a `raise` of a value alone, `raise AttributeError(message)`, may relay the library's error: round sixteen)
USES = [frame("/home/me/run.py", "value = store.old_field"),
        frame("/venv/lib/python3.11/site-packages/acme/store.py", "raise AttributeError(message)"),
        frame("/the library/acme/store.py", "raise AttributeError(message)")]  # the library's checkout (corpus r155)
WRAPPED = frame("/home/me/node.py", "raise Exception(f'generation failed: {error}')") + \
    "Exception: generation failed: 'Store' object has no attribute 'old_field'\n"  # a retelling (corpus r104)


def test_the_users_own_raise_of_an_entrys_words_confirms_nothing_in_both():
    pastes = [one + MESSAGE for one in OWN_RAISES + USES] + [WRAPPED]
    python, js = full_python(ENTRIES, pastes, "2.3.0"), full_js(ENTRIES, pastes, "2.3.0")
    graded = [[(one[0], one[1]) for one in result["found"]] for result in python]
    assert graded[:len(OWN_RAISES)] == [[]] * len(OWN_RAISES), graded
    assert all("your own code raises" in result["ruled"][0][1] for result in python[:len(OWN_RAISES)])
    assert graded[len(OWN_RAISES):-1] == [[("old-field-removed", "confirmed")]] * len(USES), graded
    assert not any("your own code" in reason for _, reason in python[-1]["ruled"])
    assert [r["found"] for r in python] == [r["found"] for r in js] and \
        [r["ruled"] for r in python] == [r["ruled"] for r in js]

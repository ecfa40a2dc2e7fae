"""A placeholder named like a property every JavaScript object inherits (`{constructor}`, `{toString}`,
`{__proto__}`, `{valueOf}`): found by the Python lookup, silently missed by the page's script, which reads
an entry's placeholder declarations and the rules' default types from plain objects (`d.placeholders[name]`,
`R.defaultTypes[name]` in errorkb/site/assets/lookup.js: the inherited function stands in for a declaration).
Found in round seven (redsite7), failing on the script then; its name-keyed tables are made without a prototype
(`table()` in lookup.js), as a Python dict has no inherited keys."""

from __future__ import annotations

import json
import subprocess

import pytest

from errorkb.lookup import Known, Lookup, rules
from tests.site.test_lookup_js import LOOKUP_JS, RULES, node

PASTE = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad value 12 in cache\n'


def _found(name: str, paste: str = PASTE, **entry: object) -> tuple[list[str], list[str]]:
    entries = [{"id": "e", "title": "t", "exception": "ValueError", "message": "bad value {" + name + "} in cache",
                **entry}]
    program = f"const L = require({json.dumps(str(LOOKUP_JS))});\nconst RULES = {json.dumps(RULES)};\n" + """
      const data = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const found = new L.Lookup(data.entries, undefined, { rules: RULES }).find(data.paste);
      console.log(JSON.stringify(found.map((match) => match.known.id)));"""
    result = subprocess.run([str(node()), "-e", program], input=json.dumps({"entries": entries, "paste": paste}),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    python = [match.known.id for match in Lookup([Known.from_index(item) for item in entries], rules.CAP).find(paste)]
    return python, json.loads(result.stdout)


def test_a_plain_placeholder_name_is_found_alike():
    assert _found("plain") == (["e"], ["e"])


@pytest.mark.parametrize("name", ["constructor", "toString", "__proto__", "valueOf"])
def test_a_placeholder_named_like_an_inherited_property_is_found_alike(name):
    assert _found(name) == (["e"], ["e"])


TWO = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad value {} in cache {}\n'


@pytest.mark.parametrize("name", ["constructor", "__proto__", "valueOf"])
def test_a_declared_type_and_relation_hold_whatever_the_placeholder_is_called(name):
    """The declarations are read, not an inherited property in their place: a count that breaks the relation
    with the other value, or is no count, rules the entry out in both lookups alike."""
    declared = {"message": "bad value {" + name + "} in cache {size}",
                "diagnosis": {"placeholders": {name: {"type": "count"}}, "relations": [[name, "<", "size"]]}}
    assert _found(name, TWO.format(3, 10), **declared) == (["e"], ["e"])
    assert _found(name, TWO.format(30, 10), **declared) == ([], [])
    assert _found(name, TWO.format("x", 10), **declared) == ([], [])

"""`check --drift` on an error whose exception assembles its message from its arguments, as PyYAML's do:
`raise ConstructorError(None, None, "could not determine a constructor for the tag %r" % node.tag,
node.start_mark)` (`MarkedYAMLError(context, context_mark, problem, problem_mark)`; the message is the third
argument, made a message by the exception's `__str__`; yaml/pyyaml#830 quotes it). The drift check read the
first argument (`None`) as the message, so the pin failed for a message it never read ("found: None"), and a
reworded upstream message could never be told from a right one.

The pin is checked on the real, installed PyYAML: the test runs the library and takes the traceback it prints.
"""

from __future__ import annotations

import subprocess
import sys

from errorkb.cli import main

CRASH = 'import yaml\nyaml.safe_load("a: !foo x")\n'


def _kb(tmp_path, capsys):
    """A knowledge base of PyYAML with one entry, drafted by `new` from the library's own traceback."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "PyYAML", "--source-root", "lib"]) == 0, capsys.readouterr()
    script = tmp_path / "load_tagged.py"
    script.write_text(CRASH)
    crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "ConstructorError: could not determine a constructor" in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", "undefined-tag", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob("*/undefined-tag.yml")
    text = "\n".join(line for line in written.read_text().splitlines() if not line.startswith("#")) + "\n"
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))
    capsys.readouterr()
    return root, written


def test_drift_reads_the_message_argument_the_exception_makes_its_message_from(tmp_path, capsys):
    root, written = _kb(tmp_path, capsys)
    assert "could not determine a constructor for the tag '{name}'" in written.read_text()
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()
    assert "every source pin holds" in capsys.readouterr().out


def test_drift_fails_on_a_message_the_source_does_not_make(tmp_path, capsys):
    root, written = _kb(tmp_path, capsys)
    written.write_text(written.read_text().replace("could not determine a constructor", "found no constructor"))
    assert main(["--root", str(root), "check", "--drift"]) == 1
    said = capsys.readouterr().err
    assert "message differs at line" in said and "could not determine a constructor for the tag" in said, said
    assert "found:    None" not in said

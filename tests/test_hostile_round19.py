"""Hostile input, round nineteen: look-alike letters, and the paths that lead out, in the loader.

Ids and snippet paths are ASCII by their patterns, and bidirectional controls anywhere in an entry's text are refused
(`errorkb.core.prose`); but a title, a message or a tag could mix a Cyrillic or Greek letter that looks like a Latin
one into a Latin word ("lіst" with U+0456): two entries whose titles differ by one such letter read as one, and a
message written so is never found by a reader's search, the lookup or a paste. Each is a problem naming the file,
the line, the character and what to write instead; a word of one script (Russian prose, "10 μs") is none.
"""

from __future__ import annotations

import time

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from tests.kb import VALID_ENTRY, make_project

MESSAGE = "`head_dim` was provided as a list of length"


def _problems(tmp_path, **replace: str) -> list[str]:
    text = VALID_ENTRY.format(id="demo-error")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    make_project(tmp_path, {"demo-error.yml": text})
    return [str(problem) for problem in load_project_entries(load_project(tmp_path)).problems]


@pytest.mark.parametrize(("where", "old", "new", "line", "char"), [
    ("title", "title: A documented error", "title: A documented err\u043er", 2, "U+043E"),  # Cyrillic o
    ("message", MESSAGE, MESSAGE.replace("list", "l\u0456st"), 5, "U+0456"),  # Cyrillic i
    ("message", MESSAGE, MESSAGE.replace("provided", "pr\u03bfvided"), 5, "U+03BF"),  # Greek omicron
    ("tags", "tags: [early-initialization]", "tags: [\u0435arly-initialization]", 6, "U+0435"),  # Cyrillic e
    ("meaning", "meaning: What it means.", "meaning: What it m\u0435ans.", 12, "U+0435"),
])
def test_a_look_alike_letter_in_a_latin_word_is_a_located_problem(tmp_path, where, old, new, line, char):
    problems = _problems(tmp_path, **{old: new})
    found = [problem for problem in problems if char in problem]
    assert found, problems
    assert found[0].startswith(f"docs/errors/transformers/demo-error.yml:{line}:"), found
    assert "looks like" in found[0] and "Latin" in found[0], found


@pytest.mark.parametrize("text", ["Задержка растёт на каждом слое", "a delay of 10 \u03bcs per layer",
                                  "the \u0394 between layers", "Καλημέρα κόσμε"])
def test_words_of_one_script_are_no_problem(tmp_path, text):
    assert _problems(tmp_path, **{"meaning: What it means.": f"meaning: {text}"}) == []


def test_two_entries_whose_titles_differ_by_a_look_alike_are_told_apart_by_the_problem(tmp_path):
    first = VALID_ENTRY.format(id="demo-error")
    second = VALID_ENTRY.format(id="demo-error-two").replace("title: A documented error",
                                                              "title: A d\u043ecumented error")
    make_project(tmp_path, {"demo-error.yml": first, "demo-error-two.yml": second})
    problems = [str(problem) for problem in load_project_entries(load_project(tmp_path)).problems]
    assert any(problem.startswith("docs/errors/transformers/demo-error-two.yml:2:") and "U+043E" in problem
               for problem in problems), problems


def test_a_long_text_of_look_alikes_is_checked_in_linear_time(tmp_path):
    """A megabyte-long meaning of mixed words (the loader's own size limit refuses it first, or it is checked):
    either way, well under seconds."""
    word = "a\u0430" * 20
    text = " ".join([word] * 2_000)
    started = time.perf_counter()
    problems = _problems(tmp_path, **{"meaning: What it means.": f"meaning: {text}"})
    assert time.perf_counter() - started < 5
    assert problems and "demo-error.yml:12:" in problems[0], problems[:2]


@pytest.mark.parametrize("tail", ["", "\u0430"])
def test_one_word_as_long_as_a_field_may_be_is_checked_in_linear_time(tail):
    """A single word of a field's whole length, with or without a look-alike at its end: one pass, not one per
    letter (a pattern that grew each word around a look-alike took quadratic time)."""
    from errorkb.core.prose import lookalike

    text = "a" * 1_000_000 + tail
    started = time.perf_counter()
    said = lookalike(text)
    assert time.perf_counter() - started < 1
    assert (said is not None) == bool(tail)


# -- mkdocs.yml's site_url, read as MkDocs reads it ---------------------------------------------------------------


@pytest.mark.parametrize(("lines", "expected"), [
    ('site_url: "https://old.example.org/kb/"\nsite_url: https://new.example.org/kb/\n', "https://new.example.org/kb/"),
    ("site_url: https://example.org/kb/\nsite_url: javascript:alert(1)\n", None),
    ("site_url: javascript:alert(1)\n", None),
    ("site_url: https://example.org/kb/\nnav:\n  - site_url: https://nested.example.org/\n", "https://example.org/kb/"),
])
def test_the_site_url_errorkb_links_to_is_the_one_mkdocs_publishes_to(tmp_path, lines, expected):
    """A key repeated in mkdocs.yml: YAML (MkDocs) takes the last, and errorkb read the first, so every link the
    CLI and the hook printed pointed at the site MkDocs no longer publishes; and never a `javascript:` address."""
    make_project(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(f"site_name: kb\n{lines}", encoding="utf-8")
    url = load_project(tmp_path).site_url
    assert url == expected

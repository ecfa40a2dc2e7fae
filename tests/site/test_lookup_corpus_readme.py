"""tests/corpus/README.md's counts are the corpus's: its "Counts" table (family by part) and its sentence of reports with
and without an entry, recounted from reports.yml, so that a part added without touching them fails here instead of
drifting (the sentence said 302, then 304, of 313)."""

from __future__ import annotations

import collections
import functools
import re
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
COLUMNS = ("r001–r175", "r001–r212", "f", "n", "h", "all")


@functools.cache
def _reports() -> list[dict]:
    return yaml.load((CORPUS / "reports.yml").read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader",
                                                                                              yaml.SafeLoader))


def _readme() -> str:
    return (CORPUS / "README.md").read_text(encoding="utf-8")


def _columns(report_id: str) -> list[str]:
    part, number = report_id[0], int(report_id[1:])
    return [column for column, holds in (("r001–r175", part == "r" and number <= 175), ("r001–r212", part == "r"),
                                         (part, part in "fnh"), ("all", True)) if holds]


def test_the_counts_table_is_the_corpus():
    counted: collections.Counter[tuple[str, str]] = collections.Counter()
    for report in _reports():
        for column in _columns(report["id"]):
            counted[(report["family"], column)] += 1
            counted[("**all**", column)] += 1
    table = _readme().split("## Counts", 1)[1].split("| family |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in table.splitlines() if line.startswith("| ")]
    read = {row[0].strip(): [int(cell) if cell.strip() else 0 for cell in row[1:]] for row in rows}
    assert read == {family: [counted[(family, column)] for column in COLUMNS]
                    for family in {family for family, _ in counted}}


def test_the_sentence_of_reports_with_and_without_an_entry_is_the_corpus():
    reports = _reports()
    held = [r for r in reports if r["id"][0] == "h"]
    last = max(held, key=lambda r: int(r["id"][1:]))["id"]
    sentence = " ".join(_readme().split("Reports that have an entry:", 1)[1].split("The fourteen", 1)[0].split())
    numbers = re.search(r"^(\d+) of r001–r212 .*?all (\d+) of f001–f014, (\d+) of h001–(h\d+) .*?; (\d+) in all\); "
                        r"without one: (\d+) of r001–r212, all (\d+) negative controls, (\d+) of the held-out parts "
                        r"\((\d+) in all\)", sentence)
    assert numbers, sentence[:300]
    entry = [r for r in reports if r.get("expect")]
    none = [r for r in reports if not r.get("expect")]

    def count(rows: list[dict], part: str) -> int:
        return sum(r["id"][0] == part for r in rows)

    assert numbers.groups() == tuple(str(x) for x in (
        count(entry, "r"), count(entry, "f"), count(entry, "h"), last, len(entry),
        count(none, "r"), count(none, "n"), count(none, "h"), len(none)))
    named = set(re.findall(r"\bh(\d{3})(?:–h(\d{3}))?", sentence.split(" of h001–", 1)[1].split(" in all);")[0]))
    listed = {f"h{n:03d}" for first, end in named for n in range(int(first), int(end or first) + 1)}
    beyond = {r["id"] for r in entry if r["id"][0] == "h" and r["id"] not in listed and int(r["id"][1:]) >= 600}
    assert not beyond, f"held-out reports with an entry the sentence does not list: {sorted(beyond)}"

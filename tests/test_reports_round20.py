"""Reports, round twenty: reading a large report costs what its size does, and loses nothing.

Reading 10^5 records took 16 s: a regular expression tried at every character of the file (the escaped lone
surrogates), a walk of every string for the same, a copy of every record to name its verifier, and each stamp
parsed four times (benchmarks/report_reading.py measures it). And a report whose records' times are not dates left
them out one comparison of every record with every other: a file of 10^5 such records never finished reading.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from errorkb.results import report as reports
from errorkb.results import store
from errorkb.results.records import CheckRecord, Code, Outcome
from errorkb.results.report import new_report, read_report, read_reports

STAMP = "2026-12-01T10:00:00+00:00"


def _record(entry: str, stamp: str = STAMP, **fields) -> CheckRecord:
    return CheckRecord(id=f"{entry}::after[bundled-cpu]", entry=entry, role="after", snippet=f"snippets/{entry}/after.py",
                       target="bundled", device="cpu", outcome=Outcome.PASS, code=Code.RAN_CLEAN, reason="ok",
                       expected="as documented", verified_at=stamp, recorded_at=stamp, **fields)


def test_records_whose_times_are_not_dates_are_left_out_without_comparing_every_pair(tmp_path, monkeypatch):
    """Each record left out was looked for in the list of those left out, by equality: 10^5 of them (a file under
    the cap) are 5 * 10^9 comparisons of records, a read that never ends."""
    count = 400
    checks = [_record(f"entry-{index}", stamp="not a date" if index % 2 else STAMP) for index in range(count)]
    (tmp_path / "latest.json").write_text(new_report({"bundled": "b"}, checks).text(), encoding="utf-8")
    compared = itertools.count()
    real = CheckRecord.__eq__
    monkeypatch.setattr(CheckRecord, "__eq__", lambda self, other: (next(compared), real(self, other))[1])
    read, problems = read_reports(tmp_path, ["cpu"])
    assert next(compared) <= count, "records compared with one another, as many times as pairs of them"
    assert [check.entry for check in read[0].checks] == [f"entry-{index}" for index in range(0, count, 2)]
    assert any(f"{count // 2} records whose time is not a date left out" in problem for problem in problems), problems


def _lone(value: object) -> bool:
    """The reference: whether any string of a parsed value holds a lone surrogate."""
    if isinstance(value, dict):
        return any(_lone(key) or _lone(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_lone(item) for item in value)
    return isinstance(value, str) and re.search("[\ud800-\udfff]", value) is not None


PIECES = ["\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\\\", "a", "\\u0041", "\\\\ud800"]


@pytest.mark.parametrize("where", ["value", "key"])
def test_a_lone_surrogate_is_refused_and_a_pair_is_read_wherever_it_stands(where):
    """Read from the text now (a walk of every string cost more than parsing a large file): the same verdict as the
    parser's own reading, for every sequence of up to three pieces of halves, pairs, backslashes and other escapes."""
    for length in range(1, 4):
        for pieces in itertools.product(PIECES, repeat=length):
            inner = "".join(pieces)
            text = f'{{"k": "{inner}"}}' if where == "value" else f'{{"{inner}": 1}}'
            lone = _lone(json.loads(text))
            try:
                store.parse_json(text)
                refused = False
            except ValueError as error:
                refused = True
                assert "lone surrogate" in str(error) and "(line 1)" in str(error), (inner, error)
            assert refused == lone, inner


def test_a_lone_surrogate_is_said_at_its_line():
    text = '{\n "a": "\\ud83d\\ude00",\n "b": "x\\\\ud800",\n "c": "\\udc80"\n}'
    with pytest.raises(ValueError, match=r"lone surrogate \\udc80 \(line 4\)"):
        store.parse_json(text)


def test_records_name_their_verifier_as_before(tmp_path):
    """A record the file names no verifier of is the report's; one it names keeps its own; a header's verifier
    that is no verifier is said once, at the header, not once per record."""
    path = tmp_path / "latest.json"
    report = new_report({"bundled": "b"}, [_record("one"), _record("two", verifier="1", errorkb="0.1.0")])
    data = json.loads(report.text())
    data["verifier"] = "3"
    path.write_text(json.dumps(data), encoding="utf-8")
    read = read_report(path)
    assert [check.verifier for check in read.checks] == ["3", "1"]
    assert json.loads(read.text())["checks"][0].get("verifier") is None  # written back as it was read
    data["verifier"] = "v" * 41
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(reports.ReportError, match=r"\(1 problems; verifier: String should have at most 40"):
        read_report(path)


def test_a_whitespace_file_is_an_empty_report(tmp_path):
    path = tmp_path / "latest.json"
    path.write_text(" \n\t\n", encoding="utf-8")
    with pytest.raises(reports.ReportError, match="empty, not a verification report"):
        read_report(path)
    assert Path(path).read_text() == " \n\t\n"


class _Counted(list):
    """A report's records, counting how often they are walked."""

    walks = 0

    def __iter__(self):
        _Counted.walks += 1
        return super().__iter__()


def test_merging_shards_walks_each_shard_s_records_a_bounded_number_of_times():
    """Each shard's file holds the checkout's records of every check: `of_own_shards` looked for each record's
    check among the records of the shard that ran it, walking them all for each one: 10^5 records (two files under
    the cap) were 10^10 steps, a merge that never ended."""
    from errorkb.results.report import Report, of_own_shards
    from errorkb.verify.plan import shard_of

    records = [_record(f"entry-{index}") for index in range(300)]
    named = []
    for shard in ("1/2", "2/2"):
        report = Report(created=STAMP, environment={}, targets={"bundled": "b"}, run={"shard": shard},
                        checks=records)
        report.checks = _Counted(report.checks)
        named.append((f"{shard[0]}.json", report))
    _Counted.walks = 0
    reports, said = of_own_shards(named, shard_of)
    assert _Counted.walks <= 10, f"the shards' records walked {_Counted.walks} times"
    assert said == [] and [len(one.checks) for one in reports] == [300, 300]


def test_checks_listed_twice_are_one_warning_however_many(tmp_path):
    """A report listing each of 10^4 checks twice (a merge conflict resolved by keeping both sides) was 10^4
    warnings, each on the site's build and every command that reads the reports."""
    checks = [_record(f"entry-{index}") for index in range(300)]
    report = new_report({"bundled": "b"}, checks)
    data = json.loads(report.text())
    data["checks"] = data["checks"] * 2
    (tmp_path / "latest.json").write_text(json.dumps(data), encoding="utf-8")
    read, problems = read_reports(tmp_path, ["cpu"])
    twice = [problem for problem in problems if "listed" in problem]
    assert len(twice) == 1, problems[:3]
    assert "300 checks listed more than once (entry-0::after[bundled-cpu] 2 times" in twice[0]
    assert "and 290 more): of each, only the record written last is shown" in twice[0]
    assert len(twice[0]) < 1000


def test_a_disagreement_over_a_check_listed_many_times_is_one_short_line():
    """`errorkb merge` said each record of a check both failing and passing: one listed 10^5 times in an input was
    a line of megabytes."""
    from errorkb.results.report import disagreements

    passing, failing = _record("one"), _record("one").model_copy(update={"outcome": Outcome.FAIL, "code": Code.RAISED})
    named = [(f"input-{index}.json", new_report({"bundled": "b"}, [passing if index % 2 else failing]))
             for index in range(400)]
    said = disagreements(named)
    assert len(said) == 1 and "and 390 more" in said[0] and len(said[0]) < 1500, said[0][:300]

"""Does the lookup find the right entry for errors people really reported?

Reads the corpus of real reports (tests/corpus/reports.yml: a list of items with `id`, `source`,
`transformers`, `family`, `error`, `message`, `paste` and, once someone has decided it,
`expect`), runs the Python lookup (`errorkb lookup`'s matcher) on each report's `paste`, or on its
`message` when the paste is null, against the project's entries, and prints per family:

- right: the best match is the expected entry (recall = right / reports that expect an entry);
- wrong: the best match is another entry (a report whose `expect` is null expects no match, so
  any match is wrong there);
- missed: nothing matched a report that expects an entry;
- no expected entry yet: reports without an `expect` key (and how many of them match anything).

    .venv/bin/python benchmarks/lookup_recall.py [--corpus tests/corpus/reports.yml] [--index api/errors/index.json]

`measure()` and `main()` are importable: a test can hold recall to a committed figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from errorkb.site.lookup import Lookup, index_lookup, project_lookup  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "reports.yml"
UNDECIDED = object()  # a report without an `expect` key


@dataclass
class Outcome:
    """What the lookup made of one report."""

    id: str
    family: str
    expected: object  # an entry id, None (no entry should match) or UNDECIDED
    found: str | None  # the best match's entry id
    exact: bool = False

    @property
    def verdict(self) -> str:
        if self.expected is UNDECIDED:
            return "undecided"
        if self.found == self.expected:
            return "right" if self.found is not None else "right-none"
        return "missed" if self.found is None else "wrong"


@dataclass
class Recall:
    outcomes: list[Outcome] = field(default_factory=list)

    def counts(self, family: str | None = None) -> Counter:
        return Counter(o.verdict for o in self.outcomes if family is None or o.family == family)

    def recall(self, family: str | None = None) -> float | None:
        """Right answers among the reports that expect an entry; None when none do."""
        expecting = [o for o in self.outcomes if (family is None or o.family == family)
                     and o.expected is not UNDECIDED and o.expected is not None]
        return sum(o.verdict == "right" for o in expecting) / len(expecting) if expecting else None

    @property
    def wrong(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verdict == "wrong"]

    @property
    def families(self) -> list[str]:
        return sorted({o.family for o in self.outcomes})


def read_corpus(path: Path) -> list[dict]:
    import yaml

    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of reports")
    return items


def project_known_lookup() -> Lookup:
    """The project's entries, exactly as `errorkb lookup` sees them."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    project = load_project(ROOT)
    return project_lookup(project, [one.entry for one in load_project_entries(project).entries])


def measure(items: list[dict], lookup: Lookup) -> Recall:
    """Run the lookup on every report: its paste, or its message when there is no paste."""
    result = Recall()
    for item in items:
        text = item.get("paste") or item.get("message") or ""
        matches = lookup.find(text)
        best = matches[0] if matches else None
        result.outcomes.append(Outcome(str(item.get("id")), str(item.get("family") or "(none)"),
                                       item.get("expect", UNDECIDED),
                                       best.known.id if best else None, bool(best and best.exact)))
    return result


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def report(recall: Recall) -> str:
    """The per-family table, the totals and every wrong match."""
    lines = [f"{'family':22} {'reports':>7} {'right':>6} {'wrong':>6} {'missed':>7} {'recall':>7}  "
             f"{'no expected entry yet':>21} {'(of them matched)':>17}"]
    for family in [*recall.families, None]:
        counts = recall.counts(family)
        undecided = [o for o in recall.outcomes if o.verdict == "undecided" and (family is None or o.family == family)]
        matched = sum(1 for o in undecided if o.found)
        right = counts["right"] + counts["right-none"]
        label = "all" if family is None else family
        if family is None:
            lines.append("─" * 100)
        lines.append(f"{label:22} {sum(counts.values()):>7} {right:>6} {counts['wrong']:>6} {counts['missed']:>7} "
                     f"{_percent(recall.recall(family)):>7}  {len(undecided):>21} {matched:>17}")
    if recall.wrong:
        lines.append("\nwrong matches (report: expected → found):")
        lines += [f"  {o.id}: {o.expected or 'no entry'} → {o.found}" for o in recall.wrong]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--index", type=Path, default=None, help="a published api/errors/index.json instead of "
                                                                  "the project's entries")
    parser.add_argument("--json", action="store_true", help="print every outcome as JSON")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    lookup = index_lookup(args.index) if args.index else project_known_lookup()
    recall = measure(read_corpus(args.corpus), lookup)
    if args.json:
        print(json.dumps([{"id": o.id, "family": o.family, "expected": None if o.expected is UNDECIDED else o.expected,
                           "decided": o.expected is not UNDECIDED, "found": o.found, "exact": o.exact,
                           "verdict": o.verdict} for o in recall.outcomes], indent=1))
        return 0
    where = args.corpus.relative_to(ROOT) if args.corpus.resolve().is_relative_to(ROOT) else args.corpus
    print(f"{len(recall.outcomes)} reports from {where}, {len(lookup)} entries")
    print(report(recall))
    return 0


if __name__ == "__main__":
    sys.exit(main())

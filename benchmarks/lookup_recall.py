"""Does the lookup name the right entry for errors people really reported, and stay quiet (or
only say "possible") where the knowledge base has none?

Reads the corpus of real reports (tests/corpus/reports.yml: items with `id`, `source`,
`transformers` (the release the report states), `family`, `expect` (an entry id, or null where no
entry documents the error), `message` and `paste`), runs the lookup (`errorkb lookup`'s matcher,
the page's and the hook's) on each report's `paste`, or its `message` when the paste is null,
and counts, confirmed answers apart from candidates:

- recall: reports that have an entry whose best *confirmed* answer is it, over all such reports;
  "candidate-right" (the entry offered as possible, none confirmed) is counted apart, never as recalled;
- precision: confirmed answers that are right, over all confirmed answers;
- confirmed wrong: a confirmed answer naming another entry, or any confirmed answer where the
  report has none (the figure that must stay 0);
- silent where it should be: reports without an entry that get no answer at all (a candidate is
  not silent, but not wrong either).

Each part of the corpus (`r`: the tuned corpus, `f`: families added later, `n`: negative controls,
`h`: the held-out part collected after tuning) is counted apart as well. With `--release` each
report's stated release is passed as `errorkb lookup --release` would (reports that state none
are run as pasted).

    .venv/bin/python benchmarks/lookup_recall.py [--corpus FILE] [--index FILE|URL] [--release] [--json]

`measure()` and `main()` are importable: tests/site/test_lookup_recall.py holds the figures.
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

from errorkb.lookup import Lookup, load_index  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "reports.yml"
UNDECIDED = object()  # a report without an `expect` key
VERDICTS = ("right", "candidate-right", "candidate-other", "missed", "confirmed-wrong", "silent", "candidate",
            "undecided")


@dataclass
class Outcome:
    """What the lookup made of one report."""

    id: str
    family: str
    expected: object  # an entry id, None (no entry documents it) or UNDECIDED
    confirmed: str | None  # the best confirmed answer's entry id
    candidates: tuple[str, ...] = ()  # the candidates' entry ids (when nothing is confirmed)

    @property
    def verdict(self) -> str:
        if self.expected is UNDECIDED:
            return "undecided"
        if self.expected is None:
            if self.confirmed is not None:
                return "confirmed-wrong"
            return "candidate" if self.candidates else "silent"
        if self.confirmed is not None:
            return "right" if self.confirmed == self.expected else "confirmed-wrong"
        if self.expected in self.candidates:
            return "candidate-right"
        return "candidate-other" if self.candidates else "missed"

    @property
    def part(self) -> str:
        return self.id[:1] if self.id[:1] in "rfnh" else "?"


@dataclass
class Recall:
    outcomes: list[Outcome] = field(default_factory=list)

    def select(self, family: str | None = None, part: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if (family is None or o.family == family) and (part is None or o.part == part)]

    def counts(self, family: str | None = None, part: str | None = None) -> Counter[str]:
        return Counter(o.verdict for o in self.select(family, part))

    def recall(self, family: str | None = None, part: str | None = None) -> float | None:
        """Right confirmed answers among the reports that have an entry; None when none do."""
        having = [o for o in self.select(family, part) if o.expected not in (None, UNDECIDED)]
        return sum(o.verdict == "right" for o in having) / len(having) if having else None

    def offered(self, family: str | None = None, part: str | None = None) -> float | None:
        """Reported apart, never as recall: the right entry confirmed, or offered among the candidates
        where nothing is confirmed (a message that alone cannot tell its entries apart)."""
        having = [o for o in self.select(family, part) if o.expected not in (None, UNDECIDED)]
        return (sum(o.verdict in ("right", "candidate-right") for o in having) / len(having)) if having else None

    def precision(self, part: str | None = None) -> float | None:
        confirmed = [o for o in self.select(part=part) if o.confirmed is not None and o.expected is not UNDECIDED]
        return sum(o.verdict == "right" for o in confirmed) / len(confirmed) if confirmed else None

    def silent(self, part: str | None = None) -> float | None:
        negative = [o for o in self.select(part=part) if o.expected is None]
        return sum(o.verdict == "silent" for o in negative) / len(negative) if negative else None

    @property
    def wrong(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verdict == "confirmed-wrong"]

    @property
    def families(self) -> list[str]:
        return sorted({o.family for o in self.outcomes})

    @property
    def parts(self) -> list[str]:
        return [p for p in "rfnh" if any(o.part == p for o in self.outcomes)]


def read_corpus(path: Path) -> list[dict]:
    import yaml

    from errorkb.core.filebytes import read_bounded, said

    try:  # the one reader of a knowledge base's files: a FIFO named reports.yml never blocks the benchmark
        text = read_bounded(path, 64 << 20).decode("utf-8")
    except OSError as error:
        raise SystemExit(f"{path}: {said(error)}") from None
    items = yaml.safe_load(text) or []
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of reports")
    return items


def project_known_lookup() -> Lookup:
    """The project's entries, exactly as `errorkb lookup` sees them in this checkout."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site.hookindex import project_index

    project = load_project(ROOT)
    return project_index(project, [one.entry for one in load_project_entries(project).entries]).lookup()


def measure(items: list[dict], lookup: Lookup, stated: bool = False) -> Recall:
    """Run the lookup on every report: its paste, or its message when there is no paste."""
    result = Recall()
    for item in items:
        text = item.get("paste") or item.get("message") or ""
        release = str(item["transformers"]) if stated and item.get("transformers") else None
        answer = lookup.answer(text, release)
        confirmed = answer.confirmed
        result.outcomes.append(Outcome(str(item.get("id")), str(item.get("family") or "(none)"),
                                       item.get("expect", UNDECIDED), confirmed[0].known.id if confirmed else None,
                                       tuple(m.known.id for m in answer.candidates)))
    return result


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def report(recall: Recall) -> str:
    """Per family and per part: the counts, recall, precision, silence; then every wrong answer."""
    head = (f"{'':22} {'reports':>7} {'right':>6} {'cand.✓':>6} {'cand.✗':>6} {'missed':>6} {'WRONG':>6} "
            f"{'silent':>6} {'cand.':>6} {'recall':>7}")
    lines = [head]

    def row(label: str, family: str | None = None, part: str | None = None) -> str:
        c = recall.counts(family, part)
        return (f"{label:22} {sum(c.values()):>7} {c['right']:>6} {c['candidate-right']:>6} "
                f"{c['candidate-other']:>6} {c['missed']:>6} {c['confirmed-wrong']:>6} {c['silent']:>6} "
                f"{c['candidate']:>6} {_percent(recall.recall(family, part)):>7}")

    lines += [row(family, family) for family in recall.families]
    lines.append("─" * len(head))
    names = {"r": "tuned corpus (r)", "f": "new families (f)", "n": "negative controls (n)", "h": "held-out (h)"}
    lines += [row(names[part], part=part) for part in recall.parts]
    lines.append(row("all"))
    lines.append("")
    lines.append(f"recall (confirmed right / reports with an entry): {_percent(recall.recall())}; "
                 f"precision (right / confirmed): {_percent(recall.precision())}; "
                 f"silent where it should be: {_percent(recall.silent())}; "
                 f"confirmed wrong: {len(recall.wrong)}")
    lines.append(f"apart from recall, the right entry confirmed or among the candidates: {_percent(recall.offered())}")
    for part in recall.parts:
        lines.append(f"  {names[part]}: recall {_percent(recall.recall(part=part))} "
                     f"(with candidates {_percent(recall.offered(part=part))}), precision "
                     f"{_percent(recall.precision(part))}, silent {_percent(recall.silent(part))}, "
                     f"confirmed wrong {sum(o.verdict == 'confirmed-wrong' for o in recall.select(part=part))}")
    if recall.wrong:
        lines.append("\nconfirmed wrong (report: expected → confirmed):")
        lines += [f"  {o.id}: {o.expected or 'no entry'} → {o.confirmed}" for o in recall.wrong]
    misses = [o for o in recall.outcomes if o.verdict in ("candidate-right", "candidate-other", "missed")]
    if misses:
        lines.append("\nnot recalled (report: expected → candidates):")
        lines += [f"  {o.id}: {o.expected} → {', '.join(o.candidates) or 'nothing'} ({o.verdict})" for o in misses]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--index", default=None, help="an index (file or address) instead of this checkout's entries")
    parser.add_argument("--release", action="store_true", help="pass each report's stated release, as --release")
    parser.add_argument("--json", action="store_true", help="print every outcome as JSON")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    lookup = load_index(args.index).lookup() if args.index else project_known_lookup()
    recall = measure(read_corpus(args.corpus), lookup, args.release)
    if args.json:
        print(json.dumps([{"id": o.id, "family": o.family, "expected": None if o.expected is UNDECIDED else o.expected,
                           "decided": o.expected is not UNDECIDED, "confirmed": o.confirmed,
                           "candidates": list(o.candidates), "verdict": o.verdict} for o in recall.outcomes],
                         indent=1))
        return 0
    resolved = args.corpus.resolve()
    where = resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else args.corpus
    print(f"{len(recall.outcomes)} reports from {where}, {len(lookup)} entries"
          + (", each report's stated release given" if args.release else ", as pasted"))
    print(report(recall))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The releases as a picture: an entry's release strip, the knowledge base's heat map and the
migration timeline, as plain data that the templates draw as inline SVG at build time.

A reader wants to *see* where an error lives across releases: where the before raises, where the
old code still ran, where the fix runs clean. The version matrix says it per release
(`errorkb.results.matrix.release_states`); this module only places it:

- `strip`     one entry's states → `Strip`: a cell per release the matrix knows (its place, its
              words, its hover text), the entry's declared range beside it, the releases where the
              two disagree, axis labels, and the whole strip in words (`summary`) for screen readers.
- `heat_rows` every entry's strip → `HeatRow`s grouped by family (the entry's kind), each ordered
              by the release where it starts raising: runs of equal cells, one rectangle each.
- `timeline`  the migration page's rows → one `HeatRow` per removed or renamed name, with the
              release its replacement arrived in marked.

Colours and shapes are the stylesheet's (`.ekb-s-<state>`), one class per `State`; a cell's height
tells the states apart without colour too. Nothing here names a library: the words come from the
entries, the profile and the matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from errorkb.core.words import release_words
from errorkb.results.keys import STALE_WHY
from errorkb.results.matrix import ReleaseState, State

__all__ = ["WORDS", "State", "Strip", "Cell", "Tick", "HeatRow", "Run", "Axis", "strip", "heat_row", "axis",
           "axis_labels", "summary", "start_key"]
from errorkb.results.records import Outcome

# The legend's order, and each state's words: (label, what it means).
WORDS: dict[State, tuple[str, str]] = {
    State.RAISES: ("raises as documented", "the before raised the documented error"),
    State.OTHER_WORDING: ("raises in another wording", "the before raised the error as another release words it"),
    State.OLD_CODE_RUNS: ("old code runs clean", "the before ran clean: the old name still exists there"),
    State.RAISES_ELSEWHERE: ("raises elsewhere", "the before raised the documented words from another function or "
                                                 "cause: the after's outcome there proves nothing about this one"),
    State.FIX_RUNS: ("fix runs clean", "the error does not happen there, and the after ran clean"),
    # What was observed, in words true of every cell of the state: the before ran clean or raised something else, the
    # after failed or did not run (each cell's hover text says which); never "other outcome", which said neither.
    State.NEITHER: ("not raised, fix not clean", "the before did not raise the documented error there (it ran clean, "
                                                 "or raised another), and the after did not run clean (it failed, or "
                                                 "did not run)"),
    State.NOT_APPLICABLE: ("not applicable", "the documented function or module is not in that release"),
    State.NOT_RUN: ("not run", "no verdict there: the release did not run, or a need was unmet"),
}

AFTER_WORDS = {Outcome.PASS: "ran clean", Outcome.FAIL: "failed", Outcome.NOT_RUN: "not run",
               Outcome.NOT_APPLICABLE: "not applicable"}

# Geometry, in SVG user units. A cell per release; the label column on the left.
CELL = 10  # one release's width, a gap included
GAP = 2
LABEL = 70  # the row labels' column ("measured", "declared")
ROW = 18  # the measured row's height
DECLARED_Y, DECLARED_H = ROW + 5, 5
AXIS_Y = DECLARED_Y + DECLARED_H + 12  # the baseline of the release labels
HEIGHT = AXIS_Y + 3
# Where in the row each state's mark sits, (top, height): the shape tells states apart without colour.
SHAPES: dict[State, tuple[float, float]] = {
    State.RAISES: (0, ROW), State.OTHER_WORDING: (0, ROW), State.OLD_CODE_RUNS: (0, ROW), State.FIX_RUNS: (0, ROW),
    State.RAISES_ELSEWHERE: (0, ROW / 2),
    State.NEITHER: (ROW / 2, ROW / 2), State.NOT_APPLICABLE: (ROW / 2 - 1.5, 3), State.NOT_RUN: (1, ROW - 2),
}
LABEL_SPACING = 5  # cells between two axis labels, at least


@dataclass(frozen=True)
class Cell:
    release: str
    state: State
    x: float  # left edge
    y: float
    width: float
    height: float
    title: str  # hover text: the release, what was measured there, what the entry declares, whether it is stale
    stale: bool = False  # measured on other inputs than the entry and snippet folder now

    @property
    def label(self) -> str:
        return WORDS[self.state][0]


@dataclass(frozen=True)
class Strip:
    cells: tuple[Cell, ...]
    declared: str | None  # the entry's declared range as written, None when it declares none
    declared_spans: tuple[tuple[float, float], ...]  # (x, width) of runs of releases declared to raise
    disagree: tuple[Cell, ...]  # cells where the declared range and the measurement differ
    ticks: tuple[Tick, ...]
    summary: str  # the strip in words
    width: float
    height: float = HEIGHT
    row: float = ROW
    declared_y: float = DECLARED_Y
    declared_h: float = DECLARED_H
    axis_y: float = AXIS_Y
    label: float = LABEL

    @property
    def states(self) -> list[State]:
        """The states this strip shows, in the legend's order."""
        present = {cell.state for cell in self.cells}
        return [state for state in WORDS if state in present]

    @property
    def stale(self) -> tuple[Cell, ...]:
        """The cells measured on other inputs than the entry now: each marked, and said so in its hover text."""
        return tuple(cell for cell in self.cells if cell.stale)


STALE_MARK = "stale"  # the legend's words for a stale release's mark


def strip(states: Sequence[ReleaseState], declared: str | None = None,
          claims: Callable[[str], bool | None] = lambda release: None, stale: Collection[str] = ()) -> Strip:
    """The strip of one entry: `states` from the matrix, `declared` its range as written,
    `claims(release)` whether it says the before raises there (None: it makes no claim), and `stale` the releases
    whose results were measured on other inputs than the entry now (`matrix.Summary.stale`)."""
    cells: list[Cell] = []
    spans: list[tuple[float, float]] = []
    disagree: list[Cell] = []
    for index, one in enumerate(states):
        claim = claims(one.release)
        top, height = SHAPES[one.state]
        cell = Cell(one.release, one.state, LABEL + index * CELL, top, CELL - GAP, height,
                    _title(one, claim, one.release in stale), one.release in stale)
        cells.append(cell)
        if claim:
            x = LABEL + index * CELL
            if spans and abs(spans[-1][0] + spans[-1][1] - x) < 1e-9:
                spans[-1] = (spans[-1][0], spans[-1][1] + CELL)
            else:
                spans.append((x, CELL))
        raised = one.state in (State.RAISES, State.OTHER_WORDING)
        if claim is not None and one.state not in (State.NOT_RUN, State.NOT_APPLICABLE) and claim != raised:
            disagree.append(cell)
    releases = [one.release for one in states]
    ticks = _ticks(axis_labels(releases), len(releases), CELL - GAP, CELL, LABEL)
    return Strip(tuple(cells), declared, tuple((x, w - GAP) for x, w in spans), tuple(disagree), ticks,
                 summary(states, declared, stale), LABEL + len(states) * CELL)


def _title(one: ReleaseState, claim: bool | None, stale: bool = False) -> str:
    parts = [f"{one.release}: {WORDS[one.state][0]}"]
    if one.before:
        parts.append(f"before: {one.before}")
    if one.after is not None:
        parts.append(f"after: {AFTER_WORDS[one.after]}")
    if claim is not None:
        parts.append("declared to raise here" if claim else "declared not to raise here")
    if stale:
        parts.append(stale_words(one.release))
    return " · ".join(parts)


def stale_words(release: str) -> str:
    """What a stale release's mark says, in its hover text: a result measured on other inputs is no verdict on the
    entry now."""
    return f"stale: {STALE_WHY}, so what {release} showed is not verified on the entry as it is now"


@dataclass(frozen=True)
class Tick:
    x: float
    label: str
    anchor: str  # SVG text-anchor: the first label starts at its cell, the last ends at its own


def _ticks(labels: list[tuple[int, str]], count: int, width: float, step: float, left: float) -> tuple[Tick, ...]:
    ticks = []
    for index, label in labels:
        if index == 0:
            ticks.append(Tick(left, label, "start"))
        elif index == count - 1:
            ticks.append(Tick(left + index * step + width, label, "end"))
        else:
            ticks.append(Tick(left + index * step + width / 2, label, "middle"))
    return tuple(ticks)


def axis_labels(releases: Sequence[str]) -> list[tuple[int, str]]:
    """(index, label) of the releases the axis names: the first and the last in full, between them
    the first release of each major version and of every fourth minor one, never closer than
    `LABEL_SPACING` cells to another label."""
    if not releases:
        return []
    chosen: list[tuple[int, str]] = [(0, releases[0])]
    last = len(releases) - 1
    previous: tuple[int, int] | None = _major_minor(releases[0])
    for index, release in enumerate(releases[1:last], 1):
        here = _major_minor(release)
        if here is None or here == previous:
            continue
        new_major = previous is None or here[0] != previous[0]
        previous = here
        if (new_major or here[1] % 4 == 0) and index - chosen[-1][0] >= LABEL_SPACING \
                and last - index >= LABEL_SPACING:
            chosen.append((index, f"{here[0]}.{here[1]}"))
    if last > 0:
        chosen.append((last, releases[last]))
    return chosen


def _major_minor(release: str) -> tuple[int, int] | None:
    try:
        version = Version(release)
    except InvalidVersion:
        return None
    return version.major, version.minor


def summary(states: Sequence[ReleaseState], declared: str | None = None, stale: Collection[str] = ()) -> str:
    """The strip in words: for each state shown, the releases it covers, as spans; the declared range as the
    page words it (`release_words`), never a specifier read aloud; the releases whose results are stale."""
    if not states:
        return "No release was measured."
    releases = [one.release for one in states]
    parts = []
    for state in WORDS:
        spans = _spans(releases, [one.state is state for one in states])
        if spans:
            parts.append(f"{WORDS[state][0]} in {_said(spans)}")
    said = f"{len(states)} release{'s' if len(states) != 1 else ''} measured, {releases[0]} to {releases[-1]}: "
    stale_spans = _spans(releases, [one.release in stale for one in states])
    return said + "; ".join(parts) + (f"; stale in {_said(stale_spans)} ({STALE_WHY})" if stale_spans else "") + \
        (f". Declared to raise in {release_words(declared)}." if declared else ".")


def _said(spans: Sequence[tuple[str, str]]) -> str:
    return ", ".join(a if a == b else f"{a} – {b}" for a, b in spans)


def _spans(releases: Sequence[str], flags: Sequence[bool]) -> list[tuple[str, str]]:
    spans: list[tuple[str, str]] = []
    start = None
    for index, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            spans.append((releases[start], releases[index - 1]))
            start = None
    return spans


# -- many entries at once: the heat map and the timeline ----------------------------------------------


@dataclass(frozen=True)
class Run:
    """Consecutive releases of one row in one state: one rectangle, one hover text."""

    state: State
    x: int  # index of the first release
    width: int  # releases it covers
    y: float  # top, as a fraction of the row
    height: float
    title: str
    stale: bool = False  # its releases' results were measured on other inputs than the entry now


@dataclass(frozen=True)
class HeatRow:
    key: str  # what the row is about (an entry id, a removed name)
    url: str  # the entry page, relative to the page the row is on
    runs: tuple[Run, ...]
    summary: str  # the row in words
    starts: str | None  # the first release that raises it, None when none does
    mark: int | None = None  # a release to mark (the timeline: where the replacement arrived)
    mark_title: str = ""
    starts_words: str | None = None  # `starts` as a reader reads it: "X or earlier" where X is the oldest measured
    stale: str = ""  # which of its releases' results are stale, worded (`matrix.describe_stale`); "": none


def heat_row(key: str, url: str, states: Sequence[ReleaseState], mark: str | None = None,
             mark_title: str = "", stale: str = "", stale_at: Collection[str] = ()) -> HeatRow:
    """One row of the heat map: runs of equal states, and where raising starts; `stale` where its results were
    measured on other inputs than the entry now (the row says so beside its name, and in its words), `stale_at` the
    releases that holds for (each run of them marked, its hover text saying so)."""
    runs: list[Run] = []
    for index, one in enumerate(states):
        old = one.release in stale_at
        if runs and runs[-1].state is one.state and runs[-1].stale is old:
            last = runs[-1]
            runs[-1] = Run(last.state, last.x, last.width + 1, last.y, last.height,
                           _run_title(key, states[last.x].release, one.release, one.state, old), old)
        else:
            top, height = SHAPES[one.state]
            runs.append(Run(one.state, index, 1, top / ROW, height / ROW,
                            _run_title(key, one.release, one.release, one.state, old), old))
    starts = next((one.release for one in states if one.state in (State.RAISES, State.OTHER_WORDING)), None)
    at = _first_at_or_after([one.release for one in states], mark) if mark else None
    # Raising in the oldest release measured shows no start: it may have raised long before.
    words = f"{starts} or earlier" if starts is not None and starts == states[0].release else starts
    said = f"{key}: {summary(states, stale=stale_at)}" + (f" Stale {stale}: {STALE_WHY}." if stale and not stale_at
                                                            else "")
    return HeatRow(key, url, tuple(runs), said, starts, at, mark_title, words, stale)


def _run_title(key: str, first: str, last: str, state: State, stale: bool = False) -> str:
    said = f"{key} · {first if first == last else f'{first} – {last}'}: {WORDS[state][0]}"
    return said + (f" · stale: {STALE_WHY}" if stale else "")


def _first_at_or_after(releases: Sequence[str], release: str) -> int | None:
    try:
        wanted = Version(release)
    except InvalidVersion:
        return None
    for index, one in enumerate(releases):
        try:
            if Version(one) >= wanted:
                return index
        except InvalidVersion:
            continue
    return None


def start_key(row: HeatRow, releases: Sequence[str]) -> tuple[int, str]:
    """Order of the heat map inside a group: by the release where raising starts (never last), then by key."""
    position = releases.index(row.starts) if row.starts in releases else len(releases)
    return position, row.key


@dataclass(frozen=True)
class Axis:
    """The heat map's and the timeline's column of releases: its width in cells, its labels."""

    releases: tuple[str, ...]
    ticks: tuple[Tick, ...]
    width: float  # in pixels: `UNIT` per release


UNIT = 6  # one release's width in the heat map and the timeline, in pixels


def axis(releases: Sequence[str]) -> Axis:
    return Axis(tuple(releases), _ticks(axis_labels(releases), len(releases), UNIT, UNIT, 0), len(releases) * UNIT)

"""pytest plugin: every check of the knowledge base as a test item, so `pytest` alone verifies it.

Opt-in, so the project's own suite never runs the knowledge base twice by surprise:
`pytest --errorkb` collects the entries (`docs/errors/**/*.yml`, from `[tool.errorkb]`) *instead
of* the configured test paths; `pytest --errorkb tests docs/errors` collects both. Item ids read
`<entries file>::<entry>::<snippet>[<target>-<device>]`, e.g.
`docs/errors/<library>/some-error.yml::some-error::before[bundled-cpu]`.

Each item is one check run by the same `Verifier` as `errorkb verify` (warm pool, same cache
and key, same verdicts). A failed check fails with the failure view (snippet file:line,
expected vs actual); a check that cannot run here is skipped with its reason, never passed.
Nothing here imports the runtime.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from errorkb.plugs import runtime_for
from errorkb.results.records import TARGETS, CheckRecord, Outcome
from errorkb.verify.run import Isolation

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

    from errorkb.core.load import LoadedEntry
    from errorkb.verify.engine import Verifier
    from errorkb.verify.plan import Check

_STATE = pytest.StashKey["_Session"]()
_HINTS = pytest.StashKey[list[tuple[str, str]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("errorkb", "errorkb knowledge base")
    group.addoption("--errorkb", action="store_true", default=False,
                    help="collect every check of the errorkb knowledge base as a test item")
    group.addoption("--errorkb-root", default=None, help="project folder (default: the pytest rootdir)")
    group.addoption("--errorkb-target", action="append", choices=TARGETS, default=None,
                    help="target to verify against (repeatable; default from [tool.errorkb])")
    group.addoption("--errorkb-device", action="append", default=None,
                    help="device kind (repeatable; default: every device of the runtime)")
    group.addoption("--errorkb-isolation", choices=[mode.value for mode in Isolation], default=Isolation.FORK.value,
                    help="fresh process per check forked from a warm interpreter (default), or a new interpreter")
    group.addoption("--errorkb-no-cache", action="store_true", default=False,
                    help="run every check, ignoring the verdict cache")
    group.addoption("--errorkb-report", default=None,
                    help="also write the checks run here to this JSON report (merged per record into one there)")


class _Session:
    """Project, entries and one Verifier, shared by every item of the pytest session."""

    def __init__(self, config: pytest.Config):
        from errorkb.core.load import load_project_entries
        from errorkb.core.project import load_project

        self.config = config
        self.project = load_project(Path(config.getoption("errorkb_root") or config.rootpath))
        self.loaded = load_project_entries(self.project)
        self.targets = config.getoption("errorkb_target") or list(self.project.targets)
        self.devices = config.getoption("errorkb_device") or list(runtime_for(self.project.library.runtime).devices)
        self.records: list[CheckRecord] = []
        self.dropped: list[str] = []  # what writing the report left out of it, to say (`report.dropped_said`)
        self.received_fingerprints: dict[str, str] = {}  # from xdist's workers, which ran the checks
        self._verifier: Verifier | None = None

    @property
    def verifier(self) -> Verifier:
        if self._verifier is None:
            from errorkb.verify.cache import Trust, resolve_trust
            from errorkb.verify.engine import Verifier
            from errorkb.verify.plan import library_imports, plan

            checks = plan(self.loaded.entries, self.project, self.targets, self.devices)
            cache = None if self.config.getoption("errorkb_no_cache") else self.project.cache_dir
            self._verifier = Verifier(self.project, self.targets, isolation=self.config.getoption("errorkb_isolation"),
                                      cache_dir=cache, preload=library_imports(checks, self.project.library.name),
                                      trust=resolve_trust(Trust.AUTO))
        return self._verifier

    @property
    def fingerprints(self) -> dict[str, str]:
        return {**self.received_fingerprints, **(self._verifier.fingerprints if self._verifier else {})}

    def write_report(self) -> str | None:
        """The `--errorkb-report` file, of every check run here (and, under xdist, by every worker),
        merged per record into the report already there, as `errorkb verify --report` merges (it
        replaced it: `-k one-entry --errorkb-report reports/latest.json` lost every other verdict);
        what went wrong, with where the records were saved instead, or None."""
        from errorkb.results.report import dropped_said, new_report, update_standing, write_report
        from errorkb.results.store import Refused

        path = self.config.getoption("errorkb_report")
        if not path or not self.records:
            return None
        fresh = new_report(self.fingerprints, sorted(self.records, key=lambda record: record.id))
        known = self.loaded.ids()  # an entry that failed to load keeps its records until it is fixed
        try:
            written = write_report(Path(path), fresh, lambda on_disk, run: update_standing(on_disk, run, known))
        except Refused as refused:
            return f"errorkb: --errorkb-report: {refused}"
        self.dropped = dropped_said(written, self.project.rel(Path(path)))  # never silently, as `errorkb verify`
        return None

    def close(self) -> None:
        if self._verifier is not None:
            self._verifier.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "errorkb: a knowledge-base check collected by --errorkb")
    if not config.getoption("errorkb"):
        return
    state = _Session(config)
    config.stash[_STATE] = state
    if config.args_source != pytest.Config.ArgsSource.ARGS:  # no paths given: the knowledge base only
        config.args[:] = [str(state.project.entries)]


_RECORDS, _FINGERPRINTS, _HINTED = "errorkb_records", "errorkb_fingerprints", "errorkb_hints"
_UNWRITTEN = pytest.StashKey[str]()
_DROPPED = pytest.StashKey[list[str]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write the `--errorkb-report` file. An xdist worker hands its records to the controller,
    which writes them all in one file (each worker replaced the file with its own share: the
    records of every other worker were lost). A file that cannot be written fails the run, its
    records saved elsewhere and said where (never a traceback that takes them with it). A worker hands its hints
    (`pytest_exception_interact`) to the controller too, whose summary prints them."""
    state = session.config.stash.get(_STATE, None)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_HINTED] = [list(hint) for hint in session.config.stash.get(_HINTS, [])]
    if state is None:
        return
    if workeroutput is not None:
        workeroutput[_RECORDS] = [record.model_dump_json() for record in state.records]
        workeroutput[_FINGERPRINTS] = state.fingerprints
        return
    unwritten = state.write_report()
    session.config.stash[_DROPPED] = state.dropped
    if state.dropped and session.config.pluginmanager.get_plugin("terminalreporter") is None:
        sys.stderr.write("".join(f"errorkb: {line}\n" for line in state.dropped))
    if unwritten is None:
        return
    session.config.stash[_UNWRITTEN] = unwritten
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if session.config.pluginmanager.get_plugin("terminalreporter") is None:  # no summary to say it in
        sys.stderr.write(unwritten + "\n")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """(xdist, in the controller) a worker is done: the records of the checks it ran, for the report, and the hints
    of its failing tests, for the summary (round thirteen: the worker kept them, and `pytest -n N` printed none)."""
    state = node.config.stash.get(_STATE, None)
    output = getattr(node, "workeroutput", None) or {}
    hints = output.get(_HINTED, ())
    if isinstance(hints, list | tuple):
        node.config.stash.setdefault(_HINTS, []).extend(
            (hint[0], hint[1]) for hint in hints
            if isinstance(hint, list | tuple) and len(hint) == 2 and all(isinstance(one, str) for one in hint))
    if state is None:
        return
    state.records.extend(CheckRecord.model_validate_json(text) for text in output.get(_RECORDS, ()))
    state.received_fingerprints.update(output.get(_FINGERPRINTS, {}))


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


def pytest_exception_interact(node: pytest.Item | pytest.Collector, call: pytest.CallInfo[Any],
                              report: pytest.TestReport | pytest.CollectReport) -> None:
    """A failing test, or a test module that fails to import, whose exception is a documented error: keep
    the hook's block for the summary (the explainer is imported only here, once something has failed;
    anything wrong in it is ignored)."""
    errors = _documented_candidates(node, call)
    if not errors:
        return
    try:
        from errorkb.hook.explain import describe_within

        texts = [describe_within(error) for error in errors]  # bounded: it runs the test's `__str__` again
    except Exception:
        return
    text = "".join(dict.fromkeys(one for one in texts if one))
    if text:
        node.config.stash.setdefault(_HINTS, []).append((node.nodeid, text))


def _documented_candidates(node: pytest.Item | pytest.Collector, call: pytest.CallInfo[Any]) -> list[BaseException]:
    """The errors to explain: a test's own; at collection, the module's error as raised, or the one pytest's
    CollectError was raised from (an ImportError at a test file's top: `from <library> import <removed name>`).
    A CollectError of no error (an entries file's problems, a name pytest refused) explains nothing. A doctest's
    carrier (`_carried`) stands for the errors its examples raised."""
    if call.excinfo is None:
        return []
    error = call.excinfo.value
    if isinstance(node, pytest.Item):
        return _carried(error)
    if isinstance(error, pytest.Collector.CollectError):
        return [] if error.__cause__ is None else [error.__cause__]
    return [error]


def _carried(error: BaseException) -> list[BaseException]:
    """The errors a doctest example raised, which pytest's doctest item fails with inside a carrier that holds each in
    its `exc_info`: doctest's `UnexpectedException`, or pytest's `MultipleDoctestFailures` of them
    (`--doctest-continue-on-failure`; at most `MAX_CARRIED`). Round thirteen: the hint read the carrier, whose words
    are none of the error's, and named nothing, while pytest printed the error's traceback. Any other error: itself.
    By identity of the classes, where their modules are loaded (a run with no doctest never imports them)."""
    doctest, items = sys.modules.get("doctest"), sys.modules.get("_pytest.doctest")
    unexpected = getattr(doctest, "UnexpectedException", None)
    several = getattr(items, "MultipleDoctestFailures", None)
    carriers: list[object] = [error]
    if isinstance(several, type) and isinstance(error, several):
        failures = getattr(error, "failures", None)
        carriers = list(failures[:MAX_CARRIED]) if isinstance(failures, list | tuple) else []
    elif not (isinstance(unexpected, type) and isinstance(error, unexpected)):
        return [error]
    found = []
    for carrier in carriers:
        held = getattr(carrier, "exc_info", None) if isinstance(unexpected, type) and \
            isinstance(carrier, unexpected) else None
        if isinstance(held, tuple) and len(held) == 3 and isinstance(held[1], BaseException):
            found.append(held[1])
    return found


MAX_CARRIED = 20  # a doctest's failures read for errors (one block each, the same block once)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    unwritten = config.stash.get(_UNWRITTEN, None)
    if unwritten:
        terminalreporter.section("errorkb: report not written", red=True)
        terminalreporter.write_line(unwritten)
    dropped = config.stash.get(_DROPPED, [])
    if dropped:
        terminalreporter.section("errorkb: records dropped from the report")
        for line in dropped:
            terminalreporter.write_line(line)
    hints = config.stash.get(_HINTS, [])
    if hints:
        terminalreporter.section("errorkb: documented errors")
        for nodeid, text in dict.fromkeys(hints):  # once per test: its subtests fail with the same error
            terminalreporter.write_line(f"{nodeid}:{text.rstrip()}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> EntryFile | None:
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix not in (".yml", ".yaml"):
        return None
    if not file_path.resolve().is_relative_to(state.project.entries.resolve()):
        return None
    return EntryFile.from_parent(parent, path=file_path)


class EntryFile(pytest.File):
    def collect(self) -> Iterator[EntryNode]:
        state = self.config.stash[_STATE]
        here = self.path.resolve()
        problems = [p for p in state.loaded.problems if Path(state.project.root, p.path).resolve() == here]
        if problems:
            raise self.CollectError("\n".join(str(problem) for problem in problems))
        for one in state.loaded.entries:
            if one.path.resolve() == self.path.resolve():
                yield EntryNode.from_parent(self, name=one.entry.id, loaded=one)


class EntryNode(pytest.Collector):
    def __init__(self, *, loaded: LoadedEntry, **kwargs: Any):
        super().__init__(**kwargs)
        self.loaded = loaded

    def collect(self) -> Iterator[CheckItem]:
        from errorkb.verify.plan import plan

        state = self.config.stash[_STATE]
        for check in plan([self.loaded], state.project, state.targets, state.devices):
            snippet = check.role.split(":", 1)[-1]
            yield CheckItem.from_parent(self, name=f"{snippet}[{check.target}-{check.device}]", check=check)


class CheckFailed(Exception):
    def __init__(self, record: CheckRecord):
        super().__init__(record.reason)
        self.record = record


class CheckItem(pytest.Item):
    def __init__(self, *, check: Check, **kwargs: Any):
        super().__init__(**kwargs)
        self.check = check
        self.add_marker(pytest.mark.errorkb)

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        record = state.verifier.record(self.check)
        state.records.append(record)
        self.user_properties.append(("errorkb_reason", record.reason))
        if not record.outcome.ran:
            why = f"{record.outcome.value.replace('-', ' ')}: {record.reason}"
            try:  # report the skip at the snippet (reportinfo), not at this line
                raise pytest.skip.Exception(why, _use_item_location=True)
            except TypeError:  # a pytest without that keyword
                pytest.skip(why)
        if record.outcome is not Outcome.PASS:
            raise CheckFailed(record)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CheckFailed):
            from errorkb.verify.output import failure_view

            return failure_view(excinfo.value.record, self.config.stash[_STATE].project.root)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.check.snippet.path, 0, self.check.id

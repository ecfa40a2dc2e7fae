"""Reports, round seventeen: a signal that arrives while a report is written.

A verify run's report is written once, at its end, after minutes of checks: Ctrl-C pressed a second time, or a CI
job's time limit (SIGTERM, which `errorkb verify` turns into an interrupt) arriving while the merged file was read,
combined and written, stopped the write half way. The file on disk stayed whole (the write is atomic), but the run's
results were gone, with no word of them. Now the write holds those signals until the file is whole (written, or
refused with the run's data rescued), then they act.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from errorkb.results import store


def _raise(signum, frame):  # `errorkb verify`'s SIGTERM handler: an interrupt
    raise KeyboardInterrupt


@pytest.fixture
def sigterm_interrupts():
    earlier = signal.signal(signal.SIGTERM, _raise)
    yield
    signal.signal(signal.SIGTERM, earlier)


def _write(path: Path, signum: int, stage: str) -> None:
    """`store.update` of `path` with this run's {"new": 1}, `signum` sent to this process during `stage`."""
    def read(at: Path) -> dict | None:
        if stage == "read":
            os.kill(os.getpid(), signum)
        text = store.read_regular(at)
        return None if text is None else json.loads(text)

    def combine(current: dict | None) -> dict:
        if stage == "combine":
            os.kill(os.getpid(), signum)
        return {**(current or {}), "new": 1}

    def text(data: dict) -> str:
        if stage == "text":
            os.kill(os.getpid(), signum)
        return json.dumps(data, sort_keys=True) + "\n"

    store.update(path, read, combine, text, "restore it")


@pytest.mark.parametrize("stage", ["read", "combine", "text"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_report_is_written_acts_once_the_file_holds_the_run(tmp_path, sigterm_interrupts, stage,
                                                                                 signum):
    path = tmp_path / "latest.json"
    path.write_text('{"old": 1}\n')
    with pytest.raises(KeyboardInterrupt):
        _write(path, signum, stage)
    assert json.loads(path.read_text()) == {"new": 1, "old": 1}  # the run's results, merged: nothing lost
    assert store.leftovers(path) == []


def test_the_signals_are_held_no_longer_than_the_write(tmp_path, sigterm_interrupts):
    path = tmp_path / "latest.json"
    store.update(path, lambda at: None, lambda current: {"new": 1}, lambda data: json.dumps(data), "restore it")
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) & {signal.SIGINT, signal.SIGTERM} == set()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)


def test_a_refused_write_still_rescues_the_run_before_the_signal_acts(tmp_path, sigterm_interrupts):
    path = tmp_path / "latest.json"
    path.write_text("{cut")
    rescued = []

    def read(at: Path) -> dict | None:
        os.kill(os.getpid(), signal.SIGTERM)
        raise store.Unreadable(f"{at}: does not parse")

    with pytest.raises((KeyboardInterrupt, store.Refused)) as raised:
        store.update(path, read, lambda current: {"new": 1}, lambda data: json.dumps(data), "restore it")
    rescued = sorted(tmp_path.glob("latest.rescued-*.json"))
    assert path.read_text() == "{cut" and len(rescued) == 1 and json.loads(rescued[0].read_text()) == {"new": 1}, (
        raised.value)

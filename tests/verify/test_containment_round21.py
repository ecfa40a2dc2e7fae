"""Round twenty-one: what the verifier trusts around the observer.

The verdict cache is read as untrusted input: a record is the harness's verdict only where nobody but the user
running errorkb could have written it (another user's file, or one others may write, is no verdict observed here).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from errorkb.core.project import load_project
from errorkb.results.report import read_report
from errorkb.verify import cache as cache_module
from errorkb.verify.cache import VerdictCache
from errorkb.verify.records import Outcome

_KEY = "0" * 64


def _stored(folder: Path) -> Path:
    """A passing record stored under `_KEY` by the harness, and its file."""
    project = load_project(Path(__file__).resolve().parents[2])
    (record, *_) = read_report(project.reports / "latest.json").checks
    VerdictCache(folder).put(_KEY, record.model_copy(update={"key": _KEY, "outcome": Outcome.PASS}))
    path = folder / "verify" / f"{_KEY}.json"
    assert VerdictCache(folder).get(_KEY) is not None, "the harness's own record is a hit"
    return path


def _another_user_owns(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`path` as another user's file: given away where this process is root, else this process made someone else."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:
        real = os.geteuid()
        monkeypatch.setattr(cache_module.os, "geteuid", lambda: real + 1)


def test_a_record_another_user_owns_is_never_reused(tmp_path, monkeypatch):
    """A cache folder another user can write (a shared checkout, a group-writable project): they write a record
    under a check's public key, its verdict a pass, and the run reused it as its own, `cached`, as if this
    harness had observed it. Their file is nobody's verdict here: a miss, counted, and the check runs."""
    path = _stored(tmp_path)
    _another_user_owns(path, monkeypatch)
    reader = VerdictCache(tmp_path)
    assert reader.get(_KEY) is None and reader.misses == 1 and reader.hits == 0
    assert reader.stats()["foreign"] == 1


@pytest.mark.parametrize("bits", [stat.S_IWGRP, stat.S_IWOTH])
def test_a_record_others_may_write_is_never_reused(tmp_path, bits):
    """A record of the harness's own that the group or anyone may write: its verdict may be another's edit."""
    path = _stored(tmp_path)
    path.chmod(stat.S_IMODE(path.stat().st_mode) | bits)
    reader = VerdictCache(tmp_path)
    assert reader.get(_KEY) is None and reader.misses == 1
    assert reader.stats()["foreign"] == 1


def test_a_record_the_harness_stores_under_a_permissive_umask_is_still_its_own(tmp_path):
    """The honest twin: a umask that lets the group write (002, a user-private-group system) makes no record
    others may write, so the cache still answers; and a hard-linked copy of the cache (`cp -a -l`) is the same
    file, still the harness's."""
    old = os.umask(0o002)
    try:
        path = _stored(tmp_path)
    finally:
        os.umask(old)
    assert not stat.S_IMODE(path.stat().st_mode) & (stat.S_IWGRP | stat.S_IWOTH)
    copy = tmp_path / "copy"
    (copy / "verify").mkdir(parents=True)
    os.link(path, copy / "verify" / path.name)
    reader = VerdictCache(copy)
    assert reader.get(_KEY) is not None and "foreign" not in reader.stats()

"""Reuse a verdict only while everything it depends on is unchanged, and only where the cache
can be trusted.

The key of a check is `results.keys.VerdictKey`, the one definition of what a verdict depends
on: the whole entry and every file of its snippet folder (`inputs_digest`, which the version
matrix and the pages' stale marks use too), the role and module, the target's fingerprint, the
runtime's release, the device kind, Python, the library profile and the verifier (its version
and the hash of every file whose code can change a verdict, `verdict_sources`).

Records live one file per key in `.errorkb-cache/verify/` at the project root (gitignored), each stamped
with the verifier and the errorkb release that judged it (`report.stamped`), which a reused record keeps.
Only verdicts the judge marks cacheable are stored: those that would come out the same on a
rerun. A cached record that does not validate is a miss, never trusted; so is one that someone other than
the user running errorkb could have written (`_anothers`: another user's file, or one the group or anyone may
write), counted as `foreign` in the run's cache statistics.

Trust (`Trust`): a cache restored into a run that is not the repository's own (a pull request's
CI run: its earlier pushes ran code nobody reviewed, and could have written any verdict into the
cache that run restores) is never reused: every check runs, and nothing is written. `auto`
decides from the CI's environment (`untrusted_here`); `--cache trusted|untrusted|off` says it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import secrets
import sys
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from errorkb.core.cachetrust import committed_link, tracked
from errorkb.core.filebytes import digest
from errorkb.core.project import LibraryProfile
from errorkb.plugs import Runtime
from errorkb.results import store
from errorkb.results.keys import VerdictKey
from errorkb.results.records import CheckRecord
from errorkb.results.report import VERIFIER_VERSION, stamped
from errorkb.verify.plan import Check
from errorkb.verify.sources import NOT_IN_VERDICTS as NOT_IN_VERDICTS
from errorkb.verify.sources import NOT_IN_VERDICTS_ELSEWHERE as NOT_IN_VERDICTS_ELSEWHERE
from errorkb.verify.sources import read_verdict_sources, verdict_bytes, verdict_sources  # one list, one read

_HERE = Path(__file__).resolve().parent
_PACKAGE = _HERE.parent


class Trust(StrEnum):
    AUTO = "auto"  # untrusted inside a pull request's CI run (`untrusted_here`), trusted elsewhere
    TRUSTED = "trusted"  # read and write the cache
    UNTRUSTED = "untrusted"  # run every check; read nothing from the cache, write nothing to it
    OFF = "off"  # no cache at all (`--no-cache`)


# Where a CI run is a pull request's (or merge request's): the code it runs was not reviewed, and
# the cache it restores may hold what an earlier push of that pull request wrote.
_UNTRUSTED_EVENTS = {"GITHUB_EVENT_NAME": ("pull_request", "pull_request_target", "pull_request_review",
                                           "pull_request_review_comment"),
                     "CI_PIPELINE_SOURCE": ("merge_request_event", "external_pull_request_event")}


def untrusted_here(environ: Mapping[str, str] | None = None) -> str | None:
    """Why a cache is not to be trusted in this process's CI run (None: nothing says so)."""
    environ = os.environ if environ is None else environ
    for variable, events in _UNTRUSTED_EVENTS.items():
        if environ.get(variable, "") in events:
            return f"{variable}={environ[variable]}: a pull request's run"
    return None


def resolve_trust(trust: str) -> Trust:
    """`auto` made definite for this process."""
    chosen = Trust(trust)
    if chosen is Trust.AUTO:
        return Trust.UNTRUSTED if untrusted_here() else Trust.TRUSTED
    return chosen


def fingerprint_of(files: tuple[tuple[str, bytes], ...]) -> str:
    """The verifier's fingerprint of one read of its sources, by the one procedure every result keyed on code uses
    (`filebytes.digest`: each file delimited, so two sets of files never digest alike)."""
    return f"{VERIFIER_VERSION}+{digest(files, seed=VERIFIER_VERSION)[:12]}"


def fingerprint_afresh() -> str:
    """The fingerprint of errorkb's code as it is on disk now (`watch.identity`: must the process start again?)."""
    return fingerprint_of(read_verdict_sources())


@cache
def verifier_fingerprint() -> str:
    """This process's: the digest of its one read of the verdict sources (`sources.verdict_bytes`), the bytes a
    check is shown of errorkb (`sandbox.package_shadow`), never a read of its own."""
    return fingerprint_of(verdict_bytes())


_runtime_releases: dict[tuple[object, ...], str] = {}


def _runtime_release(runtime: Runtime) -> str:
    """'<runtime>==<version>', read from package metadata once per plug and import path, not per check
    (the matrix computes thousands of keys)."""
    where = (runtime.name, type(runtime).version, tuple(sys.path))
    if where not in _runtime_releases:
        _runtime_releases[where] = f"{runtime.name}=={runtime.version()}"
    return _runtime_releases[where]


_profile_digests: dict[int, tuple[LibraryProfile, str]] = {}


def profile_digest(library: LibraryProfile) -> str:
    """The profile's digest, serialized once per profile object, not per check (a profile is frozen:
    the same object always holds the same settings; the object is kept, so its id is never reused)."""
    known = _profile_digests.get(id(library))
    if known is None or known[0] is not library:
        known = (library, hashlib.sha256(library.model_dump_json().encode()).hexdigest())
        _profile_digests[id(library)] = known
    return known[1]


def verdict_key(check: Check, inputs: str, target_fingerprint: str, runtime: Runtime,
                library: LibraryProfile) -> VerdictKey:
    """The check's key: `inputs` is `keys.inputs_digest` of its entry and snippet folder."""
    return VerdictKey(inputs=inputs, role=str(check.role), snippet=check.snippet.sha256, module=check.module,
                      target=target_fingerprint, runtime=_runtime_release(runtime), device=check.device,
                      python=f"{sys.implementation.name}-{platform.python_version()}",
                      profile=profile_digest(library), verifier=verifier_fingerprint())


def tracked_records(folder: Path) -> frozenset[str]:
    """The names of the files in `folder` the git repository around it tracks (none outside a repository, or
    without git). Every input of a verdict key is in the repository, so anyone can compute a check's key: a
    pull request could commit a record under it (`git add -f`, past the .gitignore), and the first trusted run
    after the merge, its CI cache restored over the checkout, would reuse a verdict no run observed. The
    harness alone writes the cache, and never commits it: a record git tracks is nobody's verdict."""
    if not folder.is_dir():
        return frozenset()
    return frozenset(Path(name).name for name in tracked(folder) or [])


class VerdictCache:
    def __init__(self, folder: Path, trust: Trust = Trust.TRUSTED):
        self.folder = folder / "verify"
        self.trust = trust
        self.hits = 0
        self.misses = 0
        self.foreign = 0  # records someone else could have written (`_anothers`): never reused
        self.tracked = tracked_records(self.folder) if trust is Trust.TRUSTED else frozenset()
        # A folder that is a link out of the one holding it (committed so: `git add -f` reaches a gitignored path)
        # is neither read nor written through: a trusted run stored every verdict there, outside the repository.
        # The cache's own folder may be a link of the author's (the cache on another disk): refused where git
        # tracks that link, which a commit made (`core.cachetrust`, the one rule, holds the environments to it too).
        self.unusable: str | None = store.LEADS_OUT if store.leads_out(self.folder) or committed_link(folder) else None

    def get(self, key: str) -> CheckRecord | None:
        if self.trust is not Trust.TRUSTED or f"{key}.json" in self.tracked or self.unusable:  # nobody's verdicts
            self.misses += 1
            return None
        try:  # a regular file of the folder, read bounded: never a FIFO (it would block the run) nor a link out
            text = store.read_regular(self.folder / f"{key}.json")
            # read as the reports are (`store.parse_json`): a key given twice, NaN or nesting past what errorkb writes
            # is no record of the harness's (pydantic's parser kept the last `outcome` of two without a word)
            record = CheckRecord.model_validate(store.parse_json(text)) if text is not None else None
        except (store.Unreadable, ValueError, ValidationError):
            record = None
        if record is not None and _anothers(self.folder / f"{key}.json", text or ""):
            self.foreign += 1  # its verdict is whatever its writer chose: nobody observed it in this harness
            record = None
        if record is None:
            self.misses += 1
            return None
        if record.key != key or record.verifier not in (None, VERIFIER_VERSION):
            # a record copied under another key is not this check's; the key holds the verifier's version, so a
            # record under it naming another verifier was not stored by this one (copied, or edited)
            self.misses += 1
            return None
        self.hits += 1
        if record.verifier is None:  # stored before records were stamped: the key's verifier, its release unsaid
            record = record.model_copy(update={"verifier": VERIFIER_VERSION})
        return record

    def put(self, key: str, record: CheckRecord) -> None:
        """Store the verdict; a cache that cannot take it (a file where its folder goes, a full or read-only disk)
        is given up for the run, saying why (`stats`): it only saves time, and the verdict stands."""
        if self.trust is not Trust.TRUSTED or self.unusable:
            return
        path = self.folder / f"{key}.json"
        temporary = path.with_suffix(f".{secrets.token_hex(6)}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            # never writable by the group or anyone, whatever the umask (002 gave 664): `get` refuses such a record
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "w",
                           encoding="utf-8") as handle:
                handle.write(stamped(record).model_dump_json(exclude_none=True))
            temporary.replace(path)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            self.unusable = f"cannot be written ({error.strerror or error}); nothing more is stored in it this run"
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise

    def stats(self) -> dict[str, object]:
        tracked = {"tracked": len(self.tracked)} if self.tracked else {}  # records git tracks: never reused
        foreign = {"foreign": self.foreign} if self.foreign else {}  # records someone else could have written
        unusable = {"unusable": self.unusable} if self.unusable else {}  # a link out, or unwritable: why
        return {"hits": self.hits, "misses": self.misses, "trust": str(self.trust), **tracked, **foreign, **unusable}




def _anothers(path: Path, text: str) -> bool:
    """Whether the record read from `path` as `text` may be someone else's (`store.written_here`, the one rule):
    the harness writes its records as the user running errorkb, writable by that user alone (`put`)."""
    return not store.written_here(path, text)


def cache_key(check: Check, inputs: str, target_fingerprint: str, runtime: Runtime, library: LibraryProfile) -> str:
    return verdict_key(check, inputs, target_fingerprint, runtime, library).digest()


__all__ = ["NOT_IN_VERDICTS", "NOT_IN_VERDICTS_ELSEWHERE", "Trust", "VerdictCache", "cache_key", "fingerprint_afresh",
           "resolve_trust", "tracked_records", "untrusted_here", "verdict_key", "verdict_sources",
           "verifier_fingerprint"]

"""Reuse a verdict only while everything it depends on is unchanged.

The key of a check hashes: the snippet's bytes (and the other `.py` files of its folder, which
it may import), the entry's expectation (exception, message, source, `expect`, and the guard's
own expectation), the target's fingerprint (bundled source hash or upstream version), the
runtime's name and version, the device kind, the Python version and the verifier (its version
number and the hash of its own source, so a change to the judge invalidates every verdict).

Records live one file per key in `.errorkb-cache/verify/` at the project root (gitignored);
`errorkb verify --no-cache` neither reads nor writes them. Only verdicts the judge marks
cacheable are stored: those that would come out the same on a rerun. A cached record that does
not validate is a miss, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from errorkb.plugs import Runtime
from errorkb.verify.plan import Check
from errorkb.verify.records import CheckRecord
from errorkb.verify.report import VERIFIER_VERSION

_HERE = Path(__file__).resolve().parent
_VERIFIER_SOURCES = [_HERE, _HERE / "inside", _HERE.parent / "core" / "message.py",
                     _HERE.parent / "core" / "snippets.py", _HERE.parent / "core" / "lint.py", _HERE.parent / "plugs"]
# Files of the verifier that choose which checks run and print what came out, and never make a
# verdict: changing them must not throw every cached verdict away (the version matrix re-measures
# 66 releases when it does). `test_verify_cache` checks each still exists.
NOT_IN_VERDICTS = ("matrix.py", "output.py")


def verdict_sources() -> list[Path]:
    """Every file whose code can change a verdict."""
    found = []
    for root in _VERIFIER_SOURCES:
        for path in sorted(root.glob("*.py")) if root.is_dir() else [root]:
            if not (path.parent == _HERE and path.name in NOT_IN_VERDICTS):
                found.append(path)
    return found


@cache
def verifier_fingerprint() -> str:
    digest = hashlib.sha256(VERIFIER_VERSION.encode())
    for path in verdict_sources():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return f"{VERIFIER_VERSION}+{digest.hexdigest()[:12]}"


@cache
def _folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_runtime_releases: dict[tuple[object, ...], str] = {}


def _runtime_release(runtime: Runtime) -> str:
    """'<runtime>==<version>', read from package metadata once per plug and import path, not per check
    (the matrix computes thousands of keys)."""
    where = (runtime.name, type(runtime).version, tuple(sys.path))
    if where not in _runtime_releases:
        _runtime_releases[where] = f"{runtime.name}=={runtime.version()}"
    return _runtime_releases[where]


def key_parts(check: Check, target_fingerprint: str, runtime: Runtime) -> dict[str, Any]:
    """Everything a verdict depends on, by name (tests flip each one)."""
    entry = check.entry
    guard = check.guard
    return {
        "snippet": check.snippet.sha256,
        "snippet_folder": _folder_hash(check.snippet.path.parent.resolve()),
        "role": str(check.role),
        "expectation": {
            "exception": entry.exception,
            "message": entry.message,
            "source": entry.source.model_dump(mode="json"),
            "module": check.module,
            "expect": entry.expect.model_dump(mode="json"),
            "guard": guard.model_dump(mode="json") if guard is not None else None,
        },
        "target": target_fingerprint,
        "runtime": _runtime_release(runtime),
        "device": check.device,
        "python": f"{sys.implementation.name}-{platform.python_version()}",
        "verifier": verifier_fingerprint(),
    }


def cache_key(check: Check, target_fingerprint: str, runtime: Runtime) -> str:
    text = json.dumps(key_parts(check, target_fingerprint, runtime), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class VerdictCache:
    def __init__(self, folder: Path):
        self.folder = folder / "verify"
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> CheckRecord | None:
        try:
            record = CheckRecord.model_validate_json((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, ValidationError):
            self.misses += 1
            return None
        if record.key != key:  # a record copied under another key is not this check's
            self.misses += 1
            return None
        self.hits += 1
        return record

    def put(self, key: str, record: CheckRecord) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{key}.json"
        temporary = path.with_suffix(f".{id(record)}.tmp")
        temporary.write_text(record.model_dump_json(exclude_none=True), encoding="utf-8")
        temporary.replace(path)

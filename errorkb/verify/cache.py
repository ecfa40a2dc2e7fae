"""Reuse a verdict only while everything it depends on is unchanged.

The key of a check hashes: the snippet's text (and the other `.py` files of its folder, which
it may import), the entry's expectation (exception, message, source, `expect`, and the
guard's own expectation), the target's fingerprint (bundled source hash or upstream version),
the torch version, the device kind, the Python version and the verifier (its version number
and the hash of its own source, so a change to the judge invalidates every verdict).

Records live one file per key in `.errorkb-cache/verify/` at the project root (gitignored);
`errorkb verify --no-cache` neither reads nor writes them. Only verdicts that would come out
the same on a rerun are stored: passes and fails of the snippet itself. "Not run", timeouts,
SIGKILL (possibly the machine's OOM killer) and a dead worker depend on the machine's moment.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import sys
from functools import cache
from pathlib import Path

from errorkb.verify.plan import Check
from errorkb.verify.report import VERIFIER_VERSION

_VERIFIER_SOURCES = [Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "core" / "message.py"]


@cache
def verifier_fingerprint() -> str:
    digest = hashlib.sha256(VERIFIER_VERSION.encode())
    for root in _VERIFIER_SOURCES:
        for path in sorted(root.glob("*.py")) if root.is_dir() else [root]:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return f"{VERIFIER_VERSION}+{digest.hexdigest()[:12]}"


@cache
def torch_version() -> str:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "absent"


@cache
def _folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key_parts(check: Check, target_fingerprint: str) -> dict:
    """Everything a verdict depends on, by name (tests flip each one)."""
    entry = check.entry
    guard = check.guard
    return {
        "snippet": check.snippet_hash(),
        "snippet_folder": _folder_hash(check.snippet.parent.resolve()),
        "role": check.role,
        "expectation": {
            "exception": entry.exception,
            "message": entry.message,
            "source": entry.source.model_dump(mode="json"),
            "expect": entry.expect.model_dump(mode="json"),
            "guard": guard.model_dump(mode="json") if guard is not None else None,
        },
        "target": target_fingerprint,
        "torch": torch_version(),
        "device": check.device,
        "python": f"{sys.implementation.name}-{platform.python_version()}",
        "verifier": verifier_fingerprint(),
    }


def cache_key(check: Check, target_fingerprint: str) -> str:
    text = json.dumps(key_parts(check, target_fingerprint), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cacheable(record: dict, timed_out: bool) -> bool:
    if record["outcome"] not in ("pass", "fail") or timed_out:
        return False
    reason = record["reason"]
    return not reason.startswith(("the verifier's worker died", "killed by SIGKILL"))


class VerdictCache:
    def __init__(self, folder: Path):
        self.folder = folder / "verify"
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict | None:
        try:
            record = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return record

    def put(self, key: str, record: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{key}.json"
        temporary = path.with_suffix(f".{id(record)}.tmp")
        temporary.write_text(json.dumps(record), encoding="utf-8")
        temporary.replace(path)

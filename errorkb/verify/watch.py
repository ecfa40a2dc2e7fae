"""`errorkb verify --watch`: the author's loop, with the zygotes kept warm from one save to the next.

One long-lived process runs a round (a whole `errorkb verify`, printed as one) at start and
again whenever a watched file changes; what each round runs is decided by the verdict cache's
key, as in any run (one owner): an unchanged check is answered from the cache, a changed one runs.
What this module adds is the pool's lifetime. A cold run pays one import of the runtime and the
library per zygote (a naive check's whole cost); here round 2 forks from the zygotes round 1
started, so a save costs its checks' forks alone.

Why that is as isolated as a cold run (docs/threat-model.md, "Warm zygotes across runs"):

- A zygote never runs snippet code. Each check runs in a child forked from it, jailed, and
  nothing flows back from a child into the zygote's memory (a copy-on-write copy; its pipes to
  the zygote are closed before the snippet's first line; in the sandbox it cannot name, signal or
  `ptrace` the zygote). So the zygote of round 2 is the zygote of round 1, byte for byte, as it
  would be on a cold start (tests/verify/test_watch_isolation.py tries every channel).
- The zygotes are kept only while they are what a cold run would start (`Kept.take`): the
  sandbox a fresh run would make now (`sandbox.candidate`: which folders exist to hide, which
  paths are shown) must equal the one they live in, and the fingerprint of every target (the
  bundled package's sources) must be the one they imported. Otherwise they are ended and
  started anew. A folder to hide that did not exist when the sandbox was made (the verdict
  cache, reports/ after round 1's first write) would otherwise stay visible to later checks.
- What the watching process itself loaded is checked the same way (`identity`): errorkb's own
  code (`cache.verifier_fingerprint`), the project's pyproject.toml (the profile, the settings),
  the runtime's and the library's installed releases. When one changes, the process starts
  itself again (`os.execv`), so nothing of the old code or settings judges a check.

Watching is a poll of file metadata (size, mtime, inode) of the entries, the snippets, the
pyproject, the bundled package and errorkb's own sources: it decides *when* to look, never what
to run; the digests above and the cache key decide that.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from errorkb.core.project import Project
from errorkb.plugs import runtime_for
from errorkb.verify.cache import fingerprint_afresh, verdict_sources
from errorkb.verify.sources import keyed_files
from errorkb.verify.targets import fingerprint, installed_version

if TYPE_CHECKING:
    from errorkb.verify.engine import Verifier
    from errorkb.verify.pool import WorkerPool
    from errorkb.verify.sandbox import Sandbox

POLL_S = 0.2  # how often the watched files' metadata is read
SETTLE_S = 0.05  # a change is acted on once the files stayed as they are this long


class Kept:
    """The sandbox and pool one round chose, kept for the next while they are what it would choose."""

    def __init__(self) -> None:
        self.chosen: tuple[Sandbox | None, WorkerPool | None] | None = None
        self.made_for: tuple[object, ...] | None = None  # (the zygotes' sandbox, the targets' fingerprints)
        self.restarts = 0  # pools ended because what they were made for changed

    def take(self, verifier: Verifier) -> tuple[Sandbox | None, WorkerPool | None] | None:
        """The kept pair when a cold run would start the same zygotes in the same sandbox now; else
        None, and the kept pool is ended."""
        if self.chosen is None:
            return None
        if self._made_for(verifier, self.chosen[0] is not None) == self.made_for:
            return self.chosen
        self.restarts += 1
        self.close()
        return None

    def hold(self, chosen: tuple[Sandbox | None, WorkerPool | None], verifier: Verifier) -> None:
        """Keep what `verifier` chose: the sandbox its zygotes live in, and the targets they imported."""
        self.chosen, self.made_for = chosen, (chosen[0], self._made_for(verifier, False)[1])

    @staticmethod
    def _made_for(verifier: Verifier, sandboxed: bool) -> tuple[object, ...]:
        """(the sandbox a run would make now, without its probe: the paths it would show and hide;
        the fingerprint of each target)."""
        from errorkb.verify.sandbox import candidate

        args, kwargs = verifier._sandbox_args
        fresh = candidate(*args, **kwargs) if sandboxed else None
        targets = tuple(sorted((target, fingerprint(target, verifier.library, verifier.keyed))
                               for target in verifier.unavailable))
        return fresh, targets

    def close(self) -> None:
        if self.chosen is not None and self.chosen[1] is not None:
            self.chosen[1].close()
        self.chosen = self.made_for = None


def identity(project: Project) -> tuple[str, ...]:
    """What the watching process itself loaded and judges with: when this changes, it starts again."""
    library = project.library
    pyproject = project.root / "pyproject.toml"
    settings = hashlib.sha256(pyproject.read_bytes()).hexdigest() if pyproject.is_file() else "none"
    return (
        fingerprint_afresh(),  # errorkb's code on disk now (this process's key holds its one read)
        settings,
        runtime_for(library.runtime).version(),
        installed_version(library) or "absent",
        sys.version,
    )


def watched(project: Project) -> Iterator[Path]:
    """The folders and files whose change may change a verdict (the trigger; digests decide)."""
    yield project.root / "pyproject.toml"
    yield project.entries
    yield project.snippets
    keyed = keyed_files(project.library.bundled) if project.library.bundled else None
    if keyed:  # the bundled package's top folder: its parent's __init__.py is in its target's key too
        yield Path(keyed[0])
    yield from verdict_sources()


def signature(paths: list[Path]) -> frozenset[tuple[str, int, int, int]]:
    """(path, size, mtime, inode) of every file under `paths`; a path that is not there counts as absent."""
    found: set[tuple[str, int, int, int]] = set()
    for path in paths:
        stack = [str(path)]
        while stack:
            here = stack.pop()
            try:
                status = os.stat(here)
            except OSError:
                continue
            found.add((here, status.st_size, status.st_mtime_ns, status.st_ino))
            if os.path.isdir(here):
                try:
                    stack.extend(entry.path for entry in os.scandir(here) if entry.name != "__pycache__")
                except OSError:
                    continue
    return frozenset(found)


def watch(
    project: Project,
    one_round: Callable[[Kept], int],
    say: Callable[[str], None],
    *,
    rounds: int | None = None,
    poll: float = POLL_S,
) -> int:
    """Run `one_round` now and after every change, with one `Kept` across rounds, until Ctrl-C (or
    `rounds` rounds); the exit status of the last round."""
    kept = Kept()
    started_as = identity(project)
    paths = list(watched(project))
    seen: frozenset[tuple[str, int, int, int]] | None = None
    done, code = 0, 0
    try:
        while rounds is None or done < rounds:
            now = signature(paths)
            if now == seen:
                time.sleep(poll)
                continue
            time.sleep(SETTLE_S)
            if signature(paths) != now:  # still being written (a save of many files, a checkout): look again
                continue
            seen = now
            if identity(project) != started_as:
                say("errorkb verify --watch: errorkb, pyproject.toml or an installed release changed: starting again")
                kept.close()
                sys.stdout.flush()
                os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
            began, restarts = time.perf_counter(), kept.restarts
            code = one_round(kept)
            done += 1
            fresh = (
                " (zygotes started anew: what they imported, or the sandbox, changed)"
                if kept.restarts != restarts
                else ""
            )
            say(
                f"errorkb verify --watch: round {done} took {time.perf_counter() - began:.2f} s, exit {code}{fresh}; "
                f"watching {project.rel(project.entries)} and {project.rel(project.snippets)} (Ctrl-C ends)"
            )
    except KeyboardInterrupt:
        say("errorkb verify --watch: stopped")
    finally:
        kept.close()
    return code

"""A problem found in an author's file, reported as `path:line:col: message`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


class ProblemsFound(Exception):
    """Raised by code paths that cannot go on; carries every problem, already sorted."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(map(str, self.problems)))


def display_path(path: Path, root: Path) -> str:
    """Paths relative to the project root when inside it, so messages are short and clickable. A
    path that cannot be resolved (a symlink loop) is named as written: a problem about such a
    file must still be reported, never become a traceback."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
    except (OSError, RuntimeError):  # RuntimeError: Python < 3.13's resolve() on a loop
        try:
            return path.absolute().relative_to(root.absolute()).as_posix()
        except ValueError:
            return str(path)

"""Where a knowledge base lives on disk, read from `[tool.errorkb]` in pyproject.toml."""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from errorkb.problems import Problem, ProblemsFound, display_path


@dataclass(frozen=True)
class Project:
    root: Path
    entries: Path  # docs/errors/<library>/<id>.yml
    snippets: Path  # snippets/<id>/*.py
    reports: Path  # verification reports the site reads
    timeout: float = 60.0  # seconds per check
    targets: tuple[str, ...] = ("bundled",)

    def entry_path(self, folder: str, entry_id: str) -> Path:
        return self.entries / folder / f"{entry_id}.yml"

    def snippet_path(self, entry_id: str, file: str) -> Path:
        return self.snippets / entry_id / file

    def rel(self, path: Path) -> str:
        return display_path(path, self.root)


_DEFAULTS = {"entries": "docs/errors", "snippets": "snippets", "reports": "reports"}
_KEYS = [f.name for f in fields(Project) if f.name != "root"]


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above `start` with a pyproject.toml or mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        if (folder / "pyproject.toml").is_file() or (folder / "mkdocs.yml").is_file():
            return folder
    return here


def load_project(root: Path | None = None) -> Project:
    """Read the project settings; unknown or ill-typed settings are problems, not defaults."""
    root = find_root(root)
    pyproject = root / "pyproject.toml"
    settings: dict = {}
    problems: list[Problem] = []
    if pyproject.is_file():
        try:
            settings = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("errorkb", {})
        except tomllib.TOMLDecodeError as error:
            problems.append(Problem(display_path(pyproject, root), getattr(error, "lineno", 1) or 1,
                                    getattr(error, "colno", 1) or 1, f"invalid TOML: {error}"))
    for key in settings:
        if key not in _KEYS:
            hint = difflib.get_close_matches(key, _KEYS, n=1)
            problems.append(Problem(display_path(pyproject, root), 1, 1,
                                    f"[tool.errorkb]: unknown setting '{key}'"
                                    + (f" (did you mean '{hint[0]}'?)" if hint else f"; known: {', '.join(_KEYS)}")))
    if problems:
        raise ProblemsFound(problems)

    def folder(key: str) -> Path:
        return root / str(settings.get(key, _DEFAULTS[key]))

    return Project(
        root=root,
        entries=folder("entries"),
        snippets=folder("snippets"),
        reports=folder("reports"),
        timeout=float(settings.get("timeout", 60.0)),
        targets=tuple(settings.get("targets", ("bundled",))),
    )

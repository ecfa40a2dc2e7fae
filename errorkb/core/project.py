"""Where a knowledge base lives and how it is checked, from `[tool.errorkb]` in pyproject.toml.

The settings are a pydantic model like the entries, so a misspelt or ill-typed setting is a
located problem, never a silently used default.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from errorkb.core.problems import Problem, ProblemsFound, display_path


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Exemption(_Strict):
    line: int = Field(gt=0, description="Line of the raise statement in the pinned module.")
    reason: str = Field(min_length=1)


class CoverageSettings(_Strict):
    package: str = "transformers"
    path: str = "src/transformers/cache_utils.py"
    release: str = "5.15.1"
    exempt: list[Exemption] = Field(default_factory=list)


class MatrixSettings(_Strict):
    package: str = "transformers"
    releases: list[str] | None = Field(
        default=None, description="Releases to run; default: every release from `since` on that PyPI serves.")
    since: str = "5.0.0"


class Settings(_Strict):
    entries: str = "docs/errors"
    snippets: str = "snippets"
    reports: str = "reports"
    timeout: float = Field(default=60.0, gt=0)
    targets: list[str] = Field(default_factory=lambda: ["bundled"])
    coverage: CoverageSettings = Field(default_factory=CoverageSettings)
    matrix: MatrixSettings = Field(default_factory=MatrixSettings)


@dataclass(frozen=True)
class Project:
    root: Path
    entries: Path  # docs/errors/<library>/<id>.yml
    snippets: Path  # snippets/<id>/*.py
    reports: Path  # verification reports the site reads
    timeout: float = 60.0  # seconds per check
    targets: tuple[str, ...] = ("bundled",)
    coverage: CoverageSettings = CoverageSettings()
    matrix: MatrixSettings = MatrixSettings()

    def snippet_path(self, entry_id: str, file: str) -> Path:
        return self.snippets / entry_id / file

    def rel(self, path: Path) -> str:
        return display_path(path, self.root)


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above `start` with a pyproject.toml or mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        if (folder / "pyproject.toml").is_file() or (folder / "mkdocs.yml").is_file():
            return folder
    return here


def load_project(root: Path | None = None) -> Project:
    root = find_root(root)
    pyproject = root / "pyproject.toml"
    where = display_path(pyproject, root)
    raw: dict = {}
    if pyproject.is_file():
        text = pyproject.read_text(encoding="utf-8")
        try:
            raw = tomllib.loads(text).get("tool", {}).get("errorkb", {})
        except tomllib.TOMLDecodeError as error:
            raise ProblemsFound([Problem(where, getattr(error, "lineno", 1) or 1, getattr(error, "colno", 1) or 1,
                                         f"invalid TOML: {error}")]) from None
    else:
        text = ""
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as error:
        raise ProblemsFound([_problem(item, where, text) for item in error.errors()]) from None
    return Project(root=root, entries=root / settings.entries, snippets=root / settings.snippets,
                   reports=root / settings.reports, timeout=settings.timeout, targets=tuple(settings.targets),
                   coverage=settings.coverage, matrix=settings.matrix)


def _problem(error: dict, where: str, text: str) -> Problem:
    loc = [str(part) for part in error["loc"]]
    name = ".".join(loc)
    line = _line_of(text, loc[-1] if loc else "errorkb")
    if error["type"] == "extra_forbidden":
        known = _known_keys(loc[:-1])
        close = difflib.get_close_matches(loc[-1], known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f"; known: {', '.join(known)}"
        return Problem(where, line, 1, f"[tool.errorkb]: unknown setting '{name}'{hint}")
    return Problem(where, line, 1, f"[tool.errorkb] {name}: {error['msg']}")


def _known_keys(loc: list[str]) -> list[str]:
    model: type[BaseModel] = Settings
    for part in loc:
        field = model.model_fields.get(part)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(key):
            return number
    return 1

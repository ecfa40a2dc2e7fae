"""Where a knowledge base lives, which library it documents and how it is checked, from
`[tool.errorkb]` in pyproject.toml.

The settings are a pydantic model like the entries, so a misspelt or ill-typed setting is a
located problem, never a silently used default. Everything specific to the documented library
lives in one section, `[tool.errorkb.library]` (the *profile*): the generic tool reads names,
folders and modules from it and names no library of its own.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from errorkb.core.entry import MAX_LINE, SourceLinks
from errorkb.core.filebytes import SETTINGS_BYTES, read_bounded, said
from errorkb.core.nesting import depth_of, line_past
from errorkb.core.problems import Problem, ProblemsFound, display_path
from errorkb.core.prose import unprintable
from errorkb.core.releases import ReleaseRange, contains, final_release
from errorkb.core.tags import check_format

# What a check runs against: the profile's own implementation of the API, or the real library.
# One definition: reports carry these names (errorkb.results.records re-exports them), and the
# sandbox's stdlib-only copy (errorkb.verify.inside.library) is held to them by a test.
Target = Literal["bundled", "upstream"]
BUNDLED: Literal["bundled"] = "bundled"
UPSTREAM: Literal["upstream"] = "upstream"
TARGETS: tuple[Target, ...] = (BUNDLED, UPSTREAM)

# What an address the tool prints and publishes may hold: printable ASCII but for blanks, quotes and angle brackets
# (a host in punycode, the rest percent-encoded), at most 2,000 characters. A control character (an escape sequence
# rewrote the terminal the CLI and the hook print the address to), a quote or a bracket (the attribute it is written
# into ends there) is never part of one. The one rule of `site_url` (both places it is set) and `source_url`.
URL_TEXT = r"[!#-&(-;=?-~]{1,2000}"
ImportName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
Release = Annotated[str, StringConstraints(pattern=r"^\d+(\.\d+)*([a-z]+\d*)?$")]
# A distribution's name as PEP 508 has it: what a package index and pip accept, and all a page, a README or a
# TOML string written from it can hold (`errorkb init` reads it from the installed metadata, a stranger's text).
_DISTRIBUTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def _distribution_name(value: str) -> str:
    if not _DISTRIBUTION.fullmatch(value):
        raise ValueError(f"{value!r} is no distribution name (PEP 508: letters and digits, with '.', '_' or '-' "
                         "between them); write the name it has on the package index")
    return value


DistributionName = Annotated[str, AfterValidator(_distribution_name)]
RepoPath = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*\.py$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _words(name: str) -> list[str]:
    """A distribution's name as words, lower case: pip reads '-', '_' and '.' alike (PEP 503)."""
    return re.split(r"[-_.]+", name.strip().lower())


class LibraryProfile(_Strict):
    """The documented library, as the tool needs to know it; nothing else in errorkb names it."""

    name: ImportName = Field(description="Import name of the library, e.g. 'numpy'.")
    distribution: DistributionName | None = Field(default=None, description="Its distribution on the package index "
                                                               "(default: the import name).")
    repository: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")] = Field(
        description="owner/name of its source repository; entries' `library` field names it.")
    source_root: str = Field(default="", description="Folder of the repository that holds the import package, "
                                                     "e.g. 'src' when the package is `src/<name>/`.")
    bundled: ImportName | None = Field(default=None, description="Import name of the knowledge base's own "
                                       "implementation of the library (in its own package), the `bundled` target.")
    backends: list[ImportName] = Field(default_factory=list, description="Optional backends imported before the "
                                       "bundled alias is installed, with the library hidden (they would import the "
                                       "real library's other parts).")
    imports: list[ImportName] = Field(default_factory=list, description="Other top-level modules snippets may "
                                      "import as a user would, besides the library and its runtime: the library it "
                                      "extends, e.g. 'markdown' for a Markdown extension (any other import is "
                                      "flagged).")
    follow: list[RepoPath] = Field(default_factory=list, description="Repository files whose raise sites coverage "
                                   "reports and whose raise lines the version matrix records.")
    release: Release = Field(description="The release the knowledge base is pinned to (the bundled target "
                                         "reproduces it; upstream CI installs it).")
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None = Field(
        default=None, description="A commit of the repository whose followed files equal the release's.")
    tag: Annotated[str, AfterValidator(check_format)] = Field(
        default="v{release}", description="The repository's tag of a release, `{release}` standing for it: "
        "'v{release}' (tags named v1.2.0), '{release}' (tags named 1.2.0); or formed from its numbers, "
        "`{major}`, `{minor}` and `{micro}` (protobuf's Python 7.36.2 is tagged v36.2: 'v{minor}.{micro}'). "
        "Source links without a pinned commit point at it.")
    source_url: Annotated[str, StringConstraints(pattern=rf"^https://{URL_TEXT}$")] = Field(
        default="https://github.com/{repository}/blob/{revision}/{path}#L{line}",
        description="A link to a line of a file of the repository at a revision (a commit or a tag), from "
        "`{repository}`, `{revision}`, `{path}` and `{line}`; GitLab: "
        "'https://gitlab.com/{repository}/-/blob/{revision}/{path}#L{line}'.")
    runtime: ImportName = Field(default="python", description="The runtime plug snippets run on: 'python' "
                                "(plain CPython), or a plug errorkb or another package registers under the "
                                "`errorkb.plugs` entry point group.")
    env_prefixes: list[str] = Field(default_factory=list, description="Environment variables the library reads "
                                    "(by prefix), passed into the sandbox; nothing else of the harness's is.")
    other_distributions: list[str] = Field(
        default_factory=list, description="Other distributions whose names end in the library's after words of "
        "their own ('acme-tools' for the library 'tools'): the library's name after those words, joined by blanks "
        "or any separator ('acme tools 5.1.0'), states no release of the library.")

    @field_validator("other_distributions")
    @classmethod
    def _others_end_in_the_name(cls, values: list[str], info: ValidationInfo) -> list[str]:
        name = _words(str(info.data.get("name", "")))
        for value in values:
            words = _words(value)
            if len(words) <= len(name) or words[-len(name):] != name or not all(words):
                raise ValueError(f"other_distributions: {value!r} does not end in the library's name after words "
                                 f"of its own ('sentence-{'-'.join(name)}'); a name that goes on after the "
                                 "library's never reads as a statement of its release: leave it out")
        return values

    @property
    def other_prefixes(self) -> list[list[str]]:
        """The words before the library's name in each of `other_distributions` (['acme'] for 'acme-tools'
        of the library 'tools'), lower case, as the lookup compares them (the index's `library.others`)."""
        return [_words(value)[:-len(_words(self.name))] for value in self.other_distributions]

    @model_validator(mode="after")
    def _source_url_names_known_fields(self) -> LibraryProfile:
        fields = set(re.findall(r"\{([^{}]*)\}", self.source_url))
        unknown = sorted(fields - {"repository", "revision", "path", "line"})
        if unknown or not {"revision", "path"} <= fields:
            raise ValueError(f"source_url {self.source_url!r} must use {{revision}} and {{path}} (and may use "
                             "{repository} and {line}), nothing else")
        return self

    @property
    def dist(self) -> str:
        return self.distribution or self.name

    @property
    def available_targets(self) -> tuple[Target, ...]:
        """Every target this library can be verified on: `bundled` only where the profile names a
        bundled implementation. Pages and badges show these, nothing else; `Project.targets` (what
        `verify` runs by default) is chosen among them."""
        return (BUNDLED, UPSTREAM) if self.bundled else (UPSTREAM,)

    @property
    def links(self) -> SourceLinks:
        return SourceLinks(url=self.source_url, tag=self.tag)

    def module_of(self, path: str) -> str | None:
        """`src/<name>/cache_utils.py` → `<name>.cache_utils`; None outside the package."""
        inside = PurePosixPath(path)
        if self.source_root:
            root = PurePosixPath(self.source_root)
            if not inside.is_relative_to(root):
                return None
            inside = inside.relative_to(root)
        top = self.name.split(".")[0]
        if inside.parts == (f"{top}.py",):  # a library that is one module (`six.py`), not a package folder
            return top
        if not inside.parts or inside.parts[0] != top or inside.suffix != ".py":
            return None
        return dotted(inside)

    def package_path(self, path: str) -> str | None:
        """The part of a repository path inside the import package: `cache_utils.py`; of a library that is
        one module, the module's file (`six.py`), which lies in the folder that holds it."""
        module = self.module_of(path)
        if module is None:
            return None
        inside = PurePosixPath(path)
        if self.source_root:
            inside = inside.relative_to(PurePosixPath(self.source_root))
        if len(inside.parts) == 1:
            return inside.name
        return PurePosixPath(*inside.parts[1:]).as_posix()


class Exemption(_Strict):
    path: RepoPath | None = Field(default=None, description="Followed file of the raise (default: the first).")
    line: int = Field(gt=0, le=MAX_LINE, description="Line of the raise statement in that file at the pinned release.")
    reason: str = Field(min_length=1, max_length=2_000,
                        description="Why the raise site needs no entry (shown on the coverage page).")

    @field_validator("reason")
    @classmethod
    def _printable(cls, value: str) -> str:
        """The coverage page shows it as an entry's text is shown: a control or direction character is refused as
        an entry's is (`prose.unprintable`, the one rule)."""
        wrong = unprintable(value, one_line=True)
        if wrong:
            raise ValueError(wrong)
        return value


class CoverageSettings(_Strict):
    exempt: list[Exemption] = Field(default_factory=list, description="Raise sites of the followed files that need "
                                    "no entry, each with its reason (`[[tool.errorkb.coverage.exempt]]`).")


class Era(_Strict):
    """What a range of older releases needs installed beside them in their matrix environment."""

    releases: ReleaseRange = Field(description="The releases, e.g. '<4.40'.")
    requires: list[str] = Field(description="Requirement strings installed with those releases (their era's "
                                            "pins of dependencies whose newest versions they cannot import).")


FinalRelease = Annotated[str, AfterValidator(final_release)]


class MatrixSettings(_Strict):
    releases: list[FinalRelease] | None = Field(
        default=None, description="Releases to run; default: every release from `since` on that PyPI serves.")
    since: FinalRelease = Field(default="5.0.0", description="Without `releases`: the oldest release the matrix "
                                "would run; it says which releases that is and asks for a bound before running them.")
    eras: list[Era] = Field(default_factory=list, description="First matching era wins.")
    shared: dict[ImportName, ImportName] = Field(
        default_factory=dict, description="Modules a release loads with the library, each mapped to the library "
        "module that loads it (an optional backend's module that the library imports when it is installed): "
        "imported once for many releases by a shared stem, for each release only where its own interpreter was "
        "measured to load it.")

    def requirements_for(self, release: str) -> list[str]:
        return next((list(era.requires) for era in self.eras if contains(era.releases, release)), [])


class Settings(_Strict):
    site_url: Annotated[str, StringConstraints(pattern=rf"^https?://{URL_TEXT}$")] | None = Field(
        default=None, description="Where the site is published (default: mkdocs.yml's `site_url`); the CLI and the "
                                  "hook print entry addresses under it.")
    entries: str = Field(default="docs/errors", description="Folder of the entries: `<entries>/<library>/<id>.yml`.")
    snippets: str = Field(default="snippets", description="Folder of the snippets: `<snippets>/<id>/*.py`.")
    reports: str = Field(default="reports", description="Folder of the verification reports the site reads.")
    index: str | None = Field(
        default=None, description="The file `errorkb hook index` writes: the index the hook, `errorkb lookup` and "
        "`errorkb show` read once the knowledge base is installed. It lies inside a package of the knowledge base "
        "that its pyproject.toml registers under the `errorkb.indexes` entry point (errorkb init sets both up).")
    timeout: float = Field(default=60.0, gt=0, allow_inf_nan=False,  # `inf` made a looping snippet hang verify
                           description="Seconds (of CPU time) one check may take.")
    targets: list[Target] | None = Field(
        default=None, description="What `errorkb verify` runs against by default: 'bundled' (the profile's own "
        "implementation) and/or 'upstream' (the real library). Default: bundled when the profile names a bundled "
        "implementation, else upstream.")
    library: LibraryProfile
    coverage: CoverageSettings = Field(default_factory=CoverageSettings)
    matrix: MatrixSettings = Field(default_factory=MatrixSettings)

    @field_validator("entries", "snippets", "reports", "index")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        """What the site publishes is read from these folders: one leading out of the repository
        (absolute, or up through `..`) would put files from elsewhere on its pages; and `errorkb hook
        index` writes the index file, which outside it would replace some other file."""
        if value is not None and leads_out(value):
            raise ValueError(f"'{value}' leads out of the repository; name a path inside the repository, "
                             "relative to pyproject.toml")
        return value

    @model_validator(mode="after")
    def _exemptions_name_followed_files(self) -> Settings:
        for exemption in self.coverage.exempt:
            if exemption.path is not None and exemption.path not in self.library.follow:
                raise ValueError(f"coverage exemption for {exemption.path}: not a followed file "
                                 f"(library.follow: {', '.join(self.library.follow) or 'none'})")
        return self


@dataclass(frozen=True)
class Project:
    root: Path
    library: LibraryProfile
    entries: Path  # docs/errors/<library folder>/<id>.yml
    snippets: Path  # snippets/<id>/*.py
    reports: Path  # verification reports the site reads
    timeout: float = 60.0  # seconds per check
    targets: tuple[Target, ...] = (BUNDLED,)  # what `verify` runs by default: among library.available_targets
    coverage: CoverageSettings = field(default_factory=CoverageSettings)
    matrix: MatrixSettings = field(default_factory=MatrixSettings)
    configured_site_url: str | None = None  # [tool.errorkb] site_url
    index: Path | None = None  # [tool.errorkb] index: the file `errorkb hook index` writes

    @property
    def site_url(self) -> str | None:
        """The published site's address, ending in '/': `[tool.errorkb] site_url`, else mkdocs.yml's
        `site_url` (read as one line, not as YAML: mkdocs.yml may hold tags only MkDocs knows)."""
        url = self.configured_site_url or mkdocs_site_url(self.root / "mkdocs.yml")
        return None if url is None else url.rstrip("/") + "/"

    def snippet_path(self, entry_id: str, file: str) -> Path:
        return self.snippets / entry_id / file

    def rel(self, path: Path) -> str:
        return display_path(path, self.root)

    @property
    def cache_dir(self) -> Path:
        """Machine-local state: verdict cache, version-matrix environments (gitignored)."""
        return self.root / ".errorkb-cache"


def reference_markdown() -> str:
    """Every key of `[tool.errorkb]`, with its type, default and description, as Markdown tables (one
    per section): docs/profile.md holds this text, and a test holds it to the model."""
    sections: list[tuple[str, type[BaseModel]]] = [("tool.errorkb", Settings), ("tool.errorkb.library", LibraryProfile),
                                                   ("tool.errorkb.coverage", CoverageSettings),
                                                   ("[[tool.errorkb.coverage.exempt]]", Exemption),
                                                   ("tool.errorkb.matrix", MatrixSettings),
                                                   ("[[tool.errorkb.matrix.eras]]", Era)]
    parts = []
    for title, model in sections:
        heading = title if title.startswith("[") else f"[{title}]"
        parts += [f"### `{heading}`", "", "| key | type | default | what it is |", "|---|---|---|---|"]
        for name, info in model.model_fields.items():
            annotation = info.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                continue  # a section of its own
            kind = _type_name(annotation)
            if info.is_required():
                default = "required"
            elif info.default_factory is not None:
                default = f"`{_toml_value(info.default_factory())}`"  # type: ignore[call-arg]
            else:
                default = f"`{_toml_value(info.default)}`"
            text = (info.description or "").replace("|", "\\|")
            parts.append(f"| `{name}` | {kind} | {default} | {text} |")
        parts.append("")
    return "\n".join(parts)


def _type_name(annotation: Any) -> str:
    """A field's type in the words of a TOML file."""
    import types
    import typing

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(one) for one in args)
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"table of {_type_name(args[0])} → {_type_name(args[1])}"
    if origin is typing.Literal:
        return " or ".join(f"'{one}'" for one in args)
    if annotation is type(None):
        return "none"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    names = {"str": "string", "float": "number", "int": "integer", "bool": "boolean"}
    return names.get(getattr(annotation, "__name__", ""), getattr(annotation, "__name__", str(annotation)))


def _toml_value(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, BaseModel):
        return "{}"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(one) for one in value) + "]"
    if isinstance(value, dict):
        return "{}" if not value else str(value)
    return str(value)


def dotted(path: PurePosixPath) -> str:
    """A package file's import path: `pkg/sub/utils.py` is `pkg.sub.utils`, `pkg/sub/__init__.py` `pkg.sub`."""
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


_SITE_URL_KEY = re.compile(r"^site_url:(.*)$", re.MULTILINE)
_SITE_URL_VALUE = re.compile(rf"[ \t]*['\"]?(https?://{URL_TEXT})['\"]?[ \t]*(?:#.*)?")


def mkdocs_site_url(path: Path) -> str | None:
    """`site_url` of an mkdocs.yml, or None (no file, no such line, or not an http(s) address). The key's last
    line at the top level, as YAML (MkDocs) reads a key given twice: the first one linked every address errorkb
    printed to a site MkDocs no longer publishes."""
    try:  # never blocks on a FIFO, never reads a file outside the repository nor a huge one whole (`filebytes`)
        text = read_bounded(path, SETTINGS_BYTES, inside=path.parent).decode("utf-8-sig", errors="replace")
    except OSError:  # (`errorkb check` says what it is: `errorkb.site.settings`)
        return None
    lines = _SITE_URL_KEY.findall(text)
    found = _SITE_URL_VALUE.fullmatch(lines[-1]) if lines else None
    return found.group(1) if found else None


def leads_out(relative: str) -> bool:
    """Whether the path `relative`, written in a setting, names something outside the folder it is
    relative to: absolute, or climbing above it through `..` (read as written, before any link)."""
    path = PurePosixPath(relative)
    if path.is_absolute():
        return True
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def _read_settings_text(pyproject: Path, where: str) -> str:
    """pyproject.toml's text (`filebytes.read_bounded`: a FIFO never blocks, a link out of the repository is never
    read: a TOML error quoted its text); a located problem when it cannot be read, or is not UTF-8."""
    try:
        data = read_bounded(pyproject, SETTINGS_BYTES, inside=pyproject.parent)
    except OSError as error:
        raise ProblemsFound([Problem(where, 1, 1, said(error))]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[:error.start].decode("utf-8", errors="replace")
        line, col = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        raise ProblemsFound([Problem(where, line, col, f"byte 0x{data[error.start]:02x} is not UTF-8; save the file "
                                                        "as UTF-8")]) from None


def _folders_leading_out(settings: Settings, root: Path, where: str, text: str) -> list[Problem]:
    """The path settings that lead out of the repository through a symbolic link (the model
    refused those that do as written); the index file need not exist yet."""
    inside = root.resolve()
    problems = []
    for name in ("entries", "snippets", "reports", "index"):
        value = getattr(settings, name)
        if value is None:
            continue
        try:
            resolved = (root / value).resolve()
        except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
            resolved = None
        if resolved is None or not resolved.is_relative_to(inside):
            line = _line_of(text, name) if re.search(rf"^\s*{name}\s*=", text, re.M) else 1
            problems.append(Problem(where, line, 1, f"[tool.errorkb] {name}: '{value}' leads out of the repository "
                                                    "through a symbolic link (or loops); name a folder inside it"))
    return problems


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above `start` with a pyproject.toml or mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:  # a FIFO or a folder of that name is there too: what it is is said later
        if os.path.lexists(folder / "pyproject.toml") or os.path.lexists(folder / "mkdocs.yml"):
            return folder
    return here


MAX_SETTINGS_DEPTH = 16  # [tool.errorkb]'s arrays and tables inside each other (its settings nest 4)


def load_project(root: Path | None = None) -> Project:
    root = find_root(root)
    pyproject = root / "pyproject.toml"
    where = display_path(pyproject, root)
    raw: dict[str, Any] = {}
    if os.path.lexists(pyproject):  # a FIFO, a folder or a dangling link is no absent file: reading it says what it is
        text = _read_settings_text(pyproject, where)
        try:
            raw = tomllib.loads(text).get("tool", {}).get("errorkb", {})
        except tomllib.TOMLDecodeError as error:
            raise ProblemsFound([Problem(where, getattr(error, "lineno", 1) or 1, getattr(error, "colno", 1) or 1,
                                         f"invalid TOML: {error}")]) from None
        except RecursionError:  # tomllib recurses once per level: 100,000 `[` stopped every command with a traceback
            raise ProblemsFound([Problem(where, line_past(text, MAX_SETTINGS_DEPTH) or 1, 1,
                                         f"arrays or tables nested more than {MAX_SETTINGS_DEPTH} deep; no setting "
                                         "nests so deep")]) from None
        if depth_of(raw) > MAX_SETTINGS_DEPTH:  # parsed, but pydantic's walk of it recurses as deep
            raise ProblemsFound([Problem(where, line_past(text, MAX_SETTINGS_DEPTH) or 1, 1,
                                         f"arrays or tables nested more than {MAX_SETTINGS_DEPTH} deep; no setting "
                                         "nests so deep")])
    else:
        text = ""
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as error:
        raise ProblemsFound([_problem(item, where, text) for item in error.errors()]) from None
    problems = _profile_problems(settings, where, text) + _folders_leading_out(settings, root, where, text)
    if problems:
        raise ProblemsFound(problems)
    return Project(root=root, library=settings.library, entries=root / settings.entries,
                   snippets=root / settings.snippets, reports=root / settings.reports, timeout=settings.timeout,
                   targets=tuple(settings.targets or settings.library.available_targets[:1]),
                   coverage=settings.coverage, matrix=settings.matrix,
                   configured_site_url=settings.site_url,
                   index=None if settings.index is None else root / settings.index)


def _profile_problems(settings: Settings, where: str, text: str) -> list[Problem]:
    """What the model alone cannot see: a runtime no plug is registered for, a bundled target
    without a bundled implementation (found here rather than when a command needs them)."""
    from errorkb.plugs import runtime_for

    problems = []
    try:
        runtime_for(settings.library.runtime)
    except ValueError as error:
        problems.append(Problem(where, _line_of(text, "runtime"), 1, f"[tool.errorkb] library.runtime: {error}"))
    if BUNDLED in (settings.targets or []) and BUNDLED not in settings.library.available_targets:
        problems.append(Problem(where, _line_of(text, "targets"), 1, "[tool.errorkb] targets names 'bundled', but "
                                "[tool.errorkb.library] names no bundled implementation: set targets = "
                                "[\"upstream\"], or name the bundled package"))
    return problems


def _problem(error: Any, where: str, text: str) -> Problem:
    loc = [str(part) for part in error["loc"]]
    name = ".".join(loc)
    line = _line_of(text, next((part for part in reversed(loc) if not part.isdigit()), "errorkb"))  # an item's list
    if error["type"] == "extra_forbidden":
        known = _known_keys(loc[:-1])
        close = difflib.get_close_matches(loc[-1], known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f"; known: {', '.join(known)}"
        return Problem(where, line, 1, f"[tool.errorkb]: unknown setting '{name}'{hint}")
    if error["type"] == "missing" and loc == ["library"]:
        return Problem(where, 1, 1, "[tool.errorkb.library] is missing: name the documented library "
                                    "(name, repository, release; see the README)")
    message = error["msg"].removeprefix("Value error, ")
    return Problem(where, line, 1, f"[tool.errorkb] {name}: {message}")


def _known_keys(loc: list[str]) -> list[str]:
    model: type[BaseModel] = Settings
    for part in loc:
        field_info = model.model_fields.get(part)
        annotation = field_info.annotation if field_info else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(key):
            return number
    return 1

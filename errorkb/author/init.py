"""`errorkb init DIR --library DIST`: a working knowledge base for an installed distribution.

Stages:

1. `describe`: what the distribution's metadata says (release, import package, repository and
   its host), completed by the flags, with every value that was assumed rather than read said
   so (`Library.assumed`);
2. `files`: the knowledge base's files, by path: pyproject.toml (the profile, the package that
   ships the index and its `errorkb.indexes` entry point), mkdocs.yml (Material and the errorkb
   plugin), a home page with the paste box, the entries and snippets folders, a README;
3. `write`: every file, or none (nothing is ever overwritten; a folder with files in it is refused).

`mkdocs build --strict` passes on what it writes, and `errorkb new ID --from-traceback -` works
inside it at once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from errorkb.author import checkout as library_source
from errorkb.core.entry import library_folder
from errorkb.core.logsafe import unshown
from errorkb.core.problems import quoted
from errorkb.core.tags import check_format

# Hosts whose address of a line of a file at a revision is known; another host: --source-url.
HOSTS = {"github.com": "https://github.com/{repository}/blob/{revision}/{path}#L{line}",
         "gitlab.com": "https://gitlab.com/{repository}/-/blob/{revision}/{path}#L{line}",
         "codeberg.org": "https://codeberg.org/{repository}/src/{revision}/{path}#L{line}"}
_REPOSITORY = re.compile(r"^https?://(?:www\.)?(?P<host>[^/\s]+)/(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)"
                         r"(?:\.git)?/?(?:[#?].*)?$")
_URL_LABELS = ("source", "source code", "repository", "code", "github", "gitlab", "homepage", "home")


class InitError(ValueError):
    """Why nothing was written; the message says what to do."""


@dataclass(frozen=True)
class Library:
    """The documented library, as `init` writes it into the profile."""

    name: str  # import name
    distribution: str
    release: str
    repository: str  # owner/name
    source_url: str
    tag: str
    source_root: str
    summary: str = ""
    assumed: list[str] = field(default_factory=list)  # what was not read from the metadata: say so
    read: list[str] = field(default_factory=list)  # what was read from the library's own source (`read_from`)
    read_from: str = ""  # that source: a checkout or an sdist on this machine, printed, never written into a file
    requires: list[tuple[str, str]] = field(default_factory=list)  # (import name, distribution) it requires


def describe(dist: str, *, repository: str | None = None, tag: str | None = None, source_root: str | None = None,
             import_name: str | None = None, source_url: str | None = None, checkout: Path | None = None) -> Library:
    try:
        found = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        raise InitError(f"no distribution '{dist}' is installed here; install it first (pip install {dist}), "
                        "then run errorkb init in the same environment") from None
    meta = found.metadata
    assumed = []
    name = import_name or _import_name(found)
    if name is None:
        installed = _packages(found)
        raise InitError(f"cannot tell {dist}'s import package from its files"
                        + (f" (it installs {', '.join(installed[:6])}{', ...' if len(installed) > 6 else ''})"
                           if installed else "")
                        + "; give --import-name NAME, the one its users import (a package inside a namespace "
                          "package by its dotted name: google.protobuf)")
    single = _single_module(found, name)
    if checkout is not None and not (checkout.is_dir() or checkout.is_file()):
        raise InitError(f"--checkout {quoted(str(checkout))} is no folder or archive here; give a clone of "
                        f"{dist}'s repository (or its sdist), or leave --checkout out")
    where = checkout or library_source.installed_from(found)
    source = library_source.read(where, name, found.version, single=single) if where is not None else None
    read_notes = []
    host, read = _repository(found)
    if repository is None and read is None and source is not None and source.origin is not None:
        host, read = _repository_at(source.origin)
        if read is not None:
            read_notes.append(f"repository = {_toml(read)}: the checkout's origin ({host})")
    if repository is None:
        if read is None:
            raise InitError(f"{dist}'s metadata names no source repository; give --repository OWNER/NAME "
                            "(and --source-url for a host other than GitHub, GitLab or Codeberg)")
        repository = read
    if source_url is None:
        source_url = HOSTS.get(host or "github.com")
        if source_url is None:
            raise InitError(f"{dist}'s repository is on {host}, whose links errorkb does not know; give --source-url "
                            "(e.g. 'https://{host}/{repository}/blob/{revision}/{path}#L{line}')")
    if tag is not None:
        try:
            check_format(tag)  # said in the words of the flag the author gave
        except ValueError as error:
            raise InitError(f"tag: --tag-format{str(error).removeprefix('tag')}") from None
    elif source is not None and source.tag is not None:
        tag = source.tag
        read_notes.append(f"tag = {_toml(tag)}: the tag of a release, from the repository's git tags")
    else:
        tag = "{release}"
        assumed.append(f"tag = \"{{release}}\": a release's tag is named like the release ({found.version}); give "
                       "--tag-format 'v{release}' if the repository's tags carry a prefix, or one from its numbers "
                       "({major}, {minor}, {micro}) if they name another ('v{minor}.{micro}')"
                       + _unread("no one tag format fits its git tags", where, source))
    if source_root is None and source is not None and source.source_root is not None:
        source_root = source.source_root
        place = f"{source_root}/" if source_root else "the top of the repository"
        read_notes.append(f"source_root = {_toml(source_root)}: the package lies at {place}")
    elif source_root is None:
        source_root = "src"
        at = f"the module lies at src/{name}.py" if single else f"the package lies at src/{name.replace('.', '/')}/"
        assumed.append(f"source_root = \"src\": {at} in the repository; give --source-root '' if it lies "
                       "at the top" + _unread("no one folder of it holds the package", where, source))
    requires = _requires(found, name)
    if requires:
        named = ", ".join(f"{module} ({distribution})" for module, distribution in requires)
        assumed.append(f"imports = []: {meta['Name'] or dist} requires {named} (its Requires-Dist); snippets import "
                       "only the library until you uncomment the proposed `imports` in pyproject.toml (keep the "
                       "ones a user imports beside it, e.g. the library it extends)")
    library = Library(name=name, distribution=meta["Name"] or dist, release=found.version, repository=repository,
                      source_url=source_url, tag=tag, source_root=source_root.strip("/"),
                      summary=(meta["Summary"] or "").strip(), assumed=assumed, requires=requires,
                      read=read_notes, read_from=quoted(str(where)) if read_notes else "")
    _check(library)
    return library


def _unread(what: str, where: Path | None, source: library_source.Source | None) -> str:
    """Why a value was assumed: where init looked for it, or how to let it look (a wheel's files never say it)."""
    if source is not None:
        return f" (read nothing from {quoted(str(where))}: {what})"
    return (", or --checkout DIR, a clone of the repository, to read it from there (a wheel's files do not say "
            "it)")


def _check(library: Library) -> None:
    """The profile `init` would write, validated by the model every command reads it with."""
    from pydantic import ValidationError

    from errorkb.core.project import LibraryProfile

    try:
        LibraryProfile(name=library.name, distribution=library.distribution, repository=library.repository,
                       tag=library.tag, source_url=library.source_url, source_root=library.source_root,
                       release=library.release)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the profile"
        hint = _HINTS.get(where, first["msg"].removeprefix("Value error, "))
        raise InitError(f"{where}: {hint} (got {first.get('input')!r})") from None


_HINTS = {"distribution": "the distribution's metadata names it with what no distribution name holds (PEP 508: "
                         "letters, digits, '.', '_', '-'); errorkb init writes that name into pages and files: "
                         "reinstall the library from a source you trust",
          "repository": "--repository is OWNER/NAME, e.g. pypa/packaging",
          "tag": "--tag-format names a tag with {release} in it, e.g. 'v{release}' or '{release}'",
          "source_url": "--source-url is an https:// address with {revision} and {path} in it"}


def _import_name(found: metadata.Distribution) -> str | None:
    """The distribution's import package: top_level.txt, else the one top-level package (or module:
    a library that is one file, `six.py`) of its files (the one named like the distribution when it
    has several)."""
    top = (found.read_text("top_level.txt") or "").split()
    if not top:
        top = sorted({file.parts[0] for file in found.files or []
                      if len(file.parts) > 1 and file.parts[1] == "__init__.py"}
                     | {file.stem for file in found.files or [] if len(file.parts) == 1 and file.suffix == ".py"})
    if not top:  # no package of its own at the top: a namespace package's folders (`google/` of protobuf)
        top = sorted({file.parts[0] for file in found.files or [] if len(file.parts) > 1 and file.suffix == ".py"
                      and not file.parts[0].endswith((".dist-info", ".data")) and file.parts[0] not in ("..", ".")})
    top = [one for one in top if one.isidentifier() and not one.startswith("_")]
    wanted = re.sub(r"[-.]+", "_", found.metadata["Name"] or "").lower()
    name = top[0] if len(top) == 1 else next((one for one in top if one.lower() == wanted), None)
    return _regular_package(found, name) if name is not None else None


def _packages(found: metadata.Distribution) -> list[str]:
    """The outermost importable packages and top-level modules the distribution installs, dotted (`a`, `ns.b`: a
    package inside a namespace), for a message."""
    names = {".".join(file.parts[:-1]) if file.name == "__init__.py" else file.stem for file in found.files or []
             if file.suffix == ".py" and (file.name == "__init__.py" or len(file.parts) == 1)}
    names = {name for name in names if name and all(part.isidentifier() for part in name.split("."))}
    return sorted(name for name in names
                  if not any(name.startswith(f"{other}.") for other in names))  # `beta`, never `beta.sub` too


def _regular_package(found: metadata.Distribution, top: str) -> str | None:
    """`top`, or where `top` is a namespace package (no `__init__.py` of its own: `google`, which protobuf shares
    with other distributions; `optimum`, optimum-quanto's), the package below it that holds every Python file the
    distribution installs there (`google.protobuf`, `optimum.quanto`); None when no one package holds them all."""
    files = {file.parts for file in found.files or [] if file.parts[:1] == (top,) and file.suffix == ".py"}
    if not files or (top, "__init__.py") in files:  # a package of its own, or one module (`six.py`)
        return top
    common = os.path.commonprefix([parts[:-1] for parts in files])  # element-wise: the folders all lie under
    for depth in range(2, len(common) + 1):
        if (*common[:depth], "__init__.py") in files and all(part.isidentifier() for part in common[:depth]):
            return ".".join(common[:depth])
    return None


def _requires(found: metadata.Distribution, name: str) -> list[tuple[str, str]]:
    """(import name, distribution) of each installed distribution this one requires unconditionally (its
    `Requires-Dist` without an extra, whose marker holds here): what a library that extends another imports.
    A requirement not installed, or whose import package cannot be told, is left out."""
    from packaging.markers import UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    found_names: dict[str, str] = {}
    for line in found.requires or []:
        try:
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            required = metadata.distribution(requirement.name)
        except (InvalidRequirement, UndefinedEnvironmentName, metadata.PackageNotFoundError):
            continue
        module = _import_name(required)
        if module is not None and module != name and module.isidentifier():
            found_names.setdefault(module, required.metadata["Name"] or requirement.name)
    return sorted(found_names.items())


def _single_module(found: metadata.Distribution, name: str) -> bool:
    """Whether the distribution installs `name` as one module (`name.py`) and no package folder: its source
    path is `<source_root>/name.py`, the file every command reads as the library."""
    parts = {tuple(file.parts) for file in found.files or []}
    return (f"{name}.py",) in parts and (name, "__init__.py") not in parts


def _repository(found: metadata.Distribution) -> tuple[str | None, str | None]:
    """(host, owner/name) of the source repository the metadata names, else (None, None)."""
    urls = []
    for entry in found.metadata.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        urls.append((label.strip().lower(), url.strip()))
    if found.metadata["Home-page"]:
        urls.append(("home-page", found.metadata["Home-page"].strip()))
    ranked = sorted(urls, key=lambda pair: _URL_LABELS.index(pair[0]) if pair[0] in _URL_LABELS else 99)
    for _, url in ranked:
        host, repository = _repository_at(url)
        if repository is not None:
            return host, repository
    return None, None


def _repository_at(url: str) -> tuple[str | None, str | None]:
    """(host, owner/name) of a repository's address on a known host, else (None, None)."""
    match = _REPOSITORY.match(url)
    if match and match["host"] in HOSTS:
        return match["host"], f"{match['owner']}/{match['name']}"
    return None, None


def package_name(library: Library) -> str:
    """The package that ships the knowledge base's index: `<import name>_errorkb`."""
    return f"{library.name.replace('.', '_')}_errorkb"


def files(library: Library, kb_name: str) -> dict[str, str]:
    """Every file of the knowledge base, by path relative to its folder."""
    package = package_name(library)
    folder = library_folder(library.repository)
    return {
        "pyproject.toml": _pyproject(library, package, kb_name),
        "mkdocs.yml": _mkdocs(library),
        "docs/index.md": _home(library),
        f"docs/errors/{folder}/.gitkeep": "",
        "snippets/.gitkeep": "",
        f"{package}/__init__.py": f'"""The index of the {library.distribution} errors knowledge base '
                                  '(written by `errorkb hook index`)."""\n',
        "README.md": _readme(library, package),
        ".gitignore": ".errorkb-cache/\nsite/\n",
    }


def check_name(folder: Path) -> None:
    """`InitError` when the folder's name (as given) holds a character no terminal shows as itself: an
    escape sequence, a newline or tab, one that shows nothing, a byte that is not UTF-8. Every path
    errorkb prints inside it (problems, `next: cd ...`) would name another folder, on two lines, or
    act on the author's terminal; the message names each such character by its code point."""
    hidden = unshown(str(folder))
    if hidden:
        codes = ", ".join(f"U+{ord(char):04X}" for char in hidden)
        raise InitError(f"the folder name {quoted(str(folder))} holds {codes}, which a terminal does not show as "
                        "written: every path errorkb prints in it would name another folder; choose a name of "
                        "printable characters")


def next_step(folder: Path) -> str:
    """The command that enters `folder`, as a shell reads it: quoted, and never read as an option."""
    import shlex

    name = str(folder)
    return f"cd {shlex.quote(name if not name.startswith('-') else f'./{name}')}"


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _pyproject(library: Library, package: str, kb_name: str) -> str:
    notes = "".join(f"# read from the library's source: {note}\n" for note in library.read)
    notes += "".join(f"# assumed: {note}\n" for note in library.assumed)
    return f"""# The knowledge base of {library.distribution}'s errors, started by `errorkb init`.
# Every key of [tool.errorkb] is described in errorkb's documentation ("The profile, key by key").
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

# Installing this project ships the index the hook, `errorkb lookup` and `errorkb show` read.
[project]
name = {_toml(kb_name)}
version = "0.1.0"
description = {_toml(f"Errors of {library.distribution}, each with a verified fix (errorkb)")}
requires-python = ">=3.11"
dependencies = ["errorkb"]

[project.entry-points."errorkb.indexes"]
{library.name.replace('.', '-')} = {_toml(package)}

[tool.setuptools]
packages = [{_toml(package)}]

[tool.setuptools.package-data]
{package} = ["index.json"]

[tool.errorkb]
index = {_toml(f"{package}/index.json")}
# No bundled implementation: snippets run against the real {library.distribution}.
targets = ["upstream"]

[tool.errorkb.library]
name = {_toml(library.name)}
distribution = {_toml(library.distribution)}
repository = {_toml(library.repository)}
{notes}tag = {_toml(library.tag)}
source_url = {_toml(library.source_url)}
source_root = {_toml(library.source_root)}
release = {_toml(library.release)}
runtime = "python"
{_imports(library)}
# The releases `errorkb matrix` runs each entry against (add the ones your users run).
[tool.errorkb.matrix]
releases = [{_toml(library.release)}]
"""


def _imports(library: Library) -> str:
    """The proposed `imports`: the libraries it requires, commented out (an allowance is the author's to give)."""
    if not library.requires:
        return ""
    names = ", ".join(_toml(module) for module, _ in library.requires)
    return ("# Proposed from its Requires-Dist: modules snippets may import beside the library (uncomment, keep the "
            f"ones a user imports).\n# imports = [{names}]\n")


def _mkdocs(library: Library) -> str:
    return f"""site_name: {_yaml(f"{library.distribution} errors, with verified fixes")}
# Where the site is published: the hook and `errorkb lookup` print entry pages under it (uncomment, set, then
# run `errorkb hook index`); without it they print bare paths (errors/<library>/<id>/).
# site_url: https://example.org/
theme:
  name: material
  font: false
  features:
    - content.tabs.link
    - content.code.copy
plugins:
  - search
  - errorkb
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - toc:
      permalink: true
  - pymdownx.details
  - pymdownx.highlight
  - pymdownx.inlinehilite
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
watch:
  - snippets
"""


def _yaml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The site's paste box (errorkb's lookup.js fills it in; the plugin adds the script to every page).
PASTE_BOX = ('<div class="ekb-lookup" data-index="api/errors/index.json" markdown="0"><p>Paste an error message to '
             'find its entry (this box needs JavaScript; the <a href="errors/">list of all errors</a> does not).</p>'
             '</div>')


def _home(library: Library) -> str:
    return f"""# {library.distribution} errors, with verified fixes

Every error here was reproduced against {library.distribution}, and every fix was run: `errorkb verify`
executes each entry's *before* and *after* and the page says what was verified, on which release.

{PASTE_BOX}

[All errors](errors/index.md)
"""


def _readme(library: Library, package: str) -> str:
    return f"""# {library.distribution} errors, with verified fixes

A knowledge base of {library.distribution}'s errors made with [errorkb](https://pypi.org/project/errorkb/):
each error is an entry (`docs/errors/`) with runnable snippets (`snippets/<id>/`), and `errorkb verify`
runs them against the real {library.distribution}.

```bash
errorkb new ID --from-traceback -   # an entry and its snippet stubs from a pasted traceback
errorkb verify ID                   # run its snippets; lists what the draft still lacks
errorkb check --drift               # every entry, and every source pin against the release's source
mkdocs serve                        # the site, rebuilt on every save
errorkb hook index                  # regenerate {package}/index.json (commit it)
pip install .                       # ship the index: the hook, errorkb lookup and show read it
```

The profile (which library, its repository, tag format and release) is `[tool.errorkb]` in pyproject.toml.
"""


def write(folder: Path, contents: dict[str, str]) -> list[Path]:
    """Every file, or none: a folder that holds files already is refused, and so is one whose name
    a terminal would not show as it is (`check_name`)."""
    check_name(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InitError(f"{folder} exists and is not an empty folder; errorkb init writes into a new or empty one")
    written = []
    for relative, text in contents.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        written.append(path)
    return written

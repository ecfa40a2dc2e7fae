"""mkdocs.yml as errorkb's own commands read it (`errorkb check` rehearses the pages with its Markdown settings,
`errorkb render --out` writes its edit links): MkDocs' settings, with nothing the file names run.

`mkdocs build` runs what mkdocs.yml names: its hooks and plugins, and any Python object a `!!python/` tag builds
(MkDocs reads the file with PyYAML's full loader). That is MkDocs', run by whoever builds the site, and the
reviewer's (docs/threat-model.md). A command of errorkb's is no build, and a reviewer runs `errorkb check` on a
pull request as a lint: MkDocs' `load_config` there ran the pull request's code. So errorkb reads the file itself:

- with a safe loader that knows MkDocs' `!ENV` and `!relative`, and `!!python/name:` of an installed module
  of `markdown`, of a Markdown extension the settings name or of an installed theme (Material's emoji settings
  name its functions so): importing a module runs it, so no other module is imported; any other `!!python/`
  tag is refused at its line;
- without `hooks` and `plugins` (they change a build, not the Markdown settings nor the edit links);
- following `INHERIT` only to a file inside the repository (the folder of mkdocs.yml);
- importing no module of the repository: a Markdown extension or a `!!python/name:` that would be found there
  (the folder a command runs in comes first on a child's import path) is refused at its line.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import os
import re
import site
import sys
import sysconfig
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from errorkb.core.filebytes import SETTINGS_BYTES

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

# What changes a build, never the Markdown settings nor the edit links: left out, never loaded.
NOT_READ = ("hooks", "plugins")
MAX_BYTES = SETTINGS_BYTES  # a site's settings are a few kilobytes: a larger file is no mkdocs.yml
MAX_VALUES = 100_000  # values the settings hold, each alias counted as what it names (`_bounded`)


class SettingsError(ValueError):
    """Why mkdocs.yml is not read, as `FILE:LINE: what; what to do`."""


def read(config_file: Path) -> MkDocsConfig:
    """mkdocs.yml validated as MkDocs validates it, but for `NOT_READ`, with nothing in it run (see above)."""
    from mkdocs.config.defaults import MkDocsConfig

    config = MkDocsConfig(config_file_path=str(config_file))
    data = _load(config_file, Path(os.path.realpath(config_file.parent)), config, [])
    for key in NOT_READ:
        data.pop(key, None)
    modules = _extension_modules(data.get("markdown_extensions"))
    _extensions_outside(config_file, modules)
    data = _named(data, {"markdown", *(module.split(".")[0] for module in modules.values()), *_theme_packages()})
    config.load_dict(data)
    errors, _ = config.validate()
    if errors:
        raise SettingsError("; ".join(f"{config_file.name}:{_line_of(config_file, name)}: {name}: {error}"
                                      for name, error in errors))
    published = refused(config, config_file)
    if published:
        raise SettingsError("; ".join(published))
    return config


# The settings MkDocs and its theme write into every page as they are, unescaped (MkDocs' Jinja does not escape, and
# errorkb's own `overrides/partials/source.html` writes `repo_url` into an attribute): each is plain text or an
# http(s) address, never markup, a script address, a control character or a page's worth of text.
URL_SETTINGS = ("site_url", "repo_url")
TEXT_SETTINGS = ("site_name", "repo_name", "site_description", "site_author")
TREE_SETTINGS = ("nav", "extra", "edit_uri", "edit_uri_template")  # (an edit link is `repo_url` + `edit_uri`)
# Scripts and style sheets every page loads: files of the site only. The site is offline and private (readers'
# browsers talk to nobody but the site): one from elsewhere runs a stranger's code on every page.
ASSET_SETTINGS = ("extra_javascript", "extra_css")
MAX_TEXT = 2_000  # characters of one text setting: a name, a title, a sentence or two
_MARKUP = re.compile(r"[<>\"]")
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.-]*):")


def refused(config: Any, config_file: Path) -> list[str]:
    """What of the settings MkDocs' theme publishes unescaped (`URL_SETTINGS`, `TEXT_SETTINGS`, every title,
    address and text of `TREE_SETTINGS`) could put markup or a script on the pages, and every script or style sheet
    from elsewhere (`ASSET_SETTINGS`): `FILE:LINE: key: what; what to do` for each. `config`: the settings as read
    (a mapping; MkDocs' own config or `read`'s). Read by `read` (`errorkb check`, `errorkb render --out`) and by the
    plugin before a build writes a page."""
    from errorkb.core.project import URL_TEXT

    found: list[str] = []

    def say(key: str, what: str) -> None:
        found.append(f"{config_file.name}:{_line_of(config_file, key)}: {key}: {what}")

    address = re.compile(rf"https?://{URL_TEXT}")
    for key in URL_SETTINGS:
        value = config.get(key)
        if value and not (isinstance(value, str) and address.fullmatch(value)):
            say(key, f"{_shown(value)} is no http(s) address of printable characters (the pages link to it): "
                     "write the address, its host in punycode and the rest percent-encoded")
    for key in TEXT_SETTINGS:
        value = config.get(key)
        if isinstance(value, str):
            wrong = _text_wrong(value)
            if wrong:
                say(key, wrong)
    for key in ASSET_SETTINGS:
        for item in config.get(key) or []:
            value = str(getattr(item, "path", item))  # (MkDocs' value of a script: its path, with attributes)
            if _SCHEME.match(value) or value.lstrip().startswith(("//", "\\")):
                say(key, f"{_shown(value)} is loaded from elsewhere by every page: the site is offline, and loads "
                         "files of its own only; put the file in docs/ and name it by its path there")
                break
    for key in TREE_SETTINGS:
        for value in _strings(config.get(key)):
            wrong = _text_wrong(value) or _link_wrong(value)
            if wrong:
                say(key, f"{_shown(value)}: {wrong}")
                break  # one per setting: the file may hold many
    return found


def _text_wrong(value: str) -> str | None:
    """Why `value` is no plain text a page may show as it is, or None."""
    from errorkb.core.prose import unprintable

    if len(value) > MAX_TEXT:
        return f"{len(value):,} characters; a setting's text holds at most {MAX_TEXT:,}"
    if _MARKUP.search(value):
        return "holds '<', '>' or '\"': the theme writes the settings into pages as they are, markup included; " \
               "write plain text"
    return unprintable(value, one_line=True)


def _link_wrong(value: str) -> str | None:
    """Why `value`, where a page may link to it (a `nav` item, an `extra` link), is a script's address, or None."""
    scheme = _SCHEME.match(value)
    if scheme and scheme.group(1).lower() not in ("http", "https", "mailto"):
        return f"a {scheme.group(1).lower()}: address, which a browser runs or opens as a document; link to an " \
               "http(s) address or a page of the site"
    return None


def _strings(tree: Any) -> list[str]:
    """Every string of a settings tree, keys (a nav title) and values, in the order written (bounded by `read`'s
    count of values)."""
    found: list[str] = []
    stack = [tree]
    while stack:
        one = stack.pop()
        if isinstance(one, str):
            found.append(one)
        elif isinstance(one, Mapping):  # (MkDocs' `extra` is a mapping of its own, no dict)
            stack.extend(reversed([part for pair in one.items() for part in pair]))
        elif isinstance(one, (list, tuple)):
            stack.extend(reversed(one))
    return found


def _shown(value: Any) -> str:
    """A value quoted in a message: its start, escaped (its control characters never reach a terminal)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def markdown_settings(config_file: Path) -> tuple[list[Any], dict[str, Any]]:
    """The Markdown extensions and their settings a build of mkdocs.yml renders pages with (MkDocs' own
    `toc`, `tables` and `fenced_code` included)."""
    config = read(config_file)
    return config.markdown_extensions, config.mdx_configs


def _load(config_file: Path, root: Path, config: MkDocsConfig, seen: list[str]) -> dict[str, Any]:
    """The file's mapping, merged over the file it INHERITs (inside `root` only), as MkDocs merges them."""
    import mergedeep  # type: ignore[import-untyped]
    from mkdocs.utils.yaml import get_yaml_loader

    where = os.path.realpath(config_file)
    if where in seen:
        raise SettingsError(f"{config_file.name}:{_line_of(config_file, 'INHERIT')}: INHERIT leads back to a file "
                            "that inherits this one; name a file that inherits none of them")
    text = _text(config_file, root)
    loader = get_yaml_loader(loader=_safe_loader(config_file, root), config=config)(text)  # MkDocs' !ENV, !relative
    try:  # `yaml.load`, the document's nodes bounded before anything is built of them
        node = loader.get_single_node()
        _bounded(node, config_file)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as error:
        raise SettingsError(f"{config_file}: not YAML MkDocs reads: {error}") from None
    except RecursionError:
        raise SettingsError(f"{config_file}: nested too deeply to read") from None
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{config_file}:1: holds no mapping of settings")
    parent = data.pop("INHERIT", None)
    if parent is None:
        return data
    named = Path(os.path.normpath(config_file.parent / str(parent)))
    if not Path(os.path.realpath(named)).is_relative_to(root) or not os.path.lexists(named):  # (a FIFO: `_text`)
        raise SettingsError(f"{config_file.name}:{_line_of(config_file, 'INHERIT')}: INHERIT {parent} names a file "
                            f"{'outside the repository' if named.exists() else 'that does not exist'}: errorkb reads "
                            "the settings of this repository's files only; copy the settings it needs here")
    merged: dict[str, Any] = mergedeep.merge(_load(named, root, config, [*seen, where]), data)
    return merged


def config_file(root: Path) -> Path | None:
    """The project's mkdocs.yml, None only where nothing of that name is there: a FIFO, a folder, a socket or a
    dangling link named mkdocs.yml is no absent file (`errorkb check` took one for none and said nothing); reading
    it (`read`) says what it is."""
    path = root / "mkdocs.yml"
    return path if os.path.lexists(path) else None


def _text(config_file: Path, root: Path) -> str:
    """The file's text, read by `filebytes.read_bounded` (a FIFO never blocks, a link out of the repository is never
    read: a parse error would quote another file's text), or `SettingsError` saying what it is."""
    from errorkb.core.filebytes import TooLarge, read_bounded, said

    try:
        return read_bounded(config_file, MAX_BYTES, inside=root).decode("utf-8-sig")
    except TooLarge:
        raise SettingsError(f"{config_file}:1: larger than {MAX_BYTES:,} bytes; a site's settings are a few "
                            "kilobytes") from None
    except OSError as error:
        raise SettingsError(f"{config_file}:1: {said(error)}") from None
    except UnicodeDecodeError as error:
        raise SettingsError(f"{config_file}:1: cannot be read ({error}); save it as UTF-8") from None


class _Name:
    """A `!!python/name:` as read, imported only once the settings are whole (`_named`): which packages may be
    imported depends on the Markdown extensions the settings name, in this file or one it INHERITs."""

    def __init__(self, config_file: Path, line: int, root: Path, name: str) -> None:
        self.config_file, self.line, self.root, self.name = config_file, line, root, name

    def imported(self, packages: set[str]) -> Any:
        module, _, attribute = self.name.rpartition(".")
        module = module or "builtins"
        where = f"{self.config_file.name}:{self.line}: !!python/name:{self.name}"
        if module.split(".")[0] not in packages | {"builtins"}:
            raise SettingsError(f"{where} names a module of no Markdown extension the settings name and of no theme "
                                "installed: importing it would run it; name a function of an extension's package "
                                f"({', '.join(sorted(packages))})")
        _refuse_repository(self.config_file, self.line, module, self.root)
        try:
            return getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError) as error:
            raise SettingsError(f"{where} names nothing installed ({error})") from None


def _named(data: Any, packages: set[str]) -> Any:
    """`data` with each `_Name` replaced by what it names (see `_Name.imported`)."""
    if isinstance(data, _Name):
        return data.imported(packages)
    if isinstance(data, dict):
        return {key: _named(value, packages) for key, value in data.items()}
    if isinstance(data, list):
        return [_named(item, packages) for item in data]
    return data


def _bounded(root: yaml.Node | None, config_file: Path) -> None:
    """`SettingsError` where the settings, each alias counted as the value it names, hold more than `MAX_VALUES`
    values (an alias bomb: each line ten aliases of the line before, 10**n values in n lines, which the reading
    copied one by one, and so does any reader that walks them), or an alias inside the value it names (a list
    holding itself, which PyYAML builds: every walk of it recursed for ever). Each node is counted once."""
    if root is None:
        return
    values: dict[int, int] = {}  # node → values it holds, aliases expanded (capped past the limit)
    entered: set[int] = set()  # nodes whose values are being counted: their ancestors on the way
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        inside = _inside(node)
        if done:
            entered.discard(id(node))
            values[id(node)] = min(1 + sum(values[id(one)] for one in inside), MAX_VALUES + 1)
            continue
        if id(node) in values:
            continue
        entered.add(id(node))
        stack.append((node, True))
        for one in inside:
            if id(one) in entered:
                raise SettingsError(f"{config_file.name}:{_top_line(root, node)}: a YAML alias inside the value it "
                                    "names (a list or mapping that holds itself): no setting is one; write the value "
                                    "out")
            if id(one) not in values:
                stack.append((one, False))
    if values[id(root)] > MAX_VALUES:
        past = next((one for one in _inside(root) if values[id(one)] > MAX_VALUES), root)  # the first key's, or all
        raise SettingsError(f"{config_file.name}:{_top_line(root, past)}: YAML aliases make the settings more than "
                            f"{MAX_VALUES:,} values (each alias counts as the value it names; a site's settings hold a "
                            "few hundred); write the values out, or name fewer")


def _inside(node: yaml.Node) -> list[yaml.Node]:
    """The nodes a mapping or a list holds (a mapping's keys too), as composed: an alias is the node it names."""
    if isinstance(node, yaml.MappingNode):
        return [one for pair in node.value for one in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _top_line(root: yaml.Node, node: yaml.Node) -> int:
    """The line of the file's top-level key whose value holds `node` (its own line where it is one, or none is)."""
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if node is value or node is key or (value.start_mark.index <= node.start_mark.index < value.end_mark.index
                                                and value.start_mark.buffer is node.start_mark.buffer):
                return int(key.start_mark.line) + 1
    return int(node.start_mark.line) + 1


def _theme_packages() -> set[str]:
    """The top-level packages of the installed MkDocs themes (`material`, `mkdocs`)."""
    from importlib.metadata import entry_points

    return {point.value.split(".")[0].split(":")[0] for point in entry_points(group="mkdocs.themes")}


def _safe_loader(config_file: Path, root: Path) -> type[yaml.SafeLoader]:
    """PyYAML's safe loader, with `!!python/name:` read as a `_Name`: the one Python tag a site's settings need
    (Material's emoji functions), which imports an installed module and builds nothing."""

    class Loader(yaml.SafeLoader):
        pass

    def python(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        line = node.start_mark.line + 1
        kind, _, name = suffix.partition(":")
        if kind != "name" or not name:
            raise SettingsError(f"{config_file.name}:{line}: !!python/{kind} builds a Python object when the file is "
                                "read (it runs code): errorkb reads the settings without running anything; only "
                                "!!python/name: of an installed module is read")
        return _Name(config_file, line, root, name)

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", python)
    return Loader


def _extension_modules(extensions: object) -> dict[str, str]:
    """The Markdown extensions mkdocs.yml names → the module each is loaded from (markdown loads a registered
    name's entry point); what MkDocs would refuse otherwise (a wrong type) is left to its validation."""
    from markdown import util

    names: list[str] = []
    if isinstance(extensions, dict):
        names = [key for key in extensions if isinstance(key, str)]
    elif isinstance(extensions, list):
        for item in extensions:
            if isinstance(item, str):
                names.append(item)
            elif isinstance(item, dict):
                names += [key for key in item if isinstance(key, str)]
    registered = {point.name: point.value for point in util.get_installed_extensions()}
    return {name: registered.get(name, name).partition(":")[0] for name in names}


def _extensions_outside(config_file: Path, modules: dict[str, str]) -> None:
    """Every Markdown extension mkdocs.yml names is imported from outside the repository (see `_in_repository`);
    located in the file only where one is not (a file may name 10^4: each was located, from a reading of the
    file each)."""
    root = Path(os.path.realpath(config_file.parent))
    for name, module in modules.items():
        _refuse_repository(config_file, functools.partial(_line_of, config_file, name), module, root)


def _refuse_repository(config_file: Path, line: int | Callable[[], int], module: str, root: Path) -> None:
    """`SettingsError` at `line` (or where it is found) where `module` would be imported from the repository."""
    where = _in_repository(module, root)
    if where is not None:
        said = line if isinstance(line, int) else line()
        raise SettingsError(f"{config_file.name}:{said}: {module} would be imported from {where}, a file of the "
                            "repository: errorkb runs no code of the repository's when it reads mkdocs.yml; install "
                            "the extension as a package")


def _in_repository(module: str, root: Path) -> str | None:
    """Where in the repository (`root`) importing `module` would run a file that is not installed in this
    environment (its site-packages may lie inside, as `.venv/` does): a stranger's module, found first on the
    import path of a command run in the repository. None where it would not."""
    top = module.split(".")[0]
    spec = _spec_on_path(top) if top else None
    if spec is None:
        return None
    places = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
    installed = [Path(os.path.realpath(folder)) for folder in
                 {*site.getsitepackages(), site.getusersitepackages(), *sysconfig.get_paths().values()}]
    for place in places:
        where = Path(os.path.realpath(place))
        if where.is_relative_to(root) and not any(where.is_relative_to(folder) for folder in installed):
            return where.relative_to(root).as_posix()
    return None


def _spec_on_path(top: str) -> importlib.machinery.ModuleSpec | None:
    """Where importing `top` afresh would find it: the import system's finders, never `sys.modules` (which
    `importlib.util.find_spec` answers from first: a module of that name this process imported from elsewhere
    hid the repository's file, which a fresh `mkdocs build` imports)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(top, None)
        except (ImportError, ValueError):
            continue
        if isinstance(spec, importlib.machinery.ModuleSpec):
            return spec
    return None


def _line_of(config_file: Path, word: str) -> int:
    """The first line of the file that names `word` as a key or an item (1 when none does)."""
    try:
        lines = _text(config_file, config_file.parent).splitlines()
    except SettingsError:
        return 1
    pattern = re.compile(rf"^\s*(?:-\s*)?['\"]?{re.escape(word)}['\"]?\s*(?::|$)")
    return next((number for number, text in enumerate(lines, 1) if pattern.search(text)), 1)


__all__ = ["NOT_READ", "SettingsError", "config_file", "markdown_settings", "read", "refused"]

"""Where a lookup's knowledge comes from: an index document (the one the installed package
ships, a file, or an address), read into a `Lookup`.

One function, `load_index`, decides where: the page's `api/errors/index.json` and the shipped
index have the same shape (`errorkb.lookup.build` writes both), so `errorkb lookup`, `errorkb
show` and the hook work from either, outside any checkout. Reading an address never raises a
traceback at the user: every failure is an `IndexUnavailable` with one line saying why.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.core.filebytes import TooLarge, read_bounded, said
from errorkb.core.message import GENERIC_WORDINGS
from errorkb.lookup._known import Known, mapping
from errorkb.lookup._match import Lookup

# Every installed knowledge base registers the package that holds its index (`index.json`, written
# by `errorkb hook index`) under this entry point group: several side by side, none inside errorkb.
GROUP = "errorkb.indexes"
INDEX_FILE = "index.json"
MAX_BYTES = 64 << 20  # an index larger than this is refused, not read
TIMEOUT = 10  # seconds for one read of an index fetched from an address
DEADLINE = 60  # seconds for the whole fetch: a server that trickles its answer never trips TIMEOUT


NO_INDEX = ("no knowledge base's index is installed here (a knowledge base registers one under the "
            f"`{GROUP}` entry point); give --index FILE|URL, or run this inside a knowledge base's folder")


class IndexUnavailable(Exception):
    """The index could not be read; the message is one line a user can act on."""


@dataclass(frozen=True)
class Index:
    """An index document, read: its entries and what the lookup needs besides."""

    known: list[Known]
    library: str = "the library"  # the documented library's name, for the release advice
    distribution: str = ""  # its distribution, for the installed release
    generic: tuple[str, ...] = GENERIC_WORDINGS  # wordings every error of a kind shares
    classes: frozenset[str] = frozenset()  # fnv1a hashes of the class names the library defines
    site: str = ""  # the published site's address, ending in '/' ("" when unknown)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → the raw item (for `show`)
    where: str = ""  # the file or address it was read from
    digest: str = ""  # of the entry files it was built from (`build.entries_digest`)
    runtime: tuple[str, ...] = ()  # the runtime's import packages (their frames never raise an entry's error)
    # the words before the library's name in other distributions' names (`acme` of `acme-tools`, library `tools`)
    others: tuple[tuple[str, ...], ...] = ()
    # cap → its lookup: a process that answers many errors from one index (the pytest hint, a notebook's
    # extension, a test comparing hundreds of pastes) parses and judges every wording once, not per error
    _lookups: dict[int, Lookup] = field(default_factory=dict, init=False, repr=False, compare=False)

    def lookup(self, cap: int | None = None) -> Lookup:
        """The lookup for this index's entries (cutting pastes at `cap`), built on the first call."""
        from errorkb.lookup import _rules

        cap = cap or _rules.CAP
        if cap not in self._lookups:
            self._lookups[cap] = Lookup(self.known, cap, library=self.library, generic=self.generic,
                                        classes=self.classes, runtime=self.runtime, other_names=self.others)
        return self._lookups[cap]

    def page(self, entry_id: str) -> str:
        """The entry's page: on the published site when its address is known, else site-relative."""
        url = str(self.items.get(entry_id, {}).get("url") or "")
        return url if url.startswith(("http://", "https://")) else f"{self.site}{url}"


def installed_indexes() -> list[Path]:
    """The index file of every knowledge base installed in this environment, by entry point name:
    each entry point of `GROUP` names a package whose folder holds `index.json`. The package is
    located, never imported (its `__init__` may do anything); one that cannot be found is skipped."""
    import importlib.util

    found: dict[str, Path] = {}
    for name, module in sorted(entry_points(GROUP)):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            continue
        folders = list(spec.submodule_search_locations or []) if spec else []
        if spec is not None and not folders and spec.origin:
            folders = [str(Path(spec.origin).parent)]
        path = next((Path(folder) / INDEX_FILE for folder in folders if (Path(folder) / INDEX_FILE).is_file()), None)
        if path is not None and path not in found.values():
            found[name] = path
    return list(found.values())


# An entry point's value: `module`, `module:attribute`, optional `[extras]` (importlib.metadata's pattern).
_ENTRY_POINT_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


def entry_points(group: str) -> list[tuple[str, str]]:
    """(name, module) of every entry point of `group`, as `importlib.metadata.entry_points(group=...)`
    finds them: each distribution's `entry_points.txt`, the first distribution of a name on `sys.path`
    winning. Read here because importing importlib.metadata costs ~0.1 s (it parses e-mail headers that
    entry points do not need) of the half second `errorkb lookup` and the hook may take; where
    `sys.path` holds anything but folders (a zip, an egg) importlib.metadata answers. A value that is not
    a module's name is skipped (importlib.metadata raises when it is read)."""
    folders = [entry or "." for entry in sys.path]
    if not _plain(folders):
        from importlib.metadata import entry_points as installed

        return [(point.name, match["module"]) for point in installed(group=group)
                if (match := _ENTRY_POINT_VALUE.match(point.value))]
    seen: set[str] = set()
    points = []
    for folder in folders:
        try:
            children = os.listdir(folder)
        except OSError:
            continue
        for child in children:
            stem, suffix = os.path.splitext(child.lower())
            if suffix not in (".dist-info", ".egg-info"):
                continue
            distribution = re.sub(r"[-_.]+", "_", stem.partition("-")[0])
            if distribution in seen:
                continue
            seen.add(distribution)
            points += _group(os.path.join(folder, child, "entry_points.txt"), group)
    return points


def _plain(folders: list[str]) -> bool:
    """Whether every distribution lies where `entry_points` looks: folders on `sys.path` (no zip or
    egg), and no finder on `sys.meta_path` but the standard one that finds distributions."""
    from importlib.machinery import PathFinder

    return (all(os.path.isdir(folder) or not os.path.exists(folder) for folder in folders)
            and not any(folder.endswith(".egg") for folder in folders)
            and not any(hasattr(finder, "find_distributions") for finder in sys.meta_path if finder is not PathFinder))


def _group(path: str, group: str) -> list[tuple[str, str]]:
    """The (name, module) entries of `group` in one `entry_points.txt` (importlib.metadata's reading:
    `[section]` headers, `name = value` lines, blank lines and `#` comments skipped)."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return []
    points, section = [], None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == group and (match := _ENTRY_POINT_VALUE.match(line.partition("=")[2].strip())):
            points.append((line.partition("=")[0].strip(), match["module"]))
    return points


def shipped_index() -> Path | None:
    """The first installed knowledge base's index (by entry point name), or None when none is."""
    indexes = installed_indexes()
    return indexes[0] if indexes else None


def load_indexes() -> list[Index]:
    """Every installed knowledge base's index that can be read (`installed_indexes`)."""
    read = []
    for path in installed_indexes():
        try:
            read.append(load_index(path))
        except IndexUnavailable:
            continue
    return read


def read_index(data: object, where: str = "") -> Index:
    """An index document (parsed JSON) as an `Index`; entries it cannot read are skipped."""
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise IndexUnavailable(f"{where or 'the index'} is not an errorkb index (no list of entries)")
    library = mapping(data.get("library"))
    known, items = [], {}
    for item in data["entries"]:
        try:
            one = Known.from_index(item)
        except (KeyError, TypeError, AttributeError):
            continue
        known.append(one)
        items[one.id] = item
    classes = library.get("classes")
    classes = classes if isinstance(classes, str) else ""
    generic = data.get("generic")
    site = str(data.get("site") or "")
    return Index(known, str(library.get("name") or "the library"), str(library.get("distribution") or ""),
                 tuple(str(w) for w in generic) if isinstance(generic, list) else GENERIC_WORDINGS,
                 frozenset(classes[i:i + 8] for i in range(0, len(classes) - 7, 8)),
                 site if site.endswith("/") or not site else site + "/", items, where,
                 str(data.get("entries_digest") or ""), _runtime(data.get("runtime")), _others(library.get("others")))


def _others(value: object) -> tuple[tuple[str, ...], ...]:
    """The index's `library.others`: lists of lower-case words (anything else is skipped, as the page's script does)."""
    found = value if isinstance(value, list) else []
    return tuple(tuple(one) for one in found if isinstance(one, list) and one and all(isinstance(w, str) and w
                                                                                       for w in one))


def _runtime(value: object) -> tuple[str, ...]:
    packages = mapping(value).get("packages")
    return tuple(str(one) for one in packages) if isinstance(packages, list) else ()


def load_index(source: str | Path | None = None) -> Index:
    """The index at `source`: a file, an http(s) address, or (None) the first installed knowledge base's."""
    if source is None:
        source = shipped_index()
        if source is None:
            raise IndexUnavailable(NO_INDEX)
    where = str(source)
    if where.startswith(("http://", "https://")):
        text = _fetch(where)
    else:
        try:  # the one reader of a knowledge base's files: a FIFO there blocked `lookup`, `show` and the hook
            raw = read_bounded(where, MAX_BYTES)
        except TooLarge:
            raise IndexUnavailable(f"the index {where} is larger than {MAX_BYTES >> 20} MiB") from None
        except OSError as error:
            raise IndexUnavailable(f"cannot read the index {where}: {said(error)}") from None
        text = _text(raw, where)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise IndexUnavailable(f"the index {where} is not JSON ({error})") from None
    except RecursionError:  # json's parser recurses once per level: a few KB of `[` end it
        raise IndexUnavailable(f"the index {where} nests deeper than JSON can be read here") from None
    return read_index(data, where)


def _text(raw: bytes, where: str) -> str:
    """The index's bytes as text: UTF-8, as `errorkb.lookup.build` writes it and a browser reads it (a leading
    byte order mark dropped). Anything else is named, never read with its bytes replaced: the answer would
    quote U+FFFD as the entry's words or the site's address without a word."""
    from errorkb.core.encoding import other_encoding

    other = other_encoding(raw)
    if other:
        raise IndexUnavailable(f"the index {where} is not UTF-8: {other.replace('the file is ', 'it is ')}; "
                               "an index is UTF-8, as errorkb writes it")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise IndexUnavailable(f"the index {where} is not UTF-8 (byte 0x{raw[error.start]:02x} at offset "
                               f"{error.start:,}); an index is UTF-8, as errorkb writes it: fetch or build it "
                               "again") from None


def _fetch(url: str) -> str:
    """The index at `url`, read whole within `DEADLINE` seconds (connecting, redirects, headers and body), or
    an `IndexUnavailable` saying why. The fetch runs in a thread the caller stops waiting for at the deadline;
    told to stop, it ends at its next read (each bounded by `TIMEOUT`), holding at most `MAX_BYTES`."""
    box: dict[str, bytes | BaseException] = {}
    done, stop = threading.Event(), threading.Event()

    def fetch() -> None:
        try:
            box["raw"] = _download(url, stop)
        except BaseException as error:  # handed to the caller, who says it in one line
            box["error"] = error
        finally:
            done.set()

    threading.Thread(target=fetch, name="errorkb-index-fetch", daemon=True).start()
    if not done.wait(DEADLINE):
        stop.set()
        raise IndexUnavailable(f"the index {url} did not arrive within {DEADLINE} s (a slow or stalled server? "
                               "`--index FILE` reads a downloaded copy)")
    error = box.get("error")
    if isinstance(error, IndexUnavailable):
        raise error
    if isinstance(error, BaseException):
        raise IndexUnavailable(f"cannot fetch the index {url}: {_why(error)} (offline? `--index FILE` reads a "
                               "downloaded copy)") from None
    raw = box["raw"]
    assert isinstance(raw, bytes)
    return _text(raw, url)


def _why(error: BaseException) -> str:
    """What went wrong, in words: urllib's reason, or what http.client found malformed in the answer."""
    from http.client import HTTPException

    if isinstance(error, HTTPException):
        return f"the answer is not well-formed HTTP ({type(error).__name__}: {str(error)[:200] or 'no detail'})"
    return str(getattr(error, "reason", None) or error or type(error).__name__)


def _download(url: str, stop: threading.Event) -> bytes:
    """The body at `url` (at most `MAX_BYTES`), following only redirects `_redirects` allows; stops reading
    when `stop` (an Event) is set. Raises what urllib and http.client raise (an `HTTPException` is no
    `OSError`: a malformed status line, header or chunk), or `IndexUnavailable` for a body too large."""
    import urllib.request

    opener = urllib.request.build_opener(_redirects())
    body = bytearray()
    with opener.open(url, timeout=TIMEOUT) as response:
        while not stop.is_set():
            chunk = response.read(1 << 16)
            if not chunk:
                break
            body += chunk
            if len(body) > MAX_BYTES:
                raise IndexUnavailable(f"the index {url} is larger than {MAX_BYTES >> 20} MiB")
    return bytes(body)


def _redirects() -> Any:
    """A redirect handler that follows a redirect only to http(s), and never from https to plain http: urllib
    also follows one to `ftp:` (the server choosing where errorkb connects next), and an index fetched over
    https may not come from where anyone on the way can rewrite it. (Built here: urllib.request is imported
    only by a fetch, `errorkb lookup` starting in well under half a second.)"""
    from urllib.error import HTTPError
    from urllib.parse import urlsplit
    from urllib.request import HTTPRedirectHandler

    class Redirects(HTTPRedirectHandler):
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
            scheme, was = urlsplit(newurl).scheme.lower(), urlsplit(req.full_url).scheme.lower()
            if scheme not in ("http", "https") or (was == "https" and scheme == "http"):
                raise HTTPError(newurl, code, f"it redirects to {newurl}, which is not followed (only http(s), "
                                              "and never from https to http)", headers, fp)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return Redirects()


def library_class_names(name: str) -> frozenset[str]:
    """The class names the installed library (`name`'s first part, its import name) defines at the top
    level of its modules, read from its files (never imported); empty when it is not installed."""
    return class_names_of(name.split(".")[0])


@functools.lru_cache(maxsize=8)
def class_names_of(package: str) -> frozenset[str]:
    """`library_class_names` of an import package; what the index's class list hashes (`build.library_classes`)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return frozenset()
    folders = list(spec.submodule_search_locations or []) if spec else []
    pattern = re.compile(r"^class ([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
    found: set[str] = set()
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.py")):
            try:
                found.update(pattern.findall(path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    return frozenset(found)

"""Where the site's own files go, docs-relative, and the entry ids they reserve.

Plain names only, no rendering: `errorkb verify` and `errorkb check` read the reserved ids while
loading entries, and must not import the page renderer (Jinja, the lookup, the source readers) to
learn three words. `render.py` and `files.py` take their paths from here: one definition.
"""

from __future__ import annotations

import posixpath
import unicodedata

# Where the site-wide pages live, docs-relative; entry pages are errors/<library>/<id>.md.
ERRORS_INDEX = "errors/index.md"
BY_EXCEPTION = "errors/by-exception.md"
BY_API = "errors/by-api.md"
VERIFICATION = "verification.md"
TAGS = "tags.md"
INDEX_JSON = "api/errors/index.json"
SCHEMA_JSON = "api/schema/entry.json"
CHECK_SCHEMA_JSON = "api/schema/check.json"
COVERAGE = "coverage.md"
MIGRATION = "migration.md"

# Every file the site generates besides entry pages, entry JSON and assets, docs-relative.
GENERATED = (ERRORS_INDEX, BY_EXCEPTION, BY_API, VERIFICATION, TAGS, COVERAGE, MIGRATION, INDEX_JSON, SCHEMA_JSON,
             CHECK_SCHEMA_JSON)


def site_page(path: str) -> bool:
    """A site-wide page (the lists, tags, coverage...), which a hand-written file of the same path replaces
    (the site's own choice: `mkdocs` with the plugin, and `errorkb render --out`, keep it and generate none);
    a hand-written file in place of an entry's page, JSON or an asset hides what errorkb verified."""
    return path.endswith(".md") and path in GENERATED


def one_file(path: str) -> str:
    """`path` as a disk that folds case and Unicode normalisation (macOS, Windows) names it: two paths that
    give one value are one file there, and the page written last replaces the other."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def reserved_ids() -> frozenset[str]:
    """Ids no entry may take: the names of the files the site generates in the folders where
    entry pages and entry JSON go (errors/ for the lists, api/errors/ for the lookup's index),
    so that no entry can ever replace one: an entry `index` would overwrite the lookup index
    and break the paste box on every page."""
    folders = {posixpath.dirname(ERRORS_INDEX), posixpath.dirname(INDEX_JSON)}
    return frozenset(posixpath.splitext(posixpath.basename(path))[0] for path in GENERATED
                     if posixpath.dirname(path) in folders)

"""errorkb: error knowledge bases whose fixes are proven by running them.

The public API, by layer (each imports only the layers before it; import-linter checks it):

- `errorkb.core`:   `load_project`, `Project`, `LibraryProfile`, `load_project_entries`, `Entry`,
                    `MessageTemplate`, `Problem`, `ProblemsFound`, `Role`, `Snippet`
- `errorkb.results`: `Report`, `read_report`, `CheckRecord`, `Outcome`, `Code`, `MatrixFile`, `read_matrix`,
                    `inputs_digest`
- `errorkb.verify`: `verify`, `Verifier`
- `errorkb.lookup`: `Lookup`, `load_index` (the diagnosis)
- `errorkb.site`:   `site_files`

Names are imported on first use, so `import errorkb` stays cheap (the CLI, the MkDocs plugin
and every check's process import it).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: `errorkb --version` starts fast
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.2.0"

_EXPORTS = {
    "load_project": "errorkb.core.project",
    "Project": "errorkb.core.project",
    "LibraryProfile": "errorkb.core.project",
    "load_project_entries": "errorkb.core.load",
    "Entry": "errorkb.core.entry",
    "MessageTemplate": "errorkb.core.message",
    "Problem": "errorkb.core.problems",
    "ProblemsFound": "errorkb.core.problems",
    "Role": "errorkb.core.snippets",
    "Snippet": "errorkb.core.snippets",
    "verify": "errorkb.verify.engine",
    "Verifier": "errorkb.verify.engine",
    "Report": "errorkb.results.report",
    "read_report": "errorkb.results.report",
    "CheckRecord": "errorkb.results.records",
    "Outcome": "errorkb.results.records",
    "Code": "errorkb.results.records",
    "MatrixFile": "errorkb.results.matrix",
    "read_matrix": "errorkb.results.matrix",
    "inputs_digest": "errorkb.results.keys",
    "site_files": "errorkb.site.files",
    "Lookup": "errorkb.lookup",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> "Any":
    import importlib  # not at the top: the hook's chains import this package when a program first imports threading

    if name not in _EXPORTS:
        raise AttributeError(f"module 'errorkb' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

"""`errorkb` on the command line: thin glue over load, verify and render.

Exit codes: 0 all good, 1 problems in the knowledge base or failed checks, 2 bad usage.
Nothing here imports the runtime: snippets run in child processes. Imports are made where a
command needs them, so that `errorkb lookup` and `errorkb show` answer from the installed index in a
small fraction of a second (benchmarks/lookup_cli.py).
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at start-up (mypy reads it alike)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Iterator
    from typing import Any, NoReturn

    from rich.console import Console

    from errorkb.core.entry import Entry
    from errorkb.core.load import LoadedEntry, LoadResult
    from errorkb.core.problems import Problem
    from errorkb.core.project import Project
    from errorkb.lookup import Answer, Index, Match
    from errorkb.results.report import Report

def terminal_text(text: str) -> str:
    """`text` as a terminal should show it: entry text and problems come from strangers' pull
    requests, and an escape sequence in a title could clear the screen, retitle the window or
    hide a line. One definition of what a terminal acts on: `errorkb.core.logsafe`."""
    from errorkb.core.logsafe import strip_controls

    return strip_controls(text)


def _plain_console(stderr: bool) -> Console:
    """Rich's console for text that must print as it is: no emoji codes (`path:100:1` is not
    `path💯1`), and every string passed through `terminal_text`. Markup stays off unless a
    call asks for it with its own literal text."""
    from rich.console import Console

    class PlainConsole(Console):
        def print(self, *objects: Any, **kwargs: Any) -> None:
            super().print(*(terminal_text(o) if isinstance(o, str) else o for o in objects), **kwargs)

    # (Rich takes any object with write/flush/isatty/fileno/encoding; its signature says IO[str].)
    from typing import IO, cast

    return PlainConsole(file=cast(IO[str], _LogSafeStream(stderr=stderr)), stderr=stderr, highlight=False,
                        soft_wrap=True, emoji=False)


class _LogSafeStream:
    """stdout or stderr, looked up at each write (tests swap them), through `log_safe`: nothing
    printed can act on a CI log (no workflow command) or, off a terminal, carry an escape
    sequence; on a terminal, Rich's own colours stay and only commands are defused."""

    def __init__(self, stderr: bool):
        self.stderr = stderr

    @property
    def stream(self) -> Any:
        return sys.stderr if self.stderr else sys.stdout

    def write(self, text: str) -> int:
        from errorkb.core.logsafe import defuse, log_safe

        self.stream.write(defuse(text) if self.isatty() else log_safe(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        number: int = self.stream.fileno()
        return number

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"


class _Lazy:
    """A console made on first use: `rich` is imported only by commands that print with it."""

    def __init__(self, stderr: bool):
        self._stderr = stderr
        self._console: Console | None = None

    def print(self, *objects: Any, **kwargs: Any) -> None:
        """One string without markup, off a terminal (a CI log, a pipe), written as Rich would write it
        there (`_plain_line`) without importing Rich: a warm `errorkb verify` prints only such lines."""
        if self._console is None and _plain_line(objects, kwargs) and not self.is_terminal:
            _LogSafeStream(self._stderr).write(terminal_text(objects[0]) + "\n")
            return
        self.__getattr__("print")(*objects, **kwargs)

    @property
    def is_terminal(self) -> bool:
        """Rich's answer where something could make Rich say yes off a tty (its variables), else the tty's."""
        if self._console is None and not any(os.environ.get(name) for name in _RICH_TERMINAL):
            return _LogSafeStream(self._stderr).isatty()
        return bool(self.__getattr__("is_terminal"))

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            self._console = _plain_console(self._stderr)
        return getattr(self._console, name)


# Variables that make Rich take a stream for a terminal (colours, a live progress bar) though it is no tty.
_RICH_TERMINAL = ("FORCE_COLOR", "TTY_INTERACTIVE", "TTY_COMPATIBLE", "JUPYTER_COLUMNS", "JUPYTER_LINES")


def _plain_line(objects: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a `print` is one string with markup off and nothing but a style (which off a terminal
    Rich does not show): the only kind `_Lazy.print` writes itself. Not one with a tab, which Rich
    expands by the cells wide characters take."""
    return (len(objects) == 1 and isinstance(objects[0], str) and "\t" not in objects[0]
            and kwargs.get("markup") is False and set(kwargs) <= {"markup", "style"})


out: Any = _Lazy(stderr=False)
err: Any = _Lazy(stderr=True)


def print_json(document: Any) -> None:
    """JSON on stdout for machines, read on terminals and in CI logs too, so inert in both: written as ASCII
    (a C1 control, U+009B CSI, or a bidi override in an index's title is written \\u009b, not obeyed; JSON
    escapes the C0 controls itself) and every `#` as \\u0023 (the same data), so no `##[command]` can appear;
    a line of indented JSON never starts with `::`. Every JSON the CLI prints from data it read is
    written here (the schemas it prints are its own)."""
    import json

    print(json.dumps(document, indent=1, ensure_ascii=True).replace("#", "\\u0023"))


# Commands that answer from an index and need no knowledge base: parsed by a parser that imports
# nothing else (the whole parser imports the verifier's choices).
_FAST = ("lookup", "show")


def main(argv: list[str] | None = None) -> int:
    """The command line; `argv` None: this process's own (`errorkb`, `python -m errorkb.cli`), which ends with it."""
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # answered before argparse or anything else is imported (benchmarks/lookup_cli.py)
        from errorkb import __version__

        print(f"errorkb {__version__}")
        return 0
    try:
        return _main(argv, own_process)
    except BrokenPipeError:  # `errorkb ... | head`: the reader left. Python's documented way: point stdout at
        # /dev/null so the interpreter's own flush at exit cannot fail again, and exit 1 as it would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str], own_process: bool = False) -> int:
    from errorkb.core.problems import ProblemsFound

    command = _command(argv)
    parser = _parser(fast=command in _FAST or command == "--version")
    if own_process:
        # What the imports made (modules, classes, pydantic's validators) lives as long as the process:
        # kept out of the cycle collector's passes, which otherwise walk all of it again in every full
        # collection and once more at exit (3 % of a warm `errorkb verify`'s instructions, callgrind).
        # Not in a caller's process (tests call `main(argv)`): its garbage of the moment would be kept.
        import gc

        gc.freeze()
    try:
        args = parser.parse_args(argv)
    except SystemExit as leaving:  # a usage error (said in one line) or --help: its status, returned
        return 0 if leaving.code is None else leaving.code if isinstance(leaving.code, int) else 2
    try:
        if not args.needs_project:  # completion, the hook's .pth, lookup and show: no knowledge base needed
            plain: int = args.command(args)
            return _flushed(plain)
        from errorkb.core.project import load_project

        project = load_project(Path(args.root) if args.root else None)
        code: int = args.command(project, args)
        return _flushed(code)
    except ProblemsFound as found:
        for problem in found.problems:
            err.print(str(problem), markup=False)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    except BrokenPipeError:
        raise
    except OSError as error:  # a file or folder the command reads or writes: one line, never a traceback
        name = f" {error.filename}" if error.filename else ""
        _say(f"errorkb: cannot{' use' if name else ''}{name}: {error.strerror or error}")
        return 1


def _flushed(code: int) -> int:
    """`code`, once stdout is flushed: a reader that left (`| head`) is noticed here, not at exit."""
    sys.stdout.flush()
    return code


def _command(argv: list[str]) -> str | None:
    """The command word of a command line (`--root X` skipped), without parsing it."""
    words = iter(argv)
    for word in words:
        if word == "--root":
            next(words, None)
        elif not word.startswith("-") or word == "--version":
            return word
        elif word in ("-h", "--help"):
            return None
    return None


# -- input, checked before any work: a usage error is one line and exit 2 -----------------------


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser, whose usage errors are one line (what is wrong, where help is) and exit 2.
    (argparse is imported here, not with the module: `errorkb --version` never needs it.)"""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            self.exit(2, terminal_text(f"{self.prog}: {message} (see `{self.prog} --help`)") + "\n")

    return Parser


def _close(word: str, known: list[str], n: int = 1) -> list[str]:
    import difflib

    return difflib.get_close_matches(word, known, n=n)


def _bad(message: str) -> Exception:
    """The error a type function raises for a refused value: argparse's own, which it prints as it is."""
    import argparse

    return argparse.ArgumentTypeError(message)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise _bad(f"expected a positive number of seconds, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise _bad(f"expected a whole number of at least 1, got {text!r}")
    return value


_RELEASE = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def _release(text: str) -> str:
    """A release as a package index names it (`4.49.0`, `5.0.0rc1`): never a range or a word."""
    if not _RELEASE.fullmatch(text.strip()):
        raise _bad(f"expected a release such as 4.49.0, got {text!r}")
    return text.strip()


def _folder(text: str) -> str:
    if not Path(text).is_dir():
        raise _bad(f"{text!r} is not a folder" if Path(text).exists() else
                                         f"no folder {text!r}")
    return text


def _writable(path: Path) -> str | None:
    """Why `path` (a file or folder to create or replace) cannot be written, or None."""
    folder = path.parent if not path.is_dir() else path
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    import tempfile

    try:  # the real test (permissions, a read-only file system, root's exemptions alike); leaves nothing
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return f"{folder} is not writable ({error.strerror or error})"
    return None


def _out_folder(text: str) -> Path:
    path = Path(text)
    why = f"{text!r} is a file, not a folder" if path.exists() and not path.is_dir() else _writable(path)
    if why:
        raise _bad(why)
    return path


def _out_file(text: str) -> Path:
    path = Path(text)
    why = f"{text!r} is a folder, not a file" if path.is_dir() else _writable(path)
    if why:
        raise _bad(why)
    return path


def _report_file(text: str) -> Path:
    """A report to merge into (`--report`, `report merge OUT`): a regular file or none. A device or FIFO there
    is never read (it would block, or read as empty) nor replaced: its run was 'rescued' beside it, into /dev."""
    path = _out_file(text)
    try:
        mode = path.stat().st_mode
    except OSError:
        return path
    if not stat.S_ISREG(mode):
        raise _bad(f"{text!r} is not a regular file; name a report file to merge into")
    return path


def _shard_arg(text: str) -> tuple[int, int]:
    from errorkb.verify.plan import parse_shard

    try:
        return parse_shard(text)
    except ValueError as error:
        raise _bad(str(error).removeprefix("--shard ")) from None


def _usage(command: str, message: str) -> int:
    """A usage error found once the knowledge base is read (a device its runtime lacks): one line, exit 2."""
    _say(f"errorkb {command}: {message}")
    return 2


def _parser(fast: bool = False) -> argparse.ArgumentParser:
    from errorkb import __version__

    parser = _parser_class()(prog="errorkb", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"errorkb {__version__}")
    parser.add_argument("--root", type=_folder,
                        help="project folder (default: nearest with pyproject.toml or mkdocs.yml)")
    parser.set_defaults(needs_project=True)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    _diagnosis_parsers(commands)
    if fast:
        return parser
    from errorkb.results.records import TARGETS
    from errorkb.verify.modes import Isolation

    init = commands.add_parser("init", help="start a knowledge base for an installed library: the profile, "
                                            "mkdocs.yml, a home page with the paste box, entries and snippets folders",
                               description="Write a working knowledge base for an installed distribution into DIR "
                                           "(new or empty): the profile in pyproject.toml, read from the "
                                           "distribution's metadata where it has it, mkdocs.yml with the errorkb "
                                           "plugin and Material, a home page with the paste box, the entries and "
                                           "snippets folders, a README. Values not in the metadata come from the "
                                           "flags; what was assumed is printed and written beside it.")
    init.add_argument("folder", type=Path, metavar="DIR", help="the knowledge base's folder (new or empty)")
    init.add_argument("--library", required=True, metavar="DIST", help="the installed distribution to document")
    init.add_argument("--repository", default=None, metavar="OWNER/NAME",
                      help="its source repository (default: from its metadata's project URLs)")
    init.add_argument("--tag-format", default=None, metavar="FORMAT",
                      help="the repository's tag of a release, e.g. 'v{release}' (default: read from the checkout's "
                           "git tags, else '{release}'), or "
                           "formed from its numbers {major}, {minor}, {micro}: 'v{minor}.{micro}'")
    init.add_argument("--source-root", default=None, metavar="FOLDER",
                      help="the repository folder holding the import package (default: read from the checkout, "
                           "else 'src'; '' for the top)")
    init.add_argument("--checkout", default=None, type=Path, metavar="DIR",
                      help="a clone of the library's repository (or its sdist), to read --source-root and "
                           "--tag-format from (default: the folder or archive pip installed it from, if any)")
    init.add_argument("--import-name", default=None, metavar="NAME",
                      help="the import package (default: from the distribution's files)")
    init.add_argument("--source-url", default=None, metavar="TEMPLATE",
                      help="a link to a line of a file at a revision, from {repository}, {revision}, {path}, "
                           "{line} (default: the host's, for GitHub, GitLab and Codeberg)")
    init.set_defaults(command=cmd_init, needs_project=False)

    new = commands.add_parser("new", help="write an entry and its snippet stubs from a pasted traceback or a "
                                          "similar entry (never overwrites a file)")
    new.add_argument("id", metavar="ID", help="the new entry's id: kebab-case, e.g. static-layer-crop-negative")
    new.add_argument("--from-traceback", metavar="FILE", default=None,
                     help="a file holding the traceback (or the message), '-' for stdin")
    _complete_ids(new.add_argument("--like", metavar="ID", default=None,
                                   help="start from this entry: its kind, pin, tags and snippets"))
    new.set_defaults(command=cmd_new)

    hook = commands.add_parser("hook", help="the opt-in hook that prints the entry after a documented error's "
                                            "traceback")
    hook_actions = hook.add_subparsers(required=True, metavar="ACTION")
    for action, text in (("install", "write errorkb-hook.pth into this environment's site-packages"),
                         ("uninstall", "remove errorkb-hook.pth from this environment's site-packages"),
                         ("status", "say whether the hook is installed in this environment")):
        one = hook_actions.add_parser(action, help=text)
        one.set_defaults(command=cmd_hook, action=action, needs_project=False)
    index = hook_actions.add_parser("index", help="regenerate the knowledge base's index (the file [tool.errorkb] "
                                                  "index names) from the entries")
    index.add_argument("--check", action="store_true", help="only say whether it is stale (exit 1 when it is)")
    index.set_defaults(command=cmd_hook_index)

    completion = commands.add_parser("completion", help="print a shell completion script: "
                                                        "eval \"$(errorkb completion bash)\"")
    completion.add_argument("shell", choices=["bash", "zsh"])
    completion.set_defaults(command=cmd_completion, needs_project=False)

    check = commands.add_parser("check", help="validate every entry; print path:line:col problems",
                                description="Validate every entry, render every page the site generates with the "
                                            "site's Markdown settings within the render budget, and print each "
                                            "problem as path:line:col. Writes nothing but its cache: the digests of "
                                            "the pages that rendered within budget (.errorkb-cache/check/), which "
                                            "the next check does not render again while their bytes are the same.")
    _complete_ids(check.add_argument("ids", nargs="*", metavar="ID",
                                     help="check only these entries' snippets and pins (all entries are loaded)"))
    check.add_argument("--drift", action="store_true",
                       help="also check every source pin against the pinned release's source (by AST); a release "
                            "whose environment is not built is reported as not checked")
    check.add_argument("--rehearse-all", action="store_true",
                       help="render every page within the budget, also those that rendered within it before with "
                            "the same bytes and settings (the default inside a pull request's CI run)")
    check.set_defaults(command=cmd_check)

    matrix = commands.add_parser(
        "matrix", help="run before/after of every entry against many upstream releases",
        description="Run each entry's before and after against every upstream release, one environment per release "
                    "(built once under .errorkb-cache/matrix/). Writes reports/matrix/<distribution>.json, merged per "
                    "entry and release (results of other entries and releases are kept), after every release; "
                    "verdicts are cached under .errorkb-cache/verify/, so a rerun re-runs only what changed.")
    _complete_ids(matrix.add_argument("ids", nargs="*", metavar="ID", help="entries (default: all)"))
    matrix.add_argument("--release", action="append", default=None, type=_release,
                        help="release to run (repeatable; default: [tool.errorkb.matrix] releases, else every "
                             "release since `since` that PyPI serves)")
    matrix.add_argument("--rebuild", action="store_true", help="recreate the releases' environments")
    _cache_options(matrix)
    matrix.add_argument("--shard", default=None, metavar="K/N", type=_shard_arg,
                        help="run (or, with --environments-only, build) only the releases of shard K of N: a stable "
                             "split by release for CI job matrices; `errorkb report merge` joins the shards' files")
    matrix.add_argument("--parallel", type=_count, default=2, help="releases run at a time (default: 2)")
    matrix.add_argument("--environments-only", action="store_true",
                        help="only build the environments of the releases the entries pin (or of --release ones), "
                             "which `verify --target upstream` and `check --drift` need; run nothing")
    matrix.set_defaults(command=cmd_matrix)

    cover = commands.add_parser("coverage", help="raise sites of the followed files and the entries documenting them")
    cover.add_argument("--json", action="store_true", help="print the table as JSON")
    cover.set_defaults(command=cmd_coverage)

    schema = commands.add_parser("schema", help="print the JSON Schema of an entry (or of a report's check record)")
    schema.add_argument("--check-record", action="store_true", help="the schema of one check in a report")
    schema.add_argument("--profile-reference", action="store_true",
                        help="every [tool.errorkb] key with its type, default and meaning, as Markdown "
                             "(docs/profile.md)")
    schema.set_defaults(needs_project=False)
    schema.set_defaults(command=cmd_schema)

    verify = commands.add_parser(
        "verify", help="run every snippet and judge it; write a JSON report",
        description="Run every snippet of the chosen entries and judge it. Writes the standing report "
                    "reports/latest.json, merged per check (records of other checks are kept as they were), or the "
                    "--report file (this run's records only); caches verdicts under .errorkb-cache/verify/.")
    _complete_ids(verify.add_argument("ids", nargs="*", metavar="ID", help="entries to verify (default: all)"))
    verify.add_argument("--target", action="append", choices=TARGETS,
                        help="implementation to run against (repeatable; default from [tool.errorkb])")
    verify.add_argument("--device", action="append",
                        help="device kind (repeatable; default: every device of the runtime)")
    verify.add_argument("--jobs", type=_count, default=None, help="checks run in parallel (default: CPU count)")
    verify.add_argument("--report", type=_report_file, default=None,
                        help="report file (default: <reports>/latest.json); updated per check like the standing "
                             "report, merged with what is there when the run ends")
    verify.add_argument("--isolation", choices=[mode.value for mode in Isolation], default=Isolation.FORK.value,
                        help="fork: fresh process per check from a warm preloaded interpreter (default); "
                             "subprocess: a new interpreter per check")
    verify.add_argument("--snippet", action="append", choices=["before", "after", "guard"], dest="kinds",
                        help="verify only snippets of this kind (repeatable; default: all)")
    verify.add_argument("--upstream", choices=["pinned", "installed"], default="pinned",
                        help="upstream checks run at each entry's pinned release (its matrix environment when that "
                             "release is not installed; default), or all at the installed release (the version matrix)")
    verify.add_argument("--sandbox", choices=["auto", "require", "off"], default="auto",
                        help="run snippets in a bubblewrap sandbox: auto (where it can be created; says so "
                             "loudly where not), require (CI: refuse to run without it), off")
    _cache_options(verify)
    verify.add_argument("--cache-dir", type=_out_folder, default=None,
                        help="verdict cache folder (default: <root>/.errorkb-cache)")
    verify.add_argument("--shard", default=None, metavar="K/N", type=_shard_arg,
                        help="run only shard K of N (deterministic split by check id, for CI matrices)")
    verify.add_argument("--timeout", type=_seconds, default=None,
                        help="seconds per check (default from [tool.errorkb])")
    verify.add_argument("--json", action="store_true",
                        help="print the report as JSON on stdout (human output on stderr)")
    verify.add_argument("--junit", type=_out_file, default=None, metavar="PATH", help="also write JUnit XML to PATH")
    verify.add_argument("--watch", action="store_true",
                        help="stay running: verify again whenever an entry, a snippet or the profile changes, "
                             "re-running only the checks whose inputs changed, from zygotes kept warm between rounds "
                             "(Ctrl-C ends)")
    verify.set_defaults(command=cmd_verify)

    report = commands.add_parser("report", help="work with verification reports")
    report_commands = report.add_subparsers(required=True, metavar="ACTION")
    merge = report_commands.add_parser(
        "merge", help="combine verification reports, or version-matrix files, (CI jobs, shards) into one",
        description="Combine verification reports (errorkb verify --shard) or version-matrix files (errorkb matrix "
                    "--shard) into OUT, merged with what OUT already holds: per check, and per entry and release, "
                    "the record written last wins, so merged shards equal one run.")
    merge.add_argument("output", type=_report_file, metavar="OUT",
                       help="merged file to write (merged into when it exists)")
    merge.add_argument("inputs", type=Path, nargs="+", metavar="IN", help="reports, or matrix files, to merge")
    merge.add_argument("--complete", action="store_true",
                       help="refuse unless the inputs are every shard of one --shard K/N split, each once (matrix "
                            "files always refuse a shard given twice or shards of two splits)")
    merge.set_defaults(command=cmd_report_merge)

    render_site = commands.add_parser("render", description="Write the site's pages as plain Markdown, with the JSON "
                                      "API and assets, into --out (the files an earlier render wrote there are "
                                      "replaced; any other file at a path it writes stops it). Reads the entries and "
                                      "reports; runs no snippet.",
                                      help="write the site's pages as plain Markdown, with the JSON "
                                                     "API and assets, for any static-site engine")
    render_site.add_argument("--out", type=_out_folder, required=True,
                             help="folder to write into (an earlier render's files are replaced)")
    render_site.set_defaults(command=cmd_render)
    return parser


def _cache_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", choices=["auto", "trusted", "untrusted", "off"], default="auto",
                        help="the verdict cache: trusted (reuse and store verdicts), untrusted (a cache this run "
                             "cannot vouch for, e.g. restored into a pull request's CI run: every check runs, "
                             "nothing is read or stored), off; auto (default): untrusted in a pull request's CI "
                             "run (GITHUB_EVENT_NAME=pull_request*, GitLab merge requests), trusted elsewhere")
    parser.add_argument("--no-cache", action="store_const", const="off", dest="cache",
                        help="the same as --cache off: run every check, neither reading nor storing verdicts")


def _diagnosis_parsers(commands: Any) -> None:
    """`lookup` and `show`: they answer from an index, anywhere (docs/api.md, 'errorkb lookup')."""
    lookup = commands.add_parser("lookup", help="which documented entry an error is: confirmed by evidence, or "
                                                "the possible ones and what would tell them apart",
                                 description="Match an error message or a whole traceback against the knowledge "
                                             "base, as the site's paste box does. Exit 0: a confirmed entry; 3: only "
                                             "possible ones (not confirmed); 1: none; 2: bad usage.")
    lookup.add_argument("message", nargs="?", default="-",
                        help="a message, 'ValueError: ...' or a whole traceback; the name of a file that holds "
                             "one (as `errorkb new --from-traceback` takes); '-' or nothing: read stdin")
    lookup.add_argument("--index", default=None, metavar="FILE|URL",
                        help="match against this index (a site's api/errors/index.json, a file or an http(s) "
                             "address) instead of the one errorkb ships (or, in a knowledge base's checkout whose "
                             "entries changed, the entries)")
    lookup.add_argument("--all", action="store_true", help="list every match, and the entries ruled out")
    lookup.add_argument("--json", action="store_true", help="print the answer as JSON (docs/api.md)")
    lookup.add_argument("--release", default=None, type=_release,
                        help="the library release you run (e.g. 4.49.0): checked against the matched wording's "
                             "releases; otherwise read from the paste where it can be")
    lookup.set_defaults(command=cmd_lookup, needs_project=False)

    show = commands.add_parser("show", help="an entry in the terminal: message, meaning, the fix and its verdict, "
                                            "releases and its page")
    _complete_ids(show.add_argument("id", metavar="ID", help="the entry's id"))
    show.add_argument("--index", default=None, metavar="FILE|URL", help="read the entry from this index")
    show.set_defaults(command=cmd_show, needs_project=False)


# Entry ids for shell completion: the YAML files' names under the entries folder of the project
# the shell is in (read by the shell itself; nothing of errorkb runs while completing).
_IDS_PREAMBLE = {
    "bash": '_errorkb_ids() { compgen -W "$(ls docs/errors/*/*.yml 2>/dev/null | sed \'s#.*/##; s#\\.yml$##\')" '
            '-- "$1"; }\n',
    "zsh": "_errorkb_ids() { local -a ids; ids=(docs/errors/*/*.yml(N:t:r)); _describe 'entry' ids }\n",
}


def _complete_ids(action: argparse.Action) -> None:
    action.complete = {"bash": "_errorkb_ids", "zsh": "_errorkb_ids"}  # type: ignore[attr-defined]


def cmd_completion(args: argparse.Namespace) -> int:
    """The completion script (shtab's), entry ids completed from the project's entries folder."""
    import shtab

    preamble: Any = _IDS_PREAMBLE  # shtab takes a str or a {shell: str} mapping; its stub says str
    print(shtab.complete(_parser(), shell=args.shell, preamble=preamble))
    return 0


def _reserved_ids() -> frozenset[str]:
    """Ids the site publishes its own files under (from the names alone: `check` and `verify` never import
    the page renderer)."""
    from errorkb.site.names import reserved_ids

    return reserved_ids()


def _load_or_report(project: Project) -> LoadResult:
    from errorkb.core.load import load_project_entries
    from errorkb.core.problems import ProblemsFound

    result = load_project_entries(project, _reserved_ids())
    if result.problems:
        raise ProblemsFound(result.problems)
    return result


def cmd_check(project: Project, args: argparse.Namespace) -> int:
    from errorkb.core.lint import lint_entries
    from errorkb.core.problems import ProblemsFound

    result = _load_or_report(project)
    known = result.by_id()
    unknown = [entry_id for entry_id in args.ids if entry_id not in known]
    if unknown:
        close = _close(unknown[0], sorted(known), n=1)
        return _usage("check", f"no entry '{unknown[0]}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    chosen = [known[entry_id] for entry_id in args.ids] if args.ids else result.entries
    flagged = lint_entries(chosen, project)  # deception primitives in snippets, for the reviewer
    flagged += _diagnosis_problems(project, result)
    unchecked: dict[str, list[str]] = {}
    if args.drift:
        from errorkb.source.drift import check_pins

        pins = check_pins(chosen, project)
        flagged += pins.problems
        unchecked = pins.unchecked
    rendering, pages = _rendering_problems(project, result, memo=not args.rehearse_all)
    flagged += rendering
    from errorkb.author.failing import warnings as failing

    # A pin no after can verify at (it raises on every call): said by plain `check` too, the command authors run;
    # it reads one function's lines of each pinned file, never a parse of the library (benchmarks/check_failers.py).
    failers = failing(chosen, project)
    for warning in [*_twins(project, result), *_stale_warnings(project, result, pages), *failers]:
        err.print(warning, markup=False)
    for release, ids in sorted(unchecked.items()):
        if " " in release:  # a runtime's release (`<runtime> <release>`, a source with `runtime: true`): not installed
            err.print(f"{release}: {len(ids)} pin(s) not checked, that runtime release is not installed: "
                      f"{', '.join(ids)}", markup=False)
            continue
        err.print(f"{project.library.dist} {release}: {len(ids)} pin(s) not checked, its environment is not built "
                  f"(run `errorkb matrix --environments-only`): {', '.join(ids)}", markup=False)
    if flagged:
        raise ProblemsFound(flagged)
    if args.drift:
        held = len(chosen) - sum(len(ids) for ids in unchecked.values())
        out.print(f"{len(chosen)} entries OK; " + ("every source pin holds" if not unchecked else
                                                  f"{held} source pin(s) hold, the others not checked"))
        return 0
    out.print(f"{len(chosen)} entries OK")
    _note_drafts(project, result)
    return 0


def _twins(project: Project, result: LoadResult) -> list[str]:
    """Warnings for entries documenting the same message from the same function: one error
    written twice, unless each says what tells it apart (then the reader is shown both)."""
    seen: dict[tuple[str, str, str], list[LoadedEntry]] = {}
    for one in result.entries:
        entry = one.entry
        seen.setdefault((entry.exception, entry.message, entry.source.function), []).append(one)
    warnings = []
    for (_, _, function), group in sorted(seen.items()):
        if len(group) < 2:
            continue
        first, *others = sorted(group, key=lambda one: one.entry.id)
        for one in others:
            if _told_apart(first.entry, one.entry):
                continue
            line, col = one.positions.of_key(("message",))
            warnings.append(f"{project.rel(one.path)}:{line}:{col}: warning: the same message and function "
                            f"({function}) as {first.entry.id}: one error documented twice? merge them, or say in "
                            "`diagnosis` what tells them apart")
    return warnings


def _told_apart(a: Any, b: Any) -> bool:
    """Both entries say what tells their paste apart (the failing line it shows, or a diagnosis), and
    not the same thing."""
    def clue(entry: Any) -> tuple[Any, ...]:
        said = entry.diagnosis.model_dump_json()
        return tuple(entry.recognised_by), None if said == type(entry.diagnosis)().model_dump_json() else said

    return all(any(part for part in clue(entry)) for entry in (a, b)) and clue(a) != clue(b)


def _diagnosis_problems(project: Project, result: LoadResult) -> list[Any]:
    """Each entry's diagnosis held to its own verified before (errorkb.lookup.lint)."""
    from errorkb.core.problems import Problem
    from errorkb.site.hookindex import diagnosis_cases, project_index

    cases = diagnosis_cases(project, result)
    if not cases:
        return []
    index = project_index(project, [one.entry for one in result.entries])
    from errorkb.lookup.lint import check

    paths = {one.entry.id: one for one in result.entries}
    found = []
    for finding in check(index, cases):
        loaded = paths[finding.entry]
        line, col = loaded.positions.of_key(finding.key)
        found.append(Problem(project.rel(loaded.path), line, col, f"diagnosis: {finding.message}"))
    return found


def _stale_warnings(project: Project, result: LoadResult, pages: list[Any]) -> list[str]:
    """A warning for each entry whose pages read *stale*, with why (`keys.STALE_WHY`) and what else
    lies in its snippet folder: the file a run left there is the likeliest change, and the author
    cannot see it on the page (a test run's leftover once made all of an entry's results stale)."""
    from errorkb.core.snippets import walk
    from errorkb.results.keys import STALE_WHY

    loaded = {one.entry.id: one for one in result.entries}
    warnings = []
    for page in pages:
        checks = sum(1 for record in page.records if page.is_stale(record))
        releases = page.versions.stale if page.versions else ""
        if not checks and not releases:
            continue
        one = loaded[page.entry.id]
        folder = project.snippets / page.entry.id
        snippets = {file for _, file in page.entry.snippet_files()}
        others = sorted(project.rel(Path(top) / name) for top, _, names in walk(folder) for name in names
                        if not (top == os.fspath(folder) and name in snippets))
        said = [f"{checks} verified check(s) are stale"] if checks else []
        said += [f"the version matrix's results are stale {releases}"] if releases else []
        beside = (f"; files of the folder that are not its snippets: {', '.join(others[:5])}"
                  + (f" and {len(others) - 5} more" if len(others) > 5 else "")) if others else ""
        line, col = one.positions.of_key(("id",))
        warnings.append(f"{project.rel(one.path)}:{line}:{col}: warning: {' and '.join(said)}: {STALE_WHY}{beside}; "
                        f"run `errorkb verify {page.entry.id}`" + (" and `errorkb matrix`" if releases else ""))
    return warnings


def _rendering_problems(project: Project, result: LoadResult, memo: bool = False) -> tuple[list[Any], list[Any]]:
    """Every page the site generates, rendered with the site's Markdown settings within the budget,
    in a child process (errorkb.site.budget): a page past it, or that makes the renderer raise, is
    a problem at the field (or snippet) that does it. With `memo`, a page that rendered within the
    budget before with the same bytes and renderer is not rendered again (errorkb.site.rehearsed;
    never where the run is untrusted). With the entry pages' models, which say what is stale."""
    from errorkb.core.problems import Problem
    from errorkb.plugs import runtime_for
    from errorkb.results.report import read_reports
    from errorkb.site import budget, rehearsed
    from errorkb.site.files import site_files
    from errorkb.site.settings import config_file
    from errorkb.verify.cache import Trust, resolve_trust

    reports, unreadable = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    for said in unreadable:  # what the site's build says of the reports: never silence from the check
        err.print(f"warning: {said}", markup=False)
    pages, files = site_files(project, result, reports)
    sources = {file.path: file.source for file in files}
    config = config_file(project.root)  # a FIFO or a folder named mkdocs.yml is no absent file: reading it says
    trusted = memo and resolve_trust(Trust.AUTO) is Trust.TRUSTED
    try:
        verdicts, _ = rehearsed.rehearse(budget.rehearsals(project, result, pages, files), config,
                                         rehearsed.Rehearsed(project.cache_dir, trusted) if trusted else None)
    except budget.SettingsUnreadable as error:
        return [Problem(project.rel(project.root / "mkdocs.yml"), 1, 1, f"cannot read the site's Markdown settings "
                                                                         f"to render the pages ({error}); fix "
                                                                         "mkdocs.yml")], pages
    found = [Problem(*budget.problem(verdict, sources.get(verdict.key))) for verdict in verdicts if not verdict.ok]
    return found, pages


def _note_drafts(project: Project, result: LoadResult) -> None:
    """Entries that load but still hold TODOs (stubs of `errorkb new`): named, not failed."""
    from errorkb.author.todo import unfinished

    drafts = [one.entry.id for one in result.entries if unfinished(one, project)]
    if drafts:
        err.print(f"{len(drafts)} draft(s) with TODOs left: {', '.join(drafts)} (errorkb verify ID lists them)",
                  markup=False)


def cmd_matrix(project: Project, args: argparse.Namespace) -> int:
    from errorkb.core.releases import final_release
    from errorkb.results import matrix as files
    from errorkb.results.keys import project_inputs
    from errorkb.results.store import Refused
    from errorkb.verify import matrix
    from errorkb.verify.cache import Trust, resolve_trust

    for asked in args.release or []:  # one the matrix cannot run is refused, never dropped without a word
        try:
            final_release(asked)
        except ValueError as error:
            return _usage("matrix", f"--release {error}")
    shard = args.shard
    result = _load_or_report(project)
    settings = project.matrix
    if args.environments_only:
        return _build_environments(project, result.entries, args, shard)
    releases = files.sort_releases(args.release or settings.releases or [], "0")
    if not releases:  # no bound: say what it would run, run nothing
        try:
            found = matrix.discover_releases(project.library.dist, settings.since)
        except RuntimeError as error:
            return _usage("matrix", f"[tool.errorkb.matrix] names no releases, and {_one_line(error)}; bound the "
                                    "matrix with releases = [...] in [tool.errorkb.matrix], or --release X")
        shown = ", ".join(found[:8]) + (f", … {found[-1]}" if len(found) > 8 else "")
        return _usage("matrix", f"[tool.errorkb.matrix] names no releases: it would run all {len(found)} releases of "
                                f"{project.library.dist} since {settings.since} ({shown or 'none found'}); bound it "
                                "with releases = [...] (or since) in [tool.errorkb.matrix], or --release X")
    if shard:
        releases = matrix.shard_releases(releases, *shard)
        err.print(f"shard {shard[0]}/{shard[1]}: {len(releases)} release(s): {', '.join(releases) or 'none'}",
                  markup=False)
    trust = resolve_trust(args.cache)
    if trust is Trust.UNTRUSTED:
        err.print(f"errorkb matrix: the verdict cache is not trusted here ({_why_untrusted(args.cache)}): "
                  "every check runs", markup=False)
    try:
        data = matrix.run_matrix(project, result.entries, releases, ids=args.ids or None, rebuild=args.rebuild,
                                 cache=trust is Trust.TRUSTED, parallel=args.parallel,
                                 progress=lambda message: err.print(message, markup=False), shard=shard)
    except Refused as refused:
        err.print(f"errorkb matrix: {refused}", markup=False)
        return 1
    entries = {one.entry.id: one.entry for one in result.entries}
    for entry_id in sorted(args.ids or entries):
        summary = files.summarize(entry_id, data, project_inputs(project, entries[entry_id])
                                  if entry_id in entries else None)
        if summary is None:
            continue
        if summary.not_run:
            out.print(f"{entry_id}: not run in any release ({summary.not_run})", markup=False)
            continue
        raises = files.describe_spans(summary.raises) or f"none of the {summary.tested} releases"
        fixed = f"; fixed in {summary.fixed_in}" if summary.fixed_in else ""
        out.print(f"{entry_id}: raises in {raises}{fixed}", markup=False)
        disagree = summary.disagreements(entries[entry_id]) if entry_id in entries else []
        if disagree:
            declared = entries[entry_id].releases.raises  # type: ignore[union-attr]  # a claim: it disagrees
            err.print(f"{entry_id}: declared to raise in {declared}, but the matrix disagrees in "
                      f"{', '.join(disagree)}", markup=False)
    failed = [status for status in data.releases if status.release in releases and not status.ran]
    for status in failed:
        err.print(f"{status.release}: {status.error}", markup=False)
    out.print(f"{len(releases) - len(failed)} of {len(releases)} releases ran — report: "
              f"{project.rel(files.matrix_path(project))}", markup=False)
    _say_if_index_stale(project, [one.entry for one in result.entries], "errorkb matrix")
    return 0


def _say_if_index_stale(project: Project, entries: list[Entry], command: str) -> None:
    """The hook index carries the matrix's raise lines: a run that changed them leaves it stale (CI's
    `hook index --check` then fails), so the author hears it here, with the command that mends it."""
    from errorkb.site.hookindex import NoIndexFile, index_file, not_an_index, stale

    try:
        path = index_file(project)
    except NoIndexFile:  # a knowledge base that ships no index
        return
    why = not_an_index(path)
    if why or stale(project, entries, path):
        said = f"is not the index ({why})" if why else "is now stale"
        err.print(f"{command}: {project.rel(path)} {said}: run `errorkb hook index` and commit it", markup=False)


def _why_untrusted(choice: str) -> str:
    from errorkb.verify.cache import untrusted_here

    return "--cache untrusted" if choice == "untrusted" else (untrusted_here() or "--cache auto")


def _build_environments(project: Project, loaded: list[LoadedEntry], args: argparse.Namespace,
                        shard: tuple[int, int] | None = None) -> int:
    """The release environments the entries' pins need (those not installed here), built once each, with
    the environments of their checks' older `requires:` layered on them (`ensure_pins`)."""
    from concurrent.futures import ThreadPoolExecutor

    from errorkb.results.matrix import sort_releases
    from errorkb.verify import matrix
    from errorkb.verify.targets import installed_version

    installed = installed_version(project.library)
    pinned = {one.entry.source.release for one in loaded
              if one.entry.source.release and not one.entry.source.runtime}  # a runtime's release is no library's
    releases = sort_releases(args.release or sorted(pinned - {installed}), "0")
    if shard:
        releases = matrix.shard_releases(releases, *shard)
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        envs = list(pool.map(lambda release: matrix.ensure_env(project, release, rebuild=args.rebuild), releases))
    pins_failed = []
    for env in envs:
        if env.python is None:
            err.print(f"{project.library.dist} {env.release}: {env.error}", markup=False)
            continue
        # the environments of the older `requires:` layered on it, as a run of the matrix builds them
        checks = matrix.release_checks(project, loaded, env.release, None)
        for problem in matrix.ensure_pins(project, env, checks, retry=args.rebuild):
            pins_failed.append(problem)
            err.print(problem, markup=False)
    built = sum(env.python is not None for env in envs)
    out.print(f"{built} of {len(envs)} release environments ready under "
              f"{project.rel(project.cache_dir / 'matrix')}", markup=False)
    return 0 if built == len(envs) and not pins_failed else 1


def cmd_coverage(project: Project, args: argparse.Namespace) -> int:
    """Raise sites and their entries, each entry with where it stands, and per file how many sites are documented
    and how many of those verified: the coverage page's figures (`render.coverage_counts`), never a documented
    site read as a verified one."""
    from errorkb.site import render
    from errorkb.site.terminal import entry_pages
    from errorkb.source.coverage import coverage

    result = _load_or_report(project)
    table = coverage(result.entries, project)
    standing = render.coverage_standing(entry_pages(project, result))

    def stands(ids: Iterable[str]) -> dict[str, str]:
        return {entry: standing[entry].label for entry in ids if entry in standing}

    if args.json:
        print_json({"files": [
            {"path": one.path, "release": one.release, "followed": one.followed, "sites": one.sites,
             "implicit": one.implicit, "implicit_standing": stands(one.implicit),
             **{name: getattr(counts, name) for name in ("documented", "verified", "implicit_verified")},
             "rows": [{"line": r.site.line, "function": r.site.function, "exception": r.site.exception,
                       "entries": list(r.entries), "standing": stands(r.entries), "exemption": r.exemption}
                      for r in one.rows]}
            for one in table.files for counts in [render.coverage_counts(one, standing)]]})
    else:
        def named(ids: Iterable[str]) -> str:  # each entry with where it stands, in its badges' words
            return ", ".join(f"{entry} ({standing[entry].icon} {standing[entry].label})" if entry in standing
                             else entry for entry in ids)

        for one in table.files:
            out.print(f"{one.path} ({one.release})" + ("" if one.followed else " — documented sites only"),
                      markup=False)
            for row in one.rows:
                status = named(row.entries) or (f"exempt: {row.exemption}" if row.exemption else "MISSING")
                out.print(f"{row.site.line:>5}  {row.site.function:<45} {row.site.exception or '':<13} {status}",
                          markup=False)
            counts = render.coverage_counts(one, standing)
            of = f" of {one.sites}" if one.sites is not None else ""
            out.print(f"  {counts.documented}{of} raise sites documented, {counts.verified} of them verified"
                      + (f"; {counts.implicit} implicit errors documented too, {counts.implicit_verified} of them "
                         f"verified: {named(one.implicit)}" if one.implicit else ""), markup=False)
        out.print("verified: on at least one target and device, on the entry and snippets as they are now "
                  "(`errorkb show ID` says why an entry is not)", markup=False)
    for problem in table.problems:
        err.print(str(problem), markup=False)
    return 1 if table.problems else 0


def cmd_schema(args: argparse.Namespace) -> int:
    if args.profile_reference:
        from errorkb.core.project import reference_markdown

        print(reference_markdown(), end="")
        return 0
    if args.check_record:
        import json

        from errorkb.results.records import CheckRecord

        print(json.dumps(CheckRecord.model_json_schema(), indent=2))
        return 0
    import json

    from errorkb.core.entry import Entry

    print(json.dumps(Entry.model_json_schema(), indent=2))
    return 0


def cmd_verify(project: Project, args: argparse.Namespace) -> int:
    refused = _verify_usage(project, args)
    if refused:
        return _usage("verify", refused)
    if args.watch:
        return _verify_watching(project, args)
    return _verify_round(project, args)


def _verify_watching(project: Project, args: argparse.Namespace) -> int:
    """`verify --watch`: a round now and after every save, the zygotes kept warm between rounds
    (`errorkb/verify/watch.py`). Without a cache (`--no-cache`, or one not trusted here) the
    rounds share a cache of this process's own, so a save still re-runs only what it changed."""
    import tempfile

    from errorkb.core.problems import ProblemsFound
    from errorkb.results.report import STANDING
    from errorkb.verify.cache import Trust, resolve_trust
    from errorkb.verify.watch import watch

    human = err if args.json else out
    # The folders a round writes, made before the first round's sandbox is: it hides only folders that
    # exist, and the zygotes are kept only while a new sandbox would hide no more (watch.Kept).
    written = [(args.report or project.reports / STANDING).parent]
    if resolve_trust(args.cache) is Trust.TRUSTED:
        written.append((args.cache_dir or project.cache_dir) / "verify")
    else:  # what a round re-runs is the verdict key's to decide: say what stands in for the cache
        choice = "--no-cache" if resolve_trust(args.cache) is Trust.OFF else _why_untrusted(args.cache)
        human.print(f"errorkb verify --watch: the verdict cache is off ({choice}): the rounds share a cache "
                    "of its own, deleted when it ends, so a save re-runs only the checks it changed",
                    markup=False)
    for folder in written:
        folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="errorkb-watch-") as own:
        (Path(own) / "verify").mkdir()

        def one_round(kept: Any) -> int:
            try:
                return _verify_round(project, args, kept, Path(own))
            except ProblemsFound as found:  # a broken entry: say where, and keep watching
                for problem in found.problems:
                    err.print(str(problem), markup=False)
                return 1

        return watch(project, one_round, lambda line: human.print(line, markup=False))


def _write_junit(path: Path | None, report: Report) -> bool:
    """`--junit PATH`, written as reports are (atomically: never into a FIFO there, which blocked the run at
    its end); False, said in one line, when it cannot be written."""
    from errorkb.results import store
    from errorkb.verify import output

    if path is None:
        return True
    try:
        with store.locked(path.parent):
            store.replace(path, output.junit_xml(report).decode("utf-8"))
    except OSError as error:
        err.print(f"errorkb verify: cannot write the JUnit file {path} ({error.strerror or error}); the verdicts "
                  "are in the report", markup=False)
        return False
    return True


def _verify_round(project: Project, args: argparse.Namespace, kept: Any = None, own_cache: Path | None = None) -> int:
    """One `errorkb verify`: load, verify, print, write the report."""
    from errorkb.results.records import Outcome
    from errorkb.results.report import (
        STANDING,
        ReportError,
        dropped_said,
        existing_report,
        update_standing,
        write_report,
    )
    from errorkb.results.store import LEADS_OUT, Refused
    from errorkb.verify import output
    from errorkb.verify.cache import Trust, resolve_trust
    from errorkb.verify.engine import verify
    from errorkb.verify.plan import UnreadableSnippet

    result = _load_or_report(project)
    known = sorted(result.by_id())
    unknown = [entry_id for entry_id in args.ids if entry_id not in known]
    for entry_id in unknown:
        close = _close(entry_id, known, n=1)
        err.print(f"errorkb verify: no entry '{entry_id}'" + (f" (did you mean '{close[0]}'?)" if close else ""),
                  markup=False)
    shard = args.shard
    if unknown:
        return 2
    human = err if args.json else out
    path = args.report or project.reports / STANDING
    try:  # read now for the summary's comparison; merged again with what is there when the run ends
        previous = existing_report(path)
    except ReportError as error:
        recover = "" if error.advised else (f" To recover: restore it (git checkout {project.rel(path)}) or move "
                                            "it away")  # an advised error says what works for it, and only that
        err.print(f"errorkb verify: {error}; nothing was run, nothing replaced.{recover}", markup=False)
        return 1
    trust = resolve_trust(args.cache)
    if trust is Trust.UNTRUSTED and own_cache is None:
        human.print(f"errorkb verify: the verdict cache is not trusted here ({_why_untrusted(args.cache)}): "
                    "every check runs", markup=False)
    cache_dir = None if trust is Trust.OFF else (args.cache_dir or project.cache_dir)
    if own_cache is not None and trust is not Trust.TRUSTED:  # watching: this process's own cache instead
        cache_dir, trust = own_cache, Trust.TRUSTED

    from errorkb.verify.engine import Interrupted
    from errorkb.verify.modes import SandboxUnavailable, python_caveat

    if (caveat := python_caveat(tuple(sys.version_info[:2]))) is not None:
        err.print(caveat, markup=False)
    interrupted: Interrupted | None = None
    try:
        with _progress(human, enabled=human.is_terminal) as progress, _sigterm_interrupts():
            fresh = verify(project, result.entries, ids=args.ids or None, targets=args.target, devices=args.device,
                           jobs=args.jobs, isolation=args.isolation, shard=shard, timeout=args.timeout,
                           cache_dir=cache_dir, on_start=progress.start, on_result=progress.advance,
                           upstream=args.upstream, kinds=args.kinds, sandbox=args.sandbox, trust=trust, kept=kept)
    except Interrupted as stopped:  # a time limit's SIGTERM, or Ctrl-C: the checks that finished are kept
        interrupted, fresh = stopped, stopped.report
    except UnreadableSnippet as error:
        err.print(f"errorkb verify: {error}", markup=False)
        return 1
    except SandboxUnavailable as why:
        err.print(f"errorkb verify: --sandbox require, but the sandbox cannot be created here: {why}", markup=False)
        return 2
    for record in sorted(fresh.checks, key=lambda r: r.id):
        if record.outcome is Outcome.FAIL:
            human.print(output.failure_view(record, project.root), markup=False, style="red")
    try:  # the report first: a JUnit file that cannot be written must not take the run's verdicts with it
        written = write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, set(known)))
    except Refused as refused:
        err.print(f"errorkb verify: {refused}", markup=False)
        _write_junit(args.junit, fresh)
        return 1
    for line in dropped_said(written, project.rel(path)):  # records of entries removed or renamed: never silently
        err.print(f"errorkb verify: {line}", markup=False)
    if not _write_junit(args.junit, fresh):
        return 1
    if interrupted is not None:
        err.print(f"errorkb verify: interrupted: {len(fresh.checks)} of {interrupted.planned} checks had finished; "
                  f"their verdicts are in {project.rel(path)}, the others were not run (run the command again: "
                  "the verdict cache answers the finished ones)", markup=False)
        return 130
    for line in output.summary_lines(fresh, previous, project.rel(path)):
        human.print(line, markup=False)
    tracked = ((fresh.run or {}).get("cache") or {}).get("tracked")
    if tracked:  # `cache.tracked_records`: committed under a public key, nobody's verdict
        folder = project.rel((cache_dir or project.cache_dir) / "verify")
        err.print(f"errorkb verify: {tracked} record(s) in {folder} are tracked by git, so none was reused (the "
                  f"harness alone writes the verdict cache, never a commit): git rm -r --cached {folder}",
                  markup=False)
    foreign = ((fresh.run or {}).get("cache") or {}).get("foreign")
    if foreign:  # `cache._anothers`: records someone else could have written, never reused
        folder = project.rel((cache_dir or project.cache_dir) / "verify")
        err.print(f"errorkb verify: {foreign} record(s) in {folder} belong to another user or may be written by "
                  "others, so none was reused (errorkb writes its records as you, writable by you alone); the checks "
                  "ran, and their new records replace them", markup=False)
    unusable = ((fresh.run or {}).get("cache") or {}).get("unusable")  # `VerdictCache.unusable`: why
    if unusable == LEADS_OUT:  # a link out of its folder
        folder = project.rel((cache_dir or project.cache_dir) / "verify")
        err.print(f"errorkb verify: {folder}, or the cache folder holding it, is a link (a committed one) that leads "
                  "out of the folder holding it, so no verdict was read from it nor stored through it; remove the "
                  "link", markup=False)
    elif unusable:
        folder = project.rel((cache_dir or project.cache_dir) / "verify")
        err.print(f"errorkb verify: the verdict cache {folder} {unusable}; the verdicts stand. Make it a folder "
                  "errorkb can write (move away a file in its place), or run with --no-cache", markup=False)
    for line in _still_missing(project, result, args.ids, fresh):
        human.print(line, markup=False)
    idle = _nothing_applicable(project, args.ids, fresh)
    for line in idle:
        err.print(line, markup=False)
    if args.json:
        print_json(fresh.model_dump(mode="json", by_alias=True, exclude_none=True))
    return 1 if fresh.counts()[Outcome.FAIL] or idle else 0


class _sigterm_interrupts:
    """SIGTERM (a CI job's or `timeout`'s limit) stops the run as Ctrl-C does, so what finished is written."""

    def __enter__(self) -> None:
        import signal

        self.earlier: Any = None
        try:
            self.earlier = signal.signal(signal.SIGTERM, _interrupt)
        except ValueError:  # not the main thread (a test's): the default stays
            pass

    def __exit__(self, *exc: object) -> None:
        import signal

        if self.earlier is not None:
            signal.signal(signal.SIGTERM, self.earlier)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _nothing_applicable(project: Project, ids: list[str], fresh: Any) -> list[str]:
    """For each entry asked for by id of which no check applies on the targets run: what was not
    applicable, and the target to run it on (a contributor asked for it; nothing was verified)."""
    from errorkb.results.records import TARGETS, Outcome

    lines = []
    for entry_id in ids:
        mine = [record for record in fresh.checks if record.entry == entry_id]
        if not mine or any(record.outcome is not Outcome.NOT_APPLICABLE for record in mine):
            continue
        ran = sorted({record.target for record in mine})
        others = [target for target in TARGETS if target not in ran
                  and (target != "bundled" or project.library.bundled is not None)]
        where = (f"run it there: errorkb verify {entry_id} --target {others[0]}" if others
                 else "no other target applies")
        lines.append(f"errorkb verify: nothing of {entry_id} was verified: none of its {len(mine)} checks applies on "
                     f"the {' and '.join(ran)} target ({mine[0].reason.splitlines()[0]}); {where}")
    return lines


def _verify_usage(project: Project, args: argparse.Namespace) -> str | None:
    """Why the devices and targets asked for cannot be verified here (before anything runs), or None."""
    from errorkb.plugs import runtime_for

    devices = runtime_for(project.library.runtime).devices
    wrong = [device for device in args.device or [] if device not in devices]
    if wrong:
        return (f"--device {wrong[0]}: the {project.library.runtime} runtime has no such device "
                f"(its devices: {', '.join(devices)})")
    if project.library.bundled is None and "bundled" in (args.target or []):
        return ("--target bundled: the profile names no bundled implementation ([tool.errorkb.library] bundled); "
                "use --target upstream")
    return None


def _still_missing(project: Project, result: LoadResult, ids: list[str], fresh: Any) -> list[str]:
    """For each entry asked for by id, or still holding a TODO: what stands between it and a
    finished entry, in the order to do it (TODO prose, TODO comments such as placeholders to
    confirm, TODO lines of snippets), then its checks that do not pass yet."""
    from errorkb.author.todo import unfinished
    from errorkb.results.records import Outcome
    from errorkb.verify.output import UNREAD, unread_message

    lines = []
    for one in result.entries:
        todo = unfinished(one, project)
        if one.entry.id not in ids and not todo:
            continue
        failing = [r for r in fresh.checks if r.entry == one.entry.id and r.outcome is Outcome.FAIL]
        order = {role: place for place, (role, _) in enumerate(one.entry.snippet_files())}
        items = [f"{m.where}: {m.what}" for m in todo]
        items += [f"{r.snippet}{f':{r.snippet_line}' if r.snippet_line else ''}: {r.role} [{r.target}-{r.device}] "
                  + (f"raises, but its message could not be read: {UNREAD}" if unread_message(r) else
                     f"does not {'raise as documented' if r.role == 'before' else 'pass'} yet: "
                     f"{r.reason.splitlines()[0]}")
                  for r in sorted(failing, key=lambda r: (order.get(r.role, 9), r.id))]
        if items:
            lines.append(f"still missing for {one.entry.id}, in order:")
            lines += [f"  {number}. {item}" for number, item in enumerate(items, 1)]
    return lines


class _progress:
    """A rich progress bar on a terminal, nothing elsewhere (CI logs, pipes, --json)."""

    def __init__(self, console: Console, enabled: bool):
        self.console, self.enabled = console, enabled
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> _progress:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TimeRemainingColumn(), console=self.console, transient=True)
            self.bar.__enter__()
        return self

    def start(self, total: int) -> None:
        if self.bar is not None:
            self.task = self.bar.add_task("verify", total=total)

    def advance(self, record: object) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def cmd_report_merge(project: Project, args: argparse.Namespace) -> int:
    """Verification reports or version-matrix files (never both at once) merged into OUT."""
    from errorkb.core.load import load_project_entries
    from errorkb.results import matrix
    from errorkb.results.report import (
        ReportError,
        disagreements,
        future_dated,
        merge,
        of_known_entries,
        of_own_shards,
        read_report,
        write_report,
    )
    from errorkb.results.store import Refused, Unreadable
    from errorkb.verify.plan import shard_of

    kinds = {_file_kind(path) for path in args.inputs}
    if len(kinds) != 1:
        err.print("errorkb report merge: give verification reports or version-matrix files, not both "
                  f"({', '.join(f'{path}: {_file_kind(path)}' for path in args.inputs)})", markup=False)
        return 2
    try:
        if kinds == {"matrix"}:
            files = []
            for path in args.inputs:
                one = matrix.load_matrix(path)
                if one is None:
                    raise matrix.MatrixError(f"{path}: no such file")
                files.append(one)
            matrix.same_package(zip(args.inputs, files, strict=True))
            for said in matrix.split_checked(list(zip((str(path) for path in args.inputs), files, strict=True)),
                                             args.complete):
                err.print(f"errorkb report merge: {said}", markup=False)
            _say_differing(matrix.disagreements(list(zip((str(path) for path in args.inputs), files, strict=True))),
                           "entries and releases measured differently")
            joined = matrix.merge_files(files, [str(path) for path in args.inputs])
            data = matrix.write_matrix(args.output, joined.package, joined.releases, joined.results, judged_here=False,
                                      keeping=joined)
            out.print(f"merged {len(files)} matrix files: {len(data.releases)} releases, {len(data.results)} "
                      f"results — {args.output}", markup=False)
            return 0
        reports = [read_report(path) for path in args.inputs]
        reports, foreign = of_known_entries(list(zip((str(path) for path in args.inputs), reports, strict=True)),
                                            load_project_entries(project).ids())
        for said in foreign:
            err.print(f"errorkb report merge: {said}", markup=False)
        reports, claimed = of_own_shards(list(zip((str(path) for path in args.inputs), reports, strict=True)),
                                         shard_of)
        for said in claimed:
            err.print(f"errorkb report merge: {said}", markup=False)
        named = list(zip((str(path) for path in args.inputs), reports, strict=True))
        for said in future_dated(named):
            err.print(f"errorkb report merge: {said}", markup=False)
        _say_differing(disagreements(named), "checks measured both failing and passing")
        names = [str(path) for path in args.inputs]
        merged = write_report(args.output, merge(reports, names), lambda on_disk, run: merge(
            [on_disk, *reports], [str(args.output), *names]) if on_disk else run)
    except (ReportError, Unreadable, Refused) as error:
        err.print(f"errorkb report merge: {error}", markup=False)
        return 1
    counts = merged.counts()
    out.print(f"merged {len(reports)} reports: {len(merged.checks)} checks ({counts['pass']} passed, "
              f"{counts['fail']} failed, {counts['not-run']} not run) — {args.output}", markup=False)
    return 0


_SHOWN = 10  # checks a merge names one per line; the rest are counted


def _say_differing(differing: list[str], what: str) -> None:
    """What the merge's inputs measured differently: `_SHOWN` lines, then how many more `what`."""
    for said in [*differing[:_SHOWN], *([f"... and {len(differing) - _SHOWN} more {what}"]
                                        if len(differing) > _SHOWN else [])]:
        err.print(f"errorkb report merge: {said}", markup=False)


def _file_kind(path: Path) -> str:
    """'matrix' for a version-matrix file (its header names a package), 'report' for anything
    else (a verification report's names its verifier; whatever it is, reading it says)."""
    if not path.is_file():  # (never opened: a FIFO would block; reading it as a report says what it is)
        return "report"
    try:  # without blocking, and looked at again once open: a FIFO swapped in since the look blocked here
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return "report"
            head = handle.read(4096)
    except OSError:
        return "report"
    header = re.split(rb'"(?:checks|releases|results)"', head, maxsplit=1)[0]  # records name verifiers too
    return "matrix" if b'"package"' in header and b'"verifier"' not in header else "report"



# -- lookup and show: from an index, anywhere ----------------------------------------------------


class _Source:
    """Where `lookup` and `show` read the knowledge base: indexes (every installed knowledge base's,
    or `--index`), or a knowledge base's checkout whose entries its index does not hold yet
    (`--root`, or the folder the command runs in)."""

    def __init__(self, indexes: list[Index], project: Project | None = None, note: str = "", built: bool = False,
                 problems: tuple[Problem, ...] = ()):
        self.indexes, self.project, self.note = indexes, project, note
        self.index = indexes[0]  # the one `show` and the answer use, until `holding` or `answer` picks another
        self.built = built  # made from the checkout's entries (its index holds other ones)
        self.problems = problems  # of the checkout's entries that did not load

    def holding(self, entry_id: str) -> Index | None:
        """The first index with that entry (now `self.index`), or None."""
        found = next((index for index in self.indexes if entry_id in index.items), None)
        self.index = found or self.index
        return found

    def answer(self, text: str, release: str | None) -> Answer:
        """The best answer of the indexes (a confirmed one, else one with candidates, else the first's);
        `self.index` becomes the index that gave it."""
        answers = [(index.lookup().answer(text, release), index) for index in self.indexes]
        best, self.index = max(answers, key=lambda pair: (bool(pair[0].confirmed), bool(pair[0].matches)))
        return best


def _checkout(start: Path) -> Path | None:
    """The knowledge base's checkout the command runs in: the nearest folder with a pyproject.toml
    that has a [tool.errorkb] section (read as text: no TOML or settings model imported here)."""
    from errorkb.core.filebytes import SETTINGS_BYTES, read_bounded  # (standard library only: a fast start)

    for folder in (start, *start.parents):
        pyproject = folder / "pyproject.toml"
        if os.path.lexists(pyproject):  # a FIFO there blocked `lookup` and `show` for ever: never opened
            try:
                text = read_bounded(pyproject, SETTINGS_BYTES).decode("utf-8", errors="replace")
            except OSError:
                return folder  # loading it says what it is (`load_project`)
            return folder if "[tool.errorkb" in text else None
        if os.path.lexists(folder / "mkdocs.yml"):
            return None
    return None


def _diagnosis_source(args: argparse.Namespace) -> _Source:
    """`--index`, else the checkout's own index when it holds the checkout's entries, else an index of
    the checkout's entries made now, else (outside a checkout) every installed knowledge base's
    index. Raises IndexUnavailable (one line) when no index can be read."""
    from errorkb.lookup import NO_INDEX, IndexUnavailable, load_index, load_indexes

    if args.index is not None:
        return _Source([load_index(args.index)])
    root = Path(args.root) if args.root else _checkout(Path.cwd())
    if root is None:
        installed = load_indexes()
        if not installed:
            raise IndexUnavailable(NO_INDEX)
        return _Source(installed)
    from errorkb.core.project import load_project
    from errorkb.lookup.build import entries_digest
    from errorkb.site.hookindex import entry_files

    project = load_project(root)
    files = entry_files(project)
    own = None
    if files and project.index is not None and project.index.is_file():
        try:
            own = load_index(project.index)
        except IndexUnavailable:
            own = None
    if own is not None and own.digest == entries_digest(files):
        return _Source([own], project)
    from errorkb.core.load import load_project_entries
    from errorkb.site.hookindex import project_index

    loaded = load_project_entries(project)
    note = f"{len(loaded.problems)} problem(s) in the entries (see errorkb check); looking among the entries " \
           "that load" if loaded.problems else ""
    return _Source([project_index(project, [one.entry for one in loaded.entries])], project, note, built=True,
                   problems=tuple(loaded.problems))


def _read_message(args: argparse.Namespace) -> str:
    if args.message == "-":
        return _read_input("-")
    # an argument holding bytes that are not UTF-8 arrives surrogate-escaped: read them as a paste's are
    message: str = args.message
    if "\n" not in message and os.path.isfile(message):  # a saved traceback, as `new --from-traceback` takes
        _say(f"errorkb lookup: matching the text of the file {message}")
        return _read_input(message)
    return message.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def cmd_lookup(args: argparse.Namespace) -> int:
    """The paste box's answer in a terminal: exit 0 confirmed, 3 only candidates, 1 none, 2 bad usage."""
    from errorkb.core.problems import ProblemsFound
    from errorkb.lookup import IndexUnavailable

    try:
        text = _read_message(args)
    except _EndlessInput as error:
        _say(f"errorkb lookup: {error}")
        return 2
    except OSError as error:  # a file named as the message that cannot be read
        _say(f"errorkb lookup: cannot read {args.message}: {error.strerror or error}")
        return 2
    if not text.strip():
        _say("errorkb lookup: give a message, or pipe one in")
        return 2
    try:
        source = _diagnosis_source(args)
    except (IndexUnavailable, ProblemsFound) as error:
        _say(f"errorkb lookup: {_one_line(error)}")
        return 2
    if source.note:
        _say(f"errorkb lookup: {source.note}")
    answer = source.answer(text, args.release)
    if answer.cut:
        _say(f"errorkb lookup: the paste is long; read its last {answer.kept:,} characters ({answer.cut:,} cut "
             "from the start)")
    if args.json:
        print_json(_answer_json(answer, source.index))
        return _lookup_status(answer)
    confirmed, candidates = answer.confirmed, answer.candidates
    if confirmed:
        for match in confirmed if args.all else confirmed[:1]:
            _print_match(match, source.index)
        if len(confirmed) == 1 or not args.all:
            _print(_show_text(source.index, confirmed[0].known.id), wrap=False)
        if not args.all and len(answer.matches) > 1:
            _say(f"({len(answer.matches) - 1} more match; --all lists them)")
    elif candidates:
        _print("possibly (not confirmed: the message alone is printed by other errors too):")
        for match in candidates if args.all else candidates[:5]:
            _print_match(match, source.index)
    if args.all or not answer.matches:  # with nothing matched, why the entry its words fit is not the answer
        for ruled in answer.ruled_out:
            _print(f"ruled out: {ruled.match.known.id}: {ruled.reason}")
    if not answer.matches:
        _say("errorkb lookup: no entry matches this message")
        if source.project is not None:
            from errorkb.core.load import load_project_entries

            _print_nearest(source.project, text, [one.entry for one in load_project_entries(source.project).entries])
        elif source.index.site:
            _say(f"every entry: {source.index.site}errors/")
    return _lookup_status(answer)


def _lookup_status(answer: Answer) -> int:
    return 0 if answer.confirmed else 3 if answer.matches else 1


def _print(text: str, wrap: bool = True) -> None:
    """A line (or lines) of `lookup` / `show`: prose wrapped to the terminal (`_fill`); `wrap=False` for
    text that is wrapped already and holds code, which a fold would break."""
    print(terminal_text(_fill(text) if wrap else text))


def _width() -> int | None:
    """The columns to wrap to on a terminal (COLUMNS first, as `shutil` reads it); None into a pipe or
    a file, where a line stays whole: `grep` finds a message, and a CI log's viewer wraps it itself."""
    import shutil

    if not sys.stdout.isatty():
        return None
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def _fill(text: str, width: int | None = None, hang: str = "  ") -> str:
    """Each line of `text` wrapped at word boundaries to the terminal, continued under its own indent
    plus `hang`. A word longer than a line (an address, a path) is never broken: it stays whole to
    copy, and a terminal folds only that one."""
    import textwrap

    width = width or _width()
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        out += textwrap.wrap(line, width, subsequent_indent=indent + hang, break_long_words=False,
                             break_on_hyphens=False) or [line]
    return "\n".join(out)


_NOT_PROSE = re.compile(r"\s*(?:[-*+] |\d+[.)] |```|~~~|\||>)|    ")


def _refill(markdown: str, width: int | None = None) -> str:
    """An entry's Markdown prose for a terminal: a paragraph of plain lines (broken where its author's
    editor broke them, often past 80) is joined and wrapped again; a list, a table, a quote or code keeps
    its lines, each wrapped on its own (`_fill`)."""
    width = width or _width()
    if width is None:  # a pipe: the author's lines, as written
        return markdown.strip("\n")
    blocks = []
    for block in re.split(r"\n[ \t]*\n", markdown.strip("\n")):
        lines = block.split("\n")
        if any(_NOT_PROSE.match(line) for line in lines):
            blocks.append(_fill(block, width))
        else:
            blocks.append(_fill(" ".join(line.strip() for line in lines), width, hang=""))
    return "\n\n".join(blocks)


def _say(text: str) -> None:
    print(terminal_text(text), file=sys.stderr)


def _one_line(error: BaseException) -> str:
    from errorkb.core.problems import ProblemsFound

    if isinstance(error, ProblemsFound):
        return "; ".join(str(problem) for problem in error.problems)
    return " ".join(str(error).split())


def _match_json(match: Match, index: Index) -> dict[str, Any]:
    from errorkb.lookup import hint_json

    wording, release = match.matched, match.release
    return {"id": match.known.id, "title": match.known.title, "grade": match.grade.value,
            "exception": match.known.exception, "function": match.known.function, "url": index.page(match.known.id),
            "values": match.values, "exact": match.exact,
            "wording": {"index": match.wording, "message": wording.message, "exception": wording.exception,
                        "releases": wording.releases, "device": wording.device, "note": wording.note},
            "evidence": [{"kind": one.kind, "detail": one.detail} for one in match.evidence],
            "missing": list(match.missing),  # the page's words; `hints`: each one's code and the command line's words
            "hints": [hint_json(hint, "cli") for hint in match.missing],
            "other_causes": [{"releases": cause.releases, "note": cause.note, "message": cause.message,
                              "same_frames": cause.same_frames} for cause in match.others],
            "release": None if release is None else {"releases": list(release.releases), "source": release.source,
                                                     "range": release.range, "raises": release.raises,
                                                     "advice": release.advice}}


def _answer_json(answer: Answer, index: Index) -> dict[str, Any]:
    """docs/api.md: confirmed matches and candidates kept apart, with the evidence of each."""
    return {"confirmed": [_match_json(m, index) for m in answer.confirmed],
            "candidates": [_match_json(m, index) for m in answer.candidates],
            "ruled_out": [{"id": r.match.known.id, "reason": r.reason} for r in answer.ruled_out],
            "release": None if answer.release is None else {"release": answer.release,
                                                            "source": answer.release_source},
            "cut": answer.cut, "index": index.where}


def _print_nearest(project: Project, text: str, entries: list[Any]) -> None:
    """The three entries whose messages or titles read most like the paste, and the site."""
    from errorkb.site.terminal import nearest, page_address

    near = nearest(text, entries)
    if near:
        err.print("the nearest entries:", markup=False)
        for one in near:
            err.print(f"  {one.entry.id}  {one.entry.title}  ({one.score:.0%} alike)", markup=False)
            err.print(f"    {one.entry.exception}: {one.entry.message}", markup=False)
            err.print(f"    {page_address(project, one.entry)}", markup=False)
    if project.site_url:
        err.print(f"every entry: {project.site_url}errors/ — not there? errorkb new ID --from-traceback - "
                  "(docs/contributing.md)", markup=False)


def _print_match(match: Match, index: Index) -> None:
    from errorkb.lookup import hint_words

    library = index.library
    grade = "confirmed" if match.confirmed else "possible"
    _print(f"{match.known.id}  [{grade}]  {match.known.title}")
    origin = match.known.origin  # the pages' words (`Entry.origin`), shipped in the index
    _print(f"  {match.known.exception}" + (f" {origin[0]} {origin[1]}" if origin else "")
           + ("" if match.exact else " (found inside the text)"))
    if match.wording:
        wording = match.matched
        where = ", ".join(x for x in (wording.releases and f"{library} {wording.releases}", wording.device) if x)
        _print(f"  matched another wording{f' ({where})' if where else ''}: {wording.message}"
               + (f" — {wording.note}" if wording.note else ""))
    values = ", ".join(f"{{{expression}}} = {value}" for expression, value in match.values.items())
    if values:
        _print(f"  {values}")
    if match.release is not None:
        release = match.release
        state = "raises it" if release.raises is True else "does not raise it" if release.raises is False else \
            "some of them raise it" if release.advice else "the entry records no release range"
        where = release.releases[0] if len(release.releases) == 1 else \
            f"{release.releases[0]} – {release.releases[-1]}"
        source = {"frames": "from the traceback's frames", "stated": "as given"}.get(release.source, release.source)
        _print(f"  {library} {where} ({source}): {state}. {release.advice}".rstrip())
    for one in match.evidence:
        _print(f"  why: {one.detail}")
    for hint in match.missing:
        words = hint_words(hint, "cli")
        if words:
            _print(f"  to tell: {words}")
    _print(f"  page: {index.page(match.known.id)}  (offline: errorkb show {match.known.id})")


def _show_text(index: Index, entry_id: str) -> str:
    """An entry as the index holds it: message, meaning, the fix, releases, its page."""
    from errorkb.core.words import release_words
    from errorkb.lookup import mapping, since_words

    item = index.items[entry_id]
    show = mapping(item.get("show"))
    parts = [f"{item.get('title', entry_id)}  ({entry_id})", "",
             f"{item.get('exception')}: {item.get('message')}", ""]
    if show.get("meaning"):
        parts += [_refill(str(show["meaning"])), ""]
    solutions = show.get("solutions") or []
    parts.append("The fix" + (f": {solutions[0]}" if solutions else ""))
    code = []
    if show.get("after"):  # never wrapped: a folded line of Python no longer runs
        code = ["", *("    " + line for line in str(show["after"]).rstrip().splitlines())]
    # The index carries no verification report (errorkb.site.hookindex): whether, where and when this
    # fix was verified is the page's to say, never this text's.
    tail = ["", "  where and when it was verified: on its page (this index holds no report)", "", "Releases"]
    known = next((one for one in index.known if one.id == entry_id), None)
    facts = known.releases if known else None
    if facts and facts.raises:
        tail.append(f"  raises in {release_words(facts.raises)}")
    if facts and facts.last_good:
        tail.append(f"  last release where the old code ran: {facts.last_good}")
    if facts and facts.replacement:
        tail.append(f"  replacement: {facts.replacement}{since_words(facts.replacement, facts.replacement_since)}")
    if show.get("source"):
        tail.append(f"  source: {show['source']}")
    if show.get("related"):
        tail += ["", "Related: " + ", ".join(str(one) for one in show["related"])]
    tail += ["", f"page: {index.page(entry_id)}"]
    return "\n".join([*map(_fill, parts), *code, *map(_fill, tail)])


def cmd_init(args: argparse.Namespace) -> int:
    """A new knowledge base in DIR; exit 2 (nothing written) when the library or DIR will not do."""
    from errorkb.author import init

    try:
        library = init.describe(args.library, repository=args.repository, tag=args.tag_format,
                                source_root=args.source_root, import_name=args.import_name,
                                source_url=args.source_url, checkout=args.checkout)
        written = init.write(args.folder, init.files(library, f"{library.distribution}-errorkb"))
    except init.InitError as error:
        return _usage("init", str(error))
    root = args.folder
    out.print(f"wrote a knowledge base of {library.distribution} {library.release} ({library.repository}) in {root}: "
              f"{len(written)} files", markup=False)
    for note in library.read:
        err.print(f"read from {library.read_from}: {note}", markup=False)
    for note in library.assumed:
        err.print(f"assumed: {note}", markup=False)
    out.print(f"next: {init.next_step(root)} && errorkb new ID --from-traceback - (paste a traceback), then "
              "errorkb verify ID and mkdocs serve", markup=False)
    return 0


def cmd_new(project: Project, args: argparse.Namespace) -> int:
    """Entry and snippet stubs; exit 1 (nothing written) when the id is taken or a file exists."""
    from errorkb.author import scaffold
    from errorkb.author.paste import read_paste
    from errorkb.core.load import load_project_entries

    if args.from_traceback is None and args.like is None:
        err.print("errorkb new: give --from-traceback FILE (or - for stdin) and/or --like ID", markup=False)
        return 2
    loaded = load_project_entries(project)
    known = {one.entry.id: one for one in loaded.entries}
    try:
        scaffold.check_id(args.id, _reserved_ids(), lambda entry_id: entry_id in known or any(
            project.entries.glob(f"*/{entry_id}.yml")) or (project.snippets / entry_id).exists())
        pasted = None
        if args.from_traceback is not None:
            text = _read_input(args.from_traceback)
            pasted = scaffold.from_paste(project, args.id, read_paste(text), text)
        if args.like is not None:
            if args.like not in known:
                close = _close(args.like, sorted(known), n=1)
                raise scaffold.ScaffoldError(f"no entry '{args.like}' to start from"
                                             + (f" (did you mean '{close[0]}'?)" if close else ""))
            draft = scaffold.from_like(project, args.id, known[args.like], pasted)
        else:
            assert pasted is not None
            draft = pasted
        written = scaffold.write_files(scaffold.stub_files(project, draft), project.root)
    except _EndlessInput as error:
        err.print(f"errorkb new: {error}", markup=False)
        return 2
    except (scaffold.ScaffoldError, OSError) as error:
        err.print(f"errorkb new: {error}", markup=False)
        return 1
    for path in written:
        out.print(f"wrote {project.rel(path)}", markup=False)
    out.print(f"next: fill in the TODOs, then `errorkb verify {args.id}` lists what is still missing, in order "
              "(docs/contributing.md walks through it)", markup=False)
    return 0


_MAX_INPUT = 16 << 20  # bytes kept of a pasted traceback: the paste reader keeps the last 64 KiB anyway
_MAX_STREAM = 256 << 20  # bytes read of a pipe or device before a paste is taken for one that never ends
_CHUNK = 1 << 20


class _EndlessInput(Exception):
    """A pipe or device that went on past `_MAX_STREAM`; the message says what to give instead."""


def _read_input(name: str) -> str:
    """A file's text, or stdin's for '-': its last `_MAX_INPUT` bytes (a log's error is at its end),
    read as UTF-8 whatever the locale says, undecodable bytes replaced: what a terminal printed is
    never a reason for a traceback. Bounded in time as in memory: a regular file (`< train.log`
    included) is read from its last `_MAX_INPUT` bytes, and a pipe or device (`yes |`, /dev/zero)
    that goes on past `_MAX_STREAM` bytes is refused (`_EndlessInput`), never read for ever."""
    if name != "-":
        with open(name, "rb") as handle:
            return _tail(_chunks(handle), name)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream put in stdin's place (an embedding program, a test)
        return _tail(iter(lambda: sys.stdin.read(_CHUNK).encode("utf-8", "surrogateescape"), b""), "stdin")
    return _tail(_chunks(stream), "stdin")


def _chunks(handle: Any) -> Iterator[bytes]:
    """`handle`'s bytes, chunk by chunk; from its last `_MAX_INPUT` bytes when it is a regular file."""
    try:
        status = os.fstat(handle.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size - handle.tell() > _MAX_INPUT:
            handle.seek(status.st_size - _MAX_INPUT)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's stream), or one that cannot seek
        pass
    return iter(lambda: handle.read(_CHUNK), b"")


def _tail(chunks: Iterator[bytes], name: str) -> str:
    """The last `_MAX_INPUT` bytes of `chunks` as text, never holding more than twice that, nor
    reading more than `_MAX_STREAM` bytes."""
    kept, read = b"", 0
    for chunk in chunks:
        kept += chunk
        read += len(chunk)
        if read > _MAX_STREAM:
            raise _EndlessInput(f"{name} went on past {_MAX_STREAM:,} bytes and was not read further: give the end "
                                "of the log, e.g. tail -c 1000000 LOG | errorkb ...")
        if len(kept) > 2 * _MAX_INPUT:
            kept = kept[-_MAX_INPUT:]
    return kept[-_MAX_INPUT:].decode("utf-8", "replace")


def cmd_show(args: argparse.Namespace) -> int:
    """An entry: from the index (anywhere), or the checkout's page model (verification per target and
    device, measured releases) when run in a knowledge base."""
    from errorkb.core.problems import ProblemsFound
    from errorkb.lookup import IndexUnavailable

    try:
        source = _diagnosis_source(args)
    except (IndexUnavailable, ProblemsFound) as error:
        _say(f"errorkb show: {_one_line(error)}")
        return 2
    source.holding(args.id)
    ids = sorted(one for index in source.indexes for one in index.items)
    broken = [problem for problem in source.problems if Path(problem.path).stem == args.id
              or f"/{args.id}/" in f"/{problem.path}"]
    if args.id not in source.index.items and broken:
        _say(f"errorkb show: the entry '{args.id}' does not load ({len(broken)} problem(s)):")
        for problem in broken:
            _say(f"  {problem}")
        return 1
    if args.id not in source.index.items:
        close = _close(args.id, ids, n=1)
        _say(f"errorkb show: no entry '{args.id}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        return 1
    if source.project is None or not (source.built or args.root):
        _print(_show_text(source.index, args.id), wrap=False)
        return 0
    from errorkb.core.load import load_project_entries
    from errorkb.site.terminal import entry_pages, entry_view

    project = source.project
    pages = {page.entry.id: page for page in entry_pages(project, load_project_entries(project))}
    out.print(entry_view(project, pages[args.id]), soft_wrap=False)
    return 0


def cmd_hook(args: argparse.Namespace) -> int:
    from errorkb.hook import pth

    done, said = {"install": pth.install, "uninstall": pth.uninstall, "status": pth.status}[args.action]()
    (out if done else err).print(said, markup=False)
    return 0 if done or args.action == "status" else 1


def cmd_hook_index(project: Project, args: argparse.Namespace) -> int:
    from errorkb.site.hookindex import NoIndexFile, hook_index, index_file, not_an_index, stale, write_index

    try:
        path = index_file(project)
    except NoIndexFile as why:
        return _usage("hook index", str(why))
    shown = project.rel(path)
    entries = [one.entry for one in _load_or_report(project).entries]
    if args.check:
        unfit = not_an_index(path)
        if unfit or stale(project, entries, path):
            said = f"is not the index ({unfit})" if unfit else "is stale"
            err.print(f"{shown} {said}: run `errorkb hook index` and commit it", markup=False)
            return 1
        out.print(f"{shown} is up to date", markup=False)
        return 0
    document = hook_index(project, entries)
    write_index(path, document)
    count = len(document["entries"]) if isinstance(document["entries"], list) else 0
    out.print(f"wrote {shown} ({count} entries)", markup=False)
    if project.site_url is None:
        err.print("no site address (site_url in mkdocs.yml, or [tool.errorkb] site_url): the hook and `errorkb "
                  "lookup` print entry pages as bare paths (errors/<library>/<id>/); set it where the site is "
                  "published, then run `errorkb hook index` again", markup=False)
    return 0


def cmd_render(project: Project, args: argparse.Namespace) -> int:
    """The site's generated files written to disk; exit 1 when an entry has problems."""
    from errorkb.core.load import load_project_entries
    from errorkb.plugs import runtime_for
    from errorkb.results.matrix import matrix_problem
    from errorkb.results.report import read_reports
    from errorkb.site import names, outfolder
    from errorkb.site.files import expected_reports, site_files

    loaded = load_project_entries(project, _reserved_ids())
    for problem in loaded.problems:
        err.print(str(problem), markup=False)
    reports, unreadable = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    reports, unknown = expected_reports(project, loaded, reports)
    for message in [*unreadable, *unknown, *filter(None, [matrix_problem(project)])]:
        err.print(message, markup=False)
    from errorkb.site.settings import SettingsError

    try:
        edit_url = _edit_urls(project)
    except SettingsError as error:
        err.print(f"errorkb render: {error}; nothing was written", markup=False)
        return 1
    pages, files = site_files(project, loaded, reports, edit_url=edit_url)
    out_dir = args.out.resolve()
    contents = {}
    for file in files:
        if not (args.out / file.path).resolve().is_relative_to(out_dir):  # page_path keeps pages in place; this
            err.print(f"errorkb render: {file.path} would be written outside {args.out}; skipped", markup=False)
            continue  # keeps --out whole
        contents[file.path] = file.content
    foreign = outfolder.foreign(args.out, contents)
    kept = [relative for relative in foreign if names.site_page(relative)]
    refused = [said for relative, said in foreign.items() if relative not in kept]
    if refused:
        shown = "; ".join(refused[:5]) + (f"; and {len(refused) - 5} more" if len(refused) > 5 else "")
        return _usage("render", f"{len(refused)} file(s) at paths it writes would be replaced: {shown}. Nothing was "
                                "written: move them away, or choose another --out")
    for relative in kept:
        err.print(f"errorkb render: kept {foreign[relative]}: the author's own site page, generated nowhere else "
                  f"(as mkdocs with the errorkb plugin keeps docs/{relative})", markup=False)
        del contents[relative]
    for relative, content in contents.items():
        path = args.out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    outfolder.record(args.out, contents)
    out.print(f"{len(pages)} entry pages, {len(files)} files written to {args.out}", markup=False)
    return 1 if loaded.problems else 0


def _edit_urls(project: Project) -> Any:
    """The plugin's edit links, from the project's mkdocs.yml when it has one: `render --out` writes
    the bytes the site publishes."""
    from errorkb.site.files import edit_url
    from errorkb.site.settings import config_file, read

    config_path = config_file(project.root)  # (one that is no regular file: `read` says what it is)
    if config_path is None:
        return None

    config = read(config_path)  # nothing mkdocs.yml names is run (`settings`)
    return lambda path: edit_url(config.repo_url, config.edit_uri, Path(config.docs_dir), project, path)


if __name__ == "__main__":
    sys.exit(main())

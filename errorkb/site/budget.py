"""Rendering within a budget: no page may cost a build more than a few seconds, or crash it.

Entries are Markdown from strangers' pull requests. `inert` and the loader's limits
(`errorkb.core.prose`) close every structure known to cost more than its size; this is the net
under them, for the ones nobody has seen yet. A page is rendered with the site's own Markdown
settings (mkdocs.yml's `markdown_extensions`) under a CPU-time budget (`CPU_SECONDS`: CPU, not
wall-clock time, so a busy machine does not change the verdict) and a recursion limit
(`RECURSION_LIMIT` in the child, the interpreter's in MkDocs' process); a page that passes the
budget or raises gets a `Verdict` that says so, located at the part (a field, a snippet) that
does it alone, when one does.

Stages, one function each:

1. `rehearsals`  the generated pages (`files.site_files`) and, for an entry's, what it is made
                 of (`parts_of`): each string of the entry, inert and placed at its YAML line,
                 and each snippet, fenced.
2. `rehearse`    (`errorkb check`) every page rendered in a child process (`python -m
                 errorkb.site.budget`): the budget is a CPU timer in the child and, should code
                 the timer cannot interrupt (a regular expression, C) hold it, the kernel's CPU
                 limit, which ends the child; a new child takes the pages left.
3. `within_budget`  (the MkDocs plugin) one render in the build's own process under the same
                 CPU timer (MkDocs builds in the main thread, where the timer's signal is
                 delivered) and any exception caught: the plugin publishes the page's problems
                 in its place, and the build goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errorkb.core.interpreter import python_command

if TYPE_CHECKING:  # the child process imports none of these: it starts fast
    from errorkb.core.entry import Entry
    from errorkb.core.load import LoadedEntry, LoadResult, Positions
    from errorkb.core.project import Project
    from errorkb.site.files import SiteFile
    from errorkb.site.render import EntryPage

CPU_SECONDS = 5.0  # CPU time one page may take to render (a real entry page: about 0.05 s)
# ... plus this much per character of the page (`allowance`): a page that lists every entry grows with the
# knowledge base (the verification page: 0.3 MB of Markdown at 108 entries, 1.1 s; megabytes at 1,000),
# rendered at 150-370 thousand characters per second here. What the budget is for costs more than its size
# and outgrows any allowance proportional to it.
CHARS_PER_SECOND = 50_000
RECURSION_LIMIT = 1000  # frames deep the child renders (Python's default; MkDocs' own process keeps its own)
MEMORY_BYTES = 2 << 30  # address space of the rehearsal child
WALL_SECONDS_PER_PAGE = 300.0  # a backstop only: a child that neither answers nor burns CPU
_NUDGE = 0.25  # after the budget, the timer fires again this often, in case a handler swallowed it


class SettingsUnreadable(Exception):
    """The site's Markdown settings (mkdocs.yml) could not be loaded: nothing can be rendered."""


class OverBudget(BaseException):
    """Raised in the rendering code when its CPU time runs out: a BaseException, so that no
    `except Exception` on the way swallows it."""


@dataclass(frozen=True)
class Part:
    """One piece of a page the author wrote, rendered alone to find the culprit."""

    path: str  # project-relative file
    line: int
    col: int
    name: str  # "meaning", "guards[0].description", "snippet"
    markdown: str


@dataclass(frozen=True)
class Rehearsal:
    key: str  # the page's docs-relative path
    markdown: str
    parts: tuple[Part, ...] = ()
    source: str | None = None  # the file the page comes from (project-relative), if one


@dataclass(frozen=True)
class Verdict:
    key: str
    ok: bool
    what: str = ""  # what went wrong: "took more than 5 s of CPU time", "raised RecursionError: ..."
    part: Part | None = field(default=None)  # the part that does it alone, if one does


# -- 1. what to rehearse -----------------------------------------------------------------------------


def parts_of(entry: Entry, positions: Positions, path: str, snippets: dict[str, tuple[str, str]]) -> tuple[Part, ...]:
    """Every string of `entry` as the page writes it (inert Markdown), at its YAML position, then
    every snippet (`snippets`: role → (project-relative path, code)) as its fence writes it."""
    from errorkb.site.inert import inert
    from errorkb.site.render import fence

    parts = []
    for loc, text in _strings(entry.model_dump(mode="json"), ()):
        line, col = positions.of_value(loc)
        parts.append(Part(path, line, col, _name(loc), inert(text)))
    for _, (where, code) in snippets.items():
        parts.append(Part(where, 1, 1, "snippet", str(fence(code))))
    return tuple(parts)


def rehearsals(project: Project, loaded: LoadResult, pages: list[EntryPage], files: list[SiteFile],
               parts: bool = True) -> list[Rehearsal]:
    """Every generated page to rehearse, an entry's with its parts (`parts=False`: without them,
    for a caller that builds them only for a page that goes wrong, with `with_parts`)."""
    by_url = {page.url: page for page in pages}
    by_path = {one.path.resolve(): one for one in loaded.entries}
    out = []
    for file in files:
        if not file.page:
            continue
        rehearsal = Rehearsal(file.path, file.content, source=file.source)
        out.append(with_parts(rehearsal, project, loaded, pages, by_url, by_path) if parts else rehearsal)
    return out


def with_parts(rehearsal: Rehearsal, project: Project, loaded: LoadResult, pages: list[EntryPage],
               by_url: dict[str, EntryPage] | None = None,
               by_path: dict[Path, LoadedEntry] | None = None) -> Rehearsal:
    """`rehearsal` with the parts of the entry its page shows, if it shows one."""
    from dataclasses import replace

    from errorkb.site.files import entry_parts

    page = (by_url if by_url is not None else {page.url: page for page in pages}).get(rehearsal.key)
    if page is None:
        return rehearsal
    entries = by_path if by_path is not None else {one.path.resolve(): one for one in loaded.entries}
    one = entries.get((project.root / page.yaml_path).resolve())
    return replace(rehearsal, parts=entry_parts(project, one, page)) if one is not None else rehearsal


def _strings(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*loc, index))


def _name(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in loc).replace(".[", "[")


# -- 2. in a child process ----------------------------------------------------------------------


def rehearse(rehearsals: list[Rehearsal], config_file: Path | None, cpu_seconds: float | None = None,
             jobs: int | None = None, code: RenderingCode | None = None) -> list[Verdict]:
    """A verdict for every page, in order, rendered in `jobs` child processes (default: up to two,
    one per CPU) with the Markdown settings of `config_file` (an mkdocs.yml; None: MkDocs'
    defaults). A child the kernel stops, or that crashes, costs its page a verdict and nothing else;
    settings that cannot be loaded raise SettingsUnreadable. `code`, if given, gets the modules of the
    code the children rendered with and their import paths (`rendering_code`)."""
    budget = CPU_SECONDS if cpu_seconds is None else cpu_seconds
    pending = deque(enumerate(rehearsals))
    verdicts: dict[int, Verdict] = {}
    lock = threading.Lock()

    failures: list[BaseException] = []  # raised in a worker: raised here, never lost with its thread

    def work() -> None:
        child: _Child | None = None
        try:
            while True:
                with lock:
                    if not pending:
                        return
                    index, rehearsal = pending.popleft()
                child = child or _Child(config_file, budget, code)
                answer = child.ask(rehearsal)
                if answer is None:  # the child ended inside this page: the next page gets a new one
                    answer = Verdict(rehearsal.key, False, child.death(rehearsal))
                    child.close()
                    child = None
                verdicts[index] = answer
        except BaseException as error:  # SettingsUnreadable, or a failure of errorkb's own
            failures.append(error)
            with lock:
                pending.clear()
        finally:
            if child is not None:
                child.close()

    count = max(1, min(jobs or min(2, os.cpu_count() or 1), len(rehearsals)))
    workers = [threading.Thread(target=work, daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise failures[0]
    return [verdicts[index] for index in range(len(rehearsals))]


class _Child:
    """`python -m errorkb.site.budget`: one JSON request per line in, one verdict per line out."""

    def __init__(self, config_file: Path | None, budget: float, code: RenderingCode | None = None):
        self.budget, self.code = budget, code
        self.garbled = False  # it answered what is no answer to the page asked
        command = python_command(sys.executable, "-m", "errorkb.site.budget", str(config_file or ""), str(budget))
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
                                        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def close(self) -> None:
        self.selector.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def ask(self, rehearsal: Rehearsal) -> Verdict | None:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(asdict(rehearsal)) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        wall = WALL_SECONDS_PER_PAGE * (1 + len(rehearsal.parts))
        if not self.selector.select(timeout=wall):
            self.process.kill()
            return None
        line = self.process.stdout.readline()
        if not line:
            return None
        try:
            answer = json.loads(line)
            if isinstance(answer, dict) and "settings" in answer:
                raise SettingsUnreadable(str(answer["settings"]))
            verdict, modules, path = _answer(answer, rehearsal.key)
        except (ValueError, TypeError, KeyError):  # no answer to this page: the child is not trusted again
            self.garbled = True
            self.process.kill()
            return None
        if self.code is not None:
            self.code.modules.update(modules)
            self.code.paths.add(path)
        return verdict

    def death(self, rehearsal: Rehearsal) -> str:
        if self.garbled:
            return ("made the renderer answer what is no verdict on it (a child of another errorkb? reinstall "
                    "errorkb); it is rendered again next time")
        code = self.process.wait()
        if code in (-signal.SIGXCPU, -signal.SIGKILL):
            return (f"took more than {allowance(rehearsal.markdown, self.budget):g} s of CPU time to render, in code "
                    "the budget's timer cannot stop")
        return f"crashed the renderer (exit status {code})"


def _answer(answer: object, key: str) -> tuple[Verdict, list[tuple[str | None, str, str]], tuple[str, ...]]:
    """The child's answer on the page `key` read: its verdict, the modules it rendered with and its import path
    (ValueError, TypeError, KeyError: it is none)."""
    if not isinstance(answer, dict) or answer.get("key") != key or not isinstance(answer.get("ok"), bool) or \
            not isinstance(answer.get("what"), str):
        raise ValueError("no verdict on the page asked")
    code, path = answer.get("code"), answer.get("path")
    if not isinstance(code, list) or not isinstance(path, list) or not all(isinstance(one, str) for one in path):
        raise ValueError("no code, or no import path")
    modules = []
    for one in code:
        if not (isinstance(one, list) and len(one) == 3 and isinstance(one[0], str | None)
                and isinstance(one[1], str) and isinstance(one[2], str)):
            raise ValueError("a module that is none")
        modules.append((one[0], one[1], one[2]))
    part = Part(**answer["part"]) if answer.get("part") else None
    return Verdict(key, answer["ok"], answer["what"], part), modules, tuple(path)


def _serve(config_file: str, budget: float) -> None:
    """The child's loop: render each page asked for, under the budget, and say how it went. The answers go out on
    a stream of their own: what the rendering code writes to standard output (a `print` in an extension, a write
    to its descriptor) goes where its standard error goes, never among the answers (where a line it wrote could
    pass as a page's verdict)."""
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        convert = converter(config_file or None)
    except Exception as error:  # a broken mkdocs.yml: said once, to the first request
        sys.stdin.readline()
        from errorkb.site.settings import SettingsError

        said = str(error) if isinstance(error, SettingsError) else f"{type(error).__name__}: {error}"
        answers.write(json.dumps({"settings": said}) + "\n")
        answers.flush()
        return
    seen: set[str] = set()  # the modules whose files were said
    for line in sys.stdin:
        request = json.loads(line)
        rehearsal = Rehearsal(request["key"], request["markdown"], tuple(Part(**p) for p in request["parts"]))
        what = _attempt(convert, rehearsal.markdown, budget)
        verdict = Verdict(rehearsal.key, True) if what is None else \
            locate(rehearsal, what, lambda markdown: _attempt(convert, markdown, budget))
        code = rendering_code(seen)
        answers.write(json.dumps({**asdict(verdict), "code": code, "path": sys.path}) + "\n")
        answers.flush()


Module = tuple[str | None, str]  # (the name the import system finds it by, else None; its file)


@dataclass
class RenderingCode:
    """What the children rendered with (`rendering_code`): each module's file with the digest of its bytes as the
    child first saw them, and each child's import path."""

    modules: set[tuple[str | None, str, str]] = field(default_factory=set)  # (name or None, file, digest)
    paths: set[tuple[str, ...]] = field(default_factory=set)


def rendering_code(seen: set[str]) -> list[tuple[str | None, str, str]]:
    """The modules this process imported since `seen` (their names, updated) but the interpreter's standard
    library, which `sys.version` names: the code that renders a page, for the record of pages that rendered within
    budget to be keyed by (errorkb.site.rehearsed). Each as (its name where the import system finds it by that
    name, else None; its file; the digest of the file's bytes as its import read them, `_as_imported`): the parent
    compares that digest with its own read, so code saved while the pages rendered is never recorded as what
    rendered them. Every module counts: a Markdown extension, and anything it imports, may be a project's module or an
    editable install, whose release (if it has one) does not change with its code."""
    import sysconfig

    from errorkb.core.filebytes import file_digest

    fresh = sys.modules.keys() - seen
    seen |= fresh
    paths = sysconfig.get_paths()
    standard = os.path.realpath(paths["stdlib"])
    installed = [os.path.realpath(paths[name]) for name in ("purelib", "platlib")]
    found: dict[tuple[str | None, str], str] = {}
    for name in fresh:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        real = os.path.realpath(file)
        if _inside(real, standard) and not any(_inside(real, folder) for folder in installed):
            continue
        spec = getattr(module, "__spec__", None)
        # found by its own name (not an alias another module set in `sys.modules`, not `__main__`)
        named = name if getattr(spec, "name", None) == name and getattr(spec, "origin", None) == file else None
        found[(named, real)] = _as_imported(real, file_digest)
    return sorted(((name, file, digest) for (name, file), digest in found.items()),
                  key=lambda one: (one[1], one[0] or ""))


# In the child, what the import system read of each module's source file (`_watch_imports`): the digest of the
# bytes it compiled, or, where it ran the cached bytecode, the file's state (`_state`) as it checked the cache against.
_IMPORTED: dict[str, str] = {}
_STATE = "state:"
CHANGED_SINCE_IMPORTED = "changed after it was imported"  # never a digest: the parent records nothing


def _watch_imports() -> None:
    """In the child, before it imports what renders: remember what each import read (`_IMPORTED`). The child's
    first look at a module's file comes after the import, so a file saved and saved back in between (the child ran
    the version saved over) was said with the bytes saved back, which the parent read too: the pages were recorded
    as passing with code that never rendered them."""
    import hashlib
    from importlib.machinery import SourceFileLoader

    read, stat = SourceFileLoader.get_data, SourceFileLoader.path_stats

    def get_data(self: SourceFileLoader, path: str) -> bytes:
        data = read(self, path)
        if path == self.path:  # the source, compiled (its cached bytecode is another path)
            _IMPORTED[os.path.realpath(path)] = hashlib.sha256(data).hexdigest()
        return data

    def path_stats(self: SourceFileLoader, path: str) -> Any:
        _IMPORTED[os.path.realpath(path)] = _STATE + _state(path)  # before the cache is judged by it
        return stat(self, path)

    SourceFileLoader.get_data = get_data  # type: ignore[method-assign,assignment]
    SourceFileLoader.path_stats = path_stats  # type: ignore[method-assign]


def _state(path: str) -> str:
    """What changes with every write of a file, its ctime included (which no one can set back)."""
    try:
        found = os.stat(path)
    except OSError as error:
        return f"unreadable: {error.errno}"
    return f"{found.st_dev}:{found.st_ino}:{found.st_size}:{found.st_mtime_ns}:{found.st_ctime_ns}"


def _as_imported(real: str, file_digest: Callable[[str], str]) -> str:
    """The digest of the module file `real` as its import read it: the bytes compiled; where the cached bytecode ran,
    the file's bytes now if its state is the one the cache was judged by (else `CHANGED_SINCE_IMPORTED`); a file no
    import of the child's read (a compiled extension, a module imported before `_watch_imports`), its bytes now."""
    said = _IMPORTED.get(real)
    if said is None:
        return file_digest(real)
    if said.startswith(_STATE):
        return file_digest(real) if _STATE + _state(real) == said else CHANGED_SINCE_IMPORTED
    return said


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def locate(rehearsal: Rehearsal, what: str, attempt: Callable[[str], str | None],
           cpu_seconds: float | None = None) -> Verdict:
    """The verdict on a page that went wrong (`what`): at its first part that goes wrong alone,
    looked for during at most `cpu_seconds` of CPU time (None: no limit)."""
    import time

    started = time.process_time()
    for part in rehearsal.parts:
        if cpu_seconds is not None and time.process_time() - started > cpu_seconds:
            break
        alone = attempt(part.markdown)
        if alone is not None:
            return Verdict(rehearsal.key, False, alone, part)
    return Verdict(rehearsal.key, False, what)


def _attempt(convert: Callable[[str], object], markdown: str, budget: float) -> str | None:
    """None when `markdown` renders within the budget, else what went wrong. Past twice the
    budget (plus a second) the kernel ends the process: code the timer cannot interrupt."""
    budget = allowance(markdown, budget)
    used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    limit = int(used + 2 * budget + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (limit, resource.RLIM_INFINITY))
    try:
        return within_budget(lambda: convert(markdown), budget)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def converter(config_file: str | None = None, extensions: list[Any] | None = None,
              configs: dict[str, Any] | None = None) -> Callable[[str], object]:
    """Markdown → HTML with the site's extensions: those of the mkdocs.yml `config_file`, or those
    given (the plugin's, from the running build); else MkDocs' defaults."""
    import markdown

    if config_file:
        from errorkb.site.settings import markdown_settings

        extensions, configs = markdown_settings(Path(config_file))  # nothing mkdocs.yml names is run
    if extensions is None:
        extensions = ["toc", "tables", "fenced_code"]  # MkDocs' defaults
    return lambda text: markdown.Markdown(extensions=extensions, extension_configs=configs or {}).convert(text)


# -- 3. in this process ---------------------------------------------------------------------------


def allowance(markdown: str, cpu_seconds: float | None = None) -> float:
    """The CPU seconds a page of `markdown` may take to render: the budget (`cpu_seconds`, default
    `CPU_SECONDS`) and a share proportional to its size (`CHARS_PER_SECOND`), to one decimal."""
    base = CPU_SECONDS if cpu_seconds is None else cpu_seconds
    return round(base + len(markdown) / CHARS_PER_SECOND, 1)


def within_budget(render: Callable[[], object], cpu_seconds: float | None = None) -> str | None:
    """Run `render` under the CPU budget; None when it finished, else what went wrong (it ran out of
    time, or raised). The timer works in the main thread only; elsewhere only exceptions are caught."""
    budget = CPU_SECONDS if cpu_seconds is None else cpu_seconds
    timed = threading.current_thread() is threading.main_thread()
    if timed:
        previous = signal.signal(signal.SIGPROF, _out_of_time)
        signal.setitimer(signal.ITIMER_PROF, budget, _NUDGE)
    try:
        render()
        return None
    except OverBudget:
        return f"took more than {budget:g} s of CPU time to render"
    except RecursionError:
        return "nests too deeply to render (RecursionError)"
    except MemoryError:
        return "took too much memory to render (MemoryError)"
    except Exception as error:  # whatever a Markdown extension raises on it: the page's problem, not the build's
        text = " ".join(str(error).split())[:200]
        return f"raised {type(error).__name__} while rendering" + (f": {text}" if text else "")
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            signal.signal(signal.SIGPROF, previous)


def _out_of_time(signum: int, frame: object) -> None:
    raise OverBudget


def problem(verdict: Verdict, source: str | None) -> tuple[str, int, int, str]:
    """(path, line, col, message) of a verdict that is not ok: at the part that does it alone, else
    at the page's source file."""
    advice = ("simplify its Markdown (fewer nested lists and quotes, fewer brackets), or split it; "
              "`errorkb check` renders every page the same way")
    if verdict.part is not None:
        part = verdict.part
        name = f"{part.name}: " if part.name != "snippet" else ""
        return part.path, part.line, part.col, f"{name}this text {verdict.what}; {advice}"
    return source or verdict.key, 1, 1, f"this entry's page {verdict.what}; {advice}"


if __name__ == "__main__":
    _watch_imports()
    _serve(sys.argv[1], float(sys.argv[2]))

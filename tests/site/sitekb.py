"""Fixtures for the site tests: a strict build of the repository's site into a temp folder,
served on 127.0.0.1, and one headless Debian Chromium for the whole session."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from tests.kb import ROOT, copy_kb

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-dev-shm-usage", "--disable-component-update", "--disable-default-apps",
                 "--disable-sync", "--no-first-run", "--disable-extensions",
                 # offline at the resolver too: a tab that routes nothing (`WalkTab`) reaches no other host
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
ARTIFACTS = ROOT / "test-artifacts"


@dataclasses.dataclass(frozen=True)
class Shots:
    """Where the browser tests' screenshots go (`folder`) and whether each is the whole page or the first screen."""

    folder: Path
    full_page: bool


def screenshots(environ: Mapping[str, str] = os.environ) -> Shots | None:
    """Where the browser tests' screenshots are kept, and how: whole pages in `$ERRORKB_SCREENSHOTS` (someone asked for
    them); the first screen of each in test-artifacts/screenshots/ in CI (`$CI`, set by GitHub Actions, whose jobs
    upload test-artifacts/), what a reader sees on landing; else none (a local run's copies were read by nobody). No
    assertion reads them, and a whole page costs more CPU than loading it: at 390 px the migration and verification
    pages are tens of screens tall (benchmarks/reader_views.py: the reader views' six tabs with whole pages, with first
    screens and with none)."""
    if environ.get("ERRORKB_SCREENSHOTS"):
        return Shots(Path(environ["ERRORKB_SCREENSHOTS"]), full_page=True)
    if environ.get("CI", "").lower() in ("true", "1"):
        return Shots(ARTIFACTS / "screenshots", full_page=False)
    return None


SHOTS = screenshots()


def shoot(page, name: str, shots: Shots | None = SHOTS) -> Path | None:
    """`page` kept as `name`.png where screenshots are kept (`screenshots`), as they are kept there; its path."""
    if shots is None:
        return None
    shots.folder.mkdir(parents=True, exist_ok=True)
    path = shots.folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=shots.full_page)
    return path


def mkdocs_build(config: Path, site_dir: Path, *, strict: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m mkdocs build` in a child process (its logging stays out of pytest's), run in `config`'s folder:
    forked from this process's warm builder (`_WarmBuilder`) where that child is what a fresh interpreter would be,
    else a fresh interpreter. Never `-q`: it sets the log level to ERROR, so no warning is logged and `--strict` has
    none to count (it passes anything)."""
    args = ["build", "-f", str(config), "-d", str(site_dir)] + (["--strict"] if strict else [])
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    forked = _WarmBuilder.run(args, env, config.parent, timeout)
    if forked is not None:
        return forked
    return subprocess.run([sys.executable, "-m", "mkdocs", *args], capture_output=True, text=True, env=env,
                          cwd=config.parent, timeout=timeout)


# The builder's own program, run as `python -c` in an empty folder: '' (the working folder) is first on its sys.path,
# as `python -m mkdocs`'s working folder is first on its own, so a forked build finds in `config`'s folder what a fresh
# one finds there. It imports what every build of this repository's site imports (a name missing here is imported by
# the build itself: slower, never different), then forks one child per request line and answers its pid, then its
# exit code; a child asked for without a wait (`mkdocs_serve`: a session that runs until it is stopped) has only its pid
# answered, and is reaped once it has ended. The child is `python -m mkdocs ARGS` from its `cli` on: the same arguments,
# logging set up by the CLI, an uncaught exception printed as the interpreter prints it (exit code 1), the exit handlers
# run; its stdout and stderr go to the files asked for (one file, opened once, where both name it).
_BUILDER = r"""
import atexit, json, os, sys, traceback
import mkdocs.__main__ as main
sys.argv = [main.__file__, "build"]
for name in ("mkdocs.commands.build", "mkdocs.commands.serve", "mkdocs.config.defaults", "material.templates",
             "material.plugins.search.plugin",
             "material.plugins.tags.plugin", "errorkb.site.plugin", "markdown.extensions.toc",
             "markdown.extensions.tables", "markdown.extensions.admonition", "markdown.extensions.attr_list",
             "markdown.extensions.md_in_html", "pymdownx.details", "pymdownx.highlight", "pymdownx.inlinehilite",
             "pymdownx.superfences", "pymdownx.tabbed", "pygments.lexers.python"):
    try:
        __import__(name)
    except ImportError:
        pass
requests, replies = os.fdopen(0, "r"), os.fdopen(1, "w")
for line in requests:
    ask = json.loads(line)
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:  # started children that have ended
            pass
    except ChildProcessError:
        pass
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            requests.close()
            os.chdir(ask["cwd"])
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            os.dup2(os.open(ask["out"], os.O_WRONLY), 1)
            os.dup2(1 if ask["err"] == ask["out"] else os.open(ask["err"], os.O_WRONLY), 2)
            sys.stdin, sys.stdout, sys.stderr = (open(fd, mode, closefd=False) for fd, mode in ((0, "r"), (1, "w"), (2, "w")))
            sys.argv = [main.__file__, *ask["args"]]
            if ask["test"] is None:
                os.environ.pop("PYTEST_CURRENT_TEST", None)
            else:
                os.environ["PYTEST_CURRENT_TEST"] = ask["test"]
            try:
                main.cli.main(ask["args"], prog_name="python -m mkdocs")
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
                if not isinstance(stop.code, (int, type(None))):
                    print(stop.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    replies.write(f"{pid}\n")
    replies.flush()
    if ask["wait"]:
        replies.write(f"{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}\n")
        replies.flush()
"""


class _WarmBuilder:
    """One interpreter per test process that has imported MkDocs, Material, the Markdown extensions and errorkb's
    plugin once, and forks a child for each `mkdocs_build` and `mkdocs_serve`: a build of a two-entry site cost 1.8 s
    of CPU in a fresh interpreter, of which about 1 s was those imports (benchmarks/site_tests.py). A child forked from
    it is what `python -m mkdocs` started afresh would be only where nothing read at import can differ, so a fresh
    interpreter runs instead when the environment is not the one the builder started with (Material writes to it at
    import, and a module may read it then; pytest's `PYTEST_CURRENT_TEST` aside, which the child is given), when
    `config`'s folder holds a module of its own (a fresh interpreter would import it before an installed one the
    builder has already imported), in a process forked from the one that started the builder, or once the builder has
    died."""

    process: subprocess.Popen | None = None
    env: dict[str, str] = {}
    owner = 0
    pending = b""

    @classmethod
    def run(cls, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> subprocess.CompletedProcess | None:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            out, err = Path(folder) / "out", Path(folder) / "err"
            pid = cls.fork(args, env, cwd, out, err, wait=True)
            if pid is None:
                return None
            code = cls.line(timeout)
            if code == "":  # the builder died during the build
                cls.process.kill()
                return None
            if code is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)
                cls.line(None)
            result = subprocess.CompletedProcess([sys.executable, "-m", "mkdocs", *args], int(code or 0),
                                                 out.read_text(errors="replace"), err.read_text(errors="replace"))
        if code is None:
            raise subprocess.TimeoutExpired(result.args, timeout, result.stdout, result.stderr)
        return result

    @classmethod
    def fork(cls, args: list[str], env: dict[str, str], cwd: Path, out: Path, err: Path, *, wait: bool) -> int | None:
        """The pid of the builder's child running `python -m mkdocs ARGS` in `cwd`, its stdout in `out` and its stderr
        in `err` (both in one where they are one path); its exit code is the builder's next line if `wait`, else the
        builder never says it (`mkdocs_serve`). None where a fresh interpreter must run it."""
        import json

        if _own_modules(cwd) or (cls.process is not None and (_lasting(env) != cls.env or cls.owner != os.getpid())):
            return None
        if cls.process is None:
            import tempfile

            cls.env, cls.owner = _lasting(env), os.getpid()
            cls.process = subprocess.Popen([sys.executable, "-c", _BUILDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL, env=env, cwd=tempfile.mkdtemp(), bufsize=0)
        process = cls.process
        if process.poll() is not None:
            return None
        out.touch()
        err.touch()
        ask = {"args": args, "cwd": str(cwd), "out": str(out), "err": str(err), "wait": wait,
               "test": env.get("PYTEST_CURRENT_TEST")}
        try:
            process.stdin.write(json.dumps(ask).encode() + b"\n")
            return int(cls.line(None))
        except (OSError, ValueError):  # the builder died: every later build starts afresh
            process.kill()
            return None

    @classmethod
    def line(cls, timeout: float | None) -> str | None:
        """The builder's next line, or None once `timeout` seconds have passed without it; '' if it has ended."""
        import select
        import time

        end = None if timeout is None else time.monotonic() + timeout
        fd = cls.process.stdout.fileno()
        while b"\n" not in cls.pending:
            if end is not None and not select.select([fd], [], [], max(0.0, end - time.monotonic()))[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return ""
            cls.pending += chunk
        line, _, cls.pending = cls.pending.partition(b"\n")
        return line.decode()


class Served:
    """A `mkdocs serve` session (`mkdocs_serve`): its pid, and whether it still runs. A forked one is the warm
    builder's child, not this process's: it is signalled and watched through a pidfd, which names that process
    whatever pid the system gives out once the builder has reaped it."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, log: Path, *, fresh: bool = False):
        """`command` (`python -m mkdocs serve ...`) in `cwd`, forked from the warm builder unless `fresh` (a new
        interpreter, as the tests started it before: benchmarks/site_tests.py --serve)."""
        self.pid = None if fresh else _WarmBuilder.fork(command[3:], env, cwd, log, log, wait=False)
        self.forked = self.pid is not None
        if self.pid is None:
            with open(log, "w") as out:
                self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env)
            self.pid = self.process.pid
        else:
            self.fd = os.pidfd_open(self.pid)

    def running(self) -> bool:
        import select

        if not self.forked:
            return self.process.poll() is None
        return self.fd >= 0 and not select.select([self.fd], [], [], 0)[0]

    def stop(self, grace: float = 10) -> None:
        """SIGTERM, as `Popen.terminate`; SIGKILL if it still runs `grace` seconds later; back once it has ended."""
        import select
        import signal

        if not self.forked:
            self.process.terminate()
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            return
        if self.fd < 0:  # stopped already
            return
        try:
            signal.pidfd_send_signal(self.fd, signal.SIGTERM)
            if not select.select([self.fd], [], [], grace)[0]:
                signal.pidfd_send_signal(self.fd, signal.SIGKILL)
                select.select([self.fd], [], [])
        except ProcessLookupError:  # it had ended
            pass
        finally:
            os.close(self.fd)
            self.fd = -1


@contextlib.contextmanager
def mkdocs_serve(config: Path, port: int, log: Path, *options: str, fresh: bool = False) -> Iterator[Served]:
    """`python -m mkdocs serve OPTIONS -a 127.0.0.1:PORT -f CONFIG` run in `config`'s folder while the block runs, both its
    streams in `log`, stopped when the block ends (`Served.stop`): forked from the warm builder where a fresh
    interpreter would serve the same (`_WarmBuilder`, as `mkdocs_build`), else a fresh interpreter (`fresh`: always):
    a start up to its first page served, 1.47 s of CPU fresh and 1.01 s forked (benchmarks/site_tests.py --serve)."""
    command = [sys.executable, "-m", "mkdocs", "serve", *options, "-a", f"127.0.0.1:{port}", "-f", str(config)]
    served = Served(command, {**os.environ, "NO_MKDOCS_2_WARNING": "1"}, config.parent, log, fresh=fresh)
    try:
        yield served
    finally:
        served.stop()


def _lasting(env: dict[str, str]) -> dict[str, str]:
    """`env` less what pytest changes for every test (`PYTEST_CURRENT_TEST`, which no build reads at import)."""
    return {name: value for name, value in env.items() if name != "PYTEST_CURRENT_TEST"}


def _own_modules(folder: Path) -> bool:
    """Whether `folder` holds a module or package a fresh interpreter started there would import before an installed
    one (`python -m` puts its working folder first on sys.path)."""
    try:
        return any(entry.name.endswith((".py", ".pyc", ".so")) or (entry.is_dir() and os.path.exists(os.path.join(entry.path, "__init__.py")))
                   for entry in os.scandir(folder))
    except OSError:
        return True


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_reports(project: Path) -> None:
    """The repository's reports, holding the records of the copy's entries alone, as `errorkb verify` leaves
    them in a knowledge base of those entries (a record of an entry it does not have is a warning of the site)."""
    from errorkb.results.report import read_report

    ids = {path.stem for path in (project / "docs" / "errors").rglob("*.yml")}
    for path in (ROOT / "reports").glob("*.json"):
        report = read_report(path)
        report.model_copy(update={"checks": [check for check in report.checks if check.entry in ids]}) \
            .write(project / "reports" / path.name)


@pytest.fixture(scope="session")
def site_url(tmp_path_factory) -> str:
    """The site config with two real entries and the repository's reports, built strictly into
    a temp folder and served on 127.0.0.1 by a thread of this process. `site_url` names the
    port it is served on: Material's instant navigation only follows links under `site_url`.
    Set ERRORKB_SITE_DIR to serve an already built site instead."""
    port = free_port()
    if os.environ.get("ERRORKB_SITE_DIR"):
        site_dir = Path(os.environ["ERRORKB_SITE_DIR"])
    else:
        project = site_project(tmp_path_factory.mktemp("kb"), site_url=f"http://127.0.0.1:{port}/")
        copy_reports(project)
        site_dir = tmp_path_factory.mktemp("site")
        result = mkdocs_build(project / "mkdocs.yml", site_dir)
        assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    with serve(site_dir, _Kept, port=port) as url:
        yield url


def build_real_site(site: Path, timeout: float = 600) -> Path:
    """`site`, holding the repository's own site as CI builds it (`mkdocs build --strict` of mkdocs.yml, every entry
    and the repository's reports): the one way the tests (`real_site`) and the benchmarks build it. A build that
    fails or warns raises, with the end of its log."""
    result = mkdocs_build(ROOT / "mkdocs.yml", site, timeout=timeout)  # every entry: minutes on a busy machine
    if result.returncode:
        raise AssertionError(f"mkdocs build --strict of mkdocs.yml failed:\n{result.stderr[-6000:]}")
    return site


@contextlib.contextmanager
def built_real_site(site: Path | None = None, timeout: float = 900) -> Iterator[Path]:
    """`site`, an already built site of the repository, or else the repository's site built into a temp folder for
    the block (`build_real_site`): what the benchmarks read, each serving it as the tests do (`serve_as`)."""
    if site is not None:
        yield site
        return
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        yield build_real_site(Path(folder) / "site", timeout=timeout)


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> tuple[Path, str]:
    """(site folder, URL): the repository's own knowledge base built as `mkdocs build --strict` builds
    it (`build_real_site`), once per session, served on 127.0.0.1 with its whole search index. The tests only read
    it: the strict build's own test (tests/test_knowledge_base.py), the browser's walks over every page, the reader
    views and Material's search over every entry (tests/site/test_search.py) share the one build."""
    site = build_real_site(tmp_path_factory.mktemp("real-site"))
    with serve_as(site, "real") as url:
        yield site, url


@pytest.fixture(scope="session")
def real_page_sources() -> Mapping[str, str]:
    """Every generated page of the repository's knowledge base, path → the Markdown `errorkb render` and
    the plugin write (tests/site/test_sanitize.py: `real_page_markdown`), generated once per session
    (3 s) for the tests that read it; read-only."""
    from tests.site.test_sanitize import real_page_markdown

    return MappingProxyType(real_page_markdown())


@pytest.fixture(scope="session")
def real_pages(real_page_sources) -> Mapping[str, str]:
    """Every generated page of the repository's knowledge base as Python-Markdown renders it
    (tests/site/test_sanitize.py: `render_real_pages`), rendered once per session for the tests that read
    it (4 s); read-only."""
    from tests.site.test_sanitize import render_real_pages

    return MappingProxyType(render_real_pages(real_page_sources))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class _ForWalk(_Quiet):
    """The site as a walk over its pages needs it: no search index (Material's worker fetches and indexes all of it,
    3.1 MB, on every page, which a walk that reads each page's text never uses), and what it serves kept by the
    browser for an hour (Material's scripts, styles and fonts fetched once, not once a page)."""

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0].endswith("/search/search_index.json"):
            self.send_error(404)
            return
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


class _ForReader(_Quiet):
    """The site as the reader views and the paste box's tests need it: what it serves kept by the browser for an hour
    (as `_ForWalk`), and the real search index (3.1 MB) only to the first request for it, to every later one the same
    configuration holding no documents (`index`), never kept. Material's worker indexes what it is given on every full
    load (the real index: 1.5 s of CPU under load) and nothing those tests check is drawn from it; the first page's
    console still shows whether the real one loads clean. The search is tests/site/test_search.py's."""

    index: list[bytes]  # [real, empty], the real one taken by the first request
    taking: threading.Lock

    def do_GET(self) -> None:
        if not self.path.split("?", 1)[0].endswith("/search/search_index.json"):
            super().do_GET()
            return
        with self.taking:
            body = self.index.pop(0) if len(self.index) > 1 else self.index[0]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        super(_Quiet, self).end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


class _Kept(_Quiet):
    """The site kept by the browser for an hour: a tab that routes nothing fetches Material's scripts, styles and fonts
    once, not once a page (a site the test never changes)."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


def index_once(site: Path) -> type[_ForReader]:
    """A `_ForReader` handler of `site`, its real search index not yet served."""
    import json

    real = (site / "search" / "search_index.json").read_bytes()
    empty = json.dumps({**json.loads(real), "docs": []}).encode()
    return type("_IndexOnce", (_ForReader,), {"index": [real, empty], "taking": threading.Lock()})


@pytest.fixture(scope="session")
def reader_site(real_site) -> Iterator[tuple[Path, str]]:
    """(site folder, URL): `real_site`'s folder served by another thread for the tabs of the tests that read pages
    and the paste box but never search (the reader views, tests/site/test_reader_home.py, test_reader_origin.py):
    `index_once`, the real search index once per session, then one holding no documents
    (benchmarks/reader_views.py)."""
    site, _ = real_site
    with serve_as(site, "reader") as url:
        yield site, url


@contextlib.contextmanager
def serve(site: Path, handler: type[http.server.SimpleHTTPRequestHandler] = _Quiet, port: int = 0) -> Iterator[str]:
    """`site` served on 127.0.0.1 (at `port`, else one free) by a thread of this process, while the block runs: its
    URL. Every server of a built site in the tests and the benchmarks is one of these."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def serve_for_walk(site: Path) -> contextlib.AbstractContextManager[str]:
    """`site` served for a walk over its pages in a `WalkTab` (`_ForWalk`)."""
    return serve(site, _ForWalk)


def serve_as(site: Path, way: str) -> contextlib.AbstractContextManager[str]:
    """`site` served as one of the tests serves it: "real" as `real_site` (the whole search index to every page, the
    rest kept by the browser), "reader" as `reader_site` (`index_once`: a fresh server, the real index to its first
    request), "walk" as the page walk's (`serve_for_walk`), "plain" with nothing kept (the routed tabs' baseline in
    the benchmarks)."""
    handlers = {"real": _Kept, "walk": _ForWalk, "plain": _Quiet}
    return serve(site, index_once(site) if way == "reader" else handlers[way])


# How long a browser test waits for the page (an expect, a click, a load) on a busy machine.
BROWSER_WAIT_MS = 60_000


@pytest.fixture(scope="session")
def chromium():
    """One browser for the session; the tests skip when Debian's Chromium is not installed
    (in the full tier, they fail)."""
    from tests.conftest import missing

    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing("browser tests need Debian's /usr/bin/chromium (apt-get install chromium; "
                    "bash scripts/setup.sh --browser installs it)")
    from playwright.sync_api import expect, sync_playwright

    # A wait, never a time goal: an assertion passes the moment it holds. Playwright's 5 s default
    # failed CI at load 5-6 (Material's search worker still "Initializing search" after 5 s on the
    # full site); every browser test waits up to this long for what the page does in the background.
    expect.set_options(timeout=BROWSER_WAIT_MS)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


def launch(playwright):
    """Debian's Chromium, headless and offline (`CHROMIUM_ARGS`): the tests' browser and the benchmarks'."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


class Visit:
    """A tab that records every request not to 127.0.0.1 (`outside`) and every console error and uncaught exception
    (`errors`) from the browser's events, and routes nothing: Playwright turns the browser's HTTP cache off in a tab
    with any route, and a route sends each request through Python, so a routed tab fetched every page's scripts,
    styles and fonts again, each by a round trip through the driver (benchmarks/browser_tabs.py). A request to another
    host is still seen here, and fails at Chromium's resolver (`CHROMIUM_ARGS`), never reaching the network. A test
    that must block or rewrite a request routes it itself; `routed=True` gives the tab that routed every request
    before, refusing those off 127.0.0.1 (benchmarks/browser_tabs.py's baseline)."""

    def __init__(self, browser, color_scheme: str = "light", *, routed: bool = False):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=color_scheme)
        self.context.set_default_timeout(BROWSER_WAIT_MS)
        self.page = self.context.new_page()
        self.outside: list[str] = []
        self.errors: list[str] = []
        if routed:
            self.page.route("**/*", self._route)
        else:  # the context's: a worker's requests and a second tab's too
            self.context.on("request", lambda request: None if _local(request.url) else self.outside.append(request.url))
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _route(self, route) -> None:
        if _local(route.request.url):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def without_search_index(self) -> Visit:
        """No search index for this tab (a route: the tab loses its HTTP cache; a server of the site that refuses it,
        `serve_for_walk`, or serves it once, `reader_site`, keeps it): Material's search worker fetches and indexes
        all of it (3.1 MB) on every navigation, which a test that reads the page's text never uses. The page then
        logs the refused request: not for a test that reads the console."""
        self.page.route("**/search/search_index.json", lambda route: route.abort())
        return self

    def close(self) -> None:
        self.context.close()


def _local(url: str) -> bool:
    """A request the site's own server answers, or one that goes to no host (a `data:` or `blob:` URL)."""
    return url.startswith(("http://127.0.0.1:", "http://127.0.0.1/", "data:", "blob:"))


class WalkTab:
    """A tab that routes nothing, for a walk that reads pages and never their requests or console. Playwright turns
    the browser's HTTP cache off in a tab with any route, and a route sends each request through Python: `Visit`'s
    tab fetched every page's scripts, styles and fonts again, each by a round trip through the driver (the walk of
    every page: benchmarks/page_walk.py). Its pages come from `serve_for_walk`; it reaches no other host
    (`CHROMIUM_ARGS`' resolver rules)."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(BROWSER_WAIT_MS)
        self.page = self.context.new_page()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(chromium):
    opened: list[Visit] = []

    def open_(color_scheme: str = "light") -> Visit:
        opened.append(Visit(chromium, color_scheme))
        return opened[-1]

    yield open_
    for one in opened:
        one.close()


# -- a small knowledge base of our own, in a temp folder --------------------------------------

SAMPLE_IDS = ("head-dim-list-length", "num-heads-list-length")


def site_project(folder: Path, ids=SAMPLE_IDS, site_url: str | None = None) -> Path:
    """A copy of the site config and of two real entries with their snippets; no reports."""
    return copy_kb(folder, ids, site=True, site_url=site_url)


def snippet_hash(folder: Path, entry_id: str, file: str) -> str:
    import hashlib

    return hashlib.sha256((folder / "snippets" / entry_id / file).read_bytes()).hexdigest()


def record(folder: Path, entry_id: str, role: str, file: str, *, target="bundled", device="cpu",
           outcome="pass", reason="ok", when="2026-11-30T10:00:00+00:00", exception=None, sha=None,
           code=None) -> dict:
    """One check as a verification report stores it, made from the entry and snippets as they are
    in `folder` now (`inputs`; `sha` other than the file's makes it a check of other inputs)."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.keys import project_inputs
    from errorkb.results.records import CheckRecord, Code

    project = load_project(folder)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == entry_id)
    inputs = project_inputs(project, entry) if sha is None else f"other inputs than {sha}"

    codes = {"pass": Code.RAN_CLEAN if role != "before" else Code.RAISED_AS_DOCUMENTED, "fail": Code.RAISED,
             "not-run": Code.NO_DEVICE, "not-applicable": Code.NOT_APPLICABLE}
    fields = {"id": f"{entry_id}::{role}[{target}-{device}]", "entry": entry_id, "role": role,
              "snippet": f"snippets/{entry_id}/{file}",
              "snippet_sha256": sha or snippet_hash(folder, entry_id, file), "target": target, "device": device,
              "outcome": outcome, "code": code or codes[outcome], "reason": reason, "expected": "as documented",
              "verified_at": when, "exception": exception, "inputs": inputs,
              "environment": {"python": "3.11.7", "runtime": "torch", "runtime_version": "2.13.0+cpu",
                              "library": "transformers", "library_version": "5.15.1"}}
    if outcome == "pass" and device != "cpu":  # what a check on a device records, or the site shows no pass there
        fields["evidence"] = {"allocated_bytes": 4096, "calls": 1}
        if fields["code"] == Code.RAN_CLEAN:
            fields["device_basis"] = "call"
    return CheckRecord.model_validate(fields).model_dump(mode="json", exclude_none=True)


def write_report(folder: Path, checks: list[dict], name: str = "latest.json", verifier: str = "2") -> Path:
    import json

    path = folder / "reports" / name
    path.write_text(json.dumps({"schema": 2, "verifier": verifier, "created": "2026-11-30T10:00:00+00:00",
                                "environment": {"python": "3.11.7", "runtime": "torch"},
                                "targets": {"bundled": "bundled-test"}, "checks": checks}), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    return site_project(tmp_path)


# A real message and the traceback a user would paste, shared by the lookup and browser tests.
MESSAGE = "`head_dim` was provided as a list of length 12, but the Cache currently has 28 layers"
TRACEBACK = f"""Traceback (most recent call last):
  File "/home/me/export.py", line 14, in <module>
    cache.early_initialization(batch_size=1, num_heads=8, head_dim=[128, 128], dtype=dtype, device=device)
  File "/venv/lib/python3.11/site-packages/transformers/cache_utils.py", line 1471, in early_initialization
    raise ValueError(
ValueError: {MESSAGE}
"""

"""The `errorkb` MkDocs plugin: only dispatches; the work lives in `site`, `render`, `load`.

- `on_config`: serve the lookup script and badge styles with every page (nothing to copy
  into `docs/`, and any site using the plugin gets a working paste box); add the
  `nav_if_present` pages that exist.
- `on_files`: leave out every file of docs/ that is not a regular file (a FIFO would block the
  copy, and with it the build and every page `mkdocs serve` shows); load every entry and the
  reports and add what `site.site_files` generates: entry pages (kept out of the nav, which would
  otherwise list every error on every page), the error lists, the verification page, the JSON
  API and the assets. A broken entry logs its `path:line:col` problems (which fails a `--strict`
  build), leaves the other pages standing, and gets a page of its own at its address listing
  those problems with the YAML lines around each (`site.problem_pages`), so `mkdocs serve` shows
  the author why, and the save that fixes the file brings the entry's page back.
- Rendering: every generated page is a `BudgetedPage`, rendered within the CPU budget of
  `errorkb.site.budget` (the same as `errorkb check`'s); a page that passes it or makes the
  renderer raise logs its located problem and is published as its problems instead: the build
  never hangs or fails on one entry, and `mkdocs serve` keeps every other page up.
- The generated pages are published as `site_files` writes them, byte for byte what
  `errorkb render --out` writes: their front matter is escaped and their HTML blocks sanitised
  where they are written (`errorkb.site.escape`), not here.
- `on_page_content`: a generated page's HTML, as this engine produced it, goes through
  `sanitize` (nh3) once more: whatever an extension or theme adds, no script, handler or script
  URL reaches a reader.
- `on_page_markdown`: a hand-written page (the home page) may quote facts of the knowledge base
  as `{{ errorkb.NAME }}` (entry count, the releases measured; `site.facts`), so its words stay true.
- `on_serve`: watch the entry, snippet and report folders, so `mkdocs serve` rebuilds on change.
- Under `mkdocs serve` (`on_startup`), the plugin lives across rebuilds and a build re-makes only
  what a save changed (`errorkb.site.live`): entries, reports and generated files through
  `live.Sources`; a page whose Markdown and site are unchanged takes the last build's HTML, final
  file and search sections (`live.Pages`: `BudgetedPage.render`, `on_page_content`, `on_env`,
  `on_post_page`, `on_post_build`); a changed page is indexed for search without parsing again
  the rows of its tables and lists that its last index parsed (`searchrows.SearchRows`, in place
  of Material's own indexing of a page). `mkdocs build` always makes everything.
- Under `mkdocs serve --dirty` (scripts/serve.sh), MkDocs keeps the site folder and writes only
  what `File.is_modified()` says changed; the plugin's files (`LiveFile`) answer it through
  `live.Dirty`, so an unchanged entry page is neither built nor written again, and files no
  longer published are deleted (`on_post_build`).
- Under `mkdocs serve`, each rebuild starts (`on_pre_build`) by freeing what the last one left
  and freezing what lives across builds out of the collector's reach (`live.Survivors`), so a
  rebuild no longer pays a full garbage collection over the kept state; `on_shutdown` unfreezes.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from errorkb.core.load import Resolved, load_project_entries
from errorkb.core.problems import Problem, ProblemsFound
from errorkb.core.project import Project, load_project
from errorkb.plugs import runtime_for
from errorkb.results import store
from errorkb.results.matrix import matrix_problem
from errorkb.results.report import read_reports
from errorkb.site import budget, docstree, live, names, searchrows, settings, themefiles
from errorkb.site import files as site
from errorkb.site.sanitize import sanitize

log = logging.getLogger("mkdocs.plugins.errorkb")
# The template of a page whose final file the last build made (`on_post_page` puts it back): nothing to render.
REUSED_TEMPLATE = "errorkb-reused.html"


class ErrorkbConfig(Config):  # type: ignore[no-untyped-call]
    root = config_options.Optional(config_options.Type(str))  # project folder; default: beside mkdocs.yml
    # Nav items ({title: page}) appended only when the page exists in docs/: pages another tool
    # or person adds later (e.g. docs/ci.md) join the nav without breaking the strict build before.
    nav_if_present = config_options.Type(list, default=[])


class ErrorkbPlugin(BasePlugin[ErrorkbConfig]):  # type: ignore[no-untyped-call]
    _sources: live.Sources | None = None  # under `mkdocs serve` only
    _pages: live.Pages | None = None
    _compiled: live.Compiled | None = None
    _dirty: live.Dirty | None = None  # under `mkdocs serve --dirty` only
    _search_rows: searchrows.SearchRows | None = None
    _survivors: live.Survivors | None = None
    _site_key: str = ""
    _order: list[str] = []
    _repo: Path | None = None  # the project folder (`docstree.repository`); `_repository` finds it

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """`mkdocs serve` keeps this plugin across its rebuilds (MkDocs does so for a plugin with
        `on_startup`): there, what one build made serves the next."""
        serving = command == "serve"
        if self._survivors is not None:  # a plugin MkDocs kept from an earlier `mkdocs serve` in this process
            self._survivors.release()
        self._survivors = live.Survivors() if serving else None
        self._sources = live.Sources() if serving else None
        self._pages = live.Pages() if serving else None
        self._compiled = live.Compiled() if serving else None
        self._search_rows = searchrows.SearchRows() if serving else None
        self._dirty = live.Dirty() if serving and dirty else None
        if self._dirty is not None:  # under --strict, MkDocs' warning would abort every rebuild
            logging.getLogger("mkdocs.commands.build").addFilter(_not_the_dirty_warning)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Before MkDocs walks docs/ (`docstree`): the project folder holds mkdocs.yml, and docs/ is
        a tree MkDocs can walk, inside it; otherwise the build stops with what to fix."""
        self._repo = None  # mkdocs.yml may have changed since the last build (`mkdocs serve`)
        repo = self._repository(config)
        problem = docstree.tree_problem(Path(config.docs_dir), repo) or docstree.theme_problem(
            config.theme.custom_dir, repo)
        if problem is None:
            site_dir = Path(config.site_dir)
            found = docstree.site_problem(site_dir, self._kept(config, repo), repo)
            if found is not None:
                problem = f"{docstree.site_dir_origin(Path(config.config_file_path), site_dir)} {found}"
        if problem is not None:
            raise PluginError(f"errorkb: {problem}")
        published = settings.refused(config, Path(config.config_file_path))  # the theme writes them unescaped
        if published:
            raise PluginError("errorkb: " + "; ".join(published))
        if config.copyright:  # Material's HTML by design, written as it is: kept, made inert as a page's HTML is
            config.copyright = sanitize(config.copyright)
        themefiles.list_fewer(config.theme)
        if config.nav is not None:
            for item in self.config.nav_if_present:
                (title, page), = item.items()
                if (Path(config.docs_dir) / page).is_file():
                    config.nav.append({title: page})
        for path in site.STYLES:
            if path not in config.extra_css:
                config.extra_css.append(path)
        for path in site.SCRIPTS:
            if path not in [str(script) for script in config.extra_javascript]:
                config.extra_javascript.append(path)
        return config

    @event_priority(-100)  # last; every plugin's `on_config` has run (Material's let go of the last build's pages)
    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if self._survivors is not None:
            self._survivors.start()

    def on_shutdown(self) -> None:
        if self._survivors is not None:
            self._survivors.release()

    def _repository(self, config: MkDocsConfig) -> Path:
        """The project folder (`docstree.repository`), found once per build; a `root` that leads out
        of the repository stops the build with what to do."""
        if self._repo is None:
            try:
                self._repo = docstree.repository(Path(config.config_file_path), self.config.root)
            except ValueError as error:
                raise PluginError(str(error)) from None
        return self._repo

    def _kept(self, config: MkDocsConfig, repo: Path) -> list[tuple[str, Path]]:
        """The folders of the repository a build must never empty (`docstree.site_problem`): what errorkb reads
        (the entries, snippets and reports folders), the theme's folders in the repository, and .git."""
        kept = [("the theme's folder", Path(folder)) for folder in config.theme.dirs
                if Path(folder).resolve().is_relative_to(repo)]
        kept.append(("the repository's .git", repo / ".git"))
        try:
            project = load_project(repo)
        except ProblemsFound:  # said by `on_files`, which stops the build
            return kept
        return [("the entries folder", project.entries), ("the snippets folder", project.snippets),
                ("the reports folder", project.reports), *kept]

    def _project(self, config: MkDocsConfig) -> Project | None:
        try:
            return load_project(self._repository(config))
        except ProblemsFound as found:
            for problem in found.problems:
                log.error(str(problem))
            return None

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self._generated: set[str] = set()
        repo = self._repository(config)
        for file in list(files):
            if not docstree.utf8_name(file.src_uri):  # MkDocs' URL of it raised UnicodeEncodeError: no site
                shown = file.src_uri.encode("utf-8", "backslashreplace").decode("utf-8")
                log.warning(f"errorkb: {shown}: the name is not UTF-8; left out of the site (rename it)")
                files.remove(file)
            elif file.abs_src_path is not None and not _regular(file.abs_src_path):
                log.warning(f"errorkb: {file.src_uri} is not a regular file; left out of the site")
                files.remove(file)
            elif file.src_dir == config.docs_dir and docstree.outside(file.abs_src_path or "", repo):
                log.warning(f"errorkb: {file.src_uri} leads out of the repository (a link); left out of the site")
                files.remove(file)
        project = self._project(config)
        if project is None:
            return files
        devices = runtime_for(project.library.runtime).devices
        sources = self._sources
        loaded = (sources.entries(project, site.reserved_ids()) if sources
                  else load_project_entries(project, site.reserved_ids()))
        for problem in loaded.problems:
            log.error(str(problem))
        reports, unreadable = sources.reports(project, devices) if sources else read_reports(project.reports, devices)
        reports, unknown = site.expected_reports(project, loaded, reports)
        matrix_said = sources.matrix(project)[1] if sources else matrix_problem(project)
        for message in [*unreadable, *unknown, *filter(None, [matrix_said])]:
            log.warning(message)
        docs = Path(config.docs_dir).resolve()
        resolved = Resolved()  # this build's: each folder resolved once
        edit_url = lambda path: _edit_url(config, project, path, resolved)  # noqa: E731
        pages, generated = (sources.files(project, loaded, reports, edit_url=edit_url) if sources
                            else site.site_files(project, loaded, reports, edit_url=edit_url))
        self._facts = site.facts(project, pages)
        generated += site.problem_pages(project, loaded)
        if self._pages is not None:
            self._pages.start()
            theme = [Path(folder) for folder in config.theme.dirs if Path(folder).is_relative_to(project.root)]
            key = live.site_key(Path(config.config_file_path), docs, theme, {one.path for one in generated})
            self._site_key = hashlib.sha256(repr(key).encode()).hexdigest()
        if self._search_rows is not None:  # a changed page's unchanged rows are not parsed again for search
            self._search_rows.install(config)
        if self._dirty is not None:
            self._dirty.start()
            _forget_search_index(config)
        titles = _nav_titles(config.nav)
        rehearsals = {one.key: one for one in budget.rehearsals(project, loaded, pages, generated, parts=False)}
        parts = lambda rehearsal: budget.with_parts(rehearsal, project, loaded, pages)  # noqa: E731 - only on failure
        # A hand-written file wins over a generated one that would become the same file of the site: the same
        # name, another name of the same address (verification/index.md), or one a disk folding case makes one.
        written: dict[str, str] = {}
        for file in files:
            other = written.setdefault(names.one_file(file.dest_uri), file.src_uri)
            if other != file.src_uri:
                log.warning(f"errorkb: docs/{other} and docs/{file.src_uri} become one file of the site on a disk that "
                            "folds case or Unicode forms (macOS, Windows), where one replaces the other; rename one")
        for one in generated:
            is_entry = one.source is not None
            file = LiveFile.generated(config, one.path, content=one.content,
                                      inclusion=InclusionLevel.NOT_IN_NAV if is_entry else InclusionLevel.UNDEFINED)
            assert isinstance(file, LiveFile)  # `File.generated` makes its class's
            hand_written = written.get(names.one_file(file.dest_uri))
            if hand_written is not None:
                _say_hidden(one.path, is_entry, hand_written)
                continue
            if self._dirty is not None and self._pages is not None:
                file.live = (self._dirty, self._pages)
            if one.source is not None:  # the edit button opens the YAML, not a generated page
                source = resolved(project.root / one.source)
                file.edit_uri = source.relative_to(docs).as_posix() if source.is_relative_to(docs) else None
            files.append(file)
            if one.page:
                self._generated.add(one.path)
                page = BudgetedPage(titles.get(one.path), file, config, project, rehearsals[one.path], parts)
                if self._pages is not None:
                    page.reuse_from(self._pages, self._site_key)
        if self._dirty is not None:  # a hand-written page is built again on every build: no last output
            for file in files.documentation_pages():
                if not isinstance(file, LiveFile):
                    Path(file.abs_dest_path).unlink(missing_ok=True)
        return files

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """A hand-written page's `{{ errorkb.NAME }}` facts (`site.fill`); an unknown one warns."""
        if page.file.src_uri in getattr(self, "_generated", ()):
            return markdown
        filled, problems = site.fill(markdown, getattr(self, "_facts", {}), page.file.src_uri)
        for problem in problems:
            log.warning(problem)
        return filled

    @event_priority(-100)  # after every other plugin that changes the content
    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if page.file.src_uri not in getattr(self, "_generated", ()):
            return html
        if self._pages is not None and page.url in self._pages.reused:
            return html  # the last build's, sanitised then
        html = sanitize(html)
        if self._pages is not None and isinstance(page, BudgetedPage) and page.live_key:
            self._pages.made[page.url] = live.Made(page.live_key, html, page.toc, page.title,
                                                   set(page.present_anchor_ids or ()))
        return html

    def on_env(self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        if self._pages is not None:
            self._order = [file.page.url for file in files.documentation_pages() if file.page is not None]
            reused: list[jinja2.BaseLoader] = [jinja2.DictLoader({REUSED_TEMPLATE: ""})]
            env.loader = jinja2.ChoiceLoader(reused + ([env.loader] if env.loader else []))
            env.bytecode_cache = self._compiled
        if self._dirty is not None:
            self._dirty.building = True  # every page is read: from now on MkDocs writes
            self._published = {file.abs_dest_path for file in files}
        return env

    @event_priority(-100)  # the final file, after every other plugin's changes
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if self._pages is None or page.file.src_uri not in getattr(self, "_generated", ()):
            return output
        made = self._pages.made.get(page.url)
        if page.url in self._pages.reused and made is not None:
            return made.output
        if made is not None and isinstance(page, BudgetedPage) and made.key == page.live_key:
            made.output = output
        return output

    @event_priority(-100)  # after the search plugin wrote its index
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        mark = Path(config.site_dir) / docstree.MARK  # the next build may empty this folder (`docstree.site_problem`)
        try:
            # replaced, never written through: a link or a FIFO there (MkDocs keeps hidden names) is not followed
            store.replace(mark, "A site errorkb's MkDocs plugin built: `mkdocs build` empties this folder.\n", 0o644)
        except OSError as error:
            log.warning(f"errorkb: {mark} could not be written ({error.strerror or error}); the next build into "
                        "this folder is refused unless MkDocs' own files mark it as built")
        index = Path(config.site_dir) / "search" / "search_index.json"
        if self._pages is not None and index.is_file():  # keeps the fresh pages' sections for the next build
            index.write_text(self._pages.search_index(index.read_text(encoding="utf-8"), self._order),
                             encoding="utf-8")
        if self._dirty is not None:
            site_dir = Path(os.path.abspath(config.site_dir))
            for path in self._dirty.remove_stale(getattr(self, "_published", set()), site_dir):
                log.debug(f"errorkb: {path} is no longer published; deleted")

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., Any]) -> LiveReloadServer:
        project = self._project(config)
        if project is not None:
            for folder in (project.snippets, project.reports, project.entries):
                if folder.is_dir():
                    server.watch(str(folder))
        return server


class LiveFile(File):
    """A file the plugin generates. Under `mkdocs serve --dirty` (`live`), whether MkDocs must
    write it is `live.Dirty`'s answer: MkDocs' own (modification times) is always yes for a
    generated file."""

    live: tuple[live.Dirty, live.Pages] | None = None

    def is_modified(self) -> bool:
        if self.live is None:
            return super().is_modified()
        return self.live[0].modified(self, self.live[1])


class BudgetedPage(Page):
    """A generated page, rendered within the budget; past it, or when the renderer raises, its
    located problem is logged and the page shows it, with the lines of the file it comes from.
    Made in `on_files`, as Material's blog makes its posts, so MkDocs' nav takes it as it is."""

    def __init__(self, title: str | None, file: File, config: MkDocsConfig, project: Project,
                 rehearsal: budget.Rehearsal, parts: Callable[[budget.Rehearsal], budget.Rehearsal]) -> None:
        super().__init__(title, file, config)
        self._project, self._source, self._rehearsal, self._parts = project, rehearsal.source, rehearsal, parts
        self._live: tuple[live.Pages, str] | None = None
        self.live_key = ""

    def reuse_from(self, pages: live.Pages, site_key: str) -> None:
        """Under `mkdocs serve`: take the last build's HTML when this page's Markdown is the same."""
        self._live = (pages, site_key)

    def read_source(self, config: MkDocsConfig) -> None:
        if self._live is None or config.plugins.events["page_read_source"]:  # another plugin reads it
            super().read_source(config)
            return
        self.markdown, self.meta = self._live[0].split(self.url, self.file.content_string)

    def render(self, config: MkDocsConfig, files: Files) -> None:
        if self._live is not None:
            pages, site_key = self._live
            self.live_key = hashlib.sha256(f"{site_key}\n{self.markdown}".encode()).hexdigest()
            made = pages.reuse(self.url, self.live_key)
            if made is not None:  # converted, indexed and templated by the last build: as it was
                self.content, self.toc, self._title_from_render = made.content, made.toc, made.title
                self.present_anchor_ids, self.links_to_anchors = set(made.anchors), None
                self.meta = {**self.meta, "template": REUSED_TEMPLATE,
                             "search": {**(self.meta.get("search") or {}), "exclude": True}}
                return
        self._render(config, files)

    def _render(self, config: MkDocsConfig, files: Files) -> None:
        what = budget.within_budget(lambda: self._convert(config, files), budget.allowance(self.markdown or ""))
        if what is None:
            return
        rehearsal = self._parts(self._rehearsal)
        convert = budget.converter(extensions=config.markdown_extensions, configs=config.mdx_configs)
        verdict = budget.locate(rehearsal, what, lambda markdown: budget.within_budget(lambda: convert(markdown),
                                                                                       budget.allowance(markdown)),
                                budget.CPU_SECONDS)
        problem = Problem(*budget.problem(verdict, self._source))
        log.error(str(problem))
        if self._source is not None:  # the problem with the lines around it, unless they are what blows it
            self.markdown, self.meta = get_data(site.problems_page(self._project, problem.path, [problem]))
            if budget.within_budget(lambda: super(BudgetedPage, self).render(config, files)) is None:
                return
        self.markdown, self.meta = get_data(site.bare_problems_page(problem))
        super().render(config, files)

    def _convert(self, config: MkDocsConfig, files: Files) -> None:
        """MkDocs' rendering of the page; under `mkdocs serve`, without converting again the rows
        of its tables that the last build converted (`live.Pages.convert`)."""
        if self._live is None:
            super().render(config, files)
            return
        pages, site_key = self._live
        markdown = self.markdown or ""

        def render(text: str) -> str:
            self.markdown = text
            super(BudgetedPage, self).render(config, files)
            return self.content or ""

        try:
            self.content = pages.convert(self.url, site_key, markdown, render)
        finally:
            self.markdown = markdown


def _not_the_dirty_warning(record: logging.LogRecord) -> bool:
    """MkDocs warns on every dirty build that its navigation and links may be inaccurate: true of
    MkDocs' own choice (modification times), not of the plugin's pages (`live.Dirty` builds a page
    again whenever its Markdown or the site around it changed, and every hand-written page)."""
    return not record.getMessage().startswith("A 'dirty' build is being performed")


def _forget_search_index(config: MkDocsConfig) -> None:
    """Material's search, in a dirty build, merges the last index with the first page it indexed
    again (one page per rebuild, it assumes); the plugin puts every reused page's sections back
    itself (`live.Pages.search_index`), so the index Material writes must be this build's only."""
    for name in ("material/search", "search"):
        plugin = config.plugins.get(name)
        if plugin is not None and hasattr(plugin, "search_index_prev"):
            plugin.search_index_prev = None


def _regular(path: str) -> bool:
    """A regular file (or a symlink to one): what MkDocs may read and copy without blocking."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _say_hidden(path: str, is_entry: bool, by: str) -> None:
    """A hand-written file (`by`) in place of a generated one (`path`): a site page (docs/tags.md, a home
    for the lists) is the site's own choice; one in place of an entry's page or JSON, the JSON API or an
    asset hides what errorkb verified, and is said as a warning (a strict build fails)."""
    if not is_entry and names.site_page(path):
        log.debug(f"errorkb: docs/{by} exists in docs/; not generating {path}")
        return
    where = ("there" if by == path else
             f"as {path}, one file with it on a disk that folds case (macOS, Windows)"
             if names.one_file(by) == names.one_file(path) else f"at the same address ({path})")
    log.warning(f"errorkb: docs/{by} is hand-written and hides the page errorkb generates {where} "
                f"({'an entry' if is_entry else 'a generated file'}); remove or rename it")


def _nav_titles(nav: Any) -> dict[str, str]:
    """docs-relative path → the title `nav` gives it: MkDocs names a page from the nav only when
    it makes the page itself, and the plugin makes the pages it generates."""
    titles: dict[str, str] = {}
    for item in nav if isinstance(nav, list) else []:
        if isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, str):
                    titles[value] = title
                else:
                    titles.update(_nav_titles(value))
    return titles


def _edit_url(config: MkDocsConfig, project: Project, path: str, resolved: Resolved) -> str | None:
    return site.edit_url(config.repo_url, config.edit_uri, Path(config.docs_dir), project, path, resolved)

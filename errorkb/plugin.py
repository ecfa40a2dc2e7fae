"""The `errorkb` MkDocs plugin: only dispatches; the work lives in `load` and `render`.

- `on_files`: load every entry and the reports, add one generated page per entry, the error
  index and the JSON API. A broken entry logs its `path:line:col` problems (which fails a
  `--strict` build) and leaves the other pages standing.
- `on_serve`: watch the snippet and report folders too, so `mkdocs serve` rebuilds on change.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from errorkb import render
from errorkb.entry import Entry
from errorkb.load import load_project_entries
from errorkb.problems import ProblemsFound
from errorkb.project import Project, load_project
from errorkb.verify.report import latest_results, read_reports

log = logging.getLogger("mkdocs.plugins.errorkb")


class ErrorkbConfig(Config):
    root = config_options.Optional(config_options.Type(str))  # project folder; default: beside mkdocs.yml


class ErrorkbPlugin(BasePlugin[ErrorkbConfig]):
    def _project(self, config) -> Project | None:
        root = Path(self.config.root) if self.config.root else Path(config.config_file_path).parent
        try:
            return load_project(root)
        except ProblemsFound as found:
            for problem in found.problems:
                log.error(str(problem))
            return None

    def on_files(self, files: Files, config) -> Files:
        project = self._project(config)
        if project is None:
            return files
        loaded = load_project_entries(project)
        for problem in loaded.problems:
            log.error(str(problem))
        reports, unreadable = read_reports(project.reports)
        for message in unreadable:
            log.warning(message)
        pages = render.build_pages(project, loaded.entries, latest_results(reports))
        for page in pages:
            files.append(self._page(page, config))
            files.append(File.generated(config, render.api_path(page.entry),
                                        content=_json(render.entry_document(page))))
        files.append(File.generated(config, "errors/index.md", content=render.render_index(pages)))
        files.append(File.generated(config, "api/errors/index.json", content=_json(render.index_document(pages))))
        files.append(File.generated(config, "api/schema/entry.json", content=_json(Entry.model_json_schema())))
        return files

    def _page(self, page: render.EntryPage, config) -> File:
        edit_url = _edit_url(config, page.yaml_path)
        generated = File.generated(config, page.url, content=render.render_entry(page, edit_url=edit_url))
        docs = Path(config.docs_dir).resolve()
        yaml_path = (Path(config.config_file_path).parent / page.yaml_path).resolve()
        if yaml_path.is_relative_to(docs):  # the edit button opens the YAML, not a generated page
            generated.edit_uri = yaml_path.relative_to(docs).as_posix()
        return generated

    def on_serve(self, server, config, builder):
        project = self._project(config)
        if project is not None:
            for folder in (project.snippets, project.reports, project.entries):
                if folder.is_dir():
                    server.watch(str(folder))
        return server


def _edit_url(config, yaml_path: str) -> str | None:
    repo = (config.repo_url or "").rstrip("/")
    return f"{repo}/edit/main/{yaml_path}" if repo else None


def _json(document: dict) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"

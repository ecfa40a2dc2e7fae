"""Live authoring (`errorkb.site.live`): under `mkdocs serve` a rebuild re-makes only what a save
changed, and what it publishes is byte for byte what a build from scratch publishes."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
import logging
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.report import read_reports
from errorkb.site import files as site
from errorkb.site import live
from tests.kb import copy_kb
from tests.site.sitekb import record, write_report

IDS = ("head-dim-list-length", "num-heads-list-length", "import-offloadedcache-removed")
CHANGED = "head-dim-list-length"
NAMING = "num-heads-list-length"  # names CHANGED among its related errors: its page shows CHANGED's title
UNRELATED = "import-offloadedcache-removed"


@pytest.fixture
def kb(tmp_path) -> Path:
    root = copy_kb(tmp_path / "kb", IDS, site=True)
    write_report(root, [record(root, entry_id, "after", "after.py") for entry_id in IDS])
    return root


@pytest.fixture(params=[False, True], ids=["serve", "serve-dirty"])
def serving(request):
    """Builds in this process as `mkdocs serve` makes them: one plugin kept across builds; with
    `--dirty` (scripts/serve.sh) the site folder kept too, MkDocs writing only what changed.
    `command="build"`: a build from scratch, into its own folder."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    configs = []

    dirty = request.param
    mode = {"dirty": False}

    def build_site(root: Path, site_dir: Path, command: str | None = None, **options):
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(site_dir), **options)
        if command:
            mode["dirty"] = dirty and command == "serve"
            config.plugins.on_startup(command=command, dirty=mode["dirty"])
            # as a new process: Material's search (kept by MkDocs, as this plugin) holds the index of
            # the last dirty build, and merges it into the next
            config.plugins["material/search"].search_index_prev = None
        build(config, serve_url="http://127.0.0.1:8000/", dirty=mode["dirty"])
        configs.append(config)
        return config.plugins["errorkb"]

    yield build_site
    for config in configs[-1:]:  # the plugin outlives the test (MkDocs caches it): leave it as `build` has it
        config.plugins.on_startup(command="build", dirty=False)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file of a built site; the sitemap's gzip copy compared by its content (its header
    holds the time it was written)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            out[path.relative_to(folder).as_posix()] = gzip.decompress(data) if path.suffix == ".gz" else data
    return out


# `scratch_tree`'s builds, by (the day, the digest of the files built): each process builds each set of files once.
_SCRATCH: dict[tuple[str, str], dict[str, bytes]] = {}


def scratch_tree(root: Path, site_dir: Path, serving) -> dict[str, bytes]:
    """`tree` of a build from scratch (`serving(root, site_dir, "build")`) of `root`'s files as they are now. The live
    tests end most rebuilds by comparing them with such a build, of the same few sets of files (the copy unmodified,
    after the same edit in either serve mode): a build from scratch is a function of the files it reads (its plugin
    started anew) and of the day (the sitemap's dates), so each set is built once per process, keyed on both."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            name = path.relative_to(root).as_posix().encode()
            data = path.read_bytes()
            digest.update(b"%d:%s%d:" % (len(name), name, len(data)) + data)
    key = (datetime.date.today().isoformat(), digest.hexdigest())
    if key not in _SCRATCH:
        serving(root, site_dir, "build")
        _SCRATCH[key] = tree(site_dir)
    return _SCRATCH[key]


def edit_prose(root: Path) -> None:
    path = root / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
    path.write_text(path.read_text().replace("meaning: |\n", "meaning: |\n  EDITED-LIVE prose.\n", 1))


def test_a_rebuild_after_a_save_publishes_what_a_build_from_scratch_publishes(kb, tmp_path, serving):
    served = tmp_path / "served"
    serving(kb, served, "serve")
    edit_prose(kb)
    plugin = serving(kb, served)
    assert plugin._sources.remade == [CHANGED, NAMING]  # the entry, and the one whose page names it
    reused, fresh = plugin._pages.reused, plugin._pages.fresh
    assert f"errors/transformers/{UNRELATED}/" in reused
    assert f"errors/transformers/{CHANGED}/" in fresh and f"errors/transformers/{CHANGED}/" not in reused

    incremental, everything = tree(served), scratch_tree(kb, tmp_path / "scratch", serving)
    assert b"EDITED-LIVE prose." in incremental[f"errors/transformers/{CHANGED}/index.html"]
    assert sorted(incremental) == sorted(everything)
    differing = [name for name in everything if incremental[name] != everything[name]]
    assert differing == []
    index = json.loads(incremental["search/search_index.json"])
    assert any("EDITED-LIVE" in doc["text"] for doc in index["docs"])
    assert {doc["location"].split("#")[0] for doc in index["docs"]} >= {f"errors/transformers/{i}/" for i in IDS}


def test_a_report_saved_remakes_only_the_entries_whose_records_changed(kb, tmp_path, serving):
    served = tmp_path / "served"
    serving(kb, served, "serve")
    write_report(kb, [record(kb, entry_id, "after", "after.py", reason="clean run" if entry_id == CHANGED else "ok")
                      for entry_id in IDS])
    plugin = serving(kb, served)
    assert plugin._sources.remade == [CHANGED]
    assert tree(served) == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_failing_record_reaches_the_badges_of_the_lists_and_the_verification_page(kb, tmp_path, serving):
    served = tmp_path / "served"
    serving(kb, served, "serve")
    before = tree(served)
    write_report(kb, [record(kb, entry_id, "after", "after.py", outcome="fail" if entry_id == CHANGED else "pass",
                             reason="FAILED-LIVE" if entry_id == CHANGED else "ok") for entry_id in IDS])
    plugin = serving(kb, served)
    assert plugin._sources.remade == [CHANGED]
    after = tree(served)
    for listing in ("errors/index.html", "verification/index.html", "api/errors/index.json"):
        assert after[listing] != before[listing], f"{listing} still shows the old record"
    assert b"FAILED-LIVE" in after["verification/index.html"]
    assert {"errors/", "verification/"} <= plugin._pages.fresh
    assert after == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_title_saved_reaches_the_lists_and_the_pages_naming_it_but_no_other_page(kb, tmp_path, serving):
    served = tmp_path / "served"
    first = serving(kb, served, "serve")._search_rows.parsed  # every row of every page, for search
    path = kb / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join('title: "RETITLED-LIVE"\n' if line.startswith("title:") else line for line in lines))
    plugin = serving(kb, served)
    assert plugin._sources.remade == [CHANGED, NAMING]
    assert f"errors/transformers/{UNRELATED}/" in plugin._pages.reused
    # the lists are indexed for search again, their other rows not parsed again (`searchrows`)
    assert 0 < plugin._search_rows.parsed < first
    site = tree(served)
    for listing in ("errors/index.html", "errors/by-exception/index.html", "errors/by-api/index.html",
                    "api/errors/index.json", f"errors/transformers/{NAMING}/index.html"):
        assert b"RETITLED-LIVE" in site[listing], listing
    assert site == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_save_of_prose_leaves_the_lists_as_they_were(kb, serving, tmp_path):
    """The lists are made again only when `render.listed` changes, which leaves out the prose:
    so no list may show any prose field (each changed in turn, the lists' bytes stay the same)."""
    from errorkb.site import render

    project = load_project(kb)
    loaded = load_project_entries(project, site.reserved_ids())
    reports = read_reports(project.reports, ["cpu", "cuda"])[0]
    pages, _ = site.site_files(project, loaded, reports)
    lists = site.listing_files(project, pages, reports)
    keys = [render.listed(page) for page in pages]
    for field in sorted(render.PROSE):
        for page in pages:
            value = getattr(page.entry, field)
            changed = ([f"PROSE-{field}"] * len(value) if isinstance(value, list) and isinstance(value[0], str)
                       else value if isinstance(value, list) else f"PROSE-{field}")
            if field == "solutions":
                changed = [solution.model_copy(update={"title": "PROSE-solution", "body": "PROSE-body"})
                           for solution in value]
            page.entry = page.entry.model_copy(update={field: changed})
        assert [render.listed(page) for page in pages] == keys, field
        assert site.listing_files(project, pages, reports) == lists, f"a list shows the entry's {field}"


def test_a_broken_entry_shows_its_problems_on_its_own_page_and_comes_back(kb, tmp_path, serving):
    served = tmp_path / "served"
    serving(kb, served, "serve")
    path = kb / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
    good = path.read_text()
    path.write_text(good.replace("meaning: |", "meening: |", 1))
    serving(kb, served)
    page = (served / "errors" / "transformers" / CHANGED / "index.html").read_text()
    assert "This entry does not load" in page and "did you mean &#39;meaning&#39;" in page.replace("'", "&#39;")
    assert "What it means" in (served / "errors" / "transformers" / IDS[1] / "index.html").read_text()
    path.write_text(good)
    serving(kb, served)
    assert "What it means" in (served / "errors" / "transformers" / CHANGED / "index.html").read_text()


def test_sources_reload_only_the_changed_file_and_give_what_site_files_gives(kb):
    """Without MkDocs: the generated files equal `site_files`', and an unchanged entry file is
    never loaded again (the same object comes back)."""
    project = load_project(kb)
    sources = live.Sources()
    first = sources.entries(project, site.reserved_ids())
    edit_prose(kb)
    second = sources.entries(project, site.reserved_ids())
    before = {one.entry.id: one for one in first.entries}
    after = {one.entry.id: one for one in second.entries}
    assert [entry_id for entry_id in IDS if after[entry_id] is not before[entry_id]] == [CHANGED]
    reports, _ = sources.reports(project, ["cpu", "cuda"])
    _, made = sources.files(project, second, reports)
    _, scratch = site.site_files(project, load_project_entries(project, site.reserved_ids()),
                                 read_reports(project.reports, ["cpu", "cuda"])[0])
    assert made == scratch


def test_a_report_saved_reaches_the_coverage_page(kb):
    """The coverage page says where each entry stands (verified, failing...): a report saved with no entry file
    changed must make it again, as a build from scratch would."""
    project = load_project(kb)
    sources = live.Sources()
    sources.files(project, sources.entries(project, site.reserved_ids()), sources.reports(project, ["cpu", "cuda"])[0])
    write_report(kb, [record(kb, entry_id, "after", "after.py", outcome="fail" if entry_id == CHANGED else "pass",
                             reason="exited with an error") for entry_id in IDS])
    _, made = sources.files(project, sources.entries(project, site.reserved_ids()),
                            sources.reports(project, ["cpu", "cuda"])[0])
    _, scratch = site.site_files(project, load_project_entries(project, site.reserved_ids()),
                                 read_reports(project.reports, ["cpu", "cuda"])[0])
    coverage = [next(one.content for one in files if one.path == "coverage.md") for files in (made, scratch)]
    assert coverage[0] == coverage[1]
    assert "failing" in coverage[1]


def test_a_dirty_rebuild_writes_only_what_changed(kb, tmp_path, serving, caplog):
    """Under `mkdocs serve --dirty` the plugin's unchanged pages and files are not written again:
    after a prose save, the changed entry's page and its JSON are (the page naming it shows its
    title only: remade by the plugin, the same Markdown, so not written)."""
    served = tmp_path / "served"
    plugin = serving(kb, served, "serve")
    if plugin._dirty is None:
        pytest.skip("a clean `mkdocs serve` writes everything")
    edit_prose(kb)
    caplog.set_level(logging.WARNING, logger="mkdocs.commands.build")
    serving(kb, served, strict=True)  # MkDocs' warning that a dirty build may be inaccurate would abort it
    written = set(plugin._dirty.written)
    assert {f"errors/transformers/{CHANGED}.md", f"api/errors/{CHANGED}.json"} <= written
    for unchanged in (NAMING, UNRELATED):
        assert f"errors/transformers/{unchanged}.md" not in written
    assert f"api/errors/{UNRELATED}.json" not in written
    # The coverage page says where each entry stands: the prose edited, the changed entry's pass is stale there too.
    assert not written & {"api/schema/entry.json", "assets/errorkb/lookup.js"}


def test_an_entry_removed_leaves_no_page_behind(kb, tmp_path, serving):
    served = tmp_path / "served"
    serving(kb, served, "serve")
    (kb / "docs" / "errors" / "transformers" / f"{UNRELATED}.yml").unlink()
    serving(kb, served)
    assert not (served / "errors" / "transformers" / UNRELATED).exists()
    assert not (served / "api" / "errors" / f"{UNRELATED}.json").exists()
    assert tree(served) == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_changed_list_converts_only_its_new_rows_and_gives_the_whole_conversion(kb):
    """`live.Pages.convert`: a list page whose rows changed converts only the rows the last build
    did not (and the rest of the page), and its HTML is, byte for byte, the whole page converted;
    HTML that does not hold the tables planned falls back to the whole conversion."""
    import markdown as python_markdown

    from errorkb.site import render

    project = load_project(kb)
    loaded = load_project_entries(project, site.reserved_ids())
    reports = read_reports(project.reports, ["cpu", "cuda"])[0]
    pages, _ = site.site_files(project, loaded, reports)
    source = render.render_verification(pages, project.library, reports)
    extensions = ["admonition", "attr_list", "md_in_html", "tables", "toc", "pymdownx.details",
                  "pymdownx.superfences"]
    converted: list[str] = []

    def whole(text: str) -> str:
        return python_markdown.Markdown(extensions=extensions).convert(text)

    def counting(text: str) -> str:
        converted.append(text)
        return whole(text)

    first = "\n".join(source.split("\n")[4:])  # without the front matter
    rows = [line for line in first.split("\n") if line.startswith("| [")]
    assert len(rows) >= 3
    memo = live.Pages()
    assert memo.convert("v/", "key", first, counting) == whole(first)
    changed = first.replace(rows[1], rows[1].replace("](", " CHANGED-ROW](", 1)).replace(rows[2] + "\n", "")
    changed = changed.replace(rows[0], rows[0] + "\n" + rows[0].replace("](", " ADDED-ROW](", 1))
    converted.clear()
    assert memo.convert("v/", "key", changed, counting) == whole(changed)
    assert len(converted) == 1 and "CHANGED-ROW" in converted[0] and "ADDED-ROW" in converted[0]
    assert rows[0] not in converted[0].split("\n")  # a row the last build converted is not converted again
    converted.clear()
    assert memo.convert("v/", "other site", changed, counting) == whole(changed)  # another site: all again
    assert converted == [changed]
    converted.clear()
    assert memo.convert("v/", "other site", changed, lambda text: counting(text).replace("<tbody>", "<tbody >")) \
        == whole(changed).replace("<tbody>", "<tbody >")
    assert len(converted) == 2 and converted[-1] == changed  # blocks not found in the HTML: converted whole


def test_row_blocks_are_top_level_tables_and_one_line_lists_that_are_blocks_of_their_own():
    lines = ["# T", "", "| a | b |", "|---|:--:|", "| 1 | 2 |", "| 3 | 4 |", "", "```", "| x |", "|---|",
             "| y |", "```", "", "text", "| a |", "|---|", "| 1 |", "", "    | a |", "    |---|", "    | 1 |",
             "", "| a |", "|---|", "| 1 |", "not a row",
             "", "- one", "- two", "", "text", "- not a block", "", "- an item", "  continued", "", "```", "- x",
             "```", "", "  - indented", "", "- last"]
    assert [(block.kind, block.lines) for block in live.row_blocks(lines)] == \
        [("table", range(4, 6)), ("list", range(27, 29)), ("list", range(42, 43))]


def test_every_list_page_converts_only_the_rows_a_save_changed(kb):
    """Each page that lists the entries (`site.listing_files`) is written so that `live.Pages.convert`
    can reuse its rows (tables and lists, each a block of its own): after a title changes, converting
    the page again converts that entry's rows and none of another entry (none at all where the page
    does not show titles), and gives the whole conversion byte for byte."""
    import markdown as python_markdown
    from mkdocs.config import load_config
    from mkdocs.utils.meta import get_data

    from errorkb.site import render

    config = load_config(str(kb / "mkdocs.yml"))
    project = load_project(kb)
    loaded = load_project_entries(project, site.reserved_ids())
    reports = read_reports(project.reports, ["cpu", "cuda"])[0]
    pages, _ = site.site_files(project, loaded, reports)
    retitled = next(page for page in pages if page.entry.id == CHANGED)
    lists = {one.path: get_data(one.content)[0] for one in site.listing_files(project, pages, reports) if one.page}
    retitled.entry = retitled.entry.model_copy(update={"title": "RETITLED-ROW"})
    changed = {one.path: get_data(one.content)[0] for one in site.listing_files(project, pages, reports) if one.page}
    others = [page.entry.id for page in pages if page.entry.id != CHANGED]

    def whole(text: str) -> str:
        return python_markdown.Markdown(extensions=config.markdown_extensions, extension_configs=config.mdx_configs
                                        ).convert(text)

    memo = live.Pages()
    assert {render.ERRORS_INDEX, render.BY_EXCEPTION, render.BY_API, render.VERIFICATION} <= set(lists)
    for path, first in lists.items():
        if CHANGED not in first:  # a list this entry is not on
            continue
        converted: list[str] = []

        def counting(text: str, converted: list[str] = converted) -> str:
            converted.append(text)
            return whole(text)

        assert memo.convert(path, "key", first, whole) == whole(first)
        again = memo.convert(path, "key", changed[path], counting)
        assert again == whole(changed[path]), path
        assert len(converted) == 1 and ("RETITLED-ROW" in converted[0] or changed[path] == first), path
        # none but the first of a block (a block keeps one row), which a block of unchanged rows keeps
        lines = converted[0].split("\n")
        rows = [index for index, line in enumerate(lines) if any(other in line for other in others)]
        firsts = [index for index in rows if lines[index - 1].startswith("|--") or not lines[index - 1].strip()]
        assert rows == firsts, f"{path}: rows of other entries converted again: {[lines[i] for i in rows]}"


def test_list_rows_are_kept_while_what_the_lists_show_of_their_entry_is_the_same(kb):
    """`render.Rows`: the lists made with the rows of the last build are the lists made from scratch;
    an entry's rows are rendered again only when what the lists show of it (`render.listed`) changed."""
    from errorkb.site import render

    project = load_project(kb)
    loaded = load_project_entries(project, site.reserved_ids())
    reports = read_reports(project.reports, ["cpu", "cuda"])[0]
    pages, _ = site.site_files(project, loaded, reports)
    rows = render.Rows()

    def lists_kept() -> list[site.SiteFile]:
        rows.start({page.entry.id: render.listed(page) for page in pages})
        return site.listing_files(project, pages, reports, rows)

    assert lists_kept() == site.listing_files(project, pages, reports)
    everything = rows.made
    assert lists_kept() == site.listing_files(project, pages, reports) and rows.made == 0
    retitled = next(page for page in pages if page.entry.id == CHANGED)
    retitled.entry = retitled.entry.model_copy(update={"title": "RETITLED-ROW"})
    made = lists_kept()
    assert made == site.listing_files(project, pages, reports)
    assert all(b"RETITLED-ROW" in one.content.encode() for one in made if one.path != render.VERIFICATION
               and CHANGED in one.content and one.path != render.MIGRATION)
    assert 0 < rows.made < everything  # the changed entry's rows and badges only
    retitled.records = []  # what the badges and the verification page show of it
    assert lists_kept() == site.listing_files(project, pages, reports)


def test_tree_signature_names_every_file_below_the_folder_by_its_path_from_there(tmp_path):
    (tmp_path / "b" / "c").mkdir(parents=True)
    for name in ("z.py", "a.py", "b/x.txt", "b/c/deep.py"):
        (tmp_path / name).write_text(name)
    signatures = live.tree_signature(tmp_path)
    assert [name for name, _ in signatures] == ["a.py", "z.py", "b/x.txt", "b/c/deep.py"]
    assert all(sig == live.signature(tmp_path / name) for name, sig in signatures)
    assert live.tree_signature(tmp_path / "missing") == ()


def test_front_matter_taken_from_the_last_build_is_a_copy_of_its_own():
    """`Pages.split` hands each build its own front matter: a plugin changing one build's leaves
    the next build's as the page wrote it."""
    memo = live.Pages()
    source = "---\ntitle: T\nhide:\n  - navigation\nsearch: {boost: 2}\nwhen: 2026-01-02\n---\n\n# T\n"
    markdown, meta = memo.split("p/", source)
    meta["hide"].append("toc")
    meta["search"]["exclude"] = True
    again = memo.split("p/", source)
    assert again == (markdown, {"title": "T", "hide": ["navigation"], "search": {"boost": 2},
                                "when": datetime.date(2026, 1, 2)})


@pytest.mark.parametrize("kept", [0, 1, 3], ids=["no entry", "one entry", "every entry"])
def test_the_lookup_index_made_from_kept_rows_is_the_whole_document_dumped(kb, kept, monkeypatch):
    """`site.index_json` with `render.Rows`: each entry's JSON is dumped once and kept while the entry's
    row is; the file is byte for byte `json_text` of the whole document, for any title (quotes,
    `<`, `&`, new lines, other scripts), and an entry that changed is dumped again."""
    import json as json_module

    from errorkb.site import render

    project = load_project(kb)
    loaded = load_project_entries(project, site.reserved_ids())
    reports = read_reports(project.reports, ["cpu", "cuda"])[0]
    pages, _ = site.site_files(project, loaded, reports)
    pages = pages[:kept]
    for page in pages:
        page.entry = page.entry.model_copy(update={"title": 'A "title" </script><b>&amp; \u2028 é 字\nnext'})
    rows = render.Rows()
    whole = site.json_text(render.index_document(pages, project.library))
    rows.start({page.entry.id: render.listed(page) for page in pages})
    assert site.index_json(project.library, pages, rows) == whole
    dumped = []
    real_dumps = json_module.dumps
    monkeypatch.setattr(json_module, "dumps", lambda value, **options: dumped.append(value) or real_dumps(value, **options))
    rows.start({page.entry.id: render.listed(page) for page in pages})
    assert site.index_json(project.library, pages, rows) == whole
    assert not [value for value in dumped if isinstance(value, dict) and "id" in value]  # no entry dumped again
    if pages:
        pages[0].entry = pages[0].entry.model_copy(update={"title": "RETITLED-JSON"})
        rows.start({page.entry.id: render.listed(page) for page in pages})
        assert site.index_json(project.library, pages, rows) == site.json_text(render.index_document(pages, project.library))
        assert "RETITLED-JSON" in site.index_json(project.library, pages, rows)


# -- the garbage collector across rebuilds (`live.Survivors`) ----------------------------------------------


def test_a_rebuild_under_serve_leaves_the_kept_state_out_of_the_collectors_generations(kb, tmp_path, serving):
    """What the plugin keeps across builds is frozen (`gc.freeze`) at the start of the next rebuild,
    so the collections of later rebuilds do not scan it; a build from scratch after it unfreezes
    and freezes nothing."""
    import gc

    served = tmp_path / "served"
    plugin = serving(kb, served, "serve")
    edit_prose(kb)
    serving(kb, served)
    kept = [plugin._sources, plugin._sources._made, plugin._sources._loaded, plugin._pages, plugin._pages.made,
            plugin._sources._made[UNRELATED], plugin._sources._made[UNRELATED].page,
            plugin._pages.made[f"errors/transformers/{UNRELATED}/"]]
    path = kb / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
    path.write_text(path.read_text().replace("EDITED-LIVE prose.", "EDITED-LIVE again.", 1))
    serving(kb, served)
    scanned = {id(one) for one in gc.get_objects()}  # generations 0-2; the frozen are not among them
    assert [type(one).__name__ for one in kept if id(one) in scanned] == []
    assert gc.get_freeze_count() > 0 and plugin._survivors.frozen

    serving(kb, tmp_path / "scratch", "build")
    assert gc.get_freeze_count() == 0 and plugin._survivors is None


def test_the_pages_a_rebuild_made_are_freed_when_the_next_starts(kb, tmp_path, serving):
    """The garbage a build leaves (its pages and files, in cycles) is collected at the start of the
    next rebuild, before what survives is frozen: none of it is frozen for good."""
    import gc
    import weakref

    from errorkb.site.plugin import BudgetedPage

    served = tmp_path / "served"
    serving(kb, served, "serve")
    for n in range(4):
        left = [weakref.ref(one) for one in gc.get_objects() if isinstance(one, BudgetedPage)]
        assert left  # the last build's pages, not yet frozen
        path = kb / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
        path.write_text(path.read_text().replace("meaning: |\n", f"meaning: |\n  Save {n}.\n", 1))
        serving(kb, served)
        assert [ref for ref in left if ref() is not None] == []


def test_the_search_index_of_a_build_is_freed_when_the_next_starts(kb, tmp_path, serving):
    """Material's search index of a build (the text of every page) is freed when Material lets go of
    it, at the start of the next rebuild: nothing of it is frozen for good. (`SearchRows.install`
    replaces a method of the index; a function holding the index would make a cycle, freed only by a
    full collection, and the index would be frozen at the start of its build: never freed.)"""
    import weakref

    from mkdocs.config import load_config

    served = tmp_path / "served"
    serving(kb, served, "serve")
    search = load_config(str(kb / "mkdocs.yml")).plugins["material/search"]  # MkDocs keeps it, as this plugin
    for n in range(3):
        last = weakref.ref(search.search_index)
        path = kb / "docs" / "errors" / "transformers" / f"{CHANGED}.yml"
        path.write_text(path.read_text().replace("meaning: |\n", f"meaning: |\n  Save {n}.\n", 1))
        serving(kb, served)
        assert search.search_index is not last() and last() is None


def test_garbage_frozen_in_cycles_is_freed_once_the_frozen_set_grows_by_a_quarter():
    """A frozen object that becomes garbage in a cycle is not freed while it is frozen: the frozen set
    may grow by `grows` over what the last full collection left, then a rebuild starts with a full
    collection that frees it. Across many rebuilds the frozen set stays bounded."""
    import gc
    import weakref

    class Node:
        pass

    survivors = live.Survivors()
    try:
        survivors.start()  # the first build: nothing kept yet
        assert not survivors.frozen and survivors.full == 0
        survivors.start()  # the second: a full collection, then what lives is frozen
        assert survivors.frozen and survivors.full == 1
        dropped = []
        for _ in range(200):
            ring = [Node() for _ in range(5_000)]
            for one, other in zip(ring, ring[1:] + ring[:1], strict=True):
                one.next = other  # a cycle: only the collector frees it
            dropped.append(weakref.ref(ring[0]))
            survivors.start()  # alive at this start: frozen
            del ring, one, other  # garbage now, frozen
            assert gc.get_freeze_count() <= survivors.base * (1 + survivors.grows) + 10_000
            if survivors.full == 2:
                break
        assert survivors.full == 2, "the frozen set grew without a full collection"
        # every ring dropped before that start is freed (the last was alive at it: frozen now)
        assert len(dropped) > 2 and [ref for ref in dropped[:-1] if ref() is not None] == []
    finally:
        survivors.release()
    assert gc.get_freeze_count() == 0


def test_a_serve_session_keeps_only_the_entry_files_there_are(kb):
    """`mkdocs serve` keeps each entry file's loaded entry to skip loading it again; an entry renamed (or added and
    removed) kept every name it ever had, for as long as the session lasted: memory grew with the saves."""
    project = load_project(kb)
    sources = live.Sources()
    sources.entries(project, site.reserved_ids())
    folder = next((kb / "docs" / "errors").iterdir())
    path = folder / f"{CHANGED}.yml"
    for number in range(50):
        moved = folder / f"{CHANGED}-{number}.yml"
        path.rename(moved)
        path = moved
        sources.entries(project, site.reserved_ids())
    assert sorted(sources._loaded) == sorted((kb / "docs" / "errors").rglob("*.yml"))

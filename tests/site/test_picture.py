"""The releases as pictures: the entry page's release strip, the verification page's heat map and
the migration timeline (`errorkb.site.picture`), read from the version matrix, drawn at build time
as inline SVG that survives the sanitiser, while entry text still cannot bring SVG of its own."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser

import pytest

from errorkb.results.matrix import MatrixFile, ReleaseState, ReleaseStatus, Result, State, Verdicts, release_states
from errorkb.results.records import Code, Outcome
from errorkb.site import picture, render
from errorkb.site.sanitize import sanitize
from tests.site.sitekb import ROOT
from tests.site.test_inert import site_markdown
from tests.site.test_render import ENTRY, page_for, pages_of

WHEN = "2026-12-01T00:00:00+00:00"


def verdicts(outcome: Outcome, code: Code, reason: str = "why", wording: int | None = None) -> Verdicts:
    return Verdicts(outcome=outcome, code=code, reason=reason, wording=wording)


def matrix_of(cases: dict[str, tuple[Verdicts | None, Verdicts | None]], failed: tuple[str, ...] = ()) -> MatrixFile:
    releases = [ReleaseStatus(release=r, ran=r not in failed, error="pip failed" if r in failed else None,
                              measured=WHEN) for r in [*cases, *failed]]
    results = [Result(entry="e", release=r, before=b, after=a, digest="d", measured=WHEN)
               for r, (b, a) in cases.items()]
    return MatrixFile(package="lib", updated=WHEN, releases=releases, results=results)


PASS_AFTER = verdicts(Outcome.PASS, Code.RAN_CLEAN)
FAIL_AFTER = verdicts(Outcome.FAIL, Code.RAISED)


def test_each_release_gets_the_state_its_verdicts_say():
    data = matrix_of({
        "4.0.0": (verdicts(Outcome.FAIL, Code.NO_FUNCTION), None),
        "4.1.0": (verdicts(Outcome.FAIL, Code.OLD_API_RAN), FAIL_AFTER),
        "4.2.0": (verdicts(Outcome.PASS, Code.RAISED_AS_DOCUMENTED, wording=2), PASS_AFTER),
        "4.3.0": (verdicts(Outcome.PASS, Code.RAISED_AS_DOCUMENTED, wording=0), PASS_AFTER),
        "4.4.0": (verdicts(Outcome.FAIL, Code.EXITED_NORMALLY), PASS_AFTER),
        "4.5.0": (verdicts(Outcome.FAIL, Code.WRONG_EXCEPTION), FAIL_AFTER),
        "4.6.0": (verdicts(Outcome.NOT_RUN, Code.UNMET_NEED, "needs hqq"), PASS_AFTER),
        "4.7.0": (verdicts(Outcome.FAIL, Code.SETUP_FAILED), None),
    }, failed=("4.8.0",))
    states = release_states("e", data)
    assert [(s.release, s.state) for s in states] == [
        ("4.0.0", State.NOT_APPLICABLE), ("4.1.0", State.OLD_CODE_RUNS), ("4.2.0", State.OTHER_WORDING),
        ("4.3.0", State.RAISES), ("4.4.0", State.FIX_RUNS), ("4.5.0", State.NEITHER), ("4.6.0", State.NOT_RUN),
        ("4.7.0", State.NOT_APPLICABLE), ("4.8.0", State.NOT_RUN)]
    assert states[6].before == "needs hqq" and states[8].before == "pip failed"
    assert release_states("other", data) is None


def test_the_strip_draws_a_cell_per_release_and_the_declared_range_beside_it():
    states = [ReleaseState(r, s) for r, s in [("4.0.0", State.OLD_CODE_RUNS), ("4.1.0", State.RAISES),
                                               ("4.2.0", State.RAISES), ("5.0.0", State.FIX_RUNS)]]
    declared = {"4.1.0": True, "4.2.0": True, "5.0.0": True}  # the measurement says 5.0.0 does not raise
    s = picture.strip(states, ">=4.1", lambda release: declared.get(release, False))
    assert [c.release for c in s.cells] == ["4.0.0", "4.1.0", "4.2.0", "5.0.0"]
    assert len({c.x for c in s.cells}) == 4 and s.declared_spans == ((picture.LABEL + picture.CELL,
                                                                       3 * picture.CELL - picture.GAP),)
    assert [c.release for c in s.disagree] == ["5.0.0"]
    assert "declared to raise here" in s.cells[1].title and "declared not to raise here" in s.cells[0].title
    assert s.summary == ("4 releases measured, 4.0.0 to 5.0.0: raises as documented in 4.1.0 – 4.2.0; old code "
                         "runs clean in 4.0.0; fix runs clean in 5.0.0. Declared to raise in 4.1 and later.")
    assert [t.label for t in s.ticks] == ["4.0.0", "5.0.0"]
    # shapes tell the states apart without colour
    assert len({picture.SHAPES[state] for state in (State.RAISES, State.NEITHER, State.NOT_APPLICABLE)}) == 3


def with_matrix(project, edit=None):
    folder = project / "reports" / "matrix"
    folder.mkdir(parents=True, exist_ok=True)
    data = json.loads((ROOT / "reports" / "matrix" / "transformers.json").read_text(encoding="utf-8"))
    if edit:
        edit(data)
    (folder / "transformers.json").write_text(json.dumps(data), encoding="utf-8")
    return data


def cells_of(markdown: str) -> list[str]:
    return re.findall(r'<g class="ekb-strip__cell ekb-s-[a-z-]+"><title>([^<]*)</title>', markdown)


def test_every_release_of_the_matrix_is_a_cell_and_a_new_release_adds_one(project):
    """Adding a release to the matrix adds a cell to every strip and a column to the heat map,
    with no template touched: the pictures loop over the matrix's releases."""
    data = with_matrix(project)
    releases = [r["release"] for r in data["releases"]]
    page = page_for(project)
    cells = cells_of(render.render_entry(page))
    assert len(cells) == len(releases) == 66
    assert [c.split(":")[0] for c in cells] == releases

    def add_release(data):
        data["releases"].append({**data["releases"][-1], "release": "9.0.0"})
        mine = next(r for r in data["results"] if r["entry"] == ENTRY and r["release"] == releases[-1])
        data["results"].append({**mine, "release": "9.0.0"})

    with_matrix(project, add_release)
    pages, files = pages_of(project)
    page = next(p for p in pages if p.entry.id == ENTRY)
    cells = cells_of(render.render_entry(page))
    assert len(cells) == 67 and cells[-1].startswith("9.0.0: raises as documented")
    verification = next(f.content for f in files if f.path == render.VERIFICATION)
    assert 'viewBox="0 0 67 1"' in verification and f'href="../errors/transformers/{ENTRY}/"' in verification
    assert ">9.0.0</text>" in verification  # the axis names the newest release


def test_without_a_matrix_there_is_no_picture(project):
    page = page_for(project)
    assert page.strip is None and "ekb-strip" not in render.render_entry(page)
    pages, files = pages_of(project)
    assert "ekb-heat" not in next(f.content for f in files if f.path == render.VERIFICATION)


class _Svg(HTMLParser):
    """Every element inside an <svg>, with its attributes; and every <svg> with its class."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.svgs: list[str] = []
        self.inside: list[tuple[str, tuple[str, ...]]] = []
        self.titles_outside = 0
        self.active: list[str] = []  # an element or attribute that runs, loads or links to script

    def handle_starttag(self, tag, attrs):
        if tag in {"script", "foreignobject", "use", "animate", "set", "image", "style", "iframe", "img"}:
            self.active.append(tag)
        self.active += [f"{tag} {name}={value}" for name, value in attrs
                        if name.startswith("on") or re.match(r"\s*(javascript|data):", value or "", re.I)]
        if tag == "svg":
            self.svgs.append(dict(attrs).get("class", ""))
            self.depth += 1
        elif self.depth:
            self.inside.append((tag, tuple(sorted(name for name, _ in attrs))))
        elif tag == "title":
            self.titles_outside += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.depth -= 1


PAYLOAD = ('<svg onload=alert(1)><script>alert(2)</script></svg><title>x</title>'
           '<svg><a href="javascript:alert(3)"><text>t</text></a><foreignObject><img src=x onerror=alert(4)>'
           '</foreignObject><use href="data:image/svg+xml,x"/><animate attributeName="href" to="javascript:x"/></svg>')


def test_entry_text_still_cannot_bring_svg_or_script(project):
    """The allow-list now holds a few SVG elements; an entry's prose, title, release range and a
    report's reasons still reach the page as text, and the only SVG on it is the page's own."""
    with_matrix(project)
    page = page_for(project)
    entry = page.entry
    releases = entry.releases.model_construct(raises=PAYLOAD) if entry.releases else None
    page.entry = entry.model_copy(update={"meaning": PAYLOAD, "title": PAYLOAD, "trigger": PAYLOAD,
                                          "releases": releases})
    page.states = tuple(ReleaseState(one.release, one.state, PAYLOAD) for one in page.states)
    html = sanitize(site_markdown().convert(re.sub(r"\A---\n.*?\n---\n", "", render.render_entry(page),
                                                   flags=re.S)))
    shape = _Svg()
    shape.feed(html)
    assert shape.svgs == ["ekb-strip__svg"]
    allowed = {("title", ()), ("g", ("class",)), ("rect", ("height", "width", "x", "y")),
               ("text", ("class", "text-anchor", "x", "y")), ("text", ("class", "x", "y"))}
    assert set(shape.inside) <= allowed, set(shape.inside) - allowed
    assert shape.titles_outside == 0
    assert not shape.active, shape.active
    assert "&lt;svg onload=alert(1)&gt;" in html  # shown as text, in the hover titles and the prose


@pytest.mark.parametrize("payload, kept, gone", [
    ('<svg viewBox="0 0 1 1" onload="alert(1)"><rect width="1" height="1"/></svg>', 'viewBox="0 0 1 1"', "onload"),
    ('<svg><script>alert(1)</script><rect/></svg>', "<rect", "alert"),
    ('<svg><a href="javascript:alert(1)"><text>x</text></a></svg>', "<text>x</text>", "javascript"),
    ('<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', "x", "javascript"),
    ('<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>', "<svg", "onerror"),
    ('<svg><use href="data:image/svg+xml,<svg onload=alert(1)>"/></svg>', "<svg", "use"),
    ('<svg><animate attributeName="href" to="javascript:alert(1)"/><set to="x"/></svg>', "<svg", "animate"),
    ('<svg><style>rect{fill:url(javascript:alert(1))}</style></svg>', "<svg", "style"),
    ('<svg><rect style="fill:url(https://tracker.example/)" width="1"/></svg>', 'width="1"', "tracker"),
    ('<svg><image href="https://tracker.example/p.png"/></svg>', "<svg", "tracker"),
    ('<svg><title><img src=x onerror=alert(1)></title></svg>', "<title>", "onerror"),
])
def test_the_svg_allowance_is_narrow(payload, kept, gone):
    clean = sanitize(payload)
    assert kept in clean and gone not in clean.lower(), clean


def test_identifiers_wrap_at_dots_and_underscores_never_inside_a_word():
    from errorkb.site.escape import code

    assert code("transformers.DynamicCache.__init__") == \
        "<code>transformers.<wbr>DynamicCache.<wbr>&#95;&#95;init&#95;&#95;</code>"
    assert code("get_max_length 4.36.2") == "<code>get&#95;<wbr>max&#95;<wbr>length 4.36.2</code>"
    assert "<wbr>" in sanitize(str(code("a.b")))


def test_a_long_reason_is_shortened_with_the_whole_text_one_click_away():
    long = "message differs expected: `" + "x" * 50 + "` actual: " + "word " * 60
    out = str(render.shortened(long))
    assert out.startswith('<details class="ekb-more"><summary>') and out.count("word") == 60 + \
        out.split("</summary>")[0].count("word")
    assert "`" not in out and out.split("</summary>")[0].count("<code>") == 1  # never cut inside code
    assert str(render.shortened("short reason")) == "short reason"


def test_the_heat_map_groups_by_kind_and_orders_by_where_raising_starts(project, tmp_path):
    with_matrix(project)
    pages, _ = pages_of(project)
    heat = render.heat_map(pages, pages[0].library, render.VERIFICATION)
    rows = [row for _, group in heat.groups for row in group]
    assert {row.key for row in rows} == {p.entry.id for p in pages}
    for _, group in heat.groups:
        keys = [picture.start_key(row, list(heat.axis.releases)) for row in group]
        assert keys == sorted(keys)
    assert all(row.url.startswith("../errors/") for row in rows)


def test_the_real_pages_keep_their_pictures_through_the_sanitiser(real_pages, tmp_path):
    """Every strip, heat map and timeline of the repository's knowledge base, as the site renders
    it, loses nothing to the sanitiser (test_sanitize checks the same for all pages' elements)."""
    pages = real_pages  # the session's one rendering (tests/site/sitekb.py)
    entry = pages[f"errors/transformers/{ENTRY}.md"]
    assert entry.count('class="ekb-strip__cell') == 66
    assert sanitize(entry).count('class="ekb-strip__cell') == 66
    for path in (render.VERIFICATION, render.MIGRATION):
        assert pages[path].count("<svg") == sanitize(pages[path]).count("<svg") > 40, path
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_the_home_page_facts_come_from_the_entries_and_the_matrix(project):
    from errorkb.core.project import load_project
    from errorkb.site import files

    with_matrix(project)
    pages, _ = pages_of(project)
    known = files.facts(load_project(project), pages)
    assert known == {"library": "transformers", "entries": "2", "verified": "0", "migrations": "0", "releases": "66",
                     "first_release": "4.36.2", "newest_release": "5.24.0"}  # no report here: none verified
    text, problems = files.fill("{{ errorkb.entries }} errors, {{errorkb.first_release}} to "
                                "{{ errorkb.newest_release }}; {{ errorkb.nope }}", known, "docs/index.md")
    assert text == "2 errors, 4.36.2 to 5.24.0; {{ errorkb.nope }}"
    assert problems == ["docs/index.md: unknown placeholder {{ errorkb.nope }}; known: entries, first_release, "
                        "library, migrations, newest_release, releases, verified"]


def test_the_home_page_says_what_the_knowledge_base_is_now():
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "{{ errorkb.entries }}" in home and "{{ errorkb.first_release }}" in home
    assert "{{ errorkb.newest_release }}" in home and "generation" in home
    assert "{{ errorkb.verified }}" in home  # a count, never a claim that every entry is verified
    assert "Every page documents one error raised by the KV cache" not in home

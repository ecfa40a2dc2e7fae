"""A pass on a device that rests on the object the function ran on (`DeviceBasis.OBJECT`) is shown as such: on the
badge's words (entry page, lists, terminal), in its hover text, in the JSON API and in the paste box's index; never as
a plain "verified" on that device. A CPU badge, and a device badge of the function's own work, say nothing of it."""

from __future__ import annotations

import json

from errorkb.site import evidence, render
from tests.site.sitekb import write_report
from tests.site.test_render import ENTRY, all_pass, badge, page_for, pages_of


def _on_cuda(project, basis: str | None = "object") -> None:
    cuda = all_pass(project, device="cuda")
    for one in cuda:
        if one["role"] == "after" and basis:
            one["device_basis"] = basis
    write_report(project, all_pass(project) + cuda)


def test_a_cuda_pass_on_its_objects_work_says_so_on_the_badge(project):
    _on_cuda(project)
    page = page_for(project)
    cuda, cpu = badge(page, "bundled", "cuda"), badge(page, "bundled", "cpu")
    assert cuda.outcome == "pass" and cuda.on_object == 1, cuda
    assert evidence.ON_OBJECT in cuda.label and "after on cuda: the function itself allocated nothing" in cuda.detail
    assert cpu.on_object == 0 and evidence.ON_OBJECT not in cpu.label and evidence.ON_OBJECT not in cpu.detail


def test_the_page_the_json_api_and_the_index_carry_it(project):
    _on_cuda(project)
    _, files = pages_of(project)
    text = {f.path: f.content for f in files}
    page = text[f"errors/transformers/{ENTRY}.md"]
    assert f"verified · {evidence.ON_OBJECT}" in page, page
    api = json.loads(text[f"api/errors/{ENTRY}.json"])
    assert [b["on_object"] for b in api["badges"] if (b["target"], b["device"]) == ("bundled", "cuda")] == [1]
    assert {r["device_basis"] for r in api["verification"] if r["device"] == "cuda" and r["role"] == "after"} \
        == {"object"}
    index = json.loads(text[render.INDEX_JSON])
    chips = next(e["badges"] for e in index["entries"] if e["id"] == ENTRY)
    assert [c.get("basis") for c in chips if (c["target"], c["device"]) == ("bundled", "cuda")] == [evidence.ON_OBJECT]
    assert all("basis" not in c for c in chips if c["device"] == "cpu")


def test_a_cuda_pass_on_the_functions_own_work_is_plain(project):
    _on_cuda(project, basis="call")
    cuda = badge(page_for(project), "bundled", "cuda")
    assert cuda.outcome == "pass" and cuda.on_object == 0 and evidence.ON_OBJECT not in cuda.label


def test_a_failing_badge_never_says_it(project):
    _on_cuda(project)
    pages, files = pages_of(project)
    report = json.loads((project / "reports" / "latest.json").read_text())
    for one in report["checks"]:
        if one["device"] == "cuda" and one["role"] == "before":
            one |= {"outcome": "fail", "code": "raised", "reason": "raised ValueError again"}
    (project / "reports" / "latest.json").write_text(json.dumps(report))
    cuda = badge(page_for(project), "bundled", "cuda")
    assert cuda.outcome == "fail" and cuda.on_object == 0 and evidence.ON_OBJECT not in cuda.label


def test_the_verification_page_explains_it(project):
    _on_cuda(project)
    _, files = pages_of(project)
    page = next(f.content for f in files if f.path == "verification.md")
    assert f"**verified · {evidence.ON_OBJECT}**" in page and "Never the function's own work" in page

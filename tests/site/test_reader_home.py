"""The home page as the person whose script just died sees it on a phone: the paste box is the first thing
they need, so it is on the first screen, not under the site's description (it was 1.4 screens down)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width, height", [(390, 844), (360, 640), (1280, 800)])
def test_the_paste_box_is_on_the_first_screen(visit, reader_site, width, height):
    _, url = reader_site
    tab = visit()
    tab.page.set_viewport_size({"width": width, "height": height})
    tab.page.goto(url, wait_until="load")
    box = tab.page.locator(".ekb-lookup__input").bounding_box()
    assert box is not None and box["y"] + 48 <= height, (width, box)  # at least three lines of it show
    assert tab.errors == [] and tab.outside == []

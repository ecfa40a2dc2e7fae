"""Every outcome a badge can show has its own look in the stylesheet, on the entry page's badges and on the
compact chips of the lists and the paste box: an outcome without a rule (not applicable was one) showed as
bare text beside boxed badges, read as a layout fault rather than as a verdict."""

from __future__ import annotations

import re

from errorkb.site import evidence
from errorkb.site.files import ASSETS  # the stylesheet the site ships

CSS = (ASSETS / "errorkb.css").read_text(encoding="utf-8")


def _rules(selector_class: str) -> list[str]:
    """The declarations of every rule whose selector list names `.ekb-<class>` on its own (not a longer class)."""
    found = []
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", CSS):
        if re.search(rf"\.{re.escape(selector_class)}(?![\w-])", selectors):
            found.append(body)
    return found


def test_every_badge_outcome_has_a_look():
    missing = [o for o in evidence.OUTCOME_WORDS
               if not any("border" in body or "background" in body for body in _rules(f"ekb-{o}"))]
    assert not missing, f"no badge style for outcome(s) {missing} in errorkb.css"

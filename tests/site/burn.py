"""A Markdown extension for the render-budget tests: text holding a marker makes the renderer
misbehave as a structure nobody has seen yet could, deterministically (no timing involved).

- `BURN-PYTHON`: loops forever in Python (the budget's CPU timer stops it);
- `BURN-C`: loops for ever in C, where no signal handler runs (only the kernel's CPU limit stops it);
- `RAISE-HERE`: raises ValueError;
- `RECURSE-HERE`: recurses without end (RecursionError).

Listed in a test's mkdocs.yml as `- tests.site.burn`.
"""

from __future__ import annotations

import collections
import itertools

from markdown import Extension
from markdown.preprocessors import Preprocessor


class _Burn(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if "BURN-PYTHON" in text:
            while True:
                pass
        if "BURN-C" in text:
            collections.deque(itertools.repeat(None), maxlen=0)
        if "RAISE-HERE" in text:
            raise ValueError("the extension gave up")
        if "RECURSE-HERE" in text:
            _recurse()
        return lines


def _recurse() -> int:
    return _recurse() + 1


class BurnExtension(Extension):
    def extendMarkdown(self, md) -> None:  # Python-Markdown's names
        md.preprocessors.register(_Burn(md), "errorkb-test-burn", 100)


def makeExtension(**kwargs) -> BurnExtension:  # Python-Markdown's names
    return BurnExtension(**kwargs)

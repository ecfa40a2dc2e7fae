"""Hostile pastes: what a reader's terminal can hand the lookup, built to any size.

Shared by the tests (tests/site/test_lookup_bounds.py, test_lookup_js.py) and the benchmark
(benchmarks/lookup_speed.py), so both measure the same inputs. Every family is deterministic:
`FAMILIES[name](size)` returns a text of about `size` characters (never more).
"""

from __future__ import annotations

import random
from collections.abc import Callable

HEAD_DIM = ("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
            "{len(self.layers)} layers")
TWO_CACHES = "One of the two arguments is not a Cache: {type(caches[0]) = }, {type(caches[1]) = }"
LEADING = "{method} is only defined for dynamic cache, got {other} for the self attention cache"
REPEATED = "{a} and {a} again, then {b}"

# The entries every hostile paste is matched against, as api/errors/index.json lists them.
ENTRIES = [
    {"id": "head-dim", "title": "head_dim", "exception": "ValueError", "message": HEAD_DIM},
    {"id": "num-heads", "title": "num_heads", "exception": "ValueError",
     "message": HEAD_DIM.replace("`head_dim`", "`num_head`")},
    {"id": "two-caches", "title": "two caches", "exception": "ValueError", "message": TWO_CACHES},
    {"id": "leading", "title": "leading placeholder", "exception": "ValueError", "message": LEADING},
    {"id": "repeated", "title": "repeated expression", "exception": "ValueError", "message": REPEATED},
    {"id": "attr", "title": "removed attribute", "exception": "AttributeError",
     "message": "'DynamicCache' object has no attribute 'get_max_length'"},
    {"id": "oom", "title": "out of memory", "exception": "torch.OutOfMemoryError",
     "message": "CUDA out of memory. Tried to allocate {size}"},
]

HEAD_DIM_PIECES = ["`head_dim` was provided as a list of length ", ", but the Cache currently has ", " layers"]
REAL = ("ValueError: `head_dim` was provided as a list of length 12, but the Cache currently has 28 "
        "layers\n")


def _fill(unit: Callable[[int], str], size: int, tail: str = "") -> str:
    """Units appended until the next would pass `size`, then `tail` (kept within `size`)."""
    out, length, index = [], len(tail), 0
    while True:
        piece = unit(index)
        if length + len(piece) > size:
            break
        out.append(piece)
        length += len(piece)
        index += 1
    return "".join(out) + tail


def many_exception_lines(size: int) -> str:
    """A log of warnings, every line `Name: text`, with the real error last (13 s in Python
    and 6.6 s in the browser at 10,000 lines before the lookup was made linear)."""
    return _fill(lambda i: f"UserWarning: step {i} resized the cache\n", size, REAL)


def repeated_pieces(size: int) -> str:
    """A template's fixed pieces over and over, never closing: lazy groups backtrack on it."""
    head = "ValueError: " + HEAD_DIM_PIECES[0]
    return head + _fill(lambda i: f"1{HEAD_DIM_PIECES[1]}", size - len(head) - 1) + "!"


def long_line(size: int) -> str:
    """One line, no newline, full of `Name: ` shapes and of the templates' words."""
    words = ["ValueError: ", "the Cache ", "layers ", "of length ", "again, then ", "and ", "x: "]
    rng = random.Random(3)
    return _fill(lambda i: rng.choice(words), size)


def random_text(size: int) -> str:
    """Seeded random printable characters, newlines included."""
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ:.,'`{}()[]0123456789\n\t-_|"
    return "".join(rng.choice(alphabet) for _ in range(size))


def template_pieces(size: int) -> str:
    """One template's pieces, each once per repeat, glued into one line: every piece is
    present everywhere, so no substring pre-filter rules the template out."""
    return _fill(lambda i: "".join(f"{piece}{i % 10}" for piece in HEAD_DIM_PIECES), size)


def deep_traceback(size: int) -> str:
    """A traceback of thousands of frames in transformers' files, the error last."""
    frame = ('  File "/venv/lib/python3.11/site-packages/transformers/cache_utils.py", line {}, in update\n'
             "    return self.layers[layer_idx].update(key_states, value_states)\n")
    head = "Traceback (most recent call last):\n"
    return head + _fill(lambda i: frame.format(100 + i % 900), size - len(head), REAL)


def many_blank_lines(size: int) -> str:
    """Nothing but line breaks (every character starts a line), then the error."""
    return _fill(lambda i: "\n", size, REAL)


def prefixed_lines(size: int) -> str:
    """Every line behind a rank prefix, and one line with a thousand prefixes stacked."""
    stacked = "[rank0]: " * min(1000, size // 40) + "\n"
    return stacked + _fill(lambda i: f"[rank{i % 8}]: UserWarning: step {i}\n", size - len(stacked),
                           "[rank0]: " + REAL)


def ansi_storm(size: int) -> str:
    """Escape sequences opened and never closed, and colour codes around every word."""
    return _fill(lambda i: "\x1b[" + "1;" * (i % 50) + ("\x1b[31mValueError\x1b[0m: x\n" if i % 7 == 0 else ""),
                 size, "\n" + REAL)


FAMILIES: dict[str, Callable[[int], str]] = {
    "many exception lines": many_exception_lines,
    "repeated pieces": repeated_pieces,
    "long single line": long_line,
    "random text": random_text,
    "one template's pieces repeated": template_pieces,
    "deep traceback": deep_traceback,
    "blank lines": many_blank_lines,
    "prefixed lines": prefixed_lines,
    "ANSI storm": ansi_storm,
}


# Text a report or an entry can hand a template, built to become markup in one place or another: Markdown that
# makes a tag with quoted attributes (a link, an image, an autolink, a code span), which breaks out of an HTML
# attribute it lands in; HTML; what ends an HTML block (a blank line); what extensions read (attribute lists,
# math, emoji). Shared by tests/site/test_inert_round22.py (every escape filter in every place a template
# writes it) and whoever needs hostile values rather than hostile pastes.
MARKUP: dict[str, str] = {
    "a link to script": "[r](javascript:alert(1))",
    "a link whose address is a handler": "[a](onmouseover=alert(1)//)",
    "a safe link whose path is a handler": "[x](https://example.org/onmouseover=alert(1)//)",
    "a link with a title": '[a](https://example.org "onmouseover=alert(1)//")',
    "an image from elsewhere": "![i](https://evil.example/x.png) ![d](data:text/html,x)",
    "an autolink whose address is a handler": "<http://x onmouseover=alert(1)//>",
    "a reference link": "[r][1]\n\n[1]: javascript:alert(1)",
    "a code span with quotes": '`x" onmouseover="alert(1)` and `y\' onfocus=\'alert(2)`',
    "emphasis around a quote": '*a" onmouseover="alert(1)//* _b_ __c__',
    "raw HTML": "<img src=x onerror=alert('report')><script>alert('s')</script>\"'><svg onload=alert(1)>",
    "an attribute list": "x {: onclick=alert(1) } {.ekb-badge}",
    "a blank line, then a link": "a\n\n[x](javascript:alert(1))\n\n<img src=x onerror=alert(2)>",
    "character references": "&#91;x&#93;(javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt;",
    "a scheme spelt with a reference": "&#106;avascript:alert(1)",
    "a scheme's colon as a reference": "javascript&colon;alert(1)",
    "math, emoji, marks": "$x$ :smile: ==m== ^^i^^ ~~d~~ {x}",
    "control and bidirectional characters": "a\u202eb\x00c\x1b[31md\u2028e",
    "a table pipe and a heading": "a | b\n# <svg onload=alert(1)>",
    "a list marker and a fence": "- x\n```\n<img src=x onerror=alert(1)>\n```",
}

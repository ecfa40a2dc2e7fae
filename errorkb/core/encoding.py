"""What a file that should be UTF-8 is instead, said in one way for every reader of one (entries, reports,
matrix files): an editor's "Unicode" on Windows saves UTF-16, some UTF-32, with a byte order mark or without."""

from __future__ import annotations

import codecs

# By their byte order marks; UTF-32's little-endian mark starts as UTF-16's, so it is looked for first.
_WIDE = (("UTF-32", (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), ("utf-32-le", "utf-32-be")),
         ("UTF-16", (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), ("utf-16-le", "utf-16-be")))


def other_encoding(data: bytes) -> str | None:
    """What the file is when it is UTF-16 or UTF-32, with its byte order mark or without one ("the file is
    UTF-16 (...)"); None for anything else. Without a mark such a file was read as UTF-8 full of NUL bytes
    (or, UTF-32 big-endian's mark being valid UTF-8, with one), and refused for those."""
    for name, marks, _ in _WIDE:
        if data.startswith(marks):
            return f"the file is {name} (it starts with a {name} byte order mark)"
    if b"\0" not in data:  # neither wide encoding writes text without NUL bytes; UTF-8 text holds none
        return None
    for name, _, wide_codecs in _WIDE:
        for codec in wide_codecs:
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if "\0" not in text and all(char.isprintable() or char in "\t\r\n" for char in text):
                return f"the file is {name} (read so, it is text; read as UTF-8, it holds NUL bytes)"
    return None


__all__ = ["other_encoding"]

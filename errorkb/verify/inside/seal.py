"""A check's stream, line by line: sealed in the check's process, opened by the harness.

Every line is `<JSON>\\t<HMAC-SHA256 of the JSON, hex>\\n`, under a key the check's process makes
before the snippet exists and hands to the harness over a channel of its own, closed before the
snippet's first line (`handover`): the key never travels on the stream, so nothing read from the
stream (or written to it) lets anyone seal a line. Each JSON carries its sequence number `n` and
the writing process `p`; the harness requires the main process's lines numbered 0, 1, 2... with
none missing, the first a `start` and the last an `end` (`errorkb/verify/stream.py`).

The observer seals with the same format from its private namespace (`observer._p_emit`), through
C functions only; `seal` is for the lines written before it is installed (`child.early_end`).
Standard library only.
"""

from __future__ import annotations

import _hashlib
import hmac
import os
from typing import Any

KEY_BYTES = 32
SEPARATOR = b"\t"
DIGEST = "sha256"


def handover(fd: int) -> Any:
    """Make the stream's key, send it down `fd` (a pipe whose read end the harness's side holds), close
    `fd`, and return the sealer: an HMAC state of the C library's, from which the key cannot be read."""
    key = os.urandom(KEY_BYTES)
    try:
        data = key.hex().encode("ascii")
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)
    sealer = _hashlib.hmac_new(key, digestmod=DIGEST)
    del key
    return sealer


def seal(sealer: Any, body: bytes) -> bytes:
    """One line of the stream: the JSON body and its HMAC."""
    mac = sealer.copy()
    mac.update(body)
    tag: str = mac.hexdigest()
    return body + SEPARATOR + tag.encode("ascii") + b"\n"


def read_key(data: bytes) -> bytes | None:
    """The key as the check's process handed it over (hex), or None when that is not what arrived."""
    text = data.strip()
    if len(text) != 2 * KEY_BYTES:
        return None
    try:
        return bytes.fromhex(text.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


def unseal(key: bytes, line: bytes) -> bytes | None:
    """The JSON body of a line sealed under `key`; None for any other line."""
    body, separator, tag = line.rpartition(SEPARATOR)
    if not separator:
        return None
    expected = hmac.new(key, body, DIGEST).hexdigest().encode("ascii")
    return body if hmac.compare_digest(tag, expected) else None

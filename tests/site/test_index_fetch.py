"""`errorkb lookup/show --index URL`: an address is anyone's server, so what it answers is hostile input.

Before this, five malformed answers (a status line that is no status line, a header line past http.client's
limit, more headers than it reads, a chunk size that is no number, a body cut short of its chunk) were
tracebacks at the user (http.client's `HTTPException`s are no `OSError`); a redirect to `ftp:` was followed (a
connection to whatever the server named); an index whose bytes are not UTF-8 was read with them replaced, so
the answer quoted `\ufffd` as the site's address without a word; and a server that sent one byte every few
seconds held the command for as long as it pleased (the timeout bounded each read, not the fetch)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from errorkb.cli import main
from errorkb.lookup import _index

Reply = bytes | Callable[[socket.socket], None]


@pytest.fixture
def server() -> Iterator[Callable[[Reply], str]]:
    """`serve(reply)`: the address of a server on this machine that answers every request with `reply` (bytes,
    or a function writing to the connection), as any server on the internet may."""
    listening: list[socket.socket] = []

    def serve(reply: Reply) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        listening.append(sock)

        def run() -> None:
            while True:
                try:
                    connection, _ = sock.accept()
                except OSError:
                    return
                with connection:
                    try:
                        connection.recv(65536)
                        reply(connection) if callable(reply) else connection.sendall(reply)
                    except OSError:
                        pass

        threading.Thread(target=run, daemon=True).start()
        return f"http://127.0.0.1:{sock.getsockname()[1]}/api/errors/index.json"

    yield serve
    for sock in listening:
        sock.close()


def _lookup(address: str, capsys) -> tuple[int, str]:
    code = main(["lookup", "--index", address, "ValueError: x"])
    said = capsys.readouterr()
    return code, said.out + said.err


def _index_bytes(site: str = "https://example.org/") -> bytes:
    return json.dumps({"entries": [], "site": site}).encode()


@pytest.mark.parametrize("reply", [
    b"HELLO\r\n\r\n",  # no status line: BadStatusLine
    b"HTTP/1.0 200 OK\r\nX: " + b"a" * 70_000 + b"\r\n\r\n",  # LineTooLong
    b"HTTP/1.0 200 OK\r\n" + b"X: a\r\n" * 200 + b"\r\n",  # got more than 100 headers
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n",  # a chunk size that is no number
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n{\"entries\"",  # a chunk cut short
], ids=["status-line", "header-line", "headers", "chunk-size", "chunk-cut"])
def test_a_malformed_answer_is_one_line_never_a_traceback(server, capsys, reply):
    code, said = _lookup(server(reply), capsys)
    assert code == 2 and "cannot fetch the index" in said and said.count("\n") == 1, said


def test_a_redirect_off_http_is_refused_never_followed(server, capsys):
    """urllib follows a redirect to `ftp:` (it refuses `file:` and `data:` only): the server picks where errorkb
    connects next. Here the ftp address is a listening socket that records whether anything connected."""
    target = socket.socket()
    target.bind(("127.0.0.1", 0))
    target.listen(1)
    target.settimeout(0.5)
    try:
        ftp = f"ftp://127.0.0.1:{target.getsockname()[1]}/index.json"
        code, said = _lookup(server(f"HTTP/1.0 302 Found\r\nLocation: {ftp}\r\n\r\n".encode()), capsys)
        with pytest.raises(OSError):
            target.accept()[0].close()  # nothing connected (a timeout)
    finally:
        target.close()
    assert code == 2 and "redirect" in said and "ftp:" in said and said.count("\n") == 1, said


def test_a_redirect_from_https_to_http_is_refused():
    """A redirect may not take an https index to plain http, where anyone on the way may rewrite the answer."""
    from urllib.error import HTTPError
    from urllib.request import Request

    handler = _index._redirects()
    request = Request("https://example.org/api/errors/index.json")
    with pytest.raises(HTTPError, match="http:"):
        handler.redirect_request(request, None, 302, "Found", {}, "http://example.org/api/errors/index.json")
    assert handler.redirect_request(request, None, 302, "Found", {}, "https://mirror.example.org/i.json") is not None


@pytest.mark.parametrize("body, said", [
    (b'{"entries": [], "site": "https://example.org/\xff"}', "byte 0xff"),
    ('{"entries": []}'.encode("utf-16"), "UTF-16"),
], ids=["a-byte", "utf-16"])
def test_an_index_that_is_not_utf8_is_named_never_read_with_bytes_replaced(server, capsys, tmp_path, body, said):
    for where in (server(b"HTTP/1.0 200 OK\r\n\r\n" + body), tmp_path / "index.json"):
        (tmp_path / "index.json").write_bytes(body)
        code, printed = _lookup(str(where), capsys)
        assert code == 2 and "not UTF-8" in printed and said in printed and "\ufffd" not in printed, printed


def test_an_index_with_a_utf8_byte_order_mark_reads_as_a_browser_reads_it(server, capsys):
    code, said = _lookup(server(b"HTTP/1.0 200 OK\r\n\r\n\xef\xbb\xbf" + _index_bytes()), capsys)
    assert code == 1 and "not JSON" not in said, said


def test_a_server_that_trickles_its_answer_is_given_up_on_within_the_deadline(server, capsys, monkeypatch):
    """One byte every half second never trips a per-read timeout; the fetch as a whole has a deadline."""
    monkeypatch.setattr(_index, "TIMEOUT", 2)
    monkeypatch.setattr(_index, "DEADLINE", 2, raising=False)

    def trickle(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(60):
            connection.sendall(b" ")
            time.sleep(0.5)

    started = time.monotonic()
    code, said = _lookup(server(trickle), capsys)
    assert time.monotonic() - started < 8, "the fetch outlived its deadline"
    assert code == 2 and "2 s" in said and said.count("\n") == 1, said


def test_a_server_that_trickles_its_headers_is_given_up_on_within_the_deadline(server, capsys, monkeypatch):
    monkeypatch.setattr(_index, "TIMEOUT", 2)
    monkeypatch.setattr(_index, "DEADLINE", 2, raising=False)

    def headers(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.0 200 OK\r\n")
        for _ in range(60):
            connection.sendall(b"X: a\r\n")
            time.sleep(0.5)

    started = time.monotonic()
    code, said = _lookup(server(headers), capsys)
    assert time.monotonic() - started < 8 and code == 2, said


def test_a_well_formed_index_at_an_address_still_answers(server, capsys):
    code, said = _lookup(server(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + _index_bytes()),
                         capsys)
    assert code == 1 and "cannot" not in said, said

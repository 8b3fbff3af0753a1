"""`iopscope serve` answers byte-range requests (the run page reads its rows of the per-run
Parquet files by range): 206 with Content-Range, 416 past the end, the whole file for what it
does not serve as a range (several ranges, a stale If-Range), HEAD, and its other answers
(clean URLs, 400, 404 page, no listing) unchanged. Real HTTP against the real server."""

from __future__ import annotations

import http.client
import os
import threading

import pytest

from iopscope.serve import byte_range, make_server

BODY = bytes(range(256)) * 40  # 10,240 bytes, every offset recognisable


@pytest.fixture()
def site(tmp_path):
    (tmp_path / "index.html").write_text("<h1>home</h1>")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "marts.parquet").write_bytes(BODY)
    (tmp_path / "data" / "empty.bin").write_bytes(b"")
    (tmp_path / "404.html").write_text("<h1>Page not found</h1>")
    server = make_server(tmp_path)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, server.server_address[1]
    server.shutdown()
    server.server_close()


def ask(port, path, headers=None, method="GET"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(("header", "first", "last"), [
    ("bytes=0-99", 0, 99),
    ("bytes=1000-1999", 1000, 1999),
    ("bytes=10000-", 10000, 10239),
    ("bytes=-240", 10000, 10239),
    ("bytes=10200-99999", 10200, 10239),   # a last byte past the end is the end
    ("bytes=-99999", 0, 10239),            # a suffix longer than the file is the file
    ("bytes = 5 - 5", 5, 5),
])
def test_one_range_is_a_206_with_exactly_those_bytes(site, header, first, last):
    _, port = site
    status, headers, body = ask(port, "/data/marts.parquet", {"Range": header})
    assert status == 206
    assert headers["content-range"] == f"bytes {first}-{last}/{len(BODY)}"
    assert int(headers["content-length"]) == last - first + 1
    assert headers["accept-ranges"] == "bytes"
    assert body == BODY[first:last + 1]


def test_head_of_a_range_sends_the_headers_only(site):
    _, port = site
    status, headers, body = ask(port, "/data/marts.parquet", {"Range": "bytes=100-199"}, method="HEAD")
    assert (status, headers["content-range"], headers["content-length"], body) == (206, "bytes 100-199/10240", "100", b"")
    status, headers, body = ask(port, "/data/marts.parquet", method="HEAD")
    assert (status, headers["content-length"], headers["accept-ranges"], body) == (200, "10240", "bytes", b"")


@pytest.mark.parametrize("header", ["bytes=10240-", "bytes=99999-100000", "bytes=-0"])
def test_a_range_past_the_end_is_416_with_the_size(site, header):
    _, port = site
    status, headers, body = ask(port, "/data/marts.parquet", {"Range": header})
    assert status == 416
    assert headers["content-range"] == f"bytes */{len(BODY)}"
    assert body == b""


def test_an_empty_file_has_no_satisfiable_range(site):
    _, port = site
    assert ask(port, "/data/empty.bin", {"Range": "bytes=0-"})[0] == 416
    assert ask(port, "/data/empty.bin", {"Range": "bytes=-10"})[0] == 416


@pytest.mark.parametrize("header", ["bytes=0-9,20-29", "bytes=9-5", "items=0-9", "bytes=", "bytes=-", "nonsense"])
def test_what_is_not_one_range_gets_the_whole_file(site, header):
    _, port = site
    status, headers, body = ask(port, "/data/marts.parquet", {"Range": header})
    assert (status, body) == (200, BODY)
    assert "content-range" not in headers


def test_if_range_sends_the_range_only_for_the_unchanged_file(site):
    root, port = site
    _, headers, _ = ask(port, "/data/marts.parquet", method="HEAD")
    seen = headers["last-modified"]
    assert ask(port, "/data/marts.parquet", {"Range": "bytes=0-9", "If-Range": seen})[0] == 206
    # the file changed since (another date): the client gets the new file whole, not a mix
    os.utime(root / "data" / "marts.parquet", (1_000_000_000, 1_000_000_000))
    status, _, body = ask(port, "/data/marts.parquet", {"Range": "bytes=0-9", "If-Range": seen})
    assert (status, body) == (200, BODY)
    assert ask(port, "/data/marts.parquet", {"Range": "bytes=0-9", "If-Range": '"an-etag"'})[0] == 200


def test_ranges_leave_the_other_answers_alone(site):
    _, port = site
    status, _, body = ask(port, "/no-such-file.parquet", {"Range": "bytes=0-9"})
    assert (status, body) == (404, b"<h1>Page not found</h1>")
    status, headers, _ = ask(port, "/data/", {"Range": "bytes=0-9"})
    assert status == 404 and "content-range" not in headers   # a folder: never a listing
    assert ask(port, "/data/%00x", {"Range": "bytes=0-9"})[0] == 400


def test_many_ranges_of_one_file_reassemble_it(site):
    _, port = site
    parts = [ask(port, "/data/marts.parquet", {"Range": f"bytes={start}-{start + 999}"})[2]
             for start in range(0, len(BODY), 1000)]
    assert b"".join(parts) == BODY


def test_byte_range_rules():
    assert byte_range("bytes=0-0", 1) == (0, 0)
    assert byte_range("bytes=1-", 1) == "unsatisfiable"
    assert byte_range("bytes=-1", 0) == "unsatisfiable"
    assert byte_range("bytes=0-1, 3-4", 10) is None


def test_one_connection_serves_many_answers(site):
    """Keep-alive: a page's dozens of modules and ranges share a few connections instead of a
    handshake each. Every kind of answer states its length, so the next one on the same
    connection is read whole and in order (a range, the 404 page, a 416, a redirect, a file)."""
    _, port = site
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        answers = []
        for path, headers in [("/data/marts.parquet", {"Range": "bytes=0-9"}), ("/nowhere", {}),
                              ("/data/marts.parquet", {"Range": "bytes=99999-"}), ("/data", {}),
                              ("/data/marts.parquet", {"Range": "bytes=-5"}), ("/index.html", {})]:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            answers.append((response.status, response.version, response.read()))
            socket = connection.sock
            assert socket is not None, f"the connection was closed after {path}"
        assert [a[0] for a in answers] == [206, 404, 416, 301, 206, 200]
        assert {a[1] for a in answers} == {11}
        assert answers[0][2] == BODY[:10] and answers[4][2] == BODY[-5:] and answers[5][2] == b"<h1>home</h1>"
    finally:
        connection.close()

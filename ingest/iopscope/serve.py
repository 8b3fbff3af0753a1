"""A static file server for dist/ on 127.0.0.1 that understands Framework's clean URLs.

It serves files and nothing else: no directory listings (a folder without index.html is a
404), a path that no file can have (a NUL byte, an undecodable or overlong name) is a plain
400 instead of a traceback, and the listen backlog holds a burst of browsers and scripts
(the standard library's 5 dropped connections of 200 simultaneous clients).

It answers byte-range requests (RFC 9110 section 14), which the run page needs: it reads only its
run's rows of the per-run Parquet files (``Range: bytes=first-last``, ``first-`` or ``-suffix``)
and gets ``206 Partial Content`` with ``Content-Range``; a range that starts past the end gets
``416`` with ``Content-Range: bytes */<size>``. One range per request: a request for several
ranges, a malformed Range header, or an ``If-Range`` date that is not the file's
``Last-Modified`` gets the whole file with ``200``, which the standard allows a server to do.
Every file answer says ``Accept-Ranges: bytes``."""

from __future__ import annotations

import functools
import http.server
import mimetypes
import os
import re
import socket
import sys
import urllib.parse
from pathlib import Path

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")


LISTEN_BACKLOG = 1024
# One range: "bytes=first-last", "bytes=first-" or "bytes=-suffix_length" (spaces allowed around).
_ONE_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$")


# Folders whose files are named by their content or their package's version (Framework's
# build): a name never gets other bytes, so a browser keeps them. Anything else (the pages, the
# marts' files under data/) keeps its name when a build changes it, in place since
# sitebuild/update.js: a browser asks again each time ("no-cache": revalidate by Last-Modified),
# or a cached page could name files a later build removed, or a cached Parquet part disagree
# with the index that says where its rows are.
_IMMUTABLE_FOLDERS = ("/_file/", "/_import/", "/_node/", "/_npm/", "/_observablehq/")


def cache_control(request_path: str) -> str:
    """The Cache-Control of the answer for ``request_path`` (docs/site.md, publishing)."""
    path = request_path.split("?", 1)[0].split("#", 1)[0]
    return "public, max-age=31536000, immutable" if path.startswith(_IMMUTABLE_FOLDERS) else "no-cache"


class _BadPath(ValueError):
    pass


class _RangeReader:
    """The part of an open file a 206 answer sends: ``read`` stops after ``length`` bytes."""

    def __init__(self, file, start: int, length: int) -> None:
        self._file = file
        self._file.seek(start)
        self._left = length

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        data = self._file.read(self._left if size < 0 else min(size, self._left))
        self._left -= len(data)
        return data

    def close(self) -> None:
        self._file.close()


def byte_range(header: str, size: int) -> tuple[int, int] | None | str:
    """The first and last byte a Range header asks of a file of ``size`` bytes.

    None: not one range this server answers (several ranges, another unit, malformed), so the
    whole file is sent. "unsatisfiable": a range entirely past the end (or an empty suffix).

    >>> byte_range("bytes=0-99", 1000), byte_range("bytes=900-", 1000), byte_range("bytes=-100", 1000)
    ((0, 99), (900, 999), (900, 999))
    >>> byte_range("bytes=990-2000", 1000), byte_range("bytes=-5000", 1000)
    ((990, 999), (0, 999))
    >>> byte_range("bytes=1000-", 1000), byte_range("bytes=-0", 1000)
    ('unsatisfiable', 'unsatisfiable')
    >>> byte_range("bytes=0-1,5-9", 1000), byte_range("bytes=9-5", 1000), byte_range("items=0-1", 1000)
    (None, None, None)
    """
    match = _ONE_RANGE.match(header)
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":  # the last `last` bytes
        suffix = int(last)
        return "unsatisfiable" if suffix == 0 or size == 0 else (max(0, size - suffix), size - 1)
    start = int(first)
    if last != "" and int(last) < start:
        return None  # syntactically invalid: ignored, as RFC 9110 says
    end = size - 1 if last == "" else int(last)
    if start >= size:
        return "unsatisfiable"
    return start, min(end, size - 1)


class _Handler(http.server.SimpleHTTPRequestHandler):
    # Keep-alive (HTTP/1.1): a page asks for dozens of modules and byte ranges, and a browser
    # opens at most six connections to a host; a new connection per answer (HTTP/1.0, the
    # standard library's default) queues them behind each other's handshakes. Every answer
    # below states its Content-Length, which keep-alive needs.
    protocol_version = "HTTP/1.1"
    # An idle kept-alive connection (or a client that stops reading) gives its thread back
    # after this long without progress (a socket timeout: Server.handle_error ignores it).
    timeout = 60

    def translate_path(self, path: str) -> str:
        fs_path = Path(super().translate_path(path))
        # Framework links to /fio for fio.html (clean URLs).
        try:
            if not fs_path.exists() and fs_path.with_suffix(".html").is_file() and not fs_path.suffix:
                return str(fs_path.with_suffix(".html"))
        except (OSError, ValueError) as exc:   # NUL byte, name too long ...
            raise _BadPath(str(exc)) from None
        return str(fs_path)

    def send_head(self):
        try:
            decoded = urllib.parse.unquote(self.path.split("?", 1)[0].split("#", 1)[0], errors="strict")
            if "\x00" in decoded:
                raise _BadPath("NUL byte")
            if self.headers.get("Range") is not None:
                answered, file = self._send_range_head()
                if answered:
                    return file
            return super().send_head()
        except (_BadPath, UnicodeError):
            self.send_error(400, "Bad path")
            return None

    def _send_range_head(self):
        """Answer a Range request for a regular file: (True, reader) after a 206, (True, None)
        after a 416, (False, None) when the whole file should be sent instead."""
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return False, None   # folders, missing files: the usual answers
        try:
            file = open(path, "rb")
        except OSError:
            return False, None
        try:
            stat = os.fstat(file.fileno())
            last_modified = self.date_time_string(stat.st_mtime)
            if_range = self.headers.get("If-Range")
            wanted = byte_range(self.headers["Range"], stat.st_size)
            # If-Range: the range only if the file is still the one the client saw (by date; this
            # server sends no ETag, so an entity tag never matches)
            if wanted is None or (if_range is not None and if_range.strip() != last_modified):
                file.close()
                return False, None
            if wanted == "unsatisfiable":
                file.close()
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{stat.st_size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return True, None
            first, last = wanted
            self.send_response(206)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Range", f"bytes {first}-{last}/{stat.st_size}")
            self.send_header("Content-Length", str(last - first + 1))
            self.send_header("Last-Modified", last_modified)
            self.end_headers()
            return True, _RangeReader(file, first, last - first + 1)
        except BaseException:
            file.close()
            raise

    def send_response(self, code: int, message: str | None = None) -> None:
        super().send_response(code, message)
        if code in (200, 206):   # only files are answered with these
            self.send_header("Accept-Ranges", "bytes")
        if code in (200, 206, 304):
            self.send_header("Cache-Control", cache_control(self.path))

    def list_directory(self, path):
        # A folder without index.html: the site has no page here (never a file listing).
        self.send_error(404, "File not found")
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # An unknown address gets the site's own 404 page (Framework builds 404.html), still with
        # status 404, as static hosts do (nginx error_page, GitHub Pages).
        page = Path(self.directory) / "404.html"
        if code == 404 and self.command in ("GET", "HEAD") and page.is_file():
            body = page.read_bytes()
            self.send_response(404, message)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command == "GET":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)

    def log_message(self, fmt: str, *args) -> None:
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A client that hangs up mid-answer is not the server's error: no traceback for it.
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, socket.timeout, TimeoutError)):
            return
        super().handle_error(request, client_address)


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0) -> Server:
    return Server((host, port), functools.partial(_Handler, directory=str(directory)))


def serve(directory: Path, host: str = "127.0.0.1", port: int = 3000, verbose: bool = False) -> None:
    if not (directory / "index.html").is_file():
        raise SystemExit(f"{directory} has no index.html: build the site first (make build)")
    with make_server(directory, host, port) as httpd:
        httpd.verbose = verbose
        actual_port = httpd.server_address[1]
        # The URL goes to stdout, alone on its line, so scripts and tests can read it.
        print(f"http://{host}:{actual_port}/", flush=True)
        print(f"serving {directory} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass

"""A static file server for dist/ on 127.0.0.1 that understands Framework's clean URLs.

It serves files and nothing else: no directory listings (a folder without index.html is a
404), a path that no file can have (a NUL byte, an undecodable or overlong name) is a plain
400 instead of a traceback, and the listen backlog holds a burst of browsers and scripts
(the standard library's 5 dropped connections of 200 simultaneous clients)."""

from __future__ import annotations

import functools
import http.server
import mimetypes
import socket
import sys
import urllib.parse
from pathlib import Path

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")


LISTEN_BACKLOG = 1024


class _BadPath(ValueError):
    pass


class _Handler(http.server.SimpleHTTPRequestHandler):
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
            return super().send_head()
        except (_BadPath, UnicodeError):
            self.send_error(400, "Bad path")
            return None

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

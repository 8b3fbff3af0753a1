"""A static file server for dist/ on 127.0.0.1 that understands Framework's clean URLs."""

from __future__ import annotations

import functools
import http.server
import mimetypes
import sys
from pathlib import Path

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")


class _Handler(http.server.SimpleHTTPRequestHandler):
    def translate_path(self, path: str) -> str:
        fs_path = Path(super().translate_path(path))
        # Framework links to /fio for fio.html (clean URLs).
        if not fs_path.exists() and fs_path.with_suffix(".html").is_file() and not fs_path.suffix:
            return str(fs_path.with_suffix(".html"))
        return str(fs_path)

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


def serve(directory: Path, host: str = "127.0.0.1", port: int = 3000, verbose: bool = False) -> None:
    if not (directory / "index.html").is_file():
        raise SystemExit(f"{directory} has no index.html: build the site first (make build)")
    handler = functools.partial(_Handler, directory=str(directory))
    with http.server.ThreadingHTTPServer((host, port), handler) as httpd:
        httpd.verbose = verbose
        actual_port = httpd.server_address[1]
        # The URL goes to stdout, alone on its line, so scripts and tests can read it.
        print(f"http://{host}:{actual_port}/", flush=True)
        print(f"serving {directory} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass

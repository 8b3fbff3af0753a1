"""`iopscope serve`: clean URLs map to pages, and an unknown address gets the site's own 404 page
with status 404 (plain text when the site has none)."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from functools import partial
from http.server import ThreadingHTTPServer

import pytest

from iopscope.serve import _Handler


@pytest.fixture()
def site(tmp_path):
    (tmp_path / "index.html").write_text("<h1>home</h1>")
    (tmp_path / "fio.html").write_text("<h1>fio</h1>")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch(url):
    try:
        with urllib.request.urlopen(url) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_clean_urls_and_the_sites_own_404_page(site):
    root, url = site
    assert fetch(f"{url}/fio") == (200, "<h1>fio</h1>")
    status, body = fetch(f"{url}/no-such-page")
    assert status == 404 and "Error response" in body  # no 404.html yet: the server's own message
    (root / "404.html").write_text("<h1>Page not found</h1>")
    assert fetch(f"{url}/no-such-page") == (404, "<h1>Page not found</h1>")
    assert fetch(f"{url}/runs/old-run-page") == (404, "<h1>Page not found</h1>")

"""`iopscope serve`: clean URLs map to pages, and an unknown address gets the site's own 404 page
with status 404 (plain text when the site has none); files with a hashed name are kept by the
browser, anything else is asked for again."""

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


def test_hashed_files_are_kept_pages_and_data_asked_again(site):
    """A build updated in place (sitebuild/update.js) keeps the pages' and the marts' names and
    changes their bytes, and removes the hashed files it no longer names: a page or part a
    browser kept without asking would name missing files or hold other rows than the index."""
    root, url = site
    (root / "_file" / "data").mkdir(parents=True)
    (root / "_file" / "data" / "home.0123abcd.json").write_text("{}")
    (root / "data" / "marts").mkdir(parents=True)
    (root / "data" / "marts" / "dim_runs.parquet").write_bytes(b"PAR1")

    def cache_control(path, headers=None):
        with urllib.request.urlopen(urllib.request.Request(f"{url}{path}", headers=headers or {})) as response:
            return response.status, response.headers["Cache-Control"]

    assert cache_control("/_file/data/home.0123abcd.json") == (200, "public, max-age=31536000, immutable")
    for path in ("/", "/fio", "/fio?x=1", "/data/marts/dim_runs.parquet"):
        assert cache_control(path) == (200, "no-cache"), path
    assert cache_control("/data/marts/dim_runs.parquet", {"Range": "bytes=0-1"}) == (206, "no-cache")

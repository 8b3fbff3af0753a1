"""`iopscope serve` under a burst: 200 clients connecting at the same moment all get their page
(issue 18: the standard library's listen backlog of 5 timed out 19-55 of them), and hostile
paths get a plain 4xx, never a traceback or a dropped connection."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT

CLIENTS = 200
CLIENT_TIMEOUT_S = 5.0


@pytest.fixture()
def served(tmp_path):
    site = tmp_path / "dist"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<h1>home</h1>")
    (site / "fio.html").write_text("<h1>fio</h1>")
    (site / "404.html").write_text("<h1>Page not found</h1>")
    (site / "assets" / "app.js").write_text("console.log(1)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest")}
    proc = subprocess.Popen([sys.executable, "-m", "iopscope.cli", "serve", "--dir", str(site), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), url
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    yield port
    proc.terminate()
    _, stderr = proc.communicate(timeout=10)
    assert "Traceback" not in stderr, stderr


def _get(port: int, path: str, timeout: float = CLIENT_TIMEOUT_S) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_two_hundred_simultaneous_clients_all_answered(served):
    start = threading.Barrier(CLIENTS)
    outcomes: list[object] = [None] * CLIENTS

    def client(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = _get(served, "/fio" if i % 2 else "/assets/app.js")[0]
        except (OSError, http.client.HTTPException) as exc:   # time-out, reset, refused
            outcomes[i] = exc

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    failures = [o for o in outcomes if o != 200]
    timeouts = [o for o in failures if isinstance(o, (socket.timeout, TimeoutError))]
    print(f"{CLIENTS} clients in {time.monotonic() - began:.2f} s: "
          f"{len(failures)} failures, {len(timeouts)} time-outs")
    assert failures == []


@pytest.mark.parametrize("path", ["/%00", "/fio%00.html", "/assets/%00/x", "/%ff%fe", "/" + "a" * 4000])
def test_bad_paths_get_a_400(served, path):
    assert _get(served, path)[0] == 400


def test_no_directory_listing_and_404_page_kept(served):
    status, body = _get(served, "/assets/")
    assert status == 404 and b"app.js" not in body and body == b"<h1>Page not found</h1>"
    assert _get(served, "/no-such-page") == (404, b"<h1>Page not found</h1>")
    assert _get(served, "/fio") == (200, b"<h1>fio</h1>")

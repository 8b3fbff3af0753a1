"""pipeline.site: one site build at a time per site root (they share Framework's cache and the
record an update in place starts from): a second waits for the first, and gives up after its
wait with the holder named, before touching the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from iopscope import locks, pipeline
from iopscope.paths import Paths

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_site_build_waits_for_the_first(tmp_path, monkeypatch):
    if not (ROOT / "node_modules" / ".bin" / "observable").exists():
        pytest.skip("node_modules missing (npm ci)")
    site_root = tmp_path / "src"
    cached = site_root / ".observablehq" / "cache" / "data" / "catalog.json"
    cached.parent.mkdir(parents=True)
    cached.write_text("{}")
    monkeypatch.setenv("IOPSCOPE_SITE_ROOT", str(site_root))
    paths = Paths(root=ROOT, raw=tmp_path / "raw", lake=tmp_path / "lake", warehouse=tmp_path / "w.duckdb", dist=tmp_path / "dist")
    said = []
    with locks.hold(site_root / ".observablehq" / "cache" / "iopscope-build.lock", "a site build", notify=said.append):
        with pytest.raises(locks.LockTimeout, match="iopscope-build.lock"):
            pipeline.site(paths, wait_s=0.3)
    assert cached.exists(), "the loaders' outputs of the build under way were left alone"
    assert not (tmp_path / "dist").exists()

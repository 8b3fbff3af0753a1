"""The site's data loaders at scale (src/data/_sitedata.py): the batched run bundles equal the
per-run ones, archive members land where Framework caches them, big marts are left out of the
browser's database and offered as Parquet only, and _paths.py fails loudly."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "data"


@pytest.fixture()
def warehouse(tmp_path, monkeypatch):
    """A small warehouse: 7 runs, a sample mart whose run r3 is over the row limit, NaN and
    timestamps, dimension rows, an unsafe run id."""
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("create table marts.dim_runs (run_id varchar, host_id varchar, started_at timestamptz, source_kind varchar)")
    ids = ["r0", "r1", "r2", "r3", "r4", "run with space/x", "r6"]
    for i, rid in enumerate(ids):
        con.execute("insert into marts.dim_runs values (?, ?, timestamptz '2026-01-01 00:00:00+00' + interval (?) hour, 'synthetic')",
                    [rid, f"h{i % 2}", i])
    con.execute("create table marts.dim_hosts (host_id varchar, cpu varchar)")
    con.execute("insert into marts.dim_hosts values ('h0', 'x'), ('h1', 'y'), ('h9', 'unused')")
    con.execute("create table marts.fct_samples (run_id varchar, t_s double, value double, device varchar)")
    con.execute("""insert into marts.fct_samples
        select r.run_id, g.i, case when g.i % 7 = 0 then 'nan'::double else g.i * 1.5 end, 'dev' || (g.i % 3)
        from marts.dim_runs r, range(0, 40) g(i) where r.run_id <> 'r3'""")
    con.execute("insert into marts.fct_samples select 'r3', i, i, 'dev0' from range(0, 130) t(i)")
    con.execute("comment on table marts.fct_samples is 'Per-second samples.'")
    con.close()
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    monkeypatch.setattr(sd, "RUN_ROW_LIMIT", 100)  # r3 (130 rows) is thinned
    monkeypatch.setattr(sd, "RUN_BATCH_ROWS", 90)  # several batches
    return sd, path, ids


def rows(payload):
    """A payload's rows as a sorted list (the row order of a mart is not defined)."""
    data = {k: ([v["dict"][c] if c >= 0 else None for c in v["codes"]] if isinstance(v, dict) else v)
            for k, v in payload["data"].items()}
    return sorted(json.dumps([data[k][i] for k in data]) for i in range(payload["rows"]))


def test_batched_bundles_equal_the_per_run_bundles(warehouse):
    sd, _, ids = warehouse
    con = sd.connect()
    catalog = sd.marts(con)
    batched = dict(sd.run_bundles(con, catalog))
    assert sorted(batched) == sorted(ids)
    for rid in ids:
        one, many = sd.run_bundle(con, rid, catalog), batched[rid]
        assert list(one["tables"]) == list(many["tables"]), rid
        for name, payload in one["tables"].items():
            other = many["tables"][name]
            assert {k: v for k, v in payload.items() if k != "data"} == {k: v for k, v in other.items() if k != "data"}, (rid, name)
            assert rows(payload) == rows(other), (rid, name)
    assert batched["r3"]["tables"]["fct_samples"]["thinned_every"] == 2
    assert batched["r0"]["tables"]["dim_hosts"]["rows"] == 1  # only the host its rows name
    assert None in batched["r0"]["tables"]["fct_samples"]["data"]["value"]  # NaN -> null
    con.close()


def test_archive_members_are_also_in_frameworks_cache(warehouse, tmp_path, monkeypatch):
    sd, _, ids = warehouse
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    loader = site / "data" / "runs.zip.py"
    loader.write_text("")
    out = tmp_path / "runs.zip"
    with out.open("wb") as stdout:
        monkeypatch.setattr(sys, "stdout", type("S", (), {"buffer": stdout, "flush": lambda self: None})())
        con = sd.connect()
        bundles = sd.run_bundles(con, sd.marts(con))
        sd.write_zip_stream_cached(((f"{sd.run_slug(r)}.json", sd.json_bytes(b)) for r, b in bundles), str(loader))
        con.close()
    cache = site / ".observablehq" / "cache" / "data" / "runs"
    with zipfile.ZipFile(out) as archive:
        names = sorted(archive.namelist())
        assert names == sorted(f"{sd.run_slug(r)}.json" for r in ids)
        for name in names:
            assert (cache / name).read_bytes() == archive.read(name)
    assert not [p for p in cache.iterdir() if p.name.startswith(".")], "no temporary file left"
    assert "run-" in " ".join(names)  # the unsafe id got a hashed slug


def test_big_marts_are_left_out_of_the_browser_database(warehouse, tmp_path):
    sd, path, _ = warehouse
    out = tmp_path / "site.duckdb"
    assert sd.write_site_database_for_browser(out, max_rows=200) == [{"name": "fct_samples", "rows": 370}]
    con = duckdb.connect(str(out), read_only=True)
    assert con.execute("select count(*) from marts.fct_samples").fetchone() == (0,)
    assert con.execute("select count(*) from marts.dim_runs").fetchone() == (7,)
    (comment,) = con.execute("select comment from duckdb_tables() where table_name = 'fct_samples'").fetchone()
    assert comment.startswith("Left out of the site database: 370 rows") and comment.endswith("Per-second samples.")
    con.close()
    full = tmp_path / "full.duckdb"
    sd.write_site_database(full)  # unchanged: every row
    con = duckdb.connect(str(full), read_only=True)
    assert con.execute("select count(*) from marts.fct_samples").fetchone() == (370,)
    con.close()


def test_download_formats_drop_csv_above_the_limit(warehouse, monkeypatch):
    sd, _, _ = warehouse
    con = sd.connect()
    assert sd.download_formats(con, "fct_samples") == ("csv", "parquet")
    monkeypatch.setattr(sd, "CSV_MAX_ROWS", 100)
    assert sd.download_formats(con, "fct_samples") == ("parquet",)
    assert sd.download_formats(con, "dim_runs") == ("csv", "parquet")
    con.close()


def test_paths_lists_run_bundles_and_fails_loudly(warehouse, tmp_path):
    sd, path, ids = warehouse
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path)}
    done = subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, text=True, check=True)
    paths = json.loads(done.stdout)
    assert sorted(p for p in paths if p.startswith("/data/runs/")) == sorted(f"/data/runs/{sd.run_slug(r)}.json" for r in ids)
    assert not [p for p in paths if p.startswith("/runs/")], "no page per run"
    assert "/data/marts/fct_samples.parquet" in paths
    broken = tmp_path / "broken.duckdb"
    broken.write_bytes(b"not a database")
    failed = subprocess.run([sys.executable, str(DATA / "_paths.py")], env={**env, "IOPSCOPE_WAREHOUSE": str(broken)},
                            capture_output=True, text=True)
    assert failed.returncode != 0 and failed.stdout == ""
    missing = subprocess.run([sys.executable, str(DATA / "_paths.py")], env={**env, "IOPSCOPE_WAREHOUSE": str(tmp_path / "none.duckdb")},
                             capture_output=True, text=True, check=True)
    assert json.loads(missing.stdout) == []


def test_device_colour_slots_keep_devices_of_a_group_apart(monkeypatch):
    """One colour per device: devices shown together (a study or host) never share a slot, every
    colour is used once before any twice, and the Python slot count is palette.js's length."""
    import random
    import re

    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    palette = re.search(r"export const PALETTE = \[(.*?)\];", (ROOT / "src/components/palette.js").read_text(), re.S)
    assert len(re.findall(r'"#[0-9A-Fa-f]{6}"', palette.group(1))) == sd.PALETTE_SLOTS
    rng = random.Random(7)
    for _ in range(200):
        ids = [f"d{i}" for i in range(rng.randint(1, 30))]
        groups = [set(rng.sample(ids, rng.randint(1, min(len(ids), 8)))) for _ in range(rng.randint(0, 6))]
        weights = {d: rng.randint(0, 50) for d in ids}
        slots = sd.color_slots(ids, groups, weights)
        assert set(slots) == set(ids)
        for group in groups:
            assert len({slots[d] for d in group}) == len(group), (group, slots)
        used = sorted(slots.values())
        if len(ids) <= sd.PALETTE_SLOTS:
            assert len(set(used)) == len(ids)  # nobody shares while colours are left
        assert slots == sd.color_slots(list(reversed(ids)), groups, weights)  # order of input does not matter

"""The site's data loaders at scale (src/data/_sitedata.py, _run_parquet.py): the marts a run
page reads are written sorted and row-grouped by run with a page index, the build writes no file
per run, big marts are left out of the browser's database and offered as Parquet only, and
_paths.py fails loudly."""

from __future__ import annotations

import importlib
import io
import json
import re
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
DATA = SRC / "data"


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
    return sd, path, ids


def keyed_file(sd, catalog, name, key, folder):
    rp = importlib.import_module("_run_parquet")
    con = sd.connect()
    try:
        con.execute("select count(*) from marts.dim_runs").fetchone()  # left unfinished, as loaders do
        return rp.write_keyed_parquet(con, catalog, name, key, Path(folder) / f"{name}.parquet")
    finally:
        con.close()


def test_run_marts_are_written_sorted_and_row_grouped_by_run(warehouse, tmp_path, monkeypatch):
    """The layout the run page's range reads rely on: every run's rows contiguous, row groups
    whose run_id statistics bound them, a page index, the mart's rows unchanged."""
    import pyarrow.parquet as pq

    sd, _, ids = warehouse
    rp = importlib.import_module("_run_parquet")
    monkeypatch.setattr(rp, "ROW_GROUP_ROWS", 64)
    monkeypatch.setattr(rp, "PAGE_ROWS", 16)
    con = sd.connect()
    catalog = sd.marts(con)
    assert rp.key_of(catalog, "fct_samples") == "run_id" and rp.key_of(catalog, "dim_hosts") == "host_id"
    mart = sorted(map(repr, con.execute("select run_id, t_s, value, device from marts.fct_samples").fetchall()))
    con.close()
    path = keyed_file(sd, catalog, "fct_samples", "run_id", tmp_path)
    parquet = pq.ParquetFile(path)
    table = parquet.read()
    assert sorted(map(repr, zip(*(table.column(c).to_pylist() for c in ("run_id", "t_s", "value", "device"))))) == mart
    run_ids = table.column("run_id").to_pylist()
    assert run_ids == sorted(run_ids), "sorted by run"
    times = table.column("t_s").to_pylist()
    per_run = ([x for r, x in zip(run_ids, times) if r == rid] for rid in ids)
    assert all(t == sorted(t) for t in per_run), "a run's samples in time order"
    meta = parquet.metadata
    assert meta.num_row_groups == -(-370 // 64)
    at = parquet.schema_arrow.names.index("run_id")
    stats = [meta.row_group(i).column(at).statistics for i in range(meta.num_row_groups)]
    bounds = [(s.min, s.max) for s in stats]
    assert all(lo <= hi for lo, hi in bounds) and all(a[1] <= b[0] for a, b in zip(bounds, bounds[1:]))
    for rid in ids:  # 40 rows (130 for r3) of a run sit in one or two (three) row groups
        assert sum(lo <= rid <= hi for lo, hi in bounds) <= -(-run_ids.count(rid) // 64) + 1
    column = meta.row_group(0).column(at)
    assert column.has_column_index and column.has_offset_index, "page index written"
    assert not meta.row_group(0).column(parquet.schema_arrow.names.index("value")).is_stats_set, "statistics on the key only"
    (tmp_path / "again").mkdir()
    assert keyed_file(sd, catalog, "fct_samples", "run_id", tmp_path / "again").read_bytes() == path.read_bytes(), "same rows, same bytes"


def test_marts_of_few_rows_per_key_get_smaller_pages(warehouse, tmp_path, monkeypatch):
    """The run page decodes a whole page of every column to find one run's rows: a mart of one
    row per key (a run's results, a host) is written in SPARSE_PAGE_ROWS pages, Snappy, a samples
    mart (dozens of rows per run) keeps PAGE_ROWS and zstd, and a part is judged by its own rows."""
    import pyarrow.parquet as pq

    sd, _, ids = warehouse
    rp = importlib.import_module("_run_parquet")
    con = sd.connect()
    catalog = sd.marts(con)
    try:
        assert rp.page_shape(con, "dim_hosts", "host_id") == rp.PageShape(rp.SPARSE_PAGE_ROWS, "snappy", rp.SPARSE_ROW_GROUP_ROWS)
        assert rp.page_shape(con, "fct_samples", "run_id") == rp.PageShape(rp.PAGE_ROWS, "zstd", rp.ROW_GROUP_ROWS)
        assert rp.SPARSE_PAGE_ROWS < rp.PAGE_ROWS
        one_run = rp.Part(file="x", first=ids[0], end=ids[1])
        assert rp.page_shape(con, "fct_samples", "run_id", one_run).rows == rp.PAGE_ROWS
    finally:
        con.close()
    (tmp_path / "codecs").mkdir()
    for mart, key, codec in [("dim_hosts", "host_id", "SNAPPY"), ("fct_samples", "run_id", "ZSTD")]:
        meta = pq.ParquetFile(keyed_file(sd, catalog, mart, key, tmp_path / "codecs")).metadata
        assert {meta.row_group(0).column(i).compression for i in range(meta.num_columns)} == {codec}, mart

    # ... and the writer uses it: three hosts in pages of one row have three page locations in
    # the key's offset index, where pages of PAGE_ROWS have one
    def offset_index_bytes(folder):
        (folder := tmp_path / folder).mkdir()
        (group,) = rp.file_layout(keyed_file(sd, catalog, "dim_hosts", "host_id", folder), "host_id")["groups"]
        return group[3][1] - group[3][0]
    monkeypatch.setattr(rp, "SPARSE_PAGE_ROWS", 1)
    one_row_pages = offset_index_bytes("sparse")
    monkeypatch.setattr(rp, "SPARSE_PAGE_ROWS", rp.PAGE_ROWS)
    assert one_row_pages > offset_index_bytes("dense")

    # ... and in row groups of SPARSE_ROW_GROUP_ROWS: dim_runs (one row per run) in groups of two
    # rows, the samples (40 rows per run) in row groups of ROW_GROUP_ROWS still
    monkeypatch.setattr(rp, "SPARSE_ROW_GROUP_ROWS", 2)
    monkeypatch.setattr(rp, "ROW_GROUP_ROWS", 64)
    (tmp_path / "groups").mkdir()
    runs = pq.ParquetFile(keyed_file(sd, catalog, "dim_runs", "run_id", tmp_path / "groups")).metadata
    assert runs.num_row_groups == -(-len(ids) // 2) and {runs.row_group(i).num_rows for i in range(runs.num_row_groups - 1)} == {2}
    samples = pq.ParquetFile(keyed_file(sd, catalog, "fct_samples", "run_id", tmp_path / "groups")).metadata
    assert samples.row_group(0).num_rows == 64


def test_run_marts_index_names_keys_columns_and_rows(warehouse):
    sd, _, _ = warehouse
    rp = importlib.import_module("_run_parquet")
    con = sd.connect()
    index = rp.run_marts_index(con, sd.marts(con))
    con.close()
    marts = {m["name"]: m for m in index["marts"]}
    assert set(marts) == {"dim_runs", "dim_hosts", "fct_samples"}
    assert (marts["fct_samples"]["key"], marts["fct_samples"]["rows"]) == ("run_id", 370)
    assert marts["dim_hosts"]["key"] == "host_id"
    assert [c["name"] for c in marts["dim_runs"]["columns"]] == ["run_id", "host_id", "started_at", "source_kind"]
    assert index["dims"]["dim_hosts"] == {"key": "host_id", "sources": ["host_id"], "picked_by": None}
    # the TPC-C sweeps on a run's devices are read for its TPC-C results only (a fio run has none)
    assert index["dims"]["fct_tpcc_sweep_knees"]["picked_by"] == ["fct_tpcc_results"]
    assert index["run_row_limit"] == sd.RUN_ROW_LIMIT


def test_run_marts_index_says_which_tools_fill_a_mart(tmp_path, monkeypatch):
    """The run page opens a mart only when runs with the run's tool set filled it (a TPC-C run
    opens no fio file, though iostat and mpstat ran beside both); a run naming no tool (a
    published study) has the tool set "(none)"."""
    monkeypatch.syspath_prepend(str(DATA))
    rp = importlib.import_module("_run_parquet")
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute("""create table marts.dim_runs as select * from (values
        ('t1', 'tpcc-mysql,iostat,mpstat'), ('t2', 'go-tpc, iostat'), ('f1', 'fio,iostat,mpstat'),
        ('p1', null)) v(run_id, tools)""")
    con.execute("create table marts.fct_tpcc_results as select * from (values ('t1'), ('t2'), ('t2')) v(run_id)")
    con.execute("create table marts.fct_fio_results as select * from (values ('f1')) v(run_id)")
    con.execute("create table marts.fct_published as select * from (values ('f1'), ('p1')) v(run_id)")
    con.execute("create table marts.fct_orphans as select * from (values ('gone')) v(run_id)")
    cols = {"dim_runs": ["run_id", "tools"], "fct_tpcc_results": ["run_id"], "fct_fio_results": ["run_id"],
            "fct_published": ["run_id"], "fct_orphans": ["run_id"]}
    catalog = {name: {"columns": [{"name": c, "type": "VARCHAR"} for c in columns]} for name, columns in cols.items()}
    assert rp.filled_by_tools(con, catalog, "fct_tpcc_results") == ["go-tpc,iostat", "iostat,mpstat,tpcc-mysql"]
    assert rp.filled_by_tools(con, catalog, "fct_fio_results") == ["fio,iostat,mpstat"]
    assert rp.filled_by_tools(con, catalog, "fct_published") == ["(none)", "fio,iostat,mpstat"], "a run without tools"
    assert rp.filled_by_tools(con, catalog, "fct_orphans") == [], "runs dim_runs does not know add nothing"
    assert rp.filled_by_tools(con, catalog, "dim_runs") is None
    assert rp.tool_set(" mpstat,fio ,, iostat,fio") == "fio,iostat,mpstat" and rp.tool_set(None) == rp.tool_set("") == "(none)"
    del catalog["dim_runs"]
    assert rp.filled_by_tools(con, catalog, "fct_fio_results") is None, "no dim_runs: nothing to decide by"


def test_the_build_writes_no_file_per_run(warehouse, tmp_path):
    """No loader writes a member per run and no dynamic path names a run: the run page reads the
    marts' Parquet files by range. (The old build wrote data/runs/<slug>.json for every run.)"""
    sd, path, ids = warehouse
    site = tmp_path / "site"
    import shutil

    shutil.copytree(DATA, site / "data", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path)}
    names = []
    for loader in sorted((site / "data").glob("*.py")):
        if loader.name.startswith("_"):
            continue
        done = subprocess.run([sys.executable, str(loader)], env=env, capture_output=True, check=True, cwd=ROOT)
        if loader.name.endswith(".zip.py"):
            with zipfile.ZipFile(io.BytesIO(done.stdout)) as archive:
                names += [f"{loader.name[:-7]}/{n}" for n in archive.namelist()]
                if loader.name == "marts.zip.py":
                    listed = json.loads(archive.read("dynamic_paths.json"))
        else:
            names.append(loader.name[:-3])
    paths = json.loads(subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, check=True).stdout)
    # the marts loader lists the same paths, so a build need not run _paths.py (sitebuild/warehouse-paths.js)
    assert sorted(listed) == sorted(paths) and len(listed) == len(set(listed)) and paths
    slugs = {sd.run_slug(r) for r in ids} | set(ids)
    for name in names + paths:
        assert not any(s in name for s in slugs), f"{name} is a file per run"
    assert "marts/fct_samples.parquet" in names and "/data/marts/fct_samples.parquet" in paths
    # data/marts/ holds downloads and what the run page reads by range, no mart's rows as JSON:
    # besides them only indexes of its files (what the run page reads, the Data page's list of
    # parts, the build's list of paths)
    marts = [n for n in names if n.startswith("marts/")]
    assert [n for n in marts if not n.endswith((".csv", ".parquet"))] == [
        "marts/run_marts.json", "marts/parts.json", "marts/dynamic_paths.json"]


def test_archive_members_are_also_in_frameworks_cache(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    loader = site / "data" / "marts.zip.py"
    loader.write_text("")
    big = tmp_path / "big.csv"
    big.write_bytes(b"x,y\n" * 300_000)
    os.utime(big, (1_000_000_000, 1_000_000_000))  # a file cached by a build long ago (2001)
    members = [("a.json", b'{"a":1}'), ("big.csv", big), ("sub/c.json", b"[]")]
    out = tmp_path / "marts.zip"
    with out.open("wb") as stdout:
        monkeypatch.setattr(sys, "stdout", type("S", (), {"buffer": stdout, "flush": lambda self: None})())
        sd.write_zip_stream_cached(iter(members), str(loader))
    cache = site / ".observablehq" / "cache" / "data" / "marts"
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["a.json", "big.csv", "sub/c.json"]
        for name in archive.namelist():
            assert (cache / name).read_bytes() == archive.read(name)
            assert archive.getinfo(name).compress_type == zipfile.ZIP_STORED
            # newer than the loader, or Framework finds the member stale and inflates it again
            assert (cache / name).stat().st_mtime >= loader.stat().st_mtime, name
    assert not [p for p in cache.rglob(".*")], "no temporary file left"

    # run side by side at the start of a build (sitebuild/loaders.js): the file member goes to
    # the cache only, where the build finds it fresh; the archive keeps the small ones
    monkeypatch.setenv(sd.CACHE_ONLY_FILE_MEMBERS, "1")
    shutil.rmtree(cache)
    with out.open("wb") as stdout:
        monkeypatch.setattr(sys, "stdout", type("S", (), {"buffer": stdout, "flush": lambda self: None})())
        sd.write_zip_stream_cached(iter(members), str(loader))
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["a.json", "sub/c.json"]
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) == [
        "a.json", "big.csv", "sub/c.json"]
    assert (cache / "big.csv").read_bytes() == big.read_bytes()


def test_columns_are_made_json_safe_by_their_type(monkeypatch):
    """rows_payload converts a column by its DuckDB type (no per-value clean() for text, integer
    and float columns); every type still comes out as clean() makes it, value by value."""
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    con = duckdb.connect()
    cur = con.execute("""
        select * from (values
            ('a', 1, 1.5::double, 'nan'::double, 2.25::decimal(9,2), true,
             timestamp '2026-01-02 03:04:05', date '2026-01-02', [1, 2], 7::hugeint),
            ('a', 2, 'inf'::double, null, null, false, null, null, null, null),
            (null, null, '-inf'::double, 0.5, 1.00::decimal(9,2), null, timestamp '2026-01-02 03:04:06', null, [], 8::hugeint),
            ('b', 4, 2.5, 1, 3.5::decimal(9,2), true, null, date '2026-02-03', [3], null)
        ) t(s, i, f, g, d, b, ts, dt, l, h), range(3)""")
    names = [d[0] for d in cur.description]
    types = [str(d[1]) for d in cur.description]
    rows = cur.fetchall()
    payload = sd.rows_payload("t", names, types, rows)
    for i, name in enumerate(names):
        assert payload["data"][name] == sd.encode_column([sd.clean(row[i]) for row in rows]), name
    assert payload["data"]["s"]["dict"] == ["a", "b"]
    assert payload["data"]["f"][:4] == [1.5, None, None, 2.5] and payload["data"]["g"][:2] == [None, None]
    assert payload["data"]["d"][:4] == [2.25, None, 1.0, 3.5] and payload["data"]["ts"]["dict"][0] == "2026-01-02T03:04:05Z"
    json.dumps(payload, allow_nan=False)


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
    monkeypatch.setattr(sd, "CSV_MAX_ROWS", 1000)
    monkeypatch.setattr(sd, "CSV_MAX_VALUES", 1000)  # fct_samples: 370 rows x 4 columns
    assert sd.download_formats(con, "fct_samples") == ("parquet",)
    assert sd.download_formats(con, "dim_runs") == ("csv", "parquet")  # 7 x 4
    con.close()


def test_a_big_view_mart_is_offered_by_sql_only(warehouse, tmp_path, monkeypatch):
    """A mart that is a view (computed when asked, like fct_device_quotients) is written out
    while it is small; above the site database's row limit the site writes no file of it, the
    catalog says so and the SQL console's copy is empty. A table of the same size still is."""
    sd, path, _ = warehouse
    con = duckdb.connect(str(path))
    con.execute("create view marts.fct_pairs as select a.run_id as run_a, b.run_id as run_b "
                "from marts.dim_runs a, marts.dim_runs b where a.run_id <> b.run_id")  # 42 rows
    con.close()
    con = sd.connect()
    assert sd.is_view(con, "fct_pairs") and not sd.is_view(con, "fct_samples")
    assert sd.download_formats(con, "fct_pairs") == ("csv", "parquet")
    assert sd.counted_rows(con, "fct_pairs") == 42
    monkeypatch.setattr(sd, "SITE_DB_MAX_ROWS", 41)
    assert sd.counted_rows(con, "fct_pairs") is None
    assert sd.download_formats(con, "fct_pairs") == ()
    assert sd.counted_rows(con, "fct_samples") == 370
    assert sd.download_formats(con, "fct_samples") == ("csv", "parquet")  # a table: still written out
    monkeypatch.setattr(sd, "SITE_DB_MAX_ROWS", 42)
    assert sd.counted_rows(con, "fct_pairs") == 42  # at the limit: counted, written out
    con.close()
    left_out = sd.write_site_database_for_browser(tmp_path / "site.duckdb", max_rows=41)
    assert {"name": "fct_pairs", "rows": None} in left_out
    site = duckdb.connect(str(tmp_path / "site.duckdb"), read_only=True)
    (comment,) = site.execute("select comment from duckdb_tables() where table_name = 'fct_pairs'").fetchone()
    assert "computed on demand" in comment and "Download" not in comment
    site.close()


def test_paths_lists_downloads_and_fails_loudly(warehouse, tmp_path):
    sd, path, ids = warehouse
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path)}
    done = subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, text=True, check=True)
    paths = json.loads(done.stdout)
    assert not [p for p in paths if p.startswith("/data/runs/")], "no file per run"
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


def _sample_mart(con, runs, per_run=30):
    con.execute("create or replace table marts.fct_samples (run_id varchar, t_s double, value double)")
    con.executemany("insert into marts.fct_samples select ?, i, i * 0.5 + ? from range(0, ?) t(i)",
                    [[rid, n, per_run] for n, rid in enumerate(runs)])


def _loader_modules_and_samples(monkeypatch):
    """_run_parquet, _sitedata and an in-memory warehouse whose marts.fct_samples holds 300
    runs of 7 rows."""
    monkeypatch.syspath_prepend(str(DATA))
    con = duckdb.connect()
    con.execute("create schema marts")
    _sample_mart(con, [f"run-{i:04d}" for i in range(300)], per_run=7)
    return importlib.import_module("_run_parquet"), importlib.import_module("_sitedata"), con


def test_parts_split_a_big_mart_by_key_and_a_new_run_moves_no_other_boundary(tmp_path, monkeypatch):
    """plan_parts: above the part size a mart is several key ranges covering every row once;
    adding a run changes only the part it lands in (it may split that part in two when its own
    key starts one), whatever its key's place in the order."""
    monkeypatch.syspath_prepend(str(DATA))
    rp = importlib.import_module("_run_parquet")
    con = duckdb.connect()
    con.execute("create schema marts")
    runs = [f"run-{i:04d}" for i in range(0, 400, 2)]
    _sample_mart(con, runs)
    assert rp.plan_parts(con, "fct_samples", "run_id", target_rows=10**6) == [rp.Part(file="fct_samples.parquet", rows=6000)]
    before = rp.plan_parts(con, "fct_samples", "run_id", target_rows=600)
    assert 5 <= len(before) <= 60, len(before)
    assert before[0].first is None and before[-1].end is None
    assert all(a.end == b.first for a, b in zip(before, before[1:])), "ranges meet"
    assert sum(p.rows for p in before) == 6000
    assert len({p.file for p in before}) == len(before) and all(p.file.startswith("fct_samples/part-") for p in before)
    assert max(p.rows for p in before) <= 2 * 600, "a piece the hash cut unevenly is cut again"
    for new in ("run-0001", "run-0201", "run-0333", "run-9999", "a-first"):
        _sample_mart(con, sorted([*runs, new]))
        after = rp.plan_parts(con, "fct_samples", "run_id", target_rows=600)
        changed_before = [p for p in before if p not in after]
        changed_after = [p for p in after if p not in before]
        # one old part replaced by one or more covering the same keys: nothing else moved
        assert len(changed_before) == 1 and changed_after, (new, changed_before, changed_after)
        assert (changed_after[0].first, changed_after[-1].end) == (changed_before[0].first, changed_before[0].end)
        assert sum(p.rows for p in changed_after) == changed_before[0].rows + 30


def test_runs_arriving_last_rewrite_a_small_tail_part(monkeypatch):
    """New runs sort last: the last part of a mart is cut TAIL_DIVISOR times finer, so a run
    arriving there rewrites a part of about target / TAIL_DIVISOR rows, not one of up to twice
    the target; only a coarse cut (a run's key starts a part, or the tail outgrew twice the
    target) makes the old tail's pieces parts of the target's size again. 300 runs arriving one
    at a time: each changes only parts at the end, and the rows written per run are a fraction
    of the part size (without the finer tail, the median is the part's)."""
    monkeypatch.syspath_prepend(str(DATA))
    rp = importlib.import_module("_run_parquet")
    target, per_run = 600, 30
    keys = [f"run-{i:04d}" for i in range(500)]
    counts = [(k, per_run) for k in keys[:200]]
    plan = [p for p, _ in rp._plan("m", counts, target)]
    tail_limit = 2 * target // rp.TAIL_DIVISOR + per_run
    assert plan[-1].rows <= tail_limit, plan[-1]
    written, merges = [], 0
    for key in keys[200:]:
        counts.append((key, per_run))
        after = [p for p, _ in rp._plan("m", counts, target)]
        removed = [p for p in plan if p not in after]
        added = [p for p in after if p not in plan]
        assert removed and added, key
        # only the end changed: every part before the first changed one is where it was
        first_changed = plan.index(removed[0])
        assert plan[:first_changed] == after[:first_changed] and after[-1] in added, key
        assert sum(p.rows for p in added) == sum(p.rows for p in removed) + per_run
        if any(p.rows > tail_limit for p in added):
            # a coarse cut (the run's key starts a part, or the tail's coarse piece outgrew twice
            # the target and was cut coarser): the old tail's pieces become parts of the target's size
            merges += 1
        else:   # fine pieces of the tail only: the last grown or started by the run (or a few merged)
            assert sum(p.rows for p in added) <= 2 * tail_limit, (key, added)
        written.append(sum(p.rows for p in added))
        plan = after
    assert 0 < merges < len(written) // 4, merges
    assert sorted(written)[len(written) // 2] <= target // 2, sorted(written)


def test_planned_parts_digest_each_part_as_its_own_rows_would(monkeypatch):
    """planned_parts sums each part's digest from its keys' in Python: the same count and sum
    as digesting the part's own rows (its key range, rows without a key in the last part) in
    DuckDB, for the plain hash and for a mart whose published rows are hashed whole."""
    rp, sd, con = _loader_modules_and_samples(monkeypatch)
    con.execute("insert into marts.fct_samples select null, i, i from range(0, 5) t(i)")   # rows of no run
    con.execute("create table marts.fct_tpcc_intervals as select run_id, 'fp-' || run_id as run_fingerprint, "
                "case when t_s < 2 then 'published' else 'measured' end as source_kind, value from marts.fct_samples")
    catalog = sd.marts(con)
    monkeypatch.setattr(sd, "warehouse_generation", lambda: "key/gen-1")   # as a stamped build's
    assert rp._row_hash_cases(catalog, "fct_tpcc_intervals", "key/gen-1")[1], "published rows hashed whole"
    for mart in ("fct_samples", "fct_tpcc_intervals"):
        planned = rp.planned_parts(con, catalog, mart, "run_id", target_rows=200)
        parts = [part for part, _ in planned]
        assert len(parts) >= 5 and parts == rp.plan_parts(con, mart, "run_id", target_rows=200)
        generation = rp.fingerprints_by_run(catalog, mart, "run_id")
        per_key = rp._digests_by_key(catalog, mart, generation, f"marts.{mart}", "run_id")
        sums = {}
        for i, part in enumerate(parts):
            where, params = rp._part_filter("run_id", part)
            n, total = con.execute(f"select sum(n)::bigint, sum(total)::varchar from {per_key}{where}", params).fetchone()
            sums[i] = (n, total) if n else None
        assert sum(n for n, _ in sums.values()) == con.execute(f"select count(*) from marts.{mart}").fetchone()[0]
        assert [f for _, f in planned] == rp._fingerprints(catalog, mart, "run_id", parts, sums, generation), mart


def test_parts_stay_at_most_twice_the_part_size_where_the_hash_cuts_nowhere(monkeypatch):
    """Hash cuts fall unevenly: 256 keys none of which the hash picks at 1 in 64 (a mart of
    2,229 runs at 10,000 got no cut at 1 in 512) are still cut, at 1 in 32, 16, ..."""
    monkeypatch.syspath_prepend(str(DATA))
    rp = importlib.import_module("_run_parquet")
    keys = [k for k in (f"k-{i:05d}" for i in range(5000)) if not rp.key_starts_part(k, 64)][:256]
    con = duckdb.connect()
    con.execute("create schema marts")
    _sample_mart(con, sorted(keys), per_run=10)
    parts = rp.plan_parts(con, "fct_samples", "run_id", target_rows=640)  # 256 keys x 640 / 2,560 rows: 1 in 64
    assert len(parts) >= 2 and max(p.rows for p in parts) <= 2 * 640, [p.rows for p in parts]
    assert sum(p.rows for p in parts) == 2560


def test_parts_are_written_from_the_cache_unless_their_rows_changed(tmp_path, monkeypatch):
    """marts.zip.py: a big keyed mart is served as parts whose rows are the mart's; a second
    build with the same warehouse writes no part (each is the cached file, same bytes), a build
    after one more run writes only the part(s) holding it, and the cache keeps only what the
    last build used; run_marts.json, catalog.json and _paths.py name the same parts."""
    import pyarrow.parquet as pq

    monkeypatch.syspath_prepend(str(DATA))

    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("create table marts.dim_runs as select 'run-' || lpad(i::varchar, 4, '0') as run_id from range(0, 300, 2) t(i)")
    runs = [r for (r,) in con.execute("select run_id from marts.dim_runs order by 1").fetchall()]
    _sample_mart(con, runs)
    # a mart no page reads by key: served whole, as CSV and Parquet downloads
    con.execute("create table marts.fct_pairs as select i as pair_id, i * 1.5 as quotient from range(10) t(i)")
    con.close()
    parts_dir = tmp_path / "parts"
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path), "IOPSCOPE_SITE_PART_ROWS": "500",
           "IOPSCOPE_SITE_PARTS_DIR": str(parts_dir), "PYTHONPATH": str(ROOT / "ingest")}
    site = tmp_path / "site"
    import shutil

    shutil.copytree(DATA, site / "data", ignore=shutil.ignore_patterns("__pycache__"))

    def build():
        done = subprocess.run([sys.executable, str(site / "data" / "marts.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
        archive = zipfile.ZipFile(io.BytesIO(done.stdout))
        index = json.loads(archive.read("run_marts.json"))
        mart = next(m for m in index["marts"] if m["name"] == "fct_samples")
        files = {n: archive.read(n) for n in archive.namelist() if n.startswith("fct_samples/")}
        dim_parts.update({n: archive.read(n) for n in archive.namelist() if n.startswith("dim_runs/")})
        downloads.update({n: archive.read(n) for n in archive.namelist()
                          if "/" not in n and n not in ("run_marts.json", "parts.json", "dynamic_paths.json")})
        return mart, files, done.stderr.decode()

    downloads, dim_parts = {}, {}

    mart, files, log = build()
    assert mart["layout"] is None and len(mart["parts"]) >= 3
    assert [p["file"] for p in mart["parts"]] == sorted(files, key=lambda f: next(i for i, p in enumerate(mart["parts"]) if p["file"] == f))
    assert set(files) == {p["file"] for p in mart["parts"]} and "fct_samples.parquet" not in files
    rows = []
    for part in mart["parts"]:
        table = pq.read_table(io.BytesIO(files[part["file"]]))
        keys = table.column("run_id").to_pylist()
        assert len(keys) == part["rows"] and keys == sorted(keys)
        assert part["first"] is None or keys[0] >= part["first"]
        assert part["layout"]["size"] == len(files[part["file"]])
        rows += keys
    assert sorted(rows) == sorted(r for r in runs for _ in range(30)), "every row in exactly one part"
    # one row per run: dim_runs is cut at a SPARSE_PART_DIVISOR-th of the part size (500 // 32 rows)
    rp = importlib.import_module("_run_parquet")
    sparse = 500 // rp.SPARSE_PART_DIVISOR
    assert len(dim_parts) >= 3 and max(pq.read_metadata(io.BytesIO(b)).num_rows for b in dim_parts.values()) <= 2 * sparse
    assert sum(pq.read_metadata(io.BytesIO(b)).num_rows for b in dim_parts.values()) == len(runs)
    assert f"0 Parquet files from the part cache, {len(files) + len(dim_parts)} written" in log
    whole = ["dim_runs.csv", "fct_pairs.csv", "fct_pairs.parquet", "fct_samples.csv"]
    assert sorted(downloads) == sorted(whole)
    assert "marts: 0 downloads from the part cache, 4 written" in log
    cached = sorted(p.name for p in parts_dir.iterdir())
    first_downloads = dict(downloads)

    again, files_again, log = build()
    assert files_again == files and again == mart
    assert f"{len(files) + len(dim_parts)} Parquet files from the part cache, 0 written" in log
    assert "marts: 4 downloads from the part cache, 0 written" in log
    assert downloads == first_downloads
    assert sorted(p.name for p in parts_dir.iterdir()) == cached

    con = duckdb.connect(str(path))
    con.execute("insert into marts.fct_samples select 'run-0101', i, i from range(0, 30) t(i)")
    con.close()
    grown, files_grown, log = build()
    rewritten = [f for f in files_grown if files_grown[f] != files.get(f)]
    assert 1 <= len(rewritten) <= 2 and len(files_grown) - len(rewritten) >= len(files) - 1, rewritten
    assert f"{len(files_grown) - len(rewritten) + len(dim_parts)} Parquet files from the part cache, {len(rewritten)} written" in log
    # only the download of the mart that grew is written again
    assert "marts: 3 downloads from the part cache, 1 written" in log
    assert [n for n in whole if downloads[n] != first_downloads[n]] == ["fct_samples.csv"]
    assert downloads["fct_samples.csv"].count(b"\n") == 4500 + 30 + 1
    kept = [p.name for p in parts_dir.iterdir()]
    layouts = [n for n in kept if ".layout-" in n]
    # fct_samples.csv (4,530 rows) is joined from segments (_downloads.py), kept beside it
    segments = [n for n in kept if n.endswith(".csvseg")]
    assert len(segments) >= 2 and "CSV segments from the cache" in log
    assert len(kept) - len(layouts) - len(segments) == len(files_grown) + len(dim_parts) + len(whole), \
        "the cache keeps what the last build used"
    # and the layout of each keyed file beside it (PartCache.layout), read instead of its footer
    # by the second build above, which gave the same index (again == mart)
    assert len(layouts) == len(files_grown) + len(dim_parts)

    paths = json.loads(subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, check=True).stdout)
    # the loader lists the same paths, parts included, so a build need not run _paths.py (sitebuild/warehouse-paths.js)
    marts = subprocess.run([sys.executable, str(site / "data" / "marts.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
    archive = zipfile.ZipFile(io.BytesIO(marts.stdout))
    listed = json.loads(archive.read("dynamic_paths.json"))
    assert sorted(listed) == sorted(paths) and len(listed) == len(set(listed))
    assert any("/part-" in p for p in listed) and "/data/marts/fct_pairs.csv" in listed
    parquet = sorted(p for p in paths if p.startswith("/data/marts/fct_samples") and p.endswith(".parquet"))
    assert parquet == sorted(f"/data/marts/{f}" for f in files_grown)
    # the Data page's list of parts (parts.json): the marts in parts and nothing else, each part
    # as run_marts.json lists it
    in_parts = json.loads(archive.read("parts.json"))
    assert set(in_parts) == {"fct_samples", "dim_runs"}
    assert in_parts["fct_samples"] == {"key": "run_id", "parts": [
        {"file": p["file"], "first": p["first"], "rows": p["rows"]} for p in grown["parts"]]}
    assert {p["file"] for p in in_parts["dim_runs"]["parts"]} == set(dim_parts)
    catalog = json.loads(subprocess.run([sys.executable, str(DATA / "catalog.json.py")], env=env, capture_output=True, check=True).stdout)
    assert {t["name"] for t in catalog["tables"]} >= set(in_parts)


def test_compare_reads_the_comparison_marts_per_device(tmp_path):
    """_device_pages: pages.zip writes an index and a pack per split, one line per device holding
    exactly that device's rows (condition quotients without load levels; sweep summaries by
    device A) where the index says; a device id that is not file-safe is fine (a key, not a
    file); _paths.py lists no file per device. The next build takes every line and the pack from
    the cache; one device's changed rows rewrite its line and the pack, nothing else."""
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("""create table marts.fct_condition_quotients as select * from (values
        ('ssd', 'page_size', 'tpm', 1.5), ('ssd', 'connections', 'tpm', 9.0), ('hdd', 'db_config', 'tpm', 0.5),
        ('odd id/with space', 'page_size', 'iops', 2.0), (null, 'page_size', 'tpm', 7.0))
        v(device_id, varied_condition, metric, quotient)""")
    con.execute("""create table marts.fct_sweep_quotient_summaries as select * from (values
        ('ssd', 'hdd', 'device', 2.0), ('hdd', 'ssd', 'device', 0.5), ('ssd', 'ssd', 'condition', 1.1))
        v(device_a_id, device_b_id, comparison_family, quotient_geomean)""")
    con.close()
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path), "PYTHONPATH": str(ROOT / "ingest"),
           "IOPSCOPE_SITE_PAGES_DIR": str(tmp_path / "pages-cache")}
    done = subprocess.run([sys.executable, str(DATA / "pages.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
    assert "pages: 0 device lines from the cache, 5 written; 0 packs from the cache, 2 written" in done.stderr.decode()
    archive = zipfile.ZipFile(io.BytesIO(done.stdout))

    def rows(archive, name, device):
        index = json.loads(archive.read(f"{name}.json"))
        pack = archive.read(index["pack"])
        assert len(pack) == index["pack_bytes"]
        start, end = index["devices"][device]
        assert pack[end:end + 1] == b"\n" and (start == 0 or pack[start - 1:start] == b"\n"), "a whole line"
        payload = json.loads(pack[start:end])
        columns = {}
        for column, values in payload["data"].items():
            columns[column] = values if isinstance(values, list) else [None if c < 0 else values["dict"][c] for c in values["codes"]]
        return [dict(zip(columns, row)) for row in zip(*columns.values())]

    conditions = json.loads(archive.read("condition_quotients.json"))
    assert conditions["exists"] and conditions["pack"] == "condition_quotients.jsonl"
    assert list(conditions["devices"]) == ["hdd", "odd id/with space", "ssd"], "devices with rows, in order"
    assert [(r["device_id"], r["quotient"]) for r in rows(archive, "condition_quotients", "ssd")] == [("ssd", 1.5)], "no load levels"
    assert [r["quotient"] for r in rows(archive, "condition_quotients", "odd id/with space")] == [2.0]
    assert sorted((r["device_b_id"], r["comparison_family"]) for r in rows(archive, "sweep_summaries", "ssd")) == [
        ("hdd", "device"), ("ssd", "condition")]
    assert [r["device_a_id"] for r in rows(archive, "sweep_summaries", "hdd")] == ["hdd"]
    assert not [n for n in archive.namelist() if "/" in n], "no file per device"
    assert len(archive.read("condition_quotients.jsonl").splitlines()) == 3
    paths = json.loads(subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, check=True).stdout)
    assert not [p for p in paths if p.startswith("/data/pages/")]

    first = {n: archive.read(n) for n in archive.namelist()}
    again = subprocess.run([sys.executable, str(DATA / "pages.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
    assert "pages: 5 device lines from the cache, 0 written; 2 packs from the cache, 0 written" in again.stderr.decode()
    assert {n: zipfile.ZipFile(io.BytesIO(again.stdout)).read(n) for n in first} == first
    con = duckdb.connect(str(path))
    con.execute("update marts.fct_condition_quotients set quotient = 3.0 where device_id = 'hdd'")
    con.close()
    changed = subprocess.run([sys.executable, str(DATA / "pages.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
    assert "pages: 4 device lines from the cache, 1 written; 1 packs from the cache, 1 written" in changed.stderr.decode()
    archive = zipfile.ZipFile(io.BytesIO(changed.stdout))
    assert sorted(n for n in first if archive.read(n) != first[n]) == ["condition_quotients.jsonl"], \
        "the line is as long as before (3.0 for 0.5): the index is the same"
    assert [r["quotient"] for r in rows(archive, "condition_quotients", "hdd")] == [3.0]
    assert [r["quotient"] for r in rows(archive, "condition_quotients", "ssd")] == [1.5]
    assert len(list((tmp_path / "pages-cache").iterdir())) == 7, "5 lines and 2 packs: what this build used"


def _pages_warehouse(path: Path) -> None:
    """A small warehouse of the marts the pages loader encodes as query members: fio and TPC-C
    results (rows stored out of id order), their runs, intervals, devices, configurations,
    studies and device capabilities (a view)."""
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("""create table marts.dim_runs as select * from (values
        ('fio-b', 'measured', 'h1', 'd1', 'c1', timestamptz '2026-01-02 10:00:00+00'),
        ('fio-a', 'measured', 'h1', 'd2', null, timestamptz '2026-01-01 10:00:00+00'),
        ('tp-a', 'measured', 'h1', 'd1', 'c1', timestamptz '2026-01-03 10:00:00+00'))
        t(run_id, source_kind, host_id, data_device_id, db_config_id, started_at)""")
    con.execute("""create table marts.fct_fio_results as select * from (values
        ('f4', 'fio-b', 'j3', 'd1', false, 'write', 50.0::double, 0.5::double, 900.0::double, 16, 'x'),
        ('f1', 'fio-a', 'j1', 'd2', false, 'read', 100.0, 1.0, 200.0, 1, 'x'),
        ('f3', 'fio-b', 'j3', 'd1', false, 'read', 400.0, 4.0, 'nan'::double, 16, 'x'),
        ('f2', 'fio-a', 'j1', 'd2', false, 'write', 100.0, 1.0, 300.0, 1, 'x'),
        ('f5', 'fio-a', 'j2', 'd2', false, 'read', 100.0, 1.0, 250.0, 4, 'x'))
        t(fio_result_id, run_id, fio_job_id, device_id, is_aggregate, direction, iops, bw_mib_per_s, clat_p99_us,
          outstanding_ios, unread)""")
    con.execute("""create table marts.fct_tpcc_results as select * from (values
        ('t2', 'tp-a', 'd1', 'c1', 100, 1500.0::double, 20.0::double), ('t1', 'tp-a', 'd1', 'c1', 50, 1000.0, 12.0))
        t(tpcc_result_id, run_id, device_id, db_config_id, connections, new_order_tpm, p95_new_order_ms)""")
    con.execute("""create table marts.fct_tpcc_intervals as select 'tp-a/' || (i % 2) as tpcc_series_id, 'tp-a' as run_id,
        'd1' as device_id, 50 * (1 + i % 2) as connections, i * 10.0 as elapsed_s from range(0, 12) t(i)""")
    con.execute("create table marts.dim_devices as select * from (values ('d2', 'ssd'), ('d1', 'hdd')) t(device_id, media)")
    con.execute("""create table marts.dim_db_configs as select * from (values
        ('c1', 'b_param', '2'), ('c1', 'a_param', '1'), ('c2', 'a_param', '1')) t(config_id, parameter, value)""")
    con.execute("create table marts.dim_studies as select 's1' as study_id, 'A study' as study_title")
    con.execute("create view marts.fct_device_capabilities as "
                "select fio_result_id as device_capability_id, device_id, iops from marts.fct_fio_results")
    con.close()


def test_every_page_member_is_read_by_a_page():
    """Each data/pages/ file the pages loader writes is read by a page or component: a member
    nobody reads is encoded again after every run for nothing (fct_device_capabilities.json was,
    6.3 MB at 10,000 runs, for months after /sizing stopped reading it)."""
    pages_loader = (DATA / "pages.zip.py").read_text()
    sources = "\n".join(p.read_text() for p in [*SRC.glob("*.md"), *SRC.glob("runs/*.md"), *SRC.glob("components/*.js")])
    written = set(re.findall(r'yield rows\("([a-z_]+\.json)"', pages_loader))
    written |= {f"{name}.json" for name in re.search(r"WHOLE_MARTS = \(([^)]*)\)", pages_loader).group(1)
                                                      .replace('"', " ").replace(",", " ").split()}
    written |= {"home.json", "device_colors.json"}
    assert len(written) >= 15, written
    unread = sorted(name for name in written if f"data/pages/{name}" not in sources)
    assert unread == []


def test_page_members_come_from_the_cache_only_while_their_rows_are_the_same(tmp_path):
    """_page_members: the second build with the same rows takes every query member from the
    cache; the same rows stored in another order too, and its bytes are those of a build
    without a cache (the rows come out in a total order); a changed row, a new column or a
    changed view writes again exactly the members whose rows changed, each byte for byte what
    a build without a cache writes; the cache then holds this build's files only."""
    path = tmp_path / "wh.duckdb"
    _pages_warehouse(path)
    site = tmp_path / "site"
    shutil.copytree(DATA, site / "data", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "pages-cache"
    runs = iter(range(1000))

    def build(folder=cache):
        env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path), "PYTHONPATH": str(ROOT / "ingest"),
               "IOPSCOPE_SITE_PAGES_DIR": str(folder)}
        done = subprocess.run([sys.executable, str(site / "data" / "pages.zip.py")], env=env, capture_output=True,
                              check=True, cwd=ROOT)
        line = next(x for x in done.stderr.decode().splitlines() if "JSON members" in x)
        archive = zipfile.ZipFile(io.BytesIO(done.stdout))
        return {n: archive.read(n) for n in archive.namelist()}, line

    def uncached():  # what a build without a cache writes
        return build(tmp_path / f"fresh-{next(runs)}")[0]

    def change(*sql):
        con = duckdb.connect(str(path))
        for statement in sql:
            con.execute(statement)
        con.close()

    def members_of(line):
        reused, written = (int(w) for w in line.split() if w.isdigit())
        return reused + written

    first, line = build()
    count = members_of(line)
    # 15 query members, 5 of them of marts this warehouse lacks ({"exists": false}, not cached)
    assert line == f"pages: 0 JSON members from the cache, {count} written" and count == 10, line
    fio = json.loads(first["fio_results.json"])
    assert fio["data"]["fio_result_id"] == ["f1", "f2", "f5", "f3", "f4"], "by run, then by id, not as stored"
    assert json.loads(first["dim_db_configs.json"])["data"]["parameter"] == ["a_param", "b_param", "a_param"]

    again, line = build()
    assert line == f"pages: {count} JSON members from the cache, 0 written"
    assert again == first

    # the same rows stored in another order: the same fingerprints, and the same bytes as now encoded
    change("create or replace table marts.fct_fio_results as select * from marts.fct_fio_results order by fio_result_id desc",
           "create or replace table marts.dim_db_configs as select * from marts.dim_db_configs order by value desc, parameter")
    reordered, line = build()
    assert line == f"pages: {count} JSON members from the cache, 0 written"
    assert reordered == first == uncached()

    # one fio row changed: the members of its rows written again, the TPC-C ones from the cache
    change("update marts.fct_fio_results set iops = 4000.0 where fio_result_id = 'f3'")
    changed, line = build()
    rewritten = sorted(n for n in first if changed[n] != first[n])
    assert rewritten == ["fio_results.json", "runs_list.json", "sizing_fio_points.json"]
    assert line == f"pages: {count - 3} JSON members from the cache, 3 written"
    assert 4000.0 in json.loads(changed["fio_results.json"])["data"]["iops"]
    assert changed == uncached(), "a member from the cache is what encoding it now gives"

    # a column no member reads: every member from the cache; one a member reads: that member
    change("update marts.fct_fio_results set unread = 'y'")
    assert build() == (changed, f"pages: {count} JSON members from the cache, 0 written")
    change("alter table marts.fct_fio_results add column clat_p50_us double default 5.0")
    added, line = build()
    assert sorted(n for n in first if added[n] != changed[n]) == ["fio_results.json"]
    assert line == f"pages: {count - 1} JSON members from the cache, 1 written"
    assert added == uncached()

    # a filtered member: sizing leaves the rows of synthetic runs out
    change("alter table marts.fct_fio_results add column is_synthetic boolean default false")
    before, _ = build()
    change("update marts.fct_fio_results set is_synthetic = true where run_id = 'fio-a'")
    synthetic, line = build()
    assert sorted(n for n in first if synthetic[n] != before[n]) == ["fio_results.json", "sizing_fio_points.json"]
    assert len(json.loads(synthetic["sizing_fio_points.json"])["data"]["fio_job_id"]) == 2, "fio-b's two rows"
    assert synthetic == uncached()
    # the cache holds what the last build used: its 10 members, no file of an earlier build
    assert len([p for p in cache.iterdir() if p.suffix == ".json"]) == count


def _decoded(column):
    """A member's column as src/components/data.js reads it: {parts} joined, {dict, codes} looked up."""
    if isinstance(column, list):
        return column
    if "parts" in column:
        return [v for part in column["parts"] for v in _decoded(part)]
    return [None if c < 0 else column["dict"][c] for c in column["codes"]]


def test_a_member_of_many_rows_is_written_in_segments_and_one_run_rewrites_one(tmp_path, monkeypatch):
    """_page_members segments: a member with segment_by above SEGMENT_ROWS rows is joined from
    segments cut by run, whose columns decode to the rows the whole member holds, in the same
    order; one more run, or one changed row, encodes one segment again and the rest come from the
    cache; the bytes are those of a build without a cache; a member at most SEGMENT_ROWS rows is
    written whole."""
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    # 120 runs of 1-5 rows, a few device names repeating (dictionary-encoded), a run id with quotes
    con.execute("""create table marts.fct_fio_results as
        select md5(i::varchar) as fio_result_id,
               case when i % 120 = 7 then 'run ''q''' else 'run-' || lpad((i % 120)::varchar, 3, '0') end as run_id,
               'dev' || (i % 4) as device, case when i % 11 = 0 then null else i * 1.5 end as iops
        from range(0, 600) t(i) where i % 120 < 60 or i < 300""")
    con.close()
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    monkeypatch.syspath_prepend(str(DATA))
    pm = importlib.import_module("_page_members")
    rp = importlib.import_module("_run_parquet")
    monkeypatch.setattr(pm, "SEGMENT_ROWS", 64)
    query = pm.RowsQuery("fio_results", "select fio_result_id, run_id, device, iops from marts.fct_fio_results",
                         segment_by="run_id")
    fresh_caches = iter(range(100))

    def build(folder=tmp_path / "cache"):
        # a cache of its own per build, as each build's loader process has: it keeps (keep_only_used)
        # only what this build used
        con, cache = duckdb.connect(str(path), read_only=True), rp.PartCache(folder)
        try:
            _, member = pm.query_member(con, cache, "fio_results.json", query, "fio_results")
            cache.keep_only_used()
            return member.read_bytes(), cache.count(pm.SEGMENT_KIND), cache.count(pm.KIND)
        finally:
            con.close()

    def fresh():  # what a build without a cache writes
        return build(tmp_path / f"fresh-{next(fresh_caches)}")[0]

    def change(sql):
        con = duckdb.connect(str(path))
        con.execute(sql)
        con.close()

    def expected_rows():
        con = duckdb.connect(str(path), read_only=True)
        try:
            return con.execute("select * from marts.fct_fio_results order by run_id, fio_result_id, device, iops").fetchall()
        finally:
            con.close()

    def rows_of(member):
        payload = json.loads(member)
        columns = [_decoded(payload["data"][c["name"]]) for c in payload["columns"]]
        assert all(len(c) == payload["rows"] for c in columns)
        return list(zip(*columns))

    first, (seg_reused, seg_written), _ = build()
    payload = json.loads(first)
    parts = payload["data"]["run_id"]["parts"]
    assert seg_reused == 0 and seg_written == len(parts) >= 4, (seg_written, len(parts))
    assert any(isinstance(p, dict) for p in payload["data"]["device"]["parts"]), "each segment its own dictionary"
    assert rows_of(first) == expected_rows()
    # whole (one segment): the same rows in the same order
    monkeypatch.setattr(pm, "SEGMENT_ROWS", 100_000)
    whole = fresh()
    assert "parts" not in json.loads(whole)["data"]["run_id"] and rows_of(whole) == rows_of(first)
    monkeypatch.setattr(pm, "SEGMENT_ROWS", 64)

    # nothing changed: the member from the cache, its segments kept for the next build
    assert build() == (first, (0, 0), (1, 0))
    change("insert into marts.fct_fio_results values ('new-1', 'run-050x', 'dev9', 1.0), ('new-2', 'run-050x', 'dev9', 2.0)")
    added, (reused, written), _ = build()
    assert written == 1 and reused == len(json.loads(added)["data"]["run_id"]["parts"]) - 1, (reused, written)
    assert rows_of(added) == expected_rows() and added == fresh()
    change("update marts.fct_fio_results set iops = -1 where run_id = 'run ''q''' and iops is not null")
    changed, (reused, written), _ = build()
    assert written == 1 and rows_of(changed) == expected_rows() and changed == fresh()


def test_a_big_csv_download_is_joined_from_segments_and_one_run_rewrites_one(tmp_path, monkeypatch):
    """_downloads: the CSV of a mart read by key, past CSV_SEGMENT_ROWS rows, is DuckDB's header
    and then segments of key ranges: byte for byte what one COPY of the rows by key (then every
    column) writes, awkward text included; the next build takes it from the cache and keeps its
    segments; one more run writes one segment again."""
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("""create table marts.dim_runs as
        select 'run-' || lpad(i::varchar, 4, '0') as run_id, 'host ' || (i % 3) as host_id,
               case when i % 7 = 0 then null when i % 7 = 1 then 'a "quoted", text' else 'line' || chr(10) || 'two' end as note,
               i * 0.25 as value
        from range(0, 300) t(i)""")
    con.close()
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    rp = importlib.import_module("_run_parquet")
    downloads = importlib.import_module("_downloads")
    monkeypatch.setattr(downloads, "CSV_SEGMENT_ROWS", 40)
    fresh_caches = iter(range(100))

    def build(folder=tmp_path / "cache"):
        con, cache = duckdb.connect(str(path), read_only=True), rp.PartCache(folder)
        try:
            data = downloads.download(con, sd.marts(con), "dim_runs", "csv", cache).read_bytes()
            cache.keep_only_used()
            return data, cache.count(downloads.SEGMENT_KIND), cache.count("download")
        finally:
            con.close()

    def one_copy():  # the same rows, one COPY
        out = tmp_path / f"copy-{next(fresh_caches)}.csv"
        con = duckdb.connect(str(path), read_only=True)
        con.execute(f"copy (select * from marts.dim_runs order by run_id, run_id, host_id, note, value) to '{out}' "
                    "(FORMAT csv, HEADER true)")
        con.close()
        return out.read_bytes()

    first, (reused, written), _ = build()
    assert reused == 0 and written >= 4, written
    assert first == one_copy() and first.startswith(b"run_id,host_id,note,value\n")
    assert build() == (first, (0, 0), (1, 0)), "from the cache, its segments kept"
    con = duckdb.connect(str(path))
    con.execute("insert into marts.dim_runs values ('run-0150x', 'host 9', 'new', 1.5), ('run-0150x', 'host 9', null, 2.5)")
    con.close()
    added, (reused, written), _ = build()
    assert written == 1 and reused >= 3, (reused, written)
    assert added == one_copy() == build(tmp_path / f"fresh-{next(fresh_caches)}")[0]


def test_sweep_summaries_view_leaves_device_pairs_to_the_warehouse_past_the_limit(tmp_path, monkeypatch):
    """fct_sweep_quotient_summaries is a view whose device pairs summarise fct_device_quotients
    (a view too). While the pairs number at most SITE_DB_MAX_ROWS, /compare's per-device
    files hold both families; past it they hold the condition pairs only, the index says so,
    and neither the catalog's count nor the SQL console's copy computes the view."""
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("create schema base")
    con.execute("create table base.pairs as select * from (values ('ssd', 'hdd'), ('hdd', 'ssd'), ('ssd', 'nvme'), "
                "('nvme', 'ssd'), ('hdd', 'nvme'), ('nvme', 'hdd')) v(device_a_id, device_b_id)")
    con.execute("create view marts.fct_device_quotients as select * from base.pairs")
    con.execute("""create table base.summaries as select * from (values
        ('ssd', 'hdd', 'device', 2.0), ('hdd', 'ssd', 'device', 0.5), ('ssd', 'ssd', 'condition', 1.1))
        v(device_a_id, device_b_id, comparison_family, quotient_geomean)""")
    con.execute("create view marts.fct_sweep_quotient_summaries as select * from base.summaries")
    con.execute("create table marts.fct_condition_quotients as select 'ssd' as device_id, 'page_size' as varied_condition")
    con.execute("create table marts.dim_devices as select * from (values ('hdd'), ('nvme'), ('ssd')) v(device_id)")
    con.close()
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    monkeypatch.setenv("IOPSCOPE_SITE_PAGES_DIR", str(tmp_path / "pages-cache"))
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    pages = importlib.import_module("_device_pages")

    def sweeps():
        con = sd.connect()
        try:
            catalog = sd.marts(con)
            index = pages.index_payload(con, catalog, "sweep_summaries")
            index["devices"] = pages.device_ids(con, catalog, "sweep_summaries")
            files = {d: p for d, p in pages.device_payloads(con, catalog, "sweep_summaries")}
            return index, files, sd.counted_rows(con, "fct_sweep_quotient_summaries")
        finally:
            con.close()

    def families(payload):
        data = payload["data"]["comparison_family"]
        return sorted(data if isinstance(data, list) else [data["dict"][c] for c in data["codes"]])

    index, files, rows = sweeps()
    assert index["device_pairs_left_out"] is False and set(index["devices"]) == {"ssd", "hdd"}
    assert families(files["ssd"]) == ["condition", "device"] and rows == 3
    # the pages loader writes a line for each device with rows (not nvme), where the index says
    con = sd.connect()
    catalog = sd.marts(con)
    written = dict(pages.members(con, catalog, pages.file_cache()))
    con.close()
    written_index = json.loads(written["sweep_summaries.json"])
    assert list(written_index["devices"]) == ["hdd", "ssd"]
    start, end = written_index["devices"]["hdd"]
    assert families(json.loads(written["sweep_summaries.jsonl"].read_bytes()[start:end])) == ["device"]
    monkeypatch.setattr(sd, "SITE_DB_MAX_ROWS", 5)  # 6 pairs: past the limit
    index, files, rows = sweeps()
    assert index["device_pairs_left_out"] is True and set(index["devices"]) == {"ssd"}, "hdd had device pairs only"
    assert families(files["ssd"]) == ["condition"]
    assert rows is None, "not counted: counting the view would summarise every pair"
    left_out = sd.write_site_database_for_browser(tmp_path / "site.duckdb", max_rows=5)
    assert {"name": "fct_sweep_quotient_summaries", "rows": None} in left_out
    assert sd.write_site_database_for_browser(tmp_path / "site2.duckdb", max_rows=6) == [], "6 pairs, 3 summaries: copied"


def test_condition_quotients_download_is_cut_by_device(tmp_path):
    """fct_condition_quotients (no page reads it by key; every row one device's) is served in
    parts by device: each device's rows in one part, catalog.json and _paths.py name the same
    parts, run_marts.json leaves it out, and a change to one device's rows rewrites one part."""
    import pyarrow.parquet as pq

    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("""create table marts.fct_condition_quotients as
        select 'dev-' || lpad((i // 10)::varchar, 3, '0') as device_id, 'page_size' as varied_condition,
               i % 10 as k, i * 0.5 as quotient from range(0, 400) t(i)""")
    con.close()
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(path), "IOPSCOPE_SITE_PART_ROWS": "400",  # parts of ~50 rows
           "IOPSCOPE_SITE_PARTS_DIR": str(tmp_path / "parts"), "PYTHONPATH": str(ROOT / "ingest")}

    def build():
        done = subprocess.run([sys.executable, str(DATA / "marts.zip.py")], env=env, capture_output=True, check=True, cwd=ROOT)
        archive = zipfile.ZipFile(io.BytesIO(done.stdout))
        parts = {n: archive.read(n) for n in archive.namelist() if n.startswith("fct_condition_quotients/")}
        return parts, json.loads(archive.read("run_marts.json")), done.stderr.decode(), json.loads(archive.read("parts.json"))

    parts, index, log, in_parts = build()
    assert len(parts) >= 3 and "fct_condition_quotients.parquet" not in parts
    assert "fct_condition_quotients" not in {m["name"] for m in index["marts"]}, "the run page does not read it"
    devices = {}
    for name, data in parts.items():
        table = pq.read_table(io.BytesIO(data))
        assert table.num_rows <= 100
        for device in set(table.column("device_id").to_pylist()):
            devices.setdefault(device, []).append(name)
    assert len(devices) == 40 and all(len(files) == 1 for files in devices.values()), "each device in one part"
    assert sum(pq.read_metadata(io.BytesIO(d)).num_rows for d in parts.values()) == 400
    assert in_parts["fct_condition_quotients"]["key"] == "device_id"
    assert {p["file"] for p in in_parts["fct_condition_quotients"]["parts"]} == set(parts)
    paths = json.loads(subprocess.run([sys.executable, str(DATA / "_paths.py")], env=env, capture_output=True, check=True).stdout)
    assert {p for p in paths if p.startswith("/data/marts/fct_condition_quotients/")} == {f"/data/marts/{n}" for n in parts}

    con = duckdb.connect(str(path))
    con.execute("update marts.fct_condition_quotients set quotient = -1 where device_id = 'dev-017'")
    con.close()
    changed, _, log, _ = build()
    assert set(changed) == set(parts)
    assert [n for n in parts if changed[n] != parts[n]] == devices["dev-017"]
    assert f"{len(parts) - 1} Parquet files from the part cache, 1 written" in log


def _stamped_warehouse(tmp_path, monkeypatch):
    """The loaders' part modules and the path of an empty warehouse file the loaders read
    (for _stamped_sql)."""
    monkeypatch.syspath_prepend(str(DATA))
    path = tmp_path / "wh.duckdb"
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    return importlib.import_module("_run_parquet"), importlib.import_module("_sitedata"), path


def test_sample_marts_parts_are_fingerprinted_by_run_within_a_generation(tmp_path, monkeypatch):
    """planned_parts' fingerprints: a mart incremental by run (its rows carry run_fingerprint) is
    fingerprinted by its rows' (run_id, run_fingerprint) while the warehouse is the file its
    build stamped (iopscope/build_stamp.py), else by every column of every row."""
    from iopscope import build_stamp

    rp, sd, path = _stamped_warehouse(tmp_path, monkeypatch)

    def build(statements):
        con = duckdb.connect(str(path))
        for sql in statements:
            con.execute(sql)
        con.close()

    def fingerprints():
        con = duckdb.connect(str(path), read_only=True)
        catalog = sd.marts(con)
        planned = rp.planned_parts(con, catalog, "fct_cpu_samples", "run_id", target_rows=100)
        assert [part for part, _ in planned] == rp.plan_parts(con, "fct_cpu_samples", "run_id", target_rows=100)
        con.close()
        return {part.file: fingerprint for part, fingerprint in planned}

    build(["create schema marts",
           "create table marts.fct_cpu_samples as select 'run-' || lpad((i // 10)::varchar, 3, '0') as run_id, "
           "'fp-' || (i // 10)::varchar as run_fingerprint, i * 0.5 as value from range(0, 400) t(i)"])
    build_stamp.write(path, "key", "lake", "gen-1")
    assert sd.warehouse_generation() == "key/gen-1"
    by_run = fingerprints()
    assert len(by_run) >= 3

    # an update that rebuilt no run leaves every fingerprint; rows whose run fingerprint did not
    # change are, within a generation, the rows that were there (the update never touched them)
    build(["update marts.fct_cpu_samples set value = value + 1 where run_id = 'run-007'"])
    build_stamp.write(path, "key", "lake", "gen-1")
    assert fingerprints() == by_run
    # a run rebuilt from changed raw files: the part holding it, alone
    build(["update marts.fct_cpu_samples set run_fingerprint = 'fp-new' where run_id = 'run-007'"])
    build_stamp.write(path, "key", "lake", "gen-1")
    changed = fingerprints()
    assert len([f for f in by_run if changed[f] != by_run[f]]) == 1
    # another generation (a full build): every part anew
    build_stamp.write(path, "key", "lake", "gen-2")
    assert not set(fingerprints().values()) & set(changed.values())
    # a file nobody stamped (written since the stamp): every column hashed, so any change shows
    build(["update marts.fct_cpu_samples set value = value + 1 where run_id = 'run-011'"])
    assert sd.warehouse_generation() is None
    hashed = fingerprints()
    build(["update marts.fct_cpu_samples set value = value - 1 where run_id = 'run-011'"])
    assert fingerprints() != hashed and not set(hashed.values()) & set(changed.values())


def _stamped_sql(path, sql: str, stamp: bool = True) -> None:
    """Run ``sql`` on the warehouse file, then stamp it as its build's (generation gen-1) unless
    ``stamp`` is false (a file written since its build)."""
    from iopscope import build_stamp

    with duckdb.connect(str(path)) as con:
        con.execute(sql)
    if stamp:
        build_stamp.write(path, "key", "lake", "gen-1")


def _part_fingerprints(rp, sd, path, mart: str, key: str) -> dict:
    """{part file: fingerprint} of ``mart`` cut by ``key`` into parts of ~100 rows."""
    with duckdb.connect(str(path), read_only=True) as con:
        catalog = sd.marts(con)
        planned = rp.planned_parts(con, catalog, mart, key, target_rows=100)
        assert [part for part, _ in planned] == rp.plan_parts(con, mart, key, target_rows=100)
        return {part.file: fingerprint for part, fingerprint in planned}


def test_rows_rebuilt_on_every_build_are_fingerprinted_whole_the_others_by_run(tmp_path, monkeypatch):
    """fct_tpcc_intervals (REBUILT_ROWS_OF_RUN_MARTS): its published rows, selected again by every
    build, are hashed column by column, so a change to one shows in its part's fingerprint
    though its run fingerprint stayed; a measured row is hashed by its run, within a generation."""
    rp, sd, path = _stamped_warehouse(tmp_path, monkeypatch)

    def build(sql):
        _stamped_sql(path, sql)

    def fingerprints():
        return _part_fingerprints(rp, sd, path, "fct_tpcc_intervals", "run_id")

    build("create schema marts; create table marts.fct_tpcc_intervals as select "
          "case when i < 40 then 'published-study' else 'run-' || lpad((i // 10)::varchar, 3, '0') end as run_id, "
          "case when i < 40 then 'published' else 'measured' end as source_kind, "
          "'fp-' || (i // 10)::varchar as run_fingerprint, i * 0.5 as new_order_per_min from range(0, 400) t(i)")
    before = fingerprints()
    assert len(before) >= 3
    # a measured row changed without its run being rebuilt: not an update's doing, not looked at
    build("update marts.fct_tpcc_intervals set new_order_per_min = -1 where run_id = 'run-020'")
    assert fingerprints() == before
    # a published row changed by the build that selected it again: its part, alone
    build("update marts.fct_tpcc_intervals set new_order_per_min = -1 where run_id = 'published-study' and new_order_per_min = 3")
    after = fingerprints()
    assert [f for f in before if after[f] != before[f]] == [next(iter(before))]
    # a measured run rebuilt: its part changes
    build("update marts.fct_tpcc_intervals set run_fingerprint = 'fp-new' where run_id = 'run-030'")
    assert len([f for f in after if fingerprints()[f] != after[f]]) == 1


def test_device_local_marts_are_fingerprinted_by_device_within_a_generation(tmp_path, monkeypatch):
    """fct_condition_quotients (DEVICE_LOCAL_MARTS): a part's fingerprint follows its rows'
    (device_id, device_fingerprint) within a generation; a row without a device is hashed whole;
    outside a generation every column is hashed."""
    rp, sd, path = _stamped_warehouse(tmp_path, monkeypatch)

    def build(sql, stamp=True):
        _stamped_sql(path, sql, stamp)

    def fingerprints():
        return _part_fingerprints(rp, sd, path, "fct_condition_quotients", "device_id")

    build("create schema marts; create table marts.fct_condition_quotients as select "
          "case when i < 390 then 'dev-' || lpad((i // 10)::varchar, 3, '0') end as device_id, "
          "'fp-' || (i // 10)::varchar as device_fingerprint, i * 0.5 as quotient from range(0, 400) t(i)")
    before = fingerprints()
    assert len(before) >= 3
    # a row changed while its device's fingerprint did not: no update does that, not looked at
    build("update marts.fct_condition_quotients set quotient = -1 where device_id = 'dev-020'")
    assert fingerprints() == before
    # a device rebuilt: its part alone
    build("update marts.fct_condition_quotients set device_fingerprint = 'fp-new' where device_id = 'dev-030'")
    after = fingerprints()
    assert len([f for f in before if after[f] != before[f]]) == 1
    # a row without a device is hashed whole: its (last) part changes
    build("update marts.fct_condition_quotients set quotient = -2 where device_id is null and quotient = 195")
    changed = fingerprints()
    assert [f for f in after if changed[f] != after[f]] == [list(after)[-1]]
    # no stamp (a file written since): every column of every row
    build("update marts.fct_condition_quotients set quotient = -3 where device_id = 'dev-020'", stamp=False)
    assert not set(fingerprints().values()) & set(changed.values())


def test_marts_fingerprinted_by_run_are_rebuilt_only_with_their_run(monkeypatch):
    """RUN_LOCAL_MARTS are incremental by run in dbt_project.yml (an update leaves the rows of
    every other run as they were), carry run_fingerprint, and fct_tpcc_intervals, whose
    published series are rebuilt on every build, is not among them: it is fingerprinted by run
    except for the rows its model selects on every build (REBUILT_ROWS_OF_RUN_MARTS)."""
    import yaml

    monkeypatch.syspath_prepend(str(DATA))
    rp = importlib.import_module("_run_parquet")
    marts = yaml.safe_load((ROOT / "dbt_project.yml").read_text())["models"]["iopscope"]["marts"]
    by_run = yaml.safe_load((ROOT / "dbt_project.yml").read_text())["models"]["iopscope"]["intermediate"]["int_tpcc_runs_summarized"]
    for name in rp.RUN_LOCAL_MARTS:
        assert marts.get(name) == by_run, f"{name} is not incremental by run"
        assert "run_fingerprint" in (ROOT / "models" / "marts" / f"{name}.sql").read_text()
    assert "fct_tpcc_intervals" not in rp.RUN_LOCAL_MARTS
    assert "source_kind = 'published'" in (ROOT / "models" / "marts" / "fct_tpcc_intervals.sql").read_text()
    assert set(rp.REBUILT_ROWS_OF_RUN_MARTS) == {"fct_tpcc_intervals"}
    for name, rebuilt in rp.REBUILT_ROWS_OF_RUN_MARTS.items():
        assert marts.get(name) == by_run, f"{name} is not incremental by run"
        sql = (ROOT / "models" / "marts" / f"{name}.sql").read_text()
        assert "run_fingerprint" in sql and "source_kind = 'published'" in rebuilt
    for name, column in rp.DEVICE_LOCAL_MARTS.items():  # incremental by device, carrying its fingerprint
        sql = (ROOT / "models" / "marts" / f"{name}.sql").read_text()
        assert "materialized='incremental'" in sql and "delete_rows_of_changed_keys(ref('int_device_fingerprints')" in sql
        assert f"as {column}" in sql


def test_query_payload_through_arrow_gives_the_bytes_of_the_row_tuples(monkeypatch):
    """query_payload reads columns through Arrow when every type allows it: the JSON must be the
    bytes the row tuples give (NaN and infinities null, HUGEINT an int, a zoned timestamp the
    same UTC text, repeated strings dictionary-encoded); a UUID column takes the tuples' path."""
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    con = duckdb.connect()
    con.execute("set TimeZone = 'America/New_York'")
    sql = ("select 'dev-' || (i % 3)::varchar as device, case when i % 4 = 0 then null else 'r' || i::varchar end as run, "
           "case i % 5 when 0 then 'nan'::double when 1 then 'inf'::double when 2 then null else i / 7 end as x, "
           "(i * 1e20)::hugeint as big, i % 2 = 0 as even, (i - 5)::tinyint as small, "
           "timestamptz '2026-11-29 01:02:03.456789+00' + to_seconds(i) as at, date '2026-01-01' + i::integer as day, "
           "timestamp '2026-11-29 01:02:03' as naive from range(0, 40) t(i)")

    def both(query):
        monkeypatch.setattr(sd, "_ARROW_TYPES", frozenset())
        by_rows = sd.json_bytes(sd.query_payload(con, "t", query))
        monkeypatch.undo()
        monkeypatch.syspath_prepend(str(DATA))
        return by_rows, sd.json_bytes(sd.query_payload(con, "t", query))

    by_rows, by_arrow = both(sql)
    assert by_rows == by_arrow
    payload = json.loads(by_arrow)
    assert payload["data"]["device"]["dict"] == ["dev-0", "dev-1", "dev-2"] and payload["data"]["big"][3] == 3 * 10**20
    assert payload["data"]["x"][:3] == [None, None, None] and payload["data"]["at"][0] == "2026-11-29T01:02:03.456789Z"
    with_uuid = f"select *, uuid() is not null as u, '00000000-0000-0000-0000-000000000001'::uuid as id from ({sql})"
    by_rows, by_arrow = both(with_uuid)
    assert by_rows == by_arrow and json.loads(by_arrow)["data"]["id"]["dict"] == ["00000000-0000-0000-0000-000000000001"]


def test_digests_by_key_in_two_scans_equal_the_hashed_row_expression(tmp_path, monkeypatch):
    """_digests_by_key splits the rows hashed whole from those hashed by key into two scans; its
    counts and sums must be those of hashed_row() over every row (the part cache's fingerprints
    carry them: another sum would rewrite every part once, a wrong one would keep a stale part)."""
    rp, sd, path = _stamped_warehouse(tmp_path, monkeypatch)
    _stamped_sql(path, "create schema marts; "
                 "create table marts.fct_condition_quotients as select "
                 "case when i % 7 = 0 then null else 'dev-' || (i % 13)::varchar end as device_id, "
                 "case when i % 11 = 0 then null else 'fp-' || (i % 5)::varchar end as device_fingerprint, "
                 "i * 0.25 as quotient from range(0, 500) t(i); "
                 "create table marts.fct_tpcc_intervals as select "
                 "case when i % 9 = 0 then 'published-x' else 'run-' || (i % 17)::varchar end as run_id, "
                 "case when i % 9 = 0 then 'published' when i % 4 = 0 then null else 'measured' end as source_kind, "
                 "'fp-' || (i % 3)::varchar as run_fingerprint, i as tpm from range(0, 500) t(i)")
    with duckdb.connect(str(path), read_only=True) as con:
        catalog = sd.marts(con)
        generation = sd.warehouse_generation()
        assert generation
        for mart, key in (("fct_condition_quotients", "device_id"), ("fct_tpcc_intervals", "run_id")):
            relation = f"marts.{mart}"
            split = con.execute(f"select {key}, n::bigint, total::varchar from "
                                f"{rp._digests_by_key(catalog, mart, generation, relation, key)}").fetchall()
            one = con.execute(f"select {key}, count(*)::bigint, sum({rp.hashed_row(catalog, mart, generation)})::varchar "
                              f"from {relation} group by 1").fetchall()
            assert sorted(split, key=str) == sorted(one, key=str) and len(one) > 10, mart
            assert "case when" in rp.hashed_row(catalog, mart, generation)


def test_a_marts_digests_are_read_once_per_connection_and_a_temporary_tables_every_time(monkeypatch):
    """A keyed mart's parts and its CSV's segments hash the same rows by the same key, and its
    CSV and Parquet downloads the same rows whole: one scan each per loader connection. Not so
    for other relations (the pages loader refills one temporary table for query after query),
    nor across connections."""
    rp, sd, con = _loader_modules_and_samples(monkeypatch)
    catalog = sd.marts(con)
    scans = []

    class Counting:   # the connection, counting the statements that hash rows
        def execute(self, sql, *args):
            if "hash(" in sql:
                scans.append(sql)
            return con.execute(sql, *args)

    counted = Counting()
    planned = rp.planned_parts(counted, catalog, "fct_samples", "run_id", target_rows=200)
    # the relation as _downloads names it
    segments = rp.plan_segments(counted, "fct_samples.csv", f"{sd.MARTS_SCHEMA}.{sd.quote_ident('fct_samples')}", "run_id",
                                [c["name"] for c in catalog["fct_samples"]["columns"]], 200, of_mart=True)
    assert len(scans) == 1, scans
    assert len(planned) >= 5 and [(p.first, p.end) for p, _ in planned] == [(p.first, p.end) for p, _, _ in segments]
    whole = [rp.download_fingerprint(counted, catalog, "fct_samples", fmt) for fmt in ("csv", "parquet")]
    assert len(scans) == 2 and whole[0] != whole[1], "one scan for both formats, each its own fingerprint"
    # a temporary table refilled between two digests: read each time
    con.execute("create temporary table rows_now as select 1 as x")
    first = rp.row_digests(counted, "temp.rows_now", ["x"])
    con.execute("create or replace temporary table rows_now as select 2 as x")
    assert rp.row_digests(counted, "temp.rows_now", ["x"]) != first
    # another connection reads for itself
    other = Counting()
    rp.planned_parts(other, catalog, "fct_samples", "run_id", target_rows=200)
    assert len(scans) == 5, scans

"""The physical floor of a warehouse build and of the site's Parquet: DuckDB reading and writing
the same rows, nothing else (no model logic, no tests, no dbt).

    python bench/floor.py --lake <lake> --warehouse <iopscope.duckdb> --work <scratch dir>

Three steps, each timed (wall and CPU of this process) with the bytes this process read
(``rchar``: from the page cache or the disk) and read from the disk itself (``read_bytes``),
from /proc/self/io:

* ``read_lake``: every lake table read whole (``read_parquet`` over its Hive-partitioned
  files, as the staging models do) and its rows counted and hashed, so every column is decoded;
* ``copy_lake``: the same rows written into a fresh DuckDB file (a build reads the lake and
  writes at least as many rows: what a model-free build would cost);
* ``write_marts``: every mart of the built warehouse copied into a fresh DuckDB file (the
  build's output rows written once), and ``marts_parquet``: every mart written as zstd Parquet
  (the site's download files, without the sorting and page index of the keyed ones).

Prints one JSON object. The benchmark (bench/run.py, section ``floor``) runs it beside a full
warehouse build of the same lake, with the same DuckDB memory cap and threads.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import time
from pathlib import Path

import duckdb


def io_counters() -> dict[str, int]:
    counters = {}
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            name, value = line.split(":")
            counters[name.strip()] = int(value)
    except OSError:
        pass
    return counters


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(name: str, results: dict, fn) -> None:
    io0, cpu0, t0 = io_counters(), cpu_s(), time.perf_counter()
    detail = fn()
    io1 = io_counters()
    results[name] = {"wall_s": round(time.perf_counter() - t0, 3), "cpu_s": round(cpu_s() - cpu0, 3),
                     "read_mb": round((io1.get("rchar", 0) - io0.get("rchar", 0)) / 1e6, 1),
                     "disk_read_mb": round((io1.get("read_bytes", 0) - io0.get("read_bytes", 0)) / 1e6, 1),
                     "disk_write_mb": round((io1.get("write_bytes", 0) - io0.get("write_bytes", 0)) / 1e6, 1),
                     **(detail or {})}


def lake_tables(lake: Path) -> list[str]:
    """Tables of the lake: folders holding Hive partitions (collection=...)."""
    return sorted(p.name for p in lake.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and any(c.name.startswith("collection=") for c in p.iterdir()))


def lake_source(lake: Path, table: str) -> str:
    glob = str(lake / table / "*" / "*.parquet").replace("'", "''")
    return f"read_parquet('{glob}', hive_partitioning = true, union_by_name = true)"


def configure(con) -> None:
    # the warehouse build's own settings (profiles.yml): threads and memory cap
    con.execute(f"set memory_limit = '{os.environ.get('IOPSCOPE_DUCKDB_MEMORY_LIMIT', '3GB')}'")
    if os.environ.get("IOPSCOPE_DUCKDB_THREADS"):
        con.execute(f"set threads = {int(os.environ['IOPSCOPE_DUCKDB_THREADS'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lake", type=Path, required=True)
    ap.add_argument("--warehouse", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    results: dict = {}
    tables = lake_tables(args.lake)

    def read_lake():
        con = duckdb.connect()
        configure(con)
        rows = 0
        for table in tables:
            # a hash sum per column: every column decoded, one row out
            rows += con.execute(f"select count(*), sum(hash(columns(*))) from {lake_source(args.lake, table)}").fetchone()[0]
        con.close()
        return {"tables": len(tables), "rows": rows}

    def copy_lake():
        target = args.work / "lake-copy.duckdb"
        con = duckdb.connect(str(target))
        configure(con)
        for table in tables:
            con.execute(f'create table "{table}" as select * from {lake_source(args.lake, table)}')
        con.execute("checkpoint")
        con.close()
        return {"file_mb": round(target.stat().st_size / 1e6, 3)}

    def marts() -> list[str]:
        con = duckdb.connect(str(args.warehouse), read_only=True)
        names = [n for (n,) in con.execute("select table_name from duckdb_tables() where schema_name = 'marts' order by 1").fetchall()]
        con.close()
        return names

    mart_names = marts()

    def write_marts():
        target = args.work / "marts-copy.duckdb"
        con = duckdb.connect(str(target))
        configure(con)
        con.execute(f"attach '{args.warehouse}' as wh (read_only)")
        rows = 0
        for name in mart_names:
            con.execute(f'create table "{name}" as select * from wh.marts."{name}"')
            rows += con.execute(f'select count(*) from "{name}"').fetchone()[0]
        con.execute("checkpoint")
        con.close()
        return {"marts": len(mart_names), "rows": rows, "file_mb": round(target.stat().st_size / 1e6, 3)}

    def marts_parquet():
        folder = args.work / "marts-parquet"
        folder.mkdir()
        con = duckdb.connect(str(args.warehouse), read_only=True)
        configure(con)
        for name in mart_names:
            out = str(folder / f"{name}.parquet").replace("'", "''")
            con.execute(f"copy (select * from marts.\"{name}\") to '{out}' (format parquet, compression zstd)")
        con.close()
        files = list(folder.iterdir())
        return {"files": len(files), "files_mb": round(sum(p.stat().st_size for p in files) / 1e6, 3)}

    timed("read_lake", results, read_lake)
    timed("copy_lake", results, copy_lake)
    timed("write_marts", results, write_marts)
    timed("marts_parquet", results, marts_parquet)
    shutil.rmtree(args.work, ignore_errors=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()

"""The whole-mart downloads of the Data page (data/marts/<mart>.csv and .parquet): each from the
part cache beside the warehouse while the mart's rows are those of the build that wrote it
(_run_parquet.download_fingerprint), else written again by DuckDB.

A CSV of a mart that grows a row or more per run (dim_runs, dim_run_files, fct_tpcc_results,
fct_device_capabilities, ...: every mart a page reads by key) and holds more than
CSV_SEGMENT_ROWS rows is joined from segments instead: its rows cut into key ranges
(_run_parquet.plan_digested, the rule of the marts' parts and of the pages' segments: one more
run changes the range it sorts into and no other), each range's rows written by DuckDB without a
header into the cache under a fingerprint of its rows (``<fp>.csvseg``), and the download the
header DuckDB writes for the mart followed by the segments in key order. A CSV is rows one after
the other, so the joined file is what one COPY of the same rows in the same order writes. One
more run at 10,000 runs wrote each of those CSVs whole again: dim_run_files.csv (44,000 rows),
fct_tpcc_results.csv, dim_runs.csv and fct_device_capabilities.csv took 0.05-0.07 s each.
Rows come out by key, then by every column (a total order: the same rows give the same bytes).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import _run_parquet as rp
import _sitedata as sd

# Rows per segment of a segmented CSV (about: ranges are cut by key hashes); a mart of at most
# this many rows is one COPY.
CSV_SEGMENT_ROWS = 4096
SEGMENT_KIND = "download segment"
_TEMP = "download_segment_rows"


def csv_segment_rows() -> int:
    """CSV_SEGMENT_ROWS, or $IOPSCOPE_CSV_SEGMENT_ROWS (tests cut small marts with it)."""
    return int(os.environ.get("IOPSCOPE_CSV_SEGMENT_ROWS") or CSV_SEGMENT_ROWS)


def download(con, catalog: dict, name: str, fmt: str, cache: rp.PartCache) -> Path:
    """The Path of the download ``<name>.<fmt>`` in ``cache``, written first when its rows
    changed since the build that wrote it."""
    key = rp.key_of(catalog, name)
    if fmt == "csv" and key is not None:
        path = _segmented_csv(con, catalog, name, key, cache)
        if path is not None:
            return path
    return cache.get_or_write(rp.download_fingerprint(con, catalog, name, fmt),
                              lambda out: sd.mart_file_path(con, name, fmt, out),
                              suffix=f".{fmt}", kind="download", label=f"{name}.{fmt}")


def _segmented_csv(con, catalog: dict, name: str, key: str, cache: rp.PartCache) -> Path | None:
    """The CSV of ``name`` joined from segments by ``key`` (module docstring), or None for a
    mart of one segment (one COPY writes it)."""
    import duckdb

    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}"
    columns = [c["name"] for c in catalog[name]["columns"]]
    planned = rp.plan_segments(con, f"{name}.csv", mart, key, columns, csv_segment_rows(), of_mart=True)
    if len(planned) <= 1:
        return None
    order = ", ".join([f"{sd.quote_ident(key)} asc nulls last", *(f"{sd.quote_ident(c)} asc nulls last" for c in columns)])
    shape = [rp.DOWNLOAD_FORMAT_VERSION, duckdb.__version__, name, "csv", sd.mart_file_options("csv"),
             [[c["name"], c["type"]] for c in catalog[name]["columns"]], key, order]

    def copy(select: str, params: list, out: Path, header: bool) -> None:
        # a temporary table takes the parameters COPY cannot
        con.execute(f"create or replace temporary table {_TEMP} as {select}", params)
        try:
            literal = "'" + str(out).replace("'", "''") + "'"
            con.execute(f"copy temp.{_TEMP} to {literal} (FORMAT csv, HEADER {'true' if header else 'false'})")
        finally:
            con.execute(f"drop table if exists temp.{_TEMP}")

    def write_segment(part: rp.Part, out: Path) -> None:
        where, params = rp._part_filter(key, part)
        copy(f"select * from {mart}{where} order by {order}", params, out, header=False)

    def join(paths: list[Path], out: Path) -> None:
        copy(f"select * from {mart} limit 0", [], out, header=True)   # the header line DuckDB writes
        with out.open("ab") as target:
            for path in paths:
                with path.open("rb") as source:
                    shutil.copyfileobj(source, target, 1 << 20)

    return rp.joined_from_segments(cache, planned, shape, write_segment, join, suffix=".csv", segment_suffix=".csvseg",
                                   kind="download", segment_kind=SEGMENT_KIND, label=f"{name}.csv")

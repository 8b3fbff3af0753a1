"""Marts as Parquet files a page reads one run of with HTTP range requests.

The run page (src/components/run-bundle.js) needs one run's rows of each mart that has a
``run_id`` (and the host, device, configuration, study and profile rows they name). Instead of a
JSON file per run written at build, each such mart is written ONCE, as the Parquet file the Data
page offers for download (``data/marts/<mart>.parquet``), laid out so that a reader finds one
run's rows without reading the rest:

* sorted by the mart's key (``run_id``; for the dimensions, the id the runs name), then by the
  columns that order a run's samples in time, so a run's rows are contiguous;
* row groups of ``ROW_GROUP_ROWS`` rows with min/max statistics of the key, so a reader skips
  every row group whose key range cannot hold the run (statistics only on the key: each column
  chunk's statistics cost ~50 footer bytes, and every run page reads the footer);
* the page index (column index + offset index) with pages of at most ``PAGE_ROWS`` rows, so in
  the row group that holds the run the reader fetches only the pages that hold it;
* dictionaries only for text columns and at most ``DICTIONARY_PAGE_BYTES`` each (a reader must
  fetch a column's whole dictionary before any page of it: unique ids and measurements are
  better left plain), zstd-compressed (the browser inflates it with fzstd).

The same rows in the same order give the same bytes (no timestamps are written).
"""

from __future__ import annotations

import re
from pathlib import Path

import _sitedata as sd

ROW_GROUP_ROWS = 262_144
PAGE_ROWS = 1_024
DICTIONARY_PAGE_BYTES = 16_384
# Columns that order a run's rows in time (or along a histogram), after the key: the samples of
# a run then lie in the order the charts draw them, which also compresses best.
_ORDER_FIRST = re.compile(r"(_at|_index|elapsed_s|time_s|time_ms|_ns|_us)$")


def key_of(catalog: dict, name: str) -> str | None:
    """The column a page looks rows of ``name`` up by: ``run_id``, or the id a run's rows name
    for the dimensions of ``sd.DIM_KEYS``; None for marts no page reads by key."""
    if sd.has_column(catalog, name, "run_id"):
        return "run_id"
    if name in sd.DIM_KEYS and sd.has_column(catalog, name, sd.DIM_KEYS[name][0]):
        return sd.DIM_KEYS[name][0]
    return None


def sort_columns(catalog: dict, name: str, key: str) -> list[str]:
    """Key first, then the time-like columns, then every other column in table order (a total
    order, so the file does not depend on how the warehouse happens to store the rows)."""
    columns = [c["name"] for c in catalog[name]["columns"]]
    timelike = [c for c in columns if c != key and _ORDER_FIRST.search(c)]
    rest = [c for c in columns if c != key and c not in timelike]
    return [key, *timelike, *rest]


def write_keyed_parquet(con, catalog: dict, name: str, key: str, folder: Path) -> Path:
    """Write mart ``name`` sorted and row-grouped by ``key`` into ``folder/<name>.parquet``;
    streamed in record batches, so memory holds one batch, not the mart."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    order = ", ".join(f"{sd.quote_ident(c)} asc nulls last" for c in sort_columns(catalog, name, key))
    # a cursor of its own: the streamed result must not meet a caller's unfinished one
    cursor = con.cursor()
    reader = cursor.sql(f"select * from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)} order by {order}").to_arrow_reader(65_536)
    schema = reader.schema
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    out = Path(folder) / f"{name}.parquet"
    with pq.ParquetWriter(out, schema, compression="zstd", write_statistics=[key], write_page_index=True,
                          max_rows_per_page=PAGE_ROWS, use_dictionary=text or False,
                          dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES, store_schema=False,
                          sorting_columns=[pq.SortingColumn(schema.names.index(key))]) as writer:
        pending = []  # DuckDB hands out batches of at most 122,880 rows: gather a row group's worth
        rows = 0
        for batch in reader:
            pending.append(batch)
            rows += batch.num_rows
            while rows >= ROW_GROUP_ROWS:
                table = pa.Table.from_batches(pending, schema=schema)
                writer.write_table(table.slice(0, ROW_GROUP_ROWS), row_group_size=ROW_GROUP_ROWS)
                rest = table.slice(ROW_GROUP_ROWS)
                pending, rows = rest.to_batches(), rest.num_rows
        if rows:
            writer.write_table(pa.Table.from_batches(pending, schema=schema), row_group_size=ROW_GROUP_ROWS)
    cursor.close()
    return out


# The tool set of a run that names no tool (a published study's figures): such runs fill marts too.
NO_TOOLS = "(none)"


def filled_by_tools(con, catalog: dict, name: str) -> list[str] | None:
    """The tool sets (dim_runs.tools as a sorted, comma-joined set; NO_TOOLS for a run naming
    none) of the runs with rows in mart ``name``, or None when dim_runs has no tools column. A run
    whose tool set is not among them has no rows there, so the run page does not open that file
    (a TPC-C run opens no fio mart, a measured fio run no published-study mart), saving its
    footer and index requests. Whole sets, not single tools: iostat and mpstat run beside every
    kit. Runs missing from dim_runs add nothing: their page has no dim_runs row and reads every
    mart."""
    if name == "dim_runs" or not sd.has_column(catalog, "dim_runs", "tools"):
        return None
    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}"
    rows = con.execute(
        f"select distinct r.tools from (select distinct run_id from {mart}) m "
        f"join {sd.MARTS_SCHEMA}.dim_runs r using (run_id)").fetchall()
    return sorted({tool_set(tools) for (tools,) in rows})


def tool_set(tools: str | None) -> str:
    """A run's tools as the run page compares them (src/components/run-rows.js toolSet)."""
    names = sorted({t.strip() for t in (tools or "").split(",") if t.strip()})
    return ",".join(names) if names else NO_TOOLS


def file_layout(path: Path, key: str) -> dict:
    """Where the run page finds what it reads of the Parquet file at ``path`` before any data
    page, so it asks for all of it in one round trip instead of footer, then page index:
    ``size`` (bytes: the page checks the server states the same, else reads the footer as if it
    had no layout), ``footer`` (offset of the FileMetaData, which runs to the end), and per row
    group ``[first key, last key, column index of key [start, end], offset indexes [start, end]]``
    (end exclusive; null where the file has none). One entry per row group: a few per mart even
    at 10,000 runs (262,144 rows each)."""
    import pyarrow.parquet as pq

    import _parquet_footer as pf

    size, footer, metadata = pf.read_footer(path)
    meta = pq.ParquetFile(path).metadata
    column = meta.schema.names.index(key)
    groups = []
    for i, spans in enumerate(pf.page_index_spans(metadata, key)):
        stats = meta.row_group(i).column(column).statistics
        first, last = (stats.min, stats.max) if stats is not None and stats.has_min_max else (None, None)
        groups.append([_plain(first), _plain(last), spans["column_index"], spans["offset_index"]])
    return {"size": size, "footer": footer, "groups": groups}


def _plain(value):
    """A statistics value as JSON carries it (keys are text or integers)."""
    return value if value is None or isinstance(value, (str, int, float)) else str(value)


def run_marts_index(con, catalog: dict, layouts: dict | None = None) -> dict:
    """What the run page needs to know before reading: the marts it reads by key (name, key
    column, columns and types, row count: a file whose footer disagrees was replaced by another
    build; for run-keyed marts the tools that fill them, :func:`filled_by_tools`; the file's
    layout where ``layouts`` has it, :func:`file_layout`), which dimensions a run's rows point
    to, and the row cap per mart for the browser."""
    layouts = layouts or {}
    marts = []
    for name in catalog:
        key = key_of(catalog, name)
        if key is None:
            continue
        (rows,) = con.execute(f"select count(*) from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}").fetchone()
        columns = [{"name": c["name"], "type": c["type"]} for c in catalog[name]["columns"]]
        marts.append({"name": name, "key": key, "rows": rows, "columns": columns,
                      "tools": filled_by_tools(con, catalog, name) if key == "run_id" else None,
                      "layout": layouts.get(name)})
    dims = {name: {"key": key, "sources": list(sources)} for name, (key, sources) in sd.DIM_KEYS.items()}
    return {"marts": marts, "dims": dims, "run_row_limit": sd.RUN_ROW_LIMIT}

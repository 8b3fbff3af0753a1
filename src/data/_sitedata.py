"""Shared helpers for the site's data loaders. They read the warehouse's ``marts`` schema only.

Every loader in ``src/data/`` imports this module (it sits next to them; Framework ignores files
whose name starts with ``_`` when routing). The warehouse is ``$IOPSCOPE_WAREHOUSE`` (default
``data/warehouse/iopscope.duckdb`` under the project root, which is the loaders' working
directory).

Marts appear as the warehouse grows, so nothing here assumes a mart exists: a missing mart is
reported as ``{"exists": false}`` with no rows, and pages explain the gap instead of failing.

Table payloads are column-oriented JSON (``{"data": {"column": [values...]}}``), which Arquero's
``aq.table`` reads directly and which is smaller than a list of row objects.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import math
import os
import re
import tempfile
import sys
import uuid
import weakref
from pathlib import Path

MARTS_SCHEMA = "marts"
# The marts the site knows how to show. Others that appear are still listed on the Data and
# SQL pages (which read the catalog), they just have no dedicated chart.
KNOWN_MARTS = (
    "dim_runs", "dim_devices", "dim_hosts", "dim_db_configs", "dim_db_config_diffs",
    "dim_load_profiles", "dim_studies", "fct_tpcc_results", "fct_tpcc_intervals",
    "fct_tpcc_tx_summaries", "fct_fio_results", "fct_fio_histograms", "fct_fio_log_samples",
    "fct_iostat_device_samples", "fct_cpu_samples", "fct_published_io_results",
    "fct_device_quotients", "fct_device_capabilities", "fct_tpcc_sweep_knees",
    "fct_condition_quotients", "fct_sweep_quotient_summaries", "fct_scaling_factors", "fct_device_performance",
)
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_SAFE_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def project_root() -> Path:
    return Path(os.environ.get("IOPSCOPE_HOME") or Path(__file__).resolve().parents[2])


def warehouse_path() -> Path:
    env = os.environ.get("IOPSCOPE_WAREHOUSE")
    return Path(env) if env else project_root() / "data" / "warehouse" / "iopscope.duckdb"


def warehouse_generation() -> str | None:
    """The build key and full-build generation of the warehouse while it is the very file a
    build committed (iopscope/build_stamp.py), else None."""
    from iopscope.build_stamp import committed_generation

    return committed_generation(warehouse_path())


def connect():
    """Read-only connection, or None when the warehouse has not been built yet."""
    path = warehouse_path()
    if not path.exists():
        return None
    from iopscope.warehouse import connect as wh_connect

    con = wh_connect(path)
    # The warehouse build's cap (profiles.yml) for the loaders too: at 10,000 runs the marts'
    # sorted Parquet export grew to 8 GiB in one process; capped, DuckDB spills to disk instead.
    spill = Path(tempfile.gettempdir()) / "iopscope-site-spill"
    spill.mkdir(exist_ok=True)
    con.execute(f"set memory_limit = '{os.environ.get('IOPSCOPE_DUCKDB_MEMORY_LIMIT', '3GB')}'")
    con.execute(f"set temp_directory = '{spill}'")
    return con


def run_slug(run_id: str) -> str:
    """URL path segment for a run page: the run id when it is URL- and file-safe, else a hash."""
    if _SAFE_SLUG.match(run_id) and ".." not in run_id:
        return run_id
    return "run-" + hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:16]


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def marts(con) -> dict[str, dict]:
    """name -> {comment, kind, columns: [{name, type, comment}]} for every table in ``marts``."""
    if con is None:
        return {}
    found: dict[str, dict] = {}
    for name, comment, kind in con.execute(
        "select table_name, comment, 'table' from duckdb_tables() where schema_name = ? "
        "union all select view_name, comment, 'view' from duckdb_views() where schema_name = ? "
        "order by 1",
        [MARTS_SCHEMA, MARTS_SCHEMA],
    ).fetchall():
        if _NAME.match(name):
            found[name] = {"comment": comment, "kind": kind, "columns": []}
    for table, column, dtype, comment in con.execute(
        "select table_name, column_name, data_type, comment from duckdb_columns() "
        "where schema_name = ? order by table_name, column_index",
        [MARTS_SCHEMA],
    ).fetchall():
        if table in found:
            found[table]["columns"].append({"name": column, "type": dtype, "comment": comment})
    return found


def clean(value):
    """A JSON-safe value: NaN/Inf become null, dates ISO strings, decimals floats."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        as_float = float(value)
        return as_float if math.isfinite(as_float) else None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat() + "Z"
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def table_payload(con, name: str, where: str = "", params: list | None = None,
                  catalog: dict | None = None) -> dict:
    """One mart (optionally filtered) as column-oriented JSON; ``exists`` false when absent."""
    catalog = marts(con) if catalog is None else catalog
    info = catalog.get(name)
    if info is None:
        return missing_payload(name)
    columns = info["columns"]
    sql = f"select * from {MARTS_SCHEMA}.{quote_ident(name)} {where}"
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    types = [str(d[1]) for d in cur.description]
    data = {n: column_payload(rows, i, t) for i, (n, t) in enumerate(zip(names, types))}
    return {
        "name": name,
        "exists": True,
        "rows": len(rows),
        "columns": [{"name": c["name"], "type": c["type"]} for c in columns],
        "data": data,
    }


# DuckDB types whose Python values are JSON-safe as they come (str, bool, int or None), and the
# float types whose only unsafe values are NaN and the infinities. Every other type goes through
# clean() value by value: at 10,000 runs the per-device files of /compare were 6 million values
# and clean() alone took 7 s of the pages loader's 24.
_SAFE_TYPES = frozenset({"VARCHAR", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                         "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"})
_FLOAT_TYPES = frozenset({"DOUBLE", "FLOAT", "REAL"})


def column_values(rows: list[tuple], i: int, duckdb_type: str) -> list:
    """Column ``i`` of ``rows`` as JSON-safe values (what ``clean`` makes of each), converted
    by what the column's DuckDB type can hold."""
    return json_safe_values([row[i] for row in rows], duckdb_type)


def listed_as_view(catalog: dict, name: str) -> bool:
    """Whether :func:`marts` lists ``name`` as a view (its rows are computed when read)."""
    return catalog[name].get("kind") == "view"


def json_safe_values(values: list, duckdb_type: str) -> list:
    """A column's values as JSON-safe values (the list itself when they are already)."""
    if duckdb_type in _SAFE_TYPES:
        return values
    if duckdb_type in _FLOAT_TYPES:
        isfinite = math.isfinite
        return [v if v is None or isfinite(v) else None for v in values]
    return [clean(v) for v in values]


def column_payload(rows: list[tuple], i: int, duckdb_type: str):
    """Column ``i`` of ``rows`` as a page reads it: JSON-safe values, dictionary-encoded where
    ``encode_column`` does (a VARCHAR column holds only strings and nulls: not checked again)."""
    return encode_column(column_values(rows, i, duckdb_type), all_strings=duckdb_type == "VARCHAR" or None)


def encode_column(values: list, all_strings: bool | None = None):
    """A column as a plain list, or dictionary-encoded ``{"dict": [...], "codes": [...]}`` (code
    -1 = null) when it is all strings repeating at least twice on average: provenance, device
    and run ids repeat on every row, and the pages would otherwise download them thousands of
    times. src/components/data.js decodes both forms. ``all_strings`` true: the caller knows
    every value is a string or None (a VARCHAR column)."""
    if len(values) < 8:
        return values
    if not all_strings and not all(v is None or isinstance(v, str) for v in values):
        return values
    index: dict[str, int] = {}
    for v in values:
        if v is not None and v not in index:
            index[v] = len(index)
    if not index or len(index) * 2 > len(values):
        return values
    return {"dict": list(index), "codes": [-1 if v is None else index[v] for v in values]}


def has_column(catalog: dict, table: str, column: str) -> bool:
    return any(c["name"] == column for c in catalog.get(table, {}).get("columns", []))


def run_ids(con, catalog: dict | None = None) -> list[str]:
    """Every run the marts know: dim_runs when built, else the run ids of the fact marts."""
    catalog = marts(con) if catalog is None else catalog
    if con is None:
        return []
    if has_column(catalog, "dim_runs", "run_id"):
        sources = ["dim_runs"]
    else:
        sources = [t for t in catalog if has_column(catalog, t, "run_id")]
    ids: set[str] = set()
    for table in sources:
        for (rid,) in con.execute(
            f"select distinct run_id from {MARTS_SCHEMA}.{quote_ident(table)} where run_id is not null"
        ).fetchall():
            ids.add(str(rid))
    return sorted(ids)


def write_json(obj) -> None:
    # dumps, not dump: json.dump encodes in Python, piece by piece (154,000 writes for the
    # catalog at 10,000 runs); dumps runs the C encoder in one go
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), allow_nan=False))


def json_bytes(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("utf-8")


# Marts without a run_id (dimensions, mostly), and the run-row columns whose values pick their rows
# (the run page reads them by that key: src/data/_run_parquet.py, src/components/run-bundle.js).
DIM_KEYS = {
    "dim_hosts": ("host_id", ("host_id",)),
    "dim_devices": ("device_id", ("device_id", "data_device_id", "log_device_id", "device")),
    "dim_db_configs": ("config_id", ("config_id", "db_config_id")),
    "dim_studies": ("study_id", ("study_id",)),
    "dim_load_profiles": ("profile_id", ("profile_id", "load_profile_id")),
    # not a dimension, read the same way: the TPC-C sweeps on the run's devices, so that a run page
    # places its run in its sweep from a few rows instead of the whole knee list (1.2 MB of JSON
    # on every run page at 10,000 runs, growing with the archive)
    "fct_tpcc_sweep_knees": ("device_id", ("device_id",)),
}
# The marts whose rows pick a DIM_KEYS entry's rows, where not every mart's do: a fio run's
# devices have no TPC-C sweep to place it in, so its page does not read the knees at all.
DIM_PICKED_BY = {"fct_tpcc_sweep_knees": ("fct_tpcc_results",)}
# A run's rows per mart are capped for the browser; larger sets are thinned evenly (and say so):
# src/components/run-bundle.js applies it, src/data/marts.zip.py hands it over (data/marts/run_marts.json).
RUN_ROW_LIMIT = 20000


def write_site_database(out: Path) -> None:
    """Write the marts as TABLES into a new DuckDB file (see ``_write_site_database``)."""
    _write_site_database(out)


def _write_site_database(out: Path, max_rows: int | None = None) -> list[dict]:
    """Write the marts as TABLES into a new DuckDB file readable by DuckDB 1.0+ and DuckDB-WASM.

    Only the marts: the dbt warehouse also holds staging views over read_parquet of local lake
    paths, which cannot work anywhere but the build machine. STORAGE_VERSION v1.0.0 so
    DuckDB-WASM (DuckDB 1.4) and older CLIs open it. Table and column comments (dbt
    persist_docs) are copied, so the browser can describe every column. With ``max_rows``, a
    mart of more rows is created empty (same columns) and its comment says so; returns those
    marts as [{"name", "rows"}].
    """
    import duckdb

    def literal(text) -> str:
        return "'" + str(text).replace("'", "''") + "'"

    source = connect()
    catalog = marts(source)
    if source is not None:
        source.close()
    con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                                 "autoload_known_extensions": "false"})
    try:
        con.execute(f"attach {literal(out)} as site (storage_version 'v1.0.0')")
        if catalog:
            from iopscope.warehouse import while_locked   # an update in place holds the file for seconds

            while_locked(lambda: con.execute(f"attach {literal(warehouse_path())} as wh (read_only)"))
        # one transaction: each table and each of the ~700 comments was a commit of its own
        # (4.1 -> 2.7 s at 10,000 runs)
        con.execute("begin transaction")
        con.execute("create schema site.marts")
        left_out = []
        for name, info in catalog.items():
            q = quote_ident(name)
            comment = info["comment"]
            rows = None
            if max_rows is not None:
                view = info.get("kind") == "view"
                rows = (max_rows + 1 if summarises_too_many_pairs(con, name, view, max_rows, "wh.marts")
                        else mart_rows_up_to(con, name, view, max_rows, "wh.marts"))
            if rows is not None and rows > max_rows:
                con.execute(f"create table site.marts.{q} as select * from wh.marts.{q} limit 0")
                if info.get("kind") == "view":
                    left_out.append({"name": name, "rows": None})
                    comment = (f"Left out of the site database: more than {max_rows} rows, computed on demand (a view): "
                               "query it, filtered, from the full warehouse with iopscope sql. " + (comment or ""))
                else:
                    left_out.append({"name": name, "rows": rows})
                    comment = (f"Left out of the site database: {rows} rows (more than {max_rows}). Download "
                               f"{name}.parquet from the Data page or query the full warehouse with iopscope sql. "
                               + (comment or ""))
            else:
                con.execute(f"create table site.marts.{q} as select * from wh.marts.{q}")
            if comment:
                con.execute(f"comment on table site.marts.{q} is {literal(comment)}")
            for column in info["columns"]:
                if column["comment"]:
                    con.execute(f"comment on column site.marts.{q}.{quote_ident(column['name'])} "
                                f"is {literal(column['comment'])}")
        con.execute("commit")
        con.execute("detach site")
    finally:
        con.close()
    return left_out


# Types whose values Arrow hands over (to_pylist) as DuckDB's fetchall does, or that clean()
# makes the same text of (a TIMESTAMP WITH TIME ZONE arrives in UTC instead of the session's
# zone: the same instant); HUGEINT arrives as a decimal of scale 0 and is made an int again
# (_ARROW_INTS). UUID, INTERVAL and the nested types are not among them: a query with such a
# column takes the rows as tuples.
_ARROW_INTS = frozenset({"HUGEINT", "UHUGEINT"})
_ARROW_TYPES = _SAFE_TYPES | _FLOAT_TYPES | {"DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"}


def _arrow_values(column, duckdb_type: str) -> list:
    values = column.to_pylist()
    return [None if v is None else int(v) for v in values] if duckdb_type in _ARROW_INTS else values


def query_payload(con, name: str, sql: str, params: list | None = None) -> dict:
    """The rows of any SELECT as column-oriented JSON, in the shape of ``table_payload`` (string
    columns dictionary-encoded where they repeat). For page aggregates: a page ships only the
    columns and rows it draws, not whole marts.

    Read column by column through Arrow when every column's type allows it (``_ARROW_TYPES``):
    fetchall's row tuples, taken apart again into columns, were 0.28 s of the 0.36 s that
    fio_results.json took at 10,000 runs (20,000 rows of 38 columns); the bytes are the same."""
    # a relation: its columns' types are known before it runs, and it runs once, read either way
    relation = con.sql(sql, params=params) if params else con.sql(sql)
    names, types = list(relation.columns), [str(t) for t in relation.types]
    if not all(t in _ARROW_TYPES for t in types):
        return rows_payload(name, names, types, relation.fetchall())
    table = relation.to_arrow_table()
    return columns_payload(name, names, types, [_arrow_values(table.column(i), t) for i, t in enumerate(types)],
                           table.num_rows)


def rows_payload(name: str, names: list[str], types: list[str], rows: list[tuple]) -> dict:
    """Rows (tuples, in the order of ``names``) as ``query_payload`` writes them."""
    return columns_payload(name, names, types, [[row[i] for row in rows] for i in range(len(names))], len(rows))


def columns_payload(name: str, names: list[str], types: list[str], columns: list[list], count: int) -> dict:
    """Columns of ``count`` values each (in the order of ``names``) as ``query_payload`` writes them."""
    data = {n: encode_column(json_safe_values(values, t), all_strings=t == "VARCHAR" or None)
            for n, t, values in zip(names, types, columns)}
    return {"name": name, "exists": True, "rows": count,
            "columns": [{"name": n, "type": t} for n, t in zip(names, types)], "data": data}


# Marts whose rows put devices side by side, and the column that says which study or host a
# row belongs to: devices sharing a group are shown together, so they must not share a colour.
_COLOR_GROUP_MARTS = ("fct_tpcc_results", "fct_fio_results", "fct_published_io_results")


# Colours in src/components/palette.js's PALETTE (tests/python/test_site_loaders.py checks).
PALETTE_SLOTS = 16


def color_slots(device_ids, groups, weights=None, palette: int = PALETTE_SLOTS) -> dict[str, int]:
    """Palette slot per device: greedy colouring of the graph whose edges join devices of one group.

    Devices with the most rows (``weights``) are coloured first, so the most-shown devices get
    the most distinct colours (ties: most neighbours, then id). Each takes, among the
    slots no neighbour holds, the one fewest devices hold so far (ties: the lowest), so devices
    ever shown together differ as long as no group outgrows the palette, every colour is used
    once before any is used twice, and the same data always gives the same slots.

    >>> color_slots(["a", "b", "c", "d", "e"], [{"a", "b", "c"}, {"c", "d"}], {"d": 9}, palette=3)
    {'d': 0, 'c': 1, 'a': 2, 'b': 0, 'e': 1}
    """
    neighbours: dict[str, set[str]] = {d: set() for d in device_ids}
    for group in groups:
        for d in group:
            neighbours.setdefault(d, set()).update(group - {d})
    slots: dict[str, int] = {}
    used = [0] * palette
    weights = weights or {}
    for d in sorted(neighbours, key=lambda d: (-weights.get(d, 0), -len(neighbours[d]), d)):
        taken = {slots[n] for n in neighbours[d] if n in slots}
        free = [s for s in range(max(palette, len(taken) + 1)) if s not in taken]
        slot = min(free, key=lambda s: (used[s] if s < palette else 0, s))
        slots[d] = slot
        if slot < palette:
            used[slot] += 1
    return slots


def device_colors_payload(con, catalog: dict) -> dict:
    """``{exists, slots: {device_id: slot}}`` for src/components/palette.js: one colour per device
    on every page, different for devices of the same study or host."""
    if con is None or "dim_devices" not in catalog:
        return {"exists": False, "slots": {}}
    ids = [d for (d,) in con.execute(f"select device_id from {MARTS_SCHEMA}.dim_devices "
                                     "where device_id is not null order by 1").fetchall()]
    groups: dict[str, set[str]] = {}
    rows: dict[str, int] = {}
    for mart in _COLOR_GROUP_MARTS:
        keys = [c for c in ("study_id", "host_id") if has_column(catalog, mart, c)]
        if not keys or not has_column(catalog, mart, "device_id"):
            continue
        group = f"coalesce({', '.join(keys)}, '')" if len(keys) > 1 else keys[0]
        for key, device, n in con.execute(f"select {group}, device_id, count(*) from {MARTS_SCHEMA}.{mart} "
                                          "where device_id is not null group by all").fetchall():
            groups.setdefault(f"{mart}:{key}", set()).add(device)
            rows[device] = rows.get(device, 0) + n
    return {"exists": True, "slots": color_slots(ids, list(groups.values()), rows)}


_SQL_SECTION = re.compile(r"^## (?:\d+\.\s*)?(?P<title>.+?)\n(?P<body>.*?)(?=^## |\Z)", re.M | re.S)
_SQL_BLOCK = re.compile(r"```sql\n(.*?)```", re.S)


def sql_examples(markdown: str) -> list[dict]:
    r"""The example queries of docs/sql.md as ``[{title, sql}]``: each ``## N. Title`` section's
    first ```sql block. The SQL page offers exactly the queries the docs show and
    tests/python/test_sql_docs.py runs, so the two never drift apart.

    >>> sql_examples("# x\n\n## 1. Top drives\n\ntext\n\n```sql\nselect 1;\n```\n\n## 2. None here\n")
    [{'title': 'Top drives', 'sql': 'select 1;'}]
    """
    out = []
    for section in _SQL_SECTION.finditer(markdown):
        block = _SQL_BLOCK.search(section.group("body"))
        if block:
            out.append({"title": section.group("title").strip(), "sql": block.group(1).strip()})
    return out


def missing_payload(name: str) -> dict:
    """What a page gets for data whose mart is not built: no rows, and it says so."""
    return {"name": name, "exists": False, "rows": 0, "columns": [], "data": {}}


def write_zip_stream(members) -> None:
    """Write a zip archive of (name, bytes or Path) pairs straight to stdout, one member at a time.

    Framework serves each member as its own file (data/marts.zip member x.json ->
    data/marts/x.json), so one loader process produces every per-mart or per-run file. The
    archive is never held in memory as a whole, and a Path member is copied in 1 MiB chunks
    (zipfile writes data descriptors when stdout is a pipe), so a multi-GB CSV costs disk, not
    memory."""
    import shutil
    import zipfile

    # Every member stored, none deflated: the archive stays in Framework's cache and is never
    # shipped (the site serves its members), and the build reads a member from the cache beside
    # it (write_zip_stream_cached), so deflating only cost time: ~1 GB of zstd Parquet took ~25 s
    # and saved nothing; the JSON and CSV members (~55 + ~50 MB at 10,000 runs) ~3 CPU-s a build.
    with zipfile.ZipFile(sys.stdout.buffer, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))  # stable bytes
            info.compress_type = zipfile.ZIP_STORED
            if isinstance(data, Path):
                with data.open("rb") as source, archive.open(info, "w", force_zip64=True) as target:
                    shutil.copyfileobj(source, target, 1 << 20)
            else:
                archive.writestr(info, data)
    sys.stdout.flush()


def mart_file_options(fmt: str) -> str:
    """DuckDB COPY options of a whole-mart download."""
    return "(FORMAT csv, HEADER true)" if fmt == "csv" else "(FORMAT parquet, COMPRESSION zstd)"


def mart_file_path(con, name: str, fmt: str, out: Path) -> Path:
    """One mart written as CSV (header row, UTF-8) or Parquet (zstd) to the file ``out``,
    through DuckDB COPY (the bytes stay on disk)."""
    options = mart_file_options(fmt)
    out = Path(out)
    literal = "'" + str(out).replace("'", "''") + "'"
    con.execute(f"copy (select * from {MARTS_SCHEMA}.{quote_ident(name)}) to {literal} {options}")
    return out


def archive_cache_dir(loader_file: str) -> Path:
    """Where Framework 1.13 caches the members of the archive a loader writes: for
    ``<root>/data/marts.zip.py`` it serves member ``x.json`` as ``/data/marts/x.json`` and keeps
    it in ``<root>/.observablehq/cache/data/marts/x.json``. Every loader lives in ``<root>/data/``."""
    loader = Path(loader_file).resolve()
    root = loader.parents[1]
    archive = loader.name.split(".", 1)[0]
    return root / ".observablehq" / "cache" / loader.parent.relative_to(root) / archive


# Set by sitebuild/loaders.js for the loaders it runs side by side at the start of a build:
# Framework then finds every member fresh in its cache and never reads the archive for one.
CACHE_ONLY_FILE_MEMBERS = "IOPSCOPE_ARCHIVE_FILES_CACHE_ONLY"


def write_zip_stream_cached(members, loader_file: str) -> None:
    """``write_zip_stream``, and each member also written (atomically) where Framework caches it.

    Framework 1.13 inflates an archive member by reading the whole archive again (JSZip): a
    build copying N members of an archive of size S reads N x S bytes (an hour for 1,000 run
    bundles; impossible past 2 GiB). A member already in the cache and newer than the loader is
    "fresh" and only copied: measured 19 s for 1,000 members of 400 KB, 58 s for 10,000 of 40 KB
    (docs/site.md). The cache is cleared before each `iopscope build` of the site
    (pipeline.site), so members never outlive the warehouse they came from.

    The archive is complete when Framework runs the loader itself (`observable preview`, or a
    build whose side-by-side run failed): it inflates a member from the archive when the member
    is not in its cache yet. A build's side-by-side run (``CACHE_ONLY_FILE_MEMBERS`` set) leaves
    the file members (``Path``: the marts' Parquet parts and downloads, 990 MB at 10,000 runs)
    out of the archive: they are in the cache, fresh, and writing them again into an archive
    nobody reads cost the marts loader 1.2 s of its 3.4 s at 10,000 runs. Should Framework ever
    look for one in the archive, it stops with "no such file" naming it: never a wrong file."""
    import shutil

    cache = archive_cache_dir(loader_file)
    files_in_archive = os.environ.get(CACHE_ONLY_FILE_MEMBERS) != "1"

    def cached():
        cache.mkdir(parents=True, exist_ok=True)
        for name, data in members:
            target = cache / name
            target.parent.mkdir(parents=True, exist_ok=True)
            temp = target.with_name(f".{target.name}.{os.getpid()}")
            if isinstance(data, Path):
                try:
                    os.link(data, temp)
                except OSError:
                    shutil.copyfile(data, temp)
                else:
                    # a link keeps the file's mtime (a part cached by an older build): Framework
                    # would find the member older than its loader, "stale", and inflate it from
                    # the archive again (the build used it stale; `observable preview` would not)
                    os.utime(temp)
            else:
                temp.write_bytes(data)
            os.replace(temp, target)  # never a half-written "fresh" member
            if files_in_archive or not isinstance(data, Path):
                yield name, data

    write_zip_stream(cached())


# Above this many rows, or this many values (rows x columns), a mart is offered as Parquet only:
# the sample marts' CSVs run at 350-600 bytes a row (86-156 MB each at 1,000 runs, gigabytes at
# 10,000), and a wide mart under the row limit can be as big (fct_condition_quotients, 52
# columns: 85 MB at 1,000 runs); Parquet holds the same rows in a tenth or less. A CSV of at most
# 1,000,000 values is at most ~20 MB.
CSV_MAX_ROWS = 100_000
CSV_MAX_VALUES = 1_000_000


def is_view(con, name: str) -> bool:
    """True when the mart is a view: its rows are computed when asked (fct_device_quotients,
    whose device pairs grow with the square of the devices under one condition key, and
    fct_sweep_quotient_summaries, which summarises them)."""
    (count,) = con.execute("select count(*) from duckdb_views() where schema_name = ? and view_name = ?",
                           [MARTS_SCHEMA, name]).fetchone()
    return count > 0


def rows_up_to(con, relation: str, view: bool, limit: int) -> int:
    """count(*) of ``relation``; a view is counted only up to ``limit`` + 1 rows, since counting
    it computes every row (device pairs: the square the view exists to avoid)."""
    source = f"(select 1 from {relation} limit {limit + 1})" if view else relation
    (rows,) = con.execute(f"select count(*) from {source}").fetchone()
    return rows


# The views that summarise the device pairs (fct_device_quotients) over sweeps: an aggregate of
# every pair, so counting one up to a limit still computes every pair. The site computes them
# (counts them for the downloads and the SQL console's database, writes /compare's per-device
# files of them) only while the pairs number at most SITE_DB_MAX_ROWS: 3,156 pairs at 1,000
# synthetic runs; 546,404 at 10,000, where summarising them took the pages loader 7.9 s alone and
# one new run's site build 12 s more (docs/performance.md, run 17); 53 million at 100,000, where
# the summaries, then stored, spilled 25 GB (run 16).
PAIR_SUMMARY_VIEWS = ("fct_sweep_quotient_summaries",)


# The device pairs counted up to a limit, per connection: (limit, schema) -> rows. Counting them
# computes up to limit + 1 pairs (0.03 s at 10,000 runs), and each loader asked two to four times
# (the pairs view's own count, then each summary view's check); a loader's connection sees one
# warehouse, which no loader changes.
_PAIR_COUNTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _device_pairs_up_to(con, limit: int, schema: str) -> int:
    """``rows_up_to`` of the fct_device_quotients view, once per connection, limit and schema."""
    counts = _PAIR_COUNTS.setdefault(con, {})
    if (limit, schema) not in counts:
        counts[(limit, schema)] = rows_up_to(con, f"{schema}.fct_device_quotients", True, limit)
    return counts[(limit, schema)]


def mart_rows_up_to(con, name: str, view: bool, limit: int, schema: str = MARTS_SCHEMA) -> int:
    """``rows_up_to`` of mart ``name`` in ``schema``; the device pairs view's count is the one
    :func:`device_pairs_at_most` takes (once per connection, limit and schema)."""
    if view and name == "fct_device_quotients":
        return _device_pairs_up_to(con, limit, schema)
    return rows_up_to(con, f"{schema}.{quote_ident(name)}", view, limit)


def device_pairs_at_most(con, limit: int, schema: str = MARTS_SCHEMA) -> bool:
    """True when the device pairs are stored (a table, as on Spark) or number at most ``limit``,
    so the views of ``PAIR_SUMMARY_VIEWS`` may be computed whole. ``schema``: where the marts are
    on ``con`` ("wh.marts" with the warehouse attached as wh)."""
    if not is_view(con, "fct_device_quotients"):
        return True
    return _device_pairs_up_to(con, limit, schema) <= limit


def summarises_too_many_pairs(con, name: str, view: bool, limit: int, schema: str = MARTS_SCHEMA) -> bool:
    """True for a view of ``PAIR_SUMMARY_VIEWS`` over more than ``limit`` device pairs: too big to
    count (counting it summarises every pair), so it is treated as more than ``limit`` rows."""
    return view and name in PAIR_SUMMARY_VIEWS and not device_pairs_at_most(con, limit, schema)


def counted_rows(con, name: str) -> int | None:
    """The mart's row count, or None for a view of more than ``SITE_DB_MAX_ROWS`` rows (or one
    summarising more device pairs than that, ``PAIR_SUMMARY_VIEWS``): computed on demand, so the site
    neither writes it as a file nor copies it into the SQL console's database (each would compute
    and store every row); it is queried, filtered, from the full warehouse."""
    view = is_view(con, name)
    if summarises_too_many_pairs(con, name, view, SITE_DB_MAX_ROWS):
        return None
    rows = mart_rows_up_to(con, name, view, SITE_DB_MAX_ROWS)
    return None if view and rows > SITE_DB_MAX_ROWS else rows


_UNCOUNTED = object()


def download_formats(con, name: str, rows=_UNCOUNTED) -> tuple[str, ...]:
    """The download formats the site offers for one mart: ("csv", "parquet"), or ("parquet",)
    above ``CSV_MAX_ROWS`` rows or ``CSV_MAX_VALUES`` values (the CLI exports any mart in full:
    see docs/site.md), or none for a mart computed on demand (``counted_rows`` None). ``rows``:
    the mart's ``counted_rows``, when the caller has it."""
    mart = f"{MARTS_SCHEMA}.{quote_ident(name)}"
    if rows is _UNCOUNTED:
        rows = counted_rows(con, name)
    if rows is None:
        return ()
    # the columns as the query binds them: duckdb_columns() lists every column of the warehouse
    # (0.09 s a call, 0.01 s this way; each loader asks for every mart)
    columns = len(con.execute(f"select * from {mart} limit 0").description)
    return ("parquet",) if rows > CSV_MAX_ROWS or rows * columns > CSV_MAX_VALUES else ("csv", "parquet")


# The SQL console loads the site database into the browser's memory (DuckDB-WASM): marts above
# this many rows are left out of it (kept as empty tables whose comment says so): the per-sample
# marts, which were 98% of it (35 MB gzipped at 1,000 runs with only the CPU samples left out).
# Downloads, run bundles and the CLI have every row.
SITE_DB_MAX_ROWS = 100_000


def write_site_database_for_browser(out: Path, max_rows: int = SITE_DB_MAX_ROWS) -> list[dict]:
    """``write_site_database`` with every mart of more than ``max_rows`` rows left empty (same
    columns; its table comment starts "Left out of the site database"), so the file stays small
    enough for DuckDB-WASM. Returns the marts left out: [{"name", "rows"}]."""
    return _write_site_database(out, max_rows)

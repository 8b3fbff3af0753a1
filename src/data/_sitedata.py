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
import sys
import uuid
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
)
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_SAFE_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def project_root() -> Path:
    return Path(os.environ.get("IOPSCOPE_HOME") or Path(__file__).resolve().parents[2])


def warehouse_path() -> Path:
    env = os.environ.get("IOPSCOPE_WAREHOUSE")
    return Path(env) if env else project_root() / "data" / "warehouse" / "iopscope.duckdb"


def connect():
    """Read-only connection, or None when the warehouse has not been built yet."""
    path = warehouse_path()
    if not path.exists():
        return None
    from iopscope.warehouse import connect as wh_connect

    return wh_connect(path)


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
        return {"name": name, "exists": False, "rows": 0, "columns": [], "data": {}}
    columns = info["columns"]
    sql = f"select * from {MARTS_SCHEMA}.{quote_ident(name)} {where}"
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    data = {n: encode_column([clean(row[i]) for row in rows]) for i, n in enumerate(names)}
    return {
        "name": name,
        "exists": True,
        "rows": len(rows),
        "columns": [{"name": c["name"], "type": c["type"]} for c in columns],
        "data": data,
    }


def encode_column(values: list):
    """A column as a plain list, or dictionary-encoded ``{"dict": [...], "codes": [...]}`` (code
    -1 = null) when it is all strings repeating at least twice on average: provenance, device
    and run ids repeat on every row, and the pages would otherwise download them thousands of
    times. src/components/data.js decodes both forms."""
    if len(values) < 8 or not all(v is None or isinstance(v, str) for v in values):
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
    json.dump(obj, sys.stdout, separators=(",", ":"), allow_nan=False)


def write_zip_to_stdout(members) -> None:
    """Write a zip archive of (name, bytes) pairs to stdout. Framework serves each member as
    its own file (data/marts.zip member x.json -> data/marts/x.json), so one loader process
    produces every per-mart or per-run file instead of one process each."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))  # stable bytes
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    sys.stdout.buffer.write(buffer.getvalue())
    sys.stdout.flush()


def mart_file(con, name: str, fmt: str) -> bytes:
    """One mart as CSV (header row, UTF-8) or Parquet (zstd) bytes, through DuckDB COPY."""
    import tempfile

    options = "(FORMAT csv, HEADER true)" if fmt == "csv" else "(FORMAT parquet, COMPRESSION zstd)"
    with tempfile.TemporaryDirectory(prefix="iopscope-site-") as tmp:
        out = Path(tmp) / f"out.{fmt}"
        literal = "'" + str(out).replace("'", "''") + "'"
        con.execute(f"copy (select * from {MARTS_SCHEMA}.{quote_ident(name)}) to {literal} {options}")
        return out.read_bytes()


def json_bytes(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode("utf-8")


# Dimension marts without a run_id, and the run-row columns whose values pick their rows.
DIM_KEYS = {
    "dim_hosts": ("host_id", ("host_id",)),
    "dim_devices": ("device_id", ("device_id", "data_device_id", "log_device_id", "device")),
    "dim_db_configs": ("config_id", ("config_id", "db_config_id")),
    "dim_studies": ("study_id", ("study_id",)),
    "dim_load_profiles": ("profile_id", ("profile_id", "load_profile_id")),
}
# A run's rows per mart are capped for the browser; larger sets are thinned evenly (and say so).
RUN_ROW_LIMIT = 20000


def run_bundle(con, run_id: str, catalog: dict) -> dict:
    """Everything the marts hold about one run: its rows of every mart with a run_id, and the
    dimension rows (host, devices, DB configuration, study, profile) those rows point to."""
    bundle = {"slug": run_slug(run_id), "run_id": run_id, "tables": {}}
    seen_values: dict[str, set] = {}
    for name in catalog:
        if not has_column(catalog, name, "run_id"):
            continue
        table = f"{MARTS_SCHEMA}.{quote_ident(name)}"
        (count,) = con.execute(f"select count(*) from {table} where run_id = ?", [run_id]).fetchone()
        if count == 0:
            continue
        if count > RUN_ROW_LIMIT:
            step = math.ceil(count / RUN_ROW_LIMIT)
            cols = ", ".join(quote_ident(c["name"]) for c in catalog[name]["columns"])
            where = (f"where run_id = ? qualify (row_number() over (order by {cols}) - 1) % {step} = 0")
        else:
            step, where = 1, "where run_id = ?"
        payload = table_payload(con, name, where, [run_id], catalog)
        payload["total_rows"] = count
        payload["thinned_every"] = step
        bundle["tables"][name] = payload
        for column, values in payload["data"].items():
            if isinstance(values, dict):
                values = values["dict"]
            seen_values.setdefault(column, set()).update(v for v in values if isinstance(v, str))
    for name, (key, sources) in DIM_KEYS.items():
        if name in bundle["tables"] or not has_column(catalog, name, key):
            continue
        wanted = sorted(set().union(*(seen_values.get(s, set()) for s in sources)))
        if not wanted:
            continue
        marks = ", ".join("?" for _ in wanted)
        payload = table_payload(con, name, f"where {quote_ident(key)} in ({marks})", wanted, catalog)
        if payload["rows"]:
            bundle["tables"][name] = payload
    return bundle


def write_site_database(out: Path) -> None:
    """Write the marts as TABLES into a new DuckDB file readable by DuckDB 1.0+ and DuckDB-WASM.

    Only the marts: the dbt warehouse also holds staging views over read_parquet of local lake
    paths, which cannot work anywhere but the build machine. STORAGE_VERSION v1.0.0 so
    DuckDB-WASM (DuckDB 1.4) and older CLIs open it. Table and column comments (dbt
    persist_docs) are copied, so the browser can describe every column.
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
        con.execute("create schema site.marts")
        if catalog:
            con.execute(f"attach {literal(warehouse_path())} as wh (read_only)")
        for name, info in catalog.items():
            q = quote_ident(name)
            con.execute(f"create table site.marts.{q} as select * from wh.marts.{q}")
            if info["comment"]:
                con.execute(f"comment on table site.marts.{q} is {literal(info['comment'])}")
            for column in info["columns"]:
                if column["comment"]:
                    con.execute(f"comment on column site.marts.{q}.{quote_ident(column['name'])} "
                                f"is {literal(column['comment'])}")
        con.execute("detach site")
    finally:
        con.close()

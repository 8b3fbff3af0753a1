# Data loader: what the warehouse holds. Every mart with its description, columns (type and
# description from dbt's persisted docs) and row count, plus the run index (id -> page slug)
# and the known marts that are not built yet. `downloads`: the formats data/marts/ serves per mart
# (_sitedata.download_formats, the same rule as src/data/_paths.py); `on_demand`: a view mart too
# big to write out (_sitedata.counted_rows None), offered by SQL only. A big mart's Parquet
# download in parts is listed by the marts loader beside the parts (data/marts/parts.json).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

con = sd.connect()
catalog = sd.marts(con)
tables = []
for name, info in catalog.items():
    count = sd.counted_rows(con, name)  # None: a view of more rows than the site writes out
    tables.append({"name": name, "comment": info["comment"], "rows": count, "columns": info["columns"],
                   "downloads": list(sd.download_formats(con, name, rows=count)),
                   # a view too big to write out: no download, queried from the full warehouse
                   "on_demand": count is None})
kinds = {}
if con is not None and sd.has_column(catalog, "dim_runs", "source_kind"):
    kinds = dict(con.execute("select run_id, source_kind from marts.dim_runs").fetchall())
runs = [{"run_id": rid, "slug": sd.run_slug(rid), "source_kind": kinds.get(rid)} for rid in sd.run_ids(con, catalog)]
if con is not None:
    con.close()
sd.write_json({
    "schema": sd.MARTS_SCHEMA,
    "tables": tables,
    "missing": [name for name in sd.KNOWN_MARTS if name not in catalog],
    "runs": runs,
    # Marts the SQL console's database (data/warehouse.duckdb.gz) holds empty: too many rows
    # for the browser (_sitedata.write_site_database_for_browser uses the same rule).
    "site_database_max_rows": sd.SITE_DB_MAX_ROWS,
    "csv_max_rows": sd.CSV_MAX_ROWS,  # larger marts are downloadable as Parquet only,
    "csv_max_values": sd.CSV_MAX_VALUES,  # and so are marts of more values (rows x columns)
    "site_database_left_out": [t["name"] for t in tables if t["rows"] is None or t["rows"] > sd.SITE_DB_MAX_ROWS],
})

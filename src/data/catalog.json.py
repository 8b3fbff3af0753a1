# Data loader: what the warehouse holds. Every mart with its description, columns (type and
# description from dbt's persisted docs) and row count, plus the run index (id -> page slug)
# and the known marts that are not built yet.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

con = sd.connect()
catalog = sd.marts(con)
tables = []
for name, info in catalog.items():
    (count,) = con.execute(f"select count(*) from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}").fetchone()
    tables.append({"name": name, "comment": info["comment"], "rows": count, "columns": info["columns"]})
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
})

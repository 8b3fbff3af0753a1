# Data loader: the warehouse's marts as a standalone DuckDB file for the browser (SQL page,
# Data page download). Only the marts, as TABLES: the dbt warehouse also holds staging views
# over read_parquet of local lake paths, which cannot work anywhere but the build machine.
# Written with STORAGE_VERSION v1.0.0 so DuckDB-WASM (DuckDB 1.4) can open it. Table and column
# comments (dbt persist_docs) are copied so the browser can describe every column.
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

import duckdb  # noqa: E402


def literal(text):
    return "'" + str(text).replace("'", "''") + "'"


source = sd.connect()
catalog = sd.marts(source)
if source is not None:
    source.close()

with tempfile.TemporaryDirectory(prefix="iopscope-site-") as tmp:
    out = Path(tmp) / "iopscope.duckdb"
    con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                                 "autoload_known_extensions": "false"})
    con.execute(f"attach {literal(out)} as site (storage_version 'v1.0.0')")
    con.execute("create schema site.marts")
    if catalog:
        con.execute(f"attach {literal(sd.warehouse_path())} as wh (read_only)")
    for name, info in catalog.items():
        q = sd.quote_ident(name)
        con.execute(f"create table site.marts.{q} as select * from wh.marts.{q}")
        if info["comment"]:
            con.execute(f"comment on table site.marts.{q} is {literal(info['comment'])}")
        for column in info["columns"]:
            if column["comment"]:
                con.execute(f"comment on column site.marts.{q}.{sd.quote_ident(column['name'])} "
                            f"is {literal(column['comment'])}")
    con.execute("detach site")
    con.close()
    sys.stdout.buffer.write(out.read_bytes())
    sys.stdout.flush()

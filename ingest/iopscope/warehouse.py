"""Read access to the DuckDB warehouse that dbt builds, shared by the CLI and the site loaders."""

from __future__ import annotations

from pathlib import Path

import duckdb

# Extensions other than the built-in ones would be fetched from the network: never try.
OFFLINE_CONFIG = {
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
}


def connect(warehouse: Path, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse), read_only=read_only, config=dict(OFFLINE_CONFIG))


def mart_rows(warehouse: Path, relation: str) -> list[dict]:
    """All rows of one mart as dicts (used by data loaders: marts are small by design)."""
    con = connect(warehouse)
    try:
        cur = con.execute(f"select * from {relation}")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    finally:
        con.close()

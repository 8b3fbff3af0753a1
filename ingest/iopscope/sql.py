"""``iopscope sql``: SQL over the warehouse from the terminal, read-only."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

from iopscope.warehouse import connect


def _print(con: duckdb.DuckDBPyConnection, query: str) -> None:
    relation = con.sql(query)
    if relation is None:
        return
    relation.show(max_width=200, max_rows=200)


def run_sql(warehouse: Path, query: str | None) -> int:
    if not warehouse.exists():
        print(f"{warehouse} does not exist: run `iopscope build` first", file=sys.stderr)
        return 2
    con = connect(warehouse)
    if query:
        try:
            _print(con, query)
        except duckdb.Error as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    print("iopscope SQL over", warehouse, "(read-only). End statements with ';', Ctrl-D quits.")
    print("Tables: SELECT table_schema, table_name FROM information_schema.tables;")
    buffer: list[str] = []
    while True:
        try:
            line = input("sql> " if not buffer else "...> ")
        except EOFError:
            print()
            return 0
        buffer.append(line)
        if line.rstrip().endswith(";"):
            try:
                _print(con, "\n".join(buffer))
            except duckdb.Error as exc:
                print(f"error: {exc}")
            buffer = []

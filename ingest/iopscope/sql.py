"""``iopscope sql``: SQL over the warehouse from the terminal, read-only.

A full build and a dbt update replace the live warehouse file whole (``pipeline.staged_warehouse``);
an update replayed without dbt (``iopscope.update_replay``) writes it in place, in one
transaction, for a few seconds, and only when no reader has it open. So this opens it read-only
at any time and sees the last committed build: during a replay it waits for the commit
(``warehouse.while_locked``). A session opened before a build keeps reading the file it opened
(and makes the next update a dbt one, on a copy). Staging views read the lake's committed parts."""

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
    try:
        con = connect(warehouse)
    except duckdb.Error as exc:
        # someone else writes the file in place (a DuckDB client of their own, an old iopscope)
        print(f"{warehouse}: cannot open read-only: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    if query:
        try:
            _print(con, query)
        except duckdb.Error as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    print("iopscope SQL over", warehouse, "(read-only). End statements with ';', Ctrl-C cancels, Ctrl-D quits.")
    print("Tables: SELECT table_schema, table_name FROM information_schema.tables;")
    buffer: list[str] = []
    while True:
        try:
            line = input("sql> " if not buffer else "...> ")
            buffer.append(line)
            if line.rstrip().endswith(";"):
                statement, buffer = "\n".join(buffer), []
                _print(con, statement)
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            # as in a shell: Ctrl-C drops the statement being typed (or stops the running
            # query), Ctrl-D quits
            print("\n(cancelled)")
            buffer = []
        except duckdb.Error as exc:
            print(f"error: {exc}")

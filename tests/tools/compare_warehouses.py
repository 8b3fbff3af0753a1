"""Are two warehouses the same? For refactors of the dbt models that must not change a result.

    python tests/tools/compare_warehouses.py BEFORE.duckdb AFTER.duckdb [TABLE ...]

Every table and view of every schema: the same relations, the same columns in the same order with
the same types, and the same rows (`except all` both ways, so duplicates count and floats must be
equal to the bit). TABLEs named on the command line are listed with their sizes when equal.
Exit status 1 when anything differs.

Build the two from one lake, before and after the change, e.g.
    iopscope build --skip site --lake /tmp/x/lake --warehouse /tmp/x/before.duckdb
    (change the models)
    iopscope dbt --full --lake /tmp/x/lake --warehouse /tmp/x/after.duckdb
(views bind in their own file, so comparing views compares each warehouse's own tables).
"""

from __future__ import annotations

import sys

import duckdb


def relations(con: duckdb.DuckDBPyConnection, database: str) -> set[tuple[str, str]]:
    return set(con.execute(
        "select schema_name, table_name from duckdb_tables() where database_name = $1 union "
        "select schema_name, view_name from duckdb_views() where database_name = $1 and not internal",
        [database]).fetchall())


def columns(con: duckdb.DuckDBPyConnection, database: str, schema: str, name: str) -> list[tuple[str, str]]:
    return con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_catalog = ? and table_schema = ? and table_name = ? order by ordinal_position",
        [database, schema, name]).fetchall()


def rows_only_in(con: duckdb.DuckDBPyConnection, left: str, right: str) -> int:
    return con.execute(f"select count(*) from (select * from {left} except all select * from {right})").fetchone()[0]


def compare(before: str, after: str, shown: set[str]) -> list[str]:
    con = duckdb.connect()
    con.execute(f"attach '{before}' as b (read_only)")
    con.execute(f"attach '{after}' as a (read_only)")
    on_b, on_a = relations(con, "b"), relations(con, "a")
    problems = [f"only in {before}: {s}.{t}" for s, t in sorted(on_b - on_a)]
    problems += [f"only in {after}: {s}.{t}" for s, t in sorted(on_a - on_b)]
    for schema, name in sorted(on_b & on_a):
        cols_b, cols_a = columns(con, "b", schema, name), columns(con, "a", schema, name)
        if cols_b != cols_a:
            problems.append(f"{schema}.{name}: columns {[c for c in cols_b if c not in cols_a]} before, "
                            f"{[c for c in cols_a if c not in cols_b]} after (or another order)")
            continue
        qualified = f'"{schema}"."{name}"'
        lost, gained = rows_only_in(con, f"b.{qualified}", f"a.{qualified}"), rows_only_in(con, f"a.{qualified}", f"b.{qualified}")
        if lost or gained:
            problems.append(f"{schema}.{name}: {lost} rows only before, {gained} only after")
        elif name in shown:
            count = con.execute(f"select count(*) from a.{qualified}").fetchone()[0]
            print(f"same: {schema}.{name}, {len(cols_a)} columns, {count} rows")
    print(f"{len(on_b & on_a)} relations compared, {len(problems)} problems")
    return problems


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    found = compare(sys.argv[1], sys.argv[2], set(sys.argv[3:]))
    print("\n".join(found))
    sys.exit(1 if found else 0)

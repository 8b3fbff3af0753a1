"""``adapter.dispatch`` for sqlfluff's jinja templater (see dbt.py beside it): the DuckDB
implementation of each project macro that dispatches (their ``default__`` macros), as
plain SQL text."""

_DUCKDB = {
    "round_to": lambda value, digits: f"round({value}, {digits})",
    "type_double": lambda: "double",
    "delete_stale_runs": lambda: "",
    "forget_stale_run_builds": lambda: "",
    "record_run_builds": lambda: "",
    "lake_relation": lambda relation, source_name, table_name: str(relation),
    "concat_texts": lambda parts: f"concat({', '.join(parts)})",
    "change_fingerprint": lambda columns: f"hash({', '.join(columns)})",
    "change_group_fingerprint": lambda column: f"cast(hash(list({column} order by {column})) as varchar)",
    "delete_rows_of_changed_keys": lambda fingerprints, key_maps: "",
    "stable_aggregate": lambda function, expression: f"{function}({expression} order by {expression})",
    "device_pairs_materialization": lambda: "view",
}


def dispatch(macro_name, macro_namespace=None):
    return _DUCKDB[macro_name]

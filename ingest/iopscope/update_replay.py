"""The warehouse update without dbt: the statements of the last dbt update, replayed.

An update (``pipeline.build_warehouse``, "incremental") runs the same SQL every time: the
project is the one the warehouse was built by (its build key), every relation exists, so
dbt renders every model, hook and materialization the same way. Only the runs an incremental
model selects differ (``runs_to_build()`` in macros/incremental_runs.sql writes them into the
SQL as constants). Starting dbt, rendering 43 models and the round trips of their
materializations cost more than the SQL itself (docs/performance.md, run 20 and run 22).

So every update that dbt runs also records what it executed: dbt's debug log in JSON lines
(``record_args``) holds each statement with the node it belongs to. :func:`script_from_log`
keeps the statements that change something (create, insert, delete, rename, drop, comment), in
an order that respects the graph (a node starts only when its parents have finished, so the
order in which nodes began is topological), and :func:`save` stores them beside the warehouse
as ``<warehouse>.update.json`` with the build key. The next update, when the key still matches,
replays them (:func:`replay`) in one DuckDB transaction on the live file: each runs_to_build
predicate (marked by the macro with the query that lists its runs), and each keys_to_build one
(the new and changed keys of an incremental-by-key model), is rendered again from that query,
run at the same point of the replay as dbt ran it (before the node's first statement).
DuckDB's commit makes the update atomic: a replay that fails or is killed leaves the file as
it was, and the update falls back to dbt.

Script file::

    {"key": "<build key>:dbt-1.11.16/1.11.1:iopscope.duckdb",
     "statements": [{"node": "model.iopscope.int_run_fingerprints", "sql": "create  table ..."}, ...]}
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import time
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb

from iopscope.warehouse import OFFLINE_CONFIG

SUFFIX = ".update.json"


# The same cap and settings as profiles.yml's dev target (dbt-duckdb applies them to its
# connection; tests/python/test_update_replay.py checks that the two agree).
def connection_settings() -> dict[str, str]:
    return {
        **OFFLINE_CONFIG,
        "memory_limit": os.environ.get("IOPSCOPE_DUCKDB_MEMORY_LIMIT", "3GB"),
        "threads": os.environ.get("IOPSCOPE_DUCKDB_THREADS", "2"),
        "preserve_insertion_order": "false",
    }


# macros/incremental_runs.sql: runs_to_build() lists at most this many runs as constants
# (var runs_to_build_max_listed, which an update never sets), else it keeps the subquery.
MAX_LISTED_RUNS = 2000

_RUNS_MARK = re.compile(
    r"/\*iopscope:runs_to_build column=(?P<column>\S+) query=(?P<query>.*?)\*/(?P<rendered>.*?)"
    r"/\*iopscope:runs_to_build_end\*/", re.S)
# macros/incremental_keys.sql: keys_to_build_filter() marks its one-column predicate the same way
_KEYS_MARK = re.compile(
    r"/\*iopscope:keys_to_build column=(?P<column>\S+) query=(?P<query>.*?)\*/(?P<rendered>.*?)"
    r"/\*iopscope:keys_to_build_end\*/", re.S)
# dbt's query comment that opens every statement
_DBT_COMMENT = re.compile(r"^\s*/\*.*?\*/\s*", re.S)
# statements that change nothing: dbt's transaction control (the replay is one transaction)
# and its reads (catalog lookups, column lists, the runs lists the macro asked for). A statement
# opening with a CTE is kept: it could end in a write.
_READS = re.compile(r"^(begin|commit|rollback|select|describe|show|pragma)\b", re.I)
# what dbt writes outside a model's connection that the replay may leave out: the schemas,
# which exist in any warehouse an update starts from
_SCHEMA_SETUP = re.compile(r"^create schema if not exists\b", re.I)


class ReplayError(RuntimeError):
    pass


@dataclass(frozen=True)
class Statement:
    node: str
    sql: str


def record_args(log_dir: Path) -> list[str]:
    """dbt options that make it write every statement it runs to ``log_dir/dbt.log``."""
    return ["--log-format-file", "json", "--log-level-file", "debug", "--log-path", str(log_dir)]


def dbt_version() -> str:
    """dbt-core's and dbt-duckdb's versions: the adapter writes the materializations' SQL."""
    versions = []
    for package in ("dbt-core", "dbt-duckdb"):
        try:
            versions.append(importlib.metadata.version(package))
        except importlib.metadata.PackageNotFoundError:
            versions.append("unknown")
    return "/".join(versions)


def script_key(build_key: str, warehouse: Path) -> str:
    """What a script is valid for: the project and parsers (the build key), the dbt and adapter
    that wrote the statements, and the warehouse's file name (dbt names the catalog after it:
    the statements carry that name)."""
    return f"{build_key}:dbt-{dbt_version()}:{warehouse.name}"


def script_from_log(log_file: Path) -> list[Statement]:
    """The writing statements of the dbt run logged in ``log_file``, node by node in the order
    the nodes began. Raises ReplayError when the log holds no model statement or a model that
    began without one (a log of another kind, or cut short)."""
    by_node: dict[str, list[str]] = {}
    started: list[str] = []
    finished: set[str] = set()
    with open(log_file, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            try:
                event = json.loads(line)
                name, data = event["info"]["name"], event.get("data", {})
            except (ValueError, KeyError, TypeError) as exc:
                raise ReplayError(f"{log_file}:{number}: not a dbt JSON log line ({exc})") from None
            node = (data.get("node_info") or {}).get("unique_id") or data.get("conn_name") or ""
            if name == "NodeStart" and node not in by_node:
                by_node[node] = []
                started.append(node)
            elif name == "NodeFinished":
                finished.add(node)
            elif name == "SQLQuery":
                sql = _DBT_COMMENT.sub("", data.get("sql", ""), count=1)
                if _READS.match(sql.lstrip()):
                    continue
                if not node.startswith("model."):
                    if _SCHEMA_SETUP.match(sql.lstrip()):
                        continue
                    # an on-run-start/-end hook, a seed, a snapshot ...: nothing the replay knows
                    # how to place, so no script rather than one that leaves it out
                    raise ReplayError(f"{log_file}:{number}: a statement outside any model ({node or 'no node'}): "
                                      f"{' '.join(sql.split())[:80]}")
                if node not in by_node:
                    by_node[node] = []
                    started.append(node)
                by_node[node].append(sql)
    models = [node for node in started if node.startswith("model.")]
    if not models:
        raise ReplayError(f"{log_file}: no model statements logged")
    unfinished = [node for node in models if node not in finished or not by_node[node]]
    if unfinished:
        raise ReplayError(f"{log_file}: {len(unfinished)} models began without finishing or writing "
                          f"anything, e.g. {unfinished[0]}")
    return [Statement(node, sql) for node in models for sql in by_node[node]]


def path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + SUFFIX)


def save(warehouse: Path, key: str, statements: list[Statement]) -> None:
    target = path(warehouse)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps({"key": key,
                               "statements": [{"node": s.node, "sql": s.sql} for s in statements]}))
    os.replace(tmp, target)


def load(warehouse: Path, key: str) -> list[Statement] | None:
    """The stored statements when they were recorded for ``key``, else None."""
    try:
        script = json.loads(path(warehouse).read_text())
        if script.get("key") != key:
            return None
        return [Statement(s["node"], s["sql"]) for s in script["statements"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def discard(warehouse: Path) -> None:
    path(warehouse).unlink(missing_ok=True)


def _render_runs(column: str, query: str, runs: list[str]) -> str:
    """The predicate runs_to_build() renders for these runs (the macro's three cases)."""
    if not runs:
        return "(1 = 0)"
    if len(runs) <= MAX_LISTED_RUNS:
        return f"{column} in (" + ", ".join("'" + run.replace("'", "''") + "'" for run in runs) + ")"
    return f"{column} in ({query})"


def _render_keys(column: str, query: str, keys: list) -> str:
    """The predicate keys_to_build_filter() renders for these keys (the macro's three cases):
    runs_to_build()'s list of constants or subquery, or-ed with the rows that name no key; keys
    that are not text keep the subquery."""
    if not keys:
        return f"({column} is null)"
    if not all(isinstance(key, str) for key in keys):
        return f"({column} is null or {column} in ({query}))"
    return f"({column} is null or {_render_runs(column, query, keys)})"


def _resolve_runs(con: duckdb.DuckDBPyConnection, sql: str, lists: dict[str, list[str]],
                  keys: dict[str, list] | None = None) -> str:
    """``sql`` with each marked runs_to_build / keys_to_build predicate rendered again from its
    query; ``lists`` and ``keys`` keep the values each query gave (one query per node)."""
    keys = {} if keys is None else keys

    def renderer(mark: str, values_of: dict[str, list], render) -> Callable[[re.Match], str]:
        def rendered(match: re.Match) -> str:
            query = match["query"]
            if query not in values_of:
                values_of[query] = [row[0] for row in con.execute(query).fetchall()]
            return (f"/*iopscope:{mark} column={match['column']} query={query}*/ "
                    f"{render(match['column'], query, values_of[query])} /*iopscope:{mark}_end*/")
        return rendered

    sql = _RUNS_MARK.sub(renderer("runs_to_build", lists, _render_runs), sql)
    return _KEYS_MARK.sub(renderer("keys_to_build", keys, _render_keys), sql)


@dataclass
class ReplayReport:
    statements: int = 0
    nodes: int = 0
    runs_selected: int = 0   # the largest runs list any model selected
    sql_s: float = 0.0
    commit_s: float = 0.0
    node_s: dict[str, float] = dataclasses.field(default_factory=dict)

    def slowest(self, n: int = 3) -> list[tuple[str, float]]:
        return sorted(self.node_s.items(), key=lambda item: -item[1])[:n]


def replay(con: duckdb.DuckDBPyConnection, statements: list[Statement]) -> ReplayReport:
    """Run ``statements`` in one transaction on ``con`` and commit; on any error roll back
    and raise ReplayError naming the node (any other exception is raised after the rollback)."""
    nodes: dict[str, list[str]] = {}
    for statement in statements:
        nodes.setdefault(statement.node, []).append(statement.sql)
    report = ReplayReport(nodes=len(nodes))
    started = time.monotonic()
    con.execute("begin transaction")
    try:
        for node, sqls in nodes.items():
            # a node's runs lists are taken before its first statement, as dbt renders the
            # model (and so runs the macro's queries) before its pre-hook deletes stale rows
            lists: dict[str, list[str]] = {}
            keys: dict[str, list] = {}
            node_started = time.monotonic()
            try:
                rendered = [_resolve_runs(con, sql, lists, keys) for sql in sqls]
                for sql in rendered:
                    con.execute(sql)
                    report.statements += 1
            except duckdb.Error as exc:
                raise ReplayError(f"{node}: {str(exc).splitlines()[0]}") from exc
            report.runs_selected = max([report.runs_selected, *map(len, lists.values())])
            report.node_s[node.rsplit(".", 1)[-1]] = time.monotonic() - node_started
        report.sql_s = time.monotonic() - started
        commit_started = time.monotonic()
        try:
            con.execute("commit")
        except duckdb.Error as exc:
            raise ReplayError(f"commit: {str(exc).splitlines()[0]}") from exc
        report.commit_s = time.monotonic() - commit_started
    except BaseException:
        try:
            con.execute("rollback")
        except duckdb.Error:
            pass
        raise
    return report

"""Read access to the DuckDB warehouse that dbt builds, shared by the CLI and the site loaders."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, TypeVar

import duckdb

# Extensions other than the built-in ones would be fetched from the network: never try.
OFFLINE_CONFIG = {
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
}

# How long a reader waits for an update that writes the file in place (iopscope/update_replay.py:
# seconds at 10,000 runs) before it gives up with DuckDB's own message.
DEFAULT_READ_WAIT_S = 60.0

T = TypeVar("T")


def is_lock_conflict(exc: BaseException) -> bool:
    """DuckDB's refusal to open a file another process holds for writing (or, opening for
    writing, one that another process has open)."""
    return isinstance(exc, duckdb.IOException) and "Could not set lock" in str(exc)


def while_locked(open_fn: Callable[[], T], wait_s: float = DEFAULT_READ_WAIT_S) -> T:
    """``open_fn()``, tried again every 50 ms while another process holds the file's lock,
    for at most ``wait_s`` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return open_fn()
        except duckdb.IOException as exc:
            if not is_lock_conflict(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def connect(warehouse: Path, read_only: bool = True,
            wait_s: float = DEFAULT_READ_WAIT_S) -> duckdb.DuckDBPyConnection:
    """A connection to the warehouse; read-only by default, waiting out an update in place."""
    return while_locked(lambda: duckdb.connect(str(warehouse), read_only=read_only, config=dict(OFFLINE_CONFIG)),
                        wait_s)


def mart_rows(warehouse: Path, relation: str) -> list[dict]:
    """All rows of one mart as dicts (used by data loaders: marts are small by design)."""
    con = connect(warehouse)
    try:
        cur = con.execute(f"select * from {relation}")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    finally:
        con.close()

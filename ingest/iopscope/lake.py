"""The Parquet lake: typed, Hive-partitioned tables written atomically.

Layout (one folder per table, partitioned by collection = first folder under the raw root)::

    <lake>/<table>/collection=<collection>/run-<key>.parquet   one file per run and table
    <lake>/<table>/collection=_schema/schema.parquet           zero rows: the table's columns
    <lake>/_state.json                                         what is in the lake, per run
    <lake>/.lock                                               held while an ingest writes

The zero-row schema file means every table exists (with its columns) even before any run
has rows for it, so SQL over the lake never fails on an empty glob.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from iopscope import tables
from iopscope.units import to_bool, to_float, to_int

SCHEMA_PARTITION = "_schema"
STATE_FILE = "_state.json"
LOCK_FILE = ".lock"

_ARROW = {
    "string": pa.string(),
    "int64": pa.int64(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
    "timestamp": pa.timestamp("us", tz="UTC"),
}


class ConformError(ValueError):
    """A parser produced a value that does not fit the table's declared type."""


def arrow_schema(table: tables.Table) -> pa.Schema:
    return pa.schema([pa.field(c.name, _ARROW[c.type]) for c in table.all_columns()])


def _cast(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "string":
        return str(value)
    if kind == "int64":
        return to_int(value)
    if kind == "float64":
        return to_float(value)
    if kind == "bool":
        return to_bool(value)
    if kind == "timestamp":
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        if isinstance(value, str):
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)
        raise ConformError(f"cannot read {value!r} as a timestamp")
    raise ConformError(f"unknown type {kind}")


def conform(table: tables.Table, records: Iterable[dict[str, Any]]) -> pa.Table:
    """Cast plain dicts to the table's schema. Unknown keys are an error (a typo is a bug)."""
    columns = table.all_columns()
    names = {c.name for c in columns}
    records = records if isinstance(records, list) else list(records)
    seen = set().union(*records) if records else set()
    unknown = seen - names
    if unknown:
        raise ConformError(f"table {table.name}: unknown column(s) {', '.join(sorted(unknown))}")
    arrays = []
    for c in columns:
        values = [r.get(c.name) for r in records] if c.name in seen else [None] * len(records)
        arrays.append(_column(values, c.type))
    return pa.Table.from_arrays(arrays, schema=arrow_schema(table))


# Python types a column's values may have for Arrow to convert them as _cast would, in C.
_FAST_TYPES = {
    "string": {str, type(None)},
    "int64": {int, type(None)},
    "float64": {float, int, type(None)},
    "bool": {bool, type(None)},
}
_EXACT_INT = 2 ** 53  # to_int goes through float: beyond this, leave it to _cast


def _column(values: list, kind: str) -> pa.Array:
    """One column, cast exactly as :func:`_cast` would cast each value, but converted by Arrow
    in one call when the values already have the column's Python type (the common case)."""
    arrow_type = _ARROW[kind]
    fast = _FAST_TYPES.get(kind)
    if fast is not None and set(map(type, values)) <= fast:
        try:
            array = pa.array(values, type=arrow_type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            array = None
        if array is not None:
            if kind == "float64" and array.null_count < len(array):
                finite = pc.is_finite(array)           # nan / inf are nulls, as to_float says
                if not pc.all(finite).as_py():
                    array = pc.if_else(finite, array, pa.scalar(None, arrow_type))
                return array
            if kind == "int64" and array.null_count < len(array):
                bounds = pc.min_max(array).as_py()
                if -_EXACT_INT < bounds["min"] and bounds["max"] < _EXACT_INT:
                    return array
            else:
                return array
    return pa.array([_cast(v, kind) for v in values], type=arrow_type)


def _atomic_write(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=path.parent)
    os.close(fd)
    try:
        # No statistics timestamps, fixed writer options: the same rows give the same bytes.
        pq.write_table(table, tmp, compression="zstd", write_statistics=True)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class Lake:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    # -- layout
    def part_path(self, table: str, collection: str, run_key: str) -> Path:
        return self.root / table / f"{tables.PARTITION_COLUMN}={collection}" / f"run-{run_key}.parquet"

    def ensure_schemas(self) -> None:
        """Write (or refresh) the zero-row schema file of every table."""
        for table in tables.ALL.values():
            path = self.root / table.name / f"{tables.PARTITION_COLUMN}={SCHEMA_PARTITION}" / "schema.parquet"
            empty = conform(table, [])
            if path.exists():
                with contextlib.suppress(Exception):
                    if pq.read_schema(path).equals(empty.schema, check_metadata=False):
                        continue
            _atomic_write(empty, path)

    # -- writing
    def write_part(self, table_name: str, collection: str, run_key: str,
                   records: list[dict[str, Any]]) -> Path | None:
        """Write one run's rows of one table; no rows removes the part. Returns the path written."""
        path = self.part_path(table_name, collection, run_key)
        if not records:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return None
        _atomic_write(conform(tables.get(table_name), records), path)
        return path

    def remove_parts(self, paths: Iterable[str]) -> None:
        for rel in paths:
            with contextlib.suppress(FileNotFoundError):
                (self.root / rel).unlink()

    # -- state
    def load_state(self) -> dict[str, Any]:
        path = self.root / STATE_FILE
        if not path.exists():
            return {"runs": {}}
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)

    def save_state(self, state: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-state-", dir=self.root)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(state, fh, indent=1, sort_keys=True)
        os.replace(tmp, self.root / STATE_FILE)

    @contextlib.contextmanager
    def locked(self, timeout_s: float = 600.0) -> Iterator[None]:
        """Exclusive lock so two ingests never write the same lake at once (the second waits)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK_FILE, "a+") as fh:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"another ingest holds {self.root / LOCK_FILE}") from None
                    time.sleep(0.1)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

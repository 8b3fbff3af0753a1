"""Pack files: the rows of many runs of one lake table in one Parquet file.

A pack lives beside the per-run parts of its partition,
``<lake>/<table>/collection=<c>/pack-<id>.parquet``, so every reader's glob
(``<table>/*/*.parquet``, Spark's ``parquet.`<table>```) reads it with no change. Its rows are
exactly the rows of the runs' parts, grouped by run; which rows are whose is the pack's *index*,
kept in the file's own key-value metadata (``iopscope.pack``:
``{"runs": [[run key, first row, row count], ...]}``), so the index is renamed into place with
the rows it describes. Which runs a pack holds *for the lake* is the state's business
(``entry["pack"]``, see compaction.py): rows of a run the state does not place in the pack are
stale and are removed by rewriting the pack (:func:`rewrite`).

This module only reads and writes pack files; when they are made is compaction.py's job.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PREFIX = "pack-"
SUFFIX = ".parquet"
INDEX_KEY = "iopscope.pack"
# Rows per row group: DuckDB's own default, so a scan splits a pack into as many tasks as it
# would split a table of its own, and row-group statistics on run_id stay narrow.
ROW_GROUP_ROWS = 122_880


def file_name(pack_id: str) -> str:
    return f"{PREFIX}{pack_id}{SUFFIX}"


def pack_id_of(name: str) -> str | None:
    """The pack id of a file name, None for anything else (a run part, a schema file)."""
    if name.startswith(PREFIX) and name.endswith(SUFFIX):
        return name[len(PREFIX):-len(SUFFIX)]
    return None


def read_index(path: Path) -> list[tuple[str, int, int]]:
    """[(run key, first row, row count)] in row order, from the pack's footer alone."""
    metadata = pq.read_metadata(path).metadata or {}
    raw = metadata.get(INDEX_KEY.encode())
    if raw is None:
        raise ValueError(f"{path}: not a pack (no {INDEX_KEY} index)")
    return [(key, int(first), int(count)) for key, first, count in json.loads(raw)["runs"]]


class PackWriter:
    """Writes one pack: runs' tables in order (:meth:`add`), then :meth:`commit` renames the
    temp file (in ``staging``, which no reader globs) over ``path``. Rows are buffered to
    ROW_GROUP_ROWS and written as one row group, whatever the size of each run's piece."""

    def __init__(self, path: Path, schema: pa.Schema, staging: Path) -> None:
        self.path = path
        self.schema = schema
        staging.mkdir(parents=True, exist_ok=True)
        fd, self._tmp = tempfile.mkstemp(prefix=f"{path.parent.parent.name}-", suffix=".pack.tmp", dir=staging)
        os.close(fd)
        strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
        # No stored Arrow schema (as run parts): the Parquet types alone say what a column is.
        # zstd and dictionaries on strings (the provenance columns repeat within each run).
        self._writer = pq.ParquetWriter(self._tmp, schema, compression="zstd", use_dictionary=strings,
                                        write_statistics=True, store_schema=False)
        self._index: list[list] = []
        self._buffer: list[pa.Table] = []
        self._buffered = 0
        self.rows = 0

    def add(self, key: str, table: pa.Table) -> None:
        """Rows of run ``key`` (successive calls for the same key extend its range)."""
        if table.num_rows == 0:
            return
        if not table.schema.equals(self.schema):
            table = self._conform(table)
        if self._index and self._index[-1][0] == key:
            self._index[-1][2] += table.num_rows
        else:
            self._index.append([key, self.rows, table.num_rows])
        self.rows += table.num_rows
        self._buffer.append(table)
        self._buffered += table.num_rows
        while self._buffered >= ROW_GROUP_ROWS:
            self._flush(ROW_GROUP_ROWS)

    def _conform(self, table: pa.Table) -> pa.Table:
        """A part in the pack's column order and types; a column the part lacks (written before
        the table gained it) is null, as the readers' union_by_name shows it; a column the pack
        lacks is an error, never dropped."""
        extra = set(table.column_names) - set(self.schema.names)
        if extra:
            raise ValueError(f"{self.path}: rows with column(s) {', '.join(sorted(extra))} the pack does not have")
        return pa.Table.from_arrays(
            [table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
             for f in self.schema], schema=self.schema)

    def _flush(self, limit: int | None = None) -> None:
        if not self._buffered:
            return
        whole = pa.concat_tables(self._buffer)
        cut = whole.num_rows if limit is None else min(limit, whole.num_rows)
        self._writer.write_table(whole.slice(0, cut).combine_chunks(), row_group_size=cut)
        rest = whole.slice(cut)
        self._buffer, self._buffered = ([rest] if rest.num_rows else []), rest.num_rows

    def bytes_written(self) -> int:
        """Bytes of the pack on disk so far (the rows still buffered not counted)."""
        return os.path.getsize(self._tmp)

    def commit(self) -> None:
        try:
            self._flush()
            self._writer.add_key_value_metadata({INDEX_KEY: json.dumps({"runs": self._index}, separators=(",", ":"))})
            self._writer.close()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self._tmp, self.path)
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._writer.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._tmp)


class PackReader:
    """Reads runs' rows out of a pack by index range, holding one row group at a time (ranges
    read in row order read each row group once)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.index = read_index(path)
        self._file = pq.ParquetFile(path)
        self.schema = self._file.schema_arrow
        self._starts, total = [], 0
        for i in range(self._file.metadata.num_row_groups):
            self._starts.append(total)
            total += self._file.metadata.row_group(i).num_rows
        self._cached: tuple[int, pa.Table] | None = None

    def rows(self, first: int, count: int) -> pa.Table:
        pieces, position, end = [], first, first + count
        while position < end:
            group = bisect.bisect_right(self._starts, position) - 1
            if self._cached is None or self._cached[0] != group:
                self._cached = (group, self._file.read_row_group(group))
            offset = position - self._starts[group]
            take = min(end - position, self._cached[1].num_rows - offset)
            pieces.append(self._cached[1].slice(offset, take))
            position += take
        return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)


def rewrite(path: Path, keep: set[str], staging: Path) -> int:
    """Rewrite the pack with only the runs in ``keep`` (atomically, same name); remove it when
    none is left. Returns the number of runs dropped."""
    index = read_index(path)
    kept = [r for r in index if r[0] in keep]
    if len(kept) == len(index):
        return 0
    if not kept:
        path.unlink(missing_ok=True)
        return len(index)
    reader = PackReader(path)
    # the pack's own columns: it may predate a change of the table (its runs are then re-parsed)
    writer = PackWriter(path, reader.schema, staging)
    try:
        for key, first, count in kept:
            writer.add(key, reader.rows(first, count))
    except BaseException:
        writer.abort()
        raise
    writer.commit()
    return len(index) - len(kept)

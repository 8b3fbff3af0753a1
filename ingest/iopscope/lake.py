"""The Parquet lake: typed, Hive-partitioned tables written atomically.

Layout (one folder per table, partitioned by collection = first folder under the raw root)::

    <lake>/<table>/collection=<collection>/run-<key>.parquet   one run's rows of the table
    <lake>/<table>/collection=<collection>/pack-<id>.parquet   many runs' rows (packs.py,
                                                               compaction.py)
    <lake>/<table>/collection=_schema/schema.parquet           zero rows: the table's columns
    <lake>/_state.json                                         what is in the lake, per run
    <lake>/_state.<generation>.jsonl                           changes since _state.json
    <lake>/.lock                                               exclusive: an ingest writes;
                                                               shared: a warehouse build reads
    <lake>/.staging/                                           temp files of the writer

The zero-row schema file means every table exists (with its columns) even before any run
has rows for it, so SQL over the lake never fails on an empty glob.

Temp files are written in ``.staging/`` and renamed into place, so a reader's glob
(``<table>/*/*.parquet``) only ever matches committed parts. ``.staging/`` is empty between
ingests; the writer after one that did not finish empties it and removes parts that no
recorded run owns (see :meth:`Lake.locked` and :meth:`Lake.sweep`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from iopscope import locks, packs, tables
from iopscope.parsers.base import Columns, no_gc
from iopscope.raw_tree import collection_of   # the lake's partitions are the raw tree's collections
from iopscope.units import EXACT_INT_LIMIT, to_bool, to_float, to_int

SCHEMA_PARTITION = "_schema"
STATE_FILE = "_state.json"
# how every snapshot save_state writes begins (keys sorted)
_FINGERPRINT_HEAD = re.compile(rb'\{"fingerprint":"([0-9a-f]*)"[,}]')
JOURNAL_MIN_BYTES = 1 << 20   # below this the journal never triggers a snapshot rewrite
LOCK_FILE = ".lock"
STAGING_DIR = ".staging"
WRITING_MARK = "ingest-running"   # in STAGING_DIR while a writer works (left behind if it died)
LEGACY_TEMP_PREFIX = ".tmp-"   # temp parts of iopscope <= 0.1 lived beside the parts
PACK_LINE = "~pack"            # journal line moving runs into a pack (never a run key: keys are hex)


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


INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


def _cast(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "string":
        return str(value)
    if kind == "int64":
        # beyond int64 (fio prints 2**64 - 1 for "never set"): null, as nan/inf are for floats,
        # not an OverflowError that would stop the whole ingest
        number = to_int(value)
        return number if number is None or INT64_MIN <= number <= INT64_MAX else None
    if kind == "float64":
        return to_float(value)
    if kind == "bool":
        return to_bool(value)
    if kind == "timestamp":
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        if isinstance(value, str):
            try:
                parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise ConformError(f"cannot read {value!r} as a timestamp") from None
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)
        raise ConformError(f"cannot read {value!r} as a timestamp")
    raise ConformError(f"unknown type {kind}")


@dataclass(frozen=True)
class Chunk:
    """Rows of one table from one source, with the provenance they all share.

    ``rows`` is a list of record dicts or a :class:`Columns` block; ``provenance`` maps column
    name -> one value for every row (``run_id``, ``source_path`` ...). A row's own value of a
    column wins over the provenance value, as ``{**provenance, **record}`` would, but the
    provenance is written as a constant column instead of being merged into every row."""

    rows: list[dict[str, Any]] | Columns
    provenance: Mapping[str, Any] = field(default_factory=dict)


def conform(table: tables.Table, records: Iterable[dict[str, Any]] | Columns,
            provenance: Mapping[str, Any] | None = None) -> pa.Table:
    """Cast rows (records or a Columns block) plus their provenance to the table's schema.
    Unknown columns are an error (a typo is a bug); columns nobody gives are null."""
    columns = table.all_columns()
    provenance = provenance or {}
    if isinstance(records, Columns):
        block, n = records.columns, len(records)
        given = set(block)
    else:
        block = None
        records = records if isinstance(records, list) else list(records)
        n = len(records)
        given = set().union(*records) if records else set()
    unknown = (given | (set(provenance) if n else set())) - {c.name for c in columns}
    if unknown:
        raise ConformError(f"table {table.name}: unknown column(s) {', '.join(sorted(unknown))}")
    arrays = []
    for c in columns:
        try:
            if c.name in given and block is not None:
                arrays.append(_block_column(block[c.name], c.type))
            elif c.name in given:
                default = provenance.get(c.name)
                arrays.append(_column([r.get(c.name, default) for r in records], c.type))
            elif provenance.get(c.name) is not None:
                arrays.append(_constant(provenance[c.name], c.type, n))
            else:
                arrays.append(pa.nulls(n, _ARROW[c.type]))
        except ConformError as exc:
            raise ConformError(f"table {table.name}, column {c.name}: {exc}") from None
    schema = arrow_schema(table)
    if any(pa.types.is_dictionary(a.type) for a in arrays):
        schema = pa.schema([f.with_type(a.type) for f, a in zip(schema, arrays)])
    return pa.Table.from_arrays(arrays, schema=schema)


def _constant(value: Any, kind: str, n: int) -> pa.Array:
    """A provenance value (run id, source path, sha256 ...) repeated for n rows. The string of a
    large part is a one-value dictionary: Parquet stores it exactly as the repeated strings (and
    readers get plain strings back), without n copies in memory (140 MB for the 957,266 rows of a
    20 MB histogram log) that the writer would then hash one by one into the same dictionary."""
    scalar = _column([value], kind)[0]
    if kind == "string" and n >= SMALL_PART_ROWS:
        return pa.DictionaryArray.from_arrays(pa.repeat(pa.scalar(0, pa.int32()), n), pa.array([scalar.as_py()]))
    return pa.repeat(scalar, n)


def dense(table: pa.Table) -> pa.Table:
    """The table with its dictionary columns as the plain strings they stand for."""
    if not any(pa.types.is_dictionary(f.type) for f in table.schema):
        return table
    return table.cast(pa.schema([f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f
                                 for f in table.schema]))


def conform_chunks(table: tables.Table, chunks: Iterable[Chunk]) -> pa.Table:
    """One table from a run's chunks, in order, as one contiguous Arrow table. Consecutive
    record lists without provenance (one ``ingest_files`` row per file ...) are converted
    together: one Arrow conversion, not one per row."""
    parts, plain = [], []
    for chunk in chunks:
        if not chunk.provenance and isinstance(chunk.rows, list):
            plain.extend(chunk.rows)
            continue
        if plain:
            parts.append(conform(table, plain))
            plain = []
        if len(chunk.rows):
            parts.append(conform(table, chunk.rows, chunk.provenance))
    if plain:
        parts.append(conform(table, plain))
    if not parts:
        return conform(table, [])
    if len(parts) == 1:
        return parts[0]
    if len({p.schema for p in parts}) > 1:
        parts = [dense(p) for p in parts]  # a small chunk's plain strings beside a large one's dictionary
    return pa.concat_tables(parts).combine_chunks()


# Python types a column's values may have for Arrow to convert them as _cast would, in C.
_FAST_TYPES = {
    "string": {str, type(None)},
    "int64": {int, type(None)},
    "float64": {float, int, type(None)},
    "bool": {bool, type(None)},
    # Arrow stores a naive datetime as UTC and converts an aware one to UTC, as _cast says.
    "timestamp": {dt.datetime, type(None)},
}


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
            array = _as_cast_would(array, kind, values if len(values) <= PYTHON_CHECK_MAX_VALUES else None)
            if array is not None:
                return array
    return pa.array([_cast(v, kind) for v in values], type=arrow_type)


# Up to this many values, _as_cast_would checks the Python values it was built from: for a
# run's few rows that is cheaper than the Arrow calls (most columns of most parts are short).
PYTHON_CHECK_MAX_VALUES = 512


def _as_cast_would(array: pa.Array, kind: str, values: list | None = None) -> pa.Array | None:
    """An Arrow array of the column's type as _cast would leave it: nan/inf nulled; None when
    it holds integers beyond 2**53 (to_int rounds those through float: leave them to _cast).
    ``values``: the Python values the array was made of, checked instead of the array."""
    if array.null_count == len(array):
        return array
    if values is not None and kind == "float64":
        if all(v is None or math.isfinite(v) for v in values):
            return array
    elif values is not None and kind == "int64":
        numbers = [v for v in values if v is not None]
        return array if -EXACT_INT_LIMIT < min(numbers) and max(numbers) < EXACT_INT_LIMIT else None
    if kind == "float64":
        finite = pc.is_finite(array)           # nan / inf are nulls, as to_float says
        if not pc.all(finite).as_py():
            array = pc.if_else(finite, array, pa.scalar(None, _ARROW[kind]))
    elif kind == "int64":
        bounds = pc.min_max(array).as_py()
        if not (-EXACT_INT_LIMIT < bounds["min"] and bounds["max"] < EXACT_INT_LIMIT):
            return None
    return array


def _block_column(values: Any, kind: str) -> pa.Array:
    """One column of a Columns block: a list (as :func:`_column`) or an Arrow array, cast in
    C when its Arrow type holds exactly what _cast would make of it, else value by value."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        return _column(values if isinstance(values, list) else list(values), kind)
    kind_of = pa.types
    if kind_of.is_dictionary(values.type):
        values = values.dictionary_decode()
    t, target = values.type, _ARROW[kind]
    if kind == "timestamp" and kind_of.is_timestamp(t):
        try:  # naive = UTC (storage kept); finer than microseconds must not be cut silently
            return values.cast(target)
        except pa.ArrowInvalid as exc:
            raise ConformError(f"cannot store {t} values as {target}: {exc}") from None
    if kind_of.is_null(t):
        return pa.nulls(len(values), target)
    castable = ((kind == "string" and (kind_of.is_string(t) or kind_of.is_large_string(t)))
                or (kind == "bool" and kind_of.is_boolean(t))
                or (kind == "int64" and kind_of.is_integer(t))
                or (kind == "float64" and (kind_of.is_integer(t) or kind_of.is_floating(t))))
    if castable:
        try:
            array = _as_cast_would(values.cast(target), kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            array = None
        if array is not None:
            return array
    return _column(values.to_pylist(), kind)


# Most parts hold one run's few rows of one table (a 1,000-run lake: 94% under 1,000 rows).
# For those, setting up zstd and a dictionary page for each of 20-70 columns is most of the
# cost: snappy without dictionaries wrote 800 such parts in 0.43x the CPU time, at about the
# same size. Larger parts keep zstd (without dictionaries a 1,000-10,000-row part doubled in
# size), with dictionaries only where they pay: strings, and columns with few distinct values
# (bins, block sizes, devices). On many-valued numbers (latencies, offsets) a dictionary
# overflows and falls back to plain after the work is done: for the bulk tables of the benchmark
# files this choice was the cheapest to write (fio log samples 0.78x the CPU of dictionaries
# everywhere, histogram samples 0.74x of strings only) and the smallest.
SMALL_PART_ROWS = 1_000
_SMALL_PART = {"compression": "snappy", "use_dictionary": False, "write_statistics": True}
_DICTIONARY_PROBE_ROWS = 10_000   # distinct values counted in the first rows of a column ...
_DICTIONARY_MAX_DISTINCT = 1_000  # ... a dictionary is used up to this many


def _writer_options(table: pa.Table) -> dict[str, Any]:
    if table.num_rows < SMALL_PART_ROWS:
        return _SMALL_PART
    return {"compression": "zstd", "use_dictionary": _dictionary_columns(table), "write_statistics": True}


def _dictionary_columns(table: pa.Table) -> list[str]:
    """Columns worth a dictionary: strings, and others with few distinct values in their first
    rows. Decided from the rows alone, so the same rows still give the same bytes."""
    chosen = []
    for f in table.schema:
        if pa.types.is_string(f.type) or pa.types.is_large_string(f.type) or pa.types.is_dictionary(f.type):
            chosen.append(f.name)
        elif not pa.types.is_boolean(f.type):
            head = table.column(f.name).slice(0, _DICTIONARY_PROBE_ROWS)
            if pc.count_distinct(head).as_py() <= _DICTIONARY_MAX_DISTINCT:
                chosen.append(f.name)
    return chosen


def _atomic_write(table: pa.Table, path: Path, staging: Path | None = None) -> None:
    """Write ``path`` whole or not at all: into a temp file in ``staging`` (a folder on the same
    filesystem that no reader globs), then renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = staging or path.parent
    staging.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{path.parent.parent.name}-", suffix=".parquet.tmp", dir=staging)
    os.close(fd)
    try:
        # No statistics timestamps, options chosen by the row count only: the same rows give
        # the same bytes.
        # No stored Arrow schema: the Parquet types alone say what a column is, so a dictionary
        # column of conform() reads back as the plain strings it stands for.
        pq.write_table(table, tmp, store_schema=False, **_writer_options(table))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class Lake:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        # journal bookkeeping, known once load_state or save_state has run
        self._generation: int | None = None
        self._snapshot_bytes = self._journal_bytes = 0
        self.needs_sweep = False   # set by locked(): the last writer did not finish
        # run key -> (collection, pack id) of every packed run when the state was loaded: a run
        # that leaves its pack (changed, removed) leaves stale rows there (compaction.finish)
        self.packs_at_load: dict[str, tuple[str, str]] = {}

    # -- layout
    def part_path(self, table: str, collection: str, run_key: str) -> Path:
        return self.root / table / f"{tables.PARTITION_COLUMN}={collection}" / f"run-{run_key}.parquet"

    def pack_path(self, table: str, collection: str, pack_id: str) -> Path:
        return self.root / table / f"{tables.PARTITION_COLUMN}={collection}" / packs.file_name(pack_id)

    def ensure_schemas(self) -> None:
        """Write (or refresh) the zero-row schema file of every table."""
        for table in tables.ALL.values():
            path = self.root / table.name / f"{tables.PARTITION_COLUMN}={SCHEMA_PARTITION}" / "schema.parquet"
            empty = conform(table, [])
            if path.exists():
                with contextlib.suppress(Exception):
                    if pq.read_schema(path).equals(empty.schema, check_metadata=False):
                        continue
            _atomic_write(empty, path, self.staging)

    # -- writing
    @staticmethod
    def build_part(table_name: str, chunks: list[Chunk]) -> pa.Table | None:
        """One run's rows of one table as the Arrow table its part holds (None: no rows).
        Raises ConformError when a value does not fit the table's declared type."""
        if not any(len(c.rows) for c in chunks):
            return None
        return conform_chunks(tables.get(table_name), chunks)

    def write_part(self, table_name: str, collection: str, run_key: str, table: pa.Table | None) -> Path | None:
        """Write one run's part of one table (from :meth:`build_part`); None removes the part.
        Returns the path written."""
        path = self.part_path(table_name, collection, run_key)
        if table is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return None
        _atomic_write(table, path, self.staging)
        return path

    def remove_parts(self, paths: Iterable[str]) -> None:
        for rel in paths:
            with contextlib.suppress(FileNotFoundError):
                (self.root / rel).unlink()

    # -- state
    # _state.json is a snapshot {"fingerprint", "generation", "runs": {key: entry}}; every change
    # of one run after it is one line [key, entry or null] appended to _state.<generation>.jsonl.
    # Ingesting one run into a large lake thus appends one line instead of rewriting the whole
    # state; the snapshot is rewritten (a new generation, the old journal deleted) only when the
    # journal has grown larger than it, so rewriting costs O(1) amortised per run recorded.
    # A crash mid-append leaves a torn last line, which loading ignores (and drops): that run
    # is parsed again. Run entry: {"dir": folder under the raw root, "files": {path under the
    # run folder: [sha256, size, mtime_ns]} (null: parse again), "tables": [...], "errors": [...]}.

    def load_state(self) -> dict[str, Any]:
        path = self.root / STATE_FILE
        if path.exists():
            raw = path.read_bytes()
            with no_gc():   # a collection mid-parse walks every object made so far: 0.02 of 0.07 s
                state = _upgrade_state(json.loads(raw))
            self._snapshot_bytes = len(raw)
        else:
            state = {"runs": {}}
            self._snapshot_bytes = 0
        self._generation = state.get("generation", 0)
        journal = self._journal_path()
        self._journal_bytes = 0
        if journal.exists():
            data = journal.read_bytes()
            good = 0
            for line in data.splitlines(keepends=True):
                try:
                    key, entry = json.loads(line) if line.endswith(b"\n") else (None, None)
                except (ValueError, TypeError):   # not JSON, or not a [key, entry] pair
                    key = None
                if key is None:
                    break  # torn by a crash: this and anything after it never happened
                if key == PACK_LINE:
                    _apply_pack(state, entry)
                elif entry is None:
                    state["runs"].pop(key, None)
                else:
                    state["runs"][key] = entry
                good += len(line)
            self._journal_bytes = good
            if good < len(data):
                os.truncate(journal, good)
        self.packs_at_load = {key: (collection_of(entry["dir"]), entry["pack"])
                              for key, entry in state["runs"].items() if entry.get("pack")}
        return state

    def parser_fingerprint(self) -> str | None:
        """The snapshot's "fingerprint" (the parsers the lake was written by; no journal line
        changes it) without parsing the snapshot: save_state sorts its keys, so it opens
        ``{"fingerprint":"..."``. Parsing all 8 MB of it at 10,000 runs took 0.07 s of every
        build for this one value. A snapshot that opens otherwise (none yet, an older layout) is
        parsed whole."""
        path = self.root / STATE_FILE
        try:
            with open(path, "rb") as fh:
                head = fh.read(256)
        except FileNotFoundError:
            return None
        match = _FINGERPRINT_HEAD.match(head)
        if match:
            return match.group(1).decode()
        return _upgrade_state(json.loads(path.read_bytes())).get("fingerprint")

    def record_run(self, state: dict[str, Any], key: str) -> None:
        """Make ``state["runs"][key]`` (or its absence) durable: one line appended to the
        journal (no fsync: a crash of this process, not of the machine, is what is covered)."""
        self._append(state, [key, state["runs"].get(key)])

    def record_pack(self, state: dict[str, Any], pack_id: str, keys: list[str]) -> None:
        """Place runs in a pack, durably and all at once: one journal line (a crash before it
        leaves the runs where they were, and the pack file an orphan that repair removes)."""
        move = {"pack": pack_id, "runs": keys}
        _apply_pack(state, move)
        self._append(state, [PACK_LINE, move])

    def _append(self, state: dict[str, Any], pair: list) -> None:
        """One journal line; the snapshot is rewritten instead when the journal outgrows it."""
        if self._generation is None:
            self.save_state(state)
            return
        line = json.dumps(pair, separators=(",", ":")).encode() + b"\n"
        with open(self._journal_path(), "ab") as fh:
            fh.write(line)
        self._journal_bytes += len(line)
        if self._journal_bytes > max(self._snapshot_bytes, JOURNAL_MIN_BYTES):
            self.save_state(state)

    def save_state(self, state: dict[str, Any]) -> None:
        """Rewrite the snapshot (a new generation) and delete the journal it absorbs."""
        self.root.mkdir(parents=True, exist_ok=True)
        previous = self._generation if self._generation is not None else state.get("generation", 0)
        generation = previous + 1
        state["generation"] = generation
        blob = json.dumps(state, separators=(",", ":"), sort_keys=True).encode()
        self.staging.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="state-", suffix=".tmp", dir=self.staging)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
            os.replace(tmp, self.root / STATE_FILE)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        self._generation, self._snapshot_bytes, self._journal_bytes = generation, len(blob), 0
        for stale in self.root.glob("_state.*.jsonl"):   # absorbed (or left by a crash)
            if stale != self._journal_path():
                stale.unlink(missing_ok=True)

    def _journal_path(self) -> Path:
        return self.root / f"_state.{self._generation or 0}.jsonl"

    @property
    def staging(self) -> Path:
        return self.root / STAGING_DIR

    @contextlib.contextmanager
    def locked(self, wait_s: float | None = locks.DEFAULT_WAIT_S, purpose: str = "ingest") -> Iterator[None]:
        """Exclusive lock so two writers never write the lake at once, and no warehouse build
        reads it half-written (a build holds it shared, see :meth:`reading`).

        ``.staging/`` stays between ingests, empty. While a writer holds the lock it also holds
        the mark ``.staging/ingest-running``, removed only when the block ends normally: found
        at the next start, it says the last writer died or was stopped mid-way, and
        ``needs_sweep`` tells the caller to run :meth:`sweep` (so does a lake written before
        ``.staging/`` existed). Temp files are removed however the block ends (SIGKILL
        aside: the next writer removes those)."""
        with locks.hold(self.root / LOCK_FILE, purpose, wait_s=wait_s):
            mark = self.staging / WRITING_MARK
            self.needs_sweep = not self.staging.is_dir() or mark.exists()
            _empty_folder(self.staging)
            self.staging.mkdir(parents=True, exist_ok=True)
            mark.touch()
            try:
                yield
            except BaseException:
                _empty_folder(self.staging, keep=WRITING_MARK)
                raise
            _empty_folder(self.staging)

    def reading(self, wait_s: float | None = locks.DEFAULT_WAIT_S, purpose: str = "warehouse build"):
        """Shared lock: readers that must see one consistent lake (a dbt build) hold it while
        they read; writers wait until they are done, and they wait for writers."""
        self.root.mkdir(parents=True, exist_ok=True)
        return locks.hold(self.root / LOCK_FILE, purpose, shared=True, wait_s=wait_s)

    def sweep(self, owned: set[tuple[str, str, str]]) -> list[Path]:
        """Remove what no recorded run owns (``owned``: (table, collection, run key) of every
        part the state records): temp parts of older versions (``.tmp-*`` beside the parts) and
        parts of a run that a killed ingest wrote but never recorded (its folder since gone).
        Only under :meth:`locked`. Lists the partitions (names only: no stat, no Path per
        entry), cheap next to the stat of every raw file that each ingest does anyway."""
        removed = []
        for table, collection, names in self.partitions():
            for name in names:
                legacy_temp = name.startswith(LEGACY_TEMP_PREFIX)
                orphan = (name.startswith("run-") and name.endswith(".parquet")
                          and (table, collection, name[4:-8]) not in owned)
                if legacy_temp or orphan:
                    path = self.root / table / f"{tables.PARTITION_COLUMN}={collection}" / name
                    path.unlink(missing_ok=True)
                    removed.append(path)
        return removed

    def partitions(self) -> Iterator[tuple[str, str, list[str]]]:
        """(table, collection, names of the files in it) of every partition folder on disk."""
        prefix = f"{tables.PARTITION_COLUMN}="
        for table in tables.ALL:
            table_dir = self.root / table
            if not table_dir.is_dir():
                continue
            for partition in os.scandir(table_dir):
                if partition.is_dir() and partition.name.startswith(prefix):
                    yield table, partition.name[len(prefix):], [e.name for e in os.scandir(partition.path)]


def _apply_pack(state: dict[str, Any], move: dict[str, Any]) -> None:
    for key in move["runs"]:
        entry = state["runs"].get(key)
        if entry is not None:
            entry["pack"] = move["pack"]


def _empty_folder(folder: Path, keep: str | None = None) -> None:
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            if entry.name == keep:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                Path(entry.path).unlink(missing_ok=True)


def _upgrade_state(state: dict[str, Any]) -> dict[str, Any]:
    """A state written before the journal (entries with ``rel_dir``, ``stat`` and ``parts``)
    in today's layout, so that upgrading iopscope does not re-parse a lake."""
    runs = state.get("runs", {})
    for key, entry in runs.items():
        if "rel_dir" not in entry:
            continue
        rel_dir = entry["rel_dir"]
        prefix = "" if rel_dir == "." else rel_dir + "/"
        stat = entry.get("stat") or {}
        files = entry.get("files")
        runs[key] = {
            "dir": rel_dir,
            "files": None if files is None else {
                rel.removeprefix(prefix): [sha, *(stat.get(rel) or [None, None])]
                for rel, sha in files.items()},
            "tables": entry.get("tables", []),
            "errors": entry.get("errors", []),
        }
    return state

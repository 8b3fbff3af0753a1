"""What every parser returns, and how it says it cannot read a file.

A parser is a module in ``iopscope.parsers`` that defines:

``NAME``         format name, e.g. ``"fio_json"`` (unique; used by ``--tool`` and manifests)
``VERSION``      parser version, bumped when its output changes (forces a re-ingest)
``TOOL``         the program that writes the format (``fio``, ``iostat`` ...)
``HAS_FAST_PATH`` (optional) True when ``parse`` reads through a fast reader: the fuzzer
                 then holds ``parse`` to :func:`read_by_reference` on every mutated file
``detect(head, filename) -> float``
                 confidence 0..1 that the text is this format, from its first 64 KiB
``parse(text, *, filename=None) -> ParseResult``
                 pure: no I/O, no clock, no environment. Raises :class:`ParseError`
                 only when nothing at all can be read; partial reads return rows plus
                 ``issues`` and ``status="incomplete"``. ``filename`` is the file's name
                 (never a path to open): a few formats say part of what they hold there
                 (fio's ``<job>_clat.1.log``); every other parser ignores it.

A parser with a fast path (column-wise, Arrow ...) reads through :func:`fastest_reading`: each
fast reader raises :class:`NeedsRowPath` the moment it meets something only the reference
(row-by-row) reader reads exactly, and the next reader starts again. Tests read a file with
the reference reader alone through :func:`read_by_reference`.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterator, Sequence

Record = dict[str, Any]


class Columns(Sequence):
    """A table's rows held column by column: what a fast parser returns so that ingest hands
    whole columns to Arrow instead of building (and later taking apart) one dict per row.

    ``columns`` maps column name -> a list or a ``pyarrow.Array`` of equal length; every value
    must already be what the record form would hold (floats as float, nan/inf allowed and
    nulled by the lake like any record value, timestamps as ``pyarrow.timestamp`` or datetime).
    It reads like the list of dicts the record form would be (index, iterate, compare), so
    tests, ``iopscope parse`` and docstring examples do not care which form a parser chose.
    """

    __slots__ = ("columns", "length")

    def __init__(self, columns: dict[str, Any], length: int | None = None) -> None:
        lengths = {len(v) for v in columns.values()}
        if length is None:
            if len(lengths) > 1:
                raise ValueError(f"columns of unequal length: {sorted(lengths)}")
            length = lengths.pop() if lengths else 0
        elif lengths - {length}:
            raise ValueError(f"columns of length {sorted(lengths)}, expected {length}")
        self.columns = columns
        self.length = length

    def __len__(self) -> int:
        return self.length

    def _value(self, column: Any, i: int) -> Any:
        value = column[i]
        return value.as_py() if hasattr(value, "as_py") else value

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.length))]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError(index)
        return {name: self._value(col, index) for name, col in self.columns.items()}

    def __iter__(self) -> Iterator[Record]:
        plain = {name: (col.to_pylist() if hasattr(col, "to_pylist") else col)
                 for name, col in self.columns.items()}
        names = list(plain)
        for values in zip(*plain.values()) if names else iter(()):
            yield dict(zip(names, values))

    def to_records(self) -> list[Record]:
        return list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Columns, list, tuple)):
            return self.to_records() == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Columns({self.length} rows: {', '.join(self.columns)})"


class ParseError(Exception):
    """The file is not this format, or holds nothing readable. ``line`` is 1-based."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line else reason)


@dataclass
class Issue:
    """Something a parser skipped or doubted, without giving up on the file."""

    line: int | None
    reason: str
    severity: str = "warning"  # "warning" | "error"


@dataclass
class ParseResult:
    format: str
    # Each table is a list of records or, from a fast parser, a Columns block (reads the same).
    tables: dict[str, list[Record] | Columns] = field(default_factory=dict)
    tool_version: str | None = None
    # complete: the whole output is there; incomplete: cut short (rows kept);
    # failed: the tool itself reported failure (status_reason has its message).
    status: str = "complete"
    status_reason: str | None = None
    issues: list[Issue] = field(default_factory=list)
    # Facts about the run the file states (hostname, kernel, CPU count ...).
    facts: dict[str, Any] = field(default_factory=dict)

    def add(self, table: str, record: Record) -> None:
        self.tables.setdefault(table, []).append(record)

    def warn(self, line: int | None, reason: str) -> None:
        self.issues.append(Issue(line, reason, "warning"))

    def error(self, line: int | None, reason: str) -> None:
        self.issues.append(Issue(line, reason, "error"))

    @property
    def record_count(self) -> int:
        return sum(len(rows) for rows in self.tables.values())


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a parser builds millions of small acyclic row
    dicts: otherwise it rescans them again and again (about half the parse time of a 1M-line
    fio log). The rows hold no cycles, so nothing is leaked."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class NeedsRowPath(Exception):
    """A fast reader met something it does not read exactly as the reference reader would (a
    report unlike the others, a value that is not a plain number, a cut line ...): the caller
    starts again on the next, slower reader, so the output is the same whichever read the file.
    Raised before anything is returned; never reaches ingest."""


Reader = Callable[..., ParseResult]

# Off only inside read_by_reference(): tests hold every fast reader to the reference reader.
_FAST_READERS_ON: ContextVar[bool] = ContextVar("iopscope_fast_readers_on", default=True)


def fast_readers_on() -> bool:
    """False while :func:`read_by_reference` runs: parsers whose fast path is a choice made
    inside the reference reader (a column decoded at once instead of value by value) ask this."""
    return _FAST_READERS_ON.get()


def fastest_reading(text: str, fast_readers: Sequence[Reader], reference: Reader,
                    **kwargs: Any) -> ParseResult:
    """``reference(text, **kwargs)`` unless one of ``fast_readers`` (tried in order, fastest
    first) reads the file; each gives up by raising :class:`NeedsRowPath`."""
    if fast_readers_on():
        for reader in fast_readers:
            try:
                return reader(text, **kwargs)
            except NeedsRowPath:
                pass  # something only a slower reader reads: start again on the next one
    return reference(text, **kwargs)


def read_by_reference(module: ModuleType, text: str, *, filename: str | None = None) -> ParseResult:
    """``module.parse`` with every fast reader off: what the row-by-row reader alone reads."""
    token = _FAST_READERS_ON.set(False)
    try:
        return module.parse(text, filename=filename)
    finally:
        _FAST_READERS_ON.reset(token)

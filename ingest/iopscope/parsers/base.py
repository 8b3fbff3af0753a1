"""What every parser returns, and how it says it cannot read a file.

A parser is a module in ``iopscope.parsers`` that defines:

``NAME``         format name, e.g. ``"fio_json"`` (unique; used by ``--tool`` and manifests)
``VERSION``      parser version, bumped when its output changes (forces a re-ingest)
``TOOL``         the program that writes the format (``fio``, ``iostat`` ...)
``detect(head, filename) -> float``
                 confidence 0..1 that the text is this format, from its first 64 KiB
``parse(text) -> ParseResult``
                 pure: no I/O, no clock, no environment. Raises :class:`ParseError`
                 only when nothing at all can be read; partial reads return rows plus
                 ``issues`` and ``status="incomplete"``.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

Record = dict[str, Any]


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
    tables: dict[str, list[Record]] = field(default_factory=dict)
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

"""Published reference data: the CSV transcriptions of vendor studies (``data/raw/published/``).

Each CSV of the transcription (studies, hosts, devices, db_configs, tpcc_results,
tpcc_timeseries, io_profiles, io_results, sqlserver_results, stop_conditions) is recognised by
its header line and lands in its own lake table ``published_<name>`` (declared in
``iopscope.tables.published``). Values are typed from the table's declared column types; empty
cells are null ("not stated"). Text is kept verbatim. Every row gets ``csv_line``, the 1-based
line of the row in the file; the CSV's own ``source`` column carries the document citation.

Tables written
--------------
``published_studies``, ``published_hosts``, ``published_devices``, ``published_db_configs``,
``published_tpcc_results``, ``published_tpcc_timeseries``, ``published_io_profiles``,
``published_io_results``, ``published_sqlserver_results``, ``published_stop_conditions``
(one per file, chosen by the header).

Variants handled
----------------
* Columns in any order; a UTF-8 byte-order mark; CRLF line ends; blank lines (skipped).
* Extra columns the table does not know: a warning, the column is ignored. Missing columns:
  a warning, the column stays null.
* A row with the wrong number of cells is skipped with a warning naming its line; a cell that
  does not fit its column's type (``12x`` in an integer column) becomes null with a warning.
* CSV columns named like SQL keywords are renamed: ``array`` -> ``array_layout``,
  ``limit`` -> ``limit_name``.

Printed precision
-----------------
Tables of printed figures (``published_tpcc_results``, ``published_tpcc_timeseries``,
``published_io_results``, ``published_sqlserver_results``) keep each ``value`` as printed too:
``value_text`` is the cell verbatim and ``value_resolution`` one unit of its last significant
printed digit (``7366.55`` -> 0.01, ``0.4`` -> 0.1, ``3.0`` -> 0.1, ``23868`` -> 1). A cell with
more than 12 significant digits is a chart dump's binary float (``342.5369999999997``): it is read
at 12 significant digits with trailing zeros dropped (``342.537`` -> 0.001).

Example
-------
>>> r = parse("profile_id,name,access,read_pct,write_pct,block_kb,application,source,note\\n"
...           "database,Database,random,67,33,8,Database,001 table,\\n")
>>> row = r.tables["published_io_profiles"][0]
>>> (row["profile_id"], row["read_pct"], row["block_kb"], row["note"], row["csv_line"])
('database', 67.0, 8.0, None, 2)
>>> printed_resolution("7366.55"), printed_resolution("3.0"), printed_resolution("342.5369999999997")
(0.01, 0.1, 0.001)
"""

from __future__ import annotations

import csv
import io
import math
import re
from decimal import Decimal, InvalidOperation

from iopscope import tables
from iopscope.parsers.base import ParseError, ParseResult

NAME = "published_reference"
VERSION = "1.1.0"
TOOL = "published"

TABLE_PREFIX = "published_"
# CSV column -> lake column, where the CSV name is an SQL keyword.
RENAMES = {"array": "array_layout", "limit": "limit_name"}
# Lake columns filled by the parser, not read from a CSV column of their own: the printed form of
# `value` (its cell verbatim and the unit of its last significant digit).
_PRINTED_TEXT, _PRINTED_RESOLUTION = "value_text", "value_resolution"
_LAKE_ONLY = ("csv_line", _PRINTED_TEXT, _PRINTED_RESOLUTION)
# More significant digits than this is a binary float printed in full (a chart dump), not a
# number a person wrote down: 342.5369999999997 is 342.537.
_MAX_PRINTED_DIGITS = 12

_INT = re.compile(r"^[+-]?\d+$")
_BOOLS = {"true": True, "false": False}


def _csv_columns(table: tables.Table) -> dict[str, str]:
    """CSV column name -> lake column name for one published table."""
    back = {lake: csv_name for csv_name, lake in RENAMES.items()}
    return {back.get(c.name, c.name): c.name for c in table.columns if c.name not in _LAKE_ONLY}


KNOWN: dict[str, dict[str, str]] = {
    name: _csv_columns(table) for name, table in sorted(tables.ALL.items()) if name.startswith(TABLE_PREFIX)
}


# --------------------------------------------------------------------------- line matching


def _header(text: str) -> list[str] | None:
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if "," not in first:
        return None
    try:
        return [c.strip() for c in next(csv.reader([first]))]
    except (csv.Error, StopIteration):
        return None


def _match(header: list[str]) -> tuple[str | None, float]:
    """The table whose CSV columns best fit the header, and how well (0..1)."""
    got = set(header)
    best, best_score = None, 0.0
    for name, columns in KNOWN.items():
        known = set(columns)
        if got == known:
            return name, 1.0
        # Tolerate a few added or missing columns, never a different file.
        overlap = len(got & known) / len(got | known)
        if overlap > best_score:
            best, best_score = name, overlap
    return (best, best_score) if best_score >= 0.75 else (None, best_score)


def detect(head: str, filename: str) -> float:
    header = _header(head)
    if not header:
        return 0.0
    name, score = _match(header)
    if name is None:
        return 0.0
    return 0.99 if score == 1.0 else 0.6


def _records(text: str, result: ParseResult):
    """(1-based line, cells) for every record after the header; stops on a CSV syntax error."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    previous_end = 0
    try:
        for cells in reader:
            start = previous_end + 1
            previous_end = reader.line_num
            yield start, cells
    except csv.Error as exc:
        result.error(previous_end + 1, f"CSV syntax error, rest of file skipped: {exc}")
        result.status = "incomplete"


# --------------------------------------------------------------------------- conversion


def _convert(raw: str, kind: str) -> tuple[object, bool]:
    """Cell text -> typed value; (value, ok). Empty cells are null and ok."""
    if raw == "":
        return None, True
    if kind == "string":
        return raw, True
    text = raw.strip()
    if kind == "int64":
        return (int(text), True) if _INT.match(text) else (None, False)
    if kind == "float64":
        try:
            value = float(text)
        except ValueError:
            return None, False
        return (value, True) if math.isfinite(value) else (None, False)
    if kind == "bool":
        value = _BOOLS.get(text.lower())
        return (value, value is not None)
    return None, False


def printed_resolution(text: str) -> float | None:
    """One unit of the last significant digit of a printed number; None when it is not a number.

    ``"7366.55"`` -> 0.01, ``"23868"`` -> 1.0, ``"3.0"`` -> 0.1 (a printed trailing zero counts),
    ``"1e5"`` -> 100000.0. More than 12 significant digits (a float tail) are rounded to 12 and
    their trailing zeros dropped first: ``"342.5369999999997"`` -> 0.001.
    """
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    digits = number.as_tuple().digits
    significant = len(digits) - next((i for i, d in enumerate(digits) if d != 0), len(digits) - 1)
    if significant > _MAX_PRINTED_DIGITS:
        exponent = number.adjusted() - (_MAX_PRINTED_DIGITS - 1)
        number = number.quantize(Decimal(1).scaleb(exponent)).normalize()
    return float(Decimal(1).scaleb(number.as_tuple().exponent))


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    header = _header(text)
    table_name, _ = _match(header) if header else (None, 0.0)
    if table_name is None:
        first = text.lstrip("\ufeff").split("\n", 1)[0][:80]
        raise ParseError(f"not a published reference CSV (header {first!r} matches no known file)", 1)
    table = tables.get(table_name)
    types = {c.name: c.type for c in table.columns}
    columns = KNOWN[table_name]
    result.facts["table"] = table_name
    for extra in [c for c in header if c not in columns]:
        result.warn(1, f"column {extra!r} is not part of {table_name}: ignored")
    for missing in [c for c in columns if c not in header]:
        result.warn(1, f"column {missing!r} of {table_name} is missing: left null")
    positions = [(i, columns[c]) for i, c in enumerate(header) if c in columns]
    keeps_printed = _PRINTED_TEXT in types
    value_index = next((i for i, column in positions if column == "value"), None)
    for line, cells in _records(text, result):
        if line == 1:
            continue
        if not cells or all(c.strip() == "" for c in cells):
            continue
        if len(cells) != len(header):
            result.warn(line, f"row has {len(cells)} cells, the header has {len(header)}: skipped")
            continue
        record: dict[str, object] = {"csv_line": line, **dict.fromkeys(columns.values())}
        for index, column in positions:
            value, ok = _convert(cells[index], types[column])
            if not ok:
                result.warn(line, f"column {column}: {cells[index][:40]!r} is not a {types[column]}: left null")
            record[column] = value
        if keeps_printed:
            printed = cells[value_index] if value_index is not None and cells[value_index].strip() else None
            record[_PRINTED_TEXT] = printed
            record[_PRINTED_RESOLUTION] = (printed_resolution(printed)
                                           if printed is not None and record.get("value") is not None else None)
        result.add(table_name, record)
    if not result.tables and result.status == "complete":
        result.warn(None, "header only: no rows")
    return result

"""fio completion-latency histogram logs: ``write_hist_log`` with ``log_hist_msec``.

Tables written
--------------
``fio_histogram_log_samples``  one row per line (interval x direction) and NON-EMPTY bin

Format
------
``time (ms), direction (0 read, 1 write, 2 trim), block size, count_0, count_1, ...``: the IOs
that completed in the interval ending at *time*, counted in fio's latency bins. fio's bins
are log-linear: values below 128 have one bin each; above, each power of two is split in 64
equal bins (``FIO_IO_U_PLAT_BITS`` = 6). ``log_hist_coarseness`` = c merges 2^c neighbouring
bins, so a line has ``N >> c`` counts, where N is fio's bin count:

* fio 3.x: N = 1856 (29 groups), bins in **nanoseconds**;
* fio 2.x: N = 1216 (19 groups), bins in **microseconds** (converted to ns here).

The two families of counts (1856, 928, ... 29 and 1216, 608, ... 19) never overlap, so unlike
the sample logs the unit of a histogram log is known from the line itself.

Each stored bin has ``bin_lower_ns`` (first latency in it), ``bin_upper_ns`` (first latency
above it) and ``bin_ns`` = (lower + upper) // 2, which for c = 0 is exactly fio's own
``plat_idx_to_val``: the key json+ uses for the same bin.

``parse(text, filename=...)`` takes the log name and job number from ``<name>_clat_hist[.N].log``;
without a file name those columns are null.

Variants handled: blank lines, lines with another bin count than the file's (skipped and
reported), non-numbers, unknown direction codes, a last line cut short. The table comes as a
``Columns`` block (most bins are empty: the non-empty ones are picked in C).

Example
-------
>>> counts = [0] * 1856
>>> counts[200] = 7
>>> r = parse("500, 0, 4096, " + ", ".join(map(str, counts)) + "\\n", filename="j_clat_hist.1.log")
>>> row = r.tables["fio_histogram_log_samples"][0]
>>> (row["direction"], row["bin_index"], row["bin_lower_ns"], row["bin_upper_ns"], row["io_count"])
('read', 200, 288, 292, 7)
"""

from __future__ import annotations

import json
import re
from itertools import compress

from iopscope.parsers.base import Columns, ParseError, ParseResult, no_gc

NAME = "fio_histogram_log"
VERSION = "1.0.0"
TOOL = "fio"

PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
# fio's bin count -> (fio major version family, factor from its unit to ns)
FAMILIES = {1856: ("3", 1), 1216: ("2", 1000)}
MAX_COARSENESS = 6
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
_FILE_NAME = re.compile(r"^(?P<name>.*?)_clat_hist(?:\.(?P<job>\d+))?\.log$")
# Columns of fio_histogram_log_samples, in the order of a record's keys.
COLUMNS = ("log_name", "job_index", "line", "time_ms", "direction", "block_size_bytes", "coarseness",
           "bin_index", "bin_ns", "bin_lower_ns", "bin_upper_ns", "io_count")
_NUMBERS = re.compile(r"^\s*\d+(?:\s*,\s*\d+)+\s*,?\s*$")


def _bin_counts() -> dict[int, tuple[int, int, int]]:
    """counts per line -> (fio's full bin count, coarseness, factor to ns)."""
    out = {}
    for full, (_, factor) in FAMILIES.items():
        for c in range(MAX_COARSENESS + 1):
            out[full >> c] = (full, c, factor)
    return out


BIN_COUNTS = _bin_counts()


def plat_lower(index: int) -> int:
    """Lowest value that falls in fio's fine bin ``index`` (stat.h's log-linear layout)."""
    if index < (PLAT_VAL << 1):
        return index
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    return base + (index % PLAT_VAL) * (1 << error_bits)


def name_parts(filename: str | None) -> tuple[str | None, int | None]:
    m = _FILE_NAME.match((filename or "").replace("\\", "/").rsplit("/", 1)[-1])
    if not m:
        return None, None
    return m.group("name"), int(m.group("job")) if m.group("job") else None


def detect(head: str, filename: str) -> float:
    if head[:1] not in "0123456789 \t\r\n":
        return 0.0  # a histogram line starts with its time stamp
    first = next((ln for ln in head.lstrip().split("\n", 1)[:1]), "")
    fields = first.split(",")
    if len(fields) - 3 not in BIN_COUNTS or not _NUMBERS.match(first):
        # A 64 KiB head can cut a coarseness-0 line: trust the name and a numeric start.
        named = name_parts(filename)[0] is not None or "_clat_hist" in filename
        if named and len(first) >= 60000 and re.match(r"^\s*\d+\s*,\s*[0-2]\s*,\s*\d+\s*,", first):
            return 0.9
        return 0.0
    return 0.97 if name_parts(filename)[0] is not None else 0.8


# --------------------------------------------------------------------------- step 1: lines


def _split(text: str, result: ParseResult, fast: bool = True) -> list[tuple[int, list[int]]]:
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        numbers = line.rstrip().rstrip(",")
        values = _plain_ints(numbers) if fast else None
        if values is not None:
            rows.append((number, values))
            continue
        try:
            values = list(map(int, numbers.split(",")))
        except ValueError:
            result.warn(number, f"not a histogram log line: {line.strip()[:80]}")
            continue
        if len(values) < 4:
            result.warn(number, f"not a histogram log line: {line.strip()[:80]}")
            continue
        rows.append((number, values))
    return rows


def _plain_ints(numbers: str) -> list[int] | None:
    """The integers of a line of plain comma-separated decimals (what fio writes), read by the
    JSON decoder; None for anything else, which then goes through int() field by field.

    Why: a line holds up to 1,859 numbers, mostly "0"; split() + int() makes two objects per
    field, the C decoder none for small ints: twice as fast. A JSON integer list is read the
    same by both; anything JSON reads otherwise (floats, true, null, strings) is refused."""
    try:
        values = json.loads("[" + numbers + "]")
    except (ValueError, RecursionError):
        return None
    if len(values) >= 4 and set(map(type, values)) == {int}:
        return values
    return None


# --------------------------------------------------------------------------- parse



def parse(text: str, filename: str | None = None) -> ParseResult:
    with no_gc():
        return _parse(text, filename)


def _parse(text: str, filename: str | None, fast: bool = True) -> ParseResult:
    """``fast=False`` reads every field with int() (the tests compare both paths)."""
    result = ParseResult(format=NAME)
    rows = _split(text, result, fast)
    if not rows:
        raise ParseError("no fio histogram log lines (time, direction, block size, bin counts...)",
                         result.issues[0].line if result.issues else None)
    counts: dict[int, int] = {}
    for _, values in rows:
        n = len(values) - 3
        if n in BIN_COUNTS:
            counts[n] = counts.get(n, 0) + 1
    if not counts:
        raise ParseError(f"{len(rows[0][1]) - 3} bins per line: not a fio histogram log "
                         f"(fio writes 1856 >> c or 1216 >> c)", rows[0][0])
    nbins = max(counts, key=counts.get)
    full, coarseness, factor = BIN_COUNTS[nbins]
    stride = 1 << coarseness
    edges = [plat_lower(i * stride) * factor for i in range(nbins + 1)]
    if factor != 1:
        result.warn(None, f"{full} bins: a fio 2.x histogram log, bins in usec (converted to ns)")
    log_name, job = name_parts(filename)
    mids = [(lower + upper) // 2 if factor == 1 else ((lower + upper) // 2000) * 1000
            for lower, upper in zip(edges, edges[1:])]
    # Most counts are 0 and only non-empty bins are stored: gather the rows column by column,
    # picking the non-empty bins with itertools.compress (in C) instead of one dict per bin.
    columns: dict[str, list] = {name: [] for name in COLUMNS}
    bins = range(nbins)
    for number, values in rows:
        if len(values) - 3 != nbins:
            result.warn(number, f"{len(values) - 3} bins where the file has {nbins}: line skipped "
                                "(cut short or another log appended)")
            if result.status == "complete" and number == rows[-1][0]:
                result.status = "incomplete"
                result.status_reason = "last histogram line cut short"
            continue
        time_ms, ddir, bs = values[0], values[1], values[2]
        direction = DIRECTIONS.get(ddir)
        if direction is None:
            result.warn(number, f"unknown direction code {ddir}: line skipped")
            continue
        counts = values[3:]
        used = list(compress(bins, counts))
        n = len(used)
        for name, value in (("line", number), ("time_ms", time_ms), ("direction", direction),
                            ("block_size_bytes", bs)):
            columns[name].extend([value] * n)
        columns["bin_index"].extend([i * stride for i in used])
        columns["bin_ns"].extend(map(mids.__getitem__, used))
        columns["bin_lower_ns"].extend(map(edges.__getitem__, used))
        columns["bin_upper_ns"].extend([edges[i + 1] for i in used])
        columns["io_count"].extend(compress(counts, counts))
    n = len(columns["line"])
    columns.update(log_name=[log_name] * n, job_index=[job] * n, coarseness=[coarseness] * n)
    result.tables["fio_histogram_log_samples"] = Columns(columns)
    return result

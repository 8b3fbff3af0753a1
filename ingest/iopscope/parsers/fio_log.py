"""fio per-job sample logs: ``write_bw_log``, ``write_iops_log``, ``write_lat_log`` (lat/clat/slat).

Tables written
--------------
``fio_log_samples``  one row per log line: time, value, direction, block size, offset, priority

Format
------
One sample per line, ``time (ms), value, data direction (0 read, 1 write, 2 trim), block size``
and then, depending on the fio version and options:

====== =================================== ==========================================
 cols   written by                          columns after the block size
====== =================================== ==========================================
 4      fio 2.x, fio 3.0 - 3.1x              (none)
 5      fio 2.x/3.early with log_offset=1    offset
 5      later fio 3.x                        command priority (0/1, or 0x.... hex)
 6      later fio 3.x with log_offset=1      offset, priority
====== =================================== ==========================================

A 5-column file is read as *priority* when its last column holds hex values, or only 0/1
in a per-IO log (block size > 0, where real offsets would vary); otherwise as *offset*.
In windowed logs (``log_avg_msec``) fio writes 0 for both, so the two readings agree.

Which log a file is, is not in its text: ``parse(text, filename=...)`` takes the kind from
fio's file name ``<name>_<kind>[.<N>].log`` (kind = bw, iops, lat, clat, slat; N = job).
Without a file name the samples keep their raw values and ``log_kind``/``value`` are null.

Units (decided from evidence, the evidence recorded)
----------------------------------------------------
* bw: KiB/s in every fio version; iops: IO/s (1 per IO when not windowed).
* Latency logs: fio 2.x writes usec, fio 3.x nsec, and the file does not say which.
  ``value`` is always microseconds; ``value_raw`` keeps the printed number, ``raw_unit`` the
  unit it was read in and ``unit_evidence`` what decided it, strongest first:
  1. layout: the priority column only exists in fio >= 3.2 logs (nsec for certain);
  2. (at ingest, :func:`decide_run_units`) the fio version of a JSON, terse or text output of
     the same run, then Little's law with a job's IOs in flight and IOPS from such an output;
  3. magnitude: a median raw value under 100 would be under 100 ns, implausible for storage
     IO: usec (a warning says so);
  4. otherwise nsec is ASSUMED (``value_unit_assumed`` true, and a warning): never silently.

Variants handled: blank lines, CRLF, lines with a different column count or non-numbers
(skipped and reported with their line: the first 20 of each kind, then a count), unknown
direction codes (skipped), 7 columns (first 6 read, one warning), ``log_unix_epoch`` times
(kept as printed). The cyclic garbage collector is paused while rows are built (it doubled
the parse time of million-line logs); parse results do not depend on it.

Speed: when every complete line is exactly as fio writes it (plain decimals, ``", "`` between
them, one column count, one line ending), Arrow's CSV reader reads the file into a
``Columns`` block, ~7x faster; only a last line cut short then goes through the line path.
Any other file is read line by line, with the same result (``tests/python/test_fio_fast_paths.py``).

Example
-------
>>> r = parse("250, 946773, 0, 0\\n250, 129402, 1, 0\\n", filename="job_clat.1.log")
>>> row = r.tables["fio_log_samples"][0]
>>> (row["log_kind"], row["job_index"], row["direction"], row["value"], row["value_unit_assumed"])
('clat', 1, 'read', 946.773, True)
>>> parse("250, 48, 0, 4096\\n500, 52, 0, 4096\\n", filename="old_clat.log").tables["fio_log_samples"][0]["value"]
48.0
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from iopscope.parsers.base import Columns, ParseError, ParseResult, fast_readers_on, no_gc
from iopscope.units import EXACT_INT_LIMIT

NAME = "fio_log"
VERSION = "1.1.0"
TOOL = "fio"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

KINDS = ("bw", "iops", "lat", "clat", "slat")
LATENCY_KINDS = ("lat", "clat", "slat")
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
_FILE_NAME = re.compile(r"^(?P<name>.*?)_(?P<kind>bw|iops|lat|clat|slat)(?:\.(?P<job>\d+))?\.log$")
_LINE = re.compile(r"^\s*\d+\s*,\s*-?\d+(?:\.\d+)?\s*,\s*\d+\s*,\s*\d+(?:\s*,\s*(?:0x[0-9a-fA-F]+|\d+)){0,3}\s*$")
_LAYOUT_SAMPLE = 2000  # lines looked at to decide what a 5th column is


def _basename(filename: str | None) -> str:
    return (filename or "").replace("\\", "/").rsplit("/", 1)[-1]


def name_parts(filename: str | None) -> tuple[str | None, str | None, int | None]:
    """(log name, kind, job number) from fio's file name, e.g. 'a_clat.2.log' -> ('a', 'clat', 2)."""
    m = _FILE_NAME.match(_basename(filename))
    if not m:
        return None, None, None
    return m.group("name"), m.group("kind"), int(m.group("job")) if m.group("job") else None


def detect(head: str, filename: str) -> float:
    if head[:1] not in "0123456789 \t\r\n" or "," not in head[:200]:
        return 0.0  # a sample line starts with its time stamp
    lines = [ln for ln in head.split("\n", 20)[:20] if ln.strip()]
    if len(head) >= 65536 and len(lines) > 1:
        lines = lines[:-1]  # the last line of a 64 KiB head may be cut
    matched = sum(1 for ln in lines if _LINE.match(ln))
    if not lines or not _LINE.match(lines[0]) or matched < 0.6 * len(lines):
        return 0.0
    if matched < len(lines):
        return 0.8 if name_parts(filename)[1] else 0.3
    return 0.95 if name_parts(filename)[1] else 0.5


# --------------------------------------------------------------------------- step 1: lines

MAX_LINE_WARNINGS = 20  # per kind of problem; then one summary


class _Warnings:
    def __init__(self, result: ParseResult) -> None:
        self.result, self.counts = result, {}

    def __call__(self, kind: str, line: int, reason: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] <= MAX_LINE_WARNINGS:
            self.result.warn(line, reason)

    def summarize(self) -> None:
        for kind, count in self.counts.items():
            if count > MAX_LINE_WARNINGS:
                self.result.warn(None, f"{count} lines in all: {kind}")


def _split(text: str, warn: _Warnings, first_line: int = 1) -> list[tuple[int, list[str]]]:
    """Non-blank lines cut at the commas, with their 1-based line; other lines are reported."""
    rows: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), first_line):
        if not line or line.isspace():
            continue
        fields = line.split(",")
        if 4 <= len(fields) <= 7:
            rows.append((number, fields))
        else:
            warn("not a fio log sample", number, f"not a fio log sample: {line.strip()[:120]}")
    return rows


# --------------------------------------------------------------------------- step 2: layout


def _column_count(counts: dict[int, int]) -> int:
    """The file's column count: the most frequent one (the smaller one on a tie)."""
    return max(counts, key=lambda c: (counts[c], -c))


def _layout(counts: dict[int, int], rows: list[tuple[int, list[str]]],
            result: ParseResult) -> tuple[int, str | None, bool]:
    """(column count used, meaning of column 5 or None, whether a priority column proves fio >= 3),
    from the lines per column count and the first rows (at least ``_LAYOUT_SAMPLE`` of them)."""
    ncols = _column_count(counts)
    if ncols >= 7:
        result.warn(None, f"{ncols} columns per sample: more than fio 3.33 writes; "
                          "columns after the 6th are ignored")
    if ncols == 4:
        return 4, None, False
    if ncols >= 6:
        return ncols, "offset+priority", True
    sample = [[f.strip() for f in fields] for _, fields in rows[:_LAYOUT_SAMPLE] if len(fields) == 5]
    fifth = [fields[4] for fields in sample]
    if any(v.lower().startswith("0x") for v in fifth):
        return 5, "priority", True
    only_01 = all(v in ("0", "1") for v in fifth)
    per_io = any(fields[3] != "0" for fields in sample)
    if only_01 and per_io:
        return 5, "priority", True
    if only_01:
        return 5, "priority", False  # windowed: fio writes 0 there either way
    return 5, "offset", False


def _int(text: str) -> int:
    """A decimal or 0x-hex integer (fio prints priorities as 0x%04x with cmdprio)."""
    try:
        return int(text)
    except ValueError:
        return int(text, 16)


# --------------------------------------------------------------------------- fast path

# Columns of fio_log_samples, in the order of a record's keys.
COLUMNS = ("log_kind", "log_name", "job_index", "line", "time_ms", "value", "value_raw", "raw_unit",
           "value_unit_assumed", "direction", "block_size_bytes", "offset_bytes", "priority")


@dataclass
class _Block:
    """The complete lines of a log whose every line is exactly as fio prints it, read by Arrow."""

    end: int          # offset just after the block's last newline
    lines: int        # lines 1..lines are the block (none blank)
    ncols: int
    table: pa.Table   # column i = the i-th field, int64


def _canonical_block(text: str) -> _Block | None:
    """Every complete line of ``text``, when all of them are exactly ``digits, digits, ...``
    with one column count (4 to 6) and line ending; else None.

    Why: a per-IO log has millions of lines and the line path costs ~3 us each in Python;
    with Arrow's CSV reader the whole parse is ~7x faster. It is only trusted on lines whose
    every field is a plain decimal number (what fio writes), on which int()/float() and Arrow
    cannot disagree; any other line (blank, junk, hex priority, other column count, sign,
    spaces elsewhere) sends the whole file down the line path. A last line without newline
    (cut short) is left to the caller's line path."""
    end = text.rfind("\n") + 1
    if not end or not text.isascii():
        return None
    data = text[:end].encode("ascii")
    first = data[:data.index(b"\n") + 1]
    ncols = first.count(b",") + 1
    if not 4 <= ncols <= 6:
        return None
    lines = data.count(b"\n")
    unit = b", " * (ncols - 1) + (b"\r\n" if first.endswith(b"\r\n") else b"\n")
    if data.translate(None, b"0123456789") != unit * lines:
        return None  # some separator, character or line ending is not fio's
    names = [f"c{i}" for i in range(ncols)]
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pa_csv.ParseOptions(quote_char=False, escape_char=False),
            convert_options=pa_csv.ConvertOptions(column_types=dict.fromkeys(names, pa.int64())))
    except (pa.ArrowInvalid, ValueError):
        return None  # an empty field, or a number beyond int64
    if table.num_rows != lines or any(col.null_count for col in table.columns):
        return None
    # the lake reads record ints through float: larger ones take the line path
    if any(pc.max(col).as_py() >= EXACT_INT_LIMIT for col in table.columns):
        return None
    if pc.max(table.column(2)).as_py() > 2:
        return None  # unknown direction codes: the line path reports them
    return _Block(end, lines, ncols, table)


_TYPES = {"log_kind": pa.string(), "log_name": pa.string(), "job_index": pa.int64(),
          "raw_unit": pa.string(), "value_unit_assumed": pa.bool_(), "unit_evidence": pa.string()}


def _block_columns(block: _Block, fifth: str | None, constants: dict, divisor: float | None) -> dict:
    """fio_log_samples columns of a canonical block (what the line path would build per row)."""
    t, n = block.table, block.lines
    raw = pc.cast(t.column(1), pa.float64()).combine_chunks()
    columns = {name: pa.repeat(pa.scalar(value, _TYPES[name]), n) for name, value in constants.items()}
    columns.update({
        "line": pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), n)),
        "time_ms": t.column(0).combine_chunks(),
        "value": (pa.nulls(n, pa.float64()) if divisor is None
                  else pc.divide(raw, divisor) if divisor != 1.0 else raw),
        "value_raw": raw,
        "direction": pc.take(pa.array([DIRECTIONS[i] for i in range(3)]), t.column(2)).combine_chunks(),
        "block_size_bytes": t.column(3).combine_chunks(),
        "offset_bytes": pa.nulls(n, pa.int64()),
        "priority": pa.nulls(n, pa.int64()),
    })
    if fifth == "offset":
        columns["offset_bytes"] = t.column(4).combine_chunks()
    elif fifth == "priority":
        columns["priority"] = t.column(4).combine_chunks()
    elif fifth == "offset+priority":
        columns["offset_bytes"], columns["priority"] = t.column(4).combine_chunks(), t.column(5).combine_chunks()
    return {name: columns[name] for name in COLUMNS}


# --------------------------------------------------------------------------- step 3: values


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    with no_gc():
        return _parse(text, filename, fast=fast_readers_on())


def _parse(text: str, filename: str | None, fast: bool = True) -> ParseResult:
    """``fast=False`` reads every line in Python (the tests compare both paths)."""
    result = ParseResult(format=NAME)
    warn = _Warnings(result)
    block = _canonical_block(text) if fast else None
    if block is None:
        rows = sample = _split(text, warn)
        counts: dict[int, int] = {}
    else:
        # Only what follows the block (a last line cut short, if any) is read line by line.
        rows = _split(text[block.end:], warn, first_line=block.lines + 1)
        head = text.split("\n", _LAYOUT_SAMPLE)[:min(block.lines, _LAYOUT_SAMPLE)]
        sample = [(number, line.split(",")) for number, line in enumerate(head, 1)] + rows
        counts = {block.ncols: block.lines}
    if not rows and block is None:
        raise ParseError("no fio log samples (lines of 'time, value, direction, block size')",
                         result.issues[0].line if result.issues else None)
    for _, fields in rows:
        counts[len(fields)] = counts.get(len(fields), 0) + 1
    log_name, kind, job = name_parts(filename)
    if block is not None and _column_count(counts) != block.ncols:
        return _parse(text, filename, fast=False)  # the cut line outvotes a one-line block
    if kind is None:
        result.warn(None, "log kind unknown (file name is not <name>_<bw|iops|lat|clat|slat>[.N].log): "
                          "values kept raw, value and log_kind null")
    ncols, fifth, proves_fio3 = _layout(counts, sample, result)

    if kind in LATENCY_KINDS:
        raw_unit, divisor, assumed = "ns", 1000.0, not proves_fio3
    elif kind == "bw":
        raw_unit, divisor, assumed = "KiB/s", 1.0, False
    elif kind == "iops":
        raw_unit, divisor, assumed = "IO/s", 1.0, False
    else:
        raw_unit, divisor, assumed = None, None, None

    out = result.tables.setdefault("fio_log_samples", [])
    append, directions, isfinite = out.append, DIRECTIONS, math.isfinite
    wide = ncols >= 7
    for number, fields in rows:
        if len(fields) != ncols and not (wide and len(fields) >= 7):
            warn("unexpected column count", number, f"{len(fields)} columns where the file has {ncols}: skipped")
            continue
        try:
            time_ms, raw, ddir, bs = int(fields[0]), float(fields[1]), int(fields[2]), int(fields[3])
            offset = priority = None
            if fifth == "offset":
                offset = int(fields[4])
            elif fifth == "priority":
                priority = _int(fields[4])
            elif fifth == "offset+priority":
                offset, priority = int(fields[4]), _int(fields[5])
        except ValueError:
            warn("unreadable sample", number, f"unreadable sample: {','.join(fields).strip()[:120]}")
            continue
        direction = directions.get(ddir)
        if direction is None or not isfinite(raw) or time_ms < 0 or bs < 0:
            warn("unreadable sample", number, f"unreadable sample (direction code {fields[2].strip()!r}): skipped")
            continue
        append({
            "log_kind": kind, "log_name": log_name, "job_index": job, "line": number,
            "time_ms": time_ms,
            "value": None if divisor is None else (raw / divisor if divisor != 1.0 else raw),
            "value_raw": raw, "raw_unit": raw_unit, "value_unit_assumed": assumed,
            "direction": direction, "block_size_bytes": bs,
            "offset_bytes": offset, "priority": priority,
        })
    warn.summarize()
    if block is not None:
        constants = {"log_kind": kind, "log_name": log_name, "job_index": job,
                     "raw_unit": raw_unit, "value_unit_assumed": assumed}
        columns = _block_columns(block, fifth, constants, divisor)
        if any(type(v) is int and not -EXACT_INT_LIMIT < v < EXACT_INT_LIMIT for r in out for v in r.values()):
            return _parse(text, filename, fast=False)  # a last line with a huge number
        if out:  # the last line, cut short but readable
            columns = {name: pa.concat_arrays([col, pa.array([r[name] for r in out], col.type)])
                       for name, col in columns.items()}
        out = result.tables["fio_log_samples"] = Columns(columns)
    if not out:
        raise ParseError("no readable fio log samples", rows[0][0])
    if kind in LATENCY_KINDS:
        unit, assumed, evidence = _unit_in_file(out, proves_fio3)
        result.tables["fio_log_samples"] = apply_latency_unit(out, unit, assumed, evidence)
        if assumed:
            result.warn(None, f"{UNIT_NOTE} {evidence}")
        elif unit == "us":
            result.warn(None, f"{UNIT_NOTE} {_UNIT_NAMES[unit]}, {evidence}")
    return result


# --------------------------------------------------------------------------- latency unit

# Every note about a latency log's unit starts so (ingest replaces the file's own note when the
# run's other files decide the unit).
UNIT_NOTE = "latency unit:"
_UNIT_NAMES = {"ns": "nsec", "us": "usec"}
# A median latency under this many nanoseconds is not storage IO (the fastest devices take
# microseconds): such a log is in usec.
_IMPLAUSIBLE_NS = 100


def _unit_in_file(out, proves_fio3: bool) -> tuple[str, bool, str]:
    """(unit, assumed, evidence) from the file alone: its layout, else its magnitudes, else
    the documented assumption (nsec)."""
    if proves_fio3:
        return "ns", False, "layout: a priority column, which only fio >= 3.2 writes (nsec)"
    median = _upper_median(out.columns["value_raw"] if isinstance(out, Columns) else [r["value_raw"] for r in out])
    if median < _IMPLAUSIBLE_NS:
        return "us", False, (f"magnitude: median raw value {median:g} would be {median:g} ns, implausible "
                             "for storage IO, so the log is fio 2.x usec")
    return "ns", True, ("assumed nsec (fio >= 3.0): the file does not say; a fio 2.x log is usec and "
                        "would be 1000x larger than stored")


def apply_latency_unit(rows, unit: str, assumed: bool, evidence: str):
    """Latency samples read in ``unit`` ("ns" or "us"): value (usec) from value_raw, raw_unit,
    value_unit_assumed and unit_evidence set on every row. Returns the rows (changed in place)."""
    divisor = 1000.0 if unit == "ns" else 1.0
    if isinstance(rows, Columns):
        n = len(rows)
        raw = rows.columns["value_raw"]
        raw = raw if isinstance(raw, pa.Array) else pa.array(raw, pa.float64())
        rows.columns.update({
            "value": pc.divide(raw, divisor) if divisor != 1.0 else raw,
            "raw_unit": pa.repeat(pa.scalar(unit, pa.string()), n),
            "value_unit_assumed": pa.repeat(pa.scalar(assumed, pa.bool_()), n),
            "unit_evidence": pa.repeat(pa.scalar(evidence, pa.string()), n),
        })
        return rows
    for row in rows:
        raw = row["value_raw"]
        row.update(value=raw / divisor if divisor != 1.0 else raw, raw_unit=unit,
                   value_unit_assumed=assumed, unit_evidence=evidence)
    return rows


def decide_run_units(chunks: dict) -> dict[str, str]:
    """Decide the unit of latency logs the file alone could not settle (assumed, or read from
    magnitudes) from the run's other fio outputs, in this order: the fio version of a JSON,
    terse or text output of the same run (2.x writes usec, 3.x nsec), then Little's law (a
    job's IOs in flight over its IOPS is its mean latency: the unit whose reading of the log's
    median is within 10x of that, when the other is 100x off). ``chunks``: table -> lake
    chunks of one run. Rows are changed in place; returns {source_path: note} per decided log."""
    logs = [c for c in chunks.get("fio_log_samples", ()) if _open_unit(c.rows)]
    if not logs:
        return {}
    jobs = chunks.get("fio_jobs", ())
    decided = _by_version(jobs) or None
    notes = {}
    for chunk in logs:
        unit, evidence = decided or _by_littles_law(chunk.rows, jobs) or (None, None)
        if unit is None:
            continue
        before = chunk.rows[0]
        if before["unit_evidence"].startswith("magnitude") and before["raw_unit"] != unit:
            # two kinds of evidence disagree: the stronger one wins, and the note says so
            evidence += f" (but its own {before['unit_evidence'].split(',')[0]}: check which fio wrote it)"
        apply_latency_unit(chunk.rows, unit, False, evidence)
        notes[chunk.provenance.get("source_path")] = f"{UNIT_NOTE} {_UNIT_NAMES[unit]}, {evidence}"
    return notes


def _open_unit(rows) -> bool:
    """A latency log whose unit is assumed or came from magnitudes only."""
    if not len(rows):
        return False
    first = rows[0]
    evidence = first.get("unit_evidence") or ""
    return first.get("log_kind") in LATENCY_KINDS and evidence.startswith(("assumed", "magnitude"))


def _by_version(jobs) -> tuple[str, str] | None:
    found = {}
    for chunk in jobs:
        version = chunk.provenance.get("tool_version")
        m = re.match(r"(?:fio-)?(\d+)\.", version or "")
        if m:
            found.setdefault(int(m.group(1)), (version, chunk.provenance.get("source_path")))
    if len(found) != 1:
        return None   # none, or outputs of two fio generations: no single answer
    major, (version, path) = next(iter(found.items()))
    return ("us" if major < 3 else "ns"), f"fio version: {path} in the same run was written by fio {version}"


def _by_littles_law(rows, jobs) -> tuple[str, str] | None:
    expected = []   # (mean latency in usec that Little's law gives, how)
    for chunk in jobs:
        per_job: dict[tuple, list] = {}
        for row in chunk.rows:
            if row.get("is_aggregate") or not row.get("iops") or not row.get("outstanding_ios"):
                continue
            key = (row.get("doc_index"), row.get("job_index"))
            entry = per_job.setdefault(key, [row.get("outstanding_ios"), 0.0, row.get("job_name")])
            entry[1] += row["iops"]
        for depth, iops, name in per_job.values():
            expected.append((depth / iops * 1e6, f"job {name!r} of {chunk.provenance.get('source_path')}: "
                                                 f"{depth} IOs in flight at {iops:g} IOPS"))
    if not expected:
        return None
    median = _upper_median(rows.columns["value_raw"] if isinstance(rows, Columns) else [r["value_raw"] for r in rows])
    off = {unit: min((max(v / want, want / v), how, want) for want, how in expected)
           for unit, v in (("ns", median / 1000.0), ("us", median)) if v > 0}
    fits = [u for u, (ratio, _, _) in off.items() if ratio <= 10]
    if len(fits) != 1:   # the readings are 1000x apart: one fitting within 10x leaves the other 100x off
        return None
    unit = fits[0]
    _, how, want = off[unit]
    return unit, (f"Little's law: {how} means about {want:.3g} us per IO; the log's median raw "
                  f"value {median:g} fits that in {_UNIT_NAMES[unit]}")


def _upper_median(values: list[float] | pa.Array) -> float:
    """sorted(values)[len // 2], for a list or an Arrow array (sorted in C)."""
    if isinstance(values, list):
        return sorted(values)[len(values) // 2]
    order = pc.sort_indices(values)
    return values[order[len(values) // 2].as_py()].as_py()

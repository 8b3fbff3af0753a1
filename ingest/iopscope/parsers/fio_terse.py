"""fio terse output (``--minimal`` / ``--output-format=terse``), terse versions 2 to 5.

Tables written (the same tables and units as ``fio_json``)
-----------------------------------------------------------
``fio_jobs``         one row per job line x direction that did IO; latencies in usec
``fio_percentiles``  the completion-latency (clat) percentiles of each direction, usec
``fio_disk_util``    the disk utilisation groups, once per distinct disk and document

Format
------
One semicolon-separated line per job (fio's HOWTO, "Terse output")::

    version;[fio version (v3+)];jobname;groupid;error;
    READ;WRITE;[TRIM (v2 from fio 3.x, v4, v5)];
    cpu usr%;sys%;ctx;majf;minf; iodepth <=1..>=64 (7); lat usec <=2..1000 (10);
    lat msec <=2..>=2000 (12); [disk name;r ios;w ios;r merges;w merges;r ticks;w ticks;
    in queue;util% ...]; [total errors;first error (continue_on_error)]; [description]

Each direction is ``io KiB;bw KiB/s;iops;runtime ms; slat min;max;mean;stdev (usec);
clat min;max;mean;stdev (usec); 20 x 'P%=usec'; lat min;max;mean;stdev (usec);
bw min;max;agg%;mean;stdev (KiB/s)`` + in v5 ``;bw samples; iops min;max;mean;stdev;samples``.
fio converts its nsec latencies to usec for terse in every 3.x version.

Terse states no job options: rw, bs, iodepth, numjobs, outstanding_ios and the other
option columns are null (never guessed). ``total_ios`` is not printed either (null).

Variants handled
----------------
* v2 (no fio version; the job description on the next line), v3 (no trim), v4 (trim),
  v5 (bw samples and iops statistics); v2 with or without the trim block (decided by where
  the cpu ``usr%`` field falls).
* Unused percentile slots ``0%=0`` are dropped; directions with no IO are skipped.
* Client mode: text glued before the record (``Jobs: 2 (f=0)3;fio-3.33;...``, the ETA line
  without its newline) is reported and skipped; each client's disk utilisation comes on a
  line of its own (``;vda;...``) after its record (fio 3.33); the ``All clients`` line is
  ``is_aggregate``. Terse does not name the client: ``hostname`` is null.
* Documents: every job line repeats the run's disk block, so ``doc_index`` starts a new
  document when a record's disk block differs from the previous record's (another run
  appended to the file). ``job_index`` counts records within the document.
* Other text lines are reported and skipped; a line cut short is an error (status
  ``incomplete``); ``fio: terminating on signal N`` makes the run ``incomplete``
  ("interrupted"); fio error lines and no record make it ``failed``.

Reading
-------
``parse(text)`` reads a file of plain v3-v5 records (every line a record of one version and fio
version, one field count: what ``fio --minimal`` writes, also runs appended by a sweep script)
column-wise with Arrow's CSV reader (a 20 MB sweep: 1.78 -> 0.21 s of parse CPU, and Arrow
columns that conform no longer converts: 0.87 -> 0.02 s), also when the last record is cut
short (fio killed mid-line: it gets the row path's issue and status); anything else, or any
value the column-wise path cannot read exactly as the row-by-row path does, goes line by line.
``read_by_reference(fio_terse, text)`` forces the row-by-row path (tests/python/test_fio_terse_fast.py
holds the two to the same result).

Example
-------
>>> pct = ";".join(["50.000000%=80"] + ["0%=0"] * 19)
>>> d = "1000;500;125;2000;1;9;2.0;1.0;10;900;80.5;20.0;" + pct + ";12;910;82.5;21.0;400;600;100.0%;500;50"
>>> z = "0;0;0;0;0;0;0;0;0;0;0;0;" + ";".join(["0%=0"] * 20) + ";0;0;0;0;0;0;0%;0;0"
>>> tail = "1.0%;2.0%;100;0;5;" + ";".join(["0.0%"] * 29)
>>> r = parse("3;fio-3.33;job;0;0;" + d + ";" + z + ";" + tail + ";sda;10;0;0;0;5;0;5;50.00%")
>>> row = r.tables["fio_jobs"][0]
>>> (row["direction"], row["iops"], row["clat_mean_us"], row["rw"], r.tables["fio_percentiles"][0]["latency_us"])
('read', 125.0, 80.5, None, 80.0)
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, ParseResult, fastest_reading
from iopscope.units import to_float, to_int

NAME = "fio_terse"
VERSION = "1.0.0"
TOOL = "fio"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

AGGREGATE_NAME = "All clients"
_RECORD_V3 = re.compile(r"(?<![\d.])(\d+);(fio-[^;\s]*);")
_RECORD_V2 = re.compile(r"^\s*2;")
_DISK_LINE = re.compile(r"^\s*;([^;\d][^;]*;(?:\d+;){7}[\d.]+%)")
_ERROR_LINE = re.compile(r"^(?:fio:|error:)")
_SIGNAL_LINE = re.compile(r"^\s*fio: terminating on signal (\d+)", re.M)
TAIL_FIELDS = 5 + 7 + 10 + 12  # cpu, iodepth, lat usec, lat msec
DISK_FIELDS = 9


def _dir_fields(version: int) -> int:
    return 47 if version >= 5 else 41


def detect(head: str, filename: str) -> float:
    if head.count(";") < 100:  # one terse record alone has 120+
        return 0.0
    for line in head.split("\n", 50)[:50]:
        if line.count(";") < 100:
            continue
        if _RECORD_V3.search(line) or _RECORD_V2.match(line):
            return 0.9
    return 0.0


# --------------------------------------------------------------------------- step 1: lines


def _records(text: str, result: ParseResult) -> list[tuple[int, str, Any]]:
    """Classify lines: ('record', fields) | ('disks', fields) | ('text', line)."""
    out: list[tuple[int, str, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        m = _RECORD_V3.search(line)
        start = m.start() if m and line.count(";") >= 60 else None
        if start is None and _RECORD_V2.match(line) and line.count(";") >= 60:
            start = 0
        if start is not None:
            if line[:start].strip():
                result.warn(number, f"text before the terse record skipped: {line[:start].strip()[:80]}")
            out.append((number, "record", line[start:].rstrip().split(";")))
            continue
        d = _DISK_LINE.match(line)
        if d:
            out.append((number, "disks", line.strip().lstrip(";").split(";")))
            continue
        out.append((number, "text", line.strip()))
    return out


# --------------------------------------------------------------------------- step 2: values


def _pct(field: str) -> float | None:
    return to_float(field.strip().rstrip("%"))


def _percentile(field: str) -> tuple[float, float] | None:
    if "%=" not in field:
        return None
    p, v = field.split("%=", 1)
    pct, val = to_float(p), to_float(v)
    if pct is None or val is None or (pct == 0.0 and val == 0.0):
        return None
    return pct, val


def _direction(fields: list[str], version: int) -> tuple[dict, list[tuple[float, float]]] | None:
    """fio_jobs columns of one direction block, and its percentiles; None when it did no IO."""
    f = fields
    io_kib, bw_kib, iops = to_float(f[0]), to_float(f[1]), to_float(f[2])
    if not io_kib and not iops:
        return None
    row: dict[str, Any] = {
        "runtime_ms": to_float(f[3]),
        "io_bytes": None if io_kib is None else int(io_kib * 1024),
        "bw_bytes_per_s": None if bw_kib is None else bw_kib * 1024,
        "bw_mib_per_s": None if bw_kib is None else bw_kib / 1024,
        "iops": iops,
        "total_ios": None, "short_ios": None, "dropped_ios": None,
    }
    for kind, at in (("slat", 4), ("clat", 8), ("lat", 32)):
        for offset, stat in enumerate(("min", "max", "mean", "stdev")):
            row[f"{kind}_{stat}_us"] = to_float(f[at + offset])
    row.update({
        "bw_min_kib_per_s": to_float(f[36]), "bw_max_kib_per_s": to_float(f[37]),
        "bw_agg_pct": _pct(f[38]), "bw_mean_kib_per_s": to_float(f[39]),
        "bw_stdev_kib_per_s": to_float(f[40]),
        "bw_samples": to_int(f[41]) if version >= 5 else None,
        "iops_min": to_float(f[42]) if version >= 5 else None,
        "iops_max": to_float(f[43]) if version >= 5 else None,
        "iops_mean": to_float(f[44]) if version >= 5 else None,
        "iops_stdev": to_float(f[45]) if version >= 5 else None,
        "iops_samples": to_int(f[46]) if version >= 5 else None,
    })
    percentiles, seen = [], set()
    for field in f[12:32]:
        pv = _percentile(field)
        if pv and pv[0] not in seen:
            seen.add(pv[0])
            percentiles.append(pv)
    return row, percentiles


def _disk_groups(fields: list[str]) -> tuple[list[tuple], list[str]]:
    """Leading disk utilisation groups (9 fields each) and the fields left after them."""
    disks = []
    i = 0
    while i + DISK_FIELDS <= len(fields):
        group = fields[i:i + DISK_FIELDS]
        if (group[0] and to_float(group[0]) is None and all(to_int(x) is not None for x in group[1:8])
                and group[8].endswith("%")):
            disks.append(tuple(group))
            i += DISK_FIELDS
        else:
            break
    return disks, fields[i:]


def _disk_row(doc_index: int, group: tuple) -> dict:
    name, r_ios, w_ios, r_merge, w_merge, r_ticks, w_ticks, in_queue, util = group
    row: dict[str, Any] = {
        "doc_index": doc_index, "disk_name": name, "hostname": None,
        "read_ios": to_int(r_ios), "write_ios": to_int(w_ios),
        "read_merges": to_int(r_merge), "write_merges": to_int(w_merge),
        "read_ticks_ms": to_int(r_ticks), "write_ticks_ms": to_int(w_ticks),
        "in_queue_ms": to_int(in_queue), "util_pct": _pct(util),
    }
    for key in ("aggr_read_ios", "aggr_write_ios", "aggr_read_merges", "aggr_write_merges",
                "aggr_read_ticks_ms", "aggr_write_ticks_ms", "aggr_in_queue_ms", "aggr_util_pct"):
        row[key] = None  # terse has no md aggregate fields
    return row


def _layout(fields: list[str], version: int) -> list[str] | None:
    """The directions this record holds, or None when its fields do not line up."""
    header = 4 if version == 2 else 5
    size = _dir_fields(version)
    options = {2: (("read", "write"), ("read", "write", "trim")), 3: (("read", "write"),)}
    for dirs in options.get(version, (("read", "write", "trim"),)):
        cpu = header + size * len(dirs)
        if len(fields) >= cpu + TAIL_FIELDS and fields[cpu].endswith("%") and fields[cpu + 1].endswith("%"):
            return list(dirs)
    return None


# --------------------------------------------------------------------------- parse


_OPTION_COLUMNS = ("rw", "read_pct", "block_size", "block_size_bytes", "ioengine", "iodepth",
                   "numjobs", "group_reporting", "outstanding_ios", "direct", "size", "filename",
                   "time_based", "runtime_option_s", "ramp_time_s", "job_options_json",
                   "elapsed_s", "job_runtime_ms", "started_at", "hostname")


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the records column by column where it can, else row by row (the same output)."""
    return fastest_reading(text, (_parse_columns,), _parse_rows)


def _parse_rows(text: str) -> ParseResult:
    """The reference path: line by line, record by record, every variant and oddity."""
    result = ParseResult(format=NAME)
    lines = _records(text, result)
    if not any(kind == "record" for _, kind, _ in lines):
        errors = [ln for _, kind, ln in lines if kind == "text" and _ERROR_LINE.match(ln)]
        if errors:
            result.status = "failed"
            result.status_reason = "; ".join(errors)[:2000]
            m = re.search(r"\bfio-(\d+\.\d+[^\s;,]*)", text)
            result.tool_version = m.group(1) if m else None
            return result
        raise ParseError("no fio terse record (a line '3;fio-x.y;job;group;error;...')")
    doc_index, job_index = 0, 0
    prev_disks: tuple = ()
    doc_disks: dict[int, list[tuple]] = {}
    last_kind = None
    for number, kind, payload in lines:
        if kind == "text":
            if last_kind == "record" and result.facts.get("terse_version") == 2 \
                    and not _ERROR_LINE.match(payload):
                last_kind = "description"
                continue  # terse v2 prints the job description on the next line
            result.warn(number, f"skipped non-terse text: {payload[:120]}")
            last_kind = kind
            continue
        if kind == "disks":
            disks, rest = _disk_groups(payload)
            for group in disks:
                _note_disk(doc_disks, doc_index, group)
            if rest and any(x.strip() for x in rest):
                result.warn(number, "unreadable fields after the disk utilisation groups")
            last_kind = kind
            continue
        fields = payload
        version = to_int(fields[0])
        if version not in (2, 3, 4, 5):
            result.error(number, f"terse version {fields[0]!r} is not one fio writes (2-5): line skipped")
            result.status = "incomplete"
            continue
        result.facts.setdefault("terse_version", version)
        if version >= 3 and result.tool_version is None:
            result.tool_version = fields[1].removeprefix("fio-") or None
        dirs = _layout(fields, version)
        if dirs is None:
            result.error(number, f"terse v{version} record cut short or fields out of line "
                                 f"({len(fields)} fields): skipped")
            result.status = "incomplete"
            result.status_reason = result.status_reason or f"terse record at line {number} unreadable"
            last_kind = "record"
            continue
        header = 4 if version == 2 else 5
        size = _dir_fields(version)
        cpu_at = header + size * len(dirs)
        disks, rest = _disk_groups(fields[cpu_at + TAIL_FIELDS:])
        if disks and prev_disks and tuple(disks) != prev_disks:
            doc_index, job_index = doc_index + 1, 0
        if disks:
            prev_disks = tuple(disks)
        for group in disks:
            _note_disk(doc_disks, doc_index, group)
        _extra(number, rest, result)
        name = fields[header - 3]
        cpu = fields[cpu_at:cpu_at + 5]
        common: dict[str, Any] = {
            "doc_index": doc_index, "job_index": job_index, "job_name": name,
            "group_id": to_int(fields[header - 2]), "is_aggregate": name == AGGREGATE_NAME,
            "is_interim": False, "error_code": to_int(fields[header - 1]),
            "usr_cpu_pct": _pct(cpu[0]), "sys_cpu_pct": _pct(cpu[1]),
            "ctx_switches": to_int(cpu[2]), "major_faults": to_int(cpu[3]),
            "minor_faults": to_int(cpu[4]),
        }
        common.update({c: None for c in _OPTION_COLUMNS})
        for i, direction in enumerate(dirs):
            block = fields[header + i * size: header + (i + 1) * size]
            parsed = _direction(block, version)
            if parsed is None:
                continue
            stats, percentiles = parsed
            result.add("fio_jobs", {**common, "direction": direction, **stats})
            for pct, value in percentiles:
                result.add("fio_percentiles", {
                    "doc_index": doc_index, "job_index": job_index, "direction": direction,
                    "latency_kind": "clat", "percentile": pct, "latency_us": value,
                })
        job_index += 1
        last_kind = "record"
    for index, groups in doc_disks.items():
        for group in groups:
            result.add("fio_disk_util", _disk_row(index, group))
    m = _SIGNAL_LINE.search(text)
    if m and result.status == "complete":
        result.status = "incomplete"
        result.status_reason = f"interrupted: fio: terminating on signal {m.group(1)}"
    return result


def _note_disk(doc_disks: dict, doc_index: int, group: tuple) -> None:
    seen = doc_disks.setdefault(doc_index, [])
    if group not in seen:
        seen.append(group)


def _extra(number: int, rest: list[str], result: ParseResult) -> None:
    """continue_on_error's 'total errors;first error' and a description may follow: both ignored."""
    rest = [x for x in rest]
    if rest and rest[-1] == "":
        rest = rest[:-1]
    if len(rest) >= 2 and to_int(rest[0]) is not None and to_int(rest[1]) is not None:
        errors = to_int(rest[0])
        if errors:
            result.warn(number, f"job reported {errors} IO errors (first error {rest[1]}) under continue_on_error")


# --------------------------------------------------------------------------- fast path
#
# A file of terse v3-v5 records and nothing else (what ``fio --minimal`` writes, also when a
# sweep script appends run after run to one file) is read column-wise: one Arrow CSV read with
# ';' as the delimiter, Arrow float parsing, and the rows of fio_jobs / fio_percentiles laid
# out record-major by one index array. Anything the row path would warn about, skip or read
# in its own way (text lines, v2, another field count, a value float() reads and Arrow does
# not, nan, a percentile list that changes between jobs ...) raises NeedsRowPath, and parse()
# reads the file row by row instead: the result is the same either way, only slower.

_LINE_PREFIX = re.compile(r"([345]);(fio-[^;\s]*);")
_DIRECTIONS = {3: ("read", "write"), 4: ("read", "write", "trim"), 5: ("read", "write", "trim")}
PERCENTILE_SLOTS = 20
_INT64_END = 2.0 ** 63  # floats in [-2**63, 2**63) truncate to int64 without overflow
_STAT_AT = {"slat": 4, "clat": 8, "lat": 32}
_V5_FLOATS = {"iops_min": 42, "iops_max": 43, "iops_mean": 44, "iops_stdev": 45}
_V5_INTS = {"bw_samples": 41, "iops_samples": 46}



def _parse_columns(text: str) -> ParseResult:
    if not text.isascii() or "\r" in text:
        raise NeedsRowPath("non-ASCII text or CR line ends")
    m = _LINE_PREFIX.match(text)
    if m is None:
        raise NeedsRowPath("the file does not start with a terse v3-v5 record")
    prefix, version = m.group(0), int(m.group(1))
    first_end, cut = text.find("\n"), text.rfind("\n") + 1
    last = text[cut:]
    if first_end < 0 or not last or last.count(";") == text.count(";", 0, first_end):
        return _parse_records(text, prefix, version)   # one line, or all as long as the first
    result = _parse_records(text[:cut], prefix, version)
    _cut_line(result, last, text.count("\n", 0, cut) + 1, prefix, version)
    return result


def _cut_line(result: ParseResult, last: str, number: int, prefix: str, version: int) -> None:
    """What the row path makes of a last line with fewer fields than the records before it,
    the writer killed mid-record (output to a file is block-buffered): the fast path read the
    lines before it, which hold no issue, so the row path's one issue for this line comes
    last. Exact for a blank line, text that is no record (under 60 ';', _records' test) and a
    record whose fields _layout does not line up; anything else goes to the row path."""
    if not last.strip():
        return                                     # a blank line: skipped
    if last.count(";") < 60:
        if _DISK_LINE.match(last) or _SIGNAL_LINE.search(last):
            raise NeedsRowPath("a disk or signal line at the end")
        result.warn(number, f"skipped non-terse text: {last.strip()[:120]}")
        return
    fields = last.rstrip().split(";")
    if not last.startswith(prefix) or _layout(fields, version) is not None:
        raise NeedsRowPath("a last record the row path reads")
    result.error(number, f"terse v{version} record cut short or fields out of line "
                         f"({len(fields)} fields): skipped")
    result.status = "incomplete"
    result.status_reason = f"terse record at line {number} unreadable"


def _parse_records(text: str, prefix: str, version: int) -> ParseResult:
    """Lines that are all whole records like the first (``prefix``: its version and fio)."""
    n = text.count("\n") + (not text.endswith("\n"))
    if text.count("\n" + prefix) != n - 1:  # every line a record of this version and fio
        raise NeedsRowPath("a line that is not a record like the first")
    dirs = _DIRECTIONS[version]
    size = _dir_fields(version)
    cpu_at = 5 + size * len(dirs)
    disk_at = cpu_at + TAIL_FIELDS
    first_end = text.find("\n")
    width = text.count(";", 0, first_end if first_end >= 0 else len(text)) + 1
    if width < disk_at or (width - disk_at) % DISK_FIELDS:
        raise NeedsRowPath("fields after the disk groups, or too few fields")
    table = _read_fields(text, width, dirs, size, cpu_at, disk_at)
    if table.num_rows != n:
        raise NeedsRowPath("Arrow read another number of records")
    col = {name: (c.chunk(0) if c.num_chunks == 1 else c.combine_chunks())
           for name, c in zip(table.column_names, table.columns)}

    result = ParseResult(format=NAME)
    result.facts["terse_version"] = version
    result.tool_version = prefix.split(";")[1].removeprefix("fio-") or None
    doc, job, doc_starts = _documents(col, n, (width - disk_at) // DISK_FIELDS, disk_at)

    common = {
        "doc_index": doc, "job_index": job, "job_name": col["f2"],
        "group_id": _ints(col["f3"]), "is_aggregate": pc.equal(col["f2"], AGGREGATE_NAME),
        "is_interim": pa.repeat(False, n), "error_code": _ints(col["f4"]),
        "usr_cpu_pct": _percent(col[f"f{cpu_at}"], required=True),
        "sys_cpu_pct": _percent(col[f"f{cpu_at + 1}"], required=True),
        "ctx_switches": _ints(col[f"f{cpu_at + 2}"]), "major_faults": _ints(col[f"f{cpu_at + 3}"]),
        "minor_faults": _ints(col[f"f{cpu_at + 4}"]),
    }
    blocks = [_direction_columns(col, 5 + d * size, version) for d in range(len(dirs))]
    did_io = [pc.invert(pc.and_(pc.equal(b.pop("_io_kib"), 0.0), pc.equal(b["iops"], 0.0)))
              for b in blocks]

    rows, layout = _record_major(n, len(dirs), pa.concat_arrays(did_io))
    if len(rows):
        jobs = {name: pc.take(values, rows) for name, values in common.items()}
        jobs.update({c: pa.nulls(len(rows)) for c in _OPTION_COLUMNS})
        jobs["direction"] = pc.take(pa.array(dirs), layout)
        for name in blocks[0]:
            jobs[name] = pc.take(pa.concat_arrays([b[name] for b in blocks]), _flat(rows, layout, n))
        result.tables["fio_jobs"] = Columns(jobs)
        percentiles = _percentile_columns(col, dirs, size, rows, layout, jobs)
        if percentiles is not None:
            result.tables["fio_percentiles"] = percentiles
    disk_rows = _disk_rows(col, doc_starts, (width - disk_at) // DISK_FIELDS, disk_at)
    if disk_rows:
        result.tables["fio_disk_util"] = disk_rows
    # No line is anything but a record, so there is no warning, no error line and no
    # 'fio: terminating on signal' line: the status stays complete, as the row path says.
    return result


def _read_fields(text: str, width: int, dirs: tuple, size: int, cpu_at: int, disk_at: int) -> pa.Table:
    """The fields parse() uses, as Arrow columns ``f<index>``: numbers as float64 (Arrow reads
    a subset of what float() reads, identically; anything else fails the read), the rest as
    text. The iodepth and latency distributions are not read at all."""
    types: dict[str, pa.DataType] = {"f2": pa.string(), "f3": pa.float64(), "f4": pa.float64()}
    for d in range(len(dirs)):
        at = 5 + d * size
        for offset in range(size):
            slot = 12 <= offset < 32 or offset == 38  # 'P%=usec' and 'agg%' fields
            types[f"f{at + offset}"] = pa.string() if slot else pa.float64()
    types.update({f"f{cpu_at}": pa.string(), f"f{cpu_at + 1}": pa.string()})
    types.update({f"f{cpu_at + i}": pa.float64() for i in (2, 3, 4)})
    # Disk groups stay text: the row path starts a document where their text changes.
    types.update({f"f{i}": pa.string() for i in range(disk_at, width)})
    names = [f"f{i}" for i in range(width)]
    data = text.encode("ascii")  # a last newline ends the last record, it adds none
    try:
        return pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(column_names=names, use_threads=False,
                                            block_size=min(len(data) + 1, 1 << 30)),
            parse_options=pa_csv.ParseOptions(delimiter=";", quote_char=False, double_quote=False,
                                              escape_char=False, ignore_empty_lines=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types, include_columns=list(types), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise NeedsRowPath(f"Arrow cannot read the records: {exc}") from None


def _floats(values: pa.Array) -> pa.Array:
    """to_float of every value: nan/inf (null in to_float) are left to the row path."""
    if values.null_count or not pc.all(pc.is_finite(values)).as_py():
        raise NeedsRowPath("nan, inf or an empty number")
    return values


def _ints(values: pa.Array) -> pa.Array:
    """to_int of every value: int(float(x)), i.e. truncated toward zero."""
    bounds = pc.min_max(_floats(values)).as_py()
    if len(values) and not (-_INT64_END <= bounds["min"] and bounds["max"] < _INT64_END):
        raise NeedsRowPath("an integer beyond int64")
    return values.cast(pa.int64(), safe=False)


def _percent(values: pa.Array, required: bool = False) -> pa.Array:
    """_pct of every value ('3.700000%' -> 3.7); ``required``: the row path's layout check
    wants the '%' (without it the record is not read as this layout)."""
    if required and not pc.all(pc.ends_with(values, "%")).as_py():
        raise NeedsRowPath("a cpu percentage without '%'")
    try:
        return _floats(pc.utf8_rtrim(values, characters="%").cast(pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise NeedsRowPath("a percentage Arrow does not read") from None


def _direction_columns(col: dict, at: int, version: int) -> dict[str, pa.Array]:
    """_direction's columns for every record (whether or not the direction did IO), plus the
    io KiB as ``_io_kib`` (it decides, with iops, which records have a row)."""
    def f(offset: int) -> pa.Array:
        return _floats(col[f"f{at + offset}"])

    io_kib, bw_kib, n = f(0), f(1), len(col["f2"])
    block: dict[str, pa.Array] = {
        "_io_kib": io_kib,
        "runtime_ms": f(3),
        "io_bytes": _ints(pc.multiply(io_kib, 1024.0)),
        "bw_bytes_per_s": pc.multiply(bw_kib, 1024.0),
        "bw_mib_per_s": pc.divide(bw_kib, 1024.0),
        "iops": f(2),
        "total_ios": pa.nulls(n), "short_ios": pa.nulls(n), "dropped_ios": pa.nulls(n),
    }
    for kind, first in _STAT_AT.items():
        for offset, stat in enumerate(("min", "max", "mean", "stdev")):
            block[f"{kind}_{stat}_us"] = f(first + offset)
    block.update({
        "bw_min_kib_per_s": f(36), "bw_max_kib_per_s": f(37),
        "bw_agg_pct": _percent(col[f"f{at + 38}"]), "bw_mean_kib_per_s": f(39),
        "bw_stdev_kib_per_s": f(40),
    })
    for name in ("bw_samples", "iops_min", "iops_max", "iops_mean", "iops_stdev", "iops_samples"):
        if version < 5:
            block[name] = pa.nulls(n)
        elif name in _V5_INTS:
            block[name] = _ints(col[f"f{at + _V5_INTS[name]}"])
        else:
            block[name] = f(_V5_FLOATS[name])
    return block


def _arange(count: int) -> pa.Array:
    return pc.subtract(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), count)), 1)


def _record_major(n: int, k: int, keep: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Record and slot of each kept cell of an n x k grid, record-major (the order the row path
    appends rows in). ``keep`` is slot-major: the k columns of n records one after another."""
    position = _arange(n * k)
    record = pc.divide(position, k)                    # integer division
    slot = pc.subtract(position, pc.multiply(record, k))
    wanted = pc.take(keep, pc.add(pc.multiply(slot, n), record))
    return pc.filter(record, wanted), pc.filter(slot, wanted)


def _flat(record: pa.Array, slot: pa.Array, n: int) -> pa.Array:
    """Index into slot-major concatenated columns of (record, slot) cells."""
    return pc.add(pc.multiply(slot, n), record)


def _percentile_columns(col: dict, dirs: tuple, size: int, record: pa.Array, layout: pa.Array,
                        jobs: dict) -> Columns | None:
    """fio_percentiles of the fio_jobs rows (``record``, direction index ``layout``): each
    direction's 'P%=usec' slots without the unused '0%=0' ones. fio prints one percentile list
    per job (percentile_list), so in the records where a direction did IO each slot must hold
    the same percentile (the same text before '%='); a list that changes, a used '0%=v' slot or
    a percentile printed twice (which _direction de-duplicates) is left to the row path."""
    m = len(record)
    kept: list[list[tuple[float, pa.Array]]] = []  # per direction: (percentile, usec per row)
    where = [pc.equal(layout, d) for d in range(len(dirs))]
    for d in range(len(dirs)):
        mine = pc.filter(record, where[d])
        kept.append([])
        for s in range(PERCENTILE_SLOTS if len(mine) else 0):
            texts = pc.take(col[f"f{5 + d * size + 12 + s}"], mine)
            first = texts[0].as_py()
            cut = first.find("%=")
            pct = to_float(first[:cut]) if cut >= 0 else None
            if pct is None or not pc.all(pc.starts_with(texts, first[:cut + 2])).as_py():
                raise NeedsRowPath("a percentile list that changes between records")
            try:
                usec = _floats(pc.utf8_slice_codeunits(texts, cut + 2).cast(pa.float64()))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise NeedsRowPath("a percentile value Arrow does not read") from None
            if pct == 0.0:  # '0%=0' is an unused slot; '0%=5' would be a row
                if not pc.all(pc.equal(usec, 0.0)).as_py():
                    raise NeedsRowPath("a used slot at percentile 0")
                continue
            kept[d].append((pct, usec))
        if len({pct for pct, _ in kept[d]}) != len(kept[d]):
            raise NeedsRowPath("a percentile printed twice")
    width = max(len(k) for k in kept)
    if not width:
        return None
    # fio_jobs row j holds the first len(kept[direction of j]) slots of a width-slot grid
    cell = _arange(m * width)
    row = pc.divide(cell, width)
    slot = pc.subtract(cell, pc.multiply(row, width))
    if {len(k) for k, rows in zip(kept, where) if pc.any(rows).as_py()} != {width}:
        wanted = pc.less(slot, pc.take(pa.array([len(k) for k in kept], pa.int64()), pc.take(layout, row)))
        row, slot = pc.filter(row, wanted), pc.filter(slot, wanted)
    percentile, usec = [], []
    for s in range(width):  # rank s of every fio_jobs row, from its direction's slot
        percentile.append(pc.take(pa.array([k[s][0] if s < len(k) else 0.0 for k in kept]), layout))
        values = pa.repeat(0.0, m)  # filler where the direction has fewer slots (filtered out)
        for d, k in enumerate(kept):
            if s < len(k):
                values = pc.replace_with_mask(values, where[d], k[s][1])
        usec.append(values)
    percentile, usec = pa.concat_arrays(percentile), pa.concat_arrays(usec)
    flat = _flat(row, slot, m)
    return Columns({
        "doc_index": pc.take(jobs["doc_index"], row), "job_index": pc.take(jobs["job_index"], row),
        "direction": pc.take(jobs["direction"], row),
        "latency_kind": pa.repeat("clat", len(row)),
        "percentile": pc.take(percentile, flat), "latency_us": pc.take(usec, flat),
    })


def _documents(col: dict, n: int, disks: int, disk_at: int) -> tuple[pa.Array, pa.Array, list[int]]:
    """doc_index and job_index of every record, and the first record of each document: a new
    document starts where the disk groups' text differs from the previous record's."""
    starts = pa.repeat(False, n - 1)
    for i in range(disk_at, disk_at + disks * DISK_FIELDS):
        values = col[f"f{i}"]
        starts = pc.or_(starts, pc.not_equal(values.slice(1), values.slice(0, n - 1)))
    starts = pa.concat_arrays([pa.array([True]), starts])
    position = _arange(n)
    doc = pc.subtract(pc.cumulative_sum(starts.cast(pa.int64())), 1)
    first = pc.filter(position, starts)
    job = pc.subtract(position, pc.take(first, doc))
    return doc, job, first.to_pylist()


def _disk_rows(col: dict, doc_starts: list[int], disks: int, disk_at: int) -> list[dict]:
    """fio_disk_util: the groups of each document's first record (every record of a document
    has the same ones), read by the row path's own functions; groups it would not take as
    disk groups (a numeric name, a count that is not a number) send the file to the row path."""
    if not disks:
        return []
    fields = [col[f"f{i}"] for i in range(disk_at, disk_at + disks * DISK_FIELDS)]
    rows = []
    for doc_index, at in enumerate(doc_starts):
        groups, rest = _disk_groups([f[at].as_py() for f in fields])
        if rest:
            raise NeedsRowPath("disk groups the row path does not read as such")
        seen: dict[int, list[tuple]] = {}
        for group in groups:
            _note_disk(seen, doc_index, group)
        rows += [_disk_row(doc_index, group) for group in seen[doc_index]]
    return rows

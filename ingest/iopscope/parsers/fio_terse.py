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

from iopscope.parsers.base import ParseError, ParseResult
from iopscope.units import to_float, to_int

NAME = "fio_terse"
VERSION = "1.0.0"
TOOL = "fio"

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


def parse(text: str) -> ParseResult:
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

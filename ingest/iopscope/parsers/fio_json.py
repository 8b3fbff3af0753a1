"""fio ``--output-format=json`` and ``json+`` results, fio 2.x to 3.x.

Tables written
--------------
``fio_jobs``            one row per job entry x direction (read, write, trim) that did IO
``fio_percentiles``     one row per printed latency percentile
``fio_histogram_bins``  json+ only: the ``bins`` of clat_ns / lat_ns / slat_ns
``fio_disk_util``       the ``disk_util`` block, md ``aggr_*`` keys included

Every latency is converted to microseconds: fio 2.x prints ``clat``/``lat``/``slat`` in usec,
fio 3.x prints ``clat_ns``/``lat_ns``/``slat_ns`` in nsec (and percentiles in the same unit).

Variants handled
----------------
* Lines before the document (``fio: terminating on signal 2``), several documents in one
  file with other text between them, and a document cut short (status ``incomplete``).
* Duplicate keys: in ``percentile`` (fio 2.x prints unused slots as ``"0.00": 0`` several
  times: those are dropped) and in ``global options`` (the last one wins, as in fio).
* ``--client`` mode: ``client_stats`` instead of ``jobs``, ``global options`` as an array,
  an ``All clients`` aggregate entry (``is_aggregate``).
* ``job_runtime`` is summed over threads: it is never used as wall time (``elapsed`` is).
* An output with no document but fio's own error lines is a ``failed`` run.

Example
-------
>>> r = parse('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "groupid": 0, '
...           '"error": 0, "job options": {"rw": "randread", "bs": "4k", "iodepth": "8"}, '
...           '"read": {"io_bytes": 4096, "bw_bytes": 4096, "iops": 1.0, "runtime": 1000, '
...           '"total_ios": 1, "clat_ns": {"min": 1000, "max": 1000, "mean": 1000, '
...           '"stddev": 0, "percentile": {"99.000000": 1000}}}}]}')
>>> row = r.tables["fio_jobs"][0]
>>> (row["direction"], row["outstanding_ios"], row["clat_mean_us"], r.tool_version)
('read', 8, 1.0, '3.33')
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from iopscope.parsers.base import ParseError, ParseResult
from iopscope.units import fio_seconds, fio_size_bytes, to_bool, to_float, to_int

NAME = "fio_json"
VERSION = "1.0.0"
TOOL = "fio"

DIRECTIONS = ("read", "write", "trim")
LATENCY_KINDS = ("slat", "clat", "lat")
_ERROR_LINE = re.compile(r"^(?:fio:|error:|fio: pid=\d+, err=)", re.M)


def detect(head: str, filename: str) -> float:
    if '"fio version"' in head and ('"jobs"' in head or '"client_stats"' in head):
        return 0.95
    if '"fio version"' in head:
        return 0.7
    return 0.0


# --------------------------------------------------------------------------- reading


class _Pairs(list):
    """A JSON object kept as its key/value pairs, so duplicate keys survive json.loads."""


def _keep_pairs(pairs: list[tuple[str, Any]]) -> _Pairs:
    return _Pairs(pairs)


def _last_wins(obj: Any) -> Any:
    """Pairs -> dict, where a repeated key takes its last value (fio's own rule for options)."""
    if isinstance(obj, _Pairs):
        return {k: _last_wins(v) for k, v in obj}
    if isinstance(obj, list):
        return [_last_wins(v) for v in obj]
    return obj


def _documents(text: str, result: ParseResult) -> list[tuple[int, Any]]:
    """Every JSON object that starts a line, with its 1-based line; junk between is reported."""
    decoder = json.JSONDecoder(object_pairs_hook=_keep_pairs)
    docs: list[tuple[int, Any]] = []
    pos, n = 0, len(text)
    while pos < n:
        start = text.find("{", pos)
        if start < 0:
            tail = text[pos:].strip()
            if tail:
                _report_junk(text, pos, n, result)
            break
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():
            # A brace inside a text line: skip the whole line.
            end = text.find("\n", start)
            end = n if end < 0 else end + 1
            _report_junk(text, pos, end, result)
            pos = end
            continue
        if text[pos:start].strip():
            _report_junk(text, pos, start, result)
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            result.error(line, f"JSON document cut short or damaged: {exc.msg}")
            result.status = "incomplete"
            # Try to resynchronise on a later document that starts a line.
            nxt = text.find("\n{", start + 1)
            if nxt < 0:
                break
            pos = nxt + 1
            continue
        docs.append((text.count("\n", 0, start) + 1, obj))
        pos = end
    return docs


def _report_junk(text: str, start: int, end: int, result: ParseResult) -> None:
    chunk = text[start:end]
    first_line = text.count("\n", 0, start) + 1
    for offset, line in enumerate(chunk.split("\n")):
        if line.strip():
            result.warn(first_line + offset, f"skipped non-JSON text: {line.strip()[:120]}")


# --------------------------------------------------------------------------- parse


def parse(text: str) -> ParseResult:
    result = ParseResult(format=NAME)
    docs = _documents(text, result)
    fio_docs = [(line, d) for line, d in docs if _is_fio_doc(d)]
    if not fio_docs:
        errors = [m.group(0) for m in _ERROR_LINE.finditer(text)]
        if errors and not docs:
            messages = [ln.strip() for ln in text.splitlines() if _ERROR_LINE.match(ln.strip())]
            result.status = "failed"
            result.status_reason = "; ".join(messages)[:2000]
            result.issues = [i for i in result.issues if i.severity == "error"]
            result.tool_version = _version_from_text(text)
            return result
        if docs:
            raise ParseError("JSON found, but no fio result document (no 'fio version' key)", docs[0][0])
        first_error = next((i for i in result.issues if i.severity == "error"), None)
        raise ParseError(first_error.reason if first_error else "no JSON document found",
                         first_error.line if first_error else None)
    for doc_index, (line, pairs) in enumerate(fio_docs):
        _parse_document(doc_index, line, pairs, result)
    return result


def _is_fio_doc(obj: Any) -> bool:
    return isinstance(obj, _Pairs) and any(k == "fio version" for k, _ in obj)


def _version_from_text(text: str) -> str | None:
    m = re.search(r"\bfio-(\d+\.\d+[^\s\",]*)", text)
    return m.group(1) if m else None


def _clean_version(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    return raw.strip().removeprefix("fio-") or None


def _parse_document(doc_index: int, line: int, pairs: _Pairs, result: ParseResult) -> None:
    doc = _last_wins(pairs)
    version = _clean_version(doc.get("fio version"))
    if version and result.tool_version is None:
        result.tool_version = version
    started_at = None
    if isinstance(doc.get("timestamp"), (int, float)):
        started_at = datetime.fromtimestamp(doc["timestamp"], tz=timezone.utc)
    global_opts = _merge_global_options(doc.get("global options"))
    # Percentile objects keep their duplicates: look them up in the raw pairs.
    raw_jobs = _raw_list(pairs, "jobs") or _raw_list(pairs, "client_stats") or []
    jobs = doc.get("jobs") if isinstance(doc.get("jobs"), list) else doc.get("client_stats")
    if not isinstance(jobs, list):
        result.error(line, "fio document has neither 'jobs' nor 'client_stats'")
        result.status = "incomplete"
        jobs = []
    for job_index, job in enumerate(jobs):
        if not isinstance(job, dict):
            result.warn(line, f"job entry {job_index} is not an object")
            continue
        raw_job = raw_jobs[job_index] if job_index < len(raw_jobs) else None
        _parse_job(doc_index, job_index, job, raw_job, global_opts, started_at, result)
    for disk in doc.get("disk_util") or []:
        if isinstance(disk, dict):
            result.add("fio_disk_util", _disk_row(doc_index, disk))


def _raw_list(pairs: _Pairs, key: str) -> list | None:
    for k, v in pairs:
        if k == key and isinstance(v, list):
            return v
    return None


def _merge_global_options(value: Any) -> dict[str, str]:
    # Client mode prints one "global options" object per client, as an array.
    if isinstance(value, list):
        merged: dict[str, str] = {}
        for item in value:
            if isinstance(item, dict):
                merged.update({k: v for k, v in item.items() if k != "hostname"})
        return merged
    return dict(value) if isinstance(value, dict) else {}


def _parse_job(doc_index, job_index, job, raw_job, global_opts, started_at, result) -> None:
    options = dict(global_opts)
    if isinstance(job.get("job options"), dict):
        options.update(job["job options"])
    rw = options.get("rw") or options.get("readwrite") or "read"
    iodepth = to_int(options.get("iodepth")) or 1
    numjobs = to_int(options.get("numjobs")) or 1
    name = job.get("jobname")
    common = {
        "doc_index": doc_index,
        "job_index": job_index,
        "job_name": name,
        "group_id": to_int(job.get("groupid")),
        "hostname": job.get("hostname"),
        "is_aggregate": name == "All clients",
        "error_code": to_int(job.get("error")),
        "started_at": started_at,
        "rw": rw,
        "read_pct": _read_pct(rw, options),
        "block_size": options.get("bs") or options.get("blocksize") or options.get("bssplit"),
        "ioengine": options.get("ioengine"),
        "iodepth": iodepth,
        "numjobs": numjobs,
        "group_reporting": to_bool(options.get("group_reporting", "0")) or "group_reporting" in options,
        "outstanding_ios": iodepth * numjobs,
        "direct": to_bool(options.get("direct")),
        "size": options.get("size"),
        "filename": options.get("filename") or options.get("directory"),
        "time_based": "time_based" in options and to_bool(options["time_based"]) is not False,
        "runtime_option_s": fio_seconds(options.get("runtime")),
        "ramp_time_s": fio_seconds(options.get("ramp_time")),
        "job_options_json": json.dumps(options, sort_keys=True),
        "elapsed_s": to_float(job.get("elapsed")),
        "usr_cpu_pct": to_float(job.get("usr_cpu")),
        "sys_cpu_pct": to_float(job.get("sys_cpu")),
        "ctx_switches": to_int(job.get("ctx")),
        "major_faults": to_int(job.get("majf")),
        "minor_faults": to_int(job.get("minf")),
    }
    for direction in DIRECTIONS:
        stats = job.get(direction)
        if not isinstance(stats, dict):
            continue
        total_ios = to_int(stats.get("total_ios"))
        io_bytes = to_int(stats.get("io_bytes"))
        if io_bytes is None and stats.get("io_kbytes") is not None:
            io_bytes = to_int(stats["io_kbytes"]) * 1024
        if not total_ios and not io_bytes:
            continue  # the direction was not exercised
        row = dict(common)
        row.update(_direction_stats(direction, stats, options))
        result.add("fio_jobs", row)
        raw_stats = _raw_get(raw_job, direction)
        for kind in LATENCY_KINDS:
            scale, block = _latency_block(stats, kind)
            if block is None:
                continue
            raw_block = _raw_get(raw_stats, _latency_key(stats, kind))
            for pct, value in _percentiles(_raw_get(raw_block, "percentile")):
                result.add("fio_percentiles", {
                    "doc_index": doc_index, "job_index": job_index, "direction": direction,
                    "latency_kind": kind, "percentile": pct, "latency_us": value * scale,
                })
            bins = block.get("bins")
            if isinstance(bins, dict):
                # json+ bins are always nanoseconds in fio 3.x; 2.x had no bins.
                for bin_ns, count in bins.items():
                    b, c = to_int(bin_ns), to_int(count)
                    if b is not None and c is not None:
                        result.add("fio_histogram_bins", {
                            "doc_index": doc_index, "job_index": job_index, "direction": direction,
                            "latency_kind": kind, "bin_ns": b, "io_count": c,
                        })


def _raw_get(pairs: Any, key: str | None) -> Any:
    if isinstance(pairs, _Pairs) and key is not None:
        for k, v in pairs:
            if k == key:
                return v
    return None


def _read_pct(rw: str, options: dict) -> float | None:
    rw = rw.split(":")[0]
    if rw in ("read", "randread"):
        return 100.0
    if rw in ("write", "randwrite", "trim", "randtrim", "trimwrite"):
        return 0.0
    if rw in ("rw", "readwrite", "randrw"):
        if options.get("rwmixread") is not None:
            return to_float(options["rwmixread"])
        if options.get("rwmixwrite") is not None:
            w = to_float(options["rwmixwrite"])
            return None if w is None else 100.0 - w
        return 50.0
    return None


def _latency_key(stats: dict, kind: str) -> str | None:
    for key in (f"{kind}_ns", kind):
        if isinstance(stats.get(key), dict):
            return key
    return None


def _latency_block(stats: dict, kind: str) -> tuple[float, dict | None]:
    """The latency object and the factor that turns its values into microseconds."""
    if isinstance(stats.get(f"{kind}_ns"), dict):
        return 1e-3, stats[f"{kind}_ns"]
    if isinstance(stats.get(kind), dict):
        return 1.0, stats[kind]
    return 1.0, None


def _percentiles(raw: Any) -> list[tuple[float, float]]:
    """Percentile pairs, first occurrence of each percentile; fio 2.x's unused 0.00 slots dropped."""
    out: list[tuple[float, float]] = []
    seen: set[float] = set()
    pairs = raw if isinstance(raw, _Pairs) else []
    for key, value in pairs:
        pct, val = to_float(key), to_float(value)
        if pct is None or val is None:
            continue
        if pct == 0.0 and val == 0.0:
            continue
        if pct in seen:
            continue
        seen.add(pct)
        out.append((pct, val))
    return out


def _direction_stats(direction: str, stats: dict, options: dict) -> dict:
    bw_bytes = to_float(stats.get("bw_bytes"))
    if bw_bytes is None and stats.get("bw") is not None:
        bw_bytes = to_float(stats["bw"]) * 1024  # 'bw' is KiB/s in every version
    io_bytes = to_int(stats.get("io_bytes"))
    if io_bytes is None and stats.get("io_kbytes") is not None:
        io_bytes = to_int(stats["io_kbytes"]) * 1024
    row: dict[str, Any] = {
        "direction": direction,
        "block_size_bytes": _block_size(direction, options),
        "runtime_ms": to_float(stats.get("runtime")),
        "io_bytes": io_bytes,
        "bw_bytes_per_s": bw_bytes,
        "bw_mib_per_s": None if bw_bytes is None else bw_bytes / 1048576,
        "iops": to_float(stats.get("iops")),
        "total_ios": to_int(stats.get("total_ios")),
        "short_ios": to_int(stats.get("short_ios")),
        "dropped_ios": to_int(stats.get("drop_ios")),
        "bw_min_kib_per_s": to_float(stats.get("bw_min")),
        "bw_max_kib_per_s": to_float(stats.get("bw_max")),
        "bw_mean_kib_per_s": to_float(stats.get("bw_mean")),
        "bw_stdev_kib_per_s": to_float(stats.get("bw_dev")),
        "bw_samples": to_int(stats.get("bw_samples")),
        "iops_min": to_float(stats.get("iops_min")),
        "iops_max": to_float(stats.get("iops_max")),
        "iops_mean": to_float(stats.get("iops_mean")),
        "iops_stdev": to_float(stats.get("iops_stddev")),
        "iops_samples": to_int(stats.get("iops_samples")),
    }
    for kind in LATENCY_KINDS:
        scale, block = _latency_block(stats, kind)
        for stat, suffix in (("min", "min"), ("max", "max"), ("mean", "mean"), ("stddev", "stdev")):
            value = to_float(block.get(stat)) if block else None
            row[f"{kind}_{suffix}_us"] = None if value is None else value * scale
    return row


def _block_size(direction: str, options: dict) -> int | None:
    """Block size of one direction from bs / blocksize ("4k" or "4k,8k" per direction)."""
    raw = options.get("bs") or options.get("blocksize")
    if raw is None:
        return None if options.get("bssplit") else 4096  # fio's default bs is 4k
    parts = str(raw).split(",")
    index = DIRECTIONS.index(direction)
    part = parts[index] if index < len(parts) and parts[index] else parts[0]
    return fio_size_bytes(part)


def _disk_row(doc_index: int, disk: dict) -> dict:
    def i(key):
        return to_int(disk.get(key))

    return {
        "doc_index": doc_index,
        "disk_name": disk.get("name"),
        "read_ios": i("read_ios"), "write_ios": i("write_ios"),
        "read_merges": i("read_merges"), "write_merges": i("write_merges"),
        "read_ticks_ms": i("read_ticks"), "write_ticks_ms": i("write_ticks"),
        "in_queue_ms": i("in_queue"), "util_pct": to_float(disk.get("util")),
        "aggr_read_ios": i("aggr_read_ios"), "aggr_write_ios": i("aggr_write_ios"),
        "aggr_read_merges": i("aggr_read_merges"),
        # fio's source spells this one key without the final 's'.
        "aggr_write_merges": i("aggr_write_merge") if "aggr_write_merge" in disk else i("aggr_write_merges"),
        "aggr_read_ticks_ms": i("aggr_read_ticks"), "aggr_write_ticks_ms": i("aggr_write_ticks"),
        "aggr_in_queue_ms": i("aggr_in_queue"), "aggr_util_pct": to_float(disk.get("aggr_util")),
    }

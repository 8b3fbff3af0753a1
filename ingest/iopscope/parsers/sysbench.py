"""sysbench 1.0.x ``run`` output: OLTP scripts (interval reports, SQL statistics, latency, histogram) and fileio.

Line shapes (sysbench 1.0.20, Debian's package)::

    sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)
    Number of threads: 4
    Report intermediate results every 2 second(s)
    [ 2s ] thds: 4 tps: 338.66 qps: 6810.65 (r/w/o: 4769.21/1362.13/679.32) lat (ms,95%): 41.10 err/s: 0.00 reconn/s: 0.00
    [ 2s ] reads: 31.23 MiB/s writes: 20.82 MiB/s fsyncs: 132.75/s latency (ms,95%): 0.017      (fileio)
    Latency histogram (values are in milliseconds)
           value  ------------- distribution ------------- count
           1.044 |*                                        1
    SQL statistics: / queries performed: read: write: other: total: / transactions: 4622 (230.94 per sec.)
    General statistics: total time: 20.0121s / total number of events: 4622
    Latency (ms): min: avg: max: 95th percentile: sum:
    Threads fairness: events (avg/stddev): 1155.5000/42.74 / execution time (avg/stddev): 20.0027/0.00
    fileio: Extra file open flags / Block size 16KiB / Read/Write ratio for combined random IO test: 1.50 /
            Doing random r/w test / File operations: reads/s: writes/s: fsyncs/s: / Throughput: read, MiB/s:

Tables written
--------------
``sysbench_runs``            one row per run: threads, report interval, test (fileio mode; OLTP
                             scripts do not print their name), transactions / queries and their
                             rates, read / write / other queries, errors, reconnects, total time,
                             events, latency min / avg / max / percentile / sum (ms), thread
                             fairness, status
``sysbench_intervals``       one row per ``[ Ns ]`` report: tps, qps, r/w/o per second, latency
                             percentile, err/s, reconn/s (OLTP); read / write MiB/s and fsyncs/s
                             (fileio)
``sysbench_histogram_bins``  one row per ``--histogram`` line: bin value (ms) and count
``fio_jobs`` (``tool = 'sysbench'``, fileio only)  read and write rows: IOPS (reads/s, writes/s),
                             MiB/s, block size, rw (seqrd -> read, rndrw -> randrw with the
                             read share from the r/w ratio ...), numjobs = threads, iodepth 1
                             (synchronous mode), direct. sysbench's latency covers every event
                             (reads, writes and fsyncs together), so it is put on a direction
                             only for the read-only modes.

Status: ``complete`` with the final statistics; ``incomplete`` when the output stops before them
(killed: the interval rows are kept); ``failed`` on ``FATAL:`` without statistics. ``prepare`` and
``cleanup`` outputs give no row (facts only).

Reading is two steps: :func:`_read` collects the printed fields as text with their lines;
:func:`_typed` converts them (a bad number is an issue naming its line).

Example
-------
>>> out = ("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\\n\\nNumber of threads: 2\\n"
...        "Report intermediate results every 1 second(s)\\n\\nThreads started!\\n\\n"
...        "[ 1s ] thds: 2 tps: 150.00 qps: 3000.00 (r/w/o: 2100.00/600.00/300.00) lat (ms,95%): 20.00 err/s: 0.00 reconn/s: 0.00\\n"
...        "SQL statistics:\\n    transactions:                        150    (149.90 per sec.)\\n"
...        "General statistics:\\n    total time:                          1.0007s\\n"
...        "Latency (ms):\\n         min:  1.00\\n         avg:  13.30\\n         max:  90.00\\n"
...        "         95th percentile:  20.00\\n         sum:  1995.00\\n")
>>> r = parse(out)
>>> run = r.tables["sysbench_runs"][0]
>>> (r.status, r.tool_version, run["threads"], run["transactions"], run["tps"], run["lat_pct"], run["lat_pct_ms"])
('complete', '1.0.20', 2, 150, 149.9, 95.0, 20.0)
>>> [(i["elapsed_s"], i["tps"], i["writes_per_s"]) for i in r.tables["sysbench_intervals"]]
[(1.0, 150.0, 600.0)]
"""

from __future__ import annotations

import math
import re
from typing import Any

from iopscope.parsers._convert import number as _number, whole as _int
from iopscope.parsers.base import ParseError, ParseResult

NAME = "sysbench"
VERSION = "1.0.0"
TOOL = "sysbench"

_N = r"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|-?nan|-?inf)"
_BANNER = re.compile(r"^sysbench (\d+\.\d+(?:\.\d+)?)\b")
_OLTP_TICK = re.compile(rf"^\[ {_N}s \] thds: {_N} tps: {_N} qps: {_N} \(r/w/o: {_N}/{_N}/{_N}\) "
                        rf"lat \(ms,{_N}%\): {_N} err/s: {_N} reconn/s: {_N}\s*$")
_FILEIO_TICK = re.compile(rf"^\[ {_N}s \] reads: {_N} MiB/s writes: {_N} MiB/s fsyncs: {_N}/s "
                          rf"latency \(ms,{_N}%\): {_N}\s*$")
_TICK_START = re.compile(r"^\[ [\d.]+s \] ")
_HIST_LINE = re.compile(rf"^\s*{_N} \|\**\s+(\d+)\s*$")
_PCT_LINE = re.compile(rf"^\s*(\d+(?:\.\d+)?)(?:st|nd|rd|th) percentile:\s+{_N}\s*$")
_KV = re.compile(r"^\s*([A-Za-z][A-Za-z /,()]*?):\s+(\S+)(?:\s+\((\S+) per sec\.\))?\s*$")
_FAIR = re.compile(rf"^\s*(events|execution time) \(avg/stddev\):\s+{_N}/{_N}\s*$")
_MODE = re.compile(r"^Doing (.+) test\s*$")
_FILEIO_MODES = {"sequential write (creation)": ("seqwr", "write"), "sequential rewrite": ("seqrewr", "write"),
                 "sequential read": ("seqrd", "read"), "random read": ("rndrd", "randread"),
                 "random write": ("rndwr", "randwrite"), "random r/w": ("rndrw", "randrw")}
_SECTIONS = {"SQL statistics:": "sql", "General statistics:": "general", "Latency (ms):": "latency",
             "Threads fairness:": "fairness", "File operations:": "fileops", "Throughput:": "throughput",
             "queries performed:": "sql"}
# "label:" in a statistics section -> (column, keeps its per-second rate as this column)
_STATS = {("sql", "read"): ("reads", None), ("sql", "write"): ("writes", None), ("sql", "other"): ("other", None),
          ("sql", "total"): ("queries_total", None), ("sql", "transactions"): ("transactions", "tps"),
          ("sql", "queries"): ("queries", "qps"), ("sql", "ignored errors"): ("ignored_errors", None),
          ("sql", "reconnects"): ("reconnects", None), ("general", "total time"): ("total_time_s", None),
          ("general", "total number of events"): ("events", None), ("latency", "min"): ("lat_min_ms", None),
          ("latency", "avg"): ("lat_avg_ms", None), ("latency", "max"): ("lat_max_ms", None),
          ("latency", "sum"): ("lat_sum_ms", None), ("fileops", "reads/s"): ("file_reads_per_s", None),
          ("fileops", "writes/s"): ("file_writes_per_s", None), ("fileops", "fsyncs/s"): ("file_fsyncs_per_s", None),
          ("throughput", "read, MiB/s"): ("read_mib_per_s", None),
          ("throughput", "written, MiB/s"): ("write_mib_per_s", None)}
_COUNTS = {"reads", "writes", "other", "queries_total", "transactions", "queries", "ignored_errors", "reconnects",
           "events"}
_SETUP = (
    (re.compile(r"^Number of threads: (\d+)\s*$"), "threads"),
    (re.compile(r"^Report intermediate results every (\d+) second"), "report_interval_s"),
    (re.compile(r"^Block size (\d+)(Ki|Mi)?B\s*$"), "block_size"),
    (re.compile(r"^Read/Write ratio for combined random IO test: ([\d.]+)\s*$"), "rw_ratio"),
    (re.compile(r"^Extra file open flags: (.+?)\s*$"), "open_flags"),
    (re.compile(r"^(\d+) files, (\d+)(Ki|Mi|Gi)B each\s*$"), "files"),
    (re.compile(r"^Using (synchronous|asynchronous|mmap) I/O mode\s*$"), "io_mode"),
)


def detect(head: str, filename: str) -> float:
    if re.search(r"^sysbench \d+\.\d+", head, re.M):
        return 0.97
    if any(_OLTP_TICK.match(line) or _FILEIO_TICK.match(line) for line in head.splitlines()[:400]) \
            or "Threads fairness:" in head:
        return 0.93
    return 0.0


# ------------------------------------------------------------------------------- reading


def _read(text: str) -> dict[str, Any]:
    raw: dict[str, Any] = {"setup": {}, "ticks": [], "stats": {}, "pcts": [], "fair": {}, "hist": [],
                           "fatal": [], "unknown": [], "mode": None, "version": None, "phase": None,
                           "saw": False, "histogram_header": False}
    section = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r").lstrip("\ufeff")
        stripped = line.strip()
        if not stripped:
            continue
        m = _OLTP_TICK.match(stripped) or _FILEIO_TICK.match(stripped)
        if m:
            raw["ticks"].append(("oltp" if m.re is _OLTP_TICK else "fileio", m.groups(), number))
            raw["saw"] = True
            continue
        if _TICK_START.match(stripped):
            raw["unknown"].append((number, "interval report in an unknown layout (cut?)"))
            continue
        m = _HIST_LINE.match(line)
        if m and raw["histogram_header"]:
            raw["hist"].append((m.group(1), m.group(2), number))
            continue
        if stripped.startswith("Latency histogram"):
            raw["histogram_header"] = True
            continue
        if stripped.startswith("value  ---"):
            continue
        if stripped in _SECTIONS:
            section = _SECTIONS[stripped]
            raw["saw"] = True
            continue
        m = _BANNER.match(stripped)
        if m:
            raw["version"], raw["saw"] = m.group(1), True
            continue
        if stripped.startswith("FATAL:"):
            raw["fatal"].append((stripped[6:].strip(), number))
            raw["saw"] = True
            continue
        m = _PCT_LINE.match(line)
        if m and section == "latency":
            raw["pcts"].append((m.group(1), m.group(2), number))
            continue
        m = _FAIR.match(line)
        if m and section == "fairness":
            raw["fair"][m.group(1)] = (m.group(2), m.group(3), number)
            continue
        m = _KV.match(line)
        if m and section and (section, m.group(1).strip()) in _STATS:
            raw["stats"][(section, m.group(1).strip())] = (m.group(2), m.group(3), number)
            continue
        if _read_setup(stripped, number, raw):
            continue
        raw["unknown"].append((number, None))
    return raw


def _read_setup(line: str, number: int, raw: dict[str, Any]) -> bool:
    for pattern, key in _SETUP:
        m = pattern.match(line)
        if m:
            raw["setup"][key] = (m.groups(), number)
            return True
    m = _MODE.match(line)
    if m:
        raw["mode"] = (m.group(1), number)
        return True
    if line.startswith(("Creating table", "Inserting ", "Creating a secondary index", "Creating file",
                        "Creating files for the test", "Removing test files")) or " bytes written in " in line:
        raw["phase"] = "cleanup" if line.startswith("Removing") else "prepare"
        raw["saw"] = True
        return True
    # the option echo and start-up chatter: nothing to keep
    return line.startswith(("Running the test with following options", "Initializing random number generator",
                            "Initializing worker threads", "Threads started!", "Periodic FSYNC", "Calling fsync()",
                            "Number of IO requests", "Doing ", "Latency histogram", "Random number generator seed",
                            "Prepare ", "Done.", "Periodic")) or line.endswith("total file size") or bool(
        re.match(r"^\d+ files, \d+\w+ each", line))


# ------------------------------------------------------------------------------- typing


def _stat(raw: dict[str, Any], result: ParseResult, section: str, label: str) -> tuple[Any, float | None]:
    """A statistics line: (value, its per-second rate when printed)."""
    found = raw["stats"].get((section, label))
    if not found:
        return None, None
    text, rate, line = found
    column = _STATS[(section, label)][0]
    value = _int(text, label, line, result) if column in _COUNTS else _number(text.rstrip("s"), label, line, result)
    return value, _number(rate, f"{label} per sec.", line, result) if rate else None


def _interval(kind: str, groups: tuple, line: int, index: int, result: ParseResult) -> dict[str, Any]:
    try:  # the common case: every field a finite number, converted without the issue machinery
        values = [float(g) for g in groups]
        if not all(map(math.isfinite, values)):
            raise ValueError
    except ValueError:
        values = [_number(g, "interval field", line, result) for g in groups]
    if kind == "oltp":
        elapsed, threads, tps, qps, r, w, o, pct, lat, err, reconn = values
        return {"interval_index": index, "elapsed_s": elapsed, "threads": int(threads) if threads is not None else None,
                "tps": tps, "qps": qps, "reads_per_s": r, "writes_per_s": w, "other_per_s": o, "lat_pct": pct,
                "lat_pct_ms": lat, "errors_per_s": err, "reconnects_per_s": reconn}
    elapsed, read_mib, write_mib, fsyncs, pct, lat = values
    return {"interval_index": index, "elapsed_s": elapsed, "read_mib_per_s": read_mib, "write_mib_per_s": write_mib,
            "fsyncs_per_s": fsyncs, "lat_pct": pct, "lat_pct_ms": lat}


def _setup_int(raw: dict[str, Any], key: str, result: ParseResult) -> int | None:
    found = raw["setup"].get(key)
    return _int(found[0][0], key, found[1], result) if found else None


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    raw = _read(text)
    if not raw["saw"]:
        raise ParseError("no sysbench line (banner, [ Ns ] report, statistics, FATAL)")
    result = ParseResult(format=NAME, tool_version=raw["version"])
    unknown = [n for n, _ in raw["unknown"]]
    if unknown:
        result.warn(unknown[0], "line not in sysbench's output layout: skipped"
                    + (f" ({len(unknown)} lines)" if len(unknown) > 1 else ""))
    for message, line in raw["fatal"][:5]:
        result.warn(line, f"sysbench FATAL: {message[:300]}")
    is_run = bool(raw["ticks"] or raw["stats"] or raw["setup"].get("threads"))
    if not is_run:
        result.facts["sysbench_phase"] = raw["phase"] or "unknown"
        if raw["fatal"]:
            result.status, result.status_reason = "failed", f"sysbench FATAL: {raw['fatal'][0][0][:300]}"
        return result
    _typed(raw, result)
    return result


def _typed(raw: dict[str, Any], result: ParseResult) -> None:
    run: dict[str, Any] = {"threads": _setup_int(raw, "threads", result),
                           "report_interval_s": _setup_int(raw, "report_interval_s", result)}
    for (section, label), (column, rate_column) in _STATS.items():
        value, rate = _stat(raw, result, section, label)
        run[column] = value
        if rate_column:
            run[rate_column] = rate
    if raw["pcts"]:
        pct, value, line = raw["pcts"][-1]
        run["lat_pct"], run["lat_pct_ms"] = _number(pct, "percentile", line, result), _number(value, "percentile", line, result)
    for key, prefix in (("events", "fairness_events"), ("execution time", "fairness_exec_time_s")):
        if key in raw["fair"]:
            avg, dev, line = raw["fair"][key]
            run[f"{prefix}_avg"] = _number(avg, key, line, result)
            run[f"{prefix}_stddev"] = _number(dev, key, line, result)
    mode = raw["mode"][0] if raw["mode"] else None
    fileio = mode in _FILEIO_MODES or any(k == "fileio" for k, _, _ in raw["ticks"]) or (
        "fileops", "reads/s") in raw["stats"]
    run["test"] = f"fileio {_FILEIO_MODES[mode][0]}" if mode in _FILEIO_MODES else ("fileio" if fileio else None)
    has_stats = run.get("total_time_s") is not None or run.get("events") is not None
    status, reason = "complete", None
    if not has_stats:
        if raw["fatal"]:
            status, reason = "failed", f"sysbench FATAL: {raw['fatal'][0][0][:300]}"
        else:
            status, reason = "incomplete", (f"output ends after {len(raw['ticks'])} interval report(s) without the "
                                            "final statistics (killed or cut)")
    elif raw["fatal"]:
        status, reason = "failed", f"sysbench FATAL: {raw['fatal'][0][0][:300]}"
    result.status, result.status_reason = status, reason
    run["status"] = status
    run["interval_count"] = len(raw["ticks"])
    run["histogram_bin_count"] = len(raw["hist"])
    result.add("sysbench_runs", run)
    if raw["ticks"]:
        result.tables["sysbench_intervals"] = [_interval(kind, groups, line, i, result)
                                               for i, (kind, groups, line) in enumerate(raw["ticks"])]
    if raw["hist"]:
        result.tables["sysbench_histogram_bins"] = [
            {"bin_index": i, "value_ms": _number(v, "histogram value", line, result),
             "event_count": _int(c, "histogram count", line, result)} for i, (v, c, line) in enumerate(raw["hist"])]
    if fileio and has_stats:
        _fileio_jobs(raw, run, mode, result)


def _fileio_jobs(raw: dict[str, Any], run: dict[str, Any], mode: str | None, result: ParseResult) -> None:
    short, rw = _FILEIO_MODES.get(mode, (None, None))
    block = raw["setup"].get("block_size")
    block_bytes = None
    if block:
        size = _int(block[0][0], "block size", block[1], result)
        block_bytes = size * {"Ki": 1024, "Mi": 1024 ** 2, None: 1}[block[0][1]] if size is not None else None
    read_pct = {"read": 100.0, "randread": 100.0, "write": 0.0, "randwrite": 0.0}.get(rw or "")
    if rw == "randrw" and raw["setup"].get("rw_ratio"):
        ratio = _number(raw["setup"]["rw_ratio"][0][0], "r/w ratio", raw["setup"]["rw_ratio"][1], result)
        read_pct = ratio / (1 + ratio) * 100 if ratio is not None else None
    flags = raw["setup"].get("open_flags")
    io_mode = raw["setup"].get("io_mode")
    synchronous = io_mode is not None and io_mode[0][0] == "synchronous"
    threads = run.get("threads")
    read_only = rw in ("read", "randread")
    base = {"doc_index": 0, "job_index": 0, "tool": TOOL, "job_name": run["test"], "rw": rw, "read_pct": read_pct,
            "block_size": str(block_bytes) if block_bytes else None, "block_size_bytes": block_bytes,
            "numjobs": threads, "iodepth": 1 if synchronous else None,
            "outstanding_ios": threads if synchronous else None,
            "direct": ("directio" in flags[0][0]) if flags else None,
            "elapsed_s": run.get("total_time_s"), "is_aggregate": False}
    for direction, iops_key, mib_key in (("read", "file_reads_per_s", "read_mib_per_s"),
                                         ("write", "file_writes_per_s", "write_mib_per_s")):
        mib = run.get(mib_key)
        row = {**base, "direction": direction, "iops": run.get(iops_key), "bw_mib_per_s": mib,
               "bw_bytes_per_s": mib * 1024 * 1024 if mib is not None else None}
        if read_only and direction == "read":
            # every event is a read here, so sysbench's latency is the reads' latency
            row.update(lat_min_us=_us(run.get("lat_min_ms")), lat_mean_us=_us(run.get("lat_avg_ms")),
                       lat_max_us=_us(run.get("lat_max_ms")))
        result.add("fio_jobs", row)


def _us(ms: float | None) -> float | None:
    return ms * 1000.0 if ms is not None else None

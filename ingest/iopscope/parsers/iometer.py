"""Iometer results CSV (2006.07.27 and 1.1.0): per test, the setup, the access specification and the result rows.

An Iometer results file holds one block per test (one access specification run at one queue
depth): ``'Test Type,Test Description``, ``'Version``, ``'Time Stamp``, the access
specification (``'Access specification name,default assignment`` then ``'size,% of size,%
reads,% random,delay,burst,align,reply`` lines up to ``'End access specifications``), then
``'Results``: a header line and one row per level: ``ALL`` (the whole test), ``MANAGER`` (a
host), ``PROCESSOR`` (one CPU of a manager), ``WORKER`` (a thread) and the targets (``DISK``
...), then ``'End Test``. Columns are found by their header names, so the two generations read
alike: 2006.07.27 prints ``MBps`` (Iometer's MB is 1,048,576 bytes), 1.1.0 prints ``MBps
(Binary)`` and ``MBps (Decimal)``. Response times are milliseconds.

Tables written
--------------
``fio_jobs`` (``tool = 'iometer'``)  one row per result row (ALL, MANAGER, WORKER, target) and
    direction (read and write, as fio reports both; a direction without IO has no response time):
    ``iops``, ``bw_mib_per_s`` (binary MB/s), ``bw_bytes_per_s`` (decimal MB/s x 10^6; from
    2006.07.27's binary MB/s x 2^20), ``lat_mean_us`` / ``lat_max_us`` (the direction's
    average / maximum response time), ``io_bytes``, ``total_ios``, ``error_code`` (the
    direction's errors), ``usr_cpu_pct`` / ``sys_cpu_pct`` / ``cpu_util_pct`` (user,
    privileged, total), the profile: ``read_pct`` (% reads), ``random_pct`` (% random),
    ``rw`` (randread / randwrite / randrw for 100 % random, read / write / rw for 0 %, null
    between), ``block_size_bytes``, ``iodepth`` (outstanding IOs per target), ``numjobs``
    (workers), ``outstanding_ios`` (queue depth x targets). ``doc_index`` = test number,
    ``job_index`` = row number in the test. Rows below ALL are ``is_breakdown``: their sums are
    the ALL row's, so only ALL is a result.
``cpu_samples`` (``source_block = 'iometer'``)  one row per PROCESSOR row (and ``cpu = 'all'``
    from the ALL row): ``busy_pct`` = % CPU Utilization, ``user_pct``, ``system_pct`` = %
    Privileged Time, ``irq_pct`` = % Interrupt Time, ``softirq_pct`` = % DPC Time (Windows'
    deferred procedure calls, the nearest Linux notion). ``sample_index`` = test number.

Reading is two steps: :func:`_read` splits the file into tests with their text fields and line
numbers; :func:`_typed` converts each field (a bad number is an issue naming its line).

Example
-------
>>> text = ("'Test Type,Test Description\\n0,4k random read\\n'Version\\n1.1.0\\n'Time Stamp\\n"
...         "2026-11-26 10:00:00:000\\n'Access specifications\\n'Access specification name,default assignment\\n"
...         "4K RR,NONE\\n'size,% of size,% reads,% random,delay,burst,align,reply\\n4096,100,100,100,0,1,4096,0\\n"
...         "'End access specifications\\n'Results\\n'Target Type,Target Name,Access Specification Name,# Managers,"
...         "# Workers,# Disks,IOps,Read IOps,Write IOps,MBps (Binary),Read MBps (Binary),Write MBps (Binary),"
...         "MBps (Decimal),Read MBps (Decimal),Write MBps (Decimal),Average Response Time,Average Read Response Time,"
...         "Maximum Read Response Time,Queue Depth,% CPU Utilization,% User Time,% Privileged Time\\n"
...         "ALL,All,4K RR,1,1,1,25000,25000,0,97.65625,97.65625,0,102.4,102.4,0,1.28,1.28,9.5,32,41.2,8.1,33.1\\n"
...         "'End Test\\n")
>>> r = parse(text)
>>> row = r.tables["fio_jobs"][0]
>>> (r.tool_version, row["tool"], row["direction"], row["rw"], row["iops"], row["bw_mib_per_s"], row["bw_bytes_per_s"])
('1.1.0', 'iometer', 'read', 'randread', 25000.0, 97.65625, 102400000.0)
>>> (row["lat_mean_us"], row["lat_max_us"], row["iodepth"], row["outstanding_ios"], row["cpu_util_pct"])
(1280.0, 9500.0, 32, 32, 41.2)
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from typing import Any

from iopscope.parsers._convert import number as _number, whole as _int
from iopscope.parsers.base import ParseError, ParseResult

NAME = "iometer"
VERSION = "1.0.0"
TOOL = "iometer"

MIB = 1024 * 1024
_LEVELS = {"ALL", "MANAGER", "PROCESSOR", "WORKER"}  # anything else in the first column is a target type
_ROW_START = re.compile(r"^(ALL|MANAGER|PROCESSOR|WORKER|DISK|TCP|VI),", re.IGNORECASE)
# result column (as printed) -> per direction: (read column, write column, both column)
_DIRECTIONAL = {
    "iops": ("Read IOps", "Write IOps"),
    "mbps_bin": ("Read MBps (Binary)", "Write MBps (Binary)"),
    "mbps_dec": ("Read MBps (Decimal)", "Write MBps (Decimal)"),
    "mbps_old": ("Read MBps", "Write MBps"),
    "lat_mean_ms": ("Average Read Response Time", "Average Write Response Time"),
    "lat_max_ms": ("Maximum Read Response Time", "Maximum Write Response Time"),
    "errors": ("Read Errors", "Write Errors"),
    "bytes": ("Bytes Read", "Bytes Written"),
    "ios": ("Read I/Os", "Write I/Os"),
}


def detect(head: str, filename: str) -> float:
    if "'Target Type,Target Name,Access Specification Name" in head:
        return 0.99
    if "'Access specification name,default assignment" in head and "'Test Type,Test Description" in head:
        return 0.9
    return 0.0


# ------------------------------------------------------------------------------- reading


@dataclass
class _Test:
    """One test block as text: fields with the line they came from."""
    line: int
    description: str | None = None
    version: str | None = None
    time_stamp: str | None = None
    spec_name: str | None = None
    spec_lines: list[tuple[list[str], int]] = field(default_factory=list)
    header: list[str] | None = None
    rows: list[tuple[list[str], int]] = field(default_factory=list)
    ended: bool = False


def _split(line: str) -> list[str]:
    if '"' not in line and "\0" not in line:
        return line.split(",")  # what the csv module gives a line without quotes, 10x faster
    return next(csv.reader([line]))


def _read(text: str, result: ParseResult) -> list[_Test]:
    tests: list[_Test] = []
    test: _Test | None = None
    expect: str | None = None  # which field the next line holds
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        if expect == "results" and line[0] != "'":
            test.rows.append((_split(line), number))  # the bulk of a file: one row a line
            continue
        key = line.rstrip(",").lower() if line[0] == "'" else ""
        if key == "'test type,test description":
            test = _Test(line=number)
            tests.append(test)
            expect = "test"
            continue
        if test is None:
            if line.startswith("'") or _ROW_START.match(line):
                # a file cut at its top still holds its tests from here on
                test = _Test(line=number)
                tests.append(test)
                result.warn(number, "results before any 'Test Type line (file cut at its start?)")
            else:
                continue
        if line.startswith("'"):
            expect = _heading(key, line, number, test, result)
            continue
        if expect == "test":
            parts = line.split(",", 1)
            test.description = parts[1] if len(parts) > 1 else ""
        elif expect in ("version", "time_stamp"):
            setattr(test, expect, line)
        elif expect == "spec_name":
            test.spec_name = _split(line)[0]
        elif expect == "spec_line":
            test.spec_lines.append((_split(line), number))
            continue  # several lines may follow one heading
        elif expect == "results":
            test.rows.append((_split(line), number))
            continue
        else:
            result.warn(number, f"line outside any Iometer section: skipped ({line[:60]!r})")
        expect = None if expect != "spec_line" else expect
    return tests


def _heading(key: str, line: str, number: int, test: _Test, result: ParseResult) -> str | None:
    if key == "'version":
        return "version"
    if key == "'time stamp":
        return "time_stamp"
    if key == "'access specification name,default assignment":
        return "spec_name"
    if key.startswith("'size,% of size"):
        return "spec_line"
    if key.startswith("'target type,"):
        test.header = [name.strip() for name in _split(line[1:])]
        return "results"
    if key == "'end test":
        test.ended = True
        return None
    if key in ("'access specifications", "'end access specifications", "'results", "'test description"):
        return None
    return None  # other headings (Iometer adds some between versions) hold nothing read here


# ------------------------------------------------------------------------------- typing


def _spec(test: _Test, result: ParseResult) -> dict[str, Any]:
    """The access specification: one size, read and random share when its lines agree."""
    lines = []
    for cells, number in test.spec_lines:
        if len(cells) < 4:
            result.warn(number, "access specification line with fewer than 4 fields: skipped")
            continue
        size, share, reads, random = (_number(c, name, number, result) for c, name in
                                      zip(cells, ("size", "% of size", "% reads", "% random")))
        lines.append({"size": size, "share": share, "reads": reads, "random": random})
    if not lines:
        return {}
    def one(key: str) -> float | None:
        values = {line[key] for line in lines}
        return values.pop() if len(values) == 1 else None
    size = one("size")
    return {"block_size_bytes": int(size) if size is not None and size == int(size) else None,
            "block_size": ",".join(f"{int(ln['size'] or 0)}/{ln['share']:g}" if ln["share"] is not None
                                   else str(int(ln["size"] or 0)) for ln in lines) if len(lines) > 1
            else (str(int(size)) if size is not None else None),
            "read_pct": one("reads"), "random_pct": one("random")}


def _rw(read_pct: float | None, random_pct: float | None) -> str | None:
    if read_pct is None or random_pct not in (0.0, 100.0):
        return None
    kind = "read" if read_pct == 100 else "write" if read_pct == 0 else "rw"
    return ("rand" + kind) if random_pct == 100 else kind


class _Row:
    """One result row: a cell by header name, converted on request."""

    def __init__(self, header: list[str], cells: list[str], line: int, result: ParseResult) -> None:
        self.cells = dict(zip(header, cells))
        self.line, self.result = line, result

    def text(self, column: str) -> str | None:
        value = self.cells.get(column)
        return value.strip() if value is not None else None

    def num(self, column: str) -> float | None:
        return _number(self.cells.get(column), column, self.line, self.result)

    def int(self, column: str) -> int | None:
        return _int(self.cells.get(column), column, self.line, self.result)


def _direction_rows(row: _Row, base: dict[str, Any], binary_only: bool) -> list[dict[str, Any]]:
    rows = []
    for index, direction in enumerate(("read", "write")):
        # both directions, as fio reports them, so read + write totals form the same way; a
        # direction that did no IO has no response time (Iometer prints 0 for it)
        ios = row.int(_DIRECTIONAL["ios"][index])
        iops = row.num(_DIRECTIONAL["iops"][index])
        idle = not ios and not iops
        if binary_only:
            mib = row.num(_DIRECTIONAL["mbps_old"][index])
            decimal_bytes = mib * MIB if mib is not None else None
        else:
            mib = row.num(_DIRECTIONAL["mbps_bin"][index])
            dec = row.num(_DIRECTIONAL["mbps_dec"][index])
            decimal_bytes = dec * 1e6 if dec is not None else None
        mean_ms = None if idle else row.num(_DIRECTIONAL["lat_mean_ms"][index])
        max_ms = None if idle else row.num(_DIRECTIONAL["lat_max_ms"][index])
        rows.append({**base, "direction": direction,
                     "iops": iops,
                     "bw_mib_per_s": mib, "bw_bytes_per_s": decimal_bytes,
                     "lat_mean_us": mean_ms * 1000.0 if mean_ms is not None else None,
                     "lat_max_us": max_ms * 1000.0 if max_ms is not None else None,
                     "io_bytes": row.int(_DIRECTIONAL["bytes"][index]), "total_ios": ios,
                     "error_code": row.int(_DIRECTIONAL["errors"][index])})
    return rows


def _typed(tests: list[_Test], result: ParseResult) -> None:
    jobs: list[dict[str, Any]] = []
    cpus: list[dict[str, Any]] = []
    for doc_index, test in enumerate(tests):
        if test.header is None:
            result.warn(test.line, "test without a 'Results header: no rows")
            continue
        binary_only = "MBps (Binary)" not in test.header and "MBps" in test.header
        spec = _spec(test, result)
        manager = None
        for job_index, (cells, line) in enumerate(test.rows):
            if len(cells) != len(test.header):
                result.warn(line, f"result row has {len(cells)} fields, the header {len(test.header)}: "
                                  "read by position as far as both go")
            row = _Row(test.header, cells, line, result)
            level = (row.text("Target Type") or "").upper()
            name = row.text("Target Name")
            if level == "MANAGER":
                manager = name
            if level in ("ALL", "PROCESSOR"):
                cpus.append(_cpu_row(row, doc_index, "all" if level == "ALL" else name, manager))
                if level == "PROCESSOR":
                    continue
            queue_depth = row.int("Queue Depth")
            targets = row.int("# Disks")
            base = {"doc_index": doc_index, "job_index": job_index, "tool": TOOL,
                    "job_name": test.spec_name or row.text("Access Specification Name"),
                    "result_level": level if level in _LEVELS else "TARGET",
                    "target_name": name, "hostname": manager if level != "ALL" else None,
                    "is_aggregate": False, "is_breakdown": level != "ALL",
                    "rw": _rw(spec.get("read_pct"), spec.get("random_pct")),
                    "read_pct": spec.get("read_pct"), "random_pct": spec.get("random_pct"),
                    "block_size": spec.get("block_size"), "block_size_bytes": spec.get("block_size_bytes"),
                    "iodepth": queue_depth, "numjobs": row.int("# Workers"),
                    "outstanding_ios": queue_depth * targets if queue_depth is not None and targets else None,
                    "direct": True,
                    "usr_cpu_pct": row.num("% User Time"), "sys_cpu_pct": row.num("% Privileged Time"),
                    "cpu_util_pct": row.num("% CPU Utilization")}
            jobs.extend(_direction_rows(row, base, binary_only))
        if not test.ended:
            result.status, result.status_reason = "incomplete", f"test {doc_index + 1} has no 'End Test (file cut?)"
    if jobs:
        result.tables["fio_jobs"] = jobs
    if cpus:
        result.tables["cpu_samples"] = cpus


def _cpu_row(row: _Row, doc_index: int, cpu: str | None, manager: str | None) -> dict[str, Any]:
    if cpu and cpu.upper().startswith("CPU "):
        cpu = cpu[4:].strip()
    return {"sample_index": doc_index, "source_block": "iometer", "cpu": cpu, "hostname": manager,
            "is_since_boot": False, "busy_pct": row.num("% CPU Utilization"), "user_pct": row.num("% User Time"),
            "system_pct": row.num("% Privileged Time"), "irq_pct": row.num("% Interrupt Time"),
            "softirq_pct": row.num("% DPC Time")}


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    tests = _read(text, result)
    if not any(t.header or t.spec_lines for t in tests):
        raise ParseError("no Iometer test ('Test Type block with a 'Results header or an access specification)")
    versions = {t.version for t in tests if t.version}
    result.tool_version = min(versions) if versions else None
    if len(versions) > 1:
        result.warn(None, f"tests written by several Iometer versions: {sorted(versions)}")
    result.facts["iometer_tests"] = len(tests)
    stamps = [t.time_stamp for t in tests if t.time_stamp]
    if stamps:
        result.facts["iometer_first_time_stamp"] = stamps[0]
    descriptions = {t.description for t in tests if t.description}
    if len(descriptions) == 1:
        result.facts["iometer_test_description"] = descriptions.pop()
    _typed(tests, result)
    if not result.tables.get("fio_jobs") and result.status == "complete":
        result.status, result.status_reason = "incomplete", "no result row"
    return result

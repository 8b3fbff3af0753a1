"""DiskSpd's default text report (no ``-R`` flag): the profile asked for and each time span's IO, latency and CPU.

The report (DiskSpd's ``ResultParser``) is: ``Command Line:``; ``Input parameters:`` with one
``timespan:`` block per span and, per target, ``path: '...'``, the cache line (``software cache
disabled`` = ``-Su``/``-Sh``), ``performing read test`` / ``write test`` / ``mix test (read/write
ratio: R/W)``, ``block size:`` (bytes in 2.0.x, ``8KiB`` from 2.1), ``using random I/O`` or
``sequential I/O``, ``number of outstanding I/O operations[ per thread]: N``; ``System
information:`` (computer name, start time); then per span ``Results for timespan N:`` with
``actual test time``, ``thread count``, the CPU table (``CPU | Usage | User | Kernel | Idle``,
with ``Group`` and, from 2.2, Socket / Node / Core / Class columns, and an ``avg.`` row), the
``Total IO`` / ``Read IO`` / ``Write IO`` tables (per thread and target: bytes, I/Os, MiB/s,
I/O per s, AvgLat and LatStdDev with ``-L``, the file, then a ``total:`` row) and with ``-L``
the percentile table (``%-ile | Read (ms) | Write (ms) | Total (ms)``: min, 25th .. 99th,
3-nines .. 9-nines, max).

Tables written
--------------
The same rows as ``diskspd_xml`` for the same run (the mapping is shared, in
``_diskspd_rows``): ``fio_jobs`` (``tool = 'diskspd'``) one whole-test row per direction from
the Read IO and Write IO tables (rates from the counts over the actual test time; latency
average from the ``total:`` row; ``lat_max_us`` the ``max`` percentile) and one ``is_breakdown``
row per thread, target and direction; ``fio_percentiles`` (min = 0, n-nines = 100 (1 - 10^-n),
max = 100; ``N/A`` skipped); ``cpu_samples`` one row per CPU and ``all`` (the ``avg.`` row).
The text report names no DiskSpd version: ``tool_version`` stays empty.

Example
-------
>>> text = '''Command Line: diskspd -b8K -r -w0 -t1 -o4 -d10 -Sh -L #1
... Input parameters:
... \\ttimespan:   1
... \\t-------------
... \\tpath: '#1'
... \\t\\tsoftware cache disabled
... \\t\\tperforming read test
... \\t\\tblock size: 8KiB
... \\t\\tusing random I/O (alignment: 8KiB)
... \\t\\tnumber of outstanding I/O operations per thread: 4
... Results for timespan 1:
... *******************************************************************************
... actual test time:\\t10.00s
... thread count:\\t\\t1
... Read IO
... thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file
... -------------------------------------------------------------------------------------------------------
...      0 |       819200000 |       100000 |      78.13 |   10000.00 |    0.400 |     0.100 | #1 (10GiB)
... -------------------------------------------------------------------------------------------------------
... total:         819200000 |       100000 |      78.13 |   10000.00 |    0.400 |     0.100
... Write IO
... thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file
...      0 |               0 |            0 |       0.00 |       0.00 |    0.000 |       N/A | #1 (10GiB)
... total:                 0 |            0 |       0.00 |       0.00 |    0.000 |       N/A
... '''
>>> r = parse(text)
>>> row = r.tables["fio_jobs"][0]
>>> (r.status, row["tool"], row["rw"], row["iops"], row["bw_bytes_per_s"], row["lat_mean_us"], row["iodepth"])
('complete', 'diskspd', 'randread', 10000.0, 81920000.0, 400.0, 4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from iopscope.parsers._convert import number
from iopscope.parsers._diskspd_rows import TOOL, Span, TargetCounts, add_cpu, add_span, profile_columns
from iopscope.parsers.base import ParseError, ParseResult

NAME = "diskspd_text"
VERSION = "1.0.0"
__all__ = ["NAME", "VERSION", "TOOL", "detect", "parse"]

_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9.]+)\s*(KiB|MiB|GiB|TiB|B)?\s*$")
_SECTIONS = {"Total IO": "total", "Read IO": "read", "Write IO": "write"}
_PERCENTILE_NAMES = {"min": 0.0, "max": 100.0}
_FILE_SIZE = re.compile(r"\s*\([^()]*\)\s*$")      # "E:\\test.dat (10GiB)": the size DiskSpd adds


def detect(head: str, filename: str) -> float:
    if "Input parameters:" in head and ("Command Line:" in head or "timespan:" in head):
        return 0.97
    if "Results for timespan" in head and "thread |" in head and "I/O per s" in head:
        return 0.95
    return 0.0


@dataclass
class _Target:
    path: str | None = None
    write_ratio: float | None = None
    random_pct: float = 0.0
    block: float | None = None
    depth: float | None = None
    direct: bool | None = None


@dataclass
class _Profile:
    depth: float | None = None          # thread-pool form (-F): outstanding IOs given per span
    targets: list[_Target] = field(default_factory=list)


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    lines = text.lstrip("\ufeff").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Results for timespan")]
    if not starts:
        raise ParseError("no 'Results for timespan' section: not a DiskSpd text report, or it stopped before "
                         "measuring", len(lines) or 1)
    result = ParseResult(format=NAME)
    profiles = _read_head(lines[:starts[0]], result)
    if len(profiles) != len(starts):
        result.warn(None, f"{len(profiles)} profiled time span(s) but {len(starts)} measured: profile read by position")
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        _read_span(lines, start, end, index, profiles[index] if index < len(profiles) else None, result)
    return result


def _read_head(lines: list[str], result: ParseResult) -> list[_Profile]:
    """The command line, the input parameters per span and target, the system information."""
    profiles: list[_Profile] = []
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        key, _, value = line.partition(":")
        if raw.startswith("Command Line:"):
            result.facts["diskspd_command_line"] = raw.partition(":")[2].strip()
        elif key == "computer name" and value.strip():
            result.facts["hostname"] = value.strip()
        elif key == "start time" and value.strip():
            result.facts["diskspd_run_time"] = line.partition(":")[2].strip()
        elif key == "timespan":
            profiles.append(_Profile())
        elif not profiles:
            continue
        elif key == "path":
            profiles[-1].targets.append(_Target(path=value.strip().strip("'")))
        elif key == "number of outstanding I/O operations per thread" and not raw.startswith("\t\t"):
            profiles[-1].depth = number(value, "outstanding I/Os", no, result)
        elif len(profiles[-1].targets) == 1:           # later targets are only counted (see _profile_columns)
            _target_line(profiles[-1].targets[-1], line, key, value, no, result)
    return profiles


def _target_line(target: _Target, line: str, key: str, value: str, no: int, result: ParseResult) -> None:
    if line == "software cache disabled":
        target.direct = True
    elif line in ("using software cache", "local software cache disabled, remote cache enabled"):
        target.direct = False
    elif line == "performing read test":
        target.write_ratio = 0.0
    elif line == "performing write test":
        target.write_ratio = 100.0
    elif line.startswith("performing mix test"):
        ratio = re.search(r"ratio: *\d+ */ *([^)]*)\)", line)
        target.write_ratio = number(ratio.group(1) if ratio else line, "write ratio", no, result)
    elif key == "block size":
        target.block = _size(value, "block size", no, result)
    elif line.startswith("using random I/O"):
        target.random_pct = 100.0
    elif line.startswith("using mixed random/sequential I/O"):
        share = re.search(r"\(([0-9.]+)% random\)", line)
        target.random_pct = number(share.group(1), "random share", no, result) or 0.0 if share else 100.0
    elif key.startswith("number of outstanding I/O operations"):
        target.depth = number(value, "outstanding I/Os", no, result)


def _size(text: str, what: str, no: int, result: ParseResult) -> float | None:
    """``8192`` (2.0.x) or ``8KiB`` / ``1.50MiB`` (2.1+, DiskSpd's binary units) -> bytes."""
    found = _SIZE.match(text)
    if not found:
        result.warn(no, f"{what} {text.strip()[:40]!r} is not a size: left empty")
        return None
    value = number(found.group(1), what, no, result)
    return value * _UNITS[found.group(2) or ""] if value is not None else None


def _profile_columns(profile: _Profile | None, result: ParseResult) -> dict[str, Any]:
    if profile is None or not profile.targets:
        return {}
    if len(profile.targets) > 1:
        result.warn(None, "several targets: the profile columns describe the first")
    first = profile.targets[0]
    return profile_columns(write_ratio=first.write_ratio, random_pct=first.random_pct, block=first.block,
                           depth=first.depth if first.depth is not None else profile.depth,
                           direct=first.direct, path=first.path)


def _read_span(lines: list[str], start: int, end: int, index: int, profile: _Profile | None,
               result: ParseResult) -> None:
    seconds = threads = None
    cpu: dict[str, float | None] = {}
    tables: dict[str, tuple[list[TargetCounts], dict[str, float | None]]] = {}
    percentiles: dict[tuple[str, float], float] = {}
    i = start + 1
    while i < end:
        line = lines[i]
        key, _, value = line.partition(":")
        if line.startswith("The test was interrupted before the measurements began"):
            result.warn(i + 1, f"time span {index + 1} was interrupted before measuring: no rows")
            return
        if key == "actual test time":
            seconds = number(value.strip().removesuffix("s"), "actual test time", i + 1, result)
        elif key == "thread count":
            threads = number(value, "thread count", i + 1, result)
        elif "CPU |" in line and "Usage" in line:
            i, cpu = _read_cpu(lines, i, end, index, result)
            continue
        elif line.strip() in _SECTIONS and i + 1 < end and lines[i + 1].startswith("thread |"):
            i, tables[_SECTIONS[line.strip()]] = _read_io_table(lines, i + 1, end, _SECTIONS[line.strip()], result)
            continue
        elif line.strip() == "Total latency distribution:":
            percentiles = {}                       # 2.2 prints per-target charts first: the total one wins
        elif line.lstrip().startswith("%-ile |"):
            i, percentiles = _read_percentiles(lines, i, end, result)
            continue
        i += 1
    for direction in ("read", "write"):
        if direction not in tables:
            raise ParseError(f"time span {index + 1} has no complete '{direction.capitalize()} IO' table "
                             "(the report is cut or not DiskSpd's)", end)
    if not seconds:
        result.warn(start + 1, "time span without a test time: no rates")
    span = Span(index=index, seconds=seconds, threads=threads, profile=_profile_columns(profile, result), cpu=cpu,
                average_ms={d: tables[d][1].get("AvgLat") for d in ("read", "write")}, percentiles=percentiles)
    # The XML's order: per thread and target, read then write.
    for read, write in zip(tables["read"][0], tables["write"][0]):
        span.targets += [read, write]
    add_span(result, span)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")]


def _read_cpu(lines: list[str], i: int, end: int, index: int,
              result: ParseResult) -> tuple[int, dict[str, float | None]]:
    header = [name.lower() for name in _cells(lines[i])]
    average: dict[str, float | None] = {}
    i += 1
    while i < end and lines[i].strip():
        line = lines[i]
        if set(line.strip()) == {"-"}:
            i += 1
            continue
        cells = _cells(line)
        if len(cells) > len(header) or len(cells) < len(header) and not cells[0].endswith("avg."):
            break
        values = dict(zip(header[len(header) - len(cells):], cells))    # avg. spans the topology columns
        figures = {name: number(values.get(name, "").removesuffix("%"), f"CPU {name}", i + 1, result)
                   for name in ("usage", "user", "kernel", "idle")}
        is_average = cells[0].endswith("avg.")
        ident = "all" if is_average else values.get("cpu", "")
        if not is_average and values.get("group", "0") not in ("", "0"):
            ident = f"{values['group']}:{ident}"
        add_cpu(result, index, ident, busy=figures["usage"], user=figures["user"], system=figures["kernel"],
                idle=figures["idle"])
        if is_average:
            average = {"usr_cpu_pct": figures["user"], "sys_cpu_pct": figures["kernel"],
                       "cpu_util_pct": figures["usage"]}
        i += 1
    return i, average


def _read_io_table(lines: list[str], i: int, end: int, direction: str,
                   result: ParseResult) -> tuple[int, tuple[list[TargetCounts], dict[str, float | None]]]:
    """One of Total / Read / Write IO: per thread and target rows, then ``total:``."""
    header = _cells(lines[i])
    columns = header[1:-1]                            # bytes .. LatStdDev; the file is last
    # Only what the rows use is converted (rates come from the counts); the Total IO table only
    # has to be whole.
    wanted = [] if direction == "total" else [(k, name) for k, name in enumerate(columns)
                                              if name in ("bytes", "I/Os", "AvgLat")]
    rows: list[TargetCounts] = []
    i += 1
    while i < end:
        line = lines[i]
        if line.startswith("total:"):
            cells = _cells(line.removeprefix("total:"))
            figures = {name: _figure(cells[k] if k < len(cells) else None, name, i + 1, result)
                       for k, name in wanted}
            return i + 1, (rows, figures)
        if line.startswith("-") or not line.strip():
            i += 1
            continue
        cells = line.split("|", len(columns) + 1)
        if len(cells) != len(columns) + 2:
            raise ParseError(f"{direction} IO row has {len(cells)} columns, the header {len(columns) + 2}", i + 1)
        if direction == "total":
            i += 1
            continue
        figures = {name: _figure(cells[k + 1], name, i + 1, result) for k, name in wanted}
        path = _FILE_SIZE.sub("", cells[-1].strip())
        rows.append(TargetCounts(thread=cells[0].strip(), path=path, direction=direction,
                                 nbytes=figures.get("bytes"), count=figures.get("I/Os"), avg_ms=figures.get("AvgLat")))
        i += 1
    raise ParseError(f"the {direction.capitalize()} IO table has no 'total:' row (the report is cut)", end)


def _figure(text: str | None, name: str, line: int, result: ParseResult) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)                           # the common case, without number()'s checks
        if value - value == 0:                        # finite (nan and inf fail this)
            return value
    except ValueError:
        if text.strip() == "N/A":
            return None
    return number(text, name, line, result)


def _read_percentiles(lines: list[str], i: int, end: int,
                      result: ParseResult) -> tuple[int, dict[tuple[str, float], float]]:
    found: dict[tuple[str, float], float] = {}
    i += 1
    while i < end and lines[i].strip():
        cells = _cells(lines[i])
        i += 1
        if len(cells) != 4:
            continue                                  # the dashed rule
        pct = _percentile(cells[0])
        if pct is None:
            result.warn(i, f"percentile {cells[0][:20]!r} is not one DiskSpd prints: row skipped")
            continue
        for direction, cell in (("read", cells[1]), ("write", cells[2])):
            ms = _figure(cell, f"{cells[0]} {direction} latency", i, result)
            if ms is not None:
                found[(direction, pct)] = ms
    return i, found


def _percentile(name: str) -> float | None:
    if name in _PERCENTILE_NAMES:
        return _PERCENTILE_NAMES[name]
    if name.endswith("th") and name[:-2].isdigit():
        return float(name[:-2])
    if name.endswith("-nines") and name[:-6].isdigit():
        return round(100.0 * (1 - 10.0 ** -int(name[:-6])), 9)
    return None

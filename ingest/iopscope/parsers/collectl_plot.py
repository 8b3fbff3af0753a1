"""collectl plot-format files (``collectl -P``): CPU columns only.

Tables written
--------------
``cpu_samples``  one row per sample for the summary columns ``[CPU]...`` (``cpu`` = ``all``,
                 the mean over every logical CPU collectl counts, ``NumCPUs`` in the header),
                 and one per CPU and sample for detail columns ``[CPU:N]...`` (``-sC``).
                 ``source_block`` = ``collectl``.

Columns are found by their header names, never by position: the order follows the
subsystems chosen (``-scdmn`` and ``-scdnm`` give different layouts). Read:
``User% Nice% Sys% Wait% Irq% Soft% Steal% Idle% Guest% GuestN%`` -> ``user_pct nice_pct
system_pct iowait_pct irq_pct softirq_pct steal_pct idle_pct guest_pct gnice_pct``.
``busy_pct = 100 - idle - iowait - steal`` like every CPU parser (collectl's own ``Totl%`` is
not copied). collectl prints whole percentages, so the columns add up to 100 only within a few
points; the check allows 5.

Not read (one warning lists them): every other subsystem (``[MEM]``, ``[NET]``, ``[DSK]``,
``[DSK:sda]`` ...) and the non-percentage CPU columns (``Totl%``, ``Intrpt/sec``, ``Ctx/sec``,
``Proc/sec``, ``ProcQue``, ``ProcRun``, ``L-Avg*``, ``RunTot``, ``BlkTot``, ``Intrpt``).

Variants handled
----------------
* The ``#`` comment block of files written with ``-f`` (facts: ``hostname``, ``kernel``,
  ``logical_cpus``, ``date``, ``os``; the collectl version as ``tool_version``) or none at
  all (``-P`` to a terminal, with collectl's ``waiting for N second sample...`` line).
* ``#Date Time`` (``20221109 15:49:50``, optional fractional seconds) or ``#UTC`` (epoch
  seconds) first columns; any ``--sep`` separator (space, comma, tab ...).
* ``TZ: -0500`` in the header: ``sampled_at`` is converted to UTC; without it, as printed.
* A header printed again (new file, new devices) re-keys the columns; a row whose field count
  does not match its header is skipped (a cut last row makes the file ``incomplete``).
* ``interval_s``: the header's ``Interval:`` for the first sample, then time differences.
* A plot file without any CPU column (``-sd`` only) is rejected: nothing here to read.

Example
-------
>>> r = parse('''# Collectl:   V4.3.1-1  HiRes: 1  Options: -sdc -P
... # Host:       db1  DaemonOpts:
... # Date:       20221109-154948  Secs: 1668026988 TZ: -0500
... # SubSys:     dc Options:  Interval: 1 NumCPUs: 8 [HYPER] NumBud: 0 Flags: i
... #Date Time [DSK]ReadTot [CPU]User% [CPU]Sys% [CPU]Wait% [CPU]Idle%
... 20221109 15:49:50 12 3 1 0 96
... ''')
>>> row = r.tables["cpu_samples"][0]
>>> (row["cpu"], row["user_pct"], row["busy_pct"], str(row["sampled_at"]), row["logical_cpus"])
('all', 3.0, 4.0, '2022-11-09 20:49:50+00:00', 8)
>>> r.tool_version
'4.3.1-1'
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from iopscope.parsers._cpu_common import Timeline, finish_row, parse_date, to_number
from iopscope.parsers.base import ParseError, ParseResult

NAME = "collectl_plot"
VERSION = "1.0.0"
TOOL = "collectl"

TOLERANCE = 5.0  # whole percentages: up to 8 roundings of 0.5
MAX_LINE_WARNINGS = 50

CPU_FIELDS = {
    "User%": "user_pct", "Nice%": "nice_pct", "Sys%": "system_pct", "Wait%": "iowait_pct",
    "Irq%": "irq_pct", "Soft%": "softirq_pct", "Steal%": "steal_pct", "Idle%": "idle_pct",
    "Guest%": "guest_pct", "GuestN%": "gnice_pct",
}
_COLUMN = re.compile(r"^\[(?P<sub>[A-Za-z]+)(?::(?P<inst>[^\]]*))?\](?P<field>.+)$")
_HEADER = re.compile(r"^#(Date|UTC)(.)")
_VERSION = re.compile(r"^#\s*Collectl:\s*V?(\S+)")
_HOST = re.compile(r"^#\s*Host:\s*(\S+)")
_DATE = re.compile(r"^#\s*Date:\s*(\d{8})-\d+")
_TZ = re.compile(r"\bTZ:\s*([+-])(\d{2})(\d{2})\b")
_NUMCPUS = re.compile(r"\bNumCPUs:\s*(\d+)")
_INTERVAL = re.compile(r"\bInterval:\s*([0-9.]+)")
_KERNEL = re.compile(r"^#\s*Kernel:\s*(\S+)")
_DISTRO = re.compile(r"^#\s*Distro:\s*(.*?)\s*(?:Platform:.*)?$")
_KNOWN_NOISE = re.compile(r"^waiting for [0-9.]+ second sample")


def detect(head: str, filename: str) -> float:
    for line in head.splitlines():
        if _HEADER.match(line):
            return 0.9 if "[CPU" in line else 0.6
    if "# Collectl:" in head:
        return 0.6
    return 0.0


class _Layout:
    """A header line: where the time is, which columns feed which CPU rows, what is dropped."""

    def __init__(self, line: str) -> None:
        m = _HEADER.match(line)
        self.utc = m.group(1) == "UTC"
        sep = m.group(2)
        self.sep = None if sep.isspace() else sep
        names = line[1:].split(self.sep)
        self.names = [n.strip() for n in names]
        self.width = len(self.names)
        self.time_fields = 1 if self.utc else 2
        self.cpus: dict[str, list[tuple[int, str]]] = {}
        self.dropped: list[str] = []
        for i, name in enumerate(self.names[self.time_fields:], start=self.time_fields):
            c = _COLUMN.match(name)
            if c and c.group("sub") == "CPU" and c.group("field") in CPU_FIELDS:
                cpu = "all" if c.group("inst") is None else c.group("inst")
                self.cpus.setdefault(cpu, []).append((i, CPU_FIELDS[c.group("field")]))
            else:
                self.dropped.append(name)

    def dropped_summary(self) -> str:
        groups: dict[str, int] = {}
        cpu_other: list[str] = []
        for name in self.dropped:
            c = _COLUMN.match(name)
            sub = c.group("sub") if c else name
            if sub == "CPU":
                field = c.group("field")
                if field not in cpu_other:
                    cpu_other.append(field)
            else:
                groups[sub] = groups.get(sub, 0) + 1
        parts = [f"{n} {sub}" for sub, n in groups.items()]
        if cpu_other:
            parts.append("CPU " + ", ".join(cpu_other))
        return "; ".join(parts)


def parse(text: str) -> ParseResult:
    result = ParseResult(format=NAME)
    facts = result.facts
    zone: timezone | None = None
    header_interval: float | None = None
    ncpu: int | None = None
    hostname: str | None = None
    layout: _Layout | None = None
    dropped_reported: set[str] = set()
    timeline = Timeline()
    first_axis = prev_axis = None
    sample_index = -1
    warnings = suppressed = 0
    last_line_bad = False
    cpu_layouts = 0

    def warn(lineno: int, reason: str) -> None:
        nonlocal warnings, suppressed
        if warnings < MAX_LINE_WARNINGS:
            result.warn(lineno, reason)
            warnings += 1
        else:
            suppressed += 1

    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            if _HEADER.match(line):
                layout = _Layout(line)
                cpu_layouts += bool(layout.cpus)
                summary = layout.dropped_summary()
                if summary and summary not in dropped_reported:
                    dropped_reported.add(summary)
                    result.warn(lineno, "columns not read (cpu_samples takes CPU percentages "
                                        f"only): {summary}")
                last_line_bad = False
                continue
            _comment(line, result)
            if _DATE.match(line) and (m := _TZ.search(line)):
                sign = -1 if m.group(1) == "-" else 1
                zone = timezone(sign * timedelta(hours=int(m.group(2)), minutes=int(m.group(3))))
            if (m := _NUMCPUS.search(line)):
                ncpu = int(m.group(1))
                facts.setdefault("logical_cpus", ncpu)
            if (m := _INTERVAL.search(line)) and line.lstrip("# ").startswith("SubSys"):
                header_interval = to_number(m.group(1))
            if (m := _HOST.match(line)):
                hostname = m.group(1)
                facts.setdefault("hostname", hostname)
            continue
        if _KNOWN_NOISE.match(line):
            continue
        if layout is None:
            warn(lineno, f"line before any '#Date Time' header skipped: {line.strip()[:120]}")
            last_line_bad = True
            continue
        fields = line.split(layout.sep)
        if layout.sep is not None:
            fields = [f.strip() for f in fields]
        if len(fields) != layout.width:
            warn(lineno, f"row has {len(fields)} fields, the header has {layout.width}: skipped")
            last_line_bad = True
            continue
        last_line_bad = False
        if not layout.cpus:
            continue
        axis, when, time_text = _place(fields, layout, zone, timeline)
        if axis is None:
            warn(lineno, f"unreadable time {' '.join(fields[:layout.time_fields])!r}: row skipped")
            continue
        sample_index += 1
        if first_axis is None:
            first_axis = axis
        interval = header_interval if prev_axis is None else axis - prev_axis
        prev_axis = axis
        common = {
            "sample_index": sample_index, "sampled_at": when, "time_text": time_text,
            "elapsed_s": axis - first_axis, "interval_s": interval, "is_since_boot": False,
            "source_block": "collectl", "hostname": hostname, "logical_cpus": ncpu,
        }
        for cpu, columns in layout.cpus.items():
            row = dict(common)
            row["cpu"] = cpu
            for index, column in columns:
                value = to_number(fields[index])
                if value is None:
                    warn(lineno, f"CPU {cpu}: {layout.names[index]} = {fields[index]!r} is not a number")
                row[column] = value
            drop, notes = finish_row(row, TOLERANCE)
            if drop:
                warn(lineno, f"CPU {cpu}: {drop}")
                continue
            for note in notes:
                warn(lineno, f"CPU {cpu}: {note}")
            result.add("cpu_samples", row)

    if suppressed:
        result.warn(None, f"{suppressed} more skipped or doubtful lines not listed")
    if timeline.went_back:
        result.warn(None, f"the time went back {len(timeline.went_back)} time(s): "
                          "elapsed_s is not monotonic there")
    if not result.tables.get("cpu_samples"):
        if layout is None:
            raise ParseError("no collectl plot header ('#Date Time ...') found")
        if not cpu_layouts:
            subs = sorted({(_COLUMN.match(n).group("sub") if _COLUMN.match(n) else n)
                           for n in layout.dropped})
            raise ParseError(f"collectl plot file without CPU columns (subsystems: {', '.join(subs)})")
        first = next((i for i in result.issues if i.line), None)
        raise ParseError("no readable CPU row" + (f": {first.reason}" if first else ""),
                         first.line if first else None)
    if last_line_bad:
        result.status = "incomplete"
        result.status_reason = "the last row is cut short"
    return result


def _comment(line: str, result: ParseResult) -> None:
    facts = result.facts
    if (m := _VERSION.match(line)) and result.tool_version is None:
        result.tool_version = m.group(1)
    elif (m := _KERNEL.match(line)):
        facts.setdefault("kernel", m.group(1))
    elif (m := _DISTRO.match(line)) and m.group(1):
        facts.setdefault("os", m.group(1))
    elif (m := _DATE.match(line)):
        day, _ = parse_date(m.group(1))
        if day is not None:
            facts.setdefault("date", day.isoformat())


def _place(fields: list[str], layout: _Layout, zone: timezone | None, timeline: Timeline):
    """(axis seconds, sampled_at, time_text) of a row, or (None, None, text) when unreadable."""
    if layout.utc:
        text = fields[0]
        secs = to_number(text)
        if secs is None or not 0 <= secs < 1e11:
            return None, None, text
        when = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=secs)
        axis, _ = timeline.dated(when)
        return axis, when, text
    text = f"{fields[0]} {fields[1]}"
    day, _ = parse_date(fields[0])
    m = re.match(r"^(\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)$", fields[1])
    if day is None or not m or int(m.group(1)) > 23 or int(m.group(2)) > 59 or float(m.group(3)) >= 61:
        return None, None, text
    when = datetime(day.year, day.month, day.day) + timedelta(
        hours=int(m.group(1)), minutes=int(m.group(2)), seconds=float(m.group(3)))
    if zone is not None:
        when = when.replace(tzinfo=zone)
    axis, when = timeline.dated(when)
    return axis, when, text

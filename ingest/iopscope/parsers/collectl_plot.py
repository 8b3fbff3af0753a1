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

Two paths, one result
---------------------
A file of one header and rows that are all plain (whole-second times going forward, CPU
values that are numbers within 0..100 adding up to 100 within the tolerance, nothing the row
loop would warn about) is read column-wise: Arrow's CSV reader splits the rows in C and keeps
only the time and CPU columns, which are then checked and converted whole (a 20 MB ``-scdmn``
capture: 1.26 -> 0.17 s). A last row cut short (collectl killed mid-line) does not stop it: the
rows before it are read so, and the cut row gets the row loop's warning and status. Anything
else falls back to the row-by-row loop, which stays the reference: ``read_by_reference(collectl_plot, text)``
forces it, and ``tests/python/test_collectl_fast.py`` holds the two to the same output.

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
from datetime import date, datetime, timedelta, timezone

import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from iopscope.parsers._cpu_common import PCT_COLUMNS, Timeline, finish_row, fixed_offset, parse_date
from iopscope.parsers._sysstat_common import arrow_floats, plain_percentages
from iopscope.parsers._sysstat_values import busy_array, printed_number
from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, ParseResult, fastest_reading, no_gc

NAME = "collectl_plot"
VERSION = "1.0.0"
TOOL = "collectl"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

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


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the file column by column where it can, else row by row (the same output)."""
    with no_gc():  # the rows hold no cycles: see no_gc()
        return fastest_reading(text, (_parse_columns,), _parse_rows)



class _Head:
    """What the ``#`` lines said so far: facts, the time zone, the current header."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.zone: timezone | None = None
        self.header_interval: float | None = None
        self.ncpu: int | None = None
        self.hostname: str | None = None
        self.layout: _Layout | None = None
        self.cpu_layouts = 0
        self.dropped_reported: set[str] = set()

    def read(self, lineno: int, line: str) -> None:
        """A line starting with ``#``: a header (re-keys the columns) or a comment."""
        result = self.result
        if _HEADER.match(line):
            layout = self.layout = _Layout(line)
            self.cpu_layouts += bool(layout.cpus)
            summary = layout.dropped_summary()
            if summary and summary not in self.dropped_reported:
                self.dropped_reported.add(summary)
                result.warn(lineno, "columns not read (cpu_samples takes CPU percentages "
                                    f"only): {summary}")
            return
        _comment(line, result)
        if _DATE.match(line) and (m := _TZ.search(line)):
            zone = fixed_offset(m.group(1) + m.group(2) + m.group(3))
            if zone is None:
                result.warn(lineno, f"{m.group(0)} is no time zone offset: times kept as printed")
            else:
                self.zone = zone
        if (m := _NUMCPUS.search(line)):
            self.ncpu = int(m.group(1))
            result.facts.setdefault("logical_cpus", self.ncpu)
        if (m := _INTERVAL.search(line)) and line.lstrip("# ").startswith("SubSys"):
            self.header_interval = printed_number(m.group(1))
        if (m := _HOST.match(line)):
            self.hostname = m.group(1)
            result.facts.setdefault("hostname", self.hostname)

    def no_rows(self) -> ParseError:
        """Why a file gave no cpu_samples row."""
        layout = self.layout
        if layout is None:
            return ParseError("no collectl plot header ('#Date Time ...') found")
        if not self.cpu_layouts:
            subs = sorted({(_COLUMN.match(n).group("sub") if _COLUMN.match(n) else n)
                           for n in layout.dropped})
            return ParseError(f"collectl plot file without CPU columns (subsystems: {', '.join(subs)})")
        first = next((i for i in self.result.issues if i.line), None)
        return ParseError("no readable CPU row" + (f": {first.reason}" if first else ""),
                          first.line if first else None)


def _parse_rows(text: str) -> ParseResult:
    result = ParseResult(format=NAME)
    head = _Head(result)
    timeline = Timeline()
    first_axis = prev_axis = None
    sample_index = -1
    warnings = suppressed = 0
    last_line_bad = False

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
            head.read(lineno, line)
            if _HEADER.match(line):
                last_line_bad = False
            continue
        if _KNOWN_NOISE.match(line):
            continue
        layout = head.layout
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
        axis, when, time_text = _place(fields, layout, head.zone, timeline)
        if axis is None:
            warn(lineno, f"unreadable time {' '.join(fields[:layout.time_fields])!r}: row skipped")
            continue
        sample_index += 1
        if first_axis is None:
            first_axis = axis
        interval = head.header_interval if prev_axis is None else axis - prev_axis
        prev_axis = axis
        common = {
            "sample_index": sample_index, "sampled_at": when, "time_text": time_text,
            "elapsed_s": axis - first_axis, "interval_s": interval, "is_since_boot": False,
            "source_block": "collectl", "hostname": head.hostname, "logical_cpus": head.ncpu,
        }
        for cpu, columns in layout.cpus.items():
            row = dict(common)
            row["cpu"] = cpu
            for index, column in columns:
                value = printed_number(fields[index])
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
        raise head.no_rows()
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
        secs = printed_number(text)
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


# --------------------------------------------------------------------------- column path
# A plot file is one header and then rows of the same shape, a few hundred bytes each of which
# only the time and ~10 CPU percentages are read. The column path hands the rows to Arrow's CSV
# reader (split in C, only the wanted columns kept), then checks and converts whole columns. It
# takes a file only when Arrow splits every row exactly as str.split() would and every row is
# one the row path keeps without a warning; anything else raises NeedsRowPath.

# Line ends of str.splitlines() beyond "\n" (not in any collectl output).
_OTHER_LINE_ENDS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
# What must not be in the rows for Arrow's one-character split to give str.split()'s fields:
# other white space, and (space-separated) two spaces in a row, an empty field in a column not
# read. A blank line, a comment or header line or a leading space gives a first field that is
# not a date, and a trailing space an empty last field: both are checked on the columns.
_NOT_IN_SPACED_ROWS = (b"\t", b"\x1f", b"  ")
_NOT_IN_SEPARATED_ROWS = (b" ", b"\t", b"\x1f")   # fields are strip()ped there
_CSV_SEPARATORS = (" ", ",", ";", "|")
_DAY = r"^[0-9]{8}$"                           # collectl's %Y%m%d
_CLOCK = r"^[0-9]{2}:[0-9]{2}:[0-9]{2}$"       # whole seconds (-om adds .mmm: row path)
_EPOCH = r"^[0-9]{1,11}$"                      # -oU, whole seconds below 1e11
_NAIVE_US = pa.timestamp("us")
_UTC_US = pa.timestamp("us", tz="+00:00")      # reads back with tzinfo datetime.timezone.utc
_EPOCH_DAY = date(1970, 1, 1)
_EXACT_US = 2 ** 53                            # integers up to this are exact as float64


def _parse_columns(text: str) -> ParseResult:
    if not text.isascii():
        raise NeedsRowPath  # Arrow and str.split() agree on ASCII white space only
    raw = text.encode("ascii")
    if any(end in raw for end in _OTHER_LINE_ENDS):
        raise NeedsRowPath
    result = ParseResult(format=NAME)
    head = _Head(result)
    start = _read_head(text, head)
    layout = head.layout
    if layout is None or not layout.cpus:
        raise NeedsRowPath  # nothing to read in columns: the row path says why
    end, cut_row = _complete_rows(text, layout)
    if start >= end:
        raise NeedsRowPath  # no row before the cut: the row path says why
    sep = " " if layout.sep is None else layout.sep
    if sep not in _CSV_SEPARATORS:
        raise NeedsRowPath
    banned = _NOT_IN_SPACED_ROWS if sep == " " else _NOT_IN_SEPARATED_ROWS
    if any(raw.find(b, start, end) >= 0 for b in banned):
        raise NeedsRowPath
    fields = _read_fields(pa.py_buffer(raw)[start:end], layout, sep)
    n = len(fields[0])
    times = _times(fields, layout, head)
    groups = []
    for cpu, columns in layout.cpus.items():
        names = [name for _, name in columns]
        if len(set(names)) != len(names):
            raise NeedsRowPath  # a column printed twice: the row path keeps the last one
        groups.append((cpu, names, _percentages([fields[i] for i, _ in columns], names, n)))
    if len({frozenset(names) for _, names, _ in groups}) > 1:
        raise NeedsRowPath  # rows with different keys cannot share one Columns block
    if head.ncpu is not None and head.ncpu >= 2 ** 63:
        raise NeedsRowPath  # a NumCPUs beyond int64: the rows keep the Python int
    common = {
        "sample_index": pa.array(range(n), pa.int64()), **times,
        "is_since_boot": pa.repeat(False, n), "source_block": pa.repeat("collectl", n),
        "hostname": pa.repeat(pa.scalar(head.hostname, pa.string()), n),
        "logical_cpus": pa.repeat(pa.scalar(head.ncpu, pa.int64()), n),
    }
    if len(groups) == 1:
        cpu, _, values = groups[0]
        block = {**common, "cpu": pa.repeat(cpu, n), **values}
    else:
        # Rows come CPU after CPU within a sample, as the row path adds them.
        order = pa.array([g * n + r for r in range(n) for g in range(len(groups))], pa.int64())
        block = {key: pa.concat_arrays([column] * len(groups)).take(order) for key, column in common.items()}
        block["cpu"] = pa.concat_arrays([pa.repeat(cpu, n) for cpu, _, _ in groups]).take(order)
        for key in groups[0][2]:
            block[key] = pa.concat_arrays([values[key] for _, _, values in groups]).take(order)
    result.tables["cpu_samples"] = Columns(block, n * len(groups))
    if cut_row is not None:
        # What the row loop does with it: the one line warning (none came before it, so it is
        # within MAX_LINE_WARNINGS), after every other issue, and the status.
        lineno, width = cut_row
        result.warn(lineno, f"row has {width} fields, the header has {layout.width}: skipped")
        result.status = "incomplete"
        result.status_reason = "the last row is cut short"
    return result


def _complete_rows(text: str, layout: _Layout) -> tuple[int, tuple[int, int] | None]:
    """Where the rows for Arrow end, and (line number, field count) of a last row cut short.

    A file whose writer was killed ends mid-row (output to a file is block-buffered). The row
    loop skips such a row with a warning, so the column path reads the rows before it and
    adds that warning; which is exact only when the last line is a row of another field count
    than the header's. A last line without a newline that has the header's field count is a
    row the loop reads: Arrow reads it too (it needs no final newline). A blank last line is
    skipped by the loop; a comment, header or 'waiting' line goes to the row path."""
    cut = text.rfind("\n") + 1
    last = text[cut:]
    if not last:
        return len(text), None
    if not last.strip():
        return cut, None
    if last.startswith("#") or _KNOWN_NOISE.match(last):
        raise NeedsRowPath
    width = len(last.split(layout.sep))   # the loop's split (strip() keeps the count)
    if width == layout.width:
        return len(text), None
    # str.splitlines() numbers lines as "\n" does: _parse_columns refused the other line ends.
    return cut, (text.count("\n", 0, cut) + 1, width)


def _read_head(text: str, head: _Head) -> int:
    """Read the comment block and header(s) into ``head``: the offset of the first row."""
    pos, lineno = 0, 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        lineno += 1
        if line.startswith("#"):
            head.read(lineno, line)
        elif line.strip() and not _KNOWN_NOISE.match(line):
            return pos
        pos = end + 1
    return len(text)


def _read_fields(rows: pa.Buffer, layout: _Layout, sep: str) -> dict[int, pa.Array]:
    """The time fields and the CPU columns of every row (strings), by header position."""
    names = [str(i) for i in range(layout.width)]
    last = layout.width - 1
    wanted = sorted({*range(layout.time_fields), last, *(i for cols in layout.cpus.values() for i, _ in cols)})
    try:
        table = pa_csv.read_csv(
            rows,
            read_options=pa_csv.ReadOptions(use_threads=False, column_names=names),
            parse_options=pa_csv.ParseOptions(delimiter=sep, quote_char=False, double_quote=False,
                                              escape_char=False, ignore_empty_lines=False),
            convert_options=pa_csv.ConvertOptions(
                include_columns=[names[i] for i in wanted],
                column_types={names[i]: pa.string() for i in wanted}))
    except pa.ArrowInvalid:
        raise NeedsRowPath from None  # a row with another number of fields
    fields = {i: table.column(names[i]).combine_chunks() for i in wanted}
    if pc.min(pc.binary_length(fields[last])).as_py() == 0:
        raise NeedsRowPath  # a blank line or a separator at the end of a row
    return fields


def _all(condition: pa.Array) -> bool:
    return bool(pc.all(condition).as_py())


def _times(fields: dict[int, pa.Array], layout: _Layout, head: _Head) -> dict[str, pa.Array]:
    """sampled_at, time_text, elapsed_s, interval_s of every row, as _place and the row loop
    make them: UTC when the file gives a zone (or is -oU), naive otherwise."""
    if layout.utc:
        stamps = fields[0]
        if not _all(pc.match_substring_regex(stamps, _EPOCH)):
            raise NeedsRowPath
        utc_us = pc.multiply(stamps.cast(pa.int64()), 1_000_000)
        sampled_at, time_text = utc_us.cast(_UTC_US), stamps
    else:
        days, clocks = fields[0], fields[1]
        if not (_all(pc.match_substring_regex(days, _DAY)) and _all(pc.match_substring_regex(clocks, _CLOCK))):
            raise NeedsRowPath
        hour, minute, second = (pc.utf8_slice_codeunits(clocks, a, a + 2).cast(pa.int64()) for a in (0, 3, 6))
        if pc.max(hour).as_py() > 23 or pc.max(minute).as_py() > 59 or pc.max(second).as_py() > 60:
            raise NeedsRowPath  # an unreadable time: a warning on the row path
        distinct = pc.unique(days)
        day_us = []
        for text in distinct.to_pylist():
            day, _ = parse_date(text)
            if day is None or not 1 < day.year < 9999:
                raise NeedsRowPath  # a date that does not exist (or at the end of the calendar)
            day_us.append((day - _EPOCH_DAY).days * 86_400_000_000)
        clock_s = pc.add(pc.multiply(pc.add(pc.multiply(hour, 60), minute), 60), second)
        local_us = pc.add(pa.array(day_us, pa.int64()).take(pc.index_in(days, value_set=distinct)),
                          pc.multiply(clock_s, 1_000_000))
        if head.zone is None:
            utc_us, sampled_at = local_us, local_us.cast(_NAIVE_US)
        else:
            offset = head.zone.utcoffset(None) // timedelta(microseconds=1)
            utc_us = pc.subtract(local_us, offset)
            sampled_at = utc_us.cast(_UTC_US)
        time_text = pc.binary_join_element_wise(days, clocks, " ")
    # timedelta.total_seconds() is integer microseconds / 10**6, correctly rounded: so is this,
    # while the microseconds are exact as floats (from 2**53 us, past the year 2255 or before
    # 1685, casting would round them once more).
    bounds = pc.min_max(utc_us).as_py()
    if not -_EXACT_US <= bounds["min"] <= bounds["max"] <= _EXACT_US:
        raise NeedsRowPath
    axis = pc.divide(utc_us.cast(pa.float64()), 1e6)
    n = len(axis)
    steps = pc.subtract(axis.slice(1), axis.slice(0, n - 1))
    if n > 1 and pc.min(steps).as_py() < 0:
        raise NeedsRowPath  # the time went back: the row path warns
    return {
        "sampled_at": sampled_at, "time_text": time_text,
        "elapsed_s": pc.subtract(axis, axis[0]),
        "interval_s": pa.concat_arrays([pa.array([head.header_interval], pa.float64()), steps]),
    }


def _percentages(strings: list[pa.Array], names: list[str], n: int) -> dict[str, pa.Array]:
    """One CPU's percentage columns and busy_pct, when every row passes finish_row() without a
    note: numbers within 0..100 (+- 0.05), not all 0, adding up to 100 within TOLERANCE."""
    values = {}
    for name, column in zip(names, strings):
        floats = arrow_floats(column)
        if floats is None or not plain_percentages(floats):
            raise NeedsRowPath  # not a number, nan/inf (a null there) or out of range (a note)
        values[name] = floats
    total = None
    for name in PCT_COLUMNS:             # finish_row's order: the same sums, bit for bit
        if name in values:
            total = values[name] if total is None else pc.add(total, values[name])
    if not _all(pc.not_equal(total, 0.0)) or \
            not _all(pc.less_equal(pc.abs(pc.subtract(total, 100.0)), TOLERANCE)):
        raise NeedsRowPath  # a row dropped or noted: the row path's job
    busy = busy_array(values.get("idle_pct"), values.get("iowait_pct"), values.get("steal_pct"), n)
    values["busy_pct"] = busy
    return values

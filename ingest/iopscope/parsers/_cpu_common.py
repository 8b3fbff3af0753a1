"""Helpers shared by the CPU utilisation parsers (mpstat, sar -u, collectl).

Not a parser (the leading underscore keeps it out of the registry). Everything here is pure.

* :func:`parse_date` reads the dates sysstat prints in its banner and JSON ``date`` field,
  which follow the locale's ``%x``: ``2026-11-21`` (ISO / ``S_TIME_FORMAT=ISO``), ``11/21/26``
  (C), ``11/21/2026`` (en_US), ``21.11.2026`` (de_DE), ``21/11/26`` (en_GB).
* :func:`parse_clock` reads times of day: ``13:26:05``, ``01:26:05 PM``, ``13:26:05.250``.
* :class:`Timeline` turns times of day into datetimes and seconds, rolling over midnight.
* :func:`finish_row` checks percentages and derives ``busy_pct``.
* :func:`parse_sysstat_text` is the reader behind ``mpstat_text`` and ``sar_cpu`` (their
  layouts are the same; only the column names and order differ). A plain capture (banner, then
  intervals of one shape, maybe cut short) is read column-wise in Arrow by
  :func:`_read_periodic` (~8x faster on a 20 MB ``mpstat -P ALL 1``); anything else by the
  line reader, which is the reference:
  ``tests/python/test_cpu_text_fast.py`` holds the two to the same output.
"""

from __future__ import annotations

import re
from array import array
from datetime import date, datetime, timedelta, timezone

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers._sysstat_common import arrow_floats, whitespace_fields
from iopscope.parsers._sysstat_values import busy_array, busy_pct, printed_number, year
from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, ParseResult, fastest_reading, no_gc

# Canonical percentage columns of cpu_samples, in the order they are documented.
PCT_COLUMNS = ("user_pct", "nice_pct", "system_pct", "iowait_pct", "irq_pct", "softirq_pct",
               "steal_pct", "guest_pct", "gnice_pct", "idle_pct")

# sysstat text column names (mpstat, sar -u, sar -u ALL, old and new spellings).
SYSSTAT_TEXT_COLUMNS = {
    "%usr": "user_pct", "%user": "user_pct",
    "%nice": "nice_pct",
    "%sys": "system_pct", "%system": "system_pct",
    "%iowait": "iowait_pct",
    "%irq": "irq_pct",
    "%soft": "softirq_pct",
    "%steal": "steal_pct",
    "%guest": "guest_pct",
    "%gnice": "gnice_pct",
    "%idle": "idle_pct",
}

# sysstat JSON keys (mpstat -o JSON "cpu-load" objects).
SYSSTAT_JSON_KEYS = {
    "usr": "user_pct", "user": "user_pct",
    "nice": "nice_pct",
    "sys": "system_pct", "system": "system_pct",
    "iowait": "iowait_pct",
    "irq": "irq_pct",
    "soft": "softirq_pct",
    "steal": "steal_pct",
    "guest": "guest_pct",
    "gnice": "gnice_pct",
    "idle": "idle_pct",
}

DAY = 86400.0
# A time of day that goes back by more than this is read as the next day (midnight rollover);
# a smaller step back is a clock adjustment (reported, not rolled over).
ROLLOVER_MIN_STEP_BACK = 12 * 3600.0

_CLOCK = re.compile(
    r"^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:\s*([AaPp])\.?\s?[Mm]\.?)?$")
# ja_JP / zh_CN print %X as 13時32分50秒 / 13时32分50秒 and %x as 2026年11月21日.
_CJK_CLOCK = re.compile(r"^(\d{1,2})[時时](\d{2})分(\d{2})秒$")
_CJK_DATE = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_COMPACT_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$")
_DOT_DATE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})$")


def parse_date(text: str | None, day_first: bool = False) -> tuple[date | None, str | None]:
    """A sysstat/collectl date and, when the day/month order had to be guessed, a note saying so.

    Slashed dates are ``MM/DD/YY`` (the C and en_US locales) unless a field over 12 shows the
    order or ``day_first`` says the locale writes the day first (fr_FR ``21/11/2026``; the text
    parsers pass it when the file uses decimal commas). Dotted dates are ``DD.MM.YYYY``.

    >>> parse_date("11/21/26")
    (datetime.date(2026, 11, 21), None)
    >>> parse_date("21.11.2026")[0], parse_date("2021-05-19")[0], parse_date("20221109")[0]
    (datetime.date(2026, 11, 21), datetime.date(2021, 5, 19), datetime.date(2022, 11, 9))
    >>> parse_date("03/04/21")[1]
    'date 03/04/21 could be day/month or month/day: read as month/day (C and en_US locales)'
    """
    if not text:
        return None, None
    text = text.strip()
    try:
        m = _ISO_DATE.match(text) or _COMPACT_DATE.match(text) or _CJK_DATE.match(text)
        if m:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3))), None
        m = _DOT_DATE.match(text)
        if m:
            return date(year(m.group(3)), int(m.group(2)), int(m.group(1))), None
        m = _SLASH_DATE.match(text)
        if m:
            a, b, y = int(m.group(1)), int(m.group(2)), year(m.group(3))
            ambiguous = a != b and a <= 12 and b <= 12
            if a > 12 >= b or (day_first and b <= 12):
                note = (f"date {text} could be day/month or month/day: read as day/month "
                        "(the file uses decimal commas, as day-first locales do)") if ambiguous else None
                return date(y, b, a), note
            note = (f"date {text} could be day/month or month/day: "
                    "read as month/day (C and en_US locales)") if ambiguous else None
            return date(y, a, b), note
    except ValueError:
        return None, None
    return None, None


def parse_clock(text: str) -> float | None:
    """Seconds since midnight of a printed time of day, 24h or 12h (AM/PM).

    >>> parse_clock("13:26:05"), parse_clock("01:26:05 PM"), parse_clock("12:00:01 AM")
    (48365.0, 48365.0, 1.0)
    >>> parse_clock("25:00:00") is None
    True
    """
    m = _CLOCK.match(text.strip())
    if not m:
        c = _CJK_CLOCK.match(text.strip())
        if c and int(c.group(1)) < 24 and int(c.group(2)) < 60 and int(c.group(3)) <= 60:
            return int(c.group(1)) * 3600.0 + int(c.group(2)) * 60.0 + int(c.group(3))
        return None
    hour, minute = int(m.group(1)), int(m.group(2))
    second = int(m.group(3) or 0)
    frac = float("0." + m.group(4)) if m.group(4) else 0.0
    meridiem = m.group(5)
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem in "Pp" else 0)
    if hour > 23 or minute > 59 or second > 60:
        return None
    return hour * 3600.0 + minute * 60.0 + second + frac


_TZ = re.compile(r"(Z|UTC|[+-]\d{2}:?\d{2})$")


def fixed_offset(text: str) -> timezone | None:
    """The zone of a printed UTC offset ``+HHMM`` or ``-HH:MM``; None past 23 h or 59 min,
    which no zone has (timezone() itself refuses 24 h and more).

    >>> fixed_offset("-05:30"), fixed_offset("+2600")
    (datetime.timezone(datetime.timedelta(days=-1, seconds=66600)), None)
    """
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        return None
    return timezone((-1 if text[0] == "-" else 1) * timedelta(hours=hours, minutes=minutes))


def parse_timestamp(text: str) -> tuple[date | None, float | None, timezone | None, str | None]:
    """(date or None, seconds of day, zone or None, date note) of ``[date[ T]]time[ AM|PM][zone]``.

    >>> parse_timestamp("2021-05-19T18:01:05+0200")[1:3]
    (64865.0, datetime.timezone(datetime.timedelta(seconds=7200)))
    >>> parse_timestamp("05:01:05 PM")[:2]
    (None, 61265.0)
    """
    text = text.strip()
    zone = None
    m = _TZ.search(text)
    if m and len(text) > len(m.group(1)):
        raw = m.group(1)
        before = text[: m.start()]
        if raw in ("Z", "UTC"):
            zone = timezone.utc
        else:
            zone = fixed_offset(raw)
            if zone is None:
                return None, None, None, None   # "13:-26:08" ends in no zone: unreadable
        text = before.rstrip()
    day, note = None, None
    if "T" in text[:11] and _ISO_DATE.match(text.split("T", 1)[0]):
        date_part, time_part = text.split("T", 1)
        day, note = parse_date(date_part)
    else:
        parts = text.split(None, 1)
        if len(parts) == 2 and ("-" in parts[0] or "/" in parts[0] or "." in parts[0]
                                or _COMPACT_DATE.match(parts[0])):
            day, note = parse_date(parts[0])
            time_part = parts[1] if day else text
        else:
            time_part = text
    return day, parse_clock(time_part), zone, note


class Timeline:
    """Places printed times on one axis: seconds since a reference, plus datetimes when dated.

    ``clock(seconds_of_day)`` rolls over midnight when the time goes back by more than 12 h;
    ``set_date`` starts a new day (a new banner). ``place`` gives ``(axis_seconds, datetime)``;
    the datetime is naive (as printed) unless a zone was given, then it is UTC.
    """

    def __init__(self, base: date | None = None) -> None:
        self.base = base
        self.day_offset = 0
        self.last: float | None = None
        self.went_back: list[float] = []  # small backward steps (clock adjustments)

    def set_date(self, base: date | None) -> None:
        if base is not None and base != self.base:
            self.base = base
            self.day_offset = 0
            self.last = None

    def clock(self, seconds_of_day: float) -> tuple[float, datetime | None]:
        axis = self.day_offset * DAY + seconds_of_day
        if self.last is not None and axis < self.last:
            if self.last - axis > ROLLOVER_MIN_STEP_BACK:
                self.day_offset += 1
                axis += DAY
            else:
                self.went_back.append(self.last - axis)
        self.last = axis
        when = None
        if self.base is not None:
            when = datetime(self.base.year, self.base.month, self.base.day) + timedelta(seconds=axis)
        return axis, when

    def dated(self, when: datetime) -> tuple[float, datetime]:
        """An explicitly dated time (aware ones are converted to naive UTC for the axis)."""
        naive = when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo else when
        axis = (naive - datetime(1970, 1, 1)).total_seconds()
        if self.last is not None and axis < self.last:
            self.went_back.append(self.last - axis)
        self.last = axis
        return axis, (when.astimezone(timezone.utc) if when.tzinfo else when)


def finish_row(row: dict, tolerance: float) -> tuple[str | None, list[str]]:
    """Check a row's percentages and set ``busy_pct``: ``(reason to drop the row, notes)``.

    * A value outside 0..100 is set to null and noted; the row is kept.
    * A row whose percentages are all 0 (offline CPU, zero-length interval) is dropped.
    * A row whose percentages do not add up to 100 +- ``tolerance`` is kept and noted.

    ``busy_pct = 100 - idle - iowait - steal`` (a missing iowait or steal counts as 0), clamped
    to 0..100 to absorb the rounding of printed values; null when idle is unknown.

    >>> row = {"user_pct": 1.0, "system_pct": 0.5, "iowait_pct": 0.5, "idle_pct": 98.0}
    >>> finish_row(row, 0.5), row["busy_pct"]
    ((None, []), 1.5)
    """
    notes: list[str] = []
    total = 0.0
    seen = 0
    for col in PCT_COLUMNS:
        value = row.get(col)
        if value is None:
            continue
        if value < -0.05 or value > 100.05:
            notes.append(f"{col} = {value} is outside 0..100: set to null")
            row[col] = None
            continue
        total += value
        seen += 1
    if seen and total == 0.0 and not notes:
        return "every percentage is 0 (CPU offline or a zero-length interval): row dropped", notes
    if seen and abs(total - 100.0) > tolerance and not notes:
        notes.append(f"percentages add up to {total:.2f}, not 100")
    row["busy_pct"] = busy_pct(row.get("idle_pct"), row.get("iowait_pct"), row.get("steal_pct"))
    return None, notes


# --------------------------------------------------------------------------- sysstat text
# mpstat and sar -u print the same layout: a banner, then sections that start with a header
# line (time, 'CPU', column names) followed by rows (time, CPU id, values), blank lines, and
# 'Average:' summaries. Both parsers share this reader; they differ in name and detection.

_BANNER = re.compile(
    r"^(?P<os>[A-Za-z][\w./-]*)\s+(?P<release>\S+)\s+\((?P<host>[^()]*)\)\s+(?P<date>\S+)"
    r"(?:\s+_(?P<arch>\S+?)_)?(?:\s+\((?P<ncpu>\d+)\s+CPU\))?\s*$")
# After a header, only a line starting with one of these is tried as a banner (a new file
# appended); the line reader and _cut_line ask the same.
_BANNER_SYSTEMS = ("Linux", "SunOS", "AIX", "HP-UX", "FreeBSD")
_MERIDIEM = re.compile(r"^[AaPp]\.?[Mm]\.?$")
_RESTART_CPUS = re.compile(r"\((\d+)\s+CPU\)")
_DECIMAL_COMMA = re.compile(r"[ \t]\d{1,3},\d\d(?=[ \t]|$)", re.M)
MAX_LINE_WARNINGS = 50


def classify_header(columns: list[str]) -> str | None:
    """'mpstat' or 'sar' for a CPU-utilisation header's columns (after 'CPU'), else None.

    mpstat prints %irq before %steal (or has no %steal at all); sar -u has no %irq and
    sar -u ALL prints %irq after %steal.

    >>> classify_header("%usr %nice %sys %iowait %irq %soft %steal %guest %gnice %idle".split())
    'mpstat'
    >>> classify_header("%usr %nice %sys %iowait %steal %irq %soft %guest %gnice %idle".split())
    'sar'
    >>> classify_header("%user %nice %system %iowait %steal %idle".split())
    'sar'
    """
    if "%idle" not in columns or not any(c in SYSSTAT_TEXT_COLUMNS for c in columns if c != "%idle"):
        return None
    if "%irq" in columns and ("%steal" not in columns or columns.index("%irq") < columns.index("%steal")):
        return "mpstat"
    return "sar"


def _time_width(tokens: list[str]) -> int:
    return 2 if len(tokens) > 1 and _MERIDIEM.match(tokens[1]) else 1


def first_cpu_header(head: str) -> str | None:
    """Classification of the first CPU-utilisation header line found in ``head``."""
    for line in head.splitlines():
        tokens = line.split()
        if len(tokens) < 4:
            continue
        k = _time_width(tokens)
        if len(tokens) > k + 2 and tokens[k] == "CPU" and parse_clock(" ".join(tokens[:k])) is not None:
            kind = classify_header(tokens[k + 1:])
            if kind:
                return kind
    return None


class _Section:
    """The CPU-utilisation section whose header was read last."""

    __slots__ = ("k", "columns", "tail", "min_len", "max_len", "mapping", "unread")

    def __init__(self, k: int, columns: list[str]) -> None:
        self.k = k
        self.columns = columns
        first_pct = min(i for i, c in enumerate(columns) if c in SYSSTAT_TEXT_COLUMNS)
        # Values are read from the right: mpstat -T leaves CORE/SOCK/NODE blank on 'all' rows.
        self.tail = len(columns) - first_pct
        self.min_len = k + 1 + self.tail
        self.max_len = k + 1 + len(columns)
        self.mapping = [(i - len(columns), SYSSTAT_TEXT_COLUMNS[c])
                        for i, c in enumerate(columns) if c in SYSSTAT_TEXT_COLUMNS]
        self.unread = [c for c in columns if c not in SYSSTAT_TEXT_COLUMNS]


def parse_sysstat_text(text: str, result: ParseResult, source_block: str, since_boot_possible: bool,
                       tolerance: float = 0.5) -> None:
    """Fill ``result`` with cpu_samples rows read from mpstat / sar -u text.

    Raises ParseError when no row at all can be read; sets ``status`` incomplete when the
    last line is cut short or the closing ``Average:`` block is missing.

    A capture of same-shaped intervals (the usual ``mpstat -P ALL 1``, ``sar -u ALL -P ALL 1``)
    is read column by column by :func:`_read_periodic`; anything else line by line by
    :func:`_read_lines`, which is the reference: both give the same result.
    """
    with no_gc():  # the rows hold no cycles: see no_gc()
        fastest_reading(text, (lambda t: _read_periodic(t, result, source_block, tolerance),),
                        lambda t: _read_lines(t, result, source_block, since_boot_possible, tolerance))


def _read_lines(text: str, result: ParseResult, source_block: str, since_boot_possible: bool,
                tolerance: float) -> None:
    """The line-by-line reader: every layout, every oddity, with warnings and line numbers."""
    timeline = Timeline()
    facts = result.facts
    comma = day_first = bool(_DECIMAL_COMMA.search(text, 0, 16384))
    host = None
    ncpu = None
    section: _Section | None = None
    foreign_lines = 0
    foreign_names: list[str] = []
    unread_columns: list[str] = []
    line_warnings = 0
    suppressed = 0
    summaries = 0
    restarts = 0
    rows = result.tables.setdefault("cpu_samples", [])
    sample_index = -1
    group_time: str | None = None
    group_cpus: set[str] = set()
    group_common: dict = {}
    header_since_row = True
    ref_axis: float | None = None      # time the next sample's interval starts from
    prev_axis: float | None = None
    first_axis: float | None = None
    last_line_bad = False
    group_dropped = False
    saw_header = False
    date_note_done = False

    def warn(lineno: int, reason: str) -> None:
        nonlocal line_warnings, suppressed
        if line_warnings < MAX_LINE_WARNINGS:
            result.warn(lineno, reason)
            line_warnings += 1
        else:
            suppressed += 1

    for lineno, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens:
            continue
        n = len(tokens)
        # ---- fast path: a row of the current CPU section
        if section is not None and section.min_len <= n <= section.max_len:
            k = section.k
            cpu = tokens[k]
            if (cpu == "all" or cpu.isdigit() or cpu == "-1") and tokens[0][:1].isdigit():
                time_text = tokens[0] if k == 1 else " ".join(tokens[:k])
                if time_text != group_time or cpu in group_cpus or header_since_row:
                    # A new sample: place it in time once, for all its CPU rows.
                    sample_index += 1
                    group_time = time_text
                    group_cpus = set()
                    secs = parse_clock(time_text)
                    axis = when = None
                    if secs is None:
                        warn(lineno, f"unreadable time {time_text!r}: sample kept without time")
                    else:
                        axis, when = timeline.clock(secs)
                        if first_axis is None:
                            first_axis = axis
                    start = ref_axis if header_since_row else prev_axis
                    interval = None if axis is None or start is None else axis - start
                    since_boot = False
                    group_dropped = False
                    if interval == 0.0:
                        if since_boot_possible and sample_index == 0:
                            since_boot, interval = True, None
                        else:
                            group_dropped = True
                            sample_index -= 1
                            warn(lineno, f"sample at {time_text} covers 0 s (two collector runs "
                                         "meeting in one file?): its rows are dropped")
                    group_common = {
                        "sample_index": sample_index, "sampled_at": when, "time_text": time_text,
                        "elapsed_s": None if axis is None or first_axis is None else axis - first_axis,
                        "interval_s": interval, "is_since_boot": since_boot,
                        "source_block": source_block, "hostname": host, "logical_cpus": ncpu,
                    }
                    prev_axis = axis if axis is not None else prev_axis
                    header_since_row = False
                group_cpus.add(cpu)
                last_line_bad = False
                if group_dropped:
                    continue
                row = dict(group_common)
                row["cpu"] = "all" if cpu == "-1" else cpu
                # Conversion, inlined: this loop is the parser's hot path.
                total = 0.0
                low, high = 100.0, 0.0
                bad = None
                for idx, col in section.mapping:
                    tok = tokens[idx]
                    if comma:
                        tok = tok.replace(",", ".")
                    try:
                        value = float(tok)
                        if value - value:          # nan or inf: a null, not a number
                            value = None
                    except ValueError:
                        value = printed_number(tokens[idx])   # a comma the head did not show
                    if value is None:
                        bad = tokens[idx]
                    else:
                        total += value
                        if value < low:
                            low = value
                        if value > high:
                            high = value
                    row[col] = value
                if bad is not None:
                    warn(lineno, f"unreadable value {bad!r}: set to null")
                if bad is None and low >= 0.0 and high <= 100.0 and abs(total - 100.0) <= tolerance:
                    # The common case, already checked: only busy_pct is left to derive.
                    busy = 100.0 - row["idle_pct"] - (row.get("iowait_pct") or 0.0) \
                        - (row.get("steal_pct") or 0.0)
                    row["busy_pct"] = round(min(100.0, max(0.0, busy)), 6)
                    rows.append(row)
                else:
                    # --dec=0/1 prints fewer decimals: allow each printed value its rounding.
                    last = tokens[-1]
                    sep = "," if comma else "."
                    decimals = len(last) - last.index(sep) - 1 if sep in last else 0
                    row_tolerance = max(tolerance, len(section.mapping) * 0.5 * 10.0 ** -decimals)
                    drop, notes = finish_row(row, row_tolerance)
                    if drop:
                        warn(lineno, f"CPU {cpu}: {drop}")
                    else:
                        rows.append(row)
                        for note in notes:
                            warn(lineno, f"CPU {cpu}: {note}")
                last_line_bad = False
                continue
        # ---- summary lines: 'Average:' (or its translation, 'Durchschn.:', 'Moyenne :')
        colon = line.find(":")
        label = line[:colon].strip() if colon > 0 else ""
        if label and " " not in label and not any(ch.isdigit() for ch in label) \
                and line[colon + 1:].strip():
            summaries += 1
            last_line_bad = False
            continue
        # ---- banner
        if not saw_header or tokens[0] in _BANNER_SYSTEMS:
            m = _BANNER.match(line)
            if m:
                base, note = parse_date(m.group("date"), day_first)
                if note and not date_note_done:
                    result.warn(lineno, note)
                    date_note_done = True
                if base is None:
                    warn(lineno, f"unreadable banner date {m.group('date')!r}: sampled_at left null")
                timeline.set_date(base)
                host = m.group("host")
                ncpu = int(m.group("ncpu")) if m.group("ncpu") else None
                if "hostname" not in facts:
                    facts.update({"hostname": host, "kernel": m.group("release"), "os": m.group("os")})
                    if m.group("arch"):
                        facts["arch"] = m.group("arch")
                    if ncpu is not None:
                        facts["logical_cpus"] = ncpu
                    if base is not None:
                        facts["date"] = base.isoformat()
                header_since_row = True
                last_line_bad = False
                continue
        k = _time_width(tokens)
        secs = parse_clock(" ".join(tokens[:k])) if tokens[0][:1].isdigit() else None
        # ---- LINUX RESTART (sar -f over a reboot)
        if secs is not None and "RESTART" in tokens[k:k + 2]:
            restarts += 1
            ref_axis, _ = timeline.clock(secs)
            header_since_row = True
            m = _RESTART_CPUS.search(line)
            if m:
                ncpu = int(m.group(1))
            last_line_bad = False
            continue
        # ---- header lines: time then names only
        if secs is not None and n > k and all(printed_number(t) is None for t in tokens[k:]):
            saw_header = True
            header_since_row = True
            columns = tokens[k + 1:]
            if tokens[k] == "CPU" and classify_header(columns):
                # Only CPU headers go on the timeline: other sections print their own times.
                ref_axis, _ = timeline.clock(secs)
                section = _Section(k, columns)
                for c in section.unread:
                    if c not in unread_columns:
                        unread_columns.append(c)
            else:
                section = None
                name = " ".join(tokens[k:k + 2]) if tokens[k] in ("CPU", "NODE") else tokens[k]
                if name not in foreign_names:
                    foreign_names.append(name)
            last_line_bad = False
            continue
        if section is None and saw_header and secs is not None:
            foreign_lines += 1   # a row of a section that is not CPU utilisation
            last_line_bad = False
            continue
        if section is not None and secs is not None:
            warn(lineno, f"row has {n} fields, the header has {section.max_len}: skipped")
        else:
            warn(lineno, f"unrecognised line skipped: {line.strip()[:120]}")
        last_line_bad = True

    if suppressed:
        result.warn(None, f"{suppressed} more skipped or doubtful lines not listed")
    if foreign_lines or foreign_names:
        result.warn(None, f"skipped {foreign_lines} rows of sections that are not CPU utilisation "
                          f"({', '.join(foreign_names[:8])})")
    if unread_columns:
        result.warn(None, f"columns not read into cpu_samples: {', '.join(unread_columns)}")
    if timeline.went_back:
        result.warn(None, f"the time went back {len(timeline.went_back)} time(s) by less than 12 h "
                          "(clock adjusted?): elapsed_s is not monotonic there")
    if restarts:
        facts["restarts"] = restarts
    if not rows:
        if result.issues and any(i.line for i in result.issues):
            first = next(i for i in result.issues if i.line)
            raise ParseError(f"no CPU utilisation rows read; first problem: {first.reason}", first.line)
        raise ParseError("no CPU utilisation rows (no 'CPU %usr/%user ... %idle' header with rows)")
    if last_line_bad:
        result.status = "incomplete"
        result.status_reason = "the last line is cut short"
    elif not summaries and not (rows and rows[0]["is_since_boot"]):
        result.status = "incomplete"
        result.status_reason = ("no 'Average:' summary at the end: the tool was stopped before "
                                "it finished (rows kept)")


# --------------------------------------------------------------------------- periodic path
# A live capture is one banner and then the same few lines every interval. Read line by line,
# every row costs a split, a dict and ten float() calls: 10 MB/s. Here the shape of the first
# interval is taken as a template, every other interval is checked against it with list
# slices, and the rows are split and converted by Arrow, column by column.



# str.splitlines() breaks lines at these too; split("\n") (used here) does not.
_OTHER_LINE_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


_HHMMSS = r"^[0-9]{2}:[0-9]{2}:[0-9]{2}$"


def _clock_column(times: pa.Array) -> list[float]:
    """parse_clock() of 24-hour ``HH:MM:SS`` times exactly as sysstat prints them, in C; raises
    NeedsRowPath for any other form (12-hour, fractions, out of range: the line reader's)."""
    if not pc.all(pc.match_substring_regex(times, _HHMMSS)).as_py():
        raise NeedsRowPath
    parts = [pc.utf8_slice_codeunits(times, a, a + 2).cast(pa.int64()) for a in (0, 3, 6)]
    for part, top in zip(parts, (23, 59, 60)):
        if pc.max(part).as_py() > top:
            raise NeedsRowPath
    hours, minutes, seconds = parts
    # Whole numbers: exact in float64, the same as parse_clock()'s float sum.
    return pc.add(pc.add(pc.multiply(hours, 3600), pc.multiply(minutes, 60)), seconds).cast(pa.float64()).to_pylist()


def _fixed_width_fields(rows: list[str], width: int) -> list[pa.Array] | None:
    """The fields of rows printed in fixed-width columns, cut by position in C; None unless
    every row is as long as the first and every field starts where the first row's does.

    sysstat right-aligns each value in a column of fixed width, so the rows of a capture are
    equally long and field j lies in the span from the end of field j-1 to the end of field j
    of the first row. Each span after the first is checked to start with a space in every row
    (so no two fields run together); the caller's checks (times equal to a parsed clock, CPU
    labels, numbers Arrow reads) then fail on any span holding two fields or none. The same
    fields as str.split() then, about 2.5x faster than :func:`whitespace_fields`.
    """
    size = len(rows[0])
    if set(map(len, rows)) != {size}:
        return None
    ends = [m.end() for m in re.finditer(r"\S+", rows[0])]
    if len(ends) != width:
        return None
    ends[-1] = size
    n = len(rows)
    data = "".join(rows).encode("ascii")
    offsets = pa.py_buffer(array("q", range(0, n * size + 1, size)))
    whole = pa.Array.from_buffers(pa.large_binary(), n, [None, offsets, pa.py_buffer(data)])
    fields = []
    start = 0
    for j, end in enumerate(ends):
        if j and data[start::size] != b" " * n:
            return None
        piece = pc.binary_slice(whole, start, end).view(pa.large_string())
        fields.append(pc.ascii_trim_whitespace(piece) if j else piece)
        start = end
    return fields


def _is_summary(line: str) -> bool:
    """An ``Average:`` line (or a translation), by the line reader's own rule."""
    colon = line.find(":")
    label = line[:colon].strip() if colon > 0 else ""
    return bool(label) and " " not in label and not any(ch.isdigit() for ch in label) \
        and bool(line[colon + 1:].strip())


def _cut_line(line: str, tokens: list[str], width: int) -> tuple[str, str]:
    """What the line reader makes of a last line cut short that is not read as a row, after a
    CPU header: ``("summary", "")``, ``("foreign", section name)`` (a cut header it no longer
    recognises; it names it in a closing warning) or ``("bad", warning)`` (the line is skipped
    and the file reported cut short). The line reader's tests, in its order; NeedsRowPath where
    the cut line would start something new (a banner, a RESTART, another CPU header).
    """
    if _is_summary(line):
        return "summary", ""
    if tokens[0] in _BANNER_SYSTEMS and _BANNER.match(line):
        raise NeedsRowPath
    k = _time_width(tokens)
    secs = parse_clock(" ".join(tokens[:k])) if tokens[0][:1].isdigit() else None
    if secs is not None and "RESTART" in tokens[k:k + 2]:
        raise NeedsRowPath
    if secs is not None and len(tokens) > k and all(printed_number(t) is None for t in tokens[k:]):
        if tokens[k] == "CPU" and classify_header(tokens[k + 1:]):
            raise NeedsRowPath
        return "foreign", " ".join(tokens[k:k + 2]) if tokens[k] in ("CPU", "NODE") else tokens[k]
    if secs is not None:
        return "bad", f"row has {len(tokens)} fields, the header has {width}: skipped"
    return "bad", f"unrecognised line skipped: {line.strip()[:120]}"


def _read_periodic(text: str, result: ParseResult, source_block: str, tolerance: float) -> None:
    """Read a capture that is a banner, empty lines, then intervals of one shape, then
    ``Average:`` lines (or nothing, when the tool was stopped), into one Columns block.

    Two shapes: a header before every interval with m rows each (``-P ALL``: ``all`` then one
    row per CPU, all stamped alike), or one header then one row per interval (``mpstat 1``,
    ``sar -u 1``). A killed tool leaves a file cut short (block-buffered: mid-line, mid-interval);
    read as the line reader reads it: a last interval of k < m rows (even none: a header last),
    a last line that still has every field read as a row, any other last line skipped with its
    warning (the file is then "cut short"), a cut header named as a section not read.

    Raises NeedsRowPath, before the result is touched, for anything the line reader would read
    otherwise or warn about: an irregular interval, 12-hour or fractional times, odd values
    (a cut row no longer adding up to 100 among them), rows to drop or note, a zero-length
    interval, non-ASCII text, a cut line starting something new (banner, RESTART).
    """
    if not text.isascii() or any(c in text for c in _OTHER_LINE_BREAKS):
        raise NeedsRowPath
    lines = text.split("\n")
    cut = lines.pop()       # "" unless the file ends mid-line (killed tool, block-buffered file)
    cut_lineno = len(lines) + 1
    banner = _BANNER.match(lines[0]) if lines else None
    if banner is None or _is_summary(lines[0]):   # the line reader would skip it as a summary
        raise NeedsRowPath
    comma = day_first = bool(_DECIMAL_COMMA.search(text, 0, 16384))
    base, note = parse_date(banner.group("date"), day_first)
    if base is None:
        raise NeedsRowPath
    s = 1
    while s < len(lines) and lines[s] == "":
        s += 1
    if s == len(lines):
        raise NeedsRowPath
    header = lines[s]
    tokens = header.split()
    if (len(tokens) < 4 or tokens[0] != header[:8]
            or tokens[1] != "CPU" or not classify_header(tokens[2:])
            or any(printed_number(t) is not None for t in tokens[1:])):
        raise NeedsRowPath
    section = _Section(1, tokens[2:])
    outputs = [col for _, col in section.mapping]
    if section.unread or len(set(outputs)) != len(outputs):
        raise NeedsRowPath  # -T's CORE/SOCK/NODE, intr/s ...: warnings, rows read from the right
    suffix = header[8:]     # a header is its time then this, the same every interval
    # The line reader reads a last line cut short as it reads any line. A whole header, or a
    # row with all its fields (the last one maybe cut short), joins the lines and is checked
    # like any other; the cut row is padded back to the width of the rows, so it is still cut
    # by position. Anything else the line reader skips: _cut_line() says how.
    cut_tokens = cut.split()
    if cut_tokens and cut_tokens[0][:1].isdigit() and (
            cut[8:] == suffix or len(cut_tokens) == section.max_len and (
                cut_tokens[1] in ("all", "-1") or cut_tokens[1].isdigit())):
        if cut[8:] != suffix and s + 1 < len(lines):
            cut = cut.ljust(len(lines[s + 1]))     # as wide as the first row
        lines.append(cut)
        cut_tokens = []

    r = s + 1
    while r < len(lines) and lines[r][:1].isdigit() and lines[r][8:] != suffix:
        r += 1
    m = r - s - 1
    if not m:
        raise NeedsRowPath
    if r + 1 < len(lines) and lines[r] == "" and lines[r + 1][8:] == suffix:
        per_header = True                  # header, m rows, an empty line; again and again
    elif m > 1 and lines[s + 1].split()[1:2] == lines[s + 2].split()[1:2]:
        per_header = False                 # one header, then one row per interval
    else:
        per_header = True                  # one interval only
    if per_header:
        period = m + 2
        n = 1
        while (s + n * period < len(lines) and lines[s + n * period][8:] == suffix
               and lines[s + n * period][:1].isdigit()):   # not the 'Average:' header
            n += 1
        last = s + (n - 1) * period        # the last interval's header
        # A file that stops inside its last interval: that header and its first k < m rows
        # (k may be 0). Its rows are checked like the others: the template holds for them.
        partial = lines[last + 1:] if n > 1 and len(lines) - last - 1 < m else None
        if partial is not None:
            n -= 1
        end = s + n * period
        if partial is None and end == len(lines) + 1:
            lines.append("")               # the last interval's empty line, not printed yet
        if end > len(lines) or lines[s + m + 1:end:period] != [""] * n:
            raise NeedsRowPath
        header_times = [line[:8] for line in lines[s:end:period]]
        rows = [""] * (n * m)
        for j in range(m):                 # interval by interval, row by row
            rows[j::m] = lines[s + 1 + j:end:period]
        if partial is not None:
            header_times.append(lines[last][:8])
            rows += partial
            end = len(lines)
    else:
        n, end = m, r
        header_times = [header[:8]]
        rows = lines[s + 1:r]
    summaries = 0
    for line in lines[end:]:
        if not line.split():
            continue
        if line[:1].isdigit() or not _is_summary(line):
            raise NeedsRowPath
        summaries += 1
    cut_warning = cut_foreign = None
    if cut_tokens:
        kind, what = _cut_line(cut, cut_tokens, section.max_len)
        if kind == "summary":
            summaries += 1
        elif kind == "foreign":
            cut_foreign = what
        else:
            cut_warning = what

    fields = _fixed_width_fields(rows, section.max_len) or whitespace_fields(rows, section.max_len)
    if fields is None:
        raise NeedsRowPath
    per_sample = m if per_header else 1
    total_rows = len(rows)
    row_number = pc.subtract(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), total_rows)), 1)
    sample_of_row = pc.divide(row_number, per_sample)        # integer division
    times, cpus = fields[0], fields[1]
    first_rows = times.take(pa.array(range(0, total_rows, per_sample), pa.int64()))
    if not pc.all(pc.equal(times, first_rows.take(sample_of_row))).as_py():
        raise NeedsRowPath  # rows of one interval stamped differently: other samples
    template = cpus[:per_sample].to_pylist()
    if len(set(template)) != len(template) or not all(
            c == "all" or c == "-1" or c.isdigit() for c in template):
        raise NeedsRowPath
    position = pc.subtract(row_number, pc.multiply(sample_of_row, per_sample))
    if not pc.all(pc.equal(cpus, pa.array(template, cpus.type).take(position))).as_py():
        raise NeedsRowPath  # a CPU missing or in another order: other sample boundaries

    # The time axis: Timeline itself, given the header and row times in file order.
    header_secs = _clock_column(pa.array(header_times, pa.string()))
    row_secs = _clock_column(first_rows)
    timeline = Timeline()
    clock = timeline.clock
    axes: list[float] = []
    starts: list[float] = []
    if per_header:
        for head, row in zip(header_secs, row_secs):
            starts.append(clock(head)[0])
            axes.append(clock(row)[0])
        if len(header_secs) > len(row_secs):
            clock(header_secs[-1])         # the file ends after a header: it is still placed
    else:
        starts.append(clock(header_secs[0])[0])
        for row in row_secs:
            axes.append(clock(row)[0])
        starts.extend(axes[:-1])
    intervals = [axis - start for axis, start in zip(axes, starts)]
    if 0.0 in intervals:
        raise NeedsRowPath  # a zero-length interval: since boot, or rows to drop
    went_back = len(timeline.went_back)
    first = axes[0]
    epoch_us = (datetime(base.year, base.month, base.day) - datetime(1970, 1, 1)) // timedelta(microseconds=1)
    sampled_us = [epoch_us + int(axis) * 1_000_000 for axis in axes]

    values = {}
    total = None
    low, high = 100.0, 0.0
    for idx, col in section.mapping:
        strings = fields[section.max_len + idx]
        if comma:
            strings = pc.replace_substring(strings, ",", ".")
        column = arrow_floats(strings)
        if column is None or not pc.all(pc.is_finite(column)).as_py():
            raise NeedsRowPath  # unreadable, nan or inf: a null and a warning
        bounds = pc.min_max(column).as_py()
        low, high = min(low, bounds["min"]), max(high, bounds["max"])
        total = column if total is None else pc.add(total, column)
        values[col] = column
    if low < 0.0 or high > 100.0 or pc.max(pc.abs(pc.subtract(total, 100.0))).as_py() > tolerance:
        raise NeedsRowPath  # out of range or not adding up: finish_row() nulls, notes or drops
    busy = busy_array(values.get("idle_pct"), values.get("iowait_pct"), values.get("steal_pct"), total_rows)

    host = banner.group("host")
    ncpu = int(banner.group("ncpu")) if banner.group("ncpu") else None
    columns = {
        "sample_index": sample_of_row,
        "sampled_at": pa.array(sampled_us, pa.timestamp("us")).take(sample_of_row),
        "time_text": times,
        "elapsed_s": pa.array([axis - first for axis in axes], pa.float64()).take(sample_of_row),
        "interval_s": pa.array(intervals, pa.float64()).take(sample_of_row),
        "is_since_boot": pa.repeat(False, total_rows),
        "source_block": pa.repeat(source_block, total_rows),
        "hostname": pa.repeat(host, total_rows),
        "logical_cpus": pa.repeat(ncpu, total_rows) if ncpu is not None else pa.nulls(total_rows, pa.int64()),
        "cpu": pc.if_else(pc.equal(cpus, "-1"), "all", cpus) if "-1" in template else cpus,
    }
    columns.update(values)
    columns["busy_pct"] = busy

    facts = result.facts
    facts.update({"hostname": host, "kernel": banner.group("release"), "os": banner.group("os")})
    if banner.group("arch"):
        facts["arch"] = banner.group("arch")
    if ncpu is not None:
        facts["logical_cpus"] = ncpu
    facts["date"] = base.isoformat()
    if note:
        result.warn(1, note)
    result.tables["cpu_samples"] = Columns(columns, total_rows)
    if cut_warning:
        result.warn(cut_lineno, cut_warning)
    if cut_foreign:
        result.warn(None, f"skipped 0 rows of sections that are not CPU utilisation ({cut_foreign})")
    if went_back:
        result.warn(None, f"the time went back {went_back} time(s) by less than 12 h "
                          "(clock adjusted?): elapsed_s is not monotonic there")
    if cut_warning:
        result.status = "incomplete"
        result.status_reason = "the last line is cut short"
    elif not summaries:
        result.status = "incomplete"
        result.status_reason = ("no 'Average:' summary at the end: the tool was stopped before "
                                "it finished (rows kept)")

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
  intervals of one shape, maybe cut short) is read column-wise in Arrow by the fast reader in
  ``_cpu_text_fast`` (~8x faster on a 20 MB ``mpstat -P ALL 1``), which raises NeedsRowPath
  for anything else; then the line reader (:class:`_LineReader`), the reference, reads it:
  ``tests/python/test_cpu_text_fast.py`` holds the two to the same output.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone


from iopscope.parsers._sysstat_values import busy_pct, printed_number, year
from iopscope.parsers.base import ParseError, ParseResult, fastest_reading, no_gc

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
    is read column by column by ``_cpu_text_fast.read_periodic``; anything else line by line by
    :class:`_LineReader`, which is the reference: both give the same result.
    """
    # Imported here: the fast reader builds on this module's helpers.
    from iopscope.parsers._cpu_text_fast import read_periodic

    with no_gc():  # the rows hold no cycles: see no_gc()
        fastest_reading(text, (lambda t: read_periodic(t, result, source_block, tolerance),),
                        lambda t: _LineReader(result, source_block, since_boot_possible, tolerance).run(t))


def is_summary(line: str) -> bool:
    """An ``Average:`` line (or its translation: ``Durchschn.:``, ``Moyenne :``)."""
    colon = line.find(":")
    label = line[:colon].strip() if colon > 0 else ""
    return bool(label) and " " not in label and not any(ch.isdigit() for ch in label) \
        and bool(line[colon + 1:].strip())


class _LineReader:
    """The line-by-line reader: every layout, every oddity, with warnings and line numbers.

    A line is a row of the current CPU section (:meth:`_row`, the hot path), a summary, a
    banner, a RESTART, a header, a row of another section, or skipped with a warning.
    """

    def __init__(self, result: ParseResult, source_block: str, since_boot_possible: bool,
                 tolerance: float) -> None:
        self.result = result
        self.source_block = source_block
        self.since_boot_possible = since_boot_possible
        self.tolerance = tolerance
        self.timeline = Timeline()
        self.comma = self.day_first = False   # a decimal-comma locale (set by run())
        self.host: str | None = None
        self.ncpu: int | None = None
        self.section: _Section | None = None
        self.saw_header = False
        self.date_note_done = False
        # what is counted for the closing issues and status
        self.foreign_lines = 0
        self.foreign_names: list[str] = []
        self.unread_columns: list[str] = []
        self.line_warnings = 0
        self.suppressed = 0
        self.summaries = 0
        self.restarts = 0
        self.last_line_bad = False
        # the current sample: one time, one row per CPU
        self.rows = result.tables.setdefault("cpu_samples", [])
        self.sample_index = -1
        self.group_time: str | None = None
        self.group_cpus: set[str] = set()
        self.group_common: dict = {}
        self.group_dropped = False
        self.header_since_row = True
        self.ref_axis: float | None = None      # time the next sample's interval starts from
        self.prev_axis: float | None = None
        self.first_axis: float | None = None

    def _warn(self, lineno: int, reason: str) -> None:
        if self.line_warnings < MAX_LINE_WARNINGS:
            self.result.warn(lineno, reason)
            self.line_warnings += 1
        else:
            self.suppressed += 1

    def run(self, text: str) -> None:
        self.comma = self.day_first = bool(_DECIMAL_COMMA.search(text, 0, 16384))
        for lineno, line in enumerate(text.splitlines(), 1):
            tokens = line.split()
            if not tokens:
                continue
            section = self.section
            if section is not None and section.min_len <= len(tokens) <= section.max_len:
                cpu = tokens[section.k]
                if (cpu == "all" or cpu.isdigit() or cpu == "-1") and tokens[0][:1].isdigit():
                    self._row(lineno, tokens, cpu)   # a row of the current CPU section: the hot path
                    self.last_line_bad = False
                    continue
            self.last_line_bad = not self._line(lineno, line, tokens)
        self._finish()

    def _line(self, lineno: int, line: str, tokens: list[str]) -> bool:
        """Read one non-empty line that is not a row of the current section; False when it is
        skipped as not understood."""
        n = len(tokens)
        section = self.section
        if is_summary(line):
            self.summaries += 1
            return True
        if (not self.saw_header or tokens[0] in _BANNER_SYSTEMS) and self._banner(lineno, line):
            return True
        k = _time_width(tokens)
        secs = parse_clock(" ".join(tokens[:k])) if tokens[0][:1].isdigit() else None
        if secs is not None and "RESTART" in tokens[k:k + 2]:
            self._restart(secs, line)          # LINUX RESTART (sar -f over a reboot)
            return True
        if secs is not None and n > k and all(printed_number(t) is None for t in tokens[k:]):
            self._header(secs, tokens, k)      # a time, then names only
            return True
        if section is None and self.saw_header and secs is not None:
            self.foreign_lines += 1            # a row of a section that is not CPU utilisation
            return True
        if section is not None and secs is not None:
            self._warn(lineno, f"row has {n} fields, the header has {section.max_len}: skipped")
        else:
            self._warn(lineno, f"unrecognised line skipped: {line.strip()[:120]}")
        return False

    # ---- rows

    def _row(self, lineno: int, tokens: list[str], cpu: str) -> None:
        k = self.section.k
        time_text = tokens[0] if k == 1 else " ".join(tokens[:k])
        if time_text != self.group_time or cpu in self.group_cpus or self.header_since_row:
            self._new_sample(lineno, time_text)
        self.group_cpus.add(cpu)
        if self.group_dropped:
            return
        row = dict(self.group_common)
        row["cpu"] = "all" if cpu == "-1" else cpu
        self._values(lineno, row, tokens, cpu)

    def _new_sample(self, lineno: int, time_text: str) -> None:
        """Place a new sample in time once, for all its CPU rows."""
        self.sample_index += 1
        self.group_time = time_text
        self.group_cpus = set()
        secs = parse_clock(time_text)
        axis = when = None
        if secs is None:
            self._warn(lineno, f"unreadable time {time_text!r}: sample kept without time")
        else:
            axis, when = self.timeline.clock(secs)
            if self.first_axis is None:
                self.first_axis = axis
        start = self.ref_axis if self.header_since_row else self.prev_axis
        interval = None if axis is None or start is None else axis - start
        since_boot = False
        self.group_dropped = False
        if interval == 0.0:
            if self.since_boot_possible and self.sample_index == 0:
                since_boot, interval = True, None
            else:
                self.group_dropped = True
                self.sample_index -= 1
                self._warn(lineno, f"sample at {time_text} covers 0 s (two collector runs "
                                   "meeting in one file?): its rows are dropped")
        first_axis = self.first_axis
        self.group_common = {
            "sample_index": self.sample_index, "sampled_at": when, "time_text": time_text,
            "elapsed_s": None if axis is None or first_axis is None else axis - first_axis,
            "interval_s": interval, "is_since_boot": since_boot,
            "source_block": self.source_block, "hostname": self.host, "logical_cpus": self.ncpu,
        }
        self.prev_axis = axis if axis is not None else self.prev_axis
        self.header_since_row = False

    def _values(self, lineno: int, row: dict, tokens: list[str], cpu: str) -> None:
        """Convert and check the row's percentages, derive busy_pct, keep the row (or drop it
        with a warning)."""
        comma = self.comma
        mapping = self.section.mapping
        # Conversion, inlined: this loop is the parser's hot path.
        total = 0.0
        low, high = 100.0, 0.0
        bad = None
        for idx, col in mapping:
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
            self._warn(lineno, f"unreadable value {bad!r}: set to null")
        tolerance = self.tolerance
        if bad is None and low >= 0.0 and high <= 100.0 and abs(total - 100.0) <= tolerance:
            # The common case, already checked: only busy_pct is left to derive.
            busy = 100.0 - row["idle_pct"] - (row.get("iowait_pct") or 0.0) \
                - (row.get("steal_pct") or 0.0)
            row["busy_pct"] = round(min(100.0, max(0.0, busy)), 6)
            self.rows.append(row)
            return
        # --dec=0/1 prints fewer decimals: allow each printed value its rounding.
        last = tokens[-1]
        sep = "," if comma else "."
        decimals = len(last) - last.index(sep) - 1 if sep in last else 0
        row_tolerance = max(tolerance, len(mapping) * 0.5 * 10.0 ** -decimals)
        drop, notes = finish_row(row, row_tolerance)
        if drop:
            self._warn(lineno, f"CPU {cpu}: {drop}")
            return
        self.rows.append(row)
        for note in notes:
            self._warn(lineno, f"CPU {cpu}: {note}")

    # ---- lines that are not rows

    def _banner(self, lineno: int, line: str) -> bool:
        """Read a banner line (the base date, host, CPU count); False when it is not one."""
        m = _BANNER.match(line)
        if not m:
            return False
        base, note = parse_date(m.group("date"), self.day_first)
        if note and not self.date_note_done:
            self.result.warn(lineno, note)
            self.date_note_done = True
        if base is None:
            self._warn(lineno, f"unreadable banner date {m.group('date')!r}: sampled_at left null")
        self.timeline.set_date(base)
        self.host = m.group("host")
        self.ncpu = int(m.group("ncpu")) if m.group("ncpu") else None
        facts = self.result.facts
        if "hostname" not in facts:
            facts.update({"hostname": self.host, "kernel": m.group("release"), "os": m.group("os")})
            if m.group("arch"):
                facts["arch"] = m.group("arch")
            if self.ncpu is not None:
                facts["logical_cpus"] = self.ncpu
            if base is not None:
                facts["date"] = base.isoformat()
        self.header_since_row = True
        return True

    def _restart(self, secs: float, line: str) -> None:
        self.restarts += 1
        self.ref_axis, _ = self.timeline.clock(secs)
        self.header_since_row = True
        m = _RESTART_CPUS.search(line)
        if m:
            self.ncpu = int(m.group(1))

    def _header(self, secs: float, tokens: list[str], k: int) -> None:
        """A CPU utilisation header opens a section; any other header closes it (named once)."""
        self.saw_header = True
        self.header_since_row = True
        columns = tokens[k + 1:]
        if tokens[k] == "CPU" and classify_header(columns):
            # Only CPU headers go on the timeline: other sections print their own times.
            self.ref_axis, _ = self.timeline.clock(secs)
            self.section = _Section(k, columns)
            for c in self.section.unread:
                if c not in self.unread_columns:
                    self.unread_columns.append(c)
            return
        self.section = None
        name = " ".join(tokens[k:k + 2]) if tokens[k] in ("CPU", "NODE") else tokens[k]
        if name not in self.foreign_names:
            self.foreign_names.append(name)

    # ---- the end

    def _finish(self) -> None:
        """The closing issues, the status, or ParseError when no row was read."""
        result = self.result
        if self.suppressed:
            result.warn(None, f"{self.suppressed} more skipped or doubtful lines not listed")
        if self.foreign_lines or self.foreign_names:
            result.warn(None, f"skipped {self.foreign_lines} rows of sections that are not CPU utilisation "
                              f"({', '.join(self.foreign_names[:8])})")
        if self.unread_columns:
            result.warn(None, f"columns not read into cpu_samples: {', '.join(self.unread_columns)}")
        if self.timeline.went_back:
            result.warn(None, f"the time went back {len(self.timeline.went_back)} time(s) by less than 12 h "
                              "(clock adjusted?): elapsed_s is not monotonic there")
        if self.restarts:
            result.facts["restarts"] = self.restarts
        rows = self.rows
        if not rows:
            if result.issues and any(i.line for i in result.issues):
                first = next(i for i in result.issues if i.line)
                raise ParseError(f"no CPU utilisation rows read; first problem: {first.reason}", first.line)
            raise ParseError("no CPU utilisation rows (no 'CPU %usr/%user ... %idle' header with rows)")
        if self.last_line_bad:
            result.status = "incomplete"
            result.status_reason = "the last line is cut short"
        elif not self.summaries and not (rows and rows[0]["is_since_boot"]):
            result.status = "incomplete"
            result.status_reason = ("no 'Average:' summary at the end: the tool was stopped before "
                                    "it finished (rows kept)")

"""iostat (sysstat) text reports: every column layout of ``iostat``, ``iostat -x`` and ``-s``.

Tables written
--------------
``iostat_device_samples``  one row per device (and -g group) per report
``cpu_samples``            one row per report with an ``avg-cpu`` block (source_block
                           ``iostat-avg-cpu``, cpu ``all``, busy_pct = 100 - idle - iowait - steal)

Columns are always found by header name, never by position, so every header generation reads
the same way: legacy ``-x`` (``Device:`` ... ``avgrq-sz avgqu-sz await svctm %util``), the
11.5-12.0 order (``%rrqm rareq-sz ... svctm``), 12.1+ with discards (``d/s dkB/s ...``), 12.5+ with
flushes (``f/s f_await``), short ``-s`` reports and the plain report (``tps kB_read/s ...``).
Throughputs are stored in KiB/s (``-m`` MB x 1024, 512-byte sectors/blocks / 2); the printed unit
is kept in ``unit_source`` and the generation in ``layout``.

Variants handled
----------------
* ``-t`` stamps: locale ``%x %X`` (``11/21/26 13:25:38``, ``03/15/2016 09:34:00 AM``,
  ``21.11.2026 13:25:38``), ISO (``S_TIME_FORMAT=ISO``, zone honoured), a time of day alone
  (put on the banner date, midnight rollover handled), or no stamp at all (sampled_at null).
* Banner (``Linux 6.1.0 (host) 11/21/2026 _x86_64_ (2 CPU)``) -> facts kernel, hostname,
  date (ISO), arch, logical_cpus. sysstat's text never prints its version: tool_version null.
* Since-boot report: the first report after a banner is flagged ``is_since_boot`` unless the
  file shows ``-y``: sysstat >= 12 prints an extra empty line for the skipped report, so two or
  more empty lines right after the banner mean -y. Older sysstat leaves no trace of -y: such a
  file's first report is flagged although it is not since boot. A file starting mid-stream (no
  banner) has no since-boot report. Several banners (appended runs) each start a segment.
* ``-d`` (no avg-cpu), ``-c`` (no devices), ``-z``: a device left out of a report (no IO in
  the interval; a report with no active device has only its header) gets a row of zeros with
  ``is_zero_filled`` (see ``fill_idle_devices``), so that means over time count idle intervals,
  ``-g`` groups (leading space, ``is_group``), ``-p`` partitions, one to three empty lines
  between reports, or none at all.
* ``-h`` / ``--human``: suffixed values (``10.1M``, ``4.7%``), the split report of 12.x
  (several headers per report, ``Device`` last: merged into one row per device) and the older
  device-name-on-its-own-line form.
* No final newline: a last line that cannot have been cut (its last value has sysstat's two
  decimals, or it is as wide as its header: sysstat pads each value to its header token) in a
  report with as many devices as the one before it means only the newline is missing: read,
  status ``complete``, no warning. Otherwise (a file cut
  mid-line) complete rows are kept, the last line dropped unless its last value is whole, a
  warning, status ``incomplete``.
* Decimal-comma locales (de_DE: ``13,02``): commas read as decimal points.
* macOS/BSD and Solaris iostat are detected (so the user gets a reason) and rejected.

How it reads
------------
Three paths, fastest first, each giving the same result where it applies: *periodic* (every
report has the shape of the first: checked and read column by column in C, see
:func:`_read_periodic`), *columns* (one pass over the lines, rows gathered column-wise) and
*rows* (one dict per row; reads everything above). A path that meets something it does not
take hands the whole file to the next one.

Example
-------
>>> text = ('Linux 6.1.0 (db1) \\t11/21/2026 \\t_x86_64_\\t(2 CPU)\\n\\n'
...         '11/21/2026 10:00:01 PM\\n'
...         'avg-cpu:  %user   %nice %system %iowait  %steal   %idle\\n'
...         '           2.00    0.00    1.00    3.00    0.00   94.00\\n\\n'
...         'Device            r/s     rMB/s   w/s     wMB/s  %util\\n'
...         'sda              10.00     1.50  2.00      0.25   4.00\\n\\n')
>>> r = parse(text)
>>> row = r.tables["iostat_device_samples"][0]
>>> (row["device"], row["read_kib_per_s"], row["unit_source"], row["is_since_boot"])
('sda', 1536.0, 'MB', True)
>>> (row["sampled_at"].isoformat(), r.facts["hostname"], r.tables["cpu_samples"][0]["busy_pct"])
('2026-11-21T22:00:01', 'db1', 3.0)
"""

from __future__ import annotations

import math
import re
from functools import partial
from itertools import chain
from operator import itemgetter, methodcaller

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers._sysstat_common import (
    CPU_COLUMNS,
    DEVICE_COLUMNS,
    DateReader,
    DeviceColumns,
    ReportClock,
    busy_pct,
    fill_idle_devices,
    human_value,
    join_parts,
    layout_of,
    looks_like_timestamp,
    omitted_devices,
    out_of_range,
    parse_banner,
    plain_percentages,
    arrow_floats,
    iso_stamps,
    to_whole,
    whitespace_fields,
)
from iopscope.parsers._sysstat_values import busy_array, busy_column
from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, ParseResult, fastest_reading, no_gc

NAME = "iostat_text"
VERSION = "1.1.0"
TOOL = "iostat"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

DEVICE_TABLE = "iostat_device_samples"
CPU_TABLE = "cpu_samples"

_AVG_CPU = re.compile(r"^avg-cpu:\s+%(?:user|usr)\b", re.M)
_DEVICE_HEADER = re.compile(r"^\s*(?:Device:?\s+(?:tps|rrqm/s|r/s)\b|.*\b(?:r/s|tps)\b.*\sDevice:?\s*$)", re.M)
_BANNER_HEAD = re.compile(r"^Linux\s+\S+\s+\([^()]*\)", re.M)
_BSD = re.compile(r"^\s*(?:tin\s+tout\s+)?KB/t\s+(?:t/s|tps|xfrs)\s+MB/s", re.M)
_SOLARIS = re.compile(r"^\s*(?:extended device statistics|device\s+r/s\s+w/s\s+kr/s\s+kw/s)", re.M)
_WHOLE_VALUE = re.compile(r"\d\.\d\d%?$")
_DECIMAL_COMMA = re.compile(r"(?:^|\s)\d+,\d+[%kMGTPB]?(?=\s|$)", re.M)
MAX_SKIP_WARNINGS = 200  # junk lines listed one by one; beyond that, one summary issue


def detect(head: str, filename: str) -> float:
    if head.lstrip().startswith("{"):
        return 0.0
    sysstat = bool(_AVG_CPU.search(head) or _DEVICE_HEADER.search(head))
    if sysstat:
        return 0.95 if _BANNER_HEAD.search(head) else 0.9
    if _BSD.search(head) or _SOLARIS.search(head):
        return 0.3  # ours to reject with a reason, rather than "unrecognized"
    return 0.0


def _foreign(text: str) -> str | None:
    """Why the text is another iostat than sysstat's, or None."""
    head = text[:65536]
    if _AVG_CPU.search(head) or _DEVICE_HEADER.search(head):
        return None
    if _BSD.search(head):
        return "macOS/BSD iostat output, not sysstat: not supported"
    if _SOLARIS.search(head):
        return "Solaris/illumos iostat output, not sysstat: not supported"
    return None


def _line_of(text: str, pattern: re.Pattern) -> int | None:
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


# --------------------------------------------------------------------------- header matching


def _device_header_tokens(line: str) -> tuple[list[str], bool] | None:
    """(column tokens without Device, device_first) when the line is a device header."""
    tokens = line.split()
    if len(tokens) < 2:
        return None
    if tokens[0] in ("Device:", "Device"):
        cols, first = tokens[1:], True
    elif tokens[-1] in ("Device:", "Device"):
        cols, first = tokens[:-1], False
    else:
        return None
    if not any(t in DEVICE_COLUMNS for t in cols):
        return None
    return cols, first


# --------------------------------------------------------------------------- parse


# The three ways through a file, fastest first. Each gives the same result where it applies;
# tests/python/test_sysstat_fast.py holds every path to the row-by-row one.
PERIODIC, COLUMNS, ROWS = "periodic", "columns", "rows"


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the reports the fastest way that reads this file (each way gives the same result)."""
    with no_gc():  # the rows hold no cycles: see no_gc()
        return fastest_reading(text, (partial(_parse, path=PERIODIC), partial(_parse, path=COLUMNS)),
                               partial(_parse, path=ROWS))


def _last_line_whole(lines: list[str]) -> bool:
    """True when the last line is a values line that cannot have been cut: as many fields as
    its header, and its last value whole (sysstat prints 2 decimals: "4.36", never "4.3") or
    the line as wide as the header it follows (sysstat right-aligns each value under its header token, so a cut row is shorter);
    a row that ends with its device name (``--human``) needs that name in an earlier report."""
    last = lines[-1].rstrip()
    if not last or last.lstrip().startswith(("Device", "avg-cpu", "Linux")):
        return False
    for line in reversed(lines[:-1]):
        header = line.rstrip()
        stripped = header.strip()
        if not stripped:
            return False  # a report ended in between: the last line follows no header
        if not stripped.startswith(("Device", "avg-cpu")) and not stripped.endswith(("Device", "Device:")):
            continue
        if not stripped.startswith(("Device", "avg-cpu")):   # --human: the device name comes last
            name = last.split()[-1]
            known = any(earlier.rstrip().endswith(" " + name) for earlier in lines[:-1])
            return known and len(last) - len(name) >= len(header) - len("Device")
        # values only: an avg-cpu line, or a row whose device name has a line of its own (-h
        # before 12.x) has one field less than its header
        lone_name = len(lines) > 1 and len(lines[-2].split()) == 1 and lines[-2].strip() != stripped
        fields = len(header.split()) - (1 if stripped.startswith("avg-cpu") or lone_name else 0)
        return len(last.split()) == fields and (len(last) >= len(header) or bool(_WHOLE_VALUE.search(last)))
    return False


def _last_report_whole(result: ParseResult) -> bool:
    """True unless the last report has fewer device rows than the report before it in the same
    iostat invocation (a cut right after a row's last digit looks whole on its own)."""
    rows = result.tables.get(DEVICE_TABLE)
    if not rows:
        return True
    reports: dict[tuple, int] = {}
    for segment, index in zip(_values(rows, "segment_index"), _values(rows, "sample_index")):
        reports[(segment, index)] = reports.get((segment, index), 0) + 1
    keys = list(reports)
    return len(keys) < 2 or keys[-1][0] != keys[-2][0] or reports[keys[-1]] >= reports[keys[-2]]


def _values(rows, name: str) -> list:
    if isinstance(rows, Columns):
        column = rows.columns[name]
        return column.to_pylist() if hasattr(column, "to_pylist") else list(column)
    return [row[name] for row in rows]



def _parse(text: str, path: str) -> ParseResult:
    result = ParseResult(format=NAME)
    if not text.strip():
        raise ParseError("empty file")
    reason = _foreign(text)
    if reason:
        raise ParseError(reason, _line_of(text, _BSD) or _line_of(text, _SOLARIS))
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if _DECIMAL_COMMA.search(text, 0, 65536):
        # A decimal-comma locale (de_DE ...): sysstat printed "13,02". No other comma is printed.
        text = text.replace(",", ".")
    lines = text.split("\n")
    unended = None   # (line number, text) of a last line without its newline, when it is read
    if lines[-1] == "":
        lines.pop()
    else:
        # No final newline: the output may have been cut, or only the newline is missing (an
        # editor, a copy). A last line that cannot have been cut (_last_line_whole) or whose
        # last value is whole ("4.36") is read; anything else is dropped. Whether the file is
        # complete is decided after reading (_last_report_whole).
        cut_line = len(lines)
        tail = lines[-1].rstrip()
        if _last_line_whole(lines) or _WHOLE_VALUE.search(tail):
            unended = (cut_line, tail)
            result.status = "incomplete"  # until the reports read say otherwise (see below)
        else:
            lines.pop()
            result.warn(cut_line, f"file ends mid-line (output cut short): cut line dropped: {tail.strip()[:120]}")
            result.status = "incomplete"

    dates = DateReader(_date_samples(lines))
    if path == PERIODIC:
        _read_periodic(lines, result, dates)
    else:
        _Reader(result, dates, path == COLUMNS).run(lines)
    if unended is not None:
        if _last_line_whole(lines) and _last_report_whole(result):
            result.status = "complete"   # only the final newline is missing
        else:
            line, tail = unended
            result.warn(line, f"file ends without a newline (output cut short?): last line read: {tail.strip()[:120]}")
    if not result.tables.get(DEVICE_TABLE) and not result.tables.get(CPU_TABLE):
        if not result.facts:
            raise ParseError("no iostat report found (no avg-cpu block, no Device header)")
        # The banner was printed, then the output stopped before the first report.
        result.warn(None, "iostat banner but no report: output cut short")
        result.status = "incomplete"
    return result


def _date_samples(lines: list[str]) -> list[str]:
    """Banner dates and -t stamps from the head and tail of the file, to settle day/month order."""
    picked = []
    for chunk in (lines[:400], lines[-400:]):
        for line in chunk:
            if line.startswith("Linux"):
                banner = parse_banner(line.strip())
                if banner and banner["date_text"]:
                    picked.append(banner["date_text"])
            elif len(line) < 80 and looks_like_timestamp(line):
                picked.append(line)
    return picked


# --------------------------------------------------------------------------- periodic path


def _read_periodic(lines: list[str], result: ParseResult, dates: DateReader) -> None:
    """Read a capture whose reports all have the same shape, column by column, without a loop
    over lines.

    An iostat run prints one report per interval, each the same lines in the same order: a
    stamp, the avg-cpu header and its values, the device header, one row per device, blank
    lines. The first report is taken as a template of P lines; every P-th line after it is then
    checked in one C-level operation per template line (headers equal, blanks empty, values
    floats, each row exactly as many fields as its header), and each column is a slice of the
    tokens of all rows. A last report cut short (iostat killed, block-buffered output) is read
    as far as it goes: its lines are the template's first ones, checked and read with the
    others, and it gets the line path's warning. Anything else (a second banner, a device that
    comes and goes under -z, a cut line kept with too few values, --human values, groups) raises
    NeedsRowPath before the result is touched, and parse() reads the file line by line instead.
    """
    start, banner, blanks = _prelude(lines)
    shape = _template(lines, start)
    period = shape.period
    total = len(lines)
    rem = (total - start) % period                  # lines of the last report, if not whole
    short = _short_last_line(lines, shape, rem, result, total - rem) if rem else None
    if short is not None:
        lines = lines[:-1]                          # the kept cut line is not read, only warned
    n = -(-(len(lines) - start) // period)          # reports, the last one may lack its blanks
    pad = n * period - (len(lines) - start)
    cut = 0  # lines of a last report cut short (its first `cut` template positions), else 0
    if pad and any(kind != "blank" for kind in shape.kinds[period - pad:]):
        cut = period - pad
        n -= 1                                      # n: the whole reports
        pad = 0
    lines = lines + [""] * pad if pad else lines
    end = start + n * period + cut

    def at(k: int) -> list[str]:
        """The line at template position k of every report (the cut report's too, if it has it)."""
        return lines[start + k:end:period]

    for k, kind in enumerate(shape.kinds):
        if kind == "header" and at(k).count(lines[start + k]) != len(at(k)):
            raise NeedsRowPath
        if kind == "blank" and at(k).count("") != len(at(k)):
            raise NeedsRowPath
    # The cut report is opened (counted, stamped) by its first header; a stamp alone opens
    # nothing, as on the line path, but must still be a stamp the line path would not warn about.
    opened = n + (cut > shape.stamped)
    if cut == 1 and shape.stamped:
        stamp = lines[end - 1].strip()
        if len(stamp) > 64 or stamp.startswith("Linux") or dates.parse_timestamp(stamp) is None:
            raise NeedsRowPath

    facts: dict = {}
    if banner is not None:
        day = dates.parse_date(banner["date_text"])
        dates.set_base_date(day)
        facts = {"kernel": banner["kernel"], "hostname": banner["hostname"],
                 "date": day.isoformat() if day else None, "arch": banner["arch"],
                 "logical_cpus": banner["logical_cpus"]}
    base = _report_columns(at(0)[:opened] if shape.stamped else None, opened, dates,
                           since_boot=banner is not None and blanks < 2)

    tables = {}
    if shape.cpu is not None:
        names, k = shape.cpu
        values = at(k)
        rows_cpu = len(values)                      # the cut report's, if it has its values
        columns = {}
        for name, column in zip(names, _arrow_float_columns(values, len(names))):
            if name is not None:
                columns[name] = column  # a name printed twice: the last one, as on the line path
        if not all(map(plain_percentages, columns.values())):
            raise NeedsRowPath  # nulls and warnings: the row-by-row path's job
        columns["busy_pct"] = busy_array(columns.get("idle_pct"), columns.get("iowait_pct"),
                                         columns.get("steal_pct"), rows_cpu)
        for key in ("sample_index", "sampled_at", "time_text", "elapsed_s", "is_since_boot"):
            columns[key] = base[key][:rows_cpu]
        hostname = banner["hostname"] if banner else None
        cpus = banner["logical_cpus"] if banner else None
        for key, value in (("source_block", "iostat-avg-cpu"), ("cpu", "all"),
                           ("hostname", hostname), ("logical_cpus", cpus)):
            columns[key] = [value] * rows_cpu
        tables[CPU_TABLE] = Columns(columns, rows_cpu)
    if shape.devices is not None:
        dc, first_row, m = shape.devices
        rows: list[str] = [""] * (n * m)
        for j in range(m):                          # report by report, device by device
            rows[j::m] = at(first_row + j)[:n]
        # The cut report's rows: those printed before the cut, in order.
        tail = max(0, min(m, cut - first_row))
        rows += lines[start + n * period + first_row:][:tail]
        if any(map(_starts_with_space, rows)):
            raise NeedsRowPath  # -g groups (leading space): the line path sets is_group
        fields = whitespace_fields(rows, len(dc.names) + 1)
        if fields is None:
            raise NeedsRowPath
        columns = {}
        # Every printed column must be a number, the ones not kept too (as on the line path).
        for name, column in zip(dc.names, map(arrow_floats, fields[1:])):
            if column is None:
                raise NeedsRowPath
            if name is not None:
                columns[name] = column
        for name, factor in dc.scaled:
            columns[name] = pc.multiply(columns[name], factor)
        for name in dc.int_names:
            columns[name] = _whole(columns[name])
        count = n * m + tail
        columns["device"] = fields[0]
        columns["is_group"] = pa.repeat(False, count)
        report = pa.array(_each(list(range(n)), m) + [n] * tail, pa.int64())  # each row's report
        for key, values in base.items():
            if isinstance(values, pa.Array):
                columns[key] = values.take(report)
            elif key == "sampled_at":  # datetimes: Arrow would give aware ones another tzinfo
                columns[key] = _each(values[:n], m) + values[n:n + 1] * tail
            else:
                columns[key] = pa.array(values).take(report)
        columns["layout"] = pa.repeat(dc.layout, count)
        columns["unit_source"] = pa.repeat(dc.unit, count)
        tables[DEVICE_TABLE] = Columns(columns, count)
    if short is not None:
        result.warn(total, short)
    if shape.cpu is not None and cut == shape.cpu[1] and result.status == "complete":
        # The line path's warning: the file stops right after an avg-cpu header.
        result.warn(total, "file ends after an avg-cpu header: output cut short")
        result.status = "incomplete"
    if facts:
        result.facts = facts
    result.tables.update(tables)


def _short_last_line(lines: list[str], shape: _Shape, cut: int, result: ParseResult,
                     report: int) -> str | None:
    """The line path's warning for the last line of a cut report when it is a cut line kept
    with too few values (its last value looked whole), else None; NeedsRowPath for a last line
    the line path might read otherwise."""
    if not cut or result.status != "incomplete":
        return None
    kind = shape.kinds[cut - 1]
    if kind == "values":
        expected = len(shape.cpu[0])
    elif kind == "row":
        expected = len(shape.devices[0].names) + 1
    else:
        return None
    line = lines[-1]
    parts = line.split()
    if len(parts) == expected:
        return None  # a whole line: read with the others
    stripped = line.strip()
    if (len(parts) < (1 if kind == "values" else 2) or len(parts) > expected or not _WHOLE_VALUE.search(stripped)
            or stripped.startswith(("avg-cpu", "Linux", "Device")) or "Device" in stripped
            or looks_like_timestamp(stripped) or _DATE_LIKE.search(stripped)):
        raise NeedsRowPath
    if kind == "values":
        return f"skipped line not understood: {stripped[:120]}"
    header_line = report + shape.devices[1]        # 1-based number of the report's Device header
    return (f"device row does not match the header of line {header_line} "
            f"({expected} fields expected): skipped: {stripped[:120]}")


_DATE_LIKE = re.compile(r"[:/]|\d-\d")  # anything a stamp reader might take: the line path's job


def _arrow_float_columns(lines: list[str], width: int) -> list[pa.Array]:
    fields = whitespace_fields(lines, width)
    columns = [] if fields is None else list(map(arrow_floats, fields))
    if fields is None or None in columns:
        raise NeedsRowPath
    return columns


def _whole(column: pa.Array) -> pa.Array:
    """A cumulative amount as int() makes it (toward zero); anything else is the line path's."""
    if not pc.all(pc.is_finite(column)).as_py():
        raise NeedsRowPath
    try:
        return pc.trunc(column).cast(pa.int64())
    except pa.ArrowInvalid:
        raise NeedsRowPath from None


def _prelude(lines: list[str]) -> tuple[int, dict | None, int]:
    """(first line of the first report, the banner or None, empty lines after the banner)."""
    banner = None
    i = 0
    if lines and lines[0].startswith("Linux"):
        banner = parse_banner(lines[0].strip())
        if banner is None:
            raise NeedsRowPath
        i = 1
    while i < len(lines) and not lines[i]:
        i += 1
    if i == len(lines):
        raise NeedsRowPath
    return i, banner, i - 1


class _Shape:
    """The template of one report: a kind per line and where its blocks are."""

    __slots__ = ("period", "kinds", "stamped", "cpu", "devices")

    def __init__(self) -> None:
        self.period = 0
        self.kinds: list[str] = []      # "stamp", "header", "values", "row" or "blank"
        self.stamped = False
        self.cpu: tuple[list, int] | None = None            # (column names, values line)
        self.devices: tuple[DeviceColumns, int, int] | None = None  # (header, first row, rows)


def _template(lines: list[str], start: int) -> _Shape:
    """The shape of the report at ``start``; its length is where its first header comes again."""
    first = start if _header(lines[start]) else start + 1
    if first >= len(lines) or _header(lines[first]) is None:
        raise NeedsRowPath
    try:
        period = lines.index(lines[first], first + 1) - first
    except ValueError:
        period = len(lines) - start  # a single report
    shape = _Shape()
    shape.period = period
    shape.stamped = first > start
    kinds = shape.kinds = ["stamp"] if shape.stamped else []
    k = len(kinds)
    while k < period:
        line = lines[start + k]
        if not line:
            kinds.append("blank")
            k += 1
            continue
        header = _header(line)
        if header is None or shape.devices is not None or (header[0] == "cpu" and shape.cpu is not None):
            raise NeedsRowPath  # not a report of one avg-cpu block then one device block
        if kinds and kinds[-1] != "blank" and kinds[-1] != "stamp":
            raise NeedsRowPath
        kinds.append("header")
        if header[0] == "cpu":
            if k + 1 >= period or not lines[start + k + 1]:
                raise NeedsRowPath
            shape.cpu = (header[1], k + 1)
            kinds.append("values")
            k += 2
            continue
        rows = 0
        while k + 1 + rows < period and lines[start + k + 1 + rows]:
            rows += 1
        if not rows:
            raise NeedsRowPath  # a -z report without devices: other reports will differ
        shape.devices = (header[1], k + 1, rows)
        kinds.extend(["row"] * rows)
        k += 1 + rows
    if kinds[-1] != "blank":
        raise NeedsRowPath  # reports not separated by an empty line
    return shape


def _header(line: str) -> tuple | None:
    """("cpu", names) or ("dev", DeviceColumns) for a header the periodic path takes, else None."""
    if line.startswith("avg-cpu"):
        names = [CPU_COLUMNS.get(t) for t in line.split()[1:]]
        if not any(names):
            return None
        return ("cpu", names)
    if line.startswith("Device"):
        header = _device_header_tokens(line)
        if header is None or not header[1]:
            return None
        dc = DeviceColumns(header[0])
        if dc.unknown:
            return None  # the line path warns about unknown columns
        return ("dev", dc)
    return None


_starts_with_space = methodcaller("startswith", " ")


def _each(values: list, m: int) -> list:
    """Each value m times in a row: a per-report column made per-device-row."""
    return values if m == 1 else list(chain.from_iterable(zip(*([values] * m))))


def _report_columns(stamps: list[str] | None, n: int, dates: DateReader, since_boot: bool) -> dict:
    """The per-report columns the line path puts in each report's base, for n reports."""
    sampled_at = elapsed = time_text = [None] * n
    if stamps is not None:
        time_text = [s.strip() for s in stamps]
        if any(len(s) > 64 or s.startswith("Linux") for s in time_text):
            raise NeedsRowPath
        iso = iso_stamps(time_text, dates)
        if iso is not None:
            sampled_at, elapsed = iso
        else:
            sampled_at = list(map(dates.parse_timestamp, time_text))
            if None in sampled_at:
                raise NeedsRowPath  # a stamp not understood: the line path warns
            first = sampled_at[0]
            try:
                elapsed = [(ts - first).total_seconds() for ts in sampled_at]
            except TypeError:
                raise NeedsRowPath from None  # aware and naive stamps in one file
    return {"sample_index": list(range(n)), "segment_index": [0] * n, "sampled_at": sampled_at,
            "time_text": time_text, "elapsed_s": elapsed,
            "is_since_boot": [since_boot] + [False] * (n - 1)}


class _Reader:
    """The state machine over the lines. The hot loop lives in :meth:`run`."""

    def __init__(self, result: ParseResult, dates: DateReader, fast: bool = False) -> None:
        self.result = result
        # fast: plain rows go into column-wise blocks (_DeviceBlock, _CpuBlock) instead of one
        # dict each; anything else raises NeedsRowPath.
        self.fast = fast
        self.dates = dates
        self.clock = ReportClock()
        self.hostname = None
        self.logical_cpus = None
        self.blank_after_banner: int | None = None  # empty lines since the last banner
        self.warned_unknown: set[str] = set()
        self.sample: dict | None = None     # base of the current report
        self.sample_cpu = False
        self.sample_cols: frozenset[str] | set[str] = frozenset()
        self.sample_rows: dict[str, dict] = {}
        self.pending_ts: tuple[str, object] | None = None
        self.sample_tokens: list[str] = []

    # ---- reports

    def _open(self, time_text=None, ts=None) -> None:
        skipped = self.blank_after_banner is not None and self.blank_after_banner >= 2
        self.sample = self.clock.open(time_text, ts, skipped)
        self.blank_after_banner = None
        self.sample_cpu = False
        self.sample_cols = set()
        self.sample_rows = {}

    def run(self, lines: list[str]) -> None:  # noqa: C901 - one loop, on purpose
        """One pass over the lines. Device rows take the fast path (split, float, zip); headers
        are compiled once per distinct header line; everything else is classified in order."""
        result = self.result
        dates = self.dates
        dev_rows: list[dict] = []
        cpu_rows: list[dict] = []
        hdr_cache: dict[str, tuple] = {}  # header line as printed -> compiled header
        mode = 0              # 0 nothing expected, 1 avg-cpu values, 2 device rows
        dc = None             # compiled DeviceColumns of the current device block
        names = ncols = dev_first = base = scaled = ints = drop = None
        cpu_names: list = []
        cpu_drop = False
        cpu_base: dict = {}
        header_line = 0
        pending_name = None
        merge = False         # a continuation header (split --human report): merge rows by device
        indented = False      # the header itself is indented: a leading space means nothing
        sample_rows: dict = {}
        skipped = 0
        fast = self.fast
        dev_blocks: list[_DeviceBlock] = []
        cpu_blocks: list[_CpuBlock] = []
        block = cpu_block = None
        reports: list[tuple[dict, int]] = []   # (report base, index of its first device row)
        for i, line in enumerate(lines):
            if mode == 2:
                parts = line.split()
                if len(parts) == ncols and fast:
                    # Column-wise: the row's floats go onto the block's flat list, in order.
                    values = block.values
                    mark = len(values)
                    try:
                        if dev_first:
                            values.extend(map(float, parts[1:]))
                            name = parts[0]
                            block.groups.append(line[0] == " " and not indented)
                        else:
                            values.extend(map(float, parts[:-1]))
                            name = parts[-1]
                            block.groups.append(line.endswith("  " + name))
                        block.names.append(name)
                        block.bases.append(base)
                        continue
                    except ValueError:
                        del values[mark:]  # not a plain row: see below
                elif len(parts) == ncols:
                    try:
                        if dev_first:
                            row = dict(zip(names, map(float, parts[1:])))
                            name = parts[0]
                            group = line[0] == " " and not indented
                        else:
                            row = dict(zip(names, map(float, parts[:-1])))
                            name = parts[-1]
                            group = line.endswith("  " + name)
                    except ValueError:
                        row = None
                    if row is not None:
                        if drop:
                            del row[None]
                        for col, factor in scaled:
                            row[col] *= factor
                        for col in ints:
                            row[col] = to_whole(row[col])
                        row["device"] = name
                        row["is_group"] = group
                        previous = sample_rows.get(name) if merge else None
                        if previous is not None:
                            previous.update(row)
                        else:
                            row.update(base)
                            dev_rows.append(row)
                            sample_rows[name] = row
                        continue
                if not parts:
                    mode = 0
                    pending_name = None
                    continue
                # Not a plain row: human-readable values, a name on its own line, or another block.
                got = self._slow_device_row(parts, line, dc, dev_first, pending_name, indented)
                if fast and got is not None:
                    raise NeedsRowPath
                if got == "pending":
                    pending_name = parts[0]
                    continue
                pending_name = None
                if got is not None:
                    row, name = got
                    previous = sample_rows.get(name) if merge else None
                    if previous is not None:
                        previous.update(row)
                    else:
                        full = dict(base)
                        full.update(row)
                        dev_rows.append(full)
                        sample_rows[name] = full
                    continue
            elif mode == 1:
                parts = line.split()
                if not parts:
                    continue
                mode = 0
                if len(parts) == len(cpu_names) and fast:
                    try:
                        values = list(map(float, parts))
                    except ValueError:
                        raise NeedsRowPath from None  # --human "11.9%", or not the values line
                    if (cpu_drop and not any(cpu_names) or not math.isfinite(sum(values))
                            or min(values) < -0.05 or max(values) > 100.05):
                        raise NeedsRowPath  # warnings and nulls: the row-by-row path's job
                    cpu_block.values.extend(values)
                    cpu_block.bases.append(cpu_base)
                    self.sample_cpu = True
                    continue
                if len(parts) == len(cpu_names):
                    try:
                        values = dict(zip(cpu_names, map(float, parts)))
                    except ValueError:
                        values = _cpu_values(cpu_names, parts)  # --human: "11.9%"
                    if values is not None:
                        if cpu_drop:
                            values.pop(None, None)
                            if not values:
                                result.warn(i + 1, "avg-cpu block without a known column: skipped")
                                continue
                        if values and (min(values.values()) < -0.05 or max(values.values()) > 100.05):
                            for note in out_of_range(values):
                                result.warn(i + 1, note)
                        values["busy_pct"] = busy_pct(values)
                        values.update(cpu_base)
                        cpu_rows.append(values)
                        self.sample_cpu = True
                        continue
                # fall through: not the values line
            # ---- anything else: classify the line
            if not line or line.isspace():
                mode = 0
                if self.blank_after_banner is not None:
                    self.blank_after_banner += 1
                continue
            cached = hdr_cache.get(line)
            if cached is None:
                stripped = line.strip()
                if stripped.startswith("avg-cpu"):
                    names_ = [CPU_COLUMNS.get(t) for t in stripped.split()[1:]]
                    cached = hdr_cache[line] = ("cpu", names_, None in names_)
                elif "Device" in stripped:
                    header = _device_header_tokens(stripped)
                    if header is not None:
                        tokens, first = header
                        compiled = DeviceColumns(tokens)
                        for tok in compiled.unknown:
                            if tok not in self.warned_unknown:
                                self.warned_unknown.add(tok)
                                result.warn(i + 1, f"unknown iostat column {tok!r} ignored")
                        cached = ("dev", compiled, first, tokens, line[:1].isspace())
                        if len(hdr_cache) < 1000:
                            hdr_cache[line] = cached
            if cached is not None:
                if cached[0] == "cpu":
                    cpu_names, cpu_drop = cached[1], cached[2]
                    if self.sample is None or self.sample_cpu or self.sample_cols or self.pending_ts:
                        self._open(*(self.pending_ts or (None, None)))
                        self.pending_ts = None
                    sample = self.sample
                    cpu_base = {"sample_index": sample["sample_index"], "sampled_at": sample["sampled_at"],
                                "time_text": sample["time_text"], "elapsed_s": sample["elapsed_s"],
                                "is_since_boot": sample["is_since_boot"], "source_block": "iostat-avg-cpu",
                                "cpu": "all", "hostname": self.hostname, "logical_cpus": self.logical_cpus}
                    if fast and (cpu_block is None or cpu_block.names != cpu_names):
                        cpu_block = _CpuBlock(cpu_names)
                        cpu_blocks.append(cpu_block)
                    mode = 1
                    continue
                _, dc, dev_first, tokens, indented = cached
                # A header whose columns this report already has starts a new report; a header
                # with other columns (the split --human report) continues it.
                merge = False
                if self.sample is None or self.pending_ts or (self.sample_cols & dc.outputs):
                    self._open(*(self.pending_ts or (None, None)))
                    self.pending_ts = None
                    self.sample_tokens = tokens
                    layout = dc.layout
                    # where this report's device rows start (see fill_idle_devices)
                    reports.append((self.sample, sum(len(b.names) for b in dev_blocks) if fast else len(dev_rows)))
                elif self.sample_cols:
                    if fast:
                        raise NeedsRowPath  # rows of a split --human report are merged as dicts
                    merge = True
                    # Split --human report: the layout is that of all its headers together.
                    self.sample_tokens = self.sample_tokens + tokens
                    layout = layout_of(self.sample_tokens)
                    for previous in self.sample_rows.values():
                        previous["layout"] = layout
                else:
                    self.sample_tokens = tokens
                    layout = dc.layout
                self.sample_cols = self.sample_cols | dc.outputs if self.sample_cols else dc.outputs
                sample_rows = self.sample_rows
                names = dc.names
                ncols = len(names) + 1
                drop, scaled = dc.drop, dc.scaled
                ints = dc.int_names
                base = dict(self.sample)
                base["layout"] = layout
                base["unit_source"] = dc.unit
                header_line = i + 1
                pending_name = None
                mode = 2
                if fast and (block is None or block.dc is not dc or block.dev_first != dev_first):
                    block = _DeviceBlock(dc, dev_first)
                    dev_blocks.append(block)
                continue
            if stripped.startswith("Linux"):
                banner = parse_banner(stripped)
                if banner is not None:
                    self._banner(banner, i + 1)
                    mode = 0
                    continue
            ts = dates.parse_timestamp(stripped) if len(stripped) <= 64 else None
            if ts is not None or looks_like_timestamp(stripped):
                if ts is None:
                    result.warn(i + 1, f"timestamp not understood (sampled_at left null): {stripped[:80]}")
                # The stamp opens the next report; an earlier stamp with nothing after it is lost.
                if self.pending_ts is not None:
                    self._open(*self.pending_ts)
                self.pending_ts = (stripped, ts)
                mode = 0
                continue
            skipped += 1
            if skipped > MAX_SKIP_WARNINGS:
                continue
            if mode == 2:
                result.warn(i + 1, f"device row does not match the header of line {header_line} "
                                   f"({ncols} fields expected): skipped: {stripped[:120]}")
                continue
            result.warn(i + 1, f"skipped line not understood: {stripped[:120]}")
        if skipped > MAX_SKIP_WARNINGS:
            result.warn(None, f"{skipped - MAX_SKIP_WARNINGS} more lines skipped (not listed one by one)")
        if mode == 1 and result.status == "complete":
            result.warn(len(lines), "file ends after an avg-cpu header: output cut short")
            result.status = "incomplete"
        names_in_order = [n for b in dev_blocks for n in b.names] if fast else [r["device"] for r in dev_rows]
        # The last report of a file that may be cut lacks devices because of the cut: it is
        # neither evidence of -z nor filled in.
        last_open = result.status == "incomplete"
        if omitted_devices(names_in_order, reports, last_open):
            if fast:
                raise NeedsRowPath  # rows are filled in as dicts
            dev_rows = fill_idle_devices(dev_rows, reports, last_open)
        if fast:
            dev_rows = join_parts([b.columns() for b in dev_blocks])
            cpu_rows = join_parts([b.columns() for b in cpu_blocks])
        if dev_rows:
            result.tables[DEVICE_TABLE] = dev_rows
        if cpu_rows:
            result.tables[CPU_TABLE] = cpu_rows

    # ---- slow paths (a few lines per file)

    def _slow_device_row(self, parts, line, dc, dev_first, pending_name, indented):
        ncols = len(dc.names) + 1
        if pending_name is None and len(parts) == 1 and ncols > 2 and not looks_like_timestamp(line):
            if not _DEVICE_HEADER.match(line) and not line.startswith(("avg-cpu", "Linux")):
                return "pending"  # -h before 12.x: the device name alone, its values below
        if pending_name is not None and len(parts) == ncols - 1:
            name, values, group = pending_name, parts, False
        elif len(parts) == ncols:
            if dev_first:
                name, values, group = parts[0], parts[1:], line[0] == " " and not indented
            else:
                name, values, group = parts[-1], parts[:-1], line.endswith("  " + parts[-1])
        else:
            return None
        row: dict = {}
        human = False
        for col, kind, token in zip(dc.names, dc.kinds, values):
            try:
                value = float(token)
            except ValueError:
                value = human_value(token, kind)
                if value is None:
                    return None
                human = True
                if col is not None:
                    row[col] = to_whole(value) if kind and kind.startswith("int-") else value
                continue
            if col is not None:
                row[col] = value
        if not human:
            for col, factor in dc.scaled:
                row[col] *= factor
            for col, _ in dc.ints:
                row[col] = to_whole(row[col])
        else:
            # Values without a suffix still follow the header's unit.
            for col, kind, token in zip(dc.names, dc.kinds, values):
                if col is None or not token or not token[-1].isdigit():
                    continue
                factor = {"MB": 1024.0, "int-MB": 1024.0, "sectors": 0.5, "int-sectors": 0.5}.get(kind)
                if factor:
                    row[col] = row[col] * factor
                if kind and kind.startswith("int-"):
                    row[col] = to_whole(row[col])
            row["unit_source"] = "human"
        row["device"] = name
        row["is_group"] = group
        return row, name

    def _banner(self, banner: dict, line_no: int) -> None:
        result = self.result
        if self.sample is not None or self.pending_ts:
            if self.pending_ts:
                self._open(*self.pending_ts)
                self.pending_ts = None
        self.clock.banner()
        self.blank_after_banner = 0
        self.sample = None
        self.sample_cpu = False
        self.sample_cols = set()
        day = self.dates.parse_date(banner["date_text"])
        self.dates.set_base_date(day)
        if not result.facts:
            result.facts = {
                "kernel": banner["kernel"],
                "hostname": banner["hostname"],
                "date": day.isoformat() if day else None,
                "arch": banner["arch"],
                "logical_cpus": banner["logical_cpus"],
            }
        elif banner["hostname"] != result.facts.get("hostname"):
            result.warn(line_no, f"banner of another host ({banner['hostname']}): facts are from the first banner")
        self.hostname = banner["hostname"]
        self.logical_cpus = banner["logical_cpus"]


class _DeviceBlock:
    """Plain device rows under one compiled header, held column-wise until the end of the file.

    Building a dict per row (and taking it apart again in ingest) was most of the parse time;
    here a row costs a split, a float map onto one flat list and three appends, and each column
    is a slice of the flat list. Values are what the row-by-row path stores, key for key.
    """

    __slots__ = ("dc", "dev_first", "values", "names", "groups", "bases")

    def __init__(self, dc: DeviceColumns, dev_first: bool) -> None:
        self.dc = dc
        self.dev_first = dev_first
        self.values: list[float] = []   # row after row, len(dc.names) values each
        self.names: list[str] = []
        self.groups: list[bool] = []
        self.bases: list[dict] = []     # the report's base (sample, layout, unit) of each row

    def columns(self) -> Columns:
        dc = self.dc
        width = len(dc.names)
        columns: dict[str, list] = {}
        for j, name in enumerate(dc.names):
            if name is not None:
                columns[name] = self.values[j::width]
        for name, factor in dc.scaled:
            columns[name] = list(map(factor.__mul__, columns[name]))
        for name in dc.int_names:
            columns[name] = list(map(to_whole, columns[name]))
        columns["device"] = self.names
        columns["is_group"] = self.groups
        for key in (self.bases[0] if self.bases else ()):
            columns[key] = list(map(itemgetter(key), self.bases))
        return Columns(columns, len(self.names))


class _CpuBlock:
    """avg-cpu rows under one avg-cpu header, column-wise (see _DeviceBlock)."""

    __slots__ = ("names", "values", "bases")

    def __init__(self, names: list[str | None]) -> None:
        self.names = names
        self.values: list[float] = []
        self.bases: list[dict] = []

    def columns(self) -> Columns:
        width = len(self.names)
        n = len(self.bases)
        columns: dict[str, list] = {}
        for j, name in enumerate(self.names):
            if name is not None:
                columns[name] = self.values[j::width]
        columns["busy_pct"] = busy_column(columns.get("idle_pct"), columns.get("iowait_pct"),
                                          columns.get("steal_pct"), n)
        for key in (self.bases[0] if self.bases else ()):
            columns[key] = list(map(itemgetter(key), self.bases))
        return Columns(columns, n)


def _cpu_values(cpu_names: list[str | None], parts: list[str]) -> dict | None:
    values = {}
    for col, token in zip(cpu_names, parts):
        try:
            value = float(token)
        except ValueError:
            try:
                value = float(token.rstrip("%"))
            except ValueError:
                return None
        if col is not None:
            values[col] = value
    return values

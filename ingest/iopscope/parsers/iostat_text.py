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
The reference reader is :func:`read_rows` here (one dict per row; reads everything above). Two
fast readers in ``_iostat_text_fast`` come first, each giving the same result where it applies:
*periodic* (every report has the shape of the first: checked and read column by column in C)
and *columns* (the reference state machine with rows gathered column-wise). A fast reader that
meets something it does not read exactly raises ``NeedsRowPath`` and the next reader starts
again (``base.fastest_reading``); ``tests/python/test_sysstat_fast.py`` holds each one to the
reference on every fixture and corpus file.

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

import re
from collections.abc import Callable
from functools import partial


from iopscope.parsers._sysstat_common import (
    CPU_COLUMNS,
    DEVICE_COLUMNS,
    DateReader,
    DeviceColumns,
    ReportClock,
    busy_pct,
    fill_idle_devices,
    human_value,
    layout_of,
    looks_like_timestamp,
    omitted_devices,
    out_of_range,
    parse_banner,
    to_whole,
)
from iopscope.parsers.base import Columns, ParseError, ParseResult, fastest_reading, no_gc

NAME = "iostat_text"
# 1.1.2: -xz captures with avg-cpu blocks get their idle devices filled;
# 1.1.1: two -d captures the periodic reader misread now read as the reference
VERSION = "1.1.2"
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


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the reports the fastest way that reads this file (each way gives the same result)."""
    # Imported here: the fast readers build on this module's reference reader.
    from iopscope.parsers._iostat_text_fast import read_columns, read_periodic

    with no_gc():  # the rows hold no cycles: see no_gc()
        return fastest_reading(text, (partial(_parse, read=read_periodic), partial(_parse, read=read_columns)),
                               partial(_parse, read=read_rows))


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



def _parse(text: str, read: Callable[[list[str], ParseResult, DateReader], None]) -> ParseResult:
    """The file's lines through ``read`` (a fast reader or :func:`read_rows`), with what every
    reader shares: foreign formats rejected, line ends and decimal commas, a cut last line."""
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
    read(lines, result, dates)
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



# --------------------------------------------------------------------------- the reference reader


def read_rows(lines: list[str], result: ParseResult, dates: DateReader) -> None:
    """The reference reader: one dict per row, every variant the module docstring lists."""
    _Reader(result, dates).run(lines)


class _Reader:
    """The state machine over the lines: a line is a row of the open block (device rows, the
    avg-cpu values) or is classified (header, banner, stamp, junk) by :meth:`_classify`.

    The column-wise reader (``_iostat_text_fast.ColumnReader``) is this machine with the row
    steps replaced; it gives up (NeedsRowPath) where only this one reads exactly.
    """

    def __init__(self, result: ParseResult, dates: DateReader) -> None:
        self.result = result
        self.dates = dates
        self.clock = ReportClock()
        self.hostname = None
        self.logical_cpus = None
        self.blank_after_banner: int | None = None  # empty lines since the last banner
        self.warned_unknown: set[str] = set()
        self.headers: dict[str, tuple] = {}  # header line as printed -> compiled header
        self.mode = 0                 # 0 nothing expected, 1 avg-cpu values, 2 device rows
        self.skipped = 0              # lines not understood
        # the current report
        self.sample: dict | None = None     # base of the current report
        self.sample_cpu = False
        self.sample_cols: frozenset[str] | set[str] = frozenset()
        self.sample_rows: dict[str, dict] = {}
        self.pending_ts: tuple[str, object] | None = None
        self.sample_tokens: list[str] = []
        # the current device block (mode 2)
        self.dc: DeviceColumns | None = None
        self.dev_first = True
        self.indented = False         # the header itself is indented: a leading space means nothing
        self.merge = False            # a continuation header (split --human report): merge rows by device
        self.base: dict = {}          # what each row of the block repeats: its report, layout, unit
        self.header_line = 0
        self.pending_name: str | None = None   # -h before 12.x: a device name alone on its line
        # the current avg-cpu block (mode 1)
        self.cpu_names: list[str | None] = []
        self.cpu_drop = False
        self.cpu_base: dict = {}
        # what is read
        self.dev_rows: list[dict] = []
        self.cpu_rows: list[dict] = []
        self.reports: list[tuple[dict, int]] = []   # (report base, index of its first device row)

    # ---- reports

    def _open(self, time_text=None, ts=None) -> None:
        skipped = self.blank_after_banner is not None and self.blank_after_banner >= 2
        self.sample = self.clock.open(time_text, ts, skipped)
        self.blank_after_banner = None
        self.sample_cpu = False
        self.sample_cols = set()
        self.sample_rows = {}

    def run(self, lines: list[str]) -> None:
        """One pass over the lines. Device rows are read block by block in a tight loop
        (:meth:`_device_rows`); headers are compiled once per distinct header line."""
        i, count = 0, len(lines)
        while i < count:
            if self.mode == 2:
                i = self._device_rows(lines, i)
                if i == count:
                    break
            elif self.mode == 1 and self._cpu_line(i, lines[i]):
                i += 1
                continue
            line = lines[i]
            if not line or line.isspace():   # between reports: 1 to 3 a report (inline: cheap)
                self.mode = 0
                if self.blank_after_banner is not None:
                    self.blank_after_banner += 1
            else:
                self._classify(i, line)
            i += 1
        self._finish(count)

    # ---- rows

    def _device_rows(self, lines: list[str], start: int) -> int:
        """Read the open device block's rows from line ``start`` on; return the index of the first
        line left to :meth:`_classify` (the empty line that ends the block is read here)."""
        dc, dev_first, indented, merge, base = self.dc, self.dev_first, self.indented, self.merge, self.base
        names, drop, scaled, ints = dc.names, dc.drop, dc.scaled, dc.int_names
        ncols = len(names) + 1
        dev_rows, sample_rows = self.dev_rows, self.sample_rows
        for i in range(start, len(lines)):
            line = lines[i]
            parts = line.split()
            if len(parts) == ncols:
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
                self.mode = 0
                self.pending_name = None
                return i + 1
            # Not a plain row: human-readable values, a name on its own line, or another block.
            got = self._slow_device_row(parts, line, dc, dev_first, self.pending_name, indented)
            if got == "pending":
                self.pending_name = parts[0]
                continue
            self.pending_name = None
            if got is None:
                return i
            row, name = got
            previous = sample_rows.get(name) if merge else None
            if previous is not None:
                previous.update(row)
            else:
                full = dict(base)
                full.update(row)
                dev_rows.append(full)
                sample_rows[name] = full
        return len(lines)

    def _cpu_line(self, i: int, line: str) -> bool:
        """Read the avg-cpu values line; False (block closed) when the line is something else."""
        parts = line.split()
        if not parts:
            return True
        self.mode = 0
        cpu_names = self.cpu_names
        if len(parts) != len(cpu_names):
            return False
        return self._cpu_values(i, parts)

    def _cpu_values(self, i: int, parts: list[str]) -> bool:
        """Keep the avg-cpu values, or False when they are not numbers (not the values line)."""
        cpu_names = self.cpu_names
        try:
            values = dict(zip(cpu_names, map(float, parts)))
        except ValueError:
            values = _human_cpu_values(cpu_names, parts)  # --human: "11.9%"
        if values is None:
            return False
        result = self.result
        if self.cpu_drop:
            values.pop(None, None)
            if not values:
                result.warn(i + 1, "avg-cpu block without a known column: skipped")
                return True
        if values and (min(values.values()) < -0.05 or max(values.values()) > 100.05):
            for note in out_of_range(values):
                result.warn(i + 1, note)
        values["busy_pct"] = busy_pct(values)
        values.update(self.cpu_base)
        self.cpu_rows.append(values)
        self.sample_cpu = True
        return True

    def _rows_read(self) -> int:
        return len(self.dev_rows)

    # ---- every other line

    def _classify(self, i: int, line: str) -> None:
        """A line outside a block's rows (not empty): a header, a banner, a stamp, or not understood."""
        cached = self.headers.get(line)
        if cached is None:
            stripped = line.strip()
            cached = self._compile_header(i, line, stripped)
        if cached is not None:
            if cached[0] == "cpu":
                self._cpu_header(cached[1], cached[2])
            else:
                self._device_header(i, *cached[1:])
            return
        if stripped.startswith("Linux"):
            banner = parse_banner(stripped)
            if banner is not None:
                self._banner(banner, i + 1)
                self.mode = 0
                return
        ts = self.dates.parse_timestamp(stripped) if len(stripped) <= 64 else None
        if ts is not None or looks_like_timestamp(stripped):
            if ts is None:
                self.result.warn(i + 1, f"timestamp not understood (sampled_at left null): {stripped[:80]}")
            # The stamp opens the next report; an earlier stamp with nothing after it is lost.
            if self.pending_ts is not None:
                self._open(*self.pending_ts)
            self.pending_ts = (stripped, ts)
            self.mode = 0
            return
        self._skip(i, stripped)

    def _compile_header(self, i: int, line: str, stripped: str) -> tuple | None:
        """("cpu", names, drop) or ("dev", columns, device_first, tokens, indented) for a header
        line (cached by its text), else None."""
        if stripped.startswith("avg-cpu"):
            names = [CPU_COLUMNS.get(t) for t in stripped.split()[1:]]
            compiled = self.headers[line] = ("cpu", names, None in names)
            return compiled
        if "Device" not in stripped:
            return None
        header = _device_header_tokens(stripped)
        if header is None:
            return None
        tokens, first = header
        columns = DeviceColumns(tokens)
        for tok in columns.unknown:
            if tok not in self.warned_unknown:
                self.warned_unknown.add(tok)
                self.result.warn(i + 1, f"unknown iostat column {tok!r} ignored")
        compiled = ("dev", columns, first, tokens, line[:1].isspace())
        if len(self.headers) < 1000:
            self.headers[line] = compiled
        return compiled

    def _cpu_header(self, names: list[str | None], drop: bool) -> None:
        self.cpu_names, self.cpu_drop = names, drop
        if self.sample is None or self.sample_cpu or self.sample_cols or self.pending_ts:
            self._open(*(self.pending_ts or (None, None)))
            self.pending_ts = None
        sample = self.sample
        self.cpu_base = {"sample_index": sample["sample_index"], "sampled_at": sample["sampled_at"],
                         "time_text": sample["time_text"], "elapsed_s": sample["elapsed_s"],
                         "is_since_boot": sample["is_since_boot"], "source_block": "iostat-avg-cpu",
                         "cpu": "all", "hostname": self.hostname, "logical_cpus": self.logical_cpus}
        self.mode = 1

    def _starts_report(self, dc: DeviceColumns) -> bool:
        """A header whose columns this report already has starts a new report; a header with
        other columns (the split --human report) continues it."""
        return self.sample is None or bool(self.pending_ts) or bool(self.sample_cols & dc.outputs)

    def _device_header(self, i: int, dc: DeviceColumns, dev_first: bool, tokens: list[str],
                       indented: bool) -> None:
        merge = False
        if self._starts_report(dc):
            self._open(*(self.pending_ts or (None, None)))
            self.pending_ts = None
            self.sample_tokens = tokens
            layout = dc.layout
            # where this report's device rows start (see fill_idle_devices)
            self.reports.append((self.sample, self._rows_read()))
        elif self.sample_cols:
            merge = True
            # Split --human report: the layout is that of all its headers together.
            self.sample_tokens = self.sample_tokens + tokens
            layout = layout_of(self.sample_tokens)
            for previous in self.sample_rows.values():
                previous["layout"] = layout
        else:
            # the first Device header of a report its avg-cpu block opened: where its device rows
            # start too (without this, -xz captures with avg-cpu blocks were never zero-filled)
            self.sample_tokens = tokens
            layout = dc.layout
            self.reports.append((self.sample, self._rows_read()))
        self.sample_cols = self.sample_cols | dc.outputs if self.sample_cols else dc.outputs
        self.dc, self.dev_first, self.indented, self.merge = dc, dev_first, indented, merge
        base = dict(self.sample)
        base["layout"] = layout
        base["unit_source"] = dc.unit
        self.base = base
        self.header_line = i + 1
        self.pending_name = None
        self.mode = 2

    def _skip(self, i: int, stripped: str) -> None:
        self.skipped += 1
        if self.skipped > MAX_SKIP_WARNINGS:
            return
        if self.mode == 2:
            self.result.warn(i + 1, f"device row does not match the header of line {self.header_line} "
                                    f"({len(self.dc.names) + 1} fields expected): skipped: {stripped[:120]}")
            return
        self.result.warn(i + 1, f"skipped line not understood: {stripped[:120]}")

    # ---- the end

    def _finish(self, count: int) -> None:
        result = self.result
        if self.skipped > MAX_SKIP_WARNINGS:
            result.warn(None, f"{self.skipped - MAX_SKIP_WARNINGS} more lines skipped (not listed one by one)")
        if self.mode == 1 and result.status == "complete":
            result.warn(count, "file ends after an avg-cpu header: output cut short")
            result.status = "incomplete"
        # The last report of a file that may be cut lacks devices because of the cut: it is
        # neither evidence of -z nor filled in.
        dev_rows, cpu_rows = self._tables(last_open=result.status == "incomplete")
        if dev_rows:
            result.tables[DEVICE_TABLE] = dev_rows
        if cpu_rows:
            result.tables[CPU_TABLE] = cpu_rows

    def _tables(self, last_open: bool) -> tuple:
        """(device rows, cpu rows), a device left out of a report (-z) filled in with zeros."""
        dev_rows = self.dev_rows
        if omitted_devices([r["device"] for r in dev_rows], self.reports, last_open):
            dev_rows = fill_idle_devices(dev_rows, self.reports, last_open)
        return dev_rows, self.cpu_rows

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



def _human_cpu_values(cpu_names: list[str | None], parts: list[str]) -> dict | None:
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

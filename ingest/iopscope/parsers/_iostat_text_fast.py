"""The fast readers of ``iostat_text``: same result as its reference reader, or NeedsRowPath.

``iostat_text.parse`` tries them in this order through ``base.fastest_reading``:

* :func:`read_periodic`: a capture whose reports all have the shape of the first (the usual
  ``iostat -x -t 1``), checked and read column by column in C, without a loop over lines.
* :func:`read_columns`: any layout, one pass over the lines with :class:`ColumnReader` (the
  reference state machine, plain rows gathered column-wise instead of one dict each).

Each raises ``NeedsRowPath`` before the result is filled whenever it meets something only the
reference reader (``iostat_text.read_rows``) reads exactly: --human values, split reports,
groups, devices left out under -z, odd values that need warnings. Not a parser (the leading
underscore keeps it out of the registry); ``tests/python/test_sysstat_fast.py`` holds both
readers to the reference on every fixture, corpus file and generated variant.
"""

from __future__ import annotations

import math
import re
from itertools import chain
from operator import itemgetter, methodcaller

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers._sysstat_common import (
    DateReader,
    DeviceColumns,
    arrow_floats,
    iso_stamps,
    join_parts,
    looks_like_timestamp,
    omitted_devices,
    parse_banner,
    plain_percentages,
    to_whole,
    whitespace_fields,
)
from iopscope.parsers._sysstat_values import busy_array, busy_column
from iopscope.parsers.base import Columns, NeedsRowPath, ParseResult
from iopscope.parsers.iostat_text import (
    CPU_COLUMNS,
    CPU_TABLE,
    DEVICE_TABLE,
    _WHOLE_VALUE,
    _device_header_tokens,
    _Reader,
)


def read_periodic(lines: list[str], result: ParseResult, dates: DateReader) -> None:
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
    total = len(lines)
    rem = (total - start) % shape.period            # lines of the last report, if not whole
    short = _short_last_line(lines, shape, rem, result, total - rem) if rem else None
    if short is not None:
        lines = lines[:-1]                          # the kept cut line is not read, only warned
    grid = _Grid(lines, start, shape)
    opened = _check_repeats(grid, shape, dates)
    if shape.devices is not None and result.status == "complete" \
            and shape.devices[1] <= grid.cut < shape.devices[1] + shape.devices[2]:
        # A last report with its Device header but fewer rows, in a file not cut mid-line: the
        # reference reader takes it as whole, a -z report, and fills in the idle devices.
        raise NeedsRowPath
    facts: dict = {}
    if banner is not None:
        day = dates.parse_date(banner["date_text"])
        dates.set_base_date(day)
        facts = {"kernel": banner["kernel"], "hostname": banner["hostname"],
                 "date": day.isoformat() if day else None, "arch": banner["arch"],
                 "logical_cpus": banner["logical_cpus"]}
    base = _report_columns(grid.at(0)[:opened] if shape.stamped else None, opened, dates,
                           since_boot=banner is not None and blanks < 2)
    tables = {}
    if shape.cpu is not None:
        tables[CPU_TABLE] = _cpu_table(grid, shape, base, banner)
    if shape.devices is not None:
        tables[DEVICE_TABLE] = _device_table(grid, shape, base)
    # Nothing raised: the result is filled now.
    if short is not None:
        result.warn(total, short)
    if shape.cpu is not None and grid.cut == shape.cpu[1] and result.status == "complete":
        # The line path's warning: the file stops right after an avg-cpu header.
        result.warn(total, "file ends after an avg-cpu header: output cut short")
        result.status = "incomplete"
    if facts:
        result.facts = facts
    result.tables.update(tables)


class _Grid:
    """The file as whole reports of ``period`` lines from ``start`` on, maybe a last one cut."""

    __slots__ = ("lines", "start", "period", "n", "cut", "end")

    def __init__(self, lines: list[str], start: int, shape: _Shape) -> None:
        period = shape.period
        n = -(-(len(lines) - start) // period)      # reports, the last one may lack its blanks
        pad = n * period - (len(lines) - start)
        cut = 0  # lines of a last report cut short (its first `cut` template positions), else 0
        if pad and any(kind != "blank" for kind in shape.kinds[period - pad:]):
            cut = period - pad
            n -= 1                                  # n: the whole reports
            pad = 0
        self.lines = lines + [""] * pad if pad else lines
        self.start, self.period, self.n, self.cut = start, period, n, cut
        self.end = start + n * period + cut

    def at(self, k: int) -> list[str]:
        """The line at template position k of every report (the cut report's too, if it has it)."""
        return self.lines[self.start + k:self.end:self.period]


def _check_repeats(grid: _Grid, shape: _Shape, dates: DateReader) -> int:
    """The number of reports opened, once every report is checked to repeat the template's
    headers and blank lines (NeedsRowPath otherwise)."""
    lines, start = grid.lines, grid.start
    for k, kind in enumerate(shape.kinds):
        if kind == "header" and grid.at(k).count(lines[start + k]) != len(grid.at(k)):
            raise NeedsRowPath
        if kind == "blank" and grid.at(k).count("") != len(grid.at(k)):
            raise NeedsRowPath
    # The cut report is opened (counted, stamped) by its first header; a stamp alone opens
    # nothing, as on the line path, but must still be a stamp the line path would not warn about.
    if grid.cut == 1 and shape.stamped:
        stamp = lines[grid.end - 1].strip()
        if len(stamp) > 64 or stamp.startswith("Linux") or dates.parse_timestamp(stamp) is None:
            raise NeedsRowPath
    return grid.n + (grid.cut > shape.stamped)


def _cpu_table(grid: _Grid, shape: _Shape, base: dict, banner: dict | None) -> Columns:
    """The avg-cpu values of every report, column-wise."""
    names, k = shape.cpu
    values = grid.at(k)
    rows_cpu = len(values)                          # the cut report's, if it has its values
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
    return Columns(columns, rows_cpu)


def _device_table(grid: _Grid, shape: _Shape, base: dict) -> Columns:
    """The device rows of every report, report by report, column-wise."""
    dc, first_row, m = shape.devices
    n, cut = grid.n, grid.cut
    rows: list[str] = [""] * (n * m)
    for j in range(m):                              # report by report, device by device
        rows[j::m] = grid.at(first_row + j)[:n]
    # The cut report's rows: those printed before the cut, in order.
    tail = max(0, min(m, cut - first_row))
    rows += grid.lines[grid.start + n * grid.period + first_row:][:tail]
    if any(map(_starts_with_space, rows)):
        raise NeedsRowPath  # -g groups (leading space): the line path sets is_group
    fields = whitespace_fields(rows, len(dc.names) + 1)
    if fields is None:
        raise NeedsRowPath
    count = n * m + tail
    names = fields[0]
    position = pa.array(list(range(m)) * n + list(range(tail)), pa.int64())  # each row's place in its report
    if not pc.all(pc.equal(names, names.slice(0, m).take(position))).as_py():
        raise NeedsRowPath  # another device in some report: the reference reads it as -z (fills)
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
    columns["device"] = names
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
    return Columns(columns, count)


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



# --------------------------------------------------------------------------- columns path


def read_columns(lines: list[str], result: ParseResult, dates: DateReader) -> None:
    """Any layout, plain rows gathered column-wise (see :class:`ColumnReader`)."""
    ColumnReader(result, dates).run(lines)


class ColumnReader(_Reader):
    """The reference state machine with plain rows put into column-wise blocks (_DeviceBlock,
    _CpuBlock) instead of one dict each; anything else raises NeedsRowPath."""

    def __init__(self, result: ParseResult, dates: DateReader) -> None:
        super().__init__(result, dates)
        self.dev_blocks: list[_DeviceBlock] = []
        self.cpu_blocks: list[_CpuBlock] = []
        self.block: _DeviceBlock | None = None
        self.cpu_block: _CpuBlock | None = None

    def _device_rows(self, lines: list[str], start: int) -> int:
        block = self.block
        values, names, groups, bases = block.values, block.names, block.groups, block.bases
        dev_first, indented, base = self.dev_first, self.indented, self.base
        ncols = len(self.dc.names) + 1
        for i in range(start, len(lines)):
            line = lines[i]
            parts = line.split()
            if len(parts) == ncols:
                # The row's floats go onto the block's flat list, in order.
                mark = len(values)
                try:
                    if dev_first:
                        values.extend(map(float, parts[1:]))
                        name = parts[0]
                        group = line[0] == " " and not indented
                    else:
                        values.extend(map(float, parts[:-1]))
                        name = parts[-1]
                        group = line.endswith("  " + name)
                except ValueError:
                    del values[mark:]  # not a plain row: see below
                else:
                    names.append(name)
                    groups.append(group)
                    bases.append(base)
                    continue
            if not parts:
                self.mode = 0
                return i + 1
            if self._slow_device_row(parts, line, self.dc, dev_first, None, indented) is not None:
                raise NeedsRowPath  # --human values, a name on its own line: dicts row by row
            return i
        return len(lines)

    def _cpu_values(self, i: int, parts: list[str]) -> bool:
        try:
            values = list(map(float, parts))
        except ValueError:
            raise NeedsRowPath from None  # --human "11.9%", or not the values line
        if (self.cpu_drop and not any(self.cpu_names) or not math.isfinite(sum(values))
                or min(values) < -0.05 or max(values) > 100.05):
            raise NeedsRowPath  # warnings and nulls: the reference reader's job
        self.cpu_block.values.extend(values)
        self.cpu_block.bases.append(self.cpu_base)
        self.sample_cpu = True
        return True

    def _rows_read(self) -> int:
        return sum(len(b.names) for b in self.dev_blocks)

    def _cpu_header(self, names: list[str | None], drop: bool) -> None:
        super()._cpu_header(names, drop)
        if self.cpu_block is None or self.cpu_block.names != names:
            self.cpu_block = _CpuBlock(names)
            self.cpu_blocks.append(self.cpu_block)

    def _device_header(self, i: int, dc: DeviceColumns, dev_first: bool, tokens: list[str],
                       indented: bool) -> None:
        if not self._starts_report(dc) and self.sample_cols:
            raise NeedsRowPath  # rows of a split --human report are merged as dicts
        super()._device_header(i, dc, dev_first, tokens, indented)
        block = self.block
        if block is None or block.dc is not dc or block.dev_first != dev_first:
            self.block = _DeviceBlock(dc, dev_first)
            self.dev_blocks.append(self.block)

    def _tables(self, last_open: bool) -> tuple:
        names_in_order = [n for b in self.dev_blocks for n in b.names]
        if omitted_devices(names_in_order, self.reports, last_open):
            raise NeedsRowPath  # rows are filled in as dicts
        return join_parts([b.columns() for b in self.dev_blocks]), join_parts([b.columns() for b in self.cpu_blocks])


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


"""The fast reader of mpstat and sar -u text: same result as ``_cpu_common``'s line reader, or
NeedsRowPath.

A live capture is one banner and then the same few lines every interval. Read line by line,
every row costs a split, a dict and ten float() calls: 10 MB/s. Here (:func:`read_periodic`) the
shape of the first interval is taken as a template, every other interval is checked against it
with list slices, and the rows are split and converted by Arrow, column by column (~8x faster on
a 20 MB ``mpstat -P ALL 1``). Not a parser (the leading underscore keeps it out of the
registry); ``tests/python/test_cpu_text_fast.py`` holds it to the line reader.
"""

from __future__ import annotations

import re
from array import array
from datetime import date, datetime, timedelta

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers._cpu_common import (
    _BANNER,
    _BANNER_SYSTEMS,
    _DECIMAL_COMMA,
    Timeline,
    _Section,
    _time_width,
    classify_header,
    is_summary,
    parse_clock,
    parse_date,
)
from iopscope.parsers._sysstat_common import arrow_floats, whitespace_fields
from iopscope.parsers._sysstat_values import busy_array, printed_number
from iopscope.parsers.base import Columns, NeedsRowPath, ParseResult

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


def _cut_line(line: str, tokens: list[str], width: int) -> tuple[str, str]:
    """What the line reader makes of a last line cut short that is not read as a row, after a
    CPU header: ``("summary", "")``, ``("foreign", section name)`` (a cut header it no longer
    recognises; it names it in a closing warning) or ``("bad", warning)`` (the line is skipped
    and the file reported cut short). The line reader's tests, in its order; NeedsRowPath where
    the cut line would start something new (a banner, a RESTART, another CPU header).
    """
    if is_summary(line):
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




def read_periodic(text: str, result: ParseResult, source_block: str, tolerance: float) -> None:
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
    if banner is None or is_summary(lines[0]):   # the line reader would skip it as a summary
        raise NeedsRowPath
    comma = bool(_DECIMAL_COMMA.search(text, 0, 16384))
    base, note = parse_date(banner.group("date"), comma)   # decimal comma: day-first dates
    if base is None:
        raise NeedsRowPath
    s, section = _first_header(lines)
    cut_tokens = _join_cut_line(lines, cut, s, section)
    shape = _Intervals(lines, s)
    summaries = _summaries(lines[shape.end:])
    cut_warning = cut_foreign = None
    if cut_tokens:
        kind, what = _cut_line(cut, cut_tokens, section.max_len)
        if kind == "summary":
            summaries += 1
        elif kind == "foreign":
            cut_foreign = what
        else:
            cut_warning = what

    rows = shape.rows
    fields = _fixed_width_fields(rows, section.max_len) or whitespace_fields(rows, section.max_len)
    if fields is None:
        raise NeedsRowPath
    per_sample = shape.m if shape.per_header else 1
    sample_of_row, first_rows, template = _samples(fields[0], fields[1], per_sample)
    axes, intervals, went_back = _time_axis(shape, first_rows)
    values, busy = _percentages(fields, section, comma, tolerance)

    # Nothing raised: the result is filled now, as the line reader fills it.
    _banner_facts(result, banner, base, note)
    table = _table(fields, sample_of_row, template, axes, intervals, base, source_block, result.facts)
    table.update(values)
    table["busy_pct"] = busy
    result.tables["cpu_samples"] = Columns(table, len(rows))
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


def _banner_facts(result: ParseResult, banner: re.Match, base: date, note: str | None) -> None:
    facts = result.facts
    facts.update({"hostname": banner.group("host"), "kernel": banner.group("release"), "os": banner.group("os")})
    if banner.group("arch"):
        facts["arch"] = banner.group("arch")
    if banner.group("ncpu"):
        facts["logical_cpus"] = int(banner.group("ncpu"))
    facts["date"] = base.isoformat()
    if note:
        result.warn(1, note)


def _table(fields: list[pa.Array], sample_of_row: pa.Array, template: list, axes: list[float],
           intervals: list[float], base: date, source_block: str, facts: dict) -> dict[str, pa.Array]:
    """The columns every row has besides its percentages, from the checked samples."""
    total_rows = len(fields[0])
    ncpu = facts.get("logical_cpus")
    cpus = fields[1]
    return {
        "sample_index": sample_of_row,
        "sampled_at": pa.array(_sampled_us(base, axes), pa.timestamp("us")).take(sample_of_row),
        "time_text": fields[0],
        "elapsed_s": pa.array([axis - axes[0] for axis in axes], pa.float64()).take(sample_of_row),
        "interval_s": pa.array(intervals, pa.float64()).take(sample_of_row),
        "is_since_boot": pa.repeat(False, total_rows),
        "source_block": pa.repeat(source_block, total_rows),
        "hostname": pa.repeat(facts["hostname"], total_rows),
        "logical_cpus": pa.repeat(ncpu, total_rows) if ncpu is not None else pa.nulls(total_rows, pa.int64()),
        "cpu": pc.if_else(pc.equal(cpus, "-1"), "all", cpus) if "-1" in template else cpus,
    }


def _first_header(lines: list[str]) -> tuple[int, _Section]:
    """(index, section) of the first CPU header after the banner and its empty lines."""
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
    return s, section


def _join_cut_line(lines: list[str], cut: str, s: int, section: _Section) -> list[str]:
    """The line reader reads a last line cut short as it reads any line. A whole header, or a
    row with all its fields (the last one maybe cut short), joins the lines (and [] is
    returned) to be checked like any other; the cut row is padded back to the width of the
    rows, so it is still cut by position. Anything else the line reader skips: its tokens are
    returned, for _cut_line() to say how."""
    suffix = lines[s][8:]     # a header is its time then this, the same every interval
    cut_tokens = cut.split()
    if cut_tokens and cut_tokens[0][:1].isdigit() and (
            cut[8:] == suffix or len(cut_tokens) == section.max_len and (
                cut_tokens[1] in ("all", "-1") or cut_tokens[1].isdigit())):
        if cut[8:] != suffix and s + 1 < len(lines):
            cut = cut.ljust(len(lines[s + 1]))     # as wide as the first row
        lines.append(cut)
        return []
    return cut_tokens


class _Intervals:
    """Where the intervals are: ``per_header`` (a header, m rows and an empty line, again and
    again) or one header then one row per interval; the rows in file order, each interval's
    header time, and ``end``, the line after the last interval."""

    __slots__ = ("per_header", "m", "end", "header_times", "rows")

    def __init__(self, lines: list[str], s: int) -> None:
        header = lines[s]
        suffix = header[8:]
        r = s + 1
        while r < len(lines) and lines[r][:1].isdigit() and lines[r][8:] != suffix:
            r += 1
        m = self.m = r - s - 1
        if not m:
            raise NeedsRowPath
        if r + 1 < len(lines) and lines[r] == "" and lines[r + 1][8:] == suffix:
            self.per_header = True                  # header, m rows, an empty line; again and again
        elif m > 1 and lines[s + 1].split()[1:2] == lines[s + 2].split()[1:2]:
            self.per_header = False                 # one header, then one row per interval
        else:
            self.per_header = True                  # one interval only
        if self.per_header:
            self._per_header(lines, s, m, suffix)
        else:
            self.end = r
            self.header_times = [header[:8]]
            self.rows = lines[s + 1:r]

    def _per_header(self, lines: list[str], s: int, m: int, suffix: str) -> None:
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
        self.end, self.header_times, self.rows = end, header_times, rows


def _summaries(lines: list[str]) -> int:
    """The ``Average:`` lines after the intervals; NeedsRowPath for anything else there."""
    summaries = 0
    for line in lines:
        if not line.split():
            continue
        if line[:1].isdigit() or not is_summary(line):
            raise NeedsRowPath
        summaries += 1
    return summaries


def _samples(times: pa.Array, cpus: pa.Array, per_sample: int) -> tuple[pa.Array, pa.Array, list]:
    """(each row's sample, each sample's first time, the CPU labels of a sample), once every
    sample is checked to be the same CPUs in the same order under one time."""
    total_rows = len(times)
    row_number = pc.subtract(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), total_rows)), 1)
    sample_of_row = pc.divide(row_number, per_sample)        # integer division
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
    return sample_of_row, first_rows, template


def _time_axis(shape: _Intervals, first_rows: pa.Array) -> tuple[list[float], list[float], int]:
    """(each sample's time axis, its interval, how often the time went back): Timeline itself,
    given the header and row times in file order."""
    header_secs = _clock_column(pa.array(shape.header_times, pa.string()))
    row_secs = _clock_column(first_rows)
    timeline = Timeline()
    clock = timeline.clock
    axes: list[float] = []
    starts: list[float] = []
    if shape.per_header:
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
    return axes, intervals, len(timeline.went_back)


def _sampled_us(base: date, axes: list[float]) -> list[int]:
    """Each sample's time in microseconds since 1970, from the banner date and its axis."""
    epoch_us = (datetime(base.year, base.month, base.day) - datetime(1970, 1, 1)) // timedelta(microseconds=1)
    return [epoch_us + int(axis) * 1_000_000 for axis in axes]


def _percentages(fields: list[pa.Array], section: _Section, comma: bool,
                 tolerance: float) -> tuple[dict[str, pa.Array], pa.Array]:
    """The percentage columns and busy_pct, once every row is checked to read as the line
    reader's common case (finite, 0..100, adding up to 100 within the tolerance)."""
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
    busy = busy_array(values.get("idle_pct"), values.get("iowait_pct"), values.get("steal_pct"), len(fields[0]))
    return values, busy

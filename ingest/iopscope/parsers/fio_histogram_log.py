"""fio completion-latency histogram logs: ``write_hist_log`` with ``log_hist_msec``.

Tables written
--------------
``fio_histogram_log_samples``  one row per line (interval x direction) and NON-EMPTY bin

Format
------
``time (ms), direction (0 read, 1 write, 2 trim), block size, count_0, count_1, ...``: the IOs
that completed in the interval ending at *time*, counted in fio's latency bins. fio's bins
are log-linear: values below 128 have one bin each; above, each power of two is split in 64
equal bins (``FIO_IO_U_PLAT_BITS`` = 6). ``log_hist_coarseness`` = c merges 2^c neighbouring
bins, so a line has ``N >> c`` counts, where N is fio's bin count:

* fio 3.x: N = 1856 (29 groups), bins in **nanoseconds**;
* fio 2.x: N = 1216 (19 groups), bins in **microseconds** (converted to ns here).

The two families of counts (1856, 928, ... 29 and 1216, 608, ... 19) never overlap, so unlike
the sample logs the unit of a histogram log is known from the line itself.

Each stored bin has ``bin_lower_ns`` (first latency in it), ``bin_upper_ns`` (first latency
above it) and ``bin_ns`` = (lower + upper) // 2, which for c = 0 is exactly fio's own
``plat_idx_to_val``: the key json+ uses for the same bin.

``parse(text, filename=...)`` takes the log name and job number from ``<name>_clat_hist[.N].log``;
without a file name those columns are null.

Variants handled: blank lines, lines with another bin count than the file's (skipped and
reported), non-numbers, unknown direction codes, a last line cut short. The table comes as a
``Columns`` block (most bins are empty: the non-empty ones are picked in C).

Two ways through a file, giving the same result: the *block* path reads the complete lines in
pieces of about 1 MB, each at once with Arrow, when all of them are what fio writes (see
:func:`_read_block`); anything else (or ``read_by_reference``) goes line by line. A last line cut
short is read line by line either way. The block path's columns are Arrow arrays, so the lake
takes them as they are.

Example
-------
>>> counts = [0] * 1856
>>> counts[200] = 7
>>> r = parse("500, 0, 4096, " + ", ".join(map(str, counts)) + "\\n", filename="j_clat_hist.1.log")
>>> row = r.tables["fio_histogram_log_samples"][0]
>>> (row["direction"], row["bin_index"], row["bin_lower_ns"], row["bin_upper_ns"], row["io_count"])
('read', 200, 288, 292, 7)
"""

from __future__ import annotations

import json
import re
import sys
from itertools import compress

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, ParseResult, fast_readers_on, fastest_reading, no_gc

NAME = "fio_histogram_log"
VERSION = "1.0.0"
TOOL = "fio"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
# fio's bin count -> (fio major version family, factor from its unit to ns)
FAMILIES = {1856: ("3", 1), 1216: ("2", 1000)}
MAX_COARSENESS = 6
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
_FILE_NAME = re.compile(r"^(?P<name>.*?)_clat_hist(?:\.(?P<job>\d+))?\.log$")
# Columns of fio_histogram_log_samples, in the order of a record's keys.
COLUMNS = ("log_name", "job_index", "line", "time_ms", "direction", "block_size_bytes", "coarseness",
           "bin_index", "bin_ns", "bin_lower_ns", "bin_upper_ns", "io_count")
_NUMBERS = re.compile(r"^\s*\d+(?:\s*,\s*\d+)+\s*,?\s*$")


def _bin_counts() -> dict[int, tuple[int, int, int]]:
    """counts per line -> (fio's full bin count, coarseness, factor to ns)."""
    out = {}
    for full, (_, factor) in FAMILIES.items():
        for c in range(MAX_COARSENESS + 1):
            out[full >> c] = (full, c, factor)
    return out


BIN_COUNTS = _bin_counts()


def plat_lower(index: int) -> int:
    """Lowest value that falls in fio's fine bin ``index`` (stat.h's log-linear layout)."""
    if index < (PLAT_VAL << 1):
        return index
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    return base + (index % PLAT_VAL) * (1 << error_bits)


def name_parts(filename: str | None) -> tuple[str | None, int | None]:
    m = _FILE_NAME.match((filename or "").replace("\\", "/").rsplit("/", 1)[-1])
    if not m:
        return None, None
    return m.group("name"), int(m.group("job")) if m.group("job") else None


def detect(head: str, filename: str) -> float:
    if head[:1] not in "0123456789 \t\r\n":
        return 0.0  # a histogram line starts with its time stamp
    first = next((ln for ln in head.lstrip().split("\n", 1)[:1]), "")
    fields = first.split(",")
    if len(fields) - 3 not in BIN_COUNTS or not _NUMBERS.match(first):
        # A 64 KiB head can cut a coarseness-0 line: trust the name and a numeric start.
        named = name_parts(filename)[0] is not None or "_clat_hist" in filename
        if named and len(first) >= 60000 and re.match(r"^\s*\d+\s*,\s*[0-2]\s*,\s*\d+\s*,", first):
            return 0.9
        return 0.0
    return 0.97 if name_parts(filename)[0] is not None else 0.8


# --------------------------------------------------------------------------- the bins


class _Layout:
    """Where the bins of a line with ``nbins`` counts lie, in ns."""

    def __init__(self, nbins: int) -> None:
        self.nbins = nbins
        self.full, self.coarseness, self.factor = BIN_COUNTS[nbins]
        self.stride = 1 << self.coarseness
        factor = self.factor
        self.edges = [plat_lower(i * self.stride) * factor for i in range(nbins + 1)]
        self.mids = [(lower + upper) // 2 if factor == 1 else ((lower + upper) // 2000) * 1000
                     for lower, upper in zip(self.edges, self.edges[1:])]


def _choose_layout(counts: dict[int, int], result: ParseResult) -> _Layout:
    """The file's bin count: the most common one (the first seen on a tie)."""
    layout = _Layout(max(counts, key=counts.get))
    if layout.factor != 1:
        result.warn(None, f"{layout.full} bins: a fio 2.x histogram log, bins in usec (converted to ns)")
    return layout


# --------------------------------------------------------------------------- line by line


def _split(text: str, result: ParseResult, fast: bool = True,
           first_line: int = 1) -> list[tuple[int, list[int]]]:
    rows = []
    for number, line in enumerate(text.split("\n"), first_line):
        if not line.strip():
            continue
        numbers = line.rstrip().rstrip(",")
        values = _plain_ints(numbers) if fast else None
        if values is not None:
            rows.append((number, values))
            continue
        try:
            values = list(map(int, numbers.split(",")))
        except ValueError:
            result.warn(number, f"not a histogram log line: {line.strip()[:80]}")
            continue
        if len(values) < 4:
            result.warn(number, f"not a histogram log line: {line.strip()[:80]}")
            continue
        rows.append((number, values))
    return rows


def _plain_ints(numbers: str) -> list[int] | None:
    """The integers of a line of plain comma-separated decimals (what fio writes), read by the
    JSON decoder; None for anything else, which then goes through int() field by field.

    Why: a line holds up to 1,859 numbers, mostly "0"; split() + int() makes two objects per
    field, the C decoder none for small ints: twice as fast. A JSON integer list is read the
    same by both; anything JSON reads otherwise (floats, true, null, strings) is refused."""
    try:
        values = json.loads("[" + numbers + "]")
    except (ValueError, RecursionError):
        return None
    if len(values) >= 4 and set(map(type, values)) == {int}:
        return values
    return None


def _count_layouts(rows: list[tuple[int, list[int]]], counts: dict[int, int]) -> None:
    for _, values in rows:
        n = len(values) - 3
        if n in BIN_COUNTS:
            counts[n] = counts.get(n, 0) + 1


def _row_columns(rows: list[tuple[int, list[int]]], layout: _Layout, result: ParseResult) -> dict[str, list]:
    """The non-empty bins of the lines, column by column (lines of another bin count or an
    unknown direction are skipped and reported)."""
    nbins, stride, edges, mids = layout.nbins, layout.stride, layout.edges, layout.mids
    # Most counts are 0 and only non-empty bins are stored: gather the rows column by column,
    # picking the non-empty bins with itertools.compress (in C) instead of one dict per bin.
    columns: dict[str, list] = {name: [] for name in COLUMNS if name not in _CONSTANT}
    bins = range(nbins)
    for number, values in rows:
        if len(values) - 3 != nbins:
            result.warn(number, f"{len(values) - 3} bins where the file has {nbins}: line skipped "
                                "(cut short or another log appended)")
            if result.status == "complete" and number == rows[-1][0]:
                result.status = "incomplete"
                result.status_reason = "last histogram line cut short"
            continue
        time_ms, ddir, bs = values[0], values[1], values[2]
        direction = DIRECTIONS.get(ddir)
        if direction is None:
            result.warn(number, f"unknown direction code {ddir}: line skipped")
            continue
        counts = values[3:]
        used = list(compress(bins, counts))
        n = len(used)
        for name, value in (("line", number), ("time_ms", time_ms), ("direction", direction),
                            ("block_size_bytes", bs)):
            columns[name].extend([value] * n)
        columns["bin_index"].extend([i * stride for i in used])
        columns["bin_ns"].extend(map(mids.__getitem__, used))
        columns["bin_lower_ns"].extend(map(edges.__getitem__, used))
        columns["bin_upper_ns"].extend([edges[i + 1] for i in used])
        columns["io_count"].extend(compress(counts, counts))
    return columns


# Columns that hold one value for the whole file.
_CONSTANT = ("log_name", "job_index", "coarseness")


def _parse_rows(text: str, *, filename: str | None) -> ParseResult:
    """The reference reader; with fast readers off (tests) it also reads every field with int()."""
    result = ParseResult(format=NAME)
    rows = _split(text, result, fast_readers_on())
    if not rows:
        raise ParseError("no fio histogram log lines (time, direction, block size, bin counts...)",
                         result.issues[0].line if result.issues else None)
    counts: dict[int, int] = {}
    _count_layouts(rows, counts)
    if not counts:
        raise ParseError(f"{len(rows[0][1]) - 3} bins per line: not a fio histogram log "
                         f"(fio writes 1856 >> c or 1216 >> c)", rows[0][0])
    layout = _choose_layout(counts, result)
    columns = _row_columns(rows, layout, result)
    n = len(columns["line"])
    log_name, job = name_parts(filename)
    columns.update(log_name=[log_name] * n, job_index=[job] * n, coarseness=[layout.coarseness] * n)
    result.tables["fio_histogram_log_samples"] = Columns({name: columns[name] for name in COLUMNS})
    return result


# --------------------------------------------------------------------------- all lines at once



# Each byte of the body is judged with its neighbours by a 7-bit code: the class of the byte
# before (2 bits), of the byte itself (3 bits) and of the byte after (2 bits). A neighbour is
# classed as one of these (anything else counts as a newline: it is judged at its own place).
_NEWLINE, _SPACE, _DIGITS, _COMMA = 0, 1, 2, 3
_NEIGHBOUR = {ord(" "): _SPACE, **dict.fromkeys(b"0123456789", _DIGITS), ord(","): _COMMA}
# The byte itself: a newline, space, comma, zero, other digit or anything else.
_NL, _SP, _CM, _ZERO, _NONZERO, _OTHER = 0, 1, 2, 3, 4, 7
_AT = {ord("\n"): _NL, ord(" "): _SP, ord(","): _CM, ord("0"): _ZERO, **dict.fromkeys(b"123456789", _NONZERO)}
_LAST_DIGIT, _BAD = 1, 2


def _class_table(classes: dict[int, int], shift: int, other: int) -> bytes:
    return bytes(classes.get(byte, other) << shift for byte in range(256))


def _mark_table() -> bytes:
    """code -> _BAD where the three bytes cannot occur in ``d+(, d+)*\\n`` lines without
    leading zeros (or the byte is none of "0-9, \\n"); _LAST_DIGIT where the byte ends a field
    worth reading: any field but a lone "0" after ", " (about one field in six)."""
    marks = bytearray(256)
    for before in range(4):
        for at in range(8):
            for after in range(4):
                digit, digit_after = at in (_ZERO, _NONZERO), after == _DIGITS
                bad = (at == _OTHER
                       or (at == _CM and after != _SPACE)
                       or (at == _SP and (before != _COMMA or not digit_after))
                       or (at == _NL and not digit_after)
                       or (digit and after == _SPACE)
                       or (at == _ZERO and before in (_SPACE, _NEWLINE) and digit_after))   # 0 then digits
                if bad:
                    marks[before << 5 | at << 2 | after] = _BAD
                elif digit and after in (_NEWLINE, _COMMA) and not (at == _ZERO and before == _SPACE):
                    marks[before << 5 | at << 2 | after] = _LAST_DIGIT
    return bytes(marks)


_NEIGHBOUR_TABLE = _class_table(_NEIGHBOUR, 0, _NEWLINE)
_AT_TABLE = _class_table(_AT, 2, _OTHER)
_MARKS = _mark_table()
_U8 = pa.uint8()
_FIVE = pa.scalar(5, pa.uint64())


def _u64_array(data: bytes, start: int, words: int) -> pa.Array:
    """A zero-copy view of data[start:start + 8 * words] as 64-bit words (bytewise ors are
    four times faster on words than on bytes)."""
    return pa.Array.from_buffers(pa.uint64(), words, [None, pa.py_buffer(data)[start:start + 8 * words]])


def _u8_array(data: bytes) -> pa.Array:
    """A zero-copy uint8 view of the bytes."""
    return pa.Array.from_buffers(_U8, len(data), [None, pa.py_buffer(data)])


def _all(mask: pa.Array) -> bool:
    """True when every value is true, also for none (pc.all says null then)."""
    return pc.all(mask, min_count=0).as_py()


# Lines are read in pieces of about this many characters: each piece's dozen working buffers
# stay small and are reused, where whole-file buffers (20 MB each for a 20 MB log) cost as much
# in fresh memory pages as in reading.
PIECE_CHARS = 1 << 20


def _read_pieces(text: str, cut: int) -> list[_Block]:
    """text[:cut] (complete lines) as blocks of whole lines, all of one bin count."""
    blocks: list[_Block] = []
    start, counting = 0, None
    while start < cut:
        stop = text.find("\n", min(start + PIECE_CHARS, cut - 1)) + 1
        try:
            piece = text[start:stop].encode("ascii")
        except UnicodeEncodeError:
            raise NeedsRowPath from None
        if counting is None or len(counting) < len(piece):
            counting = _counting(len(piece))
        block = _read_block(piece, blocks[-1].line_end if blocks else 0, counting)
        if blocks and block.nbins != blocks[0].nbins:
            raise NeedsRowPath
        blocks.append(block)
        start = stop
    return blocks


def _parse_block(text: str, *, filename: str | None) -> ParseResult:
    cut = text.rfind("\n") + 1
    blocks = _read_pieces(text, cut)
    if not blocks:
        raise NeedsRowPath
    nbins, lines = blocks[0].nbins, blocks[-1].line_end
    result = ParseResult(format=NAME)
    tail = _split(text[cut:], result, True, first_line=lines + 1)   # a line cut short
    counts = {nbins: lines}
    _count_layouts(tail, counts)
    layout = _choose_layout(counts, result)
    if layout.nbins != nbins:
        raise NeedsRowPath
    # One take per column over all the pieces: each column is made once, where it will stay.
    columns = _Block.joined(blocks).columns(layout)
    if tail:
        more = _row_columns(tail, layout, result)
        types = {"direction": pa.string()}
        try:
            columns = {name: pa.concat_arrays([column, pa.array(more[name], types.get(name, pa.int64()))])
                       for name, column in columns.items()}
        except (pa.ArrowInvalid, OverflowError):
            raise NeedsRowPath from None   # a count beyond int64: leave it to Python ints
    n = len(columns["line"])
    log_name, job = name_parts(filename)
    columns.update(log_name=pa.repeat(pa.scalar(log_name, pa.string()), n),
                   job_index=pa.repeat(pa.scalar(job, pa.int64()), n),
                   coarseness=pa.repeat(pa.scalar(layout.coarseness, pa.int64()), n))
    result.tables["fio_histogram_log_samples"] = Columns({name: columns[name] for name in COLUMNS})
    return result


class _Block:
    """Whole lines of a log, read at once: per line its time, direction and block size; per
    non-empty bin its line (0-based in the file), bin and count; all Arrow arrays. The block's
    lines are lines ``lines_before + 1 .. line_end`` of the file."""

    def __init__(self, nbins, lines_before, lines, times, ddirs, sizes, rows, bins, io_counts):
        self.nbins, self.lines_before, self.line_end = nbins, lines_before, lines_before + lines
        self.times, self.ddirs, self.sizes = times, ddirs, sizes
        self.rows, self.bins, self.io_counts = rows, bins, io_counts

    @classmethod
    def joined(cls, blocks: list[_Block]) -> _Block:
        def join(name: str) -> pa.Array:
            return pa.concat_arrays([getattr(b, name) for b in blocks])
        return cls(blocks[0].nbins, blocks[0].lines_before, blocks[-1].line_end - blocks[0].lines_before,
                   *map(join, ("times", "ddirs", "sizes", "rows", "bins", "io_counts")))

    def columns(self, layout: _Layout) -> dict[str, pa.Array]:
        rows, bins = self.rows, self.bins
        edges = pa.array(layout.edges, pa.int64())
        return {
            "line": pc.add(rows.cast(pa.int64()), 1),
            "time_ms": self.times.take(rows),
            "direction": pa.array([DIRECTIONS[d] for d in range(3)], pa.string()).take(self.ddirs.take(rows)),
            "block_size_bytes": self.sizes.take(rows),
            "bin_index": pc.multiply(bins.cast(pa.int64()), layout.stride),
            "bin_ns": pa.array(layout.mids, pa.int64()).take(bins),
            "bin_lower_ns": edges.take(bins),
            "bin_upper_ns": edges[1:].take(bins),
            "io_count": self.io_counts,
        }


def _counting(n: int) -> pa.Array:
    """0, 1, ... n - 1 (int32): filtered by a mask, the positions where it is set. (A running
    sum of 0, 1, 1, ...: building it from Python ints would cost 50 times more.)"""
    steps = (0).to_bytes(4, sys.byteorder) + (1).to_bytes(4, sys.byteorder) * (n - 1)
    return pc.cumulative_sum(pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(steps)]))


def _read_block(body: bytes, lines_before: int = 0, counting: pa.Array | None = None) -> _Block:
    """The lines of ``body`` (complete lines, ASCII) at once, when all are plain fio lines:
    decimals without leading zeros joined by ", ", the same bin count (one fio knows) on each,
    a direction of 0, 1 or 2 and a block size above 0. Else NeedsRowPath.

    How, without one Python object per field: each byte is judged with its neighbours (two
    translates, a shift and two ors on 64-bit words, one more translate), which
    checks the layout and marks the end of every field that is not a lone "0". Only those are
    read: the text from one mark to the next is the zeros between plus the field, which an
    ltrim of ", 0\\n" leaves alone, for Arrow to cast. A field's index in the file follows
    from where it ends: every field before it is one digit and a 2-byte separator, except the
    ones read (their extra digits counted by a running sum) and the last of each line (a
    1-byte separator)."""
    n = len(body)
    first = body.find(b"\n")
    fields = body[:first].count(b",") + 1
    nbins = fields - 3
    # The first field (a time of 10 ms or more) is read here: its first byte has no neighbour
    # before it, and the text of the others starts after it.
    time_width = body.find(b",")
    if (nbins not in BIN_COUNTS or body[0] not in b"123456789" or not 2 <= time_width <= 18
            or n >= 2**31):
        raise NeedsRowPath
    # codes[j] judges byte j + 1: or-ed 8 bytes at a time, the last few (<8) in Python.
    # (The class of the byte before, in bits 5-6, is the neighbour class shifted in place: a
    # word shift moves no bits across bytes as the classes are below 4.)
    near, at = body.translate(_NEIGHBOUR_TABLE), body.translate(_AT_TABLE)
    words = (n - 2) // 8
    codes = pc.bit_wise_or(pc.bit_wise_or(pc.shift_left(_u64_array(near, 0, words), _FIVE),
                                          _u64_array(at, 1, words)), _u64_array(near, 2, words))
    marks = bytes(memoryview(codes.buffers()[1])[:8 * words]).translate(_MARKS)
    rest = bytes(near[j] << 5 | at[j + 1] | near[j + 2] for j in range(8 * words, n - 2)).translate(_MARKS)
    if b"\x02" in marks or b"\x02" in rest:
        raise NeedsRowPath
    del near, at, codes
    # Byte j + 1 ends a field read: body[j + 2] is its separator. The text from one separator to
    # the next is the lone zeros between and the field.
    counting = _counting(n) if counting is None or len(counting) < n else counting
    offsets = counting[:len(marks)].filter(_u8_array(marks).cast(pa.bool_()))   # int32
    if rest.strip(b"\x00"):
        tail = pa.array([8 * words + j for j, mark in enumerate(rest) if mark], pa.int32())
        offsets = pa.concat_arrays([offsets, tail])
    if len(offsets) < 2:
        raise NeedsRowPath   # nothing read after the first time: no block size either
    texts = pa.Array.from_buffers(pa.string(), len(offsets) - 1,
                                  [None, offsets.buffers()[1], pa.py_buffer(body)[2:]], offset=offsets.offset)
    digits = pc.ascii_ltrim(texts, ", 0\n")
    try:
        values = digits.cast(pa.int64())
    except pa.ArrowInvalid:
        raise NeedsRowPath from None   # beyond int64, or a time of 0 (the trim ate it)
    ends = offsets[1:]                      # body[end + 2] follows the field
    width = pc.binary_length(digits)
    data = _u8_array(body)
    # The field before a line's first one is its line's last: byte begin - 1 is "\n".
    extra_digits = pc.subtract(width, 1)
    line_start = pc.equal(data.take(pc.subtract(ends, extra_digits)), pa.scalar(ord("\n"), _U8))
    running = pc.cumulative_sum(pc.subtract(extra_digits, line_start.cast(pa.int32())))
    before_first = time_width - 2           # the first field: its extra digits, a line start
    index = pc.divide(pc.subtract(pc.subtract(ends, running), before_first), 3)
    # The same field count on every line: line k starts at field k * fields, and the text ends
    # after lines * fields fields.
    firsts = index.filter(line_start)
    lines = len(firsts) + 1
    if n - running[-1].as_py() - before_first != 3 * lines * fields:
        raise NeedsRowPath
    expected = pc.multiply(pc.add(counting[:lines - 1], 1), fields)
    if not _all(pc.equal(firsts, expected)):
        raise NeedsRowPath
    row = pc.divide(index, fields)
    column = pc.subtract(index, pc.multiply(row, fields))
    # The direction: the one digit after "time, " (a lone 0 is not among the fields read).
    at_ddir = pc.add(pa.concat_arrays([pa.array([time_width - 2], pa.int32()), ends.filter(line_start)]), 4)
    ddir = pc.subtract(data.take(at_ddir), pa.scalar(ord("0"), _U8))
    if not (_all(pc.less_equal(ddir, pa.scalar(2, _U8)))
            and _all(pc.equal(data.take(pc.add(at_ddir, 1)), pa.scalar(ord(","), _U8)))):
        raise NeedsRowPath
    sizes = values.filter(pc.equal(column, 2))
    if len(sizes) != lines:
        raise NeedsRowPath   # a block size of 0
    times = pa.concat_arrays([pa.array([int(body[:time_width])], pa.int64()), values.filter(line_start)])
    binned = pc.greater_equal(column, 3)
    return _Block(nbins, lines_before, lines, times, ddir, sizes,
                  pc.add(row.filter(binned), lines_before), pc.subtract(column.filter(binned), 3),
                  values.filter(binned))


# --------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the log as one block where it can, else line by line (the same output)."""
    with no_gc():
        return fastest_reading(text, (_parse_block,), _parse_rows, filename=filename)

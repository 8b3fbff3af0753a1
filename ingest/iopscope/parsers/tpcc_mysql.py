"""tpcc-mysql ``tpcc_start`` standard output, every generation from 2011 to today and common forks.

Tables written
--------------
``tpcc_runs``          one row per file: parameters (never the password), TpmC printed and
                       recomputed, measured seconds, status, output generation / variant
``tpcc_intervals``     one row per interval line (wide: one column group per transaction type),
                       returned as a ``Columns`` block of Arrow arrays (reads like a list of
                       dicts); its columns are those some row has, null where a row lacks one
``tpcc_tx_summaries``  one row per transaction type: <Raw Results>, <Raw Results2(sum ver.)>,
                       <Constraint Check> and the older <90th Percentile RT (MaxRT)> block

Response times are milliseconds as printed. The password tpcc_start echoes (``[pass]:`` and
``option p with value '...'``) is read only to scrub it: every string the parser returns
(cells, issues, status reason, facts) is cleaned of it.

Variants handled
----------------
Interval lines (``output_generation`` / ``output_variant`` of ``tpcc_runs``):

* current (2016-02 on): ``%4d, trx: %d, 95%: %.3f, 99%: %.3f, max_rt: %.3f, %d|%.3f`` x4
  (New-Order count, p95, p99, max; then count|max of Payment, Order-Status, Delivery,
  Stock-Level). The ``%`` after 95/99 is dropped by some C libraries (``95: 8.7``): variant
  ``trx-95-99-nopct``. Forks add ``99.9%:`` (``-p999``) or a ``rampup``/``measure`` phase
  word (``-phase``; ramp-up lines get ``is_rampup``); other ``label: value`` fields are kept in
  ``extra_fields_json``.
* 2016-02: ``%4d, trx: %d max_rt: %.3f, %d|%.3f`` x4 (``trx-max``) and
  ``%4d, %d:%.3f|%.3f`` x5 = count:rt90|max (``rt90-max``, an optional ``(avg)`` is read).
* 2011-2012: ``%4d, %d(%d):%.3f|%.3f`` x5 = count(late):rt90|max (``late-rt90-max``).
* pre-2011 (and ``_SLEEP_ONLY_`` builds): ``%d(%d):%.3f`` / ``%.2f`` / ``%.1f`` x5 (``late-rt90``).

Long runs of current-format lines (a 1 s interval run prints ~190,000) are read in bulk: one
regex pass proves every line has the exact shape, Arrow's CSV reader reads the numbers; any
other line is read line by line, into the same rows (tests/python/test_tpcc_mysql_bulk.py).

The elapsed column grows past 4 digits; intervals of any length (1, 2, 10 s ...). The first
measured interval is flagged ``is_rampup_mixed``: tpcc_start records response times from the
start, so that line's percentiles and max include ramp-up samples (its counts do not).

Blocks: option lines, ``<Parameters>`` (``[server]`` blank for a socket, ``[server]`` and
``[port]`` absent when the database is ``l``), ``RAMP-UP TIME.(N sec.)``, ``MEASURING START.``,
``STOPPING THREADS...`` (one dot per thread), ``<Raw Results>`` with or without
``avg_rt: x (limit)``, `` in N sec.``, ``<Raw Results2(sum ver.)>``, ``<Constraint Check>``
(``[OK]`` / ``[NG] *``; ``[NG]`` is the normal outcome with the default late limits and is not
a failure), ``<TpmC>``; older builds' ``<RT Histogram>`` (skipped) and ``<90th Percentile RT
(MaxRT)>``; forks' ``Local Start TIME:`` line and percentile / ``label: value`` lines after
TpmC. ``nan``, ``-nan`` and ``inf`` read as null. MySQL error lines (``1213, 40001, Deadlock
...``) are counted and reported once per error code. Unknown lines are skipped with a warning.

Status: ``complete`` when the ``<TpmC>`` value is there; ``incomplete`` when the output stops
earlier (after RAMP-UP, right after MEASURING START, after some intervals, mid-line: the
rows that exist are kept; a last line without its newline is dropped as possibly cut, unless
it has the shape of the line before it, digits aside, or is the usage line: then only the
newline is missing);
``failed`` when tpcc_start says ``error at main``, prints only its usage, or threads failed to
connect and no transaction ran.

TpmC check: ``tpmc_recomputed`` = (New-Order sc + lt) x 60 / `` in N sec.``, which tpcc_start
prints from the *planned* measure time (rounded down to the report interval). A difference
beyond tpcc_start's float32 rounding sets ``tpmc_mismatch`` and a warning. ``measured_s`` is
what the run measured: N, unless the measured interval lines cover less than N minus one
interval (an aborted run, which still prints the planned N: a warning), and for an output cut
before ``in N sec.`` the seconds its interval lines cover (never the planned time).

Doubtful: builds older than 2012 may have timed transactions in seconds rather than
milliseconds; their rt90 values are stored in the ``_ms`` columns as printed. From 2012 to
2016 several builds timed with ``CLOCK_THREAD_CPUTIME_ID`` (client CPU time, not wall time):
the output cannot tell.

Example
-------
>>> out = ("<Parameters>\\n     [server]: db1\\n       [pass]: s3cret\\n  [warehouse]: 10\\n"
...        " [connection]: 8\\n    [measure]: 20 (sec.)\\n\\nMEASURING START.\\n\\n"
...        "  10, trx: 100, 95%: 9.5, 99%: 12.0, max_rt: 20.1, 99|5.0, 10|3.0, 10|40.0, 10|30.0\\n"
...        "  20, trx: 110, 95%: 9.1, 99%: 11.0, max_rt: 18.2, 108|4.0, 11|2.0, 11|41.0, 11|29.0\\n"
...        "\\n<Raw Results>\\n  [0] sc:10 lt:200  rt:0  fl:0 avg_rt: 7.5 (5)\\n in 20 sec.\\n"
...        "\\n<TpmC>\\n                 630.000 TpmC\\n")
>>> r = parse(out)
>>> run = r.tables["tpcc_runs"][0]
>>> (r.status, run["server_host"], run["tpmc_printed"], run["tpmc_recomputed"], run["tpmc_mismatch"])
('complete', 'db1', 630.0, 630.0, False)
>>> [(i["elapsed_s"], i["new_order_count"], i["is_rampup_mixed"]) for i in r.tables["tpcc_intervals"]]
[(10.0, 100, True), (20.0, 110, False)]
>>> "s3cret" in repr(r)
False
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter, sub
from typing import Any, Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from iopscope.parsers._convert import finite_or_none, int64_or_none
from iopscope.parsers.base import Columns, ParseError, ParseResult
from iopscope.tables.tpcc import TABLES

NAME = "tpcc_mysql"
VERSION = "1.1.0"
TOOL = "tpcc-mysql"

TX_KEYS = ("new_order", "payment", "order_status", "delivery", "stock_level")
TX_NAMES = ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level")
_TX_INDEX = {name: i for i, name in enumerate(TX_NAMES)}
DEFAULT_REPORT_INTERVAL_S = 10  # PRINT_INTERVAL in every tpcc_start

# Sections in the order tpcc_start prints them (used for "how far did it get").
_PHASES = ("header", "parameters", "rampup", "measuring", "stopping", "raw_results",
           "raw_results2", "constraint_check", "tpmc")
_PHASE_RANK = {p: i for i, p in enumerate(_PHASES)}

# --------------------------------------------------------------------------- line matching

_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|(?i:nan|inf(?:inity)?))"
_TX = r"(New-Order|Payment|Order-Status|Delivery|Stock-Level)"

_BANNER = re.compile(r"^\*{3}.*TPC-C Load Generator.*\*{3}$|^\*{10,}$")
_OPTION = re.compile(r"^option (\S)(?: \(([^)]*)\))?(?: with value)? '(.*)'$")
_PARAM = re.compile(r"^\[(\w+)\]:(?:\s?(.*))?$")
_RAMPUP = re.compile(r"^RAMP-UP TIME\.\((-?\d+) sec\.\)$")
_STOPPING = re.compile(r"^STOPPING THREADS(\.*)(.*)$")
_RAW = re.compile(rf"^\[(\d+)\] sc:(-?\d+)\s+lt:(-?\d+)\s+rt:(-?\d+)\s+fl:(-?\d+)"
                  rf"(?:\s+avg_rt:\s*({_NUM})\s*\((-?\d+)\))?$")
_IN_SEC = re.compile(r"^in (-?\d+) sec\.$")
_CC_LINE = re.compile(rf"^{_TX}: ({_NUM})%\s*(?:\(>=\s*({_NUM})%\))?\s*\[(OK|NG)\](?:\s*\*)?$")
_TPMC = re.compile(rf"^({_NUM}) TpmC$")
_RT_HIST_TYPE = re.compile(rf"^\d\.{_TX}$")
_RT_HIST_BIN = re.compile(rf"^{_NUM},\s*-?\d+$")
_RT90_LINE = re.compile(rf"^{_TX}\s*:\s*({_NUM})\s+\(({_NUM})\)$")
_MYSQL_ERR = re.compile(r"^(\d{1,5}), ([0-9A-Z]{5}), ?(.*)$")
_ERROR_AT = re.compile(r"^error at (\w+)$")
_LOCAL_START = re.compile(r"^Local Start TIME\s*:\s*(.*)$", re.I)
_SUMMARY_PCT = re.compile(rf"^(?:New-Order\s+)?(p95|p99|p999|95%|99%|99\.9%)\s*[:=]\s*({_NUM})\s*(?:ms)?$",
                          re.I)
_LABEL_VALUE = re.compile(r"^([A-Za-z][\w .%()/-]{0,40}?)\s*:\s*(\S.*)$")
_INTERVAL = re.compile(r"^(\d+),\s*(.+)$")
# The current format, in one go (the common case; the generic reader handles the rest).
_FAST = re.compile(
    rf"^(\d{{1,18}}), trx: (-?\d{{1,18}}), 95(%?): ({_NUM}), 99%?: ({_NUM}), max_rt: ({_NUM}), "
    rf"(-?\d{{1,18}})\|({_NUM}), (-?\d{{1,18}})\|({_NUM}), (-?\d{{1,18}})\|({_NUM}), (-?\d{{1,18}})\|({_NUM})$")

# Fields of an interval line (split on commas).
_F_PAIR = re.compile(rf"^(-?\d+)\|({_NUM})$")
_F_LATE = re.compile(rf"^(-?\d+)\((-?\d+)\):({_NUM})(?:\|({_NUM}))?(?:\(({_NUM})\))?$")
_F_RT90 = re.compile(rf"^(-?\d+):({_NUM})\|({_NUM})(?:\(({_NUM})\))?$")
_LABEL = r"(?:[A-Za-z_][\w.]*|\d+(?:\.\d+)?%?)"
_F_LABELS = re.compile(rf"^(?:{_LABEL}\s*:\s*{_NUM}\s*)+$")
_F_LABEL = re.compile(rf"({_LABEL})\s*:\s*({_NUM})")
_F_WORD = re.compile(r"^[A-Za-z][\w-]*$")

# Runs of interval lines, read in bulk. Each pattern below is one generation's interval line
# exactly as tpcc_start prints it: single spaces, plain decimals (at most 300 integer digits,
# so float() is always finite), counts of at most 18 digits (always int64). Every line one of
# them matches is one that _FAST or _generic_interval reads into the same row; lines they miss
# (nan, negative counts, odd spacing, extra fields) take that general path one by one. The
# patterns are disjoint: _kind_for names the only one a line can match.
_I = r"([0-9]{1,18}+)"
_D = r"([0-9]{1,300}+\.[0-9]++)"
_PAIRS = rf", {_I}\|{_D}, {_I}\|{_D}, {_I}\|{_D}, {_I}\|{_D}$"


def _current(pct: str) -> str:
    """The current line; group 2 holds the % after 95 and matches ``pct`` ("%?", "%" or "")."""
    return rf"{_I}, trx: {_I}, 95({pct}): {_D}, 99%?: {_D}, max_rt: {_D}{_PAIRS.removesuffix('$')}"


_PAIR_COLUMNS = tuple(col for key in TX_KEYS[1:] for col in (f"{key}_count", f"{key}_max_ms"))
_RUN_CHUNK = 512  # lines read per _add_run call at most (a run split in chunks reads the same)


class _LineKind:
    """One bulk-readable interval line shape: its pattern and how its groups become columns.

    ``columns`` lists (column, conversion, group index) in the order the general path sets
    them (conversion "int", "float" or "none" for a column it sets to None).
    """

    def __init__(self, pattern: str, variant: str | None, columns: tuple, phase_group: int | None = None):
        self.regex = re.compile(pattern)
        self.match = self.regex.match
        self.variant = variant          # None: "trx-p95-p99" or "trx-95-99-nopct" from group 2
        self.phase_group = phase_group  # group holding the rampup / measure word, if any
        self.columns = columns

    def read(self, groups: list[tuple]) -> dict[str, list]:
        """The columns of lines of this shape (their match groups), as int() / float() read them."""
        convert = {"int": int, "float": float}
        return {col: list(map(convert[conv], map(itemgetter(index), groups))) if conv != "none"
                else [None] * len(groups) for col, conv, index in self.columns}


def _pairs_columns(first: int) -> tuple:
    return tuple((col, "int" if i % 2 == 0 else "float", first + i) for i, col in enumerate(_PAIR_COLUMNS))


def _groups_columns(late: bool, with_max: bool) -> tuple:
    """count[(late)]:rt90[|max] x5, as _generic_interval sets them (avg is always None here)."""
    columns, index = [], 1
    for key in TX_KEYS:
        columns.append((f"{key}_count", "int", index))
        index += 1
        if late:
            columns.append((f"{key}_late_count", "int", index))
            index += 1
        columns.append((f"{key}_rt90_ms", "float", index))
        index += 1
        if with_max:
            columns.append((f"{key}_max_ms", "float", index))
            index += 1
        else:
            columns.append((f"{key}_max_ms", "none", 0))
        columns.append((f"{key}_avg_ms", "none", 0))
    return tuple(columns)


_KINDS = _K_CURRENT, _K_P999, _K_PHASE, _K_TRX_MAX, _K_RT90_MAX, _K_LATE_MAX, _K_LATE = (
    _LineKind(rf"^{_current('%?')}$", None,
              (("new_order_count", "int", 1), ("new_order_p95_ms", "float", 3),
               ("new_order_p99_ms", "float", 4), ("new_order_max_ms", "float", 5)) + _pairs_columns(6)),
    _LineKind(rf"^{_I}, trx: {_I}, 95%: {_D}, 99%: {_D}, 99\.9%: {_D}, max_rt: {_D}{_PAIRS}", "trx-p95-p99-p999",
              (("new_order_count", "int", 1), ("new_order_p95_ms", "float", 2),
               ("new_order_p99_ms", "float", 3), ("new_order_p999_ms", "float", 4),
               ("new_order_max_ms", "float", 5)) + _pairs_columns(6)),
    _LineKind(rf"^{_I}, (rampup|measure), trx: {_I}, 95%: {_D}, 99%: {_D}, max_rt: {_D}{_PAIRS}",
              "trx-p95-p99-phase",
              (("new_order_count", "int", 2), ("new_order_p95_ms", "float", 3),
               ("new_order_p99_ms", "float", 4), ("new_order_max_ms", "float", 5)) + _pairs_columns(6),
              phase_group=1),
    _LineKind(rf"^{_I}, trx: {_I} max_rt: {_D}{_PAIRS}", "trx-max",
              (("new_order_count", "int", 1), ("new_order_max_ms", "float", 2)) + _pairs_columns(3)),
    _LineKind(rf"^{_I}" + rf", {_I}:{_D}\|{_D}" * 5 + "$", "rt90-max", _groups_columns(False, True)),
    _LineKind(rf"^{_I}" + rf", {_I}\({_I}\):{_D}\|{_D}" * 5 + "$", "late-rt90-max", _groups_columns(True, True)),
    _LineKind(rf"^{_I}" + rf", {_I}\({_I}\):{_D}" * 5 + "$", "late-rt90", _groups_columns(True, False)),
)


def _kind_for(line: str) -> _LineKind | None:
    """The one _KINDS pattern that can match a line, from literal text each of them needs."""
    at = line.find(", ")  # the first one follows the elapsed seconds
    c = line[at + 2:at + 3] if at > 0 else ""
    if c == "t":  # trx: ...
        if "99.9%: " in line:
            return _K_P999
        return _K_CURRENT if ", 95%: " in line or ", 95: " in line else _K_TRX_MAX
    if c == "r" or c == "m":  # rampup / measure
        return _K_PHASE
    if "0" <= c <= "9":  # count[(late)]:rt90[|max]
        if "(" in line:
            return _K_LATE_MAX if "|" in line else _K_LATE
        return _K_RT90_MAX
    return None


# --------------------------------------------------------------------------- bulk blocks

# Why a second reader: with 1 s intervals tpcc_start prints ~190,000 current-format lines
# (20 MB) in one run between MEASURING START and STOPPING THREADS, and matching them one by
# one costs about a microsecond of interpreter time each. Here one regex pass (a _BLOCKS
# pattern: the _K_CURRENT line repeated, with or without the % after 95 on every line) proves
# that a run of lines has exactly that shape -- so every one is a line the line-by-line path
# reads with _K_CURRENT -- and Arrow's CSV reader turns the run's numbers into typed columns.
# Whatever _BLOCKS do not accept (other generations, fork fields, nan, other spacing, a last
# line without its newline) is read line by line.
_BLOCKS = tuple((variant, re.compile(rf"(?: *+{_current(pct)}\r?\n)++"))
                for variant, pct in (("trx-p95-p99", "%"), ("trx-95-99-nopct", "")))
# The newline before a line one of _BLOCKS accepts (the regex engine scans for "\n" in C).
_BEFORE_BLOCK = re.compile(rf"\n(?= *+{_current('%?')}\r?\n)")
_MIN_BLOCK_LINES = 64  # a shorter run is read line by line: the CSV reader's set-up costs more
# With ":" and "|" made commas a line is 17 CSV fields ("  10, trx, 100, 95%, 9.5, 99%, ...");
# Arrow trims the blanks around numbers. (field, column) of the numbers besides f0 (elapsed),
# in the order _K_CURRENT's rows hold them.
_TO_CSV = bytes.maketrans(b":|", b",,")
_BLOCK_FIELDS = ((2, "new_order_count"), (4, "new_order_p95_ms"), (6, "new_order_p99_ms"),
                 (8, "new_order_max_ms")) + tuple((9 + i, col) for i, col in enumerate(_PAIR_COLUMNS))
_ARROW_TYPES = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
_INTERVAL_TYPES = {c.name: _ARROW_TYPES[c.type] for c in TABLES["tpcc_intervals"].columns}
_CSV_NAMES = [f"f{i}" for i in range(17)]
_CSV_PARSE = pa_csv.ParseOptions(quote_char=False, double_quote=False, escape_char=False)
_CSV_CONVERT = pa_csv.ConvertOptions(
    column_types={"f0": pa.int64(), **{f"f{i}": _INTERVAL_TYPES[col] for i, col in _BLOCK_FIELDS}},
    include_columns=["f0"] + [f"f{i}" for i, _ in _BLOCK_FIELDS], null_values=[], check_utf8=False)


def _bulk_blocks(text: str) -> Iterator[tuple[int, int, int, str]]:
    """(start, end, lines, variant) of every run of at least _MIN_BLOCK_LINES lines that one
    _BLOCKS pattern accepts."""
    start = 0  # a line start
    while True:
        for variant, block in _BLOCKS:  # noqa: B007 (variant is the one the loop broke on)
            m = block.match(text, start)
            if m is not None:
                break
        else:
            newline = _BEFORE_BLOCK.search(text, start)
            if newline is None:
                return
            start = newline.end()
            continue
        lines = text.count("\n", start, m.end())
        if lines >= _MIN_BLOCK_LINES:
            yield start, m.end(), lines, variant
        start = m.end()


def detect(head: str, filename: str) -> float:
    if "TPC-C Load Generator" in head:
        return 0.95
    if "<Parameters>" in head and "[warehouse]:" in head:
        return 0.9
    if "<TpmC>" in head or ("<Raw Results>" in head and " sc:" in head):
        return 0.8
    if re.search(r"(?m)^\s*\d+, trx: \d+", head):
        return 0.7
    if re.search(r"(?m)^\s*\d+, \d+\(\d+\):[\d.]+", head):
        return 0.6
    return 0.0


# --------------------------------------------------------------------------- conversion


def _pct_key(label: str) -> str | None:
    """'95%', '95', '99.9%' -> the interval column that holds that New-Order percentile."""
    return {"95": "new_order_p95_ms", "99": "new_order_p99_ms",
            "99.9": "new_order_p999_ms"}.get(label.rstrip("%"))


_TIME_LAYOUTS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S",
                 "%Y/%m/%d %H:%M:%S", "%a %b %d %H:%M:%S %Y")


def _timestamp(text: str) -> datetime | None:
    text = " ".join(text.split())
    for layout in _TIME_LAYOUTS:
        try:
            return datetime.strptime(text, layout)
        except ValueError:
            continue
    return None


# --------------------------------------------------------------------------- parse state


class _Intervals:
    """The tpcc_intervals rows in file order, joined into one typed Columns table at the end:
    row dicts (_add_interval), columns of Python values (_add_run) and Arrow columns (_add_block)."""

    def __init__(self) -> None:
        self.parts: list[list[dict] | dict[str, list | pa.Array]] = []
        self.length = 0

    def __len__(self) -> int:
        return self.length

    def append(self, row: dict) -> None:
        if not self.parts or not isinstance(self.parts[-1], list):
            self.parts.append([])
        self.parts[-1].append(row)
        self.length += 1

    def add_columns(self, columns: dict[str, list | pa.Array], n: int) -> None:
        last = self.parts[-1] if self.parts else None
        if (isinstance(last, dict) and last.keys() == columns.keys()
                and all(isinstance(v, list) for v in (*last.values(), *columns.values()))):
            for name, values in columns.items():  # one more run of the same shape: one part
                last[name] += values
        else:
            self.parts.append(columns)
        self.length += n

    def table(self) -> Columns:
        """Every column some row has, in the lake table's order, null where a row lacks it."""
        present: set[str] = set()
        for part in self.parts:
            present.update(part if isinstance(part, dict) else set().union(*part))
        # A name the lake does not know (a bug) is kept, untyped, for conform to report.
        names = [name for name in _INTERVAL_TYPES if name in present] + sorted(present - _INTERVAL_TYPES.keys())
        columns = {}
        for name in names:
            kind = _INTERVAL_TYPES.get(name)
            arrays = []
            for part in self.parts:
                if isinstance(part, list):
                    arrays.append(pa.array([row.get(name) for row in part], kind))
                elif name not in part:
                    arrays.append(pa.nulls(len(part["interval_index"]), kind))
                else:
                    values = part[name]
                    arrays.append(values if isinstance(values, pa.Array) else pa.array(values, kind))
            columns[name] = arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays)
        return Columns(columns, self.length)


class _State:
    def __init__(self) -> None:
        self.phase = "header"          # the last section header seen
        self.reached = 0               # highest phase rank reached
        self.recognized = False        # any tpcc_start line at all
        self.options: dict[str, str] = {}
        self.params: dict[str, str | None] = {}
        self.extra_params: dict[str, str] = {}
        self.secrets: list[str] = []
        self.rampup_s: int | None = None
        self.measuring_started = False
        self.intervals = _Intervals()
        self.prev_elapsed: int | None = None
        self.seen_rampup_lines = False
        self.flagged_mixed = False
        self.variants: dict[str, int] = {}
        self.threads_stopped: int | None = None
        self.raw: dict[int, dict] = {}
        self.raw2: dict[int, dict] = {}
        self.in_sec: int | None = None
        self.cc: dict[int, dict] = {}
        self.rt90: dict[int, dict] = {}
        self.tpmc_text: str | None = None
        self.tpmc_seen = False
        self.summary: dict[str, float | None] = {}
        self.extra: dict[str, str] = {}
        self.start_time_text: str | None = None
        self.usage = False
        self.error_at_main = False
        self.thread_errors = 0
        self.mysql_errors: dict[tuple[str, str], list] = {}  # (errno, state) -> [line, count, msg]
        self.problems: dict[str, list] = {}  # reason -> [first line, count]
        self.unknown: list[tuple[int, str]] = []  # pending run of unrecognized lines

    def reach(self, phase: str) -> None:
        self.phase = phase
        self.reached = max(self.reached, _PHASE_RANK[phase])
        self.recognized = True

    def problem(self, line: int, reason: str) -> None:
        entry = self.problems.get(reason)
        if entry is None:
            self.problems[reason] = [line, 1]
        else:
            entry[1] += 1


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    st = _State()
    # A last line without its newline may have been cut anywhere, unless it shows it was not.
    tail = text[text.rfind("\n") + 1:]
    cut_last = bool(tail.strip()) and not _whole_last_line(text, tail)
    # Runs of current-format interval lines are read in bulk, the lines around them one by one,
    # in file order (both read and change the same state).
    read, number = 0, 0  # text read so far, and its lines
    for start, end, lines, variant in _bulk_blocks(text):
        number = _read_lines(st, result, text[read:start], number)
        _flush_unknown(st, result)
        _add_block(st, text[start:end], lines, variant, number + 1)
        number += lines
        read = end
    _read_lines(st, result, text[read:], number, cut_last)
    _flush_unknown(st, result)
    if not st.recognized:
        raise ParseError("no tpcc_start output found (no banner, <Parameters>, interval line or results)")
    _finish(st, result, cut_last)
    _scrub(result, st.secrets)
    return result


def _whole_last_line(text: str, tail: str) -> bool:
    """True when a last line without its newline is whole, so that only the newline is missing:
    the usage line, or a line of the same shape as the line before it (digits aside: an
    interval or Raw Results line cut inside a number has fewer decimals or fields, "8.3" -> "8.",
    "(5)" -> "(5")."""
    line = tail.strip()
    if line.startswith(("Usage: tpcc_start", "usage: tpcc_start")):
        return True
    before = text[: len(text) - len(tail)].rstrip().rsplit("\n", 1)[-1].strip()
    return bool(before) and _digit_shape(before) == _digit_shape(line)


def _digit_shape(line: str) -> str:
    """The line with each number reduced to its decimals: "120, trx: 758, 95%: 26.371" ->
    "0, trx: 0, 0%: 0.000" (tpcc_start prints a fixed number of decimals per field)."""
    return _NUMBER.sub(lambda m: "0" + re.sub(r"\d", "0", m.group(1) or ""), " ".join(line.split()))


_NUMBER = re.compile(r"\d+(\.\d*)?")


def _read_lines(st: _State, result: ParseResult, text: str, before: int, cut_last: bool = False) -> int:
    """Read the lines of ``text`` (which follow line ``before`` of the file); return the new line
    count. ``cut_last``: the text ends the file, on a line without its newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    last = before + len(lines)
    # Consecutive interval lines of one _KINDS shape are collected, then read by _add_run
    # before any other line is looked at (other lines read and change the same state).
    kind = _KINDS[0]
    match = kind.match
    run_numbers: list[int] = []
    run_groups: list[tuple] = []
    add_number, add_groups = run_numbers.append, run_groups.append
    fast_limit = last - 1 if cut_last else last  # a cut last line is never an interval
    for number, raw_line in enumerate(lines, start=before + 1):
        line = raw_line.strip()
        if not line:
            if st.unknown:
                _flush_unknown(st, result)
            continue
        m = match(line)
        if m is None and "0" <= line[0] <= "9":
            other = _kind_for(line)
            if other is not None and other is not kind:
                m = other.match(line)
                if m is not None:
                    if run_groups:
                        _add_run(st, kind, run_numbers, run_groups)
                        run_numbers.clear()
                        run_groups.clear()
                    kind, match = other, other.match
        if m is not None and number <= fast_limit:
            if st.unknown:
                _flush_unknown(st, result)
            add_number(number)
            add_groups(m.groups())
            if len(run_groups) == _RUN_CHUNK:  # read long runs in chunks: fewer live objects
                _add_run(st, kind, run_numbers, run_groups)
                run_numbers.clear()
                run_groups.clear()
            continue
        if run_groups:
            _add_run(st, kind, run_numbers, run_groups)
            run_numbers.clear()
            run_groups.clear()
        if number == last and cut_last and not _TPMC.match(line):
            m = _STOPPING.match(line)
            if m and not m.group(2):  # dots arrive one by one: a short run of them is real
                _read_line(st, line, number, result)
                continue
            _flush_unknown(st, result)
            result.warn(number, f"last line has no newline (output cut short): dropped: {_shown(line, 80)}")
            continue
        _read_line(st, line, number, result)
    if run_groups:
        _add_run(st, kind, run_numbers, run_groups)
    return before + len(lines)


def _read_line(st: _State, line: str, number: int, result: ParseResult) -> None:
    """Match one stripped, non-blank line against every known shape, then store it."""
    m = _FAST.match(line)
    if m:
        _flush_unknown(st, result)
        _fast_interval(st, m, number)
        return
    first = line[0]
    if first == "<":
        if _section_header(st, line):
            _flush_unknown(st, result)
            return
    elif first == "[":
        m = _RAW.match(line)
        if m:
            _flush_unknown(st, result)
            _raw_line(st, m, number, result)
            return
        m = _PARAM.match(line)
        if m:
            _flush_unknown(st, result)
            _param_line(st, m, number, result)
            return
        if line in ("[transaction percentage]",) or line.startswith("[response time"):
            _flush_unknown(st, result)
            st.reach("constraint_check")
            return
    elif first == "*" and _BANNER.match(line):
        _flush_unknown(st, result)
        st.recognized = True
        return
    if line[0].isdigit() or line[0] in "-+.":
        m = _MYSQL_ERR.match(line)
        if m:
            _flush_unknown(st, result)
            _mysql_error(st, m, number)
            return
        m = _TPMC.match(line)
        if m:
            _flush_unknown(st, result)
            st.tpmc_text = m.group(1)
            st.tpmc_seen = True
            st.reach("tpmc")
            return
        m = _INTERVAL.match(line)
        if m and _generic_interval(st, m, number):
            _flush_unknown(st, result)
            return
        if st.phase == "rt_histogram" and (_RT_HIST_BIN.match(line) or _RT_HIST_TYPE.match(line)):
            return
    if _simple_line(st, line, number):
        _flush_unknown(st, result)
        return
    st.unknown.append((number, line))


def _section_header(st: _State, line: str) -> bool:
    if line == "<Parameters>":
        st.reach("parameters")
    elif line == "<Raw Results>":
        st.reach("raw_results")
    elif line.startswith("<Raw Results2"):
        st.reach("raw_results2")
    elif line.startswith("<Constraint Check>"):
        st.reach("constraint_check")
    elif line == "<TpmC>":
        st.reach("tpmc")
    elif line == "<RT Histogram>":
        st.reach("stopping")
        st.phase = "rt_histogram"
    elif line.startswith("<90th Percentile RT"):
        st.reach("stopping")
        st.phase = "rt90"
    else:
        return False
    return True


def _simple_line(st: _State, line: str, number: int) -> bool:
    """Lines with a fixed text: options, phase markers, errors, fork additions."""
    if line.startswith("option "):
        m = _OPTION.match(line)
        if m:
            letter, value = m.group(1), m.group(3)
            if letter == "p":
                if value:
                    st.secrets.append(value)
            else:
                st.options[letter] = value
            st.recognized = True
            return True
    if line == "MEASURING START.":
        st.measuring_started = True
        st.reach("measuring")
        return True
    m = _RAMPUP.match(line)
    if m:
        st.rampup_s = int64_or_none(m.group(1))
        st.reach("rampup")
        return True
    m = _STOPPING.match(line)
    if m:
        st.threads_stopped = len(m.group(1))
        st.reach("stopping")
        rest = m.group(2).strip()
        if rest:  # a thread's error text glued to the dots
            st.problem(number, "text after STOPPING THREADS dots")
        return True
    m = _IN_SEC.match(line)
    if m:
        st.in_sec = int64_or_none(m.group(1))
        st.reach("raw_results")
        return True
    m = _CC_LINE.match(line)
    if m:
        _cc_line(st, m)
        st.reach("constraint_check")
        return True
    if st.phase == "rt90":
        m = _RT90_LINE.match(line)
        if m:
            st.rt90[_TX_INDEX[m.group(1)]] = {"rt90_ms": finite_or_none(m.group(2)), "max_rt_ms": finite_or_none(m.group(3))}
            return True
    if st.phase == "rt_histogram" and _RT_HIST_TYPE.match(line):
        return True
    m = _ERROR_AT.match(line)
    if m:
        if m.group(1) == "main":
            st.error_at_main = True
        else:
            st.thread_errors += 1
        st.recognized = True
        return True
    if line.startswith("Usage: tpcc_start") or line.startswith("usage: tpcc_start"):
        st.usage = True
        st.recognized = True
        return True
    if line.startswith("non-option ARGV-elements:"):
        # May hold the password (positional use): never echoed.
        st.problem(number, "non-option arguments printed by tpcc_start (not stored)")
        return True
    if line.startswith("?? getopt returned"):
        st.problem(number, "tpcc_start did not understand an option")
        return True
    m = _LOCAL_START.match(line)
    if m:
        st.start_time_text = m.group(1).strip() or None
        st.recognized = True
        return True
    if st.tpmc_seen:
        m = _SUMMARY_PCT.match(line)
        if m:
            label = m.group(1).lower().replace("%", "").replace("p", "")
            key = {"95": "summary_p95_ms", "99": "summary_p99_ms", "999": "summary_p999_ms",
                   "99.9": "summary_p999_ms"}[label]
            st.summary[key] = finite_or_none(m.group(2))
            return True
        m = _LABEL_VALUE.match(line)
        if m:
            st.extra[m.group(1).strip()] = m.group(2).strip()
            st.problem(number, "fork-specific line after <TpmC> kept in extra_fields_json")
            return True
    return False


def _shown(text: str, limit: int) -> str:
    """A line quoted in an issue, unless it is (part of) the password echo: those never are."""
    if "[pass]" in text or text.startswith("option p"):
        return "(text not shown: it holds the [pass] value)"
    return text[:limit]


def _flush_unknown(st: _State, result: ParseResult) -> None:
    if not st.unknown:
        return
    first_line, first_text = st.unknown[0]
    count = len(st.unknown)
    what = "unrecognized line" if count == 1 else f"{count} unrecognized lines"
    result.warn(first_line, f"skipped {what}: {_shown(first_text, 120)}")
    st.unknown = []


# --------------------------------------------------------------------------- blocks


def _param_line(st: _State, m: re.Match, number: int, result: ParseResult) -> None:
    key, value = m.group(1), (m.group(2) or "").strip()
    st.reach("parameters")
    if key == "pass":
        if value:
            st.secrets.append(value)
        return
    if key in ("server", "port", "DBname", "user", "warehouse", "connection", "rampup", "measure"):
        if key in ("rampup", "measure"):
            value = value.split(" ", 1)[0]
        st.params[key] = value or None
    else:
        st.extra_params[f"[{key}]"] = value


def _raw_line(st: _State, m: re.Match, number: int, result: ParseResult) -> None:
    index = int64_or_none(m.group(1))
    if index is None or not 0 <= index < 5:
        st.problem(number, "Raw Results line for a transaction index outside 0..4")
        return
    block = st.raw2 if st.phase == "raw_results2" else st.raw
    if st.phase not in ("raw_results", "raw_results2"):
        st.reach("raw_results")
        block = st.raw
    block[index] = {
        "success": int64_or_none(m.group(2)), "late": int64_or_none(m.group(3)), "retry": int64_or_none(m.group(4)),
        "failure": int64_or_none(m.group(5)), "avg_rt": finite_or_none(m.group(6)) if m.group(6) else None,
        "limit": int64_or_none(m.group(7)),
    }


def _cc_line(st: _State, m: re.Match) -> None:
    index = _TX_INDEX[m.group(1)]
    entry = st.cc.setdefault(index, {})
    pct, verdict = finite_or_none(m.group(2)), m.group(4)
    if m.group(3) is not None:
        entry.update(mix_pct=pct, mix_min_pct=finite_or_none(m.group(3)), mix_verdict=verdict)
    else:
        entry.update(rt_passed_pct=pct, rt_verdict=verdict)


def _mysql_error(st: _State, m: re.Match, number: int) -> None:
    key = (m.group(1), m.group(2))
    entry = st.mysql_errors.get(key)
    if entry is None:
        st.mysql_errors[key] = [number, 1, m.group(3).strip()[:200]]
    else:
        entry[1] += 1
    st.recognized = True


# --------------------------------------------------------------------------- interval lines


def _fast_interval(st: _State, m: re.Match, number: int) -> None:
    g = m.groups()
    f = finite_or_none  # the line regex proved each a number (or nan / inf)
    row: dict[str, Any] = {
        "new_order_count": int(g[1]),
        "new_order_p95_ms": f(g[3]),
        "new_order_p99_ms": f(g[4]),
        "new_order_max_ms": f(g[5]),
        "payment_count": int(g[6]), "payment_max_ms": f(g[7]),
        "order_status_count": int(g[8]), "order_status_max_ms": f(g[9]),
        "delivery_count": int(g[10]), "delivery_max_ms": f(g[11]),
        "stock_level_count": int(g[12]), "stock_level_max_ms": f(g[13]),
    }
    _add_interval(st, int(g[0]), row, "trx-p95-p99" if g[2] else "trx-95-99-nopct", None, number)


def _generic_interval(st: _State, m: re.Match, number: int) -> bool:
    """Read an interval line of any generation; False when it is not one."""
    fields = [f.strip() for f in m.group(2).split(",")]
    late_groups, rt90_groups, pairs = [], [], []
    row: dict[str, Any] = {}
    extra: dict[str, str] = {}
    phase = None
    has_trx = has_pct = has_p999 = nopct = False
    bad = 0
    for field in fields:
        if not field:
            bad += 1
            continue
        fm = _F_PAIR.match(field)
        if fm:
            pairs.append((int64_or_none(fm.group(1)), finite_or_none(fm.group(2))))
            continue
        fm = _F_LATE.match(field)
        if fm:
            late_groups.append(fm.groups())
            continue
        fm = _F_RT90.match(field)
        if fm:
            rt90_groups.append(fm.groups())
            continue
        if _F_LABELS.match(field):
            for label, value in _F_LABEL.findall(field):
                if label == "trx":
                    row["new_order_count"] = int64_or_none(value)
                    has_trx = True
                elif label == "max_rt":
                    row["new_order_max_ms"] = finite_or_none(value)
                elif label[0].isdigit():
                    key = _pct_key(label)
                    if key:
                        row[key] = finite_or_none(value)
                        has_pct = True
                        has_p999 = has_p999 or key == "new_order_p999_ms"
                        nopct = nopct or not label.endswith("%")
                    else:
                        extra[label] = value
                else:
                    extra[label] = value
            continue
        if _F_WORD.match(field):
            if field.lower() in ("rampup", "measure"):
                phase = field.lower()
            else:
                extra[field] = ""
            continue
        bad += 1
    groups = late_groups or rt90_groups
    if not (has_trx or groups or pairs):
        return False  # not an interval line (e.g. a number followed by prose)
    if late_groups and rt90_groups:
        st.problem(number, "interval line mixes count(late):rt90 and count:rt90 fields")
    if groups:
        for index, g in enumerate(groups[:5]):
            key = TX_KEYS[index]
            row[f"{key}_count"] = int64_or_none(g[0])
            if late_groups:
                row[f"{key}_late_count"] = int64_or_none(g[1])
                row[f"{key}_rt90_ms"], row[f"{key}_max_ms"] = finite_or_none(g[2]), finite_or_none(g[3])
                row[f"{key}_avg_ms"] = finite_or_none(g[4])
            else:
                row[f"{key}_rt90_ms"], row[f"{key}_max_ms"] = finite_or_none(g[1]), finite_or_none(g[2])
                row[f"{key}_avg_ms"] = finite_or_none(g[3])
        if len(groups) != 5:
            st.problem(number, f"interval line has {len(groups)} transaction groups, expected 5")
        if late_groups:
            variant = "late-rt90-max" if any(g[3] is not None for g in late_groups) else "late-rt90"
        else:
            variant = "rt90-max"
    else:
        if has_pct:
            variant = "trx-95-99-nopct" if nopct else "trx-p95-p99"
            if has_p999:
                variant += "-p999"
        elif has_trx:
            variant = "trx-max"
        else:
            variant = "pairs-only"
        if len(pairs) != 4:
            st.problem(number, f"interval line has {len(pairs)} count|max pairs, expected 4")
    if not groups or len(groups) < 5:
        for index, (count, max_ms) in enumerate(pairs[:4], start=1):
            key = TX_KEYS[index]
            row[f"{key}_count"], row[f"{key}_max_ms"] = count, max_ms
    if phase:
        variant += "-phase"
    if extra:
        row["extra_fields_json"] = json.dumps(extra, sort_keys=True)
    if bad:
        st.problem(number, "interval line has fields that could not be read")
    _add_interval(st, int64_or_none(m.group(1)), row, variant, phase, number)
    return True


def _add_interval(st: _State, elapsed: int | None, row: dict, variant: str, phase: str | None,
                  number: int) -> None:
    # Upstream prints intervals only after MEASURING START; a line between RAMP-UP and
    # MEASURING START comes from a fork that reports ramp-up too.
    is_rampup = phase == "rampup" or (phase is None and st.rampup_s is not None and not st.measuring_started)
    if elapsed is None:
        interval_s = None
    elif st.prev_elapsed is None:
        interval_s = elapsed if elapsed > 0 else None
    elif elapsed > st.prev_elapsed:
        interval_s = elapsed - st.prev_elapsed
    else:
        interval_s = None
        st.problem(number, "elapsed seconds do not increase from the previous interval line")
    if elapsed is not None:
        st.prev_elapsed = elapsed
    mixed = _is_first_measured(st, is_rampup)
    row.update(interval_index=len(st.intervals),
               elapsed_s=None if elapsed is None else float(elapsed),
               interval_s=None if interval_s is None else float(interval_s),
               is_rampup_mixed=mixed, is_rampup=is_rampup)
    st.intervals.append(row)
    st.variants[variant] = st.variants.get(variant, 0) + 1
    st.recognized = True
    if st.reached < _PHASE_RANK["measuring"] and not is_rampup:
        st.reach("measuring")


def _is_first_measured(st: _State, is_rampup: bool) -> bool:
    """is_rampup_mixed of a line (or of the first of a block of lines with this is_rampup)."""
    if is_rampup:
        st.seen_rampup_lines = True
        return False
    if st.flagged_mixed:
        return False
    st.flagged_mixed = True
    return not st.seen_rampup_lines


def _add_run(st: _State, kind: _LineKind, numbers: list[int], groups: list[tuple]) -> None:
    """_add_interval for consecutive lines of one _KINDS shape, a column at a time."""
    n = len(groups)
    elapsed = list(map(int, map(itemgetter(0), groups)))
    prev = st.prev_elapsed
    steps = list(map(sub, elapsed[1:], elapsed))
    if (prev is None or elapsed[0] > prev) and (not steps or min(steps) > 0):
        first = elapsed[0] if prev is None else elapsed[0] - prev
        intervals = [float(first) if first > 0 else None]
        intervals += map(float, steps)
    else:
        intervals = _steps_one_by_one(st, elapsed, numbers)
    st.prev_elapsed = elapsed[-1]
    if kind.phase_group is None:
        rampup = [st.rampup_s is not None and not st.measuring_started] * n
    else:
        rampup = [g[kind.phase_group] == "rampup" for g in groups]
    mixed = [False] * n
    if not st.flagged_mixed and not all(rampup):
        at = rampup.index(False)
        st.flagged_mixed = True
        mixed[at] = not (st.seen_rampup_lines or any(rampup[:at]))
    if any(rampup):
        st.seen_rampup_lines = True
    start = len(st.intervals)
    columns = kind.read(groups)
    columns.update(interval_index=list(range(start, start + n)), elapsed_s=list(map(float, elapsed)),
                   interval_s=intervals, is_rampup_mixed=mixed, is_rampup=rampup)
    st.intervals.add_columns(columns, n)
    if kind.variant is not None:
        st.variants[kind.variant] = st.variants.get(kind.variant, 0) + n
    else:
        with_pct = [g[2] for g in groups].count("%")
        counts = {"trx-p95-p99": with_pct, "trx-95-99-nopct": n - with_pct}
        order = ("trx-p95-p99", "trx-95-99-nopct") if groups[0][2] else ("trx-95-99-nopct", "trx-p95-p99")
        for variant in order:
            if counts[variant]:
                st.variants[variant] = st.variants.get(variant, 0) + counts[variant]
    st.recognized = True
    if st.reached < _PHASE_RANK["measuring"] and not all(rampup):
        st.reach("measuring")


def _steps_one_by_one(st: _State, elapsed: list[int], numbers: Iterable[int]) -> list[float | None]:
    """interval_s of lines whose elapsed values do not all increase: _add_interval's rule and warning."""
    prev, intervals = st.prev_elapsed, []
    for e, number in zip(elapsed, numbers):
        if prev is None:
            intervals.append(float(e) if e > 0 else None)
        elif e > prev:
            intervals.append(float(e - prev))
        else:
            intervals.append(None)
            st.problem(number, "elapsed seconds do not increase from the previous interval line")
        prev = e
    return intervals


def _add_block(st: _State, block: str, n: int, variant: str, first_number: int) -> None:
    """_add_run(st, _K_CURRENT, ...) for the n lines of a block of one variant that _BLOCKS
    accepted, read into Arrow columns (see _BLOCKS)."""
    data = block.encode("ascii").translate(_TO_CSV)  # _BLOCKS accept ASCII only
    # One read block for all the data: every column comes as one chunk
    read_options = pa_csv.ReadOptions(use_threads=False, column_names=_CSV_NAMES, block_size=len(data) + 1)
    table = pa_csv.read_csv(pa.py_buffer(data), read_options=read_options, parse_options=_CSV_PARSE,
                            convert_options=_CSV_CONVERT)
    if table.num_rows != n:
        raise RuntimeError(f"lines {first_number}-{first_number + n - 1}: read {table.num_rows} rows of {n}")
    elapsed = table.column("f0").combine_chunks()
    first, prev = elapsed[0].as_py(), st.prev_elapsed
    steps = pc.subtract(elapsed.slice(1), elapsed.slice(0, n - 1))  # < 10**18: no overflow
    if (prev is None or first > prev) and (n == 1 or pc.min(steps).as_py() > 0):
        head = first if prev is None else first - prev
        # float(int) rounds to nearest like the cast; safe=False only allows that rounding
        intervals = pa.concat_arrays([pa.array([float(head) if head > 0 else None], pa.float64()),
                                      steps.cast(pa.float64(), safe=False)])
    else:
        intervals = pa.array(_steps_one_by_one(st, elapsed.to_pylist(), range(first_number, first_number + n)),
                             pa.float64())
    st.prev_elapsed = elapsed[-1].as_py()
    # No phase word in this shape: the whole block is ramp-up or none of it is (see _add_interval).
    rampup = st.rampup_s is not None and not st.measuring_started
    mixed = _is_first_measured(st, rampup)
    start = len(st.intervals)
    columns = {col: table.column(f"f{i}").combine_chunks() for i, col in _BLOCK_FIELDS}
    columns.update(
        interval_index=pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), n), start=start - 1),
        elapsed_s=elapsed.cast(pa.float64(), safe=False),
        interval_s=intervals,
        is_rampup_mixed=pa.concat_arrays([pa.array([mixed]), pa.repeat(False, n - 1)]),
        is_rampup=pa.repeat(rampup, n),
    )
    st.intervals.add_columns(columns, n)
    st.variants[variant] = st.variants.get(variant, 0) + n
    st.recognized = True
    if st.reached < _PHASE_RANK["measuring"] and not rampup:
        st.reach("measuring")


# --------------------------------------------------------------------------- results


_GENERATION = {
    "trx-p95-p99": "current", "trx-95-99-nopct": "current", "trx-max": "2016-02",
    "rt90-max": "2016-02", "late-rt90-max": "2011-2012", "late-rt90": "pre-2011",
}


def _generation(variant: str | None) -> str | None:
    if variant is None:
        return None
    base = variant.removesuffix("-phase").removesuffix("-p999")
    return _GENERATION.get(base, "unknown")


def _finish(st: _State, result: ParseResult, cut_last: bool) -> None:
    p = st.params
    warehouses, connections = int64_or_none(p.get("warehouse")), int64_or_none(p.get("connection"))
    rampup_s = int64_or_none(p.get("rampup"))
    if rampup_s is None:
        rampup_s = st.rampup_s
    measure_s = int64_or_none(p.get("measure"))

    # Report interval: -i when printed, else the interval lines, else the default.
    intervals = st.intervals.table() if st.intervals else None
    figures = _interval_figures(intervals)
    seen_interval = figures.seen_interval
    report_interval, source = int64_or_none(st.options.get("i")), "option"
    if report_interval is None or report_interval <= 0:
        if seen_interval:
            report_interval, source = int(seen_interval), "intervals"
        elif st.reached >= _PHASE_RANK["parameters"]:
            report_interval, source = DEFAULT_REPORT_INTERVAL_S, "default"
        else:
            report_interval, source = None, None
    elif seen_interval and seen_interval != report_interval:
        result.warn(None, f"interval lines are {seen_interval:g} s apart but -i says {report_interval} s")

    measured_s = _measured_seconds(st, figures, report_interval, result)

    # TpmC printed vs recomputed from the New-Order counts.
    tpmc_printed = finite_or_none(st.tpmc_text) if st.tpmc_text is not None else None
    no = st.raw.get(0) or st.raw2.get(0)
    tpmc_recomputed = None
    if no and no["success"] is not None and no["late"] is not None and st.in_sec:
        tpmc_recomputed = (no["success"] + no["late"]) * 60.0 / st.in_sec
    mismatch = None
    if tpmc_printed is not None and tpmc_recomputed is not None:
        # tpcc_start computes in float32 and prints 3 decimals.
        tolerance = 0.0006 + abs(tpmc_recomputed) * 1.2e-7
        mismatch = abs(tpmc_printed - tpmc_recomputed) > tolerance
        if mismatch:
            result.warn(None, f"TpmC printed {tpmc_printed:.3f} differs from (New-Order sc + lt) x 60 / "
                              f"{st.in_sec} s = {tpmc_recomputed:.3f}")

    interval_no, interval_secs = figures.new_order, figures.new_order_s
    interval_tpmc = interval_no * 60.0 / interval_secs if interval_secs else None

    variant = max(st.variants, key=st.variants.get) if st.variants else None
    if len(st.variants) > 1:
        others = ", ".join(f"{v} x{n}" for v, n in st.variants.items() if v != variant)
        result.warn(None, f"interval lines of more than one shape: mostly {variant}, also {others}")

    status, reason = _status(st, figures, cut_last, connections, no)
    result.status, result.status_reason = status, reason

    for reason_text, (line, count) in st.problems.items():
        result.warn(line, reason_text if count == 1 else f"{reason_text} ({count} lines)")
    for (errno, sqlstate), (line, count, message) in st.mysql_errors.items():
        times = "" if count == 1 else f" x{count}"
        result.warn(line, f"MySQL error {errno} ({sqlstate}){times}: {message}")

    server = p.get("server")
    run = {
        "output_generation": _generation(variant),
        "output_variant": variant,
        "status": status,
        "last_phase": _PHASES[st.reached],
        "server_host": server,
        "port": int64_or_none(p.get("port")),
        "socket_path": st.options.get("S") or None,
        "db_name": p.get("DBname"),
        "db_user": p.get("user"),
        "warehouses": warehouses,
        "connections": connections,
        "rampup_s": rampup_s,
        "measure_s": measure_s,
        "report_interval_s": report_interval,
        "report_interval_source": source,
        "options_json": json.dumps(st.options, sort_keys=True) if st.options else None,
        "start_time_text": st.start_time_text,
        "started_at": _timestamp(st.start_time_text) if st.start_time_text else None,
        "interval_count": len(st.intervals),
        "interval_new_order_count": interval_no if figures.measured else None,
        "interval_tpmc": interval_tpmc,
        "measured_s": measured_s,
        "tpmc_printed": tpmc_printed,
        "tpmc_recomputed": tpmc_recomputed,
        "tpmc_mismatch": mismatch,
        "threads_stopped": st.threads_stopped,
        "mysql_error_count": sum(e[1] for e in st.mysql_errors.values()),
        **st.summary,
        "extra_fields_json": json.dumps({**st.extra_params, **st.extra}, sort_keys=True)
        if (st.extra_params or st.extra) else None,
    }
    result.add("tpcc_runs", run)
    if intervals is not None:
        result.tables["tpcc_intervals"] = intervals
    for index in range(5):
        row = _summary_row(st, index)
        if row is not None:
            result.add("tpcc_tx_summaries", row)
    facts = {"tpcc_warehouses": warehouses, "tpcc_connections": connections,
             "tpcc_rampup_s": rampup_s, "tpcc_measure_s": measure_s}
    result.facts.update({k: v for k, v in facts.items() if v is not None})


def _measured_seconds(st: _State, figures: "_IntervalFigures", report_interval: int | None,
                      result: ParseResult) -> int | None:
    """Seconds the run really measured. tpcc_start prints `` in N sec.`` from the *planned*
    measure time (measure_time rounded down to the interval), also when the run was aborted; an
    output cut short prints none. What the run did measure is what its interval lines cover:
    that is used whenever it falls short of the printed (or planned) time by more than one
    report interval, with a warning naming both."""
    covered = int(figures.measured_s)
    if st.in_sec is not None:
        if figures.measured and covered + (report_interval or 0) < st.in_sec:
            result.warn(None, f"'in {st.in_sec} sec.' is the planned measure time, but the interval lines "
                              f"cover only {covered} s (run aborted?): measured_s = {covered}")
            return covered
        return st.in_sec
    if figures.measured:
        return covered   # output cut short: the intervals printed, not the planned time
    return 0 if st.reached >= _PHASE_RANK["measuring"] else None


@dataclass
class _IntervalFigures:
    """What _finish and _status need from the interval table."""
    measured: int = 0                    # lines that are not ramp-up lines
    seen_interval: float | None = None   # most common non-zero interval_s (first seen on a tie)
    new_order: int = 0                   # New-Order count summed over measured lines
    new_order_s: float = 0               # their interval_s, over measured lines with a count
    measured_s: float = 0                # interval_s summed over measured lines
    ran: bool = False                    # some line has a New-Order count above 0


def _interval_figures(table: Columns | None) -> _IntervalFigures:
    figures = _IntervalFigures()
    if table is None:
        return figures
    columns = table.columns
    measured = pc.invert(columns["is_rampup"])  # every row has is_rampup and interval_s
    figures.measured = pc.sum(measured).as_py() or 0
    figures.measured_s = _exact_sum(columns["interval_s"].filter(measured), 2**53)
    steps = columns["interval_s"].filter(pc.not_equal(columns["interval_s"], 0.0))  # drops nulls too
    if len(steps):
        counts = pc.value_counts(steps)  # values in order of first appearance
        figures.seen_interval = counts.field(0)[pc.index(counts.field(1), pc.max(counts.field(1))).as_py()].as_py()
    counts = columns.get("new_order_count")
    if counts is not None:
        measured_counts = counts.filter(measured)
        figures.new_order = _exact_sum(measured_counts, 2**63)
        with_count = pc.and_(measured, pc.is_valid(counts))
        figures.new_order_s = _exact_sum(columns["interval_s"].filter(with_count), 2**53)
        figures.ran = (pc.max(counts).as_py() or 0) > 0
    return figures


def _exact_sum(values: pa.Array, limit: int) -> int | float:
    """sum() of the non-null values, as Python adds them. Arrow adds in another order, which
    gives the same result when no partial sum can reach ``limit``: 2**63 for int64 (no
    overflow), 2**53 for floats (interval_s holds whole seconds: every partial sum is exact)."""
    if values.null_count == len(values):
        return 0
    bounds = pc.min_max(values).as_py()
    if max(abs(bounds["min"]), abs(bounds["max"])) * len(values) < limit:
        return pc.sum(values).as_py()
    return sum(v for v in values.to_pylist() if v is not None)


def _status(st: _State, figures: _IntervalFigures, cut_last: bool, connections: int | None,
            no: dict | None) -> tuple[str, str | None]:
    first_error = None
    if st.mysql_errors:
        (errno, sqlstate), (_, _, message) = min(st.mysql_errors.items(), key=lambda kv: kv[1][0])
        first_error = f"{errno} ({sqlstate}) {message}"
    if st.error_at_main:
        return "failed", "tpcc_start: error at main" + (f": {first_error}" if first_error else "")
    if st.usage and st.reached < _PHASE_RANK["parameters"]:
        return "failed", "tpcc_start printed its usage (bad or missing option)"
    ran = figures.ran
    if no and ((no["success"] or 0) + (no["late"] or 0)) > 0:
        ran = True
    all_failed = bool(connections) and st.thread_errors >= connections
    if st.thread_errors and not ran and (all_failed or st.tpmc_seen or st.reached >= _PHASE_RANK["measuring"]):
        return "failed", (f"{st.thread_errors} thread(s) failed (error at thread_main)"
                          + (f": {first_error}" if first_error else "") + "; no transaction ran")
    if st.tpmc_seen:
        return "complete", None
    cut = " (last line cut short: no newline at the end)" if cut_last else ""
    phase = _PHASES[st.reached]
    if phase in ("header", "parameters"):
        why = "output ends before RAMP-UP TIME"
    elif phase == "rampup":
        why = "output ends during ramp-up (no MEASURING START)"
    elif phase == "measuring":
        n = figures.measured
        why = ("output ends right after MEASURING START" if n == 0
               else f"output ends during measurement after {n} interval line(s)")
    elif phase == "stopping":
        stopped = st.threads_stopped or 0
        of = f" of {connections}" if connections else ""
        why = f"output ends while stopping threads ({stopped}{of} stopped)"
    else:
        why = f"output ends in {phase.replace('_', ' ')} (no <TpmC>)"
    return "incomplete", why + cut


def _summary_row(st: _State, index: int) -> dict | None:
    raw, raw2, cc, rt90 = st.raw.get(index), st.raw2.get(index), st.cc.get(index), st.rt90.get(index)
    if not (raw or raw2 or cc or rt90):
        return None
    row: dict[str, Any] = {"tx_index": index, "tx_type": TX_NAMES[index]}
    if raw:
        row.update(success_count=raw["success"], late_count=raw["late"], retry_count=raw["retry"],
                   failure_count=raw["failure"], avg_rt_ms=raw["avg_rt"], rt_limit_ms=raw["limit"])
    if row.get("rt_limit_ms") is None:
        row["rt_limit_ms"] = int64_or_none(st.options.get(str(index)))
    if raw2:
        row.update(sum_success_count=raw2["success"], sum_late_count=raw2["late"],
                   sum_retry_count=raw2["retry"], sum_failure_count=raw2["failure"])
    if cc:
        row.update(cc)
    if rt90:
        row.update(rt90)
    return row


# --------------------------------------------------------------------------- password


def _scrub(result: ParseResult, secrets: list[str]) -> None:
    """Remove every printed password from everything the parser returns."""
    secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
    if not secrets:
        return
    patterns = [re.compile(re.escape(s) if len(s) >= 4 else rf"(?<![\w.]){re.escape(s)}(?![\w.])")
                for s in secrets]

    def clean(text: str) -> str:
        for pattern in patterns:
            text = pattern.sub("***", text)
        return text

    def cleaned(table: str, key: str, value: Any) -> Any:
        if isinstance(value, str):
            text = clean(value)
            if text != value:
                dropped.append(f"{table}.{key}")
                return None if value in secrets else text
        return value

    dropped: list[str] = []
    for table, rows in result.tables.items():
        if isinstance(rows, Columns):
            # tpcc_intervals: its only text column is extra_fields_json; the numbers are skipped.
            column = rows.columns.get("extra_fields_json")
            if column is not None:
                values = [cleaned(table, "extra_fields_json", v) for v in column.to_pylist()]
                rows.columns["extra_fields_json"] = pa.array(values, pa.string())
            continue
        for row in rows:
            for key, value in list(row.items()):
                row[key] = cleaned(table, key, value)
    for issue in result.issues:
        issue.reason = clean(issue.reason)
    if result.status_reason:
        result.status_reason = clean(result.status_reason)
    for key, value in list(result.facts.items()):
        if isinstance(value, str):
            result.facts[key] = clean(value)
    if dropped:
        result.warn(None, "value(s) containing the [pass] text were masked: " + ", ".join(sorted(set(dropped))))

"""go-tpc (PingCAP's TPC-C kit, ``go-tpc tpcc prepare|run|check``) output, stdout and stderr together.

Tables written (the same TPC-C tables as ``tpcc_mysql``, with ``kit = 'go-tpc'``)
-------------------------------------------------------------------------------
``tpcc_runs``          one row per ``run`` output: tpmC and efficiency as printed, tpmC
                       recomputed from the New-Order summary, measured seconds, failed
                       transactions, status. Prepare and check outputs give no row (they are not
                       results) but their status and facts (``go_tpc_phase``, warehouses loaded).
``tpcc_intervals``     one row per report interval: the ``[Current]`` lines of one interval (one
                       per transaction type that finished something) joined into one wide row:
                       ``<type>_count``, ``_avg_ms``, ``_p50/_p90/_p95/_p99/_p999_ms``, ``_max_ms``
``tpcc_tx_summaries``  one row per transaction type from ``[Summary]``: ``success_count`` (Count),
                       ``failure_count`` (Count of its ``<TYPE>_ERR`` line), avg / percentiles / max,
                       ``elapsed_s`` (Takes) and ``tpm_printed``

Line shapes (v1.0.7, ``cmd/go-tpc`` + ``pkg/measurement``)::

    [Current] NEW_ORDER - Takes(s): 5.0, Count: 973, TPM: 11721.3, Sum(ms): 9544.8, Avg(ms): 9.8,
        50th(ms): 7.9, 90th(ms): 17.8, 95th(ms): 24.1, 99th(ms): 48.2, 99.9th(ms): 113.2, Max(ms): 130.0
    [Summary] NEW_ORDER_ERR - Takes(s): 20.0, Count: 1, TPM: 3.0, ...
    tpmC: 14247.1, efficiency: 110786.2%
    Got signal [interrupt] to exit.            (a run stopped early: its summary covers less time)
    [2026-11-26 12:00:19] execute run failed, err ...   (each error is printed twice: with and
    execute run failed, err ...                          without the time stamp; counted once)
    creating table warehouse / load to item / load to customer in warehouse 1 district 2
    begin to check warehouse 1 at condition 3.3.2.4 / Finished
    panic: failed to connect to database when loading data  (+ a Go stack trace)

Status: ``complete`` when the ``tpmC:`` line is there (run) or ``Finished`` ends a prepare /
check; ``incomplete`` when the output stops before that (killed: the ``[Current]`` rows that
exist are kept, ``interval_tpmc`` is the only throughput; a line cut mid-way matches no
layout, since every layout ends in a field only a whole line has, and is skipped with a warning) or when a signal stopped the run early
(``Got signal``: the summary is real but shorter than asked); ``failed`` on ``panic:`` or when
no transaction succeeded.

go-tpc has no ramp-up and prints no parameters: warehouses and threads come from the manifest
(``[tpcc]`` of ``run.toml``). ``measured_s`` is New-Order's Takes(s) rounded to whole seconds;
``tpmc_recomputed`` = New-Order Count x 60 / Takes(s), which matches tpmC to the rounding of
Takes (0.05 s): a difference beyond that sets ``tpmc_mismatch``.

Example
-------
>>> out = ("[Current] NEW_ORDER - Takes(s): 5.0, Count: 100, TPM: 1200.0, Sum(ms): 500.0, Avg(ms): 5.0, "
...        "50th(ms): 4.0, 90th(ms): 8.0, 95th(ms): 9.0, 99th(ms): 12.0, 99.9th(ms): 15.0, Max(ms): 16.0\\n"
...        "Finished\\n"
...        "[Summary] NEW_ORDER - Takes(s): 10.0, Count: 200, TPM: 1200.0, Sum(ms): 1000.0, Avg(ms): 5.0, "
...        "50th(ms): 4.0, 90th(ms): 8.0, 95th(ms): 9.0, 99th(ms): 12.0, 99.9th(ms): 15.0, Max(ms): 16.0\\n"
...        "tpmC: 1200.0, efficiency: 9331.3%\\n")
>>> r = parse(out)
>>> run = r.tables["tpcc_runs"][0]
>>> (r.status, run["kit"], run["tpmc_printed"], run["tpmc_recomputed"], run["measured_s"])
('complete', 'go-tpc', 1200.0, 1200.0, 10)
>>> [(i["elapsed_s"], i["new_order_count"], i["new_order_p99_ms"]) for i in r.tables["tpcc_intervals"]]
[(5.0, 100, 12.0)]
"""

from __future__ import annotations

import re
from typing import Any

from iopscope.parsers.base import ParseError, ParseResult

NAME = "go_tpc"
VERSION = "1.0.0"
TOOL = "go-tpc"
KIT = "go-tpc"

# go-tpc's operation names -> the TPC-C names and keys tpcc-mysql's tables use
TX = {"NEW_ORDER": ("new_order", "New-Order", 0), "PAYMENT": ("payment", "Payment", 1),
      "ORDER_STATUS": ("order_status", "Order-Status", 2), "DELIVERY": ("delivery", "Delivery", 3),
      "STOCK_LEVEL": ("stock_level", "Stock-Level", 4)}

_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|NaN|[-+]?Inf)"
_FIELDS = (("elapsed_s", "Takes\\(s\\)"), ("count", "Count"), ("tpm", "TPM"), ("sum_ms", "Sum\\(ms\\)"),
           ("avg_ms", "Avg\\(ms\\)"), ("p50_ms", "50th\\(ms\\)"), ("p90_ms", "90th\\(ms\\)"),
           ("p95_ms", "95th\\(ms\\)"), ("p99_ms", "99th\\(ms\\)"), ("p999_ms", "99\\.9th\\(ms\\)"),
           ("max_ms", "Max\\(ms\\)"))
_OP_LINE = re.compile(r"^\[(Current|Summary)\] ([A-Z_]+) - "
                      + ", ".join(rf"{label}: (?P<{key}>{_NUM})" for key, label in _FIELDS) + r"\s*$")
_OP_START = re.compile(r"^\[(Current|Summary)\] ")
_TPMC = re.compile(rf"^tpmC: ({_NUM}), efficiency: ({_NUM})%\s*$")
_TPMC_ONLY = re.compile(rf"^tpmC: ({_NUM}),")  # the efficiency cut off: the comma proves the number whole
_SIGNAL = re.compile(r"^Got signal \[(\w+)\] to exit\.\s*$")
_ERROR = re.compile(r"^(?:\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] )?(execute \w+ failed, err .*|.*\bfailed\b.*err.*)$")
_PANIC = re.compile(r"^panic: (.*)$")
_CREATE = re.compile(r"^creating table (\w+)\s*$")
_LOAD = re.compile(r"^load to (\w+)(?: in warehouse (\d+)(?: district (\d+))?)?\s*$")
_CHECK = re.compile(r"^begin to check warehouse (\d+) at condition ([\d.]+)\s*$")
_STACK = re.compile(r"^(?:goroutine \d+ \[|\t|\S+\(.*\)$|created by |exit status \d+$)")


def detect(head: str, filename: str) -> float:
    lines = head.splitlines()[:200]
    if not lines:
        return 0.0
    ops = sum(1 for ln in lines if _OP_LINE.match(ln))
    if ops:
        return 0.98
    if any(_TPMC.match(ln) for ln in lines):
        return 0.95
    prep = sum(1 for ln in lines if _CREATE.match(ln) or _LOAD.match(ln) or _CHECK.match(ln))
    if prep >= 2 or (prep and "go-tpc" in filename):
        return 0.9
    if any(_PANIC.match(ln) for ln in lines) and "github.com/pingcap/go-tpc" in head:
        return 0.95  # a panic with go-tpc's own stack trace
    if "go-tpc" in filename and any(_PANIC.match(ln) or _ERROR.match(ln) for ln in lines):
        return 0.8
    return 0.0


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


class _State:
    def __init__(self) -> None:
        self.intervals: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.summary: dict[str, dict[str, Any]] = {}
        self.errors_summary: dict[str, dict[str, Any]] = {}
        self.tpmc: float | None = None
        self.efficiency: float | None = None
        self.finished = False
        self.signal: str | None = None
        self.panic: str | None = None
        self.panic_line: int | None = None
        self.error_lines: dict[str, tuple[int, int]] = {}  # message -> (first line, count)
        self.last_stamped_error: str | None = None
        self.tables_created: list[str] = []
        self.loaded_warehouses: set[int] = set()
        self.checked_warehouses: set[int] = set()
        self.check_conditions: set[str] = set()
        self.unknown: list[int] = []
        self.interval_takes: list[float] = []


def _interval_row(st: _State, op: str, values: dict[str, float | None], line: int) -> None:
    key = TX[op][0]
    if st.current is None or f"{key}_count" in st.current:
        st.current = {"interval_index": len(st.intervals), "is_rampup_mixed": False, "is_rampup": False}
        st.intervals.append(st.current)
        st.interval_takes = []
    row = st.current
    count = values["count"]
    row[f"{key}_count"] = int(count) if count is not None else None
    for field in ("avg_ms", "max_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms"):
        row[f"{key}_{field}"] = values[field]
    if values["elapsed_s"] is not None:
        st.interval_takes.append(values["elapsed_s"])
        # the interval's length: the longest Takes(s) of its lines (a type that finished
        # nothing near the end reports a little less)
        length = max(st.interval_takes)
        start = st.intervals[-2]["elapsed_s"] if len(st.intervals) > 1 else 0.0
        row["interval_s"] = length
        row["elapsed_s"] = round(start + length, 3)


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    st = _State()
    lines = text.splitlines()
    saw_anything = False
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        m = _OP_LINE.match(line)
        if m:
            saw_anything = True
            kind, op = m.group(1), m.group(2)
            values = {key: _number(m.group(key)) for key, _ in _FIELDS}
            base, is_err = (op[:-4], True) if op.endswith("_ERR") else (op, False)
            if base not in TX:
                result.warn(number, f"unknown transaction type {op!r}: line skipped")
                continue
            if kind == "Current":
                if is_err:
                    result.warn(number, f"[Current] {op} line: failed transactions per interval are not a column; "
                                        "the [Summary] _ERR line counts them")
                    continue
                _interval_row(st, base, values, number)
            else:
                (st.errors_summary if is_err else st.summary)[base] = values
            continue
        if _OP_START.match(line):
            saw_anything = True
            result.warn(number, "[Current]/[Summary] line in an unknown layout: skipped")
            continue
        m = _TPMC.match(line)
        if m:
            saw_anything = True
            st.tpmc, st.efficiency = _number(m.group(1)), _number(m.group(2))
            continue
        m = _TPMC_ONLY.match(line)
        if m:
            saw_anything = True
            st.tpmc = _number(m.group(1))
            result.warn(number, "tpmC line without its efficiency (cut short?)")
            continue
        if line.strip() == "Finished":
            st.finished = True
            continue
        m = _SIGNAL.match(line)
        if m:
            st.signal = m.group(1)
            continue
        m = _PANIC.match(line)
        if m:
            saw_anything = True
            if st.panic is None:
                st.panic, st.panic_line = m.group(1), number
            continue
        m = _CREATE.match(line)
        if m:
            saw_anything = True
            st.tables_created.append(m.group(1))
            continue
        m = _LOAD.match(line)
        if m:
            saw_anything = True
            if m.group(2):
                st.loaded_warehouses.add(int(m.group(2)))
            continue
        m = _CHECK.match(line)
        if m:
            saw_anything = True
            st.checked_warehouses.add(int(m.group(1)))
            st.check_conditions.add(m.group(2))
            continue
        m = _ERROR.match(line)
        if m:
            saw_anything = True
            message = m.group(2)
            if m.group(1) is None and message == st.last_stamped_error:
                st.last_stamped_error = None  # the unstamped echo of the line before
                continue
            st.last_stamped_error = message if m.group(1) else None
            first, count = st.error_lines.get(message, (number, 0))
            st.error_lines[message] = (first, count + 1)
            continue
        if st.panic is not None and _STACK.match(line):
            continue  # the panic's Go stack trace
        st.unknown.append(number)
    if not saw_anything:
        raise ParseError("no go-tpc line ([Current]/[Summary], tpmC:, prepare or check output, panic)")
    _finish(st, result)
    return result


def _finish(st: _State, result: ParseResult) -> None:
    if st.unknown:
        n = len(st.unknown)
        result.warn(st.unknown[0], "line not in go-tpc's output layout: skipped" + (f" ({n} lines)" if n > 1 else ""))
    total_errors = 0
    for message, (line, count) in st.error_lines.items():
        total_errors += count
        result.warn(line, f"go-tpc error{'' if count == 1 else f' x{count}'}: {message[:300]}")
    is_run = bool(st.intervals or st.summary or st.errors_summary or st.tpmc is not None)
    if not is_run:
        _finish_prepare_or_check(st, result)
        return
    no = st.summary.get("NEW_ORDER")
    measured = no["elapsed_s"] if no else None
    recomputed = None
    mismatch = None
    if no and no["count"] is not None and measured:
        recomputed = no["count"] * 60.0 / measured
        if st.tpmc is not None:
            # Takes(s) is printed to 0.1 s: tpmC = Count x 60 / the exact seconds
            low, high = no["count"] * 60.0 / (measured + 0.05), no["count"] * 60.0 / max(measured - 0.05, 1e-9)
            mismatch = not (low - 0.05 <= st.tpmc <= high + 0.05)
            if mismatch:
                result.warn(None, f"tpmC printed {st.tpmc} is not New-Order Count {int(no['count'])} x 60 / "
                                  f"{measured} s (= {recomputed:.1f}) within the rounding of Takes(s)")
    interval_no = sum(i.get("new_order_count") or 0 for i in st.intervals)
    interval_s = sum(i.get("interval_s") or 0 for i in st.intervals if i.get("new_order_count") is not None)
    failures = sum(int(v["count"] or 0) for v in st.errors_summary.values())
    succeeded = sum(int(v["count"] or 0) for v in st.summary.values()) + interval_no
    status, reason = "complete", None
    if st.panic is not None:
        status, reason = "failed", f"go-tpc panic: {st.panic[:500]}"
    elif succeeded == 0:
        first = next(iter(st.error_lines), None)
        status, reason = "failed", ("no transaction succeeded" + (f" ({failures} failed)" if failures else "")
                                    + (f": {first[:300]}" if first else ""))
    elif st.tpmc is None:
        status, reason = "incomplete", (f"output ends after {len(st.intervals)} interval(s) without [Summary] "
                                        "and tpmC (the run was killed or cut)")
    elif st.signal is not None:
        status, reason = "incomplete", (f"go-tpc got signal {st.signal} and stopped early: the summary covers "
                                        f"{measured} s")
    result.status, result.status_reason = status, reason
    last_phase = ("tpmc" if st.tpmc is not None else "summary" if st.summary or st.errors_summary
                  else "measuring" if st.intervals else "header")
    run = {
        "kit": KIT,
        "output_generation": "go-tpc",
        "output_variant": "current-summary",
        "status": status,
        "last_phase": last_phase,
        "rampup_s": 0,
        "report_interval_s": _report_interval(st),
        "report_interval_source": "intervals" if st.intervals else None,
        "interval_count": len(st.intervals),
        "interval_new_order_count": interval_no if st.intervals else None,
        "interval_tpmc": interval_no * 60.0 / interval_s if interval_s else None,
        "measured_s": int(round(measured)) if measured is not None else None,
        "tpmc_printed": st.tpmc,
        "tpmc_recomputed": recomputed,
        "tpmc_mismatch": mismatch,
        "threads_stopped": None,
        "mysql_error_count": sum(c for _, c in st.error_lines.values()),
        "summary_p95_ms": no["p95_ms"] if no else None,
        "summary_p99_ms": no["p99_ms"] if no else None,
        "summary_p999_ms": no["p999_ms"] if no else None,
        "efficiency_pct": st.efficiency,
        "error_txn_count": failures if (st.summary or st.errors_summary) else None,
    }
    result.add("tpcc_runs", run)
    if st.intervals:
        result.tables["tpcc_intervals"] = st.intervals
    for op in sorted(set(st.summary) | set(st.errors_summary), key=lambda o: TX[o][2]):
        key, name, index = TX[op]
        ok, err = st.summary.get(op), st.errors_summary.get(op)
        row: dict[str, Any] = {"tx_index": index, "tx_type": name,
                               "success_count": int(ok["count"]) if ok and ok["count"] is not None else 0,
                               "failure_count": int(err["count"]) if err and err["count"] is not None else 0}
        if ok:
            row.update(avg_rt_ms=ok["avg_ms"], max_rt_ms=ok["max_ms"], elapsed_s=ok["elapsed_s"],
                       tpm_printed=ok["tpm"], p50_ms=ok["p50_ms"], p90_ms=ok["p90_ms"], p95_ms=ok["p95_ms"],
                       p99_ms=ok["p99_ms"], p999_ms=ok["p999_ms"])
        if err:
            row.update(failure_avg_rt_ms=err["avg_ms"], failure_max_rt_ms=err["max_ms"])
        result.add("tpcc_tx_summaries", row)
    result.facts["go_tpc_phase"] = "run"


def _report_interval(st: _State) -> int | None:
    lengths = [round(i["interval_s"]) for i in st.intervals[:-1] if i.get("interval_s")]
    if not lengths:
        lengths = [round(i["interval_s"]) for i in st.intervals if i.get("interval_s")]
    return max(set(lengths), key=lengths.count) if lengths else None


def _finish_prepare_or_check(st: _State, result: ParseResult) -> None:
    phase = "check" if st.check_conditions and not st.tables_created and not st.loaded_warehouses else (
        "prepare" if st.tables_created or st.loaded_warehouses else "unknown")
    result.facts["go_tpc_phase"] = phase
    if st.loaded_warehouses:
        result.facts["tpcc_warehouses"] = max(st.loaded_warehouses)
    if st.tables_created:
        result.facts["go_tpc_tables_created"] = len(st.tables_created)
    if st.check_conditions:
        result.facts["go_tpc_check_conditions"] = len(st.check_conditions)
    if st.panic is not None:
        result.status, result.status_reason = "failed", f"go-tpc panic: {st.panic[:500]}"
    elif st.error_lines:
        result.status, result.status_reason = "failed", f"go-tpc {phase} reported errors: {next(iter(st.error_lines))[:300]}"
    elif not st.finished:
        result.status, result.status_reason = "incomplete", f"{phase} output ends without 'Finished' (cut short)"

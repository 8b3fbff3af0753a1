"""HammerDB TPROC-C output (v3, v4, v5): the run log, the time profile report and jobs JSON.

HammerDB's TPC-C derived workload prints two rates (the HammerDB docs insist on both):

* **NOPM**, New Orders Per Minute, counted from the schema (district next-order ids) at the
  start and end of the timed run. It is a New-Order rate like tpcc-mysql's TpmC or go-tpc's
  tpmC, but with HammerDB's own mix, keying and think times: compare it with another kit's
  figure only with care, never as a quotient (the kit is a comparison key in the warehouse).
* **TPM**, the database engine's own count of commits and rollbacks per minute (MySQL's
  ``Com_commit + Com_rollback``, PostgreSQL's ``xact_commit + xact_rollback``, ...). Each engine
  counts differently: TPM is kept in its own column with the engine's name and is never
  compared across engines.

Inputs read (one parser, detected by content)
---------------------------------------------
* **run log** (``hammerdb.log`` or the CLI's console, lines prefixed ``Vuser N:`` and, in a
  captured console, ``hammerdb>``): ``Beginning rampup time of R minutes``, ``Rampup complete,
  Taking start Transaction Count.``, ``Timing test period of M in minutes``, the monitor's
  minute ticks ``1 ...,``, ``Test complete, Taking end Transaction Count.``, ``N Active Virtual
  Users configured`` (v3 before 3.2: ``N Virtual Users configured``, the monitor included), the
  result line, ``FINISHED SUCCESS`` / ``FINISHED FAILED`` per virtual user, ``ALL VIRTUAL USERS
  COMPLETE``, ``Benchmark Run jobid=...`` (v4.6+), ``HammerDB CLI v4.6`` banner. Result line:

  - v4 and later: ``TEST RESULT : System achieved 37366 NOPM from 86895 SQL Server TPM``
  - v3 (and v4+ with ``first_result`` = TPM): ``TEST RESULT : System achieved 86895 SQL Server
    TPM at 37366 NOPM``
* **time profile report** (``hdbxtprofile.log``, v4+ ``xtprof``): per virtual user
  ``>>>>> VIRTUAL USER 2 : ELAPSED TIME : 60017ms`` then per stored procedure ``>>>>> PROC:
  NEWORD`` / ``CALLS: n  MIN: x ms  AVG:  MAX:  TOTAL:`` / ``P99:  P95:  P50:  SD:  RATIO: r%``
  (tab separated; v5 may add ``P75:`` / ``P25:``), then ``>>>>> SUMMARY OF N ACTIVE VIRTUAL
  USERS : MEDIAN ELAPSED TIME : tms`` with the same block over all users. The summary gives the
  per-transaction rows; the per-user blocks are counted (facts) but not tabled.
* **jobs JSON** (v4.6+ ``jobs <id> result`` / ``jobs <id> timing`` with ``jobsoutput`` JSON, or
  the web service): a JSON document whose strings are log lines (``TEST RESULT ...``) and
  whose objects keyed by procedure (``NEWORD`` ...) hold ``calls``, ``min_ms``, ``avg_ms``,
  ``max_ms``, ``total_ms``, ``p99_ms``, ``p95_ms``, ``p50_ms``, ``sd``, ``ratio_pct``,
  ``elapsed_ms`` (numbers or numeric strings).

Tables written (the TPC-C tables, ``kit = 'hammerdb'``)
-------------------------------------------------------
``tpcc_runs``          one row per file. A time profile or jobs timing alone gives a row with
                       ``last_phase = 'profile'`` and no rate (the rate is in the run's log;
                       the warehouse keeps such rows out of results). A log gives: ``tpmc_printed`` = NOPM,
                       ``engine_tpm_printed`` = TPM with ``engine_tpm_name`` (``MySQL``,
                       ``PostgreSQL``, ``SQL Server``, ``Oracle`` ...), ``connections`` = active
                       virtual users, ``rampup_s`` / ``measure_s`` from the timed-run lines,
                       ``measured_s`` = ticks seen x 60 (the NOPM's own divisor is the planned
                       minutes), status. ``tpmc_recomputed`` stays null: HammerDB prints no
                       count to recompute NOPM from.
``tpcc_tx_summaries``  one row per procedure of the time profile summary: NEWORD -> New-Order,
                       PAYMENT, OSTAT -> Order-Status, DELIVERY, SLEV -> Stock-Level;
                       ``success_count`` = CALLS, ``min_rt_ms``, ``avg_rt_ms``, ``max_rt_ms``,
                       ``p50_ms``, ``p95_ms``, ``p99_ms``, ``time_share_pct`` = RATIO,
                       ``elapsed_s``. Calls span the whole virtual-user lifetime (ramp-up
                       included), so they do not recompute NOPM. SD is in clock clicks, not
                       ms, and is not kept.

Status: ``complete`` with a result line and no failed virtual user; ``failed`` when a virtual
user says ``FINISHED FAILED`` or an error ends the run without a result; ``incomplete`` when the
log stops before the result (the phase reached is in ``last_phase``). A time profile or jobs
timing document alone is ``complete`` when it has its summary block.

Reading is two steps: :func:`_read` collects the printed fields as text with their line numbers,
:func:`_typed` converts them (an unreadable number is an issue naming its line, never a crash).

Example
-------
>>> log = ("Hammerdb Log @ Thu Nov 26 10:00:00 UTC 2026\\n"
...        "Vuser 1:Beginning rampup time of 1 minutes\\n"
...        "Vuser 1:Rampup complete, Taking start Transaction Count.\\n"
...        "Vuser 1:Timing test period of 2 in minutes\\n"
...        "Vuser 1:1 ...,\\n"
...        "Vuser 1:2 ...,\\n"
...        "Vuser 1:Test complete, Taking end Transaction Count.\\n"
...        "Vuser 1:4 Active Virtual Users configured\\n"
...        "Vuser 1:TEST RESULT : System achieved 1203 NOPM from 2791 MariaDB TPM\\n"
...        "Vuser 1:FINISHED SUCCESS\\n"
...        "ALL VIRTUAL USERS COMPLETE\\n")
>>> r = parse(log)
>>> run = r.tables["tpcc_runs"][0]
>>> (r.status, run["kit"], run["tpmc_printed"], run["engine_tpm_printed"], run["engine_tpm_name"])
('complete', 'hammerdb', 1203.0, 2791.0, 'MariaDB')
>>> (run["connections"], run["rampup_s"], run["measure_s"], run["measured_s"], run["output_variant"])
(4, 60, 120, 120, 'nopm-from-tpm')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from iopscope.parsers._convert import number as _number, whole as _int
from iopscope.parsers.base import ParseError, ParseResult

NAME = "hammerdb"
VERSION = "1.0.0"
TOOL = "hammerdb"
KIT = "hammerdb"

# HammerDB's stored procedure names -> the TPC-C names and order tpcc-mysql's tables use
PROCS = {"NEWORD": ("New-Order", 0), "PAYMENT": ("Payment", 1), "OSTAT": ("Order-Status", 2),
         "DELIVERY": ("Delivery", 3), "SLEV": ("Stock-Level", 4)}

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
# "hammerdb>" is the CLI prompt a captured console puts before asynchronous output
_PREFIX = re.compile(r"^(?:hammerdb>\s*)*(?:Vuser (\d+):)?")
_RESULT_NOPM_FIRST = re.compile(rf"^TEST RESULT : System achieved ({_NUM}) NOPM from ({_NUM}) (.+?) TPM\s*$")
_RESULT_TPM_FIRST = re.compile(rf"^TEST RESULT : System achieved ({_NUM}) (.+?) TPM at ({_NUM}) NOPM\s*$")
_RESULT_START = re.compile(r"^TEST RESULT\b")
_RAMPUP = re.compile(r"^Beginning rampup time of (\d+) minutes?\s*$")
_RAMPUP_TICK = re.compile(r"^Rampup (\d+) minutes? complete")
_START_COUNT = re.compile(r"^Rampup complete, Taking start ")
_TIMING = re.compile(r"^Timing test period of (\d+) in minutes\s*$")
_TICK = re.compile(r"^(\d+) \.\.\.,?\s*$")
_END_COUNT = re.compile(r"^Test complete, Taking end ")
_VUSERS = re.compile(r"^(\d+) (Active )?Virtual Users configured\s*$")
_FINISHED = re.compile(r"^FINISHED (SUCCESS|FAILED)\s*$")
_ALL_DONE = re.compile(r"^ALL VIRTUAL USERS COMPLETE\s*$")
_JOBID = re.compile(r"^Benchmark Run jobid=(\w+)\s*$")
_BANNER = re.compile(r"^HammerDB (?:CLI |Web Service )?v?(\d+\.\d+(?:\.\d+)?)\b")
_LOG_HEADER = re.compile(r"^Hammerdb Log @ (.+?)\s*$")
_ERROR = re.compile(r"^(?:Error\b|.*\berror\b.*:)", re.IGNORECASE)
# Lines HammerDB prints that hold nothing to keep (virtual-user start-up, CLI echoes, AWR/
# snapshot and profiler chatter): known, so they are not reported as unknown.
_CHATTER = re.compile(
    r"^(?:Processing \d+ transactions with output suppressed|RUNNING\s*$|Initializing xtprof|"
    r"Gathering timing data|Calculating timings|Writing timing data to|Copyright |Type \"help\"|"
    r"Initialized (?:new )?(?:Jobs|SQLite)|Database set to|Benchmark set to|Value .* no change made|"
    r"Changed \S+ from .* to |Script loaded|Vuser \d+ created|Logging activated|to \S+\.log\s*$|"
    r"\d+ Virtual Users Created|Taking (?:start|end) AWR snapshot|(?:Start|End) Snapshot \d+|"
    r"Test complete: view report|Checkpoint|Vacuum|Delivery Checking|Warehouse \d+ )")
_PROF_HEADER = re.compile(r"^(.*?)\s*Hammerdb Time Profile Report @ (.+?)\s*$", re.IGNORECASE)
_PROF_VU = re.compile(r"^>>>>> VIRTUAL USER (\d+) : ELAPSED TIME : ([\d.]+)ms\s*$")
_PROF_SUMMARY = re.compile(r"^>>>>> SUMMARY OF (\d+) ACTIVE VIRTUAL USERS : MEDIAN ELAPSED TIME : ([\d.]+)ms\s*$")
_PROF_PROC = re.compile(r"^>>>>> PROC: (\w+)\s*$")
_PROF_FIELD = re.compile(r"([A-Z][A-Z0-9]*): *(\S+?)(?:ms|%)?(?=\s|$)")
_PROF_RULE = re.compile(r"^(?:\+-)+\+?\s*$")
# Keys of one procedure's fields in the profile text -> the jobs JSON names
_PROF_KEYS = {"CALLS": "calls", "MIN": "min_ms", "AVG": "avg_ms", "MAX": "max_ms", "TOTAL": "total_ms",
              "P99": "p99_ms", "P95": "p95_ms", "P75": "p75_ms", "P50": "p50_ms", "P25": "p25_ms",
              "SD": "sd", "RATIO": "ratio_pct"}


def detect(head: str, filename: str) -> float:
    if "TEST RESULT : System achieved" in head:
        return 0.98
    if ">>>>> PROC: " in head and ("CALLS:" in head or "Time Profile Report" in head):
        return 0.97
    stripped = head.lstrip("\ufeff \t\r\n")
    if stripped[:1] in "[{" and '"NEWORD"' in head and ('"calls"' in head or '"p99_ms"' in head):
        return 0.96
    if "Hammerdb Log @" in head or "Virtual Users configured" in head:
        return 0.95
    if re.search(r"^Vuser \d+:(?:Beginning rampup|Rampup complete|Timing test period)", head, re.M):
        return 0.93
    return 0.0


# ------------------------------------------------------------------------------- reading (text)


@dataclass
class _Proc:
    """One procedure of one profile block: field name -> (printed text, line)."""
    fields: dict[str, tuple[str, int]] = field(default_factory=dict)
    line: int = 0


@dataclass
class _Raw:
    """What the file prints, as text with its line numbers (no conversion yet)."""
    version: str | None = None
    log_header: str | None = None
    job_id: str | None = None
    rampup_min: tuple[str, int] | None = None
    rampup_ticks: int = 0
    started_count: bool = False
    timing_min: tuple[str, int] | None = None
    ticks: list[tuple[str, int]] = field(default_factory=list)
    ended_count: bool = False
    vusers: tuple[str, bool, int] | None = None  # (count, "Active" printed, line)
    result: tuple[str, str, str, str, int] | None = None  # (nopm, tpm, engine, variant, line)
    finished: dict[str, int] = field(default_factory=lambda: {"SUCCESS": 0, "FAILED": 0})
    all_done: bool = False
    errors: list[tuple[str, int]] = field(default_factory=list)
    profile_header: tuple[str, str] | None = None
    profile_users: int = 0
    summary: tuple[str, str, int] | None = None  # (users, median elapsed ms, line)
    summary_procs: dict[str, _Proc] = field(default_factory=dict)
    unknown: list[int] = field(default_factory=list)
    saw_anything: bool = False


def _read(text: str, raw: _Raw, line_offset: int = 0, report_unknown: bool = True) -> None:
    in_summary = False
    proc: _Proc | None = None
    in_user_block = False
    for number, line in enumerate(text.splitlines(), 1 + line_offset):
        line = line.strip().lstrip("\ufeff")
        if not line:
            continue
        if line.startswith(">>>>> "):  # the time profile report (checked first: most of a big report)
            in_summary, proc, in_user_block = _read_profile_heading(line, number, raw, in_summary)
            continue
        if in_user_block and line.startswith(("CALLS:", "P99:")):
            continue  # a virtual user's own figures: counted, not tabled
        if proc is not None and line.startswith(("CALLS:", "P99:", "P95:", "P75:", "P50:", "P25:", "SD:", "RATIO:")):
            pairs = _PROF_FIELD.findall(line)
            if pairs and all(key in _PROF_KEYS for key, _ in pairs):
                for key, value in pairs:
                    proc.fields[_PROF_KEYS[key]] = (value, number)
                continue
        m = _PREFIX.match(line)
        body = line[m.end():].strip()
        if not body:
            continue
        if _read_run_line(body, number, raw):
            raw.saw_anything = True
            continue
        m = _PROF_HEADER.match(body)
        if m:
            raw.saw_anything = True
            raw.profile_header = (m.group(1), m.group(2))
            continue
        if _PROF_RULE.match(body) or _CHATTER.match(body):
            continue
        if _ERROR.match(body):
            raw.errors.append((body, number))
            continue
        if report_unknown:  # a jobs JSON document's other strings (job id, time stamps) are not lines
            raw.unknown.append(number)


def _read_profile_heading(line: str, number: int, raw: _Raw, in_summary: bool) -> tuple[bool, _Proc | None, bool]:
    """A ``>>>>>`` line: (in the summary block, the procedure whose fields follow, in a user's block)."""
    m = _PROF_PROC.match(line)
    if m:
        raw.saw_anything = True
        if not in_summary:
            return in_summary, None, True
        proc = _Proc(line=number)
        raw.summary_procs[m.group(1).upper()] = proc
        return in_summary, proc, False
    m = _PROF_VU.match(line)
    if m:
        raw.saw_anything = True
        raw.profile_users += 1
        return False, None, True
    m = _PROF_SUMMARY.match(line)
    if m:
        raw.saw_anything = True
        raw.summary = (m.group(1), m.group(2), number)
        raw.summary_procs = {}
        return True, None, False
    if len(raw.unknown) < 10_000:
        raw.unknown.append(number)
    return in_summary, None, False


def _read_run_line(body: str, number: int, raw: _Raw) -> bool:
    """One line of the run log; True when it was one."""
    m = _RESULT_NOPM_FIRST.match(body)
    if m:
        raw.result = (m.group(1), m.group(2), m.group(3), "nopm-from-tpm", number)
        return True
    m = _RESULT_TPM_FIRST.match(body)
    if m:
        raw.result = (m.group(3), m.group(1), m.group(2), "tpm-at-nopm", number)
        return True
    if _RESULT_START.match(body):
        raw.errors.append((f"result line in an unknown layout: {body[:200]}", number))
        return True
    for pattern, action in _RUN_LINES:
        m = pattern.match(body)
        if m:
            action(raw, m, number)
            return True
    return False


def _set(attr: str, value):
    def action(raw: _Raw, m: re.Match, number: int) -> None:
        setattr(raw, attr, value(m, number))
    return action


def _add_tick(raw: _Raw, m: re.Match, number: int) -> None:
    raw.ticks.append((m.group(1), number))


def _add_finished(raw: _Raw, m: re.Match, number: int) -> None:
    raw.finished[m.group(1)] += 1


def _add_rampup_tick(raw: _Raw, m: re.Match, number: int) -> None:
    raw.rampup_ticks += 1


_RUN_LINES = (
    (_RAMPUP, _set("rampup_min", lambda m, n: (m.group(1), n))),
    (_RAMPUP_TICK, _add_rampup_tick),
    (_START_COUNT, _set("started_count", lambda m, n: True)),
    (_TIMING, _set("timing_min", lambda m, n: (m.group(1), n))),
    (_TICK, _add_tick),
    (_END_COUNT, _set("ended_count", lambda m, n: True)),
    (_VUSERS, _set("vusers", lambda m, n: (m.group(1), bool(m.group(2)), n))),
    (_FINISHED, _add_finished),
    (_ALL_DONE, _set("all_done", lambda m, n: True)),
    (_JOBID, _set("job_id", lambda m, n: m.group(1))),
    (_BANNER, _set("version", lambda m, n: m.group(1))),
    (_LOG_HEADER, _set("log_header", lambda m, n: m.group(1))),
)


# ------------------------------------------------------------------------------- reading (JSON)


def _read_json(text: str, raw: _Raw) -> None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON: {exc.msg}", exc.lineno) from None
    line_of = _line_finder(text)
    _walk(doc, raw, line_of)


def _line_finder(text: str):
    """Line of the first occurrence of a quoted key or string (JSON gives no positions)."""
    def line_of(needle: str) -> int:
        at = text.find(json.dumps(needle)[:80])
        return text.count("\n", 0, at) + 1 if at >= 0 else 1
    return line_of


def _walk(node: Any, raw: _Raw, line_of) -> None:
    if isinstance(node, str):
        _read(node, raw, line_of(node) - 1, report_unknown=False)
    elif isinstance(node, list):
        for item in node:
            _walk(item, raw, line_of)
    elif isinstance(node, dict):
        procs = {k.upper(): v for k, v in node.items() if isinstance(v, dict) and k.upper() in PROCS}
        if procs and all("calls" in v for v in procs.values()):
            raw.saw_anything = True
            raw.summary_procs = {}
            elapsed = None
            for name, values in procs.items():
                line = line_of(next(k for k in node if k.upper() == name))
                proc = _Proc(line=line)
                for key, value in values.items():
                    if key in _PROF_KEYS.values() or key == "elapsed_ms":
                        proc.fields[key] = (str(value), line)
                elapsed = elapsed or values.get("elapsed_ms")
                raw.summary_procs[name] = proc
            raw.summary = ("", str(elapsed) if elapsed is not None else "", line_of(next(iter(node))))
            return
        for value in node.values():
            _walk(value, raw, line_of)


# ------------------------------------------------------------------------------- typing


def _typed_proc(name: str, proc: _Proc, result: ParseResult) -> dict[str, Any]:
    def num(key: str) -> float | None:
        text, line = proc.fields.get(key, (None, proc.line))
        return _number(text, f"{name} {key}", line, result)

    tx_type, index = PROCS[name]
    calls_text, calls_line = proc.fields.get("calls", (None, proc.line))
    elapsed = num("elapsed_ms")
    return {"tx_index": index, "tx_type": tx_type,
            "success_count": _int(calls_text, f"{name} calls", calls_line, result),
            "min_rt_ms": num("min_ms"), "avg_rt_ms": num("avg_ms"), "max_rt_ms": num("max_ms"),
            "p50_ms": num("p50_ms"), "p95_ms": num("p95_ms"), "p99_ms": num("p99_ms"),
            "time_share_pct": num("ratio_pct"),
            "elapsed_s": elapsed / 1000.0 if elapsed is not None else None}


# ------------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    raw = _Raw()
    if text.lstrip("\ufeff \t\r\n")[:1] in ("[", "{"):
        _read_json(text.lstrip("\ufeff"), raw)
        source = "jobs-json"
    else:
        _read(text, raw)
        source = "profile" if raw.summary or raw.profile_users else "log"
    if not raw.saw_anything:
        raise ParseError("no HammerDB line (TEST RESULT, timed-run lines, time profile report or jobs timing)")
    result.tool_version = raw.version
    result.facts["hammerdb_source"] = source
    if raw.job_id:
        result.facts["hammerdb_job_id"] = raw.job_id
    if raw.unknown:
        n = len(raw.unknown)
        result.warn(raw.unknown[0], "line not in HammerDB's output layout: skipped" + (f" ({n} lines)" if n > 1 else ""))
    for message, line in raw.errors[:20]:
        result.warn(line, f"HammerDB error: {message[:300]}")
    summaries = _tx_summaries(raw, result)
    if _has_run(raw):
        _run_row(raw, result, summaries)
    elif summaries or raw.profile_users:
        _profile_run_row(raw, result)
    else:
        result.status, result.status_reason = "incomplete", "no TEST RESULT and no time profile summary"
    if summaries:
        result.tables["tpcc_tx_summaries"] = summaries
    return result


def _has_run(raw: _Raw) -> bool:
    return bool(raw.result or raw.timing_min or raw.rampup_min or raw.vusers or raw.ticks
                or raw.finished["SUCCESS"] or raw.finished["FAILED"])


def _profile_run_row(raw: _Raw, result: ParseResult) -> None:
    """A time profile or jobs timing document alone: a run row that holds no rate (the rate is
    in the run's log) but says how many users were profiled and over how long, so its
    transaction rows have a file to belong to. The warehouse leaves such rows out of results."""
    if raw.summary_procs:
        result.status, reason = "complete", None
    else:
        result.status, reason = "incomplete", "time profile without its SUMMARY block (cut short?)"
    result.status_reason = reason
    users = median_ms = None
    if raw.summary:
        users = _int(raw.summary[0], "active virtual users", raw.summary[2], result)
        median_ms = _number(raw.summary[1], "median elapsed time", raw.summary[2], result)
    result.add("tpcc_runs", {"kit": KIT, "output_generation": "hammerdb-4+", "output_variant": "time-profile",
                             "status": result.status, "last_phase": "profile", "connections": users,
                             "measured_s": round(median_ms / 1000.0) if median_ms is not None else None})


def _tx_summaries(raw: _Raw, result: ParseResult) -> list[dict[str, Any]]:
    if raw.profile_users or raw.summary:
        result.facts["hammerdb_profiled_users"] = raw.profile_users
    if not raw.summary_procs:
        if raw.profile_users:
            result.warn(None, "time profile has per-user blocks but no SUMMARY block: no per-transaction rows")
        return []
    rows = []
    median_ms = _number(raw.summary[1], "median elapsed time", raw.summary[2], result) if raw.summary else None
    for name in sorted(raw.summary_procs, key=lambda n: PROCS.get(n, ("", 9))[1]):
        if name not in PROCS:
            result.warn(raw.summary_procs[name].line, f"procedure {name!r} is not a TPC-C transaction: skipped")
            continue
        row = _typed_proc(name, raw.summary_procs[name], result)
        if row["elapsed_s"] is None and median_ms is not None:
            row["elapsed_s"] = median_ms / 1000.0
        rows.append(row)
    return rows


def _run_row(raw: _Raw, result: ParseResult, summaries: list[dict[str, Any]]) -> None:
    nopm = tpm = None
    engine = variant = None
    if raw.result:
        nopm_text, tpm_text, engine, variant, line = raw.result
        nopm = _number(nopm_text, "NOPM", line, result)
        tpm = _number(tpm_text, "TPM", line, result)
    vusers = None
    if raw.vusers:
        count = _int(raw.vusers[0], "virtual users", raw.vusers[2], result)
        # before v3.2 the line counted every virtual user, the monitor (Vuser 1) included
        vusers = count if count is None or raw.vusers[1] else max(count - 1, 0)
    rampup_min = _int(raw.rampup_min[0], "ramp-up minutes", raw.rampup_min[1], result) if raw.rampup_min else None
    timing_min = _int(raw.timing_min[0], "test minutes", raw.timing_min[1], result) if raw.timing_min else None
    ticks = len(raw.ticks)
    failed_users = raw.finished["FAILED"]
    status, reason = "complete", None
    if failed_users:
        status, reason = "failed", f"{failed_users} virtual user(s) FINISHED FAILED" + (
            f": {raw.errors[0][0][:300]}" if raw.errors else "")
    elif raw.result is None:
        status = "failed" if raw.errors and raw.all_done else "incomplete"
        reason = (f"HammerDB error before any result: {raw.errors[0][0][:300]}" if status == "failed"
                  else f"log ends before TEST RESULT (after {ticks} measured minute(s))")
    result.status, result.status_reason = status, reason
    last_phase = ("tpmc" if raw.result else "stopping" if raw.ended_count else
                  "measuring" if raw.started_count or raw.timing_min or ticks else
                  "rampup" if raw.rampup_min else "header")
    measured_s = ticks * 60 if ticks else (timing_min * 60 if timing_min and raw.result else None)
    result.add("tpcc_runs", {
        "kit": KIT,
        "output_generation": {"nopm-from-tpm": "hammerdb-4+", "tpm-at-nopm": "hammerdb-3"}.get(variant or ""),
        "output_variant": variant,
        "status": status,
        "last_phase": last_phase,
        "connections": vusers,
        "rampup_s": rampup_min * 60 if rampup_min is not None else None,
        "measure_s": timing_min * 60 if timing_min is not None else None,
        "start_time_text": raw.log_header,
        "measured_s": measured_s,
        "tpmc_printed": nopm,
        "engine_tpm_printed": tpm,
        "engine_tpm_name": engine,
        "mysql_error_count": len(raw.errors),
        # a jobs document with both result and timing: New-Order's profile percentiles
        "summary_p95_ms": next((r["p95_ms"] for r in summaries if r["tx_index"] == 0), None),
        "summary_p99_ms": next((r["p99_ms"] for r in summaries if r["tx_index"] == 0), None),
    })
    if raw.finished["SUCCESS"] or failed_users:
        result.facts["hammerdb_vusers_finished"] = raw.finished["SUCCESS"] + failed_users
    if failed_users:
        result.facts["hammerdb_vusers_failed"] = failed_users

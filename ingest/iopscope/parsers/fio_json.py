"""fio ``--output-format=json`` and ``json+`` results, fio 2.x to 3.x.

Tables written
--------------
``fio_jobs``            one row per job entry x direction (read, write, trim) that did IO
``fio_percentiles``     one row per printed latency percentile
``fio_histogram_bins``  json+ only: the ``bins`` of clat_ns / lat_ns / slat_ns
``fio_disk_util``       the ``disk_util`` block, md ``aggr_*`` keys included

Every latency is converted to microseconds: fio 2.x prints ``clat``/``lat``/``slat`` in usec,
fio 3.x prints ``clat_ns``/``lat_ns``/``slat_ns`` in nsec (and percentiles in the same unit;
the ``N`` sample count fio 3.2x adds to these objects is ignored).

Variants handled
----------------
* Lines before the document (``fio: terminating on signal 2``), several documents in one
  file with other text between them, and a document cut short (status ``incomplete``).
* ``--status-interval``: every interim dump is a full document. A document is marked
  ``is_interim`` when the next one in the file is a later snapshot of the same run (same job
  list; elapsed time grew as much as the wall clock between the two timestamps, +-1.5 s).
  Two separate runs of the same short (< ~3 s) job appended to one file can look the same.
* Duplicate keys: in ``percentile`` (fio 2.x prints unused slots as ``"0.00": 0`` several
  times: those are dropped) and in ``global options`` (client mode repeats every global option
  once per client: see below).
* ``--client`` mode: ``client_stats`` instead of ``jobs``; ``global options`` as an array of
  per-client objects (each client entry gets its own client's, matched by hostname and port) or
  as one object with repeated keys (fio 3.33: it does not say which value was whose, so a key
  whose values differ is left out with a warning); ``hostname`` and ``port`` on each client
  entry (its own, never another client's) and ``hostname`` on disks, and an
  ``All clients`` aggregate (``is_aggregate``) that has no ``job options``: it takes the
  options its client entries agree on (null where they differ), and the sums of their
  ``numjobs`` and ``outstanding_ios``.
* Options: fio prints only the options that were set, and never value-less flags
  (``--time_based``, ``--group_reporting`` on the command line). So a missing rw/bs/iodepth
  takes fio's default only when the entry has ``job options`` or ``global options`` at all
  (fio 2.1 prints neither: those columns are null); ``time_based`` is null when not printed;
  ``group_reporting`` when not printed is inferred: True when ``job_runtime`` (summed over
  threads) exceeds 1.5 x the entry's longest direction runtime, False when ``numjobs`` > 1 and
  several entries share the job's name and group, else null.
* ``job_runtime`` is summed over threads: it is never used as wall time (``elapsed`` is).
  With group_reporting a direction's ``runtime`` is the longest thread's (not a sum).
* Sizes: fio 2.x printed ``io_bytes`` as KiB (``io_bytes >> 10`` in its source) and had no
  ``io_kbytes``; when ``io_kbytes`` is absent, ``io_bytes`` is read as KiB. ``bw`` is KiB/s in
  every version. ``bw_agg`` above 100 (fio caps the share at 100; fio 2.1 printed the mean
  there) is dropped.
* ``unified_rw_reporting`` (a ``mixed`` direction) is reported as a warning, not stored.
* A run interrupted by a signal is ``incomplete`` (rows kept, they measure a shorter run):
  when fio printed ``fio: terminating on signal N``, or a ``time_based`` job's ``elapsed``
  is shorter than its ``runtime`` option by more than 1 s.
* An output with no document but fio's own error lines is a ``failed`` run.
* ``fio version`` with a git-describe suffix (``fio-3.33-12-gabcdef``) is kept verbatim
  minus ``fio-``.

``fio_percentiles`` and ``fio_histogram_bins`` come as ``Columns`` blocks; bins and
percentiles as fio prints them are read in C, anything odd per item (same result either way).

Example
-------
>>> r = parse('{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "groupid": 0, '
...           '"error": 0, "job options": {"rw": "randread", "bs": "4k", "iodepth": "8"}, '
...           '"read": {"io_bytes": 4096, "bw_bytes": 4096, "iops": 1.0, "runtime": 1000, '
...           '"total_ios": 1, "clat_ns": {"min": 1000, "max": 1000, "mean": 1000, '
...           '"stddev": 0, "percentile": {"99.000000": 1000}}}}]}')
>>> row = r.tables["fio_jobs"][0]
>>> (row["direction"], row["outstanding_ios"], row["clat_mean_us"], r.tool_version)
('read', 8, 1.0, '3.33')
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from typing import Any

from iopscope.parsers.base import Columns, ParseError, ParseResult
from iopscope.units import EXACT_INT_LIMIT, fio_seconds, fio_option_size_bytes, to_bool, to_float, to_int

NAME = "fio_json"
VERSION = "1.2.0"
TOOL = "fio"

DIRECTIONS = ("read", "write", "trim")
LATENCY_KINDS = ("slat", "clat", "lat")
AGGREGATE_NAME = "All clients"
_ERROR_LINE = re.compile(r"^(?:fio:|error:|fio: pid=\d+, err=)", re.M)
_SIGNAL_LINE = re.compile(r"^\s*fio: terminating on signal (\d+)", re.M)
# Option-derived columns: null when the entry's options are unknown.
_OPTION_COLUMNS = ("rw", "read_pct", "block_size", "ioengine", "iodepth", "numjobs",
                   "outstanding_ios", "direct", "size", "filename", "time_based",
                   "runtime_option_s", "ramp_time_s")


def detect(head: str, filename: str) -> float:
    if '"fio version"' in head and ('"jobs"' in head or '"client_stats"' in head):
        return 0.95
    if '"fio version"' in head:
        return 0.7
    if filename.lower().endswith(".json") and _ERROR_LINE.search(head) and "{" not in head:
        # fio asked for JSON but printed only its error lines: still this run's output.
        return 0.45
    return 0.0


# --------------------------------------------------------------------------- reading


class _DupDict(dict):
    """A JSON object that had repeated keys: a dict (the last one wins, fio's own rule for
    options) that also keeps every key/value pair in ``pairs`` (for percentiles)."""

    pairs: list[tuple[str, Any]]


def _object(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        obj = _DupDict(obj)
        obj.pairs = pairs
    return obj


def _documents(text: str, result: ParseResult) -> list[tuple[int, Any]]:
    """Every JSON object that starts a line, with its 1-based line; junk between is reported."""
    decoder = json.JSONDecoder(object_pairs_hook=_object)
    docs: list[tuple[int, Any]] = []
    pos, n = 0, len(text)
    while pos < n:
        start = text.find("{", pos)
        if start < 0:
            tail = text[pos:].strip()
            if tail:
                _report_junk(text, pos, n, result)
            break
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():
            # A brace inside a text line: skip the whole line.
            end = text.find("\n", start)
            end = n if end < 0 else end + 1
            _report_junk(text, pos, end, result)
            pos = end
            continue
        if text[pos:start].strip():
            _report_junk(text, pos, start, result)
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            where = getattr(exc, "pos", start)
            line = text.count("\n", 0, where) + 1
            msg = getattr(exc, "msg", None) or "nested too deeply"
            result.error(line, f"JSON document cut short or damaged: {msg}")
            result.status = "incomplete"
            result.status_reason = result.status_reason or f"JSON document cut short or damaged at line {line}"
            # Try to resynchronise on a later document that starts a line.
            nxt = text.find("\n{", start + 1)
            if nxt < 0:
                break
            pos = nxt + 1
            continue
        docs.append((text.count("\n", 0, start) + 1, obj))
        pos = end
    return docs


def _report_junk(text: str, start: int, end: int, result: ParseResult) -> None:
    chunk = text[start:end]
    first_line = text.count("\n", 0, start) + 1
    for offset, line in enumerate(chunk.split("\n")):
        if line.strip():
            result.warn(first_line + offset, f"skipped non-JSON text: {line.strip()[:120]}")


# --------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    docs = _documents(text, result)
    fio_docs = [(line, d) for line, d in docs if _is_fio_doc(d)]
    if not fio_docs:
        errors = [m.group(0) for m in _ERROR_LINE.finditer(text)]
        if errors and not docs:
            messages = [ln.strip() for ln in text.splitlines() if _ERROR_LINE.match(ln.strip())]
            result.status = "failed"
            result.status_reason = "; ".join(messages)[:2000]
            result.issues = [i for i in result.issues if i.severity == "error"]
            result.tool_version = _version_from_text(text)
            return result
        if docs:
            raise ParseError("JSON found, but no fio result document (no 'fio version' key)", docs[0][0])
        first_error = next((i for i in result.issues if i.severity == "error"), None)
        raise ParseError(first_error.reason if first_error else "no JSON document found",
                         first_error.line if first_error else None)
    interim = _interim_flags([doc for _, doc in fio_docs])
    for doc_index, (line, doc) in enumerate(fio_docs):
        try:
            _parse_document(doc_index, line, doc, interim[doc_index], result)
        except RecursionError:
            result.error(line, "fio document nested too deeply: rest of it skipped")
            result.status = "incomplete"
    _finish_bulk_tables(result)
    _flag_interrupted(text, result)
    return result


def _is_fio_doc(obj: Any) -> bool:
    return isinstance(obj, dict) and "fio version" in obj


def _version_from_text(text: str) -> str | None:
    m = re.search(r"\bfio-(\d+\.\d+[^\s\",]*)", text)
    return m.group(1) if m else None


def _clean_version(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    return raw.strip().removeprefix("fio-") or None


def _text(value: Any) -> str | None:
    """A value for a string column: strings as they are, numbers as text, anything else null."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _flag_interrupted(text: str, result: ParseResult) -> None:
    m = _SIGNAL_LINE.search(text) if "terminating on signal" in text else None
    if m and result.status == "complete":
        result.status = "incomplete"
        reason = f"interrupted: fio: terminating on signal {m.group(1)}"
        short = _short_jobs(result)
        result.status_reason = f"{reason}; {short}" if short else reason
        return
    short = _short_jobs(result)
    if short and result.status == "complete":
        result.status = "incomplete"
        result.status_reason = f"interrupted: {short}"


def _short_jobs(result: ParseResult) -> str | None:
    """Time-based jobs whose elapsed wall time fell short of their runtime option."""
    for row in result.tables.get("fio_jobs", []):
        if row.get("is_interim") or not row.get("time_based"):
            continue
        runtime, elapsed = row.get("runtime_option_s"), row.get("elapsed_s")
        if runtime and elapsed is not None and elapsed + 1 < runtime:
            return (f"job {row.get('job_name')!r} ran {elapsed:g} s of its time_based "
                    f"runtime={runtime:g} s")
    return None


# --------------------------------------------------------------------------- documents


def _job_list(doc: dict) -> list | None:
    jobs = doc.get("jobs") if isinstance(doc.get("jobs"), list) else doc.get("client_stats")
    return jobs if isinstance(jobs, list) else None


def _timestamp_s(doc: dict) -> float | None:
    ms = doc.get("timestamp_ms")
    if isinstance(ms, (int, float)) and not isinstance(ms, bool):
        return ms / 1000.0
    ts = doc.get("timestamp")
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        return float(ts)
    return None


def _interim_flags(docs: list[dict]) -> list[bool]:
    """True for a --status-interval snapshot that a later document of the same run supersedes."""
    flags = [False] * len(docs)
    for k in range(len(docs) - 1):
        a, b = docs[k], docs[k + 1]
        jobs_a, jobs_b = _job_list(a), _job_list(b)
        if not jobs_a or not jobs_b or len(jobs_a) != len(jobs_b):
            continue
        if not all(isinstance(j, dict) for j in jobs_a + jobs_b):
            continue
        keys_a = [(j.get("jobname"), j.get("groupid")) for j in jobs_a]
        keys_b = [(j.get("jobname"), j.get("groupid")) for j in jobs_b]
        if keys_a != keys_b or a.get("fio version") != b.get("fio version"):
            continue
        ta, tb = _timestamp_s(a), _timestamp_s(b)
        ea = [to_float(j.get("elapsed")) for j in jobs_a]
        eb = [to_float(j.get("elapsed")) for j in jobs_b]
        if ta is None or tb is None or None in ea or None in eb or tb < ta:
            continue
        if any(y < x for x, y in zip(ea, eb)):
            continue
        grew = max(y - x for x, y in zip(ea, eb))
        if grew > 0 and abs(grew - (tb - ta)) <= 1.5:
            flags[k] = True
    return flags


def _parse_document(doc_index: int, line: int, doc: dict, is_interim: bool,
                    result: ParseResult) -> None:
    version = _clean_version(doc.get("fio version"))
    if version and result.tool_version is None:
        result.tool_version = version
    started_at = None
    ts = doc.get("timestamp")
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        try:
            started_at = datetime.fromtimestamp(ts, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            result.warn(line, f"timestamp {ts!r} is not a valid time: ignored")
    has_globals = "global options" in doc
    global_opts, client_opts = _merge_global_options(doc.get("global options"), "client_stats" in doc, line, result)
    jobs = _job_list(doc)
    if jobs is None:
        result.error(line, "fio document has neither 'jobs' nor 'client_stats'")
        result.status = "incomplete"
        jobs = []
    entries: list[tuple[int, dict, dict]] = []
    for job_index, job in enumerate(jobs):
        if not isinstance(job, dict):
            result.warn(line, f"job entry {job_index} is not an object")
            continue
        entries.append((job_index, job, _job_facts(job, _client_globals(job, global_opts, client_opts), has_globals)))
    _fill_aggregates(entries)
    _infer_group_reporting(entries)
    for job_index, job, facts in entries:
        _parse_job(doc_index, job_index, job, facts, started_at, is_interim, result)
    disks = doc.get("disk_util")
    if disks is not None and not isinstance(disks, list):
        result.warn(line, "disk_util is not a list: ignored")
        disks = []
    for disk in disks or []:
        if isinstance(disk, dict):
            result.add("fio_disk_util", _disk_row(doc_index, disk))


def _options(value: Any) -> dict[str, str]:
    """An options object as {name: text}; values that are not text or numbers are dropped."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, str] = {}
    for key, val in value.items():
        text = _text(val)
        if text is not None:
            out[str(key)] = text
    return out


# Keys that say which client a block of options came from: not options of the job.
_CLIENT_KEYS = ("hostname", "port")


def _merge_global_options(value: Any, client_mode: bool, line: int,
                          result: ParseResult) -> tuple[dict[str, str], dict]:
    """(options every client agrees on, {(hostname, port): that client's own options}).

    Outside client mode a repeated key is an option given twice: the last one wins, as in fio.
    Client mode prints the global options once per client: as an array of objects that name
    their client (each client's options are its own), or as one object with each key repeated
    once per client (fio 3.33), which does not say which value was whose: a key whose values
    differ is left out with a warning instead of giving every client the last one."""
    if isinstance(value, list):
        clients: dict[tuple, dict[str, str]] = {}
        for item in value:
            options = _options(item)
            clients[(options.get("hostname"), options.get("port"))] = \
                {k: v for k, v in options.items() if k not in _CLIENT_KEYS}
        return _agreed(list(clients.values())), clients
    if isinstance(value, _DupDict) and client_mode:
        by_key: dict[str, list[str]] = {}
        for key, val in value.pairs:
            text = _text(val)
            if text is not None and key not in _CLIENT_KEYS:
                by_key.setdefault(str(key), []).append(text)
        differing = sorted(k for k, values in by_key.items() if len(set(values)) > 1)
        if differing:
            result.warn(line, "global options differ between clients and the JSON does not say which "
                              f"client had which value: left out: {', '.join(differing)}")
        return {k: values[0] for k, values in by_key.items() if k not in differing}, {}
    return {k: v for k, v in _options(value).items() if k not in _CLIENT_KEYS}, {}


def _agreed(option_sets: list[dict[str, str]]) -> dict[str, str]:
    """The options whose value is the same in every set (and present in all)."""
    if not option_sets:
        return {}
    first, *others = option_sets
    return {k: v for k, v in first.items() if all(o.get(k) == v for o in others)}


def _client_globals(job: dict, agreed: dict[str, str], clients: dict) -> dict[str, str]:
    """The global options of the client that ran ``job`` (by hostname and port, or by hostname
    alone when that names one client), else those every client agrees on."""
    host, port = _text(job.get("hostname")), _text(job.get("port"))
    if (host, port) in clients:
        return clients[(host, port)]
    by_host = [opts for (h, _), opts in clients.items() if h == host]
    return by_host[0] if host is not None and len(by_host) == 1 else agreed


def _job_facts(job: dict, global_opts: dict, has_globals: bool) -> dict:
    """The option-derived columns of one job entry (nulls when its options are unknown)."""
    has_job_opts = isinstance(job.get("job options"), dict)
    options = dict(global_opts)
    options.update(_options(job.get("job options")))
    name = _text(job.get("jobname"))
    facts: dict[str, Any] = {"options": options, "name": name, "group": to_int(job.get("groupid")),
                             "is_aggregate": name == AGGREGATE_NAME,
                             "known": has_job_opts or has_globals}
    if not facts["known"] or (facts["is_aggregate"] and not has_job_opts):
        facts.update({c: None for c in _OPTION_COLUMNS})
        facts.update(group_reporting=None, job_options_json=None, known=False, bs_options=None)
        return facts
    rw = options.get("rw") or options.get("readwrite") or "read"  # fio's default is read
    iodepth = to_int(options.get("iodepth")) or 1
    numjobs = to_int(options.get("numjobs")) or 1
    facts.update({
        "rw": rw,
        "read_pct": _read_pct(rw, options),
        "block_size": options.get("bs") or options.get("blocksize") or options.get("bssplit"),
        "ioengine": options.get("ioengine"),
        "iodepth": iodepth,
        "numjobs": numjobs,
        "outstanding_ios": iodepth * numjobs,
        "direct": to_bool(options.get("direct")),
        "size": options.get("size"),
        "filename": options.get("filename") or options.get("directory"),
        "time_based": _flag(options, "time_based"),
        "runtime_option_s": fio_seconds(options.get("runtime")),
        "ramp_time_s": fio_seconds(options.get("ramp_time")),
        "group_reporting": _flag(options, "group_reporting"),
        "job_options_json": json.dumps(options, sort_keys=True),
        "bs_options": options,
    })
    return facts


def _flag(options: dict, key: str) -> bool | None:
    """A boolean option: its value when printed (a bare flag counts as set), else null."""
    if key not in options:
        return None
    value = to_bool(options[key])
    return True if value is None else value


def _fill_aggregates(entries: list) -> None:
    """'All clients' has no job options: take what its group's client entries agree on."""
    for _, _, facts in entries:
        if not facts["is_aggregate"] or facts["known"]:
            continue
        siblings = [f for _, _, f in entries
                    if not f["is_aggregate"] and f["known"] and f["group"] == facts["group"]]
        if not siblings:
            continue
        for column in _OPTION_COLUMNS + ("group_reporting",):
            values = {json.dumps(f[column]) for f in siblings}
            if len(values) == 1:
                facts[column] = siblings[0][column]
        sizes = {json.dumps([f["bs_options"].get(k) for k in ("bs", "blocksize", "bssplit")])
                 for f in siblings}
        if len(sizes) == 1:
            facts["bs_options"] = siblings[0]["bs_options"]
        numjobs = [f["numjobs"] for f in siblings]
        facts["numjobs"] = None if None in numjobs else sum(numjobs)
        outstanding = [f["outstanding_ios"] for f in siblings]
        facts["outstanding_ios"] = None if None in outstanding else sum(outstanding)


def _infer_group_reporting(entries: list) -> None:
    """group_reporting is not printed when given as a bare flag: infer it from the entries."""
    names: dict[tuple, int] = {}
    for _, _, facts in entries:
        names[(facts["name"], facts["group"])] = names.get((facts["name"], facts["group"]), 0) + 1
    for _, job, facts in entries:
        if facts["group_reporting"] is not None or not facts["known"]:
            continue
        job_runtime = to_float(job.get("job_runtime"))
        runtimes = [to_float(job[d].get("runtime")) for d in DIRECTIONS if isinstance(job.get(d), dict)]
        longest = max((r for r in runtimes if r), default=None)
        if job_runtime and longest and job_runtime > 1.5 * longest:
            facts["group_reporting"] = True  # several threads' time summed into one entry
        elif (facts["numjobs"] or 1) > 1 and names[(facts["name"], facts["group"])] > 1:
            facts["group_reporting"] = False


def _parse_job(doc_index, job_index, job, facts, started_at, is_interim, result) -> None:
    common = {
        "doc_index": doc_index,
        "job_index": job_index,
        "job_name": facts["name"],
        "group_id": facts["group"],
        "hostname": _text(job.get("hostname")),
        "port": to_int(job.get("port")),
        "is_aggregate": facts["is_aggregate"],
        "is_interim": is_interim,
        "error_code": to_int(job.get("error")),
        "started_at": started_at,
        "group_reporting": facts["group_reporting"],
        "job_options_json": facts["job_options_json"],
        "elapsed_s": to_float(job.get("elapsed")),
        "job_runtime_ms": to_float(job.get("job_runtime")),
        "usr_cpu_pct": to_float(job.get("usr_cpu")),
        "sys_cpu_pct": to_float(job.get("sys_cpu")),
        "ctx_switches": to_int(job.get("ctx")),
        "major_faults": to_int(job.get("majf")),
        "minor_faults": to_int(job.get("minf")),
    }
    common.update({c: facts[c] for c in _OPTION_COLUMNS})
    if isinstance(job.get("mixed"), dict):
        result.warn(None, f"job {facts['name']!r}: unified_rw_reporting 'mixed' statistics are not stored "
                          "(fio_jobs holds read / write / trim)")
    for direction in DIRECTIONS:
        stats = job.get(direction)
        if not isinstance(stats, dict):
            continue
        total_ios = to_int(stats.get("total_ios"))
        io_bytes = _io_bytes(stats)
        if not total_ios and not io_bytes:
            continue  # the direction was not exercised
        row = dict(common)
        row.update(_direction_stats(direction, stats, facts["bs_options"]))
        result.add("fio_jobs", row)
        for kind in LATENCY_KINDS:
            scale, block = _latency_block(stats, kind)
            if block is None:
                continue
            key = {"doc_index": doc_index, "job_index": job_index, "direction": direction,
                   "latency_kind": kind}
            pairs = _percentiles(block.get("percentile"))
            _extend(result, "fio_percentiles", key, {
                "percentile": [pct for pct, _ in pairs],
                "latency_us": [value / scale for _, value in pairs]})
            bins = block.get("bins")
            if isinstance(bins, dict):
                # json+ bins are always nanoseconds in fio 3.x; 2.x had no bins.
                bin_ns, counts = _bin_pairs(bins)
                _extend(result, "fio_histogram_bins", key, {"bin_ns": bin_ns, "io_count": counts})


# Bulk tables (a json+ file holds ~1,000 bins per job and direction): gathered column by column
# and handed over as Columns, so neither the parser nor ingest builds one dict per bin.
BULK_TABLES = {
    "fio_percentiles": ("doc_index", "job_index", "direction", "latency_kind", "percentile", "latency_us"),
    "fio_histogram_bins": ("doc_index", "job_index", "direction", "latency_kind", "bin_ns", "io_count"),
}


def _extend(result: ParseResult, table: str, key: dict, values: dict[str, list]) -> None:
    """Add rows to a bulk table: ``key`` holds the values every new row shares, ``values`` one
    list per other column. The table keeps the place in ``result.tables`` of its first row."""
    n = len(next(iter(values.values())))
    if not n:
        return
    columns = result.tables.setdefault(table, {name: [] for name in BULK_TABLES[table]})
    for name, value in key.items():
        columns[name].extend([value] * n)
    for name, column in values.items():
        columns[name].extend(column)


def _finish_bulk_tables(result: ParseResult) -> None:
    for table in BULK_TABLES:
        if table in result.tables:
            result.tables[table] = Columns(result.tables[table])


class _BinKeys(dict):
    """bin key text -> int, for keys int() reads and to_int reads alike (below 2**53 in size).

    Why: int() on the ~500,000 keys of a large json+ file is a third of its parse time, and the
    keys repeat (fio has 1,856 bins; the JSON decoder even shares the key strings), so they are
    looked up here instead. Results do not depend on what is cached; the size is bounded."""

    def __missing__(self, key: str) -> int:
        value = int(key)  # ValueError for text int() cannot read
        if not -EXACT_INT_LIMIT < value < EXACT_INT_LIMIT:
            raise ValueError(key)
        if len(self) < 100_000:
            self[key] = value
        return value


_BIN_KEYS = _BinKeys()


def _bin_pairs(bins: dict, fast: bool = True) -> tuple[list[int], list[int]]:
    """(bin_ns, io_count) of every bin whose key and count to_int can read, in order.

    Fast path: fio writes decimal keys and integer counts, which int() reads exactly as to_int
    (through float) does below 2**53. Anything else (floats, bools, text, nulls, huge numbers)
    takes the per-item path."""
    keys, counts = list(bins), list(bins.values())
    if fast and set(map(type, counts)) <= {int} and (
            not counts or -EXACT_INT_LIMIT < min(counts) and max(counts) < EXACT_INT_LIMIT):
        try:
            return list(map(_BIN_KEYS.__getitem__, keys)), counts
        except (ValueError, TypeError):
            pass
    bin_ns, io_count = [], []
    for key, count in zip(keys, counts):
        b, c = to_int(key), to_int(count)
        if b is not None and c is not None:
            bin_ns.append(b)
            io_count.append(c)
    return bin_ns, io_count


def _io_bytes(stats: dict) -> int | None:
    """Bytes moved. fio added ``io_kbytes`` when it made ``io_bytes`` bytes; before that
    (fio 2.x) ``io_bytes`` was printed as ``io_bytes >> 10``, i.e. KiB."""
    if "io_kbytes" in stats:
        io_bytes = to_int(stats.get("io_bytes"))
        if io_bytes is None:
            kib = to_int(stats.get("io_kbytes"))
            io_bytes = None if kib is None else kib * 1024
        return io_bytes
    kib = to_int(stats.get("io_bytes"))
    return None if kib is None else kib * 1024


def _read_pct(rw: str, options: dict) -> float | None:
    rw = rw.split(":")[0]
    if rw in ("read", "randread"):
        return 100.0
    if rw in ("write", "randwrite", "trim", "randtrim", "trimwrite"):
        return 0.0
    if rw in ("rw", "readwrite", "randrw"):
        if options.get("rwmixread") is not None:
            return to_float(options["rwmixread"])
        if options.get("rwmixwrite") is not None:
            w = to_float(options["rwmixwrite"])
            return None if w is None else 100.0 - w
        return 50.0
    return None


def _latency_block(stats: dict, kind: str) -> tuple[float, dict | None]:
    """The latency object and the divisor that turns its values into microseconds."""
    if isinstance(stats.get(f"{kind}_ns"), dict):
        return 1000.0, stats[f"{kind}_ns"]
    if isinstance(stats.get(kind), dict):
        return 1.0, stats[kind]
    return 1.0, None


def _percentiles(raw: Any, fast: bool = True) -> list[tuple[float, float]]:
    """Percentile pairs, first occurrence of each percentile; fio 2.x's unused 0.00 slots dropped."""
    out: list[tuple[float, float]] = []
    seen: set[float] = set()
    if isinstance(raw, _DupDict):
        pairs = raw.pairs  # fio 2.x repeats keys here: read them all, in order
    elif isinstance(raw, dict):
        pairs = raw.items()
        if fast and (quick := _plain_percentiles(raw)) is not None:
            return quick
    else:
        return out
    for key, value in pairs:
        pct, val = to_float(key), to_float(value)
        if pct is None or val is None:
            continue
        if pct == 0.0 and val == 0.0:
            continue
        if pct in seen:
            continue
        seen.add(pct)
        out.append((pct, val))
    return out


def _plain_percentiles(raw: dict) -> list[tuple[float, float]] | None:
    """The pairs of a percentile object as fio 3.x prints it (numeric text keys, finite numbers,
    no 0.00 slot), read in C; None when anything needs the per-pair rules of _percentiles.
    Why: a json+ file has ~17 percentiles x 3 latency kinds per job and direction."""
    values = list(raw.values())
    if not set(map(type, values)) <= {int, float}:
        return None  # bools, text, nulls: to_float's own rules
    try:
        pcts, vals = list(map(float, raw)), list(map(float, values))
    except (ValueError, OverflowError):
        return None
    if not (math.isfinite(sum(pcts)) and math.isfinite(sum(vals))):
        return None  # some nan or inf (or a sum beyond float): per pair
    if 0.0 in pcts or len(set(pcts)) != len(pcts):
        return None
    return list(zip(pcts, vals))


def _direction_stats(direction: str, stats: dict, options: dict | None) -> dict:
    bw_bytes = to_float(stats.get("bw_bytes"))
    if bw_bytes is None:
        bw_kib = to_float(stats.get("bw"))  # 'bw' is KiB/s in every version
        bw_bytes = None if bw_kib is None else bw_kib * 1024
    row: dict[str, Any] = {
        "direction": direction,
        "block_size_bytes": None if options is None else _block_size(direction, options),
        "runtime_ms": to_float(stats.get("runtime")),
        "io_bytes": _io_bytes(stats),
        "bw_bytes_per_s": bw_bytes,
        "bw_mib_per_s": None if bw_bytes is None else bw_bytes / 1048576,
        "iops": to_float(stats.get("iops")),
        "total_ios": to_int(stats.get("total_ios")),
        "short_ios": to_int(stats.get("short_ios")),
        "dropped_ios": to_int(stats.get("drop_ios")),
        "bw_min_kib_per_s": to_float(stats.get("bw_min")),
        "bw_max_kib_per_s": to_float(stats.get("bw_max")),
        "bw_agg_pct": _agg_pct(stats.get("bw_agg")),
        "bw_mean_kib_per_s": to_float(stats.get("bw_mean")),
        "bw_stdev_kib_per_s": to_float(stats.get("bw_dev")),
        "bw_samples": to_int(stats.get("bw_samples")),
        "iops_min": to_float(stats.get("iops_min")),
        "iops_max": to_float(stats.get("iops_max")),
        "iops_mean": to_float(stats.get("iops_mean")),
        "iops_stdev": to_float(stats.get("iops_stddev")),
        "iops_samples": to_int(stats.get("iops_samples")),
    }
    for kind in LATENCY_KINDS:
        scale, block = _latency_block(stats, kind)
        for stat, suffix in (("min", "min"), ("max", "max"), ("mean", "mean"), ("stddev", "stdev")):
            value = to_float(block.get(stat)) if block else None
            row[f"{kind}_{suffix}_us"] = None if value is None else value / scale
    return row


def _agg_pct(value: Any) -> float | None:
    """fio caps its share of the group bandwidth at 100; fio 2.1 printed the mean under this key."""
    pct = to_float(value)
    return pct if pct is not None and 0 <= pct <= 100 else None


def _block_size(direction: str, options: dict) -> int | None:
    """Block size of one direction from bs / blocksize ("4k" or "4k,8k" per direction)."""
    raw = options.get("bs") or options.get("blocksize")
    if raw is None:
        return None if options.get("bssplit") else 4096  # fio's default bs is 4k
    parts = str(raw).split(",")
    index = DIRECTIONS.index(direction)
    part = parts[index] if index < len(parts) and parts[index] else parts[0]
    return fio_option_size_bytes(part)


def _disk_row(doc_index: int, disk: dict) -> dict:
    def i(key):
        return to_int(disk.get(key))

    return {
        "doc_index": doc_index,
        "disk_name": _text(disk.get("name")),
        "hostname": _text(disk.get("hostname")),
        "read_ios": i("read_ios"), "write_ios": i("write_ios"),
        "read_merges": i("read_merges"), "write_merges": i("write_merges"),
        "read_ticks_ms": i("read_ticks"), "write_ticks_ms": i("write_ticks"),
        "in_queue_ms": i("in_queue"), "util_pct": to_float(disk.get("util")),
        "aggr_read_ios": i("aggr_read_ios"), "aggr_write_ios": i("aggr_write_ios"),
        "aggr_read_merges": i("aggr_read_merges"),
        # fio's source spells this one key without the final 's'.
        "aggr_write_merges": i("aggr_write_merge") if "aggr_write_merge" in disk else i("aggr_write_merges"),
        "aggr_read_ticks_ms": i("aggr_read_ticks"), "aggr_write_ticks_ms": i("aggr_write_ticks"),
        "aggr_in_queue_ms": i("aggr_in_queue"), "aggr_util_pct": to_float(disk.get("aggr_util")),
    }

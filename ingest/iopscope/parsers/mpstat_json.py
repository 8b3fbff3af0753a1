"""mpstat ``-o JSON`` output (sysstat 11.5 and later), e.g. ``mpstat -o JSON -P ALL 1 60``.

Tables written
--------------
``cpu_samples``  one row per ``statistics[].cpu-load[]`` entry: a CPU number, or ``all``
                 (printed as ``"all"``, or ``"-1"`` by some 12.0-era versions) = the mean
                 over every online logical CPU (hardware thread). ``source_block`` = ``mpstat``.

Keys ``usr nice sys iowait irq soft steal guest gnice idle`` map to ``user_pct nice_pct
system_pct iowait_pct irq_pct softirq_pct steal_pct guest_pct gnice_pct idle_pct``; they add
up to 100 and ``busy_pct = 100 - idle - iowait - steal`` (= usr+nice+sys+irq+soft+guest+gnice).

Not read: ``node-load`` (``-N``), ``sum-interrupts``, ``individual-interrupts``,
``soft-interrupts`` (``-I``) and the ``core``/``socket``/``node`` keys of ``-T``; one warning
names the blocks skipped.

Variants handled
----------------
* Host facts: ``nodename`` -> ``hostname``, ``release`` -> ``kernel``, ``sysname`` -> ``os``,
  ``machine`` -> ``arch``, ``number-of-cpus`` -> ``logical_cpus``, ``date`` -> ``date`` (ISO),
  the date in any locale form (``2021-05-19``, ``11/21/26``, ``21.11.2026`` ...).
* ``timestamp`` as ``HH:MM:SS`` or ``HH:MM:SS AM|PM`` (joined with the host ``date``, midnight
  rollover applied) or with its own date (``2021-05-19 18:01:05``, ISO with a zone -> UTC).
* Several hosts; text before the document; a document cut short (``status`` incomplete):
  every complete ``cpu-load`` entry before the cut is still read.
* JSON mpstat prints no since-boot marker: a file with a single sample may be the since-boot
  report of ``mpstat -o JSON`` without interval, so ``is_since_boot`` is left null (warning).
* Rows whose percentages are all 0 (offline CPU) are dropped with a warning.

Example
-------
>>> r = parse('{"sysstat": {"hosts": [{"nodename": "db1", "release": "6.1.0", '
...           '"number-of-cpus": 2, "date": "2021-05-19", "statistics": ['
...           '{"timestamp": "23:59:59", "cpu-load": [{"cpu": "-1", "usr": 50.0, "idle": 50.0}]},'
...           '{"timestamp": "00:00:09", "cpu-load": [{"cpu": "-1", "usr": 25.0, "idle": 75.0}]}'
...           ']}]}}')
>>> [(x["cpu"], str(x["sampled_at"]), x["interval_s"], x["busy_pct"]) for x in r.tables["cpu_samples"]]
[('all', '2021-05-19 23:59:59', None, 50.0), ('all', '2021-05-20 00:00:09', 10.0, 25.0)]
>>> r.facts == {"hostname": "db1", "kernel": "6.1.0", "logical_cpus": 2, "date": "2021-05-19"}
True
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta
from functools import partial, reduce
from itertools import chain
from operator import add, itemgetter
from typing import Any

from iopscope.parsers._cpu_common import (
    PCT_COLUMNS, SYSSTAT_JSON_KEYS, Timeline, finish_row, parse_date, parse_timestamp,
)
from iopscope.parsers._sysstat_common import join_parts, one_key_set, repeat_each
from iopscope.parsers._sysstat_values import busy_column
from iopscope.parsers.base import Columns, ParseError, ParseResult, fast_readers_on, no_gc

NAME = "mpstat_json"
VERSION = "1.0.0"
TOOL = "mpstat"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

TOLERANCE = 0.5  # percentages printed with 2 decimals: 10 roundings stay well inside this
# total = v1 + v2 + ... left to right, as finish_row adds them (0.0 + v1 is v1 for the checks)
_sequential_sum = partial(reduce, add)
_SKIPPED_BLOCKS = ("node-load", "sum-interrupts", "individual-interrupts", "soft-interrupts")
_HOST_FACTS = (("nodename", "hostname"), ("release", "kernel"), ("sysname", "os"),
               ("machine", "arch"), ("number-of-cpus", "logical_cpus"))


def detect(head: str, filename: str) -> float:
    # iostat -o JSON shares the sysstat/hosts/statistics envelope but has "avg-cpu", never
    # "cpu-load": only claim documents with mpstat's own block.
    if '"sysstat"' in head and '"cpu-load"' in head:
        return 0.95
    return 0.0


# --------------------------------------------------------------------------- reading


def _document(text: str, result: ParseResult) -> Any | None:
    start = text.find("{")
    if start < 0:
        return None
    if text[:start].strip():
        for i, line in enumerate(text[:start].split("\n")):
            if line.strip():
                result.warn(i + 1, f"skipped text before the JSON document: {line.strip()[:120]}")
    try:
        doc, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        line = text.count("\n", 0, exc.pos) + 1
        result.error(line, f"JSON document cut short or damaged: {exc.msg}")
        result.status = "incomplete"
        result.status_reason = f"JSON document cut short or damaged at line {line}"
        return None
    if text[end:].strip():
        result.warn(text.count("\n", 0, end) + 1, "skipped text after the JSON document")
    return doc


# Salvage for a document cut short: host keys, timestamps and flat cpu-load objects, in order.
_SALVAGE = re.compile(
    r'"(?P<key>nodename|sysname|release|machine|number-of-cpus|date|timestamp)"\s*:\s*'
    r'(?P<value>"[^"\n]*"|-?\d+)'
    r'|(?P<block>"(?:cpu-load|node-load|sum-interrupts|individual-interrupts|soft-interrupts)")'
    r'|(?P<obj>\{\s*"cpu"\s*:[^{}\[\]]*\})')


def _salvage(text: str) -> list[dict]:
    """Hosts rebuilt from whatever complete pieces a cut-short document holds."""
    hosts: list[dict] = []
    host: dict | None = None
    stat: dict | None = None
    block = None
    for m in _SALVAGE.finditer(text):
        if m.group("key"):
            key = m.group("key")
            try:
                # strict=False: a raw tab in a string is a damaged file, not a reason to crash
                value = json.loads(m.group("value"), strict=False)
            except json.JSONDecodeError:
                value = None  # a bad escape ("\x"): the key is known, its value is not
            if key == "nodename" or host is None:
                host = {"statistics": []}
                hosts.append(host)
                stat = None
            if key == "timestamp":
                stat = {"timestamp": value, "cpu-load": []}
                host["statistics"].append(stat)
            else:
                host[key] = value
        elif m.group("block"):
            block = m.group("block").strip('"')
        elif m.group("obj") and block == "cpu-load" and stat is not None:
            try:
                stat["cpu-load"].append(json.loads(m.group("obj")))
            except json.JSONDecodeError:
                pass
    return hosts


# --------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the document; tests compare it with the row-by-row reading (``read_by_reference``)."""
    # The decoded document is millions of acyclic objects: without no_gc() the collector
    # rescans them again and again while the table is built.
    with no_gc():
        return _parse(text, fast_readers_on())


def _parse(text: str, fast: bool) -> ParseResult:
    result = ParseResult(format=NAME)
    doc = _document(text, result)
    if doc is not None:
        hosts = _hosts(doc)
        if hosts is None:
            raise ParseError("JSON document without sysstat.hosts[] (not mpstat -o JSON)", 1)
    else:
        hosts = _salvage(text)
        if not hosts:
            first = next((i for i in result.issues if i.severity == "error"), None)
            raise ParseError(first.reason if first else "no JSON document found",
                             first.line if first else None)
    skipped_blocks: set[str] = set()
    parts: list = []
    for host in hosts:
        if isinstance(host, dict):
            _parse_host(host, result, skipped_blocks, parts, fast)
    joined = join_parts(parts)
    if joined:
        result.tables["cpu_samples"] = joined
    if skipped_blocks:
        result.warn(None, "blocks not read into cpu_samples: " + ", ".join(sorted(skipped_blocks)))
    rows = result.tables.get("cpu_samples", [])
    if not rows:
        if doc is None:
            raise ParseError("JSON cut short before any complete cpu-load entry",
                             next((i.line for i in result.issues if i.severity == "error"), None))
        raise ParseError("mpstat JSON without any cpu-load entry (mpstat -I or -N only?)")
    return result


def _hosts(doc: Any) -> list | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("sysstat"), dict):
        return None
    hosts = doc["sysstat"].get("hosts")
    return hosts if isinstance(hosts, list) else None


def _parse_host(host: dict, result: ParseResult, skipped_blocks: set[str], parts: list, fast: bool) -> None:
    base, note = parse_date(host.get("date") if isinstance(host.get("date"), str) else None)
    if note:
        result.warn(None, note)
    if host.get("date") is not None and base is None:
        result.warn(None, f"unreadable host date {host.get('date')!r}: sampled_at left null "
                          "unless a timestamp carries its own date")
    hostname = host.get("nodename") if isinstance(host.get("nodename"), str) else None
    ncpu = host.get("number-of-cpus")
    ncpu = ncpu if isinstance(ncpu, int) and not isinstance(ncpu, bool) else None
    if "hostname" not in result.facts:
        for key, fact in _HOST_FACTS:
            value = host.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
                result.facts[fact] = value
        if base is not None:
            result.facts["date"] = base.isoformat()
    stats = host.get("statistics")
    if not isinstance(stats, list):
        result.warn(None, f"host {hostname!r} has no statistics list")
        return
    timeline = Timeline(base)
    if fast and _host_columns(stats, timeline, hostname, ncpu, result, skipped_blocks, parts):
        return
    samples = _Samples(timeline, result)
    host_rows: list[dict] = []
    for stat in stats:
        if not isinstance(stat, dict):
            continue
        skipped_blocks.update(b for b in _SKIPPED_BLOCKS if b in stat)
        loads = stat.get("cpu-load")
        if not isinstance(loads, list):
            continue
        common = dict(zip(_SAMPLE_KEYS, samples.next(stat.get("timestamp"))))
        common.update({"is_since_boot": False, "source_block": "mpstat", "hostname": hostname,
                       "logical_cpus": ncpu})
        for entry in loads:
            row = _row(entry, common, result)
            if row is not None:
                host_rows.append(row)
    samples.warn_went_back(hostname)
    sample_index = samples.index
    if sample_index == 0 and host_rows:
        result.warn(None, "a single sample: it may be the since-boot report of mpstat without an "
                          "interval (is_since_boot left null)")
        for row in host_rows:
            row["is_since_boot"] = None
    parts.append(host_rows)


def _host_columns(stats: list, timeline: Timeline, hostname, ncpu, result: ParseResult,
                  skipped_blocks: set[str], parts: list) -> bool:
    """Fast path for one host: cpu_samples built column by column instead of a dict per row.

    A long ``-P ALL`` capture is 100,000s of cpu-load objects of one key set: each key's values
    are taken with one ``itemgetter`` pass and checked with ``min``/``max``/``map`` (C loops);
    only the per-sample time stamps stay a Python loop. Returns False, having changed nothing,
    when any row would get a warning, a null or be dropped (values not finite numbers, out of
    range, not adding up to 100, all zero), or the objects differ in keys: the row-by-row path
    then reads the host.
    """
    if set(map(type, stats)) - {dict}:
        return False
    loads_lists = [stat.get("cpu-load") for stat in stats]
    if set(map(type, loads_lists)) - {list, type(None)}:
        return False
    entries = [entry for loads in loads_lists if loads for entry in loads]
    keys = one_key_set(entries, "cpu")
    if keys is None:
        return False
    n = len(entries)
    # The percentage keys in finish_row's order (its sum must come out the same).
    present = sorted((PCT_COLUMNS.index(column), key, column)
                     for key, column in SYSSTAT_JSON_KEYS.items() if key in keys)
    names = [column for _, _, column in present]
    if len(set(names)) != len(names):
        return False  # "usr" and "user" both: the row-by-row path keeps the last one
    columns: dict[str, list] = {}
    if present:
        rows = list(zip(*(map(itemgetter(key), entries) for _, key, _ in present)))
        kinds = set(map(type, chain.from_iterable(rows)))
        if not kinds <= {float, int}:
            return False
        if int in kinds:
            rows = [tuple(map(float, row)) for row in rows]
        totals = list(map(_sequential_sum, rows))
        # A finite sum of totals means no nan or inf anywhere; then the range and the total
        # checks of finish_row, which would null, drop or note rows (the row-by-row path's job).
        if (not math.isfinite(sum(totals)) or min(map(min, rows)) < -0.05 or max(map(max, rows)) > 100.05
                or 0.0 in totals or max(totals) - 100.0 > TOLERANCE or 100.0 - min(totals) > TOLERANCE):
            return False
        columns = dict(zip(names, map(list, zip(*rows))))
    # From here on the host is ours: the per-sample loop places the stamps in order.
    stat_keys = set().union(*stats)
    skipped_blocks.update(b for b in _SKIPPED_BLOCKS if b in stat_keys)
    samples = _Samples(timeline, result)
    per_sample = [samples.next(stat.get("timestamp")) for stat, loads in zip(stats, loads_lists)
                  if loads is not None]
    counts = [len(loads) for loads in loads_lists if loads is not None]
    samples.warn_went_back(hostname)
    since_boot = False
    if samples.index == 0:
        result.warn(None, "a single sample: it may be the since-boot report of mpstat without an "
                          "interval (is_since_boot left null)")
        since_boot = None
    block = {name: repeat_each(list(values), counts) for name, values in zip(_SAMPLE_KEYS, zip(*per_sample))}
    block.update({"is_since_boot": [since_boot] * n, "source_block": ["mpstat"] * n,
                  "hostname": [hostname] * n, "logical_cpus": [ncpu] * n})
    cpus = [str(cpu).strip() for cpu in map(itemgetter("cpu"), entries)]
    block["cpu"] = ["all" if cpu in ("-1", "all") else cpu for cpu in cpus]
    block.update(columns)
    block["busy_pct"] = busy_column(columns.get("idle_pct"), columns.get("iowait_pct"),
                                    columns.get("steal_pct"), n)
    parts.append(Columns(block, n))
    return True


_SAMPLE_KEYS = ("sample_index", "sampled_at", "time_text", "elapsed_s", "interval_s")


class _Samples:
    """Numbers a host's samples and places their stamps: :meth:`next` gives the values of
    ``_SAMPLE_KEYS`` for the next sample (elapsed from the first placed one, interval from
    the previous placed one)."""

    def __init__(self, timeline: Timeline, result: ParseResult) -> None:
        self.timeline = timeline
        self.result = result
        self.index = -1
        self.first_axis = self.prev_axis = None

    def next(self, stamp: Any) -> tuple:
        self.index += 1
        axis, when = _place(stamp, self.timeline, self.result)
        if axis is not None and self.first_axis is None:
            self.first_axis = axis
        values = (self.index, when, stamp if isinstance(stamp, str) else None,
                  None if axis is None or self.first_axis is None else axis - self.first_axis,
                  None if axis is None or self.prev_axis is None else axis - self.prev_axis)
        if axis is not None:
            self.prev_axis = axis
        return values

    def warn_went_back(self, hostname: str | None) -> None:
        went_back = self.timeline.went_back
        if went_back:
            self.result.warn(None, f"host {hostname!r}: the time went back {len(went_back)} time(s) "
                                   "by less than 12 h (clock adjusted?): elapsed_s is not monotonic there")


def _place(stamp: Any, timeline: Timeline, result: ParseResult):
    """(axis seconds, datetime) of a statistics timestamp; (None, None) when unreadable."""
    if not isinstance(stamp, str):
        return None, None
    day, secs, zone, note = parse_timestamp(stamp)
    if note:
        result.warn(None, note)
    if secs is None:
        result.warn(None, f"unreadable timestamp {stamp!r}: sample kept without time")
        return None, None
    if day is not None:
        when = datetime(day.year, day.month, day.day) + timedelta(seconds=secs)
        if zone is not None:
            when = when.replace(tzinfo=zone)
        return timeline.dated(when)
    return timeline.clock(secs)


def _row(entry: Any, common: dict, result: ParseResult) -> dict | None:
    if not isinstance(entry, dict) or "cpu" not in entry:
        return None
    cpu = str(entry["cpu"]).strip()
    cpu = "all" if cpu in ("-1", "all") else cpu
    row = dict(common)
    row["cpu"] = cpu
    for key, column in SYSSTAT_JSON_KEYS.items():
        if key in entry:
            value = entry[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                row[column] = float(value)
            elif value is not None:
                result.warn(None, f"CPU {cpu} at {common['time_text']}: {key} = {value!r} "
                                  "is not a number: set to null")
    drop, notes = finish_row(row, TOLERANCE)
    if drop:
        result.warn(None, f"CPU {cpu} at {common['time_text']}: {drop}")
        return None
    for note in notes:
        result.warn(None, f"CPU {cpu} at {common['time_text']}: {note}")
    return row

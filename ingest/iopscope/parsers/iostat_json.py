"""iostat (sysstat) ``-o JSON`` output: plain, ``-x``, ``-s``, ``-m``, ``-g``, with or without ``-t``.

Tables written
--------------
``iostat_device_samples``  one row per ``disk`` entry per ``statistics`` entry
``cpu_samples``            one row per ``avg-cpu`` object (source_block ``iostat-avg-cpu``,
                           cpu ``all``, busy_pct = 100 - idle - iowait - steal)

Same columns and units as :mod:`iostat_text` (KiB/s, ms, percentages); keys are mapped by name:
``rkB/s``/``rMB/s``, ``rrqm`` (a percentage when ``rrqm/s`` is also there, sysstat >= 11.5; merges
per second in older JSON, which also used ``r``, ``w``, ``rkB``, ``kB_read_per_sec`` ...), ``util``.

Variants handled
----------------
* ``timestamp`` in ISO 8601 with a zone (``S_TIME_FORMAT=ISO``: stored in UTC), in the locale's
  ``%x %X`` form (put together with the host ``date``), or absent (no ``-t``: sampled_at null).
* Host facts: nodename, release, machine, number-of-cpus, date -> facts hostname, kernel, arch,
  logical_cpus, date (ISO). sysstat's JSON does not carry its version: tool_version null.
* Since-boot report: the first entry of ``statistics`` unless the file shows ``-y``: sysstat
  >= 12 leaves an empty line after ``"statistics": [`` for the skipped report, older sysstat a
  stray comma (invalid JSON, repaired here). Rule as in the text parser.
* ``-z``: a device missing from an entry's ``disk`` list (an empty list when none was active)
  gets a row of zeros with ``is_zero_filled``, as in the text parser; ``-c`` (no disk), ``-d``
  (no avg-cpu), ``-g`` groups (leading space, ``is_group``), several documents in one file
  (each a segment).
* A document cut short: the complete ``statistics`` entries are kept, status ``incomplete``.

Example
-------
>>> r = parse('{"sysstat": {"hosts": [{"nodename": "db1", "release": "6.1.0", '
...           '"machine": "x86_64", "number-of-cpus": 2, "date": "2026-11-21", "statistics": [{'
...           '"timestamp": "2026-11-21T10:00:01+0100", "avg-cpu": {"user": 2.0, "nice": 0.0, '
...           '"system": 1.0, "iowait": 3.0, "steal": 0.0, "idle": 94.0}, "disk": [{'
...           '"disk_device": "sda", "r/s": 10.0, "rMB/s": 1.5, "rrqm/s": 1.0, "rrqm": 9.09, '
...           '"util": 4.0}]}]}]}}')
>>> row = r.tables["iostat_device_samples"][0]
>>> (row["read_kib_per_s"], row["rrqm_pct"], row["util_pct"], row["sampled_at"].isoformat())
(1536.0, 9.09, 4.0, '2026-11-21T09:00:01+00:00')
"""

from __future__ import annotations

import json
import re
from operator import itemgetter, methodcaller
from typing import Any

from iopscope.parsers._sysstat_common import (
    DEVICE_COLUMNS,
    JSON_ALIASES,
    JSON_CPU_KEYS,
    DateReader,
    ReportClock,
    cpu_row,
    CPU_BASE_KEYS,
    fill_idle_devices,
    UNIT_FACTOR,
    UNIT_PREFERENCE,
    finite_floats,
    join_parts,
    layout_of,
    omitted_devices,
    one_key_set,
    out_of_range,
    repeat_each,
    to_whole,
    unit_of,
)
from iopscope.parsers._sysstat_values import busy_column, json_number
from iopscope.parsers.base import Columns, ParseError, ParseResult, fast_readers_on, no_gc

NAME = "iostat_json"
VERSION = "1.1.0"
TOOL = "iostat"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)

DEVICE_TABLE = "iostat_device_samples"
CPU_TABLE = "cpu_samples"

_STATS_OPEN = re.compile(r'"statistics"\s*:\s*\[([\s,]*)')
_STRAY_COMMA = re.compile(r'("statistics"\s*:\s*\[)\s*,')
_is_group = methodcaller("startswith", " ")  # -g groups print their name after a space


def detect(head: str, filename: str) -> float:
    if '"sysstat"' not in head or not head.lstrip().startswith("{"):
        return 0.0
    if '"file-date"' in head or '"file-utc-time"' in head:
        return 0.0  # sadf -j (sar data files), not iostat
    if '"disk_device"' in head or '"avg-cpu"' in head:
        return 0.95
    if '"disk"' in head and '"statistics"' in head:
        return 0.6
    return 0.0


# --------------------------------------------------------------------------- reading


def _documents(text: str, result: ParseResult) -> list[tuple[int, int, Any]]:
    """(start offset, 1-based line, object) of every JSON document; damaged ones salvaged."""
    decoder = json.JSONDecoder()
    docs: list[tuple[int, int, Any]] = []
    pos, n = 0, len(text)
    while pos < n:
        start = text.find("{", pos)
        if start < 0:
            if text[pos:].strip():
                _junk(text, pos, n, result)
            break
        if text[pos:start].strip():
            _junk(text, pos, start, result)
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            end = _next_document(text, start)
            chunk = text[start:end]
            repaired = _STRAY_COMMA.sub(r"\1", chunk)
            if repaired != chunk:
                try:
                    obj, _ = decoder.raw_decode(repaired)
                    docs.append((start, _line(text, start), obj))
                    pos = end
                    continue
                except json.JSONDecodeError:
                    pass
            salvaged = _salvage(text, start, end, result, exc)
            if salvaged is not None:
                docs.append((start, _line(text, start), salvaged))
            pos = end
            continue
        docs.append((start, _line(text, start), obj))
        pos = end
    return docs


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _next_document(text: str, start: int) -> int:
    nxt = text.find('\n{"sysstat"', start + 1)
    return len(text) if nxt < 0 else nxt + 1


def _junk(text: str, start: int, end: int, result: ParseResult) -> None:
    first = _line(text, start)
    for offset, line in enumerate(text[start:end].split("\n")):
        if line.strip():
            result.warn(first + offset, f"skipped non-JSON text: {line.strip()[:120]}")


def _salvage(text: str, start: int, end: int, result: ParseResult, exc: json.JSONDecodeError):
    """A document cut short: rebuild it from its host header and its complete statistics."""
    result.status = "incomplete"
    where = min(exc.pos, len(text))
    m = _STATS_OPEN.search(text, start, end)
    if not m:
        result.error(_line(text, where), f"JSON document cut short or damaged: {exc.msg}")
        return None
    host_open = text.rfind("{", start, m.start())
    host: dict = {}
    if host_open > start:
        header = text[host_open:m.start()].rstrip().rstrip(",") + "}"
        try:
            parsed = json.loads(header)
            host = parsed if isinstance(parsed, dict) else {}
        except json.JSONDecodeError:
            host = {}
    decoder = json.JSONDecoder()
    stats: list = []
    pos = m.end()
    cut_at = None
    while pos < end:
        while pos < end and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= end or text[pos] != "{":
            if pos < end and text[pos] == "]":
                # The statistics array closed: the damage is after it.
                cut_at = None
            else:
                cut_at = pos
            break
        try:
            entry, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as inner:
            cut_at = inner.pos
            break
        stats.append(entry)
    at = cut_at if cut_at is not None else where
    result.error(_line(text, min(at, len(text))),
                 f"JSON document cut short or damaged ({exc.msg}): kept {len(stats)} complete report(s)")
    host["statistics"] = stats
    return {"sysstat": {"hosts": [host]}}


# --------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the documents; tests compare it with the row-by-row reading (``read_by_reference``)."""
    # The decoded document is millions of acyclic objects: without no_gc() the collector
    # rescans them again and again while the tables are built.
    with no_gc():
        return _parse(text, fast_readers_on())


def _parse(text: str, fast: bool) -> ParseResult:
    result = ParseResult(format=NAME)
    if not text.strip():
        raise ParseError("empty file")
    docs = _documents(text, result)
    found = False
    clock = ReportClock()
    cache: dict[tuple, tuple] = {}
    warned: set[str] = set()
    parts: dict[str, list] = {CPU_TABLE: [], DEVICE_TABLE: []}
    for start, line, doc in docs:
        hosts = _hosts(doc)
        if hosts is None:
            result.warn(line, "JSON document without sysstat.hosts: skipped")
            continue
        found = True
        m = _STATS_OPEN.search(text, start)
        skipped = bool(m) and ("," in m.group(1) or m.group(1).count("\n") >= 2)
        for host in hosts:
            if isinstance(host, dict):
                _parse_host(host, line, skipped, clock, cache, warned, result, parts, fast)
    for table, table_parts in parts.items():
        joined = join_parts(table_parts)
        if joined:
            result.tables[table] = joined
    if not found:
        first_error = next((i for i in result.issues if i.severity == "error"), None)
        if docs:
            raise ParseError("JSON found, but no iostat document (no sysstat.hosts)", docs[0][1])
        raise ParseError(first_error.reason if first_error else "no JSON document found",
                         first_error.line if first_error else None)
    return result


def _hosts(doc: Any) -> list | None:
    if not isinstance(doc, dict):
        return None
    sysstat = doc.get("sysstat")
    if not isinstance(sysstat, dict):
        return None
    hosts = sysstat.get("hosts")
    return hosts if isinstance(hosts, list) else None


def _parse_host(host: dict, line: int, skipped: bool, clock: ReportClock, cache: dict,
                warned: set, result: ParseResult, parts: dict[str, list], fast: bool) -> None:
    date_text = host.get("date") if isinstance(host.get("date"), str) else None
    stats = host.get("statistics")
    stats = stats if isinstance(stats, list) else []
    stamps = [s.get("timestamp") for s in stats[:50] + stats[-50:]
              if isinstance(s, dict) and isinstance(s.get("timestamp"), str)]
    dates = DateReader(([date_text] if date_text else []) + stamps)
    day = dates.parse_date(date_text)
    dates.set_base_date(day)
    hostname = host.get("nodename") if isinstance(host.get("nodename"), str) else None
    cpus = host.get("number-of-cpus")
    cpus = cpus if isinstance(cpus, int) and not isinstance(cpus, bool) else None
    if not result.facts:
        result.facts = {
            "kernel": host.get("release") if isinstance(host.get("release"), str) else None,
            "hostname": hostname,
            "date": day.isoformat() if day else None,
            "arch": host.get("machine") if isinstance(host.get("machine"), str) else None,
            "logical_cpus": cpus,
        }
    elif hostname != result.facts.get("hostname"):
        result.warn(line, f"document of another host ({hostname}): facts are from the first one")
    clock.banner()
    if fast and _host_columns(stats, dates, clock, skipped, hostname, cpus, line, cache, warned, result, parts):
        return
    cpu_rows: list[dict] = []
    dev_rows: list[dict] = []
    parts[CPU_TABLE].append(cpu_rows)
    parts[DEVICE_TABLE].append(dev_rows)
    reports: list[tuple[dict, int]] = []   # (report base, index of its first device row)
    for entry in stats:
        if not isinstance(entry, dict):
            result.warn(line, "statistics entry is not an object: skipped")
            continue
        time_text = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        ts = dates.parse_timestamp(time_text) if time_text else None
        if time_text and ts is None:
            result.warn(line, f"timestamp not understood (sampled_at left null): {time_text[:80]}")
        sample = clock.open(time_text, ts, skipped)
        cpu = entry.get("avg-cpu")
        if isinstance(cpu, dict):
            values = {col: json_number(cpu.get(key)) for key, col in JSON_CPU_KEYS.items() if key in cpu}
            for note in out_of_range(values):
                result.warn(line, note)
            cpu_rows.append(cpu_row(sample, values, hostname, cpus))
        disks = entry.get("disk")
        if isinstance(disks, list):
            reports.append((sample, len(dev_rows)))
            for disk in disks:
                if isinstance(disk, dict):
                    row = _disk_row(disk, sample, cache, warned, line, result)
                    if row is not None:
                        dev_rows.append(row)
    if omitted_devices([r["device"] for r in dev_rows], reports):
        dev_rows[:] = fill_idle_devices(dev_rows, reports)


def _omits_devices(disk_lists: list) -> bool:
    """True when some report lists fewer devices than the host has (iostat -z)."""
    names = [{d.get("disk_device") for d in disks if isinstance(d, dict)} for disks in disk_lists if isinstance(disks, list)]
    every = set().union(*names) if names else set()
    return any(n != every for n in names)


def _host_columns(stats: list, dates: DateReader, clock: ReportClock, skipped: bool, hostname, cpus,
                  line: int, cache: dict, warned: set, result: ParseResult, parts: dict[str, list]) -> bool:
    """Fast path for one host: its tables built column by column instead of one dict per row.

    A long capture is tens of thousands of disk objects of one key set: taking each key's
    values with one ``itemgetter`` pass and converting them with ``map`` costs a fraction of a
    Python loop per row. Only the per-report work (time stamp, report number) stays a loop.
    Returns False, having changed nothing, when the host holds anything the row-by-row path
    would warn about or treat specially (non-objects, nameless disks, mixed or unknown keys,
    values that are not finite numbers, avg-cpu out of range): that path then reads the host.
    """
    if set(map(type, stats)) - {dict}:
        return False
    disk_lists = [entry.get("disk") for entry in stats]
    cpu_objects = [entry.get("avg-cpu") for entry in stats]
    if set(map(type, disk_lists)) - {list, type(None)} or set(map(type, cpu_objects)) - {dict, type(None)}:
        return False
    disks = [disk for disk_list in disk_lists if disk_list for disk in disk_list]
    if _omits_devices(disk_lists):
        return False  # -z: the row-by-row path fills in the devices left out
    disk_columns: dict[str, list] = {}
    if disks:
        keys = one_key_set(disks, "disk_device")
        if keys is None:
            return False
        compiled = cache.get(keys)
        if compiled is None:
            compiled = _compile(keys)
            if compiled[3]:
                return False  # unknown keys: warned about where the row-by-row path meets them
            cache[keys] = compiled
        names = list(map(itemgetter("disk_device"), disks))
        if set(map(type, names)) != {str}:
            return False
        devices = list(map(str.strip, names))
        if "" in devices:
            return False
        plan, layout, unit, _ = compiled
        disk_columns = {"device": devices, "is_group": list(map(_is_group, names)),
                        "layout": [layout] * len(disks), "unit_source": [unit] * len(disks)}
        for key, column, factor, is_int in plan:
            values = finite_floats(list(map(itemgetter(key), disks)))
            if values is None:
                return False
            if factor != 1.0:
                values = list(map(factor.__mul__, values))
            disk_columns[column] = list(map(to_whole, values)) if is_int else values
    cpu_rows = [c for c in cpu_objects if c is not None]
    cpu_columns: dict[str, list] = {}
    if cpu_rows:
        key_sets = set(map(tuple, cpu_rows))
        if len(key_sets) != 1:
            return False
        keys = key_sets.pop()
        for key, column in JSON_CPU_KEYS.items():
            if key in keys:
                values = finite_floats(list(map(itemgetter(key), cpu_rows)))
                if values is None or min(values) < -0.05 or max(values) > 100.05:
                    return False  # out of range: nulled with a warning by the row-by-row path
                cpu_columns[column] = values
    # From here on the host is ours: the per-report loop (stamps are read in order).
    samples = []
    for entry in stats:
        time_text = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        ts = dates.parse_timestamp(time_text) if time_text else None
        if time_text and ts is None:
            result.warn(line, f"timestamp not understood (sampled_at left null): {time_text[:80]}")
        samples.append(clock.open(time_text, ts, skipped))
    if cpu_rows:
        cpu_samples = [s for s, c in zip(samples, cpu_objects) if c is not None]
        n = len(cpu_samples)
        block = {key: [s[key] for s in cpu_samples] for key in CPU_BASE_KEYS}
        block.update({"source_block": ["iostat-avg-cpu"] * n, "cpu": ["all"] * n,
                      "hostname": [hostname] * n, "logical_cpus": [cpus] * n})
        block.update(cpu_columns)
        block["busy_pct"] = busy_column(cpu_columns.get("idle_pct"), cpu_columns.get("iowait_pct"),
                                        cpu_columns.get("steal_pct"), n)
        parts[CPU_TABLE].append(Columns(block, n))
    if disks:
        counts = [len(d) if d else 0 for d in disk_lists]
        block = {key: repeat_each([s[key] for s in samples], counts) for key in samples[0]}
        block.update(disk_columns)
        parts[DEVICE_TABLE].append(Columns(block, len(disks)))
    return True


def _compile(keys: tuple) -> tuple:
    """Key set of a disk object -> ([(key, column, factor, is_int)], layout, unit, unknown keys)."""
    has_merge_rate = "rrqm/s" in keys or "wrqm/s" in keys
    tokens: list[tuple[str, str]] = []
    unknown: list[str] = []
    for key in keys:
        if key == "disk_device":
            continue
        if key in ("rrqm", "wrqm", "drqm"):
            token = "%" + key if has_merge_rate else key + "/s"
        else:
            token = JSON_ALIASES.get(key, key)
        if token in DEVICE_COLUMNS:
            tokens.append((key, token))
        else:
            unknown.append(key)
    plan = []
    seen: dict[str, int] = {}
    for key, token in tokens:
        column, kind = DEVICE_COLUMNS[token]
        pref = UNIT_PREFERENCE.get(kind, 0)
        if column in seen and seen[column] <= pref:
            continue
        seen[column] = pref
        plan = [p for p in plan if p[1] != column]
        plan.append((key, column, UNIT_FACTOR[kind], bool(kind and kind.startswith("int-"))))
    names = [t for _, t in tokens]
    return plan, layout_of(names), unit_of(names), unknown


def _disk_row(disk: dict, sample: dict, cache: dict, warned: set, line: int, result: ParseResult):
    name = disk.get("disk_device")
    if not isinstance(name, str) or not name.strip():
        result.warn(line, "disk entry without disk_device: skipped")
        return None
    keys = tuple(disk)
    compiled = cache.get(keys)
    if compiled is None:
        compiled = cache[keys] = _compile(keys)
        for key in compiled[3]:
            if key not in warned:
                warned.add(key)
                result.warn(line, f"unknown iostat JSON key {key!r} ignored")
    plan, layout, unit, _ = compiled
    row = dict(sample)
    row["device"] = name.strip()
    row["is_group"] = name.startswith(" ")
    row["layout"] = layout
    row["unit_source"] = unit
    for key, column, factor, is_int in plan:
        value = json_number(disk.get(key))
        if value is not None:
            value *= factor
            if is_int:
                value = to_whole(value)
        row[column] = value
    return row

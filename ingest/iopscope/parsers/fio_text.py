"""fio's default human-readable output (``--output-format=normal``), fio 2.x to 3.x.

Tables written (the same tables, units and columns as ``fio_json``)
---------------------------------------------------------------------
``fio_jobs``               one row per result block x direction (read, write, trim, mixed)
``fio_percentiles``        one row per printed latency percentile (clat, lat, slat)
``fio_disk_util``          the ``Disk stats (read/write):`` lines, md ``aggr*`` values included
``fio_run_status_groups``  the ``Run status group N (all jobs):`` lines (text only)

Variants handled
----------------
* Job header lines, 2.x ``bs=4K-4K/4K-4K/4K-4K`` and 3.x ``bs=(R) 4096B-4096B, (W) ...``;
  ``...`` after a header (numjobs > 1); ``Starting N processes``; ``Laying out IO file`` lines;
  progress lines (``Jobs: ...``, also ``\\r``-separated on one line) and CRLF line ends.
* Result blocks per job or per group (``jobs=N`` with group_reporting); direction lines old
  style ``read : io=32708KB, bw=557417B/s, iops=136, runt= 60086msec`` (B/s, KB/s, MB/s: fio
  2.x's K/M/G are powers of 1024) and new style ``read: IOPS=47.3k, BW=185MiB/s (194MB/s)
  (10.8GiB/60001msec)`` (MiB = 2^20, MB = 10^6); ``slat``/``clat``/``lat`` lines whose unit
  (nsec, usec, msec, sec) is given per line and whose values may carry k/K/M suffixes (x1000);
  percentile blocks in any unit; ``bw (KB  /s)`` / ``bw (  KiB/s)`` / ``bw (  MiB/s)`` and
  ``iops :`` lines; ``cpu :``; ``issued : total=r=/w=/d=`` (2.x), ``issued rwt:`` and
  ``issued rwts:`` (3.x); fsync blocks and latency distributions are recognised and not stored.
* ``Run status group`` summaries, old (``aggrb=, minb=, maxb=, mint=, maxt=``) and new
  (``bw=..., min-max, io=, run=min-max``); several groups; several jobs per group.
* Several fio outputs concatenated in one file: each gets its own ``doc_index``. With
  ``--status-interval`` the same jobs are reported again (no new header): each earlier snapshot
  is its own document with ``is_interim`` true.
* ``group_reporting`` over several job sections with different headers: one block mixes
  workloads, so rw / block size / iodepth / numjobs are left null (with a warning).
* An output with only fio's error lines (``fio: ...``, ``error: ...``), headers allowed, is a
  ``failed`` run whose status_reason is the messages. A result block without its ``Run status
  group`` line means the output was cut short, and ``fio: terminating on signal N`` means the run
  was interrupted: both ``incomplete``, rows kept. Other ``fio:`` lines become warnings.

Units and precision
-------------------
Latencies are converted to microseconds, bandwidth to bytes/s (and KiB/s for the ``bw`` sample
statistics), as in ``fio_json``. The text prints IOPS, bandwidth and IO size with about three
significant digits; when the ``issued`` line gives the exact IO count, fio's own identities are
used instead: ``iops = total_ios * 1000 / runtime_ms`` and, for a fixed block size without short
IOs, ``io_bytes = total_ios * block size`` and ``bw = io_bytes * 1000 / runtime_ms``. Each derived
value is used only when it agrees with the printed one within the printed precision (otherwise the
printed value is kept and a warning says so). Minimum/maximum latencies and percentiles keep the
printed precision (whole units of the printed unit).

Workload columns (rw, block size, ioengine, iodepth) come from the job's header line, never from
its name; ``numjobs`` from ``...`` + the block count or ``jobs=``; options fio does not print
(direct, size, runtime, rwmixread ...) are null. ``job_options_json`` holds the header's options.

Example
-------
>>> r = parse('''j: (g=0): rw=randread, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=8
... fio-2.2.10
... Starting 1 process
... j: (groupid=0, jobs=1): err= 0: pid=1: Fri Jun 19 01:26:06 2020
...   read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec
...     clat (msec): min=1, max=20, avg= 2.50, stdev= 0.50
...      issued    : total=r=1000/w=0/d=0, short=r=0/w=0/d=0
...
... Run status group 0 (all jobs):
...    READ: io=4000KB, aggrb=400KB/s, minb=400KB/s, maxb=400KB/s, mint=10000msec, maxt=10000msec
... ''')
>>> row = r.tables["fio_jobs"][0]
>>> (row["direction"], row["rw"], row["iops"], row["io_bytes"], row["clat_mean_us"], r.tool_version)
('read', 'randread', 100.0, 4096000, 2500.0, '2.2.10')
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from iopscope.parsers.base import ParseError, ParseResult
from iopscope.units import fio_size_bytes

NAME = "fio_text"
VERSION = "1.0.0"
TOOL = "fio"

DIRECTIONS = ("read", "write", "trim", "mixed")
_DIR_INDEX = {"read": 0, "write": 1, "trim": 2}
LATENCY_KINDS = ("slat", "clat", "lat")
_TIME_TO_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3, "sec": 1e6}
_NO_STATS: dict[str, float | None] = {}

# --------------------------------------------------------------------------- line matching

_HEADER = re.compile(r"^(?P<name>.+?): \(g=(?P<g>\d+)\): (?P<opts>rw=.*?)\s*$")
_CLONES = re.compile(r"^\.\.\.\s*$")
_VERSION = re.compile(r"^fio-(?P<v>\d+\.\d+\S*)\s*$")
_STARTING = re.compile(r"^Starting (?P<n>\d+) (?:process|processes|thread|threads)"
                       r"(?: and (?P<m>\d+) (?:process|processes|thread|threads))?\s*$")
_LAYOUT = re.compile(r"^.*: Laying out IO files?\b")
_PROGRESS = re.compile(r"^\s*Jobs: \d+")
_RESULT = re.compile(r"^(?P<name>.+?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
                     r"(?: \((?P<detail>.*?)\))?(?:: pid=(?P<pid>\d+))?(?:: (?P<when>.+?))?\s*$")
_DIR_OLD = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*io=(?P<io>[^,\s]+),\s*bw=(?P<bw>[^,\s]+?)/s,"
                      r"\s*iops=(?P<iops>[^,\s]+),\s*runt=\s*(?P<runt>\d+)\s*msec")
_DIR_NEW = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*IOPS=(?P<iops>[^,\s]+),\s*BW=(?P<bw>\S+?)/s"
                      r"\s*\((?P<bwdec>\S+?)/s\)\s*\((?P<io>[^/\s]+)/(?P<runt>\d+)\s*msec\)")
_SYNC_HEAD = re.compile(r"^\s+fsync/fdatasync/sync_file_range:\s*$")
_LAT_STAT = re.compile(r"^\s+(?P<kind>slat|clat|lat|sync)\s*\((?P<unit>nsec|usec|msec|sec)\)\s*:\s*(?P<kv>min=.*)$")
_PRIO = re.compile(r"^\s+(?:slat|clat|lat)\s+(?:prio|high|low)\b")
_PCT_HEAD = re.compile(r"^\s+(?P<kind>slat|clat|lat|sync)\s+percentiles\s*\((?P<unit>nsec|usec|msec|sec)\)\s*:\s*$")
_PCT_ROW = re.compile(r"^\s+\|(?P<body>.*)$")
_PCT_PAIR = re.compile(r"(\d+(?:\.\d+)?)th=\[\s*(\d+(?:\.\d+)?)\s*\]")
_BW_STAT = re.compile(r"^\s+bw\s*\(\s*(?P<unit>[KMGTkP]?i?B)\s*/s\)\s*:\s*(?P<kv>min=.*)$")
_IOPS_STAT = re.compile(r"^\s+iops\s*:\s*(?P<kv>min=.*)$")
_LAT_DIST = re.compile(r"^\s+lat\s*\((?:nsec|usec|msec|sec)\)\s*:\s*(?:>=|<=|<|>)?\s*\d+=")
_CPU = re.compile(r"^\s+cpu\s*:\s*usr=(?P<usr>\d+(?:\.\d+)?)%,\s*sys=(?P<sys>\d+(?:\.\d+)?)%,\s*ctx=(?P<ctx>\d+),"
                  r"\s*majf=(?P<majf>\d+),\s*minf=(?P<minf>\d+)")
_IGNORED_JOB_LINE = re.compile(r"^\s+(?:IO depths|submit|complete|latency|Description|clat prio|"
                               r"lat prio|slat prio)\s*:")
_ISSUED_OLD = re.compile(r"^\s+issued\s*:\s*total=r=(?P<r>\d+)/w=(?P<w>\d+)(?:/d=(?P<d>\d+))?"
                         r"(?:,\s*short=r=(?P<sr>\d+)/w=(?P<sw>\d+)(?:/d=(?P<sd>\d+))?)?"
                         r"(?:,\s*drop=r=(?P<dr>\d+)/w=(?P<dw>\d+)(?:/d=(?P<dd>\d+))?)?")
_ISSUED_NEW = re.compile(r"^\s+issued rwts?\s*:\s*total=(?P<total>\d+(?:,\d+)*),?"
                         r"(?:\s+short=(?P<short>\d+(?:,\d+)*),?)?(?:\s+dropped=(?P<dropped>\d+(?:,\d+)*),?)?")
_GROUP = re.compile(r"^Run status group (?P<g>\d+) \(all jobs\):\s*$")
_GROUP_OLD = re.compile(r"^\s*(?P<dir>READ|WRITE|TRIM|MIXED)\s*:\s*io=(?P<io>[^,\s]+),\s*aggrb=(?P<bw>\S+?)/s,"
                        r"\s*minb=(?P<minb>\S+?)/s,\s*maxb=(?P<maxb>\S+?)/s,\s*mint=(?P<mint>\d+)\s*msec,"
                        r"\s*maxt=(?P<maxt>\d+)\s*msec")
_GROUP_NEW = re.compile(r"^\s*(?P<dir>READ|WRITE|TRIM|MIXED)\s*:\s*bw=(?P<bw>\S+?)/s\s*\((?P<bwdec>\S+?)/s\),"
                        r"\s*(?P<minb>\S+?)/s-(?P<maxb>\S+?)/s\s*\(\S+?/s-\S+?/s\),\s*io=(?P<io>\S+)"
                        r"\s*\((?P<iodec>\S+)\),\s*run=(?P<mint>\d+)-(?P<maxt>\d+)\s*msec")
_DISK_HEAD = re.compile(r"^Disk stats \(read/write\):\s*$")
_DISK = re.compile(r"^\s+(?P<name>[^\s:]+):\s*(?P<kv>ios=.*)$")
_ERROR_LINE = re.compile(r"^(?:fio:|error:|fio: pid=)\s*\S")
_SIGNAL = re.compile(r"^fio: terminating on signal \d+")
_NO_IO = re.compile(r"^\S.*: No I/O performed by ")
_KV = re.compile(r"(\w+)=\s*([^,\s]+)")
_OPT_SPLIT = re.compile(r",\s*(?=\w+=)")
_BS_PARTS = re.compile(r"\(([RWT])\)\s*([^,\s]+)")
# The usual slat/clat/lat line (plain numbers, fio's own spacing): _LAT_STAT reads it the same.
_N = r"([0-9]++(?:\.[0-9]++)?)"
_LAT_FAST = re.compile(rf"^\s+(slat|clat|lat)\s*\((nsec|usec|msec|sec)\)\s*:\s*"
                       rf"min=\s*{_N}, max=\s*{_N}, avg=\s*{_N}, stdev=\s*{_N}$")
_BW_FAST = re.compile(rf"^\s+bw\s*\(\s*([KMGTkP]?i?B)\s*/s\)\s*:\s*min=\s*{_N}, max=\s*{_N}, per=\s*{_N}%, "
                      rf"avg=\s*{_N}, stdev=\s*{_N}(?:, samples=\s*{_N})?$")
_IOPS_FAST = re.compile(rf"^\s+iops\s*:\s*min=\s*{_N}, max=\s*{_N}, avg=\s*{_N}, stdev=\s*{_N}, samples=\s*{_N}$")
_LAT_WORDS = frozenset(("slat", "clat", "lat", "sync"))
_PLAIN_WORDS = frozenset(("IO", "submit", "complete", "latency", "Description"))
# A full percentile row (what follows its '|'): _PCT_PAIR.findall gives these four pairs.
_PCT_P = rf"{_N}th=\[ *+{_N}\]"
_PCT_ROW4 = re.compile(rf" *+{_PCT_P}, *+{_PCT_P}, *+{_PCT_P}, *+{_PCT_P},?$")

# --------------------------------------------------------------------------- number conversion

_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_COUNT = re.compile(r"^(?P<num>\d+(?:\.(?P<dec>\d+))?)(?P<suf>[kKMGT]?)$")
_SIZE = re.compile(r"^(?P<num>\d+(?:\.(?P<dec>\d+))?)(?P<pre>[kKMGTP]?)(?P<i>i?)B$")
_POW = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}


def _count(text: str | None) -> tuple[float, float] | None:
    """'70.5k' -> (70500.0, 100.0): value and one unit of its last printed digit (k/M = x1000)."""
    m = _COUNT.match(text or "")
    if not m:
        return None
    mult = _SUFFIX[m.group("suf")]
    decimals = len(m.group("dec") or "")
    return float(m.group("num")) * mult, mult * 10.0 ** -decimals


def _num(text: str | None) -> float | None:
    c = _count(text)
    return None if c is None else c[0]


def _size(text: str | None, legacy: bool) -> tuple[float, float] | None:
    """'276MiB' / '289MB' / '32708KB' -> (bytes, one unit of the last printed digit).

    KiB/MiB/... are powers of 1024 and kB is 1000 in every version; KB/MB/GB are powers of
    1024 in fio 2.x (``legacy``) and of 1000 in fio 3.x.
    """
    m = _SIZE.match(text or "")
    if not m:
        return None
    pre = m.group("pre")
    power = _POW[pre.upper()]
    if m.group("i") or (legacy and pre != "k"):
        unit = 1024.0 ** power
    else:
        unit = 1000.0 ** power
    decimals = len(m.group("dec") or "")
    return float(m.group("num")) * unit, unit * 10.0 ** -decimals


_BYTES_UNITS: dict[tuple[str, bool], float | None] = {}  # a few dozen labels at most (see _BW_STAT)


def _bytes_unit(label: str, legacy: bool) -> float | None:
    key = (label, legacy)
    if key not in _BYTES_UNITS:
        got = _size("1" + label, legacy)
        _BYTES_UNITS[key] = None if got is None else got[0]
    return _BYTES_UNITS[key]


def _kv(text: str) -> dict[str, str]:
    return {k: v.rstrip("%") for k, v in _KV.findall(text)}


def _agrees(derived: float, printed: tuple[float, float] | None) -> bool:
    if printed is None:
        return True
    value, unit = printed
    return abs(derived - value) <= unit * 1.001 + 1e-9 * abs(value)


# --------------------------------------------------------------------------- structure


@dataclass
class _Header:
    name: str
    line: int
    group: int
    opts: dict[str, str]
    clones: bool = False


@dataclass
class _Dir:
    direction: str
    line: int
    legacy: bool
    io: tuple[float, float] | None
    bw: tuple[float, float] | None
    iops: tuple[float, float] | None
    runtime_ms: int | None
    lat: dict[str, dict[str, float | None]] = field(default_factory=dict)
    bw_stats: dict[str, float | None] = field(default_factory=dict)
    iops_stats: dict[str, float | None] = field(default_factory=dict)
    pct: list[tuple[str, float, float]] = field(default_factory=list)


@dataclass
class _Job:
    name: str
    line: int
    group_id: int
    jobs: int
    err: int | None
    dirs: dict[str, _Dir] = field(default_factory=dict)
    cpu: dict[str, Any] = field(default_factory=dict)
    issued: dict[str, tuple[int | None, int | None, int | None]] = field(default_factory=dict)


@dataclass
class _Doc:
    index: int
    version: str | None = None
    starting: int | None = None
    headers: list[_Header] = field(default_factory=list)
    jobs: list[_Job] = field(default_factory=list)
    groups: list[dict] = field(default_factory=list)
    group_ids: set[int] = field(default_factory=set)
    disks: list[dict] = field(default_factory=list)
    last_line: int = 0
    interim: bool = False  # a --status-interval snapshot that a later one of the same run supersedes

    @property
    def has_results(self) -> bool:
        return bool(self.jobs or self.groups or self.disks)


_SYNC = object()  # direction context of an fsync block: read, not stored


def detect(head: str, filename: str) -> float:
    if re.search(r"^.+?: \(groupid=\d+, jobs=\d+\): err=", head, re.M) or \
            re.search(r"^Run status group \d+ \(all jobs\):", head, re.M):
        return 0.9
    if re.search(r"^.+?: \(g=\d+\): rw=", head, re.M):
        return 0.85
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()]
    if lines and len(head) < 8192 and all(_ERROR_LINE.match(ln) for ln in lines[:20]):
        return 0.4  # only fio's own error lines: a run that failed before its first job
    return 0.0


# --------------------------------------------------------------------------- parse


def _cr_segments(raw: str) -> list[str]:
    """A line holding \\r: its CR line end removed and \\r-overwritten progress dropped."""
    raw = raw.rstrip("\r")
    if "\r" not in raw:
        return [raw]
    kept = [seg for seg in raw.split("\r") if seg.strip() and not _PROGRESS.match(seg)]
    return kept or [""]


class _Reader:
    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.docs: list[_Doc] = [_Doc(0)]
        self.job: _Job | None = None
        self.dir: _Dir | object | None = None
        self.pct: tuple[_Dir | None, str, float] | None = None
        self.section = "head"  # head | job | group | disk
        self.errors: list[tuple[int, str]] = []
        self.group_id = 0

    @property
    def doc(self) -> _Doc:
        return self.docs[-1]

    def _new_doc_if_needed(self) -> None:
        if self.doc.has_results:
            self.docs.append(_Doc(len(self.docs)))
        self.job, self.dir, self.pct, self.section = None, None, None, "head"

    def _next_snapshot(self) -> None:
        """The same job reported again after its group summary: --status-interval output."""
        old = self.doc
        old.interim = True
        self.docs.append(_Doc(len(self.docs), old.version, old.starting, list(old.headers)))

    def feed(self, ln: int, s: str) -> None:
        # Each pattern is tried in the order below; a cheap test that every line it can match
        # passes (a prefix or a substring) skips the ones that cannot match.
        if not s or s.isspace():  # blank (str.isspace and str.strip agree on what is white space)
            self.pct = None
            return
        self.docs[-1].last_line = ln
        if self.section == "job" and s[:1] in " \t":
            t = s.lstrip()
            if t[0] == "|" and self.pct is not None:  # _PCT_ROW in a percentile block: the commonest line
                target, kind, scale = self.pct
                body = t[1:]
                m = _PCT_ROW4.match(body)
                if m:
                    if isinstance(target, _Dir):
                        p1, v1, p2, v2, p3, v3, p4, v4 = m.groups()
                        target.pct += [(kind, float(p1), float(v1) * scale), (kind, float(p2), float(v2) * scale),
                                       (kind, float(p3), float(v3) * scale), (kind, float(p4), float(v4) * scale)]
                    return
                pairs = _PCT_PAIR.findall(body)
                if not pairs and body.strip():
                    self.result.warn(ln, f"unreadable percentile row: {s.strip()[:120]}")
                if isinstance(target, _Dir):
                    target.pct += [(kind, float(pct), float(value) * scale) for pct, value in pairs]
                return
            if self._job_line(ln, s, t):
                return
        if "Jobs: " in s and _PROGRESS.match(s):
            return
        m = _HEADER.match(s) if ": (g=" in s else None
        if m:
            self._new_doc_if_needed()
            opts = {k: v.strip() for k, v in (p.split("=", 1) for p in _OPT_SPLIT.split(m["opts"]))}
            self.doc.headers.append(_Header(m["name"], ln, int(m["g"]), opts))
            return
        first = s[:1]
        if first == "." and _CLONES.match(s):
            if self.doc.headers:
                self.doc.headers[-1].clones = True
            return
        m = _VERSION.match(s) if first == "f" else None
        if m:
            if self.doc.has_results:
                self._new_doc_if_needed()
            if self.doc.version is None:
                self.doc.version = m["v"]
            return
        m = _STARTING.match(s) if first == "S" else None
        if m:
            self.doc.starting = int(m["n"]) + int(m["m"] or 0)
            return
        if ": Laying out IO file" in s and _LAYOUT.match(s):
            return
        m = _RESULT.match(s) if ": (groupid=" in s else None
        if m:
            if int(m["g"]) in self.doc.group_ids and any(
                    j.name == m["name"] and j.group_id == int(m["g"]) for j in self.doc.jobs):
                self._next_snapshot()
            self.job = _Job(m["name"], ln, int(m["g"]), int(m["jobs"]), int(m["err"]))
            self.doc.jobs.append(self.job)
            self.dir, self.pct, self.section = None, None, "job"
            return
        m = _GROUP.match(s) if first == "R" else None
        if m:
            self.job, self.dir, self.pct, self.section = None, None, None, "group"
            self.group_id = int(m["g"])
            self.doc.group_ids.add(self.group_id)
            return
        if first == "D" and _DISK_HEAD.match(s):
            self.job, self.dir, self.pct, self.section = None, None, None, "disk"
            return
        if _ERROR_LINE.match(s.strip()) or (": No I/O performed by " in s and _NO_IO.match(s)):
            self.errors.append((ln, s.strip()))
            return
        # (indented lines of a result block were tried first, at the top)
        if self.section == "group":
            if self._group_line(ln, s):
                return
        elif self.section == "disk":
            if "ios=" in s and self._disk_line(ln, s):
                return
        self.result.warn(ln, f"skipped unrecognised line: {s.strip()[:120]}")

    # -- inside a result block

    def _job_line(self, ln: int, s: str, t: str) -> bool:
        """One indented line of a result block (t: s without its indent, not blank); False when
        it is not one. Percentile rows of a percentile block were read by feed."""
        job = self.job
        assert job is not None
        if t[0] == "|":  # _PCT_ROW (whose body is what follows the '|') outside a percentile block
            self.result.warn(ln, "percentile row outside a percentile block")
            return True
        self.pct = None
        # Dispatch on the first word: every pattern below starts with its word, so a line
        # tries only the patterns its word allows, in the same order as always.
        word = t.split(None, 1)[0].rstrip(":")
        if word in _PLAIN_WORDS:  # IO depths, submit, complete, latency: only _IGNORED_JOB_LINE can match
            return bool(_IGNORED_JOB_LINE.match(s))
        if word in _LAT_WORDS:  # slat clat lat sync
            m = _LAT_FAST.match(s) if "min=" in s else None
            if m:  # the common shape of _LAT_STAT, read directly
                target = self._current_dir(ln)
                if target is not None:
                    scale = _TIME_TO_US[m[2]]
                    target.lat[m[1]] = {"min": float(m[3]) * scale, "max": float(m[4]) * scale,
                                        "mean": float(m[5]) * scale, "stdev": float(m[6]) * scale}
                return True
            m = _LAT_STAT.match(s) if "min=" in s else None
            if m:
                if m["kind"] == "sync":
                    self.dir = _SYNC
                    return True
                target = self._current_dir(ln)
                if target is not None:
                    scale = _TIME_TO_US[m["unit"]]
                    kv = _kv(m["kv"])
                    stats = {}
                    for key, col in (("min", "min"), ("max", "max"), ("avg", "mean"), ("stdev", "stdev")):
                        value = _num(kv.get(key))
                        if kv.get(key) is not None and value is None:
                            self.result.warn(ln, f"unreadable {m['kind']} {key}={kv.get(key)!r}")
                        stats[col] = None if value is None else value * scale
                    target.lat[m["kind"]] = stats
                return True
            m = _PCT_HEAD.match(s) if "percentiles" in s else None
            if m:
                target = None if m["kind"] == "sync" or self.dir is _SYNC else self._current_dir(ln)
                self.pct = (target, m["kind"], _TIME_TO_US[m["unit"]])
                return True
            return word != "sync" and bool((word == "lat" and _LAT_DIST.match(s)) or _PRIO.match(s)
                                           or _IGNORED_JOB_LINE.match(s))
        if word in DIRECTIONS:
            m = _DIR_OLD.match(s) if "io=" in s else None
            if m:
                self._start_dir(ln, m, legacy=True)
                return True
            m = _DIR_NEW.match(s) if "IOPS=" in s else None
            if m:
                self._start_dir(ln, m, legacy=False)
                return True
            return False
        if word == "bw":
            m = _BW_FAST.match(s)
            if m:  # the common shape of _BW_STAT, read directly
                target = self._current_dir(ln)
                unit = _bytes_unit(m[1], target.legacy if target else True)
                if target is not None and unit is not None:
                    factor = unit / 1024.0
                    target.bw_stats = {
                        "min": float(m[2]) * factor, "max": float(m[3]) * factor, "per": float(m[4]),
                        "mean": float(m[5]) * factor, "stdev": float(m[6]) * factor,
                        "samples": None if m[7] is None else float(m[7]),
                    }
                return True
            m = _BW_STAT.match(s)
            if m:
                target = self._current_dir(ln)
                unit = _bytes_unit(m["unit"], target.legacy if target else True)
                if target is not None and unit is not None:
                    kv = _kv(m["kv"])
                    factor = unit / 1024.0
                    target.bw_stats = {
                        "min": _scaled(kv.get("min"), factor), "max": _scaled(kv.get("max"), factor),
                        "per": _num(kv.get("per")),
                        "mean": _scaled(kv.get("avg"), factor), "stdev": _scaled(kv.get("stdev"), factor),
                        "samples": _num(kv.get("samples")),
                    }
                return True
            return False
        if word == "iops":
            m = _IOPS_FAST.match(s)
            if m:  # the common shape of _IOPS_STAT, read directly
                target = self._current_dir(ln)
                if target is not None:
                    target.iops_stats = {"min": float(m[1]), "max": float(m[2]), "mean": float(m[3]),
                                         "stdev": float(m[4]), "samples": float(m[5])}
                return True
            m = _IOPS_STAT.match(s)
            if m:
                target = self._current_dir(ln)
                if target is not None:
                    kv = _kv(m["kv"])
                    target.iops_stats = {k: _num(kv.get(src)) for k, src in
                                         (("min", "min"), ("max", "max"), ("mean", "avg"),
                                          ("stdev", "stdev"), ("samples", "samples"))}
                return True
            return False
        if word == "cpu":
            m = _CPU.match(s)
            if m:
                job.cpu = {"usr": float(m["usr"]), "sys": float(m["sys"]), "ctx": int(m["ctx"]),
                           "majf": int(m["majf"]), "minf": int(m["minf"])}
                self.dir = None
                return True
            return False
        if word == "issued":
            m = _ISSUED_OLD.match(s) if "total=r=" in s else None
            if m:
                for d, key in (("read", "r"), ("write", "w"), ("trim", "d")):
                    job.issued[d] = (_int(m[key]), _int(m["s" + key]), _int(m["d" + key]))
                return True
            m = _ISSUED_NEW.match(s)
            if m:
                total = _ints(m["total"])
                short = _ints(m["short"])
                dropped = _ints(m["dropped"])
                for d, i in _DIR_INDEX.items():
                    job.issued[d] = (_at(total, i), _at(short, i), _at(dropped, i))
                return True
            return False
        if word.startswith("fsync/"):
            if _SYNC_HEAD.match(s):
                self.dir = _SYNC
                return True
            return False
        return bool(_IGNORED_JOB_LINE.match(s))

    def _start_dir(self, ln: int, m: re.Match, legacy: bool) -> None:
        job = self.job
        assert job is not None
        io = _size(m["io"], legacy)
        bw = _size(m["bw"], legacy)
        iops = _count(m["iops"])
        for label, got, raw in (("io", io, m["io"]), ("bandwidth", bw, m["bw"]), ("iops", iops, m["iops"])):
            if got is None:
                self.result.warn(ln, f"unreadable {label} {raw!r}")
        d = _Dir(m["dir"], ln, legacy, io, bw, iops, int(m["runt"]))
        if d.direction in job.dirs:
            self.result.warn(ln, f"second {d.direction} line in one result block: the later one is kept")
        job.dirs[d.direction] = d
        self.dir = d

    def _current_dir(self, ln: int) -> _Dir | None:
        if isinstance(self.dir, _Dir):
            return self.dir
        if self.dir is not _SYNC:
            self.result.warn(ln, "statistics line before any read/write/trim line: skipped")
        return None

    # -- Run status group / Disk stats

    def _group_line(self, ln: int, s: str) -> bool:
        m = _GROUP_OLD.match(s)
        legacy = True
        if not m:
            m = _GROUP_NEW.match(s)
            legacy = False
        if not m:
            return False
        bw = _size(m["bw"], legacy)
        io = _size(m["io"], legacy)
        minb, maxb = _size(m["minb"], legacy), _size(m["maxb"], legacy)
        self.doc.groups.append({
            "doc_index": self.doc.index, "group_id": self.group_id, "direction": m["dir"].lower(),
            "io_bytes": None if io is None else int(round(io[0])),
            "bw_bytes_per_s": None if bw is None else bw[0],
            "bw_mib_per_s": None if bw is None else bw[0] / 1048576,
            "bw_min_bytes_per_s": None if minb is None else minb[0],
            "bw_max_bytes_per_s": None if maxb is None else maxb[0],
            "runtime_min_ms": int(m["mint"]), "runtime_max_ms": int(m["maxt"]),
        })
        return True

    def _disk_line(self, ln: int, s: str) -> bool:
        m = _DISK.match(s)
        if not m:
            return False
        kv = _kv(m["kv"])

        def pair(key: str) -> tuple[int | None, int | None]:
            raw = kv.get(key)
            if raw is None or "/" not in raw:
                return None, None
            a, _, b = raw.partition("/")
            return _int(a), _int(b)

        ios, merge, ticks = pair("ios"), pair("merge"), pair("ticks")
        aios, amerge, aticks = pair("aggrios"), pair("aggrmerge"), pair("aggrticks")
        self.doc.disks.append({
            "doc_index": self.doc.index, "disk_name": m["name"], "hostname": None,
            "read_ios": ios[0], "write_ios": ios[1], "read_merges": merge[0], "write_merges": merge[1],
            "read_ticks_ms": ticks[0], "write_ticks_ms": ticks[1],
            "in_queue_ms": _int(kv.get("in_queue")), "util_pct": _float(kv.get("util")),
            "aggr_read_ios": aios[0], "aggr_write_ios": aios[1],
            "aggr_read_merges": amerge[0], "aggr_write_merges": amerge[1],
            "aggr_read_ticks_ms": aticks[0], "aggr_write_ticks_ms": aticks[1],
            "aggr_in_queue_ms": _int(kv.get("aggrin_queue")), "aggr_util_pct": _float(kv.get("aggrutil")),
        })
        return True


def _int(text: str | None) -> int | None:
    """'-?\\d+' (fullmatch; \\d is any Unicode decimal digit, as str.isdecimal) to int, else None."""
    if text is None or not (text.isdecimal() or (text[:1] == "-" and text[1:].isdecimal())):
        return None
    return int(text)


def _float(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return None if value is None or math.isnan(value) or math.isinf(value) else value


def _ints(text: str | None) -> list[int]:
    return [int(x) for x in text.split(",")] if text else []


def _at(values: list[int], index: int) -> int | None:
    return values[index] if index < len(values) else None


def _scaled(text: str | None, factor: float) -> float | None:
    value = _num(text)
    return None if value is None else value * factor


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    result = ParseResult(format=NAME)
    reader = _Reader(result)
    feed = reader.feed
    for ln, s in enumerate(text.split("\n"), start=1):
        if "\r" in s:
            for segment in _cr_segments(s):
                feed(ln, segment)
        else:
            feed(ln, s)
    docs = [d for d in reader.docs if d.headers or d.has_results or d.version]
    if not any(d.jobs for d in docs):
        if reader.errors:
            result.status = "failed"
            result.status_reason = "; ".join(msg for _, msg in reader.errors)[:2000]
            result.tool_version = next((d.version for d in docs if d.version), None)
            return result
        if not docs:
            raise ParseError("no fio text output found (no job header, result block or run status line)")
    for ln, msg in reader.errors:
        result.warn(ln, f"fio said: {msg[:200]}")
    signal = next((msg for _, msg in reader.errors if _SIGNAL.match(msg)), None)
    if signal:
        # Results printed after Ctrl-C / kill cover less time than the job asked for.
        result.status = "incomplete"
        result.status_reason = f"interrupted: {signal}"
    result.tool_version = next((d.version for d in docs if d.version), None)
    versions = {d.version for d in docs if d.version}
    if len(versions) > 1:
        result.warn(None, f"outputs of several fio versions in one file: {', '.join(sorted(versions))}")
    if docs and docs[0].starting is not None:
        result.facts["jobs_started"] = docs[0].starting
    if len(docs) > 1:
        result.facts["documents"] = len(docs)
    for doc in docs:
        _emit(doc, result)
    return result


# --------------------------------------------------------------------------- rows


def _emit(doc: _Doc, result: ParseResult) -> None:
    if not doc.jobs:
        result.status = "incomplete"
        result.error(doc.last_line or None, "fio output has job headers but no result block: cut short")
    missing = sorted({j.group_id for j in doc.jobs} - doc.group_ids)
    if missing:
        result.status = "incomplete"
        result.error(doc.last_line or None,
                     f"output ends before 'Run status group {missing[0]}': cut short (rows kept)")
    blocks_per_name = _tally(j.name for j in doc.jobs)
    blocks_per_group = _tally(j.group_id for j in doc.jobs)
    headers_per_group = _tally(h.group for h in doc.headers)
    by_name: dict[str, list[_Header]] = defaultdict(list)
    for h in doc.headers:
        by_name[h.name].append(h)
    per_opts: dict[int, tuple] = {}  # id(opts) -> (opts, iodepth, sizes, options json)
    for job_index, job in enumerate(doc.jobs):
        header = by_name[job.name][0] if by_name.get(job.name) else None
        if header is None and doc.headers:
            result.warn(job.line, f"no job header line names {job.name!r}: workload columns left null")
        numjobs = _numjobs(doc, job, header, blocks_per_name, headers_per_group)
        if job.jobs > 1:
            group_reporting = True
        elif blocks_per_group[job.group_id] > 1 or (numjobs or 1) > 1:
            group_reporting = False
        else:
            group_reporting = None  # one job alone: the text cannot tell
        opts = header.opts if header else {}
        if job.jobs > 1 and headers_per_group.get(job.group_id, 0) > 1:
            # group_reporting over several job sections: one block, several workloads.
            group_opts = [h.opts for h in doc.headers if h.group == job.group_id]
            if any(o != group_opts[0] for o in group_opts):
                result.warn(job.line, f"group {job.group_id} reports {headers_per_group[job.group_id]} job "
                                      "sections with different options as one block: workload columns left null")
                opts = {}
        derived = per_opts.get(id(opts))
        if derived is None:  # jobs of one header share it (opts is kept, so its id stays unique)
            derived = per_opts[id(opts)] = (opts, _int(opts.get("iodepth")), _block_sizes(opts.get("bs")),
                                            json.dumps(opts, sort_keys=True) if opts else None)
        _, iodepth, sizes, options_json = derived
        common = _common_columns(doc, job_index, job, opts, iodepth, numjobs, group_reporting, sizes,
                                 options_json)
        for direction in DIRECTIONS:
            d = job.dirs.get(direction)
            if d is None:
                continue
            row = dict(common)
            row.update(_direction_columns(d, job, sizes, result))
            result.add("fio_jobs", row)
            if d.pct:
                doc_index = doc.index
                result.tables.setdefault("fio_percentiles", []).extend([
                    {"doc_index": doc_index, "job_index": job_index, "direction": direction,
                     "latency_kind": kind, "percentile": pct, "latency_us": value}
                    for kind, pct, value in d.pct])
    if doc.groups:
        result.tables.setdefault("fio_run_status_groups", []).extend(doc.groups)
    if doc.disks:
        result.tables.setdefault("fio_disk_util", []).extend(doc.disks)


def _tally(values) -> dict:
    """How many times each value occurs (a plain dict: cheaper than Counter for a few values)."""
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _numjobs(doc: _Doc, job: _Job, header: _Header | None, blocks_per_name: dict,
             headers_per_group: dict) -> int | None:
    if header is None:
        return job.jobs if job.jobs > 1 else None
    if not header.clones:
        return 1
    if blocks_per_name[job.name] > 1:
        return blocks_per_name[job.name]  # one block per clone: no group_reporting
    if job.jobs > 1 and headers_per_group.get(job.group_id, 0) == 1:
        return job.jobs
    if len(doc.headers) == 1 and doc.starting:
        return doc.starting
    return None


def _block_sizes(raw: str | None) -> list[tuple[int | None, int | None]]:
    """Per direction (read, write, trim) (min, max) block size in bytes from the header's bs=."""
    if not raw:
        return []
    if "(" in raw:  # 3.x: (R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B
        parts = dict(_BS_PARTS.findall(raw))
        ranges = [parts.get(k) for k in "RWT"]
    else:  # 2.x: 4K-4K/4K-4K/4K-4K (older: read/write only)
        ranges = raw.split("/")
    out = []
    for rng in ranges:
        if not rng:
            out.append((None, None))
            continue
        lo, _, hi = rng.partition("-")
        lo_bytes = _bs_bytes(lo)
        out.append((lo_bytes, lo_bytes if not hi or hi == lo else _bs_bytes(hi)))
    return out


def _bs_bytes(text: str) -> int | None:
    """fio_size_bytes, with the plain '4096B' / '4096' of fio's header lines read directly."""
    digits = text[:-1] if text.endswith("B") else text
    if digits.isascii() and digits.isdigit():
        return int(round(float(digits) * 1))  # fio_size_bytes' own arithmetic, 1024 ** 0
    return fio_size_bytes(text)


def _block_size_text(sizes: list[tuple[int | None, int | None]], raw: str | None) -> str | None:
    """A compact fio-style bs value in bytes: '4096', '4096,8192,4096', '4096-65536'."""
    if not sizes or any(lo is None for lo, _ in sizes):
        return raw
    texts = [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in sizes]
    return texts[0] if len(set(texts)) == 1 else ",".join(texts)


def _read_pct(rw: str | None) -> float | None:
    if rw in ("read", "randread"):
        return 100.0
    if rw in ("write", "randwrite", "trim", "randtrim", "trimwrite"):
        return 0.0
    return None  # mixed: rwmixread is not printed in text output


def _common_columns(doc, job_index, job, opts, iodepth, numjobs, group_reporting, sizes, options_json) -> dict:
    rw = opts.get("rw")
    return {
        "doc_index": doc.index,
        "job_index": job_index,
        "job_name": job.name,
        "group_id": job.group_id,
        "hostname": None,
        "is_aggregate": False,
        "is_interim": doc.interim,
        "error_code": job.err,
        "started_at": None,
        "rw": rw,
        "read_pct": _read_pct(rw),
        "block_size": _block_size_text(sizes, opts.get("bs")),
        "ioengine": opts.get("ioengine"),
        "iodepth": iodepth,
        "numjobs": numjobs,
        "group_reporting": group_reporting,
        "outstanding_ios": iodepth * numjobs if iodepth is not None and numjobs is not None else None,
        "direct": None,
        "size": None,
        "filename": None,
        "time_based": None,
        "runtime_option_s": None,
        "ramp_time_s": None,
        "job_options_json": options_json,
        "elapsed_s": None,
        "usr_cpu_pct": job.cpu.get("usr"),
        "sys_cpu_pct": job.cpu.get("sys"),
        "ctx_switches": job.cpu.get("ctx"),
        "major_faults": job.cpu.get("majf"),
        "minor_faults": job.cpu.get("minf"),
    }


def _direction_columns(d: _Dir, job: _Job, sizes, result: ParseResult) -> dict:
    index = _DIR_INDEX.get(d.direction)
    total, short, dropped = job.issued.get(d.direction, (None, None, None))
    if index is None:  # mixed (unified_rw_reporting): the issued line splits by direction
        total = short = dropped = None
    runtime = d.runtime_ms
    block = sizes[index] if index is not None and index < len(sizes) else (None, None)
    fixed_bs = block[0] if block[0] is not None and block[0] == block[1] else None

    iops = d.iops[0] if d.iops else None
    if total is not None and runtime:
        derived = total * 1000.0 / runtime
        if _agrees(derived, d.iops):
            iops = derived
        else:
            result.warn(d.line, f"{d.direction}: issued {total} IOs in {runtime} ms gives {derived:.1f} IOPS, "
                                f"text prints {d.iops[0]:g}: printed value kept")
    io_bytes = d.io[0] if d.io else None
    exact_io = False
    if total is not None and fixed_bs and not short:
        derived_io = float(total * fixed_bs)
        if _agrees(derived_io, d.io):
            io_bytes, exact_io = derived_io, True
        else:
            result.warn(d.line, f"{d.direction}: {total} IOs of {fixed_bs} B = {derived_io:.0f} B, "
                                f"text prints {d.io[0]:.0f} B: printed value kept")
    bw = d.bw[0] if d.bw else None
    if exact_io and runtime and io_bytes is not None:
        derived_bw = io_bytes * 1000.0 / runtime
        if _agrees(derived_bw, d.bw):
            bw = derived_bw
        else:
            result.warn(d.line, f"{d.direction}: {io_bytes:.0f} B in {runtime} ms = {derived_bw:.0f} B/s, "
                                f"text prints {d.bw[0]:.0f} B/s: printed value kept")
    row: dict[str, Any] = {
        "direction": d.direction,
        "block_size_bytes": fixed_bs,
        "runtime_ms": float(runtime) if runtime is not None else None,
        "job_runtime_ms": None,
        "io_bytes": None if io_bytes is None else int(round(io_bytes)),
        "bw_bytes_per_s": bw,
        "bw_mib_per_s": None if bw is None else bw / 1048576,
        "iops": iops,
        "total_ios": total,
        "short_ios": short,
        "dropped_ios": dropped,
        "bw_min_kib_per_s": d.bw_stats.get("min"),
        "bw_max_kib_per_s": d.bw_stats.get("max"),
        "bw_agg_pct": d.bw_stats.get("per"),
        "bw_mean_kib_per_s": d.bw_stats.get("mean"),
        "bw_stdev_kib_per_s": d.bw_stats.get("stdev"),
        "bw_samples": _as_int(d.bw_stats.get("samples")),
        "iops_min": d.iops_stats.get("min"),
        "iops_max": d.iops_stats.get("max"),
        "iops_mean": d.iops_stats.get("mean"),
        "iops_stdev": d.iops_stats.get("stdev"),
        "iops_samples": _as_int(d.iops_stats.get("samples")),
    }
    slat, clat, lat = d.lat.get("slat", _NO_STATS), d.lat.get("clat", _NO_STATS), d.lat.get("lat", _NO_STATS)
    row.update({
        "slat_min_us": slat.get("min"), "slat_max_us": slat.get("max"),
        "slat_mean_us": slat.get("mean"), "slat_stdev_us": slat.get("stdev"),
        "clat_min_us": clat.get("min"), "clat_max_us": clat.get("max"),
        "clat_mean_us": clat.get("mean"), "clat_stdev_us": clat.get("stdev"),
        "lat_min_us": lat.get("min"), "lat_max_us": lat.get("max"),
        "lat_mean_us": lat.get("mean"), "lat_stdev_us": lat.get("stdev"),
    })
    return row


def _as_int(value: float | None) -> int | None:
    return None if value is None else int(value)

"""Helpers shared by the iostat text and JSON parsers: banner, dates, column names, units.

Pure functions and small classes; no I/O. Not a parser (the leading underscore keeps it out of
the registry).

Dates
-----
sysstat prints dates with the C library's ``%x`` (locale date) and times with ``%X`` (locale
time), or ISO 8601 (``%FT%T%z``) when ``S_TIME_FORMAT=ISO``. :class:`DateReader` reads:

* ISO dates ``2026-11-21`` and timestamps ``2026-11-21T13:25:56+0000`` (zone honoured: UTC);
* three-number dates: a 4-digit first number is year-month-day; otherwise the order is
  decided once per file: day-first when any date the reader was primed with has a first
  number > 12 (``21/11/26``), month-first when any has a second number > 12, else
  month-first for ``/`` (C and en_US locales) and day-first for ``.`` and ``-`` (de_DE, nl_NL ...).
  Two-digit years as the C library reads ``%y`` (``_sysstat_values.year``: 69-99 are 19xx);
* times ``13:25:38``, 12-hour ``09:34:00 AM`` / ``PM`` and ja_JP ``13時31分36秒``, with or
  without a date on the line (ja_JP dates ``2026年11月21日`` too).
  A time without a date is put on the last known date (the banner's, at first); when the time
  of day goes backwards the date moves one day on (midnight rollover).
"""

from __future__ import annotations

import math
import re
from array import array
from itertools import accumulate, chain, repeat
from datetime import date, datetime, timedelta, timezone

import pyarrow as pa
import pyarrow.compute as pc

from iopscope.parsers._sysstat_values import busy_pct as busy_from
from iopscope.parsers._sysstat_values import year
from iopscope.parsers.base import Columns

# --------------------------------------------------------------------------- banner

# "Linux 6.1.0 (host) \t11/21/2026 \t_x86_64_\t(2 CPU)"; old sysstat stops after the date.
_BANNER = re.compile(r"^Linux\s+(\S+)\s+\(([^()]*)\)\s+(.*?)\s*$")
_BANNER_REST = re.compile(r"^(?P<date>.*?)\s*(?:(?<![^\s])_(?P<arch>\S+)_)?\s*(?:\((?P<cpus>\d+)\s+CPU\))?\s*$")


def parse_banner(line: str) -> dict | None:
    """Kernel, hostname, date text, arch and CPU count of a sysstat banner line, or None."""
    m = _BANNER.match(line)
    if not m:
        return None
    kernel, hostname, rest = m.groups()
    r = _BANNER_REST.match(rest)
    if not r:
        return None
    cpus = r.group("cpus")
    return {
        "kernel": kernel,
        "hostname": hostname,
        "date_text": r.group("date") or None,
        "arch": r.group("arch"),
        "logical_cpus": int(cpus) if cpus else None,
    }


# --------------------------------------------------------------------------- dates and times

_ISO_TS = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$")
_ISO_DATE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$")
_NUM_DATE = re.compile(r"(\d{1,4})\s*([/.\-]|年)\s*(\d{1,2})\s*(?:[/.\-]|月)\s*(\d{1,4})")
# "13:25:38", "01:31:30 PM", and ja_JP's "13時31分36秒".
_TIME = re.compile(r"(\d{1,2})(?::|時\s*)(\d{2})(?::|分\s*)(\d{2})秒?(?:\s*([AaPp])\.?\s*[Mm]\.?(?![A-Za-z]))?")


_UNSEEN = object()


class DateReader:
    """Reads the dates and timestamps of one file; keeps the day-order and rollover state."""

    def __init__(self, samples: list[str] = ()) -> None:
        self.day_first: dict[str, bool] = {}
        for text in samples:
            self._learn(text)
        self.base_date: date | None = None
        self._last_naive: datetime | None = None
        self._day_memo: dict[str, date | None] = {}
        self._zones: dict[str, timezone] = {}
        self._iso_minutes: dict[str, tuple[datetime, date]] = {}

    def _learn(self, text: str) -> None:
        for m in _NUM_DATE.finditer(text):
            a, sep, b, _ = m.groups()
            if len(a) == 4 or sep == "年" or sep in self.day_first:
                continue
            if int(a) > 12:
                self.day_first[sep] = True
            elif int(b) > 12:
                self.day_first[sep] = False

    def parse_date(self, text: str | None) -> date | None:
        if not text:
            return None
        m = _ISO_DATE.match(text)
        if m:
            return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        m = _NUM_DATE.search(text)
        if not m:
            return None
        a, sep, b, c = m.groups()
        if len(a) == 4 or sep == "年":
            return _safe_date(int(a), int(b), int(c))
        day_first = self.day_first.get(sep, sep != "/")
        if day_first:
            return _safe_date(year(c), int(b), int(a))
        return _safe_date(year(c), int(a), int(b))

    def set_base_date(self, d: date | None) -> None:
        """A banner: its date is the day of the time-only stamps that follow."""
        self.base_date = d
        self._last_naive = None

    def parse_timestamp(self, text: str) -> datetime | None:
        """A -t stamp as printed -> datetime (aware UTC for ISO with a zone, else naive)."""
        if len(text) == 24 and text[10] == "T" and text[19] in "+-":
            # S_TIME_FORMAT=ISO's "2026-11-21T13:25:56+0000", one per report: the UTC time of
            # each minute is read once; a stamp is that minute with its seconds put in.
            seconds = text[17:19]
            hit = self._iso_minutes.get(text[:17] + text[19:])
            if hit is not None and seconds.isdecimal():
                self.base_date = hit[1]
                self._last_naive = None
                return hit[0].replace(second=min(int(seconds), 59))
        if "T" in text or "-" in text:
            m = _ISO_TS.match(text)
            if m:
                value = self._iso(m)
                if (value is not None and value.tzinfo is not None and len(text) == 24 and text[10] == "T"
                        and text[19] in "+-" and len(self._iso_minutes) < 100000):
                    # The form is fixed here (the pattern matched at these positions): the zone's
                    # offset is whole minutes, so the minute's UTC time has second 0 too.
                    self._iso_minutes[text[:17] + text[19:]] = (value.replace(second=0), value.date())
                return value
        # Fast path for the usual "<date> HH:MM:SS" and "<date> HH:MM:SS AM" (one per report).
        end = len(text)
        if text[-2:] in ("AM", "PM") and text[-3:-2] == " ":
            start, ampm = end - 11, text[-2]
        else:
            start, ampm = end - 8, None
        clock = text[start:start + 8]
        if (start >= 0 and clock[2:3] == ":" and clock[5:6] == ":" and clock[:2].isdecimal()
                and clock[3:5].isdecimal() and clock[6:].isdecimal()
                and (start == 0 or text[start - 1].isspace())):
            return self._finish(text, int(clock[:2]), int(clock[3:5]), int(clock[6:]), ampm, start, end)
        return self._slow_time(text)

    def _slow_time(self, text: str) -> datetime | None:
        t = _TIME.search(text)
        if not t:
            return None
        h, mi, se, ampm = t.groups()
        return self._finish(text, int(h), int(mi), int(se), ampm, t.start(), t.end())

    def _finish(self, text: str, hour: int, minute: int, second: int, ampm: str | None,
                start: int, end: int) -> datetime | None:
        if ampm:
            if hour > 12 or hour == 0:
                return None
            hour = hour % 12 + (12 if ampm in "Pp" else 0)
        if hour > 23 or minute > 59 or second > 60:
            return None
        second = min(second, 59)
        # The rest of the line is the date (or nothing): the same few strings, read once each.
        rest = text[:start] if end == len(text) else text[:start] + " " + text[end:]
        memo = self._day_memo
        day = memo.get(rest, _UNSEEN)
        if day is _UNSEEN:
            day = self.parse_date(rest)
            if len(memo) < 10000:
                memo[rest] = day
        if day is not None:
            self.base_date = day
            self._last_naive = None
            return datetime(day.year, day.month, day.day, hour, minute, second)
        base = self.base_date
        if base is None:
            return None
        value = datetime(base.year, base.month, base.day, hour, minute, second)
        last = self._last_naive
        if last is not None and value < last:
            # Time of day went backwards without a date: past midnight.
            value += timedelta(days=1)
            self.base_date = value.date()
        self._last_naive = value
        return value

    def _iso(self, m: re.Match) -> datetime | None:
        y, mo, d, h, mi, s, zone = m.groups()
        try:
            value = datetime(int(y), int(mo), int(d), int(h), int(mi), min(int(s), 59))
        except ValueError:
            return None
        if zone:
            tz = self._zones.get(zone)
            if tz is None:
                if zone == "Z":
                    offset = timedelta(0)
                else:
                    sign = -1 if zone[0] == "-" else 1
                    digits = zone[1:].replace(":", "")
                    offset = sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
                try:
                    tz = self._zones[zone] = timezone(offset)
                except ValueError:
                    return None
            try:
                # = value.replace(tzinfo=tz).astimezone(timezone.utc), without the tz round trip
                value = (value - tz.utcoffset(None)).replace(tzinfo=timezone.utc)
            except (ValueError, OverflowError):
                return None
        self.base_date = value.date()
        self._last_naive = None
        return value


# S_TIME_FORMAT=ISO's stamp, the form iopscope's own captures print (ASCII digits only).
_ISO_STAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4}$"
UTC_TIMESTAMP = pa.timestamp("us", tz="+00:00")  # reads back as datetime.timezone.utc


def iso_stamps(stamps: list[str], dates: DateReader) -> tuple[pa.Array, pa.Array] | None:
    """(sampled_at, elapsed_s) of ``2026-11-21T13:25:56+0000`` stamps, in C, or None unless
    every stamp has that form. Each distinct minute (date, hour, minute, zone) is read once by
    :meth:`DateReader.parse_timestamp`, so its checks and UTC conversion apply unchanged; a
    stamp is its minute plus its seconds (60 read as 59, as there). elapsed_s counts from the
    first stamp, as ReportClock does."""
    text = pa.array(stamps, pa.string())
    if not stamps or not pc.all(pc.match_substring_regex(text, _ISO_STAMP)).as_py():
        return None
    minutes = pc.binary_join_element_wise(pc.utf8_slice_codeunits(text, 0, 17),
                                          pc.utf8_slice_codeunits(text, 19, 24), "")
    distinct = pc.unique(minutes)
    starts = [dates.parse_timestamp(m[:17] + "00" + m[17:]) for m in distinct.to_pylist()]
    if None in starts:
        return None  # a day or zone that does not exist: the caller reads stamp by stamp
    start_us = pa.array(starts, UTC_TIMESTAMP).cast(pa.int64())
    seconds = pc.min_element_wise(pc.utf8_slice_codeunits(text, 17, 19).cast(pa.int64()), 59)
    micros = pc.add(start_us.take(pc.index_in(minutes, value_set=distinct)), pc.multiply(seconds, 1_000_000))
    elapsed = pc.divide(pc.subtract(micros, micros[0]).cast(pa.float64()), 1e6)
    return micros.cast(UTC_TIMESTAMP), elapsed


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def looks_like_timestamp(line: str) -> bool:
    """A -t line: short, with a time of day (or an ISO stamp), not a row of numbers."""
    s = line.strip()
    if not s or len(s) > 64:
        return False
    if _ISO_TS.match(s):
        return True
    return _TIME.search(s) is not None


# --------------------------------------------------------------------------- device columns

# header token -> (output column, unit family). Unit families:
#   None       value as printed
#   "kB"/"MB"/"sectors"  a throughput or amount, converted to KiB
#   "int-kB"/"int-MB"/"int-sectors"  a cumulative amount, converted to integer KiB
#   "pct"      a percentage (a trailing % from --human is accepted)
DEVICE_COLUMNS: dict[str, tuple[str, str | None]] = {
    "r/s": ("r_per_s", None), "w/s": ("w_per_s", None), "d/s": ("d_per_s", None), "f/s": ("f_per_s", None),
    "rkB/s": ("read_kib_per_s", "kB"), "wkB/s": ("write_kib_per_s", "kB"), "dkB/s": ("discard_kib_per_s", "kB"),
    "rMB/s": ("read_kib_per_s", "MB"), "wMB/s": ("write_kib_per_s", "MB"), "dMB/s": ("discard_kib_per_s", "MB"),
    "rsec/s": ("read_kib_per_s", "sectors"), "wsec/s": ("write_kib_per_s", "sectors"),
    "dsec/s": ("discard_kib_per_s", "sectors"),
    "kB/s": ("total_kib_per_s", "kB"), "MB/s": ("total_kib_per_s", "MB"), "sec/s": ("total_kib_per_s", "sectors"),
    "rrqm/s": ("rrqm_per_s", None), "wrqm/s": ("wrqm_per_s", None), "drqm/s": ("drqm_per_s", None),
    "rqm/s": ("rqm_per_s", None),
    "%rrqm": ("rrqm_pct", "pct"), "%wrqm": ("wrqm_pct", "pct"), "%drqm": ("drqm_pct", "pct"),
    "r_await": ("r_await_ms", None), "w_await": ("w_await_ms", None), "d_await": ("d_await_ms", None),
    "f_await": ("f_await_ms", None), "await": ("await_ms", None),
    "aqu-sz": ("aqu_sz", None), "avgqu-sz": ("aqu_sz", None),
    "rareq-sz": ("rareq_sz_kib", "kB"), "wareq-sz": ("wareq_sz_kib", "kB"), "dareq-sz": ("dareq_sz_kib", "kB"),
    "areq-sz": ("areq_sz_kib", "kB"),
    "avgrq-sz": ("avgrq_sz_sectors", None),
    "svctm": ("svctm_ms", None), "%util": ("util_pct", "pct"),
    "tps": ("tps", None),
    "kB_read/s": ("read_kib_per_s", "kB"), "kB_wrtn/s": ("write_kib_per_s", "kB"),
    "kB_dscd/s": ("discard_kib_per_s", "kB"), "kB_w+d/s": ("write_discard_kib_per_s", "kB"),
    "MB_read/s": ("read_kib_per_s", "MB"), "MB_wrtn/s": ("write_kib_per_s", "MB"),
    "MB_dscd/s": ("discard_kib_per_s", "MB"), "MB_w+d/s": ("write_discard_kib_per_s", "MB"),
    "Blk_read/s": ("read_kib_per_s", "sectors"), "Blk_wrtn/s": ("write_kib_per_s", "sectors"),
    "Blk_dscd/s": ("discard_kib_per_s", "sectors"), "Blk_w+d/s": ("write_discard_kib_per_s", "sectors"),
    "kB_read": ("read_kib", "int-kB"), "kB_wrtn": ("write_kib", "int-kB"),
    "kB_dscd": ("discard_kib", "int-kB"), "kB_w+d": ("write_discard_kib", "int-kB"),
    "MB_read": ("read_kib", "int-MB"), "MB_wrtn": ("write_kib", "int-MB"),
    "MB_dscd": ("discard_kib", "int-MB"), "MB_w+d": ("write_discard_kib", "int-MB"),
    "Blk_read": ("read_kib", "int-sectors"), "Blk_wrtn": ("write_kib", "int-sectors"),
    "Blk_dscd": ("discard_kib", "int-sectors"), "Blk_w+d": ("write_discard_kib", "int-sectors"),
}

# -o JSON keys that differ from the text headers. "rrqm"/"wrqm"/"drqm" are percentages when the
# object also has "rrqm/s" (sysstat >= 11.5), merges per second otherwise (older JSON).
JSON_ALIASES = {
    "util": "%util", "kB_read_per_sec": "kB_read/s", "kB_wrtn_per_sec": "kB_wrtn/s",
    "kB_dscd_per_sec": "kB_dscd/s", "MB_read_per_sec": "MB_read/s", "MB_wrtn_per_sec": "MB_wrtn/s",
    "r": "r/s", "w": "w/s", "rkB": "rkB/s", "wkB": "wkB/s", "rMB": "rMB/s", "wMB": "wMB/s",
}

UNIT_FACTOR = {None: 1.0, "pct": 1.0, "kB": 1.0, "MB": 1024.0, "sectors": 0.5,
           "int-kB": 1.0, "int-MB": 1024.0, "int-sectors": 0.5}
# Preference when two printed columns give the same output (old -x printed rsec/s and rkB/s).
UNIT_PREFERENCE = {"kB": 0, "int-kB": 0, "MB": 1, "int-MB": 1, "sectors": 2, "int-sectors": 2}


def layout_of(tokens) -> str:
    """Which generation of iostat's device report a set of column names is."""
    t = set(tokens)
    if "tps" in t:
        return "basic-short" if ("kB_w+d/s" in t or "MB_w+d/s" in t or "Blk_w+d/s" in t) else (
            "x-short" if ("areq-sz" in t or "rqm/s" in t) else "basic")
    if "avgrq-sz" in t or "avgqu-sz" in t:
        return "x-legacy"
    if "f/s" in t or "f_await" in t:
        return "x-12.5"
    if "d/s" in t or "d_await" in t:
        return "x-12.1"
    if "rareq-sz" in t or "%rrqm" in t or "aqu-sz" in t:
        return "x-11.5"
    return "unknown"


def unit_of(tokens) -> str:
    for tok in tokens:
        spec = DEVICE_COLUMNS.get(tok)
        if spec and spec[1] in ("MB", "int-MB"):
            return "MB"
        if spec and spec[1] in ("sectors", "int-sectors"):
            return "sectors"
    return "kB"


class DeviceColumns:
    """A compiled device header: which printed column goes where, and with what factor."""

    __slots__ = ("names", "scaled", "ints", "int_names", "drop", "unknown", "outputs", "layout", "unit", "kinds")

    def __init__(self, tokens: list[str]) -> None:
        best: dict[str, tuple[int, int]] = {}  # output -> (preference, index)
        for i, tok in enumerate(tokens):
            spec = DEVICE_COLUMNS.get(tok)
            if spec is None:
                continue
            out, kind = spec
            pref = UNIT_PREFERENCE.get(kind, 0)
            if out not in best or pref < best[out][0]:
                best[out] = (pref, i)
        keep = {i for _, i in best.values()}
        names: list[str | None] = []
        kinds: list[str | None] = []
        self.unknown = [tok for tok in tokens if tok not in DEVICE_COLUMNS]
        for i, tok in enumerate(tokens):
            if i in keep:
                names.append(DEVICE_COLUMNS[tok][0])
                kinds.append(DEVICE_COLUMNS[tok][1])
            else:
                names.append(None)
                kinds.append(None)
        self.names = names
        self.kinds = kinds
        self.drop = any(n is None for n in names)
        self.scaled = [(n, UNIT_FACTOR[k]) for n, k in zip(names, kinds) if n and UNIT_FACTOR[k] != 1.0]
        self.ints = [(n, UNIT_FACTOR[k]) for n, k in zip(names, kinds) if n and k and k.startswith("int-")]
        self.int_names = [n for n, _ in self.ints]
        self.outputs = frozenset(n for n in names if n)
        self.layout = layout_of(tokens)
        self.unit = unit_of(tokens)


# --human / -h suffixes: sysstat scales sizes by 1024 per step, values being kB based.
_HUMAN_STEP = {"B": -1, "k": 0, "K": 0, "M": 1, "G": 2, "T": 3, "P": 4, "E": 5, "Z": 6, "Y": 7}


def human_value(token: str, kind: str | None) -> float | None:
    """A --human value ("10.1M", "9.7k", "4.7%") in the column's canonical unit, or None."""
    if not token:
        return None
    last = token[-1]
    try:
        if last == "%":
            return float(token[:-1])
        if last in _HUMAN_STEP and kind in _SIZE_KINDS:
            # The suffix is absolute (sysstat scales kB values), the header's unit no longer applies.
            return float(token[:-1]) * 1024.0 ** _HUMAN_STEP[last]
        return None
    except ValueError:
        return None


_SIZE_KINDS = frozenset(("kB", "MB", "sectors", "int-kB", "int-MB", "int-sectors"))


# --------------------------------------------------------------------------- CPU

CPU_COLUMNS = {
    "%user": "user_pct", "%usr": "user_pct", "%nice": "nice_pct", "%system": "system_pct",
    "%sys": "system_pct", "%iowait": "iowait_pct", "%steal": "steal_pct", "%idle": "idle_pct",
    "%irq": "irq_pct", "%soft": "softirq_pct", "%guest": "guest_pct", "%gnice": "gnice_pct",
}
JSON_CPU_KEYS = {
    "user": "user_pct", "nice": "nice_pct", "system": "system_pct", "iowait": "iowait_pct",
    "steal": "steal_pct", "idle": "idle_pct",
}


def to_whole(value: float) -> int | None:
    """A cumulative amount (kB_read ...) as the integer int() makes of it; nan and inf, which no
    counter can be, are None (int() would raise)."""
    return int(value) if math.isfinite(value) else None


def busy_pct(row: dict) -> float | None:
    """The busy time of a row of cpu percentages (:func:`_sysstat_values.busy_pct`)."""
    return busy_from(row.get("idle_pct"), row.get("iowait_pct"), row.get("steal_pct"))


def out_of_range(values: dict) -> list[str]:
    """Percentages outside 0..100 (a kernel counter gone backwards): set to null, one note each."""
    notes = []
    for col, value in values.items():
        if value is not None and (value < -0.05 or value > 100.05):
            notes.append(f"avg-cpu {col} = {value} is outside 0..100: set to null")
            values[col] = None
    return notes


# --------------------------------------------------------------------------- reports


class ReportClock:
    """Numbers reports, stamps them, and says which one is the since-boot average.

    Rule: the first report after a banner is the since-boot one unless the file shows -y was
    given (the caller passes that evidence). A file that starts mid-stream (no banner before
    its first report) has no since-boot report: iostat prints it right after the banner.
    """

    __slots__ = ("index", "segment", "banners", "boot_pending", "first_ts")

    def __init__(self) -> None:
        self.index = -1
        self.segment = 0
        self.banners = 0
        self.boot_pending = False
        self.first_ts = None

    def banner(self) -> None:
        if self.index >= 0 or self.banners:
            self.segment += 1
        self.banners += 1
        self.boot_pending = True

    def open(self, time_text: str | None, ts, skipped_first: bool) -> dict:
        self.index += 1
        since_boot = self.boot_pending and not skipped_first
        self.boot_pending = False
        elapsed = None
        if ts is not None:
            if self.first_ts is None:
                self.first_ts = ts
            try:
                elapsed = (ts - self.first_ts).total_seconds()
            except TypeError:  # aware and naive stamps in one file
                elapsed = None
        return {"sample_index": self.index, "segment_index": self.segment, "sampled_at": ts,
                "time_text": time_text, "elapsed_s": elapsed, "is_since_boot": since_boot}


CPU_BASE_KEYS = ("sample_index", "sampled_at", "time_text", "elapsed_s", "is_since_boot")


def cpu_row(sample: dict, values: dict, hostname: str | None, logical_cpus: int | None) -> dict:
    row = {k: sample[k] for k in CPU_BASE_KEYS}
    row["source_block"] = "iostat-avg-cpu"
    row["cpu"] = "all"
    row["hostname"] = hostname
    row["logical_cpus"] = logical_cpus
    row.update(values)
    row["busy_pct"] = busy_pct(values)
    return row


# --------------------------------------------------------------------------- column-wise tables


def join_parts(parts: list) -> Columns | list[dict]:
    """One table from its parts in file order: Columns blocks (fast paths) and lists of row
    dicts (row-by-row paths). Blocks with the same columns are concatenated into one Columns;
    anything else (two layouts in one file, a row-by-row part) becomes plain rows, because a
    Columns block cannot tell a missing key from a null and the rows must stay as they were."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return []
    if all(isinstance(p, Columns) for p in parts):
        names = list(parts[0].columns)
        if all(list(p.columns) == names for p in parts[1:]):
            if len(parts) == 1:
                return parts[0]
            joined = {name: [] for name in names}
            for p in parts:
                for name, values in p.columns.items():
                    joined[name].extend(values)
            return Columns(joined)
    rows: list[dict] = []
    for p in parts:
        rows.extend(p)
    return rows


def one_key_set(objects: list, required: str) -> tuple | None:
    """The keys, in order, shared by every object when all are dicts with the very same keys
    including ``required``; else None (a fast path then leaves them to the row-by-row path)."""
    if not objects or set(map(type, objects)) != {dict}:
        return None
    key_sets = set(map(tuple, objects))
    keys = key_sets.pop()
    return keys if not key_sets and required in keys else None


def repeat_each(values: list, counts: list[int]) -> list:
    """``values[i]`` repeated ``counts[i]`` times, in order: a per-report column made per-row."""
    return list(chain.from_iterable(map(repeat, values, counts)))


def finite_floats(values: list) -> list[float] | None:
    """The values as floats when every one is an int or float and finite (JSON numbers), else
    None: the caller then converts value by value. Checked with C-level passes, not a loop."""
    kinds = set(map(type, values))
    if not kinds <= {float, int}:
        return None
    floats = values if kinds == {float} else list(map(float, values))
    # A finite sum means no nan or inf (a sum can also overflow: then look value by value).
    if not math.isfinite(sum(floats)) and (any(map(math.isinf, floats)) or any(map(math.isnan, floats))):
        return None
    return floats


def plain_percentages(column: pa.Array) -> bool:
    """Every value a finite number within 0..100, give or take the 0.05 of printed rounding:
    a column no row-by-row reader would null or note."""
    if not pc.all(pc.is_finite(column)).as_py():
        return False
    bounds = pc.min_max(column).as_py()
    return bounds["min"] >= -0.05 and bounds["max"] <= 100.05


# --------------------------------------------------------------------------- fields in Arrow

# What str.split() splits on beyond what Arrow's ascii_split_whitespace does.
_PY_ONLY_SPACE = ("\x1c", "\x1d", "\x1e", "\x1f")


def whitespace_fields(lines: list[str], width: int) -> list[pa.Array] | None:
    """The whitespace-separated fields of lines that have exactly ``width`` fields each, as one
    Arrow string array per field, split in C; None when a line has another number of fields or
    the text is not plain ASCII (then str.split() and Arrow might split differently)."""
    data = "".join(lines)
    if not data.isascii() or any(c in data for c in _PY_ONLY_SPACE):
        return None
    offsets = array("q", [0])
    offsets.extend(accumulate(map(len, lines)))
    text = pa.LargeStringArray.from_buffers(len(lines), pa.py_buffer(offsets), pa.py_buffer(data.encode("ascii")))
    fields = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(text))
    counts = pc.min_max(pc.list_value_length(fields)).as_py()
    if counts["min"] != width or counts["max"] != width:
        return None
    return [pc.list_element(fields, j) for j in range(width)]


def arrow_floats(strings: pa.Array) -> pa.Array | None:
    """Decimal strings as float64, parsed in C, or None when one is not a number. Arrow reads a
    subset of what float() reads (not "1_0", " 1" or non-ASCII digits) and reads it the same,
    correctly rounded: where it gives up, the caller falls back to float()."""
    try:
        return strings.cast(pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


# Columns of a device row that say which report and device it is; every other column is a
# measurement (zero in a row iostat -z left out).
_REPORT_KEYS = ("sample_index", "segment_index", "sampled_at", "time_text", "elapsed_s", "is_since_boot",
                "device", "is_group", "layout", "unit_source")


def _report_devices(names: list[str], reports: list[tuple[dict, int]]) -> list[tuple[dict, list[str]]]:
    ends = [start for _, start in reports[1:]] + [len(names)]
    return [(base, names[start:end]) for (base, start), end in zip(reports, ends)]


def omitted_devices(names: list[str], reports: list[tuple[dict, int]], last_open: bool = False) -> bool:
    """True when some report of an iostat invocation lacks a device another report of it has:
    the trace of ``-z`` (iostat otherwise prints every device in every report). ``last_open``:
    the file may be cut, so its last report does not count."""
    each = _report_devices(names, reports)[: -1 if last_open else None]
    seen: dict[int, set[str]] = {}
    for base, devices in each:
        seen.setdefault(base["segment_index"], set()).update(devices)
    return any(set(devices) != seen[base["segment_index"]] for base, devices in each)


def fill_idle_devices(rows: list[dict], reports: list[tuple[dict, int]], last_open: bool = False) -> list[dict]:
    """The rows with, in each report, a row for every device of the same iostat invocation that
    the report left out. iostat -z omits a device with no IO in the interval (and a report with
    no active device at all has no device line): those are samples of zero activity, and a mean
    over time must count them. A filled row has the report's stamps, zeros in every column the
    device's printed rows have, and ``is_zero_filled`` true. ``last_open``: the last report
    (of a file that may be cut) is kept as printed."""
    each = list(zip(reports, (d for _, d in _report_devices([r["device"] for r in rows], reports))))
    templates: dict[tuple[int, str], dict] = {}
    for (base, start), devices in each:
        for row in rows[start:start + len(devices)]:
            templates.setdefault((base["segment_index"], row["device"]), row)
    out: list[dict] = []
    for number, ((base, start), devices) in enumerate(each):
        out.extend(rows[start:start + len(devices)])
        if last_open and number == len(each) - 1:
            break
        present = set(devices)
        for (segment, device), template in templates.items():
            if segment != base["segment_index"] or device in present:
                continue
            filled = {key: (0 if type(value) is int else 0.0) for key, value in template.items()
                      if key not in _REPORT_KEYS and value is not None}
            filled.update({key: base.get(key) for key in _REPORT_KEYS[:6]})
            filled.update(device=device, is_group=template["is_group"], layout=template["layout"],
                          unit_source=template["unit_source"], is_zero_filled=True)
            out.append(filled)
    return out

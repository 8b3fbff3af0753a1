"""A step's CPU busy and device means, from its ``mpstat.json`` and ``iostat.json``.

The sweep prints these after each step and its stop conditions judge them, so they must be the
numbers the warehouse will show for the run. The files are therefore read by ingest's own
parsers (``parsers.mpstat_json``, ``parsers.iostat_json``): busy % is ``100 - idle - iowait -
steal`` clamped to 0..100, percentages outside 0..100 are nulled, numbers written as strings
are read, and a since-boot report is left out, exactly as ingest stores them. The means are then
taken as the intermediate models take them (``int_runs_cpu_summarized``,
``int_runs_iostat_summarized``): plain means of busy % and %util, awaits weighted by requests per
second, ``await`` standing in for ``r_await`` / ``w_await`` when sysstat printed only that.

A missing, empty or unreadable file gives no numbers (``declare_file`` records why in the
manifest).
"""

from __future__ import annotations

from pathlib import Path

from iopscope.parsers import iostat_json, mpstat_json
from iopscope.parsers.base import ParseError


def _rows(path: Path, parser, table: str) -> list[dict]:
    """The rows of ``table`` that ingest keeps for the measured window (since-boot reports out)."""
    try:
        text = path.read_text(errors="replace")
        result = parser.parse(text, filename=path.name)
    except (OSError, ParseError):
        return []
    return [row for row in result.tables.get(table, []) if row.get("is_since_boot") is not True]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def cpu_busy_pct(path: Path) -> float | None:
    """Mean busy % of mpstat's 'all' rows, one decimal; None without any."""
    busy = [r["busy_pct"] for r in _rows(path, mpstat_json, "cpu_samples")
            if r.get("cpu") == "all" and r.get("busy_pct") is not None]
    mean = _mean(busy)
    return None if mean is None else round(mean, 1)


def _weighted_await(rows: list[dict], rate: str, await_: str) -> float | None:
    """sum(rate x await) / sum(rate) over the rows with an await (``await_ms`` when ``await_`` is absent)."""
    pairs = [(r.get(rate) or 0.0, r.get(await_) if r.get(await_) is not None else r.get("await_ms"))
             for r in rows]
    pairs = [(n, ms) for n, ms in pairs if ms is not None]
    weight = sum(n for n, _ in pairs)
    return sum(n * ms for n, ms in pairs) / weight if weight else None


def device_means(path: Path, device: str) -> dict[str, float | int]:
    """Mean %util (``util_pct``), sample count (``samples``) and request-weighted ``r_await_ms`` /
    ``w_await_ms`` of one device; keys without a value are left out."""
    rows = [r for r in _rows(path, iostat_json, "iostat_device_samples")
            if r.get("device") == device and not r.get("is_group")]
    out: dict[str, float | int] = {}
    util = _mean([r["util_pct"] for r in rows if r.get("util_pct") is not None])
    if util is not None:
        out["util_pct"] = round(util, 1)
    if rows:
        out["samples"] = len(rows)
    for key, rate, await_ in (("r_await_ms", "r_per_s", "r_await_ms"), ("w_await_ms", "w_per_s", "w_await_ms")):
        value = _weighted_await(rows, rate, await_)
        if value is not None:
            out[key] = round(value, 3)
    return out

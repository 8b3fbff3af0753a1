"""The rows of one DiskSpd time span, shared by the XML (``diskspd_xml``) and text
(``diskspd_text``) readers: both reports carry the same figures (per thread and target byte
and IO counts, the span's average latencies, percentiles, CPU), so the mapping to the fio
result tables lives here once and each reader only collects the figures.

Whole-test rows (one per direction, ``job_index`` 0) sum every thread and target; rates come
from the counts over the measured seconds (not from the report's rounded MiB/s); breakdown rows
(``is_breakdown``, ``job_index`` from 1) follow in thread, target, direction order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from iopscope.parsers.base import ParseResult

TOOL = "diskspd"
MIB = 1024 * 1024
DIRECTIONS = ("read", "write")


def profile_columns(*, write_ratio: float | None, random_pct: float, block: float | None,
                    depth: float | None, direct: bool | None, path: str | None) -> dict[str, Any]:
    """The fio-like profile columns of a DiskSpd target (the first one describes the span)."""
    read_pct = 100.0 - write_ratio if write_ratio is not None else None
    kind = None if read_pct is None else "read" if read_pct == 100 else "write" if read_pct == 0 else "rw"
    return {"rw": (("rand" + kind) if random_pct > 0 else kind) if kind else None, "read_pct": read_pct,
            "random_pct": random_pct,
            "block_size_bytes": int(block) if block is not None else None,
            "block_size": _fio_size(int(block)) if block is not None else None,
            "iodepth": int(depth) if depth is not None else None,
            "direct": direct, "filename": path or None}


@dataclass
class TargetCounts:
    """One thread's IO to one target in one direction."""
    thread: str
    path: str
    direction: str
    nbytes: float | None
    count: float | None
    avg_ms: float | None


@dataclass
class Span:
    """What both reports give for one measured time span."""
    index: int
    seconds: float | None
    threads: float | None
    profile: dict[str, Any]
    cpu: dict[str, float | None]                     # usr_cpu_pct, sys_cpu_pct, cpu_util_pct
    average_ms: dict[str, float | None]              # direction -> whole-span average latency
    percentiles: dict[tuple[str, float], float]      # (direction, percentile) -> ms
    targets: list[TargetCounts] = field(default_factory=list)


def add_span(result: ParseResult, span: Span) -> None:
    base = {**span.profile, "doc_index": span.index, "tool": TOOL, "is_aggregate": False,
            "elapsed_s": span.seconds, "numjobs": int(span.threads) if span.threads is not None else None,
            **span.cpu}
    if base.get("iodepth") is not None and span.threads:
        base["outstanding_ios"] = base["iodepth"] * int(span.threads)
    for direction in DIRECTIONS:
        done = [t for t in span.targets if t.direction == direction]
        nbytes = sum(t.nbytes or 0.0 for t in done)
        count = sum(t.count or 0.0 for t in done)
        result.add("fio_jobs", {**base, "job_index": 0, "direction": direction, "result_level": "ALL",
                                "is_breakdown": False, **rates(nbytes, count, span.seconds),
                                "lat_mean_us": us(span.average_ms.get(direction)),
                                "lat_max_us": us(span.percentiles.get((direction, 100.0)))})
        for (d, pct), ms in sorted(span.percentiles.items()):
            if d == direction:
                result.add("fio_percentiles", {"doc_index": span.index, "job_index": 0, "direction": direction,
                                               "latency_kind": "lat", "percentile": pct, "latency_us": us(ms)})
    for job_index, t in enumerate(span.targets, 1):
        result.add("fio_jobs", {**base, "direction": t.direction, "result_level": "TARGET", "is_breakdown": True,
                                "target_name": f"thread {t.thread} {t.path}", **rates(t.nbytes, t.count, span.seconds),
                                "lat_mean_us": us(t.avg_ms), "job_index": job_index})


def add_cpu(result: ParseResult, index: int, ident: str, *, busy: float | None, user: float | None,
            system: float | None, idle: float | None) -> None:
    result.add("cpu_samples", {"sample_index": index, "source_block": "diskspd", "cpu": ident,
                               "is_since_boot": False, "busy_pct": busy, "user_pct": user,
                               "system_pct": system, "idle_pct": idle})


def _fio_size(nbytes: int) -> str:
    """Bytes as fio's job files write a block size (8192 -> "8k"), so the site's condition
    labels read the same for DiskSpd and fio rows."""
    for unit, factor in (("m", 1 << 20), ("k", 1 << 10)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


def rates(nbytes: float | None, count: float | None, seconds: float | None) -> dict[str, Any]:
    ok = bool(seconds)
    return {"io_bytes": int(nbytes) if nbytes is not None else None,
            "total_ios": int(count) if count is not None else None,
            "iops": count / seconds if ok and count is not None else None,
            "bw_bytes_per_s": nbytes / seconds if ok and nbytes is not None else None,
            "bw_mib_per_s": nbytes / seconds / MIB if ok and nbytes is not None else None}


def us(ms: float | None) -> float | None:
    return ms * 1000.0 if ms is not None else None

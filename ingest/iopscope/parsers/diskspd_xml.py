"""DiskSpd XML results (``diskspd -Rxml``): the profile asked for and each time span's measured IO, latency and CPU.

DiskSpd (the SQL Server world's fio) writes ``<Results>``: ``<System>`` (computer name,
``<Tool><Version>``, run time), ``<Profile>`` (per ``<TimeSpan>``: duration, warm-up, and per
``<Target>``: path, ``BlockSize``, ``Random`` (random IO, aligned to its value) or
``StrideSize`` (sequential), ``WriteRatio``, ``RequestCount`` (outstanding IOs per thread and
target), ``ThreadsPerFile``, ``DisableOSCache``), then one measured ``<TimeSpan>`` per profile
time span: ``TestTimeSeconds``, ``ThreadCount``, ``<CpuUtilization>`` (per ``<CPU>`` and
``<Average>``: Usage / User / Kernel / Idle percent), ``<Latency>`` (average read / write /
total ms, and ``<Bucket>`` percentiles 0..100 with Read / Write / Total milliseconds), and per
``<Thread>`` and ``<Target>`` byte and IO counts and average latencies.

Tables written
--------------
``fio_jobs`` (``tool = 'diskspd'``)  per time span (``doc_index``): one whole-test row per
    direction (read, write) summed over every thread and target: ``iops`` = IOs / test seconds,
    ``bw_bytes_per_s`` and ``bw_mib_per_s`` (both bases, from bytes), ``lat_mean_us`` (the
    span's average read / write latency), ``lat_max_us`` (its 100th percentile), ``io_bytes``,
    ``total_ios``, ``usr_cpu_pct`` / ``sys_cpu_pct`` / ``cpu_util_pct`` (the CPU average); the
    profile from the first target: ``rw`` (``Random`` -> randread / randwrite / randrw, else
    read / write / rw), ``read_pct`` = 100 - WriteRatio, ``block_size_bytes``, ``iodepth`` =
    RequestCount, ``numjobs`` = threads, ``outstanding_ios`` = RequestCount x threads,
    ``direct`` = DisableOSCache. Then one row per thread, target and direction with
    ``is_breakdown`` (they add up to the whole-test row).
``fio_percentiles``  the span's latency percentiles per direction (``latency_kind = 'lat'``:
    DiskSpd times an IO from issue to completion).
``cpu_samples`` (``source_block = 'diskspd'``)  one row per CPU and ``all`` (the average).

Reading is two steps: the XML is parsed to text fields; :func:`_number` converts each (a bad
number is an issue naming the element and its line).

Example
-------
>>> xml = ('<Results><System><Tool><Version>2.0.21a</Version></Tool></System><Profile><TimeSpans><TimeSpan>'
...        '<Targets><Target><Path>#1</Path><BlockSize>8192</BlockSize><Random>8192</Random><WriteRatio>0</WriteRatio>'
...        '<RequestCount>8</RequestCount><DisableOSCache>true</DisableOSCache></Target></Targets></TimeSpan></TimeSpans>'
...        '</Profile><TimeSpan><TestTimeSeconds>10.00</TestTimeSeconds><ThreadCount>2</ThreadCount>'
...        '<Latency><AverageReadMilliseconds>0.400</AverageReadMilliseconds></Latency>'
...        '<Thread><Id>0</Id><Target><Path>#1</Path><ReadBytes>819200000</ReadBytes><ReadCount>100000</ReadCount>'
...        '<WriteBytes>0</WriteBytes><WriteCount>0</WriteCount></Target></Thread></TimeSpan></Results>')
>>> r = parse(xml)
>>> row = r.tables["fio_jobs"][0]
>>> (r.tool_version, row["tool"], row["rw"], row["iops"], row["bw_bytes_per_s"], row["lat_mean_us"], row["outstanding_ios"])
('2.0.21a', 'diskspd', 'randread', 10000.0, 81920000.0, 400.0, 16)
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from iopscope.parsers._convert import number as _number_text
from iopscope.parsers.base import ParseError, ParseResult

NAME = "diskspd_xml"
VERSION = "1.0.0"
TOOL = "diskspd"

MIB = 1024 * 1024


def detect(head: str, filename: str) -> float:
    start = head.lstrip("\ufeff \t\r\n")[:400]
    if start.startswith(("<Results>", "<?xml")) and "<Results>" in head and (
            "<TestTimeSeconds>" in head or "<Tool>" in head and "<Version>" in head and "<TimeSpans>" in head):
        return 0.98
    return 0.0


class _Doc:
    """The parsed XML with the line of each element (ElementTree keeps none: found by a scan)."""

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise ParseError(f"not well-formed XML: {exc.msg}", exc.position[0]) from None
        if self.root.tag != "Results":
            raise ParseError(f"root element is <{self.root.tag}>, not DiskSpd's <Results>", 1)

    def line_of(self, tag: str, nth: int = 0) -> int:
        at = -1
        for _ in range(nth + 1):
            at = self.text.find(f"<{tag}>", at + 1)
            if at < 0:
                return 1
        return self.text.count("\n", 0, at) + 1


def _num(element: ET.Element | None, tag: str, doc: _Doc, result: ParseResult) -> float | None:
    if element is None:
        return None
    child = element.find(tag)
    if child is None or child.text is None:
        return None
    return _number_text(child.text, f"<{tag}>", doc.line_of(tag), result)


def _attr(element: ET.Element, name: str, doc: _Doc, result: ParseResult) -> float | None:
    return _number_text(element.get(name), f"{name}=", doc.line_of(element.tag), result)


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    doc = _Doc(text.lstrip("\ufeff"))
    result = ParseResult(format=NAME)
    version = doc.root.find("System/Tool/Version")
    result.tool_version = version.text.strip() if version is not None and version.text else None
    name = doc.root.find("System/ComputerName")
    if name is not None and name.text:
        result.facts["hostname"] = name.text.strip()
    run_time = doc.root.find("System/RunTime")
    if run_time is not None and run_time.text:
        result.facts["diskspd_run_time"] = run_time.text.strip()
    profiles = doc.root.findall("Profile/TimeSpans/TimeSpan")
    spans = doc.root.findall("TimeSpan")
    if not spans:
        raise ParseError("no measured <TimeSpan> (DiskSpd stopped before measuring, or not a results file)",
                         doc.line_of("Results"))
    if len(profiles) != len(spans):
        result.warn(None, f"{len(profiles)} profiled time span(s) but {len(spans)} measured: profile read by position")
    for index, span in enumerate(spans):
        _span(doc, index, span, profiles[index] if index < len(profiles) else None, result)
    return result


def _profile(doc: _Doc, profile: ET.Element | None, result: ParseResult) -> dict[str, Any]:
    target = profile.find("Targets/Target") if profile is not None else None
    if target is None:
        return {}
    if profile is not None and len(profile.findall("Targets/Target")) > 1:
        result.warn(doc.line_of("Targets"), "several targets: the profile columns describe the first")
    block = _num(target, "BlockSize", doc, result)
    write_ratio = _num(target, "WriteRatio", doc, result)
    depth = _num(target, "RequestCount", doc, result)
    random = target.find("Random") is not None
    read_pct = 100.0 - write_ratio if write_ratio is not None else None
    kind = None if read_pct is None else "read" if read_pct == 100 else "write" if read_pct == 0 else "rw"
    cache = target.find("DisableOSCache")
    return {"rw": (("rand" + kind) if random else kind) if kind else None, "read_pct": read_pct,
            "random_pct": 100.0 if random else 0.0,
            "block_size_bytes": int(block) if block is not None else None,
            "block_size": str(int(block)) if block is not None else None,
            "iodepth": int(depth) if depth is not None else None,
            "direct": (cache.text or "").strip().lower() == "true" if cache is not None else None,
            "filename": (target.findtext("Path") or "").strip() or None}


def _span(doc: _Doc, index: int, span: ET.Element, profile: ET.Element | None, result: ParseResult) -> None:
    seconds = _num(span, "TestTimeSeconds", doc, result)
    threads = _num(span, "ThreadCount", doc, result)
    if not seconds:
        result.warn(doc.line_of("TestTimeSeconds", index), "time span without a test time: no rates")
    base = _profile(doc, profile, result)
    base.update(doc_index=index, tool=TOOL, is_aggregate=False, elapsed_s=seconds,
                numjobs=int(threads) if threads is not None else None)
    if base.get("iodepth") is not None and threads:
        base["outstanding_ios"] = base["iodepth"] * int(threads)
    cpu = span.find("CpuUtilization/Average")
    base.update(usr_cpu_pct=_num(cpu, "UserPercent", doc, result), sys_cpu_pct=_num(cpu, "KernelPercent", doc, result),
                cpu_util_pct=_num(cpu, "UsagePercent", doc, result))
    latency = span.find("Latency")
    percentiles = _percentiles(doc, latency, result)
    totals = {d: {"bytes": 0.0, "ios": 0.0} for d in ("read", "write")}
    breakdown: list[dict[str, Any]] = []
    for thread in span.findall("Thread"):
        thread_id = thread.findtext("Id")
        for target in thread.findall("Target"):
            for direction, bytes_tag, count_tag, lat_tag in (
                    ("read", "ReadBytes", "ReadCount", "AverageReadLatencyMilliseconds"),
                    ("write", "WriteBytes", "WriteCount", "AverageWriteLatencyMilliseconds")):
                nbytes, count = _num(target, bytes_tag, doc, result), _num(target, count_tag, doc, result)
                totals[direction]["bytes"] += nbytes or 0.0
                totals[direction]["ios"] += count or 0.0
                breakdown.append({**base, "direction": direction, "result_level": "TARGET", "is_breakdown": True,
                                  "target_name": f"thread {thread_id} {(target.findtext('Path') or '').strip()}",
                                  **_rates(nbytes, count, seconds),
                                  "lat_mean_us": _us(_num(target, lat_tag, doc, result))})
    for direction, avg_tag in (("read", "AverageReadMilliseconds"), ("write", "AverageWriteMilliseconds")):
        done = totals[direction]
        max_ms = percentiles.get((direction, 100.0))
        result.add("fio_jobs", {**base, "job_index": 0, "direction": direction, "result_level": "ALL",
                                "is_breakdown": False, **_rates(done["bytes"], done["ios"], seconds),
                                "lat_mean_us": _us(_num(latency, avg_tag, doc, result)), "lat_max_us": _us(max_ms)})
        for (d, pct), ms in sorted(percentiles.items()):
            if d == direction:
                result.add("fio_percentiles", {"doc_index": index, "job_index": 0, "direction": direction,
                                               "latency_kind": "lat", "percentile": pct, "latency_us": _us(ms)})
    for job_index, row in enumerate(breakdown, 1):
        result.add("fio_jobs", {**row, "job_index": job_index})
    _cpus(doc, index, span, result)


def _rates(nbytes: float | None, count: float | None, seconds: float | None) -> dict[str, Any]:
    ok = bool(seconds)
    return {"io_bytes": int(nbytes) if nbytes is not None else None,
            "total_ios": int(count) if count is not None else None,
            "iops": count / seconds if ok and count is not None else None,
            "bw_bytes_per_s": nbytes / seconds if ok and nbytes is not None else None,
            "bw_mib_per_s": nbytes / seconds / MIB if ok and nbytes is not None else None}


def _percentiles(doc: _Doc, latency: ET.Element | None, result: ParseResult) -> dict[tuple[str, float], float]:
    found: dict[tuple[str, float], float] = {}
    if latency is None:
        return found
    for bucket in latency.findall("Bucket"):
        pct = _num(bucket, "Percentile", doc, result)
        if pct is None:
            continue
        for direction, tag in (("read", "ReadMilliseconds"), ("write", "WriteMilliseconds")):
            ms = _num(bucket, tag, doc, result)
            if ms is not None:
                found[(direction, pct)] = ms
    return found


def _cpus(doc: _Doc, index: int, span: ET.Element, result: ParseResult) -> None:
    usage = span.find("CpuUtilization")
    if usage is None:
        return
    for cpu in [*usage.findall("CPU"), usage.find("Average")]:
        if cpu is None:
            continue
        ident = "all" if cpu.tag == "Average" else (cpu.findtext("Id") or "").strip()
        group = cpu.findtext("Group")
        if group and group.strip() not in ("", "0") and ident != "all":
            ident = f"{group.strip()}:{ident}"
        result.add("cpu_samples", {"sample_index": index, "source_block": "diskspd", "cpu": ident,
                                   "is_since_boot": False, "busy_pct": _num(cpu, "UsagePercent", doc, result),
                                   "user_pct": _num(cpu, "UserPercent", doc, result),
                                   "system_pct": _num(cpu, "KernelPercent", doc, result),
                                   "idle_pct": _num(cpu, "IdlePercent", doc, result)})


def _us(ms: float | None) -> float | None:
    return ms * 1000.0 if ms is not None else None

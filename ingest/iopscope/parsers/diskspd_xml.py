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

from iopscope.parsers._convert import number as _number_text, plain_number
from iopscope.parsers._diskspd_rows import TOOL, Span, TargetCounts, add_cpu, add_span, profile_columns
from iopscope.parsers.base import ParseError, ParseResult

NAME = "diskspd_xml"
VERSION = "1.0.1"
__all__ = ["NAME", "VERSION", "TOOL", "detect", "parse"]


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
    value = plain_number(child.text)
    if value is not None:
        return value
    # An issue, maybe: only now is the line looked for (a scan of the text).
    return _number_text(child.text, f"<{tag}>", doc.line_of(tag), result)


def _attr(element: ET.Element, name: str, doc: _Doc, result: ParseResult) -> float | None:
    value = plain_number(element.get(name))
    if value is not None:
        return value
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
    cache = target.find("DisableOSCache")
    return profile_columns(write_ratio=_num(target, "WriteRatio", doc, result),
                           random_pct=100.0 if target.find("Random") is not None else 0.0,
                           block=_num(target, "BlockSize", doc, result),
                           depth=_num(target, "RequestCount", doc, result),
                           direct=(cache.text or "").strip().lower() == "true" if cache is not None else None,
                           path=(target.findtext("Path") or "").strip())


def _span(doc: _Doc, index: int, span: ET.Element, profile: ET.Element | None, result: ParseResult) -> None:
    seconds = _num(span, "TestTimeSeconds", doc, result)
    threads = _num(span, "ThreadCount", doc, result)
    if not seconds:
        result.warn(doc.line_of("TestTimeSeconds", index), "time span without a test time: no rates")
    cpu = span.find("CpuUtilization/Average")
    latency = span.find("Latency")
    measured = Span(index=index, seconds=seconds, threads=threads, profile=_profile(doc, profile, result),
                    cpu={"usr_cpu_pct": _num(cpu, "UserPercent", doc, result),
                         "sys_cpu_pct": _num(cpu, "KernelPercent", doc, result),
                         "cpu_util_pct": _num(cpu, "UsagePercent", doc, result)},
                    average_ms={"read": _num(latency, "AverageReadMilliseconds", doc, result),
                                "write": _num(latency, "AverageWriteMilliseconds", doc, result)},
                    percentiles=_percentiles(doc, latency, result))
    for thread in span.findall("Thread"):
        thread_id = thread.findtext("Id") or ""
        for target in thread.findall("Target"):
            for direction, bytes_tag, count_tag, lat_tag in (
                    ("read", "ReadBytes", "ReadCount", "AverageReadLatencyMilliseconds"),
                    ("write", "WriteBytes", "WriteCount", "AverageWriteLatencyMilliseconds")):
                measured.targets.append(TargetCounts(
                    thread=thread_id, path=(target.findtext("Path") or "").strip(), direction=direction,
                    nbytes=_num(target, bytes_tag, doc, result), count=_num(target, count_tag, doc, result),
                    avg_ms=_num(target, lat_tag, doc, result)))
    add_span(result, measured)
    _cpus(doc, index, span, result)


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
        add_cpu(result, index, ident, busy=_num(cpu, "UsagePercent", doc, result),
                user=_num(cpu, "UserPercent", doc, result), system=_num(cpu, "KernelPercent", doc, result),
                idle=_num(cpu, "IdlePercent", doc, result))

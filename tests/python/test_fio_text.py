"""fio normal (text) output: unit handling, layouts, and equivalence with the JSON path.

The equivalence test reads pairs captured from ONE fio 3.33 run with
``--output-format=normal,json+`` (split into text-*.txt and text-*.json, see
tests/fixtures/fio/fio-3.33/text-CAPTURES.md) and checks that both parsers give the same
IOPS, bandwidth, IO counts and latencies, within the precision the text prints.
"""

from __future__ import annotations

import math
import re
import time

import pytest

from conftest import FIXTURES, ROOT
from iopscope import parsers
from iopscope.parsers import ParseError, fio_json, fio_text

CAPTURES = FIXTURES / "fio" / "fio-3.33"
TWINS = sorted(p for p in CAPTURES.glob("text-*.txt") if p.with_suffix(".json").exists())
UNIT_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3, "sec": 1e6}
UNIT_KIB = {"KiB": 1.0, "MiB": 1024.0, "KB": 1.0, "kB": 1000 / 1024}


def _printed_units(text: str) -> dict:
    """Per (block, direction): the unit each latency / percentile / bw line is printed in.

    Read independently of the parser, only to size the tolerance of the comparison.
    """
    units: dict = {}
    block, direction = -1, None
    for line in text.splitlines():
        if re.match(r"^\S.*: \(groupid=\d+", line):
            block, direction = block + 1, None
        m = re.match(r"^\s+(read|write|trim)\s*:", line)
        if m:
            direction = m.group(1)
        if re.match(r"^\s+fsync/", line):
            direction = None
        m = re.match(r"^\s+(slat|clat|lat)\s+\((\w+)\)\s*:\s*min=", line)
        if m and direction:
            units[(block, direction, m.group(1))] = UNIT_US[m.group(2)]
        m = re.match(r"^\s+(clat|lat|slat) percentiles \((\w+)\)", line)
        if m and direction:
            units[(block, direction, m.group(1) + "_pct")] = UNIT_US[m.group(2)]
        m = re.match(r"^\s+bw\s*\(\s*(\w+)/s\)", line)
        if m and direction:
            units[(block, direction, "bw")] = UNIT_KIB[m.group(1)]
    return units


def _close(got, want, abs_tol, rel_tol=1e-9) -> bool:
    return math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol)


@pytest.mark.parametrize("text_path", TWINS, ids=lambda p: p.name)
def test_text_and_json_of_one_run_agree(text_path):
    text = text_path.read_text()
    t = fio_text.parse(text)
    j = fio_json.parse(text_path.with_suffix(".json").read_text())
    units = _printed_units(text)
    t_jobs, j_jobs = t.tables["fio_jobs"], j.tables["fio_jobs"]
    assert [(r["job_index"], r["direction"]) for r in t_jobs] == \
           [(r["job_index"], r["direction"]) for r in j_jobs]
    for a, b in zip(t_jobs, j_jobs):
        where = f"{text_path.name} job {a['job_index']} {a['direction']}"
        # Exact: counts, bytes, runtime and the workload the job ran.
        for col in ("total_ios", "short_ios", "dropped_ios", "io_bytes", "runtime_ms", "block_size_bytes",
                    "rw", "iodepth", "group_id", "error_code", "ctx_switches", "major_faults", "minor_faults",
                    "bw_samples", "iops_samples"):
            assert a[col] == b[col], f"{where}: {col} text={a[col]!r} json={b[col]!r}"
        # Derived with fio's own formula from the exact IO count: same to rounding of the JSON.
        for col in ("iops", "bw_bytes_per_s", "bw_mib_per_s"):
            assert _close(a[col], b[col], abs_tol=1.0, rel_tol=1e-8), f"{where}: {col} {a[col]} vs {b[col]}"
        key = (a["job_index"], a["direction"])
        for kind in ("slat", "clat", "lat"):
            unit = units[key + (kind,)]
            # avg/stdev are printed with 2 decimals; min/max as whole units (or 4 digits + k).
            for stat in ("mean", "stdev"):
                col = f"{kind}_{stat}_us"
                assert _close(a[col], b[col], abs_tol=0.005 * unit + 1e-9), f"{where}: {col} {a[col]} vs {b[col]}"
            for stat in ("min", "max"):
                col = f"{kind}_{stat}_us"
                assert _close(a[col], b[col], abs_tol=unit, rel_tol=1e-3), f"{where}: {col} {a[col]} vs {b[col]}"
        bw_unit = units[key + ("bw",)]
        for col, tol in (("bw_min_kib_per_s", bw_unit), ("bw_max_kib_per_s", bw_unit),
                         ("bw_mean_kib_per_s", 0.005 * bw_unit), ("bw_stdev_kib_per_s", 0.005 * bw_unit),
                         ("iops_min", 1.0), ("iops_max", 1.0), ("iops_mean", 0.005), ("iops_stdev", 0.005),
                         ("usr_cpu_pct", 0.005), ("sys_cpu_pct", 0.005), ("bw_agg_pct", 0.005)):
            if b.get(col) is None:
                continue
            assert _close(a[col], b[col], abs_tol=tol + 1e-9), f"{where}: {col} {a[col]} vs {b[col]}"
    # Percentiles: same set; the text rounds each up to a whole printed unit.
    t_pct = {(r["job_index"], r["direction"], r["latency_kind"], r["percentile"]): r["latency_us"]
             for r in t.tables["fio_percentiles"]}
    j_pct = {(r["job_index"], r["direction"], r["latency_kind"], r["percentile"]): r["latency_us"]
             for r in j.tables["fio_percentiles"]}
    assert set(t_pct) == set(j_pct)
    for k, value in t_pct.items():
        unit = units[(k[0], k[1], k[2] + "_pct")]
        assert _close(value, j_pct[k], abs_tol=unit), f"{text_path.name} percentile {k}: {value} vs {j_pct[k]}"
    # Disk stats: the same integers.
    cols = ("disk_name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks_ms",
            "write_ticks_ms", "in_queue_ms")
    assert [[d[c] for c in cols] for d in t.tables["fio_disk_util"]] == \
           [[d[c] for c in cols] for d in j.tables["fio_disk_util"]]
    for a, b in zip(t.tables["fio_disk_util"], j.tables["fio_disk_util"]):
        assert _close(a["util_pct"], b["util_pct"], abs_tol=0.005 + 1e-9)


def test_twins_are_present():
    assert len(TWINS) >= 5, TWINS


# --------------------------------------------------------------------------- units


def test_sizes_follow_each_generation():
    # fio 2.x: KB/MB are powers of 1024; fio 3.x: MB is 10^6 and MiB 2^20; kB always 1000.
    assert fio_text._size("32708KB", legacy=True)[0] == 32708 * 1024
    assert fio_text._size("1228.8MB", legacy=True)[0] == pytest.approx(1228.8 * 1048576)
    assert fio_text._size("289MB", legacy=False)[0] == 289e6
    assert fio_text._size("276MiB", legacy=False)[0] == 276 * 1048576
    assert fio_text._size("10.8GiB", legacy=False) == (10.8 * 2**30, 0.1 * 2**30)
    assert fio_text._size("100kB", legacy=True)[0] == 100000
    assert fio_text._size("557417B", legacy=True) == (557417.0, 1.0)
    assert fio_text._size("12 MB", legacy=True) is None


def test_counts_take_decimal_suffixes():
    assert fio_text._count("70.5k") == (70500.0, 100.0)
    assert fio_text._count("3733.6K") == pytest.approx((3733600.0, 100.0))
    assert fio_text._count("1.2M") == pytest.approx((1.2e6, 1e5))
    assert fio_text._count("136") == (136.0, 1.0)
    assert fio_text._count("n/a") is None


def _one_job(direction_lines: str, header: str = "j: (g=0): rw=randread, bs=4K-4K/4K-4K/4K-4K, "
             "ioengine=libaio, iodepth=4", tail: str = "") -> str:
    return (f"{header}\nfio-2.2.10\nStarting 1 process\n\n"
            "j: (groupid=0, jobs=1): err= 0: pid=1: Fri Jun 19 01:26:06 2020\n"
            f"{direction_lines}\n\nRun status group 0 (all jobs):\n"
            "   READ: io=4000KB, aggrb=400KB/s, minb=400KB/s, maxb=400KB/s, mint=10000msec, maxt=10000msec\n"
            f"{tail}")


def test_latency_unit_is_read_per_line():
    r = fio_text.parse(_one_job(
        "  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec\n"
        "    slat (nsec): min=500, max=37758k, avg=1500.50, stdev=20.00\n"
        "    clat (msec): min=1, max=2, avg= 1.50, stdev= 0.25\n"
        "     lat (usec): min=1001, max=2001, avg=1501.52, stdev=250.10\n"
        "    clat percentiles (msec):\n"
        "     |  1.00th=[    1], 50.00th=[    2],\n"
        "     | 99.99th=[    3]"))
    row = r.tables["fio_jobs"][0]
    assert row["slat_min_us"] == 0.5 and row["slat_max_us"] == 37758.0
    assert row["clat_mean_us"] == 1500.0 and row["clat_stdev_us"] == 250.0
    assert row["lat_mean_us"] == pytest.approx(1501.52)
    assert [p["latency_us"] for p in r.tables["fio_percentiles"]] == [1000.0, 2000.0, 3000.0]
    assert [p["percentile"] for p in r.tables["fio_percentiles"]] == [1.0, 50.0, 99.99]


def test_bw_sample_lines_in_every_unit_become_kib():
    lines = ("  read: IOPS=2190, BW=2190MiB/s (2297MB/s)(4385MiB/2002msec)\n"
             "   bw (  MiB/s): min= 2042, max= 2294, per=99.71%, avg=2184.00, stdev=129.01, samples=3\n"
             "   iops        : min= 2042, max= 2294, avg=2184.00, stdev=129.01, samples=3")
    row = fio_text.parse(_one_job(lines)).tables["fio_jobs"][0]
    assert row["bw_min_kib_per_s"] == 2042 * 1024 and row["bw_mean_kib_per_s"] == 2184 * 1024
    assert row["bw_agg_pct"] == 99.71 and row["bw_samples"] == 3 and row["iops_max"] == 2294
    # No issued line: the printed (3-digit) values are all there is.
    assert row["io_bytes"] == 4385 * 1048576 and row["iops"] == 2190.0
    assert row["bw_bytes_per_s"] == 2190 * 1048576
    old = fio_text.parse(_one_job("  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec\n"
                                  "    bw (KB  /s): min=  168, max= 1264, per=100.00%, avg=546.29, stdev=249.60"))
    assert old.tables["fio_jobs"][0]["bw_max_kib_per_s"] == 1264.0


def test_printed_value_kept_when_it_contradicts_the_issued_count():
    r = fio_text.parse(_one_job("  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec\n"
                                "     issued    : total=r=5000/w=0/d=0, short=r=0/w=0/d=0"))
    row = r.tables["fio_jobs"][0]
    assert row["iops"] == 100.0 and row["io_bytes"] == 4000 * 1024 and row["total_ios"] == 5000
    assert any("printed value kept" in i.reason for i in r.issues)


def test_workload_comes_from_the_header_never_the_name():
    r = fio_text.parse(_one_job(
        "  write: io=4000KB, bw=409600B/s, iops=100, runt= 10000msec",
        header="random-read: (g=0): rw=randwrite, bs=8K-8K/8K-8K/8K-8K, ioengine=sync, iodepth=1"
    ).replace("j: (groupid", "random-read: (groupid"))
    row = r.tables["fio_jobs"][0]
    assert (row["job_name"], row["rw"], row["read_pct"], row["block_size_bytes"]) == ("random-read", "randwrite", 0.0, 8192)


def test_header_block_sizes_per_direction():
    assert fio_text._block_sizes("(R) 4096B-4096B, (W) 16.0KiB-16.0KiB, (T) 4096B-4096B") == \
        [(4096, 4096), (16384, 16384), (4096, 4096)]
    assert fio_text._block_sizes("512-64K/4K-4K/4K-4K")[0] == (512, 65536)
    assert fio_text._block_size_text([(4096, 4096)] * 3, None) == "4096"
    assert fio_text._block_size_text([(512, 65536), (4096, 4096), (4096, 4096)], None) == "512-65536,4096,4096"


def test_mixed_direction_of_unified_rw_reporting():
    r = fio_text.parse(_one_job("  mixed: IOPS=1000, BW=3.91MiB/s (4096kB/s)(39.1MiB/10000msec)\n"
                                "     issued rwts: total=6000,4000,0,0 short=0,0,0,0 dropped=0,0,0,0"))
    row = r.tables["fio_jobs"][0]
    assert row["direction"] == "mixed" and row["iops"] == 1000.0 and row["total_ios"] is None


# --------------------------------------------------------------------------- layouts and status


def test_progress_lines_and_crlf():
    text = _one_job("  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec")
    text = text.replace("Starting 1 process\n",
                        "Starting 1 process\nJobs: 1 (f=1): [r(1)] [50.0% done] [400KB/0KB/0KB /s] "
                        "[100/0/0 iops] [eta 00m:05s]\rJobs: 1 (f=1): [r(1)] [100.0% done] [eta 00m:00s]\r\n")
    r = fio_text.parse(text.replace("\n", "\r\n"))
    assert r.status == "complete" and not r.issues
    assert r.tables["fio_jobs"][0]["iops"] == 100.0


def test_error_only_output_is_a_failed_run():
    r = fio_text.parse("fio: looks like your file system does not support direct=1/buffered=0\n"
                       "fio: destination does not support O_DIRECT\n")
    assert r.status == "failed" and "does not support O_DIRECT" in r.status_reason
    assert r.tables == {}
    assert fio_text.detect("fio: failed to load engine\n", "out.txt") > 0
    assert parsers.detect("fio: failed to load engine\n", "out.txt")[0] is fio_text


def test_interrupted_run_keeps_rows_and_says_why():
    text = _one_job("  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec")
    text = text.replace("Starting 1 process\n", "Starting 1 process\nfio: terminating on signal 2\n")
    r = fio_text.parse(text)
    assert r.status == "incomplete" and r.status_reason == "interrupted: fio: terminating on signal 2"
    assert len(r.tables["fio_jobs"]) == 1


def test_header_without_results_is_incomplete():
    r = fio_text.parse("j: (g=0): rw=read, bs=4K-4K/4K-4K/4K-4K, ioengine=sync, iodepth=1\nfio-2.2.10\n"
                       "Starting 1 process\nJobs: 1 (f=1): [R(1)] [4.0% done] [eta 01m:40s]")
    assert r.status == "incomplete" and r.tool_version == "2.2.10"
    assert any("no result block" in i.reason for i in r.issues)


def test_not_fio_text_is_rejected():
    with pytest.raises(ParseError):
        fio_text.parse("Linux 6.1.0 (host)  11/21/2026  _x86_64_  (2 CPU)\n\navg-cpu:  %user\n")
    with pytest.raises(ParseError):
        fio_text.parse("")


def test_unknown_lines_become_warnings_with_line_numbers():
    text = _one_job("  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec\n    something new=1")
    r = fio_text.parse(text)
    assert [(i.line, i.severity) for i in r.issues] == [(7, "warning")]


@pytest.mark.parametrize("usr", ["6.50.", "13..82", "3.8.39"])
def test_a_damaged_cpu_line_is_a_warning_not_a_crash(usr):
    # Found by mutating fixtures: "usr=[\d.]+" matched "6.50." and float() raised out of parse().
    text = (CAPTURES / "text-single-randread.txt").read_text()
    line = next(ln for ln in text.splitlines() if ln.lstrip().startswith("cpu") and "usr=" in ln)
    damaged = text.replace(line, line.replace(line.split("usr=")[1].split("%")[0], usr, 1), 1)
    r = fio_text.parse(damaged)
    lineno = damaged.splitlines().index(line.replace(line.split("usr=")[1].split("%")[0], usr, 1)) + 1
    assert any(i.line == lineno for i in r.issues), r.issues
    assert [job["usr_cpu_pct"] for job in r.tables["fio_jobs"]] == [None]  # not read, not guessed


def test_several_headers_in_one_group_without_group_reporting():
    text = ("a: (g=0): rw=read, bs=4K-4K/4K-4K/4K-4K, ioengine=sync, iodepth=1\n"
            "b: (g=0): rw=write, bs=64K-64K/64K-64K/64K-64K, ioengine=sync, iodepth=2\n"
            "fio-2.2.10\nStarting 2 processes\n\n"
            "a: (groupid=0, jobs=1): err= 0: pid=1\n"
            "  read : io=4000KB, bw=409600B/s, iops=100, runt= 10000msec\n"
            "b: (groupid=0, jobs=1): err= 0: pid=2\n"
            "  write: io=6400KB, bw=655360B/s, iops=10, runt= 10000msec\n\n"
            "Run status group 0 (all jobs):\n"
            "   READ: io=4000KB, aggrb=400KB/s, minb=400KB/s, maxb=400KB/s, mint=10000msec, maxt=10000msec\n"
            "  WRITE: io=6400KB, aggrb=640KB/s, minb=640KB/s, maxb=640KB/s, mint=10000msec, maxt=10000msec\n")
    rows = fio_text.parse(text).tables["fio_jobs"]
    assert [(r["job_name"], r["rw"], r["block_size_bytes"], r["iodepth"], r["group_reporting"]) for r in rows] == \
        [("a", "read", 4096, 1, False), ("b", "write", 65536, 2, False)]


def test_detection_between_fio_formats():
    text = (CAPTURES / "text-single-randread.txt").read_text()
    json_text = (CAPTURES / "text-single-randread.json").read_text()
    assert parsers.detect(text, "out.txt")[0] is fio_text
    assert parsers.detect(json_text, "out.json")[0] is fio_json
    assert fio_text.detect(json_text, "out.json") == 0.0
    jobfile = (CAPTURES / "jobfile-two-groups-stonewall.fio").read_text()
    assert fio_text.detect(jobfile, "x.fio") == 0.0


def test_database_job_file_of_the_measured_run_is_recognised():
    path = next((ROOT / "data" / "raw" / "measured").glob("*/database.fio"))
    module, score = parsers.detect(path.read_text(), path.name)
    assert module is not None and module.NAME == "fio_jobfile" and score >= 0.8


# --------------------------------------------------------------------------- throughput


def test_parse_throughput_on_concatenated_outputs():
    """Many outputs in one file: every one read, each its own document, at a useful speed."""
    parts = [p.read_text() for p in sorted(CAPTURES.glob("text-*.txt"))
             if "failed" not in p.name and "status-interval" not in p.name]
    one = "\n".join(parts) + "\n"
    copies = max(1, (1 << 20) // len(one))  # about 1 MiB: keeps the suite fast
    big = one * copies
    started = time.perf_counter()
    r = fio_text.parse(big)
    elapsed = time.perf_counter() - started
    expected_jobs = sum(len(fio_text.parse(p).tables["fio_jobs"]) for p in parts) * copies
    assert len(r.tables["fio_jobs"]) == expected_jobs
    assert r.facts["documents"] == len(parts) * copies
    mb_per_s = len(big.encode()) / 1e6 / elapsed
    print(f"fio_text: {len(big.encode()) / 1e6:.2f} MB in {elapsed:.2f} s = {mb_per_s:.1f} MB/s")
    assert mb_per_s > 0.5  # generous floor for a loaded 2-core machine

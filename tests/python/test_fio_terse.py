"""fio_terse: field layout of every terse version, units, and the lines around the records."""

from __future__ import annotations

import pytest

from conftest import CORPUS, FIXTURES, requires_corpus
from iopscope.parsers import ParseError, fio_terse

REAL = FIXTURES / "fio" / "fio-3.33"


def _directions(result):
    return [(r["job_name"], r["direction"]) for r in result.tables["fio_jobs"]]


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_every_terse_version_of_the_same_workload_reads_alike(version):
    """fio 3.33 printed the same randrw job in v2..v5: every layout must land in the same columns."""
    result = fio_terse.parse((REAL / f"terse-v{version}.txt").read_text())
    assert result.facts["terse_version"] == version
    assert _directions(result) == [(f"t{version}", "read"), (f"t{version}", "write")]
    for row in result.tables["fio_jobs"]:
        # bw (KiB/s) x runtime ~ io (KiB): proves bw, io and runtime come from the right fields
        assert row["bw_bytes_per_s"] * row["runtime_ms"] / 1000 == pytest.approx(row["io_bytes"], rel=0.01)
        assert row["iops"] * 4096 == pytest.approx(row["bw_bytes_per_s"], rel=0.01)  # bs=4k
        assert row["slat_min_us"] <= row["slat_mean_us"] <= row["slat_max_us"]
        assert row["clat_min_us"] <= row["clat_mean_us"] <= row["clat_max_us"]
        assert row["lat_min_us"] <= row["lat_mean_us"] <= row["lat_max_us"]
        assert 0 < row["usr_cpu_pct"] < 100 and 0 < row["sys_cpu_pct"] < 100
        assert (row["bw_samples"] is not None) == (version >= 5)
    pcts = [p["percentile"] for p in result.tables["fio_percentiles"] if p["direction"] == "read"]
    assert pcts == [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0,
                    99.0, 99.5, 99.9, 99.95, 99.99]


def test_terse_states_no_options():
    result = fio_terse.parse((REAL / "terse-v3.txt").read_text())
    for column in ("rw", "block_size", "block_size_bytes", "iodepth", "numjobs", "outstanding_ios",
                   "direct", "time_based", "total_ios", "read_pct"):
        assert {r[column] for r in result.tables["fio_jobs"]} == {None}, column


def test_v2_description_line_is_not_reported():
    line = (REAL / "terse-v2.txt").read_text().rstrip("\n")
    result = fio_terse.parse(line + "\nA description of this job\n")
    assert result.issues == [] and len(result.tables["fio_jobs"]) == 2


def test_continue_on_error_fields_and_description_after_the_disks():
    line = (REAL / "terse-v3.txt").read_text().rstrip("\n")
    result = fio_terse.parse(line + ";12;5;my description\n")
    assert any("12 IO errors" in i.reason for i in result.issues)
    assert len(result.tables["fio_disk_util"]) == 1


def test_unknown_version_and_text_only():
    line = (REAL / "terse-v3.txt").read_text()
    result = fio_terse.parse(line.replace("3;fio-3.33", "7;fio-3.33", 1) + line)
    assert result.status == "incomplete" and any("terse version" in i.reason for i in result.issues)
    with pytest.raises(ParseError):
        fio_terse.parse("hello;world\n")
    failed = fio_terse.parse("error: maximum number of jobs (8) reached.\n")
    assert failed.status == "failed" and "maximum number of jobs" in failed.status_reason


@requires_corpus()
def test_corpus_fio2_terse_v3_twelve_jobs():
    """jtulak: 3 groups x 4 jobs (numjobs, no group_reporting), fio 2.1.2, one disk repeated on every line."""
    result = fio_terse.parse((CORPUS / "fio" / "jtulak_fio2.1.2_terse_v3_12jobs_3groups.txt").read_text())
    rows = result.tables["fio_jobs"]
    assert sorted({r["group_id"] for r in rows}) == [0, 1, 2]
    assert [r["job_index"] for r in rows if r["direction"] == "read"] == list(range(12))
    assert len(result.tables["fio_disk_util"]) == 1  # printed 12 times, the same disk
    first = rows[0]
    assert first["io_bytes"] == 52392 * 1024 and first["iops"] == 651.0
    assert first["clat_mean_us"] == pytest.approx(4610.434417)

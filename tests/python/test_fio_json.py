"""fio_json: the variants the fixtures alone do not pin down, and invariants of real captures.

Fixture-by-fixture expectations live next to the fixtures (tests/fixtures/fio/**/json-*);
these tests check relations between values (units, sums, rules) that a per-file
expectation cannot express.
"""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, FIXTURES, requires_corpus
from iopscope.parsers import ParseError, fio_json

REAL = FIXTURES / "fio" / "fio-3.33"
HANDMADE = FIXTURES / "fio" / "handmade"


def _doc(version: str, job: dict, **top) -> str:
    return json.dumps({"fio version": version, **top, "jobs": [job]})


def _job(stats: dict, name="j", options=None, **extra) -> dict:
    job = {"jobname": name, "groupid": 0, "error": 0, "read": stats}
    if options is not None:
        job["job options"] = options
    job.update(extra)
    return job


# --------------------------------------------------------------------------- units


def test_fio2_usec_and_fio3_nsec_give_the_same_microseconds():
    usec = {"io_bytes": 4096, "iops": 1.0, "runtime": 1000, "total_ios": 1,
            "clat": {"min": 10, "max": 900, "mean": 123.5, "stddev": 7.0,
                     "percentile": {"50.00": 120, "99.00": 800}},
            "lat": {"min": 12, "max": 910, "mean": 130.0, "stddev": 7.5}}
    nsec = {"io_bytes": 4096, "iops": 1.0, "runtime": 1000, "total_ios": 1,
            "clat_ns": {"min": 10000, "max": 900000, "mean": 123500, "stddev": 7000, "N": 1,
                        "percentile": {"50.000000": 120000, "99.000000": 800000}},
            "lat_ns": {"min": 12000, "max": 910000, "mean": 130000, "stddev": 7500, "N": 1}}
    old = fio_json.parse(_doc("fio-2.1.4", _job(usec)))
    new = fio_json.parse(_doc("fio-3.33", _job(nsec)))
    for column in ("clat_min_us", "clat_max_us", "clat_mean_us", "clat_stdev_us", "lat_mean_us"):
        assert old.tables["fio_jobs"][0][column] == pytest.approx(new.tables["fio_jobs"][0][column])
    assert [p["latency_us"] for p in old.tables["fio_percentiles"]] == [120.0, 800.0]
    assert [p["latency_us"] for p in new.tables["fio_percentiles"]] == [120.0, 800.0]


def test_jsonplus_bins_hold_every_completed_io():
    """json+ bins of clat_ns count each IO once: their sum is the direction's total_ios."""
    result = fio_json.parse((REAL / "jsonplus-randrw70-logs.json").read_text())
    for row in result.tables["fio_jobs"]:
        binned = sum(b["io_count"] for b in result.tables["fio_histogram_bins"]
                     if b["direction"] == row["direction"] and b["latency_kind"] == "clat")
        assert binned == row["total_ios"]


def test_terse_and_json_of_the_same_run_agree():
    """--output-format=json,terse: one run printed both ways must give the same numbers."""
    from iopscope.parsers import fio_terse

    text = (REAL / "json-plus-terse-same-run.txt").read_text()
    js, terse = fio_json.parse(text), fio_terse.parse(text)
    assert len(js.tables["fio_jobs"]) == len(terse.tables["fio_jobs"]) == 2
    for a, b in zip(js.tables["fio_jobs"], terse.tables["fio_jobs"]):
        assert a["direction"] == b["direction"]
        assert a["io_bytes"] == b["io_bytes"]
        assert b["iops"] == int(a["iops"])  # terse prints iops as an integer
        for column in ("clat_mean_us", "lat_mean_us", "slat_mean_us", "clat_stdev_us"):
            assert b[column] == pytest.approx(a[column], abs=1e-6)
        assert b["clat_max_us"] == int(a["clat_max_us"])  # usec, truncated from nsec
    pj = {(r["direction"], r["percentile"]): r["latency_us"] for r in js.tables["fio_percentiles"]}
    for r in terse.tables["fio_percentiles"]:
        assert r["latency_us"] == int(pj[(r["direction"], r["percentile"])])


# --------------------------------------------------------------------------- duplicates


def test_percentile_duplicates_keep_the_first_value_and_drop_unused_slots():
    raw = ('{"fio version": "fio-2.1.4", "jobs": [{"jobname": "j", "groupid": 0, "error": 0, '
           '"read": {"io_bytes": 4096, "iops": 1, "runtime": 1, "clat": {"mean": 1, '
           '"percentile": {"1.00": 5, "0.00": 0, "99.00": 10, "0.00": 0, "99.00": 20}}}}]}')
    result = fio_json.parse(raw)
    assert [(p["percentile"], p["latency_us"]) for p in result.tables["fio_percentiles"]] == \
        [(1.0, 5.0), (99.0, 10.0)]


def test_real_client_mode_repeats_global_options_per_client():
    """fio 3.33 --client prints one 'global options' object with each key once per client."""
    text = (REAL / "json-client-2servers.json").read_text()
    assert text.count('"ioengine" : "libaio"') == 2  # the duplicate is really there
    result = fio_json.parse(text)
    options = json.loads(result.tables["fio_jobs"][0]["job_options_json"])
    assert options["ioengine"] == "libaio" and options["time_based"] == "1"


# --------------------------------------------------------------------------- options


def test_missing_job_options_give_nulls_not_fio_defaults():
    result = fio_json.parse((HANDMADE / "json-fio2.1-usec-dup-percentiles.json").read_text())
    row = result.tables["fio_jobs"][0]
    assert row["direction"] == "write" and row["rw"] is None and row["block_size_bytes"] is None


def test_options_present_but_rw_absent_take_fio_defaults():
    result = fio_json.parse(_doc("fio-3.33", _job({"io_bytes": 4096, "total_ios": 1}, options={"size": "1g"})))
    row = result.tables["fio_jobs"][0]
    assert (row["rw"], row["iodepth"], row["block_size_bytes"], row["read_pct"]) == ("read", 1, 4096, 100.0)


@pytest.mark.parametrize("printed, expected", [("0", False), ("1", True), ("", True), (None, None)])
def test_group_reporting_as_printed(printed, expected):
    options = {"rw": "read"} if printed is None else {"rw": "read", "group_reporting": printed}
    result = fio_json.parse(_doc("fio-3.33", _job({"io_bytes": 4096, "total_ios": 1}, options=options)))
    assert result.tables["fio_jobs"][0]["group_reporting"] is expected


def test_job_runtime_is_never_wall_time():
    """With group_reporting fio sums job_runtime over threads; elapsed stays the wall time."""
    result = fio_json.parse((REAL / "json-numjobs2-group-reporting.json").read_text())
    row = result.tables["fio_jobs"][0]
    assert (row["job_runtime_ms"], row["runtime_ms"]) == (2000.0, 1001.0)  # two threads summed
    assert row["elapsed_s"] == 2.0 and row["group_reporting"] is True


def test_numjobs_without_group_reporting_gives_one_entry_per_thread():
    result = fio_json.parse((REAL / "json-numjobs2-no-group-reporting.json").read_text())
    rows = result.tables["fio_jobs"]
    assert [r["job_index"] for r in rows] == [0, 1]
    assert {r["job_name"] for r in rows} == {"nj"}
    assert all(r["numjobs"] == 2 and r["group_reporting"] is False for r in rows)


# --------------------------------------------------------------------------- documents


def test_status_interval_snapshots_are_interim_but_appended_runs_are_not():
    snapshots = fio_json.parse((REAL / "json-status-interval.json").read_text())
    assert [r["is_interim"] for r in snapshots.tables["fio_jobs"]] == [True, True, True, False]
    appended = fio_json.parse((HANDMADE / "json-junk-between-documents.json").read_text())
    assert [r["is_interim"] for r in appended.tables["fio_jobs"]] == [False, False]


def test_same_job_appended_twice_is_not_a_snapshot():
    def run(ts):
        return _doc("fio-3.33", _job({"io_bytes": 4096, "total_ios": 1}, options={"rw": "read"}, elapsed=31),
                    timestamp=ts, timestamp_ms=ts * 1000)

    result = fio_json.parse(run(1700000000) + "\n" + run(1700000040) + "\n")
    assert [r["is_interim"] for r in result.tables["fio_jobs"]] == [False, False]


def test_interrupted_run_keeps_its_rows():
    result = fio_json.parse((REAL / "json-interrupted-signal2.json").read_text())
    assert result.status == "incomplete" and result.status_reason.startswith("interrupted")
    assert result.tables["fio_jobs"][0]["iops"] > 0


def test_time_based_run_that_ran_its_time_is_complete():
    job = _job({"io_bytes": 4096, "total_ios": 1}, options={"time_based": "1", "runtime": "10"}, elapsed=11)
    assert fio_json.parse(_doc("fio-3.33", job)).status == "complete"


def test_only_error_lines_is_a_failed_run():
    result = fio_json.parse((REAL / "json-failed-bad-ioengine.json").read_text())
    assert result.status == "failed" and "nosuchengine" in result.status_reason
    assert fio_json.detect((REAL / "json-failed-bad-ioengine.json").read_text(), "out.json") > 0


# --------------------------------------------------------------------------- robustness


@pytest.mark.parametrize("text", [
    "[" * 50000,
    "{" * 50000,
    '{"fio version": "fio-3.33", "jobs": [' + "[" * 3000 + "]" * 3000 + "]}",
    '{"fio version": "fio-3.33", "timestamp": 1e308, "jobs": [{"read": {"io_kbytes": "x", "bw": "y", "total_ios": 1}}]}',
    '{"fio version": 3.33, "jobs": {"a": 1}, "disk_util": 7}',
    '{"fio version": "fio-3.33", "client_stats": [{"jobname": "All clients", "read": {"total_ios": 5}}]}',
])
def test_hostile_documents_never_crash(text):
    try:
        result = fio_json.parse(text)
    except ParseError as exc:
        assert exc.reason
        return
    assert result.status in ("complete", "incomplete", "failed")


# --------------------------------------------------------------------------- sizes


def _io_matches_bw_times_runtime(result):
    for row in result.tables["fio_jobs"]:
        moved = row["bw_bytes_per_s"] * row["runtime_ms"] / 1000
        assert row["io_bytes"] == pytest.approx(moved, rel=0.02), row["job_name"]


@requires_corpus()
def test_fio21_io_bytes_is_kib():
    """fio 2.1 printed io_bytes >> 10 and no io_kbytes: read as bytes it would be 1024x too small."""
    _io_matches_bw_times_runtime(
        fio_json.parse((CORPUS / "fio" / "pkb_fio2.1.4_json_5groups_diskutil.json").read_text()))


@pytest.mark.parametrize("name", ["jsonplus-randrw70-logs.json", "json-numjobs2-group-reporting.json",
                                  "json-client-2servers.json"])
def test_fio3_io_bytes_is_bytes(name):
    _io_matches_bw_times_runtime(fio_json.parse((REAL / name).read_text()))


@requires_corpus()
def test_fio21_bw_agg_holding_the_mean_is_dropped():
    result = fio_json.parse((CORPUS / "fio" / "pkb_fio2.1.4_json_5groups_diskutil.json").read_text())
    assert {r["bw_agg_pct"] for r in result.tables["fio_jobs"]} == {None}


def test_unified_rw_reporting_is_reported_not_dropped_silently():
    job = {"jobname": "u", "groupid": 0, "error": 0, "mixed": {"io_bytes": 4096, "total_ios": 1}}
    result = fio_json.parse(json.dumps({"fio version": "fio-3.33", "jobs": [job]}))
    assert any("mixed" in i.reason for i in result.issues)

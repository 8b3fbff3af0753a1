"""fio_log and fio_histogram_log: layouts, the documented unit rule, and cross-checks between
the logs and the json+ output of the same real fio 3.33 run (tests/fixtures/fio/fio-3.33)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES, requires_corpus
from iopscope import lake, tables
from iopscope.parsers import ParseError, fio_histogram_log, fio_json, fio_log

REAL = FIXTURES / "fio" / "fio-3.33"


def _log(kind: str):
    name = f"log-randrw70_{kind}.1.log"
    return fio_log.parse((REAL / name).read_text(), filename=name).tables["fio_log_samples"]


def _json_run():
    return {r["direction"]: r for r in
            fio_json.parse((REAL / "jsonplus-randrw70-logs.json").read_text()).tables["fio_jobs"]}


# --------------------------------------------------------------------------- file names


@pytest.mark.parametrize("name, parts", [
    ("mixed_clat.1.log", ("mixed", "clat", 1)),
    ("a_b_lat.12.log", ("a_b", "lat", 12)),
    ("rw-4k-KERNEL_bw.log", ("rw-4k-KERNEL", "bw", None)),
    ("/some/dir/x_slat.3.log", ("x", "slat", 3)),
    ("x_clat_hist.1.log", (None, None, None)),
    ("notes.log", (None, None, None)),
])
def test_kind_and_job_come_from_fio_file_names(name, parts):
    assert fio_log.name_parts(name) == parts


def test_histogram_logs_are_not_sample_logs():
    text = (REAL / "log-randrw70_clat_hist.1.log").read_text()
    assert fio_log.detect(text[:65536], "log-randrw70_clat_hist.1.log") == 0.0
    assert fio_histogram_log.detect(text[:65536], "log-randrw70_clat_hist.1.log") > 0.9
    sample = (REAL / "log-randrw70_clat.1.log").read_text()
    assert fio_histogram_log.detect(sample, "log-randrw70_clat.1.log") == 0.0


# --------------------------------------------------------------------------- units


def test_windowed_latency_logs_agree_with_the_json_mean():
    """IO-weighted mean of the 250 ms clat windows ~ json clat mean: a wrong unit would be 1000x off."""
    run = _json_run()
    clat, iops = _log("clat"), _log("iops")
    for direction in ("read", "write"):
        weights = {r["time_ms"]: r["value"] for r in iops if r["direction"] == direction}
        pairs = [(r["value"], weights.get(r["time_ms"], 0)) for r in clat if r["direction"] == direction]
        weighted = sum(v * w for v, w in pairs) / sum(w for _, w in pairs)
        assert weighted == pytest.approx(run[direction]["clat_mean_us"], rel=0.15)


def test_bw_log_is_kib_per_second():
    run = _json_run()
    for direction in ("read", "write"):
        values = [r["value"] for r in _log("bw") if r["direction"] == direction]
        mean = sum(values) / len(values)
        assert mean == pytest.approx(run[direction]["bw_bytes_per_s"] / 1024, rel=0.2)


def test_unit_rule_assumed_unless_the_priority_column_proves_fio3():
    four = fio_log.parse("1, 50000, 0, 4096\n", filename="a_lat.1.log")
    assert four.tables["fio_log_samples"][0]["value_unit_assumed"] is True
    six = fio_log.parse("1, 50000, 0, 4096, 8192, 0\n", filename="a_lat.1.log")
    row = six.tables["fio_log_samples"][0]
    assert (row["value_unit_assumed"], row["offset_bytes"], row["priority"], row["value"]) == (False, 8192, 0, 50.0)
    bw = fio_log.parse("1, 50000, 0, 4096\n", filename="a_bw.1.log")
    assert bw.tables["fio_log_samples"][0]["value_unit_assumed"] is False
    assert not any("assumed" in i.reason for i in bw.issues)


def test_five_columns_offset_or_priority():
    offsets = fio_log.parse("1, 100, 0, 4096, 1048576\n2, 100, 1, 4096, 8192\n", filename="a_clat.log")
    assert [r["offset_bytes"] for r in offsets.tables["fio_log_samples"]] == [1048576, 8192]
    assert offsets.tables["fio_log_samples"][0]["value_unit_assumed"] is True  # fio 2.x could write this
    prio = fio_log.parse("1, 100, 0, 4096, 1\n2, 100, 1, 4096, 0\n", filename="a_clat.log")
    assert [r["priority"] for r in prio.tables["fio_log_samples"]] == [1, 0]
    assert prio.tables["fio_log_samples"][0]["value_unit_assumed"] is False


def test_without_a_file_name_values_stay_raw():
    result = fio_log.parse("250, 946773, 0, 0\n")
    row = result.tables["fio_log_samples"][0]
    assert (row["log_kind"], row["value"], row["value_raw"], row["raw_unit"]) == (None, None, 946773.0, None)
    assert any("log kind unknown" in i.reason for i in result.issues)


@requires_corpus()
def test_corpus_fio31_clat_log_is_nsec_by_the_documented_assumption():
    path = CORPUS / "fio" / "ceph_fio3.1_rw4k_clat.log"
    result = fio_log.parse(path.read_text(), filename=path.name)
    rows = result.tables["fio_log_samples"]
    assert rows[0]["value"] == pytest.approx(946.773) and rows[0]["value_unit_assumed"] is True
    assert {r["direction"] for r in rows} == {"read", "write"}


def test_empty_and_junk_logs_are_rejected():
    for text in ("", "\n\n", "time, value\nfoo\n"):
        with pytest.raises(ParseError):
            fio_log.parse(text, filename="a_bw.1.log")


# --------------------------------------------------------------------------- histogram logs


def test_bin_edges_follow_fio_log_linear_layout():
    edges = [fio_histogram_log.plat_lower(i) for i in range(1857)]
    assert edges[:129] == list(range(129))  # below 128: one value per bin
    assert all(b > a for a, b in zip(edges, edges[1:]))
    # each power of two above 128 is split in 64 equal bins
    for group in range(2, 29):
        start = group * 64
        widths = {edges[start + k + 1] - edges[start + k] for k in range(64)}
        assert widths == {1 << (group - 1)}
    # fio's HOWTO json+ example key 87552 ns is the midpoint of one of these bins
    mids = {(edges[i] + edges[i + 1]) // 2 for i in range(1856)}
    assert 87552 in mids and 107008 in mids


def test_histogram_log_bins_are_json_plus_bins_of_the_same_run():
    """Same run: every non-empty bin of the histogram log is a json+ clat bin, with no more IOs."""
    hist = fio_histogram_log.parse((REAL / "log-randrw70_clat_hist.1.log").read_text(),
                                   filename="log-randrw70_clat_hist.1.log")
    js = fio_json.parse((REAL / "jsonplus-randrw70-logs.json").read_text())
    json_bins = {(b["direction"], b["bin_ns"]): b["io_count"]
                 for b in js.tables["fio_histogram_bins"] if b["latency_kind"] == "clat"}
    logged: dict = {}
    for row in hist.tables["fio_histogram_log_samples"]:
        key = (row["direction"], row["bin_ns"])
        logged[key] = logged.get(key, 0) + row["io_count"]
        assert row["bin_lower_ns"] <= row["bin_ns"] < row["bin_upper_ns"]
    assert logged and set(logged) <= set(json_bins)
    assert all(count <= json_bins[key] for key, count in logged.items())


def test_coarse_bins_sum_fine_bins():
    fine = [0] * 1856
    fine[300], fine[301], fine[315] = 2, 3, 4   # coarseness 4 merges 300..303 and 304..319
    coarse = [sum(fine[i:i + 16]) for i in range(0, 1856, 16)]
    a = fio_histogram_log.parse("10, 0, 0, " + ", ".join(map(str, fine)))
    b = fio_histogram_log.parse("10, 0, 0, " + ", ".join(map(str, coarse)))
    assert sum(r["io_count"] for r in a.tables["fio_histogram_log_samples"]) == 9
    rows = b.tables["fio_histogram_log_samples"]
    assert [(r["bin_index"], r["io_count"], r["coarseness"]) for r in rows] == [(288, 5, 4), (304, 4, 4)]
    assert rows[0]["bin_lower_ns"] == fio_histogram_log.plat_lower(288)


@pytest.mark.parametrize("count", [1000, 1855, 20, 0])
def test_bin_counts_fio_never_writes_are_rejected(count):
    with pytest.raises(ParseError):
        fio_histogram_log.parse("10, 0, 4096, " + ", ".join(["0"] * count))


# --------------------------------------------------------------------------- robustness

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LINE = st.lists(st.one_of(st.integers(-5, 10**12).map(str), st.sampled_from(["0x2004", "", " ", "x", "1.5"])),
                min_size=0, max_size=8).map(", ".join)


@FUZZ
@given(lines=st.lists(LINE, max_size=30), name=st.sampled_from(["a_clat.1.log", "a_bw.log", "zz", "a_clat_hist.1.log"]))
def test_logs_never_crash_and_fit_the_schema(lines, name):
    text = "\n".join(lines)
    for module in (fio_log, fio_histogram_log):
        try:
            result = module.parse(text, filename=name)
        except ParseError as exc:
            assert exc.reason
            continue
        for table_name, records in result.tables.items():
            lake.conform(tables.get(table_name), records)

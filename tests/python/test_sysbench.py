"""sysbench parser on real 1.0.20 captures: doctest, totals that agree with each other, fileio as
fio rows, errors naming the line, rows that conform to the lake's tables."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from iopscope import tables
from iopscope.lake import Chunk, conform_chunks
from iopscope.parsers import ParseError, sysbench

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sysbench" / "sysbench-1.0.20"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_doctest():
    failures, tried = doctest.testmod(sysbench)
    assert failures == 0 and tried > 0


def test_histogram_counts_every_event_and_queries_add_up():
    result = sysbench.parse(read("oltp_read_write_4threads_20s_histogram.txt"))
    run = result.tables["sysbench_runs"][0]
    assert sum(b["event_count"] for b in result.tables["sysbench_histogram_bins"]) == run["events"] == run["transactions"]
    assert run["reads"] + run["writes"] + run["other"] == run["queries_total"] == run["queries"]
    assert [i["elapsed_s"] for i in result.tables["sysbench_intervals"]] == [2.0 * k for k in range(1, 11)]


def test_the_percentile_asked_for_is_read_as_printed():
    result = sysbench.parse(read("oltp_read_only_2threads_10s_p99.txt"))
    assert result.tables["sysbench_runs"][0]["lat_pct"] == 99.0
    assert {i["lat_pct"] for i in result.tables["sysbench_intervals"]} == {99.0}


def test_fileio_becomes_fio_rows_with_the_mode_as_rw():
    jobs = sysbench.parse(read("fileio_rndrw_10s_histogram.txt")).tables["fio_jobs"]
    assert [(j["direction"], j["rw"], j["tool"]) for j in jobs] == [("read", "randrw", "sysbench"), ("write", "randrw", "sysbench")]
    assert jobs[0]["read_pct"] == pytest.approx(60.0)
    # mixed reads, writes and fsyncs: sysbench's latency is not one direction's
    assert all(j.get("lat_mean_us") is None for j in jobs)
    seq = sysbench.parse(read("fileio_seqrd_direct_8s.txt")).tables["fio_jobs"][0]
    assert (seq["rw"], seq["direct"], seq["block_size_bytes"], seq["lat_mean_us"]) == ("read", True, 65536, 170.0)


def test_killed_and_failed_runs():
    killed = sysbench.parse(read("oltp_point_select_killed_after_5s.txt"))
    assert killed.status == "incomplete" and len(killed.tables["sysbench_intervals"]) == 5
    failed = sysbench.parse(read("oltp_read_write_no_such_db.txt"))
    assert failed.status == "failed" and "Unknown database" in " ".join(i.reason for i in failed.issues)


def test_prepare_gives_no_row():
    result = sysbench.parse(read("oltp_read_write_prepare.txt"))
    assert result.tables == {} and result.facts["sysbench_phase"] == "prepare"


def test_a_bad_number_is_an_issue_naming_its_line():
    text = read("oltp_read_only_2threads_10s_p99.txt").replace("transactions:                        1452",
                                                               "transactions:                        14x2")
    result = sysbench.parse(text)
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if "14x2" in ln)
    assert any(i.line == line and "14x2" in i.reason for i in result.issues)


def test_other_text_is_rejected():
    with pytest.raises(ParseError):
        sysbench.parse("nothing\nhere\n")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.txt")))
def test_rows_conform_to_the_lake_tables(name):
    result = sysbench.parse(read(name))
    provenance = {"run_id": "r", "source_path": name, "source_sha256": "0" * 64, "parser": sysbench.NAME,
                  "parser_version": sysbench.VERSION, "tool_version": result.tool_version}
    for table, rows in result.tables.items():
        assert conform_chunks(tables.get(table), [Chunk(rows, provenance)]).num_rows == len(rows)

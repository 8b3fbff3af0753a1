"""Iometer results CSV parser: doctest, both generations read alike, what each row level becomes,
errors naming the line, rows that conform to the lake's fio and CPU tables."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from iopscope import tables
from iopscope.lake import Chunk, conform_chunks
from iopscope.parsers import ParseError, iometer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "iometer"
NEW = "iometer-1.1.0/8k_random_67read_2workers.csv"
OLD = "iometer-2006.07.27/4k_random_read_qd1_qd32.csv"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_doctest():
    failures, tried = doctest.testmod(iometer)
    assert failures == 0 and tried > 0


def test_only_the_all_row_is_a_result_and_it_sums_the_workers():
    jobs = iometer.parse(read(NEW)).tables["fio_jobs"]
    results = [j for j in jobs if not j["is_breakdown"]]
    assert [(j["result_level"], j["direction"]) for j in results] == [("ALL", "read"), ("ALL", "write")]
    workers = [j for j in jobs if j["result_level"] == "WORKER" and j["direction"] == "read"]
    assert sum(w["iops"] for w in workers) == results[0]["iops"]


def test_both_mb_bases_are_kept_and_agree_with_iops_times_size():
    for name in (NEW, OLD):
        for job in iometer.parse(read(name)).tables["fio_jobs"]:
            assert job["bw_mib_per_s"] == pytest.approx(job["iops"] * job["block_size_bytes"] / 2 ** 20, rel=1e-6)
            assert job["bw_bytes_per_s"] == pytest.approx(job["iops"] * job["block_size_bytes"], rel=1e-6)


def test_queue_depth_cycling_gives_one_test_each():
    jobs = [j for j in iometer.parse(read(OLD)).tables["fio_jobs"] if not j["is_breakdown"]]
    assert [(j["doc_index"], j["iodepth"], j["rw"], j["direction"]) for j in jobs if j["direction"] == "read"] \
        == [(0, 1, "randread", "read"), (1, 32, "randread", "read")]
    # the write direction is there as fio reports it: no IO, so no response time
    idle = [j for j in jobs if j["direction"] == "write"]
    assert [(j["iops"], j["lat_mean_us"]) for j in idle] == [(0.0, None), (0.0, None)]


def test_processor_rows_become_cpu_samples_not_results():
    result = iometer.parse(read(NEW))
    assert not any(j["result_level"] == "PROCESSOR" for j in result.tables["fio_jobs"])
    assert [c["cpu"] for c in result.tables["cpu_samples"]] == ["all", "0", "1", "2", "3"]


def test_a_bad_number_is_an_issue_naming_its_line():
    text = read(NEW)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("WORKER,Worker 1"))
    cells = lines[at].split(",")
    cells[7] = "12x"  # Read IOps
    lines[at] = ",".join(cells)
    result = iometer.parse("\n".join(lines) + "\n")
    issue = next(i for i in result.issues if "12x" in i.reason)
    assert issue.line == at + 1 and "Read IOps" in issue.reason


def test_a_file_without_results_is_rejected():
    with pytest.raises(ParseError):
        iometer.parse("Target,Name\n1,2\n")


def test_the_cut_file_is_incomplete_with_its_rows():
    result = iometer.parse(read("iometer-1.1.0/128k_seq_write_cut.csv"))
    assert result.status == "incomplete" and result.tables["fio_jobs"][0]["rw"] == "write"


@pytest.mark.parametrize("name", [NEW, OLD, "iometer-1.1.0/128k_seq_write_cut.csv"])
def test_rows_conform_to_the_lake_tables(name):
    result = iometer.parse(read(name))
    provenance = {"run_id": "r", "source_path": name, "source_sha256": "0" * 64, "parser": iometer.NAME,
                  "parser_version": iometer.VERSION, "tool_version": result.tool_version}
    for table, rows in result.tables.items():
        conformed = conform_chunks(tables.get(table), [Chunk(rows, provenance)])
        assert conformed.num_rows == len(rows)

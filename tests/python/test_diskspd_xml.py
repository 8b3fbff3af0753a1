"""DiskSpd XML parser: doctest, totals that follow from the counts, breakdown rows that add up,
percentiles, a broken file rejected with its line, rows that conform to the lake's tables."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from iopscope import tables
from iopscope.lake import Chunk, conform_chunks
from iopscope.parsers import ParseError, diskspd_xml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "diskspd"
MIXED = "diskspd-2.0.21a/8k_random_70read_4threads_qd8.xml"
SEQ = "diskspd-2.1.0/64k_seq_read_1thread_qd32.xml"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_doctest():
    failures, tried = doctest.testmod(diskspd_xml)
    assert failures == 0 and tried > 0


def test_whole_test_rows_sum_the_threads_and_follow_from_the_counts():
    jobs = diskspd_xml.parse(read(MIXED)).tables["fio_jobs"]
    whole = {j["direction"]: j for j in jobs if not j["is_breakdown"]}
    parts = [j for j in jobs if j["is_breakdown"] and j["direction"] == "read"]
    assert len(parts) == 4 and sum(p["total_ios"] for p in parts) == whole["read"]["total_ios"]
    assert whole["read"]["iops"] == pytest.approx(whole["read"]["total_ios"] / 60.0)
    assert whole["read"]["bw_mib_per_s"] == pytest.approx(whole["read"]["iops"] * 8192 / 2 ** 20)
    assert (whole["read"]["rw"], whole["read"]["read_pct"], whole["read"]["outstanding_ios"]) == ("randrw", 70.0, 32)


def test_sequential_profile_and_percentiles():
    result = diskspd_xml.parse(read(SEQ))
    row = result.tables["fio_jobs"][0]
    assert (row["rw"], row["random_pct"], row["block_size_bytes"]) == ("read", 0.0, 65536)
    reads = [p for p in result.tables["fio_percentiles"] if p["direction"] == "read"]
    assert reads[0]["percentile"] == 0.0 and reads[-1]["percentile"] == 100.0
    assert [p["latency_us"] for p in reads] == sorted(p["latency_us"] for p in reads)
    assert row["lat_max_us"] == reads[-1]["latency_us"]


def test_a_cut_file_is_rejected_with_its_line():
    with pytest.raises(ParseError) as err:
        diskspd_xml.parse(read("diskspd-2.1.0/cut_while_writing.xml"))
    assert err.value.line == len(read("diskspd-2.1.0/cut_while_writing.xml").splitlines())


def test_a_bad_number_is_an_issue():
    text = read(SEQ).replace("<TestTimeSeconds>30.00</TestTimeSeconds>", "<TestTimeSeconds>3O.00</TestTimeSeconds>")
    result = diskspd_xml.parse(text)
    assert any("3O.00" in i.reason and i.line for i in result.issues)
    assert result.tables["fio_jobs"][0]["iops"] is None


@pytest.mark.parametrize("name", [MIXED, SEQ])
def test_rows_conform_to_the_lake_tables(name):
    result = diskspd_xml.parse(read(name))
    provenance = {"run_id": "r", "source_path": name, "source_sha256": "0" * 64, "parser": diskspd_xml.NAME,
                  "parser_version": diskspd_xml.VERSION, "tool_version": result.tool_version}
    for table, rows in result.tables.items():
        assert conform_chunks(tables.get(table), [Chunk(rows, provenance)]).num_rows == len(rows)

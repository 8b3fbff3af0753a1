"""DiskSpd text parser: doctest, the same figures as the XML report of the same run, a report
without -L, the CPU table's group column, bad input rejected or flagged with its line, rows that
conform to the lake's tables."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from iopscope import tables
from iopscope.lake import Chunk, conform_chunks
from iopscope.parsers import ParseError, detect, diskspd_text, diskspd_xml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "diskspd"
MIXED = "diskspd-2.0.21a/8k_random_70read_4threads_qd8"
SEQ = "diskspd-2.1.0/64k_seq_write_2targets_qd16.txt"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_doctest():
    failures, tried = doctest.testmod(diskspd_text)
    assert failures == 0 and tried > 0


def test_text_and_xml_of_one_run_give_the_same_rows():
    text, xml = diskspd_text.parse(read(MIXED + ".txt")), diskspd_xml.parse(read(MIXED + ".xml"))
    assert list(text.tables["fio_jobs"]) == list(xml.tables["fio_jobs"])
    assert list(text.tables["cpu_samples"]) == list(xml.tables["cpu_samples"])
    from_xml = {(p["direction"], p["percentile"]): p["latency_us"] for p in xml.tables["fio_percentiles"]}
    shown = text.tables["fio_percentiles"]
    assert len(shown) == 2 * 15                      # min, 25th .. 99th, 3..9-nines, max
    for p in shown:
        assert p["latency_us"] == pytest.approx(from_xml[(p["direction"], p["percentile"])])
    assert {k: text.facts[k] for k in ("hostname", "diskspd_run_time")} == xml.facts


def test_a_report_without_latency_has_no_latency_columns_and_groups_name_their_cpus():
    result = diskspd_text.parse(read(SEQ))
    whole = [j for j in result.tables["fio_jobs"] if not j["is_breakdown"]]
    assert [(j["direction"], j["total_ios"]) for j in whole] == [("read", 0), ("write", 4603612)]
    assert all(j["lat_mean_us"] is None and j["lat_max_us"] is None for j in whole)
    assert "fio_percentiles" not in result.tables
    assert (whole[1]["rw"], whole[1]["block_size_bytes"], whole[1]["direct"]) == ("write", 65536, True)
    assert [c["cpu"] for c in result.tables["cpu_samples"]] == ["0", "1", "1:0", "1:1", "all"]


def test_detection_picks_text_for_text_and_xml_for_xml():
    for name, want in ((MIXED + ".txt", "diskspd_text"), (MIXED + ".xml", "diskspd_xml"), (SEQ, "diskspd_text")):
        assert detect(read(name)[:8192], name)[0].NAME == want


def test_a_cut_report_is_rejected_with_its_last_line():
    text = read("diskspd-2.1.0/cut_in_read_table.txt")
    with pytest.raises(ParseError) as err:
        diskspd_text.parse(text)
    assert err.value.line == len(text.splitlines()) and "Read IO" in err.value.reason


def test_a_row_with_missing_columns_is_rejected_with_its_line():
    lines = read(SEQ).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Write IO")) + 3
    lines[at] = lines[at].rsplit("|", 2)[0]
    with pytest.raises(ParseError) as err:
        diskspd_text.parse("\n".join(lines))
    assert err.value.line == at + 1


def test_a_bad_number_is_an_issue_naming_its_line():
    text = read(MIXED + ".txt").replace("actual test time:\t60.00s", "actual test time:\t6O.00s")
    result = diskspd_text.parse(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "6O.00" in row)
    assert any("6O.00" in i.reason and i.line == line for i in result.issues)
    assert result.tables["fio_jobs"][0]["iops"] is None


def test_not_a_diskspd_report_is_rejected():
    with pytest.raises(ParseError, match="Results for timespan"):
        diskspd_text.parse("Command Line: diskspd -?\nInput parameters:\n")


@pytest.mark.parametrize("name", [MIXED + ".txt", SEQ])
def test_rows_conform_to_the_lake_tables(name):
    result = diskspd_text.parse(read(name))
    provenance = {"run_id": "r", "source_path": name, "source_sha256": "0" * 64, "parser": diskspd_text.NAME,
                  "parser_version": diskspd_text.VERSION, "tool_version": result.tool_version}
    for table, rows in result.tables.items():
        assert conform_chunks(tables.get(table), [Chunk(rows, provenance)]).num_rows == len(rows)

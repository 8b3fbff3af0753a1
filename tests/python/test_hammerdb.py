"""HammerDB parser: doctest, the same run read alike from every shape HammerDB prints it in,
clear errors naming the line, and rows that conform to the lake's TPC-C tables."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from iopscope import tables
from iopscope.lake import Chunk, conform_chunks
from iopscope.parsers import ParseError, hammerdb

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hammerdb"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_doctest():
    failures, tried = doctest.testmod(hammerdb)
    assert failures == 0 and tried > 0


def test_v3_and_v4_result_lines_give_the_same_figures():
    v3 = "Vuser 1:TEST RESULT : System achieved 48210 MySQL TPM at 15873 NOPM\n"
    v4 = "Vuser 1:TEST RESULT : System achieved 15873 NOPM from 48210 MySQL TPM\n"
    rows = [hammerdb.parse(text).tables["tpcc_runs"][0] for text in (v3, v4)]
    for row in rows:
        assert (row["tpmc_printed"], row["engine_tpm_printed"], row["engine_tpm_name"]) == (15873.0, 48210.0, "MySQL")
    assert [r["output_variant"] for r in rows] == ["tpm-at-nopm", "nopm-from-tpm"]


def test_profile_text_and_jobs_json_give_the_same_transaction_rows():
    text_rows = hammerdb.parse(read("hammerdb-4.6/hdbxtprofile.log")).tables["tpcc_tx_summaries"]
    json_rows = hammerdb.parse(read("hammerdb-4.6/jobs_timing.json")).tables["tpcc_tx_summaries"]
    assert text_rows == json_rows
    assert [r["tx_type"] for r in text_rows] == ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]


def test_console_and_jobs_result_give_the_same_run_figures():
    console = hammerdb.parse(read("hammerdb-4.6/mariadb_cli_console_timed_run.txt")).tables["tpcc_runs"][0]
    job = hammerdb.parse(read("hammerdb-4.6/jobs_result.json")).tables["tpcc_runs"][0]
    keys = ("kit", "tpmc_printed", "engine_tpm_printed", "engine_tpm_name", "connections", "output_variant")
    assert {k: console[k] for k in keys} == {k: job[k] for k in keys}


def test_the_summary_block_not_a_users_block_gives_the_rows():
    rows = hammerdb.parse(read("hammerdb-4.6/hdbxtprofile.log")).tables["tpcc_tx_summaries"]
    # summary NEWORD calls are all users' calls (18072); one user's block says 6023
    assert rows[0]["success_count"] == 18072


def test_a_bad_number_is_an_issue_naming_its_line():
    text = read("hammerdb-4.6/hdbxtprofile.log").replace("CALLS: 18072", "CALLS: 18x72")
    result = hammerdb.parse(text)
    line = text.splitlines().index(next(ln for ln in text.splitlines() if "CALLS: 18x72" in ln)) + 1
    issue = next(i for i in result.issues if "18x72" in i.reason)
    assert issue.line == line
    assert result.tables["tpcc_tx_summaries"][0]["success_count"] is None


def test_broken_json_names_its_line():
    with pytest.raises(ParseError) as err:
        hammerdb.parse('{\n "NEWORD": {\n  "calls": 12,\n  oops\n }\n}\n')
    assert err.value.line == 4


def test_text_that_is_not_hammerdb_is_rejected():
    with pytest.raises(ParseError):
        hammerdb.parse("hello\nworld\n")


def test_a_log_cut_during_ramp_up_is_incomplete_without_a_rate():
    text = read("hammerdb-5.0/postgresql_timed_run.log")
    cut = text[: text.index("Rampup complete")]
    result = hammerdb.parse(cut)
    run = result.tables["tpcc_runs"][0]
    assert (result.status, run["last_phase"], run["tpmc_printed"], run["measured_s"]) == ("incomplete", "rampup", None, None)


def test_unknown_lines_are_reported_once_with_the_first_line():
    result = hammerdb.parse(read("hammerdb-5.0/postgresql_timed_run.log") + "Vuser 1:something new\nmore\n")
    unknown = [i for i in result.issues if "not in HammerDB" in i.reason]
    assert len(unknown) == 1 and "(2 lines)" in unknown[0].reason


@pytest.mark.parametrize("name", sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*")
                                        if p.is_file() and p.suffix in (".log", ".txt", ".json")
                                        and not p.name.endswith(".expected.json")))
def test_rows_conform_to_the_lake_tables(name):
    result = hammerdb.parse(read(name))
    provenance = {"run_id": "r", "source_path": name, "source_sha256": "0" * 64, "parser": hammerdb.NAME,
                  "parser_version": hammerdb.VERSION, "tool_version": result.tool_version}
    for table, rows in result.tables.items():
        conformed = conform_chunks(tables.get(table), [Chunk(rows, provenance)])
        assert conformed.num_rows == len(rows)
        if table == "tpcc_runs":
            assert conformed.column("kit").to_pylist() == ["hammerdb"] * len(rows)

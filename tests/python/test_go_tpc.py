"""go-tpc parser and the go-tpc side of capture: doctests, and what the real fixtures must not lose."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

from iopscope.capture.tpcc import TpccConfig, measured_seconds, output_name, tpcc_command
from iopscope.parsers import ParseError, go_tpc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "go-tpc" / "go-tpc-1.0.7"


@pytest.mark.parametrize("name", ["iopscope.parsers.go_tpc", "iopscope.capture.dbserver"])
def test_doctests(name):
    failures, _ = doctest.testmod(importlib.import_module(name))
    assert failures == 0


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_every_summary_type_and_its_error_row_are_read():
    result = go_tpc.parse(read("run_4threads_20s_complete.txt"))
    rows = {r["tx_type"]: r for r in result.tables["tpcc_tx_summaries"]}
    assert list(rows) == ["New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"]
    assert (rows["New-Order"]["success_count"], rows["New-Order"]["failure_count"]) == (4746, 1)
    assert (rows["Payment"]["success_count"], rows["Payment"]["failure_count"]) == (4441, 2)
    assert rows["Payment"]["failure_max_rt_ms"] == 8.9
    assert result.tables["tpcc_runs"][0]["error_txn_count"] == 3
    # each [Current] group is one interval with all five types
    assert [i["payment_count"] for i in result.tables["tpcc_intervals"]] == [976, 1230, 1132]


def test_an_interval_without_one_type_still_starts_a_new_row():
    line = ("[Current] {op} - Takes(s): 5.0, Count: {n}, TPM: 1.0, Sum(ms): 1.0, Avg(ms): 1.0, 50th(ms): 1.0, "
            "90th(ms): 1.0, 95th(ms): 1.0, 99th(ms): 1.0, 99.9th(ms): 1.0, Max(ms): 1.0\n")
    text = (line.format(op="NEW_ORDER", n=10) + line.format(op="PAYMENT", n=9)
            + line.format(op="NEW_ORDER", n=11) + line.format(op="DELIVERY", n=1))
    rows = go_tpc.parse(text).tables["tpcc_intervals"]
    assert [(r["elapsed_s"], r["new_order_count"], r.get("payment_count"), r.get("delivery_count")) for r in rows] \
        == [(5.0, 10, 9, None), (10.0, 11, None, 1)]


def test_each_error_is_counted_once_though_printed_twice():
    result = go_tpc.parse(read("run_errors_missing_warehouses.txt"))
    assert result.tables["tpcc_runs"][0]["mysql_error_count"] == 2
    assert result.status == "failed"


def test_a_cut_last_line_is_not_read():
    text = read("run_4threads_20s_complete.txt")
    cut = text[: text.index("tpmC:") + 8]
    result = go_tpc.parse(cut)
    assert result.status == "incomplete" and result.tables["tpcc_runs"][0]["tpmc_printed"] is None


def test_other_text_is_rejected():
    with pytest.raises(ParseError):
        go_tpc.parse("hello\nworld\n")
    assert go_tpc.detect("  10, trx: 100, 95%: 9.5, 99%: 12.0, max_rt: 20.1, 99|5.0\n", "tpcc.out") == 0.0


def test_go_tpc_capture_command_and_files():
    cfg = TpccConfig(kit="go-tpc", go_tpc="/x/go-tpc", port=3307, warehouses=2, measure_s=30, interval_s=5)
    cmd = tpcc_command(cfg, 8, "secret", masked=True)
    assert cmd[:3] == ["/x/go-tpc", "tpcc", "-H"] and "-T" in cmd and cmd[cmd.index("-T") + 1] == "8"
    assert "secret" not in cmd and "****" in cmd
    assert (output_name(cfg), measured_seconds(cfg)) == ("go-tpc.out", 30)

"""tpcc-mysql parser: the test stand-in's output, truncation at every point, TpmC check, password.

Fixtures (tests/fixtures/tpcc-mysql/) and the shared corpus are checked by test_fixtures.py and
test_corpus.py; this file covers what a static file cannot: a live stand-in run (complete,
interrupted by SIGINT), and properties over many cut points.
"""

from __future__ import annotations

import doctest
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import ROOT
from iopscope.parsers import ParseError
from iopscope.parsers import tpcc_mysql

STANDIN = ROOT / "tests" / "tools" / "tpcc_start"
SECRET = "Qx7-standin-secret"


def standin(*args: str, pace: str = "0", seed: str | None = None, extra_env: dict | None = None,
            timeout: float = 30) -> subprocess.CompletedProcess:
    env = {**os.environ, "TPCC_STANDIN_PACE": pace, **(extra_env or {})}
    argv = [sys.executable, str(STANDIN), *args] + (["--seed", seed] if seed else [])
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, check=False)


def run_args(connections: int = 8, measure: int = 60, interval: int = 10) -> list[str]:
    return ["-h", "127.0.0.1", "-P", "3306", "-d", "tpcc", "-u", "root", "-p", SECRET, "-w", "20",
            "-c", str(connections), "-r", "10", "-l", str(measure), "-i", str(interval)]


def dump(result) -> str:
    tables = {name: list(rows) for name, rows in result.tables.items()}  # a Columns block's values, not its repr
    return json.dumps({"tables": tables, "issues": [i.reason for i in result.issues],
                       "facts": result.facts, "reason": result.status_reason}, default=str)


def test_module_docstring_example():
    failures, tried = doctest.testmod(tpcc_mysql, verbose=False)
    assert tried > 0 and failures == 0


# --------------------------------------------------------------------------- stand-in


def test_standin_output_parses_as_complete():
    proc = standin(*run_args(connections=8, measure=60, interval=10))
    assert proc.returncode == 0, proc.stderr
    assert f"[pass]: {SECRET}" in proc.stdout  # it echoes the password, like the real one
    result = tpcc_mysql.parse(proc.stdout)
    assert result.status == "complete", result.status_reason
    assert result.issues == []
    run = result.tables["tpcc_runs"][0]
    assert run["output_generation"] == "current" and run["output_variant"] == "trx-p95-p99"
    assert (run["warehouses"], run["connections"], run["rampup_s"], run["measure_s"]) == (20, 8, 10, 60)
    assert run["report_interval_s"] == 10 and run["measured_s"] == 60
    assert run["tpmc_mismatch"] is False and run["tpmc_printed"] > 0
    assert run["threads_stopped"] == 8
    intervals = result.tables["tpcc_intervals"]
    assert [r["elapsed_s"] for r in intervals] == [10, 20, 30, 40, 50, 60]
    assert [r["is_rampup_mixed"] for r in intervals] == [True] + [False] * 5
    summaries = {r["tx_type"]: r for r in result.tables["tpcc_tx_summaries"]}
    no = summaries["New-Order"]
    # Interval counts add up to the Raw Results, as in real tpcc_start output.
    assert sum(r["new_order_count"] for r in intervals) == no["success_count"] + no["late_count"]
    assert run["interval_new_order_count"] == no["success_count"] + no["late_count"]
    assert sum(r["payment_count"] for r in intervals) == (summaries["Payment"]["success_count"]
                                                         + summaries["Payment"]["late_count"])
    assert SECRET not in dump(result)


def test_standin_numbers_scale_with_connections_and_follow_the_seed():
    def tpmc_and_p95(connections: int, seed: str = "7"):
        result = tpcc_mysql.parse(standin(*run_args(connections, 40), seed=seed).stdout)
        rows = result.tables["tpcc_intervals"]
        return result.tables["tpcc_runs"][0]["tpmc_printed"], sum(r["new_order_p95_ms"] for r in rows) / len(rows)

    low_tpmc, low_p95 = tpmc_and_p95(2)
    high_tpmc, high_p95 = tpmc_and_p95(32)
    assert high_tpmc > 3 * low_tpmc          # more connections, more throughput ...
    assert high_p95 > low_p95                # ... and longer response times (Little's law)
    same = [standin(*run_args(8, 30), seed="42").stdout for _ in range(2)]
    assert same[0] == same[1]
    assert standin(*run_args(8, 30), seed="43").stdout != same[0]


def test_standin_with_measure_shorter_than_interval_prints_nan_and_parses():
    proc = standin(*run_args(connections=4, measure=5, interval=10))
    assert "-nan TpmC" in proc.stdout and "in 0 sec." in proc.stdout
    result = tpcc_mysql.parse(proc.stdout)
    assert result.status == "complete"
    run = result.tables["tpcc_runs"][0]
    assert run["tpmc_printed"] is None and run["tpmc_mismatch"] is None and run["measured_s"] == 0
    assert "tpcc_intervals" not in result.tables


def test_standin_connect_failure_is_a_failed_run():
    proc = standin(*run_args(connections=3, measure=20), extra_env={"TPCC_STANDIN_FAIL": "connect"})
    result = tpcc_mysql.parse(proc.stdout)
    assert result.status == "failed"
    assert "error at thread_main" in result.status_reason and "2003" in result.status_reason
    assert SECRET not in dump(result)


def test_standin_bad_option_prints_usage_like_tpcc_start():
    proc = standin("-w", "1", "-x")
    assert proc.returncode == 0 and "Usage: tpcc_start" in proc.stdout
    assert tpcc_mysql.parse(proc.stdout).status == "failed"


def test_sigint_mid_run_leaves_an_incomplete_output_with_the_intervals_so_far():
    env = {**os.environ, "TPCC_STANDIN_PACE": "0.02"}  # 1 s interval = 20 ms
    proc = subprocess.Popen([sys.executable, str(STANDIN), *run_args(connections=4, measure=500, interval=1)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    try:
        while len([ln for ln in lines if ", trx: " in ln]) < 3:
            line = proc.stdout.readline()
            assert line, "stand-in ended before printing 3 interval lines"
            lines.append(line)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGINT  # killed by the signal, like tpcc_start
    output = "".join(lines) + rest
    assert "<TpmC>" not in output
    result = tpcc_mysql.parse(output)
    assert result.status == "incomplete"
    assert "during measurement" in result.status_reason
    rows = result.tables["tpcc_intervals"]
    assert 3 <= len(rows) < 500
    assert [r["elapsed_s"] for r in rows] == list(range(1, len(rows) + 1))


# --------------------------------------------------------------------------- truncation


def test_every_cut_point_gives_rows_that_are_a_prefix_of_the_full_parse():
    full_text = standin(*run_args(connections=4, measure=40, interval=10), seed="3").stdout
    full = tpcc_mysql.parse(full_text)
    full_rows = full.tables["tpcc_intervals"]
    for cut in range(0, len(full_text), 37):
        text = full_text[:cut]
        try:
            result = tpcc_mysql.parse(text)
        except ParseError:
            assert "TPC-C Load Generator" not in text  # rejected only before the banner is complete
            continue
        assert result.status == "incomplete", (cut, result.status_reason)
        rows = result.tables.get("tpcc_intervals", [])
        # A cut never yields a wrong value: kept rows equal the full run's rows.
        assert rows == full_rows[: len(rows)], cut
        assert SECRET not in dump(result), cut
        run = result.tables["tpcc_runs"][0]
        assert run["tpmc_printed"] is None


# --------------------------------------------------------------------------- TpmC check


def _with_tpmc(no_total: int, seconds: int, printed: str) -> str:
    return (f"<Raw Results>\n  [0] sc:0 lt:{no_total}  rt:0  fl:0 avg_rt: 9.9 (5)\n in {seconds} sec.\n"
            f"\n<TpmC>\n                 {printed} TpmC\n")


def test_float32_rounding_of_tpmc_is_not_a_mismatch():
    # tpcc_start computes TpmC in float: 1234567 x 60 / 7 = 10582002.857... prints 10582003.000
    result = tpcc_mysql.parse(_with_tpmc(1234567, 7, "10582003.000"))
    run = result.tables["tpcc_runs"][0]
    assert run["tpmc_mismatch"] is False
    assert run["tpmc_recomputed"] == pytest.approx(1234567 * 60 / 7)


def test_tpmc_off_by_a_little_is_a_mismatch():
    result = tpcc_mysql.parse(_with_tpmc(3454, 30, "6909.000"))  # right value: 6908.000
    run = result.tables["tpcc_runs"][0]
    assert run["tpmc_mismatch"] is True
    assert any("differs" in i.reason for i in result.issues)
    assert tpcc_mysql.parse(_with_tpmc(3454, 30, "6908.000")).tables["tpcc_runs"][0]["tpmc_mismatch"] is False


# --------------------------------------------------------------------------- password


def test_password_never_reaches_issues_even_in_odd_lines():
    text = ("option p with value 'hunter2hunter2'\n"
            "non-option ARGV-elements: localhost tpcc root hunter2hunter2 10 \n"
            "<Parameters>\n     [server]: h\n       [user]: root\n       [pass]: hunter2hunter2\n"
            "  [warehouse]: 1\n [connection]: 1\n"
            "something odd hunter2hunter2 here\n"
            "1045, 28000, Access denied for user 'root'@'h' hunter2hunter2\n")
    result = tpcc_mysql.parse(text)
    assert "hunter2hunter2" not in dump(result)
    assert any("unrecognized" in i.reason for i in result.issues)


@pytest.mark.parametrize("tail", ["       [pass]: Gobron", "option p with value 'Gobron"])
def test_a_password_line_cut_short_is_not_quoted(tail):
    text = "*** ###easy### TPC-C Load Generator ***\noption d with value 'tpcc'\n" + tail
    result = tpcc_mysql.parse(text)
    assert result.status == "incomplete"
    assert "Gobron" not in dump(result)
    garbled = tpcc_mysql.parse(text + "x\n<Parameters>\n")  # not last: an unrecognized line
    assert "Gobron" not in dump(garbled)


def test_short_password_masks_only_whole_values():
    text = ("<Parameters>\n     [server]: db7\n       [user]: ab\n       [pass]: ab\n"
            "     [DBname]: tabs\n  [warehouse]: 1\n")
    run = tpcc_mysql.parse(text).tables["tpcc_runs"][0]
    assert run["db_user"] is None      # equal to the password: not stored
    assert run["db_name"] == "tabs"    # merely containing it: kept


# --------------------------------------------------------------------------- misc


@pytest.mark.parametrize("text", ["", "\n\n", "hello world\n", "Linux 6.1 (h) 01/02/24 _x86_64_ (2 CPU)\n"])
def test_non_tpcc_text_is_rejected(text):
    with pytest.raises(ParseError):
        tpcc_mysql.parse(text)


def test_detect():
    assert tpcc_mysql.detect("*** ###easy### TPC-C Load Generator ***\n", "x.txt") >= 0.9
    assert tpcc_mysql.detect("  10, trx: 5, 95%: 1.0, 99%: 2.0, max_rt: 3.0, 1|1.0\n", "x") > 0.5
    assert tpcc_mysql.detect("  10, 5(0):1.000|2.000, 5(0):1.0|2.0\n", "x") > 0.5
    assert tpcc_mysql.detect('{"fio version": "fio-3.33"}', "x.json") == 0.0


def test_unknown_fork_fields_are_kept_not_fatal():
    line = "  10, trx: 5, 95%: 1.5, 99%: 2.5, 99.99%: 4.0, avg: 1.1, max_rt: 3.0, 5|1.0, 1|1.0, 1|2.0, 1|3.0\n"
    result = tpcc_mysql.parse("MEASURING START.\n\n" + line)
    row = result.tables["tpcc_intervals"][0]
    assert row["new_order_p95_ms"] == 1.5 and row["new_order_max_ms"] == 3.0 and row["stock_level_count"] == 1
    assert json.loads(row["extra_fields_json"]) == {"99.99%": "4.0", "avg": "1.1"}

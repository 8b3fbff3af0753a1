"""CPU utilisation parsers (mpstat text/JSON, sar -u, collectl -P): rules the fixtures alone
do not pin down: detection boundaries, date/time reading, column keying, invariants."""

from __future__ import annotations

import json
import math
import random
import re
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES
from iopscope import parsers
from iopscope.parsers import collectl_plot, mpstat_json, mpstat_text, sar_cpu
from iopscope.parsers.base import read_by_reference
from iopscope.parsers._cpu_common import Timeline, classify_header, parse_clock, parse_date

CPU_PARSERS = {"mpstat_text", "mpstat_json", "sar_cpu", "collectl_plot"}
PCT = ("user_pct", "nice_pct", "system_pct", "iowait_pct", "irq_pct", "softirq_pct",
       "steal_pct", "guest_pct", "gnice_pct", "idle_pct", "busy_pct")

IOSTAT_JSON = json.dumps({"sysstat": {"hosts": [{
    "nodename": "h", "sysname": "Linux", "release": "6.1.0", "machine": "x86_64",
    "number-of-cpus": 4, "date": "01/02/24", "statistics": [{
        "avg-cpu": {"user": 1.0, "nice": 0.0, "system": 1.0, "iowait": 0.5, "steal": 0.0, "idle": 97.5},
        "disk": [{"disk_device": "sda", "r/s": 1.0, "util": 0.1}]}]}]}}, indent=2)

IOSTAT_TEXT = """Linux 6.1.0 (h) \t01/02/2024 \t_x86_64_\t(8 CPU)

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           1.00    0.00    1.00    0.50    0.00   97.50

Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %rrqm  %wrqm r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util
sda              1.00    2.00      4.00      8.00     0.00     0.00   0.00   0.00    0.50    0.70   0.00     4.00     4.00   0.30   0.10
"""

MPSTAT_HEADER = "CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle"


def _fixture_files(tool: str):
    return sorted(p for p in (FIXTURES / tool).rglob("*")
                  if p.is_file() and not p.name.endswith((".expected.json", ".md")))


# --------------------------------------------------------------------------- detection


def test_iostat_json_is_not_claimed_by_mpstat_json():
    assert mpstat_json.detect(IOSTAT_JSON, "iostat.json") == 0.0
    corpus = CORPUS / "iostat" / "pkb_iostat_json_sysstat12_dfs.json"
    if corpus.is_file():
        assert mpstat_json.detect(corpus.read_text()[:65536], corpus.name) == 0.0


def test_iostat_text_is_not_claimed_by_sysstat_text_parsers():
    for module in (mpstat_text, sar_cpu, collectl_plot):
        assert module.detect(IOSTAT_TEXT, "iostat.txt") == 0.0


def test_mpstat_and_sar_headers_are_told_apart_by_column_order():
    assert classify_header(MPSTAT_HEADER.split()[1:]) == "mpstat"
    # sysstat 7 mpstat: %user/%sys, %irq before %steal, trailing intr/s
    assert classify_header("%user %nice %sys %iowait %irq %soft %steal %idle intr/s".split()) == "mpstat"
    assert classify_header("%usr %nice %sys %iowait %steal %irq %soft %guest %gnice %idle".split()) == "sar"
    assert classify_header("%user %nice %system %iowait %idle".split()) == "sar"
    assert classify_header("kbmemfree kbavail %memused".split()) is None
    assert classify_header("intr/s".split()) is None


@pytest.mark.parametrize("tool,name", [("mpstat", "mpstat_text"), ("sar", "sar_cpu")])
def test_every_text_fixture_detects_as_its_own_tool(tool, name):
    for path in _fixture_files(tool):
        if path.suffix == ".json":
            continue
        module, score = parsers.detect(path.read_text()[:65536], path.name)
        assert module is not None and module.NAME == name, f"{path.name}: {module and module.NAME}"


# --------------------------------------------------------------------------- dates and times


@pytest.mark.parametrize("text,day_first,want", [
    ("2026-11-21", False, date(2026, 11, 21)),
    ("11/21/26", False, date(2026, 11, 21)),
    ("11/21/2026", False, date(2026, 11, 21)),
    ("21.11.2026", False, date(2026, 11, 21)),
    ("21/11/2026", False, date(2026, 11, 21)),       # day > 12 shows the order
    ("05/11/2026", True, date(2026, 11, 5)),         # fr_FR: day first
    ("05/11/2026", False, date(2026, 5, 11)),        # C / en_US: month first
    ("2026年11月21日", False, date(2026, 11, 21)),
    ("20221109", False, date(2022, 11, 9)),
    ("13/13/2026", False, None),
    ("yesterday", False, None),
])
def test_parse_date(text, day_first, want):
    assert parse_date(text, day_first)[0] == want


def test_ambiguous_dates_say_so():
    assert parse_date("05/11/2026")[1] is not None
    assert parse_date("21/11/2026")[1] is None
    assert parse_date("05/05/2026")[1] is None      # same either way


@pytest.mark.parametrize("text,want", [
    ("00:00:00", 0.0), ("23:59:59", 86399.0), ("12:00:00 AM", 0.0), ("12:30:00 PM", 45000.0),
    ("01:00:00 PM", 46800.0), ("11:59:59 pm", 86399.0), ("13:32:50.250", 48770.25),
    ("13時32分50秒", 48770.0), ("13:00:00 PM", None), ("24:00:00", None), ("1:2:3", None), ("", None),
])
def test_parse_clock(text, want):
    assert parse_clock(text) == want


def test_timeline_rolls_over_midnight_but_not_on_small_steps_back():
    line = Timeline(date(2026, 11, 21))
    assert line.clock(86399.0)[1].isoformat() == "2026-11-21T23:59:59"
    axis, when = line.clock(9.0)
    assert when.isoformat() == "2026-11-22T00:00:09" and axis == 86409.0
    line.clock(3600.0)
    axis, when = line.clock(3590.0)            # 10 s back: a clock adjustment, same day
    assert when.isoformat() == "2026-11-22T00:59:50" and line.went_back == [10.0]


# --------------------------------------------------------------------------- sysstat text


def _mpstat(rows: str, banner: str = "Linux 6.1.0 (h) \t11/21/26 \t_x86_64_\t(2 CPU)\n\n") -> str:
    return banner + rows


def test_average_lines_are_never_rows():
    for path in _fixture_files("mpstat") + _fixture_files("sar"):
        if path.suffix == ".json":
            continue
        try:
            result = parsers.get("mpstat_text" if "mpstat" in path.parts[-3] else "sar_cpu").parse(path.read_text())
        except parsers.ParseError:
            continue
        for row in result.tables["cpu_samples"]:
            assert row["time_text"][0].isdigit(), f"{path.name}: {row['time_text']}"


def test_restart_updates_the_cpu_count_and_the_interval_start():
    text = _mpstat(
        "10:00:00        CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
        "10:10:00        all     10.00      0.00      5.00      0.00      0.00     85.00\n"
        "Average:        all     10.00      0.00      5.00      0.00      0.00     85.00\n\n"
        "10:15:00     LINUX RESTART\t(4 CPU)\n\n"
        "10:20:00        CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
        "10:30:00        all     20.00      0.00      5.00      0.00      0.00     75.00\n"
        "Average:        all     20.00      0.00      5.00      0.00      0.00     75.00\n")
    result = sar_cpu.parse(text)
    rows = result.tables["cpu_samples"]
    assert [r["logical_cpus"] for r in rows] == [2, 4]
    assert [r["interval_s"] for r in rows] == [600.0, 600.0]
    assert rows[1]["elapsed_s"] == 1200.0 and result.facts["restarts"] == 1


def test_multiple_banners_restart_the_date():
    one = _mpstat(f"23:59:50     {MPSTAT_HEADER}\n"
                  "23:59:59     all    1.00    0.00    1.00    0.00    0.00    0.00    0.00    0.00    0.00   98.00\n"
                  "Average:     all    1.00    0.00    1.00    0.00    0.00    0.00    0.00    0.00    0.00   98.00\n")
    two = _mpstat(f"08:00:00     {MPSTAT_HEADER}\n"
                  "08:00:01     all    2.00    0.00    1.00    0.00    0.00    0.00    0.00    0.00    0.00   97.00\n"
                  "Average:     all    2.00    0.00    1.00    0.00    0.00    0.00    0.00    0.00    0.00   97.00\n",
                  banner="Linux 6.1.0 (h) \t11/23/26 \t_x86_64_\t(2 CPU)\n\n")
    rows = mpstat_text.parse(one + "\n" + two).tables["cpu_samples"]
    assert [r["sampled_at"].isoformat() for r in rows] == ["2026-11-21T23:59:59", "2026-11-23T08:00:01"]


@pytest.mark.parametrize("text", ["", "\n\n", "Linux 6.1.0 (h) \t11/21/26 \t_x86_64_\t(2 CPU)\n",
                                  "Average:     all    1.00    0.00\n", "hello world\n"])
def test_nothing_readable_is_a_parse_error(text):
    for module in (mpstat_text, sar_cpu, mpstat_json, collectl_plot):
        with pytest.raises(parsers.ParseError):
            module.parse(text)


def test_every_cut_of_a_real_capture_parses_or_is_rejected():
    text = (FIXTURES / "mpstat/mpstat-12.6.1/mpstat_P_ALL_en_US.txt").read_text()
    for cut in range(0, len(text), 7):
        try:
            result = mpstat_text.parse(text[:cut])
        except parsers.ParseError:
            continue
        assert result.tables["cpu_samples"]
        assert result.status in ("complete", "incomplete")


# --------------------------------------------------------------------------- invariants


def _all_rows():
    for tool in ("mpstat", "sar", "collectl"):
        for path in _fixture_files(tool):
            expectation = path.with_name(path.name + ".expected.json")
            if "rejected" in json.loads(expectation.read_text()):
                continue
            module, _ = parsers.detect(path.read_text()[:65536], path.name)
            for row in module.parse(path.read_text()).tables["cpu_samples"]:
                yield module.NAME, path.name, row


def test_percentages_stay_in_range_and_busy_is_the_complement():
    seen = 0
    for name, fname, row in _all_rows():
        assert name in CPU_PARSERS
        for col in PCT:
            assert row.get(col) is None or 0.0 <= row[col] <= 100.0, f"{fname}: {col}={row[col]}"
        if row["idle_pct"] is None:
            continue
        busy = 100.0 - row["idle_pct"] - (row.get("iowait_pct") or 0) - (row.get("steal_pct") or 0)
        assert math.isclose(row["busy_pct"], max(0.0, busy), abs_tol=1e-6), fname
        work = sum(row.get(c) or 0.0 for c in ("user_pct", "nice_pct", "system_pct", "irq_pct",
                                               "softirq_pct", "guest_pct", "gnice_pct"))
        seen += 1
        if "negative_steal" in fname and row.get("steal_pct") is None:
            continue  # the nulled steal no longer balances the sum, by design
        # whole percentages (collectl, --dec=0) vs 1 or 2 decimals
        tolerance = 4.0 if name == "collectl_plot" or "dec0" in fname else 0.06
        assert abs(row["busy_pct"] - work) <= tolerance, f"{fname}: busy {row['busy_pct']} vs {work}"
    assert seen > 100


def test_sample_index_and_elapsed_never_go_backwards_within_a_host():
    last = {}
    for _, fname, row in _all_rows():
        key = (fname, row["hostname"])
        if key in last:
            assert row["sample_index"] >= last[key][0]
            if row["elapsed_s"] is not None and last[key][1] is not None:
                assert row["elapsed_s"] >= last[key][1]
        last[key] = (row["sample_index"], row["elapsed_s"])


# --------------------------------------------------------------------------- mpstat JSON


def test_cut_short_minified_json_is_salvaged():
    doc = json.dumps({"sysstat": {"hosts": [{"nodename": "h", "number-of-cpus": 1, "date": "2021-05-19",
                                             "statistics": [
        {"timestamp": "10:00:00", "cpu-load": [{"cpu": "-1", "usr": 10.0, "sys": 0.0, "idle": 90.0}],
         "sum-interrupts": [{"cpu": "all", "intr": 5.0}]},
        {"timestamp": "10:00:01", "cpu-load": [{"cpu": "-1", "usr": 20.0, "sys": 0.0, "idle": 80.0}]}]}]}})
    cut = doc[: doc.index('"usr": 20.0') + 5]
    result = mpstat_json.parse(cut)
    rows = result.tables["cpu_samples"]
    assert result.status == "incomplete" and len(rows) == 1
    assert rows[0]["user_pct"] == 10.0 and rows[0]["hostname"] == "h"
    assert rows[0]["sampled_at"].isoformat() == "2021-05-19T10:00:00"


@pytest.mark.parametrize("damage", ["\t", "\\x", "\\u12"])
def test_a_damaged_string_in_a_cut_document_is_salvaged_not_a_crash(damage):
    # Found by tests/tools/fuzz_parsers.py: a raw tab (or a bad escape) inside a host string
    # of a damaged document made the salvage's json.loads raise out of parse().
    text = (FIXTURES / "mpstat/mpstat-12.6.1/mpstat_json_P_ALL.json").read_text()
    text = text.replace('"sysname": "Linux"', f'"sysname": "Li{damage}nux"', 1)
    assert text.count(damage) >= 1
    for fast in (True, False):
        result = mpstat_json.parse(text) if fast else read_by_reference(mpstat_json, text)
        assert result.status == "incomplete" and result.tables["cpu_samples"]
        assert result.issues[0].severity == "error" and "damaged" in result.issues[0].reason


def test_a_time_zone_offset_past_24_hours_is_an_unreadable_stamp_not_a_crash():
    # Found by the mutation fuzzer: "13:-26:08" read as 13: in zone -26:08, which timezone()
    # refuses with a ValueError out of parse().
    text = (FIXTURES / "mpstat/mpstat-12.6.1/mpstat_json_P_ALL.json").read_text()
    stamp = re.search(r'"timestamp": "(\d\d):(\d\d):(\d\d)"', text)
    damaged = text.replace(stamp.group(0), f'"timestamp": "{stamp.group(1)}:-26:{stamp.group(3)}"', 1)
    for fast in (True, False):
        result = mpstat_json.parse(damaged) if fast else read_by_reference(mpstat_json, damaged)
        assert [i.reason for i in result.issues] == [f"unreadable timestamp '{stamp.group(1)}:-26:{stamp.group(3)}': "
                                                     "sample kept without time"]
        rows = list(result.tables["cpu_samples"])
        assert rows[0]["sampled_at"] is None and rows[-1]["sampled_at"] is not None


def test_several_hosts_keep_their_own_names_and_dates():
    def host(name, day):
        return {"nodename": name, "number-of-cpus": 2, "date": day, "statistics": [
            {"timestamp": "10:00:00", "cpu-load": [{"cpu": "all", "usr": 1.0, "idle": 99.0}]},
            {"timestamp": "10:00:01", "cpu-load": [{"cpu": "all", "usr": 2.0, "idle": 98.0}]}]}
    result = mpstat_json.parse(json.dumps({"sysstat": {"hosts": [host("a", "2021-05-19"), host("b", "2021-05-20")]}}))
    rows = result.tables["cpu_samples"]
    assert [(r["hostname"], r["sampled_at"].date().isoformat(), r["sample_index"]) for r in rows] == [
        ("a", "2021-05-19", 0), ("a", "2021-05-19", 1), ("b", "2021-05-20", 0), ("b", "2021-05-20", 1)]
    assert result.facts["hostname"] == "a"


def test_json_without_cpu_load_is_rejected():
    with pytest.raises(parsers.ParseError, match="cpu-load"):
        mpstat_json.parse(IOSTAT_JSON)


# --------------------------------------------------------------------------- collectl


def test_a_collectl_time_zone_past_24_hours_is_a_warning_not_a_crash():
    # timezone() refuses offsets of 24 h or more: "TZ: +2600" raised out of parse().
    text = (FIXTURES / "collectl/collectl-4.3.1/vm-20261121_scdmn_f.tab").read_text()
    assert "TZ: +0000" in text
    damaged = text.replace("TZ: +0000", "TZ: +2600", 1)
    lineno = damaged.splitlines().index(next(ln for ln in damaged.splitlines() if "TZ: +2600" in ln)) + 1
    outcomes = []
    for fast in (True, False):
        result = collectl_plot.parse(damaged) if fast else read_by_reference(collectl_plot, damaged)
        assert (lineno, "TZ: +2600 is no time zone offset: times kept as printed") in [(i.line, i.reason) for i in result.issues]
        first = list(result.tables["cpu_samples"])[0]
        assert first["sampled_at"].tzinfo is None  # as printed, not moved by a made-up zone
        outcomes.append((result.status, [(i.line, i.reason) for i in result.issues], len(result.tables["cpu_samples"])))
    assert outcomes[0] == outcomes[1]


_COLLECTL_COLUMNS = ["[CPU]User%", "[CPU]Nice%", "[CPU]Sys%", "[CPU]Wait%", "[CPU]Irq%",
                     "[CPU]Soft%", "[CPU]Steal%", "[CPU]Idle%", "[CPU]Totl%", "[MEM]Tot",
                     "[DSK]ReadTot", "[NET]RxKBTot", "[CPU:0]User%", "[CPU:0]Idle%"]
_COLLECTL_VALUES = ["7", "0", "2", "3", "0", "1", "0", "87", "10", "16000", "5", "12", "9", "91"]


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(list(range(len(_COLLECTL_COLUMNS)))), sep=st.sampled_from([" ", ",", "\t"]))
def test_collectl_columns_are_keyed_by_name_not_position(order, sep):
    header = "#Date" + sep + "Time" + sep + sep.join(_COLLECTL_COLUMNS[i] for i in order)
    row = "20240314" + sep + "10:00:00" + sep + sep.join(_COLLECTL_VALUES[i] for i in order)
    rows = collectl_plot.parse(header + "\n" + row + "\n").tables["cpu_samples"]
    by_cpu = {r["cpu"]: r for r in rows}
    assert set(by_cpu) == {"all", "0"}
    assert (by_cpu["all"]["user_pct"], by_cpu["all"]["iowait_pct"], by_cpu["all"]["idle_pct"],
            by_cpu["all"]["busy_pct"]) == (7.0, 3.0, 87.0, 10.0)
    assert (by_cpu["0"]["user_pct"], by_cpu["0"]["idle_pct"]) == (9.0, 91.0)


def test_collectl_unread_columns_are_one_warning():
    text = (FIXTURES / "collectl/collectl-4.3.1/vm-20261121_scdmn_f.tab").read_text()
    result = collectl_plot.parse(text)
    assert len([i for i in result.issues if "not read" in i.reason]) == 1


def test_collectl_without_cpu_columns_is_rejected_with_its_subsystems():
    with pytest.raises(parsers.ParseError, match="MEM, NET"):
        collectl_plot.parse("#Date Time [MEM]Tot [NET]RxKBTot\n20240314 10:00:00 1 2\n")


def test_collectl_shuffled_corpus_rows_keep_their_values():
    corpus = CORPUS / "cpu" / "rcollectl_collectl_P_tab_short_26lines.tab"
    if not corpus.is_file():
        pytest.skip("shared corpus absent")
    lines = corpus.read_text().splitlines()
    header_at = next(i for i, ln in enumerate(lines) if ln.startswith("#Date"))
    names = lines[header_at].split()
    data = [ln.split() for ln in lines[header_at + 1:]]
    order = list(range(2, len(names)))
    random.Random(7).shuffle(order)
    shuffled = ["#" + " ".join(["Date", "Time"] + [names[i] for i in order])]
    shuffled += [" ".join(d[:2] + [d[i] for i in order]) for d in data]
    want = collectl_plot.parse(corpus.read_text()).tables["cpu_samples"]
    got = collectl_plot.parse("\n".join(shuffled) + "\n").tables["cpu_samples"]
    assert [(r["user_pct"], r["system_pct"], r["idle_pct"]) for r in got] == \
           [(r["user_pct"], r["system_pct"], r["idle_pct"]) for r in want]


# --------------------------------------------------------------------------- docstrings


@pytest.mark.parametrize("module", ["_cpu_common", "mpstat_text", "mpstat_json", "sar_cpu", "collectl_plot"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(f"iopscope.parsers.{module}"))
    assert tried > 0 and failures == 0

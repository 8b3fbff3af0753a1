"""iostat (sysstat) text and JSON parsers: rules the fixture expectations alone do not pin down.

Fixture files and the shared corpus are checked by test_fixtures.py / test_corpus.py; here:
detection, the since-boot rule, columns keyed by name, units, dates, truncation at any byte,
JSON salvage, and that every output fits the lake schema.
"""

from __future__ import annotations

import doctest
import json
import random
from datetime import date, datetime, timezone

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from iopscope import lake, parsers, tables
from iopscope.ingest import Ingestor
from iopscope.parsers import _sysstat_common, iostat_json, iostat_text
from iopscope.parsers.base import ParseError

REAL = FIXTURES / "iostat" / "iostat-12.6.1"
HANDMADE = FIXTURES / "iostat" / "handmade"
DEV, CPU = "iostat_device_samples", "cpu_samples"

BANNER = "Linux 6.1.0 (host) \t11/21/2026 \t_x86_64_\t(2 CPU)\n"
CPU_BLOCK = ("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
             "           2.00    0.00    1.00    3.00    0.50   93.50\n\n")
H125 = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm "
        "w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")
ROW125 = ("vda             15.00    248.00     0.00   0.00    0.13    16.53   43.00    320.00    36.00  45.57    "
          "0.65     7.44    2.00     12.00     0.00   0.00    0.00     6.00    0.00    0.00    0.03   0.10")


def _report(header=H125, row=ROW125) -> str:
    return CPU_BLOCK + header + "\n" + row + "\n\n\n"


def _read(path) -> str:
    return path.read_text(encoding="utf-8")


def _comparable(rows):
    return [{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()} for r in rows]


# --------------------------------------------------------------------------- docs


@pytest.mark.parametrize("module", [iostat_text, iostat_json, _sysstat_common])
def test_docstring_examples(module):
    failures, _ = doctest.testmod(module, verbose=False)
    assert failures == 0


# --------------------------------------------------------------------------- detection


def test_detect_picks_text_json_and_rejects_foreign_iostat():
    text = _read(REAL / "x-t-1-3.txt")
    assert parsers.detect(text, "iostat.log")[0] is iostat_text
    assert parsers.detect(_read(REAL / "json-x-1-2.json"), "iostat.json")[0] is iostat_json
    # A Linux banner alone (mpstat, sar) is not iostat.
    mpstat = BANNER + "\n13:00:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n"
    assert iostat_text.detect(mpstat, "mpstat.txt") == 0.0
    # sadf -j carries "sysstat" too, but it is not iostat.
    assert iostat_json.detect('{"sysstat": {"hosts": [{"file-date": "2026-11-21", "statistics": []}]}}', "x") == 0.0
    # macOS/BSD iostat: our parser takes it, to reject it with a reason.
    bsd = "              disk0       cpu    load average\n    KB/t  tps  MB/s  us sy id   1m   5m   15m\n" \
          "   16.10   35  0.54   5  2 93  2.80 2.28 1.70\n"
    module, score = parsers.detect(bsd, "iostat.out")
    assert module is iostat_text and 0 < score < 0.5
    with pytest.raises(ParseError, match="macOS/BSD iostat output, not sysstat"):
        iostat_text.parse(bsd)


def test_nothing_readable_is_a_parse_error():
    for bad in ("", "\n\n", "hello world\n"):
        with pytest.raises(ParseError):
            iostat_text.parse(bad)
    # A banner and nothing else: the facts are read, the run was cut before its first report.
    r = iostat_text.parse(BANNER + "\n")
    assert (r.status, r.tables, r.facts["hostname"]) == ("incomplete", {}, "host")
    for bad in ("", "{}", '{"sysstat": 1}', "[1, 2]", "{"):
        with pytest.raises(ParseError):
            iostat_json.parse(bad)


# --------------------------------------------------------------------------- since boot


@pytest.mark.parametrize("prefix, since_boot", [
    (BANNER + "\n", True),            # banner, one empty line: no -y
    (BANNER + "\n\n", False),         # sysstat >= 12 leaves an extra empty line for -y
    ("", False),                      # no banner: the file starts mid-stream
])
def test_first_report_since_boot_rule(prefix, since_boot):
    r = iostat_text.parse(prefix + _report() + _report())
    flags = [row["is_since_boot"] for row in r.tables[DEV]]
    assert flags == [since_boot, False]
    assert [row["is_since_boot"] for row in r.tables[CPU]] == [since_boot, False]


def test_real_y_captures_have_no_since_boot_report():
    for name in ("x-y-1-2.txt", "x-y-t-1-2.txt"):
        r = iostat_text.parse(_read(REAL / name))
        assert not any(row["is_since_boot"] for row in r.tables[DEV])
    r = iostat_json.parse(_read(REAL / "json-t-x-y-1-3.json"))
    assert not any(row["is_since_boot"] for row in r.tables[DEV])
    r = iostat_json.parse(_read(REAL / "json-x-1-2.json"))
    assert [row["is_since_boot"] for row in r.tables[DEV]] == [True, False]


# --------------------------------------------------------------------------- columns by name


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_columns_are_read_by_name_in_any_order(rnd):
    header, row = H125.split(), ROW125.split()
    order = list(range(1, len(header)))
    rnd.shuffle(order)
    shuffled_header = " ".join(["Device"] + [header[i] for i in order])
    shuffled_row = " ".join([row[0]] + [row[i] for i in order])
    base = iostat_text.parse(BANNER + "\n" + _report()).tables[DEV][0]
    got = iostat_text.parse(BANNER + "\n" + _report(shuffled_header, shuffled_row)).tables[DEV][0]
    assert got == base


def test_units_are_normalised_to_kib():
    kb = iostat_text.parse(_report("Device r/s rkB/s wkB/s %util", "sda 1.00 1536.00 512.00 1.00")).tables[DEV][0]
    mb = iostat_text.parse(_report("Device r/s rMB/s wMB/s %util", "sda 1.00 1.50 0.50 1.00")).tables[DEV][0]
    sec = iostat_text.parse(_report("Device r/s rsec/s wsec/s %util", "sda 1.00 3072.00 1024.00 1.00")).tables[DEV][0]
    for row in (kb, mb, sec):
        assert (row["read_kib_per_s"], row["write_kib_per_s"]) == (1536.0, 512.0)
    assert (kb["unit_source"], mb["unit_source"], sec["unit_source"]) == ("kB", "MB", "sectors")
    # Old sysstat printed sectors and kB side by side: kB wins.
    both = iostat_text.parse(_report("Device: rsec/s wsec/s rkB/s wkB/s", "sda 10.00 10.00 7.00 8.00")).tables[DEV][0]
    assert (both["read_kib_per_s"], both["write_kib_per_s"]) == (7.0, 8.0)


def test_unknown_column_is_reported_and_ignored():
    r = iostat_text.parse(_report("Device r/s frobs/s %util", "sda 1.00 9.00 2.00"))
    assert r.tables[DEV][0]["util_pct"] == 2.0
    assert any("frobs/s" in i.reason for i in r.issues)


def test_split_human_report_merges_into_one_row_per_device():
    r = iostat_text.parse(_read(REAL / "x-h-1-2.txt"))
    rows = r.tables[DEV]
    assert [(row["sample_index"], row["device"]) for row in rows] == [(0, "vda"), (1, "vda")]
    assert rows[0]["layout"] == "x-12.5" and rows[0]["unit_source"] == "human"
    assert rows[0]["read_kib_per_s"] == pytest.approx(10.1 * 1024)  # "10.1M" in the rkB/s column
    assert rows[0]["f_await_ms"] == 0.05 and rows[0]["util_pct"] == 4.7


def test_decimal_comma_locale_reads_like_c_locale():
    de = iostat_text.parse(_read(REAL / "x-t-1-2-LC_ALL_de_DE.txt")).tables[DEV][0]
    assert de["r_per_s"] == 1391.69 and de["util_pct"] == 6.2
    assert de["sampled_at"] == datetime(2026, 11, 21, 13, 31, 32)


# --------------------------------------------------------------------------- dates


def test_date_reader_orders_and_rollover():
    gb = _sysstat_common.DateReader(["21/11/26 13:31:34"])
    assert gb.parse_date("05/11/26") == date(2026, 11, 5)          # day first, learnt from 21/11
    us = _sysstat_common.DateReader(["11/21/26 13:31:34"])
    assert us.parse_date("05/11/26") == date(2026, 5, 11)
    assert _sysstat_common.DateReader().parse_date("05.11.2026") == date(2026, 11, 5)  # dots: day first
    d = _sysstat_common.DateReader()
    d.set_base_date(date(2026, 12, 31))
    stamps = [d.parse_timestamp(t) for t in ("11:59:59 PM", "12:00:00 AM", "12:00:01 AM", "12:00:00 PM")]
    assert stamps == [datetime(2026, 12, 31, 23, 59, 59), datetime(2027, 1, 1, 0, 0, 0),
                      datetime(2027, 1, 1, 0, 0, 1), datetime(2027, 1, 1, 12, 0, 0)]
    iso = d.parse_timestamp("2024-03-14T17:53:14-0700")
    assert iso == datetime(2024, 3, 15, 0, 53, 14, tzinfo=timezone.utc)
    assert d.parse_timestamp("not a time") is None
    assert d.parse_timestamp("13:61:00") is None


def test_time_only_stamps_without_any_date_leave_sampled_at_null():
    text = "Time: 10:00:00 AM\n" + _report() + "Time: 10:00:01 AM\n" + _report()
    rows = iostat_text.parse(text).tables[DEV]
    assert [row["sampled_at"] for row in rows] == [None, None]
    assert [row["time_text"] for row in rows] == ["Time: 10:00:00 AM", "Time: 10:00:01 AM"]


# --------------------------------------------------------------------------- truncation


CUT_SEEDS = [REAL / "x-t-1-3.txt", REAL / "plain-1-3.txt", REAL / "x-g-mygrp-1-2.txt",
             HANDMADE / "old-x-kB-device-colon.txt"]


@pytest.mark.parametrize("path", CUT_SEEDS, ids=lambda p: p.name)
def test_a_cut_file_keeps_a_prefix_of_the_rows(path):
    text = _read(path)
    full = iostat_text.parse(text)
    rng = random.Random(7)
    for cut in sorted(rng.sample(range(len(text)), 60)):
        part = text[:cut]
        try:
            r = iostat_text.parse(part)
        except ParseError:
            continue
        for table in (DEV, CPU):
            got = _comparable(r.tables.get(table, []))
            assert got == _comparable(full.tables.get(table, []))[: len(got)], (path.name, cut, table)
        if not part.endswith("\n"):
            # only a cut exactly at the end of a whole row in a whole report can read as a
            # file that lacks just its final newline (issue 18): anything else is incomplete
            assert (r.status == "incomplete" and r.issues) or text[cut] == "\n", (path.name, cut)


@pytest.mark.parametrize("path", [REAL / "json-t-x-y-1-3.json", REAL / "json-m-x-g-grp-1-2.json"],
                         ids=lambda p: p.name)
def test_a_cut_json_document_keeps_its_complete_reports(path):
    text = _read(path)
    full = iostat_json.parse(text)
    for cut in range(len(text) // 3, len(text) - 5, 97):
        try:
            r = iostat_json.parse(text[:cut])
        except ParseError:
            continue
        assert r.status == "incomplete"
        for table in (DEV, CPU):
            got = _comparable(r.tables.get(table, []))
            assert got == _comparable(full.tables.get(table, []))[: len(got)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([BANNER, "\n", CPU_BLOCK, H125 + "\n", ROW125 + "\n", " grp " + ROW125[4:] + "\n",
                                 "11/21/26 11:59:59 PM\n", "2026-11-21T10:00:00+0100\n", "junk line\n",
                                 "Device tps kB_read/s kB_read\n", "sda 1.00 2.00 3\n", "sda 1,5k 2.0M 3%\n"]),
                max_size=30))
def test_any_arrangement_of_real_lines_parses_and_fits_the_lake(lines):
    text = "".join(lines)
    try:
        r = iostat_text.parse(text)
    except ParseError:
        return
    for table, rows in r.tables.items():
        lake.conform(tables.get(table), rows)
        assert all(isinstance(row.get("sample_index"), int) for row in rows)


# --------------------------------------------------------------------------- schema and ingest


ALL_FIXTURES = sorted(p for p in (FIXTURES / "iostat").rglob("*")
                      if p.is_file() and not p.name.endswith((".expected.json", ".md")))


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_fits_the_lake_schema(path):
    text = _read(path)
    module = iostat_json if path.suffix == ".json" else iostat_text
    try:
        r = module.parse(text)
    except ParseError:
        return
    for table, rows in r.tables.items():
        assert table in (DEV, CPU)
        lake.conform(tables.get(table), rows)
    json.dumps(r.facts)


def test_ingest_writes_iostat_rows_and_rejects_bsd(tmp_path):
    raw = tmp_path / "raw" / "measured" / "run1"
    raw.mkdir(parents=True)
    (raw / "iostat.txt").write_text(_read(REAL / "x-t-1-3.txt"))
    (raw / "iostat.json").write_text(_read(REAL / "json-x-1-2.json"))
    (raw / "bsd.out").write_text("    KB/t  tps  MB/s  us sy id\n   16.10   35  0.54   5  2 93\n")
    report = Ingestor(tmp_path / "raw", tmp_path / "lake").run()
    assert any("macOS/BSD iostat output" in e.reason for e in report.errors)
    dev = pq.read_table(tmp_path / "lake" / DEV / "collection=measured", use_threads=False).to_pylist()
    assert sorted((r["parser"], r["sample_index"]) for r in dev) == \
        [("iostat_json", 0), ("iostat_json", 1), ("iostat_text", 0), ("iostat_text", 1), ("iostat_text", 2)]
    cpu = pq.read_table(tmp_path / "lake" / CPU / "collection=measured", use_threads=False).to_pylist()
    assert {r["source_block"] for r in cpu} == {"iostat-avg-cpu"} and len(cpu) == 5

"""The published reference data: its bundled copy, its manifest and the ``published_reference`` parser."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from conftest import ROOT, SHARED
from iopscope import lake, parsers, tables
from iopscope.manifest import read_manifest
from iopscope.parsers import published_reference as pr

BUNDLE = ROOT / "data" / "raw" / "published" / "vendor-studies-2016-2017"
REFERENCE = SHARED / "reference"
CSVS = sorted(BUNDLE.glob("*.csv"))


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_bundle_holds_every_reference_file_and_the_manifest_lists_them():
    assert len(CSVS) == 10
    assert (BUNDLE / "README.md").is_file()
    manifest = read_manifest(BUNDLE / "run.toml")
    assert manifest.get("kind") == "published"
    listed = {p for p, f in manifest.files.items() if f.get("format") == pr.NAME}
    assert listed == {p.name for p in CSVS}


@pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"shared reference not found at {REFERENCE}")
def test_bundle_is_a_byte_identical_copy_of_the_shared_reference():
    for path in CSVS + [BUNDLE / "README.md"]:
        source = REFERENCE / path.name
        assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(source.read_bytes()).digest(), path.name


@pytest.mark.parametrize("path", CSVS, ids=lambda p: p.name)
def test_every_csv_is_detected_and_read_completely(path):
    text = path.read_text(encoding="utf-8")
    module, score = parsers.detect(text[: parsers.HEAD_BYTES], path.name)
    assert module is pr and score >= 0.99
    result = pr.parse(text)
    table = f"published_{path.stem}"
    assert result.status == "complete" and not result.issues, result.issues[:3]
    assert list(result.tables) == [table]
    rows = result.tables[table]
    assert len(rows) == len(_rows(path))
    lake.conform(tables.get(table), rows)  # every value fits the declared type
    # csv_line points at the row's own line (no quoted newlines in these files)
    lines = text.splitlines()
    for row in rows[:5]:
        cells = next(csv.reader([lines[row["csv_line"] - 1]]))
        assert cells[0] == str(next(iter(v for k, v in row.items() if k != "csv_line")) or "")


def test_values_are_typed_and_empty_cells_are_null():
    rows = pr.parse((BUNDLE / "tpcc_results.csv").read_text()).tables["published_tpcc_results"]
    nvme_50 = [r for r in rows if r["source"] == "002 Table 1" and r["device_id"] == "samsung_pm1725"
               and r["connections"] == 50 and r["metric"] == "new_order_tpm"]
    assert len(nvme_50) == 1
    assert nvme_50[0]["value"] == 110357.0 and nvme_50[0]["approx"] is False
    assert nvme_50[0]["page_size_kb"] is None and nvme_50[0]["warehouses"] == 500
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 8 and all(r["value"] is None for r in failed)
    io = pr.parse((BUNDLE / "io_results.csv").read_text()).tables["published_io_results"]
    assert {r["array_layout"] for r in io} >= {"single", "raid0_x4", "independent_x4"}
    stops = pr.parse((BUNDLE / "stop_conditions.csv").read_text()).tables["published_stop_conditions"]
    assert stops[0]["limit_name"] == "CPU utilization" and stops[0]["threshold"] == 80.0


HEADER = "profile_id,name,access,read_pct,write_pct,block_kb,application,source,note"


def test_columns_in_any_order_bom_and_crlf():
    text = "\ufeffname,profile_id,access,read_pct,write_pct,block_kb,application,source,note\r\n" \
           "Database,database,random,67,33,8,Mail,001,\r\n\r\n"
    result = pr.parse(text)
    row = result.tables["published_io_profiles"][0]
    assert (row["profile_id"], row["name"], row["read_pct"], row["csv_line"]) == ("database", "Database", 67.0, 2)
    assert not result.issues


def test_extra_and_missing_columns_are_reported_not_fatal():
    text = "profile_id,name,access,read_pct,write_pct,block_kb,application,source,colour\n" \
           "db,Database,random,67,33,8,Mail,001,red\n"
    assert pr.detect(text, "x.csv") == 0.6
    result = pr.parse(text)
    reasons = " | ".join(i.reason for i in result.issues)
    assert "'colour'" in reasons and "'note'" in reasons
    assert result.tables["published_io_profiles"][0]["note"] is None


def test_bad_cells_and_short_rows_are_warnings_with_line_numbers():
    text = HEADER + "\n" + "db,Database,random,6x7,33,8,Mail,001,\n" + "short,row\n" + "fs,File,random,67,33,64,,001,\n"
    result = pr.parse(text)
    rows = result.tables["published_io_profiles"]
    assert [r["profile_id"] for r in rows] == ["db", "fs"]
    assert rows[0]["read_pct"] is None and rows[1]["application"] is None
    assert {(i.line, i.severity) for i in result.issues} == {(2, "warning"), (3, "warning")}


def test_unknown_text_is_rejected_and_not_detected():
    for text in ("", "hello world", "a,b,c\n1,2,3\n", '{"fio version": "fio-3.33"}'):
        assert pr.detect(text, "x") == 0.0
        with pytest.raises(parsers.ParseError):
            pr.parse(text)


def test_header_only_file_gives_no_rows():
    result = pr.parse(HEADER + "\n")
    assert result.tables == {} and result.issues


def test_every_published_table_has_a_csv_layout():
    published = {n for n in tables.ALL if n.startswith("published_")}
    assert set(pr.KNOWN) == published
    assert {f"published_{p.stem}" for p in CSVS} == published


def test_printed_figures_keep_their_text_and_resolution():
    """The lake keeps each published figure as printed: the cell verbatim and the unit of its last digit."""
    rows = pr.parse((BUNDLE / "tpcc_results.csv").read_text()).tables["published_tpcc_results"]

    def one(**match):
        found = [r for r in rows if all(r[k] == v for k, v in match.items())]
        assert len(found) == 1, match
        return found[0]

    hdd_cpu = one(source="002 Table 2", device_id="seagate_st600mp0005", connections=100, metric="cpu_user_sys_pct")
    assert (hdd_cpu["value"], hdd_cpu["value_text"], hdd_cpu["value_resolution"]) == (0.4, "0.4", 0.1)
    nvme_iowait = one(source="002 Table 3", device_id="samsung_pm1725", connections=50, metric="cpu_iowait_pct")
    assert (nvme_iowait["value_text"], nvme_iowait["value_resolution"]) == ("3.0", 0.1)  # a printed trailing zero counts
    sata_dual = one(source="002 Figure 1 (table)", device_id="samsung_850pro", db_config_id="mysql_config_1",
                    connections=200)
    assert (sata_dual["value_text"], sata_dual["value_resolution"]) == ("7366.55", 0.01)
    nvme_max = one(device_id="samsung_pm1725", host_id="samsung_quad_socket", connections=100,
                   metric="max_new_order_ms")
    assert nvme_max["value_text"] == "342.5369999999997" and nvme_max["value_resolution"] == 0.001
    failed = [r for r in rows if r["status"] == "failed"]
    assert failed and all(r["value_text"] is None and r["value_resolution"] is None for r in failed)
    # every figure of every table of figures has both, and the text reads back as the value
    for name in ("tpcc_results", "tpcc_timeseries", "io_results", "sqlserver_results"):
        table = f"published_{name}"
        for row in pr.parse((BUNDLE / f"{name}.csv").read_text()).tables[table]:
            if row["value"] is None:
                continue
            assert float(row["value_text"]) == row["value"], (name, row["csv_line"])
            assert 0 < row["value_resolution"] <= 1, (name, row["csv_line"], row["value_text"])
    # tables without figures have no printed-form columns
    assert "value_text" not in pr.parse((BUNDLE / "hosts.csv").read_text()).tables["published_hosts"][0]


@pytest.mark.parametrize("text, resolution", [
    ("7366.55", 0.01), ("23868", 1.0), ("0.4", 0.1), ("3.0", 0.1), ("10000", 1.0), ("-2.50", 0.01),
    ("1e5", 100000.0), ("0", 1.0), ("144.752825", 1e-6),
    # float tails of chart dumps: read at 12 significant digits, trailing zeros dropped
    ("342.5369999999997", 0.001), ("400.9329999999997", 0.001), ("4182.189058333332", 1e-8),
    ("x", None), ("nan", None), ("", None),
])
def test_printed_resolution(text, resolution):
    assert pr.printed_resolution(text) == resolution


def test_a_bad_value_cell_keeps_its_text_but_no_resolution():
    header = "study_id,host_id,config,device_id,device_count,layout,metric,value,approx,qualifier,status,source,note"
    result = pr.parse(header + "\ns,h,c,d,2,l,nopm,7x3,false,,ok,003,\n")
    row = result.tables["published_sqlserver_results"][0]
    assert (row["value"], row["value_text"], row["value_resolution"]) == (None, "7x3", None)
    assert result.issues and result.issues[0].line == 2

"""docs/sql.md: every ```sql block runs against a warehouse built from the bundled data and returns rows.

The warehouse is built once per session in a private temporary lake / warehouse (never the
checkout's data/lake or data/warehouse): ``iopscope ingest`` then ``iopscope dbt run``. The dbt
tests themselves run in ``make test`` (``dbt build``); here only the models are needed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT

SQL_DOC = ROOT / "docs" / "sql.md"
BIN = Path(sys.executable).parent
QUERIES = re.findall(r"```sql\n(.*?)```", SQL_DOC.read_text(encoding="utf-8"), re.S)


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("sqldocs")
    env = dict(os.environ)
    env.update({
        "IOPSCOPE_HOME": str(ROOT),
        "IOPSCOPE_RAW": str(ROOT / "data" / "raw"),
        "IOPSCOPE_LAKE": str(work / "lake"),
        "IOPSCOPE_WAREHOUSE": str(work / "warehouse.duckdb"),
        "DBT_TARGET_PATH": str(work / "target"),
        "DBT_LOG_PATH": str(work / "logs"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "False",
    })
    iopscope = str(BIN / "iopscope")
    # ingest reports unreadable files with exit 1 but still writes the lake: only the warehouse matters here
    subprocess.run([iopscope, "ingest", "--quiet"], cwd=ROOT, env=env, check=False,
                   capture_output=True, text=True, timeout=300)
    built = subprocess.run([iopscope, "dbt", "run"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-2000:]
    return work / "warehouse.duckdb"


def test_sql_doc_has_fifteen_queries():
    assert len(QUERIES) == 15


@pytest.mark.parametrize("index", range(len(QUERIES)), ids=lambda i: f"query{i + 1}")
def test_query_returns_rows(warehouse, index):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(QUERIES[index]).fetchall()
    finally:
        con.close()
    assert len(rows) >= 1, QUERIES[index]


def test_first_query_reproduces_samsung_table_1(warehouse):
    """Query 1 shows NVMe / SATA at 50 connections = 4.62 and NVMe / SAS HDD at 100 = 180.35."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(QUERIES[0]).fetchall()
    finally:
        con.close()
    found = {(r[0], r[2]): r[5] for r in rows}
    assert found[(50, "samsung_850pro")] == pytest.approx(4.62)
    assert found[(100, "seagate_st600mp0005")] == pytest.approx(180.35)


def test_iopscope_sql_cli_runs_a_query(warehouse):
    out = subprocess.run([str(BIN / "iopscope"), "sql", "--warehouse", str(warehouse), "-c",
                          "select count(*) as studies from marts.dim_studies"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "studies" in out.stdout and "4" in out.stdout


def _rows(warehouse, index):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        cursor = con.execute(QUERIES[index])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]
    finally:
        con.close()


def test_path_length_query_shows_the_hdd_range(warehouse):
    """Query 4: the HDD at 100 connections spans 68-88 M cycles from its 0.4 % CPU, flagged wide."""
    hdd = [r for r in _rows(warehouse, 3) if r["device_id"] == "seagate_st600mp0005" and r["connections"] == 100]
    assert len(hdd) == 1
    assert (hdd[0]["low"], hdd[0]["high"], hdd[0]["is_wide"]) == (68.4, 87.9, True)


def test_top_single_drives_never_include_an_array(warehouse):
    """Query 11: the top 5 single drives by Database IOPS hold no multi-drive or partitioned figure."""
    rows = _rows(warehouse, 10)
    assert len(rows) == 5
    assert 589000 not in [r["iops"] for r in rows]  # four independent drives: not a single drive
    assert [r["iops"] for r in rows] == sorted((r["iops"] for r in rows), reverse=True)


def test_config_effect_query_gives_samsungs_31_percent(warehouse):
    """Query 13: Percona + Config #A over MySQL + Config #3 on the XS1715 at 100 connections = +30.7 %."""
    rows = _rows(warehouse, 12)
    server = [r for r in rows if r["varied_condition"] == "db_server" and r["connections"] == 100
              and "mysql_config_3" in r["co_varied_b"]]
    assert len(server) == 1 and server[0]["pct_more"] == pytest.approx(30.7)


def test_scaling_query_gives_four_independent_drives(warehouse):
    """Query 14: four independent P3700s over one at the highest load = 3.17, 79.2 % per drive."""
    rows = _rows(warehouse, 13)
    four = [r for r in rows if r["array_layout_a"] == "independent_x4" and r["profile_id"] == "database"
            and r["outstanding_ios"] is None]
    assert len(four) == 1 and (four[0]["factor"], four[0]["efficiency_pct"]) == (3.17, 79.2)


def test_sql_page_offers_exactly_the_documented_queries():
    """The SQL page's examples come from docs/sql.md through src/data/_sitedata.sql_examples:
    the same 15 queries this file runs, each under its section's title."""
    sys.path.insert(0, str(ROOT / "src" / "data"))
    try:
        import _sitedata
    finally:
        sys.path.pop(0)
    examples = _sitedata.sql_examples(SQL_DOC.read_text(encoding="utf-8"))
    assert [e["sql"] for e in examples] == [q.strip() for q in QUERIES]
    assert all(e["title"] and not e["title"][0].isdigit() for e in examples)
    assert any(e["title"].startswith("Top devices by IOPS") for e in examples)  # the page's default

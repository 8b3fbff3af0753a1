"""The list pages' aggregates (src/data/_page_lists.py): one row per run with its headline
results (best fio job, best TPC-C result, counts for a study of several devices), configuration
usage, study titles; and a warehouse missing a mart or a column still builds."""

from __future__ import annotations

import importlib
from pathlib import Path

import duckdb
import pytest

DATA = Path(__file__).resolve().parents[2] / "src" / "data"


@pytest.fixture()
def lists(tmp_path, monkeypatch):
    path = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute("""create table marts.dim_runs as select * from (values
        ('fio1', 'measured', timestamptz '2026-01-01 10:00:00+00', 'h', 'd1', null, 'a long description'),
        ('tp1', 'measured', timestamptz '2026-01-02 10:00:00+00', 'h', 'd1', 'cfg_a', null),
        ('study', 'published', null, null, null, null, null))
        t(run_id, source_kind, started_at, host_id, data_device_id, db_config_id, description)""")
    # fio1: two jobs (read + write each); the second has more IOPS in total
    con.execute("""create table marts.fct_fio_results as select * from (values
        ('fio1', 'j1', 'd1', false, 'read', 100.0, 1.0, 200.0, 1, '8k', 67.0),
        ('fio1', 'j1', 'd1', false, 'write', 50.0, 0.5, 900.0, 1, '8k', 67.0),
        ('fio1', 'j2', 'd1', false, 'read', 400.0, 4.0, 300.0, 16, '8k', 67.0),
        ('fio1', 'j2', 'd1', false, 'write', 200.0, 2.0, 700.0, 16, '8k', 67.0),
        ('fio1', 'all', 'd1', true, 'read', 9999.0, 99.0, 1.0, 16, '8k', 67.0))
        t(run_id, fio_job_id, device_id, is_aggregate, direction, iops, bw_mib_per_s, clat_p99_us, outstanding_ios, block_size, read_pct)""")
    con.execute("""create table marts.fct_tpcc_results as select * from (values
        ('tp1', 'd1', 'cfg_a', 50, 1000.0, 12.0), ('tp1', 'd1', 'cfg_a', 100, 1500.0, 20.0),
        ('study', 'd1', 'cfg_b', 50, 900.0, 10.0), ('study', 'd2', 'cfg_b', 50, 2000.0, 5.0))
        t(run_id, device_id, db_config_id, connections, new_order_tpm, p95_new_order_ms)""")
    con.execute("""create table marts.dim_db_configs as select * from (values
        ('cfg_a', 'p', '1'), ('cfg_b', 'p', '2'), ('cfg_unused', 'p', '3')) t(config_id, parameter, value)""")
    con.execute("""create table marts.dim_studies as select * from (values
        ('s1', 'published', 'A study', 'Vendor, Inc.', '9/01/2016', 'long notes')) t(study_id, source_kind, study_title, publisher, published_as_printed, study_notes)""")
    con.close()
    monkeypatch.setenv("IOPSCOPE_WAREHOUSE", str(path))
    monkeypatch.syspath_prepend(str(DATA))
    sd = importlib.import_module("_sitedata")
    pl = importlib.import_module("_page_lists")
    con = sd.connect()
    yield sd, pl, con, sd.marts(con)
    con.close()


def as_rows(payload):
    data = {k: ([v["dict"][c] if c >= 0 else None for c in v["codes"]] if isinstance(v, dict) else v)
            for k, v in payload["data"].items()}
    return [{k: data[k][i] for k in data} for i in range(payload["rows"])]


def test_runs_list_headlines(lists):
    _, pl, con, catalog = lists
    rows = {r["run_id"]: r for r in as_rows(pl.runs_list_payload(con, catalog))}
    fio = rows["fio1"]
    assert (fio["fio_job_count"], fio["fio_iops"], fio["fio_mib_per_s"]) == (2, 600.0, 6.0)  # best job, aggregate row left out
    assert (fio["fio_p99_us"], fio["fio_outstanding_ios"]) == (700.0, 16)  # that job's slower direction
    assert fio["tpcc_new_order_tpm"] is None and fio["started_at"] == "2026-01-01T10:00:00Z"
    tp = rows["tp1"]
    assert (tp["tpcc_new_order_tpm"], tp["tpcc_best_connections"], tp["tpcc_p95_ms"], tp["tpcc_result_count"]) == (1500.0, 100, 20.0, 2)
    assert rows["study"]["tpcc_devices"] == 2


def test_config_usage_and_studies(lists):
    _, pl, con, catalog = lists
    usage = {r["config_id"]: r for r in as_rows(pl.config_usage_payload(con, catalog))}
    assert usage["cfg_a"] == {"config_id": "cfg_a", "tpcc_result_count": 2, "run_count": 1, "device_count": 1}
    assert usage["cfg_b"]["device_count"] == 2
    assert usage["cfg_unused"]["tpcc_result_count"] == 0
    assert as_rows(pl.config_usage_payload(con, catalog))[-1]["config_id"] == "cfg_unused"  # most used first
    (study,) = as_rows(pl.studies_payload(con, catalog))
    assert study["study_title"] == "A study" and "study_notes" not in study and study["tpcc_figure_count"] is None


def test_missing_marts_and_columns(lists):
    sd, pl, con, catalog = lists
    assert pl.runs_list_payload(None, {})["exists"] is False
    without_facts = {k: v for k, v in catalog.items() if not k.startswith("fct_")}
    rows = as_rows(pl.runs_list_payload(con, without_facts))
    assert len(rows) == 3 and "fio_iops" not in rows[0]
    assert pl.studies_payload(con, {})["exists"] is False
    assert all(r["tpcc_result_count"] == 0 for r in as_rows(pl.config_usage_payload(con, without_facts)))

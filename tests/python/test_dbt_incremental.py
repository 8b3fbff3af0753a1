"""Incremental warehouse builds give the same marts as a full build.

On a copy of the bundled data: full build; then one run added (a copied folder with a new
run_id), one run's files changed, one run deleted, a database configuration added (a copied
run, one value changed) and one deleted, re-ingest; `build_warehouse` must take the
incremental path, and every mart (and every incremental model) must hold exactly the rows a
fresh full build of the same lake holds. Models only (`dbt run`): the data and unit tests run in
`make test` / CI through `iopscope build`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT
from iopscope import pipeline
from iopscope.ingest import Ingestor
from iopscope.paths import Paths

SWEEP = "measured/2026-11-21-vm2-vda-fio-classic-five-sweep"
ADDED_FROM = f"{SWEEP}/016-file-server-64k-r67-oio064"
CHANGED = f"{SWEEP}/005-database-8k-r67-oio016"
CHANGED_FROM = f"{SWEEP}/008-database-8k-r67-oio128"
DELETED = f"{SWEEP}/040-restore-64k-r0-oio008"
# Database configurations (dim_db_config_diffs, incremental by configuration): each of these runs
# is its own configuration ('run:<run_id>'). A copy of the first with one value changed is a new
# configuration (its manifest alone: a go-tpc run's intervals added by an update give
# fct_tpcc_intervals.series_cv_pct, a stddev, in the last bit other than a full build's), and the
# second is deleted.
CONFIG_FROM = "measured/2026-11-26-vm-vda-go-tpc-w1-bp16m/002-w1-c0002"
CONFIG_DELETED = "measured/2026-11-26-vm-vda-tpcc-mysql-w1-bp256m/004-w1-c0008"


def _incremental_models(target: Path) -> list[str]:
    """Models dbt materializes incrementally, from the manifest the last dbt command wrote."""
    manifest = json.loads((target / "manifest.json").read_text())
    return sorted(node["name"] for node in manifest["nodes"].values()
                  if node["resource_type"] == "model" and node["config"]["materialized"] == "incremental")


def _relations(con: duckdb.DuckDBPyConnection, catalog: str, schema: str) -> list[str]:
    rows = con.execute(
        "select table_name from duckdb_tables() where database_name = ? and schema_name = ? order by 1",
        [catalog, schema]).fetchall()
    return [r[0] for r in rows]


def _differences(con, left: str, right: str) -> int:
    """Rows in one table and not the other, counting duplicates (EXCEPT ALL both ways)."""
    return con.execute(
        f"select (select count(*) from (select * from {left} except all select * from {right}))"
        f" + (select count(*) from (select * from {right} except all select * from {left}))").fetchone()[0]


@pytest.fixture()
def private_env(tmp_path, monkeypatch):
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    # One thread per query: parallel avg / stddev add doubles in a varying order, so two builds
    # of the same lake may differ in the last bit; rows are compared exactly here.
    monkeypatch.setenv("IOPSCOPE_DUCKDB_THREADS", "1")
    raw = tmp_path / "raw"
    shutil.copytree(ROOT / "data" / "raw", raw)
    return Paths(root=ROOT, raw=raw, lake=tmp_path / "lake",
                 warehouse=tmp_path / "incremental" / "iopscope.duckdb", dist=tmp_path / "dist")


def _copy_run(raw: Path, rel_dir: str, manifest_only: bool = False) -> Path:
    """A copy of the run folder (or of its manifest alone) beside it, its run_id suffixed
    '-copy'; the copy's manifest."""
    added = raw / (rel_dir + "-copy")
    if manifest_only:
        added.mkdir()
        shutil.copyfile(raw / rel_dir / "run.toml", added / "run.toml")
    else:
        shutil.copytree(raw / rel_dir, added)
    manifest = added / "run.toml"
    text, count = re.subn(r'^run_id\s*=\s*"([^"]+)"', r'run_id = "\1-copy"', manifest.read_text(), flags=re.M)
    assert count == 1, "the copied manifest names its run_id"
    manifest.write_text(text)
    return manifest


def _change_raw(raw: Path) -> None:
    _copy_run(raw, ADDED_FROM)
    for name in ("iostat.json", "mpstat.json", "fio.json"):
        shutil.copyfile(raw / CHANGED_FROM / name, raw / CHANGED / name)
    shutil.rmtree(raw / DELETED)
    manifest = _copy_run(raw, CONFIG_FROM, manifest_only=True)
    text, count = re.subn(r'^aria_block_size = "8192"$', 'aria_block_size = "16384"', manifest.read_text(), flags=re.M)
    assert count == 1, "the manifest sets aria_block_size"
    manifest.write_text(text)
    shutil.rmtree(raw / CONFIG_DELETED)


def _run_id(rel_dir: str) -> str:
    return re.search(r'^run_id\s*=\s*"([^"]+)"', (ROOT / "data" / "raw" / rel_dir / "run.toml").read_text(), re.M).group(1)


def test_incremental_build_equals_full_build(private_env):
    paths = private_env
    assert not Ingestor(paths.raw, paths.lake).run().failed
    assert pipeline.build_warehouse(paths, run_tests=False) == "full"
    incremental = _incremental_models(paths.lake.parent / "target")
    assert {"fct_cpu_samples", "fct_iostat_device_samples", "fct_fio_histograms"} <= set(incremental)

    _change_raw(paths.raw)
    report = Ingestor(paths.raw, paths.lake).run()
    assert not report.failed and report.runs_ingested == 3 and report.runs_removed == 2
    assert pipeline.build_warehouse(paths, run_tests=False) == "incremental"

    fresh = dataclasses.replace(paths, warehouse=paths.warehouse.parent.parent / "full" / "iopscope.duckdb")
    assert pipeline.build_warehouse(fresh, run_tests=False) == "full"

    con = _compare_marts(paths.warehouse, fresh.warehouse, incremental)

    # The changes reached the incremental tables: the new run is there, the deleted one is not.
    runs = {r[0] for r in con.execute("select distinct run_id from inc.marts.fct_cpu_samples").fetchall()}
    assert any(r.endswith("-copy") for r in runs)
    assert _run_id(DELETED) not in runs

    # The incremental-by-key models rebuilt only what changed: the one new configuration (the
    # deleted one has no fingerprint left), and some but not all devices.
    changed_configs = con.execute(
        "select config_id from inc.intermediate.int_db_config_fingerprints where is_new_or_changed").fetchall()
    assert changed_configs == [(f"run:{_run_id(CONFIG_FROM)}-copy",)]
    changed_devices, devices = con.execute(
        "select count(*) filter (where is_new_or_changed), count(*) from inc.intermediate.int_device_fingerprints").fetchone()
    assert 0 < changed_devices < devices


def test_a_model_left_behind_or_without_its_ledger_catches_up_at_the_next_update(private_env):
    """A partial `dbt run -s int_run_fingerprints` sees a new run (flagged new there) without
    building the models that read it: the next update must still build that run into every
    by-run model, though int_run_fingerprints no longer flags it (the ledger of each model does
    not hold it). And a model whose ledger was lost is rebuilt whole, not left with stale rows."""
    paths = private_env
    assert not Ingestor(paths.raw, paths.lake).run().failed
    assert pipeline.build_warehouse(paths, run_tests=False) == "full"
    incremental = _incremental_models(paths.lake.parent / "target")

    _copy_run(paths.raw, ADDED_FROM)
    shutil.rmtree(paths.raw / DELETED)
    assert not Ingestor(paths.raw, paths.lake).run().failed
    pipeline.dbt(paths, ["run", "-s", "int_run_fingerprints"])
    with duckdb.connect(str(paths.warehouse)) as con:
        added = con.execute("select run_id from intermediate.int_run_fingerprints where is_new_or_changed").fetchall()
        assert len(added) == 1 and added[0][0].endswith("-copy")
        con.execute("drop table intermediate.run_builds__fct_iostat_device_samples")
    assert pipeline.build_warehouse(paths, run_tests=False) == "incremental"

    fresh = dataclasses.replace(paths, warehouse=paths.warehouse.parent.parent / "full" / "iopscope.duckdb")
    assert pipeline.build_warehouse(fresh, run_tests=False) == "full"
    con = _compare_marts(paths.warehouse, fresh.warehouse, incremental)
    runs = {r[0] for r in con.execute("select distinct run_id from inc.marts.fct_cpu_samples").fetchall()}
    assert any(r.endswith("-copy") for r in runs) and _run_id(DELETED) not in runs


def test_changed_shared_rows_rebuild_every_run_or_device_that_reads_them(private_env):
    """Rows every run's rows are made with (the published standard profiles: fio jobs are matched
    with them, runs_read_by_every_run) and rows a device's figures are made with (its dim_devices
    row: price and spec sheet, int_device_input_fingerprints) change without any run changing:
    the update must rebuild every run of the models that match profiles, and the device's rows of
    fct_device_capabilities and fct_device_performance, as a full build would."""
    paths = private_env
    assert not Ingestor(paths.raw, paths.lake).run().failed
    assert pipeline.build_warehouse(paths, run_tests=False) == "full"
    incremental = _incremental_models(paths.lake.parent / "target")
    assert {"int_fio_results_joined", "fct_fio_results", "fct_device_capabilities", "fct_device_performance"} <= set(incremental)
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        before = con.execute("select count(*) filter (where standard_profile_id = 'database'), count(*) "
                             "from marts.fct_fio_results").fetchone()
        price_rows = con.execute("select count(*) from marts.fct_device_capabilities "
                                 "where device_id = 'samsung_pm1725' and usd_per_iops is not null").fetchone()[0]
    assert before[0] > 0 and price_rows > 0

    published = paths.raw / "published" / "vendor-studies-2016-2017"
    profiles = published / "io_profiles.csv"
    text, count = re.subn(r"^database,Database,random,67,33,8,", "database,Database,random,67,33,16,", profiles.read_text(), flags=re.M)
    assert count == 1
    profiles.write_text(text)
    devices = published / "devices.csv"
    text, count = re.subn(r"^(samsung_pm1725,(?:[^,]*,){11})1881,", r"\g<1>2400,", devices.read_text(), flags=re.M)
    assert count == 1
    devices.write_text(text)
    assert not Ingestor(paths.raw, paths.lake).run().failed
    assert pipeline.build_warehouse(paths, run_tests=False) == "incremental"

    fresh = dataclasses.replace(paths, warehouse=paths.warehouse.parent.parent / "full" / "iopscope.duckdb")
    assert pipeline.build_warehouse(fresh, run_tests=False) == "full"
    con = _compare_marts(paths.warehouse, fresh.warehouse, incremental)
    # the changes reached the rebuilt rows: no measured job is 16 KiB, so none matches "database" now
    after = con.execute("select count(*) filter (where standard_profile_id = 'database'), count(*) "
                        "from inc.marts.fct_fio_results").fetchone()
    assert after == (0, before[1])
    changed = {d for (d,) in con.execute(
        "select device_id from inc.intermediate.int_device_input_fingerprints where is_new_or_changed").fetchall()}
    assert "samsung_pm1725" in changed
    assert con.execute("select min(usd_per_iops * iops) from inc.marts.fct_device_capabilities "
                       "where device_id = 'samsung_pm1725' and usd_per_iops is not null").fetchone()[0] == pytest.approx(2400)


def _compare_marts(inc: Path, full: Path, incremental: list[str]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"attach '{inc}' as inc (read_only)")
    con.execute(f"attach '{full}' as ful (read_only)")
    marts = _relations(con, "ful", "marts")
    assert marts == _relations(con, "inc", "marts") and len(marts) > 15
    # the incremental models, and the ledgers of the by-run ones (the runs each was built for)
    ledgers = [t for t in _relations(con, "ful", "intermediate") if t.startswith("run_builds__")]
    assert ledgers == [t for t in _relations(con, "inc", "intermediate") if t.startswith("run_builds__")] and ledgers
    compared = [f"marts.{t}" for t in marts] + [f"intermediate.{m}" for m in incremental if m.startswith("int_")] + \
        [f"intermediate.{t}" for t in ledgers]
    counts = {name: con.execute(f"select count(*) from inc.{name}").fetchone()[0] for name in compared}
    assert counts == {name: con.execute(f"select count(*) from ful.{name}").fetchone()[0] for name in compared}
    mismatched = {name: _differences(con, f"inc.{name}", f"ful.{name}") for name in compared}
    assert {name: n for name, n in mismatched.items() if n} == {}
    return con


def test_one_new_run_into_a_compacted_lake_equals_a_full_build(tmp_path, monkeypatch):
    """Bundled data plus synthetic runs, the lake compacted (packs.py); one more synthetic run:
    ingest (which packs it again), the incremental update, and a fresh full build give the same
    marts, row for row; and the update selected only the new run (is_new_or_changed)."""
    from iopscope.synth.generate import generate, plan

    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    monkeypatch.setenv("IOPSCOPE_DUCKDB_THREADS", "1")
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "1")   # every ingest packs what it wrote
    raw = tmp_path / "raw"
    generate(raw, 6, seed=7, bundled=ROOT / "data" / "raw")
    paths = Paths(root=ROOT, raw=raw, lake=tmp_path / "lake",
                  warehouse=tmp_path / "incremental" / "iopscope.duckdb", dist=tmp_path / "dist")
    first = Ingestor(paths.raw, paths.lake).run()
    assert not first.failed and first.compaction.packs_written >= 3   # measured, published, synthetic
    assert pipeline.build_warehouse(paths, run_tests=False) == "full"
    incremental = _incremental_models(paths.lake.parent / "target")

    generate(raw, 7, seed=7, start=6)
    report = Ingestor(paths.raw, paths.lake).run()
    assert report.runs_ingested == 1 and report.compaction.runs_packed >= 1
    assert not [p for p in paths.lake.rglob("run-*.parquet")], "the new run was packed"
    assert pipeline.build_warehouse(paths, run_tests=False) == "incremental"
    built = paths.warehouse.stat().st_mtime_ns
    # nothing ingested since: no dbt at all, the warehouse untouched
    assert pipeline.build_warehouse(paths, run_tests=False) == "unchanged"
    assert paths.warehouse.stat().st_mtime_ns == built

    fresh = dataclasses.replace(paths, warehouse=tmp_path / "full" / "iopscope.duckdb")
    assert pipeline.build_warehouse(fresh, run_tests=False) == "full"
    con = _compare_marts(paths.warehouse, fresh.warehouse, incremental)
    new_run = plan(7, 7)[6]
    flagged = con.execute("select run_id from inc.intermediate.int_run_fingerprints where is_new_or_changed").fetchall()
    assert flagged == [(new_run.run_id,)]
    # and of the devices, only the new run's: the comparison marts paired again only its rows
    devices = con.execute("select device_id from inc.intermediate.int_device_fingerprints where is_new_or_changed").fetchall()
    assert devices == [(new_run.campaign.device_id,)]


def test_a_full_build_leaves_the_unit_tests_to_make_test(tmp_path, monkeypatch):
    """The full build runs every model and data test but not the unit tests (they check SQL on
    fixed rows, whatever the lake: `make test` runs them) unless asked; the incremental update
    runs models only."""
    calls = []

    def fake_dbt(paths, args, prepare):
        prepare()
        calls.append(args)
        paths.warehouse.write_bytes(b"built")

    monkeypatch.setattr(pipeline, "_run_dbt", fake_dbt)
    paths = dataclasses.replace(Paths.default(), lake=tmp_path / "lake", warehouse=tmp_path / "wh" / "w.duckdb")
    paths.lake.mkdir()
    assert pipeline.build_warehouse(paths, full=True) == "full"
    assert pipeline.build_warehouse(paths, full=True, unit_tests=True) == "full"
    (paths.lake / "_state.json").write_text("{}")  # the lake changed: an update, not "unchanged"
    assert pipeline.build_warehouse(paths) == "incremental"
    assert calls[:2] == [["build", "--exclude-resource-type", "unit_test"], ["build"]]
    # the update, with the options that log its statements for the next update's replay
    assert calls[2][:3] == ["run", "--exclude", "config.materialized:view"] and "--log-format-file" in calls[2]


def test_the_build_stamp_carries_the_generation_of_the_committed_file(tmp_path, monkeypatch):
    """iopscope/build_stamp.py: a full build draws a new generation, an update carries it on,
    and only from the very file the last build committed: a file written since by anything
    else gets a new one at the next update, and no generation until then."""
    from iopscope import build_stamp

    def fake_dbt(paths, args, prepare):
        prepare()
        paths.warehouse.write_bytes(b"built by " + " ".join(args).encode())

    monkeypatch.setattr(pipeline, "_run_dbt", fake_dbt)
    paths = dataclasses.replace(Paths.default(), lake=tmp_path / "lake", warehouse=tmp_path / "wh" / "w.duckdb")
    paths.lake.mkdir()
    state = paths.lake / "_state.json"

    def lake_changes(n):
        state.write_text(json.dumps({"n": n}))  # another lake state: an update, not "unchanged"

    assert pipeline.build_warehouse(paths, full=True) == "full"
    first = build_stamp.committed_generation(paths.warehouse)
    assert first and first.startswith(pipeline.warehouse_build_key(paths) + "/")
    lake_changes(1)
    assert pipeline.build_warehouse(paths) == "incremental"
    assert build_stamp.committed_generation(paths.warehouse) == first
    assert pipeline.build_warehouse(paths, full=True) == "full"
    second = build_stamp.committed_generation(paths.warehouse)
    assert second not in (None, first)

    paths.warehouse.write_bytes(b"written by someone else")  # e.g. plain dbt on the live file
    assert build_stamp.committed_generation(paths.warehouse) is None
    lake_changes(2)
    assert pipeline.build_warehouse(paths) == "incremental"
    third = build_stamp.committed_generation(paths.warehouse)
    assert third not in (None, first, second), "an update of a file nobody stamped starts a generation"

    wal = paths.warehouse.with_name(paths.warehouse.name + ".wal")
    wal.write_bytes(b"log")
    assert build_stamp.committed_generation(paths.warehouse) is None, "file and log are not the file committed"
    wal.unlink()
    build_stamp.path(paths.warehouse).write_text(json.dumps({"build_key": "k", "lake_key": "l"}))  # before generations
    assert build_stamp.committed_generation(paths.warehouse) is None


def test_dbt_starts_before_its_warehouse_file_is_ready_and_waits_for_it(tmp_path, monkeypatch):
    """pipeline._run_dbt starts dbt (whose import is most of its start) while ``prepare`` readies
    the work file (an update's copy of the warehouse), and lets it run only once ``prepare``
    returned; when ``prepare`` fails, dbt exits without doing anything and the error is the
    caller's."""
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    paths = dataclasses.replace(Paths.default(), warehouse=tmp_path / "wh" / "w.duckdb")
    seen = []

    def prepare():
        seen.append(sorted(p.name for p in tmp_path.iterdir()))   # dbt has written nothing yet
        (tmp_path / "ready").touch()

    pipeline._run_dbt(paths, ["parse"], prepare=prepare)
    assert seen == [["wh"]]
    assert (tmp_path / "target" / "manifest.json").is_file(), "dbt ran once the file was ready"

    shutil.rmtree(tmp_path / "target", ignore_errors=True)
    shutil.rmtree(tmp_path / "logs", ignore_errors=True)

    def failing():
        raise OSError("no space left for the copy")

    with pytest.raises(OSError, match="no space left"):
        pipeline._run_dbt(paths, ["parse"], prepare=failing)
    assert not (tmp_path / "target").exists() and not (tmp_path / "logs").exists(), "dbt did not run"

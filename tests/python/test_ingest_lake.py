"""The ingest layer's guarantees: nothing lost, nothing corrupted, no work repeated."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import stat
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from iopscope import dbt_sources, lake as lake_mod
from iopscope.ingest import Ingestor, discover_runs

THIN_SLICE = ROOT / "data" / "raw" / "measured" / "2026-11-21-vm2-vda-fio-database-thin-slice"
FIO_JSON = (THIN_SLICE / "fio.json").read_text()

MANIFEST = """\
schema_version = 1
run_id = "{run_id}"
kind = "measured"
tools = ["fio"]

[[devices]]
kernel_name = "vda"
role = "data"
"""


def make_tree(root: Path) -> Path:
    raw = root / "raw"
    good = raw / "measured" / "good"
    good.mkdir(parents=True)
    (good / "run.toml").write_text(MANIFEST.format(run_id="good-run"))
    (good / "fio.json").write_text(FIO_JSON)
    loose = raw / "old-logs" / "2019"
    loose.mkdir(parents=True)
    (loose / "result.json").write_text(FIO_JSON)
    broken = raw / "measured" / "broken"
    broken.mkdir(parents=True)
    (broken / "run.toml").write_text(MANIFEST.format(run_id="broken-run"))
    (broken / "cut.json").write_text(FIO_JSON[: len(FIO_JSON) // 2])
    (broken / "notes.bin").write_text("this is no benchmark output\nat all\n")
    return raw


def lake_digest(lake: Path) -> dict[str, str]:
    return {str(p.relative_to(lake)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(lake.rglob("*")) if p.is_file() and p.name != ".lock"}


def test_discover_runs_by_manifest_and_folder(tmp_path):
    raw = make_tree(tmp_path)
    runs = {r.rel_dir: r for r in discover_runs(raw)}
    assert set(runs) == {"measured/good", "measured/broken", "old-logs/2019"}
    assert runs["old-logs/2019"].manifest_path is None
    assert runs["measured/good"].collection == "measured"


def test_bad_files_are_recorded_and_the_batch_goes_on(tmp_path):
    raw = make_tree(tmp_path)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 3
    assert report.failed
    reasons = {str(e) for e in report.errors}
    assert any(r.startswith("measured/broken/cut.json:") and "cut short" in r for r in reasons), reasons
    assert any("measured/broken/notes.bin" in r and "no parser recognizes" in r for r in reasons), reasons
    con = duckdb.connect()
    glob = f"{tmp_path}/lake/{{}}/*/*.parquet"
    jobs = con.sql(f"select run_id, count(*) from read_parquet('{glob.format('fio_jobs')}', hive_partitioning=true) "
                   "group by run_id order by run_id").fetchall()
    # The good run and the manifest-less folder are complete; the cut file kept nothing or part.
    counts = dict(jobs)
    assert counts["good-run"] == 8 and counts["old-logs/2019"] == 8
    errors = con.sql(f"select source_path, line, reason from read_parquet('{glob.format('ingest_errors')}')").fetchall()
    assert any(path == "measured/broken/cut.json" and line and line > 1 for path, line, _ in errors)
    runs = con.sql(f"select run_id, has_manifest, run_kind from read_parquet('{glob.format('runs')}') order by 1").fetchall()
    assert ("old-logs/2019", False, None) in runs


def test_reingest_unchanged_does_no_work_and_is_byte_identical(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    before = lake_digest(tmp_path / "lake")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.files_parsed == 0 and report.runs_unchanged == 3
    assert lake_digest(tmp_path / "lake") == before
    # Errors of unchanged runs are still reported: the exit status stays honest.
    assert report.failed


def test_changed_file_reparses_only_its_run(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    (raw / "measured" / "broken" / "cut.json").write_text(FIO_JSON)
    (raw / "measured" / "broken" / "notes.bin").unlink()
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 1 and report.runs_unchanged == 2
    assert not report.failed


def test_removed_run_leaves_the_lake(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    shutil.rmtree(raw / "old-logs")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_removed == 1
    left = duckdb.sql(f"select distinct run_id from read_parquet('{tmp_path}/lake/fio_jobs/*/*.parquet')").fetchall()
    assert ("old-logs/2019",) not in left


def test_raw_files_are_never_written(tmp_path):
    raw = make_tree(tmp_path)
    for path in raw.rglob("*"):
        if path.is_file():
            path.chmod(stat.S_IRUSR)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in raw.rglob("*") if p.is_file()}
    Ingestor(raw, tmp_path / "lake").run()
    assert before == {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in raw.rglob("*") if p.is_file()}


def test_crash_mid_write_keeps_the_previous_part(tmp_path, monkeypatch):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    before = lake_digest(tmp_path / "lake")
    (raw / "measured" / "good" / "fio.json").write_text(FIO_JSON.replace('"iops" :', '"iops" :  '))

    def exploding_write(table, where, **kwargs):
        Path(where).write_bytes(b"half a parquet file")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(lake_mod.pq, "write_table", exploding_write)
    with pytest.raises(OSError):
        Ingestor(raw, tmp_path / "lake").run()
    after = lake_digest(tmp_path / "lake")
    assert {k: v for k, v in after.items() if k != "_state.json"} == \
           {k: v for k, v in before.items() if k != "_state.json"}
    assert not [p for p in (tmp_path / "lake").rglob(".tmp-*")], "temp files left behind"


def _ingest_in_process(raw: str, lake: str) -> int:
    report = Ingestor(Path(raw), Path(lake), force=True).run()
    return report.runs_ingested


def test_concurrent_ingests_do_not_corrupt_the_lake(tmp_path):
    raw = make_tree(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.starmap(_ingest_in_process, [(str(raw), str(tmp_path / "lake"))] * 2)
    assert results == [3, 3]
    for part in (tmp_path / "lake").rglob("*.parquet"):
        pq.read_table(part)  # every file is a whole Parquet file
    json.loads((tmp_path / "lake" / "_state.json").read_text())


def test_generated_dbt_sources_are_current():
    path = dbt_sources.target(ROOT)
    assert path.read_text(encoding="utf-8") == dbt_sources.render(), \
        "models/staging/_lake__sources.yml is stale: run python -m iopscope.dbt_sources"


def test_every_table_has_a_schema_file(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    from iopscope import tables
    for name in tables.ALL:
        assert (tmp_path / "lake" / name / "collection=_schema" / "schema.parquet").is_file(), name

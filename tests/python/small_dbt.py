"""A small dbt project over the lake for tests that run (and kill) many warehouse builds.

The repository's project takes 40-90 s per build here; this one (a view over the lake, an
incremental model, four table models, the repository's profiles.yml) takes a few seconds, and
`pipeline.build_warehouse` treats it exactly as it treats the real one.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

from conftest import ROOT

PROJECT = {
    "dbt_project.yml": """\
name: crashproj
version: "1.0.0"
config-version: 2
profile: iopscope
model-paths: ["models"]
target-path: "target"
models:
  crashproj:
    +materialized: table
""",
    "models/stg_jobs.sql": """\
{{ config(materialized='view') }}
select run_id, direction, iodepth, block_size_bytes, source_path
from read_parquet('{{ env_var("IOPSCOPE_LAKE") }}/fio_jobs/*/*.parquet', hive_partitioning = true, union_by_name = true)
""",
    "models/inc_jobs.sql": """\
{{ config(materialized='incremental', unique_key='run_id', incremental_strategy='delete+insert') }}
select * from {{ ref('stg_jobs') }}
{% if is_incremental() %} where run_id not in (select run_id from {{ this }}) {% endif %}
""",
    **{f"models/jobs_by_{column}.sql": f"""\
select {column}, direction, count(*) as jobs, count(distinct run_id) as runs
from {{{{ ref('inc_jobs') }}}} group by all
""" for column in ("run_id", "iodepth", "block_size_bytes", "source_path")},
}

SWEEP_RUNS = sorted((ROOT / "data" / "raw" / "measured").glob("*/0[0-9][0-9]-*"))


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copyfile(ROOT / "profiles.yml", root / "profiles.yml")
    return root


def iopscope_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest")}
    env.pop("IOPSCOPE_HOME", None)
    return {**env, **extra}


IOPSCOPE = (sys.executable, "-m", "iopscope.cli")   # this checkout's code (PYTHONPATH from iopscope_env)


def iopscope(*args: str, env: dict[str, str], stdin=None) -> subprocess.Popen:
    return subprocess.Popen([*IOPSCOPE, *args], env=env, stdin=stdin,
                            stdout=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def warehouse_rows(path: Path) -> dict[str, list]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() order by 1").fetchall()]
        return {n: sorted(map(repr, con.execute(f'select * from "{n}"').fetchall())) for n in names}
    finally:
        con.close()




@dataclasses.dataclass
class Setup:
    raw: Path
    lake: Path
    warehouse: Path
    env: dict[str, str]

    @property
    def where(self) -> tuple[str, ...]:
        return ("--raw", str(self.raw), "--lake", str(self.lake), "--warehouse", str(self.warehouse))

    def clone(self, folder: Path) -> "Setup":
        """A copy in ``folder`` (raw, lake, warehouse and its stamp) sharing the dbt project:
        one build serves several tests. The lake's path is part of the build key, so the
        clone's first build is a full one."""
        copy = Setup(folder / "raw", folder / "lake", folder / "wh" / self.warehouse.name, self.env)
        shutil.copytree(self.raw, copy.raw)
        shutil.copytree(self.lake, copy.lake)
        copy.warehouse.parent.mkdir(parents=True)
        shutil.copyfile(self.warehouse, copy.warehouse)
        return copy

    def add_runs(self, runs: list[Path]) -> None:
        for run in runs:
            shutil.copytree(run, self.raw / "measured" / run.name)


def built(tmp_path: Path, runs: list[Path]) -> Setup:
    """``runs`` ingested into a private lake and built (full) into a private warehouse."""
    from iopscope.ingest import Ingestor

    setup = Setup(tmp_path / "raw", tmp_path / "lake", tmp_path / "wh" / "iopscope.duckdb",
                  iopscope_env(IOPSCOPE_HOME=str(project(tmp_path)), IOPSCOPE_DUCKDB_THREADS="1",
                               DBT_TARGET_PATH=str(tmp_path / "target"), DBT_LOG_PATH=str(tmp_path / "logs")))
    setup.add_runs(runs)
    assert not Ingestor(setup.raw, setup.lake).run().failed
    assert iopscope("dbt", "--update", *setup.where, env=setup.env).wait() == 0
    return setup

"""Build the warehouse on Apache Spark (dbt-spark), then hand its marts to the site as DuckDB.

The dbt project is the same on both engines (profiles.yml target ``spark``; engine-specific SQL
sits behind dispatch macros in macros/). On Spark every table is a folder of Parquet files under
the Spark warehouse directory (``$IOPSCOPE_SPARK_WAREHOUSE``, default ``<warehouse dir>/spark``)
with a Derby metastore beside it.

The site reads one DuckDB file. After a Spark build, :func:`load_marts` copies every mart's
Parquet folder into a fresh DuckDB file (schema ``marts``) and renames it over the warehouse, so
the site builds the same way whichever engine built the marts. :func:`export_marts` writes the
marts of a DuckDB warehouse as Parquet, the same layout a Spark build leaves.

dbt-spark and pyspark live in their own virtual environment (``.venv-spark``, ``make spark-deps``)
so the default install stays small; this module runs that environment's dbt when the current one
lacks the Spark adapter.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from iopscope.paths import Paths
from iopscope.warehouse import connect

SPARK_VENV = ".venv-spark"
MARTS_SCHEMA = "marts"


class SparkUnavailable(RuntimeError):
    pass


def spark_warehouse_dir(paths: Paths) -> Path:
    return Path(os.environ.get("IOPSCOPE_SPARK_WAREHOUSE", paths.warehouse.parent / "spark")).resolve()


def dbt_executable(root: Path) -> Path:
    """dbt of an environment that has dbt-spark: this one, else the project's .venv-spark."""
    here = Path(sys.executable).parent / "dbt"
    if here.exists() and importlib.util.find_spec("dbt.adapters.spark") is not None:
        return here
    there = root / SPARK_VENV / "bin" / "dbt"
    if there.exists():
        return there
    raise SparkUnavailable(f"dbt-spark is not installed: run `make spark-deps` (creates {SPARK_VENV}/)")


def java_available() -> bool:
    java_home = os.environ.get("JAVA_HOME")
    return bool(shutil.which("java") or (java_home and (Path(java_home) / "bin" / "java").exists()))


def spark_env(paths: Paths, base: dict[str, str]) -> dict[str, str]:
    env = dict(base)
    env["IOPSCOPE_SPARK_WAREHOUSE"] = str(spark_warehouse_dir(paths))
    # The driver and its Python workers must be the Spark environment's interpreter.
    dbt = dbt_executable(paths.root)
    env["PATH"] = str(dbt.parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("PYSPARK_PYTHON", str(dbt.parent / "python"))
    return env


def dbt(paths: Paths, args: list[str]) -> None:
    """Run dbt with the ``spark`` target (the session method starts Spark inside dbt's process)."""
    from iopscope.pipeline import StageError, child_env

    if not java_available():
        raise SparkUnavailable("Spark needs Java 17: apt-get install openjdk-17-jre-headless")
    exe = dbt_executable(paths.root)
    spark_warehouse_dir(paths).mkdir(parents=True, exist_ok=True)
    cmd = [str(exe), *args, "--target", "spark", "--project-dir", str(paths.root), "--profiles-dir", str(paths.root)]
    proc = subprocess.run(cmd, cwd=paths.root, env=spark_env(paths, child_env(paths)))
    if proc.returncode != 0:
        raise StageError(f"dbt {' '.join(args)} --target spark failed (exit {proc.returncode})")


def build_warehouse(paths: Paths, run_tests: bool = True) -> str:
    """Full build on Spark (``dbt build --full-refresh``), then the marts into the DuckDB warehouse.

    Always full: Parquet tables cannot delete rows, so the incremental-by-run models (which
    delete stale runs first) are rebuilt whole on Spark (macros/incremental_runs.sql)."""
    from iopscope.lake import Lake
    from iopscope.pipeline import warehouse_lock

    # The same locks as a DuckDB build: one warehouse build at a time, no ingest while dbt reads.
    with warehouse_lock(paths), Lake(paths.lake).reading(purpose="warehouse build (spark)"):
        dbt(paths, ["build" if run_tests else "run", "--full-refresh"])
        load_marts(spark_warehouse_dir(paths) / f"{MARTS_SCHEMA}.db", paths.warehouse)
    return "full (spark)"


def mart_folders(marts_dir: Path) -> dict[str, Path]:
    """Each mart's Parquet folder (a table dbt-spark wrote), by table name."""
    return {folder.name: folder for folder in sorted(marts_dir.iterdir())
            if folder.is_dir() and any(folder.glob("*.parquet"))}


def load_marts(marts_dir: Path, warehouse: Path) -> None:
    """Copy every mart's Parquet folder into a fresh DuckDB file and rename it over ``warehouse``.

    The warehouse's build stamp is removed: the file holds marts only, so the next DuckDB build
    must be a full one, not an incremental run on top of it."""
    from iopscope.pipeline import BUILD_STAMP_SUFFIX

    folders = mart_folders(marts_dir)
    if not folders:
        raise RuntimeError(f"no marts under {marts_dir}: did the Spark build run?")
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    fresh = warehouse.with_name(warehouse.name + ".new")
    fresh.unlink(missing_ok=True)
    con = connect(fresh, read_only=False)
    try:
        con.execute(f"create schema {MARTS_SCHEMA}")
        for name, folder in folders.items():
            glob = str(folder / "*.parquet").replace("'", "''")
            con.execute(f'create table {MARTS_SCHEMA}."{name}" as select * from read_parquet(\'{glob}\')')
    finally:
        con.close()
    warehouse.with_name(warehouse.name + BUILD_STAMP_SUFFIX).unlink(missing_ok=True)
    warehouse.with_name(warehouse.name + ".wal").unlink(missing_ok=True)
    os.replace(fresh, warehouse)


def export_marts(warehouse: Path, out_dir: Path) -> list[str]:
    """Write every mart of a DuckDB warehouse as ``<out_dir>/<mart>/part-0.parquet``."""
    con = connect(warehouse)
    try:
        names = [row[0] for row in con.execute(
            "select table_name from information_schema.tables where table_schema = ? order by 1",
            [MARTS_SCHEMA]).fetchall()]
        for name in names:
            folder = out_dir / name
            folder.mkdir(parents=True, exist_ok=True)
            target = str(folder / "part-0.parquet").replace("'", "''")
            con.execute(f'copy {MARTS_SCHEMA}."{name}" to \'{target}\' (format parquet)')
    finally:
        con.close()
    return names

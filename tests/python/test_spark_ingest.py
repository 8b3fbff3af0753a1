"""`iopscope ingest --engine spark` writes the lake a local ingest writes.

The bundled data/raw is ingested twice into two lakes, locally and on Spark local[2] executors:
the same part files (names), the same rows in every table (each part compared as a table,
ignoring nothing), the same state entries (files with their hashes, tables, errors). A second
Spark ingest finds every run unchanged and rewrites nothing.

Needs Java 17 and .venv-spark (`make spark-deps`); `make test-spark` runs it.
"""

from __future__ import annotations

import os
import subprocess

import pyarrow.parquet as pq

from conftest import ROOT
from spark_support import SPARK_BIN, spark_marks
from iopscope.ingest import Ingestor
from iopscope.lake import Lake

SPARK_IOPSCOPE = SPARK_BIN / "iopscope"

pytestmark = spark_marks("iopscope")


def _parts(lake):
    return sorted(p.relative_to(lake).as_posix() for p in lake.rglob("*.parquet"))


def _spark_ingest(raw, lake):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest")}
    return subprocess.run(["nice", "-n", "19", str(SPARK_IOPSCOPE), "ingest", "--engine", "spark", "--quiet",
                           "--raw", str(raw), "--lake", str(lake)],
                          cwd=ROOT, env=env, capture_output=True, text=True)


def _entries(lake):
    """State entries without mtimes (each ingest reads the same files, the mtimes are equal anyway)."""
    runs = Lake(lake).load_state()["runs"]
    return {key: {**entry, "files": {name: v[:2] for name, v in (entry["files"] or {}).items()}}
            for key, entry in runs.items()}


def test_spark_ingest_writes_the_lake_a_local_ingest_writes(tmp_path):
    raw = ROOT / "data" / "raw"
    local, spark = tmp_path / "local", tmp_path / "spark"
    report = Ingestor(raw, local).run()

    proc = _spark_ingest(raw, spark)
    assert proc.returncode == (1 if report.errors else 0), (proc.stdout + proc.stderr)[-4000:]
    assert f"{report.runs_seen} runs ({report.runs_ingested} parsed" in proc.stderr, proc.stderr[-2000:]

    assert _parts(spark) == _parts(local)
    for part in _parts(local):
        assert pq.read_table(spark / part).equals(pq.read_table(local / part)), part
    assert _entries(spark) == _entries(local)

    again = _spark_ingest(raw, spark)
    assert again.returncode == proc.returncode, again.stderr[-2000:]
    assert f"0 parsed, {report.runs_seen} unchanged" in again.stderr, again.stderr[-2000:]

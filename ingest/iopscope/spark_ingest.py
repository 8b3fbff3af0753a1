"""``iopscope ingest --engine spark``: the parsers run on Spark executors, one task per run.

The lake is the same as a local ingest's, with the same guarantees, because the work of one run
is the local ingest's own code (``Ingestor._ingest_run``: hash the run's files, skip it when
unchanged, parse every file with the pure parsers, type every table, write each part atomically,
record unreadable files in ``ingest_errors``), only called on an executor:

  driver     ``Ingestor.run`` itself, with the per-run step deferred: lock, schema files, parser
             fingerprint, run discovery, removal of vanished runs;
  executors  one task per run: ``_ingest_run`` against that run's previous state entry;
  driver     under the lock again: each changed run's new entry recorded in the state journal,
             in run order, and the task reports summed.

A run is written whole by one task, so two tasks never write the same file; a task that dies
leaves that run's previous parts and state entry (its parts are renamed into place only when
complete), and the next ingest parses it again. Executors must see the raw tree and the lake at
the same paths (one machine, or a shared filesystem; docs/scale-out.md).

Needs pyspark (``make spark-deps``); the ``iopscope`` command re-runs itself in .venv-spark when
the current environment has no pyspark.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable

from iopscope import compaction
from iopscope.ingest import Ingestor, IngestReport, RunFolder

_REPORT_COUNTS = ("runs_ingested", "runs_unchanged", "files_parsed", "rows_written", "bytes_parsed")


def ingest_run_task(raw_root: str, lake_root: str, force: bool, run: RunFolder,
                    previous: dict | None) -> tuple[str, dict | None, bool, IngestReport]:
    """One run on an executor: (run key, its new state entry, whether it changed, its report)."""
    ingestor = Ingestor(Path(raw_root), Path(lake_root), force=force)
    state: dict[str, Any] = {"runs": {} if previous is None else {run.key: previous}}
    report = IngestReport()
    changed = ingestor._ingest_run(run, state, report)
    return run.key, state["runs"].get(run.key), changed, report


class SparkIngestor(Ingestor):
    def __init__(self, raw_root: Path, lake_root: Path, spark, force: bool = False, **kwargs) -> None:
        super().__init__(raw_root, lake_root, force=force, **kwargs)
        self.spark = spark
        self._pending: list[RunFolder] = []

    def _ingest_run(self, run: RunFolder, state: dict, report: IngestReport, batch=None) -> bool:
        # Inside Ingestor.run: defer the run to the executors, change nothing yet. The executors
        # write parts (no shared pack writer across them): ``batch`` stays empty, and the
        # compaction at the end packs a collection past the threshold as before.
        self._pending.append(run)
        return False

    def run(self, only: Iterable[Path] | None = None) -> IngestReport:
        self._pending = []
        report = super().run(only)
        if not self._pending:
            return report
        with self.lake.locked(self.wait_s):
            state = self.lake.load_state()
            tasks = [(str(self.raw_root), str(self.lake.root), self.force, run, state["runs"].get(run.key))
                     for run in self._pending]
            context = self.spark.sparkContext
            results = (context.parallelize(tasks, numSlices=min(len(tasks), 4 * context.defaultParallelism))
                       .map(lambda task: ingest_run_task(*task))
                       .collect())
            for key, entry, changed, run_report in results:
                if changed:
                    state["runs"][key] = entry
                    self.lake.record_run(state, key)
                for name in _REPORT_COUNTS:
                    setattr(report, name, getattr(report, name) + getattr(run_report, name))
                report.errors.extend(run_report.errors)
                report.warnings.extend(run_report.warnings)
            report.compaction = compaction.finish(self.lake, state)   # as Ingestor.run ends
        return report


def spark_session(app_name: str = "iopscope-ingest"):
    """A Spark session on ``$IOPSCOPE_SPARK_MASTER`` (default local[2]). On a cluster the
    iopscope package is shipped to the executors as a zip."""
    from pyspark.sql import SparkSession

    master = os.environ.get("IOPSCOPE_SPARK_MASTER", "local[2]")
    # Python workers run this interpreter (the one with pyspark and iopscope), not the first
    # python3 on PATH; a cluster names its own with PYSPARK_PYTHON.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(master).appName(app_name)
             .config("spark.ui.enabled", "false")
             .config("spark.python.worker.reuse", "true")
             .getOrCreate())
    if not master.startswith("local"):
        package = Path(__file__).resolve().parent
        archive = shutil.make_archive(str(Path(tempfile.mkdtemp()) / "iopscope"), "zip", package.parent, package.name)
        spark.sparkContext.addPyFile(archive)
    return spark


def ingest(raw: Path, lake: Path, only: list[Path] | None = None, force: bool = False) -> IngestReport:
    spark = spark_session()
    try:
        return SparkIngestor(raw, lake, spark, force=force).run(only)
    finally:
        spark.stop()


def pyspark_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspark") is not None


def spark_python(root: Path) -> Path | None:
    """The interpreter of .venv-spark, when there is one."""
    python = root / ".venv-spark" / "bin" / "python"
    return python if python.exists() else None

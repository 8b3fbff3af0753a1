"""The build pipeline: raw -> lake (ingest) -> warehouse (dbt build) -> site (Framework).

Each stage is a function that can run alone; :func:`build` runs them in order with a
progress display. Child processes get a closed-world environment: no telemetry, no
anonymous usage stats, no extension downloads.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from iopscope.ingest import IngestReport, Ingestor
from iopscope.paths import Paths

console = Console(stderr=True, highlight=False)


class StageError(RuntimeError):
    pass


def child_env(paths: Paths) -> dict[str, str]:
    env = dict(os.environ)
    env.update(paths.env())
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"
    env["DO_NOT_TRACK"] = "1"
    env["OBSERVABLE_TELEMETRY_DISABLE"] = "true"
    env.setdefault("DBT_LOG_PATH", str(paths.root / "logs"))
    env.setdefault("DBT_TARGET_PATH", str(paths.root / "target"))
    return env


def ingest(paths: Paths, only: list[Path] | None = None, force: bool = False,
           show_progress: bool = True) -> IngestReport:
    with Progress(TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not show_progress) as progress:
        task = progress.add_task("", total=None)

        def on_progress(i: int, n: int, name: str) -> None:
            progress.update(task, completed=i, total=n, description=name[-60:])

        report = Ingestor(paths.raw, paths.lake, force=force, on_progress=on_progress).run(only)
    return report


def print_ingest_report(report: IngestReport, elapsed_s: float) -> None:
    console.print(
        f"ingest: {report.runs_seen} runs ({report.runs_ingested} parsed, {report.runs_unchanged} unchanged, "
        f"{report.runs_removed} removed), {report.files_parsed} files, "
        f"{report.bytes_parsed / 1e6:.1f} MB, {report.rows_written} rows in {elapsed_s:.1f} s"
    )
    for w in report.warnings[:20]:
        console.print(f"  [yellow]warning[/] {w}", markup=True)
    if len(report.warnings) > 20:
        console.print(f"  ... and {len(report.warnings) - 20} more warnings (see table ingest_errors)")
    for e in report.errors:
        console.print(f"  [red]error[/] {e}", markup=True)


def dbt(paths: Paths, args: list[str]) -> None:
    """Run dbt in the project with the repo's profiles.yml."""
    exe = Path(sys.executable).parent / "dbt"
    if not exe.exists():
        exe = Path(shutil.which("dbt") or "dbt")
    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(exe), *args, "--project-dir", str(paths.root), "--profiles-dir", str(paths.root)]
    proc = subprocess.run(cmd, cwd=paths.root, env=child_env(paths))
    if proc.returncode != 0:
        raise StageError(f"dbt {' '.join(args)} failed (exit {proc.returncode})")


# What a warehouse was built from, beside it: <warehouse>.build.json = {"build_key": ...}.
BUILD_STAMP_SUFFIX = ".build.json"
# Everything dbt reads besides the lake's data: a change here can change any row.
_PROJECT_INPUTS = ("dbt_project.yml", "profiles.yml", "models", "macros", "tests/dbt")


def warehouse_build_key(paths: Paths) -> str:
    """Hash of the dbt project's files and the lake's parser fingerprint.

    Incremental models only rebuild runs whose raw files changed; they cannot know that a model's
    SQL or a parser changed for every run. When this key differs from the one the warehouse was
    built with, the next build is a full one.
    """
    digest = hashlib.sha256()
    for name in _PROJECT_INPUTS:
        top = paths.root / name
        files = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
        for file in files:
            if file.is_file():
                digest.update(file.relative_to(paths.root).as_posix().encode() + b"\0")
                digest.update(file.read_bytes() + b"\0")
    state = paths.lake / "_state.json"
    lake_fingerprint = json.loads(state.read_text()).get("fingerprint") if state.is_file() else None
    digest.update(json.dumps([str(paths.lake.resolve()), lake_fingerprint]).encode())
    return digest.hexdigest()[:16]


def _stamp_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + BUILD_STAMP_SUFFIX)


def _read_stamp(warehouse: Path) -> str | None:
    try:
        return json.loads(_stamp_path(warehouse).read_text()).get("build_key")
    except (OSError, ValueError):
        return None


def build_warehouse(paths: Paths, full: bool = False, run_tests: bool = True) -> str:
    """Bring the warehouse up to date with the lake; returns "incremental" or "full".

    incremental  the warehouse exists and was built by this very project and parser set:
                 `dbt run` of every model but the staging views. Incremental models read only
                 new and changed runs and drop vanished ones; every other model is rebuilt.
                 Data and unit tests do not run.
    full         anything else (or full=True): `dbt build` (every model and test) into a fresh
                 file beside the warehouse, renamed over it only when the build passed, so
                 readers never see a half-built file and the file does not grow from rebuild to
                 rebuild. A failed build leaves the old warehouse and the failed `<name>.new`.
                 run_tests=False makes it `dbt run` (tests of this function, which compare data).
    """
    key = warehouse_build_key(paths)
    warehouse = paths.warehouse
    if not full and warehouse.is_file() and _read_stamp(warehouse) == key:
        # Staging views are globs over the lake: new parts show through them without
        # re-creating them, and re-creating one binds every Parquet file of its table.
        dbt(paths, ["run", "--exclude", "path:models/staging"])
        return "incremental"
    fresh = warehouse.with_name(warehouse.name + ".new")
    for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
        leftover.unlink(missing_ok=True)
    dbt(dataclasses.replace(paths, warehouse=fresh), ["build" if run_tests else "run"])
    # dbt closes DuckDB cleanly, which checkpoints the write-ahead log into the file; a log
    # left over from an old crash must not be replayed onto the new file.
    old_wal = warehouse.with_name(warehouse.name + ".wal")
    old_wal.unlink(missing_ok=True)
    os.replace(fresh, warehouse)
    fresh_wal = fresh.with_name(fresh.name + ".wal")
    if fresh_wal.exists():
        os.replace(fresh_wal, old_wal)
    _stamp_path(warehouse).write_text(json.dumps({"build_key": key}) + "\n")
    return "full"


def site(paths: Paths) -> None:
    """Build the static site into dist/. Data-loader outputs are dropped (the warehouse may have
    changed and Framework only reruns a loader whose source file changed); the bundles of npm
    packages in the same cache are kept, so a rebuild does not re-bundle vega and DuckDB-WASM."""
    observable = paths.root / "node_modules" / ".bin" / "observable"
    if not observable.exists():
        raise StageError("node_modules is missing: run `make deps` (or npm ci) first")
    site_root = Path(os.environ.get("IOPSCOPE_SITE_ROOT", paths.root / "src"))
    if not site_root.is_absolute():
        site_root = paths.root / site_root
    shutil.rmtree(site_root / ".observablehq" / "cache" / "data", ignore_errors=True)
    proc = subprocess.run([str(observable), "build"], cwd=paths.root, env=child_env(paths))
    if proc.returncode != 0:
        raise StageError(f"site build failed (exit {proc.returncode})")


def build(paths: Paths, stages: tuple[str, ...] = ("ingest", "dbt", "site"), force: bool = False,
          engine: str = "duckdb") -> int:
    """Run the stages in order. Ingest errors are reported and the build goes on (exit 1 at the end)."""
    status = 0
    for number, stage in enumerate(stages, 1):
        console.rule(f"[bold]{number}/{len(stages)} {stage}")
        started = time.monotonic()
        if stage == "ingest":
            report = ingest(paths, force=force)
            print_ingest_report(report, time.monotonic() - started)
            if report.failed:
                status = 1
        elif stage == "dbt" and engine == "spark":
            from iopscope import spark_warehouse

            console.print(f"warehouse: {spark_warehouse.build_warehouse(paths)} build")
        elif stage == "dbt":
            mode = build_warehouse(paths, full=force)
            console.print(f"warehouse: {mode} build")
        elif stage == "site":
            site(paths)
        else:
            raise StageError(f"unknown stage {stage}")
        console.print(f"[green]done[/] {stage} in {time.monotonic() - started:.1f} s")
    return status

"""The build pipeline: raw -> lake (ingest) -> warehouse (dbt build) -> site (Framework).

Each stage is a function that can run alone; :func:`build` runs them in order with a
progress display. Child processes get a closed-world environment: no telemetry, no
anonymous usage stats, no extension downloads.
"""

from __future__ import annotations

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


def build(paths: Paths, stages: tuple[str, ...] = ("ingest", "dbt", "site"), force: bool = False) -> int:
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
        elif stage == "dbt":
            dbt(paths, ["build"])
        elif stage == "site":
            site(paths)
        else:
            raise StageError(f"unknown stage {stage}")
        console.print(f"[green]done[/] {stage} in {time.monotonic() - started:.1f} s")
    return status

"""The build pipeline: raw -> lake (ingest) -> warehouse (dbt build) -> site (Framework).

Each stage is a function that can run alone; :func:`build` runs them in order with a
progress display. Child processes get a closed-world environment: no telemetry, no
anonymous usage stats, no extension downloads.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import duckdb
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from iopscope import build_stamp, compaction, locks, raw_tree, update_replay
from iopscope import warehouse as wh
from iopscope.ingest import IngestReport, Ingestor
from iopscope.lake import WRITING_MARK, Lake
from iopscope.paths import Paths

# File names, error reasons and quoted file text are printed verbatim: no emoji codes (":x:"), and
# every such string goes through rich.markup.escape (a "[/red]" in a file must not be markup).
console = Console(stderr=True, highlight=False, emoji=False)


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
           show_progress: bool = True, wait_s: float | None = locks.DEFAULT_WAIT_S,
           ahead: "raw_tree.WalkAhead | None" = None) -> IngestReport:
    """Ingest the raw tree (or the runs ``only`` selects) into the lake; ``ahead``: the walk of
    the raw tree the command started before it imported this module (raw_tree.start)."""
    with Progress(TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not show_progress) as progress:
        task = progress.add_task("", total=None)

        shown = [0.0]

        def on_progress(i: int, n: int, name: str) -> None:
            # at most ten updates a second: one per run was a tenth of a no-op ingest of 10,000
            now = time.monotonic()
            if show_progress and (i == n or now - shown[0] >= 0.1):
                shown[0] = now
                progress.update(task, completed=i, total=n, description=escape(name[-60:]))

        report = Ingestor(paths.raw, paths.lake, force=force, on_progress=on_progress,
                          wait_s=wait_s).run(only, ahead=ahead)
    return report


def compact(paths: Paths, wait_s: float | None = locks.DEFAULT_WAIT_S) -> "compaction.CompactReport":
    """``iopscope compact``: every collection's loose runs into packs, now (docs/performance.md)."""
    lake = Lake(paths.lake)
    with lake.locked(wait_s, "compact"):
        state = lake.load_state()
        report = compaction.repair(lake, state) if lake.needs_sweep else compaction.CompactReport()
        return compaction.compact(lake, state, min_loose=1, report=report)


def repair_lake_if_needed(paths: Paths, wait_s: float | None = locks.DEFAULT_WAIT_S) -> None:
    """Before a warehouse build reads the lake: when the last writer died mid-way (its mark is
    still in .staging/), repair first (compaction.repair), so that dbt never reads a run's rows
    twice (a pack written beside the parts it replaces) or a pack's stale rows."""
    lake = Lake(paths.lake)
    if not (lake.staging / WRITING_MARK).exists():
        return
    with lake.locked(wait_s, "repair"):
        if lake.needs_sweep:
            compaction.repair(lake, lake.load_state())


def outside_raw_root(paths: Paths, only: list[Path]) -> list[tuple[Path, str]]:
    """The paths of ``iopscope ingest PATH...`` that cannot name runs, each with why: missing,
    or not under the raw root (ingest would otherwise find no run and silently do nothing)."""
    root = paths.raw.resolve()
    refused = []
    for path in only:
        resolved = path.resolve()
        if not resolved.exists():
            refused.append((path, "no such file or folder"))
        elif resolved != root and root not in resolved.parents:
            refused.append((path, f"is not under the raw root {root}"))
    return refused


def print_ingest_report(report: IngestReport, elapsed_s: float) -> None:
    console.print(
        f"ingest: {report.runs_seen} runs ({report.runs_ingested} parsed, {report.runs_unchanged} unchanged, "
        f"{report.runs_removed} removed), {report.files_parsed} files, "
        f"{report.bytes_parsed / 1e6:.1f} MB, {report.rows_written} rows in {elapsed_s:.1f} s"
    )
    packed = report.compaction
    if packed and (packed.packs_written or packed.runs_evicted):
        console.print(f"compaction: {packed.runs_packed} runs into {packed.packs_written} packs, "
                      f"{packed.runs_evicted} changed runs dropped from packs, {packed.files_removed} files removed")
    for w in report.warnings[:20]:
        console.print(f"  [yellow]warning[/] {escape(str(w))}", markup=True)
    if len(report.warnings) > 20:
        console.print(f"  ... and {len(report.warnings) - 20} more warnings (see table ingest_errors)")
    for e in report.errors:
        console.print(f"  [red]error[/] {escape(str(e))}", markup=True)


def _die_with_parent() -> None:
    """In the dbt child, before exec: die when iopscope dies (SIGKILL included), so no orphan
    dbt keeps writing a warehouse copy that the next build will remove."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


# dbt started before its warehouse file is ready: the child imports dbt (~2 s, most of dbt's
# start, and no file of the warehouse touched), then waits for "go" on its stdin and runs as the
# `dbt` command would; end of input instead means the parent gave up (the file could not be
# readied): it exits without running.
_DBT_WHEN_TOLD = """
import sys
from dbt.cli.main import cli
if sys.stdin.buffer.read(2) != b"go":
    sys.exit(0)
sys.argv[0] = "dbt"
sys.exit(cli())
"""


def _run_dbt(paths: Paths, args: list[str], prepare: Callable[[], None] | None = None) -> None:
    """``dbt <args>`` in the project, on the warehouse file ``paths.warehouse``. ``prepare()``,
    when given, readies that file (the update's copy of the warehouse: 1-3 s at 10,000 runs) and
    runs while dbt starts; dbt opens the file only after it returned."""
    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    tail = [*args, "--project-dir", str(paths.root), "--profiles-dir", str(paths.root)]
    preexec = _die_with_parent if sys.platform.startswith("linux") else None
    if importlib.util.find_spec("dbt") is None:   # dbt from PATH only: started when the file is ready
        if prepare:
            prepare()
        exe = Path(shutil.which("dbt") or "dbt")
        returncode = subprocess.run([str(exe), *tail], cwd=paths.root, env=child_env(paths), preexec_fn=preexec).returncode
    else:
        proc = subprocess.Popen([sys.executable, "-c", _DBT_WHEN_TOLD, *tail], cwd=paths.root, env=child_env(paths),
                                stdin=subprocess.PIPE, preexec_fn=preexec)
        with proc:
            try:
                if prepare:
                    prepare()
            except BaseException:
                with contextlib.suppress(OSError):
                    proc.stdin.close()   # end of input: dbt exits without running
                proc.wait()
                raise
            try:
                with contextlib.suppress(BrokenPipeError):   # it died while starting: its exit status says so
                    proc.stdin.write(b"go")
                    proc.stdin.close()
                returncode = proc.wait()
            except BaseException:   # interrupted (a signal): dbt goes down too, as subprocess.run does
                proc.kill()
                proc.wait()
                raise
    if returncode != 0:
        raise StageError(f"dbt {' '.join(args)} failed (exit {returncode})")


# dbt commands that change the warehouse: their copy replaces it when they succeed. Any other
# command (docs generate, compile, ls ...) also runs on a copy, which is then dropped: dbt-duckdb
# opens the file for writing, and the live file is only ever replaced, never written in place.
_WRITING_COMMANDS = {"build", "run", "seed", "snapshot", "run-operation", "test"}


def dbt(paths: Paths, args: list[str], wait_s: float | None = locks.DEFAULT_WAIT_S) -> None:
    """Run dbt in the project with the repo's profiles.yml, on a copy of the warehouse that
    replaces it only when dbt succeeds (see :func:`staged_warehouse`)."""
    repair_lake_if_needed(paths, wait_s)
    with warehouse_lock(paths, wait_s), Lake(paths.lake).reading(wait_s, "dbt " + " ".join(args[:1])):
        with staged_warehouse(paths.warehouse, copy=True) as work:
            _run_dbt(dataclasses.replace(paths, warehouse=work.path), args, prepare=work.prepare)
            work.commit = bool(args) and args[0] in _WRITING_COMMANDS


# -- one warehouse file, replaced whole
# Builders never write the live file: they work on <warehouse>.new (a copy, or a fresh file) and
# rename it over the live file when dbt succeeded. A reader (`iopscope sql`, the site's loaders)
# opens the live file read-only at any time and sees the last committed build; a build killed at
# any point leaves the live file as it was. Builders of one warehouse take <warehouse>.lock in
# turn; the next one removes what a killed one left (<name>.new and DuckDB's .wal / .tmp beside it).
WORK_SUFFIX = ".new"


def warehouse_lock(paths: Paths, wait_s: float | None = locks.DEFAULT_WAIT_S):
    warehouse = paths.warehouse
    return locks.hold(warehouse.with_name(warehouse.name + ".lock"), "warehouse build", wait_s=wait_s)


def work_files(warehouse: Path) -> list[Path]:
    """What a build leaves beside the warehouse while it runs (or when it was killed)."""
    work = warehouse.with_name(warehouse.name + WORK_SUFFIX)
    return [work, work.with_name(work.name + ".wal"), work.with_name(work.name + ".tmp")]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _clone(source: Path, target: Path) -> None:
    """Copy a file: a copy-on-write clone where the filesystem can (btrfs, XFS: instant), else
    a kernel-side copy (shutil uses sendfile on Linux)."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        try:
            fcntl.ioctl(dst.fileno(), 0x40049409, src.fileno())   # FICLONE
            return
        except OSError:
            pass
    shutil.copyfile(source, target)


@dataclasses.dataclass
class _Work:
    path: Path
    commit: bool = True
    prepare: Callable[[], None] | None = None   # readies the work file (the copy): call it before dbt opens the file
    prepared: bool = False


@contextlib.contextmanager
def staged_warehouse(warehouse: Path, copy: bool):
    """A work file beside ``warehouse`` (a copy of it when ``copy`` and it exists, else absent)
    that replaces it when the block ends normally and ``work.commit`` is still true. The block
    calls ``work.prepare()`` (which makes the copy) before anything opens the work file: while
    dbt starts, so the two overlap (_run_dbt). Hold :func:`warehouse_lock` around it. When the
    block raises, the work file stays for a look (a failed build's tables) until the next build
    removes it."""
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    for leftover in work_files(warehouse):
        _remove(leftover)
    work = _Work(work_files(warehouse)[0])

    def prepare() -> None:
        if work.prepared:
            return
        if copy and warehouse.is_file():
            _clone(warehouse, work.path)
            live_wal = warehouse.with_name(warehouse.name + ".wal")
            if live_wal.is_file():   # written in place by someone else and not checkpointed: keep it
                _clone(live_wal, work.path.with_name(work.path.name + ".wal"))
        work.prepared = True

    work.prepare = prepare
    yield work
    if work.commit and not work.prepared:
        raise RuntimeError("staged_warehouse: the block never readied the work file (work.prepare())")
    if not work.commit:
        for leftover in work_files(warehouse):
            _remove(leftover)
        return
    # dbt closes DuckDB cleanly, which checkpoints the write-ahead log into the file; a log
    # left over from an old crash must not be replayed onto the new file.
    old_wal = warehouse.with_name(warehouse.name + ".wal")
    old_wal.unlink(missing_ok=True)
    os.replace(work.path, warehouse)
    fresh_wal = work.path.with_name(work.path.name + ".wal")
    if fresh_wal.exists():
        os.replace(fresh_wal, old_wal)
    _remove(work_files(warehouse)[2])


# What a warehouse was built from, beside it: <warehouse>.build.json (iopscope/build_stamp.py).
BUILD_STAMP_SUFFIX = build_stamp.SUFFIX
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
    lake_fingerprint = Lake(paths.lake).parser_fingerprint()
    digest.update(json.dumps([str(paths.lake.resolve()), lake_fingerprint]).encode())
    return digest.hexdigest()[:16]


def lake_content_key(paths: Paths) -> str:
    """Hash of the lake's state: its snapshot and journal (lake.py) record every run, part and
    pack an ingest writes or removes, so an equal hash means the same Parquet rows."""
    digest = hashlib.sha256()
    for file in sorted(paths.lake.glob("_state*.json*")):
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# What a full build leaves out: the unit tests check the models' SQL on fixed rows, so their
# outcome does not depend on the lake and they cost the same ~30 thread-seconds at 100 runs as at
# 10,000 (a sixth of the full build at 10,000 runs, on its critical path: `dbt build` runs a
# model's unit tests before the model). `make test` runs them (`iopscope dbt test --select
# test_type:unit`) on every change of the project; `iopscope dbt --full --unit-tests` in a build.


# What an update runs: every model but the views. The build key guarantees the project is the
# one the copied warehouse was built by, so each view in it already has the very definition a
# run would give it (DuckDB binds a view's names when it is queried, so the tables rebuilt
# under it show through). Re-creating them cost 8 of the update's 52 dbt nodes, and a staging
# view over the lake's globs would bind every Parquet file of its table again.
UPDATE_ARGS = ["run", "--exclude", "config.materialized:view"]


def build_warehouse(paths: Paths, full: bool = False, run_tests: bool = True,
                    wait_s: float | None = locks.DEFAULT_WAIT_S, unit_tests: bool = False) -> str:
    """Bring the warehouse up to date with the lake; returns "unchanged", "incremental" or "full".

    unchanged    the warehouse was built by this project and parser set from this very lake
                 state (lake_content_key): nothing to do, dbt does not start (~5 CPU-s saved).

    incremental  the warehouse exists and was built by this very project and parser set:
                 `dbt run` of every model but the views (UPDATE_ARGS), on a copy of the warehouse.
                 Incremental models read only new and changed runs and drop vanished ones;
                 every other model is rebuilt. Data and unit tests do not run.
    full         anything else (or full=True): `dbt build` (every model and data test; the unit
                 tests too when unit_tests) into a fresh file, so the file does not grow from
                 rebuild to rebuild.
                 run_tests=False makes it `dbt run` (tests of this function, which compare data).

    Either way the work file replaces the warehouse only when dbt passed (readers never see a
    half-built file, a killed build changes nothing), under the warehouse's lock and a shared
    lock on the lake (no ingest writes it while dbt reads it). A failed build leaves the old
    warehouse and the failed `<name>.new`.
    """
    warehouse = paths.warehouse
    repair_lake_if_needed(paths, wait_s)
    with warehouse_lock(paths, wait_s), Lake(paths.lake).reading(wait_s):
        key, lake_key = warehouse_build_key(paths), lake_content_key(paths)
        stamp = build_stamp.read(warehouse)
        # the generation goes on only from the very file the last build committed (one written
        # since by anything else, e.g. plain dbt, may hold other rows for unchanged runs)
        generation = stamp.get("generation") if build_stamp.committed_generation(warehouse) else None
        incremental = not full and warehouse.is_file() and stamp.get("build_key") == key
        # a dbt update's log, read into the replay script: beside the warehouse, under its lock
        # (two warehouses built at once never share it); one a killed update left goes now
        record_dir = warehouse.with_name(warehouse.name + ".update-log")
        shutil.rmtree(record_dir, ignore_errors=True)
        if incremental and stamp.get("lake_key") == lake_key:
            return "unchanged"
        if incremental and _replay_update(paths, update_replay.script_key(key, warehouse)):
            build_stamp.write(warehouse, key, lake_key, generation or build_stamp.new_generation())
            return "incremental"
        with staged_warehouse(warehouse, copy=incremental) as work:
            work_paths = dataclasses.replace(paths, warehouse=work.path)
            if incremental:
                _run_dbt(work_paths, UPDATE_ARGS + update_replay.record_args(record_dir), prepare=work.prepare)
            else:
                if not run_tests:
                    _run_dbt(work_paths, ["run"], prepare=work.prepare)
                else:
                    _run_dbt(work_paths, ["build"] + ([] if unit_tests else ["--exclude-resource-type", "unit_test"]),
                             prepare=work.prepare)
                # a kill right after the rename must not leave the old key beside a new file
                build_stamp.path(warehouse).unlink(missing_ok=True)
        # The stamp follows the file: a kill between the two leaves no key (full build) or the
        # same key (incremental), never a key of another project version beside the file. An
        # update carries the full build's generation on (a kill before this line leaves the old
        # stamp, whose file identity no longer matches: the site then hashes every row).
        build_stamp.write(warehouse, key, lake_key, (incremental and generation) or build_stamp.new_generation())
        if incremental:
            _keep_update_script(warehouse, update_replay.script_key(key, warehouse), record_dir)
    return "incremental" if incremental else "full"


def _replay_update(paths: Paths, script_key: str) -> bool:
    """The update as a replay of the last dbt update's statements (iopscope/update_replay.py),
    in one transaction on the live file; True when it committed. False (dbt runs the update on
    a copy instead) when there is no script for this project and file name, when a reader has
    the file open, or when the replay failed: its transaction is then rolled back, the file is
    as it was, and the script is dropped (the dbt update records a new one)."""
    warehouse = paths.warehouse
    statements = update_replay.load(warehouse, script_key)
    if statements is None:
        return False
    started = time.monotonic()
    try:
        # a reader that opened the file a moment ago may be about to close it: wait a little
        con = wh.while_locked(lambda: duckdb.connect(str(warehouse), config=update_replay.connection_settings()),
                              wait_s=1.0)
    except duckdb.Error as exc:
        reason = "open in another process" if wh.is_lock_conflict(exc) else escape(str(exc).splitlines()[0])
        console.print(f"warehouse: {reason}: dbt updates a copy instead")
        return False
    try:
        report = update_replay.replay(con, statements)
    except update_replay.ReplayError as exc:
        console.print(f"  [yellow]warning[/] the update replay failed and changed nothing ({escape(str(exc))}): "
                      "dbt runs the update", markup=True)
        update_replay.discard(warehouse)
        return False
    finally:
        con.close()   # checkpoints the transaction's log into the file
    console.print(f"warehouse: update replayed without dbt: {report.statements} statements of {report.nodes} models, "
                  f"up to {report.runs_selected} runs selected, in {time.monotonic() - started:.1f} s "
                  f"(commit {report.commit_s:.1f} s); slowest: "
                  + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in report.slowest()))
    return True


def _keep_update_script(warehouse: Path, script_key: str, record_dir: Path) -> None:
    """Store the statements the dbt update just ran (its log in ``record_dir``) for the next
    update to replay. A log that cannot be read drops the old script (the next update runs dbt)
    rather than failing a build that succeeded."""
    try:
        statements = update_replay.script_from_log(record_dir / "dbt.log")
    except (OSError, update_replay.ReplayError) as exc:
        update_replay.discard(warehouse)
        console.print(f"  [yellow]warning[/] no update script kept ({escape(str(exc))}): the next update runs dbt",
                      markup=True)
        return
    update_replay.save(warehouse, script_key, statements)
    shutil.rmtree(record_dir, ignore_errors=True)


def site_lock(site_root: Path, wait_s: float | None = locks.DEFAULT_WAIT_S):
    """One site build at a time per site root: two would share Framework's cache (the loaders'
    outputs) and the record an update in place starts from, and could write one output together."""
    return locks.hold(site_root / ".observablehq" / "cache" / "iopscope-build.lock", "site build", wait_s=wait_s)


def site(paths: Paths, full: bool = False, wait_s: float | None = locks.DEFAULT_WAIT_S) -> None:
    """Build the static site into dist/. Data-loader outputs are dropped (the warehouse may have
    changed and Framework only reruns a loader whose source file changed); the bundles of npm
    packages in the same cache are kept, so a rebuild does not re-bundle vega and DuckDB-WASM.
    sitebuild/build.js updates the last full build in place when only the data changed (no page
    rebuilt, docs/site.md), else runs Framework's build; ``full`` always the latter."""
    observable = paths.root / "node_modules" / ".bin" / "observable"
    if not observable.exists():
        raise StageError("node_modules is missing: run `make deps` (or npm ci) first")
    site_root = Path(os.environ.get("IOPSCOPE_SITE_ROOT", paths.root / "src"))
    if not site_root.is_absolute():
        site_root = paths.root / site_root
    node = shutil.which("node") or "node"
    command = [node, str(paths.root / "sitebuild" / "build.js")] + (["--full"] if full else [])
    with site_lock(site_root, wait_s):
        shutil.rmtree(site_root / ".observablehq" / "cache" / "data", ignore_errors=True)
        proc = subprocess.run(command, cwd=paths.root, env=child_env(paths))
    if proc.returncode != 0:
        raise StageError(f"site build failed (exit {proc.returncode})")


def build(paths: Paths, stages: tuple[str, ...] = ("ingest", "dbt", "site"), force: bool = False,
          wait_s: float | None = locks.DEFAULT_WAIT_S, engine: str = "duckdb", only: list[Path] | None = None,
          ahead: "raw_tree.WalkAhead | None" = None) -> int:
    """Run the stages in order. Ingest errors are reported and the build goes on (exit 1 at the end).
    ``only``: the ingest reads just these files or folders (Ingestor.run); ``ahead``: the walk
    of the raw tree already under way (raw_tree.start)."""
    status = 0
    for number, stage in enumerate(stages, 1):
        console.rule(f"[bold]{number}/{len(stages)} {stage}")
        started = time.monotonic()
        if stage == "ingest":
            report = ingest(paths, only=only, force=force, wait_s=wait_s, ahead=ahead)
            print_ingest_report(report, time.monotonic() - started)
            if report.failed:
                status = 1
        elif stage == "dbt" and engine == "spark":
            from iopscope import spark_warehouse

            console.print(f"warehouse: {spark_warehouse.build_warehouse(paths)} build")
        elif stage == "dbt":
            mode = build_warehouse(paths, full=force, wait_s=wait_s)
            console.print(f"warehouse: {mode} build")
        elif stage == "site":
            site(paths, full=force, wait_s=wait_s)
        else:
            raise StageError(f"unknown stage {stage}")
        console.print(f"[green]done[/] {stage} in {time.monotonic() - started:.1f} s")
    return status

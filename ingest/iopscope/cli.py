"""The ``iopscope`` command. Each subcommand is a thin wrapper around one module."""

from __future__ import annotations

import argparse
import builtins
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

from iopscope import __version__


def _paths(args):
    from iopscope.paths import Paths

    paths = Paths.default()
    overrides = {k: Path(v).resolve() for k in ("raw", "lake", "warehouse")
                 if (v := getattr(args, k, None))}
    return paths.__class__(**{**paths.__dict__, **overrides}) if overrides else paths


def cmd_parse(args) -> int:
    from iopscope import parsers
    from iopscope.ingest import parse_file
    from iopscope.redact import mask

    def print(text: str = "", **kwargs) -> None:  # everything shown is masked like the lake
        builtins.print(mask(text), **kwargs)

    path = Path(args.file)
    try:
        module, result, _ = parse_file(path, fmt=args.format, tool=args.tool)
    except (parsers.ParseError, KeyError, OSError) as exc:
        reason = exc.args[0] if isinstance(exc, KeyError) else \
            exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"{path}: rejected: {reason}", file=sys.stderr)
        return 2
    summary = {
        "file": str(path),
        "format": module.NAME,
        "parser_version": module.VERSION,
        "tool": module.TOOL,
        "tool_version": result.tool_version,
        "status": result.status,
        "status_reason": result.status_reason,
        "records": {t: len(rows) for t, rows in sorted(result.tables.items())},
        "facts": result.facts,
        "issues": [{"line": i.line, "severity": i.severity, "reason": i.reason} for i in result.issues],
        "first_records": {t: rows[: args.head] for t, rows in sorted(result.tables.items())},
    }
    if args.json:
        print(json.dumps(summary, indent=2, default=_json_default))
    else:
        print(f"{path}\n  format   {module.NAME} (parser {module.VERSION}), tool {module.TOOL} "
              f"{result.tool_version or '(version not printed)'}\n  status   {result.status}"
              + (f": {result.status_reason}" if result.status_reason else ""))
        for table, count in summary["records"].items():
            print(f"  {table:<22} {count} rows")
        for issue in result.issues:
            where = f"line {issue.line}" if issue.line else "file"
            print(f"  {issue.severity}: {where}: {issue.reason}")
        for table, rows in summary["first_records"].items():
            for row in rows:
                shown = {k: v for k, v in row.items() if v is not None}
                print(f"  {table}: {json.dumps(shown, default=_json_default)[:400]}")
    return 0


def _json_default(value):
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return str(value)


def _refused_paths(paths, only: list[Path], outcome: str) -> bool:
    """Paths given to ingest or build that cannot name runs (missing, outside the raw root):
    each printed with why, then what was not done; True when there were any."""
    from iopscope import pipeline

    outside = pipeline.outside_raw_root(paths, only)
    for path, why in outside:
        print(f"{path}: {why}", file=sys.stderr)
    if outside:
        print(f"{outcome}: give files or folders under the raw root {paths.raw} "
              "(or another root with --raw)", file=sys.stderr)
    return bool(outside)


def _walk_ahead(paths, only: list[Path]):
    """The raw tree's walk started in a process of its own while this one imports the ingest
    (iopscope/raw_tree.py), for an ingest of the whole tree; else None."""
    if only:
        return None
    from iopscope import raw_tree

    return raw_tree.start(paths.raw)


def cmd_ingest(args) -> int:
    paths = _paths(args)
    only = [Path(p) for p in args.paths]
    # before the imports below: it runs beside them (a Spark ingest walks in Spark)
    ahead = _walk_ahead(paths, only) if args.engine != "spark" else None
    try:
        return _ingest(args, paths, only, ahead)
    finally:
        if ahead is not None:
            ahead.cancel()


def _ingest(args, paths, only: list[Path], ahead) -> int:
    from iopscope import pipeline

    if _refused_paths(paths, only, "nothing ingested"):
        return 2
    started = time.monotonic()
    if args.engine == "spark":
        from iopscope import spark_ingest

        if not spark_ingest.pyspark_available():   # run again in .venv-spark, which has pyspark
            python = spark_ingest.spark_python(paths.root)
            if python is None:
                print("pyspark is not installed: run `make spark-deps` (creates .venv-spark/)", file=sys.stderr)
                return 2
            import subprocess

            env = {**os.environ, **paths.env()}
            return subprocess.run([str(python), "-m", "iopscope.cli", *sys.argv[1:]], env=env).returncode
        report = spark_ingest.ingest(paths.raw, paths.lake, only=only or None, force=args.force)
    else:
        report = pipeline.ingest(paths, only=only or None, force=args.force,
                                 show_progress=not args.quiet, wait_s=args.wait, ahead=ahead)
    pipeline.print_ingest_report(report, time.monotonic() - started)
    return 1 if report.failed else 0


def cmd_compact(args) -> int:
    from iopscope import pipeline

    report = pipeline.compact(_paths(args), wait_s=args.wait)
    pipeline.console.print(f"compact: {report.runs_packed} runs into {report.packs_written} packs "
                           f"({', '.join(report.collections) or 'no collection had loose runs'}), "
                           f"{report.files_removed} files removed, {report.runs_evicted} stale runs dropped")
    return 0


def cmd_build(args) -> int:
    stages = tuple(s for s in ("ingest", "dbt", "site") if s not in (args.skip or []))
    paths = _paths(args)
    only = [Path(p) for p in args.paths]
    # before the imports below: it runs beside them
    ahead = _walk_ahead(paths, only) if "ingest" in stages else None
    try:
        return _build(args, paths, stages, only, ahead)
    finally:
        if ahead is not None:
            ahead.cancel()


def _build(args, paths, stages: tuple[str, ...], only: list[Path], ahead) -> int:
    from iopscope import pipeline

    if _refused_paths(paths, only, "nothing built"):
        return 2
    try:
        return pipeline.build(paths, stages=stages, force=args.force, wait_s=args.wait, engine=args.engine,
                              only=only or None, ahead=ahead)
    except (pipeline.StageError, RuntimeError) as exc:
        pipeline.console.print(f"[red]failed:[/] {pipeline.escape(str(exc))}")
        return 2


def cmd_dbt(args) -> int:
    from iopscope import pipeline

    try:
        if args.target == "spark":
            from iopscope import spark_warehouse

            if args.update or args.full:
                print(f"warehouse: {spark_warehouse.build_warehouse(_paths(args))} build", file=sys.stderr)
            else:
                spark_warehouse.dbt(_paths(args), args.dbt_args or ["build"])
        elif args.update or args.full:
            mode = pipeline.build_warehouse(_paths(args), full=args.full, wait_s=args.wait, unit_tests=args.unit_tests)
            print(f"warehouse: {mode} build", file=sys.stderr)
        else:
            target = ["--target", args.target] if args.target else []
            pipeline.dbt(_paths(args), (args.dbt_args or ["build"]) + target, wait_s=args.wait)
    except (pipeline.StageError, RuntimeError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


def cmd_serve(args) -> int:
    from iopscope.serve import serve

    serve(_paths(args).dist if not args.dir else Path(args.dir), port=args.port, verbose=args.verbose)
    return 0


def cmd_sql(args) -> int:
    from iopscope.sql import run_sql

    return run_sql(_paths(args).warehouse, args.query)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="iopscope", description=__doc__)
    parser.add_argument("--version", action="version", version=f"iopscope {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_locations(p):
        p.add_argument("--raw", help="raw tree (default data/raw)")
        p.add_argument("--lake", help="Parquet lake (default data/lake)")
        p.add_argument("--warehouse", help="DuckDB warehouse file (default data/warehouse/iopscope.duckdb)")
        return p

    def with_wait(p):
        p.add_argument("--wait", type=_wait_seconds, default=600.0, metavar="SECONDS",
                       help="how long to wait for a lock another ingest or build holds "
                            "(default 600; 'forever' waits as long as it takes)")
        return p

    p = sub.add_parser("parse", help="show what the parser reads in one file")
    p.add_argument("file")
    p.add_argument("--tool", help="only consider parsers of this tool (fio, iostat, tpcc-mysql ...)")
    p.add_argument("--format", help="force a parser by name (see `iopscope formats`)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--head", type=int, default=3, help="records to show per table")
    p.set_defaults(func=cmd_parse)

    p = with_wait(with_locations(sub.add_parser("ingest", help="ingest a raw tree (or some runs of it) into the lake")))
    p.add_argument("paths", nargs="*", help="only these files or folders (under the raw root)")
    p.add_argument("--force", action="store_true", help="re-parse even unchanged runs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--engine", choices=("local", "spark"), default="local",
                   help="spark: parse on Spark executors, one task per run (IOPSCOPE_SPARK_MASTER, default "
                        "local[2]); the same lake (docs/scale-out.md)")
    p.set_defaults(func=cmd_ingest)

    p = with_wait(with_locations(sub.add_parser(
        "compact", help="merge the lake's per-run Parquet parts into a few packs per table and collection")))
    p.set_defaults(func=cmd_compact)

    p = with_wait(with_locations(sub.add_parser("build", help="ingest, dbt build and site build, in order")))
    p.add_argument("paths", nargs="*",
                   help="ingest only these files or folders (under the raw root), such as the run a capture just "
                        "wrote: no walk of the whole raw tree (runs removed from it are noticed by the next build "
                        "without paths); the warehouse and site are updated as always")
    p.add_argument("--skip", action="append", choices=("ingest", "dbt", "site"), help="skip a stage")
    p.add_argument("--force", action="store_true",
                   help="re-parse even unchanged runs, rebuild the warehouse in full and the site with Framework")
    p.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb",
                   help="engine of the dbt stage (spark: always a full build, marts copied into the warehouse file; "
                        "docs/scale-out.md)")
    p.set_defaults(func=cmd_build)

    p = with_wait(with_locations(sub.add_parser("dbt", help="run dbt with the project's profile (default: build)")))
    p.add_argument("--update", action="store_true",
                   help="what `iopscope build` runs: incremental `dbt run` when the warehouse was built by this "
                        "project and parser set, else a full `dbt build` into a fresh file (docs/warehouse.md)")
    p.add_argument("--full", action="store_true",
                   help="like --update, but always the full build with every data test")
    p.add_argument("--unit-tests", action="store_true",
                   help="a full build also runs the dbt unit tests (they check the SQL, not the data: "
                        "`make test` runs them; `iopscope dbt test --select test_type:unit` alone)")
    p.add_argument("--target", help="profiles.yml target: dev (DuckDB, default) or spark (docs/scale-out.md)")
    p.add_argument("dbt_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_dbt)

    p = sub.add_parser("serve", help="serve the built site on 127.0.0.1")
    p.add_argument("--port", type=int, default=3000, help="0 picks a free port")
    p.add_argument("--dir", help="folder to serve (default dist/)")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=cmd_serve)

    p = with_locations(sub.add_parser("sql", help="SQL over the warehouse (interactive without -c)"))
    p.add_argument("-c", "--query", help="run one query and print the result")
    p.set_defaults(func=cmd_sql)

    sub.add_parser("formats", help="list the formats ingest reads").set_defaults(func=cmd_formats)

    from iopscope.capture.cli import register as register_capture
    register_capture(sub)

    from iopscope.synth.cli import register as register_bench
    register_bench(sub)

    args = parser.parse_args(argv)
    return _run(args)


def _wait_seconds(text: str) -> float | None:
    if text.strip().lower() in ("forever", "inf", "none"):
        return None
    seconds = float(text)
    if seconds < 0:
        raise argparse.ArgumentTypeError("must be >= 0 seconds or 'forever'")
    return seconds


class _Terminated(BaseException):
    """SIGTERM (timeout, systemd, kill) as an exception, so `finally` blocks still run."""


_TERMINATED_EXIT = 143   # 128 + SIGTERM, what a shell reports for a process SIGTERM ended


def _end_now(command: str) -> None:
    """End at once, as SIGKILL would: every writer here survives SIGKILL at any moment (the crash
    recovery tests kill them at random), so this is safe where raising is not."""
    os.write(2, f"iopscope {command}: terminated\n".encode())
    os._exit(_TERMINATED_EXIT)


def _run(args) -> int:
    """Run a subcommand; an interrupt or a lock given up on is one line, not a traceback."""
    import signal

    from iopscope.locks import LockTimeout
    from iopscope.signal_safety import caused_by, catching_dropped, inside_an_import

    def on_sigterm(signum, frame):
        if inside_an_import(frame):   # raising there can be lost (see signal_safety)
            _end_now(args.command)
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        with catching_dropped(_Terminated, lambda exc: _end_now(args.command)):
            return args.func(args)
    except KeyboardInterrupt:
        print(f"\niopscope {args.command}: interrupted", file=sys.stderr)
        return 130
    except LockTimeout as exc:
        print(f"iopscope {args.command}: {exc}", file=sys.stderr)
        return 3
    except BaseException as exc:
        if not caused_by(exc, _Terminated):
            raise
        print(f"iopscope {args.command}: terminated", file=sys.stderr)
        return _TERMINATED_EXIT
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_formats(args) -> int:
    from iopscope import parsers

    for name, module in sorted(parsers.PARSERS.items()):
        summary = (module.__doc__ or "").strip().splitlines()[0]
        print(f"{name:<20} {module.TOOL:<12} {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The warehouse build on Spark local[2] beside DuckDB, at one or more synthetic scales.

    .venv/bin/python bench/spark_vs_duckdb.py --scales 1x,1000      # needs make spark-deps

Per scale: the raw tree of bench/run.py (bundled data plus N synthetic runs), one local ingest,
then `dbt run` of every model on DuckDB (a fresh file) and on Spark (`--target spark
--full-refresh`, a fresh Spark warehouse directory), one after the other, never at once. Wall and
CPU time come from bench/run.py's `measure` (wait4 of the whole process tree, so Spark's JVM is
counted). Writes <work>/spark/report.json and prints a table with the Spark / DuckDB ratio and, over
two or more scales, each engine's growth slope (log time / log runs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402  (bench/run.py: tree generation, measurement, environment)

SPARK_BIN = bench.ROOT / ".venv-spark" / "bin"


def build(engine: str, lake: Path, work: Path, rss_cap_mib: float | None = None) -> dict:
    warehouse = work / engine / "iopscope.duckdb"
    shutil.rmtree(work / engine, ignore_errors=True)
    warehouse.parent.mkdir(parents=True)
    env = bench.pipeline_env(lake, warehouse, work / engine)
    env["IOPSCOPE_SPARK_WAREHOUSE"] = str(work / engine / "tables")
    # the dbt project as it was when the benchmark started (bench.snapshot): merges into the
    # checkout during the hour a 10,000-run comparison takes must not change what is measured
    project = bench.SNAP["project"]
    env["IOPSCOPE_HOME"] = str(project)
    if engine == "spark":
        cmd = [str(SPARK_BIN / "iopscope"), "dbt", "--target", "spark", "run", "--full-refresh"]
    else:
        cmd = [str(bench.BIN / "dbt"), "run", "--project-dir", str(project), "--profiles-dir", str(project)]
    m = bench.measure(["nice", "-n", "19", *cmd], env=env, cwd=project, rss_cap_mib=rss_cap_mib)
    out = {k: m[k] for k in ("rc", "wall_s", "cpu_s", "sampled_cpu_s", "max_rss_mib", "tree_rss_peak_mib", "rss_capped")}
    # wait4 misses Spark's JVM (never reaped): the larger of the two figures is the process tree's
    out["cpu_s"] = max(m["cpu_s"], m["sampled_cpu_s"])
    if m["rc"] != 0:
        out["tail"] = (m["stdout"] + m["stderr"])[-1500:]
    return out


def built_runs(warehouse: Path) -> int | None:
    """Runs in the DuckDB build (marts.dim_runs), or None when it did not build."""
    import duckdb

    try:
        with duckdb.connect(str(warehouse), read_only=True) as con:
            return con.execute("select count(*) from marts.dim_runs").fetchone()[0]
    except duckdb.Error:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/iopscope-bench"))
    ap.add_argument("--scales", default="1x,1000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", type=Path, help="where to write the JSON report (default <work>/spark/report.json)")
    ap.add_argument("--engines", default="duckdb,spark",
                    help="engines to build; a scale measured on one engine only takes the other's figures from the "
                         "--merge-with report's row of that scale (which it replaces)")
    ap.add_argument("--reuse-lake", action="store_true", help="keep a scale's lake from an earlier invocation (no ingest)")
    ap.add_argument("--rss-cap-gib", type=float, default=None,
                    help="stop a build whose processes together exceed this (default: bench/run.py's 12 GiB)")
    ap.add_argument("--reuse-snapshot", action="store_true",
                    help="measure the code snapshot an earlier invocation took (with --merge-with: both scales "
                         "measure the same code even when the checkout moved in between)")
    ap.add_argument("--merge-with", type=Path, action="append", default=[],
                    help="a report of an earlier invocation (same machine and seed) whose scales are put before "
                         "this one's, so that scales measured one after the other get one table and one slope")
    args = ap.parse_args(argv)
    if not (SPARK_BIN / "iopscope").exists():
        print("no .venv-spark: run `make spark-deps`", file=sys.stderr)
        return 2
    base = args.work / "spark"
    if args.reuse_snapshot and (base / "snapshot" / "project").is_dir():
        snap = base / "snapshot"
        bench.SNAP.update(python=snap / "python", project=snap / "project", site=snap / "site")
        snapshot = {**json.loads((snap / "info.json").read_text()), "reused": True}
    else:
        snapshot = bench.snapshot(base)
        (base / "snapshot" / "info.json").write_text(json.dumps(snapshot))
    settings = {k: v for k, v in sorted(os.environ.items()) if k.startswith(("IOPSCOPE_SPARK_", "IOPSCOPE_DUCKDB_"))}
    rows = []
    for earlier in args.merge_with:
        rows += json.loads(earlier.read_text())["scales"]
    engines = args.engines.split(",")
    cap = args.rss_cap_gib * 1024 if args.rss_cap_gib else None
    for scale in args.scales.split(","):
        raw, tree = bench.ensure_tree(args.work, scale, args.seed)
        work = args.work / "spark" / scale
        lake = work / "lake"
        earlier = [r for r in rows if r["scale"] == scale]
        rows = [r for r in rows if r["scale"] != scale]
        row = {"scale": scale, **({"earlier": {e: earlier[-1][e] for e in ("duckdb", "spark") if e not in engines}}
                                  if earlier else {})}
        if args.reuse_lake and (lake / "_state.json").exists():
            row["ingest_wall_s"] = earlier[-1].get("ingest_wall_s") if earlier else None
        else:
            shutil.rmtree(lake, ignore_errors=True)
            ingest = bench.measure([str(bench.BIN / "iopscope"), "ingest", "--quiet", "--raw", str(raw), "--lake", str(lake)],
                                   env=bench.pipeline_env(lake, work / "unused.duckdb", work, raw))
            row["ingest_wall_s"] = ingest["wall_s"]
        for engine in ("duckdb", "spark"):
            if engine in engines:
                row[engine] = build(engine, lake, work, cap)
            elif earlier:
                row[engine] = {**earlier[-1][engine], "measured_earlier": True}
            else:
                raise SystemExit(f"{scale}: no {engine} figures (not in --engines, no --merge-with row of this scale)")
        row["runs"] = runs = built_runs(work / "duckdb" / "iopscope.duckdb") or (earlier[-1]["runs"] if earlier else None)
        row["ratio_wall"] = round(row["spark"]["wall_s"] / row["duckdb"]["wall_s"], 2)
        cpus = (row["spark"].get("cpu_s"), row["duckdb"].get("cpu_s"))
        row["ratio_cpu"] = round(cpus[0] / cpus[1], 2) if all(cpus) else None
        row.pop("earlier", None)
        rows.append(row)
        bench.log(f"{scale}: {runs} runs, dbt run on DuckDB {row['duckdb']['wall_s']} s, on Spark "
                  f"{row['spark']['wall_s']} s (ratio {row['ratio_wall']}, CPU ratio {row['ratio_cpu']})")
    report = {"machine": bench.machine(), "snapshot": snapshot, "settings": settings, "scales": rows,
              "loadavg_end": os.getloadavg()}
    if len(rows) >= 2 and all(r["runs"] for r in rows):
        first, last = rows[0], rows[-1]
        span = math.log(last["runs"] / first["runs"])
        report["growth_slope"] = {engine: round(math.log(last[engine]["wall_s"] / first[engine]["wall_s"]) / span, 3)
                                  for engine in ("duckdb", "spark")}
    out = args.report or args.work / "spark" / "report.json"
    out.write_text(json.dumps(report, indent=2))
    print("| scale | runs | DuckDB wall s | Spark wall s | ratio | DuckDB CPU s | Spark CPU s | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scale']} | {r['runs']} | {r['duckdb']['wall_s']} | {r['spark']['wall_s']} | {r['ratio_wall']} "
              f"| {r['duckdb']['cpu_s']} | {r['spark']['cpu_s']} | {r['ratio_cpu']} |")
    if "growth_slope" in report:
        print(f"growth slope (log time / log runs): {report['growth_slope']}")
    print(f"wrote {out}")
    return 0 if all(r["duckdb"]["rc"] == 0 and r["spark"]["rc"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

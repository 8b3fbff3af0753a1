#!/usr/bin/env python3
"""iopscope benchmark: ingest, warehouse and site from the bundled data up to 10,000 runs.

One command (also ``iopscope bench run`` and ``make bench``)::

    .venv/bin/python bench/run.py                       # every section, scales 1x,100,1000
    .venv/bin/python bench/run.py --scales 1x,100,1000,10000 --browser-scales 1x,10000
    .venv/bin/python bench/run.py --smoke               # seconds: proves the harness works

Writes ``<out>/bench.json`` (every number) and ``<out>/bench.md`` (the tables), ``<out>``
defaulting to ``<work>/report``. Everything it generates lives under ``--work`` (default
``/tmp/iopscope-bench``): synthetic raw trees, lakes, warehouses, site builds. It never writes
to ``data/``, ``dist/`` or ``src/`` of the checkout (the site is built from a private copy).

Sections (``--sections``):

``formats``      ingest throughput per format on one large file and on many small files, with
                 the raw read bound (``cat`` from the page cache, ``dd iflag=direct`` from the
                 disk) and DuckDB writing the same records from CSV / NDJSON to Parquet as the
                 reference (1 thread = one core, and all threads)
``scales``       per scale: generation, full ingest (with a per-step breakdown), no-op re-ingest,
                 ``dbt build`` (per-model timings from run_results.json), site build and what ships
``incremental``  at the largest scale: one new run, then ingest + dbt build (+ site build)
``browser``      Chromium: first chart and filter latency, JS heap (``--browser-scales``)
``floor``        per scale, on the lake and warehouse an earlier ``scales`` run left: a full
                 warehouse build (``iopscope dbt --full``) and beside it the physical floor
                 (bench/floor.py: DuckDB reading the lake, writing its rows, writing the marts'
                 rows to DuckDB and to Parquet; bytes read from the page cache and the disk)

Every stage runs in its own process; wall time, CPU time (user + sys) and peak RSS come from
``wait4``. CPU time is the steadier figure on a shared machine: the wall clock also counts
waiting for other processes.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ingest"))
PY = sys.executable
BIN = Path(PY).parent
from iopscope.synth.generate import JSON_BIG_FORMATS, big_formats  # noqa: E402  (needs the path above)

# every format the generator writes (a new format joins by its iopscope/synth/big_<name>.py);
# JSON ones are compared with DuckDB's read_json, the others with read_csv of the same records
JSON_FORMATS = tuple(f for f in big_formats() if f in JSON_BIG_FORMATS)
TEXT_FORMATS = tuple(f for f in big_formats() if f not in JSON_BIG_FORMATS)
DUCKDB_THREADS = os.cpu_count() or 1
SITE = {"timeout_s": 1800.0}
CHART_PAGES = ("/", "/tpcc", "/fio")   # pages whose first screen is a chart
SIZES = {"1x": 0, "100": 100, "1000": 1000, "10000": 10000}


def scale_plan(scale: str) -> tuple[int, float]:
    """(synthetic runs, run length) of a scale: ``1x`` (the bundled data alone), ``N`` (N
    full-length runs) or ``N@F`` (N runs each shortened to the fraction F of its time:
    iopscope.synth.generate; the run count of a large archive in fewer bytes)."""
    count, _, length = scale.partition("@")
    runs = SIZES.get(count)
    try:
        runs = int(count) if runs is None else runs
        factor = float(length) if length else 1.0
    except ValueError:
        raise SystemExit(f"bench: scale {scale!r} is not 1x, N or N@F (e.g. 100000@0.1)") from None
    if not 0 < factor <= 1 or (factor != 1 and runs == 0):
        raise SystemExit(f"bench: scale {scale!r}: F must be in (0, 1] and apply to synthetic runs")
    return runs, factor


def raw_dir(work: Path, scale: str) -> Path:
    runs, length = scale_plan(scale)
    return work / (f"raw-{runs}" if length == 1 else f"raw-{runs}@{length:g}")
TARGETS = {"text_mb_s_per_core": 30.0, "duckdb_ratio_max": 3.0, "incremental_s": 10.0,
           "first_chart_ms": 2000.0, "filter_ms": 300.0,
           # issue 19: one new run's cost does not grow with the archive; full rebuild at 10,000
           # runs; lake files grow with collections (packs), not with runs x tables
           "incremental_slope_max": 0.1, "full_build_s": 180.0, "full_build_peak_mib": 4096.0,
           "full_build_at_runs": 10000, "parquet_files_per_run_max": 0.1, "parquet_files_slope_max": 0.1,
           # issue 19: a run page (/runs/run?id=) draws its first chart within this at any scale
           "run_page_first_chart_ms": 1000.0}


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ measuring


PAGE_MIB = os.sysconf("SC_PAGE_SIZE") / 2 ** 20
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
# The one-command measures of one new run (incremental_steps): the key they are stored under,
# and the command as the report names it.
BUILD_MEASURES = (("build", "`iopscope build`"), ("build_named", "`iopscope build <run folder>`"))
RSS_CAP_MIB = 12 * 1024   # a stage whose processes together exceed this is stopped (shared machine)


def session_rss_mib(sid: int, cpu_ticks: dict[int, int] | None = None) -> float:
    """Resident memory of every process of session ``sid`` together (from /proc). With
    ``cpu_ticks``, also notes each process's own user + sys clock ticks (the latest seen)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            if int(fields[3]) == sid:            # field 6 of stat: session id
                total += int(fields[21])         # field 24: rss in pages
                if cpu_ticks is not None:        # fields 14 and 15: utime, stime
                    cpu_ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total * PAGE_MIB


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def measure(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout_s: float | None = None, rss_cap_mib: float | None = None) -> dict[str, Any]:
    """Run ``cmd`` in its own session; wall time, user + sys CPU and peak RSS of the largest
    process (``wait4``), and the peak RSS of all its processes together (sampled from /proc
    every 0.25 s). With ``timeout_s`` or when the processes together exceed ``rss_cap_mib``
    (default RSS_CAP_MIB), the whole session is stopped (``timed_out`` / ``rss_capped``)."""
    cap = RSS_CAP_MIB if rss_cap_mib is None else rss_cap_mib
    # GNU time forks the command from its own small process: the command's ru_maxrss is then
    # its own (a child forked from this large Python process would start with its RSS).
    fd, time_out = tempfile.mkstemp(prefix="bench-time-")
    os.close(fd)
    wrapped = ([GNU_TIME, "-q", "-f", "%M %U %S", "-o", time_out, *cmd] if GNU_TIME else list(cmd))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(wrapped, env=env, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        timed_out = capped = False
        tree_peak = 0.0
        # CPU of processes nobody waits for is missing from wait4's figures: Spark's JVM is
        # started by pyspark and killed, not reaped, when dbt exits. The /proc samples see it.
        cpu_ticks: dict[int, int] = {}
        pause, next_scan = 0.002, 0.0
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.perf_counter()
            if now >= next_scan:   # the /proc scan costs a few ms: at most every 0.25 s
                tree = session_rss_mib(proc.pid, cpu_ticks)
                tree_peak = max(tree_peak, tree)
                capped = tree > cap
                next_scan = now + 0.25
            timed_out = bool(timeout_s) and now - t0 > timeout_s
            if timed_out or capped:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                time.sleep(3)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                _, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(pause)      # short first (quick commands are timed closely), then 0.1 s
            pause = min(pause * 1.5, 0.1)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        maxrss_kib, user, system = ru.ru_maxrss, ru.ru_utime, ru.ru_stime
        try:
            fields = Path(time_out).read_text().split()
            maxrss_kib, user, system = int(fields[-3]), float(fields[-2]), float(fields[-1])
        except (OSError, ValueError, IndexError):
            pass   # killed before time wrote its line: wait4's figures
        finally:
            os.unlink(time_out)
        out.seek(0)
        err.seek(0)
        return {"cmd": " ".join(str(c) for c in cmd[:6]) + (" ..." if len(cmd) > 6 else ""),
                "rc": proc.returncode, "wall_s": round(wall, 3), "cpu_s": round(user + system, 3),
                "user_s": round(user, 3), "sys_s": round(system, 3),
                "max_rss_mib": round(maxrss_kib / 1024, 1), "tree_rss_peak_mib": round(tree_peak, 1),
                # each process's own CPU at its last /proc sample (every 0.25 s), summed: counts
                # processes wait4 misses, misses each process's last quarter second
                "sampled_cpu_s": round(sum(cpu_ticks.values()) / CLOCK_TICKS, 3),
                "timed_out": timed_out, "rss_capped": capped,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def probe(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """A bench/probe.py task in its own process: its JSON result plus the process figures."""
    env = dict(env or os.environ)
    if SNAP:
        env["PYTHONPATH"] = str(SNAP["python"])
    m = measure([PY, str(ROOT / "bench" / "probe.py"), *args], env=env)
    if m["rc"] != 0:
        raise RuntimeError(f"probe {args[0]} failed ({m['rc']}): {m['stderr'][-2000:]}")
    result = json.loads(m["stdout"].strip().splitlines()[-1])
    result["process"] = {k: m[k] for k in ("wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib")}
    return result


def tree_size(path: Path) -> tuple[int, int]:
    files = size = 0
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                size += os.path.getsize(os.path.join(folder, name))
                files += 1
            except OSError:
                pass
    return files, size


def read_bound(paths: list[Path], direct: bool = False) -> dict[str, Any]:
    """Sequential read of the same bytes: ``cat`` to /dev/null (page cache) or ``dd iflag=direct``."""
    total = sum(p.stat().st_size for p in paths)
    if direct:
        t0 = time.perf_counter()
        ok = True
        for p in paths:
            r = subprocess.run(["dd", f"if={p}", "of=/dev/null", "bs=1M", "iflag=direct"],
                               capture_output=True)
            ok = ok and r.returncode == 0
        wall = time.perf_counter() - t0
        if not ok:
            return {"bytes": total, "error": "dd iflag=direct not supported here"}
    else:
        # the same list several times over (>= ~200 MB in all) so that starting cat is noise
        repeat = max(1, min(50, int(2e8 // max(total, 1))))
        with tempfile.NamedTemporaryFile("w", delete=False) as fh:
            fh.write("\0".join(str(p) for p in paths * repeat))
            listing = fh.name
        try:
            t0 = time.perf_counter()
            subprocess.run(["sh", "-c", f"xargs -0 cat < {listing} > /dev/null"], check=True)
            wall = (time.perf_counter() - t0) / repeat
        finally:
            os.unlink(listing)
    return {"bytes": total, "wall_s": round(wall, 4), "mb_s": round(total / 1e6 / wall, 1) if wall else None}


# What the benchmark measures is snapshotted when it starts (bench/run.py takes hours; other
# work on the checkout must not change the code between two scales): the Python package, the
# dbt project and the site sources. Set by snapshot().
SNAP: dict[str, Path] = {}


def snapshot(work: Path) -> dict[str, Any]:
    base = work / "snapshot"
    shutil.rmtree(base, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", ".observablehq", "*.pyc")
    shutil.copytree(ROOT / "ingest" / "iopscope", base / "python" / "iopscope", ignore=ignore)
    project = base / "project"
    project.mkdir(parents=True)
    for name in ("models", "macros", "seeds", "analyses", "snapshots"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, project / name, ignore=ignore)
    if (ROOT / "tests" / "dbt").is_dir():
        shutil.copytree(ROOT / "tests" / "dbt", project / "tests" / "dbt", ignore=ignore)
    for name in ("dbt_project.yml", "profiles.yml", "packages.yml"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, project / name)
    site = base / "site"
    site.mkdir()
    shutil.copytree(ROOT / "src", site / "src", ignore=ignore)
    shutil.copytree(ROOT / "sitebuild", site / "sitebuild", ignore=ignore)   # the config imports it
    for name in ("observablehq.config.js", "package.json"):
        shutil.copy2(ROOT / name, site / name)
    # `iopscope build` of one new run (incremental_steps) runs from the project: it needs the
    # site's build scripts and packages there too, beside the dbt project
    shutil.copytree(ROOT / "sitebuild", project / "sitebuild", ignore=ignore)
    for name in ("observablehq.config.js", "package.json", "docs/sql.md"):   # (the SQL page's examples)
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    if (ROOT / "node_modules").exists():
        (project / "node_modules").symlink_to(ROOT / "node_modules")
    SNAP.update(python=base / "python", project=project, site=site)
    info: dict[str, Any] = {"path": str(base)}
    try:
        info["git_head"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                          text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "ingest", "models", "macros", "src",
                                "tests/dbt", "dbt_project.yml"], cwd=ROOT, capture_output=True, text=True).stdout
        info["uncommitted_files"] = len(dirty.splitlines())
    except OSError:
        pass
    return info


def pipeline_env(lake: Path, warehouse: Path, work: Path, raw: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if SNAP:
        env["PYTHONPATH"] = str(SNAP["python"])
    env.update({"IOPSCOPE_HOME": str(ROOT), "IOPSCOPE_LAKE": str(lake), "IOPSCOPE_WAREHOUSE": str(warehouse),
                "DBT_TARGET_PATH": str(work / "target"), "DBT_LOG_PATH": str(work / "logs"),
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "False", "DO_NOT_TRACK": "1",
                "OBSERVABLE_TELEMETRY_DISABLE": "true", "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}"})
    if raw is not None:
        env["IOPSCOPE_RAW"] = str(raw)
    return env


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"cpus": os.cpu_count(), "platform": platform.platform(),
                            "python": platform.python_version(), "loadavg_start": os.getloadavg()}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        info["cpu_model"] = re.search(r"model name\s*:\s*(.+)", cpuinfo).group(1).strip()
        mem = Path("/proc/meminfo").read_text()
        info["mem_gib"] = round(int(re.search(r"MemTotal:\s*(\d+)", mem).group(1)) / 2 ** 20, 1)
    except (OSError, AttributeError):
        pass
    versions = {}
    try:
        import duckdb
        import pyarrow
        versions.update(duckdb=duckdb.__version__, pyarrow=pyarrow.__version__)
    except ImportError:
        pass
    for name, cmd in (("node", ["node", "--version"]), ("dbt", [str(BIN / "dbt"), "--version"]),
                      ("chromium", ["chromium", "--version"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
            versions[name] = out.strip().splitlines()[0 if name != "dbt" else 1].strip(" -") if out.strip() else None
        except (OSError, subprocess.SubprocessError, IndexError):
            versions[name] = None
    info["versions"] = versions
    return info


# ------------------------------------------------------------------------------ formats


def section_formats(work: Path, big_mb: float, small_count: int, small_kb: float, seed: int,
                    formats: tuple[str, ...]) -> dict[str, Any]:
    from iopscope.synth.generate import format_file

    base = work / "formats"
    shutil.rmtree(base, ignore_errors=True)
    results: dict[str, Any] = {}
    for fmt_name in formats:
        log(f"formats: {fmt_name} ({big_mb} MB file, {small_count} x {small_kb} KB files)")
        entry: dict[str, Any] = {"format": fmt_name, "text": fmt_name in TEXT_FORMATS}
        # -- one large file, alone in its run folder
        name, text = format_file(fmt_name, int(big_mb * 1e6), seed)
        raw = base / fmt_name / "big-raw"
        (raw / "run").mkdir(parents=True)
        big = raw / "run" / name
        big.write_text(text)
        del text
        entry["big"] = big_file_bench(big, raw, base / fmt_name, fmt_name)
        # -- the same file cut mid-line at 2/3 (a killed tool): users' logs are often cut short
        entry["cut"] = cut_file_bench(big, base / fmt_name)
        # -- many small files: copies of one small file, each in its own run folder
        name, text = format_file(fmt_name, int(small_kb * 1e3), seed)
        raw = base / fmt_name / "small-raw"
        files = []
        for i in range(small_count):
            folder = raw / f"run-{i:05d}"
            folder.mkdir(parents=True)
            (folder / name).write_text(text)
            files.append(folder / name)
        entry["small"] = small_files_bench(files, raw, base / fmt_name, fmt_name)
        shutil.rmtree(base / fmt_name, ignore_errors=True)
        results[fmt_name] = entry
    return results


def _duckdb_reference(equiv: list[dict], out: Path, fmt_name: str) -> dict[str, Any]:
    kind = "json" if fmt_name in JSON_FORMATS else "csv"
    files = [e["path"] for e in equiv]
    ref: dict[str, Any] = {"kind": f"read_{kind}", "equivalent_bytes": sum(e["bytes"] for e in equiv),
                           "equivalent_rows": sum(e["rows"] for e in equiv)}
    listing = out / f"duck-{kind}-files.txt"  # one path per line: too many for a command line
    listing.parent.mkdir(parents=True, exist_ok=True)
    listing.write_text("".join(f"{f}\n" for f in files))
    for threads in sorted({1, DUCKDB_THREADS}):
        r = probe(["duckdb", kind, str(out / f"duck-{threads}"), f"@{listing}", "--threads", str(threads)])
        # in-process figures (the COPY statements only), as for our ingest: no interpreter start-up
        ref[f"threads_{threads}"] = {"wall_s": round(r["wall_s"], 4), "cpu_s": round(r["cpu_s"], 4),
                                     "rows": r["rows"], "max_rss_mib": r["process"]["max_rss_mib"]}
    return ref


def _least_cpu_ingest(raw: Path, lake: Path, runs: int = 2) -> dict[str, Any]:
    """The ingest of ``raw`` into a fresh lake, ``runs`` times: the run with the least CPU.
    On a shared 2-vCPU VM one run's CPU time moves by up to 1.5x (mostly kernel time for fresh
    memory); the least of two is the steadier figure."""
    best = None
    for i in range(runs):
        r = probe(["ingest", str(raw), str(lake.with_name(f"{lake.name}-{i}"))])
        if best is None or r["cpu_s"] < best["cpu_s"]:
            best = r
    return best


def cut_file_bench(big: Path, scratch: Path) -> dict[str, Any]:
    """Ingest of the large file cut a few bytes into a line at 2/3 of its length."""
    data = big.read_bytes()
    at = data.rfind(b"\n", 0, len(data) * 2 // 3) + 1
    raw = scratch / "cut-raw"
    (raw / "run").mkdir(parents=True)
    cut = raw / "run" / big.name
    cut.write_bytes(data[:min(at + 7, len(data))])
    del data
    ingest = _least_cpu_ingest(raw, scratch / "lake-cut")
    size = cut.stat().st_size
    return {"bytes": size, "cpu_s": round(ingest["cpu_s"], 4), "mb_s_cpu": _rate(size / 1e6, ingest["cpu_s"]),
            "errors": ingest["errors"], "warnings": ingest["warnings"]}


def big_file_bench(big: Path, raw: Path, scratch: Path, fmt_name: str) -> dict[str, Any]:
    size = big.stat().st_size
    with big.open("rb") as fh:
        lines = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
    parse = probe(["parse", str(big), "--runs", "2", "--equiv", str(scratch / "equiv")])
    if parse["format"] != fmt_name:
        raise RuntimeError(f"{big} detected as {parse['format']}, expected {fmt_name}")
    ingest = _least_cpu_ingest(raw, scratch / "lake-big")
    read_bound([big])   # warm the page cache the same way for every reader
    cat = read_bound([big])
    direct = read_bound([big], direct=True)
    ref = _duckdb_reference(parse["equiv"], scratch, fmt_name)
    records = parse["records"]
    out = {
        "bytes": size, "lines": lines, "records": records,
        "parse": {"cpu_s": round(parse["cpu_s"], 4), "mb_s_cpu": _rate(size / 1e6, parse["cpu_s"]),
                  "records_s_cpu": _rate(records, parse["cpu_s"])},
        "ingest": {"wall_s": round(ingest["wall_s"], 4), "cpu_s": round(ingest["cpu_s"], 4),
                   "mb_s_cpu": _rate(size / 1e6, ingest["cpu_s"]), "mb_s_wall": _rate(size / 1e6, ingest["wall_s"]),
                   "records_s_cpu": _rate(records, ingest["cpu_s"]), "lines_s_cpu": _rate(lines, ingest["cpu_s"]),
                   "max_rss_mib": ingest["process"]["max_rss_mib"], "errors": ingest["errors"],
                   "warnings": ingest["warnings"], "steps": ingest["steps"]},
        "cat": cat, "dd_direct": direct, "duckdb": ref,
    }
    d1 = ref["threads_1"]
    out["duckdb"]["mb_s_cpu_equivalent"] = _rate(ref["equivalent_bytes"] / 1e6, d1["cpu_s"])
    out["duckdb"]["records_s_cpu"] = _rate(ref["equivalent_rows"], d1["cpu_s"])
    # same records on both sides: the ratio of CPU seconds is the ratio of records/s
    out["ratio_ingest_vs_duckdb_1t"] = round(ingest["cpu_s"] / d1["cpu_s"], 2) if d1["cpu_s"] else None
    out["ratio_parse_vs_duckdb_1t"] = round(parse["cpu_s"] / d1["cpu_s"], 2) if d1["cpu_s"] else None
    return out


def small_files_bench(files: list[Path], raw: Path, scratch: Path, fmt_name: str) -> dict[str, Any]:
    size = sum(f.stat().st_size for f in files)
    ingest = probe(["ingest", str(raw), str(scratch / "lake-small")])
    parse = probe(["parse", str(files[0]), "--equiv", str(scratch / "equiv-small")])
    # the equivalent of every copy: the same CSV / NDJSON once per file
    equiv = []
    for e in parse["equiv"]:
        for i in range(len(files)):
            dst = scratch / "equiv-small-copies" / f"{i:05d}-{Path(e['path']).name}"
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(e["path"], dst)
            equiv.append({**e, "path": str(dst)})
    read_bound(files)
    cat = read_bound(files)
    ref = _duckdb_reference(equiv, scratch, fmt_name)
    records = ingest["rows_written"]
    d1 = ref["threads_1"]
    return {
        "files": len(files), "bytes": size, "rows_written": records,
        "ingest": {"wall_s": round(ingest["wall_s"], 3), "cpu_s": round(ingest["cpu_s"], 3),
                   "mb_s_cpu": _rate(size / 1e6, ingest["cpu_s"]), "files_s_cpu": _rate(len(files), ingest["cpu_s"]),
                   "max_rss_mib": ingest["process"]["max_rss_mib"], "errors": ingest["errors"],
                   "warnings": ingest["warnings"], "steps": ingest["steps"]},
        "cat": cat, "duckdb": ref,
        "ratio_ingest_vs_duckdb_1t": round(ingest["cpu_s"] / d1["cpu_s"], 2) if d1["cpu_s"] else None,
    }


def _rate(amount: float, seconds: float) -> float | None:
    return round(amount / seconds, 1) if seconds and seconds > 0 else None


# ------------------------------------------------------------------------------ scales


def ensure_tree(work: Path, scale: str, seed: int, bundled: bool = True) -> tuple[Path, dict[str, Any]]:
    """The raw root of a scale: data/raw itself at 1x, else bundled + N synthetic runs."""
    from iopscope.synth.generate import generate

    runs, length = scale_plan(scale)
    if runs == 0:
        return ROOT / "data" / "raw", {"synthetic_runs": 0, "generated": False}
    raw = raw_dir(work, scale)
    marker = raw / ".bench-tree.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        if (info.get("seed") == seed and info.get("runs") == runs and info.get("bundled", True) == bundled
                and info.get("length", 1.0) == length):
            return raw, {**info, "generated": False}
    shutil.rmtree(raw, ignore_errors=True)
    log(f"generating {runs} synthetic runs{f' of length {length:g}' if length != 1 else ''} into {raw}")
    t0 = time.perf_counter()
    c0 = time.process_time()
    report = generate(raw, runs, seed, bundled=ROOT / "data" / "raw" if bundled else None,
                      workers=max(1, (os.cpu_count() or 1)), length=length)
    info = {"seed": seed, "runs": runs, "length": length, "bundled": bundled, "synthetic_runs": report.runs,
            "synthetic_bytes": report.bytes,
            "synthetic_files": report.files, "kinds": report.kinds, "devices": report.devices,
            "generate_wall_s": round(time.perf_counter() - t0, 2),
            "generate_cpu_s_parent": round(time.process_time() - c0, 2)}
    marker.write_text(json.dumps(info))
    return raw, {**info, "generated": True}


def run_dbt(env: dict[str, str], target: Path, command: str = "full") -> dict[str, Any]:
    """The warehouse stage; per-node timings from run_results.json.

    ``full`` / ``update``: ``iopscope dbt --full`` / ``--update``, what ``iopscope build`` runs (a
    full ``dbt build`` with every test into a fresh file, or the incremental update of new and
    changed runs, docs/warehouse.md). Anything else: plain ``dbt <command>``.
    The same target folder is kept across calls so that dbt's partial parsing works as it does
    for a user who builds again."""
    env = {**env, "DBT_TARGET_PATH": str(target), "DBT_LOG_PATH": str(target.parent / "logs")}
    Path(env["IOPSCOPE_WAREHOUSE"]).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (target / "run_results.json").unlink()
    project = SNAP.get("project", ROOT)
    if command in ("full", "update"):
        env["IOPSCOPE_HOME"] = str(project)
        cmd = [str(BIN / "iopscope"), "dbt", f"--{command}"]
    else:
        cmd = [str(BIN / "dbt"), command, "--project-dir", str(project), "--profiles-dir", str(project)]
    m = measure(cmd, env=env, cwd=project)
    out = {k: m[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib", "rss_capped")}
    results_file = target / "run_results.json"
    if results_file.exists():
        results = json.loads(results_file.read_text())
        nodes = []
        statuses: dict[str, int] = {}
        by_type: dict[str, float] = {}
        for r in results.get("results", []):
            uid = r["unique_id"]
            kind = uid.split(".", 1)[0]
            statuses[f"{kind}:{r['status']}"] = statuses.get(f"{kind}:{r['status']}", 0) + 1
            by_type[kind] = by_type.get(kind, 0.0) + (r.get("execution_time") or 0.0)
            nodes.append((r.get("execution_time") or 0.0, uid, r["status"]))
        nodes.sort(reverse=True)
        out["elapsed_s_dbt"] = round(results.get("elapsed_time", 0.0), 2)
        out["statuses"] = statuses
        out["node_seconds_by_type"] = {k: round(v, 2) for k, v in sorted(by_type.items())}
        out["top_nodes"] = [{"node": uid, "s": round(t, 3), "status": st} for t, uid, st in nodes[:8]]
        failures = [{"node": r["unique_id"], "status": r["status"], "message": (r.get("message") or "")[:300]}
                    for r in results.get("results", []) if r["status"] in ("error", "fail")]
        out["failures"] = failures[:10]
    if m["rc"] != 0 and "failures" not in out:
        out["stderr_tail"] = (m["stdout"] + m["stderr"])[-1500:]
    replayed = _REPLAYED.search(" ".join((m["stdout"] + m["stderr"]).split()))
    if replayed:   # iopscope/update_replay.py: the update ran without dbt
        out["replay"] = {"statements": int(replayed["statements"]), "models": int(replayed["models"]),
                         "runs_selected": int(replayed["runs"]), "s": float(replayed["s"]),
                         "commit_s": float(replayed["commit"]), "slowest": replayed["slowest"]}
    warehouse = Path(env["IOPSCOPE_WAREHOUSE"])
    out["warehouse_mib"] = round(warehouse.stat().st_size / 2 ** 20, 1) if warehouse.exists() else None
    return out


# pipeline._replay_update's line, its whitespace folded
_REPLAYED = re.compile(r"update replayed without dbt: (?P<statements>\d+) statements of (?P<models>\d+) models, "
                       r"up to (?P<runs>\d+) runs selected, in (?P<s>[\d.]+) s \(commit (?P<commit>[\d.]+) s\); "
                       r"slowest: (?P<slowest>(?:\S+ [\d.]+ s(?:, )?)+)")


def dbt_floor(work: Path, env: dict[str, str]) -> dict[str, Any]:
    """What one dbt invocation costs before any model of ours: ``dbt run`` of a one-model
    project (``select 1``) on the repository's profile, best of 2 (the first warms caches)."""
    project = work / "dbt-floor"
    shutil.rmtree(project, ignore_errors=True)
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text('name: floor\nversion: "1.0.0"\nconfig-version: 2\n'
                                             'profile: iopscope\nmodel-paths: ["models"]\n')
    (project / "models" / "noop.sql").write_text("select 1 as one\n")
    shutil.copy2(SNAP.get("project", ROOT) / "profiles.yml", project / "profiles.yml")
    env = {**env, "IOPSCOPE_WAREHOUSE": str(project / "floor.duckdb"), "DBT_TARGET_PATH": str(project / "target"),
           "DBT_LOG_PATH": str(project / "logs")}
    cmd = [str(BIN / "dbt"), "run", "--project-dir", str(project), "--profiles-dir", str(project)]
    runs = [measure(cmd, env=env, cwd=project) for _ in range(2)]
    best = min(runs, key=lambda m: m["wall_s"])
    return {k: best[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib")}


def private_site_root(work: Path, keep_cache: bool = False, name: str = "site-root") -> Path:
    """A snapshot of the site sources beside the checkout's node_modules and venv, so the build
    writes its cache in our own folder (never in the checkout's src/.observablehq).
    ``keep_cache``: this run's sources over an earlier run's site root, its Framework cache
    (the npm bundles) kept, as in a checkout where `iopscope build` ran before; a root ``name``d
    otherwise than the scales section's starts from that one's cache (each scale of the
    incremental section has its own root: its builds alternate with the other scale's)."""
    site = work / name
    cache = site / "src" / ".observablehq"
    kept = work / f"{name}-cache-kept"
    shutil.rmtree(kept, ignore_errors=True)
    if keep_cache and cache.is_dir():
        cache.rename(kept)
    elif keep_cache and name != "site-root" and (work / "site-root" / "src" / ".observablehq").is_dir():
        source_cache = work / "site-root" / "src" / ".observablehq"
        # the npm bundles, not the loaders' outputs (run_site drops those: up to a gigabyte)
        shutil.copytree(source_cache, kept, symlinks=True,
                        ignore=lambda folder, names: ["data"] if Path(folder) == source_cache / "cache" else [])
    shutil.rmtree(site, ignore_errors=True)
    site.mkdir(parents=True)
    source = SNAP.get("site", ROOT)
    shutil.copytree(source / "src", site / "src", ignore=shutil.ignore_patterns(".observablehq"))
    shutil.copytree(source / "sitebuild", site / "sitebuild")   # the config imports it
    if kept.is_dir():
        kept.rename(cache)
    for name in ("observablehq.config.js", "package.json"):
        shutil.copy2(source / name, site / name)
    for name in ("node_modules", ".venv"):
        if (ROOT / name).exists():
            (site / name).symlink_to(ROOT / name)
    return site


def run_site(env: dict[str, str], site_root: Path, dist: Path, timeout_s: float | None = None,
             keep_bundles: bool = False, in_place: bool = False) -> dict[str, Any]:
    """The site build of ``site_root`` into ``dist`` (sitebuild/build.js, as ``iopscope build``
    runs it). A full build starts from an empty cache and output; ``keep_bundles`` drops only the
    data loaders' outputs and keeps the npm bundles, as ``iopscope build`` does (pipeline.site):
    what a rebuild after one new run really costs. ``in_place``: the output of the last build
    kept, which build.js then updates in place when only the data changed (else builds in full:
    ``mode`` and ``full_reason`` say which)."""
    observable = site_root / "node_modules" / ".bin" / "observable"
    if not observable.exists():
        return {"skipped": "node_modules missing (npm ci)"}
    cache = site_root / "src" / ".observablehq" / "cache"
    shutil.rmtree(cache / "data" if keep_bundles else cache, ignore_errors=True)
    if not in_place:
        shutil.rmtree(dist, ignore_errors=True)
    env = {**env, "IOPSCOPE_DIST": str(dist), "IOPSCOPE_PYTHON": PY, "NO_COLOR": "1"}
    node = shutil.which("node") or "node"
    cmd = [node, str(site_root / "sitebuild" / "build.js")] + ([] if in_place else ["--full"])
    m = measure(cmd, env=env, cwd=site_root, timeout_s=timeout_s)
    out: dict[str, Any] = {k: m[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib",
                                             "timed_out", "rss_capped")}
    log_text = m["stdout"] + m["stderr"]
    # Framework prints "... in <N>ms" once per page or module it has built
    out["outputs_built"] = len(re.findall(r"\bin \d+ms", log_text))
    # sitebuild/build.js: the output updated in place (no page rebuilt), or Framework's build and why
    # what the loaders took from their caches and wrote, and what the in-place update did
    out["notes"] = said_lines(log_text)
    out["mode"], reason = site_mode(log_text)
    if reason:
        out["full_reason"] = reason
    # and "load /data/<file> → [missing] success <size> in <N>ms" once per data loader it ran:
    # where a rebuild's time goes (loaders run concurrently, so these overlap)
    out["loaders_ms"] = {name: int(ms) for name, ms in
                         re.findall(r"load (/data/\S+) → \[missing\] success [\d.]+ \w*B in (\d+)ms", log_text)}
    # ... or, since they run side by side before Framework copies any file (sitebuild/loaders.js):
    out["loaders_ms"].update({name: int(ms) for name, ms in
                              re.findall(r"iopscope: data loader (/data/\S+) ran side by side: \d+ bytes in (\d+)ms", log_text)})
    # and marts.zip.py: how many keyed Parquet files came from the part cache, how many were written
    parts = re.search(r"marts: (\d+) Parquet files from the part cache, (\d+) written", log_text)
    if parts:
        out["parquet_parts"] = {"reused": int(parts[1]), "written": int(parts[2])}
    if m["rc"] != 0 or m["timed_out"]:
        out["stderr_tail"] = log_text[-1500:]
        return out
    files, size = tree_size(dist)
    pages = sum(1 for p in dist.rglob("*.html"))
    data_files = [p for p in dist.rglob("*") if p.is_file() and "_file" in p.parts]
    largest = sorted(((p.stat().st_size, p) for p in dist.rglob("*") if p.is_file()), reverse=True)[:6]
    out.update({"dist_files": files, "dist_mib": round(size / 2 ** 20, 2), "html_pages": pages,
                "data_files": len(data_files), "data_mib": round(sum(p.stat().st_size for p in data_files) / 2 ** 20, 2),
                "largest": [{"path": str(p.relative_to(dist)), "kib": round(s / 1024, 1)} for s, p in largest]})
    return out


# The lines in which the stages say what they did: the ingest's counts, the replayed update's,
# the loaders' (what came from their caches, what was written) and the site's build
_SAID = r"\s*(ingest: |warehouse: update|iopscope: data loader|marts: |pages: |iopscope: (site updated|full site))"


def said_lines(log_text: str) -> list[str]:
    return [" ".join(line.split()) for line in log_text.splitlines() if re.match(_SAID, line)]


def site_mode(log_text: str) -> tuple[str, str | None]:
    """How sitebuild/build.js built: ("in place", None), ("up to date", None) when nothing had
    changed, or ("full", why) as it logged it."""
    if "iopscope: site updated in place" in log_text:
        return "in place", None
    if "iopscope: site up to date" in log_text:
        return "up to date", None
    reason = re.search(r"iopscope: full site build \((.*)\)", log_text)
    return "full", reason[1] if reason else None


def run_build(env: dict[str, str], target: Path, site_root: Path, dist: Path,
              only: list[Path] | None = None) -> dict[str, Any]:
    """``iopscope build``: ingest, warehouse and site in one command and one process, as a lab
    runs it (the other measurements run each stage as a command of its own). The site is that
    of ``site_root`` (its sources and Framework cache) into ``dist``; the stages' times are the
    command's own "done <stage> in <s> s" lines. ``only``: ``iopscope build <run folder>``, as a
    capture that knows the folder it wrote runs it (no walk of the raw tree)."""
    project = SNAP.get("project", ROOT)
    env = {**env, "DBT_TARGET_PATH": str(target), "DBT_LOG_PATH": str(target.parent / "logs"), "IOPSCOPE_HOME": str(project),
           "IOPSCOPE_SITE_ROOT": str(site_root / "src"), "IOPSCOPE_DIST": str(dist), "IOPSCOPE_PYTHON": PY, "NO_COLOR": "1",
           "COLUMNS": "200"}
    m = measure([str(BIN / "iopscope"), "build", *map(str, only or [])], env=env, cwd=project)
    out: dict[str, Any] = {k: m[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib")}
    log_text = m["stdout"] + m["stderr"]
    out["stages_s"] = {stage: float(s) for stage, s in re.findall(r"done (\w+) in ([\d.]+) s", log_text)}
    out["new_run_parsed"] = re.search(r"\(1 parsed\b", " ".join(log_text.split())) is not None
    out["site_mode"] = site_mode(log_text)[0]
    out["warehouse_replayed"] = "update replayed without dbt" in log_text
    out["notes"] = said_lines(log_text)
    if m["rc"] != 0:
        out["stderr_tail"] = log_text[-1500:]
    return out


def run_page_runs(warehouse: Path) -> list[str]:
    """The runs whose pages the benchmark opens: the fio run with the most results and the TPC-C
    run with the most intervals, measured or synthetic (the published studies' one "run" holds
    every study: not what a lab's run page is), as bench/run_page.mjs reads them; chosen here by
    SQL, since that script's own default reads whole sample marts into Node."""
    import duckdb

    if not warehouse.exists():
        return []
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        ids = []
        for mart in ("fct_fio_results", "fct_tpcc_intervals"):
            with contextlib.suppress(duckdb.Error):
                row = con.execute(f"select run_id from marts.{mart} where run_id not in (select run_id from marts.dim_runs "
                                  "where source_kind = 'published') group by 1 order by count(*) desc, run_id limit 1").fetchone()
                if row:
                    ids.append(row[0])
        return ids
    finally:
        con.close()


def run_run_pages(dist: Path, run_ids: list[str], loads: int = 3) -> dict[str, Any]:
    """bench/run_page.mjs on ``run_ids``: each run page's results shown and first chart drawn
    (median of ``loads`` fresh loads), and what it fetched of the marts."""
    m = measure(["node", str(ROOT / "bench" / "run_page.mjs"), "--loads", str(loads), *run_ids], cwd=ROOT,
                env={**os.environ, "IOPSCOPE_DIST": str(dist)}, timeout_s=1800)
    try:
        return {"loads": loads, "runs": json.loads(m["stdout"])}
    except ValueError:
        return {"loads": loads, "error": (m["stdout"] + m["stderr"])[-2000:]}


def run_browser(dist: Path, pages: list[str], budget_runs: int = 3, run_ids: list[str] | None = None) -> dict[str, Any]:
    """Chromium figures of a built site: bench/site_bench.mjs (load, first chart, a generic
    filter change, JS heap), when present the site's own bench/site_budget.mjs (page-specific
    interactions, median of ``budget_runs`` loads), recorded as they report them, and the run
    pages of ``run_ids`` (bench/run_page.mjs)."""
    result: dict[str, Any] = {}
    m = measure(["node", str(ROOT / "bench" / "site_bench.mjs"), str(dist), *pages], cwd=ROOT, timeout_s=1800)
    try:
        result = json.loads(m["stdout"].strip().splitlines()[-1])
        result["process"] = {k: m[k] for k in ("wall_s", "cpu_s", "max_rss_mib")}
    except (ValueError, IndexError):
        result = {"error": (m["stdout"] + m["stderr"])[-2000:]}
    budget = ROOT / "bench" / "site_budget.mjs"
    if budget.exists():
        out = dist.parent / f"{dist.name}-site_budget.json"
        b = measure(["node", str(budget), "--runs", str(budget_runs), "--json", str(out)], cwd=ROOT,
                    env={**os.environ, "IOPSCOPE_DIST": str(dist)}, timeout_s=1800)
        entry: dict[str, Any] = {"rc": b["rc"], "wall_s": b["wall_s"]}
        if out.exists():
            entry.update(json.loads(out.read_text()))
        else:
            entry["output"] = (b["stdout"] + b["stderr"])[-3000:]
        result["site_budget"] = entry
    if run_ids:
        result["run_page"] = run_run_pages(dist, run_ids)
    return result


def state_stats(lake: Path) -> dict[str, Any]:
    # the state is the snapshot and its journal (lake.py): a bulk ingest may leave the runs all
    # in the journal, and the snapshot alone then read 0.1 KiB at 1,000 runs (run 26)
    files = [lake / "_state.json", *lake.glob("_state.*.jsonl")] if lake.exists() else []
    present = [f for f in files if f.exists()]
    parts = sum(1 for _ in lake.rglob("*.parquet")) if lake.exists() else 0
    return {"state_kib": round(sum(f.stat().st_size for f in present) / 1024, 1) if present else None,
            "parquet_files": parts, "lake_mib": round(tree_size(lake)[1] / 2 ** 20, 1) if lake.exists() else None}


def section_scale(work: Path, scale: str, seed: int, do_dbt: bool, do_site: bool,
                  browser: bool, browser_pages: list[str], bundled: bool = True) -> dict[str, Any]:
    raw, tree = ensure_tree(work, scale, seed, bundled)
    files, size = tree_size(raw)
    files -= 1 if (raw / ".bench-tree.json").exists() else 0
    out: dict[str, Any] = {"scale": scale, "raw": str(raw), "tree": tree, "raw_files": files, "raw_bytes": size}
    lake, wh = work / f"lake-{scale}", work / f"wh-{scale}" / "iopscope.duckdb"
    for stale in (lake, wh.parent, work / f"dbt-{scale}"):   # cold start: no lake, warehouse, dbt target
        shutil.rmtree(stale, ignore_errors=True)
    listing = [Path(d) / n for d, _, ns in os.walk(raw) for n in ns if not n.startswith(".")]
    read_bound(listing)
    out["cat"] = read_bound(listing)
    log(f"{scale}: ingest of {len(listing)} files, {size / 1e6:.1f} MB")
    ing = probe(["ingest", str(raw), str(lake)])
    out["ingest"] = {k: ing[k] for k in ("wall_s", "cpu_s", "runs_seen", "runs_ingested", "files_parsed",
                                          "bytes_parsed", "rows_written", "errors", "warnings", "first_errors",
                                          "steps")}
    out["ingest"]["max_rss_mib"] = ing["process"]["max_rss_mib"]
    out["ingest"]["mb_s_cpu"] = _rate(ing["bytes_parsed"] / 1e6, ing["cpu_s"])
    out["ingest"]["mb_s_wall"] = _rate(ing["bytes_parsed"] / 1e6, ing["wall_s"])
    out["lake"] = state_stats(lake)
    env = pipeline_env(lake, wh, work / f"dbt-{scale}", raw)
    log(f"{scale}: no-op re-ingest")
    noop = measure([str(BIN / "iopscope"), "ingest", "--quiet"], env=env, cwd=ROOT)
    out["noop_ingest"] = {k: noop[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib")}
    if do_dbt:
        log(f"{scale}: dbt build")
        out["dbt"] = run_dbt(env, work / f"dbt-{scale}" / "target")
    if do_site and out.get("dbt", {}).get("warehouse_mib"):
        # one run page (/runs/run?id=) reads per-run files: the whole site is built at every scale
        log(f"{scale}: site build")
        out["site"] = run_site(env, private_site_root(work), work / f"dist-{scale}", timeout_s=SITE["timeout_s"])
        if browser and out["site"].get("rc") == 0:
            log(f"{scale}: browser")
            out["browser"] = run_browser(work / f"dist-{scale}", browser_pages, run_ids=run_page_runs(wh))
    return out


def replay_script_current(warehouse: Path) -> bool:
    """The warehouse's update script (iopscope/update_replay.py) was recorded for the project
    that built it, so the next update replays it. One left by an older project (the benchmark of
    a changed model: the full build above replaced the warehouse) is not: the next update would
    run dbt, and the measured update would be dbt's, not the replay a lab's updates are."""
    from iopscope import build_stamp, update_replay

    build_key = build_stamp.read(warehouse).get("build_key")
    return bool(build_key) and update_replay.load(warehouse, update_replay.script_key(build_key, warehouse)) is not None


# The kinds of the new runs one section adds, in order: the first three (the stages as commands,
# `iopscope build`, `iopscope build <run folder>`) TPC-C runs, then each repeat's three of one
# kind, fio and TPC-C in turn. The same kinds at every scale, so that a slope compares like with
# like: the campaigns that follow a synthetic lake differ between scales (after 1,000 runs four
# TPC-C campaigns, after 10,000 TPC-C and fio ones), and a fio run rewrites more of the site
# than a TPC-C run (its results, histograms and the sizing points: docs/performance.md, run 27).
# A fixed piece of work timed beside the builds of one new run (a Python loop and a DuckDB scan,
# in a process of their own): this machine ran it 0.36-0.67 s for the loop within minutes of one
# another (2026-11-29), and a slope compares builds measured minutes apart, one scale after the
# other. The report prints it for each scale, so a slope flattered or hurt by the machine's
# phase shows as such (docs/performance.md, run 28b).
PROBE_CODE = ("import time, duckdb\n"
              "t = time.perf_counter(); sum(i * i for i in range(5_000_000)); a = time.perf_counter() - t\n"
              "c = duckdb.connect(); t = time.perf_counter()\n"
              "c.execute('select sum(hash(i)) from range(50_000_000) t(i)').fetchall(); b = time.perf_counter() - t\n"
              "print(round(a, 3), round(b, 3))")


def speed_probe() -> dict[str, float] | None:
    """The fixed work's seconds: {"python_s", "duckdb_s", "total_s"}; None when it failed."""
    done = subprocess.run([PY, "-c", PROBE_CODE], capture_output=True, text=True, timeout=120)
    try:
        python_s, duckdb_s = (float(x) for x in done.stdout.split())
    except ValueError:
        return None
    return {"python_s": python_s, "duckdb_s": duckdb_s, "total_s": round(python_s + duckdb_s, 3)}


def _probe_s(inc: dict[str, Any]) -> float | None:
    """The mean of a section's probes (before and after its builds), or None."""
    totals = [p["total_s"] for p in (inc.get("probe_before"), inc.get("probe_after")) if p]
    return round(statistics.mean(totals), 3) if totals else None


def new_run_kinds(repeats: int) -> list[str]:
    return ["tpcc"] * 3 + [kind for i in range(1, repeats) for kind in [("fio" if i % 2 else "tpcc")] * 3]


def pick_new_runs(seed: int, runs: int, length: float, kinds: list[str]):
    """For each kind in ``kinds``, the next run of that kind the seed's sequence holds after the
    lake's ``runs`` (each run once, in sequence order within a kind)."""
    from iopscope.synth.generate import plan

    window = 64 * (len(kinds) + 1)
    while True:
        pool = plan(seed, runs + window, length)[runs:]
        by_kind: dict[str, list] = {}
        for run in pool:
            by_kind.setdefault(run.campaign.kind, []).append(run)
        if all(kinds.count(k) <= len(by_kind.get(k, [])) for k in set(kinds)):
            taken = {k: iter(v) for k, v in by_kind.items()}
            return [next(taken[k]) for k in kinds]
        window *= 4


def same_new_runs(scales: list[str]) -> int | None:
    """Where the incremental section of several ``scales`` picks its new runs: after the largest
    scale's runs, so that every scale gets the very same runs (same campaigns, devices, profiles,
    logs or none), and the slope compares the archive's size alone. Until run 30 each scale
    took the runs after its own: a fio run with windowed logs costs more to add than one without,
    and which of them a scale drew decided part of its median. None when the scales' runs differ
    in length (N@F): their runs are not the same runs."""
    plans = [scale_plan(s) for s in scales]
    if len({length for _, length in plans}) != 1:
        return None
    return max(runs for runs, _ in plans)


def generate_one(raw: Path, run, seed: int, length: float) -> None:
    """Write the one planned ``run`` (RunPlan) under ``raw``."""
    from iopscope.synth.generate import generate

    generate(raw, run.index + 1, seed, start=run.index, length=length)


def interleaved(sections) -> list[dict[str, Any]]:
    """Run generators (:func:`incremental_steps`) a step of each in turn, and return what each
    returned. The slope compares one scale's builds with the other's: built one scale after the
    other, a change in the machine's pace between the two halves read as growth (run 28: every
    1,000-run build ~0.8 s quicker than in run 28b a few minutes later, same code); alternated,
    both scales' builds of each kind are measured within a minute of each other."""
    results: list[Any] = [None] * len(sections)
    live = list(enumerate(sections))
    while live:
        for item in list(live):
            i, steps = item
            try:
                next(steps)
            except StopIteration as done:
                results[i] = done.value
                live.remove(item)
    return results


def incremental_steps(work: Path, scale: str, seed: int, do_dbt: bool, do_site: bool = False,
                      browser_pages: list[str] | None = None, repeats: int = 1, site_root: str = "site-root",
                      pick_after: int | None = None):
    """One new run into the lake of ``scale`` (built by section_scale), then rebuild; with
    ``browser_pages`` the rebuilt site is measured in Chromium too. ``repeats`` > 1: after all
    that, one new run at a time again (repeats - 1 more for each measure): the medians are what
    the slope is computed from (this machine's noise moved one update by 1.5x within the hour).
    A generator: it yields after the unmeasured preparation and after each measured build, so
    that :func:`interleaved` can alternate the scales (each then needs its own ``site_root``);
    returns the section's figures. ``pick_after``: the new runs are the seed's runs after that
    many (the largest scale's), the same runs at every scale (:func:`same_new_runs`)."""
    runs, length = scale_plan(scale)
    raw = raw_dir(work, scale) if runs else None
    if raw is None or not raw.exists():
        return {"skipped": "needs a synthetic scale"}
    lake, wh = work / f"lake-{scale}", work / f"wh-{scale}" / "iopscope.duckdb"
    env = pipeline_env(lake, wh, work / f"dbt-{scale}", raw)
    # every run this section may add (new_run_kinds), then the primer, added only when no update
    # script exists (below)
    kinds = new_run_kinds(repeats)
    new, build_run, named_run, *repeat_runs, primer = pick_new_runs(seed, max(runs, pick_after or 0), length,
                                                                    [*kinds, "tpcc"])
    new_dir = raw / new.rel_dir
    primer_dir = raw / primer.rel_dir
    for left in [raw / r.rel_dir for r in (new, build_run, named_run, *repeat_runs, primer)]:
        if left.exists():   # left behind by a benchmark killed before its clean-up (finally, below)
            shutil.rmtree(left)
            if not any(left.parent.iterdir()):
                left.parent.rmdir()
    created = [(new_dir, new_dir.parent.exists())]   # run folders this section adds, and whether their campaign was there
    out: dict[str, Any] = {"scale": scale, "new_run": new.rel_dir, "new_run_kind": new.campaign.kind}
    # this run's site sources (a scale section of an earlier run left its own), bundles kept
    root = private_site_root(work, keep_cache=True, name=site_root) if do_site else work / "site-root"
    try:
        # The lake may still hold this very run from an earlier benchmark: its raw folder is
        # removed after each (below), but the lake forgets a run only at the next ingest, and the
        # floor section builds the warehouse from that lake. Until 2026-11-27 the "new" run was
        # therefore not new (ingest: "0 parsed", an update with nothing to add). Lake and
        # warehouse are first brought up to date with the raw tree, unmeasured, so the run
        # measured below is new to both; `new_run_parsed` records that it was.
        log(f"incremental: lake and warehouse up to date with {raw.name} (not measured)")
        out["prepare"] = {"ingest": measure([str(BIN / "iopscope"), "ingest", "--quiet"], env=env, cwd=ROOT)["wall_s"]}
        if do_dbt and wh.exists():
            out["prepare"]["dbt"] = run_dbt(env, work / f"dbt-{scale}" / "target", "update")["wall_s"]
            if not replay_script_current(wh):
                # A lab's second update onwards replays the statements the first one recorded
                # (iopscope/update_replay.py); after the full build of the scales section there
                # is none yet: one more run, updated by dbt, records them (not measured).
                log("incremental: a first update after the full build, to record its statements (not measured)")
                created.append((primer_dir, primer_dir.parent.exists()))
                generate_one(raw, primer, seed, length)
                measure([str(BIN / "iopscope"), "ingest", "--quiet"], env=env, cwd=ROOT)
                out["prepare"]["record"] = run_dbt(env, work / f"dbt-{scale}" / "target", "update")["wall_s"]
        if do_site and wh.exists() and root.exists():
            # the site as it stood before the run came (a lab's last `iopscope build`): what the
            # next build may reuse (the marts' Parquet parts, src/data/_run_parquet.py PartCache)
            log(f"incremental: site build before the new run ({root.name})")
            out["site_before"] = run_site(env, root, work / f"dist-{scale}-incremental", keep_bundles=True)
            # (a full build, and the record the next build starts from: sitebuild/update.js)
        yield   # prepared, nothing measured yet
        out["probe_before"] = speed_probe()
        generate_one(raw, new, seed, length)
        log(f"incremental: ingest 1 new run into {scale}")
        ing = measure([str(BIN / "iopscope"), "ingest", "--quiet"], env=env, cwd=ROOT)
        out["ingest"] = {k: ing[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib", "tree_rss_peak_mib")}
        out["ingest"]["summary"] = " ".join(ing["stderr"].split())[:500]
        out["new_run_parsed"] = re.search(r"\(1 parsed\b", out["ingest"]["summary"]) is not None
        total = ing["wall_s"]
        if do_dbt and wh.exists():
            # what `iopscope build` runs after an ingest: the incremental warehouse update
            log("incremental: iopscope dbt --update")
            out["dbt"] = run_dbt(env, work / f"dbt-{scale}" / "target", "update")
            total += out["dbt"]["wall_s"]
        out["ingest_plus_dbt_wall_s"] = round(total, 2)
        out["ingest_plus_dbt_cpu_s"] = round(ing["cpu_s"] + out.get("dbt", {}).get("cpu_s", 0), 2)
        out["runs"] = runs
        out["lake"] = state_stats(lake)
        if do_dbt:
            log("incremental: dbt floor (a one-model project)")
            out["dbt_floor"] = dbt_floor(work, env)
        if do_site and wh.exists() and root.exists():
            log(f"incremental: site build ({root.name})")
            out["site"] = run_site(env, root, work / f"dist-{scale}-incremental", keep_bundles=True, in_place=True)
            out["ingest_dbt_site_wall_s"] = round(total + out["site"].get("wall_s", 0), 2)
            yield
            if browser_pages and out["site"].get("rc") == 0:
                log(f"incremental: browser ({scale} + 1 run)")
                out["browser"] = run_browser(work / f"dist-{scale}-incremental", browser_pages, run_ids=run_page_runs(wh))
            if do_dbt and out["site"].get("rc") == 0:
                # The target as the issue states it: from `iopscope build` to the site showing the
                # run, one command (the stages above ran as three, each starting Python again)
                created.append((raw / build_run.rel_dir, (raw / build_run.rel_dir).parent.exists()))
                generate_one(raw, build_run, seed, length)
                log(f"incremental: iopscope build of one more new run into {scale} (one command)")
                out["build"] = run_build(env, work / f"dbt-{scale}" / "target", root, work / f"dist-{scale}-incremental")
                out["build"]["kind"] = build_run.campaign.kind
                yield
                # the same for one more run, named: `iopscope build <run folder>` reads that run
                # alone instead of walking the whole raw tree (what grows with the archive)
                created.append((raw / named_run.rel_dir, (raw / named_run.rel_dir).parent.exists()))
                generate_one(raw, named_run, seed, length)
                log(f"incremental: iopscope build <run folder> of one more new run into {scale} (one command)")
                out["build_named"] = run_build(env, work / f"dbt-{scale}" / "target", root,
                                               work / f"dist-{scale}-incremental", only=[raw / named_run.rel_dir])
                out["build_named"]["kind"] = named_run.campaign.kind
                yield
        # the repeats: more runs, one at a time, each measured like the first: ingest + update,
        # `iopscope build <run folder>` and `iopscope build`, a new run each, three of one kind
        for i in range(1, repeats):
            two, one, walked = repeat_runs[3 * (i - 1):3 * i]   # generated one at a time below
            for run in (two, one, walked):
                created.append((raw / run.rel_dir, (raw / run.rel_dir).parent.exists()))
            generate_one(raw, two, seed, length)
            log(f"incremental: repeat {i + 1} of {repeats}: ingest + update of one more new {two.campaign.kind} run into {scale}")
            ing = measure([str(BIN / "iopscope"), "ingest", "--quiet"], env=env, cwd=ROOT)
            again = {"ingest_wall_s": ing["wall_s"], "ingest_cpu_s": ing["cpu_s"], "kind": two.campaign.kind,
                     "new_run_parsed": re.search(r"\(1 parsed\b", " ".join(ing["stderr"].split())) is not None}
            if do_dbt and wh.exists():
                upd = run_dbt(env, work / f"dbt-{scale}" / "target", "update")
                again.update(dbt_wall_s=upd["wall_s"], dbt_cpu_s=upd["cpu_s"], dbt_rc=upd.get("rc"))
            out.setdefault("repeats", []).append(again)
            yield
            if do_site and do_dbt and out.get("build_named"):
                generate_one(raw, one, seed, length)
                log(f"incremental: repeat {i + 1} of {repeats}: iopscope build <run folder> into {scale}")
                again["build_named"] = run_build(env, work / f"dbt-{scale}" / "target", root,
                                                 work / f"dist-{scale}-incremental", only=[raw / one.rel_dir])
                again["build_named"]["kind"] = one.campaign.kind
                yield
            if do_site and do_dbt and out.get("build"):
                generate_one(raw, walked, seed, length)
                log(f"incremental: repeat {i + 1} of {repeats}: iopscope build into {scale}")
                again["build"] = run_build(env, work / f"dbt-{scale}" / "target", root, work / f"dist-{scale}-incremental")
                again["build"]["kind"] = walked.campaign.kind
                yield
        out["probe_after"] = speed_probe()
    finally:
        for run_dir, campaign_existed in reversed(created):
            shutil.rmtree(run_dir if campaign_existed else run_dir.parent, ignore_errors=True)
    return out


def section_floor(work: Path, scale: str) -> dict[str, Any]:
    """A full warehouse build of the ``scale`` lake, then its physical floor (bench/floor.py)."""
    runs, _ = scale_plan(scale)
    lake, wh = work / f"lake-{scale}", work / f"wh-{scale}" / "iopscope.duckdb"
    if not lake.exists():
        return {"scale": scale, "skipped": "needs the lake of a scales run"}
    env = pipeline_env(lake, wh, work / f"dbt-{scale}")
    out: dict[str, Any] = {"scale": scale, "runs": runs, "lake": state_stats(lake)}
    log(f"floor: full warehouse build of {scale}")
    out["dbt"] = run_dbt(env, work / f"dbt-{scale}" / "target", "full")
    log(f"floor: DuckDB reading and writing the same rows ({scale})")
    m = measure([PY, str(ROOT / "bench" / "floor.py"), "--lake", str(lake), "--warehouse", str(wh),
                 "--work", str(work / f"floor-{scale}")], env={**env, "IOPSCOPE_DUCKDB_THREADS": str(DUCKDB_THREADS or 2)})
    out["floor_process"] = {k: m[k] for k in ("rc", "wall_s", "cpu_s", "max_rss_mib")}
    try:
        out["floor"] = json.loads(m["stdout"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        out["floor_error"] = (m["stdout"] + m["stderr"])[-1500:]
    return out


# ------------------------------------------------------------------------------ growth + report


def growth(scales: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """log-log slope of each cost between consecutive scales (x = runs in the lake)."""
    metrics = {
        "ingest cpu_s": lambda s: s["ingest"]["cpu_s"],
        "ingest wall_s": lambda s: s["ingest"]["wall_s"],
        "ingest peak RSS": lambda s: s["ingest"]["max_rss_mib"],
        "no-op re-ingest wall_s": lambda s: s["noop_ingest"]["wall_s"],
        "state file KiB": lambda s: s["lake"]["state_kib"],
        "dbt build wall_s": lambda s: s["dbt"]["wall_s"],
        "dbt peak RSS": lambda s: s["dbt"]["max_rss_mib"],
        "warehouse MiB": lambda s: s["dbt"]["warehouse_mib"],
        "site build wall_s": lambda s: s["site"]["wall_s"],
        "site MiB shipped": lambda s: s["site"]["dist_mib"],
    }
    def failed(s: dict[str, Any], name: str) -> bool:
        """A stage that was stopped or crashed has no comparable figure. A dbt build that ended
        with a failing test counts when it built every model, not when a model errored or was
        skipped (run 14: tests that ran out of disk at 100,000 runs skipped a model after them,
        and the build's shorter time read as a slope of 1.01)."""
        stage = s.get({"dbt": "dbt", "site": "site"}.get(name.split()[0], ""), {})
        if not stage:
            return False
        if stage.get("timed_out") or stage.get("rss_capped"):
            return True
        if name.startswith("site") and stage.get("rc") != 0:
            return True
        if not name.startswith("dbt") or stage.get("rc") == 0:
            return False
        statuses = stage.get("statuses") or {}
        return not statuses or any(k in statuses for k in ("model:error", "model:skipped"))

    rows = []
    for name, get in metrics.items():
        points = []
        for s in scales:
            try:
                value = get(s)
            except (KeyError, TypeError):
                continue
            if value and not failed(s, name):
                points.append((s["ingest"]["runs_seen"], value, s["scale"]))
        slopes = []
        for (x0, y0, _), (x1, y1, _) in zip(points, points[1:]):
            if x1 > x0 and y0 > 0 and y1 > 0:
                slopes.append(round(math.log(y1 / y0) / math.log(x1 / x0), 2))
        last = slopes[-1] if slopes else None
        rows.append({"metric": name, "points": [[x, y, label] for x, y, label in points], "slopes": slopes,
                     "superlinear": bool(last is not None and last > 1.15 and points[-1][0] >= 1000)})
    return rows


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for fmt_name, entry in report.get("formats", {}).items():
        if not entry["text"]:
            continue
        big = entry["big"]
        rows.append({"target": f"{fmt_name}: ingest >= {TARGETS['text_mb_s_per_core']:.0f} MB/s per core (large file)",
                     "value": big["ingest"]["mb_s_cpu"],
                     "met": (big["ingest"]["mb_s_cpu"] or 0) >= TARGETS["text_mb_s_per_core"]})
        rows.append({"target": f"{fmt_name}: ingest within {TARGETS['duckdb_ratio_max']:.0f}x of DuckDB read_csv (1 thread)",
                     "value": big["ratio_ingest_vs_duckdb_1t"],
                     "met": (big["ratio_ingest_vs_duckdb_1t"] or 99) <= TARGETS["duckdb_ratio_max"]})
        if "cut" in entry:   # reports from before the cut-file measurement have none
            rows.append({"target": f"{fmt_name}: ingest >= {TARGETS['text_mb_s_per_core']:.0f} MB/s per core (the large file cut mid-line)",
                         "value": entry["cut"]["mb_s_cpu"],
                         "met": (entry["cut"]["mb_s_cpu"] or 0) >= TARGETS["text_mb_s_per_core"]})
    rows += incremental_targets(report.get("incrementals") or [report.get("incremental", {})])
    rows += warehouse_targets(report.get("scales", []) + [f for f in report.get("floors", []) if not f.get("skipped")])
    # the growth from the scales section's lakes alone: each was ingested whole just before it
    # was counted (the floor's lakes have taken the incremental section's new runs since)
    rows += lake_growth_targets(report.get("scales", []))
    rebuilt = [dict(inc, scale=f"{inc['scale']} + 1 new run") for inc in report.get("incrementals") or []
               if inc.get("browser")]
    for s in report.get("scales", []) + rebuilt:
        browser = s.get("browser") or {}
        budget = (browser.get("site_budget") or {}).get("results")
        if not browser and not (s.get("site") or {}).get("rss_capped"):
            continue
        site = s.get("site") or {}
        if site and (site.get("rc") != 0 or site.get("rss_capped") or site.get("timed_out")):
            why = "stopped above the memory cap" if site.get("rss_capped") else f"failed (rc {site.get('rc')})"
            rows.append({"target": f"{s['scale']}: site builds, first chart <= {TARGETS['first_chart_ms']:.0f} ms, "
                                   f"filter <= {TARGETS['filter_ms']:.0f} ms", "value": f"site build {why}", "met": False})
            continue
        failures: list[str] = []
        if budget:   # the site's own page-specific measurements
            charts = [r["firstChartMs"] for r in budget if r.get("firstChartMs") is not None]
            filters = [r["interactionMs"] for r in budget
                       if r.get("interactionMs") is not None and r.get("page") != "/sql"]
            failures = [f"{r['page']}: {r['interaction']} failed" for r in budget
                        if r.get("interaction") and r.get("interactionMs") is None]
        else:        # bench/site_bench.mjs: first rendered chart, generic <select> change
            charts = [p["first_chart_ms"] for p in browser.get("pages") or [] if p.get("first_chart_ms") is not None]
            filters = [p["filter"]["settled_ms"] for p in browser.get("pages") or []
                       if (p.get("filter") or {}).get("settled_ms") is not None]
        # a chart page that never drew a chart (within 60 s) fails the first-chart target
        failures += [f"{p['path']}: no chart within 60 s" for p in browser.get("pages") or []
                     if p.get("path") in CHART_PAGES and p.get("first_chart_ms") is None]
        no_chart = [f for f in failures if "no chart" in f]
        broken = [f for f in failures if "failed" in f]
        if charts or no_chart:
            worst = max(charts) if charts else None
            rows.append({"target": f"{s['scale']}: first chart <= {TARGETS['first_chart_ms']:.0f} ms (slowest page)",
                         "value": "; ".join([f"{worst:.0f} ms" if worst is not None else "-"] + no_chart),
                         "met": not no_chart and worst is not None and worst <= TARGETS["first_chart_ms"]})
        if filters or broken:
            worst = max(filters) if filters else None
            rows.append({"target": f"{s['scale']}: filter settles <= {TARGETS['filter_ms']:.0f} ms (slowest page)",
                         "value": "; ".join([f"{worst:.0f} ms" if worst is not None else "-"] + broken),
                         "met": not broken and worst is not None and worst <= TARGETS["filter_ms"]})
        row = run_page_target(s["scale"], browser.get("run_page"))
        if row:
            rows.append(row)
    return rows


def run_page_target(scale: str, run_page: dict | None) -> dict[str, Any] | None:
    """The run page target of one scale's browser figures: the slowest run's first chart (a run
    page that drew none, or a failed measurement, does not meet it)."""
    if not run_page:
        return None
    target = f"{scale}: run page first chart <= {TARGETS['run_page_first_chart_ms']:.0f} ms (slowest run)"
    runs = run_page.get("runs") or []
    if run_page.get("error") or not runs:
        return {"target": target, "value": f"measurement failed: {str(run_page.get('error', 'no run'))[-200:]}", "met": False}
    drawn = [r for r in runs if r.get("first_chart_ms") and not r.get("problems")]
    broken = [r["run_id"] for r in runs if r not in drawn]
    worst = max(drawn, key=lambda r: r["first_chart_ms"]) if drawn else None
    value = "; ".join(([f"{worst['first_chart_ms']:.0f} ms ({worst['run_id']}, {len(runs)} runs, median of "
                        f"{run_page.get('loads')} loads)"] if worst else []) + [f"{r}: no chart" for r in broken])
    return {"target": target, "value": value,
            "met": not broken and worst is not None and worst["first_chart_ms"] <= TARGETS["run_page_first_chart_ms"]}


KIND_LABELS = {"tpcc": "TPC-C", "fio": "fio"}


def _kind_label(kind: str | None) -> str:
    return f"a {KIND_LABELS.get(kind, kind)} run: " if kind else ""


def _add_points(points: dict, name: str, runs: int, measured: list[tuple[str | None, float, float]]) -> None:
    """One point per kind of run for the slope of ``name``: (runs, median wall, median CPU,
    how many) of that kind's measurements at this scale."""
    for kind in sorted({k for k, _, _ in measured}, key=str):
        walls = [w for k, w, _ in measured if k == kind]
        cpus = [c for k, _, c in measured if k == kind]
        label = f"{name}, {KIND_LABELS.get(kind, kind)} runs" if kind else name
        points.setdefault(label, []).append(
            (runs, round(statistics.median(walls), 3), round(statistics.median(cpus), 3), len(walls)))


def incremental_targets(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One new run: under 10 s (with the site when it was measured, else ingest + warehouse;
    the slowest build of a scale decides), and not growing with the archive (log-log slope
    between the smallest and largest lake, of the medians of one kind of run at each: TPC-C and
    fio runs apart), for each way it was measured: ingest + update as two commands (a
    diagnostic), `iopscope build` (one command, the raw tree walked), `iopscope build <run
    folder>` (one command, the run named)."""
    rows = []
    points: dict[str, list[tuple[int, float, float]]] = {}
    probes = {inc["runs"]: _probe_s(inc) for inc in runs if inc.get("runs")}   # the machine's pace at each scale
    for inc in runs:
        if "ingest_plus_dbt_wall_s" not in inc:
            continue
        failed = [stage for stage in ("ingest", "dbt", "site") if (inc.get(stage) or {}).get("rc") not in (None, 0)]
        if failed:   # a stage that did not run is no figure (and no point of the slope)
            rows.append({"target": f"1 new run into the {inc['scale']}-run lake < {TARGETS['incremental_s']:.0f} s",
                         "value": f"failed: {', '.join(failed)}", "met": False})
            continue
        if inc.get("new_run_parsed") is False:   # no figure of one new run (see incremental_steps)
            rows.append({"target": f"1 new run into the {inc['scale']}-run lake < {TARGETS['incremental_s']:.0f} s",
                         "value": f"not measured: the ingest parsed no new run ({inc['ingest'].get('summary', '')[:120]})",
                         "met": False})
            continue
        total = inc.get("ingest_dbt_site_wall_s", inc["ingest_plus_dbt_wall_s"])
        what = "ingest + warehouse update + site" if "ingest_dbt_site_wall_s" in inc else "ingest + warehouse update"
        floor = (inc.get("dbt_floor") or {}).get("wall_s")
        repeats = [r for r in inc.get("repeats", []) if r.get("new_run_parsed") and r.get("dbt_rc") in (None, 0)]
        if inc.get("runs"):
            # the medians per kind of run (new_run_kinds: the same kinds at every scale); a report
            # from before kinds were recorded has one kind, None
            two = [(inc.get("new_run_kind"), inc["ingest_plus_dbt_wall_s"], inc["ingest_plus_dbt_cpu_s"])]
            two += [(r.get("kind"), r["ingest_wall_s"] + r.get("dbt_wall_s", 0), r["ingest_cpu_s"] + r.get("dbt_cpu_s", 0))
                    for r in repeats]
            _add_points(points, "ingest + update (two commands)", inc["runs"], two)
        measured_build = False
        for key, command in BUILD_MEASURES:
            build = inc.get(key) or {}
            if build.get("rc") == 0 and build.get("new_run_parsed"):
                # the issue's own measure: `iopscope build`, one command, for one more new run
                measured_build = True
                stages = " + ".join(f"{stage} {s}" for stage, s in build.get("stages_s", {}).items())
                more = [r[key] for r in repeats if (r.get(key) or {}).get("rc") == 0 and r[key].get("new_run_parsed")]
                worst = max(more, key=lambda b: b["wall_s"], default=None)
                rows.append({"target": f"1 new run into the {inc['scale']}-run lake, {command} (one command) < "
                                       f"{TARGETS['incremental_s']:.0f} s",
                             "value": f"{build['wall_s']} s ({_kind_label(build.get('kind'))}{stages}; site "
                                      f"{build.get('site_mode')})"
                                      + (f"; the stages as three commands for the run before: {total} s"
                                         if key == "build" else "")
                                      + (f"; the slowest of {1 + len(more)}: {max(build['wall_s'], worst['wall_s'])} s"
                                         if worst else ""),
                             "met": max([build["wall_s"]] + [b["wall_s"] for b in more]) < TARGETS["incremental_s"]})
                if inc.get("runs"):
                    _add_points(points, f"{command} (one command)", inc["runs"],
                                [(b.get("kind"), b["wall_s"], b["cpu_s"]) for b in [build, *more]])
            elif build:
                rows.append({"target": f"1 new run into the {inc['scale']}-run lake, {command} (one command)",
                             "value": "failed" if build.get("rc") else "no new run parsed", "met": False})
        if not measured_build:
            rows.append({"target": f"1 new run into the {inc['scale']}-run lake, {what} < {TARGETS['incremental_s']:.0f} s",
                         "value": f"{total} s" + (f" (dbt's own floor: {floor} s per invocation)" if floor else ""),
                         "met": total < TARGETS["incremental_s"]})
    for name, series in points.items():
        if len({x for x, *_ in series}) < 2:   # one scale (or one kind measured at one scale only)
            continue
        (x0, w0, c0, n0), (x1, w1, c1, n1) = min(series), max(series)
        # judged unrounded and shown to three places: 0.1004 is over 0.1, not "0.1, met"
        slope_wall = math.log(w1 / w0) / math.log(x1 / x0)
        slope_cpu = math.log(c1 / c0) / math.log(x1 / x0)
        medians = f", medians of {n0} and {n1} runs" if max(n0, n1) > 1 else ""
        pace = (f"; the machine's probe {probes[x0]} s at {x0} runs, {probes[x1]} s at {x1}"
                if probes.get(x0) and probes.get(x1) else "")
        rows.append({"target": f"1 new run, {name}: grows with slope <= {TARGETS['incremental_slope_max']} "
                               f"({x0} -> {x1} runs)",
                     "value": f"{slope_wall:.3f} (wall: {w0} -> {w1} s{medians}), {slope_cpu:.3f} (CPU){pace}",
                     "met": slope_wall <= TARGETS["incremental_slope_max"],
                     # the issue's measure is `iopscope build`; the stages without the site, as two
                     # commands, are reported beside it to show where growth comes from (their
                     # walk stats every raw file: a floor that grows with the archive)
                     **({"diagnostic": True} if name.startswith("ingest + update (two commands)") else {})})
    return rows


def _length_of(section: dict[str, Any]) -> float:
    try:
        return scale_plan(str(section.get("scale", "")))[1]
    except SystemExit:   # a report of another version
        return 1.0


def warehouse_targets(scales: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Full rebuild time and peak (the target is set at 10,000 runs; smaller scales are
    reported against the same figures), and lake files per run at that scale (packs, not parts)."""
    rows = []
    for s in scales:
        runs = (s.get("ingest") or {}).get("runs_seen") or s.get("runs")
        dbt = s.get("dbt") or {}
        if dbt.get("wall_s") is not None:
            peak = dbt.get("tree_rss_peak_mib") or dbt.get("max_rss_mib") or 0
            rows.append({"target": f"{s['scale']}: full warehouse build < {TARGETS['full_build_s']:.0f} s and "
                                   f"< {TARGETS['full_build_peak_mib'] / 1024:.0f} GiB peak"
                                   + ("" if runs and runs >= TARGETS["full_build_at_runs"] else " (target set at 10,000 runs)")
                                   + ("" if _length_of(s) == 1 else f" (runs shortened to {_length_of(s):g}: "
                                                                  "not the target's full-length runs)"),
                         "value": f"{dbt['wall_s']} s, {peak / 1024:.2f} GiB",
                         "met": dbt.get("rc") == 0 and dbt["wall_s"] < TARGETS["full_build_s"]
                         and peak < TARGETS["full_build_peak_mib"]})
        files = (s.get("lake") or {}).get("parquet_files")
        # per run at the target's scale only: a smaller lake has as many collections (each a few
        # packs) over fewer runs, which the growth row below judges instead
        if files and runs and runs >= TARGETS["full_build_at_runs"]:
            rows.append({"target": f"{s['scale']}: lake Parquet files per run <= {TARGETS['parquet_files_per_run_max']}"
                                   " (compaction into packs)",
                         "value": f"{files} files, {files / runs:.3f} per run",
                         "met": files / runs <= TARGETS["parquet_files_per_run_max"]})
    return rows


def lake_growth_targets(scales: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lake's Parquet files against its runs, smallest to largest lake of one section
    (log-log slope): packs per collection, not parts per run and table."""
    lakes = sorted(((s.get("ingest") or {}).get("runs_seen") or s.get("runs"), (s.get("lake") or {}).get("parquet_files"))
                   for s in scales)
    lakes = [(runs, files) for runs, files in lakes if runs and files]
    if len({runs for runs, _ in lakes}) < 2:
        return []
    (r0, f0), (r1, f1) = lakes[0], lakes[-1]
    slope = math.log(f1 / f0) / math.log(r1 / r0)
    return [{"target": f"lake Parquet files grow with collections, not runs: slope <= "
                       f"{TARGETS['parquet_files_slope_max']} ({r0} -> {r1} runs)",
             "value": f"{slope:.3f} ({f0} -> {f1} files)",
             "met": slope <= TARGETS["parquet_files_slope_max"]}]


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    if isinstance(v, float):
        return f"{v:,.3f}" if abs(v) < 10 else f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _stage_time(stage: dict[str, Any]) -> Any:
    if stage.get("rss_capped"):
        return f"stopped at {stage['wall_s']:.0f} s: over {RSS_CAP_MIB / 1024:.0f} GiB"
    if stage.get("timed_out"):
        return f"stopped at {stage['wall_s']:.0f} s (time limit)"
    if stage and stage.get("rc") not in (0, None):
        return f"failed (rc {stage.get('rc')})"
    return stage.get("wall_s")


def _mem(stage: dict[str, Any]) -> float | None:
    """Peak memory of a stage: the larger of its largest process (time -f %M) and all its
    processes together (sampled)."""
    values = [v for v in (stage.get("max_rss_mib"), stage.get("tree_rss_peak_mib")) if v]
    return max(values) if values else None


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    out = [f"# iopscope benchmark ({report['started_at']})\n",
           f"Machine: {m.get('cpus')} CPUs ({m.get('cpu_model', '?')}), {m.get('mem_gib', '?')} GiB, "
           f"{m.get('platform')}; load average {tuple(round(x, 2) for x in m['loadavg_start'])} at the start, "
           f"{tuple(round(x, 2) for x in report.get('loadavg_end', (0, 0, 0)))} at the end. "
           f"Versions: {', '.join(f'{k} {v}' for k, v in m.get('versions', {}).items() if v)}.\n",
           f"Command: `{report['command']}`. Code measured: a snapshot taken at the start of the run "
           f"(git {report.get('snapshot', {}).get('git_head', '?')} plus "
           f"{report.get('snapshot', {}).get('uncommitted_files', '?')} uncommitted files under ingest/, models/, "
           f"src/ ...).\n"]
    if report.get("targets"):
        out.append("## Targets\n")
        out.append(_table(["target", "value", "met"], [[t["target"], t["value"], t["met"]] for t in report["targets"]
                                                       if not t.get("diagnostic")]))
        diagnostics = [t for t in report["targets"] if t.get("diagnostic")]
        if diagnostics:
            out.append("\nDiagnostics (not the issue's targets: measured beside them, judged by the same bound, "
                       "to show where growth comes from; the raw tree's walk, a stat of every file, is part of "
                       "the ingest here and of the no-op ingest in the scales table):\n\n")
            out.append(_table(["measure", "value", "within the bound"],
                              [[t["target"], t["value"], t["met"]] for t in diagnostics]))
    if report.get("formats"):
        out.append("\n## Ingest per format: one large file\n")
        out.append("MB = 10^6 bytes of the raw file. *CPU* rates are per core (user + sys seconds of the "
                   "process; ingest: the least of 2 runs into fresh lakes). DuckDB writes the same records "
                   "(CSV for text formats, NDJSON for JSON "
                   "formats) to zstd Parquet; ratio = our CPU seconds / DuckDB's (1 thread) for the same "
                   "records. `cat` reads the file from the page cache, `dd` with O_DIRECT from the disk.\n\n")
        rows = []
        for name, e in report["formats"].items():
            b = e["big"]
            rows.append([name, round(b["bytes"] / 1e6, 1), b.get("lines"), b["records"], b["parse"]["mb_s_cpu"],
                         b["ingest"]["mb_s_cpu"], b["ingest"]["mb_s_wall"], b["ingest"].get("lines_s_cpu"),
                         b["ingest"]["records_s_cpu"], b["duckdb"]["records_s_cpu"],
                         b["ratio_ingest_vs_duckdb_1t"], b["cat"].get("mb_s"), b["dd_direct"].get("mb_s"),
                         b["ingest"]["max_rss_mib"], b["ingest"]["errors"], (e.get("cut") or {}).get("mb_s_cpu")])
        out.append(_table(["format", "MB", "lines", "records", "parse MB/s CPU", "ingest MB/s CPU", "ingest MB/s wall",
                           "ingest lines/s CPU", "ingest rec/s CPU", "DuckDB rec/s (1 thr)", "ratio vs DuckDB",
                           "cat MB/s", "dd direct MB/s",
                           "peak RSS MiB", "errors", "cut at 2/3: ingest MB/s CPU"], rows))
        out.append("\nWhere the ingest CPU goes (large file, seconds of CPU):\n\n")
        rows = []
        for name, e in report["formats"].items():
            steps = e["big"]["ingest"]["steps"]
            top = sorted(steps.items(), key=lambda kv: -kv[1]["cpu_s"])[:5]
            rows.append([name] + [f"{k} {v['cpu_s']:.2f}" for k, v in top])
        out.append(_table(["format", "1st", "2nd", "3rd", "4th", "5th"], rows))
        out.append("\n## Ingest per format: many small files\n\n")
        rows = []
        for name, e in report["formats"].items():
            s = e["small"]
            rows.append([name, s["files"], round(s["bytes"] / s["files"] / 1e3, 1), s["ingest"]["mb_s_cpu"],
                         s["ingest"]["files_s_cpu"], s["ingest"]["wall_s"], s["duckdb"]["threads_1"]["cpu_s"],
                         s["ratio_ingest_vs_duckdb_1t"], s["cat"].get("mb_s"), s["ingest"]["errors"]])
        out.append(_table(["format", "files", "KB each", "ingest MB/s CPU", "files/s CPU", "ingest wall s",
                           "DuckDB CPU s (1 thr)", "ratio vs DuckDB", "cat MB/s", "errors"], rows))
    if report.get("scales"):
        out.append("\n## Scales\n\n")
        rows = []
        for s in report["scales"]:
            i, d, site = s["ingest"], s.get("dbt", {}), s.get("site", {})
            rows.append([s["scale"], i["runs_seen"], s["raw_files"], round(s["raw_bytes"] / 1e6, 1),
                         s["cat"].get("mb_s"), i["wall_s"], i["cpu_s"], i["mb_s_cpu"], i["max_rss_mib"], i["errors"],
                         s["noop_ingest"]["wall_s"], s["lake"]["parquet_files"], s["lake"]["state_kib"],
                         d.get("wall_s"), _mem(d), d.get("warehouse_mib"), _stage_time(site), _mem(site),
                         site.get("html_pages"),
                         site.get("dist_mib")])
        out.append(_table(["scale", "runs", "raw files", "raw MB", "cat MB/s", "ingest wall s", "ingest CPU s",
                           "ingest MB/s CPU", "ingest peak MiB", "errors", "no-op ingest s", "parquet files",
                           "state KiB", "dbt build s", "dbt peak MiB", "warehouse MiB", "site build s",
                           "site peak MiB (all processes)", "pages", "dist MiB"], rows))
        out.append("\nIngest CPU by step (seconds):\n\n")
        steps = sorted({k for s in report["scales"] for k in s["ingest"]["steps"]})
        rows = [[k] + [s["ingest"]["steps"].get(k, {}).get("cpu_s") for s in report["scales"]] for k in steps]
        out.append(_table(["step"] + [s["scale"] for s in report["scales"]], rows))
        for s in report["scales"]:
            d = s.get("dbt")
            if not d or not d.get("top_nodes"):
                continue
            out.append(f"\ndbt at {s['scale']}: {d.get('statuses')}; seconds by node type "
                       f"{d.get('node_seconds_by_type')}; slowest nodes:\n\n")
            out.append(_table(["node", "s", "status"], [[n["node"], n["s"], n["status"]] for n in d["top_nodes"][:6]]))
            if d.get("failures"):
                out.append("\nfailures: " + "; ".join(f"{f['node']} ({f['status']})" for f in d["failures"]) + "\n")
        for s in report["scales"]:
            b = s.get("browser")
            if not b:
                continue
            out.append(f"\n### Browser at {s['scale']}\n\n")
            if b.get("error"):
                out.append(f"bench/site_bench.mjs failed: {b['error'][:500]}\n\n")
            rows = [[p["path"], p.get("load_ms"), p.get("first_chart_ms"), p.get("charts"),
                     (p.get("filter") or {}).get("control"), (p.get("filter") or {}).get("settled_ms"),
                     p.get("heap_used_mib"), p.get("transfer_kib"), len(p.get("problems", []))] for p in b.get("pages", [])]
            out.append(_table(["page", "load ms", "first chart ms", "charts", "filter changed", "filter settled ms",
                               "JS heap MiB", "fetched KiB", "problems"], rows))
            budget = b.get("site_budget") or {}
            if budget.get("results"):
                out.append(f"\nbench/site_budget.mjs (the site's own page-specific interactions, median of "
                           f"{budget.get('runs')} loads):\n\n")
                rows = [[r["page"], r.get("firstChartMs"), r.get("interaction"), r.get("interactionMs"),
                         r.get("interactionAllChartsMs"), round((r.get("bytes") or 0) / 2 ** 20, 2),
                         round((r.get("wasmBytes") or 0) / 2 ** 20, 2), "; ".join(r.get("errors") or [])[:120]]
                        for r in budget["results"]]
                out.append(_table(["page", "first chart ms", "interaction", "interaction ms", "all charts ms",
                                   "MB at load", "wasm MB", "errors"], rows))
            elif budget:
                out.append(f"\nbench/site_budget.mjs failed (rc {budget.get('rc')}): "
                           f"{str(budget.get('output', ''))[-300:]}\n")
            run_page = b.get("run_page") or {}
            if run_page.get("runs"):
                out.append(f"\nbench/run_page.mjs (median of {run_page.get('loads')} loads):\n\n")
                out.append(_table(["run", "results shown ms", "first chart ms", "requests", "bytes fetched", "index bytes", "problems"],
                                  [[r["run_id"], r.get("results_shown_ms"), r.get("first_chart_ms"), r.get("requests"),
                                    r.get("bytes_fetched"), r.get("index_bytes"), "; ".join(r.get("problems") or [])[:120]]
                                   for r in run_page["runs"]]))
            elif run_page:
                out.append(f"\nbench/run_page.mjs failed: {str(run_page.get('error', ''))[-300:]}\n")
    for inc in report.get("incrementals") or [report.get("incremental")]:
        if not inc or inc.get("skipped"):
            continue
        out.append(f"\n## One new run into the {inc['scale']}-run lake\n\n")
        rows = [["ingest (iopscope ingest)", inc["ingest"]["wall_s"], inc["ingest"]["cpu_s"], inc["ingest"]["max_rss_mib"]]]
        if inc.get("dbt"):
            replay = inc["dbt"].get("replay")
            how = (f"replayed without dbt: {replay['statements']} statements of {replay['models']} models in "
                   f"{replay['s']} s, commit {replay['commit_s']} s" if replay else "dbt")
            rows.append([f"warehouse update (iopscope dbt --update; {how})", inc["dbt"]["wall_s"], inc["dbt"]["cpu_s"],
                         inc["dbt"]["max_rss_mib"]])
        if inc.get("site"):
            mode = inc["site"].get("mode")
            how = {"in place": "the last build updated in place (sitebuild/update.js)",
                   "full": f"Framework's build ({inc['site'].get('full_reason', '')})"}.get(mode, "")
            rows.append([f"site build{f' ({how})' if how else ''}", inc["site"].get("wall_s"), inc["site"].get("cpu_s"),
                         inc["site"].get("max_rss_mib")])
        for key, command in BUILD_MEASURES:
            build = inc.get(key) or {}
            if build:
                stages = ", ".join(f"{stage} {s} s" for stage, s in build.get("stages_s", {}).items())
                rows.append([f"one more new run, {command} (one command: {stages}; site {build.get('site_mode')}, "
                             f"warehouse {'replayed' if build.get('warehouse_replayed') else 'by dbt'})",
                             build.get("wall_s"), build.get("cpu_s"), build.get("max_rss_mib")])
        if (inc.get("prepare") or {}).get("record"):
            rows.append(["before it, not counted: the first update after the full build, by dbt (one run; it records "
                         "the statements later updates replay)", inc["prepare"]["record"], "", ""])
        if inc.get("dbt_floor"):
            floor = inc["dbt_floor"]
            rows.append(["dbt's floor: `dbt run` of a one-model project (select 1)", floor["wall_s"], floor["cpu_s"],
                         floor["max_rss_mib"]])
        out.append(_table(["stage", "wall s", "CPU s", "peak RSS MiB"], rows))
        if inc.get("probe_before") or inc.get("probe_after"):
            shown = [f"{when} {p['total_s']} s (Python {p['python_s']}, DuckDB {p['duckdb_s']})"
                     for when, p in (("before", inc.get("probe_before")), ("after", inc.get("probe_after"))) if p]
            out.append("\nthe machine's pace: a fixed piece of work (`PROBE_CODE`) took " + "; ".join(shown)
                       + " around these builds\n")
        out.append(f"\ningest + warehouse update: **{inc.get('ingest_plus_dbt_wall_s')} s** wall, "
                   f"{inc.get('ingest_plus_dbt_cpu_s')} s CPU; lake: {(inc.get('lake') or {}).get('parquet_files')} "
                   "Parquet files after it\n")
        if inc.get("repeats"):
            def tag(m):   # the kind of run measured, where the report records it
                return f" ({KIND_LABELS.get(m.get('kind'), m.get('kind'))})" if m.get("kind") else ""

            twos = ", ".join(f"{r['ingest_wall_s'] + r.get('dbt_wall_s', 0):.2f}{tag(r)}" for r in inc["repeats"])
            measured = [f"ingest + update {twos} s"]
            for key, command in BUILD_MEASURES:
                walls = ", ".join(f"{r[key]['wall_s']:.2f}{tag(r[key])}" for r in inc["repeats"] if r.get(key))
                if walls:
                    measured.append(f"{command} {walls} s")
            out.append("\nrepeated, one more new run each time: " + "; ".join(measured) + "\n")
        if inc.get("dbt", {}).get("top_nodes"):
            out.append(_table(["slowest node of the update", "s"],
                              [[n["node"], n["s"]] for n in inc["dbt"]["top_nodes"]]))
    for f in report.get("floors") or []:
        if f.get("skipped"):
            continue
        out.append(f"\n## Full warehouse build of the {f['scale']}-run lake beside its physical floor\n\n")
        out.append("The floor: DuckDB alone (bench/floor.py, same threads and memory cap), reading the lake's tables whole "
                   "and hashing every column, writing those rows into a fresh DuckDB file, writing the built marts' rows "
                   "into a fresh DuckDB file and as zstd Parquet. read MB: bytes the process read (page cache or disk); "
                   "disk MB: read from the disk itself.\n\n")
        dbt = f.get("dbt") or {}
        rows = [["full build (iopscope dbt --full: models and every test)", dbt.get("wall_s"), dbt.get("cpu_s"),
                 dbt.get("tree_rss_peak_mib") or dbt.get("max_rss_mib"), "", "", ""]]
        for step, label in (("read_lake", "floor: read every lake table"), ("copy_lake", "floor: write the lake's rows to DuckDB"),
                            ("write_marts", "floor: write the marts' rows to DuckDB"),
                            ("marts_parquet", "floor: write the marts as zstd Parquet")):
            e = (f.get("floor") or {}).get(step) or {}
            rows.append([label, e.get("wall_s"), e.get("cpu_s"), "", e.get("rows", ""), e.get("read_mb"), e.get("disk_read_mb")])
        floor = f.get("floor") or {}
        total = sum((floor.get(k) or {}).get("wall_s", 0) for k in ("read_lake", "copy_lake", "write_marts"))
        if total and dbt.get("wall_s"):
            rows.append(["build / floor (read + write lake rows + write marts)", round(dbt["wall_s"] / total, 2), "", "", "", "", ""])
        out.append(_table(["stage", "wall s", "CPU s", "peak RSS MiB", "rows", "read MB", "disk read MB"], rows))
        if f.get("floor_error"):
            out.append(f"\nbench/floor.py failed: {f['floor_error'][-300:]}\n")
    if report.get("growth"):
        out.append("\n## Growth (log-log slope between consecutive scales; 1 = linear)\n\n")
        rows = [[g["metric"], ", ".join(f"{label}: {_fmt(y)}" for _, y, label in g["points"]),
                 ", ".join(map(str, g["slopes"])), "**yes**" if g["superlinear"] else "no"] for g in report["growth"]]
        out.append(_table(["cost", "values", "slopes", "worse than linear"], rows))
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    global DUCKDB_THREADS, RSS_CAP_MIB
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("IOPSCOPE_BENCH_WORK", "/tmp/iopscope-bench")))
    ap.add_argument("--out", type=Path, help="report folder (default <work>/report)")
    ap.add_argument("--scales", default="1x,100,1000",
                    help="comma list of 1x, run counts N and N@F (N runs shortened to the fraction F of their "
                         "time, e.g. 100000@0.1; default 1x,100,1000)")
    ap.add_argument("--sections", default="formats,scales,incremental,browser")
    ap.add_argument("--formats", default=",".join(TEXT_FORMATS + JSON_FORMATS))
    ap.add_argument("--big-mb", type=float, default=20.0, help="size of the large single file per format")
    ap.add_argument("--small-count", type=int, default=200)
    ap.add_argument("--small-kb", type=float, default=64.0)
    ap.add_argument("--browser-scales", default=None, help="scales measured in Chromium (default: first and last)")
    ap.add_argument("--browser-pages", default="/,/tpcc,/fio,/compare,/runs/,/sizing")
    ap.add_argument("--site-timeout", type=float, default=SITE["timeout_s"])
    ap.add_argument("--incremental-site", action="store_true", help="also time a site build after the new run")
    ap.add_argument("--incremental-repeats", type=int, default=1,
                    help="measure one new run this many times (each a run of its own) and report the medians: "
                         "ingest + update as two commands, and `iopscope build <run folder>` with --incremental-site")
    ap.add_argument("--incremental-scales", default=None,
                    help="scales that get the one-new-run measurement (default: the largest; two or more give the slope)")
    ap.add_argument("--rss-cap-gib", type=float, default=RSS_CAP_MIB / 1024,
                    help="stop a stage whose processes together use more memory than this (default 12)")
    ap.add_argument("--no-dbt", action="store_true")
    ap.add_argument("--no-site", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-bundled", action="store_true", help="synthetic trees without a copy of data/raw")
    ap.add_argument("--clean", action="store_true", help="delete generated raw trees when done")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes, no dbt / site / browser: checks that the harness runs and reports")
    ap.add_argument("--render", type=Path, metavar="BENCH_JSON",
                    help="only re-render the markdown (and targets, growth) of an existing bench.json")
    args = ap.parse_args(argv)
    if args.render:
        report = json.loads(args.render.read_text())
        if report.get("scales"):
            report["growth"] = growth(report["scales"])
        report["targets"] = targets(report)
        args.render.write_text(json.dumps(report, indent=1, default=str))
        args.render.with_suffix(".md").write_text(markdown(report))
        print(args.render.with_suffix(".md"))
        return 0
    if args.smoke:
        DUCKDB_THREADS = 1
        args.scales, args.big_mb, args.small_count, args.small_kb = "6", 0.3, 3, 8.0
        args.formats, args.no_bundled = "tpcc_mysql,iostat_json", True
        args.no_dbt = args.no_site = True
        args.sections = "formats,scales,incremental"
    SITE.update(timeout_s=args.site_timeout)
    RSS_CAP_MIB = args.rss_cap_gib * 1024
    sections = set(args.sections.split(","))
    scales = [s.strip() for s in args.scales.split(",") if s.strip()]
    for scale in scales + (args.incremental_scales or "").split(","):
        if scale:
            scale_plan(scale)   # a misspelt scale stops here, not after an hour of the others
    browser_scales = set((args.browser_scales or f"{scales[0]},{scales[-1]}").split(","))
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    out_dir = (args.out or work / "report").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                              "command": " ".join(["bench/run.py", *(argv if argv is not None else sys.argv[1:])]),
                              "machine": machine(), "work": str(work), "snapshot": snapshot(work)}
    t0 = time.perf_counter()

    def save() -> None:
        report["loadavg_end"] = os.getloadavg()
        report["elapsed_s"] = round(time.perf_counter() - t0, 1)
        if report.get("scales"):
            report["growth"] = growth(report["scales"])
        report["targets"] = targets(report)
        (out_dir / "bench.json").write_text(json.dumps(report, indent=1, default=str))
        (out_dir / "bench.md").write_text(markdown(report))

    if "formats" in sections:
        report["formats"] = section_formats(work, args.big_mb, args.small_count, args.small_kb, args.seed,
                                            tuple(f for f in args.formats.split(",") if f))
        save()
    if "scales" in sections:
        report["scales"] = []
        for scale in scales:
            report["scales"].append(section_scale(
                work, scale, args.seed, not args.no_dbt, not args.no_site,
                "browser" in sections and scale in browser_scales, args.browser_pages.split(","),
                bundled=not args.no_bundled))
            save()
    if "incremental" in sections and scales:
        # the scales' builds alternate (interleaved), each scale with its own site root
        inc_scales = (args.incremental_scales or scales[-1]).split(",")
        pick_after = same_new_runs(inc_scales)
        report["incrementals"] = interleaved([
            incremental_steps(work, scale, args.seed, not args.no_dbt, args.incremental_site and not args.no_site,
                              args.browser_pages.split(",") if ("browser" in sections and scale in browser_scales
                                                                and args.incremental_site) else None,
                              repeats=args.incremental_repeats,
                              site_root="site-root" if len(inc_scales) == 1 else f"site-root-incremental-{scale}",
                              pick_after=pick_after)
            for scale in inc_scales])
        report["incremental"] = report["incrementals"][-1]   # the largest: what older reports held
        save()
    if "floor" in sections:
        report["floors"] = []
        for scale in scales:
            report["floors"].append(section_floor(work, scale))
            save()
    save()
    if args.clean:
        for scale in scales:
            if scale_plan(scale)[0]:
                shutil.rmtree(raw_dir(work, scale), ignore_errors=True)
    log(f"report: {out_dir / 'bench.md'} and bench.json ({report['elapsed_s']} s)")
    print(out_dir / "bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

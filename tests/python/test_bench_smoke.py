"""The benchmark cannot rot: its smoke version runs and reports every section (no timing is
asserted). Also the ingest-layer behaviour the benchmark relies on for large lakes: a no-op
ingest reads no unchanged file, and the state is not rewritten after every run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import iopscope.ingest as ingest_mod
import iopscope.lake as lake_mod
from conftest import ROOT
from iopscope.ingest import Ingestor
from iopscope.synth import generate as gen


def test_smoke_benchmark_runs_and_reports(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--smoke", "--work", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "report" / "bench.json").read_text())
    assert {"machine", "formats", "scales", "incremental", "targets", "growth"} <= set(report)
    assert report["machine"]["cpus"] >= 1
    for name, entry in report["formats"].items():
        big, small = entry["big"], entry["small"]
        assert big["records"] > 0 and big["ingest"]["errors"] == 0 and small["ingest"]["errors"] == 0, name
        assert big["ingest"]["mb_s_cpu"] > 0 and big["cat"]["mb_s"] > 0, name
        assert big["duckdb"]["threads_1"]["rows"] == big["duckdb"]["equivalent_rows"] > 0, name
        assert big["ratio_ingest_vs_duckdb_1t"] > 0, name
        assert 0 < entry["cut"]["bytes"] < big["bytes"] and entry["cut"]["mb_s_cpu"] > 0, name
    scale = report["scales"][-1]
    assert scale["ingest"]["errors"] == 0 and scale["ingest"]["runs_ingested"] >= 6
    assert scale["ingest"]["steps"] and scale["noop_ingest"]["rc"] == 0
    inc = report["incremental"]
    assert inc["ingest"]["rc"] == 0 and "(1 parsed," in inc["ingest"]["summary"] and inc["new_run_parsed"] is True
    assert any(t["target"].startswith("tpcc_mysql") for t in report["targets"])
    markdown = (tmp_path / "report" / "bench.md").read_text()
    for heading in ("## Targets", "## Ingest per format: one large file", "## Scales", "## Growth"):
        assert heading in markdown
    # the generated raw trees are the benchmark's own, never data/raw
    assert not list((ROOT / "data" / "raw").glob("synthetic*"))


def _count_calls(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_noop_ingest_reads_no_unchanged_file_but_sees_a_changed_one(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    gen.generate(raw, 3, seed=2)
    Ingestor(raw, tmp_path / "lake").run()
    hashed = _count_calls(monkeypatch, ingest_mod, "sha256_file")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_unchanged == 3 and hashed == []
    # touched with the same bytes: hashed again, found identical, not parsed
    victim = next(raw.rglob("mpstat.json"))
    os.utime(victim, ns=(victim.stat().st_atime_ns, victim.stat().st_mtime_ns + 10 ** 9))
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_unchanged == 3 and [p for (p,) in hashed] == [victim]
    # changed bytes, same size, same mtime as recorded: --force still finds it
    data = victim.read_bytes()
    stat = victim.stat()
    victim.write_bytes(data.replace(b'"usr": ', b'"usr":', 1) + b" ")
    os.utime(victim, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert victim.stat().st_size == stat.st_size
    report = Ingestor(raw, tmp_path / "lake", force=True).run()
    assert report.runs_ingested == 3
    # an ordinary edit (new mtime) is seen without --force
    victim.write_bytes(data)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 1 and report.runs_unchanged == 2


def test_state_is_saved_a_few_times_not_after_every_run(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    gen.generate(raw, 8, seed=4)
    saves = _count_calls(monkeypatch, lake_mod.Lake, "save_state")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 8
    assert len(saves) <= 1   # a new lake's first snapshot; each run is one journal line
    state = lake_mod.Lake(tmp_path / "lake").load_state()
    assert len(state["runs"]) == 8
    assert all(size is not None for r in state["runs"].values() for _sha, size, _mtime in r["files"].values())
    saves.clear()
    Ingestor(raw, tmp_path / "lake").run()
    assert saves == []   # nothing changed: the state file is not rewritten


def test_floor_reads_and_writes_every_lake_row_and_mart(tmp_path):
    """bench/floor.py on a tiny Hive-partitioned lake and warehouse: every lake row read and
    copied (two collections, a column only one of them has), every mart written twice."""
    import duckdb

    lake = tmp_path / "lake"
    con = duckdb.connect()
    for collection, extra in (("a", ""), ("b", ", 7 as only_in_b")):
        folder = lake / "fio_jobs" / f"collection={collection}"
        folder.mkdir(parents=True)
        rows = f"select i as n, 'x' || i as label{extra} from range(0, 100) t(i)"
        con.execute(f"copy ({rows}) to '{folder / 'run-1.parquet'}' (format parquet)")
    (lake / "fio_jobs" / "collection=_schema").mkdir()
    (lake / ".state").mkdir()
    con.close()
    warehouse = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute("create schema marts")
    con.execute("create table marts.fct_a as select range as id from range(0, 50)")
    con.execute("create table marts.dim_b as select 'b' as id")
    con.close()
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "floor.py"), "--lake", str(lake), "--warehouse", str(warehouse),
                           "--work", str(tmp_path / "work")], capture_output=True, text=True, check=True)
    floor = json.loads(done.stdout)
    assert floor["read_lake"]["tables"] == 1 and floor["read_lake"]["rows"] == 200
    assert floor["write_marts"]["marts"] == 2 and floor["write_marts"]["rows"] == 51
    assert floor["marts_parquet"]["files"] == 2 and floor["copy_lake"]["file_mb"] > 0
    assert all(floor[step]["wall_s"] >= 0 for step in ("read_lake", "copy_lake", "write_marts", "marts_parquet"))
    assert not (tmp_path / "work").exists(), "the scratch copies are removed"


def test_growth_leaves_out_a_dbt_build_that_did_not_build_every_model():
    """bench/run.py growth: a build stopped by a failing test counts only when every model was
    built; one whose test errors skipped a model (run 14, out of disk) has no comparable time."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)

    def scale(runs, dbt):
        return {"scale": str(runs), "ingest": {"runs_seen": runs, "cpu_s": 1.0, "wall_s": 1.0, "max_rss_mib": 1.0},
                "dbt": {"max_rss_mib": 1.0, **dbt}}

    def dbt_slope(last):
        rows = bench_run.growth([scale(10, {"rc": 0, "wall_s": 10.0}), scale(100, last)])
        return next(r for r in rows if r["metric"] == "dbt build wall_s")["slopes"]

    assert dbt_slope({"rc": 0, "wall_s": 100.0}) == [1.0]
    assert dbt_slope({"rc": 1, "wall_s": 100.0, "statuses": {"model:success": 9, "test:fail": 1}}) == [1.0]
    assert dbt_slope({"rc": 2, "wall_s": 50.0, "statuses": {"model:success": 8, "model:skipped": 1, "test:error": 2}}) == []
    assert dbt_slope({"rc": 2, "wall_s": 50.0}) == []


def test_run_page_target_is_met_only_when_every_run_page_drew_in_time():
    """bench/run.py: issue 19's run page target reads bench/run_page.mjs's figures: the slowest
    run's first chart against 1 s; a run page that drew nothing, or a measurement that failed,
    does not meet it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)

    def run(run_id, ms, problems=()):
        return {"run_id": run_id, "first_chart_ms": ms, "results_shown_ms": ms, "problems": list(problems)}

    assert bench_run.run_page_target("10000", None) is None
    fast = bench_run.run_page_target("10000", {"loads": 3, "runs": [run("a", 620), run("b", 675)]})
    assert fast["met"] and fast["value"].startswith("675 ms (b, 2 runs")
    slow = bench_run.run_page_target("10000", {"loads": 3, "runs": [run("a", 620), run("b", 1317)]})
    assert not slow["met"] and slow["value"].startswith("1317 ms (b")
    blank = bench_run.run_page_target("10000", {"loads": 3, "runs": [run("a", 620), run("b", 0, ["no chart drawn"])]})
    assert not blank["met"] and "b: no chart" in blank["value"]
    failed = bench_run.run_page_target("10000", {"loads": 3, "error": "Chromium missing"})
    assert not failed["met"] and "measurement failed" in failed["value"]


def test_one_new_run_slopes_are_reported_for_each_way_it_was_measured():
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)

    def inc(runs, two, walked, named):
        build = {"rc": 0, "new_run_parsed": True, "stages_s": {"ingest": 0.1}, "site_mode": "in place"}
        return {"scale": str(runs), "runs": runs, "ingest": {"rc": 0}, "dbt": {"rc": 0}, "new_run_parsed": True,
                "ingest_plus_dbt_wall_s": two, "ingest_plus_dbt_cpu_s": two,
                "build": {**build, "wall_s": walked, "cpu_s": walked},
                "build_named": {**build, "wall_s": named, "cpu_s": named}}

    rows = {r["target"]: r for r in bench_run.incremental_targets([inc(1000, 2.0, 5.0, 4.0), inc(10000, 4.0, 9.0, 4.8)])}
    slopes = {t: r for t, r in rows.items() if "slope" in t}
    assert len(slopes) == 3
    two = next(r for t, r in slopes.items() if "two commands" in t)
    assert two["value"].startswith("0.301 ") and not two["met"]            # log10(4 / 2) = 0.30
    named = next(r for t, r in slopes.items() if "<run folder>" in t)
    assert named["value"].startswith("0.079 ") and named["met"]          # log10(4.8 / 4) = 0.079
    walked = next(r for t, r in slopes.items() if "`iopscope build` (one" in t)
    assert walked["value"].startswith("0.255 ") and not walked["met"]    # log10(9 / 5) = 0.255
    under = [r for t, r in rows.items() if "< 10 s" in t]
    assert len(under) == 4 and all(r["met"] for r in under)
    # the two commands are a diagnostic beside the measure: out of the targets table
    assert two.get("diagnostic") and not named.get("diagnostic") and not walked.get("diagnostic")
    report = {"machine": {"loadavg_start": (0, 0, 0)}, "started_at": "t", "command": "c",
              "targets": list(rows.values())}
    text = bench_run.markdown(report)
    targets, diagnostics = text.split("Diagnostics (")
    assert "two commands" not in targets and "`iopscope build` (one command)" in targets
    assert "two commands" in diagnostics and "| **no** |" in diagnostics


def test_one_new_run_slopes_take_the_median_of_the_repeats():
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)

    def inc(runs, totals, named):
        build = {"rc": 0, "new_run_parsed": True, "stages_s": {}, "site_mode": "in place"}
        first, *more = totals
        return {"scale": str(runs), "runs": runs, "ingest": {"rc": 0}, "dbt": {"rc": 0}, "new_run_parsed": True,
                "ingest_plus_dbt_wall_s": first, "ingest_plus_dbt_cpu_s": first,
                "build_named": {**build, "wall_s": named[0], "cpu_s": named[0]},
                "repeats": [{"new_run_parsed": True, "ingest_wall_s": 0.5, "ingest_cpu_s": 0.5,
                             "dbt_wall_s": t - 0.5, "dbt_cpu_s": t - 0.5, "dbt_rc": 0,
                             "build_named": {**build, "wall_s": n, "cpu_s": n}}
                            for t, n in zip(more, named[1:])]}

    # one outlier per scale (9.0 at 1,000 runs, 2.0 at 10,000) would give a negative slope alone
    rows = bench_run.incremental_targets([inc(1000, [9.0, 2.0, 2.1], [4.0, 4.1, 9.9]),
                                          inc(10000, [2.0, 2.5, 2.6], [4.4, 4.5, 4.6])])
    two = next(r for r in rows if "two commands" in r["target"])
    assert "2.1 -> 2.5 s, medians of 3 and 3 runs" in two["value"], two   # log10(2.5 / 2.1) = 0.076
    assert two["value"].startswith("0.076 ") and two["met"]
    named = next(r for r in rows if "slope" in r["target"] and "<run folder>" in r["target"])
    assert "4.1 -> 4.5 s" in named["value"] and named["met"]             # log10(4.5 / 4.1) = 0.04


def test_a_slope_just_over_the_target_is_not_met_once_rounded():
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    build = {"rc": 0, "new_run_parsed": True, "stages_s": {}, "site_mode": "in place"}

    def inc(runs, named):
        return {"scale": str(runs), "runs": runs, "ingest": {"rc": 0}, "dbt": {"rc": 0}, "new_run_parsed": True,
                "ingest_plus_dbt_wall_s": 2.0, "ingest_plus_dbt_cpu_s": 2.0,
                "build_named": {**build, "wall_s": named, "cpu_s": named}}

    # log10(5.365 / 4.258) = 0.1004: "0.10" to two places, yet over the line
    rows = bench_run.incremental_targets([inc(1000, 4.258), inc(10000, 5.365)])
    named = next(r for r in rows if "slope" in r["target"] and "<run folder>" in r["target"])
    assert named["value"].startswith("0.100 ") and not named["met"], named
    rows = bench_run.incremental_targets([inc(1000, 4.258), inc(10000, 5.36)])   # 0.0999
    assert next(r for r in rows if "slope" in r["target"] and "<run folder>" in r["target"])["met"]


def test_lake_files_are_judged_per_run_at_the_target_scale_and_by_their_growth():
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)

    def scale(runs, files):
        return {"scale": str(runs), "runs": runs, "lake": {"parquet_files": files}}

    # the same collections' packs at both scales: 0.61 files per run at 1,000 is no failure
    lakes = [scale(1000, 611), scale(10000, 668)]
    per_run = [r for r in bench_run.warehouse_targets(lakes) if "per run" in r["target"]]
    assert [r["target"].split(":")[0] for r in per_run] == ["10000"] and per_run[0]["met"]
    (growth,) = bench_run.lake_growth_targets(lakes)
    assert growth["value"].startswith("0.039 ") and growth["met"]          # log10(668 / 611)
    # a part per run and table: files grow with the runs, and both rows say so
    lakes = [scale(10000, 90000), scale(1000, 9000)]
    assert not any(r["met"] for r in bench_run.warehouse_targets(lakes) + bench_run.lake_growth_targets(lakes))
    assert bench_run.lake_growth_targets([scale(1000, 611)]) == []   # one lake: no growth to judge


def _bench_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    return bench_run


def test_one_new_run_slopes_compare_runs_of_one_kind_at_both_scales():
    """A fio run rewrites more than a TPC-C run: the slope is taken per kind, each kind's
    median against the same kind's at the other scale, never a TPC-C median against a mix."""
    bench_run = _bench_module()
    build = {"rc": 0, "new_run_parsed": True, "stages_s": {}, "site_mode": "in place"}

    def b(kind, wall):
        return {**build, "kind": kind, "wall_s": wall, "cpu_s": wall}

    def inc(runs, tpcc, fio):
        return {"scale": str(runs), "runs": runs, "ingest": {"rc": 0}, "dbt": {"rc": 0}, "new_run_parsed": True,
                "new_run_kind": "tpcc", "ingest_plus_dbt_wall_s": 2.0, "ingest_plus_dbt_cpu_s": 2.0,
                "build_named": b("tpcc", tpcc[0]),
                "repeats": [{"new_run_parsed": True, "kind": kind, "ingest_wall_s": 0.5, "ingest_cpu_s": 0.5,
                             "dbt_wall_s": 1.5, "dbt_cpu_s": 1.5, "dbt_rc": 0, "build_named": b(kind, wall)}
                            for kind, wall in [("fio", fio[0]), ("tpcc", tpcc[1]), ("fio", fio[1]), ("tpcc", tpcc[2])]]}

    # TPC-C 4.0 -> 4.4 (0.041), fio 4.2 -> 5.2 (0.093); all runs pooled would give 4.0 -> 5.0
    rows = bench_run.incremental_targets([inc(1000, [4.0, 3.9, 4.1], [4.2, 4.2]),
                                          inc(10000, [4.4, 4.3, 4.5], [5.1, 5.3])])
    named = {r["target"]: r for r in rows if "slope" in r["target"] and "<run folder>" in r["target"]}
    assert len(named) == 2, list(named)
    tpcc = next(r for t, r in named.items() if "TPC-C runs" in t)
    fio = next(r for t, r in named.items() if "fio runs" in t)
    assert tpcc["value"].startswith("0.041 (wall: 4.0 -> 4.4 s, medians of 3 and 3") and tpcc["met"]
    assert fio["value"].startswith("0.093 (wall: 4.2 -> 5.2 s, medians of 2 and 2") and fio["met"]
    # the two commands, one kind per point too, and still a diagnostic
    two = [r for r in rows if "two commands" in r["target"]]
    assert len(two) == 2 and all(r.get("diagnostic") for r in two)
    # under 10 s: judged on the slowest build of the scale, which the value names
    under = next(r for r in rows if "10000-run lake" in r["target"] and "<run folder>" in r["target"])
    assert "a TPC-C run: " in under["value"] and "the slowest of 5: 5.3 s" in under["value"] and under["met"]


def test_the_new_runs_of_a_section_are_picked_by_kind_in_sequence_order():
    bench_run = _bench_module()
    kinds = bench_run.new_run_kinds(5)
    assert kinds == ["tpcc"] * 3 + ["fio"] * 3 + ["tpcc"] * 3 + ["fio"] * 3 + ["tpcc"] * 3
    for runs in (1000, 10000):
        picked = bench_run.pick_new_runs(1, runs, 1.0, kinds)
        assert [r.campaign.kind for r in picked] == kinds
        assert len({r.index for r in picked}) == len(picked) and min(r.index for r in picked) >= runs
        for kind in ("tpcc", "fio"):   # each kind's runs in the sequence's order
            mine = [r.index for r in picked if r.campaign.kind == kind]
            assert mine == sorted(mine)


def test_the_machines_pace_is_probed_and_shown_beside_each_slope():
    """A fixed piece of work, timed around each scale's builds, is printed beside the slopes: a
    slope measured while the machine ran slower at one scale than at the other shows as such."""
    bench_run = _bench_module()
    probe = bench_run.speed_probe()
    assert probe is not None and probe["python_s"] > 0 and probe["duckdb_s"] > 0
    assert probe["total_s"] == round(probe["python_s"] + probe["duckdb_s"], 3)
    build = {"rc": 0, "new_run_parsed": True, "stages_s": {}, "site_mode": "in place", "kind": "tpcc"}

    def inc(runs, wall, pace):
        return {"scale": str(runs), "runs": runs, "ingest": {"rc": 0}, "dbt": {"rc": 0}, "new_run_parsed": True,
                "new_run_kind": "tpcc", "ingest_plus_dbt_wall_s": 2.0, "ingest_plus_dbt_cpu_s": 2.0,
                "build": {**build, "wall_s": wall, "cpu_s": wall},
                "probe_before": {"python_s": pace / 2, "duckdb_s": pace / 2, "total_s": pace},
                "probe_after": {"python_s": pace, "duckdb_s": pace, "total_s": 2 * pace}}

    rows = bench_run.incremental_targets([inc(1000, 4.0, 0.6), inc(10000, 5.0, 0.4)])
    slope = next(r for r in rows if "slope" in r["target"] and "`iopscope build` (one command)" in r["target"])
    assert slope["value"].endswith("the machine's probe 0.9 s at 1000 runs, 0.6 s at 10000"), slope["value"]
    # no probe at one scale (an older report): nothing claimed
    rows = bench_run.incremental_targets([{**inc(1000, 4.0, 0.6), "probe_before": None, "probe_after": None},
                                          inc(10000, 5.0, 0.4)])
    slope = next(r for r in rows if "slope" in r["target"] and "`iopscope build` (one command)" in r["target"])
    assert "probe" not in slope["value"]


def test_the_scales_of_the_incremental_section_alternate_step_by_step():
    bench_run = _bench_module()
    trace = []

    def steps(scale, n):
        for i in range(n):
            trace.append((scale, i))
            yield
        return {"scale": scale, "steps": n}

    # the shorter one ends first; the other goes on alone, and each result keeps its place
    assert bench_run.interleaved([steps("1000", 3), steps("10000", 2)]) == [
        {"scale": "1000", "steps": 3}, {"scale": "10000", "steps": 2}]
    assert trace == [("1000", 0), ("10000", 0), ("1000", 1), ("10000", 1), ("1000", 2)]


def test_every_scale_of_the_incremental_section_adds_the_same_new_runs():
    """The slope compares the archive's size alone: both scales add the seed's runs after the
    largest scale (same content, kind by kind), unless their runs differ in length."""
    bench_run = _bench_module()
    assert bench_run.same_new_runs(["1000", "10000"]) == 10000
    assert bench_run.same_new_runs(["1000@0.1", "10000"]) is None
    kinds = bench_run.new_run_kinds(3)
    picks = [bench_run.pick_new_runs(1, max(runs, 10000), 1.0, kinds) for runs in (1000, 10000)]
    assert [r.index for r in picks[0]] == [r.index for r in picks[1]] and min(r.index for r in picks[0]) >= 10000

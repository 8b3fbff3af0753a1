"""The synthetic scale data: real formats that ingest cleanly, labelled synthetic, deterministic,
with curves that look like real ones."""

from __future__ import annotations

import dataclasses
import doctest
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT
from iopscope.ingest import Ingestor
from iopscope.manifest import read_manifest
from iopscope.synth import formats, generate as gen, model


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _small(c: gen.Campaign, **changes) -> gen.Campaign:
    """A campaign cut down so its files are small (the formats stay the same)."""
    if c.kind == "tpcc":
        return dataclasses.replace(c, measure_s=25, levels=c.levels[:2], **changes)
    return dataclasses.replace(c, step_runtime_s=3, step_ramp_s=1, levels=c.levels[:3], **changes)


def _variants() -> list[gen.Campaign]:
    """Every layout variant the generator writes: tpcc and fio, iostat text and JSON, ISO and
    C-locale time stamps, fio logs, a separate log device."""
    tpcc = gen._first_campaign(1, "tpcc")
    fio = gen._first_campaign(1, "fio")
    log_dev = model.DEVICE_CLASSES["nvme-gen3"]
    out = []
    for iostat_json in (True, False):
        for iso in (True, False):
            out.append(_small(tpcc, iostat_json=iostat_json, iso_time=iso,
                              log_device=log_dev if iso else None, log_device_id="synth-log" if iso else None,
                              number=len(out)))
            out.append(_small(fio, iostat_json=iostat_json, iso_time=iso, fio_logs=not iso,
                              profiles=("database", "random-read-4k", "sequential-read-128k"), number=len(out)))
    return out


def _write_variants(raw: Path) -> list[gen.RunPlan]:
    runs = []
    for c in _variants():
        for step in range(c.run_count):
            run = gen.RunPlan(len(runs), c, step)
            gen.write_run(raw, run)
            runs.append(run)
    return runs


def test_every_variant_ingests_without_error_or_warning(tmp_path):
    raw = tmp_path / "raw"
    runs = _write_variants(raw)
    names = {p.name for p in raw.rglob("*") if p.is_file()}
    assert {"tpcc_start.out", "iostat.txt", "iostat.json", "mpstat.json", "fio.json", "run.toml"} <= names
    assert any(re.match(r"fio_(bw|iops|clat)\.\d+\.log$", n) for n in names)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == len(runs)
    assert [str(e) for e in report.errors] == []
    assert [str(w) for w in report.warnings] == []
    con = duckdb.connect()
    lake = tmp_path / "lake"
    parsers = {r[0] for r in con.sql(f"select distinct parser from read_parquet('{lake}/ingest_files/*/*.parquet') "
                                     "where parser is not null").fetchall()}
    assert {"tpcc_mysql", "fio_json", "fio_log", "fio_jobfile", "iostat_text", "iostat_json", "mpstat_json"} <= parsers
    status = con.sql(f"select distinct status from read_parquet('{lake}/ingest_files/*/*.parquet')").fetchall()
    assert status == [("complete",)]


def test_runs_are_labelled_synthetic(tmp_path):
    raw = tmp_path / "raw"
    gen.generate(raw, 6, seed=3)
    manifests = sorted(raw.rglob("run.toml"))
    assert len(manifests) == 6
    for path in manifests:
        m = read_manifest(path)
        assert m.get("kind") == "synthetic" and m.get("synthetic") is True
        assert "synthetic" in m.get("tags")
        assert m.run_id.startswith("synth-") and "SYNTHETIC" in m.get("description")
        assert m.get("study_id") is None   # study_id names a published study: not ours to use
        assert m.get("extra", "synthetic_campaign")
        assert path.read_text().startswith("# SYNTHETIC")
    Ingestor(raw, tmp_path / "lake").run()
    rows = duckdb.sql(f"select distinct run_kind, synthetic, collection from "
                      f"read_parquet('{tmp_path}/lake/runs/*/*.parquet', hive_partitioning = true)").fetchall()
    assert rows == [("synthetic", True, "synthetic")]


def test_same_seed_same_bytes_and_a_bigger_tree_extends_a_smaller_one(tmp_path):
    gen.generate(tmp_path / "a", 5, seed=7)
    gen.generate(tmp_path / "b", 5, seed=7)
    gen.generate(tmp_path / "c", 8, seed=7)
    gen.generate(tmp_path / "d", 5, seed=8)
    a, b, c = _digest(tmp_path / "a"), _digest(tmp_path / "b"), _digest(tmp_path / "c")
    assert a == b
    assert set(a) < set(c) and all(c[k] == v for k, v in a.items())
    assert _digest(tmp_path / "d") != a
    # "one more run" writes exactly the next run of the sequence
    gen.generate(tmp_path / "a", 6, seed=7, start=5)
    new = set(_digest(tmp_path / "a")) - set(a)
    assert {Path(p).parent.as_posix() for p in new} == {gen.plan(7, 6)[5].rel_dir}


def test_shortened_runs_are_the_same_campaigns_in_fewer_bytes_and_say_so(tmp_path):
    full, short = gen.plan(5, 40), gen.plan(5, 40, length=0.1)
    assert [p.run_id for p in short] == [p.run_id for p in full]
    for f, s in zip(full, short):
        same = ("device_id", "host_id", "levels", "profiles", "warehouses", "buffer_pool_gib", "started_at")
        assert [getattr(s.campaign, k) for k in same] == [getattr(f.campaign, k) for k in same]
        if f.campaign.kind == "tpcc":
            assert s.campaign.measure_s == max(gen.MIN_MEASURE_S, round(f.campaign.measure_s * 0.1)) < f.campaign.measure_s
            assert s.campaign.rampup_s == max(gen.MIN_RAMPUP_S, round(f.campaign.rampup_s * 0.1))
        else:
            assert s.campaign.step_runtime_s == max(gen.MIN_STEP_RUNTIME_S, round(f.campaign.step_runtime_s * 0.1))
            assert s.campaign.step_ramp_s == max(gen.MIN_STEP_RAMP_S, round(f.campaign.step_ramp_s * 0.1))
    sizes = {length: gen.generate(tmp_path / str(length), 12, seed=5, length=length).bytes for length in (1.0, 0.1)}
    assert sizes[0.1] < sizes[1.0] / 3
    tags = {tuple(read_manifest(p).get("tags")) for p in (tmp_path / "0.1").rglob("run.toml")}
    assert tags and all("length-0.1" in t and "synthetic" in t for t in tags)
    assert all("length-1" not in read_manifest(p).get("tags") for p in (tmp_path / "1.0").rglob("run.toml"))
    report = Ingestor(tmp_path / "0.1", tmp_path / "lake").run()
    assert report.runs_ingested == 12
    assert [str(e) for e in report.errors] == [] and [str(w) for w in report.warnings] == []
    with pytest.raises(ValueError, match="length"):
        gen.plan(5, 3, length=0)


def test_the_mix_has_every_device_class_and_both_benchmarks():
    plans = gen.plan(1, 1000)
    kinds = {p.campaign.kind for p in plans}
    devices = {p.campaign.device.key for p in plans}
    assert kinds == {"tpcc", "fio"}
    assert devices == set(model.DEVICE_CLASSES)
    media = {model.DEVICE_CLASSES[d].interface for d in devices}
    assert {"sata", "sas", "nvme"} <= media


def test_throughput_rises_to_a_knee_and_latency_turns_up():
    for d in model.DEVICE_CLASSES.values():
        points = [model.fio_point(d, qd, 8, 0.67) for qd in gen.QD_LEVELS]
        iops = [p.iops for p in points]
        lat = [p.mean_lat_us for p in points]
        assert iops == sorted(iops), d.key
        assert iops[-1] / iops[-2] < 1.1, f"{d.key}: no plateau"           # flat at the top
        assert iops[1] / iops[0] > 1.5, f"{d.key}: no rise"               # rising at the bottom
        assert lat[-1] > 4 * lat[0], f"{d.key}: latency does not turn up"
    host = model.HOST_CLASSES["1s-server"]
    nvme, hdd = model.DEVICE_CLASSES["nvme-gen4"], model.DEVICE_CLASSES["hdd-7k2-sata"]
    tpm = [model.tpcc_point(nvme, host, 100, c, 16).new_order_tpm for c in gen.CONNECTION_LEVELS]
    peak = tpm.index(max(tpm))
    assert 0 < peak < len(tpm) - 1 and tpm[:peak + 1] == sorted(tpm[:peak + 1])
    assert model.tpcc_point(hdd, host, 1000, 32, 8).new_order_tpm < model.tpcc_point(nvme, host, 1000, 32, 8).new_order_tpm / 5


def test_parsed_curves_follow_the_model(tmp_path):
    raw = tmp_path / "raw"
    c = dataclasses.replace(gen._first_campaign(1, "fio"), levels=(1, 4, 16, 64, 256), step_runtime_s=3,
                            step_ramp_s=1, profiles=("random-read-4k",))
    gen.write_run(raw, gen.RunPlan(0, c, 0))
    Ingestor(raw, tmp_path / "lake").run()
    rows = duckdb.sql(f"select outstanding_ios, iops, clat_mean_us from read_parquet('{tmp_path}/lake/fio_jobs/*/*.parquet') "
                      "where direction = 'read' order by outstanding_ios").fetchall()
    assert [r[0] for r in rows] == [1, 4, 16, 64, 256]
    assert rows[-1][1] > 3 * rows[0][1] and rows[-1][2] > 5 * rows[0][2]


def test_iostat_text_columns_line_up_under_the_header():
    when = gen.EPOCH
    row = {k: 123456.789 if k.endswith("kB/s") else 12.5 for k in formats.IOSTAT_X_KEYS}
    text = formats.iostat_text(kernel="6.1.0", hostname="h", cpus=4, samples=[
        (when, {"user": 1.0, "nice": 0.0, "system": 2.0, "iowait": 3.0, "steal": 0.0, "idle": 94.0},
         [("nvme0n1", row), ("sda", {k: 0.0 for k in formats.IOSTAT_X_KEYS})])])
    lines = text.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("Device"))
    for line in lines[header + 1: header + 3]:
        assert len(line.split()) == len(lines[header].split())
        assert line.index(" ") <= 13 and len(line) == len(lines[header])


def test_fio_bins_are_fio_bucket_values():
    bins = formats.lognormal_bins(100000, 250000.0, 0.4)
    assert sum(bins.values()) == 100000
    for value in bins:
        low, high, rep = formats.plat_bounds(formats.plat_bucket(value))
        assert rep == value and low <= value < high
    pct = formats.percentiles_from_bins(bins)
    assert list(pct.values()) == sorted(pct.values()) and pct["50.000000"] in bins
    assert formats.plat_bounds(formats.plat_bucket(516))[2] == 516   # as in a real fio 3.33 json+


@pytest.mark.parametrize("fmt_name", gen.big_formats())
def test_single_format_files_parse_cleanly(fmt_name, tmp_path):
    from iopscope.ingest import parse_file

    name, text = gen.format_file(fmt_name, 60_000)
    assert 20_000 < len(text.encode()) < 150_000
    path = tmp_path / name
    path.write_text(text)
    module, result, _ = parse_file(path)
    assert module.NAME == fmt_name
    # the one note each of these gets says what its generator writes on purpose: collectl -scdmn
    # also prints memory, network and disk columns; a DiskSpd report grows by one target per thread
    expected = {"collectl_plot": "columns not read", "diskspd_text": "several targets"}
    issues = [i for i in result.issues
              if not (fmt_name in expected and i.severity == "warning" and i.reason.startswith(expected[fmt_name]))]
    assert issues == [] and result.status == "complete" and result.record_count > 0


def test_synth_command_refuses_the_default_raw_tree(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "iopscope.cli", "bench", "synth", "--runs", "1",
                           "--out", str(ROOT / "data" / "raw" / "synthetic-test")], capture_output=True, text=True)
    assert proc.returncode == 2 and "refusing" in proc.stderr
    assert not (ROOT / "data" / "raw" / "synthetic-test").exists()
    proc = subprocess.run([sys.executable, "-m", "iopscope.cli", "bench", "synth", "--runs", "2", "--no-bundled",
                           "--out", str(tmp_path / "raw")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert len(list((tmp_path / "raw").rglob("run.toml"))) == 2


def test_module_examples():
    for module in (model, formats):
        assert doctest.testmod(module).failed == 0

"""iopscope capture fio with the real fio, iostat and mpstat: short steps on small files in a temp dir.

Each step is ~1-2 s (no or 1 s ramp, 1 s measured, 16-32 MiB files). The module stays well
under a minute on a 2-core machine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from iopscope.capture import fio_wrapper, safety
from iopscope.cli import main
from iopscope.ingest import Ingestor
from iopscope.manifest import read_manifest

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("fio", "iostat", "mpstat")),
                                reason="fio and sysstat are needed (apt-get install fio sysstat)")

ROOT = Path(__file__).resolve().parents[2]


def capture(*args: str) -> int:
    return main(["capture", "fio", *args])


def capture_proc(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest")}
    return subprocess.Popen([sys.executable, "-m", "iopscope.cli", "capture", "fio", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def ingest(raw: Path, lake: Path):
    return Ingestor(raw, lake).run()


def steps_of(sweep_dir: Path) -> list[Path]:
    return sorted(p for p in sweep_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def status_of(step: Path) -> str:
    return tomllib.loads((step / "run.toml").read_text())["status"]


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


# ----------------------------------------------------------------------------- the wrapper


def test_run_fio_returns_the_ingest_parsers_result(tmp_path):
    spec = fio_wrapper.JobSpec(name="w", filename=str(tmp_path / "f"), rw="randread", bs="4k",
                               iodepth=4, size="16MiB", runtime_s=1)
    run = fio_wrapper.run_fio(spec, tmp_path / "out.json")
    assert run.ok and run.result.tool_version
    rows = run.result.tables["fio_jobs"]
    assert [r["direction"] for r in rows] == ["read"]
    assert rows[0]["outstanding_ios"] == 4 and rows[0]["iops"] > 0
    assert run.result.tables["fio_histogram_bins"]  # json+ was asked for
    numbers = fio_wrapper.headline(run.result)
    assert numbers["iops"] == pytest.approx(rows[0]["iops"])


def test_fio_errors_are_surfaced_verbatim(tmp_path):
    spec = fio_wrapper.JobSpec(name="w", filename=str(tmp_path / "f"), rw="sideways", bs="4k", size="1MiB",
                               runtime_s=1)
    with pytest.raises(fio_wrapper.FioError) as exc:
        fio_wrapper.run_fio(spec, tmp_path / "out.json")
    assert "fio: failed parsing rw=sideways" in exc.value.message
    assert exc.value.returncode != 0


def test_fio_logs_are_written_and_declared(tmp_path):
    out = tmp_path / "raw" / "measured" / "logs"
    code = capture("--target", str(tmp_path), "--profile", "oltp-4k-read", "--oio", "2", "--area", "16MiB",
                   "--ramp", "0", "--runtime", "1", "--logs", "bw,iops,lat", "--out", str(out))
    assert code == 0
    step = steps_of(out)[0]
    logs = sorted(p.name for p in step.glob("fio_*.log"))
    assert {"fio_bw.1.log", "fio_iops.1.log", "fio_lat.1.log", "fio_clat.1.log", "fio_slat.1.log"} <= set(logs)
    declared = {f["path"]: f for f in read_manifest(step / "run.toml").data["files"]}
    assert set(logs) <= set(declared)
    report = ingest(tmp_path / "raw", tmp_path / "lake")
    assert not report.errors, [str(e) for e in report.errors]


# ----------------------------------------------------------------------------- sweeps


def test_sweep_writes_complete_run_folders_that_ingest_reads_without_errors(tmp_path, capsys):
    out = tmp_path / "raw" / "measured" / "sweep"
    code = capture("--target", str(tmp_path), "--profile", "database,restore", "--oio", "1,4",
                   "--area", "32MiB", "--ramp", "1", "--runtime", "1", "--out", str(out),
                   "--note", "test run", "--tag", "pytest")
    err = capsys.readouterr().err
    assert code == 0, err
    steps = steps_of(out)
    assert [p.name for p in steps] == ["001-database-8k-r67-oio001", "002-database-8k-r67-oio004",
                                       "003-restore-64k-r0-oio001", "004-restore-64k-r0-oio004"]
    for step in steps:
        m = read_manifest(step / "run.toml")
        assert m.get("status") == "complete"
        assert {p.name for p in step.iterdir()} == {"run.toml", "fio.json", "iostat.json", "mpstat.json"}
        assert {f["path"]: f.get("format") for f in m.data["files"]}["fio.json"] == "fio_json"
        assert m.get("host", "logical_cpus") == os.cpu_count()
        assert m.get("fio", "version") and m.get("sysstat_version")
        assert m.get("fio", "measurement_area") == "32MiB"
        assert m.get("extra", "sweep_id") == out.name and "pytest" in m.get("tags")
        assert "test run" in m.get("description")
        # the manifest holds the exact command that ran, and it matches the job options
        cmd = m.get("extra", "fio_command")
        opts = m.get("fio", "job_options")
        assert cmd.startswith("fio --output-format=json+ --output=fio.json ")
        assert f"--iodepth={opts['iodepth']}" in cmd and f"--rw={opts['rw']}" in cmd
        doc = json.loads((step / "fio.json").read_text())
        assert doc["jobs"][0]["job options"]["iodepth"] == opts["iodepth"]
        # sysstat ran for the measured window: 1 sample of 1 s each
        io = json.loads((step / "iostat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
        mp = json.loads((step / "mpstat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
        assert len(io) == 1 and len(mp) == 1
    assert "restore 64k 0% read, OIO 4" in err and "IOPS" in err  # one line per step
    assert "complete (all steps done)" in err  # summary table
    assert (out / "sweep.md").read_text().count("| complete |") == 4
    state = json.loads((out / ".sweep.json").read_text())
    assert [s["status"] for s in state["steps"]] == ["complete"] * 4
    assert not (tmp_path / safety.DEFAULT_FILE_NAME).exists()  # test file removed
    report = ingest(tmp_path / "raw", tmp_path / "lake")
    assert not report.errors, [str(e) for e in report.errors]
    assert report.runs_seen == 4 and report.files_parsed == 12


def test_dry_run_prints_exact_commands_and_runs_nothing(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = capture("--target", str(tmp_path), "--profile", "streaming", "--oio", "1,64", "--area", "1GiB",
                   "--ramp", "2", "--runtime", "5", "--out", str(out), "--dry-run")
    printed = capsys.readouterr().out
    assert code == 0
    assert not out.exists() and not (tmp_path / safety.DEFAULT_FILE_NAME).exists()
    assert (f"fio --output-format=json+ --output=fio.json --name=streaming --filename={tmp_path}/"
            f"{safety.DEFAULT_FILE_NAME} --rw=read --bs=64k --ioengine=libaio --direct=1 --iodepth=32 "
            "--numjobs=2 --size=1g --time_based --runtime=5 --ramp_time=2 --group_reporting &") in printed
    assert "LC_ALL=C S_TIME_FORMAT=ISO iostat -o JSON -t -x -y 1 5 > iostat.json &" in printed
    assert "LC_ALL=C S_TIME_FORMAT=ISO mpstat -o JSON -P ALL 1 5 > mpstat.json &" in printed
    assert "target" in printed and "accepted" in printed


def test_foreign_file_is_refused_before_anything_runs(tmp_path, capsys):
    victim = tmp_path / "data.bin"
    victim.write_bytes(b"precious")
    code = capture("--target", str(victim), "--area", "16MiB", "--oio", "1", "--ramp", "0", "--runtime", "1",
                   "--out", str(tmp_path / "sweep"))
    assert code == 2
    assert "not created by iopscope" in capsys.readouterr().err
    assert victim.read_bytes() == b"precious" and not (tmp_path / "sweep").exists()


def test_block_device_target_is_refused_without_destructive(tmp_path, capsys):
    # A device node for a loop minor that does not exist: even a broken guard could not write to it.
    node = tmp_path / "blk"
    try:
        os.mknod(node, 0o600 | 0o060000, os.makedev(7, 250))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    if Path("/sys/dev/block/7:250").exists():
        pytest.skip("loop250 exists on this machine")
    code = capture("--target", str(node), "--oio", "1", "--ramp", "0", "--runtime", "1",
                   "--out", str(tmp_path / "sweep"))
    assert code == 2
    # the console wraps long lines at its width: the words, not the line breaks, are the message
    assert "is a block device" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "sweep").exists()


def test_keep_files_keeps_the_test_file_and_its_marker(tmp_path):
    out = tmp_path / "sweep"
    assert capture("--target", str(tmp_path), "--profile", "streaming", "--oio", "1", "--area", "16MiB",
                   "--ramp", "0", "--runtime", "1", "--out", str(out), "--keep-files") == 0
    f = tmp_path / safety.DEFAULT_FILE_NAME
    assert f.stat().st_size == 16 * 2**20 and safety.is_ours(f)
    # a second sweep may reuse it (it is ours), and then removes it
    assert capture("--target", str(tmp_path), "--profile", "streaming", "--oio", "2", "--area", "16MiB",
                   "--ramp", "0", "--runtime", "1", "--out", str(tmp_path / "again")) == 0
    assert not f.exists()


@pytest.mark.slow
def test_sigint_marks_the_step_interrupted_and_resume_finishes_the_sweep(tmp_path):
    raw = tmp_path / "raw"
    out = raw / "measured" / "sweep"
    proc = capture_proc("--target", str(tmp_path), "--profile", "database", "--oio", "1,2,4",
                        "--area", "16MiB", "--ramp", "1", "--runtime", "2", "--out", str(out))
    try:
        step2 = out / "002-database-8k-r67-oio002"
        assert wait_for(lambda: (step2 / "fio.json").exists() or (step2 / "iostat.json").exists(), 60)
        time.sleep(0.8)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr
    assert status_of(out / "001-database-8k-r67-oio001") == "complete"
    m = read_manifest(step2 / "run.toml")
    assert m.get("status") == "interrupted" and "SIGINT" in m.get("status_reason")
    assert all(f["role"] == "ignore" for f in m.data["files"])
    assert not (out / "003-database-8k-r67-oio004").exists()
    assert not shutil.which("pgrep") or subprocess.run(
        ["pgrep", "-f", f"filename={tmp_path}/"], capture_output=True).returncode == 1  # no fio left behind
    report = ingest(raw, tmp_path / "lake")
    assert not report.errors, [str(e) for e in report.errors]

    assert capture("--resume", str(out)) == 0
    assert [status_of(p) for p in steps_of(out)] == ["complete"] * 3
    superseded = list((out / ".superseded").iterdir())
    assert len(superseded) == 1 and superseded[0].name.startswith("002-")
    report = ingest(raw, tmp_path / "lake")
    assert not report.errors, [str(e) for e in report.errors]
    assert report.runs_seen == 3
    state = json.loads((out / ".sweep.json").read_text())
    assert state["status"] == "complete"


@pytest.mark.slow
def test_a_killed_sweep_leaves_an_interrupted_manifest_and_resumes(tmp_path):
    raw = tmp_path / "raw"
    out = raw / "measured" / "sweep"
    proc = capture_proc("--target", str(tmp_path), "--profile", "oltp-4k-read", "--oio", "1,2",
                        "--area", "16MiB", "--ramp", "0", "--runtime", "2", "--out", str(out))
    step1 = out / "001-oltp-4k-read-4k-r100-oio001"
    try:
        assert wait_for(lambda: (step1 / "iostat.json").exists(), 60)
        proc.kill()  # SIGKILL: no cleanup at all
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    m = read_manifest(step1 / "run.toml")
    assert m.get("status") == "interrupted" and "killed or crashed" in m.get("status_reason")
    wait_for(lambda: subprocess.run(["pgrep", "-f", f"filename={tmp_path}/"],
                                    capture_output=True).returncode == 1, 10)
    report = ingest(raw, tmp_path / "lake")
    assert not report.errors, [str(e) for e in report.errors]
    # the orphaned test file is still ours (marker), so the resumed sweep may reuse it
    assert safety.is_ours(tmp_path / safety.DEFAULT_FILE_NAME)
    assert capture("--resume", str(out)) == 0
    assert [status_of(p) for p in steps_of(out)] == ["complete"] * 2
    assert not (tmp_path / safety.DEFAULT_FILE_NAME).exists()

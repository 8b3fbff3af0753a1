"""iopscope capture tpcc against the stand-in tpcc_start (tests/tools/tpcc_start), with the real
iostat and mpstat. The stand-in prints the exact current tpcc_start output with SYNTHETIC
numbers, so every run here is marked synthetic. Steps are ~3 s (1 s ramp-up, 2 s measured)."""

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

from iopscope.cli import main
from iopscope.ingest import Ingestor
from iopscope.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[2]
STANDIN = ROOT / "tests" / "tools" / "tpcc_start"
PASSWORD = "Tpcc-Secret-9f3"

pytestmark = [
    pytest.mark.skipif(not STANDIN.is_file(), reason="stand-in tests/tools/tpcc_start not present"),
    pytest.mark.skipif(not all(shutil.which(t) for t in ("iostat", "mpstat")), reason="sysstat needed"),
]

FAST = ["--ramp-up", "1", "--measure", "2", "--interval", "1", "--warehouses", "10", "--synthetic",
        "--stop-cpu-busy", "0", "--stop-log-await-ms", "0"]


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("IOPSCOPE_DB_PASSWORD", PASSWORD)
    monkeypatch.setenv("TPCC_STANDIN_PACE", "1")
    monkeypatch.setenv("TPCC_STANDIN_SEED", "7")


def capture(*args: str) -> int:
    return main(["capture", "tpcc", "--tpcc-start", str(STANDIN), *args])


def all_text(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_tpcc_sweep_runs_steps_and_stores_scrubbed_outputs(tmp_path, env, capsys):
    raw = tmp_path / "raw"
    out = raw / "measured" / "tpcc"
    code = capture(*FAST, "--connections", "2,4", "--data-device", "vda", "--out", str(out))
    err = capsys.readouterr().err
    assert code == 0, err
    steps = sorted(p for p in out.iterdir() if p.is_dir())
    assert [p.name for p in steps] == ["001-w10-c0002", "002-w10-c0004"]
    for step, connections in zip(steps, (2, 4)):
        assert {p.name for p in step.iterdir()} == {"run.toml", "tpcc_start.out", "tpcc_start.err",
                                                    "iostat.json", "mpstat.json"}
        m = read_manifest(step / "run.toml")
        assert m.get("status") == "complete" and m.get("kind") == "synthetic"
        assert m.get("tpcc", "connections") == connections and m.get("tpcc", "warehouses") == 10
        assert (m.get("tpcc", "ramp_up_s"), m.get("tpcc", "measure_s"), m.get("tpcc", "report_interval_s")) == (1, 2, 1)
        assert "-p '****'" in m.get("extra", "tpcc_command")
        files = {f["path"]: f for f in m.data["files"]}
        assert files["tpcc_start.out"]["format"] == "tpcc_mysql"
        assert files["tpcc_start.err"]["role"] == "ignore"
        stdout = (step / "tpcc_start.out").read_text()
        assert "option p with value '****'" in stdout and "[pass]: ****" in stdout
        assert "<TpmC>" in stdout and f"option c with value '{connections}'" in stdout
        # sysstat sampled the measured window only: 2 samples of 1 s
        mp = json.loads((step / "mpstat.json").read_text())["sysstat"]["hosts"][0]["statistics"]
        assert len(mp) == 2
    # the password is nowhere: outputs, manifests, sweep state, summary, console
    assert PASSWORD not in all_text(out)
    assert PASSWORD not in err
    assert "TpmC" in err and "2 connections" in err
    report = Ingestor(raw, tmp_path / "lake").run()
    assert not report.errors, [str(e) for e in report.errors]
    assert report.runs_seen == 2


def test_stop_condition_ends_the_sweep_and_is_recorded(tmp_path, env, capsys):
    out = tmp_path / "tpcc"
    # Any growth below 1000% counts as a plateau: the sweep must stop after the second step.
    code = capture(*FAST, "--connections", "2,4,8", "--stop-plateau-pct", "1000", "--out", str(out))
    assert code == 0
    steps = sorted(p for p in out.iterdir() if p.is_dir())
    assert [p.name for p in steps] == ["001-w10-c0002", "002-w10-c0004"]
    ended = read_manifest(steps[1] / "run.toml").get("extra", "sweep_ended_by")
    assert ended.startswith("plateau: TpmC") and "from 2 to 4 connections" in ended
    assert read_manifest(steps[0] / "run.toml").get("extra", "sweep_ended_by") is None
    state = json.loads((out / ".sweep.json").read_text())
    assert state["status"] == "stopped" and state["ended_by"] == ended
    assert [s["status"] for s in state["steps"]] == ["complete", "complete", "pending"]
    assert "sweep stopped" in capsys.readouterr().err


def test_new_order_percentile_condition(tmp_path, env):
    out = tmp_path / "tpcc"
    assert capture(*FAST, "--connections", "2,4", "--stop-neworder-ms", "0.001", "--stop-neworder-pct", "99",
                   "--out", str(out)) == 0
    steps = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(steps) == 1
    assert read_manifest(steps[0] / "run.toml").get("extra", "sweep_ended_by").startswith("neworder_p99: New-Order p99")


def test_password_from_option_file_and_dry_run_masks_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("IOPSCOPE_DB_PASSWORD", raising=False)
    cnf = tmp_path / "client.cnf"
    cnf.write_text(f"[client]\npassword={PASSWORD}\n")
    code = capture(*FAST, "--connections", "50,100", "--password-file", str(cnf), "--out", str(tmp_path / "t"),
                   "--dry-run")
    printed = capsys.readouterr().out
    assert code == 0 and not (tmp_path / "t").exists()
    assert PASSWORD not in printed
    assert (f"{STANDIN} -h 127.0.0.1 -P 3306 -d tpcc -u root -p '****' -w 10 -c 100 -r 1 -l 2 -i 1 "
            "> tpcc_start.out 2> tpcc_start.err &") in printed
    assert "LC_ALL=C S_TIME_FORMAT=ISO iostat -o JSON -t -x -y 1 2 > iostat.json &" in printed


def test_failed_tpcc_start_is_recorded_with_its_message(tmp_path, env, monkeypatch):
    monkeypatch.setenv("TPCC_STANDIN_FAIL", "connect")
    raw = tmp_path / "raw"
    out = raw / "measured" / "tpcc"
    assert capture(*FAST, "--connections", "2,4", "--out", str(out)) == 1
    steps = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(steps) == 1
    m = read_manifest(steps[0] / "run.toml")
    assert m.get("status") == "failed" and m.get("status_reason")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert not report.errors, [str(e) for e in report.errors]


@pytest.mark.slow
def test_sigint_interrupts_a_tpcc_step_and_resume_continues(tmp_path, env):
    raw = tmp_path / "raw"
    out = raw / "measured" / "tpcc"
    cmd = [sys.executable, "-m", "iopscope.cli", "capture", "tpcc", "--tpcc-start", str(STANDIN), *FAST,
           "--connections", "2,4", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "ingest")})
    step2 = out / "002-w10-c0004"
    try:
        deadline = time.monotonic() + 60
        while not (step2 / "tpcc_start.out").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert tomllib.loads((out / "001-w10-c0002" / "run.toml").read_text())["status"] == "complete"
    m = read_manifest(step2 / "run.toml")
    assert m.get("status") == "interrupted"
    assert PASSWORD not in all_text(out)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert not report.errors, [str(e) for e in report.errors]
    assert main(["capture", "tpcc", "--resume", str(out)]) == 0
    assert read_manifest(step2 / "run.toml").get("status") == "complete"
    assert PASSWORD not in all_text(out)

"""End to end: iopscope capture fio -> iopscope ingest -> iopscope dbt build -> marts.fct_fio_results.

Everything goes to private locations under the test's temp dir (raw tree, lake, warehouse,
dbt target and logs), so the checkout's data/ is not touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(shutil.which(t) for t in ("fio", "iostat", "mpstat")), reason="fio and sysstat needed"),
    pytest.mark.skipif(not (Path(sys.executable).parent / "dbt").exists() and not shutil.which("dbt"),
                       reason="dbt is not installed"),
]


def iopscope(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iopscope.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_captured_sweep_reaches_the_fio_results_mart(tmp_path):
    env = {**os.environ,
           "PYTHONPATH": str(ROOT / "ingest"),
           "IOPSCOPE_RAW": str(tmp_path / "raw"),
           "IOPSCOPE_LAKE": str(tmp_path / "lake"),
           "IOPSCOPE_WAREHOUSE": str(tmp_path / "wh.duckdb"),
           "DBT_TARGET_PATH": str(tmp_path / "target"),
           "DBT_LOG_PATH": str(tmp_path / "logs")}
    work = tmp_path / "work"
    work.mkdir()
    cap = iopscope(env, "capture", "fio", "--target", str(work), "--profile", "database,streaming",
                   "--oio", "1,8", "--area", "16MiB", "--ramp", "0", "--runtime", "1", "--sweep-id", "e2e-sweep",
                   "--note", "pytest end-to-end")
    assert cap.returncode == 0, cap.stderr
    sweep_dir = tmp_path / "raw" / "measured" / "e2e-sweep"  # default place: <raw>/measured/<sweep id>
    assert (sweep_dir / ".sweep.json").is_file()

    ing = iopscope(env, "ingest", "--quiet")
    assert ing.returncode == 0, ing.stdout + ing.stderr
    assert "error" not in ing.stderr.lower()

    # cautious: only the data tests whose every parent is selected (the mart's relationships to
    # dimensions outside the selection are the mart owner's to test on the full build)
    dbt = iopscope(env, "dbt", "build", "--select", "+fct_fio_results", "--indirect-selection", "cautious")
    assert dbt.returncode == 0, dbt.stdout[-3000:] + dbt.stderr[-2000:]

    with duckdb.connect(str(tmp_path / "wh.duckdb"), read_only=True) as con:
        rows = con.execute(
            "select run_id, outstanding_ios, direction, iops, measurement_area, device_media "
            "from marts.fct_fio_results where run_id like 'e2e-sweep-%' order by run_id, direction").fetchall()
    run_ids = sorted({r[0] for r in rows})
    assert run_ids == ["e2e-sweep-001-database-8k-r67-oio001", "e2e-sweep-002-database-8k-r67-oio008",
                       "e2e-sweep-003-streaming-64k-r100-oio001", "e2e-sweep-004-streaming-64k-r100-oio008"]
    # database is a 67% read mix: a read and a write row; streaming reads only
    assert [r[2] for r in rows if "database-8k-r67-oio001" in r[0]] == ["read", "write"]
    assert [r[2] for r in rows if "streaming" in r[0]] == ["read", "read"]
    assert {r[1] for r in rows} == {1, 8}
    assert all(r[3] > 0 for r in rows)
    assert {r[4] for r in rows} == {"16MiB"}

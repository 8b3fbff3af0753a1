"""The iopscope command as users call it."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

THIN_SLICE = ROOT / "data" / "raw" / "measured" / "2026-11-21-vm2-vda-fio-database-thin-slice"


def run(*args):
    return subprocess.run([sys.executable, "-m", "iopscope.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_parse_shows_format_version_and_counts():
    proc = run("parse", str(THIN_SLICE / "fio.json"))
    assert proc.returncode == 0, proc.stderr
    assert "fio_json" in proc.stdout and "3.33" in proc.stdout and "fio_jobs               8 rows" in proc.stdout


def test_parse_json_output():
    proc = run("parse", str(THIN_SLICE / "fio.json"), "--json", "--head", "1")
    data = json.loads(proc.stdout)
    assert data["format"] == "fio_json" and data["records"]["fio_jobs"] == 8
    assert data["first_records"]["fio_jobs"][0]["outstanding_ios"] == 1


def test_parse_rejects_with_one_line_reason(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\nworld\n")
    proc = run("parse", str(junk))
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "junk.txt: rejected: no parser recognizes" in proc.stderr


def test_parse_unknown_tool_is_a_clear_error(tmp_path):
    proc = run("parse", str(THIN_SLICE / "fio.json"), "--format", "nope")
    assert proc.returncode != 0 and "no parser named 'nope'" in proc.stderr


def test_ingest_exit_status_reports_failures(tmp_path):
    raw = tmp_path / "raw" / "x"
    raw.mkdir(parents=True)
    (raw / "bad.txt").write_text("not a benchmark\n")
    proc = run("ingest", "--raw", str(tmp_path / "raw"), "--lake", str(tmp_path / "lake"), "--quiet")
    assert proc.returncode == 1
    assert "x/bad.txt" in proc.stderr and "no parser recognizes" in proc.stderr

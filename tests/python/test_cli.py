"""The iopscope command as users call it."""

from __future__ import annotations

import json
import shutil
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


def test_build_of_named_paths_ingests_only_those_runs(tmp_path):
    raw = tmp_path / "raw" / "measured"
    for name in ("a", "b"):
        shutil.copytree(THIN_SLICE, raw / name)
        manifest = raw / name / "run.toml"
        manifest.write_text(manifest.read_text().replace(THIN_SLICE.name, f"run-{name}"))
    where = ["--raw", str(tmp_path / "raw"), "--lake", str(tmp_path / "lake")]
    proc = run("build", *where, "--skip", "dbt", "--skip", "site", str(raw / "b"))
    assert proc.returncode == 0, proc.stderr
    said = " ".join((proc.stdout + proc.stderr).split())
    assert "1 runs (1 parsed" in said, said
    refused = run("build", *where, "--skip", "dbt", "--skip", "site", str(tmp_path))
    assert refused.returncode == 2 and "is not under the raw root" in refused.stderr
    assert "nothing built" in refused.stderr


def test_a_termination_wrapped_by_python_is_one_line_not_a_traceback(capsys):
    """A SIGTERM landing inside Python's own machinery (a dataclass's ``__set_name__`` during an
    import) reaches us as a RuntimeError caused by it; that is still a termination (exit 143)."""
    import argparse

    from iopscope import cli

    def defines_a_class_when_terminated(args):
        try:
            raise cli._Terminated()
        except cli._Terminated as terminated:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'dirs' in '_Job'") from terminated

    assert cli._run(argparse.Namespace(command="ingest", func=defines_a_class_when_terminated)) == 143
    assert capsys.readouterr().err == "iopscope ingest: terminated\n"


def test_other_errors_still_propagate():
    import argparse

    import pytest

    from iopscope import cli

    def fails(args):
        raise RuntimeError("a real bug")

    with pytest.raises(RuntimeError, match="a real bug"):
        cli._run(argparse.Namespace(command="ingest", func=fails))


def _run_in_a_process(tmp_path, body: str) -> subprocess.CompletedProcess:
    """Run ``func`` (defined in ``body``) as an iopscope command does, in its own process."""
    script = tmp_path / "command.py"
    script.write_text(
        "import argparse, os, signal, sys\n"
        "from iopscope import cli\n"
        f"{body}\n"
        "sys.exit(cli._run(argparse.Namespace(command='ingest', func=func)))\n")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_sigterm_inside_a_destructor_still_terminates(tmp_path):
    """Python ignores an exception raised in __del__ or a weakref callback (an import's module
    lock has one: CI saw a SIGTERM vanish there and the ingest run on to exit 0)."""
    proc = _run_in_a_process(tmp_path, (
        "class SendsSigterm:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        sum(range(1000))   # the handler runs here, inside __del__\n"
        "def func(args):\n"
        "    SendsSigterm()\n"
        "    print('went on after SIGTERM')\n"
        "    return 0\n"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (143, "", "iopscope ingest: terminated\n")


def test_sigterm_during_an_import_terminates_in_one_line(tmp_path):
    (tmp_path / "sends_sigterm_on_import.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\nsum(range(1000))\n")
    proc = _run_in_a_process(tmp_path, (
        "def func(args):\n"
        "    sys.path.insert(0, os.getcwd())\n"
        "    import sends_sigterm_on_import\n"
        "    print('went on after SIGTERM')\n"
        "    return 0\n"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (143, "", "iopscope ingest: terminated\n")


def test_sigterm_elsewhere_runs_finally_blocks(tmp_path):
    proc = _run_in_a_process(tmp_path, (
        "def func(args):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        sum(range(1000))\n"
        "        print('went on after SIGTERM')\n"
        "    finally:\n"
        "        print('cleaned up')\n"
        "    return 0\n"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (143, "cleaned up\n", "iopscope ingest: terminated\n")

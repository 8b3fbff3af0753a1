"""Hostile entries in a raw tree: each is one reported file error (path and reason) and the batch
goes on. Symlink loops, links leading outside the raw root, FIFOs, unreadable files and folders
(checked as an unprivileged user: root reads anything), console markup in quoted file text, and
a run.toml with several bad keys."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from iopscope.ingest import Ingestor, parse_file

FIO_JSON = (ROOT / "data" / "raw" / "measured" / "2026-11-21-vm2-vda-fio-database-thin-slice" / "fio.json").read_text()
NOBODY = 65534


def good_run(raw: Path) -> None:
    good = raw / "measured" / "good"
    good.mkdir(parents=True)
    (good / "run.toml").write_text('run_id = "good-run"\n')
    (good / "fio.json").write_text(FIO_JSON)


def tree_with(tmp_path: Path, folder: str) -> tuple[Path, Path, Path]:
    """raw root holding the good run and an empty run folder ``measured/<folder>``; lake path."""
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    good_run(raw)
    odd = raw / "measured" / folder
    odd.mkdir(parents=True)
    return raw, lake, odd


def ingest(raw: Path, lake: Path):
    return Ingestor(raw, lake).run()


def errors_by_path(report) -> dict[str, str]:
    return {e.path: e.reason for e in report.errors}


def lake_rows(lake: Path, table: str) -> list[dict]:
    return pq.read_table(lake / table, partitioning="hive").to_pylist()


def assert_good_run_ingested(report, lake: Path) -> None:
    assert report.runs_ingested >= 1
    assert {r["run_id"] for r in lake_rows(lake, "fio_jobs")} == {"good-run"}


def test_symlink_loop_is_one_error_and_the_batch_goes_on(tmp_path):
    raw, lake, odd = tree_with(tmp_path, "odd")
    (odd / "a").symlink_to("b")
    (odd / "b").symlink_to("a")
    (odd / "dangling").symlink_to("nowhere")
    report = ingest(raw, lake)
    found = errors_by_path(report)
    assert found == {"measured/odd/a": "not read: a symlink loop", "measured/odd/b": "not read: a symlink loop",
                     "measured/odd/dangling": "not read: a dangling symlink (No such file or directory)"}
    assert_good_run_ingested(report, lake)
    recorded = {(r["source_path"], r["reason"]) for r in lake_rows(lake, "ingest_errors")}
    assert ("measured/odd/a", "not read: a symlink loop") in recorded
    # a second ingest reports them again without parsing anything
    again = ingest(raw, lake)
    assert errors_by_path(again) == found and again.runs_ingested == 0


def test_symlink_outside_the_raw_root_is_not_followed(tmp_path):
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    good_run(raw)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "fio.json").write_text(FIO_JSON)
    (raw / "measured" / "good" / "borrowed.json").symlink_to(outside / "fio.json")
    (raw / "measured" / "good" / "other-tree").symlink_to(outside)
    (raw / "measured" / "good" / "same-tree.json").symlink_to(raw / "measured" / "good" / "fio.json")
    report = ingest(raw, lake)
    reasons = errors_by_path(report)
    assert reasons == {
        "measured/good/borrowed.json": f"not followed: symlink leads outside the raw root (to {outside / 'fio.json'})",
        "measured/good/other-tree": f"not followed: symlink leads outside the raw root (to {outside})",
    }
    files = {r["source_path"] for r in lake_rows(lake, "ingest_files")}
    # a link to a file inside the raw root is read like the file itself
    assert files == {"measured/good/fio.json", "measured/good/same-tree.json"}


def test_fifo_is_an_error_in_ingest_and_does_not_hang_parse(tmp_path):
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    good_run(raw)
    fifo = raw / "measured" / "good" / "pipe.log"
    os.mkfifo(fifo)
    report = ingest(raw, lake)
    assert errors_by_path(report) == {"measured/good/pipe.log": "not read: a FIFO (named pipe), not a regular file"}
    assert_good_run_ingested(report, lake)
    with pytest.raises(OSError, match="not a regular file"):
        parse_file(fifo)
    proc = subprocess.run([sys.executable, "-m", "iopscope.cli", "parse", str(fifo)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT / "ingest")})
    assert proc.returncode == 2 and "not a regular file (a FIFO (named pipe))" in proc.stderr


def test_console_markup_and_emoji_codes_are_printed_verbatim(tmp_path):
    raw, lake, odd = tree_with(tmp_path, "[bold]odd")
    (odd / "notes.log").write_text("[/red] :x: [link=http://example.com]click[/link]\nmore\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest")}
    cmd = [sys.executable, "-m", "iopscope.cli", "ingest", "--raw", str(raw), "--lake", str(lake)]
    for _attempt in range(2):   # the second ingest re-reports the recorded error from the state
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        text = " ".join(proc.stderr.split())   # the console wraps long lines
        assert "measured/[bold]odd/notes.log: no parser recognizes this file" in text
        assert "(first line: '[/red] :x: [link=http://example.com]click[/link]')" in text
        assert "\u274c" not in proc.stderr


def test_manifest_with_several_bad_keys_reports_each_with_its_line(tmp_path):
    raw, lake, bad = tree_with(tmp_path, "bad")
    (bad / "run.toml").write_text('run_id = "bad"\nknd = "measured"\n[host]\nlogical_cpus = "2"\nram = 4\n')
    (bad / "fio.json").write_text(FIO_JSON)
    report = ingest(raw, lake)
    found = sorted((e.path, e.line, e.reason.split(":")[0]) for e in report.errors)
    assert found == [("measured/bad/run.toml", 2, "key 'knd'"),
                     ("measured/bad/run.toml", 4, "key 'host.logical_cpus'"),
                     ("measured/bad/run.toml", 5, "key 'host.ram'")]
    recorded = sorted((r["line"], r["reason"].split(":")[0]) for r in lake_rows(lake, "ingest_errors")
                      if r["source_path"] == "measured/bad/run.toml")
    assert recorded == [(2, "key 'knd'"), (4, "key 'host.logical_cpus'"), (5, "key 'host.ram'")]


def _ingest_as_nobody(raw: Path, lake: Path) -> dict:
    """Ingest as an unprivileged user (root ignores file permissions): in a forked child that
    drops to uid/gid 65534 (everything it needs is imported already), report sent back as JSON."""
    if os.geteuid() != 0:
        report = ingest(raw, lake)
        return {"errors": [[e.path, e.reason] for e in report.errors], "ingested": report.runs_ingested}
    lake.mkdir()
    os.chown(lake, NOBODY, NOBODY)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:   # child: never returns into pytest
        status = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            report = ingest(raw, lake)
            os.write(write_end, json.dumps({"errors": [[e.path, e.reason] for e in report.errors],
                                            "ingested": report.runs_ingested}).encode())
            status = 0
        except BaseException as exc:  # noqa: BLE001 - reported to the parent as text
            os.write(write_end, json.dumps({"crash": "".join(traceback.format_exception(exc))}).encode())
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def test_unreadable_file_and_folder_as_unprivileged_user():
    # pytest's own temporary folders are private to root: the unprivileged child could not
    # reach them at all
    tmp_path = Path(tempfile.mkdtemp(prefix="iopscope-hostile-"))
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    good_run(raw)
    odd = raw / "measured" / "odd"
    (odd / "locked").mkdir(parents=True)
    (odd / "locked" / "fio.json").write_text(FIO_JSON)
    (odd / "secret.json").write_text(FIO_JSON)
    (odd / "open.json").write_text(FIO_JSON)
    for folder in [tmp_path, *raw.rglob("*")] + [raw]:
        folder.chmod(0o755 if folder.is_dir() else 0o644)
    (odd / "locked").chmod(0o000)
    (odd / "secret.json").chmod(0o000)
    try:
        result = _ingest_as_nobody(raw, lake)
    finally:
        (odd / "locked").chmod(0o755)
        (odd / "secret.json").chmod(0o644)
    try:
        check_unreadable(result, lake)
    finally:
        shutil.rmtree(tmp_path)


def check_unreadable(result: dict, lake: Path) -> None:
    assert "crash" not in result, result
    assert sorted(map(tuple, result["errors"])) == [
        ("measured/odd/locked", "folder not read (Permission denied): the files in it are not ingested"),
        ("measured/odd/secret.json", "not read: Permission denied"),
    ]
    assert result["ingested"] == 2
    files = {r["source_path"] for r in lake_rows(lake, "ingest_files")}
    assert files == {"measured/good/fio.json", "measured/odd/open.json"}

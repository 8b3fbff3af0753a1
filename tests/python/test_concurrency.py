"""Readers and writers at the same time (issue 18, item 2).

ingest x ingest and ingest x warehouse build take turns on the lake's lock, and the one kept
waiting says who it waits for (pid, command, since when) and says it again while it waits;
`iopscope sql` answers from the last committed warehouse while a build runs, and an open
`iopscope sql` session does not stop a build. Real processes throughout, private folders
under tmp_path; builds use the small dbt project of `small_dbt`.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT
from iopscope import locks
from iopscope.lake import Lake
from small_dbt import IOPSCOPE, SWEEP_RUNS, built, iopscope, iopscope_env


def _wait_for_holder(lock: Path, proc: subprocess.Popen, timeout_s: float = 30) -> locks.Holder:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = [h for h in locks.holders(lock) if h.pid == proc.pid]
        if found:
            return found[0]
        assert proc.poll() is None, f"exited before taking {lock}: {proc.communicate()[1]}"
        time.sleep(0.02)
    raise AssertionError(f"{proc.args} never recorded itself as holding {lock}")


def _finish(proc: subprocess.Popen, timeout_s: float = 180) -> tuple[int, str]:
    _, stderr = proc.communicate(timeout=timeout_s)
    assert "Traceback" not in stderr, stderr
    return proc.returncode, stderr


def _count(warehouse: Path, relation: str = "inc_jobs") -> int:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return con.execute(f"select count(distinct run_id) from {relation}").fetchone()[0]
    finally:
        con.close()


def test_ingest_waits_for_ingest_and_says_who_holds_the_lock(tmp_path):
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    shutil.copytree(ROOT / "data" / "raw", raw)
    env = iopscope_env(IOPSCOPE_LOCK_REPORT_S="0.5")
    where = ("--quiet", "--raw", str(raw), "--lake", str(lake))
    first = iopscope("ingest", "--force", *where, env=env)
    _wait_for_holder(lake / ".lock", first)
    second = iopscope("ingest", *where, env=env)
    code_first, _ = _finish(first)
    code_second, waited = _finish(second)
    assert (code_first, code_second) == (0, 0)
    assert re.search(rf"waiting for {re.escape(str(lake / '.lock'))} \(ingest\), held by pid {first.pid} "
                     r"\(ingest: .*iopscope\.cli ingest --force .*\) since \d\d:\d\d:\d\d", waited), waited
    # the second found everything done by the first
    assert re.search(r"ingest: (\d+) runs \(0 parsed, \1 unchanged, 0 removed\)", waited), waited


def test_waiting_is_repeated_and_gives_up_with_one_clear_line(tmp_path):
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    shutil.copytree(ROOT / "data" / "raw" / "published", raw / "published")
    env = iopscope_env(IOPSCOPE_LOCK_REPORT_S="0.3")
    with Lake(lake).locked(purpose="test holding the lake"):
        started = time.monotonic()
        proc = iopscope("ingest", "--quiet", "--wait", "1.5", "--raw", str(raw), "--lake", str(lake), env=env)
        code, stderr = _finish(proc)
        waited = time.monotonic() - started
    assert code == 3 and waited < 10
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len([line for line in lines if line.startswith("waiting for")]) >= 3, stderr
    assert re.fullmatch(rf"iopscope ingest: gave up after waiting \d s for {re.escape(str(lake / '.lock'))}: "
                        rf"it is held by pid {os.getpid()} \(test holding the lake: .*\) since .*",
                        lines[-1]), lines[-1]
    # nothing was written while it waited, and the lock is free again
    assert not list(lake.glob("runs/*/*.parquet"))
    assert iopscope("ingest", "--quiet", "--wait", "0", "--raw", str(raw), "--lake", str(lake), env=env).wait() == 0


@pytest.fixture(scope="module")
def three_runs_built(tmp_path_factory):
    """Three runs ingested and built once for the module; each test works on a clone."""
    return built(tmp_path_factory.mktemp("base"), SWEEP_RUNS[:3])


def test_ingest_during_a_build_waits_and_the_next_build_sees_it(three_runs_built, tmp_path):
    setup = three_runs_built.clone(tmp_path)
    env = {**setup.env, "IOPSCOPE_LOCK_REPORT_S": "1"}
    assert _count(setup.warehouse) == 3
    build = iopscope("dbt", "--full", *setup.where, env=env)
    _wait_for_holder(setup.lake / ".lock", build)
    setup.add_runs(SWEEP_RUNS[3:7])
    ingest = iopscope("ingest", "--quiet", *setup.where, env=env)
    code_build, _ = _finish(build)
    code_ingest, waited = _finish(ingest)
    assert (code_build, code_ingest) == (0, 0)
    assert f"held by pid {build.pid} (warehouse build:" in waited
    assert _count(setup.warehouse) == 3   # the build read the lake as it was when it began
    assert iopscope("dbt", "--update", *setup.where, env=env).wait() == 0
    assert _count(setup.warehouse) == 7


# Loaded by the ingest process of the test below (sitecustomize on its PYTHONPATH): it holds the
# lake's lock this long after its last run, before it compacts and lets go. Without it the ingest
# of 37 small runs could finish before the build, still importing, asks for the lock (seen once
# in CI: the build never waited, and the test could not see it wait).
_HOLD_THE_LAKE = """
import os, time
from iopscope import compaction
_finish = compaction.finish
def finish(*args, **kwargs):
    time.sleep(float(os.environ["IOPSCOPE_TEST_INGEST_HOLD_S"]))
    return _finish(*args, **kwargs)
compaction.finish = finish
"""


def test_builds_wait_for_an_ingest(three_runs_built, tmp_path):
    setup = three_runs_built.clone(tmp_path)
    setup.add_runs(SWEEP_RUNS[3:40])
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOLD_THE_LAKE)
    slow = {**setup.env, "IOPSCOPE_TEST_INGEST_HOLD_S": "4",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), setup.env.get("PYTHONPATH")]))}
    ingest = iopscope("ingest", "--quiet", "--force", *setup.where, env=slow)
    _wait_for_holder(setup.lake / ".lock", ingest)
    build = iopscope("dbt", "--update", *setup.where, env=setup.env)
    assert _finish(ingest)[0] == 0
    code, waited = _finish(build)
    assert code == 0 and f"held by pid {ingest.pid} (ingest:" in waited
    assert _count(setup.warehouse) == 40   # built from the finished ingest, not half of it


def test_sql_reads_the_last_build_while_a_build_runs_and_a_session_does_not_stop_it(three_runs_built, tmp_path):
    setup = three_runs_built.clone(tmp_path)
    setup.add_runs(SWEEP_RUNS[3:6])
    assert iopscope("ingest", "--quiet", *setup.where, env=setup.env).wait() == 0
    query = ("sql", "--warehouse", str(setup.warehouse), "-c", "select count(distinct run_id) as runs from inc_jobs")

    # a session opened before the build, left open through it
    session = iopscope("sql", "--warehouse", str(setup.warehouse), env=setup.env, stdin=subprocess.PIPE)
    session.stdin.write("select count(distinct run_id) as before_build from inc_jobs;\n")
    session.stdin.flush()

    build = iopscope("dbt", "--update", *setup.where, env=setup.env)
    answers, failures = [], []
    while build.poll() is None:
        proc = subprocess.run([*IOPSCOPE, *query], env=setup.env, capture_output=True, text=True, timeout=60)
        if proc.returncode != 0 or "Traceback" in proc.stderr:
            failures.append(proc.stderr)
        else:
            answers.append(int(re.findall(r"│\s+(\d+)\s+│", proc.stdout)[-1]))
    assert _finish(build)[0] == 0
    print(f"sql during the build: {len(answers)} answered, {len(failures)} failed")
    assert failures == [] and len(answers) >= 2
    assert set(answers) <= {3, 6} and answers[0] == 3   # the committed build, old then new: never a mix

    out, err = session.communicate("select count(distinct run_id) as after_build from inc_jobs;\n", timeout=60)
    assert session.returncode == 0 and "Traceback" not in err
    assert _count(setup.warehouse) == 6


def test_ctrl_c_while_waiting_is_one_line(tmp_path):
    raw, lake = tmp_path / "raw", tmp_path / "lake"
    shutil.copytree(ROOT / "data" / "raw" / "published", raw / "published")
    with Lake(lake).locked(purpose="test"):
        proc = iopscope("ingest", "--quiet", "--raw", str(raw), "--lake", str(lake), env=iopscope_env())
        first = proc.stderr.readline()   # its first words: it is waiting now
        assert first.startswith("waiting for"), first
        proc.send_signal(signal.SIGINT)
        code, stderr = _finish(proc, 30)
    assert code == 130
    assert [line for line in stderr.splitlines() if line.strip()][-1] == "iopscope ingest: interrupted"


@pytest.mark.parametrize("outside", ["elsewhere", "raw/../elsewhere", "missing"])
def test_ingest_of_a_path_outside_the_raw_root_fails(tmp_path, outside):
    (tmp_path / "raw" / "measured").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    proc = iopscope("ingest", "--quiet", "--raw", str(tmp_path / "raw"), "--lake", str(tmp_path / "lake"),
                    str(tmp_path / outside), env=iopscope_env())
    code, stderr = _finish(proc, 60)
    assert code == 2 and "nothing ingested" in stderr and str(tmp_path / outside) in stderr


def test_capture_dry_run_exits_2_when_the_target_is_refused(tmp_path):
    precious = tmp_path / "precious.db"
    precious.write_bytes(b"data")
    common = ("capture", "fio", "--area", "1MiB", "--oio", "1", "--dry-run", "--out", str(tmp_path / "sweep"))
    refused = subprocess.run([*IOPSCOPE, *common, "--target", str(precious)],
                             env=iopscope_env(), capture_output=True, text=True)
    assert refused.returncode == 2 and "# target refused" in refused.stdout
    accepted = subprocess.run([*IOPSCOPE, *common, "--target", str(tmp_path)],
                              env=iopscope_env(), capture_output=True, text=True)
    assert accepted.returncode == 0 and "accepted" in accepted.stdout
    assert precious.read_bytes() == b"data"


def test_ctrl_c_in_the_sql_console_cancels_the_statement_not_the_session(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    con = duckdb.connect(str(warehouse))
    con.execute("create table t as select 42 as answer")
    con.close()
    session = iopscope("sql", "--warehouse", str(warehouse), env=iopscope_env(), stdin=subprocess.PIPE)
    # the reads below block: a console that never answers is killed after 120 s, so the test
    # fails ("console ended early") instead of holding the whole suite
    watchdog = threading.Timer(120, session.kill)
    watchdog.start()
    session.stdin.write("select 'half typed' as x\n")   # no ';': the console waits for more
    session.stdin.flush()
    seen = ""
    while not seen.endswith("...> "):
        char = session.stdout.read(1)
        assert char, f"console ended early: {seen!r}"
        seen += char
    session.send_signal(signal.SIGINT)
    # A signal that lands between the prompt's write and the read of stdin leaves Python's flag
    # set while read() blocks: it is raised only when the next line arrives (at a terminal the
    # key interrupts the read itself). An empty line wakes such a read; if the Ctrl-C was
    # already handled, it is an empty line of the next statement, which changes nothing.
    time.sleep(1)
    session.stdin.write("\n")
    session.stdin.flush()
    # the next statement is typed only once the console has said so: written earlier, a loaded
    # machine may hand it to the half-typed statement before the signal lands, cancelling both
    seen = ""
    while not (seen.endswith("sql> ") and "(cancelled)" in seen):
        char = session.stdout.read(1)
        assert char, f"console ended early: {seen!r}"
        seen += char
    out, err = session.communicate("select answer from t;\n", timeout=30)
    watchdog.cancel()
    out = seen + out
    assert session.returncode == 0 and "Traceback" not in err, err
    assert "(cancelled)" in out and "42" in out and "half typed" not in out

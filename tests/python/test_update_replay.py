"""The warehouse update replayed without dbt (iopscope/update_replay.py).

Unit tests on small DuckDB files: the runs_to_build markers are rendered again from their
queries, a failing statement rolls the whole replay back, dbt's JSON log is read into the
writing statements of each model in graph order. Then the real project on a copy of the bundled
data: a replayed update holds the very rows (and table comments) a dbt update of the same lake
holds, and a full build's marts; a replay killed at random moments leaves the last build or the
complete next one; a reader during a replay waits for it; a reader holding the file, or a script
that fails, sends the update to dbt.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import duckdb
import pytest
import yaml

from conftest import ROOT
from iopscope import build_stamp, pipeline, update_replay
from iopscope.ingest import Ingestor
from iopscope.paths import Paths
from iopscope.update_replay import ReplayError, Statement
from small_dbt import IOPSCOPE, iopscope_env
from test_dbt_incremental import SWEEP, _change_raw, _compare_marts, _copy_run, _incremental_models

MARK = "/*iopscope:runs_to_build column={column} query={query}*/ (1 = 1) /*iopscope:runs_to_build_end*/"


def _db(tmp_path: Path, runs: list[str]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("create table samples as select unnest(?::varchar[]) as run_id, 1 as v", [runs * 2])
    con.execute("create table changed (run_id varchar)")
    return con


def _marked(column: str = "run_id") -> str:
    return MARK.format(column=column, query="select run_id from changed")


def test_markers_are_rendered_from_their_query_as_the_macro_does(tmp_path):
    con = _db(tmp_path, ["a", "b", "o'brien"])
    script = [Statement("model.p.built", f"create table built as select * from samples where {_marked()}")]
    update_replay.replay(con, script)
    assert con.execute("select count(*) from built").fetchone() == (0,)   # nothing changed: (1 = 0)

    con.execute("insert into changed values ('b'), ('o''brien')")
    script = [Statement("model.p.built", "drop table built"),
              Statement("model.p.built", f"create table built as select * from samples where {_marked()}")]
    report = update_replay.replay(con, script)
    assert sorted(con.execute("select run_id from built").fetchall()) == [("b",), ("b",), ("o'brien",), ("o'brien",)]
    assert (report.statements, report.nodes, report.runs_selected) == (2, 1, 2)

    assert update_replay._render_runs("x.run_id", "q", []) == "(1 = 0)"
    assert update_replay._render_runs("x.run_id", "q", ["a", "it's"]) == "x.run_id in ('a', 'it''s')"
    many = [str(i) for i in range(update_replay.MAX_LISTED_RUNS + 1)]
    assert update_replay._render_runs("x.run_id", "select 1", many) == "x.run_id in (select 1)"


KEYS_MARK = "/*iopscope:keys_to_build column={column} query={query}*/ (1 = 1) /*iopscope:keys_to_build_end*/"


def test_key_markers_keep_rows_without_a_key_and_those_of_changed_keys(tmp_path):
    """keys_to_build_filter(): rows of the listed keys and rows whose key is null, nothing else;
    more keys than can be listed (or keys that are not text) keep the subquery."""
    con = _db(tmp_path, ["a", "b", "it's"])
    con.execute("insert into samples values (null, 2)")
    marked = KEYS_MARK.format(column="s.run_id", query="select run_id from changed")
    script = [Statement("model.p.built", f"create table built as select * from samples as s where {marked}")]
    update_replay.replay(con, script)
    assert con.execute("select run_id, v from built").fetchall() == [(None, 2)]   # no key changed

    con.execute("insert into changed values ('it''s')")
    script = [Statement("model.p.built", "drop table built"), *script]
    update_replay.replay(con, script)
    assert sorted(con.execute("select run_id from built").fetchall(), key=str) == [("it's",), ("it's",), (None,)]

    render = update_replay._render_keys
    assert render("x.k", "q", []) == "(x.k is null)"
    assert render("x.k", "q", ["a", "it's"]) == "(x.k is null or x.k in ('a', 'it''s'))"
    assert render("x.k", "q", [1, 2]) == "(x.k is null or x.k in (q))"
    many = [str(i) for i in range(update_replay.MAX_LISTED_RUNS + 1)]
    assert render("x.k", "select 1", many) == "(x.k is null or x.k in (select 1))"


def test_a_node_takes_its_runs_lists_before_its_first_statement(tmp_path):
    """dbt renders a model (running the macro's queries) before its pre-hook deletes rows: a
    list the node's own delete would shrink is taken before it."""
    con = _db(tmp_path, ["a", "b"])
    con.execute("insert into changed values ('a'), ('b')")
    script = [Statement("model.p.built", "delete from changed where run_id = 'b'"),
              Statement("model.p.built", f"create table built as select distinct run_id from samples where {_marked()}")]
    update_replay.replay(con, script)
    assert sorted(con.execute("select run_id from built").fetchall()) == [("a",), ("b",)]


def test_a_failing_statement_rolls_the_whole_replay_back(tmp_path):
    con = _db(tmp_path, ["a"])
    script = [Statement("model.p.first", "create table first as select 1 as one"),
              Statement("model.p.first", "delete from samples"),
              Statement("model.p.second", "insert into nowhere select 1")]
    with pytest.raises(ReplayError, match=r"^model\.p\.second: Catalog Error"):
        update_replay.replay(con, script)
    assert con.execute("select count(*) from samples").fetchone() == (2,)
    assert con.execute("select count(*) from duckdb_tables() where table_name = 'first'").fetchone() == (0,)
    con.close()
    assert duckdb.connect(str(tmp_path / "w.duckdb")).execute("select count(*) from samples").fetchone() == (2,)


def _event(name: str, node: str = "", sql: str | None = None) -> str:
    data: dict = {}
    if name in ("NodeStart", "NodeFinished"):
        data["node_info"] = {"unique_id": node}
    if sql is not None:
        data.update(conn_name=node, sql=f'/* {{"app": "dbt", "node_id": "{node}"}} */\n{sql}')
    return json.dumps({"info": {"name": name, "level": "debug"}, "data": data})


def test_the_log_gives_each_models_writing_statements_in_the_order_models_began(tmp_path):
    log = tmp_path / "dbt.log"
    lines = [_event("SQLQuery", "list_p", "select schema_name from information_schema.schemata"),
             _event("SQLQuery", "create_p_marts", "create schema if not exists p.marts"),
             _event("NodeStart", "model.p.parent"),
             _event("SQLQuery", "model.p.parent", "BEGIN"),
             _event("SQLQuery", "model.p.parent", "create table parent__dbt_tmp as (select 1)"),
             _event("NodeStart", "model.p.other"),
             _event("SQLQuery", "model.p.other", "create table other as select 2"),
             _event("SQLQuery", "model.p.parent", "select column_name from (describe parent__dbt_tmp)"),
             _event("SQLQuery", "model.p.parent", "alter table parent__dbt_tmp rename to parent"),
             _event("SQLQuery", "model.p.parent", "COMMIT"),
             _event("NodeFinished", "model.p.parent"),
             _event("NodeFinished", "model.p.other"),
             _event("NodeStart", "model.p.child"),
             _event("SQLQuery", "model.p.child", "describe child"),
             _event("SQLQuery", "model.p.child", "  with x as (select 1) delete from child where 1 in (select * from x)"),
             _event("SQLQuery", "model.p.child", "insert into child select * from parent"),
             _event("NodeFinished", "model.p.child")]
    log.write_text("\n".join(lines) + "\n")
    assert update_replay.script_from_log(log) == [
        Statement("model.p.parent", "create table parent__dbt_tmp as (select 1)"),
        Statement("model.p.parent", "alter table parent__dbt_tmp rename to parent"),
        Statement("model.p.other", "create table other as select 2"),
        Statement("model.p.child", "with x as (select 1) delete from child where 1 in (select * from x)"),
        Statement("model.p.child", "insert into child select * from parent")]

    hook = _event("SQLQuery", "master", "insert into audit select 1")   # an on-run-end hook
    log.write_text("\n".join([*lines, hook]) + "\n")
    with pytest.raises(ReplayError, match=r":\d+: a statement outside any model \(master\): insert into audit"):
        update_replay.script_from_log(log)
    log.write_text("\n".join(lines[:-1]) + "\n")   # cut short: the child never finished
    with pytest.raises(ReplayError, match="1 models began without finishing"):
        update_replay.script_from_log(log)
    log.write_text("\n".join(lines[:3]) + "\nnot json\n")
    with pytest.raises(ReplayError, match=rf"{re.escape(str(log))}:4: not a dbt JSON log line"):
        update_replay.script_from_log(log)


def test_the_script_is_kept_for_one_project_dbt_and_file_name(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    statements = [Statement("model.p.a", "select 1")]
    key = update_replay.script_key("k1", warehouse)
    update_replay.save(warehouse, key, statements)
    assert update_replay.load(warehouse, key) == statements
    assert update_replay.load(warehouse, update_replay.script_key("k2", warehouse)) is None
    assert update_replay.load(tmp_path / "other.duckdb", key) is None
    assert key != update_replay.script_key("k1", tmp_path / "other.duckdb")
    update_replay.path(warehouse).write_text("{")
    assert update_replay.load(warehouse, key) is None


def test_the_replay_connection_has_the_profiles_settings(monkeypatch):
    for name in ("IOPSCOPE_DUCKDB_MEMORY_LIMIT", "IOPSCOPE_DUCKDB_THREADS"):
        monkeypatch.delenv(name, raising=False)
    dev = yaml.safe_load((ROOT / "profiles.yml").read_text())["iopscope"]["outputs"]["dev"]
    settings = update_replay.connection_settings()
    for name, value in dev["settings"].items():
        default = re.search(r"env_var\('[A-Z_]+', '([^']*)'\)", str(value))
        assert str(settings[name]).lower() == (default.group(1) if default else str(value)).lower(), name
    for name in ("autoinstall_known_extensions", "autoload_known_extensions"):
        assert settings[name] == "false" and dev["config_options"][name] is False


# -- the real project


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The bundled data, built in full; one run added and updated by dbt, which recorded its
    statements; then the changes of test_dbt_incremental ingested: the next update's input.
    Each test works on a copy (``_clone``)."""
    base = tmp_path_factory.mktemp("recorded")
    env = {"DBT_TARGET_PATH": str(base / "target"), "DBT_LOG_PATH": str(base / "logs"), "IOPSCOPE_DUCKDB_THREADS": "1"}
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        raw = base / "raw"
        shutil.copytree(ROOT / "data" / "raw", raw)
        paths = Paths(root=ROOT, raw=raw, lake=base / "lake", warehouse=base / "wh" / "iopscope.duckdb", dist=base / "dist")
        assert not Ingestor(paths.raw, paths.lake).run().failed
        assert pipeline.build_warehouse(paths, run_tests=False) == "full"
        assert not update_replay.path(paths.warehouse).exists(), "a full build records nothing"
        _copy_run(raw, f"{SWEEP}/017-file-server-64k-r67-oio128")
        assert Ingestor(paths.raw, paths.lake).run().runs_ingested == 1
        assert pipeline.build_warehouse(paths, run_tests=False) == "incremental"
        assert update_replay.path(paths.warehouse).exists(), "a dbt update records its statements"
        assert not paths.warehouse.with_name("iopscope.duckdb.update-log").exists(), "its log is dropped once read"
        _change_raw(raw)
        assert Ingestor(paths.raw, paths.lake).run().runs_ingested == 3
        incremental = _incremental_models(base / "target")
    return paths, env, incremental


def _clone(paths: Paths, folder: Path) -> Paths:
    """A copy of the warehouse (with its stamp and script) in ``folder``, on the same lake."""
    folder.mkdir(parents=True)
    for name in ("", build_stamp.SUFFIX, update_replay.SUFFIX):
        shutil.copyfile(f"{paths.warehouse}{name}", folder / f"{paths.warehouse.name}{name}")
    return dataclasses.replace(paths, warehouse=folder / paths.warehouse.name)


def warehouse_rows(warehouse: Path) -> dict[str, tuple]:
    """Every table's row count, order-free sum of row hashes (duplicates count) and comment."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        tables = con.execute("select schema_name, table_name, comment from duckdb_tables() order by 1, 2").fetchall()
        return {f"{s}.{t}": (*con.execute(f'select count(*), sum(hash(r)::hugeint) from "{s}"."{t}" as r').fetchone(), c)
                for s, t, c in tables}
    finally:
        con.close()


def _tables(con, catalog):
    return [tuple(r) for r in con.execute(
        "select schema_name, table_name, comment from duckdb_tables() where database_name = ? order by 1, 2",
        [catalog]).fetchall()]


def test_a_replayed_update_holds_what_a_dbt_update_and_a_full_build_hold(recorded, tmp_path, monkeypatch, capsys):
    paths, env, incremental = recorded
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    replayed, by_dbt = _clone(paths, tmp_path / "replayed"), _clone(paths, tmp_path / "dbt")
    update_replay.discard(by_dbt.warehouse)
    inode = replayed.warehouse.stat().st_ino

    calls = []
    real_run_dbt = pipeline._run_dbt
    monkeypatch.setattr(pipeline, "_run_dbt", lambda *a, **k: calls.append(a[1]) or real_run_dbt(*a, **k))
    capsys.readouterr()
    assert pipeline.build_warehouse(replayed, run_tests=False) == "incremental"
    said = " ".join(capsys.readouterr().err.split())
    assert calls == [] and "update replayed without dbt" in said
    # bench/run.py reads that line (statements, models, seconds, slowest models) from its output
    spec = importlib.util.spec_from_file_location("iopscope_bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    parsed = bench_run._REPLAYED.search(said)
    assert parsed and int(parsed["models"]) >= 40 and parsed["slowest"].count(" s") == 3, said
    assert replayed.warehouse.stat().st_ino == inode, "written in place, in one transaction"
    assert build_stamp.committed_generation(replayed.warehouse), "the stamp names the file as committed"
    assert build_stamp.read(replayed.warehouse)["lake_key"] == pipeline.lake_content_key(paths)
    assert pipeline.build_warehouse(replayed, run_tests=False) == "unchanged"

    assert pipeline.build_warehouse(by_dbt, run_tests=False) == "incremental"
    assert calls and calls[0][:1] == ["run"]
    assert update_replay.path(by_dbt.warehouse).exists()

    # every table the update writes, row for row and with its comment, as the dbt update wrote it
    con = duckdb.connect()
    con.execute(f"attach '{replayed.warehouse}' as rep (read_only)")
    con.execute(f"attach '{by_dbt.warehouse}' as dbt (read_only)")
    tables = _tables(con, "dbt")
    assert _tables(con, "rep") == tables and len(tables) >= 40
    differ = {f"{s}.{t}": n for s, t, _ in tables
              if (n := con.execute(f'select (select count(*) from (select * from rep."{s}"."{t}" except all '
                                   f'select * from dbt."{s}"."{t}")) + (select count(*) from (select * from '
                                   f'dbt."{s}"."{t}" except all select * from rep."{s}"."{t}"))').fetchone()[0])}
    assert differ == {}
    # ... and the changes reached it: the runs of test_dbt_incremental's changes, no other
    flagged = {r[0] for r in con.execute(
        "select run_id from rep.intermediate.int_run_fingerprints where is_new_or_changed").fetchall()}
    assert len(flagged) == 3 and any(r.endswith("-copy") for r in flagged)
    con.close()

    fresh = dataclasses.replace(paths, warehouse=tmp_path / "full" / "iopscope.duckdb")
    assert pipeline.build_warehouse(fresh, run_tests=False) == "full"
    _compare_marts(replayed.warehouse, fresh.warehouse, incremental)


def test_a_failing_replay_changes_nothing_and_dbt_runs_the_update(recorded, tmp_path, monkeypatch, capsys):
    paths, env, _ = recorded
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    broken = _clone(paths, tmp_path / "broken")
    script_file = update_replay.path(broken.warehouse)
    script = json.loads(script_file.read_text())
    script["statements"].insert(len(script["statements"]) // 2, {"node": "model.iopscope.fct_tpcc_results",
                                                                  "sql": "insert into nowhere select 1"})
    script_file.write_text(json.dumps(script))
    before = warehouse_rows(broken.warehouse)
    monkeypatch.setattr(pipeline, "_run_dbt", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("dbt ran")))
    with pytest.raises(RuntimeError, match="dbt ran"):
        pipeline.build_warehouse(broken, run_tests=False)
    err = capsys.readouterr().err
    assert "update replay failed and changed nothing (model.iopscope.fct_tpcc_results: Catalog Error" in " ".join(err.split())
    assert warehouse_rows(broken.warehouse) == before
    assert not script_file.exists(), "a script that failed is dropped"


def _sql_count(warehouse: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*IOPSCOPE, "sql", "--warehouse", str(warehouse), "-c",
                           "select count(*) as runs from intermediate.int_run_fingerprints where is_new_or_changed"],
                          env=iopscope_env(), capture_output=True, text=True, timeout=120)


def _update(paths: Paths, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([*IOPSCOPE, "dbt", "--update", "--raw", str(paths.raw), "--lake", str(paths.lake),
                             "--warehouse", str(paths.warehouse)],
                            env=iopscope_env(**env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_sql_during_a_replay_waits_for_its_commit_and_an_open_session_sends_the_update_to_dbt(recorded, tmp_path):
    paths, env, _ = recorded
    live = _clone(paths, tmp_path / "live")
    old = int(re.findall(r"│\s+(\d+)\s+│", _sql_count(live.warehouse).stdout)[-1])

    update = _update(live, env)
    answers, failures = [], []
    while update.poll() is None:
        proc = _sql_count(live.warehouse)
        if proc.returncode != 0 or "Traceback" in proc.stderr:
            failures.append(proc.stderr)
        else:
            answers.append(int(re.findall(r"│\s+(\d+)\s+│", proc.stdout)[-1]))
    _, err = update.communicate()
    assert update.returncode == 0 and "update replayed without dbt" in " ".join(err.split()), err
    new = int(re.findall(r"│\s+(\d+)\s+│", _sql_count(live.warehouse).stdout)[-1])
    assert new != old and failures == [] and set(answers) <= {old, new}

    # a session open on the file: the replay cannot take it, dbt updates a copy, the session goes on
    held = _clone(paths, tmp_path / "held")
    session = subprocess.Popen([*IOPSCOPE, "sql", "--warehouse", str(held.warehouse)], env=iopscope_env(),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session.stdin.write("select 'open' as state;\n")
    session.stdin.flush()
    while "open" not in session.stdout.readline():
        pass
    update = _update(held, env)
    _, err = update.communicate(timeout=600)
    assert update.returncode == 0 and "open in another process: dbt updates a copy instead" in " ".join(err.split()), err
    out, _ = session.communicate("select count(*) as runs from intermediate.int_run_fingerprints "
                                 "where is_new_or_changed;\n", timeout=60)
    assert session.returncode == 0 and re.findall(r"│\s+(\d+)\s+│", out)[-1] == str(old)   # its own file
    assert int(re.findall(r"│\s+(\d+)\s+│", _sql_count(held.warehouse).stdout)[-1]) == new


def test_a_replay_killed_at_any_moment_leaves_the_last_build_or_the_next(recorded, tmp_path):
    paths, env, _ = recorded
    reference = _clone(paths, tmp_path / "reference")
    started = time.monotonic()
    assert _update(reference, env).wait() == 0
    update_s = time.monotonic() - started
    expected, last = warehouse_rows(reference.warehouse), warehouse_rows(paths.warehouse)
    assert expected != last

    rng = random.Random(22)
    outcomes = []
    for attempt in range(8):
        live = _clone(paths, tmp_path / f"attempt-{attempt}")
        proc = _update(live, env)
        delay, sig = rng.uniform(0.2, update_s), (signal.SIGKILL, signal.SIGTERM)[attempt % 2]
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert "Traceback" not in err, err
        rows = warehouse_rows(live.warehouse)
        what = f"attempt {attempt} ({signal.Signals(sig).name} at {delay:.2f} s of {update_s:.2f} s)"
        assert rows in (last, expected), f"{what} left a warehouse that is neither the last build nor the next"
        outcomes.append("next" if rows == expected else "last")
        # and the next update completes it (the marts: the fingerprint tables' is_new_or_changed
        # compare with the build before, which is the next build itself when the kill came after
        # the commit but before the stamp)
        assert _update(live, env).wait() == 0
        marts = {name: v for name, v in expected.items() if name.startswith("marts.")}
        assert {name: v for name, v in warehouse_rows(live.warehouse).items() if name.startswith("marts.")} == marts, \
            f"{what}: the next update did not converge"
    print(f"replays killed: {outcomes} (update {update_s:.2f} s)")
    assert "last" in outcomes

"""No password leaves ingest: secrets planted in every kind of input never reach any output.

A private raw tree holds, for every parser, one of its fixtures with a password line appended and
one with it as the first line (so that detection fails and the error quotes it); command lines of
tpcc-mysql, go-tpc and the mysql / mariadb clients, DSNs and option files as unrecognized files;
a run.toml with passwords in free text and one whose bad keys quote a password. The whole
pipeline runs in private folders (ingest twice, `iopscope parse` of every file, dbt, the site
build), then every output is searched for the planted text: lake Parquet and state, warehouse
DuckDB, dist/ (gzip, zip, DuckDB and Parquet files opened), dbt logs and target, the console.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES, ROOT
from iopscope import cli, parsers
from iopscope.redact import mask

MARK = "Zq9sec"   # every planted password contains it, and nothing else in the tree does


def secret(kind: str) -> str:
    return f"{MARK}-{kind}"


COMMANDS = {
    "cmd-tpcc.sh": f"tpcc_start -h db -P 3306 -d tpcc -u root -p {secret('tpcc-sep')} -w 10 -c 8 -r 10 -l 60",
    "cmd-tpcc-attached.sh": f"./tpcc_start -hdb -P3306 -dtpcc -uroot -p{secret('tpcc-att')} -w10",
    "cmd-tpcc-load.sh": f"./tpcc_load -h db -d tpcc -u root -p '{secret('tpcc-load')}' -w 10",
    "cmd-gotpc.sh": f"go-tpc tpcc run -H db -P 4000 -D tpcc -U root -p {secret('gotpc-p')} --warehouses 10",
    "cmd-gotpc-long.sh": f"go-tpc tpcc prepare --password={secret('gotpc-eq')} --warehouses 4",
    "cmd-gotpc-space.sh": f"go-tpc tpcc check --password {secret('gotpc-sp')}",
    "cmd-mysql.sh": f"mysql -uroot -p{secret('mysql-att')} -e 'select 1'",
    "cmd-mariadb.sh": f"mariadb --user=root --password={secret('mariadb-eq')} tpcc",
    "cmd-mysqladmin.sh": f"mysqladmin -u root --password=\"{secret('admin-q')}\" status",
    "cmd-sysbench.sh": f"sysbench oltp_read_write --mysql-user=root --mysql-password={secret('sysbench')} run",
    "dsn-go.txt": f"root:{secret('dsn-go')}@tcp(127.0.0.1:4000)/tpcc?parseTime=true",
    "dsn-url.txt": f"mysql://root:{secret('dsn-url')}@db:3306/tpcc",
    "my.cnf": f"password = {secret('cnf')}\n[client]\nuser = root\n",
    "env.sh": f"MYSQL_PWD={secret('env')} ./run.sh",
    "grant.sql": f"CREATE USER 'tpcc'@'%' IDENTIFIED BY '{secret('sql')}';",
    "tpcc-echo-no-banner.txt": f"option p with value '{secret('tpcc-echo')}'\noption w with value '10'\n",
}

GOOD_MANIFEST = f"""run_id = "secrets-good"
kind = "measured"
description = "ran tpcc_start -p {secret('toml-desc')} against db"
tags = ["--password={secret('toml-tag')}"]
[db]
server = "MySQL"
[db.parameters]
dsn = "root:{secret('toml-dsn')}@tcp(db:3306)/tpcc"
[extra]
command = "mysql -uroot -p{secret('toml-extra')}"
"""

BAD_MANIFEST = f"""run_id = "secrets-bad"
[host]
logical_cpus = "-p {secret('toml-bad-int')}"
hostname = 5
cpu = "mysql://root:{secret('toml-bad-key')}@db/x"
"""


def one_fixture_per_parser() -> dict[str, Path]:
    """The first fixture (by path) of each parser whose expected read is complete."""
    found: dict[str, Path] = {}
    for expected in sorted(FIXTURES.rglob("*.expected.json")):
        meta = json.loads(expected.read_text())
        source = expected.with_name(expected.name.removesuffix(".expected.json"))
        if meta.get("status") == "complete" and source.is_file() and meta["format"] not in found:
            found[meta["format"]] = source
    return found


def plant(raw: Path) -> int:
    """Write the hostile tree; returns how many passwords were planted."""
    planted = 0
    runs = raw / "measured" / "secrets"
    for name, source in one_fixture_per_parser().items():
        folder = runs / f"p-{name}"
        folder.mkdir(parents=True)
        text = source.read_text(errors="replace")
        line = f"mysql -uroot -p{secret(name + '-tail')} tpcc"
        (folder / source.name).write_text(text.rstrip("\n") + "\n" + line + "\n")
        (folder / f"head-{source.name}").write_text(f"go-tpc -p {secret(name + '-head')}\n" + text)
        planted += 2
    commands = runs / "commands"
    commands.mkdir(parents=True)
    for name, text in COMMANDS.items():
        (commands / name).write_text(text + "\n")
        planted += 1
    (commands / "command.sh").write_text("#!/bin/sh\n" + "\n".join(COMMANDS.values()) + "\n")
    planted += len(COMMANDS)
    for folder, manifest in (("manifest-good", GOOD_MANIFEST), ("manifest-bad", BAD_MANIFEST)):
        (runs / folder).mkdir()
        (runs / folder / "run.toml").write_text(manifest)
        shutil.copy(ROOT / "data/raw/measured/2026-11-21-vm2-vda-fio-database-thin-slice/fio.json",
                    runs / folder / "fio.json")
        planted += manifest.count(MARK)
    assert sum(p.read_bytes().count(MARK.encode()) for p in raw.rglob("*") if p.is_file()) == planted
    return planted


def text_of(path: Path, tmp: Path) -> list[str]:
    """Every text a file holds, opening the containers the site and lake use."""
    data = path.read_bytes()
    name = path.name
    if name.endswith(".gz"):
        inner = tmp / name.removesuffix(".gz")
        inner.write_bytes(gzip.decompress(data))
        return text_of(inner, tmp) + [data.decode("latin-1")]
    if name.endswith(".zip"):
        texts = []
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                inner = tmp / Path(member).name
                inner.write_bytes(archive.read(member))
                texts += text_of(inner, tmp)
        return texts
    if name.endswith(".parquet"):
        table = pq.read_table(path)
        return [json.dumps(table.to_pylist(), default=str)]
    if name.endswith(".duckdb"):
        return [duckdb_text(path), data.decode("latin-1")]
    return [data.decode("latin-1")]


def duckdb_text(path: Path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = []
        for catalog, schema, table in con.execute(
                "select database_name, schema_name, table_name from duckdb_tables() where not internal").fetchall():
            rows = con.execute(f'select * from "{catalog}"."{schema}"."{table}"').fetchall()
            out.append(repr(rows))
        return "\n".join(out)
    finally:
        con.close()


def leaks(folder: Path, tmp: Path) -> dict[str, int]:
    """Planted-text occurrences per file under ``folder``."""
    found = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        count = sum(t.count(MARK) for t in text_of(path, tmp))
        if count:
            found[str(path.relative_to(folder))] = count
    return found


@pytest.fixture(scope="module")
def pipeline_outputs(tmp_path_factory):
    work = tmp_path_factory.mktemp("secrets")
    # Framework resolves the site's npm imports from the project's node_modules: the copy of src/
    # and its output must live inside the project
    site = ROOT / "tests" / "artifacts" / "secrets"
    shutil.rmtree(site, ignore_errors=True)
    site.mkdir(parents=True)
    raw, lake, warehouse, dist = work / "raw", work / "lake", work / "wh.duckdb", site / "dist"
    planted = plant(raw)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "ingest"), "IOPSCOPE_RAW": str(raw),
           "IOPSCOPE_LAKE": str(lake), "IOPSCOPE_WAREHOUSE": str(warehouse),
           "DBT_TARGET_PATH": str(work / "target"), "DBT_LOG_PATH": str(work / "logs"),
           "IOPSCOPE_SITE_ROOT": str(site.relative_to(ROOT) / "src"),
           "IOPSCOPE_DIST": str(dist.relative_to(ROOT))}
    console: list[str] = []

    def run(*args: str, check: bool = True) -> None:
        proc = subprocess.run([sys.executable, "-m", "iopscope.cli", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=1800)
        console.append(proc.stdout + proc.stderr)
        if check:
            assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-4000:]

    run("ingest", "--quiet")
    run("ingest", "--quiet")   # unchanged runs: errors re-reported from the state
    for path in sorted(p for p in raw.rglob("*") if p.is_file()):
        for args in (["parse", str(path)], ["parse", "--json", "--head", "100", str(path)]):
            # in this process: a new interpreter per file would take most of this test's time
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                cli.main(args)
            console.append(stdout.getvalue() + stderr.getvalue())
    run("dbt", "run")
    # the site from a copy of src/ (its own loader cache; the npm bundles of the real site reused)
    shutil.copytree(ROOT / "src", site / "src", ignore=shutil.ignore_patterns(".observablehq", "__pycache__"))
    bundles = ROOT / "src" / ".observablehq" / "cache" / "_node"
    if bundles.is_dir():
        shutil.copytree(bundles, site / "src" / ".observablehq" / "cache" / "_node")
    run("build", "--skip", "ingest", "--skip", "dbt")
    assert (dist / "index.html").is_file()
    scratch = work / "scratch"
    scratch.mkdir()
    return {"work": work, "planted": planted, "console": "\n".join(console), "lake": lake,
            "warehouse": warehouse, "dist": dist, "scratch": scratch}


def test_no_planted_password_reaches_any_output(pipeline_outputs):
    out = pipeline_outputs
    scratch = out["scratch"]
    assert out["planted"] >= 60
    warehouse = sum(t.count(MARK) for t in text_of(out["warehouse"], scratch))
    places = {
        "lake": leaks(out["lake"], scratch),
        "warehouse": {"wh.duckdb": warehouse} if warehouse else {},
        "dist": leaks(out["dist"], scratch),
        "dbt logs and target": {**leaks(out["work"] / "logs", scratch), **leaks(out["work"] / "target", scratch)},
        "console": {"ingest, parse, dbt and site build output": out["console"].count(MARK)} if MARK in out["console"] else {},
    }
    assert places == {name: {} for name in places}


def test_masked_text_did_reach_the_outputs(pipeline_outputs):
    """The search above is not vacuous: the planted lines are in the outputs, masked."""
    out = pipeline_outputs
    reasons = [r["reason"] for r in pq.read_table(out["lake"] / "ingest_errors", partitioning="hive").to_pylist()]
    masked = [r for r in reasons if "***" in r]
    assert len(masked) >= 20, reasons
    assert any("option p with value '***'" in r for r in reasons)
    assert any("root:***@tcp(127.0.0.1:4000)" in r for r in reasons)
    con = duckdb.connect(str(out["warehouse"]), read_only=True)
    try:
        description = con.execute("select description from marts.dim_runs where run_id = 'secrets-good'").fetchone()[0]
    finally:
        con.close()
    assert description == "ran tpcc_start -p *** against db"
    assert "-p ***" in out["console"] and "--password=***" in out["console"]


def test_every_parser_was_given_a_planted_file():
    assert set(one_fixture_per_parser()) >= set(parsers.PARSERS) - {"published_reference"}


@pytest.mark.parametrize("text", COMMANDS.values())
def test_mask_removes_each_command_shape(text):
    assert MARK not in mask(text)


@pytest.mark.parametrize("rows", [3, 2000])
def test_a_column_is_masked_whether_short_or_long(rows):
    """Short arrays are masked value by value in Python, long ones tested in Arrow first
    (redact.PYTHON_MASK_MAX_VALUES): a password in either, plain or dictionary-encoded, goes."""
    import pyarrow as pa

    from iopscope.redact import PYTHON_MASK_MAX_VALUES, mask_array
    assert (rows > PYTHON_MASK_MAX_VALUES) == (rows == 2000)
    values = ["sda", None] * (rows // 2) + [f"mysql -u root -p{MARK} tpcc"] * (rows % 2 or 2)
    for array in (pa.array(values), pa.array(values).dictionary_encode()):
        masked = mask_array(array).to_pylist()
        assert len(masked) == len(values) and not any(v and MARK in v for v in masked)
        assert masked[:2] == ["sda", None] and masked[-1] == "mysql -u root -p*** tpcc"
    clean = pa.array(["sda", None] * (rows // 2))
    assert mask_array(clean) is clean
    # Python's case folding, not Arrow's, decides for non-ASCII text at any length
    unicode = pa.array(["sda"] * (rows - 1) + [f"CREATE USER x İDENTIFIED BY '{MARK}'"])
    assert mask_array(unicode).to_pylist()[-1] == "CREATE USER x İDENTIFIED BY '***'"

"""The ingest layer's guarantees: nothing lost, nothing corrupted, no work repeated."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import shutil
import stat
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from iopscope import dbt_sources, lake as lake_mod
from iopscope.ingest import Ingestor, discover_runs

THIN_SLICE = ROOT / "data" / "raw" / "measured" / "2026-11-21-vm2-vda-fio-database-thin-slice"
FIO_JSON = (THIN_SLICE / "fio.json").read_text()

MANIFEST = """\
schema_version = 1
run_id = "{run_id}"
kind = "measured"
tools = ["fio"]

[[devices]]
kernel_name = "vda"
role = "data"
"""


def make_tree(root: Path) -> Path:
    raw = root / "raw"
    good = raw / "measured" / "good"
    good.mkdir(parents=True)
    (good / "run.toml").write_text(MANIFEST.format(run_id="good-run"))
    (good / "fio.json").write_text(FIO_JSON)
    loose = raw / "old-logs" / "2019"
    loose.mkdir(parents=True)
    (loose / "result.json").write_text(FIO_JSON)
    broken = raw / "measured" / "broken"
    broken.mkdir(parents=True)
    (broken / "run.toml").write_text(MANIFEST.format(run_id="broken-run"))
    (broken / "cut.json").write_text(FIO_JSON[: len(FIO_JSON) // 2])
    (broken / "notes.bin").write_text("this is no benchmark output\nat all\n")
    return raw


def lake_digest(lake: Path) -> dict[str, str]:
    return {str(p.relative_to(lake)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(lake.rglob("*")) if p.is_file() and p.name != ".lock"}


def test_discover_runs_by_manifest_and_folder(tmp_path):
    raw = make_tree(tmp_path)
    runs = {r.rel_dir: r for r in discover_runs(raw)}
    assert set(runs) == {"measured/good", "measured/broken", "old-logs/2019"}
    assert runs["old-logs/2019"].manifest_path is None
    assert runs["measured/good"].collection == "measured"


def _nested_tree(root: Path) -> Path:
    """Runs with manifests, a run inside a run, a run's subfolders, loose files beside runs and
    at the root: every shape a path-limited walk must find the same runs in."""
    raw = make_tree(root)
    (raw / "notes.txt").write_text("loose at the root\n")
    inner = raw / "measured" / "good" / "retry"
    inner.mkdir()
    (inner / "run.toml").write_text(MANIFEST.format(run_id="retry-run"))
    (inner / "fio.json").write_text(FIO_JSON)
    (raw / "measured" / "good" / "logs" / "deep").mkdir(parents=True)
    (raw / "measured" / "good" / "logs" / "deep" / "fio.json").write_text(FIO_JSON)
    (raw / "old-logs" / "2019" / "sub").mkdir()
    (raw / "old-logs" / "2019" / "sub" / "b.json").write_text(FIO_JSON)
    return raw


def _summary(runs) -> list[tuple]:
    return [(r.rel_dir, r.manifest_text, sorted(r.file_texts)) for r in runs]


def test_a_path_limited_walk_finds_what_the_full_walk_finds_for_those_paths(tmp_path):
    from iopscope.raw_tree import selects

    raw = _nested_tree(tmp_path)
    full = discover_runs(raw)
    names = sorted({"."} | {p.relative_to(raw).as_posix() for p in raw.rglob("*")} | {"measured/gone", "nowhere"})
    for name in names:
        expected = _summary(r for r in full if selects([name], r.rel_dir))
        assert _summary(discover_runs(raw, [name])) == expected, name
    pair = ["measured/good/logs", "old-logs/2019/sub/b.json"]
    assert _summary(discover_runs(raw, pair)) == _summary(r for r in full if selects(pair, r.rel_dir))
    # naming a run's file ingests the whole run, and the run inside it; its neighbours are left
    assert [r.rel_dir for r in discover_runs(raw, ["measured/good/retry/fio.json"])] == \
        [".", "measured/good", "measured/good/retry"]


def test_a_path_limited_walk_lists_only_the_folders_it_needs(tmp_path, monkeypatch):
    import os

    raw = _nested_tree(tmp_path)
    for i in range(30):
        other = raw / "measured" / f"other-{i:02d}" / "iostat"
        other.mkdir(parents=True)
        (other.parent / "run.toml").write_text(MANIFEST.format(run_id=f"other-{i}"))
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path):
        listed.append(Path(path).relative_to(raw).as_posix())
        return real_scandir(path)

    monkeypatch.setattr("iopscope.ingest.os.scandir", counting)
    runs = discover_runs(raw, ["measured/broken"])
    assert [r.rel_dir for r in runs] == [".", "measured/broken"]
    assert sorted(listed) == [".", "measured", "measured/broken"]


def test_ingest_of_named_paths_reads_only_those_runs(tmp_path):
    raw = make_tree(tmp_path)
    report = Ingestor(raw, tmp_path / "lake").run([raw / "measured" / "good" / "fio.json"])
    assert (report.runs_seen, report.runs_ingested) == (1, 1)
    again = Ingestor(raw, tmp_path / "lake").run([raw / "measured"])
    assert (again.runs_seen, again.runs_ingested, again.runs_unchanged) == (2, 1, 1)
    elsewhere = Ingestor(raw, tmp_path / "lake").run([tmp_path / "not-the-raw-tree"])
    assert (elsewhere.runs_seen, elsewhere.runs_removed) == (0, 0)
    whole = Ingestor(raw, tmp_path / "lake").run([tmp_path])   # a folder holding the raw tree
    assert (whole.runs_seen, whole.runs_ingested) == (3, 1)


def test_bad_files_are_recorded_and_the_batch_goes_on(tmp_path):
    raw = make_tree(tmp_path)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 3
    assert report.failed
    reasons = {str(e) for e in report.errors}
    assert any(r.startswith("measured/broken/cut.json:") and "cut short" in r for r in reasons), reasons
    assert any("measured/broken/notes.bin" in r and "no parser recognizes" in r for r in reasons), reasons
    con = duckdb.connect()
    glob = f"{tmp_path}/lake/{{}}/*/*.parquet"
    jobs = con.sql(f"select run_id, count(*) from read_parquet('{glob.format('fio_jobs')}', hive_partitioning=true) "
                   "group by run_id order by run_id").fetchall()
    # The good run and the manifest-less folder are complete; the cut file kept nothing or part.
    counts = dict(jobs)
    assert counts["good-run"] == 8 and counts["old-logs/2019"] == 8
    errors = con.sql(f"select source_path, line, reason from read_parquet('{glob.format('ingest_errors')}')").fetchall()
    assert any(path == "measured/broken/cut.json" and line and line > 1 for path, line, _ in errors)
    runs = con.sql(f"select run_id, has_manifest, run_kind from read_parquet('{glob.format('runs')}') order by 1").fetchall()
    assert ("old-logs/2019", False, None) in runs


def test_reingest_unchanged_does_no_work_and_is_byte_identical(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    before = lake_digest(tmp_path / "lake")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.files_parsed == 0 and report.runs_unchanged == 3
    assert lake_digest(tmp_path / "lake") == before
    # Errors of unchanged runs are still reported: the exit status stays honest.
    assert report.failed


def test_changed_file_reparses_only_its_run(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    (raw / "measured" / "broken" / "cut.json").write_text(FIO_JSON)
    (raw / "measured" / "broken" / "notes.bin").unlink()
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_ingested == 1 and report.runs_unchanged == 2
    assert not report.failed


def test_removed_run_leaves_the_lake(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    shutil.rmtree(raw / "old-logs")
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.runs_removed == 1
    left = duckdb.sql(f"select distinct run_id from read_parquet('{tmp_path}/lake/fio_jobs/*/*.parquet')").fetchall()
    assert ("old-logs/2019",) not in left


def test_raw_files_are_never_written(tmp_path):
    raw = make_tree(tmp_path)
    for path in raw.rglob("*"):
        if path.is_file():
            path.chmod(stat.S_IRUSR)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in raw.rglob("*") if p.is_file()}
    Ingestor(raw, tmp_path / "lake").run()
    assert before == {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in raw.rglob("*") if p.is_file()}


def test_crash_mid_write_keeps_the_previous_part(tmp_path, monkeypatch):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    before = lake_digest(tmp_path / "lake")
    (raw / "measured" / "good" / "fio.json").write_text(FIO_JSON.replace('"iops" :', '"iops" :  '))

    def exploding_write(table, where, **kwargs):
        Path(where).write_bytes(b"half a parquet file")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(lake_mod.pq, "write_table", exploding_write)
    with pytest.raises(OSError):
        Ingestor(raw, tmp_path / "lake").run()
    after = lake_digest(tmp_path / "lake")
    # .staging/ingest-running: the mark that makes the next ingest sweep (test_crash_recovery.py)
    assert {k: v for k, v in after.items() if k not in ("_state.json", ".staging/ingest-running")} == \
           {k: v for k, v in before.items() if k != "_state.json"}
    assert not [p for p in (tmp_path / "lake").rglob(".tmp-*")], "temp files left behind"


def test_a_value_its_table_cannot_hold_skips_that_run_only(tmp_path, monkeypatch):
    """A parser bug (a column or value the lake's table cannot hold) costs one run, never the batch
    or the run's previous parts; the next ingest tries that run again."""
    from iopscope.parsers import fio_json

    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    before = lake_digest(tmp_path / "lake")
    (raw / "measured" / "good" / "fio.json").write_text(FIO_JSON.replace('"iops" :', '"iops"  :'))
    (raw / "old-logs" / "2019" / "result.json").write_text(FIO_JSON.replace('"iops" :', '"iops"   :'))
    real_parse = fio_json.parse

    def buggy_parse(text, *args, **kwargs):
        result = real_parse(text, *args, **kwargs)
        if '"iops"  :' in text:   # only the good run's file
            result.tables["fio_jobs"][0]["iops_typo"] = 1   # a column the table does not have
        return result

    monkeypatch.setattr(fio_json, "parse", buggy_parse)
    report = Ingestor(raw, tmp_path / "lake").run()
    assert report.failed and report.runs_ingested == 1   # old-logs/2019 went on
    [error] = [e for e in report.errors if "run not written" in e.reason]
    assert error.path == "measured/good/run.toml" and "fio_jobs" in error.reason and "iops_typo" in error.reason
    after = lake_digest(tmp_path / "lake")
    # the good and broken runs' parts (collection "measured") are untouched
    kept = {k for k in before if "collection=measured/" in k and "_schema" not in k}
    assert kept and {k: after.get(k) for k in kept} == {k: before[k] for k in kept}
    monkeypatch.setattr(fio_json, "parse", real_parse)
    again = Ingestor(raw, tmp_path / "lake").run()
    assert again.runs_ingested == 1 and not [e for e in again.errors if "run not written" in e.reason]


def _ingest_in_process(raw: str, lake: str) -> int:
    report = Ingestor(Path(raw), Path(lake), force=True).run()
    return report.runs_ingested


def test_concurrent_ingests_do_not_corrupt_the_lake(tmp_path):
    raw = make_tree(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.starmap(_ingest_in_process, [(str(raw), str(tmp_path / "lake"))] * 2)
    assert results == [3, 3]
    for part in (tmp_path / "lake").rglob("*.parquet"):
        pq.read_table(part, use_threads=False)  # every file is a whole Parquet file
    json.loads((tmp_path / "lake" / "_state.json").read_text())


def test_generated_dbt_sources_are_current():
    path = dbt_sources.target(ROOT)
    assert path.read_text(encoding="utf-8") == dbt_sources.render(), \
        "models/staging/_lake__sources.yml is stale: run python -m iopscope.dbt_sources"


def test_every_table_has_a_schema_file(tmp_path):
    raw = make_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    from iopscope import tables
    for name in tables.ALL:
        assert (tmp_path / "lake" / name / "collection=_schema" / "schema.parquet").is_file(), name


def _add_run(raw: Path, name: str) -> None:
    run = raw / "measured" / name
    run.mkdir(parents=True)
    (run / "run.toml").write_text(MANIFEST.format(run_id=name))
    (run / "fio.json").write_text(FIO_JSON)


def test_one_new_run_appends_to_the_journal_without_rewriting_the_state(tmp_path):
    raw = make_tree(tmp_path)
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()
    lake_mod.Lake(lake).save_state(lake_mod.Lake(lake).load_state())   # start from a snapshot
    snapshot = (lake / "_state.json").read_bytes()
    _add_run(raw, "extra")
    report = Ingestor(raw, lake).run()
    assert report.runs_ingested == 1 and report.runs_unchanged == 3
    assert (lake / "_state.json").read_bytes() == snapshot
    journals = list(lake.glob("_state.*.jsonl"))
    assert len(journals) == 1 and len(journals[0].read_text().splitlines()) == 1
    state = lake_mod.Lake(lake).load_state()
    assert {e["dir"] for e in state["runs"].values()} == \
        {"measured/good", "measured/broken", "old-logs/2019", "measured/extra"}
    assert Ingestor(raw, lake).run().files_parsed == 0


def test_a_torn_journal_line_is_dropped_and_its_run_parsed_again(tmp_path):
    raw = make_tree(tmp_path)
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()
    _add_run(raw, "extra")
    Ingestor(raw, lake).run()
    journal = next(lake.glob("_state.*.jsonl"))
    text = journal.read_bytes()
    journal.write_bytes(text[: len(text) - 7])    # the last line cut short, as by a crash
    report = Ingestor(raw, lake).run()
    assert report.runs_ingested == 1 and report.files_parsed == 1
    assert Ingestor(raw, lake).run().files_parsed == 0
    for line in journal.read_text().splitlines():
        json.loads(line)


def test_the_snapshot_absorbs_the_journal_when_it_grows(tmp_path, monkeypatch):
    monkeypatch.setattr(lake_mod, "JOURNAL_MIN_BYTES", 0)
    raw = make_tree(tmp_path)
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()
    for name in ("a", "b", "c", "d"):
        _add_run(raw, name)
        Ingestor(raw, lake).run()
    assert len(list(lake.glob("_state.*.jsonl"))) <= 1
    state = json.loads((lake / "_state.json").read_text())
    assert state["generation"] >= 2
    assert len(lake_mod.Lake(lake).load_state()["runs"]) == 7
    assert Ingestor(raw, lake).run().files_parsed == 0


def test_a_state_from_before_the_journal_is_read_without_reparsing(tmp_path):
    raw = make_tree(tmp_path)
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()
    state = lake_mod.Lake(lake).load_state()
    old_runs = {}
    for key, entry in state["runs"].items():
        prefix = "" if entry["dir"] == "." else entry["dir"] + "/"
        old_runs[key] = {
            "rel_dir": entry["dir"],
            "files": {prefix + n: v[0] for n, v in entry["files"].items()},
            "stat": {prefix + n: v[1:] for n, v in entry["files"].items()},
            "parts": [f"{t}/collection={entry['dir'].split('/')[0]}/run-{key}.parquet" for t in entry["tables"]],
            "tables": entry["tables"], "errors": entry["errors"],
        }
    for journal in lake.glob("_state.*.jsonl"):
        journal.unlink()
    (lake / "_state.json").write_text(json.dumps({"fingerprint": state["fingerprint"], "runs": old_runs}, indent=1))
    before = lake_digest(lake)
    report = Ingestor(raw, lake).run()
    assert report.files_parsed == 0 and report.runs_unchanged == 3
    assert lake_digest(lake) == before
    shutil.rmtree(raw / "old-logs")   # removal still finds the run's parts from the old entry
    assert Ingestor(raw, lake).run().runs_removed == 1
    assert not list((lake / "fio_jobs" / "collection=old-logs").glob("*.parquet"))


@pytest.mark.parametrize("rows", [3, lake_mod.SMALL_PART_ROWS + 5])
def test_parts_small_and_large_are_deterministic_and_readable(tmp_path, rows):
    from iopscope import tables
    records = [{"sample_index": i, "cpu": "all", "user_pct": i / 7, "sampled_at": None} for i in range(rows)]
    table = lake_mod.conform(tables.get("cpu_samples"), records, {"run_id": "r", "parser": "p"})
    digests = set()
    for name in ("a", "b"):
        lake_mod._atomic_write(table, tmp_path / f"{name}.parquet")
        digests.add(hashlib.sha256((tmp_path / f"{name}.parquet").read_bytes()).hexdigest())
    assert len(digests) == 1
    assert pq.read_table(tmp_path / "a.parquet", use_threads=False).equals(lake_mod.dense(table))
    got = duckdb.sql(f"select count(*), sum(sample_index), min(run_id) from '{tmp_path}/a.parquet'").fetchall()
    assert got == [(rows, rows * (rows - 1) // 2, "r")]


def test_the_parser_fingerprint_is_read_from_the_snapshot_head_or_the_whole_snapshot(tmp_path):
    """A build reads the lake's parser fingerprint from the first bytes of the snapshot that
    save_state writes (keys sorted); a snapshot in another layout is parsed whole."""
    lake = lake_mod.Lake(tmp_path / "lake")
    assert lake.parser_fingerprint() is None   # no snapshot yet
    Ingestor(make_tree(tmp_path), tmp_path / "lake").run()
    state = lake.load_state()
    lake.save_state(state)
    assert state["fingerprint"] and lake.parser_fingerprint() == state["fingerprint"]
    # the same state with "runs" first: nothing in the head to read, the value still found
    (tmp_path / "lake" / "_state.json").write_text(json.dumps({"runs": state["runs"], "generation": state["generation"],
                                                               "fingerprint": "other"}))
    assert lake.parser_fingerprint() == "other"


def test_a_touched_file_keeps_its_hash_and_an_edited_one_of_the_same_size_is_parsed_again(tmp_path):
    """The no-op check compares each file's size and modification time with the state's: a
    file touched but identical is not parsed (its new time is recorded, so the next ingest does
    not hash it again); a file rewritten in place at the same size is parsed again."""
    import os

    raw = make_tree(tmp_path)
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()
    fio = raw / "measured" / "good" / "fio.json"
    os.utime(fio, ns=(fio.stat().st_atime_ns, fio.stat().st_mtime_ns + 10**9))
    report = Ingestor(raw, lake).run()
    assert report.files_parsed == 0 and report.runs_unchanged == 3
    entry = next(e for e in lake_mod.Lake(lake).load_state()["runs"].values() if e["dir"] == "measured/good")
    assert entry["files"]["fio.json"][2] == fio.stat().st_mtime_ns

    text = fio.read_text()
    fio.write_text(text.replace('"fio-', '"fiO-', 1))   # same size, other bytes
    assert fio.stat().st_size == len(text.encode())
    report = Ingestor(raw, lake).run()
    assert report.runs_ingested == 1 and report.runs_unchanged == 2

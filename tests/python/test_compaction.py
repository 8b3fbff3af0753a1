"""Lake compaction (compaction.py, packs.py): fewer files, the same rows, the same guarantees.

Every check compares what a reader's glob (`<table>/*/*.parquet`, as the dbt sources read it)
returns from a compacted lake with what it returns from a lake of per-run parts built from the
same raw tree: row for row, duplicates counted. Changes after compaction (a run added, changed,
deleted), auto-compaction past the threshold, and writers killed inside a compaction (before
its commit, between commit and clean-up) must all converge to those rows.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT
from iopscope import compaction, packs, pipeline, tables
from iopscope.ingest import Ingestor
from iopscope.lake import Lake
from iopscope.paths import Paths
from test_dbt_incremental import _change_raw


def _rows_differ(left: Path, right: Path) -> dict[str, int]:
    """Per table, rows in one lake and not the other (EXCEPT ALL both ways); {} when equal."""
    con = duckdb.connect()
    out = {}
    for table in tables.ALL:
        def q(lake, table=table):
            return (f"select * from read_parquet('{lake}/{table}/*/*.parquet', hive_partitioning = true, "
                    "union_by_name = true)")
        n = con.execute(f"select (select count(*) from ({q(left)} except all {q(right)}))"
                        f" + (select count(*) from ({q(right)} except all {q(left)}))").fetchone()[0]
        if n:
            out[table] = n
    return out


def _parquet_files(lake: Path) -> list[Path]:
    return sorted(p for table in tables.ALL for p in (lake / table).glob("*/*.parquet"))


def _packs_match_state(lake: Path) -> None:
    """Every pack file holds only runs the state places in its pack and whose entry lists its
    table, and no packed run has parts."""
    state = Lake(lake).load_state()
    for path in _parquet_files(lake):
        pack_id = packs.pack_id_of(path.name)
        if pack_id:
            table = path.parent.parent.name
            held = {key for key, _, _ in packs.read_index(path)}
            placed = {k for k, e in state["runs"].items() if e.get("pack") == pack_id and path.parent.name.endswith(
                "=" + e["dir"].split("/", 1)[0]) and table in e.get("tables", ())}
            assert held <= placed and held, (path, held - placed)
        elif path.name.startswith("run-"):
            entry = state["runs"][path.name[4:-8]]
            assert not entry.get("pack"), f"{path} beside the pack of its run"


@pytest.fixture()
def raw(tmp_path, monkeypatch):
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "0")   # compaction only where a test asks
    raw = tmp_path / "raw"
    shutil.copytree(ROOT / "data" / "raw", raw)
    return raw


def _compact(lake: Path) -> compaction.CompactReport:
    return pipeline.compact(Paths(root=ROOT, raw=lake, lake=lake, warehouse=lake / "w.duckdb", dist=lake))


def test_compaction_keeps_every_row_in_a_few_files(raw, tmp_path):
    loose, packed = tmp_path / "loose", tmp_path / "packed"
    assert not Ingestor(raw, loose).run().failed
    shutil.copytree(loose, packed)
    report = _compact(packed)
    assert report.runs_packed == 62 and set(report.collections) == {"measured", "published"}
    assert _rows_differ(loose, packed) == {}
    files = _parquet_files(packed)
    assert len(_parquet_files(loose)) > 500
    # one schema file per table, and one pack per table and collection with rows
    assert len(files) <= 3 * len(tables.ALL) and not [p for p in files if p.name.startswith("run-")]
    _packs_match_state(packed)
    # compacting again changes nothing; a re-ingest finds every run unchanged
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in _parquet_files(packed)}
    assert _compact(packed).packs_written == 0
    report = Ingestor(raw, packed).run()
    assert report.runs_unchanged == 62 and report.runs_ingested == 0
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in _parquet_files(packed)} == before


def test_runs_added_changed_and_deleted_after_compaction(raw, tmp_path):
    lake = tmp_path / "lake"
    assert not Ingestor(raw, lake).run().failed
    _compact(lake)
    _change_raw(raw)   # two runs added (one a new configuration), one changed (packed), two deleted
    report = Ingestor(raw, lake).run()
    assert report.runs_ingested == 3 and report.runs_removed == 2
    assert report.compaction.runs_evicted >= 2   # the changed and the deleted run left the pack
    _packs_match_state(lake)
    fresh = tmp_path / "fresh"
    assert not Ingestor(raw, fresh).run().failed
    assert _rows_differ(lake, fresh) == {}
    _compact(lake)                                 # and packed again: still the same rows
    _packs_match_state(lake)
    assert _rows_differ(lake, fresh) == {}
    assert not [p for p in _parquet_files(lake) if p.name.startswith("run-")]


def test_ingest_compacts_a_collection_past_the_threshold(raw, tmp_path, monkeypatch):
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "20")
    lake = tmp_path / "lake"
    report = Ingestor(raw, lake).run()
    # 61 measured runs are packed, the one published run (under the threshold) is not
    assert report.compaction.collections == ["measured"] and report.compaction.runs_packed == 61
    loose = tmp_path / "loose"
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "0")
    Ingestor(raw, loose).run()
    assert _rows_differ(lake, loose) == {}
    _packs_match_state(lake)


class _Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs (not even except-Exception handlers)."""


@pytest.mark.parametrize("where", ["before the commit", "after the commit"])
def test_a_compaction_killed_midway_converges(raw, tmp_path, monkeypatch, where):
    reference, lake = tmp_path / "reference", tmp_path / "lake"
    Ingestor(raw, reference).run()
    Ingestor(raw, lake).run()
    if where == "before the commit":   # packs written and renamed into place, not yet recorded
        monkeypatch.setattr(Lake, "record_pack", lambda *a, **k: (_ for _ in ()).throw(_Killed()))
    else:                              # recorded, the parts it replaces not yet removed
        monkeypatch.setattr(compaction, "_unlink", lambda path: (_ for _ in ()).throw(_Killed()))
    with pytest.raises(_Killed):
        _compact(lake)
    monkeypatch.undo()
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "0")
    assert _rows_differ(lake, reference) != {}, "the kill left rows twice on disk (else this test tests nothing)"
    # a warehouse build repairs first, so dbt never reads those rows twice ...
    paths = Paths(root=ROOT, raw=raw, lake=lake, warehouse=tmp_path / "w.duckdb", dist=tmp_path)
    pipeline.repair_lake_if_needed(paths)
    assert _rows_differ(lake, reference) == {}
    _packs_match_state(lake)
    # ... and the next compaction and ingest go on from there
    _compact(lake)
    assert not Ingestor(raw, lake).run().failed
    assert _rows_differ(lake, reference) == {}
    assert not list((lake / ".staging").iterdir())   # no temp file, no mark of a writer that died


def test_a_pack_takes_older_parts_and_refuses_to_drop_columns(tmp_path):
    """Rows written before their table gained a column get nulls in it (what the readers'
    union_by_name shows); rows with a column the pack does not have are an error, never cut."""
    import pyarrow as pa

    schema = pa.schema([pa.field("run_id", pa.string()), pa.field("value", pa.float64()),
                        pa.field("added_later", pa.int64())])
    path = tmp_path / "t" / "collection=c" / packs.file_name("p")
    writer = packs.PackWriter(path, schema, tmp_path / "staging")
    writer.add("k1", pa.table({"run_id": ["a", "a"], "value": [1.0, 2.0]}))
    writer.add("k2", pa.table({"run_id": ["b"], "value": [3.0], "added_later": [7]}))
    with pytest.raises(ValueError, match="gone_since"):
        writer.add("k3", pa.table({"run_id": ["c"], "value": [4.0], "gone_since": ["x"]}))
    writer.commit()
    assert packs.read_index(path) == [("k1", 0, 2), ("k2", 2, 1)]
    reader = packs.PackReader(path)
    assert reader.rows(0, 2).to_pydict() == {"run_id": ["a", "a"], "value": [1.0, 2.0], "added_later": [None, None]}
    assert reader.rows(2, 1).column("added_later").to_pylist() == [7]
    # rewriting keeps the pack's own columns and drops only the runs not kept
    assert packs.rewrite(path, {"k2"}, tmp_path / "staging") == 1
    assert packs.read_index(path) == [("k2", 0, 1)]
    assert packs.PackReader(path).schema.names == ["run_id", "value", "added_later"]


def _pack_bytes(lake: Path, collection: str) -> dict[str, str]:
    return {p.relative_to(lake).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in _parquet_files(lake) if packs.pack_id_of(p.name) and f"={collection}" in p.parent.name}


def test_an_ingest_of_many_runs_writes_the_packs_compaction_would(raw, tmp_path, monkeypatch):
    """Past the threshold, an ingest's runs go straight into packs: byte for byte the packs
    that per-run parts and a compaction make, and no part is written on the way."""
    reference = tmp_path / "reference"
    Ingestor(raw, reference).run()
    _compact(reference)
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "20")
    lake = tmp_path / "lake"
    written = []
    real_write_part = Lake.write_part
    monkeypatch.setattr(Lake, "write_part", lambda self, name, collection, key, table: written.append(collection)
                        or real_write_part(self, name, collection, key, table))
    report = Ingestor(raw, lake).run()
    assert not report.failed and report.runs_ingested == 62
    assert report.compaction.runs_packed == 61 and report.compaction.collections == ["measured"]
    assert "measured" not in written and "published" in written   # 1 published run: under the threshold
    assert _pack_bytes(lake, "measured") == _pack_bytes(reference, "measured") != {}
    assert _rows_differ(lake, reference) == {}
    _packs_match_state(lake)
    # a re-parse of every run (--force) packs them again, in place of the packs they were in
    again = Ingestor(raw, lake, force=True).run()
    assert again.runs_ingested == 62 and again.compaction.runs_packed == 61
    assert _pack_bytes(lake, "measured") == _pack_bytes(reference, "measured")
    assert _rows_differ(lake, reference) == {}
    _packs_match_state(lake)


def test_a_bulk_re_parse_of_loose_runs_removes_their_parts(raw, tmp_path, monkeypatch):
    lake = tmp_path / "lake"
    Ingestor(raw, lake).run()                        # threshold 0: parts only
    loose = [p for p in _parquet_files(lake) if p.name.startswith("run-")]
    assert len(loose) > 500
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "20")
    report = Ingestor(raw, lake, force=True).run()   # every run parsed again: into packs
    assert report.compaction.runs_packed == 61 and report.compaction.files_removed >= 500
    left = [p for p in _parquet_files(lake) if p.name.startswith("run-")]
    assert all("=published" in p.parent.name for p in left) and left
    _packs_match_state(lake)
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "0")
    Ingestor(raw, fresh).run()
    assert _rows_differ(lake, fresh) == {}


@pytest.mark.parametrize("lines", [0, 1, 30])
def test_an_ingest_killed_while_recording_its_pack_converges(raw, tmp_path, monkeypatch, lines):
    """Killed after the pack was renamed into place and ``lines`` of its runs' journal lines:
    the rows of the runs not recorded are stale in the pack; repair drops them, and the next
    ingest parses those runs again."""
    reference = tmp_path / "reference"
    Ingestor(raw, reference).run()
    monkeypatch.setenv("IOPSCOPE_COMPACT_MIN_RUNS", "20")
    lake = tmp_path / "lake"
    real_record = Lake.record_run
    recorded = []

    def record_then_die(self, state, key):
        if state["runs"][key].get("pack"):
            if len(recorded) == lines:
                raise _Killed()
            recorded.append(key)
        real_record(self, state, key)

    monkeypatch.setattr(Lake, "record_run", record_then_die)
    with pytest.raises(_Killed):
        Ingestor(raw, lake).run()
    monkeypatch.setattr(Lake, "record_run", real_record)
    # the measured runs' pack ends with their last run, before the published run is read
    assert len(Lake(lake).load_state()["runs"]) == lines
    paths = Paths(root=ROOT, raw=raw, lake=lake, warehouse=tmp_path / "w.duckdb", dist=tmp_path)
    pipeline.repair_lake_if_needed(paths)
    _packs_match_state(lake)
    report = Ingestor(raw, lake).run()
    assert not report.failed and report.runs_ingested == 62 - lines
    assert _rows_differ(lake, reference) == {}
    _packs_match_state(lake)
    assert not list((lake / ".staging").iterdir())


def test_runs_packed_again_under_the_same_name_leave_no_table_they_no_longer_fill(tmp_path):
    """The same runs with the same files make the same pack id. Packed again after a re-parse
    that no longer fills a table (a parser that stopped reporting errors), the old pack file of
    that table must go; and a kill before it went is repaired the same way."""
    import pyarrow as pa

    from iopscope.lake import arrow_schema

    def table(name: str, key: str) -> pa.Table:
        columns = {f.name: pa.nulls(1, f.type) for f in arrow_schema(tables.get(name))}
        columns["run_id"] = pa.array([key])
        return pa.table(columns, schema=arrow_schema(tables.get(name)))

    def pack_runs(lake: Lake, names: list[str], report: compaction.CompactReport) -> None:
        batch = compaction.IngestPacks(lake, "c")
        for key in ("aa", "bb"):
            entry = {"dir": f"c/{key}", "files": {"x": ["0", 1, 1]}, "tables": names, "errors": []}
            batch.add(key, entry, state["runs"].get(key), {name: table(name, key) for name in names})
        batch.commit(state, report)

    for killed in (False, True):
        lake = Lake(tmp_path / f"lake-{killed}")
        lake.ensure_schemas()
        state = lake.load_state()
        pack_runs(lake, ["ingest_files", "ingest_errors"], compaction.CompactReport())
        assert len(list(lake.root.glob("ingest_errors/collection=c/pack-*.parquet"))) == 1
        if killed:   # the commit died right after the journal lines: no eviction yet
            real_evict = compaction.evict
            compaction.evict = lambda *a, **k: None
            try:
                pack_runs(lake, ["ingest_files"], compaction.CompactReport())
            finally:
                compaction.evict = real_evict
            assert list(lake.root.glob("ingest_errors/collection=c/pack-*.parquet"))
            compaction.repair(lake, Lake(lake.root).load_state())
        else:
            report = compaction.CompactReport()
            pack_runs(lake, ["ingest_files"], report)
            assert report.runs_evicted == 2
        assert not list(lake.root.glob("ingest_errors/collection=c/pack-*.parquet"))
        assert len(list(lake.root.glob("ingest_files/collection=c/pack-*.parquet"))) == 1
        _packs_match_state(lake.root)

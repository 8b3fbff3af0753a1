"""Lake compaction: a collection's per-run parts merged into a few pack files per table.

An ingest writes one Parquet part per run and table (9.5 per run: 95,458 files at 10,000
runs), and every reader pays per file (DuckDB binds a glob at ~0.3 ms per file before reading
a row). Compaction moves runs' rows into packs (packs.py), each holding up to PACK_MAX_RUNS
runs or PACK_MAX_BYTES of a table, so the number of files grows with collections and data
volume, not with runs x tables.

Where a run's rows are is the state's business: ``entry["pack"]`` names its pack (absent: its
own ``run-<key>.parquet`` parts). A pass over one collection, all under the lake's exclusive lock:
  1. write the new pack of every table (temp file, renamed into place);
  2. one journal line places its runs in it (Lake.record_pack): the commit point;
  3. remove the runs' parts and the pack they came from.
A run that changes or vanishes leaves its pack (its new entry has no ``pack``): the ingest then
rewrites that pack without it (:func:`finish`). Rows of a run the state does not place in a pack
are stale; :func:`repair` (after a writer died, and before a warehouse build reads a lake whose
last writer died) removes them, and orphan packs and parts, so a crash at any point converges.

When: after every ingest, a collection with at least COMPACT_MIN_RUNS runs outside packs is
compacted (IOPSCOPE_COMPACT_MIN_RUNS, 0 = never); `iopscope compact` compacts every collection
now. Each pass merges the collection's smallest unfilled pack with its loose runs, so a run's
rows are rewritten a bounded number of times (PACK_MAX_RUNS / COMPACT_MIN_RUNS at most).

An ingest that will parse at least COMPACT_MIN_RUNS runs of one collection (a first ingest of an
archive, a re-parse after a parser changed) writes their rows straight into packs
(:class:`IngestPacks`) instead of parts it would pack at its end: at 1,000 short runs, writing
the ~10 parts of each run, reading them back and removing them was two thirds of the ingest's
wall time. Same guarantees: the pack is renamed into place first, then each run's journal line
records its entry already placed in it (a run whose line a crash cut off has stale rows in the
pack, which repair removes, and is parsed again), then the parts its previous entry owned go.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from iopscope import packs, tables
from iopscope.lake import Lake, arrow_schema
from iopscope.raw_tree import collection_of

COMPACT_MIN_RUNS = 200          # loose runs in a collection that trigger compaction after an ingest
PACK_MAX_RUNS = 2_500           # runs per pack ...
PACK_MAX_BYTES = 256 << 20      # ... and bytes of any one table's rows in it (as parts on disk)


@dataclass
class CompactReport:
    packs_written: int = 0
    runs_packed: int = 0
    files_removed: int = 0
    runs_evicted: int = 0
    collections: list[str] = field(default_factory=list)


def auto_threshold() -> int:
    return int(os.environ.get("IOPSCOPE_COMPACT_MIN_RUNS", COMPACT_MIN_RUNS))


def loose_parts(state: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(table, collection, run key) of every run part the state says exists (runs not packed)."""
    return {(table, collection_of(entry["dir"]), key)
            for key, entry in state["runs"].items() if not entry.get("pack")
            for table in entry["tables"]}


def _members(state: dict[str, Any], pack_id: str) -> set[str]:
    return {key for key, entry in state["runs"].items() if entry.get("pack") == pack_id}


def evict(lake: Lake, state: dict[str, Any], targets: Iterable[tuple[str, str]], report: CompactReport) -> None:
    """Rewrite each (collection, pack id) of ``targets`` without the runs the state no longer
    places in it, table by table: a run placed in the pack keeps its rows in a table only when
    its entry lists that table (a re-parse that no longer fills a table, packed again under the
    same pack id, must not leave the old rows there). A file left with no run is removed."""
    runs = state["runs"]
    for collection, pack_id in sorted(set(targets)):
        members = _members(state, pack_id)
        for name in tables.ALL:
            path = lake.pack_path(name, collection, pack_id)
            if path.exists():
                keep = {key for key in members if name in runs[key].get("tables", ())}
                dropped = packs.rewrite(path, keep, lake.staging)
                report.runs_evicted += dropped
                report.files_removed += not path.exists()


def repair(lake: Lake, state: dict[str, Any]) -> CompactReport:
    """After a writer died: remove parts no recorded loose run owns (Lake.sweep), packs no run
    is placed in, and stale runs' rows from every pack. Lists every partition; reads only the
    footer of each pack."""
    report = CompactReport()
    report.files_removed += len(lake.sweep(loose_parts(state)))
    targets = {(collection, pack_id) for _, collection, names in lake.partitions()
               for name in names if (pack_id := packs.pack_id_of(name))}
    evict(lake, state, targets, report)
    return report


def finish(lake: Lake, state: dict[str, Any], threshold: int | None = None,
           report: CompactReport | None = None) -> CompactReport:
    """End of an ingest, under its lock: drop runs that left their pack (changed or removed)
    from it, then compact collections with at least ``threshold`` loose runs. ``report``: one
    that already counts this ingest's own packs (IngestPacks), added to."""
    report = report or CompactReport()
    left = {(collection, pack_id) for key, (collection, pack_id) in lake.packs_at_load.items()
            if state["runs"].get(key, {}).get("pack") != pack_id}
    evict(lake, state, left, report)
    threshold = auto_threshold() if threshold is None else threshold
    if threshold > 0:
        compact(lake, state, min_loose=threshold, report=report)
    lake.packs_at_load = {key: (collection_of(entry["dir"]), entry["pack"])
                          for key, entry in state["runs"].items() if entry.get("pack")}
    return report


def compact(lake: Lake, state: dict[str, Any], min_loose: int = 1, collections: Iterable[str] | None = None,
            report: CompactReport | None = None) -> CompactReport:
    """Pack the loose runs of every collection that has at least ``min_loose`` of them (with its
    smallest unfilled pack). Under the lake's exclusive lock."""
    report = report or CompactReport()
    runs = state["runs"]
    loose: dict[str, list[str]] = defaultdict(list)
    packed: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    pinned: set[str] = set()   # packs holding a run that is not packed again now: not merged
    for key, entry in runs.items():
        if not entry.get("tables") or entry.get("files") is None:
            # no rows anywhere, or to be parsed again (its rows may predate the table's schema)
            if entry.get("pack"):
                pinned.add(entry["pack"])
            continue
        collection = collection_of(entry["dir"])
        if entry.get("pack"):
            packed[collection][entry["pack"]].append(key)
        else:
            loose[collection].append(key)
    wanted = set(collections) if collections is not None else None
    for collection in sorted(loose):
        if (wanted is not None and collection not in wanted) or len(loose[collection]) < min_loose:
            continue
        unfilled = [p for p, keys in packed[collection].items() if len(keys) < PACK_MAX_RUNS and p not in pinned]
        merged = min(unfilled, key=lambda p: (len(packed[collection][p]), p)) if unfilled else None
        _compact_collection(lake, state, collection, loose[collection],
                            merged, packed[collection].get(merged, []), report)
        report.collections.append(collection)
    return report


def _compact_collection(lake: Lake, state: dict[str, Any], collection: str, loose: list[str],
                        merged: str | None, merged_runs: list[str], report: CompactReport) -> None:
    runs = state["runs"]
    members = sorted(loose + merged_runs, key=lambda k: (runs[k]["dir"], k))
    in_merged = set(merged_runs)
    readers: dict[str, packs.PackReader] = {}
    if merged:
        for name in tables.ALL:
            path = lake.pack_path(name, collection, merged)
            if path.exists():
                readers[name] = packs.PackReader(path)
    new_paths: set[Path] = set()
    for chunk in _chunks(lake, runs, collection, members, in_merged, readers):
        pack_id = _pack_id(runs, chunk)
        for name in sorted({t for key in chunk for t in runs[key]["tables"]}):
            path = lake.pack_path(name, collection, pack_id)
            ranges = {key: (first, count) for key, first, count in readers[name].index} if name in readers else {}
            writer = packs.PackWriter(path, arrow_schema(tables.get(name)), lake.staging)
            try:
                for key in chunk:
                    if name not in runs[key]["tables"]:
                        continue
                    if key in in_merged:
                        if key in ranges:
                            writer.add(key, readers[name].rows(*ranges[key]))
                    else:
                        writer.add(key, pq.ParquetFile(lake.part_path(name, collection, key)).read())
            except BaseException:
                writer.abort()
                raise
            writer.commit()
            new_paths.add(path)
        lake.record_pack(state, pack_id, chunk)   # the commit point of this pack
        report.packs_written += 1
        report.runs_packed += len(chunk)
    # Everything is in the new packs and recorded: the sources go.
    for key in loose:
        for name in runs[key]["tables"]:
            report.files_removed += _unlink(lake.part_path(name, collection, key))
    if merged:
        for name in tables.ALL:
            path = lake.pack_path(name, collection, merged)
            if path not in new_paths:
                report.files_removed += _unlink(path)


def _chunks(lake: Lake, runs: dict[str, Any], collection: str, members: list[str], in_merged: set[str],
            readers: dict[str, packs.PackReader]) -> list[list[str]]:
    """Members cut into packs of at most PACK_MAX_RUNS runs and PACK_MAX_BYTES per table (run
    parts by their file size, runs of the merged pack by their share of its rows)."""
    share = {}
    for name, reader in readers.items():
        size, rows = reader.path.stat().st_size, max(1, sum(r[2] for r in reader.index))
        share.update({(name, key): size * count / rows for key, _, count in reader.index})
    chunks, current, sizes = [], [], defaultdict(float)
    for key in members:
        cost = {}
        for name in runs[key]["tables"]:
            if key in in_merged:
                cost[name] = share.get((name, key), 0.0)
            else:
                try:
                    cost[name] = lake.part_path(name, collection, key).stat().st_size
                except FileNotFoundError:
                    cost[name] = 0.0
        if current and (len(current) >= PACK_MAX_RUNS
                        or any(sizes[n] + c > PACK_MAX_BYTES for n, c in cost.items())):
            chunks.append(current)
            current, sizes = [], defaultdict(float)
        current.append(key)
        for name, c in cost.items():
            sizes[name] += c
    if current:
        chunks.append(current)
    return chunks


def _pack_id(runs: dict[str, Any], chunk: list[str]) -> str:
    """Named by its runs and their content: the same runs give the same name (and bytes)."""
    digest = hashlib.sha256()
    for key in chunk:
        digest.update(json.dumps([key, runs[key].get("files")], sort_keys=True).encode() + b"\n")
    return digest.hexdigest()[:16]


def _unlink(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except FileNotFoundError:
        return 0


class IngestPacks:
    """The packs one ingest writes straight from the runs it parses in one collection.

    :meth:`add` hands a run's tables to one open PackWriter per table and keeps its state entry
    aside (never in the state: a snapshot written meanwhile must not name rows that are not on
    disk); :meth:`commit` ends the pack: files renamed into place, then one journal line per
    run, its entry placed in the pack, then the parts of the runs' previous entries removed.
    A pack ends at PACK_MAX_RUNS runs or PACK_MAX_BYTES written of any table, as compaction's."""

    def __init__(self, lake: Lake, collection: str) -> None:
        self.lake, self.collection = lake, collection
        self._writers: dict[str, packs.PackWriter] = {}
        self._pending: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {}

    def add(self, key: str, entry: dict[str, Any], previous: dict[str, Any] | None,
            parts: dict[str, "pa.Table | None"]) -> None:
        for name, table in parts.items():
            if table is None:
                continue
            writer = self._writers.get(name)
            if writer is None:   # named at commit, when its runs are known (_pack_id)
                writer = packs.PackWriter(self.lake.pack_path(name, self.collection, "pending"),
                                          arrow_schema(tables.get(name)), self.lake.staging)
                self._writers[name] = writer
            writer.add(key, table)
        self._pending[key] = (entry, previous)

    @property
    def full(self) -> bool:
        return len(self._pending) >= PACK_MAX_RUNS or any(
            w.bytes_written() >= PACK_MAX_BYTES for w in self._writers.values())

    def commit(self, state: dict[str, Any], report: CompactReport) -> None:
        if not self._pending:
            return
        entries = {key: entry for key, (entry, _) in self._pending.items()}
        pack_id = _pack_id(entries, list(entries))
        for name, writer in sorted(self._writers.items()):
            writer.path = self.lake.pack_path(name, self.collection, pack_id)
            writer.commit()
        self._writers.clear()
        for key, entry in entries.items():   # each line is the commit point of its run
            entry["pack"] = pack_id
            state["runs"][key] = entry
            self.lake.record_run(state, key)
        # The same runs with the same files make the same pack id: a re-parse (--force, a new
        # parser) may have replaced an older pack of that name in the tables it wrote, and left
        # its file in a table it no longer fills (rows the runs' entries no longer list).
        evict(self.lake, state, [(self.collection, pack_id)], report)
        for key, (_, previous) in self._pending.items():
            if previous and not previous.get("pack"):
                for name in previous.get("tables", []):
                    report.files_removed += _unlink(self.lake.part_path(name, self.collection, key))
        # a run that left another pack: compaction.finish rewrites that pack without it
        report.packs_written += 1
        report.runs_packed += len(self._pending)
        self._pending.clear()

    def abort(self) -> None:
        for writer in self._writers.values():
            writer.abort()
        self._writers.clear()
        self._pending.clear()


def bulk_collections(runs: Iterable[Any], state: dict[str, Any], force: bool) -> set[str]:
    """Collections whose runs this ingest will certainly parse (new, or marked to be parsed
    again, or all with ``force``) number at least the compaction threshold: their runs go
    straight into packs (:class:`IngestPacks`). 0 (compaction off) means none."""
    threshold = auto_threshold()
    if threshold <= 0:
        return set()
    counts: dict[str, int] = defaultdict(int)
    for run in runs:
        if force or (state["runs"].get(run.key) or {}).get("files") is None:
            counts[run.collection] += 1
    return {c for c, n in counts.items() if n >= threshold}

"""Marts as Parquet files a page reads one run of with HTTP range requests.

The run page (src/components/run-bundle.js) needs one run's rows of each mart that has a
``run_id`` (and the host, device, configuration, study and profile rows they name). Instead of a
JSON file per run written at build, each such mart is written ONCE, as the Parquet file the Data
page offers for download (``data/marts/<mart>.parquet``), laid out so that a reader finds one
run's rows without reading the rest:

* sorted by the mart's key (``run_id``; for the dimensions, the id the runs name), then by the
  columns that order a run's samples in time, so a run's rows are contiguous;
* row groups of ``ROW_GROUP_ROWS`` rows (``SPARSE_ROW_GROUP_ROWS`` for a mart of few rows per
  key) with min/max statistics of the key, so a reader skips every row group whose key range
  cannot hold the run (statistics only on the key: each column chunk's statistics cost ~50 footer
  bytes, and every run page reads the footer);
* the page index (column index + offset index) with pages of at most ``PAGE_ROWS`` rows
  (``SPARSE_PAGE_ROWS`` for a mart of few rows per key), so in the row group that holds the run
  the reader fetches only the pages that hold it;
* dictionaries only for text columns and at most ``DICTIONARY_PAGE_BYTES`` each (a reader must
  fetch a column's whole dictionary before any page of it: unique ids and measurements are
  better left plain), zstd-compressed (the browser inflates it with fzstd), or Snappy for a
  mart of few rows per key (:func:`page_shape`).

The same rows in the same order give the same bytes (no timestamps are written).

A big mart is written as several files ("parts", ``data/marts/<mart>/part-<id>.parquet``), each
the rows of a range of keys, so that one more run rewrites one part, not the mart: where a part
starts is decided by the keys themselves (:func:`plan_parts`: a key starts a part when a hash of
it falls in 1/K of the hash space; a piece over twice the part size is cut again at K/2), so
adding or removing a run changes only the part it sorts into. Each
part is kept in a cache beside the warehouse under a fingerprint of its rows (:func:`planned_parts`:
DuckDB's hash of every row, summed), and a build whose part has the same fingerprint copies the
file instead of writing it again (:class:`PartCache`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import _sitedata as sd

ROW_GROUP_ROWS = 262_144
# A mart of more rows than this is written in parts of about this many rows (one row group): at
# 10,000 runs the CPU samples (~10 M rows, 400 MB) are 128 parts of ~3 MB. One more run rewrites
# one part of each such mart: with four row groups of 262,144 rows a part, one new run's site
# build at 10,000 runs took 33.5 s (marts loader 19.9 s), with one 29.9 s (16.5 s), for an index
# the run page reads of 44 KB instead of 36 KB (docs/performance.md, run 18); with half that,
# the files one new run rewrites took 1.1-1.4 s instead of 2.6-2.7 s (the largest, an iostat
# part of 347,000 rows, 0.8 s alone), the site's share of one new run 3.6-4.1 s instead of
# 4.9-5.3 s, for an index of 116 KB instead of 82 KB (run 23). IOPSCOPE_SITE_PART_ROWS overrides
# it (tests build a small site in parts).
PART_ROWS = 131_072
PAGE_ROWS = 1_024
# A mart of few rows per key (a run's results, its dim_runs row) gets smaller pages: the run page
# decodes a whole page of every column to find one run's row, and its first chart waits for the
# results marts. Measured on the 10,000-run site (Node, warm, one run): dim_runs 78 -> 35 ms,
# fct_tpcc_results 80 -> 27, fct_fio_results 58 -> 27 with 256-row pages, for 12-19 % more bytes;
# a samples mart (hundreds of rows per run) is slower that way (a larger page index to read
# first: fct_cpu_samples 64 -> 92 ms), so it keeps PAGE_ROWS.
SPARSE_PAGE_ROWS = 256
SPARSE_ROWS_PER_KEY = 16
# Such a mart is also cut into parts of a 32nd of the part size (4,096 rows; an eighth, 16,384,
# until run 28: one more run then wrote its dim_runs, fct_fio_results, fct_tpcc_results and
# fct_device_capabilities rows with 10,000-28,000 others, 0.04-0.07 s each at 10,000 runs), in
# row groups of SPARSE_ROW_GROUP_ROWS: the run page reads a page of each of its 50-80 columns, and hyparquet's
# slices go out as one request when at most 64 KB apart, so what a run's read costs follows the
# size of the row group that holds it. As one file of one row group, a run's read at 100,000 runs
# took 37-42 requests (dim_runs: 17 MB) and 42-50 (fct_fio_results: 38 MB) instead of 10 and 23
# at 10,000 runs. Measured (Node, a fresh process, one run's rows, the marts of the 10,000-run
# site copied ten times with other run ids: docs/performance.md, run 20): dim_runs 143 -> 83 ms,
# 42 -> 3 requests, 997 -> 364 KB; fct_fio_results 162 -> 89 ms, 50 -> 3, 1,612 -> 432 KB; at
# 10,000 runs the same layout reads dim_runs in 3 requests instead of 10, 1,001 -> 350 KB.
SPARSE_PART_DIVISOR = 32
SPARSE_ROW_GROUP_ROWS = 2_048
# Such a mart is also Snappy-compressed instead of zstd: reading one run's rows of it is a few
# small pages, where fzstd's per-page start-up and its decoding in JavaScript cost more than the
# bytes zstd saves. Measured on the 10,000-run site (Node, a fresh process, one run's rows):
# dim_runs 134-177 -> 82-91 ms, fct_fio_results 144 -> 80 ms, for 18-36 % more bytes (dim_runs,
# fct_fio_results and fct_tpcc_results together 7.0 -> 8.9 MB); in Chromium a run's first chart ~100 ms sooner
# (docs/performance.md, run 19). The samples marts, most of the site's bytes, stay zstd.
COMPRESSION = "zstd"
SPARSE_COMPRESSION = "snappy"
DICTIONARY_PAGE_BYTES = 16_384
# Columns that order a run's rows in time (or along a histogram), after the key: the samples of
# a run then lie in the order the charts draw them, which also compresses best.
_ORDER_FIRST = re.compile(r"(_at|_index|elapsed_s|time_s|time_ms|_ns|_us)$")


def key_of(catalog: dict, name: str) -> str | None:
    """The column a page looks rows of ``name`` up by: ``run_id``, or the id a run's rows name
    for the dimensions of ``sd.DIM_KEYS``; None for marts no page reads by key."""
    if sd.has_column(catalog, name, "run_id"):
        return "run_id"
    if name in sd.DIM_KEYS and sd.has_column(catalog, name, sd.DIM_KEYS[name][0]):
        return sd.DIM_KEYS[name][0]
    return None


def sort_columns(catalog: dict, name: str, key: str) -> list[str]:
    """Key first, then the time-like columns, then every other column in table order (a total
    order, so the file does not depend on how the warehouse happens to store the rows)."""
    columns = [c["name"] for c in catalog[name]["columns"]]
    timelike = [c for c in columns if c != key and _ORDER_FIRST.search(c)]
    rest = [c for c in columns if c != key and c not in timelike]
    return [key, *timelike, *rest]


def part_rows() -> int:
    return int(os.environ.get("IOPSCOPE_SITE_PART_ROWS") or PART_ROWS)


# Marts no page reads by key whose every row belongs to one device: their Parquet download is cut
# by that column, so one more run rewrites the part holding its device, not the whole file (at
# 10,000 runs fct_condition_quotients was one 80 MB file, written again, 3 s, for every new run).
# Their rows are wide (52 columns): parts of an eighth of part_rows() (16,384 rows, ~1-3 MB at
# 10,000 runs). With a quarter, the part a fio run's device sits in held up to 62,000 rows at
# 10,000 runs (38,000 at 1,000: a device's rows grow with its runs) and took 0.41 s to write
# (0.24 s), on the critical path of one new run's site build; a part of half as many rows takes
# about half as long (bench/results run 29).
# fct_sweep_quotient_summaries is not cut: a row holds two devices, so a run on one device changes
# rows in the parts of every device it is compared with (fct_device_quotients, a view, is
# written out only while it is small: _sitedata.counted_rows).
DEVICE_PART_KEYS = {"fct_condition_quotients": "device_id"}


def part_key_of(catalog: dict, name: str) -> tuple[str, int | None] | None:
    """What the Parquet download of ``name`` is cut into parts by, and the part size in rows:
    the key the run page reads it by (:func:`key_of`; size None: :func:`plan_parts` decides), or
    its device (``DEVICE_PART_KEYS``); None for a mart served as one file whatever its size."""
    key = key_of(catalog, name)
    if key is not None:
        return key, None  # plan_parts sizes the parts by the mart's rows per key
    device = DEVICE_PART_KEYS.get(name)
    if device is not None and sd.has_column(catalog, name, device):
        return device, max(1, part_rows() // 8)
    return None


@dataclass(frozen=True)
class Part:
    """One file of a keyed mart: the rows whose key is >= ``first`` and < ``end`` (None: no
    bound; the last part also holds rows without a key). ``file`` is its path under data/marts/."""

    file: str
    first: object = None
    end: object = None
    rows: int = 0

    def listing(self) -> dict:
        """The part as run_marts.json and catalog.json list it: file, first key (JSON-safe; null
        for the first part), rows."""
        return {"file": self.file, "first": _plain(self.first), "rows": self.rows}


def key_starts_part(value, every: int) -> bool:
    """Whether a key starts a part when parts hold ~``every`` keys: its hash (SHA-1 of its text,
    stable across Python, DuckDB and machines) falls in 1/``every`` of the hash space. Decided
    by the key alone (``every`` a power of two: a key picked at ``every`` is picked at every
    smaller one), so a new run never moves another part's boundary."""
    if every <= 1:
        return True
    return _key_hash(str(value)) % every == 0


@functools.lru_cache(maxsize=1 << 18)
def _key_hash(text: str) -> int:
    # cached: every run-keyed mart cuts by the same run ids (73,000 hashes of ~10,000 keys per
    # site build at 10,000 runs, 0.1 s; 0.02 s cached)
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest()[:8], "big")


def part_file(name: str, first) -> str:
    """A part's path under data/marts/: named by its first key (hashed: keys are not file names)."""
    return f"{name}/part-{hashlib.sha1(str(first).encode('utf-8')).hexdigest()[:12]}.parquet"


def plan_parts(con, name: str, key: str, target_rows: int | None = None) -> list[Part]:
    """The files mart ``name`` is written as: one (``<name>.parquet``) up to ``target_rows``
    rows; above, parts of about that many rows by key range (:func:`_split`). Keys in DuckDB's
    order, which the writes use. Without ``target_rows``: :func:`part_rows`, or a
    SPARSE_PART_DIVISOR-th of it for a mart of few rows per key (:func:`is_sparse`)."""
    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}"
    counts = con.execute(f"select {sd.quote_ident(key)}, count(*) from {mart} group by 1 order by 1 asc nulls last").fetchall()
    return [part for part, _ in _plan(name, counts, target_rows)]


def _plan(name: str, counts: list[tuple], target_rows: int | None) -> list[tuple[Part, int]]:
    """:func:`plan_parts` from the mart's (key, rows) in DuckDB's key order (nulls last): each
    part with how many of those keys it holds (consecutive: the parts cut the sorted keys)."""
    total = sum(n for _, n in counts)
    target = target_rows or part_rows()
    if target_rows is None and is_sparse(total, sum(1 for value, _ in counts if value is not None)):
        target = max(1, target // SPARSE_PART_DIVISOR)
    if total <= target or len(counts) < 2:
        return [(Part(file=f"{name}.parquet", rows=total), len(counts))]
    every = 2 ** max(0, round(math.log2(max(1.0, len(counts) * target / total))))
    pieces = _split(counts, every, target)
    pieces[-1:] = _split_tail(pieces[-1], every, target)
    if len(pieces) == 1:
        return [(Part(file=f"{name}.parquet", rows=total), len(counts))]
    parts = []
    for i, piece in enumerate(pieces):
        first = piece[0][0] if i else None  # the first part also takes keys before every key of this build
        end = pieces[i + 1][0][0] if i + 1 < len(pieces) else None
        parts.append((Part(file=part_file(name, piece[0][0]), first=first, end=end, rows=sum(n for _, n in piece)),
                      len(piece)))
    return parts


def _split(counts: list[tuple], every: int, target: int) -> list[list[tuple]]:
    """Cut the sorted (key, rows) list before each key :func:`key_starts_part` picks with
    ``every`` (a power of two near the keys per part); a piece of more than twice ``target``
    rows (hash cuts fall unevenly: a mart of 2,229 runs once got none at 1 in 512) is cut again,
    alone, with ``every / 2``. A cut depends on its key and on the keys of its own piece only, so
    one more run changes the part it sorts into (or splits it) and no other."""
    pieces: list[list[tuple]] = []
    for value, n in counts:
        if not pieces or (value is not None and key_starts_part(value, every)):
            pieces.append([])
        pieces[-1].append((value, n))
    out: list[list[tuple]] = []
    for piece in pieces:
        if every > 1 and len(piece) > 1 and sum(n for _, n in piece) > 2 * target:
            out += _split(piece, every // 2, target)
        else:
            out.append(piece)
    return out


# The last piece is cut TAIL_DIVISOR times finer (:func:`_split_tail`): new runs sort last (run
# ids grow with time), so one more run rewrote the last part of each mart it added rows to, whose
# size cycles between a few rows and twice the part size as runs arrive (at 10,000 runs
# fct_fio_histograms' last part held 222,000 rows, 0.35 s to write for every fio run; at 1,000
# runs fct_cpu_samples' 182,000, 0.5 s for every run).
TAIL_DIVISOR = 8


def _split_tail(piece: list[tuple], every: int, target: int) -> list[list[tuple]]:
    """The last piece of :func:`_split`, cut again at ``every / TAIL_DIVISOR`` into pieces of
    about ``target / TAIL_DIVISOR`` rows. A key the coarse cut picks is picked by the fine one
    too, so a key that sorts last changes the last fine piece (or starts one) and no other,
    unless it makes a coarse cut: its key is one the coarse cut picks (it starts a new tail), or
    the tail's coarse piece outgrows twice ``target`` and is cut coarser (:func:`_split`); then
    the old tail's fine pieces become parts of about ``target`` rows again (written once, about
    once every ``every`` keys)."""
    if every < 2 or len(piece) < 2:
        return [piece]
    return _split(piece, max(1, every // TAIL_DIVISOR), max(1, target // TAIL_DIVISOR))


def _part_filter(key: str, part: Part) -> tuple[str, list]:
    """The SQL condition (and its parameters) that selects a part's rows."""
    conditions, params = [], []
    if part.first is not None:
        # the last part also holds the rows without a key (they sort last)
        at_least = f"{sd.quote_ident(key)} >= ?"
        conditions.append(at_least if part.end is not None else f"({at_least} or {sd.quote_ident(key)} is null)")
        params.append(part.first)
    if part.end is not None:
        conditions.append(f"{sd.quote_ident(key)} < ?")
        params.append(part.end)
    return (" where " + " and ".join(conditions)) if conditions else "", params


# Marts incremental by run (dbt_project.yml *incremental_by_run, macros/incremental_runs.sql)
# whose rows an update rebuilds only with their run: it deletes and rebuilds the rows of new,
# changed and vanished runs and leaves every other row as it was. Not fct_tpcc_intervals: its
# published series are rebuilt on every build, linked to results other runs may change.
# (tests/python/test_site_loaders.py checks each is incremental by run in dbt_project.yml.)
RUN_LOCAL_MARTS = ("fct_cpu_samples", "fct_iostat_device_samples", "fct_fio_histograms", "fct_fio_log_samples")
# Marts incremental by run whose rows matching a condition are made again on every build (the
# SQL condition, true for those rows): those rows are hashed whole, the others by run as above.
# fct_tpcc_intervals selects its published series on every build; a measured series is its own
# run's. Hashing its 1.6 M rows whole took 0.11 s of every site build at 10,000 runs.
REBUILT_ROWS_OF_RUN_MARTS = {"fct_tpcc_intervals": "coalesce(source_kind = 'published', true)"}
# Marts incremental by device (macros/incremental_keys.sql) whose rows carry the fingerprint of
# their device when they were built (the column named here): within a generation a device's rows
# are what that fingerprint says, as a run's rows are what run_fingerprint says. Hashing 52
# columns of fct_condition_quotients' 850,000 rows took 0.16 s of every site build at 10,000 runs.
DEVICE_LOCAL_MARTS = {"fct_condition_quotients": "device_fingerprint"}


def fingerprints_by_run(catalog: dict, name: str, key: str) -> str | None:
    """The warehouse generation under which the parts of ``name`` may be fingerprinted by their
    runs, or None (hash every row). Within one generation (the full build the warehouse carries
    on, and the project's build key: iopscope/build_stamp.py) the rows of a run of a
    ``RUN_LOCAL_MARTS`` mart are what its ``run_fingerprint`` says. Hashing (run_id,
    run_fingerprint) instead of ~30 columns made the sample marts' fingerprints ~4 s cheaper per
    site build at 10,000 runs (20 M rows). The same holds for the rows of a device of a
    ``DEVICE_LOCAL_MARTS`` mart and its device fingerprint."""
    if name in DEVICE_LOCAL_MARTS:
        if not all(sd.has_column(catalog, name, c) for c in ("device_id", DEVICE_LOCAL_MARTS[name])):
            return None
        return sd.warehouse_generation()
    if name not in (*RUN_LOCAL_MARTS, *REBUILT_ROWS_OF_RUN_MARTS) or key != "run_id" or \
            not sd.has_column(catalog, name, "run_fingerprint"):
        return None
    return sd.warehouse_generation()


def _every_column_hash(catalog: dict, name: str) -> str:
    """The SQL of a row's hash over all its columns."""
    return "hash({})".format(", ".join(sd.quote_ident(c["name"]) for c in catalog[name]["columns"]))


def _row_hash_cases(catalog: dict, name: str, generation: str | None) -> tuple[str, str | None, str | None]:
    """(hash of the rows hashed by key, the SQL condition true for the rows hashed whole
    instead, its negation); (every column, None, None) when every row is hashed whole."""
    if not generation:
        return _every_column_hash(catalog, name), None, None
    if name in DEVICE_LOCAL_MARTS:
        # a row of no device (or built before the column was) is no key's: hashed whole
        fingerprint = sd.quote_ident(DEVICE_LOCAL_MARTS[name])
        return (f"hash(device_id, {fingerprint})", f"device_id is null or {fingerprint} is null",
                f"device_id is not null and {fingerprint} is not null")
    rebuilt = REBUILT_ROWS_OF_RUN_MARTS.get(name)
    return "hash(run_id, run_fingerprint)", rebuilt, (f"not ({rebuilt})" if rebuilt else None)


def hashed_row(catalog: dict, name: str, generation: str | None) -> str:
    """The SQL of a row's hash in a part's fingerprint: every column, or (a mart fingerprinted by
    run) its run_id and run_fingerprint, every column for the rows REBUILT_ROWS_OF_RUN_MARTS names,
    or (DEVICE_LOCAL_MARTS) its device_id and device fingerprint."""
    by_key, whole, _ = _row_hash_cases(catalog, name, generation)
    if whole is None:
        return by_key
    every_column = _every_column_hash(catalog, name)
    return f"case when {whole} then {every_column} else {by_key} end"


def _digests_by_key(catalog: dict, name: str, generation: str | None, mart: str, key: str) -> str:
    """A subquery of (key, n, total): each key's row count and sum of :func:`hashed_row`. When
    some rows are hashed whole, those and the others are two scans: one CASE over both made
    DuckDB read all 52 columns of fct_condition_quotients' 850,000 rows to hash two of them
    (0.13 s of every site build at 10,000 runs; the two scans take 0.01 s, the same sums)."""
    by_key, whole, not_whole = _row_hash_cases(catalog, name, generation)
    if whole is None:
        return _key_sums(mart, key, by_key)
    every_column = _every_column_hash(catalog, name)
    return (f"(select {key}, sum(n) as n, sum(total) as total from ("
            f"select {key}, count(*) as n, sum({by_key}) as total from {mart} where {not_whole} group by 1 "
            f"union all select {key}, count(*) as n, sum({every_column}) as total from {mart} where {whole} group by 1"
            f") group by 1)")


def row_digests(con, relation: str, columns: list[str], group: str = "0", where: str = "",
                params: list | None = None, of_mart: bool = False) -> dict:
    """{value of the SQL expression ``group``: (row count, the sum of DuckDB's hash of each row's
    ``columns``, as text)} over ``relation``: a digest of a group's rows that does not depend on
    their order, for all groups in one scan (a group without rows is absent). ``of_mart``: the
    relation is a mart, read once per connection (:func:`_read`)."""
    hashed = ", ".join(sd.quote_ident(c) for c in columns)
    rows = _read(con, f"select {group}, count(*), sum(hash({hashed}))::varchar from {relation}{where} group by 1",
                 params or [], once=of_mart)
    return {value: (n, total) for value, n, total in rows}


def _key_sums(relation: str, quoted_key: str, hashed: str) -> str:
    """A subquery of (key, n, total): each key's row count and sum of the SQL ``hashed``."""
    return f"(select {quoted_key}, count(*) as n, sum({hashed}) as total from {relation} group by 1)"


def _ordered_key_digests(con, quoted_key: str, per_key: str, of_mart: bool) -> list[tuple]:
    """The rows of a ``per_key`` subquery (:func:`_key_sums`, :func:`_digests_by_key`) in
    DuckDB's key order, nulls last, the sums as HUGEINTs: what :func:`plan_digested` plans from.
    A mart's parts and its CSV's segments ask with the same text, so the memo serves both."""
    return _read(con, f"select {quoted_key}, n, total::hugeint from {per_key} order by 1 asc nulls last", once=of_mart)


def key_digests(con, relation: str, key: str, hashed: str, of_mart: bool = False) -> list[tuple]:
    """(key, rows, sum of the SQL ``hashed`` over them as a HUGEINT) for each key of
    ``relation``, in DuckDB's key order, nulls last. ``of_mart``: as for :func:`row_digests`."""
    q = sd.quote_ident(key)
    return _ordered_key_digests(con, q, _key_sums(relation, q, hashed), of_mart)


# The marts' digests a loader asks for twice: a keyed mart's parts and its CSV download's
# segments hash the same rows by the same key, a mart's CSV and Parquet downloads the same rows
# whole (0.1 s of the marts loader at 10,000 runs). Kept per connection, for marts only: the
# loaders read a warehouse that does not change while they run (the site build comes after the
# update), whereas a temporary table of the same name may hold other rows the next time.
_READ_ONCE: dict = {}


def _read(con, sql: str, params: list | None = None, once: bool = False) -> list[tuple]:
    if not once:
        return con.execute(sql, params or []).fetchall()
    memo = _READ_ONCE.setdefault(id(con), (con, {}))[1]   # the connection held: its id is not reused
    key = (sql, json.dumps(params or [], default=str))
    if key not in memo:
        memo[key] = con.execute(sql, params or []).fetchall()
    return memo[key]


def fingerprint_of(facts: list) -> str:
    """SHA-256 of the facts a cached file is written from (JSON: order and types matter)."""
    return hashlib.sha256(json.dumps(facts, default=str).encode("utf-8")).hexdigest()


def planned_parts(con, catalog: dict, name: str, key: str, target_rows: int | None = None) -> list[tuple[Part, str]]:
    """:func:`plan_parts`, each part with a fingerprint of what its file would hold: every row
    hashed by DuckDB and summed (order does not matter: the file's order is a total order of the
    same rows), or for a mart fingerprinted by run (:func:`fingerprints_by_run`) its rows'
    (run_id, run_fingerprint) and the generation; the row count, the columns and types, the
    part's bounds, and everything that shapes the file's bytes (the writer's settings and
    versions).

    One scan of the mart: each key's rows counted and digested at once, the parts planned from
    those counts, each part's digest the sum of its keys' (the parts cut the sorted keys into
    runs of consecutive keys). Planning, then placing each key in its part in SQL, scanned the
    mart twice (0.18 + 0.21 s of the marts loader at 10,000 runs); placing every row instead of
    every key took 1.0 s for the 10 million CPU samples alone."""
    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}"
    q = sd.quote_ident(key)
    generation = fingerprints_by_run(catalog, name, key)
    rows = _ordered_key_digests(con, q, _digests_by_key(catalog, name, generation, mart, q), of_mart=True)
    planned = plan_digested(name, rows, target_rows)
    parts = [part for part, _, _ in planned]
    sums = {i: (n, digest) for i, (_, n, digest) in enumerate(planned) if n}
    return list(zip(parts, _fingerprints(catalog, name, key, parts, sums, generation)))


def plan_digested(name: str, rows: list[tuple], target_rows: int | None) -> list[tuple[Part, int, str]]:
    """:func:`plan_parts` from (key, rows, digest) per key in DuckDB's key order (nulls last; the
    digests HUGEINTs, exactly as DuckDB sums them), each part with its rows and the sum of its
    keys' digests (text): what each part's file would hold, without reading its rows again. The
    marts' parts, the pages' segments and the big CSVs' segments are all planned here."""
    plan = _plan(name, [(value, n) for value, n, _ in rows], target_rows)
    out, at = [], 0
    for part, keys in plan:
        piece = rows[at:at + keys]
        at += keys
        out.append((part, sum(n for _, n, _ in piece), str(sum(d for _, _, d in piece))))
    return out


def plan_segments(con, name: str, relation: str, key: str, columns: list[str], target_rows: int,
                  of_mart: bool = False) -> list[tuple[Part, int, str]]:
    """:func:`plan_digested` of ``relation`` cut by ``key`` into ranges of ~``target_rows`` rows,
    each key's rows digested over ``columns`` in one scan (the pages' segments, the big CSVs';
    ``of_mart``: as for :func:`row_digests`)."""
    hashed = ", ".join(sd.quote_ident(c) for c in columns)
    return plan_digested(name, key_digests(con, relation, key, f"hash({hashed})", of_mart), target_rows)


def joined_from_segments(cache: "PartCache", planned: list[tuple[Part, int, str]], shape: list, write_segment,
                         join, *, suffix: str, segment_suffix: str, kind: str, segment_kind: str, label: str) -> Path:
    """A file of several segments (``planned``, :func:`plan_segments`) in ``cache``: each segment
    written by ``write_segment(part, out)`` under a fingerprint of ``shape`` (what shapes its
    bytes) and its rows, the file by ``join(segment paths in key order, out)`` under a fingerprint
    of its segments'. A file from the cache keeps its segments there, unread, so that the next
    build writes again only the segment a new run changed."""
    segments = [(part, fingerprint_of([*shape, "segment", _plain(part.first), _plain(part.end), n, digest]))
                for part, n, digest in planned]

    def write(out: Path) -> None:
        join([cache.get_or_write(fingerprint, lambda o, part=part: write_segment(part, o), suffix=segment_suffix,
                                 kind=segment_kind, label=f"{label} {part.file}")
              for part, fingerprint in segments], out)

    path = cache.get_or_write(fingerprint_of([*shape, "segments", [f for _, f in segments]]), write,
                              suffix=suffix, kind=kind, label=label)
    for _, fingerprint in segments:
        cache.keep(fingerprint, segment_suffix)
    return path


def _fingerprints(catalog: dict, name: str, key: str, parts: list[Part], sums: dict, generation: str | None) -> list[str]:
    """Each part's fingerprint (:func:`planned_parts`) from ``sums``: part number -> (rows,
    digest as text), None for a part without rows; ``generation``: :func:`fingerprints_by_run`'s."""
    import duckdb
    import pyarrow

    shape = [FILE_FORMAT_VERSION, duckdb.__version__, pyarrow.__version__, ROW_GROUP_ROWS, PAGE_ROWS,
             SPARSE_PAGE_ROWS, SPARSE_ROWS_PER_KEY, SPARSE_ROW_GROUP_ROWS, COMPRESSION, SPARSE_COMPRESSION,
             DICTIONARY_PAGE_BYTES, name, key,
             sort_columns(catalog, name, key),
             [[c["name"], c["type"]] for c in catalog[name]["columns"]], generation, hashed_row(catalog, name, generation)]
    return [fingerprint_of([*shape, i, _plain(p.first), _plain(p.end), *(sums.get(i) or (0, "0"))])
            for i, p in enumerate(parts)]


# Bump when the way a part's file is written changes (the cache then writes every part again).
FILE_FORMAT_VERSION = 1
# Bump when the way a whole-mart download is written changes (sd.mart_file_path).
DOWNLOAD_FORMAT_VERSION = 1


def download_fingerprint(con, catalog: dict, name: str, fmt: str) -> str:
    """A fingerprint of what the download ``<name>.<fmt>`` (sd.mart_file_path) would hold: the
    rows (hashed and summed, as :func:`planned_parts` does: the file holds the same rows in
    the order DuckDB reads them), the row count, the columns and types, the format and the DuckDB
    version that writes it. At 10,000 runs writing the 22 whole-mart downloads took 6 s of the
    marts loader's 15 s when nothing had changed; hashing them takes a fraction of that."""
    import duckdb

    columns = [c["name"] for c in catalog[name]["columns"]]
    count, total = row_digests(con, f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}", columns, of_mart=True).get(0, (0, "0"))
    return fingerprint_of([DOWNLOAD_FORMAT_VERSION, duckdb.__version__, name, fmt, sd.mart_file_options(fmt),
                           [[c["name"], c["type"]] for c in catalog[name]["columns"]], count, total])


class PartCache:
    """Files written by earlier builds, by fingerprint, in ``folder`` (default: beside the
    warehouse, ``<warehouse>.site-parts/``): the keyed Parquet parts, and the whole-mart
    downloads (kind "download"). A build takes a file from here when its fingerprint matches,
    else writes it here; :meth:`keep_only_used` then drops what this build did not use, so the
    cache holds one build's files (the same bytes as the site's)."""

    def __init__(self, folder: Path | None = None):
        default = sd.warehouse_path().with_name(sd.warehouse_path().name + ".site-parts")
        self.folder = Path(folder or os.environ.get("IOPSCOPE_SITE_PARTS_DIR") or default)
        self.used: set[str] = set()
        self.counts: dict[str, list[int]] = {}  # kind ("part", "download", ...) -> [reused, written]
        self.writes: list[tuple[float, str]] = []  # (seconds, label) of each file written

    def count(self, kind: str = "part") -> tuple[int, int]:
        """(files taken from the cache, files written) of one kind in this build."""
        reused, written = self.counts.get(kind, (0, 0))
        return reused, written

    def path(self, fingerprint: str, suffix: str = ".parquet") -> Path:
        return self.folder / f"{fingerprint}{suffix}"

    def get_or_write(self, fingerprint: str, write, suffix: str = ".parquet", kind: str = "part",
                     label: str | None = None) -> Path:
        """The cached file of ``fingerprint``, written by ``write(path)`` first when missing
        (``label``: what it is, for :meth:`describe_writes`)."""
        target = self.path(fingerprint, suffix)
        self.used.add(target.name)
        if target.is_file():
            self.counts.setdefault(kind, [0, 0])[0] += 1
            return target
        self.folder.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.{os.getpid()}")
        started = time.perf_counter()
        try:
            write(temp)
            os.replace(temp, target)  # never a half-written part under a fingerprint
        finally:
            temp.unlink(missing_ok=True)
        self.writes.append((time.perf_counter() - started, label or target.name))
        self.counts.setdefault(kind, [0, 0])[1] += 1
        return target

    def describe_writes(self, slowest: int = 3) -> str:
        """What this build wrote and where the time went: "N files written in S s (slowest: ...)"."""
        if not self.writes:
            return "nothing written"
        top = sorted(self.writes, reverse=True)[:slowest]
        return "{} files written in {:.2f} s (slowest: {})".format(
            len(self.writes), sum(s for s, _ in self.writes), ", ".join(f"{label} {s:.2f} s" for s, label in top))

    def layout(self, path: Path, key: str) -> dict:
        """:func:`file_layout` of a file of this cache, kept beside it (``<file>.layout-<key>.json``):
        a cached file never changes under its fingerprint, so neither does its layout, which
        took a pure-Python read of every footer (~0.4 s of the loader at 10,000 runs)."""
        side = path.with_name(f"{path.name}.layout-{key}.json")
        self.used.add(side.name)
        try:
            return json.loads(side.read_text())
        except (OSError, ValueError):
            pass
        layout = file_layout(path, key)
        temp = side.with_name(f".{side.name}.{os.getpid()}")
        try:
            temp.write_text(json.dumps(layout))
            os.replace(temp, side)
        finally:
            temp.unlink(missing_ok=True)
        return layout

    def keep(self, fingerprint: str, suffix: str = ".parquet") -> None:
        """Keep the file of ``fingerprint`` for the next build without reading it (a piece of a
        file this build took whole from the cache)."""
        self.used.add(self.path(fingerprint, suffix).name)

    def keep_only_used(self) -> None:
        if not self.folder.is_dir():
            return
        for path in self.folder.iterdir():
            if path.name not in self.used and not path.name.startswith("."):
                path.unlink(missing_ok=True)


@dataclass(frozen=True)
class PageShape:
    """How a keyed file is written: rows per data page, the Parquet codec, rows per row group."""

    rows: int
    compression: str
    row_group_rows: int


def page_shape(con, name: str, key: str, part: Part | None = None) -> PageShape:
    """The pages of mart ``name``'s keyed file (or ``part``): SPARSE_PAGE_ROWS rows,
    SPARSE_COMPRESSION and SPARSE_ROW_GROUP_ROWS when its keys average at most
    SPARSE_ROWS_PER_KEY rows, else PAGE_ROWS, COMPRESSION and ROW_GROUP_ROWS. From the rows
    themselves, so the same rows give the same file (the part cache's fingerprint holds the
    constants)."""
    where, params = _part_filter(key, part) if part is not None else ("", [])
    cursor = con.cursor()  # of its own: a caller's unfinished result stays as it is
    try:
        rows, keys = cursor.execute(f"select count(*), count(distinct {sd.quote_ident(key)}) "
                                    f"from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}{where}", params).fetchone()
    finally:
        cursor.close()
    if is_sparse(rows, keys):
        return PageShape(SPARSE_PAGE_ROWS, SPARSE_COMPRESSION, SPARSE_ROW_GROUP_ROWS)
    return PageShape(PAGE_ROWS, COMPRESSION, ROW_GROUP_ROWS)


def is_sparse(rows: int, keys: int) -> bool:
    """Whether ``rows`` over ``keys`` distinct keys make a mart of few rows per key."""
    return bool(keys) and rows <= SPARSE_ROWS_PER_KEY * keys


def write_keyed_parquet(con, catalog: dict, name: str, key: str, out: Path, part: Part | None = None) -> Path:
    """Write mart ``name`` (or its ``part``) sorted and row-grouped by ``key`` into the file
    ``out``; streamed in record batches, so memory holds one batch, not the mart."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    order = ", ".join(f"{sd.quote_ident(c)} asc nulls last" for c in sort_columns(catalog, name, key))
    where, params = _part_filter(key, part) if part is not None else ("", [])
    # a cursor of its own: the streamed result must not meet a caller's unfinished one
    cursor = con.cursor()
    reader = cursor.sql(f"select * from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}{where} order by {order}",
                        params=params or None).to_arrow_reader(65_536)
    schema = reader.schema
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    out = Path(out)
    shape = page_shape(con, name, key, part)
    group_rows = shape.row_group_rows
    with pq.ParquetWriter(out, schema, compression=shape.compression, write_statistics=[key], write_page_index=True,
                          max_rows_per_page=shape.rows, use_dictionary=text or False,
                          dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES, store_schema=False,
                          sorting_columns=[pq.SortingColumn(schema.names.index(key))]) as writer:
        pending = []  # DuckDB hands out batches of at most 122,880 rows: gather a row group's worth
        rows = 0
        for batch in reader:
            pending.append(batch)
            rows += batch.num_rows
            while rows >= group_rows:
                table = pa.Table.from_batches(pending, schema=schema)
                writer.write_table(table.slice(0, group_rows), row_group_size=group_rows)
                rest = table.slice(group_rows)
                pending, rows = rest.to_batches(), rest.num_rows
        if rows:
            writer.write_table(pa.Table.from_batches(pending, schema=schema), row_group_size=group_rows)
    cursor.close()
    return out


# The tool set of a run that names no tool (a published study's figures): such runs fill marts too.
NO_TOOLS = "(none)"


def filled_by_tools(con, catalog: dict, name: str) -> list[str] | None:
    """The tool sets (dim_runs.tools as a sorted, comma-joined set; NO_TOOLS for a run naming
    none) of the runs with rows in mart ``name``, or None when dim_runs has no tools column. A run
    whose tool set is not among them has no rows there, so the run page does not open that file
    (a TPC-C run opens no fio mart, a measured fio run no published-study mart), saving its
    footer and index requests. Whole sets, not single tools: iostat and mpstat run beside every
    kit. Runs missing from dim_runs add nothing: their page has no dim_runs row and reads every
    mart."""
    if name == "dim_runs" or not sd.has_column(catalog, "dim_runs", "tools"):
        return None
    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(name)}"
    rows = con.execute(
        f"select distinct r.tools from (select distinct run_id from {mart}) m "
        f"join {sd.MARTS_SCHEMA}.dim_runs r using (run_id)").fetchall()
    return sorted({tool_set(tools) for (tools,) in rows})


def tool_set(tools: str | None) -> str:
    """A run's tools as the run page compares them (src/components/run-rows.js toolSet)."""
    names = sorted({t.strip() for t in (tools or "").split(",") if t.strip()})
    return ",".join(names) if names else NO_TOOLS


def file_layout(path: Path, key: str) -> dict:
    """Where the run page finds what it reads of the Parquet file at ``path`` before any data
    page, so it asks for all of it in one round trip instead of footer, then page index:
    ``size`` (bytes: the page checks the server states the same, else reads the footer as if it
    had no layout), ``footer`` (offset of the FileMetaData, which runs to the end), and per row
    group ``[first key, last key, column index of key [start, end], offset indexes [start, end]]``
    (end exclusive; null where the file has none). One entry per row group: a few per mart even
    at 10,000 runs (262,144 rows each)."""
    import pyarrow.parquet as pq

    import _parquet_footer as pf

    size, footer, metadata = pf.read_footer(path)
    meta = pq.ParquetFile(path).metadata
    column = meta.schema.names.index(key)
    groups = []
    for i, spans in enumerate(pf.page_index_spans(metadata, key)):
        stats = meta.row_group(i).column(column).statistics
        first, last = (stats.min, stats.max) if stats is not None and stats.has_min_max else (None, None)
        groups.append([_plain(first), _plain(last), spans["column_index"], spans["offset_index"]])
    return {"size": size, "footer": footer, "groups": groups}


def _plain(value):
    """A statistics value as JSON carries it (keys are text or integers)."""
    return value if value is None or isinstance(value, (str, int, float)) else str(value)


def parquet_files(con, catalog: dict, name: str) -> list[Part]:
    """The Parquet files mart ``name`` is served as, under data/marts/: ``<name>.parquet``, or
    its parts (:func:`plan_parts`) for a big mart cut by key (:func:`part_key_of`)."""
    cut = part_key_of(catalog, name)
    return plan_parts(con, name, *cut) if cut is not None else [Part(file=f"{name}.parquet")]


def run_marts_index(con, catalog: dict, layouts: dict | None = None) -> dict:
    """What the run page needs to know before reading: the marts it reads by key (name, key
    column, columns and types, row count: a file whose footer disagrees was replaced by another
    build; for run-keyed marts the tools that fill them, :func:`filled_by_tools`; the file's
    layout where ``layouts`` has it, :func:`file_layout`), which dimensions a run's rows point
    to, and the row cap per mart for the browser.

    ``layouts[name]`` is the layout of ``<name>.parquet``, or for a mart written in parts a list
    of ``{"file", "first", "rows", "layout"}`` in key order: the mart's entry then has
    ``"parts"`` (a key belongs to the last part whose ``first`` is not above it; the first
    part's is null) and no ``"layout"``."""
    layouts = layouts or {}
    marts = []
    for name in catalog:
        key = key_of(catalog, name)
        if key is None:
            continue
        (rows,) = con.execute(f"select count(*) from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}").fetchone()
        columns = [{"name": c["name"], "type": c["type"]} for c in catalog[name]["columns"]]
        layout = layouts.get(name)
        parts = layout if isinstance(layout, list) else None
        marts.append({"name": name, "key": key, "rows": rows, "columns": columns,
                      "tools": filled_by_tools(con, catalog, name) if key == "run_id" else None,
                      "layout": None if parts is not None else layout, "parts": parts})
    dims = {name: {"key": key, "sources": list(sources), "picked_by": list(sd.DIM_PICKED_BY.get(name, ())) or None}
            for name, (key, sources) in sd.DIM_KEYS.items()}
    return {"marts": marts, "dims": dims, "run_row_limit": sd.RUN_ROW_LIMIT}

"""The pages loader's query members (data/pages/<name>.json) from the last build's bytes.

Most members of pages.zip.py are the rows of one query, encoded as column-oriented JSON
(``_sitedata.query_payload``). One more run changes the rows of few of them (a TPC-C run leaves
every fio member as it was, a fio run the TPC-C ones), yet encoding them all again took 1.6 s of
CPU at 10,000 runs (fio_results.json 0.37 s, fct_device_capabilities.json 0.28 s, runs_list.json
0.15 s, tpcc_results.json 0.10 s, ...). So each member is kept in the pages loader's cache
beside the warehouse (``_device_pages.file_cache``: ``<warehouse>.site-pages/``) under a
fingerprint of everything its bytes are made of (:func:`fingerprint`), and a build whose
fingerprint is in the cache serves that file instead of encoding the rows again. Measured at
10,000 runs: the loader 1.9-2.3 CPU-s encoding every member (its device lines from the cache),
0.8 CPU-s with every member from the cache; the digests cost 2-8 ms a member that projects a
stored mart (fio_results.json 6 ms, fct_device_capabilities.json 6 ms) and for a computed one
its query (runs_list.json 30 ms instead of 0.16 s encoded, tpcc_series.json 54 ms, the view of
tpcc_quotients.json 55 ms: each ran once before, too).

What makes the bytes the same: the rows come out in a total order of their columns
(:class:`RowsQuery` ``order``, ``all`` by default: every column, left to right, the unique key
first where the member has one), so the same rows give the same bytes however the warehouse
stores them; the digest of the rows is order-independent (DuckDB's hash of each row, summed).
A query that computes its rows (aggregates, joins, a view) is run once into a temporary table,
and the digest and the bytes are both taken from that table: runs_list's headlines pick a job
by ``arg_max`` (ties go either way) and sum doubles (in parallel, the last bit may differ), so
running the query twice could digest one result and encode another. A plain projection of a
stored mart is digested where it lies (its rows are the table's): cheaper, and no copy.

DuckDB hashes -0.0 as 0.0: a value that only turns from 0.0 to -0.0 (or back) keeps its
fingerprint, so the member keeps the old sign (the page shows the same number).

Segments. A member whose rows grow with the archive (a row or more per run: fio_results.json,
7.2 MB at 10,000 runs) is written in segments when it has more than SEGMENT_ROWS rows: its rows
are cut into ranges of ``RowsQuery.segment_by`` (a run id) the way the marts' Parquet parts are
(_run_parquet.plan_digested: a key starts a range when its hash says so, so one more run changes the
range it sorts into and no other), each range encoded on its own and cached under a fingerprint
of its rows, and the member's bytes joined from them: each column is ``{"parts": [...]}``, one
encoded column (a list, or ``{"dict", "codes"}``) per segment, in key order
(src/components/data.js joins them). One more run encodes one segment again instead of the whole
member: fio_results.json took 0.29 s at 10,000 runs. The rows of a member with ``segment_by``
come out by that key first, segmented or not, so the same rows give the same order either way.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import _run_parquet as rp
import _sitedata as sd

# Bump when the way a member is encoded changes without a change to the code hashed below
# (the cache then writes every member again).
MEMBER_FORMAT_VERSION = 1
# The code that shapes a member's bytes (the payload's shape, the JSON encoding): a change to
# it changes every fingerprint, so the cache never serves bytes the current code would write
# differently.
_ENCODER_SOURCES = (Path(__file__), Path(sd.__file__))
_TEMP = "page_member_rows"
KIND = "page member"  # the cache's count of these files (PartCache.count)
SEGMENT_KIND = "page member segment"
# Rows per segment of a member with segment_by (about: ranges are cut by key hashes); a member
# of at most this many rows is written whole. ~2,000 rows: one segment of fio_results.json
# encodes in ~30 ms, and a member of 20,000 rows has ~10-20.
SEGMENT_ROWS = 2048


def segment_rows() -> int:
    """SEGMENT_ROWS, or $IOPSCOPE_PAGE_SEGMENT_ROWS (a test builds the small bundled site in
    segments with it: tests/browser/parts.test.mjs)."""
    return int(os.environ.get("IOPSCOPE_PAGE_SEGMENT_ROWS") or SEGMENT_ROWS)


@dataclass(frozen=True)
class RowsQuery:
    """A member's rows: ``select`` (SQL without ORDER BY) in the order ``order`` (an ORDER BY
    of its output columns that is a total order: ``all`` orders by every column, left to right).
    ``computed``: the rows are computed (aggregates, joins, a view), not a projection of a stored
    mart. ``columns``: the ``columns`` the payload states instead of the query's (a whole mart's
    payload states the catalog's, ``_sitedata.table_payload``)."""

    name: str
    select: str
    order: str = "all"
    computed: bool = False
    columns: tuple[tuple[str, str], ...] | None = None
    segment_by: str | None = None

    def relation(self) -> str:
        return f"({self.select})"

    def ordering(self, columns: list[str]) -> str:
        """The ORDER BY of the member's rows, whose output columns are ``columns``: ``order``,
        after ``segment_by`` (nulls last) when the member is cut by it."""
        if self.segment_by is None:
            return self.order
        order = ", ".join(sd.quote_ident(c) for c in columns) if self.order == "all" else self.order
        return f"{sd.quote_ident(self.segment_by)} asc nulls last, {order}"


def payload(con, query: RowsQuery, relation: str | None = None, where: str = "", params: list | None = None) -> dict:
    """The member's payload, encoded now from ``relation`` (default: the query itself); with
    ``where`` (and its ``params``), of those rows only (one segment)."""
    relation = relation or query.relation()
    order = query.order
    if query.segment_by is not None:
        order = query.ordering([d[0] for d in con.execute(f"select * from {relation} limit 0").description])
    out = sd.query_payload(con, query.name, f"select * from {relation}{where} order by {order}", params)
    if query.columns is not None:
        out["columns"] = [{"name": n, "type": t} for n, t in query.columns]
    return out


_encoder_code: str | None = None


def encoder_code() -> str:
    global _encoder_code
    if _encoder_code is None:
        _encoder_code = hashlib.sha256(b"".join(p.read_bytes() for p in _ENCODER_SOURCES)).hexdigest()
    return _encoder_code


def _shape(con, query: RowsQuery, member: str, relation: str) -> tuple[list, list[list[str]]]:
    """The facts of a fingerprint other than the rows (:func:`fingerprint`), and the columns'
    [name, type] as the query binds them."""
    import duckdb

    described = con.execute(f"select * from {relation} limit 0").description
    columns = [[d[0], str(d[1])] for d in described]
    return [MEMBER_FORMAT_VERSION, encoder_code(), duckdb.__version__, list(sys.version_info[:2]),
            member, query.name, query.select, query.order, query.segment_by, query.computed,
            [list(c) for c in query.columns] if query.columns is not None else None, columns], columns


def fingerprint(con, query: RowsQuery, member: str, relation: str) -> str:
    """What the member's bytes are made of: its name, the query (SQL, order, segment key,
    whether computed, the stated columns), the rows' count and digest (one scan of
    ``relation``: its rows, hashed by DuckDB and summed), the columns' names and types as the
    query binds them, the format version, the source of the code that encodes them, and the
    DuckDB and Python versions that produce the values."""
    shape, columns = _shape(con, query, member, relation)
    count, total = rp.row_digests(con, relation, [c for c, _ in columns]).get(0, (0, "0"))
    return rp.fingerprint_of([*shape, count, total])


def query_member(con, cache: rp.PartCache, file: str, query: RowsQuery | None, name: str):
    """(``file``, Path of its bytes in ``cache``): the last build's file when the fingerprint
    matches, else the rows encoded now and written there; (``file``, bytes of the missing
    payload ``name``) when ``query`` is None (its mart is not built)."""
    if con is None or query is None:
        return file, sd.json_bytes(sd.missing_payload(name))
    relation = query.relation()
    if query.computed:
        con.execute(f"create or replace temporary table {_TEMP} as {query.select}")
        relation = f"temp.{_TEMP}"
    try:
        if query.segment_by is not None:
            path = _segmented(con, cache, file, query, relation)
        else:
            path = cache.get_or_write(fingerprint(con, query, file, relation),
                                      lambda out: out.write_bytes(sd.json_bytes(payload(con, query, relation))),
                                      suffix=".json", kind=KIND, label=file)
    finally:
        if query.computed:
            con.execute(f"drop table if exists temp.{_TEMP}")
    return file, path


def _segmented(con, cache: rp.PartCache, file: str, query: RowsQuery, relation: str):
    """The Path of a member with ``segment_by`` in ``cache``: whole up to segment_rows() rows,
    else joined from its segments (module docstring), each from the cache while its rows are
    the same. One scan digests the rows of each key; a segment's digest is the sum of its keys'."""
    shape, columns = _shape(con, query, file, relation)
    planned = rp.plan_segments(con, file, relation, query.segment_by, [c for c, _ in columns], segment_rows())
    if len(planned) <= 1:
        count, total = (planned[0][1], planned[0][2]) if planned else (0, "0")
        return cache.get_or_write(rp.fingerprint_of([*shape, count, total]),
                                  lambda out: out.write_bytes(sd.json_bytes(payload(con, query, relation))),
                                  suffix=".json", kind=KIND, label=file)

    def write_segment(part: rp.Part, out: Path) -> None:
        where, params = rp._part_filter(query.segment_by, part)
        encoded = payload(con, query, relation, where, params)
        pieces = [sd.json_bytes(encoded["data"][c]) for c, _ in columns]
        out.write_bytes(sd.json_bytes([encoded["rows"], [len(p) for p in pieces]]) + b"\n" + b"".join(pieces))

    def join(paths: list[Path], out: Path) -> None:
        read = [_segment_columns(path) for path in paths]
        stated = query.columns if query.columns is not None else [(c, t) for c, t in columns]
        head = sd.json_bytes({"name": query.name, "exists": True, "rows": sum(n for n, _ in read),
                              "columns": [{"name": n, "type": t} for n, t in stated]})
        data = b",".join(sd.json_bytes(c) + b':{"parts":[' + b",".join(pieces[i] for _, pieces in read) + b"]}"
                         for i, (c, _) in enumerate(columns))
        out.write_bytes(head[:-1] + b',"data":{' + data + b"}}")

    return rp.joined_from_segments(cache, planned, shape, write_segment, join, suffix=".json", segment_suffix=".seg",
                                   kind=KIND, segment_kind=SEGMENT_KIND, label=file)


def _segment_columns(path: Path) -> tuple[int, list[bytes]]:
    """(rows, each column's encoded bytes) of a segment file: a JSON line [rows, [byte length of
    each column]], then the columns' JSON, one after the other."""
    data = path.read_bytes()
    line = data.index(b"\n")
    rows, lengths = json.loads(data[:line])
    pieces, at = [], line + 1
    for length in lengths:
        pieces.append(data[at:at + length])
        at += length
    return rows, pieces

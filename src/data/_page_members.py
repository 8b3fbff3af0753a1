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
"""

from __future__ import annotations

import hashlib
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

    def relation(self) -> str:
        return f"({self.select})"


def payload(con, query: RowsQuery, relation: str | None = None) -> dict:
    """The member's payload, encoded now from ``relation`` (default: the query itself)."""
    out = sd.query_payload(con, query.name, f"select * from {relation or query.relation()} order by {query.order}")
    if query.columns is not None:
        out["columns"] = [{"name": n, "type": t} for n, t in query.columns]
    return out


_encoder_code: str | None = None


def encoder_code() -> str:
    global _encoder_code
    if _encoder_code is None:
        _encoder_code = hashlib.sha256(b"".join(p.read_bytes() for p in _ENCODER_SOURCES)).hexdigest()
    return _encoder_code


def fingerprint(con, query: RowsQuery, member: str, relation: str) -> str:
    """What the member's bytes are made of: its name, the query (SQL, order, whether computed,
    the stated columns), the rows' count and digest (one scan of ``relation``: its rows, hashed
    by DuckDB and summed), the columns' names and types as the query binds them, the format
    version, the source of the code that encodes them, and the DuckDB and Python versions that
    produce the values."""
    import duckdb

    described = con.execute(f"select * from {relation} limit 0").description
    columns = [[d[0], str(d[1])] for d in described]
    count, total = rp.row_digests(con, relation, [c for c, _ in columns]).get(0, (0, "0"))
    return rp.fingerprint_of([MEMBER_FORMAT_VERSION, encoder_code(), duckdb.__version__, list(sys.version_info[:2]),
                              member, query.name, query.select, query.order, query.computed,
                              [list(c) for c in query.columns] if query.columns is not None else None,
                              columns, count, total])


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
        path = cache.get_or_write(fingerprint(con, query, file, relation),
                                  lambda out: out.write_bytes(sd.json_bytes(payload(con, query, relation))),
                                  suffix=".json", kind=KIND, label=file)
    finally:
        if query.computed:
            con.execute(f"drop table if exists temp.{_TEMP}")
    return file, path

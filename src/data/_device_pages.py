"""What /compare reads of the comparison marts, one device at a time (data/pages/<name>.jsonl).

The page shows, for the devices it compares, the condition quotients of each device and the sweep
summaries whose side A is one of them. Whole, those were 25 MB of JSON at 10,000 runs (the sweep
summaries 22 MB), fetched and parsed before the page's first chart; per device they are what the
page shows. Written by pages.zip.py, from the same functions here.

``<name>.json`` is the index: ``{"name", "exists", "pack", "pack_bytes", "devices": {device id:
[start, end]}}`` (``exists`` false while the mart is not built); ``<name>.jsonl`` the pack: one
line per device with rows, the column-oriented rows of that device (``_sitedata.query_payload``,
its columns those the page reads), in device order. The page fetches a device's line by an HTTP
range (``bytes=start-(end-1)``: src/components/device-pages.js). One file per device was 1,601
files at 10,000 runs, each a file Framework copies at every build (~1.2 ms each, ~2 s of a
site build) and a site ships; the pack is one.

A device's line is kept in a cache beside the warehouse (``<warehouse>.site-pages/``) under a
fingerprint of its rows and of the code that writes it (:func:`device_fingerprints`); a build
writes only the lines of devices whose rows changed (one more run: its device's), takes the rest
from the cache, and joins them into the pack (itself cached under the list of fingerprints). At
10,000 runs the device files were 3.7 s of the pages loader's ~10 s before they were cached.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

import _run_parquet as rp
import _sitedata as sd

# Load levels are left to the sweep summaries, which cover them level by level.
LOAD_LEVEL_CONDITIONS = ("connections", "buffer_pool", "outstanding_ios")
CONDITION_QUOTIENT_COLUMNS = (
    "device_id", "varied_condition", "metric", "higher_is_better", "condition_a", "condition_b", "shared_conditions",
    "study_id", "host_id", "quotient", "quotient_low", "quotient_high", "is_approx", "provenance",
)
SWEEP_SUMMARY_COLUMNS = (
    "sweep_variable", "comparison_family", "varied_condition", "study_id", "host_id", "device_a_id", "device_b_id",
    "side_a", "side_b", "metric", "higher_is_better", "fixed_conditions", "level_count", "min_level", "max_level",
    "quotient_min", "level_at_quotient_min", "quotient_max", "level_at_quotient_max", "quotient_geomean",
    "quotient_geomean_low", "quotient_geomean_high", "knee_level_a", "quotient_at_knee_a", "knee_level_b",
    "quotient_at_knee_b", "stop_level", "quotient_at_stop", "is_approx",
)


@dataclass(frozen=True)
class Split:
    mart: str
    device_column: str
    columns: tuple[str, ...]
    where: str = ""  # SQL condition on the mart's rows, besides the device


SPLITS = {
    "condition_quotients": Split("fct_condition_quotients", "device_id", CONDITION_QUOTIENT_COLUMNS,
                                 "varied_condition not in ({})".format(", ".join(f"'{c}'" for c in LOAD_LEVEL_CONDITIONS))),
    "sweep_summaries": Split("fct_sweep_quotient_summaries", "device_a_id", SWEEP_SUMMARY_COLUMNS),
}


# Above _sitedata.SITE_DB_MAX_ROWS device pairs, the sweep summaries' device pairs are left
# to the warehouse: /compare then shows the condition pairs and says where the device pairs are.
DEVICE_PAIRS_ONLY_WHEN_SUMMARISED = {"sweep_summaries": "comparison_family = 'condition'"}


def _usable(catalog: dict, split: Split) -> bool:
    return split.mart in catalog and sd.has_column(catalog, split.mart, split.device_column)


def _where(split: Split, extra: str = "") -> str:
    conditions = [f"{sd.quote_ident(split.device_column)} is not null"]
    conditions += [f"({c})" for c in (split.where, extra) if c]
    return " where " + " and ".join(conditions)


@dataclass(frozen=True)
class Rows:
    relation: str                # the mart, or a temporary table of a view's rows
    where: str                   # the split's rows in that relation
    device_pairs_left_out: bool  # DEVICE_PAIRS_ONLY_WHEN_SUMMARISED applied


def _rows(con, catalog: dict, name: str) -> Rows:
    """Where split ``name``'s rows are on ``con``. A mart that is a view
    (fct_sweep_quotient_summaries: device pairs summarised when asked) is computed once per
    connection, into a temporary table of the split's columns named for whether the device
    pairs were left out: the index, the fingerprints and the files each read it, and each would
    compute the view again."""
    split = SPLITS[name]
    mart = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(split.mart)}"
    view = sd.is_view(con, split.mart)

    def table(left_out: bool) -> str:
        return f"device_split_{name}" + ("_without_device_pairs" if left_out else "")

    if view:
        for left_out in (False, True):
            if _has_temp_table(con, table(left_out)):
                return Rows(f"temp.{table(left_out)}", "", left_out)
    left_out = name in DEVICE_PAIRS_ONLY_WHEN_SUMMARISED and not sd.device_pairs_at_most(con, sd.SITE_DB_MAX_ROWS)
    where = _where(split, DEVICE_PAIRS_ONLY_WHEN_SUMMARISED[name] if left_out else "")
    if not view:
        return Rows(mart, where, left_out)
    columns = ", ".join(sd.quote_ident(c) for c in _columns(catalog, split))
    con.execute(f"create temporary table {table(left_out)} as select {columns} from {mart}{where}")
    return Rows(f"temp.{table(left_out)}", "", left_out)


def _has_temp_table(con, table: str) -> bool:
    (count,) = con.execute("select count(*) from duckdb_tables() where temporary and table_name = ?", [table]).fetchone()
    return count > 0


def device_ids(con, catalog: dict, name: str) -> list[str]:
    """The devices with rows in split ``name``, sorted."""
    split = SPLITS[name]
    if con is None or not _usable(catalog, split):
        return []
    rows = _rows(con, catalog, name)
    return [d for (d,) in con.execute(f"select distinct {sd.quote_ident(split.device_column)} from {rows.relation}"
                                      f"{rows.where} order by 1").fetchall()]


def index_payload(con, catalog: dict, name: str) -> dict:
    """The index of split ``name`` without its devices' byte ranges (:func:`members` adds them)."""
    split = SPLITS[name]
    if con is None or not _usable(catalog, split):
        return {"name": name, "exists": False, "devices": {}}
    return {"name": name, "exists": True, "mart": split.mart, "device_column": split.device_column,
            "device_pairs_left_out": _rows(con, catalog, name).device_pairs_left_out,
            "pack": f"{name}.jsonl", "pack_bytes": 0, "devices": {}}


def _columns(catalog: dict, split: Split) -> list[str]:
    """The split's columns the mart has (a warehouse of an older build may lack some)."""
    return [c for c in split.columns if sd.has_column(catalog, split.mart, c)]


def device_payloads(con, catalog: dict, name: str, only: list[str] | None = None):
    """(device id, its file's payload) for every device of split ``name`` (or those in
    ``only``), in device order, from one scan of the mart: a query per device scanned the whole
    mart once per device (1,063 scans of two marts at 10,000 runs, most of the loader's time)."""
    split = SPLITS[name]
    device = sd.quote_ident(split.device_column)
    # (the device column is one of the split's columns: the page reads it too). Ordered by every
    # column after the device: the same warehouse gives the same bytes.
    present = _columns(catalog, split)
    columns = ", ".join(sd.quote_ident(c) for c in present)
    order = ", ".join([device] + [sd.quote_ident(c) for c in present if c != split.device_column])
    rows = _rows(con, catalog, name)
    where, params = rows.where, []
    if only is not None:
        where += f" {'and' if where else 'where'} list_contains(?, {device}::varchar)"
        params.append([str(d) for d in only])
    cur = con.execute(f"select {columns} from {rows.relation}{where} order by {order}", params)
    names = [d[0] for d in cur.description]
    types = [str(d[1]) for d in cur.description]
    at = names.index(split.device_column)
    for device_id, rows in itertools.groupby(cur.fetchall(), key=lambda row: row[at]):
        yield device_id, sd.rows_payload(name, names, types, list(rows))


# The code that shapes a device's file: a change to it changes every fingerprint, so the cache
# never serves a file the current code would write differently.
_WRITER_SOURCES = (Path(__file__), Path(sd.__file__))


def device_fingerprints(con, catalog: dict, name: str) -> dict:
    """{device id: fingerprint of its line}, for every device with rows: its rows (hashed by
    DuckDB and summed: the line's order is a total order of the same rows), their count, the
    columns and types, the split and the source of the code that writes the line. One scan of
    the mart for every device."""
    import duckdb

    split = SPLITS[name]
    present = _columns(catalog, split)
    types = {c["name"]: c["type"] for c in catalog[split.mart]["columns"]}
    rows = _rows(con, catalog, name)
    sums = rp.row_digests(con, rows.relation, present, group=sd.quote_ident(split.device_column), where=rows.where)
    code = hashlib.sha256(b"".join(p.read_bytes() for p in _WRITER_SOURCES)).hexdigest()
    shape = [code, duckdb.__version__, name, split.mart, split.where, [[c, types[c]] for c in present]]
    return {d: rp.fingerprint_of([*shape, d, n, total]) for d, (n, total) in sums.items()}


def file_cache() -> rp.PartCache:
    """The devices' lines and the packs of the last build, beside the warehouse (its own folder:
    the marts loader, running at the same time, keeps only its own files in the part cache)."""
    folder = os.environ.get("IOPSCOPE_SITE_PAGES_DIR") or sd.warehouse_path().with_name(
        sd.warehouse_path().name + ".site-pages")
    return rp.PartCache(Path(folder))


def pack_spans(sizes: list[int]) -> tuple[list[list[int]], int]:
    """The [start, end) byte range of each line of a pack whose lines (without their newline)
    are ``sizes`` bytes long, and the pack's length: each line ends with one newline.

    >>> pack_spans([3, 0, 5])
    ([[0, 3], [4, 4], [5, 10]], 11)
    """
    spans, at = [], 0
    for size in sizes:
        spans.append([at, at + size])
        at += size + 1
    return spans, at


def _join_lines(files: list[Path], out: Path) -> None:
    with open(out, "wb") as pack:
        for file in files:
            data = file.read_bytes()
            if b"\n" in data:  # compact JSON escapes newlines in strings: a raw one is a bug
                raise ValueError(f"{file}: a device payload holds a newline, it cannot be a line of the pack")
            pack.write(data + b"\n")


def members(con, catalog: dict, cache: rp.PartCache):
    """(member name under data/pages/, bytes or cached file): each split's index and its pack, the
    devices' lines written only for the devices whose fingerprint ``cache`` does not hold."""
    for name in SPLITS:
        index = index_payload(con, catalog, name)
        if not index["exists"]:
            # an empty pack all the same: the page names it (a FileAttachment of a missing file fails)
            yield f"{name}.json", sd.json_bytes(index)
            yield f"{name}.jsonl", b""
            continue
        devices = device_ids(con, catalog, name)
        fingerprints = device_fingerprints(con, catalog, name)
        missing = [d for d in devices if not cache.path(fingerprints[d], ".json").is_file()]
        # the missing devices' payloads, one at a time in device order: all of them at once
        # would hold every row of the mart in memory on a first build
        payloads = device_payloads(con, catalog, name, only=missing) if missing else iter(())

        def write(out, device_id, payloads=payloads):
            # skips the payload of a device whose line appeared meanwhile (another build's)
            payload_device, payload = next(payloads)
            while payload_device != device_id:
                payload_device, payload = next(payloads)
            out.write_bytes(sd.json_bytes(payload))

        lines = [cache.get_or_write(fingerprints[d], lambda out, d=d: write(out, d), suffix=".json", kind="device page")
                 for d in devices]
        spans, size = pack_spans([line.stat().st_size for line in lines])
        pack = cache.get_or_write(rp.fingerprint_of(["pack", name, [fingerprints[d] for d in devices]]),
                                  lambda out, lines=lines: _join_lines(lines, out), suffix=".jsonl", kind="device pack")
        index.update(pack_bytes=size, devices=dict(zip(devices, spans)))
        yield f"{name}.json", sd.json_bytes(index)
        yield index["pack"], pack

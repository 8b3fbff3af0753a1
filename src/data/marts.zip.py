# Data loader: the marts as files the site serves under data/marts/ (Framework extracts zip
# members on demand: data/marts.zip member x.parquet is data/marts/x.parquet). Pages read what
# they draw from data/pages/ (src/data/pages.zip.py), not from here: the whole-mart JSON this
# archive once held for them (6 s at 10,000 runs) was read by no page and shipped by no build.
#   <mart>.csv      CSV download (header row, UTF-8)        } every mart that exists (CSV only up
#                                                            } to sd.CSV_MAX_ROWS rows and
#                                                            } sd.CSV_MAX_VALUES values);
#   <mart>.parquet  Parquet download (zstd)                 } listed in dynamicPaths
# The marts a run page reads (those with a run_id, and the dimensions its rows name) are written
# sorted and row-grouped by that key, with a page index (src/data/_run_parquet.py): the run page
# fetches only its run's byte ranges of the very files the Data page offers, so the build writes
# no file per run.
#   run_marts.json  what the run page must know before it reads (src/data/_run_parquet.py
#                   run_marts_index): the marts it reads by key, their row counts and tool sets,
#                   and each file's layout (size, footer and page index offsets)
#   parts.json      the marts served in parts, for the Data page: {mart: {"key": the column they
#                   are cut by, "parts": [{"file", "first" key (null: from the first), "rows"}]}}
#   dynamic_paths.json  the site paths of the files above (/data/marts/<file>): what
#                   src/data/_paths.py would list, which a build then need not run (no page
#                   reads it; sitebuild/warehouse-paths.js)
# A big keyed mart is several files, data/marts/<mart>/part-<id>.parquet (_run_parquet.plan_parts),
# and every keyed file comes from the part cache beside the warehouse when its rows are those of
# the build that wrote it (_run_parquet.PartCache): one more run rewrites the parts it lands in.
# The whole-mart downloads come from the same cache when their rows did not change
# (src/data/_downloads.py): one more run rewrites the downloads of the marts it changed, and of a
# big CSV of a mart read by key only the segment holding the run.
# Members are streamed: a file is written by DuckDB into the part cache and copied into the
# archive in chunks, so memory does not grow with the largest mart.
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _downloads as downloads  # noqa: E402
import _run_parquet as rp  # noqa: E402
import _sitedata as sd  # noqa: E402

con = sd.connect()
catalog = sd.marts(con)


def keyed_parquet(name: str, key: str, target_rows: int | None, cache: rp.PartCache, with_layout: bool):
    """The keyed mart's Parquet file or parts, each from the part cache when its rows did not
    change since a build that wrote it; yields (member name, path) and returns the layouts
    (None unless ``with_layout``: only the marts the run page reads need them)."""
    planned = rp.planned_parts(con, catalog, name, key, target_rows)
    entries = []
    for part, fingerprint in planned:
        def write(out, part=part):
            rp.write_keyed_parquet(con, catalog, name, key, out, part=part if len(planned) > 1 else None)
        path = cache.get_or_write(fingerprint, write, label=part.file)
        entries.append({**part.listing(), "layout": cache.layout(path, key) if with_layout else None})
        yield part.file, path
    return entries[0]["layout"] if len(planned) == 1 else entries


def members():
    layouts = {}  # of the keyed Parquet files, for run_marts.json
    listed = {}   # of the marts in parts, for parts.json
    cache = rp.PartCache()
    for name in sorted(catalog):
        read_by_key = rp.key_of(catalog, name) is not None  # by the run page
        cut = rp.part_key_of(catalog, name)
        for fmt in sd.download_formats(con, name):  # huge marts: Parquet only
            if fmt == "parquet" and cut is not None:
                layout = yield from keyed_parquet(name, *cut, cache, with_layout=read_by_key)
                if read_by_key:
                    layouts[name] = layout
                if isinstance(layout, list):   # in parts (one file: its layout, or None)
                    listed[name] = {"key": cut[0], "parts": [{k: e[k] for k in ("file", "first", "rows")} for e in layout]}
                continue  # the cache keeps its files for the next build
            # a download whose rows did not change since the last build is that build's file
            yield f"{name}.{fmt}", downloads.download(con, catalog, name, fmt, cache)
    # What the run page reads first (src/components/run-bundle.js): written here, beside the very
    # files whose byte offsets it records, so the two always come from the same build.
    yield "run_marts.json", sd.json_bytes(rp.run_marts_index(con, catalog, layouts) if con is not None
                                          else {"marts": [], "dims": {}, "run_row_limit": sd.RUN_ROW_LIMIT})
    # The Data page's list of each mart's parts, from the plan these very files were written by
    # (catalog.json listed them from a plan of its own: the same scan of every keyed mart again,
    # 0.18 CPU-s of every site build at 10,000 runs)
    yield "parts.json", sd.json_bytes(listed)
    cache.keep_only_used()
    print("marts: {} Parquet files from the part cache, {} written ({})".format(*cache.count("part"), cache.folder), file=sys.stderr)
    print("marts: {} downloads from the part cache, {} written".format(*cache.count("download"))
          + ("; {} CSV segments from the cache, {} written".format(*cache.count(downloads.SEGMENT_KIND))
             if any(cache.count(downloads.SEGMENT_KIND)) else ""), file=sys.stderr)
    print(f"marts: {cache.describe_writes()}", file=sys.stderr)


def with_dynamic_paths(items):
    """The members, then dynamic_paths.json: the site path of each file member, as
    src/data/_paths.py lists them (the same marts, formats and parts)."""
    paths = []
    for name, data in items:
        if isinstance(data, Path):
            paths.append(f"/data/marts/{name}")
        yield name, data
    yield "dynamic_paths.json", sd.json_bytes(paths)


try:
    # every file is written into the part cache (no temporary folder); each member also goes
    # straight into Framework's cache: it would otherwise re-read the whole archive for every
    # member it copies (see write_zip_stream_cached)
    sd.write_zip_stream_cached(with_dynamic_paths(members()), __file__)
finally:
    if con is not None:
        con.close()

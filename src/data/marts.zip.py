# Data loader: the marts as files the site serves under data/marts/ (Framework extracts zip
# members on demand: data/marts.zip member x.json is data/marts/x.json):
#   <mart>.json     column-oriented JSON ({"exists", "columns", "data": {col: [...]}}), only for the
#                   marts a page reads whole (PAGE_MARTS: dimensions and per-result marts, whose
#                   size follows the number of results, not of samples). The per-sample marts
#                   (intervals, histograms, log, iostat and CPU samples) get none: the overview
#                   pages read aggregates (src/data/pages.zip.py) and a run's samples come from the
#                   Parquet files below, read by range. A page mart not built yet gets
#                   {"exists": false}, so pages explain the gap instead of failing the build
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
# Members are streamed: a CSV is written by DuckDB to a temporary file and copied into the
# archive in chunks, so memory does not grow with the largest mart.
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _run_parquet as rp  # noqa: E402
import _sitedata as sd  # noqa: E402

# The marts some page reads as data/marts/<mart>.json (grep FileAttachment in src/).
PAGE_MARTS = (
    "dim_runs", "dim_devices", "dim_hosts", "dim_db_configs", "dim_load_profiles",
    "fct_tpcc_results", "fct_published_io_results", "fct_device_capabilities", "fct_tpcc_sweep_knees",
)

con = sd.connect()
catalog = sd.marts(con)


def members(folder: Path):
    layouts = {}  # of the keyed Parquet files, for run_marts.json
    for name in sorted(set(PAGE_MARTS) | set(catalog)):
        if name in PAGE_MARTS:
            payload = sd.table_payload(con, name, catalog=catalog) if name in catalog else sd.missing_payload(name)
            yield f"{name}.json", sd.json_bytes(payload)
        if name in catalog:
            key = rp.key_of(catalog, name)
            for fmt in sd.download_formats(con, name):  # huge marts: Parquet only
                if fmt == "parquet" and key is not None:
                    path = rp.write_keyed_parquet(con, catalog, name, key, folder)
                    layouts[name] = rp.file_layout(path, key)
                else:
                    path = sd.mart_file_path(con, name, fmt, folder)
                yield f"{name}.{fmt}", path
                path.unlink()  # the archive holds it now
    # What the run page reads first (src/components/run-bundle.js): written here, beside the very
    # files whose byte offsets it records, so the two always come from the same build.
    yield "run_marts.json", sd.json_bytes(rp.run_marts_index(con, catalog, layouts) if con is not None
                                          else {"marts": [], "dims": {}, "run_row_limit": sd.RUN_ROW_LIMIT})


try:
    with tempfile.TemporaryDirectory(prefix="iopscope-site-") as tmp:
        # each member also goes straight into Framework's cache: it would otherwise re-read the
        # whole archive for every member it copies (see write_zip_stream_cached)
        sd.write_zip_stream_cached(members(Path(tmp)), __file__)
finally:
    if con is not None:
        con.close()

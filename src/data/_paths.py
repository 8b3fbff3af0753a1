"""Print the site's dynamic paths as JSON, for observablehq.config.js (``dynamicPaths``).

The per-mart downloads (``/data/marts/<mart>.csv|.parquet``, or a big keyed mart's parts
``/data/marts/<mart>/part-<id>.parquet``) exist for whatever marts the
warehouse holds at build time; the one run page (``/runs/run?id=<run id>``) reads its run's rows
from the Parquet files by range, so no path is listed per run. Framework cannot learn the files
from a data loader, so the config runs this script. No warehouse yet -> an empty list (the site
still builds). Any error -> a traceback and exit status 1, and the config fails the build (a
silent empty list would drop every mart's data).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _run_parquet as rp  # noqa: E402
import _sitedata as sd  # noqa: E402

con = sd.connect()
paths: list[str] = []
if con is not None:
    catalog = sd.marts(con)
    for name in catalog:
        for fmt in sd.download_formats(con, name):
            files = [p.file for p in rp.parquet_files(con, catalog, name)] if fmt == "parquet" else [f"{name}.{fmt}"]
            paths += [f"/data/marts/{file}" for file in files]
    con.close()
json.dump(paths, sys.stdout)

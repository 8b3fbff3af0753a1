"""Print the site's dynamic paths as JSON, for observablehq.config.js (``dynamicPaths``).

The per-mart downloads (``/data/marts/<mart>.csv|.parquet``) exist for whatever marts the
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
import _sitedata as sd  # noqa: E402

con = sd.connect()
paths: list[str] = []
if con is not None:
    catalog = sd.marts(con)
    for name in catalog:
        paths += [f"/data/marts/{name}.{fmt}" for fmt in sd.download_formats(con, name)]
    con.close()
json.dump(paths, sys.stdout)

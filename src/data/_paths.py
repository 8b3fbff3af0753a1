"""Print the site's dynamic paths as JSON, for observablehq.config.js (``dynamicPaths``).

Per-run data bundles (``/data/runs/<slug>.json``, read on demand by the one run page
``/runs/run?id=<run id>``) and the per-mart downloads exist for whatever the warehouse holds at
build time. Framework cannot learn them from a data loader, so the config runs this script. No
warehouse yet -> an empty list (the site still builds). Any error -> a traceback and exit status
1, and the config fails the build (a silent empty list would drop every run's data).
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
    paths += [f"/data/runs/{sd.run_slug(rid)}.json" for rid in sd.run_ids(con, catalog)]
    for name in catalog:
        paths += [f"/data/marts/{name}.{fmt}" for fmt in sd.download_formats(con, name)]
    con.close()
json.dump(paths, sys.stdout)

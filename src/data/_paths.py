"""Print the site's dynamic paths as JSON, for observablehq.config.js (``dynamicPaths``).

Run pages (``/runs/<slug>``) and their data bundles, and the per-mart CSV / Parquet downloads,
exist for whatever the warehouse holds at build time. Framework cannot learn them from a data
loader, so the config runs this script. No warehouse yet -> an empty list (the site still builds).
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
    for rid in sd.run_ids(con, catalog):
        slug = sd.run_slug(rid)
        paths += [f"/runs/{slug}", f"/data/runs/{slug}.json"]
    for name in catalog:
        paths += [f"/data/marts/{name}.csv", f"/data/marts/{name}.parquet"]
    con.close()
json.dump(paths, sys.stdout)

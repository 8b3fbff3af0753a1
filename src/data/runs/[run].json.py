# Data loader: everything the marts hold about one run (route parameter --run=<page slug>),
# for the run pages and for pages that fetch a run's time series on demand.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import _sitedata as sd  # noqa: E402

slug = sd.params()["run"]
con = sd.connect()
try:
    sd.write_json(sd.run_bundle(con, slug) if con is not None else {"slug": slug, "run_id": None, "tables": {}})
finally:
    if con is not None:
        con.close()

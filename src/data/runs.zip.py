# Data loader: one JSON per run (data/runs/<page slug>.json, a member of this archive):
# everything the marts hold about that run, for the run pages and for pages that fetch a run's
# time series on demand (fio histograms and logs).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

con = sd.connect()
try:
    catalog = sd.marts(con)
    ids = sd.run_ids(con, catalog)
    sd.write_zip_to_stdout((f"{sd.run_slug(rid)}.json", sd.json_bytes(sd.run_bundle(con, rid, catalog))) for rid in ids)
finally:
    if con is not None:
        con.close()

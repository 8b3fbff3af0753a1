# Data loader: one JSON per run (data/runs/<slug>.json, a member of this archive): everything the
# marts hold about that run, fetched on demand by the run page (/runs/run?id=<run id>) and by
# pages that show one run's time series (src/components/run-bundle.js).
#
# Cost at scale: bundles are built in batches of runs (_sitedata.run_bundles: each mart read once
# per batch, one batch in memory), the archive is streamed to stdout, and every member is also
# put in Framework's cache so the build copies it instead of re-reading the whole archive per
# member (_sitedata.write_zip_stream_cached).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402


def members(con):
    if con is None:
        return
    for rid, bundle in sd.run_bundles(con, sd.marts(con)):
        yield f"{sd.run_slug(rid)}.json", sd.json_bytes(bundle)


con = sd.connect()
try:
    sd.write_zip_stream_cached(members(con), __file__)
finally:
    if con is not None:
        con.close()

# Data loader: what the run page (src/components/run-bundle.js) must know before it reads a run's
# rows from the marts' Parquet files (data/marts/<mart>.parquet, written by marts.zip.py sorted by
# the key named here): the marts it reads by key and their row counts (a file whose footer says
# otherwise belongs to another build), the dimensions a run's rows point to, the per-mart row cap.
# A few KB whatever the number of runs.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _run_parquet as rp  # noqa: E402
import _sitedata as sd  # noqa: E402

con = sd.connect()
try:
    sd.write_json(rp.run_marts_index(con, sd.marts(con)) if con is not None
                  else {"marts": [], "dims": {}, "run_row_limit": sd.RUN_ROW_LIMIT})
finally:
    if con is not None:
        con.close()

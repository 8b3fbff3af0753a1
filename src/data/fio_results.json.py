# Data loader: marts.fct_fio_results as JSON (the site's only view of fio results).
import json
import os
import sys
from pathlib import Path

from iopscope.warehouse import mart_rows

warehouse = Path(os.environ.get("IOPSCOPE_WAREHOUSE", "data/warehouse/iopscope.duckdb"))
rows = mart_rows(warehouse, "marts.fct_fio_results")
json.dump(rows, sys.stdout, default=str, separators=(",", ":"))

# Data loader: the warehouse's marts as a standalone DuckDB file (Data page download; the SQL
# console loads the gzipped twin, warehouse.duckdb.gz). See _sitedata.write_site_database.
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

with tempfile.TemporaryDirectory(prefix="iopscope-site-") as tmp:
    out = Path(tmp) / "iopscope.duckdb"
    sd.write_site_database(out)
    sys.stdout.buffer.write(out.read_bytes())
    sys.stdout.flush()

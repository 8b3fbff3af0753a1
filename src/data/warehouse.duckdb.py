# Data loader: the warehouse's marts as a standalone DuckDB file (Data page download; the SQL
# console loads the gzipped twin, warehouse.duckdb.gz). Marts of more than
# _sitedata.SITE_DB_MAX_ROWS rows are left empty (the per-sample marts of a large warehouse; the
# Data page offers them as Parquet): see _sitedata.write_site_database_for_browser.
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

with tempfile.TemporaryDirectory(prefix="iopscope-site-") as tmp:
    out = Path(tmp) / "iopscope.duckdb"
    sd.write_site_database_for_browser(out)
    sys.stdout.buffer.write(out.read_bytes())
    sys.stdout.flush()

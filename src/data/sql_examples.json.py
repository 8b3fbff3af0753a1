# Data loader: the SQL page's example queries, read from docs/sql.md (each "## N. Title" section's
# first ```sql block), so the page offers exactly the queries the docs explain and
# tests/python/test_sql_docs.py runs against the bundled warehouse.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

doc = sd.project_root() / "docs" / "sql.md"
sd.write_json({"source": "docs/sql.md", "examples": sd.sql_examples(doc.read_text(encoding="utf-8")) if doc.exists() else []})

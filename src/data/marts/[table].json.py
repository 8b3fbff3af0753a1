# Data loader: one mart as column-oriented JSON ({"exists", "columns", "data": {col: [...]}}).
# Framework passes the route parameter as --table=<name>; a mart that is not built yet gives
# {"exists": false} so pages can say so instead of failing the build.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import _sitedata as sd  # noqa: E402

name = sd.params()["table"]
con = sd.connect()
try:
    sd.write_json(sd.table_payload(con, name) if con is not None else
                  {"name": name, "exists": False, "rows": 0, "columns": [], "data": {}})
finally:
    if con is not None:
        con.close()

# Data loader: every mart, as files the site serves under data/marts/ (Framework extracts zip
# members on demand: data/marts.zip member x.json is data/marts/x.json):
#   <mart>.json     column-oriented JSON for the pages ({"exists", "columns", "data": {col: [...]}});
#                   every mart the site knows gets one, {"exists": false} while it is not built,
#                   so pages explain the gap instead of failing the build
#   <mart>.csv      CSV download (header row, UTF-8)        } only for marts that exist;
#   <mart>.parquet  Parquet download (zstd)                 } listed in dynamicPaths
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sitedata as sd  # noqa: E402

con = sd.connect()
catalog = sd.marts(con)


def members():
    for name in sorted(set(sd.KNOWN_MARTS) | set(catalog)):
        if name in catalog:
            yield f"{name}.json", sd.json_bytes(sd.table_payload(con, name, catalog=catalog))
            yield f"{name}.csv", sd.mart_file(con, name, "csv")
            yield f"{name}.parquet", sd.mart_file(con, name, "parquet")
        else:
            yield f"{name}.json", sd.json_bytes({"name": name, "exists": False, "rows": 0, "columns": [], "data": {}})


try:
    sd.write_zip_to_stdout(members())
finally:
    if con is not None:
        con.close()

# Data loader: one mart as Parquet (zstd), for the Data page's downloads.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import _sitedata as sd  # noqa: E402

sd.copy_mart_to_stdout(sd.params()["table"], "parquet")

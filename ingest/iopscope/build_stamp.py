"""What a warehouse file was built from, in a file beside it: ``<warehouse>.build.json``.

    {"build_key":  hash of the dbt project and the parsers (pipeline.warehouse_build_key): another
                   key makes the next build a full one,
     "lake_key":   hash of the lake state the file was built from (pipeline.lake_content_key),
     "generation": id of the full build whose tables the file carries on: a full build draws a new
                   one, an incremental update keeps it (it only replaces the rows of new, changed
                   and vanished runs or devices),
     "file":       {"ino", "size", "mtime_ns"} of the file as the build committed it}

Example: {"build_key": "3f2a...", "lake_key": "9c1e...", "generation": "5b0c...",
"file": {"ino": 1835011, "size": 2936012800, "mtime_ns": 1764221054000000000}}

The site's loaders use the generation to fingerprint the per-sample marts' parts by their runs
instead of hashing every row (src/data/_run_parquet.py planned_parts), which is sound only
while the file is the one a build committed: :func:`committed_generation` checks its identity,
so a file written by anything else (plain dbt, `iopscope dbt`, a copy, the Spark build, which
removes the stamp) gets no generation and every row is hashed again.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

SUFFIX = ".build.json"


def path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + SUFFIX)


def read(warehouse: Path) -> dict:
    """The stamp, or {} when there is none or it cannot be read."""
    try:
        stamp = json.loads(path(warehouse).read_text())
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def new_generation() -> str:
    return uuid.uuid4().hex


def _identity(warehouse: Path) -> dict | None:
    """The file's identity, or None when it has a write-ahead log beside it (its state is then
    file and log together, and a reader may differ from what the build committed)."""
    if warehouse.with_name(warehouse.name + ".wal").exists():
        return None
    st = warehouse.stat()
    return {"ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def write(warehouse: Path, build_key: str, lake_key: str, generation: str) -> None:
    """Record what ``warehouse`` (just committed) was built from, atomically."""
    stamp = path(warehouse)
    tmp = stamp.with_name(stamp.name + ".tmp")
    tmp.write_text(json.dumps({"build_key": build_key, "lake_key": lake_key, "generation": generation,
                               "file": _identity(warehouse)}) + "\n")
    os.replace(tmp, stamp)


def committed_generation(warehouse: Path) -> str | None:
    """``<build key>/<generation>`` while ``warehouse`` is the very file its build committed,
    else None (no stamp, an old stamp without a generation, or a file changed since)."""
    stamp = read(warehouse)
    if not stamp.get("generation") or not stamp.get("build_key") or not stamp.get("file"):
        return None
    try:
        if _identity(warehouse) != stamp["file"]:
            return None
    except OSError:
        return None
    return f"{stamp['build_key']}/{stamp['generation']}"

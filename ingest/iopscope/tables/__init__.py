"""The lake's tables: every Parquet table iopscope writes, with its typed columns.

Each family of tables lives in its own module (``core``, ``fio``, ...), which defines
``TABLES = {table_name: Table(...)}``. Parsers emit plain dicts; :func:`iopscope.lake.conform`
casts them to these schemas, so the types of the lake are declared here and only here.

Every row also carries the provenance columns in :data:`PROVENANCE` (added by the ingest
layer, never by a parser) and the Hive partition column ``collection``.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field

# Column types understood by the lake writer (mapped to Arrow / Parquet in lake.py).
TYPES = ("string", "int64", "float64", "bool", "timestamp")


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    doc: str = ""

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"column {self.name}: unknown type {self.type!r}")


@dataclass(frozen=True)
class Table:
    name: str
    doc: str
    columns: tuple[Column, ...]
    # Provenance is off only for tables that describe the ingest itself.
    provenance: bool = True
    extra: dict = field(default_factory=dict)

    def all_columns(self) -> tuple[Column, ...]:
        return (PROVENANCE if self.provenance else ()) + self.columns


def cols(*specs: tuple[str, str] | tuple[str, str, str]) -> tuple[Column, ...]:
    """Shorthand: ``cols(("iops", "float64", "IO per second"), ...)``."""
    return tuple(Column(*s) for s in specs)


PROVENANCE = cols(
    ("run_id", "string", "Run the row belongs to: the manifest's run_id, else the run folder's path"),
    ("source_path", "string", "Raw file the row was read from, relative to the raw root"),
    ("source_sha256", "string", "SHA-256 of the raw file's bytes"),
    ("parser", "string", "Parser (format) name that read the file"),
    ("parser_version", "string", "Version of that parser"),
    ("tool_version", "string", "Version of the tool that wrote the file, when the file says it"),
)

PARTITION_COLUMN = "collection"


def _discover() -> dict[str, Table]:
    found: dict[str, Table] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, table in getattr(module, "TABLES", {}).items():
            if name in found:
                raise RuntimeError(f"table {name} is defined twice")
            found[name] = table
    return found


ALL: dict[str, Table] = _discover()


def get(name: str) -> Table:
    try:
        return ALL[name]
    except KeyError:
        raise KeyError(f"no lake table named {name!r}; known: {', '.join(sorted(ALL))}") from None

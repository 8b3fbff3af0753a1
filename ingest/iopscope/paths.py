"""Where things live. One place, so every command and test agrees.

The project root is ``$IOPSCOPE_HOME`` if set, else the nearest folder above the current
directory holding ``dbt_project.yml``, else the checkout this package was installed from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def project_root() -> Path:
    env = os.environ.get("IOPSCOPE_HOME")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "dbt_project.yml").is_file() and (folder / "ingest").is_dir():
            return folder
    return Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Paths:
    root: Path
    raw: Path
    lake: Path
    warehouse: Path
    dist: Path

    @classmethod
    def default(cls, root: Path | None = None) -> "Paths":
        root = root or project_root()
        return cls(
            root=root,
            raw=Path(os.environ.get("IOPSCOPE_RAW", root / "data" / "raw")),
            lake=Path(os.environ.get("IOPSCOPE_LAKE", root / "data" / "lake")),
            warehouse=Path(os.environ.get("IOPSCOPE_WAREHOUSE", root / "data" / "warehouse" / "iopscope.duckdb")),
            dist=root / "dist",
        )

    def env(self) -> dict[str, str]:
        """Environment for child processes (dbt, Framework's data loaders)."""
        return {
            "IOPSCOPE_HOME": str(self.root),
            "IOPSCOPE_RAW": str(self.raw),
            "IOPSCOPE_LAKE": str(self.lake),
            "IOPSCOPE_WAREHOUSE": str(self.warehouse),
        }

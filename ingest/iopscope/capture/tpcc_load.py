"""Loading TPC-C warehouses into a throwaway server before a sweep, with either kit.

go-tpc: ``go-tpc tpcc prepare --no-check -T <threads>`` (its consistency checks take minutes
even for one warehouse on a small machine; ``go-tpc tpcc check`` runs them on their own).
tpcc-mysql: ``create_table.sql`` and ``add_fkey_idx.sql`` from its source folder through the
server's client, then ``tpcc_load -h -P -d -u -w`` (next to ``tpcc_start``). The output of the
load is kept in the sweep folder (``load.out``) for reference.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from iopscope.capture.dbserver import ServerError, ThrowawayServer


def load_go_tpc(go_tpc: str, server: ThrowawayServer, db: str, warehouses: int, out: Path,
                threads: int = 2) -> float:
    """Create ``db`` and load it with go-tpc; seconds taken."""
    server.sql(f"CREATE DATABASE IF NOT EXISTS `{db}`")
    cmd = [go_tpc, "tpcc", "-H", server.host, "-P", str(server.port), "-U", "root", "-D", db,
           "--warehouses", str(warehouses), "prepare", "--no-check", "-T", str(threads)]
    return _run(cmd, out)


def load_tpcc_mysql(tpcc_start: str, source_dir: str | None, server: ThrowawayServer, db: str,
                    warehouses: int, out: Path) -> float:
    """Create ``db`` with tpcc-mysql's schema and load it with its ``tpcc_load``; seconds taken."""
    src = Path(source_dir) if source_dir else Path(tpcc_start).resolve().parent
    tpcc_load = src / "tpcc_load"
    if not tpcc_load.exists():
        tpcc_load = Path(tpcc_start).resolve().parent / "tpcc_load"
    schema = [src / name for name in ("create_table.sql", "add_fkey_idx.sql")]
    for path in [tpcc_load, *schema]:
        if not path.exists():
            raise ServerError(f"{path} not found: give --tpcc-mysql-dir, the tpcc-mysql folder with "
                              "create_table.sql, add_fkey_idx.sql and the built tpcc_load")
    started = time.monotonic()
    server.sql(f"CREATE DATABASE IF NOT EXISTS `{db}`")
    server.sql(schema[0].read_text(), database=db)
    _run([str(tpcc_load), "-h", server.host, "-P", str(server.port), "-d", db, "-u", "root", "-p", "",
          "-w", str(warehouses)], out)
    server.sql(schema[1].read_text(), database=db)
    return time.monotonic() - started


def _run(cmd: list[str], out: Path) -> float:
    started = time.monotonic()
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("$ " + " ".join(cmd) + "\n")
        handle.flush()
        proc = subprocess.run(cmd, stdout=handle, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        tail = out.read_text(errors="replace")[-1500:]
        raise ServerError(f"{cmd[0]} {' '.join(cmd[1:3])} ... exit {proc.returncode}: {tail}")
    return time.monotonic() - started

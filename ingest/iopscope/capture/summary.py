"""What a sweep shows people: its console, and the table of its steps on it and in ``sweep.md``.

The plans (``fio_plan.py``, ``tpcc.py``) choose the columns and build one row of text per step
from ``.sweep.json``; this module lays them out. ``sweep.md`` is for people only: ingest
ignores ``*.md``, and the numbers are in the run folders.

>>> fmt(1234.5678, 1), fmt(None), fmt(3)
('1,234.6', '-', '3')
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from iopscope.capture.sweep import SweepState, write_atomic

SUMMARY_FILE = "sweep.md"

Columns = list[tuple[str, str]]   # (title, key of the row dicts)


def fmt(value: Any, digits: int = 0) -> str:
    """A number for a table cell: thousands separated, ``digits`` decimals for floats, ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def console_for(stream=None) -> Console:
    """A console on ``stream`` (stderr by default): as wide as a terminal, 160 columns in a log."""
    stream = stream or sys.stderr
    wide = None if (hasattr(stream, "isatty") and stream.isatty()) or os.environ.get("COLUMNS") else 160
    return Console(file=stream, highlight=False, width=wide)


def summarize(console: Console, state: SweepState, rows: list[dict[str, str]], columns: Columns) -> None:
    """Write ``sweep.md`` into the sweep folder and print the same table on the console."""
    _write_markdown(state, rows, columns)
    _print_table(console, state, rows, columns)


def _print_table(console: Console, state: SweepState, rows: list[dict[str, str]], columns: Columns) -> None:
    table = Table(title=escape(f"sweep {state.data['sweep_id']}: {state.data.get('status')}"
                               + (f" ({state.data['ended_by']})" if state.data.get("ended_by") else "")))
    for title, _ in columns:
        table.add_column(title, justify="left" if title in ("profile", "status", "bs") else "right")
    for row in rows:
        table.add_row(*(escape(str(row.get(k, "-"))) for _, k in columns))
    console.print(table)
    console.print(f"run folders: {escape(str(state.folder))}")


def _write_markdown(state: SweepState, rows: list[dict[str, str]], columns: Columns) -> None:
    d = state.data
    lines = [f"# Sweep {d['sweep_id']}", "",
             f"Captured by {d.get('captured_by')}; status **{d.get('status')}**"
             + (f" ({d['ended_by']})" if d.get("ended_by") else "") + ".",
             "Each numbered folder is one run with its own `run.toml`; `.sweep.json` holds the plan "
             "and lets `iopscope capture ... --resume` continue the sweep. This file is a summary "
             "for people (ingest ignores `*.md`); the numbers come from the run folders.", "",
             "| " + " | ".join(t for t, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(row.get(k, "-") for _, k in columns) + " |")
    write_atomic(state.folder / SUMMARY_FILE, "\n".join(lines) + "\n")

"""How fast a parser reads a file: MB/s and lines/s of CPU time (best of N runs).

Usage::

    python bench/parsers_speed.py tpcc_mysql /tmp/tpcc.txt [more files] [-n 5] [--profile]

The parser is named as in ``iopscope.parsers.PARSERS`` (``fio_text``, ``tpcc_mysql`` ...).
Each file is read once (UTF-8, errors replaced, as ingest does), then ``parse(text)`` runs N
times; the time is ``time.process_time`` (CPU time of this process, so a busy machine slows
the wall clock but not the figure much) and the best run is reported. MB = 10^6 bytes of the
file as read. ``--profile`` prints the cProfile top 25 (by total time) of one more run.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingest"))

from iopscope import parsers  # noqa: E402


def measure(parse, text: str, runs: int) -> float:
    """Best CPU seconds of ``runs`` calls of ``parse(text)`` (garbage collector on, as in ingest)."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        parse(text)
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parser", help="parser NAME, e.g. tpcc_mysql")
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("-n", "--runs", type=int, default=5, help="runs per file; the best counts (default 5)")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of one more run")
    args = ap.parse_args(argv)
    module = parsers.PARSERS.get(args.parser)
    if module is None:
        ap.error(f"unknown parser {args.parser!r}; known: {', '.join(sorted(parsers.PARSERS))}")
    print(f"{'file':40} {'MB':>7} {'lines':>9} {'CPU s':>8} {'MB/s':>7} {'klines/s':>9}")
    for path in args.files:
        text = path.read_text(encoding="utf-8", errors="replace")
        size_mb = len(text.encode("utf-8")) / 1e6
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        cpu = measure(module.parse, text, max(1, args.runs))
        rate = size_mb / cpu if cpu > 0 else float("inf")
        lrate = lines / cpu / 1e3 if cpu > 0 else float("inf")
        print(f"{path.name[:40]:40} {size_mb:7.2f} {lines:9d} {cpu:8.3f} {rate:7.1f} {lrate:9.0f}")
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(module.parse, text)
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

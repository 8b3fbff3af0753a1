"""Child-process probes of the benchmark: each runs ONE measured task and prints one JSON line.

``bench/run.py`` starts every probe as its own process so that its peak memory (``ru_maxrss``
from ``wait4``) and CPU time belong to that task alone. Probes:

``ingest RAW LAKE``        an instrumented in-process ``Ingestor(RAW, LAKE).run()``: wall and
                           CPU seconds per step (discovery, hashing, reading, detection, parsing
                           per format, manifest, conform, redaction, Parquet parts, pack
                           writing, compaction, state load/save).
``parse FILE [--runs N]``  read + detect + parse one file (best of N, CPU time), its records per
                           table; with ``--equiv DIR`` also writes the parsed records as CSV
                           (text formats) or NDJSON (JSON formats) per table: the "equivalent
                           file" DuckDB reads as the reference.
``duckdb KIND OUT FILE...`` DuckDB ``read_csv`` / ``read_json`` of the files (``@LIST``: the paths
                           listed in LIST, one per line), written to
                           Parquet (zstd) as our ingest does; ``--threads`` as DuckDB's setting.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/run.py puts its snapshot of the package first on PYTHONPATH; run alone, the checkout's.
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT / "ingest"))


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def probe_ingest(raw: Path, lake: Path) -> dict:
    import iopscope.ingest as ing
    import iopscope.lake as lake_mod
    from iopscope import compaction, packs, parsers

    steps: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    active: list[str] = []

    def wrap(owner, name, label):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            key = label(args, kwargs) if callable(label) else label
            active.append(key)
            w0, c0 = _clock()
            try:
                return original(*args, **kwargs)
            finally:
                w1, c1 = _clock()
                active.pop()
                s = steps[key]
                s[0] += w1 - w0
                s[1] += c1 - c0
                s[2] += 1
                for outer in active[-1:]:     # remove the inner time from the enclosing step
                    steps[outer][0] -= w1 - w0
                    steps[outer][1] -= c1 - c0

        setattr(owner, name, timed)

    wrap(ing, "discover_runs", "discover")
    wrap(ing, "sha256_file", "hash")
    wrap(ing, "read_text", "read")
    wrap(ing, "read_manifest", "manifest")
    wrap(parsers, "detect", "detect")
    for module in parsers.PARSERS.values():
        wrap(module, "parse", f"parse:{module.NAME}")
    wrap(lake_mod, "conform", "conform")
    wrap(lake_mod, "_atomic_write", "parquet_write")
    # rows into pack files (an ingest of many runs, compaction.IngestPacks, and compaction
    # itself), and compaction's own reading of parts and removing files around them
    wrap(packs.PackWriter, "add", "pack_write")
    wrap(packs.PackWriter, "commit", "pack_write")
    wrap(compaction, "finish", "compaction")
    wrap(ing, "mask_table", "redact")
    wrap(lake_mod.Lake, "save_state", "state_save")
    wrap(lake_mod.Lake, "record_run", "state_record")   # one journal line per ingested run
    wrap(lake_mod.Lake, "load_state", "state_load")
    wrap(lake_mod.Lake, "ensure_schemas", "schemas")
    w0, c0 = _clock()
    report = ing.Ingestor(raw, lake).run()
    w1, c1 = _clock()
    accounted_w = sum(s[0] for s in steps.values())
    accounted_c = sum(s[1] for s in steps.values())
    steps["other"] = [w1 - w0 - accounted_w, c1 - c0 - accounted_c, 0]
    return {
        "wall_s": w1 - w0, "cpu_s": c1 - c0,
        "runs_seen": report.runs_seen, "runs_ingested": report.runs_ingested,
        "runs_unchanged": report.runs_unchanged, "files_parsed": report.files_parsed,
        "bytes_parsed": report.bytes_parsed, "rows_written": report.rows_written,
        "errors": len(report.errors), "warnings": len(report.warnings),
        "first_errors": [str(e) for e in report.errors[:5]],
        "first_warnings": [str(e) for e in report.warnings[:5]],
        "steps": {k: {"wall_s": round(v[0], 4), "cpu_s": round(v[1], 4), "calls": v[2]}
                  for k, v in sorted(steps.items(), key=lambda kv: -kv[1][1])},
    }


def probe_parse(path: Path, runs: int, equiv: Path | None) -> dict:
    from iopscope import parsers
    from iopscope.ingest import read_text

    size = path.stat().st_size
    best = None
    for _ in range(max(1, runs)):
        gc.collect()
        w0, c0 = _clock()
        text, _ = read_text(path)
        module, _score = parsers.detect(text[: parsers.HEAD_BYTES], path.name)
        result = module.parse(text, filename=path.name)
        w1, c1 = _clock()
        if best is None or c1 - c0 < best[1]:
            best = (w1 - w0, c1 - c0)
    records = {t: len(rows) for t, rows in result.tables.items()}
    out = {"file": str(path), "bytes": size, "format": module.NAME, "wall_s": best[0], "cpu_s": best[1],
           "records": sum(records.values()), "records_by_table": records,
           "errors": sum(1 for i in result.issues if i.severity == "error"),
           "warnings": sum(1 for i in result.issues if i.severity != "error")}
    if equiv is not None:
        out["equiv"] = write_equivalent(result, equiv, json_format=module.NAME.endswith("_json"))
    return out


def write_equivalent(result, folder: Path, json_format: bool) -> list[dict]:
    """The parser's records, typed as the lake types them, as CSV or NDJSON (one file per table)."""
    import pyarrow.csv as pacsv

    from iopscope import tables
    from iopscope.lake import conform

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rows in sorted(result.tables.items()):
        if not rows:
            continue
        table = conform(tables.get(name), rows)
        # provenance columns are added by ingest, not read from the file: leave them out
        keep = [c for c in table.column_names if c not in {p.name for p in tables.PROVENANCE}]
        table = table.select(keep)
        if json_format:
            path = folder / f"{name}.ndjson"
            with open(path, "w", encoding="utf-8") as fh:
                for row in table.to_pylist():
                    fh.write(json.dumps(row, default=str, separators=(",", ":")) + "\n")
        else:
            path = folder / f"{name}.csv"
            pacsv.write_csv(table, path)
        written.append({"table": name, "path": str(path), "rows": table.num_rows, "bytes": path.stat().st_size})
    return written


def probe_duckdb(kind: str, out: Path, files: list[str], threads: int, header: bool) -> dict:
    import duckdb

    con = duckdb.connect(config={"threads": threads})
    total_rows = 0
    w0, c0 = _clock()
    for i, f in enumerate(files):
        target = out / f"duck-{i}.parquet"
        if kind == "csv":
            source = f"read_csv('{f}', header = {str(header).lower()})"
        else:
            source = f"read_json('{f}', format = 'newline_delimited')"
        con.execute(f"COPY (SELECT * FROM {source}) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
        total_rows += con.execute(f"SELECT count(*) FROM read_parquet('{target}')").fetchone()[0]
    w1, c1 = _clock()
    return {"kind": kind, "threads": threads, "files": len(files), "rows": total_rows,
            "bytes": sum(os.path.getsize(f) for f in files), "wall_s": w1 - w0, "cpu_s": c1 - c0}


def main(argv: list[str] | None = None) -> int:
    # @FILE stands for the arguments listed in FILE, one per line: 10,000 paths exceed the
    # kernel's limit on a command line.
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], fromfile_prefix_chars="@")
    sub = ap.add_subparsers(dest="probe", required=True)
    p = sub.add_parser("ingest")
    p.add_argument("raw", type=Path)
    p.add_argument("lake", type=Path)
    p = sub.add_parser("parse")
    p.add_argument("file", type=Path)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--equiv", type=Path)
    p = sub.add_parser("duckdb")
    p.add_argument("kind", choices=("csv", "json"))
    p.add_argument("out", type=Path)
    p.add_argument("files", nargs="+")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-header", action="store_true")
    args = ap.parse_args(argv)
    if args.probe == "ingest":
        result = probe_ingest(args.raw, args.lake)
    elif args.probe == "parse":
        result = probe_parse(args.file, args.runs, args.equiv)
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        result = probe_duckdb(args.kind, args.out, args.files, args.threads, not args.no_header)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

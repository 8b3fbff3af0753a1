"""``iopscope bench``: the synthetic data generator and the benchmark (``bench/run.py``).

    iopscope bench synth --runs 1000 --out /tmp/iopscope-bench/raw-1000
    iopscope bench synth --runs 100000 --length 0.1 --out /tmp/iopscope-bench/raw-100000@0.1
    iopscope bench run --scales 1x,100,1000        # = python bench/run.py ...
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("bench", help="synthetic scale data and the performance benchmark (docs/performance.md)")
    bench = p.add_subparsers(dest="bench_command", required=True)

    s = bench.add_parser("synth", help="write N SYNTHETIC runs (tagged synthetic) into a separate raw tree")
    s.add_argument("--runs", type=int, required=True, help="how many runs")
    s.add_argument("--out", required=True, help="raw root to write (never data/raw)")
    s.add_argument("--seed", type=int, default=1, help="same seed = same runs (default 1)")
    s.add_argument("--start", type=int, default=0, help="write runs START..RUNS-1 only (add to a tree)")
    s.add_argument("--no-bundled", action="store_true", help="do not copy data/raw's collections beside them")
    s.add_argument("--workers", type=int, default=1, help="processes writing in parallel")
    s.add_argument("--length", type=float, default=1.0,
                   help="shorten every run's measured time by this factor in (0, 1] (many runs in few bytes; "
                        "tagged length-<factor>)")
    s.set_defaults(func=cmd_synth)

    r = bench.add_parser("run", help="run bench/run.py (all its options follow, e.g. --scales 1x,100 --smoke)")
    r.add_argument("bench_args", nargs=argparse.REMAINDER)
    r.set_defaults(func=cmd_run)


def _inside(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False


def cmd_synth(args) -> int:
    from rich.progress import Progress

    from iopscope.paths import Paths
    from iopscope.synth.generate import generate

    if not 0 < args.length <= 1:
        print(f"--length must be in (0, 1] (a factor that shortens each run), not {args.length}", file=sys.stderr)
        return 2
    paths = Paths.default()
    out = Path(args.out)
    for protected in {paths.raw, paths.root / "data" / "raw"}:
        if _inside(out, protected) or _inside(protected, out):
            print(f"refusing to write synthetic runs into or around {protected}: choose a separate folder "
                  "(and point IOPSCOPE_RAW or --raw at it)", file=sys.stderr)
            return 2
    with Progress(transient=True) as progress:
        task = progress.add_task("synth", total=args.runs - args.start)
        report = generate(out, args.runs, args.seed, start=args.start,
                          bundled=None if args.no_bundled else paths.root / "data" / "raw",
                          workers=args.workers, length=args.length,
                          on_progress=lambda done, total: progress.update(task, completed=done))
    print(f"{report.runs} synthetic runs ({', '.join(f'{k} {v}' for k, v in sorted(report.kinds.items()))}), "
          f"{report.bytes / 1e6:.1f} MB in {out}/synthetic; devices: "
          + ", ".join(f"{k} {v}" for k, v in sorted(report.devices.items())))
    return 0


def cmd_run(args) -> int:
    from iopscope.paths import project_root

    script = project_root() / "bench" / "run.py"
    if not script.exists():
        print(f"{script} not found: the benchmark lives in the source checkout", file=sys.stderr)
        return 2
    extra = [a for a in args.bench_args if a != "--"]
    return subprocess.call([sys.executable, str(script), *extra])

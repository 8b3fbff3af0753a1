"""One large synthetic DiskSpd text report (the default output), for the benchmark.

A DiskSpd report grows with its threads: each adds a row to the Total, Read and Write IO
tables. This writes one time span with as many threads as the size asks, each on its own
target, in the layout of ``tests/fixtures/diskspd`` (2.1, ``-L``). Synthetic: never goes
into data/raw.

>>> from iopscope.parsers import diskspd_text
>>> name, text = big_file(30000)
>>> r = diskspd_text.parse(text)
>>> name, [i.reason for i in r.issues], r.status, r.tables["fio_jobs"][0]["numjobs"] > 10
('synth_diskspd.txt', ['several targets: the profile columns describe the first'], 'complete', True)
"""

from __future__ import annotations

import random

SECONDS = 60.0
BLOCK = 8192
_RULE = "-" * 101


def _row(thread: int, ios: int, lat: float) -> str:
    nbytes = ios * BLOCK
    return (f"{thread:6d} | {nbytes:15d} | {ios:12d} | {nbytes / 2 ** 20 / SECONDS:10.2f} | {ios / SECONDS:10.2f}"
            f" | {lat:8.3f} |  {lat / 3:8.3f} | #{thread + 1} (10GiB)")


def _table(title: str, rows: list[tuple[int, int, float]]) -> list[str]:
    ios = sum(r[1] for r in rows)
    mean = sum(r[1] * r[2] for r in rows) / ios if ios else 0.0
    return (["", title, "thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  "
             "| LatStdDev |  file", _RULE] + [_row(*r) for r in rows] + [_RULE,
            f"total:   {ios * BLOCK:15d} | {ios:12d} | {ios * BLOCK / 2 ** 20 / SECONDS:10.2f} | "
            f"{ios / SECONDS:10.2f} | {mean:8.3f} |  {mean / 3:8.3f}"])


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of a DiskSpd text report about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/diskspd_text")
    reads: list[tuple[int, int, float]] = []
    writes: list[tuple[int, int, float]] = []
    size = 0
    while size < target_bytes - 3000:
        thread = len(reads)
        reads.append((thread, rng.randint(90000, 110000), rng.uniform(0.5, 1.5)))
        writes.append((thread, rng.randint(35000, 45000), rng.uniform(0.8, 2.0)))
        size += 3 * 120 + 150         # a row in each IO table and a target in the input parameters
    totals = [(r[0], r[1] + w[1], (r[1] * r[2] + w[1] * w[2]) / (r[1] + w[1])) for r, w in zip(reads, writes)]
    head = ["", "Command Line: diskspd.exe -b8K -r -w30 -t1 -o8 -d60 -Sh -L", "", "Input parameters:", "",
            "\ttimespan:   1", "\t-------------", "\tduration: 60s", "\tmeasuring latency"]
    for thread, *_ in reads:
        head += [f"\tpath: '#{thread + 1}'", "\t\tsoftware cache disabled",
                 "\t\tperforming mix test (read/write ratio: 70/30)", "\t\tblock size: 8KiB",
                 "\t\tusing random I/O (alignment: 8KiB)", "\t\tnumber of outstanding I/O operations per thread: 8"]
    head += ["", "System information:", "", "\tcomputer name: synth-host", "", "", "Results for timespan 1:",
             "*" * 79, "", f"actual test time:\t{SECONDS:.2f}s", f"thread count:\t\t{len(reads)}"]
    body = _table("Total IO", totals) + _table("Read IO", reads) + _table("Write IO", writes)
    return "synth_diskspd.txt", "\n".join(head + body) + "\n"

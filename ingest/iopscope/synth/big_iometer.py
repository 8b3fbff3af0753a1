"""One long synthetic Iometer results CSV (1.1.0 layout), for the benchmark.

Iometer writes one block per test; a long file is a long queue-depth and access-specification
cycle. Each test here has an ALL row, one manager, eight CPUs, four workers and their disks,
with the column header of ``tests/fixtures/iometer/iometer-1.1.0`` (generated there, not
copied from elsewhere). Synthetic: such files never go into data/raw.

>>> from iopscope.parsers import iometer
>>> name, text = big_file(30000)
>>> r = iometer.parse(text)
>>> name, r.issues, r.status, r.facts["iometer_tests"] > 3
('synth_iometer_results.csv', [], 'complete', True)
"""

from __future__ import annotations

import random
HEADER = ("Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,"
          "Write IOps,MBps (Binary),Read MBps (Binary),Write MBps (Binary),MBps (Decimal),Read MBps (Decimal),"
          "Write MBps (Decimal),Average Response Time,Average Read Response Time,Average Write Response Time,"
          "Maximum Response Time,Maximum Read Response Time,Maximum Write Response Time,Errors,Read Errors,"
          "Write Errors,Bytes Read,Bytes Written,Read I/Os,Write I/Os,Queue Depth,% CPU Utilization,% User Time,"
          "% Privileged Time,% DPC Time,% Interrupt Time")


def _row(level: str, name: str, spec: str, counts: tuple, r_iops: float, w_iops: float, size: int,
         lat: float, qd: int, cpu: tuple) -> str:
    rb, wb = r_iops * size, w_iops * size
    values = [level, name, spec, *counts, r_iops + w_iops, r_iops, w_iops, (rb + wb) / 2 ** 20, rb / 2 ** 20,
              wb / 2 ** 20, (rb + wb) / 1e6, rb / 1e6, wb / 1e6, lat, lat * 0.95, lat * 1.1, lat * 20, lat * 19,
              lat * 20, 0, 0, 0, int(rb * 60), int(wb * 60), int(r_iops * 60), int(w_iops * 60), qd, *cpu]
    return ",".join("" if v is None else (f"{v:.6f}" if isinstance(v, float) else str(v)) for v in values)


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of an Iometer results file about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/iometer")
    parts, size, test = [], 0, 0
    while size < target_bytes:
        qd = 2 ** (test % 8)
        block_size, reads = rng.choice(((4096, 100), (8192, 67), (65536, 0), (131072, 100)))
        spec = f"{block_size // 1024}K; {reads}% Read; 100% random"
        iops = 200000.0 / (1 + 64 / qd) * (4096 / block_size) ** 0.5
        r_iops, w_iops = iops * reads / 100, iops * (100 - reads) / 100
        cpu = (rng.uniform(10, 60), rng.uniform(1, 8), rng.uniform(8, 50), rng.uniform(1, 9), rng.uniform(1, 9))
        lines = ["'Test Type,Test Description", f"0,synthetic {test}", "'Version", "1.1.0", "'Time Stamp",
                 f"2026-11-26 10:{test // 60 % 60:02d}:{test % 60:02d}:000", "'Access specifications",
                 "'Access specification name,default assignment", f"{spec},NONE",
                 "'size,% of size,% reads,% random,delay,burst,align,reply",
                 f"{block_size},100,{reads},100,0,1,{block_size},0", "'End access specifications", "'Results",
                 "'" + HEADER,
                 _row("ALL", "All", spec, (1, 4, 4), r_iops, w_iops, block_size, 64 / iops * 1000, qd, cpu),
                 _row("MANAGER", "synth-host", spec, (1, 4, 4), r_iops, w_iops, block_size, 64 / iops * 1000, qd, cpu)]
        for cpu_no in range(8):
            lines.append(_row("PROCESSOR", f"CPU {cpu_no}", "", ("", "", ""), 0.0, 0.0, block_size, 0.0, qd, cpu))
        for worker in range(1, 5):
            for level, name in (("WORKER", f"Worker {worker}"), ("DISK", f"PHYSICALDRIVE:{worker}")):
                lines.append(_row(level, name, spec, ("", "", 1), r_iops / 4, w_iops / 4, block_size,
                                  64 / iops * 1000, qd, ("", "", "", "", "")))
        lines += ["'Time Stamp", "2026-11-26 10:00:00:000", "'End Test"]
        block = "\n".join(lines) + "\n"
        parts.append(block)
        size += len(block)
        test += 1
    return "synth_iometer_results.csv", "".join(parts)

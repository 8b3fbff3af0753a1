"""One long synthetic sysbench 1.0.20 OLTP run (``--report-interval=1``), for the benchmark.

A sysbench output grows with its interval reports (and a ``--histogram`` of at most a few
hundred lines): this writes a long run's reports in the layout of
``tests/fixtures/sysbench/sysbench-1.0.20/oltp_read_write_4threads_20s_histogram.txt`` (a real
capture), then the final statistics. Synthetic: such files never go into data/raw.

>>> from iopscope.parsers import sysbench
>>> name, text = big_file(20000)
>>> r = sysbench.parse(text)
>>> name, r.issues, r.status, len(r.tables["sysbench_intervals"]) > 100
('synth_sysbench_oltp.txt', [], 'complete', True)
"""

from __future__ import annotations

import random


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of a sysbench OLTP run about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/sysbench")
    head = ("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nRunning the test with following options:\n"
            "Number of threads: 16\nReport intermediate results every 1 second(s)\n"
            "Initializing random number generator from current time\n\n\nInitializing worker threads...\n\n"
            "Threads started!\n\n")
    lines, size, second, transactions = [head], len(head), 0, 0
    while size < target_bytes - 1500:
        second += 1
        tps = rng.uniform(800, 1200)
        transactions += int(tps)
        line = (f"[ {second}s ] thds: 16 tps: {tps:.2f} qps: {tps * 20:.2f} (r/w/o: {tps * 14:.2f}/{tps * 4:.2f}/"
                f"{tps * 2:.2f}) lat (ms,95%): {rng.uniform(20, 40):.2f} err/s: 0.00 reconn/s: 0.00\n")
        lines.append(line)
        size += len(line)
    lines.append(
        f"SQL statistics:\n    queries performed:\n        read:                            {transactions * 14}\n"
        f"        write:                           {transactions * 4}\n"
        f"        other:                           {transactions * 2}\n"
        f"        total:                           {transactions * 20}\n"
        f"    transactions:                        {transactions}   ({transactions / second:.2f} per sec.)\n"
        f"    queries:                             {transactions * 20}  ({transactions * 20 / second:.2f} per sec.)\n"
        "    ignored errors:                      0      (0.00 per sec.)\n"
        "    reconnects:                          0      (0.00 per sec.)\n\nGeneral statistics:\n"
        f"    total time:                          {second + 0.01:.4f}s\n"
        f"    total number of events:              {transactions}\n\nLatency (ms):\n"
        "         min:                                    1.05\n         avg:                                   16.10\n"
        "         max:                                  437.77\n         95th percentile:                       31.94\n"
        f"         sum:                                {transactions * 16.1:.2f}\n\nThreads fairness:\n"
        f"    events (avg/stddev):           {transactions / 16:.4f}/42.74\n"
        f"    execution time (avg/stddev):   {second:.4f}/0.00\n\n")
    return "synth_sysbench_oltp.txt", "".join(lines)

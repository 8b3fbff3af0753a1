"""One long synthetic HammerDB time profile report (``hdbxtprofile.log``), for the benchmark.

A HammerDB run log is a few dozen lines whatever the load; the file that grows is the xtprof
report, one block of five procedures per virtual user, then the summary over all of them. This
writes that report for as many virtual users as the size asks, in the layout of
``tests/fixtures/hammerdb/hammerdb-4.6/hdbxtprofile.log`` (tab-separated fields, ms with three
decimals). Synthetic: such files never go into data/raw.

>>> from iopscope.parsers import hammerdb
>>> name, text = big_file(20000)
>>> r = hammerdb.parse(text)
>>> name, r.issues, r.status, len(r.tables["tpcc_tx_summaries"]), r.facts["hammerdb_profiled_users"] > 20
('synth_hdbxtprofile.log', [], 'complete', 5, True)
"""

from __future__ import annotations

import random

RULE = "+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+\n"
# procedure, share of calls, mean ms
PROCS = (("NEWORD", 0.45, 12.0), ("PAYMENT", 0.43, 7.5), ("DELIVERY", 0.04, 38.0), ("SLEV", 0.04, 10.0),
         ("OSTAT", 0.04, 3.0))


def _block(rng: random.Random, name: str, calls: int, mean: float, elapsed_ms: float) -> str:
    avg = mean * rng.uniform(0.9, 1.1)
    total = avg * calls
    return (f">>>>> PROC: {name}\n"
            f"CALLS: {calls}\tMIN: {avg * 0.07:.3f}ms\tAVG: {avg:.3f}ms\tMAX: {avg * 27:.3f}ms\tTOTAL: {total:.3f}ms\n"
            f"P99: {avg * 4.3:.3f}ms\tP95: {avg * 2.8:.3f}ms\tP50: {avg * 0.68:.3f}ms\tSD: {avg * 1350:.3f}\t"
            f"RATIO: {total / elapsed_ms * 100:.3f}%\n")


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of an xtprof report about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/hammerdb")
    parts = ["MariaDB Hammerdb Time Profile Report @ Thu Nov 26 12:00:00 UTC 2026\n"]
    size, users, elapsed_ms = len(parts[0]), 0, 300000.0
    totals = {name: 0 for name, _, _ in PROCS}
    while size < target_bytes - 1200:
        users += 1
        calls = rng.randint(9000, 11000)
        block = RULE + f">>>>> VIRTUAL USER {users + 1} : ELAPSED TIME : {elapsed_ms + rng.randint(0, 40):.0f}ms\n"
        for name, share, mean in PROCS:
            n = int(calls * share)
            totals[name] += n
            block += _block(rng, name, n, mean, elapsed_ms)
        parts.append(block)
        size += len(block)
    summary = RULE + f">>>>> SUMMARY OF {users} ACTIVE VIRTUAL USERS : MEDIAN ELAPSED TIME : {elapsed_ms:.0f}ms\n"
    for name, _, mean in PROCS:
        summary += _block(rng, name, totals[name], mean, elapsed_ms * users)
    parts.append(summary + RULE)
    return "synth_hdbxtprofile.log", "".join(parts)

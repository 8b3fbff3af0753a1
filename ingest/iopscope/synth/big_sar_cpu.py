"""One long synthetic ``sar -u ALL -P ALL 1`` capture (sysstat 12.6, C locale), for the benchmark.

The same 8-vCPU database VM and per-second load as ``big_mpstat_text`` (see there), printed
the way live sar prints it: per interval a header stamped with the interval's start, an
``all`` row and one row per CPU stamped with its end, an empty line; ``Average:`` rows at the
end. sar -u ALL orders the columns ``%steal`` before ``%irq``; the widths (11-character time,
8-character CPU, 10-character values) copy ``tests/fixtures/sar/sar-12.6.1/sar_u_ALL_P_ALL.txt``.
Synthetic: the host name is ``synth-...``; such files never go into data/raw.

>>> from iopscope.parsers import sar_cpu
>>> name, text = big_file(6000)
>>> r = sar_cpu.parse(text)
>>> name, r.issues, r.status, len(r.tables["cpu_samples"]) % 9
('synth_sar_u_ALL_P_ALL_1.txt', [], 'complete', 0)
"""

from __future__ import annotations

import random

from iopscope.synth.big_mpstat_text import capture

SAR_PARTS = ("usr", "nice", "sys", "iowait", "steal", "irq", "soft", "guest", "gnice", "idle")
SAR_HEADER = ("%usr", "%nice", "%sys", "%iowait", "%steal", "%irq", "%soft", "%guest", "%gnice", "%idle")


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of a ``sar -u ALL -P ALL 1`` capture about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/sar_cpu")
    # sar: an 8-character CPU column, 10-character values.
    return "synth_sar_u_ALL_P_ALL_1.txt", capture(rng, target_bytes, SAR_PARTS, SAR_HEADER, 8, 10)

"""One long synthetic ``mpstat -P ALL 1`` capture (sysstat 12.6, C locale), for the benchmark.

The host is an 8-vCPU database VM sampled every second, starting two hours before midnight so
that the capture rolls over to the next day. Each interval is printed as mpstat prints it: a
header line stamped with the interval's start, an ``all`` row and one row per CPU stamped with
its end, an empty line; ``Average:`` rows close the capture. The layout (column widths, banner
with tabs) copies ``tests/fixtures/mpstat/mpstat-12.6.1/mpstat_P_ALL.txt``. Synthetic: the
host name is ``synth-...``; such files never go into data/raw.

:func:`capture` (and the per-second load of :func:`cpu_intervals`) is shared with
``big_sar_cpu``, which prints the same load as ``sar -u ALL -P ALL 1``.

>>> from iopscope.parsers import mpstat_text
>>> name, text = big_file(6000)
>>> r = mpstat_text.parse(text)
>>> name, r.issues, r.status, r.facts["logical_cpus"], r.tables["cpu_samples"][0]["cpu"]
('synth_mpstat_P_ALL_1.txt', [], 'complete', 8, 'all')
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Iterator

CPUS = 8
START = dt.datetime(2026, 11, 21, 22, 0, 0)
HOST = "synth-db-8vcpu"
KERNEL = "6.1.0-synth"
# The ten mpstat parts in mpstat's print order.
MPSTAT_PARTS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")
MPSTAT_HEADER = ("%usr", "%nice", "%sys", "%iowait", "%irq", "%soft", "%steal", "%guest", "%gnice", "%idle")


def banner(start: dt.datetime = START) -> str:
    """sysstat's first line: tabs around the date and the arch, as sysstat prints them."""
    return f"Linux {KERNEL} ({HOST}) \t{start.strftime('%m/%d/%y')} \t_x86_64_\t({CPUS} CPU)\n"


def _split(rng: random.Random, busy: float, iowait: float) -> dict[str, int]:
    """One CPU's second in hundredths of a percent, adding up to exactly 100.00 (idle takes the
    rest): the parts of a database host's CPU time, with a little steal as on a shared VM."""
    busy = min(99.0, max(0.2, busy * rng.uniform(0.7, 1.3)))
    iowait = min(100.0 - busy, max(0.0, iowait * rng.uniform(0.5, 1.5)))
    parts = {
        "usr": busy * rng.uniform(0.55, 0.75),
        "nice": busy * 0.01 if rng.random() < 0.05 else 0.0,
        "sys": busy * rng.uniform(0.18, 0.3),
        "iowait": iowait,
        "irq": busy * 0.01 if rng.random() < 0.2 else 0.0,
        "soft": busy * rng.uniform(0.02, 0.06),
        "steal": rng.uniform(0.0, 0.5) if rng.random() < 0.1 else 0.0,
        "guest": 0.0,
        "gnice": 0.0,
    }
    out = {k: int(round(v * 100)) for k, v in parts.items()}
    out["usr"] -= max(0, sum(out.values()) - 10000)   # a saturated CPU: no room for all parts
    out["idle"] = 10000 - sum(out.values())
    return out


def cpu_intervals(rng: random.Random, start: dt.datetime = START) -> Iterator[tuple[dt.datetime, dt.datetime, list]]:
    """Endless (interval start, interval end, rows) of 1-second samples; rows are (cpu label,
    parts in hundredths) for ``all`` (the mean of the CPUs, as sysstat sums every CPU's time)
    then each CPU. The load drifts between quiet and busy phases."""
    busy, iowait = 20.0, 3.0
    t = start
    while True:
        busy = min(95.0, max(2.0, busy + rng.gauss(0.0, 3.0)))
        iowait = min(30.0, max(0.0, iowait + rng.gauss(0.0, 0.8)))
        per_cpu = [_split(rng, busy, iowait) for _ in range(CPUS)]
        mean = {k: int(round(sum(c[k] for c in per_cpu) / CPUS)) for k in MPSTAT_PARTS if k != "idle"}
        mean["idle"] = max(0, 10000 - sum(mean.values()))
        rows = [("all", mean)] + [(str(i), c) for i, c in enumerate(per_cpu)]
        yield t, t + dt.timedelta(seconds=1), rows
        t += dt.timedelta(seconds=1)


def pct(hundredths: int) -> float:
    return hundredths / 100.0


def averages(total: dict[str, dict[str, int]], n: int, order: tuple[str, ...]) -> dict[str, list[float]]:
    """Per cpu label, the mean of each part over n intervals, in ``order``."""
    return {cpu: [sum_[k] / n / 100.0 for k in order] for cpu, sum_ in total.items()}


def accumulate(total: dict[str, dict[str, int]], rows: list) -> None:
    for cpu, parts in rows:
        acc = total.setdefault(cpu, dict.fromkeys(parts, 0))
        for k, v in parts.items():
            acc[k] += v


def capture(rng: random.Random, target_bytes: int, parts: tuple[str, ...], names: tuple[str, ...],
            cpu_width: int, value_width: int) -> str:
    """A sysstat CPU capture about ``target_bytes`` long: the banner, then per interval a
    header stamped with its start and the rows stamped with its end, then ``Average:`` rows.
    Times take 11 characters, the CPU column ``cpu_width``, each value ``value_width``."""
    out = [banner(), "\n"]
    size = sum(map(len, out))
    header_tail = f"{'CPU':>{cpu_width}}" + "".join(f"{h:>{value_width}}" for h in names) + "\n"
    total: dict[str, dict[str, int]] = {}
    n = 0
    for begin, end, rows in cpu_intervals(rng):
        stamp = end.strftime("%H:%M:%S")
        block = [f"{begin.strftime('%H:%M:%S'):<11}{header_tail}"]
        for cpu, values in rows:
            block.append(f"{stamp:<11}{cpu:>{cpu_width}}"
                         + "".join(f"{pct(values[k]):{value_width}.2f}" for k in parts) + "\n")
        block.append("\n")
        accumulate(total, rows)
        n += 1
        out.extend(block)
        size += sum(map(len, block))
        if size >= target_bytes:
            break
    out.append(f"{'Average:':<11}{header_tail}")
    for cpu, means in averages(total, n, parts).items():
        out.append(f"{'Average:':<11}{cpu:>{cpu_width}}" + "".join(f"{v:{value_width}.2f}" for v in means) + "\n")
    return "".join(out)


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of an ``mpstat -P ALL 1`` capture about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/mpstat_text")
    # mpstat: a 5-character CPU column, 8-character values (" %7.2f").
    return "synth_mpstat_P_ALL_1.txt", capture(rng, target_bytes, MPSTAT_PARTS, MPSTAT_HEADER, 5, 8)

"""One long SYNTHETIC fio completion-latency histogram log (``write_hist_log=1``).

The layout is what fio 3.33 writes with ``log_hist_msec=1000`` (see
``tests/fixtures/fio/fio-3.33/log-*_clat_hist.1.log``): per interval one line per direction,
``time (ms), ddir, bs, count_0, ..., count_N-1`` joined by ", ", where N = 1856 >> coarseness
and each count is the number of IOs that completed in that bin during the interval.

The job is a 70/30 4 KiB randrw at a steady rate on an NVMe-class device: read and write
latencies are lognormal with a small slow tail, so a coarseness-0 line has a few hundred
non-empty bins, like the fixture; ``coarseness`` is ``log_hist_coarseness`` (fio's default 0;
4 gives lines of 116 bins, like ``log-coarse4_clat_hist.1.log``). Deterministic:
``random.Random(f"iopscope-synth/{seed}/fio_histogram_log")``.

>>> from iopscope.parsers import fio_histogram_log
>>> name, text = big_file(60_000)
>>> name
'synth-nvme-randrw_clat_hist.1.log'
>>> r = fio_histogram_log.parse(text, filename=name)
>>> (r.status, r.issues, len(text.splitlines()) % 2)
('complete', [], 0)
"""

from __future__ import annotations

import math
import random

FINE_BINS = 1856   # fio 3.x: 29 groups of 64 log-linear bins, in ns
PLAT_BITS = 6
# direction -> (IOs per second, median latency ns, log-sigma); a slow tail is added below
DIRECTIONS = ((0, 21000, 88000.0, 0.30), (1, 9000, 31000.0, 0.45))
SLOW_SHARE, SLOW_FACTOR = 0.004, 25.0


def _lower(index: int) -> int:
    """First latency (ns) in fio's fine bin ``index``."""
    if index < (2 << PLAT_BITS):
        return index
    bits = (index >> PLAT_BITS) - 1
    return (1 << (bits + PLAT_BITS)) + (index % (1 << PLAT_BITS)) * (1 << bits)


def _shares(median_ns: float, sigma: float, coarseness: int) -> list[tuple[int, float]]:
    """(bin, share of the IOs) of every bin a lognormal latency (plus its slow tail) reaches."""
    def cdf(x: float) -> float:
        if x <= 0:
            return 0.0
        fast = 0.5 * math.erfc(-(math.log(x / median_ns)) / (sigma * math.sqrt(2)))
        slow = 0.5 * math.erfc(-(math.log(x / (median_ns * SLOW_FACTOR))) / (2 * sigma * math.sqrt(2)))
        return (1 - SLOW_SHARE) * fast + SLOW_SHARE * slow

    stride = 1 << coarseness
    out = []
    for b in range(FINE_BINS >> coarseness):
        share = cdf(_lower((b + 1) * stride)) - cdf(_lower(b * stride))
        if share > 1e-7:
            out.append((b, share))
    return out


def _count(rng: random.Random, mean: float) -> int:
    """A Poisson-like count: exact for small means (most tail bins), normal for large ones."""
    if mean > 30:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def big_file(target_bytes: int, seed: int = 1, coarseness: int = 0) -> tuple[str, str]:
    """(file name, text) of one histogram log of about ``target_bytes``: whole intervals (a
    read and a write line each) until the size is reached."""
    rng = random.Random(f"iopscope-synth/{seed}/fio_histogram_log")
    nbins = FINE_BINS >> coarseness
    plans = [(ddir, iops, _shares(median, sigma, coarseness)) for ddir, iops, median, sigma in DIRECTIONS]
    lines, size, t = [], 0, 0
    while size < target_bytes or not lines:
        t += 1000 + rng.randrange(0, 3)   # fio stamps an interval a millisecond or two late
        load = rng.uniform(0.9, 1.1)
        for ddir, iops, shares in plans:
            counts = [0] * nbins
            for b, share in shares:
                counts[b] = _count(rng, share * iops * load)
            line = f"{t}, {ddir}, 4096, " + ", ".join(map(str, counts)) + "\n"
            lines.append(line)
            size += len(line)
    suffix = "" if coarseness == 0 else f"-coarse{coarseness}"
    return f"synth-nvme-randrw{suffix}_clat_hist.1.log", "".join(lines)

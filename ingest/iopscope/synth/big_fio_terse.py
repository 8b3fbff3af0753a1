"""One long SYNTHETIC fio terse v3 file (``fio --minimal``), for the ingest benchmark.

What a lab's queue-depth sweep script leaves behind: ``fio --minimal sweep.fio >> results.txt``
run again and again (one run per load profile and repeat), each run a job file of stonewalled
queue-depth groups (``new_group``, groupid 0..7) of ``numjobs=4`` clones without
``group_reporting``. fio 3.33 then prints one terse v3 line per clone, and every line of a run
ends with that run's disk utilisation block (the same on each line; runs differ), so the file
holds one document per run.

Field layout as in ``tests/fixtures/fio/fio-3.33/terse-v3.txt`` (130 fields with one disk):
``3;fio-3.33;name;groupid;error;`` READ and WRITE blocks of 41 fields (io KiB; bw KiB/s; iops;
runtime ms; slat, clat min;max;%f mean;%f stdev in usec; 17 ``%f%%=usec`` percentiles and three
``0%=0``; lat; bw min;max;%f%% agg;%f mean;%f stdev), a direction that did no IO as zeros,
cpu ``%f%%;%f%%;ctx;majf;minf``, iodepth ``%3.1f%%`` x7, latency ``%3.2f%%`` x10 (usec) and
x12 (msec), then ``disk;r ios;w ios;r merges;w merges;r ticks;w ticks;in_queue;%3.2f%%``.

Labelled synthetic: every job is named ``synth-<profile>-qd<N>`` and the file
``synth-fio-terse-sweep.txt``; the numbers come from a toy latency model, not a device.

>>> name, text = big_file(20_000)
>>> name, text.startswith("3;fio-3.33;synth-"), {line.count(";") for line in text.splitlines()}
('synth-fio-terse-sweep.txt', True, {129})
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

from iopscope.synth.formats import FIO_PERCENTILES, plat_bounds, plat_bucket

QD_LEVELS = (1, 2, 4, 8, 16, 32, 64, 128)
NUMJOBS = 4
RUNTIME_MS = 60000
DISK = "nvme0n1"
# name -> (read share, block size KiB, device service time usec at QD1, device IOPS ceiling)
PROFILES = {
    "randread-4k": (1.0, 4, 78.0, 720000.0),
    "randwrite-4k": (0.0, 4, 22.0, 260000.0),
    "randrw70-8k": (0.7, 8, 95.0, 380000.0),
    "seqread-128k": (1.0, 128, 180.0, 26000.0),
}
_Z = tuple(NormalDist().inv_cdf(p / 100.0) for p in FIO_PERCENTILES)
_ZERO_DIRECTION = ";".join(["0"] * 6 + ["0.000000"] * 2 + ["0"] * 2 + ["0.000000"] * 2
                           + ["0%=0"] * 20 + ["0", "0", "0.000000", "0.000000"]
                           + ["0", "0", "0.000000%", "0.000000", "0.000000"])


def _fio_usec(value_us: float) -> int:
    """A latency as fio prints a percentile: its histogram bucket's value (ns), in whole usec."""
    return plat_bounds(plat_bucket(max(1, int(value_us * 1000))))[2] // 1000


def _direction(rng: random.Random, iops: float, bs_kib: int, lat_us: float, agg_pct: float) -> str:
    """The 41 fields of one direction that did IO."""
    sigma = rng.uniform(0.25, 0.55)
    mu = math.log(lat_us) - sigma * sigma / 2
    ios = max(1, int(iops * RUNTIME_MS / 1000))
    io_kib = ios * bs_kib
    bw = int(io_kib * 1000 / RUNTIME_MS)
    slat_mean = rng.uniform(1.5, 9.0)
    slat = (1, int(slat_mean * rng.uniform(20, 90)), slat_mean, slat_mean * rng.uniform(0.6, 1.6))
    clat_mean = max(lat_us - slat_mean, 1.0)
    clat_max = int(math.exp(mu + sigma * 5.2))
    clat = (max(0, int(clat_mean * 0.2)), clat_max, clat_mean, clat_mean * sigma * rng.uniform(0.9, 1.3))
    pcts = ";".join(f"{p:f}%={_fio_usec(math.exp(mu + sigma * z))}" for p, z in zip(FIO_PERCENTILES, _Z))
    lat = (clat[0] + slat[0], clat_max + rng.randrange(0, 8), clat_mean + slat_mean, clat[3] * 1.01)
    bw_mean = bw * rng.uniform(0.97, 1.03)
    bw_stats = (int(bw_mean * rng.uniform(0.6, 0.9)), int(bw_mean * rng.uniform(1.1, 1.4)), agg_pct,
                bw_mean, bw_mean * rng.uniform(0.01, 0.08))
    return (f"{io_kib};{bw};{int(iops)};{RUNTIME_MS + rng.randrange(0, 3)};"
            f"{slat[0]};{slat[1]};{slat[2]:f};{slat[3]:f};{clat[0]};{clat[1]};{clat[2]:f};{clat[3]:f};"
            f"{pcts};0%=0;0%=0;0%=0;"
            f"{lat[0]};{lat[1]};{lat[2]:f};{lat[3]:f};"
            f"{bw_stats[0]};{bw_stats[1]};{bw_stats[2]:f}%;{bw_stats[3]:f};{bw_stats[4]:f}")


def _shares(rng: random.Random, n: int, peak: int) -> list[str]:
    """n percentages summing to about 100 around index ``peak``, as fio's distributions."""
    weights = [math.exp(-abs(i - peak) * rng.uniform(1.2, 2.5)) for i in range(n)]
    total = sum(weights)
    return [w * 100.0 / total for w in weights]


def _job_line(rng: random.Random, profile: str, qd: int, group: int) -> tuple[str, float, float]:
    """One clone's line (without the disk block) and its read and write IOPS."""
    read_share, bs_kib, service_us, ceiling = PROFILES[profile]
    outstanding = qd * NUMJOBS
    total_iops = min(outstanding * 1e6 / service_us, ceiling) * rng.uniform(0.96, 1.04)
    lat_us = outstanding * 1e6 / total_iops  # Little's law
    job_iops = total_iops / NUMJOBS * rng.uniform(0.95, 1.05)
    agg = 100.0 / NUMJOBS * rng.uniform(0.95, 1.05)
    blocks = []
    for share, slower in ((read_share, 1.0), (1.0 - read_share, 1.3)):
        if share > 0:
            blocks.append(_direction(rng, job_iops * share, bs_kib, lat_us * slower, agg))
        else:
            blocks.append(_ZERO_DIRECTION)
    depth_at = min(6, qd.bit_length() - 1)  # buckets <=1, 2, 4, 8, 16, 32, >=64
    iodepth = [0.0] * 7
    iodepth[depth_at] = 100.0
    lat_peak = int(math.log10(max(lat_us, 2.0)) * 3)
    dist = _shares(rng, 22, lat_peak)
    usr = rng.uniform(2.0, 12.0)
    cpu = (f"{usr:f}%;{usr * rng.uniform(2.0, 5.0):f}%;{int(job_iops * RUNTIME_MS / 1000 * rng.uniform(0.3, 1.0))};"
           f"0;{rng.randrange(12, 40)}")
    tail = ";".join([f"{x:3.1f}%" for x in iodepth] + [f"{x:3.2f}%" for x in dist])
    line = f"3;fio-3.33;synth-{profile}-qd{qd};{group};0;{blocks[0]};{blocks[1]};{cpu};{tail}"
    return line, job_iops * read_share, job_iops * (1.0 - read_share)


def _disk_block(rng: random.Random, read_iops: float, write_iops: float) -> str:
    """The run's disk utilisation: every IO of every group, as the kernel counted it."""
    reads = int(read_iops * RUNTIME_MS / 1000 * rng.uniform(1.0, 1.01))
    writes = int(write_iops * RUNTIME_MS / 1000 * rng.uniform(1.0, 1.01))
    r_ticks, w_ticks = int(reads * rng.uniform(0.05, 0.4)), int(writes * rng.uniform(0.02, 0.2))
    return (f"{DISK};{reads};{writes};{rng.randrange(0, 50)};{rng.randrange(0, 5000) if writes else 0};"
            f"{r_ticks};{w_ticks};{r_ticks + w_ticks + rng.randrange(0, 1000)};{rng.uniform(85.0, 99.9):3.2f}%")


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text): appended sweep runs until the text is about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/fio_terse")
    out: list[str] = []
    size, run = 0, 0
    while size < target_bytes:
        profile = list(PROFILES)[run % len(PROFILES)]
        jobs = [_job_line(rng, profile, qd, group)
                for group, qd in enumerate(QD_LEVELS) for _ in range(NUMJOBS)]
        disk = _disk_block(rng, sum(j[1] for j in jobs), sum(j[2] for j in jobs))
        for line, _, _ in jobs:
            row = f"{line};{disk}\n"
            out.append(row)
            size += len(row)
            if size >= target_bytes:
                break
        run += 1
    return "synth-fio-terse-sweep.txt", "".join(out)

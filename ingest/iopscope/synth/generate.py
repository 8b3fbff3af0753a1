"""Plan and write a tree of SYNTHETIC run folders (``run.toml`` + tool outputs).

The tree is ``<out>/synthetic/<campaign>/<run>/`` (collection ``synthetic``), optionally with a
copy of the bundled ``data/raw`` collections beside it, so that ``<out>`` is a complete raw root
for ``IOPSCOPE_RAW``. Campaigns are what a lab would run:

* **tpcc** -- a connections sweep (4 to 8 load levels) of tpcc-mysql on one host, data device,
  MySQL configuration and warehouse count; one run per level: ``tpcc_start.out`` (1 s
  intervals), iostat (``-x -t`` text or ``-o JSON``) and ``mpstat -o JSON``.
* **fio** -- one to three load profiles on one device; one run per profile with one fio job per
  outstanding-IO level (stonewalled): ``fio.json`` (json+), the job file, iostat, mpstat and,
  for some, windowed bw/iops/clat logs.

Everything is deterministic: run ``i`` of a seed is the same whatever the total size, so the
first 100 runs of the 10,000-run tree are the 100-run tree, and "one more run" is run ``N``.
Every manifest says ``kind = "synthetic"``, ``synthetic = true`` and tags ``synthetic``.

``length`` (default 1) shortens every run's measured and ramp-up time by that factor, with the
same campaigns, devices and load levels otherwise: a tree of many short runs has the run count
of a large archive in the bytes of a small one (the benchmark's ``100000@0.1`` scale, measured
where the full-length tree does not fit the disk). Such runs are tagged ``length-<factor>``.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
import random
import shutil
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from iopscope.synth import formats as fmt
from iopscope.synth.model import (DEVICE_CLASSES, HOST_CLASSES, DeviceClass, HostClass, fio_point,
                                  tpcc_point)

COLLECTION = "synthetic"
EPOCH = dt.datetime(2025, 1, 6, 8, 0, 0)
KERNELS = ("6.1.0-18-amd64", "5.15.0-105-generic", "6.8.0-45-generic", "5.14.0-427.el9.x86_64")
OS_NAMES = {"6.1.0-18-amd64": "Debian GNU/Linux 12 (bookworm)", "5.15.0-105-generic": "Ubuntu 22.04 LTS",
            "6.8.0-45-generic": "Ubuntu 24.04 LTS", "5.14.0-427.el9.x86_64": "Rocky Linux 9.4"}
MYSQL_VERSIONS = ("5.7.44", "8.0.36", "8.0.39", "8.4.2")
CONNECTION_LEVELS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
QD_LEVELS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# name -> (rw, read share, block size KiB, sequential)
FIO_PROFILES = {
    "database": ("randrw", 0.67, 8, False),
    "random-read-4k": ("randread", 1.0, 4, False),
    "random-write-4k": ("randwrite", 0.0, 4, False),
    "oltp-log": ("write", 0.0, 16, True),
    "sequential-read-128k": ("read", 1.0, 128, True),
}
HEADER = ("SYNTHETIC run written by `iopscope bench synth` (iopscope.synth): no benchmark ran and no\n"
          "device was measured. Every number comes from a toy model (iopscope/synth/model.py).")
PASSWORD = "synthetic-not-a-password"


@dataclass(frozen=True)
class Campaign:
    number: int
    kind: str                      # tpcc | fio
    host: HostClass
    host_id: str
    kernel: str
    device: DeviceClass
    device_id: str
    capacity_gb: float
    levels: tuple[int, ...]        # tpcc: connections per run; fio: QD steps of each run
    profiles: tuple[str, ...] = () # fio: one run per profile
    warehouses: int = 0
    buffer_pool_gib: float = 0.0
    mysql: str = ""
    config_id: str = ""
    flush_log: int = 1
    log_device: DeviceClass | None = None
    log_device_id: str | None = None
    measure_s: int = 0
    rampup_s: int = 0
    step_runtime_s: int = 0
    step_ramp_s: int = 0
    iostat_json: bool = True
    fio_logs: bool = False
    iso_time: bool = True          # S_TIME_FORMAT=ISO for iostat / mpstat
    started_at: dt.datetime = EPOCH
    length: float = 1.0            # the factor its times were shortened by (campaign())

    def __post_init__(self) -> None:
        if not self.iso_time and not 13 <= self.started_at.day <= 27:
            # C-locale MM/DD/YY dates with a day <= 12 are ambiguous (the parsers say so in a
            # warning): such campaigns move to the middle of their month.
            object.__setattr__(self, "started_at", self.started_at.replace(day=13 + self.started_at.day % 14))

    @property
    def name(self) -> str:
        if self.kind == "tpcc":
            return f"c{self.number:05d}-tpcc-{self.device.key}-w{self.warehouses}"
        return f"c{self.number:05d}-fio-{self.device.key}"

    @property
    def run_count(self) -> int:
        return len(self.levels) if self.kind == "tpcc" else len(self.profiles)


@dataclass(frozen=True)
class RunPlan:
    index: int
    campaign: Campaign
    step: int

    @property
    def run_name(self) -> str:
        if self.campaign.kind == "tpcc":
            return f"conn{self.campaign.levels[self.step]:03d}"
        return f"{self.step + 1:02d}-{self.campaign.profiles[self.step]}"

    @property
    def rel_dir(self) -> str:
        return f"{COLLECTION}/{self.campaign.name}/{self.run_name}"

    @property
    def run_id(self) -> str:
        return f"synth-{self.campaign.name}-{self.run_name}"


def _weighted(rng: random.Random, items: dict[str, Any]) -> Any:
    values = list(items.values())
    return rng.choices(values, weights=[v.weight for v in values])[0]


# The shortest times a shortened run keeps (``length`` < 1): a TPC-C run still has several 1 s
# intervals after its ramp-up, and an fio step a few 1 s log windows.
MIN_MEASURE_S, MIN_RAMPUP_S, MIN_STEP_RUNTIME_S, MIN_STEP_RAMP_S = 10, 3, 2, 1


def _shorter(seconds: int, length: float, floor: int) -> int:
    return seconds if length == 1 else max(floor, round(seconds * length))


def campaign(seed: int, number: int, length: float = 1.0) -> Campaign:
    """Campaign ``number`` of the seed; ``length`` shortens its runs (module docstring). Every
    random draw is the same whatever ``length``: the short tree has the same campaigns."""
    if not 0 < length <= 1:
        raise ValueError(f"length must be in (0, 1], not {length}")
    rng = random.Random(f"iopscope-synth/{seed}/campaign/{number}")
    host = _weighted(rng, HOST_CLASSES)
    device = _weighted(rng, DEVICE_CLASSES)
    host_n = rng.randrange(24)
    dev_n = rng.randrange(12)
    host_id = f"synth-{host.key}-{host_n:02d}"
    kernel = KERNELS[(host_n + len(host.key)) % len(KERNELS)]
    device_id = f"synth-{device.key}-{host_n:02d}{dev_n:02d}"
    capacity = device.capacities_gb[(host_n + dev_n) % len(device.capacities_gb)]
    started = EPOCH + dt.timedelta(hours=number * 3.27)
    started = started.replace(microsecond=0)
    iso_time = rng.random() < 0.8
    common = dict(number=number, host=host, host_id=host_id, kernel=kernel, device=device,
                  device_id=device_id, capacity_gb=float(capacity),
                  iostat_json=rng.random() < 0.5, iso_time=iso_time, started_at=started)
    if rng.random() < 0.55:
        warehouses = rng.choice((10, 20, 50, 100, 200, 500, 1000))
        pools = [p for p in (1, 2, 4, 8, 16, 32, 64, 128, 256) if p <= host.ram_gib * 0.75]
        pool = float(rng.choice(pools))
        start = rng.randrange(0, 4)
        count = rng.randint(4, 8)
        levels = CONNECTION_LEVELS[start:start + count]
        separate_log = rng.random() < 0.4
        log_class = DEVICE_CLASSES[rng.choice(("ssd-sata", "ssd-sas", "nvme-gen3"))] if separate_log else None
        mysql = rng.choice(MYSQL_VERSIONS)
        flush = rng.choice((1, 1, 1, 2))
        return Campaign(kind="tpcc", levels=levels, warehouses=warehouses, buffer_pool_gib=pool,
                        mysql=mysql, config_id=f"synth-mysql-{mysql}-bp{int(pool)}g-flush{flush}",
                        flush_log=flush, log_device=log_class,
                        log_device_id=f"synth-{log_class.key}-{host_n:02d}L" if log_class else None,
                        measure_s=_shorter(rng.choice((120, 180, 300)), length, MIN_MEASURE_S),
                        rampup_s=_shorter(rng.choice((30, 60, 120)), length, MIN_RAMPUP_S),
                        length=length, **common)
    start = rng.randrange(0, 3)
    count = rng.randint(4, 9 - start)
    levels = QD_LEVELS[start:start + count]
    names = list(FIO_PROFILES)
    profiles = tuple(["database"] + rng.sample(names[1:], rng.randint(0, 2)))
    return Campaign(kind="fio", levels=levels, profiles=profiles,
                    step_runtime_s=_shorter(rng.choice((10, 15, 20, 30)), length, MIN_STEP_RUNTIME_S),
                    step_ramp_s=_shorter(rng.choice((2, 3, 5)), length, MIN_STEP_RAMP_S),
                    fio_logs=rng.random() < 0.3, length=length, **common)


def plan(seed: int, runs: int, length: float = 1.0) -> list[RunPlan]:
    """The first ``runs`` runs of the seed's endless sequence of campaigns (``length``: see
    :func:`campaign`)."""
    out: list[RunPlan] = []
    number = 0
    while len(out) < runs:
        c = campaign(seed, number, length)
        for step in range(c.run_count):
            if len(out) == runs:
                break
            out.append(RunPlan(len(out), c, step))
        number += 1
    return out


# ------------------------------------------------------------------------------ run writers


def _jitter(rng: random.Random, sd: float) -> float:
    return max(0.05, 1.0 + rng.gauss(0.0, sd))


def _host_table(c: Campaign) -> dict[str, Any]:
    h = c.host
    return {"host_id": c.host_id, "vendor_model": h.label,
            "cpu_model": f"synthetic x86-64 CPU, {h.physical_cores // h.sockets} cores @ {h.ghz} GHz",
            "sockets": h.sockets, "physical_cores": h.physical_cores, "logical_cpus": h.logical_cpus,
            "nominal_ghz": h.ghz, "ram_gib": float(h.ram_gib), "os": OS_NAMES[c.kernel],
            "kernel": c.kernel, "hostname": c.host_id}


def _device_table(d: DeviceClass, device_id: str, kernel_name: str, role: str, capacity: float) -> dict[str, Any]:
    return {"device_id": device_id, "kernel_name": kernel_name, "role": role, "vendor": "synthetic",
            "model": d.label, "media": d.media, "interface": d.interface, "capacity_gb": capacity,
            "rotational": d.rotational, "count": 1, "layout": "single",
            "notes": "SYNTHETIC device: numbers from iopscope.synth.model"}


def _kernel_name(d: DeviceClass, n: int = 0) -> str:
    return f"nvme{n}n1" if d.interface == "nvme" else f"sd{'abcdefgh'[n % 8]}"


def _disk_row(r_s: float, w_s: float, r_kib: float, w_kib: float, r_await: float, w_await: float,
              seq: bool, flushes: float = 0.0, f_await: float = 0.0) -> dict[str, float]:
    rrqm = r_s * 0.3 if seq else r_s * 0.002
    wrqm = w_s * 0.25 if seq else w_s * 0.01
    aqu = (r_s * r_await + w_s * w_await + flushes * f_await) / 1000.0
    return {"r/s": r_s, "rkB/s": r_s * r_kib, "rrqm/s": rrqm, "rrqm": 100 * rrqm / (rrqm + r_s) if r_s else 0.0,
            "r_await": r_await if r_s else 0.0, "rareq-sz": r_kib if r_s else 0.0,
            "w/s": w_s, "wkB/s": w_s * w_kib, "wrqm/s": wrqm, "wrqm": 100 * wrqm / (wrqm + w_s) if w_s else 0.0,
            "w_await": w_await if w_s else 0.0, "wareq-sz": w_kib if w_s else 0.0,
            "d/s": 0.0, "dkB/s": 0.0, "drqm/s": 0.0, "drqm": 0.0, "d_await": 0.0, "dareq-sz": 0.0,
            "f/s": flushes, "f_await": f_await if flushes else 0.0, "aqu-sz": aqu,
            "util": min(100.0, 100.0 * (1.0 - math.exp(-aqu * 1.3))) if (r_s or w_s) else 0.0}


def _cpu_split(rng: random.Random, busy: float, iowait: float) -> dict[str, float]:
    busy = min(99.0, max(0.3, busy * _jitter(rng, 0.04)))
    iowait = min(100.0 - busy, max(0.0, iowait * _jitter(rng, 0.1)))
    usr, sys_, soft = busy * 0.68, busy * 0.27, busy * 0.05
    idle = max(0.0, 100.0 - usr - sys_ - soft - iowait)
    return {"usr": usr, "nice": 0.0, "sys": sys_, "iowait": iowait, "irq": 0.0, "soft": soft,
            "steal": 0.0, "guest": 0.0, "gnice": 0.0, "idle": idle}


def _round2(values: dict[str, float]) -> dict[str, float]:
    """Two decimals that still add up to 100.00 (idle takes the rounding)."""
    out = {k: round(v, 2) for k, v in values.items()}
    out["idle"] = round(max(0.0, 100.0 - sum(v for k, v in out.items() if k != "idle")), 2)
    return out


def _mpstat_loads(rng: random.Random, host: HostClass, busy: float, iowait: float,
                  per_cpu: bool) -> list[tuple[str, list[float]]]:
    rows = []
    cpus = []
    if per_cpu:
        for _cpu in range(host.logical_cpus):
            cpus.append(_round2(_cpu_split(rng, busy * _jitter(rng, 0.15), iowait)))
    allrow = ({k: sum(c[k] for c in cpus) / len(cpus) for k in fmt.MPSTAT_KEYS} if cpus
              else _cpu_split(rng, busy, iowait))
    rows.append(("all", [_round2(allrow)[k] for k in fmt.MPSTAT_KEYS]))
    rows += [(str(i), [c[k] for k in fmt.MPSTAT_KEYS]) for i, c in enumerate(cpus)]
    return rows


def _avg_cpu(mp_all: list[float]) -> dict[str, float]:
    v = dict(zip(fmt.MPSTAT_KEYS, mp_all))
    out = {"user": v["usr"], "nice": v["nice"], "system": v["sys"] + v["soft"] + v["irq"],
           "iowait": v["iowait"], "steal": v["steal"], "idle": 0.0}
    out["idle"] = round(max(0.0, 100.0 - sum(round(out[k], 2) for k in ("user", "nice", "system", "iowait", "steal"))), 2)
    return {k: round(x, 2) for k, x in out.items()}


def _sysstat_files(run: RunPlan, rng: random.Random, start: dt.datetime,
                   seconds: list[tuple[float, float, list[tuple[str, dict[str, float]]]]],
                   parts: tuple[str, ...] = ("iostat", "mpstat")) -> dict[str, str]:
    """iostat + mpstat texts for per-second (busy %, iowait %, disks) samples."""
    c = run.campaign
    if "iostat" not in parts and "mpstat" not in parts:
        return {}
    per_cpu = c.host.logical_cpus <= 8
    io_samples, mp_samples = [], []
    for i, (busy, iowait, disks) in enumerate(seconds):
        when = start + dt.timedelta(seconds=i + 1)
        loads = _mpstat_loads(rng, c.host, busy, iowait, per_cpu)
        mp_samples.append((when, loads))
        io_samples.append((when, _avg_cpu(loads[0][1]),
                           [(name, {k: round(v, 2) for k, v in row.items()}) for name, row in disks]))
    host = dict(kernel=c.kernel, hostname=c.host_id, cpus=c.host.logical_cpus, iso=c.iso_time)
    files = {}
    if "mpstat" in parts:
        files["mpstat.json"] = fmt.mpstat_json(samples=mp_samples, **host)
    if "iostat" in parts and c.iostat_json:
        files["iostat.json"] = fmt.iostat_json(samples=io_samples, **host)
    elif "iostat" in parts:
        files["iostat.txt"] = fmt.iostat_text(samples=io_samples, **host)
    return files


def _queue_await(base_us: float, rho: float) -> float:
    """Mean await (ms) of a device at utilisation ``rho`` (M/M/1-like growth, capped)."""
    return base_us / 1000.0 / max(0.04, 1.0 - min(rho, 0.96))


def tpcc_run(run: RunPlan, parts: tuple[str, ...] = ("tpcc", "iostat", "mpstat")) -> tuple[dict[str, Any], dict[str, str]]:
    c = run.campaign
    connections = c.levels[run.step]
    rng = random.Random(f"iopscope-synth/run/{run.run_id}")
    point = tpcc_point(c.device, c.host, c.warehouses, connections, c.buffer_pool_gib)
    start = c.started_at + dt.timedelta(minutes=run.step * (c.measure_s + c.rampup_s + 300) / 60.0)
    start = start.replace(microsecond=0)
    share = [m / sum(fmt.TPCC_MIX) for m in fmt.TPCC_MIX]
    weights = (1.0, 0.45, 0.35, 3.2, 2.6)
    scale = point.mean_rt_ms / sum(s * w for s, w in zip(share, weights))
    sigma = 0.55
    late = [0] * 5
    total_rt = [point.tps * c.rampup_s * share[t] * 0.8 * scale * weights[t] * 1.3 for t in range(5)]
    intervals = []
    levels = []
    for tick in range(1, c.measure_s + 1):
        level = _jitter(rng, 0.05) * (0.72 if tick % 60 in (0, 1) else 1.0)   # checkpoint dips
        levels.append(level)
        tps_i = point.tps * level
        counts, maxes = [], []
        p95 = p99 = 0.0
        for t in range(5):
            n = max(0, int(round(tps_i * share[t] * _jitter(rng, 0.03))))
            mean_ms = scale * weights[t] / level
            median = mean_ms / math.exp(sigma * sigma / 2)
            warm = 1.25 if tick == 1 else 1.0
            top = median * math.exp(sigma * math.sqrt(2 * math.log(max(n, 2)))) * rng.uniform(0.95, 1.35)
            z = (math.log(fmt.TPCC_LIMITS_MS[t]) - math.log(median)) / sigma
            lt = int(round(n * 0.5 * math.erfc(z / math.sqrt(2)))) if n else 0
            counts.append(n)
            maxes.append(top * warm)
            late[t] += lt
            total_rt[t] += n * mean_ms
            if t == 0:
                p95 = median * math.exp(1.645 * sigma) * warm
                p99 = median * math.exp(2.326 * sigma) * warm
        intervals.append((counts, p95, p99, maxes))
    totals = [sum(iv[0][t] for iv in intervals) for t in range(5)]
    retries = [int(totals[0] * 0.0002 * connections / 8), int(totals[1] * 0.0001 * connections / 8), 0, 0, 0]
    out = fmt.tpcc_start_output(host=f"{c.host_id}-db", database="tpcc", user="tpcc", password=PASSWORD,
                                warehouses=c.warehouses, connections=connections, rampup_s=c.rampup_s,
                                measure_s=c.measure_s, interval_s=1, intervals=intervals, late=late,
                                total_rt_ms=total_rt, retries=retries)
    data_name = _kernel_name(c.device, 0)
    log_name = _kernel_name(c.log_device, 1) if c.log_device else None
    reads_per_tx = point.io_per_tx - 2.5
    seconds = []
    for level in levels:
        tps = point.tps * level
        r_s = tps * reads_per_tx * _jitter(rng, 0.04)
        w_s = tps * (1.4 if c.log_device else 2.3) * _jitter(rng, 0.06)
        rho = (r_s + w_s) / c.device.peak_iops_8k
        disks = [(data_name, _disk_row(r_s, w_s, 16.0, 16.0 if c.log_device else 13.5,
                                       _queue_await(c.device.read_us, rho), _queue_await(c.device.write_us, rho),
                                       False, 0.0 if c.log_device else tps * 0.45 * 0.9,
                                       c.device.write_us / 1000.0))]
        if c.log_device:
            lw = tps * (0.9 if c.flush_log == 1 else 0.2) * _jitter(rng, 0.05)
            disks.append((log_name, _disk_row(0.0, lw, 0.0, 9.0, 0.0, _queue_await(c.log_device.write_us, lw / 40000),
                                              True, lw * 0.95, c.log_device.write_us / 1000.0)))
        iowait = min(40.0, 100.0 * rho * 0.3) if c.device.rotational else min(8.0, rho * 4)
        seconds.append((point.cpu_busy_pct * level, iowait, disks))
    measure_start = start + dt.timedelta(seconds=c.rampup_s)
    files = {"tpcc_start.out": out} if "tpcc" in parts else {}
    files.update(_sysstat_files(run, rng, measure_start, seconds, parts))
    devices = [_device_table(c.device, c.device_id, data_name, "data" if c.log_device else "data+log",
                             c.capacity_gb)]
    if c.log_device:
        devices.append(_device_table(c.log_device, c.log_device_id, log_name, "log",
                                     c.log_device.capacities_gb[0]))
    ended = measure_start + dt.timedelta(seconds=c.measure_s + 2)
    manifest = _manifest_common(run, ["tpcc-mysql", "iostat", "mpstat"], start, ended,
                                f"SYNTHETIC tpcc-mysql run: {c.warehouses} warehouses, {connections} connections, "
                                f"MySQL {c.mysql}, buffer pool {c.buffer_pool_gib:g} GiB, on a {c.device.label} "
                                f"(step {run.step + 1} of a {len(c.levels)}-step connections sweep).",
                                ["tpcc", c.device.media, c.device.interface])
    manifest["devices"] = devices
    manifest["db"] = {"server": "mysql", "version": c.mysql, "config_id": c.config_id,
                      "parameters": {"innodb_buffer_pool_size": f"{int(c.buffer_pool_gib)}G",
                                     "innodb_flush_log_at_trx_commit": c.flush_log,
                                     "innodb_io_capacity": 200 if c.device.rotational else 2000,
                                     "innodb_log_file_size": "2G"}}
    manifest["tpcc"] = {"warehouses": c.warehouses, "connections": connections,
                        "buffer_pool_gib": c.buffer_pool_gib, "page_size_kib": 16, "ramp_up_s": c.rampup_s,
                        "measure_s": c.measure_s, "report_interval_s": 1, "kit": "tpcc-mysql"}
    manifest["files"] = [
        {"path": "tpcc_start.out", "format": "tpcc_mysql", "role": "result"},
        {"path": "iostat.json" if c.iostat_json else "iostat.txt", "role": "system"},
        {"path": "mpstat.json", "role": "system"},
    ]
    return manifest, files


def fio_run(run: RunPlan, parts: tuple[str, ...] = ("fio", "iostat", "mpstat")) -> tuple[dict[str, Any], dict[str, str]]:
    c = run.campaign
    profile = c.profiles[run.step]
    rw, read_share, bs, seq = FIO_PROFILES[profile]
    rng = random.Random(f"iopscope-synth/run/{run.run_id}")
    step_s = c.step_ramp_s + c.step_runtime_s
    start = (c.started_at + dt.timedelta(seconds=run.step * (len(c.levels) * step_s + 120))).replace(microsecond=0)
    dev_name = _kernel_name(c.device, 0)
    filename = f"/dev/{dev_name}" if profile != "oltp-log" else "/mnt/synth/fio-log.dat"
    global_options = {"filename": filename, "size": f"{int(min(c.capacity_gb, 64))}g", "ioengine": "libaio",
                      "direct": "1", "rw": rw, "bs": f"{bs}k", "time_based": "1",
                      "runtime": str(c.step_runtime_s), "ramp_time": str(c.step_ramp_s), "group_reporting": "1"}
    if rw == "randrw":
        global_options = {**global_options, "rwmixread": str(int(round(read_share * 100)))}
    if c.fio_logs:
        global_options.update({"write_bw_log": "fio", "write_iops_log": "fio", "write_lat_log": "fio",
                               "log_avg_msec": "1000", "log_offset": "1"})
    jobs, logs, seconds = [], {}, []
    total_ios = {"read": 0, "write": 0}
    elapsed = len(c.levels) * step_s + 1
    for number, qd in enumerate(c.levels):
        p = fio_point(c.device, qd, bs, read_share, seq)
        level = _jitter(rng, 0.02)
        iops = p.iops * level
        job: dict[str, Any] = {"jobname": f"{profile}-qd{qd}", "groupid": number, "error": 0, "eta": 0,
                               "elapsed": elapsed, "job options": {"iodepth": str(qd)}}
        for ddir, dshare, lat_us in (("read", read_share, p.read_lat_us), ("write", 1 - read_share, p.write_lat_us)):
            job[ddir] = _fio_dir(rng, iops * dshare, lat_us / level, bs, c.step_runtime_s, c.device.sigma)
            total_ios[ddir] += job[ddir]["total_ios"]
        job["trim"] = _fio_dir(rng, 0.0, 0.0, bs, 0, c.device.sigma)
        job["sync"] = {"total_ios": 0, "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}}
        busy = min(95.0, 3.0 + iops / 4000.0)
        job.update({"job_runtime": c.step_runtime_s * 1000, "usr_cpu": round(busy * 0.2, 2),
                    "sys_cpu": round(busy * 0.8, 2), "ctx": int(iops * c.step_runtime_s * 0.9 / max(1, qd ** 0.5)),
                    "majf": 0, "minf": 30 + qd})
        job.update(_fio_depths(qd))
        job.update(_fio_latency_shares(p.mean_lat_us, c.device.sigma))
        job.update({"latency_depth": qd, "latency_target": 0, "latency_percentile": 100.0, "latency_window": 0})
        jobs.append(job)
        if c.fio_logs:
            for kind in ("bw", "iops", "clat"):
                rows = []
                for s in range(1, c.step_runtime_s + 1):
                    for ddir_code, dshare, lat in ((0, read_share, p.read_lat_us), (1, 1 - read_share, p.write_lat_us)):
                        if dshare <= 0:
                            continue
                        j = _jitter(rng, 0.03)
                        value = {"bw": iops * dshare * bs * j, "iops": iops * dshare * j,
                                 "clat": lat * 1000.0 / j}[kind]
                        rows.append((s * 1000, value, ddir_code))
                logs[f"fio_{kind}.{number + 1}.log"] = fmt.fio_log(rows, log_offset=True)
        r_s, w_s = iops * read_share, iops * (1 - read_share)
        for s in range(step_s if ("iostat" in parts or "mpstat" in parts) else 0):
            j = _jitter(rng, 0.03) if s >= 1 else 0.6
            disks = [(dev_name, _disk_row(r_s * j, w_s * j, float(bs), float(bs), p.read_lat_us / 1000.0,
                                          p.write_lat_us / 1000.0, seq))]
            busy = min(30.0, 100 * (1 - 1 / (1 + qd / 8))) if c.device.rotational else 2.0
            seconds.append((min(95.0, 3.0 + iops * j / 4000.0), busy, disks))
    disk_util = [{"name": dev_name, "read_ios": total_ios["read"] + 1200, "write_ios": total_ios["write"] + 800,
                  "read_merges": 0, "write_merges": 0,
                  "read_ticks": int(total_ios["read"] * 0.1), "write_ticks": int(total_ios["write"] * 0.1),
                  "in_queue": int((total_ios["read"] + total_ios["write"]) * 0.2), "util": 97.5}]
    ts = int(start.replace(tzinfo=dt.timezone.utc).timestamp()) + elapsed
    doc = {"fio version": "fio-3.33", "timestamp": ts, "timestamp_ms": ts * 1000 + rng.randrange(1000),
           "time": dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%a %b %d %H:%M:%S %Y"),
           "global options": global_options, "jobs": jobs, "disk_util": disk_util}
    jobfile = fmt.fio_jobfile(f"SYNTHETIC job file: {profile} profile at {len(c.levels)} outstanding-IO levels.",
                              global_options, [(f"{profile}-qd{qd}", {"iodepth": str(qd), "stonewall": ""})
                                               for qd in c.levels])
    files = {"fio.json": fmt.fio_json_dump(doc) + "\n", f"{profile}.fio": jobfile, **logs}
    files.update(_sysstat_files(run, rng, start, seconds, parts))
    ended = start + dt.timedelta(seconds=elapsed)
    manifest = _manifest_common(run, ["fio", "iostat", "mpstat"], start, ended,
                                f"SYNTHETIC fio {profile} profile ({rw}, {bs} KiB) at queue depths "
                                f"{', '.join(map(str, c.levels))} on a {c.device.label}.",
                                ["fio", profile, c.device.media, c.device.interface])
    manifest["devices"] = [_device_table(c.device, c.device_id, dev_name, "data", c.capacity_gb)]
    manifest["fio"] = {"measurement_area": global_options["size"].upper().replace("G", "GiB"),
                       "profile": profile, "version": "3.33"}
    manifest["files"] = [{"path": "fio.json", "format": "fio_json", "role": "result", "device": dev_name},
                         {"path": f"{profile}.fio", "role": "job"},
                         {"path": "iostat.json" if c.iostat_json else "iostat.txt", "role": "system"},
                         {"path": "mpstat.json", "role": "system"}]
    manifest["files"] += [{"path": name, "role": "log", "device": dev_name} for name in sorted(logs)]
    return manifest, files


def _fio_dir(rng: random.Random, iops: float, lat_us: float, bs_kib: int, runtime_s: int,
             sigma: float) -> dict[str, Any]:
    n = int(iops * runtime_s)
    runtime_ms = runtime_s * 1000 + (1 if n else 0)
    zero = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    if n <= 0:
        return {"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
                "total_ios": 0, "short_ios": 0, "drop_ios": 0, "slat_ns": dict(zero), "clat_ns": dict(zero),
                "lat_ns": dict(zero), "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0,
                "bw_samples": 0, "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0,
                "iops_samples": 0}
    clat_mean = lat_us * 1000.0
    slat_mean = 2500.0 + rng.random() * 4000.0
    bins = fmt.lognormal_bins(n, clat_mean, sigma)
    sd = clat_mean * math.sqrt(math.exp(sigma * sigma) - 1)
    lo, hi = min(bins), max(bins)
    io_bytes = n * bs_kib * 1024
    bw_bytes = int(io_bytes * 1000 / runtime_ms)
    iops_exact = n * 1000.0 / runtime_ms
    samples = max(1, runtime_s * 2 - 1)
    spread = 0.04
    return {
        "io_bytes": io_bytes, "io_kbytes": io_bytes // 1024, "bw_bytes": bw_bytes, "bw": bw_bytes // 1024,
        "iops": iops_exact, "runtime": runtime_ms, "total_ios": n, "short_ios": 0, "drop_ios": 0,
        "slat_ns": {"min": int(slat_mean * 0.3), "max": int(slat_mean * 40), "mean": slat_mean,
                    "stddev": slat_mean * 0.8, "N": n},
        "clat_ns": {"min": lo, "max": hi, "mean": clat_mean, "stddev": sd, "N": n,
                    "percentile": fmt.percentiles_from_bins(bins), "bins": {str(k): v for k, v in sorted(bins.items())}},
        "lat_ns": {"min": lo + int(slat_mean * 0.3), "max": hi + int(slat_mean * 40), "mean": clat_mean + slat_mean,
                   "stddev": sd * 1.01, "N": n},
        "bw_min": int(bw_bytes / 1024 * (1 - 3 * spread)), "bw_max": int(bw_bytes / 1024 * (1 + 3 * spread)),
        "bw_agg": 100.0, "bw_mean": bw_bytes / 1024 * (1 + rng.gauss(0, 0.005)),
        "bw_dev": bw_bytes / 1024 * spread, "bw_samples": samples,
        "iops_min": int(iops_exact * (1 - 3 * spread)), "iops_max": int(iops_exact * (1 + 3 * spread)),
        "iops_mean": iops_exact * (1 + rng.gauss(0, 0.005)), "iops_stddev": iops_exact * spread,
        "iops_samples": samples,
    }


def _fio_depths(qd: int) -> dict[str, Any]:
    keys = ("1", "2", "4", "8", "16", "32", ">=64")
    slot = next((k for k in keys[:-1] if qd <= int(k)), ">=64")
    submit_keys = ("0", "4", "8", "16", "32", "64", ">=64")
    sub = next((k for k in submit_keys[1:-1] if qd <= int(k)), ">=64")
    return {"iodepth_level": {k: (100.0 if k == slot else 0.0) for k in keys},
            "iodepth_submit": {k: (100.0 if k == sub else 0.0) for k in submit_keys},
            "iodepth_complete": {k: (100.0 if k == sub else 0.0) for k in submit_keys}}


def _fio_latency_shares(mean_us: float, sigma: float) -> dict[str, Any]:
    """latency_ns/us/ms: percentage of IOs completing under each bound (fio's buckets)."""
    mu = math.log(mean_us * 1000.0) - sigma * sigma / 2

    def cdf(ns: float) -> float:
        return 0.5 * math.erfc(-(math.log(ns) - mu) / (sigma * math.sqrt(2))) if ns > 0 else 0.0

    out: dict[str, dict[str, float]] = {}
    prev = 0.0
    for name, unit, bounds in (("latency_ns", 1, (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000)),
                               ("latency_us", 1000, (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000)),
                               ("latency_ms", 1000000, (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000))):
        block = {}
        for b in bounds:
            c = cdf(b * unit)
            block[str(b)] = round(max(0.0, c - prev) * 100.0, 6)
            prev = c
        out[name] = block
    out["latency_ms"][">=2000"] = round(max(0.0, 1.0 - prev) * 100.0, 6)
    return out


def _manifest_common(run: RunPlan, tools: list[str], started: dt.datetime, ended: dt.datetime,
                     description: str, tags: list[str]) -> dict[str, Any]:
    c = run.campaign
    return {"schema_version": 1, "run_id": run.run_id, "kind": "synthetic", "synthetic": True,
            "tools": tools, "started_at": started, "ended_at": ended, "status": "complete",
            "description": description,
            "tags": ["synthetic", "bench"] + tags + ([f"length-{c.length:g}"] if c.length != 1 else []),
            "sysstat_version": "12.6.1", "host": _host_table(c),
            # study_id names a published study a run transcribes: the campaign goes in [extra]
            "extra": {"synthetic_campaign": c.name, "synthetic_model": "iopscope.synth.model"}}


def write_run(out: Path, run: RunPlan) -> int:
    """Write one run folder; returns the bytes written."""
    manifest, files = (tpcc_run if run.campaign.kind == "tpcc" else fio_run)(run)
    folder = Path(out) / run.rel_dir
    folder.mkdir(parents=True, exist_ok=True)
    files["run.toml"] = fmt.toml(manifest, HEADER)
    written = 0
    for name, text in files.items():
        data = text.encode()
        (folder / name).write_bytes(data)
        written += len(data)
    return written


@dataclass
class GenerateReport:
    runs: int = 0
    bytes: int = 0
    files: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    devices: dict[str, int] = field(default_factory=dict)


@functools.lru_cache(maxsize=4)
def _plan_cached(seed: int, runs: int, length: float) -> tuple[RunPlan, ...]:
    return tuple(plan(seed, runs, length))


def _write_range(args: tuple[str, int, int, int, int, float]) -> tuple[int, int]:
    out, seed, total, start, stop, length = args
    runs = _plan_cached(seed, total, length)[start:stop]
    total = 0
    for run in runs:
        total += write_run(Path(out), run)
    return len(runs), total


def generate(out: Path, runs: int, seed: int = 1, *, start: int = 0, bundled: Path | None = None,
             workers: int = 1, on_progress: Callable[[int, int], None] | None = None,
             length: float = 1.0) -> GenerateReport:
    """Write runs ``start`` .. ``runs - 1`` of the seed under ``out``; copy ``bundled`` (a raw
    root, e.g. ``data/raw``) beside them when given. ``workers`` > 1 writes in parallel;
    ``length`` < 1 shortens every run (module docstring)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if bundled is not None and Path(bundled).is_dir():
        for entry in sorted(Path(bundled).iterdir()):
            if entry.is_dir() and entry.name != COLLECTION and not (out / entry.name).exists():
                shutil.copytree(entry, out / entry.name)
    report = GenerateReport()
    plans = plan(seed, runs, length)[start:]
    for p in plans:
        report.kinds[p.campaign.kind] = report.kinds.get(p.campaign.kind, 0) + 1
        report.devices[p.campaign.device.key] = report.devices.get(p.campaign.device.key, 0) + 1
    chunks = [(str(out), seed, runs, i, min(i + 50, runs), length) for i in range(start, runs, 50)]
    done = 0
    if workers > 1 and len(chunks) > 1:
        import multiprocessing as mp

        # the workers must die quietly when the pool ends them: forked from `iopscope`, they
        # would inherit its SIGTERM handler and print a traceback each (iopscope.cli)
        with mp.get_context("fork").Pool(workers, initializer=signal.signal,
                                         initargs=(signal.SIGTERM, signal.SIG_DFL)) as pool:
            for n, size in pool.imap_unordered(_write_range, chunks):
                done += n
                report.bytes += size
                if on_progress:
                    on_progress(done, len(plans))
    else:
        for chunk in chunks:
            n, size = _write_range(chunk)
            done += n
            report.bytes += size
            if on_progress:
                on_progress(done, len(plans))
    report.runs = done
    report.files = sum(1 for _ in _files(out / COLLECTION))
    return report


def _files(root: Path) -> Iterator[Path]:
    for folder, _, names in os.walk(root):
        for name in names:
            yield Path(folder) / name


# ------------------------------------------------------------------------------ single big files

# formats format_file writes itself; every other one has a module iopscope.synth.big_<format>
BUILT_IN_BIG_FORMATS = ("tpcc_mysql", "iostat_text", "iostat_json", "mpstat_json", "fio_json", "fio_log")
JSON_BIG_FORMATS = ("iostat_json", "mpstat_json", "fio_json")


def big_formats() -> tuple[str, ...]:
    """Every format format_file can write one large file of: the built-in ones, then one per
    module ``iopscope.synth.big_<format>``. A new format's generator module is its whole
    benchmark entry: the benchmark and the parser registry test find it by its file name."""
    import pkgutil

    from iopscope import synth

    own = sorted(m.name.removeprefix("big_") for m in pkgutil.iter_modules(synth.__path__)
                 if m.name.startswith("big_"))
    return BUILT_IN_BIG_FORMATS + tuple(name for name in own if name not in BUILT_IN_BIG_FORMATS)


def _first_campaign(seed: int, kind: str) -> Campaign:
    number = 0
    while True:
        c = campaign(seed, number)
        if c.kind == kind:
            return c
        number += 1


def format_file(fmt_name: str, target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of ONE synthetic file of a format, about ``target_bytes`` long.

    Used by the benchmark to time ingest on large single files and on many small ones.
    tpcc: one long tpcc_start run (1 s intervals); iostat / mpstat: a long capture of an
    8-vCPU host (mpstat -P ALL) with a data and a log device; fio_json: a json+ run with as
    many stonewalled jobs as needed; fio_log: a per-IO completion-latency log (log_offset=1).
    A format with a module ``iopscope.synth.big_<format>`` (mpstat and sar text, collectl plot
    files, fio terse and histogram logs) is written by that module's ``big_file``.
    """
    import dataclasses
    import importlib

    try:  # formats with a generator module of their own: iopscope.synth.big_<format>
        own = importlib.import_module(f"iopscope.synth.big_{fmt_name}")
    except ModuleNotFoundError:
        own = None
    if own is not None:
        return own.big_file(target_bytes, seed)
    if fmt_name == "fio_log":
        rng = random.Random(f"iopscope-synth/{seed}/fio_log")
        lines, t, size = [], 0, 0
        mean_ns = 95000.0
        while size < target_bytes:
            t += rng.randrange(0, 3)
            d = 0 if rng.random() < 0.67 else 1
            value = int(rng.lognormvariate(math.log(mean_ns), 0.35))
            line = f"{t}, {value}, {d}, 8192, {rng.randrange(0, 1 << 25) * 8192}, 0\n"
            lines.append(line)
            size += len(line)
        return "fio_clat.1.log", "".join(lines)
    if fmt_name == "fio_json":
        base = _first_campaign(seed, "fio")
        per_job = 20000
        jobs = max(1, int(target_bytes / per_job))
        levels = tuple(QD_LEVELS[i % len(QD_LEVELS)] for i in range(jobs))
        c = dataclasses.replace(base, levels=levels, profiles=("database",), fio_logs=False)
        _, files = fio_run(RunPlan(0, c, 0), parts=("fio",))
        return "fio.json", files["fio.json"]
    base = _first_campaign(seed, "tpcc")
    host = HOST_CLASSES["mid-vm"]
    log = DEVICE_CLASSES["nvme-gen3"]
    part = {"tpcc_mysql": "tpcc", "iostat_text": "iostat", "iostat_json": "iostat", "mpstat_json": "mpstat"}[fmt_name]
    per_second = {"tpcc": 105, "iostat": 800 if fmt_name == "iostat_text" else 1150, "mpstat": 1750}[part]
    seconds = max(2, int(target_bytes / per_second))
    c = dataclasses.replace(base, host=host, measure_s=seconds, levels=(32,), log_device=log,
                            log_device_id=f"synth-{log.key}-big", iostat_json=fmt_name == "iostat_json")
    _, files = tpcc_run(RunPlan(0, c, 0), parts=(part,))
    name = {"tpcc": "tpcc_start.out", "mpstat": "mpstat.json"}.get(part) or (
        "iostat.json" if fmt_name == "iostat_json" else "iostat.txt")
    return name, files[name]

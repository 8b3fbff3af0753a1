"""The toy performance model behind the synthetic runs: device classes, hosts and load curves.

Nothing here is a measurement. The numbers are round, plausible orders of magnitude for each
class of storage (a 7,200 rpm disk serves a few hundred random IOs per second, an NVMe drive a
few hundred thousand), chosen so that charts look like real ones: throughput rises with load
(outstanding IOs, connections) to a knee and flattens, and latency stays flat until the knee
and then grows with the queue (Little's law: latency = outstanding work / throughput).

>>> d = DEVICE_CLASSES["nvme-gen4"]
>>> [round(fio_point(d, qd, 8, 0.67).iops) for qd in (1, 16, 256)]
[21358, 332659, 779247]
>>> lo, hi = fio_point(d, 1, 8, 0.67), fio_point(d, 256, 8, 0.67)
>>> hi.mean_lat_us > 5 * lo.mean_lat_us
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceClass:
    key: str
    label: str                 # generic description (never a real product name)
    media: str                 # manifest [[devices]].media
    interface: str
    rotational: bool
    capacities_gb: tuple[float, ...]
    peak_iops_8k: float        # random 8 KiB IOs per second at saturation (mixed read/write)
    read_us: float             # unloaded read service time (queue depth 1)
    write_us: float            # unloaded write service time (write cache on SSDs)
    seq_mib_s: float           # sequential bandwidth ceiling
    sigma: float               # spread of the log-normal completion latency
    knee_sharpness: float      # higher = sharper knee
    weight: float              # share of the device mix


DEVICE_CLASSES: dict[str, DeviceClass] = {d.key: d for d in (
    DeviceClass("hdd-7k2-sata", "synthetic 7,200 rpm SATA disk", "hdd", "sata", True,
                (2000, 4000, 8000), 260, 8200, 7600, 190, 0.55, 1.6, 0.09),
    DeviceClass("hdd-10k-sas", "synthetic 10,000 rpm SAS disk", "hdd", "sas", True,
                (600, 1200, 1800), 420, 5600, 5200, 230, 0.50, 1.6, 0.07),
    DeviceClass("hdd-15k-sas", "synthetic 15,000 rpm SAS disk", "hdd", "sas", True,
                (300, 600, 900), 610, 3900, 3600, 260, 0.45, 1.6, 0.05),
    DeviceClass("ssd-sata", "synthetic SATA TLC SSD", "ssd", "sata", False,
                (480, 960, 1920, 3840), 62000, 95, 38, 530, 0.35, 2.5, 0.25),
    DeviceClass("ssd-sas", "synthetic 12G SAS SSD", "ssd", "sas", False,
                (800, 1600, 3200), 175000, 85, 30, 1050, 0.32, 2.5, 0.16),
    DeviceClass("nvme-gen3", "synthetic PCIe 3.0 NVMe SSD", "ssd", "nvme", False,
                (960, 1920, 3840), 420000, 78, 22, 3100, 0.30, 3.0, 0.21),
    DeviceClass("nvme-gen4", "synthetic PCIe 4.0 NVMe SSD", "ssd", "nvme", False,
                (1920, 3840, 7680), 780000, 62, 16, 6500, 0.28, 3.0, 0.17),
)}


@dataclass(frozen=True)
class HostClass:
    key: str
    label: str
    sockets: int
    physical_cores: int
    logical_cpus: int
    ghz: float
    ram_gib: float
    weight: float


HOST_CLASSES: dict[str, HostClass] = {h.key: h for h in (
    HostClass("small-vm", "synthetic 4-vCPU virtual machine", 1, 2, 4, 2.4, 16, 0.20),
    HostClass("mid-vm", "synthetic 8-vCPU virtual machine", 1, 4, 8, 2.6, 32, 0.30),
    HostClass("1s-server", "synthetic 1-socket server, 8 cores", 1, 8, 16, 3.0, 128, 0.25),
    HostClass("2s-server", "synthetic 2-socket server, 12 cores each", 2, 24, 48, 2.4, 384, 0.25),
)}


@dataclass(frozen=True)
class FioPoint:
    iops: float              # total IOs per second (read + write)
    mean_lat_us: float       # mean completion latency
    read_lat_us: float
    write_lat_us: float
    bw_kib_s: float


def _soft_min(a: float, b: float, p: float) -> float:
    """min(a, b) with a rounded corner: the sharper p, the closer to min."""
    if a <= 0 or b <= 0:
        return 0.0
    return (a ** -p + b ** -p) ** (-1.0 / p)


def fio_point(device: DeviceClass, qd: int, bs_kib: int, read_share: float,
              sequential: bool = False) -> FioPoint:
    """Throughput and latency of one fio job at ``qd`` outstanding IOs (numjobs 1)."""
    unloaded_us = read_share * device.read_us + (1 - read_share) * device.write_us
    size_factor = 1.0 + max(bs_kib - 8, 0) / 64.0 * (0.15 if device.rotational else 1.0)
    unloaded_us *= size_factor
    if sequential and device.rotational:
        unloaded_us = max(unloaded_us / 40.0, 60.0)   # no seeks
    peak = device.peak_iops_8k * 8.0 / max(bs_kib, 4) if bs_kib > 8 else device.peak_iops_8k
    if sequential:
        peak = max(peak, device.seq_mib_s * 1024.0 / bs_kib * 0.95)
    peak = min(peak, device.seq_mib_s * 1024.0 / bs_kib)   # the interface caps bandwidth
    iops = _soft_min(qd * 1e6 / unloaded_us, peak, device.knee_sharpness)
    mean_us = qd * 1e6 / iops                               # Little's law
    ratio = mean_us / unloaded_us
    read_us = device.read_us * size_factor * ratio
    write_us = device.write_us * size_factor * ratio
    return FioPoint(iops, mean_us, read_us, write_us, iops * bs_kib)


@dataclass(frozen=True)
class TpccPoint:
    tps: float               # all transactions per second
    new_order_tpm: float     # New-Order per minute (TpmC)
    mean_rt_ms: float        # mean response time over all transactions
    io_per_tx: float         # data-device reads + writes per transaction
    cpu_busy_pct: float


def tpcc_point(device: DeviceClass, host: HostClass, warehouses: int, connections: int,
               buffer_pool_gib: float) -> TpccPoint:
    """Throughput of the TPC-C mix at ``connections`` clients (no think time)."""
    data_gib = warehouses * 0.1
    miss = min(1.0, max(0.01, 1.0 - buffer_pool_gib / max(data_gib, 0.1)) ** 1.5 + 0.01)
    reads_per_tx = 18.0 * miss
    io_per_tx = reads_per_tx + 2.5
    cpu_tps = host.logical_cpus * host.ghz * 60.0
    io_tps = device.peak_iops_8k * 0.8 / io_per_tx
    peak = _soft_min(cpu_tps, io_tps, 4.0)
    service_ms = 3.0 + reads_per_tx * device.read_us / 1000.0
    tps = _soft_min(connections * 1000.0 / service_ms, peak, 2.2)
    # past the knee lock and latch contention costs a little throughput
    knee = peak * service_ms / 1000.0
    tps /= 1.0 + 0.0015 * max(0.0, connections - 2 * knee)
    mean_rt = connections * 1000.0 / tps if tps else math.inf
    busy = min(98.0, 100.0 * tps / cpu_tps * 0.85 + 2.0)
    return TpccPoint(tps, tps * 0.45 * 60.0, mean_rt, io_per_tx, busy)

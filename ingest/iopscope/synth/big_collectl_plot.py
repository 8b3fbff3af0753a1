"""One long synthetic collectl plot file (``collectl -scdmn -P -f DIR -i1``), for the benchmark.

The layout is the ``.tab`` file collectl 4.3.1 writes (``tests/fixtures/collectl/collectl-4.3.1/
vm-20261121_scdmn_f.tab``): the ``#`` comment block, the ``#Date Time`` header with the 70
columns of ``-scdmn`` in that order (CPU, MEM, NET, DSK), then one space-separated row per second.
The host is an 8-vCPU VM named ``synth-...`` (labelled synthetic) with two virtio disks; its
load follows a slow wave with bursts, and every value is printed as collectl prints it (whole
numbers, load averages with two decimals, CPU percentages rounded one by one, so a row adds up
to 100 only within a few points).

>>> name, text = big_file(5000)
>>> name
'synth-collectl-8vcpu-20261121-060000.tab'
>>> lines = text.splitlines()
>>> lines[14].split()[:4], len(lines[14].split()), len(lines[15].split())
(['#Date', 'Time', '[CPU]User%', '[CPU]Nice%'], 70, 70)
>>> lines[15].split()[:2]
['20261121', '06:00:01']
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta

CPUS = 8
MEMORY_KB = 32_873_092
START = datetime(2026, 11, 21, 6, 0, 0)

COLUMNS = (
    "[CPU]User% [CPU]Nice% [CPU]Sys% [CPU]Wait% [CPU]Irq% [CPU]Soft% [CPU]Steal% [CPU]Idle% "
    "[CPU]Totl% [CPU]Guest% [CPU]GuestN% [CPU]Intrpt/sec [CPU]Ctx/sec [CPU]Proc/sec [CPU]ProcQue "
    "[CPU]ProcRun [CPU]L-Avg1 [CPU]L-Avg5 [CPU]L-Avg15 [CPU]RunTot [CPU]BlkTot [MEM]Tot [MEM]Used "
    "[MEM]Free [MEM]Shared [MEM]Buf [MEM]Cached [MEM]Slab [MEM]Map [MEM]Anon [MEM]AnonH "
    "[MEM]Commit [MEM]Locked [MEM]SwapTot [MEM]SwapUsed [MEM]SwapFree [MEM]SwapIn [MEM]SwapOut "
    "[MEM]Dirty [MEM]Clean [MEM]Laundry [MEM]Inactive [MEM]PageIn [MEM]PageOut [MEM]PageFaults "
    "[MEM]PageMajFaults [MEM]HugeTotal [MEM]HugeFree [MEM]HugeRsvd [MEM]SUnreclaim [NET]RxPktTot "
    "[NET]TxPktTot [NET]RxKBTot [NET]TxKBTot [NET]RxCmpTot [NET]RxMltTot [NET]TxCmpTot "
    "[NET]RxErrsTot [NET]TxErrsTot [DSK]ReadTot [DSK]WriteTot [DSK]OpsTot [DSK]ReadKBTot "
    "[DSK]WriteKBTot [DSK]KbTot [DSK]ReadMrgTot [DSK]WriteMrgTot [DSK]MrgTot"
)


def _banner(host: str, start: datetime) -> str:
    stamp = start.strftime("%Y%m%d-%H%M%S")
    secs = int((start - datetime(1970, 1, 1)).total_seconds())
    booted = start - timedelta(hours=3, minutes=17, seconds=41)
    rule = "#" * 80
    return "\n".join([
        rule,
        f"# Collectl:   V4.3.1-1  HiRes: 1  Options: -scdmn -P -f /var/log/collectl/{host} -i1 ",
        f"# Host:       {host}  DaemonOpts: ",
        f"# Booted:     {secs - 11861}.42 [{booted.strftime('%Y%m%d-%H:%M:%S')}]",
        "# Distro:     debian 12.11  Platform: Unknown",
        f"# Date:       {stamp}  Secs: {secs} TZ: +0000",
        f"# SubSys:     cdmn Options:  Interval: 1 NumCPUs: {CPUS}  NumBud: 0 Flags: i",
        "# Filters:    NfsFilt:  EnvFilt:  TcpFilt: ituc",
        "# HZ:         100  Arch: x86_64-linux-gnu-thread-multi PageSize: 4096",
        f"# Cpu:        GenuineIntel Speed(MHz): 2300.000 Cores: {CPUS}  Siblings: {CPUS} Nodes: 1",
        f"# Kernel:     6.1.0-27-cloud-amd64  Memory: {MEMORY_KB} kB  Swap: 0 kB",
        "# NumDisks:   2 DiskNames: vda vdb",
        "# NumNets:    2 NetNames: lo:?? eth0:-1",
        rule,
        "#Date Time " + COLUMNS,
        "",
    ])


def _cpu_percentages(rng: random.Random, load: float) -> list[int]:
    """User Nice Sys Wait Irq Soft Steal Idle, each rounded on its own as collectl does."""
    busy = min(0.97, max(0.005, load))
    shares = (0.68, 0.01, 0.19, 0.07, 0.002, 0.035, 0.013)
    parts = [s * rng.uniform(0.7, 1.3) for s in shares]
    scale = busy / sum(parts)
    return [round(p * scale * 100) for p in parts] + [round((1.0 - busy) * 100)]


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of one ``-scdmn -P`` capture, one row a second, about target_bytes."""
    rng = random.Random(f"iopscope-synth/{seed}/collectl_plot")
    host = "synth-collectl-8vcpu"
    out = [_banner(host, START)]
    size = len(out[0])
    when = START
    avg1 = avg5 = avg15 = 1.2
    used = 6_412_000
    cached = 18_300_000
    dirty = 9_000
    t = 0
    while size < target_bytes:
        t += 1
        when += timedelta(seconds=1)
        wave = 0.35 + 0.25 * math.sin(t / 5400.0) + 0.05 * math.sin(t / 97.0)
        burst = rng.random() < 0.02
        load = max(0.005, wave + (rng.uniform(0.2, 0.5) if burst else rng.gauss(0.0, 0.04)))
        pct = _cpu_percentages(rng, load)
        totl = 100 - pct[7]
        running = max(0, round(load * CPUS + rng.gauss(0, 0.7)))
        blocked = max(0, round(pct[3] / 12 + rng.gauss(0, 0.3)))
        avg1 += (running + blocked - avg1) * (1 - math.exp(-1 / 60))
        avg5 += (running + blocked - avg5) * (1 - math.exp(-1 / 300))
        avg15 += (running + blocked - avg15) * (1 - math.exp(-1 / 900))
        intr = round(900 + 14000 * load * rng.uniform(0.8, 1.2))
        ctx = round(1500 + 32000 * load * rng.uniform(0.8, 1.2))
        forks = rng.randrange(0, 40)
        used = max(2_000_000, min(MEMORY_KB - 4_000_000, used + rng.randrange(-6000, 6200)))
        cached = max(4_000_000, min(MEMORY_KB - used - 500_000, cached + rng.randrange(-2000, 2400)))
        free = MEMORY_KB - used - cached - 112_000
        dirty = max(0, dirty + rng.randrange(-3000, 3000))
        anon = used - 2_100_000
        reads = round(rng.expovariate(1 / (1 + 900 * load)))
        writes = round(rng.expovariate(1 / (1 + 1400 * load)))
        read_kb = reads * rng.choice((4, 8, 16, 16, 64))
        write_kb = writes * rng.choice((4, 8, 8, 16, 128))
        read_mrg = rng.randrange(0, 1 + reads // 8)
        write_mrg = rng.randrange(0, 1 + writes // 4)
        rx_pkt = round(200 + 9000 * load * rng.uniform(0.7, 1.3))
        tx_pkt = round(rx_pkt * rng.uniform(0.8, 1.1))
        rx_kb = round(rx_pkt * rng.uniform(0.3, 1.4))
        tx_kb = round(tx_pkt * rng.uniform(0.5, 2.5))
        page_in = read_kb
        page_out = write_kb
        faults = round(2000 + 30000 * load * rng.uniform(0.5, 1.5))
        values = [
            *pct[:7], pct[7], totl, 0, 0, intr, ctx, forks, 700 + rng.randrange(0, 60),
            running, f"{avg1:.2f}", f"{avg5:.2f}", f"{avg15:.2f}", running, blocked,
            MEMORY_KB, used + cached, free, 2_140, 412_000, cached, 611_000, 212_000 + rng.randrange(0, 9000),
            anon, 1_050_624, anon + 3_100_000, 19_316, 0, 0, 0, 0, 0, dirty, 0, 0, 9_800_000 + rng.randrange(0, 90_000),
            page_in, page_out, faults, rng.randrange(0, 3), 0, 0, 0, 240_000,
            rx_pkt, tx_pkt, rx_kb, tx_kb, 0, rng.randrange(0, 2), 0, 0, 0,
            reads, writes, reads + writes, read_kb, write_kb, read_kb + write_kb, read_mrg, write_mrg,
            read_mrg + write_mrg,
        ]
        line = when.strftime("%Y%m%d %H:%M:%S ") + " ".join(map(str, values)) + "\n"
        out.append(line)
        size += len(line)
    return f"{host}-{START.strftime('%Y%m%d-%H%M%S')}.tab", "".join(out)

"""Writers that lay synthetic numbers out exactly as the real tools print them.

Each function returns the text a tool would have written; none reads or writes files. The
layouts follow captures in ``tests/fixtures/`` and ``data/raw/measured/``:

* :func:`tpcc_start_output` -- tpcc-mysql ``tpcc_start`` stdout, current (2016-02 on) format
  (``%4d, trx: %d, 95%: %.3f, 99%: %.3f, max_rt: %.3f, %d|%.3f`` x4), as
  ``tests/tools/tpcc_start`` prints it.
* :func:`fio_json_plus` -- ``fio --output-format=json+`` (fio 3.33): 2-space indent,
  ``"key" : value``, floats as ``%f``, completion-latency ``bins`` at fio's histogram bucket
  values (6 bits of precision per power of two).
* :func:`fio_log` -- ``write_bw_log`` / ``write_iops_log`` / ``write_lat_log`` with
  ``log_avg_msec``: ``time, value, ddir, 0, 0``.
* :func:`iostat_text` -- ``iostat -x -t -y 1 N`` (sysstat 12.6, C locale), columns right-aligned
  under the header.
* :func:`iostat_json` / :func:`mpstat_json` -- ``iostat -o JSON -t -x -y`` and
  ``mpstat -o JSON [-P ALL]`` (tab-indented sysstat JSON).
* :func:`toml` -- the subset of TOML a ``run.toml`` manifest needs.

>>> print(fio_log([(1000, 5120, 0), (1000, 2048, 1)]), end="")
1000, 5120, 0, 0, 0
1000, 2048, 1, 0, 0
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
from typing import Any, Iterable, Sequence

# ------------------------------------------------------------------------------ helpers


def f32(x: float) -> float:
    """Round to a C float, as tpcc_start's ``float`` arithmetic does."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _cfmt(value: float, decimals: int) -> str:
    if math.isnan(value):
        return "-nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{decimals}f}"


def _cdiv(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


def us_date(t: dt.datetime, iso: bool = False) -> str:
    """sysstat's date: ``%x`` in the C locale (MM/DD/YY), or ISO with ``S_TIME_FORMAT=ISO``."""
    return t.strftime("%Y-%m-%d" if iso else "%m/%d/%y")


def sysstat_stamp(t: dt.datetime, iso: bool = False) -> str:
    """A ``-t`` time stamp: ``%x %X`` (C locale) or ISO 8601 with the zone (UTC here)."""
    return t.strftime("%Y-%m-%dT%H:%M:%S+0000" if iso else "%m/%d/%y %H:%M:%S")


# ------------------------------------------------------------------------------ tpcc-mysql

TPCC_LIMITS_MS = (5, 5, 5, 80, 20)    # tpcc_start's default late limits per transaction type
TPCC_MIX = (10, 10, 1, 1, 1)           # seq_init(10, 10, 1, 1, 1): the transaction deck


def tpcc_start_output(*, host: str, database: str, user: str, password: str, warehouses: int,
                      connections: int, rampup_s: int, measure_s: int, interval_s: int,
                      intervals: Sequence[tuple[list[int], float, float, list[float]]],
                      late: Sequence[int], total_rt_ms: Sequence[float], retries: Sequence[int]) -> str:
    """tpcc_start stdout. ``intervals`` = (counts per type, New-Order p95, p99, max per type);
    ``late`` = late transactions per type over the run; ``total_rt_ms`` = summed response time
    per type (ramp-up included, as tpcc_start adds from the first transaction)."""
    out = ["***************************************\n",
           "*** ###easy### TPC-C Load Generator ***\n",
           "***************************************\n"]
    for letter, value in (("h", host), ("d", database), ("u", user), ("p", password),
                          ("w", warehouses), ("c", connections), ("r", rampup_s), ("l", measure_s),
                          ("i", interval_s)):
        out.append(f"option {letter} with value '{value}'\n")
    out.append("<Parameters>\n")
    out.append(f"     [server]: {host}\n     [port]: 3306\n     [DBname]: {database}\n")
    out.append(f"       [user]: {user}\n       [pass]: {password}\n")
    out.append(f"  [warehouse]: {warehouses}\n [connection]: {connections}\n")
    out.append(f"     [rampup]: {rampup_s} (sec.)\n    [measure]: {measure_s} (sec.)\n")
    out.append(f"\nRAMP-UP TIME.({rampup_s} sec.)\n\nMEASURING START.\n\n")
    totals = [0] * 5
    for tick, (counts, p95, p99, maxes) in enumerate(intervals, 1):
        for t in range(5):
            totals[t] += counts[t]
        out.append(f"{tick * interval_s:4d}, trx: {counts[0]}, 95%: {p95:.3f}, 99%: {p99:.3f}, "
                   f"max_rt: {maxes[0]:.3f}, {counts[1]}|{maxes[1]:.3f}, {counts[2]}|{maxes[2]:.3f}, "
                   f"{counts[3]}|{maxes[3]:.3f}, {counts[4]}|{maxes[4]:.3f}\n")
    out.append("\nSTOPPING THREADS" + "." * connections + "\n")
    success = [totals[t] - late[t] for t in range(5)]
    measured = len(intervals) * interval_s
    out.append("\n<Raw Results>\n")
    for t in range(5):
        avg = _cdiv(total_rt_ms[t], success[t] + late[t])
        out.append(f"  [{t}] sc:{success[t]} lt:{late[t]}  rt:{retries[t]}  fl:0 avg_rt: "
                   f"{_cfmt(avg, 1)} ({TPCC_LIMITS_MS[t]})\n")
    out.append(f" in {measured} sec.\n\n<Raw Results2(sum ver.)>\n")
    for t in range(5):
        out.append(f"  [{t}] sc:{success[t]}  lt:{late[t]}  rt:{retries[t]}  fl:0 \n")
    out.append("\n<Constraint Check> (all must be [OK])\n [transaction percentage]\n")
    j = sum(totals)
    for t, label, floor in ((1, "        Payment", "43.0"), (2, "   Order-Status", " 4.0"),
                            (3, "       Delivery", " 4.0"), (4, "    Stock-Level", " 4.0")):
        f = f32(_cdiv(100.0 * f32(totals[t]), f32(j)))
        out.append(f"{label}: {_cfmt(f, 2)}% (>={floor}%)" + (" [OK]\n" if f >= float(floor) else " [NG] *\n"))
    out.append(" [response time (at least 90% passed)]\n")
    for t, label in enumerate(("      New-Order", "        Payment", "   Order-Status",
                               "       Delivery", "    Stock-Level")):
        f = f32(_cdiv(100.0 * f32(success[t]), f32(totals[t])))
        out.append(f"{label}: {_cfmt(f, 2)}% " + (" [OK]\n" if f >= 90.0 else " [NG] *\n"))
    tpmc = f32(_cdiv(f32(totals[0]) * 60.0, f32(measured)))
    out.append(f"\n<TpmC>\n                 {_cfmt(tpmc, 3)} TpmC\n")
    return "".join(out)


# ------------------------------------------------------------------------------ fio

PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS


def plat_bucket(value: int) -> int:
    """fio's latency histogram bucket index of a value (ns)."""
    if value < (PLAT_VAL << 1):
        return max(int(value), 0)
    msb = int(value).bit_length() - 1
    error_bits = msb - PLAT_BITS
    return (error_bits + 1) * PLAT_VAL + ((int(value) >> error_bits) & (PLAT_VAL - 1))


def plat_bounds(idx: int) -> tuple[int, int, int]:
    """(low, high, representative value) of a bucket; fio prints the representative value."""
    if idx < (PLAT_VAL << 1):
        return idx, idx + 1, idx
    error_bits = (idx >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    k = idx % PLAT_VAL
    low = base + k * (1 << error_bits)
    return low, low + (1 << error_bits), int(base + (k + 0.5) * (1 << error_bits))


def _phi(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def lognormal_bins(n: int, mean_ns: float, sigma: float) -> dict[int, int]:
    """Counts per fio bucket (keyed by representative value) of ``n`` log-normal latencies."""
    if n <= 0 or mean_ns <= 0:
        return {}
    mu = math.log(mean_ns) - sigma * sigma / 2.0
    lo = plat_bucket(int(math.exp(mu - 5.3 * sigma)))
    hi = plat_bucket(int(math.exp(mu + 5.3 * sigma)) + 1)
    bins: dict[int, int] = {}
    assigned = 0
    for idx in range(lo, hi + 1):
        _, high, value = plat_bounds(idx)
        cdf = _phi((math.log(high) - mu) / sigma)
        count = int(round(n * cdf)) - assigned
        if count > 0:
            bins[value] = bins.get(value, 0) + count
            assigned += count
    if assigned < n:                              # rounding: the rest in the top bucket
        top = plat_bounds(hi)[2]
        bins[top] = bins.get(top, 0) + n - assigned
    return bins


FIO_PERCENTILES = (1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0,
                   99.5, 99.9, 99.95, 99.99)


def percentiles_from_bins(bins: dict[int, int]) -> dict[str, int]:
    total = sum(bins.values())
    values = sorted(bins)
    out: dict[str, int] = {}
    running, i = 0, 0
    for p in FIO_PERCENTILES:
        target = total * p / 100.0
        while i < len(values) and running + bins[values[i]] < target:
            running += bins[values[i]]
            i += 1
        out[f"{p:f}"] = values[min(i, len(values) - 1)] if values else 0
    return out


def fio_json_dump(value: Any, indent: int = 0) -> str:
    """fio's JSON layout: ``"key" : value``, 2-space indent, floats with 6 decimals."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{\n" + pad + "}"
        inner = "  " * (indent + 1)
        parts = [f'{inner}{json.dumps(k)} : {fio_json_dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[\n" + pad + "]"
        inner = "  " * (indent + 1)
        return "[\n" + ",\n".join(inner + fio_json_dump(v, indent + 1) for v in value) + "\n" + pad + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:f}"
    return json.dumps(value)


def fio_log(samples: Iterable[tuple[int, float, int]], log_offset: bool = False) -> str:
    """Windowed fio log (``log_avg_msec``): time ms, value, ddir, then 0 for the block size,
    (with ``log_offset=1``) the offset and the command priority."""
    tail = ", 0, 0, 0\n" if log_offset else ", 0, 0\n"
    return "".join(f"{t}, {int(v)}, {d}{tail}" for t, v, d in samples)


def fio_jobfile(comment: str, global_options: dict[str, str], jobs: Sequence[tuple[str, dict[str, str]]]) -> str:
    lines = [f"; {comment}", "[global]"]
    lines += [f"{k}={v}" for k, v in global_options.items()]
    for name, options in jobs:
        lines += ["", f"[{name}]"] + [f"{k}={v}" if v != "" else k for k, v in options.items()]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ sysstat

IOSTAT_X_HEADER = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   "
                   "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     "
                   "f/s f_await  aqu-sz  %util")
IOSTAT_X_KEYS = ("r/s", "rkB/s", "rrqm/s", "rrqm", "r_await", "rareq-sz", "w/s", "wkB/s", "wrqm/s",
                 "wrqm", "w_await", "wareq-sz", "d/s", "dkB/s", "drqm/s", "drqm", "d_await",
                 "dareq-sz", "f/s", "f_await", "aqu-sz", "util")


def _widths(header: str, first: int) -> list[int]:
    ends, pos = [], 0
    for token in header.split():
        pos = header.index(token, pos) + len(token)
        ends.append(pos)
    return [b - a for a, b in zip([first] + ends[1:-1], ends[1:])]


_X_WIDTHS = _widths(IOSTAT_X_HEADER, 13)
_CPU_KEYS = ("user", "nice", "system", "iowait", "steal", "idle")


def sysstat_banner(kernel: str, hostname: str, day: dt.datetime, cpus: int, iso: bool = False) -> str:
    return f"Linux {kernel} ({hostname}) \t{us_date(day, iso)} \t_x86_64_\t({cpus} CPU)\n"


def iostat_text(*, kernel: str, hostname: str, cpus: int, iso: bool = False,
                samples: Sequence[tuple[dt.datetime, dict[str, float], list[tuple[str, dict[str, float]]]]]) -> str:
    """``iostat -x -t -y 1 N``: banner, the empty report -y skips, then one block per sample."""
    first = samples[0][0] if samples else dt.datetime(2026, 1, 1)
    out = [sysstat_banner(kernel, hostname, first, cpus, iso), "\n\n"]
    widths = _X_WIDTHS
    for when, cpu, disks in samples:
        out.append(sysstat_stamp(when, iso) + "\n")
        out.append("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n")
        vals = [cpu[k] for k in _CPU_KEYS]
        out.append(f"{vals[0]:15.2f}" + "".join(f"{v:8.2f}" for v in vals[1:]) + "\n\n")
        out.append(IOSTAT_X_HEADER + "\n")
        for name, row in disks:
            # sysstat prints " %*.2f": a value wider than its column pushes the line right
            out.append(f"{name:<13}" + "".join(f" {row[k]:{w - 1}.2f}" for k, w in zip(IOSTAT_X_KEYS, widths)) + "\n")
        out.append("\n\n")
    return "".join(out)


def _sysstat_json_head(kernel: str, hostname: str, cpus: int, day: dt.datetime, iso: bool) -> str:
    return ('{"sysstat": {\n\t"hosts": [\n\t\t{\n'
            f'\t\t\t"nodename": "{hostname}",\n\t\t\t"sysname": "Linux",\n'
            f'\t\t\t"release": "{kernel}",\n\t\t\t"machine": "x86_64",\n'
            f'\t\t\t"number-of-cpus": {cpus},\n\t\t\t"date": "{us_date(day, iso)}",\n'
            '\t\t\t"statistics": [\n')


_SYSSTAT_TAIL = "\t\t\t]\n\t\t}\n\t]\n}}\n"


def iostat_json(*, kernel: str, hostname: str, cpus: int, iso: bool = False,
                samples: Sequence[tuple[dt.datetime, dict[str, float], list[tuple[str, dict[str, float]]]]]) -> str:
    """``iostat -o JSON -t -x -y 1 N`` (the empty line after ``"statistics": [`` is -y's)."""
    first = samples[0][0] if samples else dt.datetime(2026, 1, 1)
    out = [_sysstat_json_head(kernel, hostname, cpus, first, iso), "\n"]
    entries = []
    for when, cpu, disks in samples:
        cpu_text = ", ".join(f'"{k}": {cpu[k]:.2f}' for k in _CPU_KEYS)
        disk_text = ",\n".join(
            "\t\t\t\t\t\t{" + f'"disk_device": "{name}", '
            + ", ".join(f'"{k}": {row[k]:.2f}' for k in _IOSTAT_JSON_ORDER) + "}"
            for name, row in disks)
        entries.append(f'\t\t\t\t{{\n\t\t\t\t\t"timestamp": "{sysstat_stamp(when, iso)}",\n'
                       f'\t\t\t\t\t"avg-cpu":  {{{cpu_text}}},\n\t\t\t\t\t"disk": [\n{disk_text}\n'
                       '\t\t\t\t\t]\n\t\t\t\t}')
    out.append(",\n".join(entries) + "\n")
    out.append(_SYSSTAT_TAIL)
    return "".join(out)


_IOSTAT_JSON_ORDER = ("r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s", "drqm/s",
                      "rrqm", "wrqm", "drqm", "r_await", "w_await", "d_await", "f_await", "rareq-sz",
                      "wareq-sz", "dareq-sz", "aqu-sz", "util")
MPSTAT_KEYS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")


def mpstat_json(*, kernel: str, hostname: str, cpus: int, iso: bool = False,
                samples: Sequence[tuple[dt.datetime, list[tuple[str, Sequence[float]]]]]) -> str:
    """``mpstat -o JSON [-P ALL] 1 N``: per sample, ``cpu-load`` rows (``all`` then each CPU)."""
    first = samples[0][0] if samples else dt.datetime(2026, 1, 1)
    out = [_sysstat_json_head(kernel, hostname, cpus, first, iso)]
    entries = []
    for when, loads in samples:
        rows = ",\n".join("\t\t\t\t\t\t{" + f'"cpu": "{cpu}", '
                          + ", ".join(f'"{k}": {v:.2f}' for k, v in zip(MPSTAT_KEYS, values)) + "}"
                          for cpu, values in loads)
        entries.append(f'\t\t\t\t{{\n\t\t\t\t\t"timestamp": "{when.strftime("%H:%M:%S")}",\n'
                       f'\t\t\t\t\t"cpu-load": [\n{rows}\n\t\t\t\t\t]\n\t\t\t\t}}')
    out.append(",\n".join(entries) + "\n")
    out.append(_SYSSTAT_TAIL)
    return "".join(out)


# ------------------------------------------------------------------------------ TOML


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def toml(data: dict[str, Any], header: str = "") -> str:
    """Scalars first, then ``[tables]`` and ``[[arrays of tables]]`` (one level of nesting,
    plus sub-tables of tables such as ``[db.parameters]``)."""
    lines = [f"# {ln}" if ln else "#" for ln in header.splitlines()]
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)
               and not (isinstance(v, list) and v and isinstance(v[0], dict))}
    lines += [f"{k} = {_toml_value(v)}" for k, v in scalars.items()]

    def table(name: str, body: dict[str, Any], array: bool = False) -> None:
        lines.append("")
        lines.append(f"[[{name}]]" if array else f"[{name}]")
        subs = {}
        for k, v in body.items():
            if isinstance(v, dict):
                subs[k] = v
            else:
                lines.append(f"{k} = {_toml_value(v)}")
        for k, v in subs.items():
            table(f"{name}.{k}", v)

    for k, v in data.items():
        if isinstance(v, dict):
            table(k, v)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                table(k, item, array=True)
    return "\n".join(lines) + "\n"

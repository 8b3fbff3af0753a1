"""Facts about the machine for a run manifest: host, target filesystem and block device, tools.

Everything is read, never guessed: a fact the machine does not expose stays absent (null in the
lake). Sources: ``lscpu -J``, ``/proc/cpuinfo``, ``/proc/meminfo``, ``uname``,
``/etc/os-release``, ``/sys/class/dmi/id``, ``/proc/self/mountinfo``, ``/sys/dev/block`` and
``/sys/block/<dev>`` (model, vendor, rotational, size, scheduler), ``/sys/class/nvme`` and, when
the ``nvme`` CLI is installed, ``nvme id-ctrl -o json``; ``fio --version`` and ``iostat -V``.

The parsing helpers are pure functions of text so they can be tested without the machine.

>>> lscpu_facts({"lscpu": [{"field": "Model name:", "data": "Xeon @ 2.30GHz"},
...   {"field": "Socket(s):", "data": "2"}, {"field": "Core(s) per socket:", "data": "8"},
...   {"field": "CPU(s):", "data": "32"}]})["physical_cores"]
16
>>> scheduler_from_sysfs("none [mq-deadline] kyber bfq")
'mq-deadline'
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import socket
import stat
import subprocess
from pathlib import Path
from typing import Any

SYS = Path("/sys")
PROC = Path("/proc")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _run(cmd: list[str], timeout: float = 10) -> str | None:
    if shutil.which(cmd[0]) is None and not os.path.isabs(cmd[0]):
        return None
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


# --------------------------------------------------------------------------- host


def lscpu_facts(doc: dict) -> dict[str, Any]:
    """Host keys from ``lscpu -J`` output (a dict). Missing lscpu fields give absent keys."""
    fields: dict[str, str] = {}

    def walk(entries):
        for entry in entries or []:
            name = str(entry.get("field", "")).rstrip(":").strip()
            if name and name not in fields and entry.get("data") is not None:
                fields[name] = str(entry["data"]).strip()
            walk(entry.get("children"))

    walk(doc.get("lscpu"))
    out: dict[str, Any] = {}
    if fields.get("Model name"):
        out["cpu_model"] = fields["Model name"]
    sockets = _int(fields.get("Socket(s)"))
    per_socket = _int(fields.get("Core(s) per socket"))
    cpus = _int(fields.get("CPU(s)"))
    if sockets:
        out["sockets"] = sockets
    if sockets and per_socket:
        out["physical_cores"] = sockets * per_socket
    if cpus:
        out["logical_cpus"] = cpus
    max_mhz = _float(fields.get("CPU max MHz"))
    model_ghz = re.search(r"@\s*([0-9.]+)\s*GHz", fields.get("Model name", ""))
    if max_mhz:
        out["nominal_ghz"] = round(max_mhz / 1000, 3)
        out["_nominal_source"] = "lscpu CPU max MHz"
    elif model_ghz:
        out["nominal_ghz"] = float(model_ghz.group(1))
        out["_nominal_source"] = "CPU model name"
    cur = _float(fields.get("CPU MHz"))
    if cur:
        out["current_ghz"] = round(cur / 1000, 3)
        out["_current_source"] = "lscpu CPU MHz"
    if fields.get("Hypervisor vendor"):
        out["_hypervisor"] = fields["Hypervisor vendor"]
    return out


def cpuinfo_mhz(text: str) -> float | None:
    """Mean of the ``cpu MHz`` lines of /proc/cpuinfo."""
    values = [float(m.group(1)) for m in re.finditer(r"^cpu MHz\s*:\s*([0-9.]+)", text, re.M)]
    return sum(values) / len(values) if values else None


def meminfo_gib(text: str) -> float | None:
    m = re.search(r"^MemTotal:\s*(\d+)\s*kB", text, re.M)
    return round(int(m.group(1)) / 1048576, 1) if m else None


def os_pretty_name(text: str) -> str | None:
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.M)
    return m.group(1) if m else None


def host_facts(host_id: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """([host] table, extra facts). Reads the live machine."""
    host: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    text = _run(["lscpu", "-J"])
    facts: dict[str, Any] = {}
    if text:
        try:
            facts = lscpu_facts(json.loads(text))
        except ValueError:
            facts = {}
    cpuinfo = _read(PROC / "cpuinfo") or ""
    if "current_ghz" not in facts:
        mhz = cpuinfo_mhz(cpuinfo)
        if mhz:
            facts["current_ghz"] = round(mhz / 1000, 3)
            facts["_current_source"] = "/proc/cpuinfo cpu MHz (mean over CPUs)"
    hostname = socket.gethostname()
    host["host_id"] = host_id or hostname
    vendor = _read(SYS / "class/dmi/id/sys_vendor")
    product = _read(SYS / "class/dmi/id/product_name")
    if vendor or product:
        host["vendor_model"] = " ".join(x for x in (vendor, product) if x)
    elif facts.get("_hypervisor"):
        host["vendor_model"] = f"{facts['_hypervisor']} virtual machine"
    for k in ("cpu_model", "sockets", "physical_cores", "logical_cpus", "nominal_ghz", "current_ghz"):
        if k in facts:
            host[k] = facts[k]
    ram = meminfo_gib(_read(PROC / "meminfo") or "")
    if ram:
        host["ram_gib"] = ram
    pretty = os_pretty_name(_read(Path("/etc/os-release")) or "")
    if pretty:
        host["os"] = pretty
    host["kernel"] = platform.release()
    host["hostname"] = hostname
    for k in ("_nominal_source", "_current_source", "_hypervisor"):
        if k in facts:
            extra[k.lstrip("_")] = facts[k]
    load = _read(PROC / "loadavg")
    if load:
        extra["loadavg_at_start"] = " ".join(load.split()[:3])
    return host, extra


def _int(text: str | None) -> int | None:
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


def _float(text: str | None) -> float | None:
    try:
        return float(str(text).strip().replace(",", "."))
    except (TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- tools


def fio_version(fio: str = "fio") -> str | None:
    out = _run([fio, "--version"])
    return out.strip().removeprefix("fio-") if out else None


def sysstat_version(iostat: str = "iostat") -> str | None:
    out = _run([iostat, "-V"])
    m = re.search(r"sysstat version\s+(\S+)", out or "")
    return m.group(1) if m else None


# --------------------------------------------------------------------------- storage


def scheduler_from_sysfs(text: str | None) -> str | None:
    if not text:
        return None
    m = re.search(r"\[([^\]]+)\]", text)
    return m.group(1) if m else (text.split()[0] if text.split() else None)


def unescape_mount(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def mount_for(path: Path, mountinfo: str | None = None) -> dict[str, str] | None:
    """Mount point, filesystem type and source of the filesystem holding ``path``."""
    mountinfo = mountinfo if mountinfo is not None else (_read(PROC / "self/mountinfo") or "")
    target = str(Path(path).resolve())
    best: dict[str, str] | None = None
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        parts, rparts = left.split(), right.split()
        if len(parts) < 5 or len(rparts) < 2:
            continue
        mountpoint = unescape_mount(parts[4])
        inside = target == mountpoint or target.startswith(mountpoint.rstrip("/") + "/")
        if inside and (best is None or len(mountpoint) >= len(best["mountpoint"])):
            best = {"mountpoint": mountpoint, "fstype": rparts[0], "source": unescape_mount(rparts[1]),
                    "majmin": parts[2]}
    return best


def block_name_for(path: Path) -> str | None:
    """Kernel name of the block device holding ``path`` (or the device itself for /dev nodes)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    link = SYS / "dev/block" / f"{os.major(dev)}:{os.minor(dev)}"
    try:
        return link.resolve().name if link.exists() else None
    except OSError:
        return None


def whole_disk(name: str) -> str:
    """The disk a partition belongs to (sda1 -> sda); a whole disk is returned as is."""
    part = SYS / "class/block" / name
    if (part / "partition").exists():
        return part.resolve().parent.name
    return name


def block_facts(name: str) -> dict[str, Any]:
    """[[devices]] keys for one whole block device from /sys (and nvme id-ctrl when available)."""
    base = SYS / "block" / name
    dev: dict[str, Any] = {"kernel_name": name}
    if not base.exists():
        return dev
    sectors = _int(_read(base / "size"))
    if sectors:
        dev["capacity_gb"] = round(sectors * 512 / 1e9, 1)
    rot = _read(base / "queue/rotational")
    if rot in ("0", "1"):
        dev["rotational"] = rot == "1"
    sched = scheduler_from_sysfs(_read(base / "queue/scheduler"))
    if sched:
        dev["scheduler"] = sched
    model = _read(base / "device/model")
    vendor = _read(base / "device/vendor")
    firmware = _read(base / "device/firmware_rev") or _read(base / "device/rev")
    real = str(base.resolve())
    if name.startswith("nvme"):
        dev["interface"], dev["media"] = "nvme", "nvme"
    elif name.startswith(("vd", "xvd")) or "/virtio" in real:
        dev["interface"], dev["media"] = ("xen" if name.startswith("xvd") else "virtio"), "virtual"
        if vendor == "0x1af4":
            vendor = "virtio (Red Hat PCI vendor 0x1af4)"
        model = model or ("virtio block device (virtual disk)" if not name.startswith("xvd") else "xen virtual disk")
    elif name.startswith(("loop", "zram", "ram", "md", "dm-", "nbd", "rbd")):
        dev["interface"] = re.sub(r"[-0-9]+$", "", name)
        dev["media"] = "virtual"
    elif name.startswith("sd"):
        dev["interface"] = "sata" if "/ata" in real else ("usb" if "/usb" in real else "scsi")
    if "media" not in dev and "rotational" in dev:
        dev["media"] = "hdd" if dev["rotational"] else "ssd"
    if model:
        dev["model"] = model
    if vendor:
        dev["vendor"] = vendor
    if firmware:
        dev["firmware"] = firmware
    notes = []
    slaves = sorted(p.name for p in (base / "slaves").iterdir()) if (base / "slaves").is_dir() else []
    if slaves:
        notes.append(f"built on {', '.join(slaves)}")
    if dev.get("media") == "virtual" and dev.get("interface") in ("virtio", "xen"):
        notes.append("virtual disk: the kernel's rotational flag and size describe the guest's view; "
                     "the backing storage is unknown")
    if notes:
        dev["notes"] = "; ".join(notes)
    return dev


def nvme_identify(name: str) -> dict[str, Any]:
    """Identify data of the NVMe controller behind a namespace (sysfs, plus nvme-cli when present)."""
    if not name.startswith("nvme"):
        return {}
    ctrl = re.match(r"(nvme\d+)", name)
    if not ctrl:
        return {}
    base = SYS / "class/nvme" / ctrl.group(1)
    out: dict[str, Any] = {}
    for key, file in (("model", "model"), ("firmware", "firmware_rev"), ("transport", "transport")):
        value = _read(base / file)
        if value:
            out[key] = value
    text = _run(["nvme", "id-ctrl", f"/dev/{ctrl.group(1)}", "-o", "json"])
    if text:
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {}
        for key in ("vid", "ssvid", "mn", "fr", "tnvmcap", "unvmcap", "nn", "mdts", "ver", "oacs", "vwc"):
            if key in doc:
                value = doc[key]
                out[f"id_ctrl_{key}"] = value.strip() if isinstance(value, str) else value
    return out


def target_storage(target: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """([[devices]] entry for the device under test, extra facts) for a file, directory or device."""
    target = Path(target)
    probe = next((p for p in (target, *target.parents) if p.exists()), Path("/"))
    extra: dict[str, Any] = {}
    try:
        is_block = stat.S_ISBLK(os.stat(probe).st_mode)
    except OSError:
        is_block = False
    name = block_name_for(probe)
    device: dict[str, Any] = {}
    if name:
        disk = whole_disk(name)
        device = block_facts(disk)
        if disk != name:
            extra["partition"] = name
        nvme = nvme_identify(disk)
        if nvme:
            if nvme.get("model"):
                device["model"] = nvme["model"]
            if nvme.get("firmware"):
                device["firmware"] = nvme["firmware"]
            extra["nvme_identify"] = nvme
    if not is_block:
        mount = mount_for(probe)
        if mount:
            device["filesystem"] = mount["fstype"]
            device["mountpoint"] = mount["mountpoint"]
            extra["filesystem_source"] = mount["source"]
            if not name:
                extra["no_block_device"] = f"{mount['fstype']} at {mount['mountpoint']} has no block device"
    device.setdefault("count", 1)
    device.setdefault("layout", "single")
    return device, extra

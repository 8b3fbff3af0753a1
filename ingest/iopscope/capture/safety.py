"""Guards between a benchmark and someone's data.

fio writes destroy data, so the target of a capture is checked before anything runs:

* a block device is refused unless ``destructive`` is set, and refused even then when it (or a
  partition of it) is mounted or held by another device (LVM, md, dm);
* an existing file is refused unless iopscope created it (a marker file beside it records the
  file's device and inode) or ``destructive`` is set;
* character devices, sockets, FIFOs and symlinks to any of those are refused;
* a test file that would leave less than ``min_free_pct`` % of its filesystem free is refused.

iopscope removes its test files (and markers) afterwards unless asked to keep them.

>>> parse_size("512MiB"), parse_size("1g"), parse_size("4096")
(536870912, 1073741824, 4096)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FILE_NAME = "iopscope-fio.testfile"
MARKER_SUFFIX = ".iopscope-marker"
DEFAULT_MIN_FREE_PCT = 10.0


class SafetyError(RuntimeError):
    """The target is refused. The message says why and what would allow it."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.I)


def parse_size(text: str) -> int:
    """Sizes in iopscope options are binary whatever the suffix: 4k = 4KiB = 4096, 512MiB, 1g, 1GiB."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"not a size: {text!r} (examples: 512MiB, 4GiB, 1g)")
    return int(float(m.group(1)) * 1024 ** " kmgtp".index(m.group(2).lower() or " "))


def fio_size(text: str) -> str:
    """A size in the form fio reads as binary under its default kb_base=1024: 8k, 64k, 512m, 1g.

    fio's default *inverts* the IEC suffixes ("16MiB" is 16,000,000 bytes to fio), so sizes are
    never handed to fio with an ``i``.

    >>> fio_size("16MiB"), fio_size("8KiB"), fio_size("1GiB"), fio_size("1536k"), fio_size("1000")
    ('16m', '8k', '1g', '1536k', '1000')
    """
    n = parse_size(text)
    for suffix, power in (("t", 4), ("g", 3), ("m", 2), ("k", 1)):
        if n and n % (1024 ** power) == 0:
            return f"{n // 1024 ** power}{suffix}"
    return str(n)


def format_size(n: int) -> str:
    for unit, power in (("TiB", 4), ("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if n % (1024 ** power) == 0:
            return f"{n // 1024 ** power}{unit}"
    return str(n)


@dataclass
class Target:
    path: Path
    kind: str              # "file" | "block"
    exists: bool           # the file/device was there before this capture
    ours: bool             # iopscope created it (marker matches)
    size_bytes: int | None  # bytes fio may touch (file size or area on a device); None = whole device
    will_create: bool      # capture lays the file out

    @property
    def marker(self) -> Path:
        return marker_path(self.path)


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def is_ours(path: Path) -> bool:
    """True when ``path`` is a regular file whose marker names its device and inode."""
    try:
        st = os.stat(path)
        info = json.loads(marker_path(path).read_text())
    except (OSError, ValueError):
        return False
    return (stat.S_ISREG(st.st_mode) and info.get("created_by") == "iopscope capture"
            and info.get("dev") == st.st_dev and info.get("ino") == st.st_ino)


def write_marker(path: Path) -> None:
    st = os.stat(path)
    marker_path(path).write_text(json.dumps({
        "created_by": "iopscope capture", "path": str(path), "dev": st.st_dev, "ino": st.st_ino,
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "note": "iopscope may overwrite or delete the file this marker names.",
    }, indent=2) + "\n")


def remove_test_file(target: Target) -> bool:
    """Delete a test file iopscope created (never a device or a file it did not create)."""
    if target.kind != "file" or not is_ours(target.path):
        return False
    target.path.unlink(missing_ok=True)
    target.marker.unlink(missing_ok=True)
    return True


def _mounted_sources(mounts_text: str) -> set[str]:
    out = set()
    for line in mounts_text.splitlines():
        parts = line.split()
        if parts:
            out.add(parts[0])
    return out


def block_in_use(dev_path: Path, mounts_text: str | None = None, sys_root: Path = Path("/sys")) -> str | None:
    """Why a block device is busy (mounted, has mounted partitions, held by dm/md), or None."""
    if mounts_text is None:
        try:
            mounts_text = Path("/proc/mounts").read_text()
        except OSError:
            mounts_text = ""
    real = os.path.realpath(dev_path)
    name = os.path.basename(real)
    sources = {os.path.realpath(s) for s in _mounted_sources(mounts_text) if s.startswith("/dev/")}
    if real in sources:
        return f"{real} is mounted"
    block = sys_root / "class/block" / name
    base = block.resolve() if block.exists() else None
    if base is not None:
        for child in sorted(base.iterdir()):
            if (child / "partition").exists() and f"/dev/{child.name}" in sources:
                return f"its partition /dev/{child.name} is mounted"
        holders = base / "holders"
        if holders.is_dir() and any(holders.iterdir()):
            return f"it is held by {', '.join(sorted(p.name for p in holders.iterdir()))}"
    swaps = Path("/proc/swaps")
    try:
        if real in swaps.read_text().split():
            return f"{real} is in use as swap"
    except OSError:
        pass
    return None


def check_target(target: str | Path, area: str | None, destructive: bool = False,
                 min_free_pct: float = DEFAULT_MIN_FREE_PCT) -> Target:
    """Decide whether fio may use ``target``; raise SafetyError with the reason if not.

    ``target`` is a directory (a test file named iopscope-fio.testfile is used inside it), a file
    path, or a block device. ``area`` is the measurement area: the test file's size, or on a
    device the hot spot at its start ("device" or None = the whole device).
    """
    path = Path(target).expanduser()
    if path.is_dir() and not path.is_block_device():
        path = path / DEFAULT_FILE_NAME
    path = Path(os.path.abspath(path))
    try:
        st = os.stat(path)
        exists = True
    except FileNotFoundError:
        st, exists = None, False
    if exists and path.is_symlink():
        if stat.S_ISBLK(st.st_mode):
            path = Path(os.path.realpath(path))  # /dev/disk/by-id/... names a device: use the device
        else:
            raise SafetyError(f"{path}: is a symbolic link; give the real path ({os.path.realpath(path)})")
    area_bytes = None if area in (None, "", "device") else parse_size(area)
    if exists and stat.S_ISBLK(st.st_mode):
        if not destructive:
            raise SafetyError(
                f"{path}: is a block device. fio writes destroy its data; "
                "give --destructive if that is what you want")
        busy = block_in_use(path)
        if busy:
            raise SafetyError(f"{path}: refused even with --destructive: {busy}")
        return Target(path, "block", True, False, area_bytes, False)
    if exists and not stat.S_ISREG(st.st_mode):
        raise SafetyError(f"{path}: is neither a regular file nor a block device")
    if area_bytes is None:
        raise SafetyError(f"{path}: a file target needs a size (--area, e.g. 1GiB); "
                          "'device' applies to block devices only")
    if area_bytes <= 0:
        raise SafetyError(f"{path}: the measurement area must be larger than 0")
    ours = exists and is_ours(path)
    if exists and not ours and not destructive:
        raise SafetyError(
            f"{path}: exists and was not created by iopscope. fio would overwrite it; "
            "give --destructive to allow that, or choose a new path")
    parent = path.parent
    if not parent.is_dir():
        raise SafetyError(f"{parent}: no such directory")
    current = st.st_size if exists else 0
    need = max(0, area_bytes - current)
    vfs = os.statvfs(parent)
    total = vfs.f_blocks * vfs.f_frsize
    free = vfs.f_bavail * vfs.f_frsize
    margin = total * min_free_pct / 100
    if need and free - need < margin:
        raise SafetyError(
            f"{path}: a {format_size(area_bytes)} test file would leave {max(0, free - need) / 2**30:.1f} GiB "
            f"free on a {total / 2**30:.1f} GiB filesystem, below the {min_free_pct:g}% margin "
            f"({margin / 2**30:.1f} GiB); use a smaller --area or another filesystem")
    return Target(path, "file", exists, ours, area_bytes, not exists or current < area_bytes)

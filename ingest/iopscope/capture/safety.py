"""Guards between a benchmark and someone's data.

fio writes destroy data, so the target of a capture is checked before anything runs:

* a block device is refused unless ``destructive`` is set, and refused even then when it (or a
  partition of it) is mounted, swap, held by another device (LVM, md, dm: followed to what is
  mounted on top) or claimed in the kernel's eyes (see :func:`block_in_use`);
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
import errno
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


@dataclass(frozen=True)
class Mount:
    dev: str          # major:minor of the mounted filesystem (0:N for btrfs, ZFS, tmpfs ...)
    mount_point: str
    fstype: str
    source: str       # as mount was told: /dev/root, /dev/mapper/vg-lv, UUID=..., pool/dataset


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash in paths as octal escapes (\040)
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """``/proc/self/mountinfo``: id parent major:minor root mount-point options [tags] - type source super-options."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        mounts.append(Mount(fields[2], _unescape(fields[4]), tail[0], _unescape(tail[1])))
    return mounts


def _dev_number(path: str | Path) -> str | None:
    """major:minor of a block device node (following symlinks), None when it is not one."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" if stat.S_ISBLK(st.st_mode) else None


_SOURCE_LINKS = {"UUID=": "by-uuid", "LABEL=": "by-label", "PARTUUID=": "by-partuuid", "PARTLABEL=": "by-partlabel"}


def _source_dev(source: str, dev_root: Path) -> str | None:
    """The device a mount source names: a /dev path (through symlinks) or UUID=/LABEL=/PARTUUID=."""
    for prefix, folder in _SOURCE_LINKS.items():
        if source.startswith(prefix):
            return _dev_number(dev_root / "disk" / folder / source[len(prefix):])
    return _dev_number(source) if source.startswith("/") else None


class _BlockTree:
    """Block devices as sysfs shows them: ``<sys>/class/block/<name>/{dev,holders/,<partition>/}``."""

    def __init__(self, sys_root: Path) -> None:
        self.sys_root = sys_root

    def folder(self, name: str) -> Path | None:
        link = self.sys_root / "class" / "block" / name
        return link.resolve() if link.exists() else None

    def name_of(self, dev_path: Path) -> str:
        number = _dev_number(dev_path)
        if number is not None:
            by_number = self.sys_root / "dev" / "block" / number
            if by_number.exists():
                return by_number.resolve().name
        return os.path.basename(os.path.realpath(dev_path))

    def number(self, name: str) -> str | None:
        folder = self.folder(name)
        try:
            return (folder / "dev").read_text().strip() if folder else None
        except OSError:
            return None

    def partitions(self, name: str) -> list[str]:
        folder = self.folder(name)
        if folder is None:
            return []
        return sorted(c.name for c in folder.iterdir() if (c / "partition").exists())

    def holders(self, name: str) -> list[str]:
        folder = self.folder(name)
        holders = folder / "holders" if folder else None
        return sorted(h.name for h in holders.iterdir()) if holders and holders.is_dir() else []


def block_in_use(dev_path: Path, mountinfo_text: str | None = None, sys_root: Path = Path("/sys"),
                 swaps_text: str | None = None, dev_root: Path = Path("/dev"),
                 probe_exclusive: bool | None = None) -> str | None:
    """Why a block device is busy, or None.

    Busy means: it or one of its partitions is mounted, is swap, or is held by another block
    device (device-mapper/LVM, md RAID, bcache: ``holders`` in sysfs, followed to what is
    mounted on top). Devices are compared by major:minor, never by path: a mount table says
    ``/dev/root``, ``/dev/mapper/vg-lv`` or ``UUID=...`` for the same device that the user
    names ``/dev/disk/by-id/...``. Last, the kernel is asked: an ``O_EXCL`` open of a block
    device fails with EBUSY while anything claims it (a mounted filesystem, a ZFS pool's vdev,
    an md array, swap), which also covers what sysfs does not show. The probe runs when the
    tables are the live ones (``probe_exclusive`` None) or when asked.
    """
    live = mountinfo_text is None
    if mountinfo_text is None:
        try:
            mountinfo_text = Path("/proc/self/mountinfo").read_text()
        except OSError:
            mountinfo_text = ""
    if swaps_text is None:
        try:
            swaps_text = Path("/proc/swaps").read_text() if live else ""
        except OSError:
            swaps_text = ""
    mounted: dict[str, str] = {}
    for m in parse_mountinfo(mountinfo_text):
        for number in {m.dev, _source_dev(m.source, dev_root)} - {None}:
            mounted.setdefault(number, m.mount_point)
    swap = {n for line in swaps_text.splitlines()[1:] if line.split()
            for n in [_dev_number(line.split()[0])] if n}
    tree = _BlockTree(sys_root)
    name = tree.name_of(dev_path)
    numbers = {name: tree.number(name) or _dev_number(dev_path)}

    def busy(device: str, chain: str, seen: set[str]) -> str | None:
        number = numbers.get(device) or tree.number(device)
        if number in mounted:
            return f"{chain} is mounted on {mounted[number]}"
        if number in swap:
            return f"{chain} is in use as swap"
        for holder in tree.holders(device):
            if holder in seen:
                continue
            deeper = busy(holder, f"{chain} is held by {holder}, which", seen | {holder})
            if deeper:
                return deeper
            return f"{chain} is held by {holder}"
        return None

    for device in [name, *tree.partitions(name)]:
        chain = f"/dev/{device}" if device == name else f"its partition /dev/{device}"
        why = busy(device, chain, {device})
        if why:
            return why
    if probe_exclusive or (probe_exclusive is None and live):
        try:
            os.close(os.open(dev_path, os.O_RDONLY | os.O_EXCL))
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                return (f"the kernel reports {dev_path} busy (claimed by a mounted filesystem, "
                        "a ZFS pool, an md array, device-mapper or swap)")
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

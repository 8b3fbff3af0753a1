"""The mounted-disk guard of `iopscope capture` compares devices by major:minor (issue 18, item 7).

The old guard compared /proc/mounts source paths, so a disk mounted as /dev/root, as
UUID=..., through device-mapper or as an md member slipped through. Sysfs and mountinfo are
faked here for the layouts this machine cannot build (no device-mapper, no md); a real loop
device checks a mount seen under another device node, swap, and the kernel's O_EXCL verdict.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iopscope.capture import safety


def _sysfs(root: Path, devices: dict[str, tuple[str, str | None, list[str]]]) -> Path:
    """devices: name -> (major:minor, parent disk or None, holders)."""
    sysroot = root / "sys"
    for name, (number, parent, holders) in devices.items():
        folder = sysroot / "devices" / (f"{parent}/{name}" if parent else name)
        (folder / "holders").mkdir(parents=True, exist_ok=True)
        (folder / "dev").write_text(number + "\n")
        if parent:
            (folder / "partition").write_text("1\n")
        for holder in holders:
            (folder / "holders" / holder).mkdir()
        link = sysroot / "class" / "block" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(folder)
    return sysroot


def _mountinfo(*mounts: tuple[str, str, str, str]) -> str:
    return "".join(f"{30 + i} 1 {dev} / {point} rw,relatime shared:1 - {fstype} {source} rw\n"
                   for i, (dev, point, fstype, source) in enumerate(mounts))


def test_root_mounted_as_dev_root_is_found_by_number(tmp_path):
    sysroot = _sysfs(tmp_path, {"vdz": ("254:0", None, []), "vdz1": ("254:1", "vdz", [])})
    mountinfo = _mountinfo(("254:1", "/", "ext4", "/dev/root"))
    assert safety.block_in_use(Path("/dev/vdz"), mountinfo, sysroot) == "its partition /dev/vdz1 is mounted on /"


def test_device_mapper_and_lvm_followed_to_the_mount(tmp_path):
    sysroot = _sysfs(tmp_path, {"sdy": ("8:16", None, []), "sdy1": ("8:17", "sdy", ["dm-0"]),
                                "dm-0": ("253:0", None, [])})
    mountinfo = _mountinfo(("253:0", "/srv/data", "xfs", "/dev/mapper/vg0-data"))
    assert safety.block_in_use(Path("/dev/sdy"), mountinfo, sysroot) == \
        "its partition /dev/sdy1 is held by dm-0, which is mounted on /srv/data"


def test_md_member_through_raid_and_lvm(tmp_path):
    sysroot = _sysfs(tmp_path, {"sdx": ("8:32", None, ["md0"]), "md0": ("9:0", None, ["dm-1"]),
                                "dm-1": ("253:1", None, [])})
    mountinfo = _mountinfo(("253:1", "/home", "ext4", "/dev/mapper/vg1-home"))
    assert safety.block_in_use(Path("/dev/sdx"), mountinfo, sysroot) == \
        "/dev/sdx is held by md0, which is held by dm-1, which is mounted on /home"
    # an assembled array nothing is mounted on still holds its members
    assert safety.block_in_use(Path("/dev/sdx"), "", sysroot) == \
        "/dev/sdx is held by md0, which is held by dm-1"


def test_uuid_and_label_sources_resolve_for_filesystems_without_a_device_number(tmp_path):
    """btrfs (and other multi-device filesystems) show an anonymous 0:N in mountinfo: the
    source names the device, as /dev/... or UUID=..., resolved through /dev/disk/by-uuid."""
    sysroot = _sysfs(tmp_path, {"loop7": ("7:7", None, [])})
    if not Path("/dev/loop7").is_block_device():
        pytest.skip("needs a /dev/loop7 node to resolve a UUID link to")
    by_uuid = tmp_path / "dev" / "disk" / "by-uuid"
    by_uuid.mkdir(parents=True)
    (by_uuid / "1234-abcd").symlink_to("/dev/loop7")
    mountinfo = _mountinfo(("0:45", "/mnt/pool", "btrfs", "UUID=1234-abcd"))
    assert safety.block_in_use(Path("/dev/loop7"), mountinfo, sysroot, dev_root=tmp_path / "dev") == \
        "/dev/loop7 is mounted on /mnt/pool"
    assert safety.block_in_use(Path("/dev/loop7"), "", sysroot, dev_root=tmp_path / "dev") is None


def test_mountinfo_escapes_and_odd_lines():
    mounts = safety.parse_mountinfo("36 35 98:0 / /mnt/my\\040disk rw - ext3 /dev/root rw\nnot a line\n")
    assert mounts == [safety.Mount("98:0", "/mnt/my disk", "ext3", "/dev/root")]


# -- real devices: a loop device over a file in tmp_path

def _root_with(*tools: str) -> None:
    if os.geteuid() != 0 or not all(shutil.which(t) for t in tools):
        pytest.skip(f"needs root and {', '.join(tools)}")


@pytest.fixture()
def loop_device(tmp_path):
    _root_with("losetup")
    image = tmp_path / "disk.img"
    image.write_bytes(b"")
    os.truncate(image, 32 << 20)
    made = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"no loop device: {made.stderr.strip()}")
    device = Path(made.stdout.strip())
    yield device
    subprocess.run(["losetup", "-d", str(device)], check=False)


def test_a_loop_device_mounted_under_another_node_name_is_refused(tmp_path, loop_device):
    _root_with("mkfs.ext4", "mount", "umount")
    subprocess.run(["mkfs.ext4", "-q", "-F", str(loop_device)], check=True)
    alias = tmp_path / "root-alias"   # like /dev/root: another node, the same major:minor
    st = os.stat(loop_device)
    os.mknod(alias, 0o600 | 0o060000, st.st_rdev)
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    if subprocess.run(["mount", str(alias), str(mount_point)], capture_output=True).returncode != 0:
        pytest.skip("mount is not permitted here")
    try:
        assert safety.block_in_use(loop_device) == f"/dev/{loop_device.name} is mounted on {mount_point}"
        with pytest.raises(safety.SafetyError, match="refused even with --destructive: .* is mounted on"):
            safety.check_target(loop_device, "device", destructive=True)
        # the kernel agrees, whatever the tables say
        assert "kernel reports" in safety.block_in_use(loop_device, "", Path("/nonexistent"), "",
                                                       probe_exclusive=True)
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)
    assert safety.block_in_use(loop_device) is None


def test_a_loop_device_in_use_as_swap_is_refused(loop_device):
    _root_with("mkswap", "swapon", "swapoff")
    subprocess.run(["mkswap", str(loop_device)], check=True, capture_output=True)
    if subprocess.run(["swapon", str(loop_device)], capture_output=True).returncode != 0:
        pytest.skip("swapon is not permitted here")
    try:
        assert safety.block_in_use(loop_device) == f"/dev/{loop_device.name} is in use as swap"
    finally:
        subprocess.run(["swapoff", str(loop_device)], check=False)

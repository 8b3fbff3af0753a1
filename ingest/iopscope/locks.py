"""Advisory file locks that say who holds them.

A lock is ``flock`` on a file (the kernel releases it when its holder dies, however it dies).
Beside it, ``<lock>.holders/<pid>.json`` records each holder's pid, command line, purpose and
start time, so that a process kept waiting can print *who* it waits for instead of nothing;
a record whose process is gone is stale and ignored. Readers take the lock shared, writers
exclusive.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

# How often a waiting process repeats who it is waiting for.
REPORT_EVERY_S = float(os.environ.get("IOPSCOPE_LOCK_REPORT_S", "10"))
DEFAULT_WAIT_S = 600.0


class LockTimeout(RuntimeError):
    """Gave up waiting; the message names the lock, the holders and how long it waited."""


@dataclass(frozen=True)
class Holder:
    pid: int
    command: str
    purpose: str
    since: float   # epoch seconds

    def describe(self, now: float) -> str:
        started = dt.datetime.fromtimestamp(self.since).strftime("%H:%M:%S")
        return (f"pid {self.pid} ({self.purpose}: {self.command}) since {started}, "
                f"{now - self.since:.0f} s ago")


def _holders_dir(lock_path: Path) -> Path:
    return lock_path.with_name(lock_path.name + ".holders")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holders(lock_path: Path) -> list[Holder]:
    """The live processes recorded as holding the lock (stale records are dropped)."""
    folder = _holders_dir(lock_path)
    found = []
    with contextlib.suppress(FileNotFoundError):
        for record in folder.iterdir():
            try:
                data = json.loads(record.read_text())
                holder = Holder(int(data["pid"]), str(data["command"]), str(data["purpose"]), float(data["since"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue   # being written or removed right now
            if _alive(holder.pid):
                found.append(holder)
            else:
                record.unlink(missing_ok=True)
    return sorted(found, key=lambda h: h.since)


def _describe_holders(lock_path: Path) -> str:
    now = time.time()
    found = holders(lock_path)
    if not found:
        return "by a process that did not record itself"
    return "by " + "; ".join(h.describe(now) for h in found)


def _command_line() -> str:
    try:
        text = Path(f"/proc/{os.getpid()}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        text = " ".join(sys.argv)
    return text.strip()[:200]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def hold(lock_path: Path, purpose: str, shared: bool = False, wait_s: float | None = DEFAULT_WAIT_S,
         notify: Callable[[str], None] = _stderr) -> Iterator[None]:
    """Hold ``lock_path`` (shared or exclusive) for the ``with`` block.

    While blocked, ``notify`` gets one line naming the holders at once and again every
    REPORT_EVERY_S seconds; after ``wait_s`` seconds (None: forever) LockTimeout is raised."""
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(lock_path, "a+")
    except OSError:
        if not shared:
            raise
        # A reader of a lake it may not write (read-only mount, another user's folder): nobody
        # without write access takes the writer's lock either, so there is nothing to wait for.
        yield
        return
    with fh:
        started = time.monotonic()
        next_report = started
        while True:
            try:
                fcntl.flock(fh, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                now = time.monotonic()
                waited = now - started
                if wait_s is not None and waited >= wait_s:
                    raise LockTimeout(f"gave up after waiting {waited:.0f} s for {lock_path}: it is held "
                                      f"{_describe_holders(lock_path)}") from None
                if now >= next_report:
                    notify(f"waiting for {lock_path} ({purpose}), held {_describe_holders(lock_path)}; "
                           f"waited {waited:.0f} s" + (f" of {wait_s:.0f}" if wait_s is not None else ""))
                    next_report = now + REPORT_EVERY_S
                time.sleep(0.05)
        holders(lock_path)   # drops the records of holders killed before they could remove them
        record = _holders_dir(lock_path) / f"{os.getpid()}.json"
        try:
            record.parent.mkdir(exist_ok=True)
            record.write_text(json.dumps({"pid": os.getpid(), "command": _command_line(),
                                          "purpose": purpose, "since": time.time()}))
        except OSError:
            record = None   # a read-only place: the lock still works, only unnamed
        try:
            yield
        finally:
            if record is not None:
                record.unlink(missing_ok=True)
            fcntl.flock(fh, fcntl.LOCK_UN)

"""iostat and mpstat alongside a benchmark, for exactly its measurement window.

``iostat -o JSON -t -x -y <interval> <count>`` and ``mpstat -o JSON -P ALL <interval> <count>``
write to ``iostat.json`` and ``mpstat.json``. Started when the measurement starts (after fio's
ramp time, or when tpcc_start prints ``MEASURING START.``), they take ``count`` samples of
``interval`` seconds and exit. If the benchmark ends early, :meth:`SysMon.stop` sends SIGINT:
sysstat then closes its JSON document properly. Both run with ``LC_ALL=C`` (a dot as decimal
separator) and ``S_TIME_FORMAT=ISO`` (ISO 8601 timestamps).

>>> m = SysMon(Path("/r"), count=3, devices=["vda"])
>>> [" ".join(c) for c in m.commands().values()]
['iostat -o JSON -t -x -y 1 3 vda', 'mpstat -o JSON -P ALL 1 3']
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iopscope.capture.fio_wrapper import show

ENV = {"LC_ALL": "C", "S_TIME_FORMAT": "ISO"}


@dataclass
class SysMon:
    folder: Path
    count: int
    interval: int = 1
    devices: list[str] | None = None
    iostat: str = "iostat"
    mpstat: str = "mpstat"
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)
    started_at: dt.datetime | None = None
    ended_at: dt.datetime | None = None
    stopped_early: bool = False

    FILES = {"iostat": "iostat.json", "mpstat": "mpstat.json"}

    def commands(self) -> dict[str, list[str]]:
        return {
            "iostat": [self.iostat, "-o", "JSON", "-t", "-x", "-y", str(self.interval), str(self.count),
                       *(self.devices or [])],
            "mpstat": [self.mpstat, "-o", "JSON", "-P", "ALL", str(self.interval), str(self.count)],
        }

    def shell_lines(self) -> list[str]:
        """The commands as a shell would start them in the step folder (dry runs)."""
        return [show(cmd, ENV) + f" > {self.FILES[name]} &" for name, cmd in self.commands().items()]

    def shown_commands(self) -> dict[str, str]:
        """``iostat_command`` / ``mpstat_command`` for a manifest's extra table."""
        return {f"{name}_command": show(cmd, ENV) for name, cmd in self.commands().items()}

    def start(self) -> "SysMon":
        self.started_at = dt.datetime.now(dt.timezone.utc)
        env = {**os.environ, **ENV}
        for name, cmd in self.commands().items():
            out = open(self.folder / self.FILES[name], "w")
            err = open(self.folder / f".{name}.stderr", "w")
            try:
                self.procs[name] = subprocess.Popen(cmd, stdout=out, stderr=err, env=env,
                                                    start_new_session=True)
            finally:
                out.close()
                err.close()
        return self

    def running(self) -> bool:
        return any(p.poll() is None for p in self.procs.values())

    def wait(self, timeout: float) -> bool:
        """Wait for the samples to be taken; True when both tools have exited."""
        deadline = time.monotonic() + timeout
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        done = not self.running()
        if done and self.ended_at is None:
            self.ended_at = dt.datetime.now(dt.timezone.utc)
        return done

    def stop(self, grace: float = 5.0) -> None:
        """SIGINT whatever still runs (sysstat closes its JSON), then wait; SIGKILL as a last resort."""
        if self.running():
            self.stopped_early = True
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    proc.send_signal(signal.SIGINT)
                except ProcessLookupError:
                    pass
        if not self.wait(grace):
            for proc in self.procs.values():
                if proc.poll() is None:
                    proc.kill()
            self.wait(grace)
        self.ended_at = self.ended_at or dt.datetime.now(dt.timezone.utc)

    def stderr_text(self) -> dict[str, str]:
        """Anything the tools said on stderr (the files are removed: they are not tool output)."""
        out = {}
        for name in self.procs:
            path = self.folder / f".{name}.stderr"
            try:
                text = path.read_text(errors="replace").strip()
                path.unlink()
            except OSError:
                text = ""
            if text:
                out[name] = text
        return out

    def manifest_extra(self) -> dict[str, Any]:
        """When sampling started, how many samples were asked for, whether it was stopped early and
        what the tools said on stderr: the manifest's record of a finished step's monitoring."""
        extra: dict[str, Any] = {
            "sysmon_started_at": self.started_at.replace(microsecond=0) if self.started_at else None,
            "sysmon_samples_requested": self.count}
        if self.stopped_early:
            extra["sysmon_stopped_early"] = True
        for name, text in self.stderr_text().items():
            extra[f"{name}_stderr"] = text[:2000]
        return extra

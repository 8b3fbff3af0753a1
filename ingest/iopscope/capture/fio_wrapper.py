"""A small fio wrapper: typed job specs -> fio command line or job file -> run -> parsed result.

fio always runs with ``--output-format=json+`` and ``--output=<file>``; the result is read back
through the ingest parser (:mod:`iopscope.parsers.fio_json`), so what capture reports is exactly
what ingest will store. When fio fails, :class:`FioError` carries fio's own messages verbatim
(stderr, or the output file when fio wrote its complaint there).

>>> spec = JobSpec(name="db", filename="/tmp/f", rw="randrw", bs="8k", rwmixread=67,
...                iodepth=4, size="512MiB", runtime_s=3, ramp_time_s=1)
>>> " ".join(spec.cli_args())
'--name=db --filename=/tmp/f --rw=randrw --rwmixread=67 --bs=8k --ioengine=libaio --direct=1 --iodepth=4 --numjobs=1 --size=512MiB --time_based --runtime=3 --ramp_time=1 --group_reporting'
>>> print(spec.job_file())
[db]
filename=/tmp/f
rw=randrw
rwmixread=67
bs=8k
ioengine=libaio
direct=1
iodepth=4
numjobs=1
size=512MiB
time_based
runtime=3
ramp_time=1
group_reporting
<BLANKLINE>
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from iopscope.parsers import fio_json
from iopscope.parsers.base import ParseError, ParseResult

OUTPUT_FORMAT = "json+"


class FioError(RuntimeError):
    """fio exited non-zero or wrote no result. ``message`` is fio's own text, verbatim."""

    def __init__(self, message: str, returncode: int | None, command: list[str]) -> None:
        self.message = message
        self.returncode = returncode
        self.command = command
        super().__init__(message)


@dataclass(frozen=True)
class SteadyState:
    """fio's steady-state detection (``ss``, ``ss_dur``, ``ss_ramp``), e.g. ``iops:10%``."""

    criterion: str
    duration_s: int = 60
    ramp_s: int = 0

    def options(self) -> list[tuple[str, str | None]]:
        out = [("ss", self.criterion), ("ss_dur", str(self.duration_s))]
        if self.ramp_s:
            out.append(("ss_ramp", str(self.ramp_s)))
        return out


@dataclass(frozen=True)
class LogSpec:
    """Optional fio logs: bw, iops and lat (lat also writes clat and slat), averaged over avg_msec."""

    prefix: str = "fio"
    bw: bool = False
    iops: bool = False
    lat: bool = False
    avg_msec: int = 1000

    def options(self) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        if self.bw:
            out.append(("write_bw_log", self.prefix))
        if self.iops:
            out.append(("write_iops_log", self.prefix))
        if self.lat:
            out.append(("write_lat_log", self.prefix))
        if out:
            out.append(("log_avg_msec", str(self.avg_msec)))
        return out


@dataclass(frozen=True)
class JobSpec:
    """One fio job. Options are emitted in a fixed order, so the same spec gives the same command."""

    name: str
    filename: str
    rw: str
    bs: str
    rwmixread: float | None = None
    ioengine: str = "libaio"
    direct: bool = True
    iodepth: int = 1
    numjobs: int = 1
    size: str | None = None
    offset: str | None = None
    time_based: bool = True
    runtime_s: int | None = None
    ramp_time_s: int | None = None
    group_reporting: bool = True
    steady_state: SteadyState | None = None
    logs: LogSpec | None = None
    extra: tuple[tuple[str, str | None], ...] = field(default_factory=tuple)

    def options(self) -> list[tuple[str, str | None]]:
        """(option, value) pairs; value None is a flag (``time_based``)."""
        opts: list[tuple[str, str | None]] = [("filename", self.filename), ("rw", self.rw)]
        if self.rwmixread is not None:
            opts.append(("rwmixread", _num(self.rwmixread)))
        opts += [("bs", self.bs), ("ioengine", self.ioengine), ("direct", "1" if self.direct else "0"),
                 ("iodepth", str(self.iodepth)), ("numjobs", str(self.numjobs))]
        if self.size:
            opts.append(("size", self.size))
        if self.offset:
            opts.append(("offset", self.offset))
        if self.time_based:
            opts.append(("time_based", None))
        if self.runtime_s is not None:
            opts.append(("runtime", str(self.runtime_s)))
        if self.ramp_time_s:
            opts.append(("ramp_time", str(self.ramp_time_s)))
        if self.group_reporting:
            opts.append(("group_reporting", None))
        if self.steady_state:
            opts += self.steady_state.options()
        if self.logs:
            opts += self.logs.options()
        opts += list(self.extra)
        for key, value in opts:
            if any(c in f"{key}{value or ''}" for c in "\n\r\0"):
                raise ValueError(f"fio option {key!r} contains a line break or NUL")
        return opts

    def options_dict(self) -> dict[str, str]:
        """The options as fio's JSON prints them (flags as "1" would be ambiguous: kept as "")."""
        return {k: ("" if v is None else v) for k, v in self.options()}

    def cli_args(self) -> list[str]:
        args = [f"--name={self.name}"]
        for key, value in self.options():
            args.append(f"--{key}" if value is None else f"--{key}={value}")
        return args

    def job_file(self) -> str:
        lines = [f"[{self.name}]"]
        for key, value in self.options():
            lines.append(key if value is None else f"{key}={value}")
        return "\n".join(lines) + "\n"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def fio_command(specs: list[JobSpec] | JobSpec, output: Path | str, fio: str = "fio") -> list[str]:
    """The exact fio command line: json+ output to ``output``, every option inline."""
    specs = [specs] if isinstance(specs, JobSpec) else list(specs)
    cmd = [fio, f"--output-format={OUTPUT_FORMAT}", f"--output={output}"]
    for spec in specs:
        cmd += spec.cli_args()
    return cmd


def show(cmd: list[str], env: dict[str, str] | None = None) -> str:
    prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in (env or {}).items())
    return prefix + shlex.join(cmd)


@dataclass
class FioRun:
    command: list[str]
    output: Path
    returncode: int | None
    stdout: str
    stderr: str
    started_at: dt.datetime
    ended_at: dt.datetime
    interrupted: bool = False
    result: ParseResult | None = None
    parse_error: str | None = None

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and not self.interrupted and self.result is not None
                and self.result.status == "complete" and not self.fio_errors())

    def fio_errors(self) -> list[str]:
        """Per-job error codes fio reported inside an otherwise complete document."""
        if self.result is None:
            return []
        return [f"job {r.get('job_name')}: error {r['error_code']}"
                for r in self.result.tables.get("fio_jobs", []) if r.get("error_code")]

    def error_message(self) -> str:
        """fio's complaint, verbatim: stderr first, else the text fio wrote instead of JSON."""
        if self.stderr.strip():
            return self.stderr.strip()
        if self.result is not None and self.result.status_reason:
            return self.result.status_reason
        if self.parse_error:
            try:
                text = self.output.read_text(errors="replace").strip()
            except OSError:
                text = ""
            return text[:4000] or self.parse_error
        errors = self.fio_errors()
        if errors:
            return "; ".join(errors)
        return f"fio exited with status {self.returncode}"


class FioProcess:
    """A running fio. ``interrupt()`` sends SIGINT: fio stops its jobs and still writes its JSON."""

    def __init__(self, command: list[str], output: Path, cwd: Path | None = None) -> None:
        self.command = command
        self.output = Path(output)
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.started_at: dt.datetime | None = None
        self.interrupted = False
        self._run: FioRun | None = None

    def start(self) -> "FioProcess":
        self.started_at = dt.datetime.now(dt.timezone.utc)
        # Own session: a terminal Ctrl-C reaches only iopscope, which then stops fio in order.
        self.proc = subprocess.Popen(self.command, cwd=self.cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                                     env={**os.environ, "LC_ALL": "C"})
        return self

    def poll(self) -> int | None:
        return self.proc.poll() if self.proc else None

    def interrupt(self) -> None:
        self.interrupted = True
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGINT)
            except ProcessLookupError:
                pass

    def finish(self, timeout: float | None = None) -> FioRun:
        """Wait for fio, then read its output through the parser. Calling it again returns the same run."""
        assert self.proc is not None and self.started_at is not None
        if self._run is not None:
            return self._run
        try:
            stdout, stderr = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            stdout, stderr = self.proc.communicate()
        run = FioRun(self.command, self.output, self.proc.returncode, stdout or "", stderr or "",
                     self.started_at, dt.datetime.now(dt.timezone.utc), self.interrupted)
        self._run = run
        try:
            text = self.output.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            run.parse_error = f"fio wrote no output file ({exc.strerror})"
            return run
        try:
            run.result = fio_json.parse(text)
        except ParseError as exc:
            run.parse_error = str(exc)
        return run


def run_fio(specs: list[JobSpec] | JobSpec, output: Path | str, fio: str = "fio",
            cwd: Path | None = None, check: bool = True, timeout: float | None = None) -> FioRun:
    """Run fio to completion and parse its json+ output. Raises FioError (fio's text) when check."""
    output = Path(output).resolve()
    run = FioProcess(fio_command(specs, output, fio), output, cwd).start().finish(timeout)
    if check and not run.ok:
        raise FioError(run.error_message(), run.returncode, run.command)
    return run


def headline(result: ParseResult | None) -> dict[str, float | None]:
    """IOPS and MiB/s summed over directions, mean completion latency (IO-weighted), worst p99 clat."""
    if result is None:
        return {}
    jobs = [r for r in result.tables.get("fio_jobs", []) if not r.get("is_aggregate")]
    if not jobs:
        return {}
    iops = sum(r.get("iops") or 0 for r in jobs)
    mib = sum(r.get("bw_mib_per_s") or 0 for r in jobs)
    ios = sum(r.get("total_ios") or 0 for r in jobs)
    lat = (sum((r.get("lat_mean_us") or 0) * (r.get("total_ios") or 0) for r in jobs) / ios) if ios else None
    p99 = [p["latency_us"] for p in result.tables.get("fio_percentiles", [])
           if p["latency_kind"] == "clat" and abs(p["percentile"] - 99.0) < 1e-9]
    by_dir = {r["direction"]: r.get("iops") for r in jobs}
    return {"iops": iops, "mib_per_s": mib, "lat_mean_us": lat, "clat_p99_us": max(p99) if p99 else None,
            "read_iops": by_dir.get("read"), "write_iops": by_dir.get("write")}

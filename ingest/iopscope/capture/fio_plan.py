"""The fio sweep plan: profiles x block sizes x read mixes x outstanding IOs, one fio run per step.

:class:`FioSweep` turns a :class:`FioConfig` into steps (an optional :class:`PreconditionStep`,
then one :class:`FioStep` per point), lays out the test file, and runs each step: fio with
iostat and mpstat for the measured window (after fio's ramp time), then the manifest. The
sweep engine (``sweep.py``) runs the steps; ``summary.py`` shows them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import shlex
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape

from iopscope.capture import machine, safety, sysmon
from iopscope.capture.fio_wrapper import (FioProcess, JobSpec, LogSpec, SteadyState, fio_command,
                                          headline, show)
from iopscope.capture.profiles import Profile, load_profiles, resolve
from iopscope.capture.summary import fmt, summarize
from iopscope.capture.sweep import (CAPTURED_BY, Interrupted, Outcome, Step, SweepError, SweepState,
                                    declare_file, drop_none, ignored, now, run_steps, slug,
                                    write_manifest)
from iopscope.capture.sysstat_means import cpu_busy_pct, device_means

def parse_oio(text: str, max_iodepth: int) -> list[tuple[int, int]]:
    """Outstanding-IO points as (iodepth, numjobs).

    Tokens, comma separated: ``N`` (iodepth N up to ``max_iodepth``, else the fewest jobs that
    split N evenly),
    ``DxJ`` (iodepth D times J jobs), ``A..B`` (powers of two from A to B).

    >>> parse_oio("1..8,64,4x2", 32)
    [(1, 1), (2, 1), (4, 1), (8, 1), (32, 2), (4, 2)]
    """
    points: list[tuple[int, int]] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if ".." in token:
            lo, hi = (int(x) for x in token.split("..", 1))
            if lo < 1 or hi < lo:
                raise ValueError(f"bad range {token!r}")
            n = lo
            while n <= hi:
                points.append(_split(n, max_iodepth))
                n *= 2
        elif "x" in token.lower():
            d, j = (int(x) for x in token.lower().split("x", 1))
            if d < 1 or j < 1:
                raise ValueError(f"bad point {token!r}")
            points.append((d, j))
        else:
            points.append(_split(int(token), max_iodepth))
    if not points:
        raise ValueError("no outstanding-IO points given")
    return points


def _split(n: int, max_iodepth: int) -> tuple[int, int]:
    if n < 1:
        raise ValueError(f"outstanding IOs must be >= 1, got {n}")
    if n <= max_iodepth:
        return n, 1
    # The fewest jobs that split n evenly with at most max_iodepth each (n jobs of 1 always do).
    jobs = next(j for j in range(math.ceil(n / max_iodepth), n + 1) if n % j == 0)
    return n // jobs, jobs


@dataclass
class FioConfig:
    target: str
    profiles: list[str]
    oio: str = "1..256"
    max_iodepth: int = 32
    block_sizes: list[str] | None = None
    read_mixes: list[float] | None = None
    area: str | None = "1GiB"
    ramp_s: int = 2
    runtime_s: int = 10
    ioengine: str = "libaio"
    direct: bool = True
    steady_state: str | None = None
    ss_dur_s: int = 30
    ss_ramp_s: int = 0
    precondition: bool = False
    precondition_random_s: int = 60
    logs: list[str] = field(default_factory=list)
    log_avg_msec: int = 1000
    profiles_file: str | None = None
    destructive: bool = False
    keep_files: bool = False
    min_free_pct: float = safety.DEFAULT_MIN_FREE_PCT
    sysmon_interval: int = 1
    iostat_devices: list[str] | None = None
    fio: str = "fio"
    iostat: str = "iostat"
    mpstat: str = "mpstat"
    host_id: str | None = None
    note: str | None = None
    tags: list[str] = field(default_factory=list)
    fio_options: list[str] = field(default_factory=list)
    device_id: str | None = None


class FioStep(Step):
    def __init__(self, sweep: "FioSweep", index: int, count: int, profile: Profile, block_size: str,
                 read_pct: float, iodepth: int, numjobs: int) -> None:
        self.sweep, self.index, self.count = sweep, index, count
        self.profile, self.block_size, self.read_pct = profile, block_size, read_pct
        self.iodepth, self.numjobs = iodepth, numjobs
        self.oio = iodepth * numjobs
        pct = f"{read_pct:g}".replace(".", "p")
        self.folder = f"{index:03d}-{slug(profile.name)}-{slug(block_size)}-r{pct}-oio{self.oio:03d}"
        self.label = f"{profile.name} {block_size} {read_pct:g}% read, OIO {self.oio}"
        cfg = sweep.cfg
        self.expected_s = float(cfg.ramp_s + cfg.runtime_s) + 0.5

    def spec(self) -> JobSpec:
        cfg = self.sweep.cfg
        rw, mix = self.profile.fio_rw(self.read_pct)
        logs = None
        if cfg.logs:
            logs = LogSpec(prefix="fio", bw="bw" in cfg.logs, iops="iops" in cfg.logs, lat="lat" in cfg.logs,
                           avg_msec=cfg.log_avg_msec)
        ss = SteadyState(cfg.steady_state, cfg.ss_dur_s, cfg.ss_ramp_s) if cfg.steady_state else None
        extra = tuple(self.profile.options.items()) + tuple(_kv(o) for o in cfg.fio_options)
        return JobSpec(name=slug(self.profile.name) or "job", filename=str(self.sweep.target_path), rw=rw,
                       bs=self.block_size, rwmixread=mix, ioengine=cfg.ioengine, direct=cfg.direct,
                       iodepth=self.iodepth, numjobs=self.numjobs, size=self.sweep.fio_size,
                       runtime_s=cfg.runtime_s, ramp_time_s=cfg.ramp_s, steady_state=ss, logs=logs,
                       extra=extra)

    def fio_cmd(self) -> list[str]:
        # fio runs inside the step folder: the output name is relative, the command portable.
        return fio_command(self.spec(), "fio.json", self.sweep.cfg.fio)

    def monitor(self, sweep_dir: Path) -> sysmon.SysMon:
        cfg = self.sweep.cfg
        count = max(1, cfg.runtime_s // cfg.sysmon_interval)
        return sysmon.SysMon(sweep_dir / self.folder, count=count, interval=cfg.sysmon_interval,
                             devices=cfg.iostat_devices, iostat=cfg.iostat, mpstat=cfg.mpstat)

    def commands(self) -> list[str]:
        d = self.sweep.sweep_dir
        mon = self.monitor(d)
        return [f"# step {self.index}/{self.count}: {self.label} (iodepth {self.iodepth} x {self.numjobs} jobs)",
                f"mkdir {shlex.quote(str(d / self.folder))} && cd {shlex.quote(str(d / self.folder))}",
                f"{show(self.fio_cmd())} &",
                f"sleep {self.sweep.cfg.ramp_s}",
                *mon.shell_lines(),
                "wait"]

    def run(self, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        return self.sweep.run_step(self, sweep_dir, tick)


def _kv(option: str) -> tuple[str, str | None]:
    key, sep, value = option.partition("=")
    key = key.strip().lstrip("-")
    if not key:
        raise ValueError(f"bad fio option {option!r}")
    return (key, value if sep else None)


class FioSweep:
    """Plans and runs a fio sweep over profiles x block sizes x read mixes x outstanding IOs."""

    def __init__(self, cfg: FioConfig, sweep_dir: Path, sweep_id: str, console: Console,
                 profile_defs: dict[str, dict] | None = None) -> None:
        self.cfg, self.sweep_dir, self.sweep_id, self.console = cfg, sweep_dir, sweep_id, console
        if profile_defs is not None:  # --resume: the definitions the sweep started with
            self.profiles = [Profile(**profile_defs[n]) for n in cfg.profiles]
        else:
            self.profiles = resolve(cfg.profiles, load_profiles(cfg.profiles_file))
        self.points = parse_oio(cfg.oio, cfg.max_iodepth)
        for log in cfg.logs:
            if log not in ("bw", "iops", "lat"):
                raise SweepError(f"unknown log kind {log!r} (bw, iops, lat)")
        self.target: safety.Target | None = None
        self.target_path = Path(os.path.abspath(cfg.target))
        if self.target_path.is_dir():
            self.target_path = self.target_path / safety.DEFAULT_FILE_NAME
        # fio reads "16MiB" as 16,000,000 bytes (kb_base=1024 inverts IEC suffixes): hand it "16m".
        self.fio_size = None if cfg.area in (None, "", "device") else safety.fio_size(cfg.area)
        self.area_label = "device" if self.fio_size is None else safety.format_size(safety.parse_size(cfg.area))
        steps: list[Step] = []
        combos = [(p, bs, mix) for p in self.profiles
                  for bs in (safety.fio_size(b) for b in (cfg.block_sizes or [p.block_size]))
                  for mix in (cfg.read_mixes if cfg.read_mixes is not None else [p.read_pct])]
        count = len(combos) * len(self.points)
        i = 0
        for p, bs, mix in combos:
            for depth, jobs in self.points:
                i += 1
                steps.append(FioStep(self, i, count, p, bs, float(mix), depth, jobs))
        self.steps = steps
        self.precondition = PreconditionStep(self) if cfg.precondition else None
        self._facts: tuple | None = None

    def all_steps(self) -> list[Step]:
        return ([self.precondition] if self.precondition else []) + self.steps

    # -- facts shared by every step --------------------------------------------------------

    def facts(self) -> tuple[dict, dict, str | None, str | None]:
        if self._facts is None:
            device, storage_extra = machine.target_storage(self.target_path)
            self._facts = (device, storage_extra, machine.fio_version(self.cfg.fio),
                           machine.sysstat_version(self.cfg.iostat))
        return self._facts

    # -- dry run -----------------------------------------------------------------------------

    def dry_run(self) -> list[str]:
        lines = [f"# sweep {self.sweep_id}: {len(self.steps)} steps into {self.sweep_dir}"]
        try:
            target = safety.check_target(self.target_path, self.cfg.area, self.cfg.destructive,
                                         self.cfg.min_free_pct)
            lines.append(f"# target {target.path} ({target.kind}): accepted"
                         + ("; the test file would be created by:" if target.will_create else ""))
            if target.will_create:
                lines.append(show(fio_command(self.prepare_spec(), self.sweep_dir / ".prepare-fio.json",
                                              self.cfg.fio)))
        except safety.SafetyError as exc:
            lines.append(f"# target refused: {exc}")
        for s in self.all_steps():
            lines.extend(s.commands())
        return lines

    # -- target ------------------------------------------------------------------------------

    def prepare_spec(self) -> JobSpec:
        return JobSpec(name="iopscope-layout", filename=str(self.target_path), rw="write", bs="1M",
                       ioengine=self.cfg.ioengine, direct=self.cfg.direct, iodepth=8, size=self.fio_size,
                       time_based=False, group_reporting=False)

    def prepare_target(self) -> None:
        cfg = self.cfg
        self.target = safety.check_target(self.target_path, cfg.area, cfg.destructive, cfg.min_free_pct)
        t = self.target
        if t.kind == "file" and t.will_create:
            self.console.print(f"laying out {safety.format_size(t.size_bytes)} test file {escape(str(t.path))} ...")
            out = self.sweep_dir / ".prepare-fio.json"
            proc = FioProcess(fio_command(self.prepare_spec(), out, cfg.fio), out).start()
            try:
                run = proc.finish()
            except BaseException:
                proc.interrupt()
                proc.finish(timeout=15)
                raise
            finally:
                out.unlink(missing_ok=True)
                if t.path.exists() and not t.exists:
                    safety.write_marker(t.path)
            if not run.ok:
                raise SweepError(f"laying out {t.path} failed; fio said:\n{run.error_message()}")
            self.target = safety.check_target(self.target_path, cfg.area, cfg.destructive, cfg.min_free_pct)

    def cleanup_target(self) -> None:
        t = self.target
        if t is None or t.kind != "file":
            return
        if self.cfg.keep_files:
            self.console.print(f"test file kept: {escape(str(t.path))}")
        elif safety.remove_test_file(t):
            self.console.print(f"test file removed: {escape(str(t.path))}")

    # -- one step ----------------------------------------------------------------------------

    def manifest(self, step: FioStep, status: str, reason: str | None, started: dt.datetime,
                 ended: dt.datetime | None, files: list[dict], extra: dict[str, Any]) -> dict[str, Any]:
        cfg = self.cfg
        device, storage_extra, fio_version, sysstat_version = self.facts()
        host, host_extra = machine.host_facts(cfg.host_id)
        spec = step.spec()
        area = self.area_label
        desc = (f"fio {fio_version or '?'} sweep step {step.index}/{step.count}: {step.profile.description or step.profile.name}"
                f" ({spec.rw}{f', rwmixread {spec.rwmixread:g}' if spec.rwmixread is not None else ''}, bs {step.block_size})"
                f" at {step.oio} outstanding IOs (iodepth {step.iodepth} x {step.numjobs} jobs), {cfg.ioengine}, "
                f"direct={int(cfg.direct)}, measurement area {area} on {self.target_path}; "
                f"{cfg.ramp_s} s ramp + {cfg.runtime_s} s measured; iostat and mpstat for the measured window.")
        if cfg.note:
            desc += f" Note: {cfg.note}"
        dev = dict(device)
        if cfg.device_id:
            dev = {"device_id": cfg.device_id, **dev}
        dev["role"] = "data"
        m = {
            "schema_version": 1,
            "run_id": f"{self.sweep_id}-{step.folder}",
            "kind": "measured",
            "tools": ["fio", "iostat", "mpstat"],
            "started_at": started,
            "ended_at": ended,
            "status": status,
            "status_reason": reason,
            "description": desc,
            "tags": ["capture", "fio-sweep", step.profile.name, *cfg.tags],
            "sysstat_version": sysstat_version,
            "host": host,
            "devices": [dev] if dev.get("kernel_name") or dev.get("filesystem") else [],
            "fio": {"measurement_area": area, "profile": step.profile.name, "version": fio_version,
                    "job_options": spec.options_dict()},
            "files": files,
            "extra": drop_none({
                "captured_by": CAPTURED_BY,
                "sweep_id": self.sweep_id, "sweep_kind": "fio", "step_index": step.index,
                "step_count": step.count, "outstanding_ios": step.oio, "iodepth": step.iodepth,
                "numjobs": step.numjobs, "block_size": step.block_size, "read_pct": step.read_pct,
                "profile_pattern": step.profile.pattern, "profile_source": step.profile.source,
                "target_path": str(self.target_path),
                "target_kind": self.target.kind if self.target else None,
                "test_file_created_by_iopscope": (self.target.kind == "file" and (self.target.ours or not self.target.exists))
                if self.target else None,
                "fio_command": show(step.fio_cmd()),
                **step.monitor(self.sweep_dir).shown_commands(),
                "note": cfg.note,
                **host_extra, **storage_extra, **extra,
            }),
        }
        return drop_none(m)

    def run_step(self, step: FioStep, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        cfg = self.cfg
        folder = sweep_dir / step.folder
        folder.mkdir(parents=True)
        started = now()
        outputs = ["fio.json", "iostat.json", "mpstat.json"]
        header = (f"Written by {CAPTURED_BY} (step {step.index} of sweep {self.sweep_id}).\n"
                  "Facts were read from the machine; the commands are exactly those that ran.")
        write_manifest(folder, self.manifest(step, "interrupted", "the step started but did not finish "
                                             "(iopscope was killed or crashed)", started, None,
                                             ignored(outputs, "step did not finish"), {}), header)
        out = folder / "fio.json"
        fio = FioProcess(step.fio_cmd(), out, cwd=folder).start()
        mon: sysmon.SysMon | None = None
        t0 = time.monotonic()
        limit = cfg.ramp_s + cfg.runtime_s + 120 + (cfg.runtime_s if cfg.steady_state else 0)
        overran = False
        try:
            while fio.poll() is None and time.monotonic() - t0 < cfg.ramp_s:
                tick(time.monotonic() - t0)
                time.sleep(0.05)
            if fio.poll() is None:
                mon = step.monitor(sweep_dir).start()
            while fio.poll() is None:
                elapsed = time.monotonic() - t0
                tick(elapsed)
                if elapsed > limit:
                    overran = True
                    fio.interrupt()
                    break
                time.sleep(0.1)
            run = fio.finish(timeout=30)
            if mon:
                mon.wait(cfg.sysmon_interval + 2.0)
                mon.stop()
        except Interrupted as exc:
            fio.interrupt()
            if mon:
                mon.stop()
            fio.finish(timeout=30)
            if mon:
                mon.stderr_text()
            reason = f"interrupted by {exc} {time.monotonic() - t0:.1f} s into the step; outputs kept, not ingested"
            why = "the step was interrupted: not a complete measurement"
            present = [n for n in outputs if (folder / n).exists()] + sorted(
                p.name for p in folder.glob("fio_*.log"))
            write_manifest(folder, self.manifest(step, "interrupted", reason, started, now(),
                                                 ignored(present, why), {}), header)
            raise
        extra: dict[str, Any] = {}
        if mon:
            extra.update(mon.manifest_extra())
        if run.stderr.strip():
            extra["fio_stderr"] = run.stderr.strip()[:4000]
        ss = _steady_state(out)
        if ss is not None:
            extra["steady_state_attained"] = ss
        ok = run.ok and not overran
        status = "complete" if ok else "failed"
        reason = None
        if overran:
            reason = f"fio ran past {limit} s and was stopped"
        elif not ok:
            reason = f"fio failed: {run.error_message()}"[:2000]
        dev = self.facts()[0].get("kernel_name")
        files = [f for f in (
            declare_file(folder, "fio.json", "result", dev, "fio --output-format=json+"),
            declare_file(folder, "iostat.json", "system", None, "iostat for the measured window"),
            declare_file(folder, "mpstat.json", "system", None, "mpstat for the measured window"),
            *(declare_file(folder, p.name, "log", dev, "fio log") for p in sorted(folder.glob("fio_*.log"))),
        ) if f]
        numbers = headline(run.result)
        numbers.update(sysstat_numbers(folder, dev))
        numbers.update(iodepth=step.iodepth, numjobs=step.numjobs, oio=step.oio)
        manifest = self.manifest(step, status, reason, started, now(), files, extra)
        return Outcome(status, reason, numbers, manifest, header)

    # -- whole sweep -------------------------------------------------------------------------

    def new_state(self, argv: list[str]) -> SweepState:
        steps = []
        for s in self.all_steps():
            entry = {"index": s.index, "folder": s.folder, "label": s.label, "status": "pending"}
            if isinstance(s, FioStep):
                entry.update(profile=s.profile.name, block_size=s.block_size, read_pct=s.read_pct,
                             oio=s.oio, iodepth=s.iodepth, numjobs=s.numjobs)
            steps.append(entry)
        return SweepState(self.sweep_dir, {
            "sweep_id": self.sweep_id, "kind": "fio", "created_at": now().isoformat(),
            "captured_by": CAPTURED_BY, "command": argv, "config": asdict(self.cfg),
            "profiles": {p.name: asdict(p) for p in self.profiles},
            "steps": steps, "status": "pending", "ended_by": None,
        })

    def check(self) -> safety.Target:
        """The safety verdict on the target, without touching it (raises SafetyError)."""
        return safety.check_target(self.target_path, self.cfg.area, self.cfg.destructive, self.cfg.min_free_pct)

    def run(self, state: SweepState) -> int:
        self.state = state
        target = self.check()
        if self.precondition is not None and target.will_create:
            entry = state.step(self.precondition.folder)
            if entry.get("status") == "complete":
                entry["status"] = "superseded"  # a new test file is not preconditioned: do it again
        code = run_steps(self.sweep_dir, state, self.all_steps(), self.console, fio_line,
                         before=self.prepare_target, after=self.cleanup_target)
        summarize(self.console, state, fio_summary_rows(state), FIO_COLUMNS)
        return code


class PreconditionStep(Step):
    """Sequential fill of the whole area, then random 4 KiB writes for a set time (one fio run)."""

    counts = False

    def __init__(self, sweep: FioSweep) -> None:
        self.sweep = sweep
        self.index = 0
        self.folder = "precondition"
        self.label = "preconditioning"
        self.expected_s = float(sweep.cfg.precondition_random_s) + 30.0

    def specs(self) -> list[JobSpec]:
        cfg = self.sweep.cfg
        common = dict(filename=str(self.sweep.target_path), ioengine=cfg.ioengine, direct=cfg.direct,
                      iodepth=32, size=self.sweep.fio_size, group_reporting=False)
        return [JobSpec(name="precondition-fill", rw="write", bs="128k", time_based=False, **common),
                JobSpec(name="precondition-random", rw="randwrite", bs="4k", time_based=True,
                        runtime_s=cfg.precondition_random_s, extra=(("stonewall", None),), **common)]

    def cmd(self) -> list[str]:
        return fio_command(self.specs(), "fio.json", self.sweep.cfg.fio)

    def commands(self) -> list[str]:
        return ["# preconditioning: sequential fill, then random writes",
                show(self.cmd())]

    def run(self, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        folder = sweep_dir / self.folder
        folder.mkdir(parents=True)
        started = now()
        header = f"Written by {CAPTURED_BY}: preconditioning pass of sweep {self.sweep.sweep_id} (not a measurement)."
        why = "preconditioning pass: kept for the record, not a measurement"

        def manifest(status, reason, ended):
            m = self.sweep.manifest(self.sweep.steps[0], status, reason, started, ended,
                                    ignored([n for n in ("fio.json",) if (folder / n).exists()], why), {})
            m.update(run_id=f"{self.sweep.sweep_id}-precondition", tools=["fio"],
                     description=f"Preconditioning of {self.sweep.target_path} before sweep "
                                 f"{self.sweep.sweep_id}: sequential 128 KiB fill of the measurement area, then "
                                 f"{self.sweep.cfg.precondition_random_s} s of random 4 KiB writes. Not a measurement.",
                     tags=["capture", "precondition"])
            m["fio"] = {k: v for k, v in m["fio"].items() if k != "job_options" and k != "profile"}
            m["extra"] = {k: v for k, v in m["extra"].items()
                          if k not in ("step_index", "outstanding_ios", "iodepth", "numjobs", "block_size",
                                       "read_pct", "profile_pattern", "profile_source", "iostat_command",
                                       "mpstat_command")}
            m["extra"]["fio_command"] = show(self.cmd())
            return m

        write_manifest(folder, manifest("interrupted", "preconditioning started but did not finish", None), header)
        proc = FioProcess(self.cmd(), folder / "fio.json", cwd=folder).start()
        t0 = time.monotonic()
        try:
            while proc.poll() is None:
                tick(time.monotonic() - t0)
                time.sleep(0.2)
            run = proc.finish()
        except Interrupted as exc:
            proc.interrupt()
            proc.finish(timeout=30)
            write_manifest(folder, manifest("interrupted", f"interrupted by {exc}", now()), header)
            raise
        status = "complete" if run.ok else "failed"
        reason = None if run.ok else f"fio failed: {run.error_message()}"[:2000]
        return Outcome(status, reason, {"seconds": round(time.monotonic() - t0, 1)},
                       manifest(status, reason, now()), header)


def _steady_state(fio_json_path: Path) -> bool | None:
    """fio's ``steadystate.attained`` (json+ prints it when ss= is set); None when absent."""
    try:
        doc = json.loads(fio_json_path.read_text())
    except (OSError, ValueError):
        return None
    for job in doc.get("jobs", []):
        ss = job.get("steadystate")
        if isinstance(ss, dict) and "attained" in ss:
            return bool(ss["attained"])
    return None

def sysstat_numbers(folder: Path, device: str | None) -> dict[str, Any]:
    """CPU busy (``cpu_busy_pct``) and the target device's means (``dev_util_pct`` ...) of a step."""
    out: dict[str, Any] = {}
    cpu = cpu_busy_pct(folder / "mpstat.json")
    if cpu is not None:
        out["cpu_busy_pct"] = cpu
    if device:
        out.update({f"dev_{k}": v for k, v in device_means(folder / "iostat.json", device).items()})
    return out


# --------------------------------------------------------------------------- output


def fio_line(step: Step, outcome: Outcome) -> str:
    n = outcome.numbers
    if not isinstance(step, FioStep):
        return f"[green]done[/] {step.label} in {n.get('seconds', '?')} s"
    lat = n.get("lat_mean_us")
    p99 = n.get("clat_p99_us")
    cpu = n.get("cpu_busy_pct")
    return (f"[green]ok[/] {step.index:>3}/{step.count} {escape(step.label):<38} "
            f"{fmt(n.get('iops')):>10} IOPS {fmt(n.get('mib_per_s'), 1):>9} MiB/s  "
            f"lat {fmt(lat / 1000 if lat else None, 3)} ms  p99 {fmt(p99 / 1000 if p99 else None, 3)} ms"
            + (f"  cpu {cpu:.0f}%" if cpu is not None else ""))


FIO_COLUMNS = [("step", "step"), ("profile", "profile"), ("bs", "bs"), ("read %", "read_pct"),
               ("OIO", "oio"), ("QD x jobs", "qdj"), ("IOPS", "iops"), ("MiB/s", "mib_per_s"),
               ("lat mean ms", "lat_ms"), ("clat p99 ms", "p99_ms"), ("CPU busy %", "cpu_busy_pct"),
               ("dev util %", "dev_util_pct"), ("status", "status")]


def fio_summary_rows(state: SweepState) -> list[dict[str, str]]:
    rows = []
    for s in state.data["steps"]:
        if s["folder"] == "precondition":
            continue
        n = s.get("numbers") or {}
        lat, p99 = n.get("lat_mean_us"), n.get("clat_p99_us")
        rows.append({
            "step": str(s["index"]), "profile": str(s.get("profile", "-")), "bs": str(s.get("block_size", "-")),
            "read_pct": fmt(s.get("read_pct"), 0), "oio": str(s.get("oio", "-")),
            "qdj": f"{s['iodepth']}x{s['numjobs']}" if "iodepth" in s else "-",
            "iops": fmt(n.get("iops")), "mib_per_s": fmt(n.get("mib_per_s"), 1),
            "lat_ms": fmt(lat / 1000 if lat else None, 3), "p99_ms": fmt(p99 / 1000 if p99 else None, 3),
            "cpu_busy_pct": fmt(n.get("cpu_busy_pct"), 0), "dev_util_pct": fmt(n.get("dev_util_pct"), 0),
            "status": s.get("status", "pending"),
        })
    return rows

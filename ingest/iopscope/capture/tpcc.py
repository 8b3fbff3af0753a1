"""TPC-C load sweeps with tpcc-mysql's ``tpcc_start`` or go-tpc: one run folder per connection count.

``--kit go-tpc`` runs ``go-tpc tpcc run -T <connections> --time <measure>s --interval <i>s``
instead (its standard output and error together in ``go-tpc.out``; go-tpc has no ramp-up, so
iostat and mpstat start with it). Both kits get the same steps, stop conditions and manifests
(``[tpcc] kit``). ``--throwaway-server`` starts a MariaDB server of its own for the sweep
(``dbserver.ThrowawayServer``) and loads the warehouses first (see ``loader.py``).

Each step runs ``tpcc_start -h -P -d -u [-p] -w -c -r -l -i`` and stores its standard output
(``tpcc_start.out``) and standard error (``tpcc_start.err``) separately, with the password
removed: tpcc_start echoes it twice (``option p with value '...'`` and ``[pass]:``), and any
other occurrence is replaced too. The password comes from an environment variable or a MySQL
option file and is never written anywhere (manifests show ``-p ****``). iostat and mpstat start
when tpcc_start prints ``MEASURING START.`` and sample the measured seconds.

After each step the sweep checks its stop conditions, in this order, and ends at the first
step where one holds (each can be switched off):

* ``cpu_busy``: mean CPU busy (100 - idle - iowait - steal, mpstat 'all') above a percentage;
* ``neworder_pNN``: New-Order's per-interval 95th (or 99th) percentile, averaged over the
  measured intervals (the first, which mixes in ramp-up samples, is left out when there are
  others), above a limit in ms;
* ``log_await``: the log device's IO-weighted mean write await (iostat) above a limit in ms;
* ``plateau``: TpmC grew by less than a percentage over the previous step.

The condition that ended the sweep is written to that step's manifest (``extra.sweep_ended_by``)
and to ``.sweep.json``.

>>> scrub("option p with value 'pw1'\\n       [pass]: pw1\\n", "pw1")
("option p with value '****'\\n       [pass]: ****\\n", 0)
>>> scrub("x pw1 y\\n", "pw1")
('x **** y\\n', 1)
"""

from __future__ import annotations

import configparser
import datetime as dt
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape

from iopscope.capture import machine, sysmon
from iopscope.capture.dbserver import ServerError, ThrowawayServer, temporary_datadir
from iopscope.capture.fio_wrapper import show
from iopscope.capture.summary import console_for, fmt, summarize
from iopscope.capture.sweep import (CAPTURED_BY, Interrupted, Outcome, Step, SweepError, SweepState,
                                    check_tools, declare_file, default_sweep_id, drop_none, ignored, now,
                                    run_steps, sweep_folder, write_manifest)
from iopscope.capture.sysstat_means import cpu_busy_pct, device_means

MASK = "****"
OUT, ERR = "tpcc_start.out", "tpcc_start.err"
GO_TPC_OUT = "go-tpc.out"
_OPTION_P = re.compile(r"^(option p with value ')(.*)('\s*)$")
_PASS_LINE = re.compile(r"^(\s*\[pass\]:[ \t]?)(.*)$")


# --------------------------------------------------------------------------- password


def scrub(text: str, password: str | None) -> tuple[str, int]:
    """Text with the password removed, and how many occurrences *outside* tpcc_start's two echo
    lines were replaced (a short password may also hit ordinary text: the count says so)."""
    out, others = [], 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        end = line[len(body):]
        m = _OPTION_P.match(body)
        if m:
            body = f"{m.group(1)}{MASK}{m.group(3)}"
        else:
            m = _PASS_LINE.match(body)
            if m:
                body = f"{m.group(1)}{MASK}"
            elif password and password in body:
                others += body.count(password)
                body = body.replace(password, MASK)
        out.append(body + end)
    return "".join(out), others


def read_password(env_var: str | None, option_file: str | None) -> str | None:
    """The password from a MySQL option file ([client] / [tpcc] password=) or an environment
    variable. None when neither gives one (tpcc_start then runs without -p)."""
    if option_file:
        parser = configparser.ConfigParser(allow_no_value=True, strict=False, interpolation=None)
        try:
            parser.read_string(Path(option_file).read_text(), source=option_file)
        except (OSError, configparser.Error) as exc:
            raise SweepError(f"{option_file}: cannot read the option file ({exc})") from None
        for section in ("tpcc", "client", "mysql"):
            if parser.has_option(section, "password"):
                value = (parser.get(section, "password") or "").strip()
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                    value = value[1:-1]
                return _check_password(value)
        raise SweepError(f"{option_file}: no password= under [client], [tpcc] or [mysql]")
    if env_var and env_var in os.environ:
        return _check_password(os.environ[env_var])
    return None


def _check_password(value: str) -> str | None:
    if any(c in value for c in "\n\r\0"):
        raise SweepError("the password contains a line break or NUL: refused")
    return value or None


# --------------------------------------------------------------------------- config


@dataclass
class TpccConfig:
    tpcc_start: str = "tpcc_start"
    host: str = "127.0.0.1"
    port: int = 3306
    socket: str | None = None
    db: str = "tpcc"
    user: str = "root"
    password_env: str | None = "IOPSCOPE_DB_PASSWORD"
    password_file: str | None = None
    warehouses: int = 10
    connections: list[int] = field(default_factory=lambda: [50, 100, 150, 200])
    ramp_up_s: int = 60
    measure_s: int = 300
    interval_s: int = 10
    stop_cpu_busy_pct: float = 80.0
    stop_neworder_ms: float = 0.0
    stop_neworder_pct: float = 95.0
    stop_log_await_ms: float = 5.0
    stop_plateau_pct: float = 0.0
    data_device: str | None = None
    log_device: str | None = None
    mysql: str | None = None
    db_server: str | None = None
    config_id: str | None = None
    sysmon_interval: int = 1
    iostat_devices: list[str] | None = None
    iostat: str = "iostat"
    mpstat: str = "mpstat"
    host_id: str | None = None
    note: str | None = None
    tags: list[str] = field(default_factory=list)
    synthetic: bool = False
    data_device_id: str | None = None
    log_device_id: str | None = None
    kit: str = "tpcc-mysql"
    go_tpc: str = "go-tpc"
    load_generator: str = "same host"
    throwaway_device_id: str | None = None


def tpcc_command(cfg: TpccConfig, connections: int, password: str | None, masked: bool = False) -> list[str]:
    if cfg.kit == "go-tpc":
        return go_tpc_command(cfg, connections, password, masked)
    cmd = [cfg.tpcc_start, "-h", cfg.host, "-P", str(cfg.port), "-d", cfg.db, "-u", cfg.user]
    if password:
        cmd += ["-p", MASK if masked else password]
    if cfg.socket:
        cmd += ["-S", cfg.socket]
    cmd += ["-w", str(cfg.warehouses), "-c", str(connections), "-r", str(cfg.ramp_up_s),
            "-l", str(cfg.measure_s), "-i", str(cfg.interval_s)]
    return cmd


def go_tpc_command(cfg: TpccConfig, connections: int, password: str | None, masked: bool = False) -> list[str]:
    """go-tpc tpcc run: -T threads for the connections, --time / --interval in seconds.

    >>> " ".join(go_tpc_command(TpccConfig(kit="go-tpc", warehouses=1, measure_s=10, interval_s=5), 4, None)[-7:])
    'run -T 4 --time 10s --interval 5s'
    """
    cmd = [cfg.go_tpc, "tpcc", "-H", cfg.host, "-P", str(cfg.port), "-D", cfg.db, "-U", cfg.user]
    if password:
        cmd += ["-p", MASK if masked else password]
    return cmd + ["--warehouses", str(cfg.warehouses), "run", "-T", str(connections),
                  "--time", f"{cfg.measure_s}s", "--interval", f"{cfg.interval_s}s"]


def output_name(cfg: TpccConfig) -> str:
    return GO_TPC_OUT if cfg.kit == "go-tpc" else OUT


def measured_seconds(cfg: TpccConfig) -> int:
    """tpcc_start measures measure_s rounded down to the report interval; go-tpc all of it."""
    if cfg.kit == "go-tpc":
        return cfg.measure_s
    return (cfg.measure_s // cfg.interval_s) * cfg.interval_s


# --------------------------------------------------------------------------- database facts


def parse_variables(text: str) -> tuple[str | None, dict[str, str]]:
    """``mysql -N -B -e "SELECT VERSION(); SHOW GLOBAL VARIABLES"`` output -> (version, variables).

    >>> parse_variables("8.0.36\\nautocommit\\tON\\ninnodb_page_size\\t16384\\n")
    ('8.0.36', {'autocommit': 'ON', 'innodb_page_size': '16384'})
    """
    lines = text.splitlines()
    version = lines[0].strip() if lines and "\t" not in lines[0] else None
    variables = {}
    for line in lines[1 if version else 0:]:
        name, sep, value = line.partition("\t")
        if sep and name.strip():
            variables[name.strip()] = value
    return version, variables


def db_facts(cfg: TpccConfig, password: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """[db] table (version, SHOW GLOBAL VARIABLES) through the mysql client, and extra notes."""
    if not cfg.mysql:
        return drop_none({"server": cfg.db_server, "config_id": cfg.config_id}), {}
    cmd = [cfg.mysql]
    if cfg.password_file:
        cmd.append(f"--defaults-extra-file={cfg.password_file}")
    cmd += ["--batch", "--skip-column-names", "-h", cfg.host, "-P", str(cfg.port), "-u", cfg.user]
    if cfg.socket:
        cmd += ["-S", cfg.socket]
    cmd += [cfg.db, "-e", "SELECT VERSION(); SHOW GLOBAL VARIABLES"]
    env = {**os.environ, "LC_ALL": "C"}
    if password and not cfg.password_file:
        env["MYSQL_PWD"] = password  # environment only: never on a command line or in a file
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return drop_none({"server": cfg.db_server, "config_id": cfg.config_id}), {"mysql_error": str(exc)}
    if proc.returncode != 0:
        message, _ = scrub(proc.stderr.strip(), password)
        return (drop_none({"server": cfg.db_server, "config_id": cfg.config_id}),
                {"mysql_error": message[:1000]})
    text, _ = scrub(proc.stdout, password)
    version, variables = parse_variables(text)
    db = {"server": cfg.db_server or variables.get("version_comment"), "version": version,
          "config_id": cfg.config_id, "parameters": variables}
    return drop_none(db), {"mysql_command": shlex.join(cmd)}


def _tpcc_db_numbers(variables: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        out["buffer_pool_gib"] = round(int(variables["innodb_buffer_pool_size"]) / 2**30, 3)
    except (KeyError, ValueError):
        pass
    try:
        out["page_size_kib"] = int(variables["innodb_page_size"]) // 1024
    except (KeyError, ValueError):
        pass
    return out


# --------------------------------------------------------------------------- results


def step_numbers(folder: Path, cfg: TpccConfig) -> dict[str, Any]:
    """TpmC, New-Order percentiles, CPU busy and device awaits of one finished step."""
    out: dict[str, Any] = {}
    from iopscope.parsers import go_tpc, tpcc_mysql

    parser = go_tpc if cfg.kit == "go-tpc" else tpcc_mysql
    try:
        text = (folder / output_name(cfg)).read_text(errors="replace")
    except OSError:
        text = ""
    if text:
        try:
            result = parser.parse(text)
        except Exception:  # ParseError or worse: no numbers, the status says why
            result = None
        if result is not None:
            run = (result.tables.get("tpcc_runs") or [{}])[0]
            out["tpmc"] = run.get("tpmc_printed") if run.get("tpmc_printed") is not None else run.get("interval_tpmc")
            out["parse_status"] = result.status
            out["parse_reason"] = result.status_reason
            intervals = [i for i in result.tables.get("tpcc_intervals", []) if not i.get("is_rampup")]
            steady = [i for i in intervals if not i.get("is_rampup_mixed")] or intervals
            for pct in (95, 99):
                values = [i[f"new_order_p{pct}_ms"] for i in steady if i.get(f"new_order_p{pct}_ms") is not None]
                if values:
                    out[f"neworder_p{pct}_ms"] = round(sum(values) / len(values), 3)
    cpu = cpu_busy_pct(folder / "mpstat.json")
    if cpu is not None:
        out["cpu_busy_pct"] = cpu
    for role, dev in (("data", cfg.data_device), ("log", cfg.log_device)):
        if dev:
            stats = device_means(folder / "iostat.json", dev)
            for k in ("w_await_ms", "r_await_ms", "util_pct"):
                if k in stats:
                    out[f"{role}_{k}"] = stats[k]
    return out


def stop_reason(cfg: TpccConfig, connections: int, numbers: dict[str, Any],
                previous: dict[str, Any] | None, previous_connections: int | None) -> str | None:
    """The first stop condition that holds for this step, as a sentence; None to go on.

    >>> cfg = TpccConfig(stop_cpu_busy_pct=80, stop_plateau_pct=5)
    >>> stop_reason(cfg, 100, {"cpu_busy_pct": 85.0}, None, None)
    'cpu_busy: CPU busy 85.0% > 80% at 100 connections'
    >>> stop_reason(cfg, 150, {"tpmc": 1020.0}, {"tpmc": 1000.0}, 100)
    'plateau: TpmC +2.0% from 100 to 150 connections (< 5%)'
    """
    cpu = numbers.get("cpu_busy_pct")
    if cfg.stop_cpu_busy_pct and cpu is not None and cpu > cfg.stop_cpu_busy_pct:
        return f"cpu_busy: CPU busy {cpu:.1f}% > {cfg.stop_cpu_busy_pct:g}% at {connections} connections"
    pct = int(cfg.stop_neworder_pct)
    no = numbers.get(f"neworder_p{pct}_ms")
    if cfg.stop_neworder_ms and no is not None and no > cfg.stop_neworder_ms:
        return (f"neworder_p{pct}: New-Order p{pct} {no:.1f} ms > {cfg.stop_neworder_ms:g} ms "
                f"at {connections} connections")
    aw = numbers.get("log_w_await_ms")
    if cfg.stop_log_await_ms and cfg.log_device and aw is not None and aw > cfg.stop_log_await_ms:
        return (f"log_await: {cfg.log_device} write await {aw:.2f} ms > {cfg.stop_log_await_ms:g} ms "
                f"at {connections} connections")
    tpmc, before = numbers.get("tpmc"), (previous or {}).get("tpmc")
    if cfg.stop_plateau_pct and tpmc is not None and before:
        gain = (tpmc - before) / before * 100
        if gain < cfg.stop_plateau_pct:
            return (f"plateau: TpmC {gain:+.1f}% from {previous_connections} to {connections} connections "
                    f"(< {cfg.stop_plateau_pct:g}%)")
    return None


# --------------------------------------------------------------------------- running


class _Pump(threading.Thread):
    """Copies a child's stream to a file line by line, password removed before anything is written."""

    def __init__(self, stream, path: Path, password: str | None, on_line: Callable[[str], None] | None = None):
        super().__init__(daemon=True)
        self.stream, self.path, self.password, self.on_line = stream, path, password, on_line
        self.others = 0

    def run(self) -> None:
        with open(self.path, "w", encoding="utf-8") as out:
            for line in iter(self.stream.readline, ""):
                clean, n = scrub(line, self.password)
                self.others += n
                out.write(clean)
                out.flush()
                if self.on_line:
                    self.on_line(clean)


class _Empty:
    """A stream with nothing in it (go-tpc's stderr is merged into its stdout)."""

    def readline(self) -> str:
        return ""


class TpccStep(Step):
    def __init__(self, sweep: "TpccSweep", index: int, count: int, connections: int) -> None:
        self.sweep, self.index, self.count, self.connections = sweep, index, count, connections
        self.folder = f"{index:03d}-w{sweep.cfg.warehouses}-c{connections:04d}"
        self.label = f"{connections} connections"
        self.expected_s = float((0 if sweep.cfg.kit == "go-tpc" else sweep.cfg.ramp_up_s) + sweep.cfg.measure_s) + 1.0

    def monitor(self, sweep_dir: Path) -> sysmon.SysMon:
        cfg = self.sweep.cfg
        count = max(1, measured_seconds(cfg) // cfg.sysmon_interval)
        return sysmon.SysMon(sweep_dir / self.folder, count=count, interval=cfg.sysmon_interval,
                             devices=cfg.iostat_devices, iostat=cfg.iostat, mpstat=cfg.mpstat)

    def commands(self) -> list[str]:
        cfg, d = self.sweep.cfg, self.sweep.sweep_dir
        mon = self.monitor(d)
        command = show(tpcc_command(cfg, self.connections, self.sweep.password, masked=True))
        if cfg.kit == "go-tpc":
            return [f"# step {self.index}/{self.count}: {self.label}",
                    f"mkdir {shlex.quote(str(d / self.folder))} && cd {shlex.quote(str(d / self.folder))}",
                    f"{command} > {GO_TPC_OUT} 2>&1 &",
                    *mon.shell_lines(),
                    "wait"]
        return [f"# step {self.index}/{self.count}: {self.label}",
                f"mkdir {shlex.quote(str(d / self.folder))} && cd {shlex.quote(str(d / self.folder))}",
                f"{show(tpcc_command(cfg, self.connections, self.sweep.password, masked=True))} > {OUT} 2> {ERR} &",
                "# when tpcc_start prints 'MEASURING START.':",
                *mon.shell_lines(),
                "wait"]

    def run(self, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        return self.sweep.run_step(self, sweep_dir, tick)


class TpccSweep:
    def __init__(self, cfg: TpccConfig, sweep_dir: Path, sweep_id: str, console: Console,
                 password: str | None) -> None:
        self.cfg, self.sweep_dir, self.sweep_id, self.console = cfg, sweep_dir, sweep_id, console
        self.password = password
        if not cfg.connections:
            raise SweepError("no connection counts given")
        if cfg.interval_s < 1 or cfg.measure_s < cfg.interval_s:
            raise SweepError("the measure time must be at least one report interval")
        self.steps = [TpccStep(self, i, len(cfg.connections), c) for i, c in enumerate(cfg.connections, 1)]
        self._facts: tuple | None = None

    def dry_run(self) -> list[str]:
        lines = [f"# sweep {self.sweep_id}: {len(self.steps)} steps into {self.sweep_dir}"]
        if self.cfg.mysql:
            lines.append(f"# server facts: {self.cfg.mysql} ... -e 'SELECT VERSION(); SHOW GLOBAL VARIABLES'")
        for s in self.steps:
            lines.extend(s.commands())
        return lines

    def facts(self) -> tuple:
        if self._facts is None:
            db, db_extra = db_facts(self.cfg, self.password)
            self._facts = (db, db_extra, machine.sysstat_version(self.cfg.iostat))
        return self._facts

    def devices(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        cfg = self.cfg
        out, extra = [], {}
        roles: dict[str, str] = {}
        if cfg.data_device:
            roles[cfg.data_device] = "data"
        if cfg.log_device:
            roles[cfg.log_device] = "data+log" if roles.get(cfg.log_device) == "data" else "log"
        ids = {cfg.data_device: cfg.data_device_id, cfg.log_device: cfg.log_device_id}
        if cfg.throwaway_device_id and cfg.data_device and not cfg.data_device_id:
            # one id for the disk across the sweep's steps (else every run is its own device)
            ids[cfg.data_device] = cfg.throwaway_device_id
        for name, role in roles.items():
            dev = machine.block_facts(name)
            if ids.get(name):
                dev = {"device_id": ids[name], **dev}
            dev.update(role=role, count=1, layout="single")
            nvme = machine.nvme_identify(name)
            if nvme:
                extra[f"nvme_identify_{name}"] = nvme
            out.append(dev)
        return out, extra

    def manifest(self, step: TpccStep, status: str, reason: str | None, started: dt.datetime,
                 ended: dt.datetime | None, files: list[dict], extra: dict[str, Any]) -> dict[str, Any]:
        cfg = self.cfg
        db, db_extra, sysstat_version = self.facts()
        host, host_extra = machine.host_facts(cfg.host_id)
        devices, dev_extra = self.devices()
        tpcc = {"warehouses": cfg.warehouses, "connections": step.connections, "ramp_up_s": cfg.ramp_up_s,
                "measure_s": cfg.measure_s, "report_interval_s": cfg.interval_s, "kit": cfg.kit,
                **_tpcc_db_numbers(db.get("parameters", {}))}
        if cfg.kit == "go-tpc":
            tpcc["ramp_up_s"] = 0
        generator = (" The load generator ran on the same host as the database server"
                     " (it shares the CPUs: CPU busy and path length include it)."
                     if cfg.load_generator == "same host" else f" Load generator: {cfg.load_generator}.")
        desc = (f"go-tpc tpcc run sweep step {step.index}/{step.count}: {cfg.warehouses} warehouses, "
                f"{step.connections} threads, {cfg.measure_s} s measured, no ramp-up (go-tpc has none; "
                f"report every {cfg.interval_s} s) against {cfg.host}:{cfg.port}/{cfg.db}; "
                "iostat and mpstat for the whole run." + generator) if cfg.kit == "go-tpc" else None
        desc = desc or (f"tpcc-mysql tpcc_start load sweep step {step.index}/{step.count}: {cfg.warehouses} warehouses, "
                f"{step.connections} connections, {cfg.ramp_up_s} s ramp-up + {cfg.measure_s} s measured "
                f"(report every {cfg.interval_s} s) against {cfg.host}:{cfg.port}/{cfg.db}; "
                "iostat and mpstat for the measured window." + generator)
        if cfg.note:
            desc += f" Note: {cfg.note}"
        mon = step.monitor(self.sweep_dir)
        m = {
            "schema_version": 1,
            "run_id": f"{self.sweep_id}-{step.folder}",
            "kind": "synthetic" if cfg.synthetic else "measured",
            "synthetic": True if cfg.synthetic else None,
            "tools": [cfg.kit, "iostat", "mpstat"],
            "started_at": started, "ended_at": ended, "status": status, "status_reason": reason,
            "description": desc,
            "tags": ["capture", "tpcc-sweep", *cfg.tags],
            "sysstat_version": sysstat_version,
            "host": host, "devices": devices, "db": db, "tpcc": tpcc, "files": files,
            "extra": drop_none({
                "captured_by": CAPTURED_BY, "sweep_id": self.sweep_id, "sweep_kind": "tpcc",
                "step_index": step.index, "step_count": step.count,
                "tpcc_command": show(tpcc_command(cfg, step.connections, self.password, masked=True)),
                **mon.shown_commands(),
                "db_host": cfg.host, "db_port": cfg.port, "db_socket": cfg.socket, "db_name": cfg.db,
                "db_user": cfg.user, "tpcc_kit": cfg.kit, "load_generator_host": cfg.load_generator,
                "password_source": ("option file" if cfg.password_file else
                                    f"environment variable {cfg.password_env}" if self.password else "none"),
                "stop_conditions": drop_none({
                    "cpu_busy_pct": cfg.stop_cpu_busy_pct or None,
                    f"neworder_p{int(cfg.stop_neworder_pct)}_ms": cfg.stop_neworder_ms or None,
                    "log_await_ms": (cfg.stop_log_await_ms or None) if cfg.log_device else None,
                    "plateau_pct": cfg.stop_plateau_pct or None}),
                "note": cfg.note, **host_extra, **dev_extra, **db_extra, **extra,
            }),
        }
        return drop_none(m)

    def run_step(self, step: TpccStep, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        cfg = self.cfg
        folder = sweep_dir / step.folder
        folder.mkdir(parents=True)
        started = now()
        go = cfg.kit == "go-tpc"
        outputs = [GO_TPC_OUT, "iostat.json", "mpstat.json"] if go else [OUT, ERR, "iostat.json", "mpstat.json"]
        header = (f"Written by {CAPTURED_BY} (step {step.index} of TPC-C sweep {self.sweep_id}).\n"
                  f"The password is not stored anywhere: {cfg.kit}'s output was scrubbed as it was read.")
        write_manifest(folder, self.manifest(step, "interrupted", "the step started but did not finish "
                                             "(iopscope was killed or crashed)", started, None,
                                             ignored(outputs, "step did not finish"), {}), header)
        measuring = threading.Event()
        if go:
            measuring.set()  # go-tpc measures from its first second: no ramp-up to wait for
        proc = subprocess.Popen(tpcc_command(cfg, step.connections, self.password), cwd=folder,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT if go else subprocess.PIPE,
                                text=True, errors="replace",
                                start_new_session=True, env={**os.environ, "LC_ALL": "C"})
        out = _Pump(proc.stdout, folder / output_name(cfg), self.password,
                    lambda line: measuring.set() if line.strip() == "MEASURING START." else None)
        err = _Pump(proc.stderr if not go else _Empty(), folder / ERR, self.password)
        out.start()
        err.start()
        mon: sysmon.SysMon | None = None
        t0 = time.monotonic()
        limit = (0 if go else cfg.ramp_up_s) + cfg.measure_s + 600
        overran = False
        try:
            while proc.poll() is None:
                if mon is None and measuring.is_set():
                    mon = step.monitor(sweep_dir).start()
                elapsed = time.monotonic() - t0
                tick(elapsed)
                if elapsed > limit:
                    overran = True
                    proc.terminate()
                    break
                time.sleep(0.05)
            proc.wait()
            out.join(10)
            err.join(10)
            if mon:
                mon.wait(cfg.sysmon_interval + 2.0)
                mon.stop()
        except Interrupted as exc:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            if mon:
                mon.stop()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            out.join(10)
            err.join(10)
            if mon:
                mon.stderr_text()
            reason = f"interrupted by {exc} {time.monotonic() - t0:.1f} s into the step; outputs kept, not ingested"
            present = [n for n in outputs if (folder / n).exists()]
            write_manifest(folder, self.manifest(step, "interrupted", reason, started, now(),
                                                 ignored(present, "the step was interrupted: not a complete run"),
                                                 {}), header)
            raise
        extra: dict[str, Any] = {("go_tpc_exit_status" if go else "tpcc_start_exit_status"): proc.returncode}
        if mon:
            extra.update(mon.manifest_extra())
        else:
            extra["sysmon_note"] = "tpcc_start never printed 'MEASURING START.': no iostat / mpstat"
        if out.others or err.others:
            extra["password_scrub_note"] = (f"the password also appeared {out.others + err.others} time(s) "
                                            f"outside tpcc_start's echo lines and was replaced by {MASK}")
        numbers = step_numbers(folder, cfg)
        numbers["connections"] = step.connections
        parse_status = numbers.pop("parse_status", None)
        parse_reason = numbers.pop("parse_reason", None)
        status, reason = "complete", None
        if overran:
            status, reason = "failed", f"{cfg.kit} ran past {limit} s and was stopped"
        elif proc.returncode != 0 or parse_status in (None, "failed"):
            status = "failed"
            said = (parse_reason or (folder / ERR).read_text(errors="replace").strip()
                    or "\n".join((folder / output_name(cfg)).read_text(errors="replace").strip().splitlines()[-5:]))
            reason = f"{'go-tpc' if go else 'tpcc_start'} exit {proc.returncode}: {said[-1500:]}"
        elif parse_status == "incomplete":
            status, reason = "incomplete", (parse_reason or "") if go else "tpcc_start's output stops before the TpmC line"
        if go:
            (folder / ERR).unlink(missing_ok=True)  # stderr went into go-tpc.out
        files = [f for f in ((
            declare_file(folder, GO_TPC_OUT, "result", None, "go-tpc standard output and error (password removed)"),
            declare_file(folder, "iostat.json", "system", None, "iostat for the run"),
            declare_file(folder, "mpstat.json", "system", None, "mpstat for the run"),
        ) if go else (
            declare_file(folder, OUT, "result", None, "tpcc_start standard output (password removed)"),
            {"path": ERR, "role": "ignore",
             "description": "tpcc_start standard error, verbatim except the password" if (folder / ERR).stat().st_size
             else "tpcc_start standard error (empty)"},
            declare_file(folder, "iostat.json", "system", None, "iostat for the measured window"),
            declare_file(folder, "mpstat.json", "system", None, "mpstat for the measured window"),
        )) if f]
        manifest = self.manifest(step, status, reason, started, now(), files, extra)
        if status == "incomplete":
            status = "failed"  # the sweep cannot judge a step without its totals
        return Outcome(status, reason, numbers, manifest, header)

    def stop_check(self, step: Step, outcome: Outcome, history: list[tuple[Step, Outcome]]) -> str | None:
        prev = history[-1] if history else None
        return stop_reason(self.cfg, step.connections, outcome.numbers,
                           prev[1].numbers if prev else None, prev[1].numbers.get("connections") if prev else None)

    def new_state(self, argv: list[str]) -> SweepState:
        return SweepState(self.sweep_dir, {
            "sweep_id": self.sweep_id, "kind": "tpcc", "created_at": now().isoformat(),
            "captured_by": CAPTURED_BY, "command": [a if a != self.password else MASK for a in argv],
            "config": asdict(self.cfg),
            "steps": [{"index": s.index, "folder": s.folder, "label": s.label, "status": "pending",
                       "connections": s.connections} for s in self.steps],
            "status": "pending", "ended_by": None,
        })

    def run(self, state: SweepState) -> int:
        code = run_steps(self.sweep_dir, state, self.steps, self.console, tpcc_line, self.stop_check)
        summarize(self.console, state, tpcc_summary_rows(state), TPCC_COLUMNS)
        return code


def tpcc_line(step: Step, outcome: Outcome) -> str:
    n = outcome.numbers
    return (f"[green]ok[/] {step.index:>3}/{step.count} {step.label:<18} TpmC {fmt(n.get('tpmc'), 1):>12}  "
            f"New-Order p95 {fmt(n.get('neworder_p95_ms'), 1)} ms  p99 {fmt(n.get('neworder_p99_ms'), 1)} ms  "
            f"cpu {fmt(n.get('cpu_busy_pct'), 0)}%"
            + (f"  log w_await {n['log_w_await_ms']:.2f} ms" if "log_w_await_ms" in n else ""))


TPCC_COLUMNS = [("step", "step"), ("connections", "connections"), ("TpmC", "tpmc"),
                ("New-Order p95 ms", "p95"), ("p99 ms", "p99"), ("CPU busy %", "cpu"),
                ("log w_await ms", "log_await"), ("status", "status")]


def tpcc_summary_rows(state: SweepState) -> list[dict[str, str]]:
    rows = []
    for s in state.data["steps"]:
        n = s.get("numbers") or {}
        rows.append({"step": str(s["index"]), "connections": str(s.get("connections", "-")),
                     "tpmc": fmt(n.get("tpmc"), 1), "p95": fmt(n.get("neworder_p95_ms"), 1),
                     "p99": fmt(n.get("neworder_p99_ms"), 1), "cpu": fmt(n.get("cpu_busy_pct"), 0),
                     "log_await": fmt(n.get("log_w_await_ms"), 2), "status": s.get("status", "pending")})
    return rows


# --------------------------------------------------------------------------- throwaway server


def _run_with_throwaway_server(args, cfg: TpccConfig, sweep: "TpccSweep", sweep_dir: Path, console: Console) -> int:
    """Start a throwaway MariaDB, load the warehouses, run the sweep against it, stop it."""
    from iopscope.capture.tpcc_load import load_go_tpc, load_tpcc_mysql

    datadir = Path(args.server_datadir).resolve() if args.server_datadir else temporary_datadir()
    server = ThrowawayServer(datadir, buffer_pool=args.buffer_pool, keep=args.keep_server_datadir,
                             extra_options=list(args.server_option))
    console.print(f"starting a throwaway MariaDB server on {datadir} (buffer pool {args.buffer_pool})")
    with server:
        cfg.host, cfg.port, cfg.socket, cfg.mysql = server.host, server.port, None, server.client
        cfg.password_env, cfg.password_file = None, None
        cfg.db_server = cfg.db_server or "MariaDB"
        load_out = sweep_dir / ".load.log"  # a dot file: ingest does not read it as a run
        if not cfg.data_device:
            cfg.data_device = machine.block_name_for(datadir)
        if cfg.data_device and not cfg.data_device_id:
            host = cfg.host_id or os.uname().nodename
            cfg.throwaway_device_id = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{host}_{cfg.data_device}")
        if cfg.kit == "go-tpc":
            seconds = load_go_tpc(cfg.go_tpc, server, cfg.db, cfg.warehouses, load_out)
        else:
            seconds = load_tpcc_mysql(cfg.tpcc_start, args.tpcc_mysql_dir, server, cfg.db, cfg.warehouses, load_out)
        console.print(f"loaded {cfg.warehouses} warehouse(s) in {seconds:.0f} s; port {server.port}")
        size = server.sql("SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "
                          f"WHERE table_schema = '{cfg.db}'").strip()
        cfg.note = " ".join(filter(None, [cfg.note, (
            f"Throwaway MariaDB server (iopscope capture tpcc --throwaway-server): fresh datadir {datadir}, "
            f"127.0.0.1 only, buffer pool {args.buffer_pool}"
            + (f", options {' '.join(args.server_option)}" if args.server_option else "")
            + f"; {cfg.warehouses} warehouse(s) loaded in {seconds:.0f} s, {int(size) / 2**20:.0f} MiB of "
              "data and indexes before the sweep.")]))
        sweep.cfg = cfg
        state = sweep.new_state(sys.argv[1:] if sys.argv else [])
        state.data["throwaway_server"] = {"datadir": str(datadir), "port": server.port,
                                          "buffer_pool": args.buffer_pool, "load_seconds": round(seconds, 1),
                                          "data_bytes": int(size)}
        state.save()
        return sweep.run(state)


# --------------------------------------------------------------------------- CLI entry


def main(args) -> int:
    console = console_for()
    try:
        if args.resume:
            sweep_dir = Path(args.resume).resolve()
            state, cfg = SweepState.resume(sweep_dir, "tpcc", TpccConfig)
            sweep_id = state.data["sweep_id"]
        else:
            cfg = TpccConfig(
                tpcc_start=args.tpcc_start, host=args.host, port=args.port, socket=args.socket, db=args.db,
                user=args.user, password_env=args.password_env, password_file=args.password_file,
                warehouses=args.warehouses, connections=args.connections, ramp_up_s=args.ramp_up,
                measure_s=args.measure, interval_s=args.interval, stop_cpu_busy_pct=args.stop_cpu_busy,
                stop_neworder_ms=args.stop_neworder_ms, stop_neworder_pct=args.stop_neworder_pct,
                stop_log_await_ms=args.stop_log_await_ms, stop_plateau_pct=args.stop_plateau_pct,
                data_device=args.data_device, log_device=args.log_device, mysql=args.mysql,
                db_server=args.db_server, config_id=args.config_id, sysmon_interval=args.sysmon_interval,
                iostat_devices=args.iostat_devices, iostat=args.iostat, mpstat=args.mpstat,
                host_id=args.host_id, note=args.note, tags=args.tag, synthetic=args.synthetic,
                data_device_id=args.data_device_id, log_device_id=args.log_device_id,
                kit=args.kit, go_tpc=args.go_tpc, load_generator=args.load_generator)
            if cfg.kit == "go-tpc":
                cfg.ramp_up_s = 0
            if cfg.password_file:
                cfg.password_file = str(Path(cfg.password_file).resolve())
            for attr in ("tpcc_start", "go_tpc"):
                if "/" in getattr(cfg, attr):
                    setattr(cfg, attr, os.path.abspath(getattr(cfg, attr)))
            sweep_id = args.sweep_id or (Path(args.out).resolve().name if args.out else
                                         default_sweep_id("tpcc", [f"w{cfg.warehouses}"], cfg.data_device))
            sweep_dir = sweep_folder(args.out, args.raw, sweep_id)
            state = None
        password = read_password(cfg.password_env, cfg.password_file)
        sweep = TpccSweep(cfg, sweep_dir, sweep_id, console, password)
        if args.dry_run:
            print("\n".join(sweep.dry_run()))
            return 0
        check_tools(cfg.go_tpc if cfg.kit == "go-tpc" else cfg.tpcc_start, cfg.iostat, cfg.mpstat)
        if state is None:
            if sweep_dir.exists() and any(sweep_dir.iterdir()):
                raise SweepError(f"{sweep_dir} exists and is not empty; continue it with --resume {sweep_dir}")
            sweep_dir.mkdir(parents=True, exist_ok=True)
        elif getattr(args, "throwaway_server", False):
            raise SweepError("--resume with --throwaway-server: the server and its data are gone; start a new sweep")
        if not getattr(args, "throwaway_server", False):
            if state is None:
                state = sweep.new_state(sys.argv[1:] if sys.argv else [])
                state.save()
            return sweep.run(state)
        return _run_with_throwaway_server(args, cfg, sweep, sweep_dir, console)
    except (SweepError, ServerError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", markup=True, highlight=False)
        return 2

"""``iopscope capture``: the command-line side of capture (see docs/capture.md).

``register(subparsers)`` adds ``capture profiles``, ``capture fio`` and ``capture tpcc`` to the
main ``iopscope`` parser.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.table import Table


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _floats(text: str) -> list[float]:
    try:
        return [float(t) for t in _csv(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def _ints(text: str) -> list[int]:
    try:
        return [int(t) for t in _csv(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


class _Help(argparse.HelpFormatter):
    """Shows a default only when there is one worth showing."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "%(default)" in text or action.default in (None, False, [], argparse.SUPPRESS) or not action.option_strings:
            return text
        default = ",".join(map(str, action.default)) if isinstance(action.default, list) else action.default
        return f"{text} (default: {default})"


def register(subparsers) -> None:
    cap = subparsers.add_parser("capture", help="run fio / tpcc-mysql sweeps with iostat and mpstat alongside",
                                description="Run benchmarks and write complete raw run folders "
                                            "(outputs + run.toml) that `iopscope ingest` reads as they are.")
    sub = cap.add_subparsers(dest="capture_command", required=True)

    p = sub.add_parser("profiles", help="list the named fio load profiles")
    p.add_argument("--profiles-file", help="TOML file with your own profiles (same shape as the built-in ones)")
    p.set_defaults(func=cmd_profiles)

    # ------------------------------------------------------------------ fio
    p = sub.add_parser("fio", help="fio sweep over profiles x block sizes x read mixes x outstanding IOs",
                       formatter_class=_Help)
    g = p.add_argument_group("what to run")
    g.add_argument("--target", help="directory (a test file is created in it), file path, or block device")
    g.add_argument("--profile", type=_csv, default=["database"],
                   help="comma-separated profile names (`iopscope capture profiles`)")
    g.add_argument("--profiles-file", help="TOML file with your own profiles")
    g.add_argument("--oio", default="1..256",
                   help="outstanding IOs: N, DxJ (iodepth x jobs) or A..B (powers of two), comma-separated")
    g.add_argument("--max-iodepth", type=int, default=32,
                   help="iodepth per job before more jobs are added to reach the OIO")
    g.add_argument("--bs", type=_csv, help="block sizes to sweep instead of each profile's own (e.g. 4k,8k,64k)")
    g.add_argument("--read-mix", type=_floats, help="read percentages to sweep instead of each profile's own (e.g. 100,70,0)")
    g.add_argument("--area", help="measurement area: the test file size (e.g. 1GiB), or on a block device a "
                                   "hot spot at its start; 'device' = the whole device "
                                   "(default: 1GiB for files, device for block devices)")
    g.add_argument("--ramp", type=int, default=2, help="seconds of ramp time per step (not measured)")
    g.add_argument("--runtime", type=int, default=10, help="measured seconds per step (time-based)")
    g.add_argument("--ioengine", default="libaio", help="fio ioengine")
    g.add_argument("--direct", action=argparse.BooleanOptionalAction, default=True, help="O_DIRECT IO")
    g.add_argument("--steady-state", metavar="CRITERION",
                   help="fio ss= criterion, e.g. iops:10%% or bw_slope:0.1%%; runtime becomes the upper bound")
    g.add_argument("--ss-dur", type=int, default=30, help="ss_dur: seconds the criterion must hold")
    g.add_argument("--ss-ramp", type=int, default=0, help="ss_ramp: seconds before steady state is checked")
    g.add_argument("--precondition", action="store_true",
                   help="before the sweep: sequential fill of the area, then random 4 KiB writes")
    g.add_argument("--precondition-random", type=int, default=60, metavar="SECONDS",
                   help="seconds of random writes in the preconditioning pass")
    g.add_argument("--logs", type=_csv, default=[], help="fio logs to keep: any of bw,iops,lat")
    g.add_argument("--log-avg-msec", type=int, default=1000, help="averaging window of fio logs")
    g.add_argument("--device-id", help="catalog id of the device under test for the manifest (e.g. vm_virtio_vda)")
    g.add_argument("--fio-option", action="append", default=[], metavar="KEY[=VALUE]",
                   help="extra fio option for every step (repeatable), e.g. --fio-option randrepeat=0")
    _common(p)
    p.set_defaults(func=cmd_fio)

    # ------------------------------------------------------------------ tpcc
    p = sub.add_parser("tpcc", help="TPC-C load sweep (tpcc-mysql or go-tpc) over connections, with stop conditions",
                       formatter_class=_Help)
    g = p.add_argument_group("kit")
    g.add_argument("--kit", choices=("tpcc-mysql", "go-tpc"), default="tpcc-mysql",
                   help="load generator: tpcc-mysql's tpcc_start or go-tpc (connections = go-tpc threads)")
    g.add_argument("--go-tpc", default="go-tpc", help="path of go-tpc (go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7)")
    g.add_argument("--load-generator", default="same host",
                   help="where the load generator runs, recorded as a condition ('same host' shares its CPUs)")
    g = p.add_argument_group("throwaway server (MariaDB started for the sweep)")
    g.add_argument("--throwaway-server", action="store_true",
                   help="start a MariaDB server of its own (mariadb-install-db + mariadbd, 127.0.0.1 and a socket "
                        "only), load the warehouses, run the sweep, stop it and remove its datadir")
    g.add_argument("--buffer-pool", default="128M", help="its innodb_buffer_pool_size")
    g.add_argument("--server-datadir", help="its datadir (default: a new folder under the temp dir)")
    g.add_argument("--keep-server-datadir", action="store_true", help="keep the datadir after the sweep")
    g.add_argument("--server-option", action="append", default=[], metavar="OPT",
                   help="extra mariadbd option, e.g. --innodb-flush-log-at-trx-commit=2 (repeatable)")
    g.add_argument("--tpcc-mysql-dir", help="tpcc-mysql folder with create_table.sql, add_fkey_idx.sql and tpcc_load "
                                            "(loading with --kit tpcc-mysql; default: tpcc_start's folder)")
    g = p.add_argument_group("tpcc_start")
    g.add_argument("--tpcc-start", default="tpcc_start", help="path of tpcc_start (built by you from tpcc-mysql)")
    g.add_argument("--host", default="127.0.0.1", help="-h: server host (localhost = the client library's socket)")
    g.add_argument("--port", type=int, default=3306, help="-P")
    g.add_argument("--db", default="tpcc", help="-d: database name")
    g.add_argument("--user", default="root", help="-u")
    g.add_argument("--password-env", default="IOPSCOPE_DB_PASSWORD", metavar="VAR",
                   help="environment variable holding the password (never written anywhere)")
    g.add_argument("--password-file", metavar="FILE",
                   help="MySQL option file with password= under [client] (read instead of --password-env)")
    g.add_argument("--warehouses", type=int, default=10, help="-w")
    g.add_argument("--connections", type=_ints, default=[50, 100, 150, 200],
                   help="-c values, one step each, comma-separated")
    g.add_argument("--ramp-up", type=int, default=60, help="-r: seconds")
    g.add_argument("--measure", type=int, default=300, help="-l: seconds")
    g.add_argument("--interval", type=int, default=10, help="-i: report interval, seconds")
    g = p.add_argument_group("stop conditions (0 disables one)")
    g.add_argument("--stop-cpu-busy", type=float, default=80.0, metavar="PCT",
                   help="stop when mean CPU busy (mpstat, all CPUs) is above PCT")
    g.add_argument("--stop-neworder-ms", type=float, default=0.0, metavar="MS",
                   help="stop when New-Order's percentile (below) is above MS")
    g.add_argument("--stop-neworder-pct", type=float, default=95.0, choices=(95.0, 99.0),
                   help="which New-Order percentile tpcc_start prints to test (95 or 99)")
    g.add_argument("--stop-log-await-ms", type=float, default=5.0, metavar="MS",
                   help="stop when the log device's mean write await (iostat) is above MS; needs --log-device")
    g.add_argument("--stop-plateau-pct", type=float, default=0.0, metavar="PCT",
                   help="stop when TpmC grew by less than PCT %% over the previous step")
    g = p.add_argument_group("database facts (optional)")
    g.add_argument("--data-device", help="kernel name of the data device (sda, nvme0n1) for the manifest")
    g.add_argument("--log-device", help="kernel name of the redo-log device (for the await stop condition)")
    g.add_argument("--data-device-id", help="catalog id of the data device for the manifest")
    g.add_argument("--log-device-id", help="catalog id of the log device for the manifest")
    g.add_argument("--mysql", metavar="PATH",
                   help="mysql client: record the server version and SHOW GLOBAL VARIABLES (same credentials)")
    g.add_argument("--socket", help="server socket: passed to tpcc_start as -S (only builds that have -S; "
                                    "upstream uses -h localhost for the default socket) and to the mysql client")
    g.add_argument("--db-server", help="server name for the manifest, e.g. MySQL, Percona Server, MariaDB")
    g.add_argument("--config-id", help="your name for the server configuration")
    g.add_argument("--synthetic", action="store_true",
                   help="mark the runs synthetic (e.g. when tpcc_start is a test stand-in)")
    _common(p)
    p.set_defaults(func=cmd_tpcc)


def _common(p) -> None:
    g = p.add_argument_group("output and safety")
    g.add_argument("--out", help="sweep folder (default <raw>/measured/<sweep-id>)")
    g.add_argument("--raw", help="raw tree whose measured/ collection receives the sweep (default data/raw)")
    g.add_argument("--sweep-id", help="prefix of the run ids (default: the --out folder name, else "
                                      "<date-time>-<host>-<device>-<kind>-<what>)")
    g.add_argument("--host-id", help="host id for the manifests (default: the hostname)")
    g.add_argument("--note", help="free text added to every manifest (e.g. what else ran on the machine)")
    g.add_argument("--tag", action="append", default=[], help="extra manifest tag (repeatable)")
    g.add_argument("--destructive", action="store_true",
                   help="allow a block device, or an existing file iopscope did not create (its data is destroyed)")
    g.add_argument("--keep-files", action="store_true", help="keep the test file after the sweep")
    g.add_argument("--min-free-pct", type=float, default=10.0,
                   help="refuse a test file that would leave less than this %% of its filesystem free")
    g.add_argument("--sysmon-interval", type=int, default=1, help="iostat / mpstat interval, seconds")
    g.add_argument("--iostat-devices", type=_csv, help="only these devices in iostat (default: all)")
    g.add_argument("--fio", default="fio", help=argparse.SUPPRESS)
    g.add_argument("--iostat", default="iostat", help="iostat program")
    g.add_argument("--mpstat", default="mpstat", help="mpstat program")
    g.add_argument("--dry-run", action="store_true", help="print the exact commands and exit")
    g.add_argument("--resume", metavar="SWEEP_DIR", help="continue an interrupted sweep (other options are "
                                                          "taken from its .sweep.json, except safety ones)")


# ---------------------------------------------------------------------- commands


def cmd_profiles(args) -> int:
    from iopscope.capture.profiles import ProfileError, load_profiles
    from iopscope.capture.summary import console_for

    try:
        profiles = load_profiles(args.profiles_file)
    except ProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = Table(title="fio load profiles")
    for col in ("name", "family", "pattern", "read %", "bs", "description"):
        table.add_column(col, no_wrap=col != "description")
    for p in profiles.values():
        source = "" if p.source == "builtin" else f" ({p.source})"
        table.add_row(p.name, p.family, p.pattern, f"{p.read_pct:g}", p.block_size, p.description + source)
    console_for(sys.stdout).print(table)
    return 0


def cmd_fio(args) -> int:
    from iopscope.capture import safety
    from iopscope.capture.profiles import ProfileError
    from iopscope.capture.fio_plan import FioConfig, FioSweep
    from iopscope.capture.summary import console_for
    from iopscope.capture.sweep import SweepError, SweepState, check_tools, default_sweep_id, sweep_folder

    console = console_for()
    try:
        if args.resume:
            sweep_dir = Path(args.resume).resolve()
            state, cfg = SweepState.resume(sweep_dir, "fio", FioConfig)
            cfg.destructive, cfg.keep_files = args.destructive, args.keep_files
            sweep = FioSweep(cfg, sweep_dir, state.data["sweep_id"], console, state.data.get("profiles"))
        else:
            if not args.target:
                raise SweepError("--target is required (a directory, a file path or a block device)")
            area = args.area
            if area is None:
                area = "device" if Path(args.target).is_block_device() else "1GiB"
            cfg = FioConfig(
                target=os.path.abspath(args.target), profiles=args.profile, oio=args.oio, max_iodepth=args.max_iodepth,
                block_sizes=args.bs, read_mixes=args.read_mix, area=area, ramp_s=args.ramp,
                runtime_s=args.runtime, ioengine=args.ioengine, direct=args.direct,
                steady_state=args.steady_state, ss_dur_s=args.ss_dur, ss_ramp_s=args.ss_ramp,
                precondition=args.precondition, precondition_random_s=args.precondition_random,
                logs=args.logs, log_avg_msec=args.log_avg_msec, profiles_file=args.profiles_file,
                destructive=args.destructive, keep_files=args.keep_files, min_free_pct=args.min_free_pct,
                sysmon_interval=args.sysmon_interval, iostat_devices=args.iostat_devices, fio=args.fio,
                iostat=args.iostat, mpstat=args.mpstat, host_id=args.host_id, note=args.note,
                tags=args.tag, fio_options=args.fio_option, device_id=args.device_id)
            _validate_fio(cfg)
            from iopscope.capture import machine

            dev = machine.target_storage(Path(args.target).resolve())[0].get("kernel_name")
            sweep_id = args.sweep_id or (Path(args.out).resolve().name if args.out
                                         else default_sweep_id("fio", args.profile, dev))
            sweep_dir = sweep_folder(args.out, args.raw, sweep_id)
            sweep = FioSweep(cfg, sweep_dir, sweep_id, console)
            state = None
        if args.dry_run:
            lines = sweep.dry_run()
            print("\n".join(lines))
            # a refused target fails the dry run as it would fail the real one (scripts check)
            return 2 if any(line.startswith("# target refused") for line in lines) else 0
        check_tools(cfg.fio, cfg.iostat, cfg.mpstat)
        sweep.check()
        if state is None:
            if sweep_dir.exists() and any(sweep_dir.iterdir()):
                raise SweepError(f"{sweep_dir} exists and is not empty; continue it with --resume {sweep_dir}")
            sweep_dir.mkdir(parents=True, exist_ok=True)
            state = sweep.new_state(sys.argv[1:] if sys.argv else [])
            state.save()
        return sweep.run(state)
    except (SweepError, safety.SafetyError, ProfileError, ValueError) as exc:
        from rich.markup import escape

        console.print(f"[red]error:[/] {escape(str(exc))}", markup=True, highlight=False)
        return 2


def _validate_fio(cfg) -> None:
    from iopscope.capture.sweep import SweepError

    if cfg.runtime_s < 1:
        raise SweepError("--runtime must be at least 1 second")
    if cfg.ramp_s < 0:
        raise SweepError("--ramp cannot be negative")
    if cfg.sysmon_interval < 1 or cfg.runtime_s < cfg.sysmon_interval:
        raise SweepError("--sysmon-interval must be between 1 and --runtime seconds")
    for mix in cfg.read_mixes or []:
        if not 0 <= mix <= 100:
            raise SweepError(f"--read-mix values are percentages 0-100, got {mix:g}")


def cmd_tpcc(args) -> int:
    from iopscope.capture import tpcc

    return tpcc.main(args)

"""iopscope capture: the pure parts (no fio, no sysstat): profiles, job specs, TOML, safety,
password scrubbing, stop conditions, machine-fact parsing. Fast."""

from __future__ import annotations

import datetime as dt
import doctest
import importlib
import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

from iopscope.capture import fio_plan, fio_wrapper, machine, profiles, safety, summary, sweep, sysstat_means, tomlw, tpcc
from iopscope.manifest import parse_manifest

MODULES = ["fio_plan", "fio_wrapper", "machine", "profiles", "safety", "summary", "sweep", "sysmon",
           "sysstat_means", "tomlw", "tpcc"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"iopscope.capture.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0


# ----------------------------------------------------------------------------- profiles


def test_classic_and_oltp_profiles_are_data_with_the_documented_parameters():
    p = profiles.load_profiles()
    expected = {
        "database": ("random", 67, "8k"), "file-server": ("random", 67, "64k"),
        "file-copy": ("random", 50, "64k"), "streaming": ("sequential", 100, "64k"),
        "restore": ("sequential", 0, "64k"),
        "oltp-4k-read": ("random", 100, "4k"), "oltp-4k-write": ("random", 0, "4k"),
        "oltp-4k-70-30": ("random", 70, "4k"), "oltp-16k-read": ("random", 100, "16k"),
        "oltp-16k-write": ("random", 0, "16k"), "oltp-16k-70-30": ("random", 70, "16k"),
    }
    for name, (pattern, read_pct, bs) in expected.items():
        assert (p[name].pattern, p[name].read_pct, p[name].block_size) == (pattern, read_pct, bs), name
    assert p["restore"].fio_rw() == ("write", None)
    assert p["file-copy"].fio_rw() == ("randrw", 50.0)
    assert p["database"].fio_rw(read_pct=100) == ("randread", None)
    assert "database" in profiles.BUILTIN.read_text()  # defined in the TOML file, not in code


def test_user_profiles_file_adds_and_replaces(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[logwriter]\npattern = "sequential"\nread_pct = 0\nblock_size = "16k"\n'
                 'options = { fsync = 1, rate_iops = "500" }\n'
                 '[database]\npattern = "random"\nread_pct = 70\nblock_size = "16k"\n')
    p = profiles.load_profiles(f)
    assert p["logwriter"].options == {"fsync": "1", "rate_iops": "500"}
    assert p["logwriter"].source == str(f)
    assert p["database"].read_pct == 70 and p["streaming"].block_size == "64k"


@pytest.mark.parametrize("body, message", [
    ('[x]\npattern = "random"\nread_pct = 50\n', "missing key 'block_size'"),
    ('[x]\npattern = "zigzag"\nread_pct = 50\nblock_size = "4k"\n', "pattern must be one of"),
    ('[x]\npattern = "random"\nread_pct = 150\nblock_size = "4k"\n', "read_pct must be"),
    ('[x]\npattern = "random"\nread_pct = 50\nblock_size = "4k"\nbs = "8k"\n', "unknown key(s) bs"),
    ('[x\n', "not valid TOML"),
])
def test_bad_user_profiles_are_rejected_with_the_reason(tmp_path, body, message):
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(profiles.ProfileError, match=None) as exc:
        profiles.load_profiles(f)
    assert message in str(exc.value) and str(f) in str(exc.value)


def test_unknown_profile_names_are_listed():
    with pytest.raises(profiles.ProfileError, match="unknown profile.*nope"):
        profiles.resolve(["database", "nope"], profiles.load_profiles())


# ----------------------------------------------------------------------------- job specs


def test_job_spec_command_line_and_job_file_carry_the_same_options():
    spec = fio_wrapper.JobSpec(
        name="t", filename="/x/f", rw="randrw", bs="4k", rwmixread=70, iodepth=8, numjobs=2,
        size="1GiB", runtime_s=10, ramp_time_s=2,
        steady_state=fio_wrapper.SteadyState("iops:10%", 30, 5),
        logs=fio_wrapper.LogSpec(prefix="fio", bw=True, lat=True, avg_msec=500),
        extra=(("randrepeat", "0"),))
    cli = spec.cli_args()
    job = spec.job_file().splitlines()
    assert job[0] == "[t]" and cli[0] == "--name=t"
    assert [a[2:] for a in cli[1:]] == job[1:]
    for opt in ("--ss=iops:10%", "--ss_dur=30", "--ss_ramp=5", "--write_bw_log=fio", "--write_lat_log=fio",
                "--log_avg_msec=500", "--rwmixread=70", "--numjobs=2", "--time_based", "--randrepeat=0"):
        assert opt in cli
    cmd = fio_wrapper.fio_command(spec, "out.json")
    assert cmd[:3] == ["fio", "--output-format=json+", "--output=out.json"]


def test_job_spec_refuses_line_breaks_in_options():
    spec = fio_wrapper.JobSpec(name="t", filename="/x\n[evil]", rw="read", bs="4k")
    with pytest.raises(ValueError, match="line break"):
        spec.job_file()


def test_oio_points_split_into_iodepth_and_jobs():
    assert fio_plan.parse_oio("1..512", 32)[-4:] == [(32, 2), (32, 4), (32, 8), (32, 16)]
    assert fio_plan.parse_oio("1..512", 32)[0] == (1, 1)
    assert [d * j for d, j in fio_plan.parse_oio("1..256", 32)] == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert fio_plan.parse_oio("8x4,3", 2) == [(8, 4), (1, 3)]
    assert fio_plan.parse_oio("100", 32) == [(25, 4)]
    with pytest.raises(ValueError):
        fio_plan.parse_oio("0", 32)


# ----------------------------------------------------------------------------- TOML writer


def test_toml_writer_round_trips_a_manifest_through_the_schema():
    data = {
        "schema_version": 1, "run_id": 'odd "id" \\ with\ttab', "kind": "measured",
        "tools": ["fio", "iostat"], "started_at": dt.datetime(2026, 11, 21, 13, 40, tzinfo=dt.timezone.utc),
        "status": "complete", "host": {"logical_cpus": 2, "ram_gib": 23.5, "cpu_model": "Xeon\u00ae"},
        "devices": [{"kernel_name": "vda", "rotational": True, "capacity_gb": 274.9}],
        "fio": {"profile": "database", "job_options": {"time_based": "", "bs": "8k"}},
        "files": [{"path": "fio.json", "format": "fio_json"}, {"path": "x.log", "role": "ignore"}],
        "extra": {"nested": {"a": 1}, "list": [1, 2], "nan": float("nan"), "ctl": "a\x01b\x7f"},
    }
    text = tomlw.dumps(data, header="two\nlines")
    assert text.startswith("# two\n# lines\n")
    m = parse_manifest(text)
    assert m.run_id == data["run_id"]
    assert m.get("host", "cpu_model") == "Xeon\u00ae"
    assert m.get("extra", "ctl") == "a\x01b\x7f"
    assert m.files["x.log"]["role"] == "ignore"
    assert tomllib.loads(text)["extra"]["nested"] == {"a": 1}


# ----------------------------------------------------------------------------- safety


def _some_block_device() -> Path | None:
    for entry in sorted(os.scandir("/dev"), key=lambda e: e.name):
        try:
            if stat.S_ISBLK(os.stat(entry.path).st_mode):
                return Path(entry.path)
        except OSError:
            continue
    return None


def test_block_devices_are_refused_without_destructive():
    dev = _some_block_device()
    if dev is None:
        pytest.skip("no block device in /dev")
    with pytest.raises(safety.SafetyError, match="is a block device.*--destructive"):
        safety.check_target(dev, "device")


def test_a_mounted_block_device_is_refused_even_with_destructive():
    name = machine.block_name_for(Path("/"))
    if not name or not Path(f"/dev/{name}").exists():
        pytest.skip("root filesystem has no /dev block device here")
    with pytest.raises(safety.SafetyError, match="refused even with --destructive"):
        safety.check_target(Path(f"/dev/{name}"), "device", destructive=True)


def test_block_in_use_reads_mounts_holders_and_partitions(tmp_path):
    sysroot = tmp_path / "sys"
    disk = sysroot / "devices" / "sdz"
    (disk / "sdz1").mkdir(parents=True)
    (disk / "sdz1" / "partition").write_text("1")
    (disk / "sdz1" / "dev").write_text("8:241\n")
    (disk / "dev").write_text("8:240\n")
    (disk / "holders").mkdir()
    (sysroot / "class" / "block").mkdir(parents=True)
    (sysroot / "class" / "block" / "sdz").symlink_to(disk)
    (sysroot / "class" / "block" / "sdz1").symlink_to(disk / "sdz1")
    mountinfo = "40 27 8:241 / /data rw,relatime - ext4 /dev/sdz1 rw\n"
    assert safety.block_in_use(Path("/dev/sdz"), mountinfo, sysroot) == \
        "its partition /dev/sdz1 is mounted on /data"
    assert safety.block_in_use(Path("/dev/sdz"), "", sysroot) is None
    (disk / "holders" / "dm-3").mkdir()
    assert "held by dm-3" in safety.block_in_use(Path("/dev/sdz"), "", sysroot)


def test_existing_files_not_created_by_iopscope_are_refused(tmp_path):
    f = tmp_path / "precious.db"
    f.write_bytes(b"data")
    with pytest.raises(safety.SafetyError, match="not created by iopscope.*--destructive"):
        safety.check_target(f, "1MiB")
    t = safety.check_target(f, "1MiB", destructive=True)
    assert t.kind == "file" and not t.ours
    assert not safety.remove_test_file(t) and f.exists()  # never deletes what it did not create


def test_a_marker_makes_a_file_ours_only_for_that_inode(tmp_path):
    f = tmp_path / "iopscope-fio.testfile"
    f.write_bytes(b"\0" * 4096)
    safety.write_marker(f)
    t = safety.check_target(tmp_path, "1MiB")  # a directory target uses the default file name
    assert t.path == f and t.ours and t.will_create  # 4 KiB < 1 MiB: fio extends it
    g = tmp_path / "copy"
    g.write_bytes(f.read_bytes())
    os.replace(g, f)  # same name, new inode: the marker no longer matches
    with pytest.raises(safety.SafetyError, match="not created by iopscope"):
        safety.check_target(f, "1MiB")
    safety.write_marker(f)
    assert safety.remove_test_file(safety.check_target(f, "1MiB"))
    assert not f.exists() and not safety.marker_path(f).exists()


def test_test_files_that_would_fill_the_filesystem_are_refused(tmp_path):
    with pytest.raises(safety.SafetyError, match="below the 10% margin"):
        safety.check_target(tmp_path / "f", "512TiB")
    with pytest.raises(safety.SafetyError, match="margin"):
        safety.check_target(tmp_path / "f", "1MiB", min_free_pct=100)
    assert safety.check_target(tmp_path / "f", "1MiB").will_create


def test_other_targets_are_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(safety.SafetyError, match="neither a regular file nor a block device"):
        safety.check_target(tmp_path / "fifo", "1MiB")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_text("x")
    with pytest.raises(safety.SafetyError, match="symbolic link"):
        safety.check_target(tmp_path / "link", "1MiB", destructive=True)
    with pytest.raises(safety.SafetyError, match="needs a size"):
        safety.check_target(tmp_path / "new", "device")
    with pytest.raises(safety.SafetyError, match="no such directory"):
        safety.check_target(tmp_path / "missing" / "f", "1MiB")


# ----------------------------------------------------------------------------- TPC-C pieces


def test_password_is_scrubbed_from_echo_lines_and_anywhere_else():
    text = ("option p with value 'Pw-42'\n       [pass]: Pw-42\n"
            "error: Access denied for user 'root' (using password: Pw-42)\n[pass]:\n")
    clean, others = tpcc.scrub(text, "Pw-42")
    assert "Pw-42" not in clean
    assert others == 1
    assert "option p with value '****'" in clean and "       [pass]: ****" in clean
    # tpcc_start echoes even an empty or unknown password: the echo lines are always masked
    clean, _ = tpcc.scrub("option p with value 'zz'\n", None)
    assert "zz" not in clean


def test_password_comes_from_env_or_option_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_PW", "from-env")
    assert tpcc.read_password("MY_PW", None) == "from-env"
    monkeypatch.delenv("MY_PW")
    assert tpcc.read_password("MY_PW", None) is None
    f = tmp_path / "my.cnf"
    f.write_text("[client]\nuser = root\npassword = \"from file\"\n")
    assert tpcc.read_password("MY_PW", str(f)) == "from file"
    f.write_text("[client]\nuser = root\n")
    with pytest.raises(sweep.SweepError, match="no password="):
        tpcc.read_password(None, str(f))


def test_tpcc_command_masks_the_password_only_when_shown():
    cfg = tpcc.TpccConfig(tpcc_start="/opt/tpcc_start", warehouses=20, ramp_up_s=30, measure_s=600, interval_s=10)
    assert tpcc.tpcc_command(cfg, 64, "pw") == [
        "/opt/tpcc_start", "-h", "127.0.0.1", "-P", "3306", "-d", "tpcc", "-u", "root", "-p", "pw",
        "-w", "20", "-c", "64", "-r", "30", "-l", "600", "-i", "10"]
    assert "pw" not in tpcc.tpcc_command(cfg, 64, "pw", masked=True)
    assert "-p" not in tpcc.tpcc_command(cfg, 64, None)


def test_stop_conditions_in_order_and_switchable():
    cfg = tpcc.TpccConfig(stop_cpu_busy_pct=80, stop_neworder_ms=500, stop_neworder_pct=99,
                          stop_log_await_ms=5, stop_plateau_pct=5, log_device="nvme1n1")
    assert tpcc.stop_reason(cfg, 50, {"cpu_busy_pct": 40, "neworder_p99_ms": 100, "log_w_await_ms": 1,
                                      "tpmc": 2000}, {"tpmc": 1000}, 25) is None
    assert tpcc.stop_reason(cfg, 50, {"neworder_p99_ms": 600}, None, None).startswith("neworder_p99:")
    assert tpcc.stop_reason(cfg, 50, {"neworder_p95_ms": 600}, None, None) is None
    assert tpcc.stop_reason(cfg, 50, {"log_w_await_ms": 5.5}, None, None).startswith("log_await: nvme1n1")
    both = {"cpu_busy_pct": 95, "log_w_await_ms": 9}
    assert tpcc.stop_reason(cfg, 50, both, None, None).startswith("cpu_busy:")
    off = tpcc.TpccConfig(stop_cpu_busy_pct=0, stop_neworder_ms=0, stop_log_await_ms=0, stop_plateau_pct=0)
    assert tpcc.stop_reason(off, 50, {"cpu_busy_pct": 99, "tpmc": 1}, {"tpmc": 2}, 25) is None
    # a log-await limit without a log device cannot fire
    assert tpcc.stop_reason(tpcc.TpccConfig(stop_cpu_busy_pct=0), 1, {"log_w_await_ms": 50}, None, None) is None


def test_show_global_variables_output_gives_version_and_parameters():
    version, variables = tpcc.parse_variables("8.0.36-28\ninnodb_buffer_pool_size\t17179869184\n"
                                              "innodb_page_size\t16384\nversion_comment\tPercona Server (GPL)\n")
    assert version == "8.0.36-28"
    assert tpcc._tpcc_db_numbers(variables) == {"buffer_pool_gib": 16.0, "page_size_kib": 16}


# ----------------------------------------------------------------------------- machine facts


def test_lscpu_facts_take_only_what_lscpu_says():
    doc = {"lscpu": [{"field": "CPU(s):", "data": "64"}, {"field": "Model name:", "data": "AMD EPYC 7B13"},
                     {"field": "Thread(s) per core:", "data": "2"}, {"field": "Core(s) per socket:", "data": "16"},
                     {"field": "Socket(s):", "data": "2"}, {"field": "CPU max MHz:", "data": "3500.0000"},
                     {"field": "CPU MHz:", "data": "2450.000"}]}
    f = machine.lscpu_facts(doc)
    assert (f["sockets"], f["physical_cores"], f["logical_cpus"], f["nominal_ghz"], f["current_ghz"]) == \
        (2, 32, 64, 3.5, 2.45)
    assert "nominal_ghz" not in machine.lscpu_facts({"lscpu": [{"field": "Model name:", "data": "Xeon"}]})


def test_mount_lookup_picks_the_deepest_mount_point():
    info = ("27 1 254:0 / / rw - ext4 /dev/vda rw\n"
            "40 27 259:1 / /mnt/my\\040data rw - xfs /dev/nvme0n1p1 rw\n")
    m = machine.mount_for(Path("/mnt/my data/x/y"), info)
    assert (m["mountpoint"], m["fstype"], m["source"]) == ("/mnt/my data", "xfs", "/dev/nvme0n1p1")
    assert machine.mount_for(Path("/mnt/myother"), info)["fstype"] == "ext4"


def test_machine_facts_of_this_host_are_read_not_guessed(tmp_path):
    host, extra = machine.host_facts()
    assert host["logical_cpus"] == os.cpu_count()
    assert host["kernel"] == os.uname().release
    assert host["ram_gib"] > 0
    device, _ = machine.target_storage(tmp_path)
    assert device.get("filesystem")  # tmp_path is on some filesystem
    if device.get("kernel_name"):
        assert device["kernel_name"] in os.listdir("/sys/block")


# ----------------------------------------------------------------------------- file declaration


def test_declare_file_ignores_what_ingest_could_not_read(tmp_path):
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "junk.txt").write_text("nothing any parser reads\n")
    (tmp_path / "cut.json").write_text('{"fio version": "fio-3.33", "jobs": [{"jobname": "x", ')
    assert sweep.declare_file(tmp_path, "missing.json", "result") is None
    assert sweep.declare_file(tmp_path, "empty.json", "result")["role"] == "ignore"
    junk = sweep.declare_file(tmp_path, "junk.txt", "result")
    assert junk["role"] == "ignore" and "no parser" in junk["description"]
    cut = sweep.declare_file(tmp_path, "cut.json", "result")
    assert cut["role"] == "ignore" and "cut short" in cut["description"]


def test_state_file_is_hidden_from_ingest_and_summary_is_markdown():
    from iopscope.raw_tree import ignored_name

    assert ignored_name(sweep.STATE_FILE) and ignored_name(summary.SUMMARY_FILE)
    assert sweep.SUPERSEDED.startswith(".")


def _sysstat(statistics: list[dict], after_y: bool = True) -> str:
    """A sysstat JSON document laid out as iostat / mpstat write it; ``after_y``: the empty line
    sysstat >= 12 leaves after ``"statistics": [`` for the since-boot report ``-y`` skipped."""
    host = {"nodename": "vm", "sysname": "Linux", "release": "6.1.0", "machine": "x86_64",
            "number-of-cpus": 2, "date": "2026-11-26"}
    head = json.dumps({"sysstat": {"hosts": [host]}})[:-4]  # open the host object again
    body = ",\n".join(json.dumps(entry) for entry in statistics)
    return f'{head}, "statistics": [\n{chr(10) if after_y else ""}{body}\n]}}]}}}}\n'


def _cpu(usr: float, idle: float, iowait: float = 0.0, steal: float = 0.0) -> dict:
    return {"cpu": "all", "usr": usr, "nice": 0.0, "sys": 0.0, "iowait": iowait, "irq": 0.0, "soft": 0.0,
            "steal": steal, "guest": 0.0, "gnice": 0.0, "idle": idle}


def test_step_means_read_mpstat_and_iostat_json(tmp_path):
    mp = [{"timestamp": "10:00:01", "cpu-load": [_cpu(20, 70, 5, 5), {**_cpu(40, 60), "cpu": "0"}]},
          {"timestamp": "10:00:02", "cpu-load": [_cpu(50, 50)]}]
    io = [{"timestamp": "2026-11-26T10:00:01+0000",
           "disk": [{"disk_device": "sdb", "r/s": 0, "w/s": 100, "w_await": 2.0, "r_await": 0, "util": 40}]},
          {"timestamp": "2026-11-26T10:00:02+0000",
           "disk": [{"disk_device": "sdb", "r/s": 0, "w/s": 300, "w_await": 6.0, "r_await": 0, "util": 60},
                    {"disk_device": "sda", "r/s": 9, "w/s": 9, "w_await": 99, "r_await": 99, "util": 99}]}]
    (tmp_path / "mpstat.json").write_text(_sysstat(mp))
    (tmp_path / "iostat.json").write_text(_sysstat(io))
    assert sysstat_means.cpu_busy_pct(tmp_path / "mpstat.json") == 35.0
    assert sysstat_means.device_means(tmp_path / "iostat.json", "sdb") == {"util_pct": 50.0, "samples": 2,
                                                                          "w_await_ms": 5.0}
    assert sysstat_means.cpu_busy_pct(tmp_path / "absent.json") is None
    (tmp_path / "cut.json").write_text("")
    assert sysstat_means.device_means(tmp_path / "cut.json", "sdb") == {}


def test_step_means_are_the_numbers_ingest_stores(tmp_path):
    """Capture's stop conditions judge what ingest will store, not a reading of its own (issue 21):
    busy % clamped at 0 where printed idle + iowait round past 100; the since-boot report of an
    iostat run without -y left out; ``await`` standing in for w_await in older sysstat's JSON.
    The private readers capture had before gave 19.9, counted the since-boot report and
    reported 0 ms writes."""
    from iopscope.parsers import mpstat_json

    mp = [{"timestamp": f"10:00:0{i}", "cpu-load": [load]}
          for i, load in enumerate([_cpu(30, 70), _cpu(30, 70), _cpu(0.0, 99.8, 0.5)], 1)]
    (tmp_path / "mpstat.json").write_text(_sysstat(mp))
    busy = [r["busy_pct"] for r in mpstat_json.parse((tmp_path / "mpstat.json").read_text()).tables["cpu_samples"]]
    assert busy == [30.0, 30.0, 0.0]  # the parser clamps 100 - 99.8 - 0.5
    assert sysstat_means.cpu_busy_pct(tmp_path / "mpstat.json") == 20.0

    old = [{"timestamp": f"2026-11-26T10:00:0{i}+0000",
            "disk": [{"disk_device": "sdb", "r/s": 0.0, "w/s": w, "rkB/s": 0.0, "wkB/s": w * 4, "await": ms,
                      "util": util}]}
           for i, (w, ms, util) in enumerate([(1.0, 50.0, 0.1), (100.0, 4.0, 40.0), (300.0, 8.0, 60.0)], 1)]
    (tmp_path / "iostat.json").write_text(_sysstat(old, after_y=False))
    assert sysstat_means.device_means(tmp_path / "iostat.json", "sdb") == {"util_pct": 50.0, "samples": 2,
                                                                          "w_await_ms": 7.0}

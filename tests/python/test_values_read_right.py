"""Values that real-world outputs (beyond the shared corpus) used to be read wrong (issue 18,
item 8): one test each. Inputs are written by hand in the shapes the tools print."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES
from iopscope import parsers
from iopscope.ingest import Ingestor
from iopscope.lake import Chunk
from iopscope.parsers import fio_json, fio_log, iostat_json, iostat_text, tpcc_mysql
from iopscope.parsers.base import read_by_reference

# --------------------------------------------------------------------------- iostat -z

_X_HEADER = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  "
             "%wrqm w_await wareq-sz  aqu-sz  %util")
_VDA = ("vda            {r:.2f}     {k:.2f}     0.00   0.00    0.50     4.00    2.00      8.00     0.00   0.00    1.00     4.00"
        "    0.10   {u:.2f}")
_SDB = "sdb            1.00     4.00     0.00   0.00    0.50     4.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00   0.10"


def _iostat_z_text() -> str:
    """iostat -y -z -x -t 1 4 on two disks: vda busy in reports 0 and 3, sdb only in report 2,
    report 1 with no active device at all (its header alone)."""
    reports = [[_VDA.format(r=4, k=16, u=0.4)], [], [_SDB], [_VDA.format(r=8, k=32, u=0.8)]]
    out = ["Linux 6.1.0-13-amd64 (vm2) \t11/21/2026 \t_x86_64_\t(2 CPU)", "", ""]
    for second, rows in enumerate(reports, 1):
        out += [f"11/21/2026 01:00:0{second} PM", _X_HEADER, *rows, ""]
    return "\n".join(out) + "\n"


def _iostat_z_json() -> str:
    disk = lambda name, r, util: {"disk_device": name, "r/s": r, "rkB/s": r * 4, "w/s": 0.0, "wkB/s": 0.0,  # noqa: E731
                                  "r_await": 0.5, "w_await": 0.0, "aqu-sz": 0.0, "%util": util}
    stats = [{"timestamp": f"11/21/2026 01:00:0{i} PM", "disk": disks} for i, disks in enumerate(
        [[disk("vda", 4.0, 0.4)], [], [disk("sdb", 1.0, 0.1)], [disk("vda", 8.0, 0.8)]], 1)]
    host = {"nodename": "vm2", "sysname": "Linux", "release": "6.1.0", "machine": "x86_64",
            "number-of-cpus": 2, "date": "11/21/2026", "statistics": stats}
    return json.dumps({"sysstat": {"hosts": [host]}})


@pytest.mark.parametrize("parse", [lambda t: iostat_text.parse(t), lambda t: read_by_reference(iostat_text, t)],
                         ids=["text", "text-rows"])
def test_iostat_z_idle_reports_are_zero_samples(parse):
    check_zero_filled(parse(_iostat_z_text()).tables["iostat_device_samples"])


@pytest.mark.parametrize("fast", [True, False], ids=["json", "json-rows"])
def test_iostat_json_z_idle_reports_are_zero_samples(fast):
    result = iostat_json.parse(_iostat_z_json()) if fast else read_by_reference(iostat_json, _iostat_z_json())
    check_zero_filled(result.tables["iostat_device_samples"])


def check_zero_filled(rows) -> None:
    rows = list(rows)
    got = [(r["sample_index"], r["device"], r["r_per_s"], bool(r.get("is_zero_filled"))) for r in rows]
    assert got == [(0, "vda", 4.0, False), (0, "sdb", 0.0, True),
                   (1, "vda", 0.0, True), (1, "sdb", 0.0, True),
                   (2, "sdb", 1.0, False), (2, "vda", 0.0, True),
                   (3, "vda", 8.0, False), (3, "sdb", 0.0, True)]
    vda = [r for r in rows if r["device"] == "vda"]
    # the mean over the four seconds, not over the two printed ones
    assert sum(r["r_per_s"] for r in vda) / len(vda) == 3.0
    filled = next(r for r in rows if r["sample_index"] == 1 and r["device"] == "vda")
    assert filled["util_pct"] == 0.0 and filled["r_await_ms"] == 0.0 and filled["sampled_at"].second == 2


# --------------------------------------------------------------------------- tpcc-mysql aborted

TPCC_RUN = (FIXTURES / "tpcc-mysql" / "tpcc-mysql-2016" / "w10_c4_i1_nopct.txt").read_text()


def test_tpcc_aborted_run_measured_time_is_what_its_intervals_cover():
    # planned 30 s (-l 30), aborted after 4 one-second intervals: tpcc_start still prints the
    # planned "in 30 sec."
    lines = TPCC_RUN.splitlines(keepends=True)
    intervals = [i for i, line in enumerate(lines) if line.startswith("   ") and ", trx: " in line]
    text = "".join(line for i, line in enumerate(lines) if i not in intervals[4:])
    text = text.replace("option l with value '8'", "option l with value '30'") \
               .replace("[measure]: 8 (sec.)", "[measure]: 30 (sec.)").replace(" in 8 sec.", " in 30 sec.")
    result = tpcc_mysql.parse(text)
    run = result.tables["tpcc_runs"][0]
    assert (run["measure_s"], run["measured_s"]) == (30, 4)
    assert any("planned measure time, but the interval lines cover only 4 s" in i.reason for i in result.issues)
    # the complete run is left as printed
    assert tpcc_mysql.parse(TPCC_RUN).tables["tpcc_runs"][0]["measured_s"] == 8


def test_tpcc_cut_run_measured_time_is_not_the_planned_time():
    lines = TPCC_RUN.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if line.startswith("   4, trx:"))
    result = tpcc_mysql.parse("".join(lines[:cut]))
    assert result.status == "incomplete"
    assert result.tables["tpcc_runs"][0]["measured_s"] == 3


# --------------------------------------------------------------------------- fio client mode

def test_fio_client_rows_keep_their_own_host_and_port():
    real = fio_json.parse((FIXTURES / "fio" / "fio-3.33" / "json-client-2servers.json").read_text())
    got = sorted({(r["hostname"], r["port"], r["is_aggregate"]) for r in real.tables["fio_jobs"]})
    assert got == [("127.0.0.1", 18765, False), ("127.0.0.1", 18765, True), ("127.0.0.1", 18766, False)]


def test_fio_client_global_options_are_each_clients_own():
    text = (FIXTURES / "fio" / "handmade" / "json-client-global-options-array.json").read_text()
    text = text.replace('"hostname" : "client-a" }', '"hostname" : "client-a", "port" : "8765", "filename" : "/dev/sda" }') \
               .replace('"hostname" : "client-b" }', '"hostname" : "client-b", "port" : "8766", "filename" : "/dev/sdb" }') \
               .replace('"hostname" : "client-b", "port" : 8765 },\n    { "jobname" : "All',
                        '"hostname" : "client-b", "port" : 8766 },\n    { "jobname" : "All')
    rows = [r for r in fio_json.parse(text).tables["fio_jobs"] if r["direction"] == "read"]
    got = [(r["hostname"], r["port"], r["filename"], json.loads(r["job_options_json"] or "{}").get("port"))
           for r in rows if not r["is_aggregate"]]
    assert got == [("client-a", 8765, "/dev/sda", None), ("client-b", 8766, "/dev/sdb", None)]
    aggregate = next(r for r in rows if r["is_aggregate"])
    assert aggregate["filename"] is None   # the clients differ: no single value


def test_fio_client_repeated_global_keys_that_differ_are_not_given_to_every_client():
    text = (FIXTURES / "fio" / "fio-3.33" / "json-client-2servers.json").read_text()
    text = text.replace('"size" : "16m",\n    "size" : "16m"', '"size" : "16m",\n    "size" : "32m"')
    result = fio_json.parse(text)
    assert {r["size"] for r in result.tables["fio_jobs"]} == {None}
    assert any("left out: size" in i.reason for i in result.issues)


# --------------------------------------------------------------------------- final newline

def _complete_fixtures() -> list:
    found = []
    for expected in sorted(FIXTURES.rglob("*.expected.json")):
        meta = json.loads(expected.read_text())
        source = expected.with_name(expected.name.removesuffix(".expected.json"))
        if source.is_file() and meta.get("status") in ("complete", "failed") and source.read_bytes().endswith(b"\n"):
            found.append(pytest.param(source, meta["format"], id=str(source.relative_to(FIXTURES))))
    return found


@pytest.mark.parametrize("source, fmt", _complete_fixtures())
def test_file_lacking_only_its_final_newline_reads_the_same(source, fmt):
    module = parsers.get(fmt)
    text = source.read_text(errors="replace")
    whole = module.parse(text, filename=source.name)
    unended = module.parse(text.rstrip("\r\n"), filename=source.name)
    assert (unended.status, unended.status_reason) == (whole.status, whole.status_reason)
    assert {t: len(r) for t, r in unended.tables.items()} == {t: len(r) for t, r in whole.tables.items()}
    assert len(unended.issues) == len(whole.issues), unended.issues


def test_iostat_output_really_cut_is_still_incomplete():
    text = (FIXTURES / "iostat" / "iostat-12.6.1" / "x-1-3.txt").read_text().rstrip("\n")
    assert iostat_text.parse(text[:-1]).status == "incomplete"            # "0.40" -> "0.4"
    reports = [f"11/21/2026 01:00:0{i} PM\n{_X_HEADER}\n{_VDA.format(r=4, k=16, u=0.4)}\n{_SDB}\n" for i in (1, 2)]
    text = "Linux 6.1.0 (vm2) \t11/21/2026 \t_x86_64_\t(2 CPU)\n\n" + "\n".join(reports)
    assert iostat_text.parse(text.rstrip("\n")).status == "complete"
    # a report cut right after its first device row looks whole on its own: the one before had two
    assert iostat_text.parse(text.rstrip("\n").rsplit("\n", 1)[0]).status == "incomplete"


def test_tpcc_output_really_cut_is_still_incomplete():
    lines = TPCC_RUN.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("   4, trx:"))
    cut_line = lines[cut][:-2]   # "144.383" -> "144.3"
    result = tpcc_mysql.parse("\n".join(lines[:cut] + [cut_line]))
    assert len(result.tables["tpcc_intervals"]) == 3
    whole = tpcc_mysql.parse("\n".join(lines[:cut + 1]))
    assert len(whole.tables["tpcc_intervals"]) == 4


# --------------------------------------------------------------------------- fio log latency unit

THIN_SLICE_JSON = (FIXTURES.parent.parent / "data" / "raw" / "measured" /
                   "2026-11-21-vm2-vda-fio-database-thin-slice" / "fio.json").read_text()
# A clat log whose magnitudes settle nothing: 500-800 is 0.5-0.8 us in nsec or 0.5-0.8 ms in usec
AMBIGUOUS_LOG = "".join(f"{t}, {v}, 0, 8192\n" for t, v in zip(range(1, 400), [500, 650, 800] * 133))


def _ingest_log_run(tmp_path, version: str | None):
    raw = tmp_path / "raw" / "measured" / "old-fio"
    raw.mkdir(parents=True)
    text = THIN_SLICE_JSON if version is None else re.sub(r'"fio version" : "[^"]+"', f'"fio version" : "{version}"', THIN_SLICE_JSON)
    (raw / "fio.json").write_text(text)
    (raw / "job_clat.1.log").write_text(AMBIGUOUS_LOG)
    report = Ingestor(tmp_path / "raw", tmp_path / "lake").run()
    rows = pq.read_table(tmp_path / "lake" / "fio_log_samples", partitioning="hive").to_pylist()
    notes = [e.reason for e in report.warnings if e.path.endswith("job_clat.1.log")]
    return rows, notes


def test_fio2_latency_log_is_usec_by_the_runs_fio_version(tmp_path):
    rows, notes = _ingest_log_run(tmp_path, "fio-2.21")
    assert {(r["raw_unit"], r["value_unit_assumed"]) for r in rows} == {("us", False)}
    assert rows[0]["value"] == rows[0]["value_raw"] == 500.0
    assert rows[0]["unit_evidence"] == "fio version: measured/old-fio/fio.json in the same run was written by fio 2.21"
    assert notes == ["latency unit: usec, " + rows[0]["unit_evidence"]]   # the assumption note is gone


def test_fio3_latency_log_is_nsec_by_the_runs_fio_version(tmp_path):
    rows, notes = _ingest_log_run(tmp_path, None)
    assert {(r["raw_unit"], r["value_unit_assumed"]) for r in rows} == {("ns", False)}
    assert rows[0]["value"] == 0.5 and "fio 3.33" in rows[0]["unit_evidence"]
    assert len(notes) == 1 and "assumed" not in notes[0]


def test_latency_log_unit_by_littles_law():
    jobs = [Chunk([{"doc_index": 0, "job_index": 0, "job_name": "oltp", "is_aggregate": False,
                    "iops": 2000.0, "outstanding_ios": 8, "direction": "read"}],
                  {"source_path": "r/fio.json", "tool_version": None})]
    for raw, unit in ((4_100_000, "ns"), (3_900, "us")):
        log = fio_log.parse(f"1, {raw}, 0, 4096\n2, {raw}, 0, 4096\n", filename="oltp_clat.1.log").tables["fio_log_samples"]
        chunks = {"fio_jobs": jobs, "fio_log_samples": [Chunk(log, {"source_path": "r/oltp_clat.1.log"})]}
        notes = fio_log.decide_run_units(chunks)
        assert log[0]["raw_unit"] == unit and log[0]["value_unit_assumed"] is False
        assert notes["r/oltp_clat.1.log"].startswith(f"latency unit: {'nsec' if unit == 'ns' else 'usec'}, "
                                                      "Little's law: job 'oltp' of r/fio.json: 8 IOs in flight at 2000 IOPS")
        assert log[0]["value"] == pytest.approx(4100 if unit == "ns" else 3900)


def test_latency_log_unit_never_silently_assumed():
    alone = fio_log.parse(AMBIGUOUS_LOG, filename="job_clat.1.log")
    assert alone.tables["fio_log_samples"][0]["value_unit_assumed"] is True
    assert [i.reason for i in alone.issues if i.reason.startswith("latency unit: assumed nsec")]
    tiny = fio_log.parse("1, 48, 0, 4096\n2, 52, 0, 4096\n", filename="job_clat.1.log")
    row = tiny.tables["fio_log_samples"][0]
    assert (row["raw_unit"], row["value"], row["unit_evidence"].split(":")[0]) == ("us", 48.0, "magnitude")

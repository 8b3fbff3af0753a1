"""The column-wise fast paths of iostat_text, iostat_json and mpstat_json read exactly what their
row-by-row paths read.

``parse(text)`` takes the fast path where it can; ``read_by_reference(module, text)`` forces the
row-by-row one. Every fixture, every corpus file and generated variants (long synthetic captures,
cuts at many offsets, decimal commas, odd values) must give the same status, issues, facts and
rows, value for value (floats compared by repr, so -0.0, rounding and nan count). The synthetic
captures must also come out as Columns blocks, so a fast path that silently stopped being taken
fails here too.
"""

from __future__ import annotations

import json
import random

import pytest

from conftest import CORPUS, FIXTURES
from iopscope.parsers import _iostat_text_fast, iostat_json, iostat_text, mpstat_json
from iopscope.parsers.base import Columns, NeedsRowPath, ParseError, read_by_reference
from iopscope.synth.generate import format_file

PERIODIC, COLUMNS = _iostat_text_fast.read_periodic, _iostat_text_fast.read_columns
MODULES = {"iostat_text": iostat_text, "iostat_json": iostat_json, "mpstat_json": mpstat_json}


def _value(v):
    if isinstance(v, float):
        return ("float", repr(v))
    if hasattr(v, "isoformat"):
        return (type(v).__name__, v.isoformat(), repr(getattr(v, "tzinfo", None)))
    return (type(v).__name__, v)


def _outcome(module, text: str, fast: bool, path: str | None = None):
    """What a parser makes of the text; ``path`` forces one of iostat_text's fast readers (None
    when that reader does not take the text)."""
    try:
        if path is None:
            r = module.parse(text) if fast else read_by_reference(module, text)
        else:
            try:
                r = module._parse(text, read=path)
            except NeedsRowPath:
                return None
    except ParseError as exc:
        return ("rejected", exc.reason, exc.line)
    tables = {name: [sorted((k, _value(v)) for k, v in row.items()) for row in rows]
              for name, rows in r.tables.items()}
    return (r.status, r.status_reason, r.tool_version, r.facts,
            [(i.line, i.reason, i.severity) for i in r.issues], tables)


def assert_same(module, text: str, where: str) -> None:
    fast, slow = _outcome(module, text, True), _outcome(module, text, False)
    assert fast == slow, f"{module.NAME} fast and row-by-row paths differ on {where}"
    if module is iostat_text:
        # parse() takes the first path that applies: each one that does must agree too.
        for path in (PERIODIC, COLUMNS):
            got = _outcome(module, text, True, path)
            assert got is None or got == slow, f"iostat_text {path.__name__} differs on {where}"


def _files(module_name: str) -> list:
    tool = "mpstat" if module_name == "mpstat_json" else "iostat"
    suffix = ".txt" if module_name == "iostat_text" else ".json"
    paths = [p for p in (FIXTURES / tool).rglob(f"*{suffix}") if not p.name.endswith(".expected.json")]
    for folder in ("iostat", "cpu"):
        if (CORPUS / folder).is_dir():
            paths += sorted(p for p in (CORPUS / folder).iterdir() if p.suffix == suffix)
    return sorted(paths)


CASES = [(name, path) for name in MODULES for path in _files(name)]


@pytest.mark.parametrize("name,path", CASES, ids=[f"{n}:{p.name}" for n, p in CASES])
def test_fixture_and_corpus_files_read_the_same_on_both_paths(name, path):
    assert_same(MODULES[name], path.read_text(encoding="utf-8"), path.name)


@pytest.fixture(scope="module")
def synthetic():
    """A long synthetic capture of each format (~150 KB: thousands of rows)."""
    return {name: format_file(name, 150_000, seed=3)[1] for name in MODULES}


@pytest.mark.parametrize("name", list(MODULES))
def test_synthetic_capture_takes_the_fast_path_and_reads_the_same(name, synthetic):
    text = synthetic[name]
    result = MODULES[name].parse(text)
    assert result.tables and all(isinstance(t, Columns) for t in result.tables.values()), \
        f"{name}: fast path not taken on a plain synthetic capture"
    assert_same(MODULES[name], text, "the synthetic capture")


@pytest.mark.parametrize("name", list(MODULES))
def test_every_cut_of_a_synthetic_capture_reads_the_same(name, synthetic):
    text = synthetic[name][:40_000]
    rnd = random.Random(name)
    for cut in sorted(rnd.sample(range(1, len(text)), 60)):
        assert_same(MODULES[name], text[:cut], f"a cut at byte {cut}")


def test_iostat_text_variants_read_the_same(synthetic):
    text = synthetic["iostat_text"][:30_000]
    lines = text.split("\n")
    variants = {
        "decimal commas": text.replace(".", ","),
        "crlf": text.replace("\n", "\r\n"),
        "no blank lines": "\n".join(line for line in lines if line.strip()) + "\n",
        "human value": text.replace(" 0.00 ", " 4.7k ", 1),
        "device name on its own line": text.replace("nvme0n1 ", "nvme0n1\n", 1),
        "junk row": "\n".join(line + " x" if i == 12 else line for i, line in enumerate(lines)),
        "out of range cpu": text.replace("    0.00    0.00 ", "  -12.00    0.00 ", 1),
        "nan cpu": text.replace("    0.00    0.00 ", "     nan    0.00 ", 1),
        "inf device value": text.replace(" 0.00 ", " inf ", 3),
        "group": text.replace("\nnvme1n1", "\n mygrp ", 3),
        "second layout": text + "\nDevice  tps  kB_read/s  kB_wrtn/s  kB_read  kB_wrtn\nsda 1.00 2.00 3.00 4 5\n\n",
        "split human report": text + ("\nDevice   r/s  w/s\nsda   1.0  2.0\n\n"
                                      "     rkB/s   wkB/s   Device\n     1.0k   2.0k   sda\n\n"),
    }
    for label, variant in variants.items():
        assert_same(iostat_text, variant, label)


def _edit_json(text: str, edit) -> str:
    doc = json.loads(text)
    edit(doc["sysstat"]["hosts"][0]["statistics"])
    return json.dumps(doc)


def test_json_variants_read_the_same(synthetic):
    iostat = synthetic["iostat_json"]
    mpstat = synthetic["mpstat_json"]

    def set_disk(key, value, entry=3):
        return lambda stats: stats[entry]["disk"][0].__setitem__(key, value)

    def set_cpu(key, value, entry=3, row=1):
        return lambda stats: stats[entry]["cpu-load"][row].__setitem__(key, value)

    def zero_row(stats):
        stats[2]["cpu-load"][1].update({k: 0.0 for k in stats[2]["cpu-load"][1] if k != "cpu"})

    iostat_edits = {
        "string value": set_disk("r/s", "12.5"), "int value": set_disk("r/s", 12),
        "bool value": set_disk("r/s", True), "null value": set_disk("r/s", None),
        "unknown key": set_disk("new_key", 1.0), "nameless disk": set_disk("disk_device", " "),
        "group": set_disk("disk_device", " grp"), "nan": set_disk("r/s", float("nan")),
        "cpu out of range": lambda stats: stats[1]["avg-cpu"].__setitem__("idle", 140.0),
        "no avg-cpu": lambda stats: stats[1].pop("avg-cpu"),
        "no disk list": lambda stats: stats[1].pop("disk"),
        "entry not an object": lambda stats: stats.insert(2, [1, 2]),
        "no statistics": lambda stats: stats.clear(),
    }
    mpstat_edits = {
        "string value": set_cpu("usr", "12.5"), "int value": set_cpu("usr", 12),
        "null value": set_cpu("usr", None), "out of range": set_cpu("steal", -3.0),
        "off by more than the tolerance": set_cpu("usr", 90.0), "all zero row": zero_row,
        "usr and user": set_cpu("user", 1.0), "numeric cpu": set_cpu("cpu", -1),
        "nan": set_cpu("idle", float("nan")), "missing key": lambda stats: stats[1]["cpu-load"][0].pop("gnice"),
        "one sample": lambda stats: stats.__delitem__(slice(1, None)),
        "stat without cpu-load": lambda stats: stats[1].pop("cpu-load"),
        "interrupts block": lambda stats: stats[1].__setitem__("sum-interrupts", [{"cpu": "all", "intr": 1.0}]),
    }
    for label, edit in iostat_edits.items():
        assert_same(iostat_json, _edit_json(iostat, edit), label)
    for label, edit in mpstat_edits.items():
        assert_same(mpstat_json, _edit_json(mpstat, edit), label)
    # Two documents, and two hosts with different disk keys: blocks joined or turned into rows.
    assert_same(iostat_json, iostat + iostat, "two documents")
    doc = json.loads(iostat)
    other = json.loads(_edit_json(iostat, lambda stats: [d.pop("util") for s in stats for d in s.get("disk", [])]))
    doc["sysstat"]["hosts"] += other["sysstat"]["hosts"]
    assert_same(iostat_json, json.dumps(doc), "two hosts with different keys")


def test_edits_do_change_the_fast_paths_choice(synthetic):
    """The variants above do reach the row-by-row fallback (else they would prove little)."""
    text = synthetic["iostat_text"][:30_000]
    assert isinstance(iostat_text.parse(text).tables["iostat_device_samples"], Columns)
    human = iostat_text.parse(text.replace(" 0.00 ", " 4.7k ", 1))
    assert isinstance(human.tables["iostat_device_samples"], list)
    mp = _edit_json(synthetic["mpstat_json"], lambda stats: stats[3]["cpu-load"][1].__setitem__("steal", -3.0))
    assert isinstance(mpstat_json.parse(mp).tables["cpu_samples"], list)


def _periodic_takes(text: str) -> bool:
    try:
        iostat_text._parse(text, read=PERIODIC)
    except NeedsRowPath:
        return False
    return True


def test_iostat_text_periodic_path_takes_plain_captures_and_leaves_the_rest(synthetic):
    """Reports of one shape are read column-wise by the periodic path; any report unlike the
    others sends the file to the line paths, with the same result."""
    text = synthetic["iostat_text"]
    assert _periodic_takes(text), "the periodic path no longer takes a plain capture"
    assert _periodic_takes(text.rstrip("\n") + "\n"), "a last report without its blank lines"
    lines = text.split("\n")
    drop = next(i for i, line in enumerate(lines) if i > 200 and line.startswith("nvme1n1"))
    first_stamp = next(line for line in lines if line.startswith("20"))
    variants = {
        "device gone from one report (-z)": "\n".join(lines[:drop] + lines[drop + 1:]),
        "second banner (appended run)": text + text,
        "stamp in another form": text.replace(first_stamp, "11/21/2026 10:00:01 PM", 1),
        "cut inside a report": text[: len(text) // 2],
        "tab inside a row": text.replace("nvme1n1 ", "nvme1n1\t", 1),
        "non-ASCII device name": text.replace("nvme1n1", "nvme1n\u00e91", 1),
        "separator Python splits on, Arrow not": text.replace("nvme1n1 ", "nvme1n1\x1c", 1),
        "underscore in a number": text.replace(" 0.00 ", " 0_0 ", 1),
        "second 60": text.replace(first_stamp, first_stamp[:17] + "60" + first_stamp[19:], 1),
        "day that does not exist": text.replace(first_stamp, "2025-02-30" + first_stamp[10:], 1),
        "zone out of range": text.replace(first_stamp, first_stamp[:19] + "+2500", 1),
        "report without blank line": text.replace("\n\n\n", "\n", 1),
    }
    taken = set()
    for label, variant in variants.items():
        assert_same(iostat_text, variant, label)
        if _periodic_takes(variant):
            taken.add(label)
    # These keep the shape, so the periodic path reads them itself (and agreed above).
    assert {"tab inside a row", "second 60", "cut inside a report"} <= taken
    assert not {"device gone from one report (-z)", "second banner (appended run)",
                "non-ASCII device name", "separator Python splits on, Arrow not",
                "underscore in a number", "stamp in another form"} & taken


def test_nan_in_a_cumulative_column_is_null_not_a_crash():
    """int(nan) raised out of parse(): an amount that is not a number is stored as null."""
    text = ("Device  tps  kB_read/s  kB_wrtn/s  kB_read  kB_wrtn\n"
            "sda  1.00  2.00  3.00  nan  5\n\n")
    for fast in (True, False):
        row = (iostat_text.parse(text) if fast else read_by_reference(iostat_text, text)).tables["iostat_device_samples"][0]
        assert row["read_kib"] is None and row["write_kib"] == 5
    assert_same(iostat_text, text, "nan in kB_read")
    doc = {"sysstat": {"hosts": [{"nodename": "h", "statistics": [
        {"disk": [{"disk_device": "sda", "tps": 1.0, "MB_read": 1e308, "MB_wrtn": 2.0}]}]}]}}
    for fast in (True, False):
        text = json.dumps(doc)
        row = (iostat_json.parse(text) if fast else read_by_reference(iostat_json, text)).tables["iostat_device_samples"][0]
        assert row["read_kib"] is None and row["write_kib"] == 2048


def test_busy_column_is_busy_pct_row_by_row():
    """The column form of busy_pct (used by every fast path) agrees on every edge value."""
    from iopscope.parsers._sysstat_common import busy_pct
    from iopscope.parsers._sysstat_values import busy_column

    edges = [0.0, -0.0, 1e-9, 50.0, 99.99, 100.0, 100.04, 120.0, -3.0, float("nan"), float("inf"), -float("inf")]
    rnd = random.Random(7)
    rows = [{"idle_pct": rnd.choice(edges + [rnd.uniform(0, 100)]),
             "iowait_pct": rnd.choice(edges + [None, rnd.uniform(0, 10)]),
             "steal_pct": rnd.choice(edges + [None, 0.0])} for _ in range(3000)]
    got = busy_column(*([r[k] for r in rows] for k in ("idle_pct", "iowait_pct", "steal_pct")), len(rows))
    assert list(map(repr, got)) == [repr(busy_pct(r)) for r in rows]
    assert busy_column(None, None, None, 2) == [None, None]
    # The Arrow form of the fast paths (columns without nulls; None: the column is absent).
    import pyarrow as pa

    from iopscope.parsers._sysstat_values import busy_array

    full = [r for r in rows if r["iowait_pct"] is not None and r["steal_pct"] is not None]
    idle, iowait, steal = ([r[k] for r in full] for k in ("idle_pct", "iowait_pct", "steal_pct"))
    for w, s_ in ((iowait, steal), (iowait, None), (None, None)):
        got = busy_array(pa.array(idle), w and pa.array(w), s_ and pa.array(s_), len(full))
        assert list(map(repr, got.to_pylist())) == list(map(repr, busy_column(idle, w, s_, len(full))))
    assert busy_array(None, None, None, 3).to_pylist() == [None] * 3


def _last_report_cuts(text: str):
    """The text cut at every offset of its last report, from its stamp on (mid-line cuts too)."""
    body = text.rstrip("\n")
    begin = body.rfind("\n", 0, body.rfind("\navg-cpu"))  # the line before the last avg-cpu
    for offset in range(max(begin, 0), len(text)):
        yield offset, text[:offset]


@pytest.mark.parametrize("source", ["synthetic", "x-t-1-3.txt", "x-m-t-1-3.txt",
                                    "x-t-1-3-S_TIME_FORMAT_ISO.txt"])
def test_iostat_text_last_report_cut_anywhere_takes_the_periodic_path(source, synthetic):
    """A capture whose last report is cut short (iostat killed, block-buffered output) is read
    column-wise as far as it goes, with the line path's rows, warnings and status."""
    if source == "synthetic":
        text = format_file("iostat_text", 30_000, seed=3)[1]  # its last report cut at every byte: each cut read twice
    else:
        text = (FIXTURES / "iostat" / "iostat-12.6.1" / source).read_text()
    assert _periodic_takes(text)
    cuts = 0
    refused = 0
    for offset, cut in _last_report_cuts(text):
        periodic = _outcome(iostat_text, cut, True, PERIODIC)
        if periodic is None:
            # the one case it leaves to the line path: the file ends at a line end after the
            # last report's Device header, which reads as a whole -z report (idle devices filled)
            block = cut[cut.rfind("\nDevice"):]
            assert cut.endswith("\n") and "avg-cpu" not in block and block.count("\n") >= 2, \
                f"periodic path refused a cut at {offset}: {cut[-60:]!r}"
            refused += 1
            continue
        assert periodic == _outcome(iostat_text, cut, False), f"periodic path differs, cut at {offset}"
        cuts += 1
    assert cuts > 100 and refused < cuts / 10


def test_iostat_text_columns_reader_takes_what_the_periodic_one_leaves(synthetic):
    """The second fast reader is taken (else the comparisons above would prove nothing for it):
    an appended run, which the periodic reader refuses, comes out column-wise, as the reference."""
    text = synthetic["iostat_text"][:30_000]
    text = text[:text.rfind("\n", 0, text.rfind("\navg-cpu")) + 1]   # whole reports only: a report
    appended = text + text                          # cut by the append would read as -z (filled)
    assert not _periodic_takes(appended)
    got = iostat_text._parse(appended, read=COLUMNS)
    assert isinstance(got.tables["iostat_device_samples"], Columns)
    assert isinstance(iostat_text.parse(appended).tables["iostat_device_samples"], Columns)
    assert _outcome(iostat_text, appended, True, COLUMNS) == _outcome(iostat_text, appended, False)


def test_iostat_text_last_report_of_only_a_header_reads_as_the_reference():
    """Found by fuzzing: a -d capture whose last report is its stamp and Device header, then the
    newline. The reference reader takes that report as whole (a -z report with no active device)
    and fills in a zero row; the periodic reader read it as cut short, one row less."""
    header = "Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n"
    text = ("Linux 5.15.0-91-generic (box) \t2024-01-15 \t_x86_64_\t(4 CPU)\n\n"
            "2024-01-15T10:00:00+0100\n" + header +
            "sdb                5.00        20.00         0.00        999          0\n\n\n"
            "2024-01-15T10:00:05+0100\n" + header)
    assert_same(iostat_text, text, "a last report of only its header")
    rows = iostat_text.parse(text).tables["iostat_device_samples"]
    assert [bool(row.get("is_zero_filled")) for row in rows] == [False, True]


def test_iostat_text_device_renamed_in_one_report_reads_as_the_reference():
    """Found by fuzzing: a -d capture where one report names its device otherwise (vda, VDA,
    vda). The reference reader sees devices left out (-z) and fills them in; the periodic
    reader read the rows as printed."""
    header = "Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n"
    report = "\n\n" + header + "{}            1.00         2.00         3.00          2          3\n"
    text = "Linux 6.1.0 (vm) \t11/21/26 \t_x86_64_\t(2 CPU)\n" + "".join(
        report.format(name) for name in ("vda", "VDA", "vda")) + "\n"
    assert_same(iostat_text, text, "a device renamed in one report")
    assert len(iostat_text.parse(text).tables["iostat_device_samples"]) == 6  # 3 printed, 3 filled


def test_iostat_text_xz_with_avg_cpu_blocks_fills_idle_devices():
    """`iostat -xz` (with its avg-cpu blocks, the default) leaves an idle device out of a report.
    Its interval counts as idle (a zero row, is_zero_filled), as in a -d -z capture: before, a
    report opened by its avg-cpu block was never registered, so nothing was filled and the
    device's mean over time counted only its busy intervals."""
    cpu = ("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
           "           1.00    0.00    1.00    2.00    0.00   96.00\n\n")
    header = "Device            r/s     w/s     rkB/s     wkB/s  %util\n"
    sda = "sda              10.00    5.00     40.00     20.00  12.00\n"
    sdb = "sdb               1.00    1.00      4.00      4.00   3.00\n"
    text = ("Linux 5.15.0-91-generic (box) \t2024-01-15 \t_x86_64_\t(4 CPU)\n\n"
            "2024-01-15T10:00:00+0100\n" + cpu + header + sda + sdb + "\n\n"
            "2024-01-15T10:00:05+0100\n" + cpu + header + sda + "\n\n"
            "2024-01-15T10:00:10+0100\n" + cpu + header + sda + sdb + "\n\n")
    assert_same(iostat_text, text, "-xz with avg-cpu blocks")
    rows = iostat_text.parse(text).tables["iostat_device_samples"]
    by_device = {(r["sample_index"], r["device"]): r for r in rows}
    assert len(rows) == 6, [(r["sample_index"], r["device"]) for r in rows]
    filled = [key for key, r in by_device.items() if r.get("is_zero_filled")]
    assert filled == [(1, "sdb")], filled
    assert by_device[(1, "sdb")]["util_pct"] == 0

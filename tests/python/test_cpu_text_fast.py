"""The periodic (column-wise) path of mpstat_text and sar_cpu reads exactly what their
line-by-line path reads.

``parse(text)`` takes the periodic path where it can; ``read_by_reference(module, text)`` forces the
line-by-line reader. Every fixture, every corpus file and generated variants (long synthetic
captures, cuts at many offsets, decimal commas, a midnight rollover, odd values) must give the
same status, issues, facts and rows, value for value (floats compared by repr, so -0.0,
rounding and nan count). The synthetic captures must come out as Columns blocks, so a periodic
path that silently stopped being taken fails here; so must captures cut short the common ways
(mid-line, mid-interval, after a header); the variants it must not take are checked to reach
the line-by-line reader.
"""

from __future__ import annotations

import random
import re

import pytest

from conftest import CORPUS, FIXTURES
from iopscope.parsers import _cpu_text_fast, mpstat_text, sar_cpu
from iopscope.parsers.base import Columns, NeedsRowPath, ParseResult
from iopscope.synth.generate import format_file
# The same comparison as the iostat / mpstat JSON fast paths: status, issues, facts, every value.
from test_sysstat_fast import _outcome

MODULES = {"mpstat_text": mpstat_text, "sar_cpu": sar_cpu}
SOURCE_BLOCK = {"mpstat_text": "mpstat", "sar_cpu": "sar"}


def assert_same(module, text: str, where: str) -> None:
    fast, slow = _outcome(module, text, True), _outcome(module, text, False)
    assert fast == slow, f"{module.NAME} periodic and line-by-line paths differ on {where}"


def takes_periodic_path(name: str, text: str) -> bool:
    try:
        _cpu_text_fast.read_periodic(text, ParseResult(format=name), SOURCE_BLOCK[name], 0.5)
    except NeedsRowPath:
        return False
    return True


def _files() -> list:
    paths = [p for tool in ("mpstat", "sar") for p in (FIXTURES / tool).rglob("*.txt")]
    if (CORPUS / "cpu").is_dir():
        paths += [p for p in (CORPUS / "cpu").iterdir() if p.suffix == ".txt"]
    return sorted(paths)


CASES = [(name, path) for name in MODULES for path in _files()]


@pytest.mark.parametrize("name,path", CASES, ids=[f"{n}:{p.parent.name}/{p.name}" for n, p in CASES])
def test_fixture_and_corpus_files_read_the_same_on_both_paths(name, path):
    assert_same(MODULES[name], path.read_text(encoding="utf-8"), path.name)


def test_plain_fixtures_take_the_periodic_path():
    # A guard against a periodic path that never applies: these are plain captures.
    assert takes_periodic_path("mpstat_text", (FIXTURES / "mpstat/mpstat-12.6.1/mpstat_P_ALL.txt").read_text())
    assert takes_periodic_path("mpstat_text", (FIXTURES / "mpstat/mpstat-12.6.1/mpstat_all_only.txt").read_text())
    assert takes_periodic_path("sar_cpu", (FIXTURES / "sar/sar-12.6.1/sar_u_ALL_P_ALL_de_DE.txt").read_text())


@pytest.fixture(scope="module", params=list(MODULES))
def capture(request):
    """(parser name, its synthetic capture of ~150 KB: about 150 intervals of 9 rows)."""
    return request.param, format_file(request.param, 150_000, seed=3)[1]


def test_synthetic_capture_and_60_cuts_of_it(capture):
    name, text = capture
    module = MODULES[name]
    result = module.parse(text)
    assert isinstance(result.tables["cpu_samples"], Columns), f"{name}: periodic path not taken"
    assert result.issues == [] and result.status == "complete"
    assert len(result.tables["cpu_samples"]) % 9 == 0 and result.facts["hostname"].startswith("synth-")
    assert_same(module, text, "the synthetic capture")
    head = text[:40_000]
    for cut in sorted(random.Random(name).sample(range(1, len(head)), 60)):
        assert_same(module, head[:cut], f"a cut at byte {cut}")


_TIME = re.compile(r"\b(\d\d):(\d\d):(\d\d)\b")


def _shift_times(text: str, seconds: int, after: int = 0) -> str:
    """Every HH:MM:SS from character ``after`` on moved by ``seconds`` (mod one day)."""
    def move(m):
        t = (int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) + seconds) % 86400
        return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"
    return text[:after] + _TIME.sub(move, text[after:])


def test_variants_the_periodic_path_reads(capture):
    name, full = capture
    head = full[:60_000]
    text = head[:head.rindex("\n\n") + 2] + full[full.index("Average:"):]
    middle = len(text) // 2
    row = text.rindex("\n", 0, text.index(" all ", middle)) + 1   # a row, not a header
    variants = {
        "as generated": text,
        "midnight rollover": _shift_times(text, 7200 - 20),
        "clock stepped back 30 s": _shift_times(text, -30, text.index("\n\n", middle) + 2),
        "decimal commas": text.replace(".", ","),
        "no Average (stopped)": text[:text.index("Average:")],
        # Not cut by position any more: split on whitespace instead (whitespace_fields).
        "uneven spacing": text[:row] + text[row:].replace("  ", " \t", 1),
    }
    for label, variant in variants.items():
        assert takes_periodic_path(name, variant), f"{name}: periodic path not taken on {label}"
        assert_same(MODULES[name], variant, label)
    rolled = MODULES[name].parse(variants["midnight rollover"]).tables["cpu_samples"]
    assert rolled[-1]["sampled_at"].day == rolled[0]["sampled_at"].day + 1


def test_variants_that_reach_the_line_reader(capture):
    name, text = capture[0], capture[1][:30_000]
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if " all " in line and i > 40)
    first_value = re.compile(r"(?<= )(\d+\.\d\d)")

    def edit_row(i, new):
        return "\n".join(new if j == i else line for j, line in enumerate(lines))

    def replace_value(i, value):
        return edit_row(i, first_value.sub(value, lines[i], count=1))

    twelve_hour = _TIME.sub(lambda m: f"{int(m.group(1)) - 12:02d}:{m.group(2)}:{m.group(3)} PM", text)
    variants = {
        "junk line": edit_row(row, lines[row] + "\nsomething else entirely"),
        "nan value": replace_value(row, "  nan"),
        "inf value": replace_value(row, "  inf"),
        "negative value": replace_value(row, "-1.00"),
        "value over 100": replace_value(row, "101.00"),
        "comma in a point file": replace_value(row, "1,00"),
        "missing field": edit_row(row, lines[row].rsplit(None, 1)[0]),
        "extra field": edit_row(row, lines[row] + "    0.00"),
        "offline CPU (all zero)": edit_row(row + 1, re.sub(r"\d+\.\d\d", "0.00", lines[row + 1])),
        "CPU row missing": edit_row(row + 2, ""),
        "CPUs in another order": "\n".join(lines[:row + 1] + [lines[row + 2], lines[row + 1]] + lines[row + 3:]),
        "12-hour times": twelve_hour,
        "another layout appended": text + lines[2].replace("%idle", "%idle    intr/s") + "\n",
        "second banner": text + "\n" + lines[0] + "\n\n" + "\n".join(lines[2:14]) + "\n",
        "restart line": edit_row(row - 1, lines[row - 1][:8] + "       LINUX RESTART\t(8 CPU)\n"),
        "non-ASCII host": text.replace("synth-db", "synth-dé", 1),
        "crlf": text.replace("\n", "\r\n"),
        "no banner": "\n".join(lines[2:]),
        "header stamped as its rows (0 s interval)": edit_row(row - 1, lines[row][:8] + lines[row - 1][8:]),
        "whitespace-only blank": edit_row(row - 2, "   "),
    }
    for label, variant in variants.items():
        assert not takes_periodic_path(name, variant), f"{name}: periodic path took {label}"
        assert_same(MODULES[name], variant, label)


def _cut_variants(text: str) -> dict[str, str]:
    """A whole capture (no Average block) cut the common ways: mid-line, inside the last
    interval, right after a header, inside the Average block."""
    lines = text.split("\n")
    headers = [i for i, line in enumerate(lines) if " CPU " in line and line[:1].isdigit()]
    h = headers[len(headers) // 2]                     # an interval in the middle
    upto = lambda i: "\n".join(lines[:i]) + "\n"        # the first i lines, each ended  # noqa: E731
    row = lines[h + 4]                                 # its fourth row (CPU 2)
    average = "Average:" + lines[h][8:] + "\n" + "Average:" + lines[h + 1][8:] + "\n"
    return {
        "cut inside a row's values": upto(h + 4) + row[:40],
        "cut inside a row's time stamp": upto(h + 4) + row[:5],
        "cut after a row's time stamp": upto(h + 4) + row[:8],
        "cut just after a row's CPU label": upto(h + 4) + row[:row.index(" 2 ") + 2],
        "cut inside the first row of an interval": upto(h + 1) + row[:30],
        "cut in the last value, within rounding": upto(h + 4) + row[:-1],
        "a whole row, no final newline": upto(h + 4) + row,
        "partial last interval": upto(h + 4),
        "ends right after a header": upto(h + 1),
        # Placed on the time axis all the same: a step back is reported.
        "ends right after a header stamped 30 s early": upto(h) + _shift_times(lines[h], -30) + "\n",
        "a whole header, no final newline": upto(h) + lines[h],
        "cut inside a header": upto(h) + lines[h][:30],
        "cut inside the CPU word of a header": upto(h) + lines[h][:lines[h].index("CPU") + 2],
        "a complete interval, no empty line after it": upto(h - 1),
        "cut inside the empty line's successor, after a complete interval": upto(h) + lines[h][:6],
        "cut inside the Average block": upto(h - 1) + "\n" + average + "Average:    al",
        "cut inside the word Average": upto(h - 1) + "\n" + average + "Aver",
        "cut right after 'Average:'": upto(h - 1) + "\n" + average + "Average:",
        "whitespace after the last row": upto(h + 4) + "   ",
    }


def test_cut_captures_take_the_periodic_path(capture):
    name, full = capture
    text = full[:full.index("Average:")]
    variants = _cut_variants(text) | _cut_variants(text.replace(".", ","))
    for label, variant in variants.items():
        assert takes_periodic_path(name, variant), f"{name}: periodic path not taken on {label}"
        assert_same(MODULES[name], variant, label)
    # What the line reader makes of them, so that both paths agreeing is not all that is checked.
    result = MODULES[name].parse(variants["cut inside a row's values"])
    rows = result.tables["cpu_samples"]
    assert isinstance(rows, Columns) and len(rows) % 9 == 3 and rows[-1]["cpu"] == "1"
    assert result.status_reason == "the last line is cut short"
    cut_text = variants["cut inside a row's values"]
    lineno, fields = cut_text.count("\n") + 1, len(cut_text[cut_text.rindex("\n"):].split())
    assert [(i.line, i.reason) for i in result.issues] == [
        (lineno, f"row has {fields} fields, the header has 12: skipped")]
    result = MODULES[name].parse(variants["ends right after a header"])
    assert len(result.tables["cpu_samples"]) % 9 == 0 and result.issues == []
    assert result.status_reason.startswith("no 'Average:' summary")
    assert MODULES[name].parse(variants["cut inside the Average block"]).status == "complete"


def test_cuts_the_line_reader_still_reads(capture):
    # A cut row that still has all its fields but no longer adds up to 100 (the line reader
    # allows it the rounding of its shorter last value, with a note), and a cut before any row.
    name, full = capture
    lines = full.split("\n")
    row = lines[5]
    variants = {
        "cut in the last value, not adding up": "\n".join(lines[:5]) + "\n" + row[:-4],
        "cut in the first row": "\n".join(lines[:3]) + "\n" + lines[3][:40],
    }
    for label, variant in variants.items():
        assert not takes_periodic_path(name, variant), f"{name}: periodic path took {label}"
        assert_same(MODULES[name], variant, label)

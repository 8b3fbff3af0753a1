"""tpcc-mysql: the bulk reader of interval blocks gives exactly what the line-by-line path gives.

tpcc_mysql reads long runs of current-format interval lines in bulk (one regex pass, then
Arrow's CSV reader; see ``_BLOCKS`` in the module) and every other line one by one. These
tests parse each input three ways -- bulk path off (the reference), default, and bulk path on
every run of one line or more -- and require identical results: status, issues (line numbers
included), facts and every row, value and Python type. Inputs: all tpcc fixtures and corpus
files, the test stand-in's and the benchmark generator's output, each cut at many points,
and those outputs with interval lines altered one at a time.
"""

from __future__ import annotations

import random
import re

import pytest

from conftest import CORPUS, FIXTURES
from iopscope.parsers import ParseError, tpcc_mysql
from iopscope.parsers.base import Columns
from iopscope.synth.generate import format_file
from test_tpcc_mysql import run_args, standin

NEVER, ALWAYS = 10**9, 1  # _MIN_BLOCK_LINES that turn the bulk path off / on for every run


def _summary(text: str) -> tuple:
    try:
        r = tpcc_mysql.parse(text)
    except ParseError as exc:
        return ("rejected", exc.reason, exc.line)
    tables = {}
    for name, rows in r.tables.items():
        records = rows.to_records() if isinstance(rows, Columns) else list(rows)
        tables[name] = [{k: (type(v).__name__, v) for k, v in row.items()} for row in records]
    return (r.status, r.status_reason, r.tool_version, r.facts, tables,
            [(i.line, i.reason, i.severity) for i in r.issues])


def _assert_same_three_ways(text: str, monkeypatch, label: str) -> None:
    results = {}
    for name, min_lines in (("line by line", NEVER), ("default", tpcc_mysql._MIN_BLOCK_LINES),
                            ("bulk everywhere", ALWAYS)):
        with monkeypatch.context() as m:
            m.setattr(tpcc_mysql, "_MIN_BLOCK_LINES", min_lines)
            results[name] = _summary(text)
    reference = results.pop("line by line")
    for name, got in results.items():
        assert got == reference, f"{label}: {name} differs from the line-by-line path"


def _tpcc_files() -> list:
    paths = sorted(p for p in (FIXTURES / "tpcc-mysql").rglob("*") if p.is_file() and p.suffix not in (".json", ".md"))
    if (CORPUS / "tpcc-mysql").is_dir():
        paths += sorted(p for p in (CORPUS / "tpcc-mysql").iterdir() if p.is_file())
    return paths


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    """Long runs of 1 s interval lines: the stand-in's (with "95%") and the benchmark's."""
    out = standin(*run_args(connections=8, measure=150, interval=1), seed="5").stdout
    assert out.count(", trx: ") >= 150
    _, synth = format_file("tpcc_mysql", 40_000, 3)
    return {"standin": out, "synth": synth}


def test_bulk_path_is_taken_on_long_runs(generated):
    text = generated["standin"]
    blocks = list(tpcc_mysql._bulk_blocks(text))
    assert len(blocks) == 1 and blocks[0][2] == text.count(", trx: ")  # so the tests below compare two paths
    assert isinstance(tpcc_mysql.parse(text).tables["tpcc_intervals"], Columns)


@pytest.mark.parametrize("path", _tpcc_files(), ids=lambda p: p.name)
def test_fixture_and_corpus_files_and_their_cuts(path, monkeypatch):
    text = path.read_text(encoding="utf-8", errors="replace")
    _assert_same_three_ways(text, monkeypatch, path.name)
    step = max(1, len(text) // (150 if len(text) < 50_000 else 30))  # fewer on a big file: seconds each
    for cut in range(0, len(text), step):
        _assert_same_three_ways(text[:cut], monkeypatch, f"{path.name} cut at {cut}")


@pytest.mark.parametrize("name", ["standin", "synth"])
def test_generated_output_cut_at_many_points(name, generated, monkeypatch):
    text = generated[name]
    _assert_same_three_ways(text, monkeypatch, name)
    for cut in range(0, len(text), max(1, len(text) // 80)):
        _assert_same_three_ways(text[:cut], monkeypatch, f"{name} cut at {cut}")


# One interval line changed: each change either keeps the line in the bulk shape (other
# digits) or takes it (or the lines around it) out of it, onto the line-by-line path.
def _value(label: str, value: str):
    """An edit: the value after ``label: `` (up to the next comma) becomes ``value``."""
    return lambda ln: re.sub(rf"({re.escape(label)}: )[^,]*", lambda m: m.group(1) + value, ln, count=1)


_EDITS = {
    "nan p95": _value("95%", "-nan"),
    "inf max": _value("max_rt", "inf"),
    "no % after 95": lambda ln: ln.replace("95%: ", "95: ", 1),
    "no % after 99": lambda ln: ln.replace("99%: ", "99: ", 1),
    "no % at all": lambda ln: ln.replace("95%: ", "95: ", 1).replace("99%: ", "99: ", 1),
    "negative count": _value("trx", "-5"),
    "19-digit count": _value("trx", "1234567890123456789"),
    "18-digit count": _value("trx", "999999999999999999"),
    "301-digit time": _value("max_rt", "9" * 301 + ".5"),
    "300-digit time": _value("max_rt", "9" * 300 + ".5"),
    "no fraction": _value("max_rt", "12"),
    "long fraction": _value("99%", "0.1000000000000000055511151231257827021181583404541015625"),
    "exponent": _value("95%", "1.5e3"),
    "leading zeros": lambda ln: ln.replace("trx: ", "trx: 000", 1).replace("|", "|00", 1),
    "extra field": lambda ln: ln.replace(", max_rt: ", ", avg: 1.5, max_rt: ", 1),
    "p999 field": lambda ln: ln.replace(", max_rt: ", ", 99.9%: 99.5, max_rt: ", 1),
    "phase word": lambda ln: ln.replace(", trx: ", ", measure, trx: ", 1),
    "tab indent": lambda ln: "\t" + ln.lstrip(),
    "no indent": lambda ln: ln.lstrip(),
    "trailing blank": lambda ln: ln + " ",
    "crlf": lambda ln: ln + "\r",
    "double space": lambda ln: ln.replace(", trx", ",  trx", 1),
    "non-ascii": lambda ln: ln.replace("trx", "trx\u00e9", 1),
    "fewer pairs": lambda ln: ln.rsplit(", ", 1)[0],
    "more pairs": lambda ln: ln + ", 3|4.5",
    "elapsed back": lambda ln: "   1" + ln[ln.index(","):],
    "elapsed jump": lambda ln: "123456789012345678" + ln[ln.index(","):],
    "elapsed zero": lambda ln: "   0" + ln[ln.index(","):],
    "deadlock after": lambda ln: ln + "\n1213, 40001, Deadlock found when trying to get lock; try restarting",
    "blank after": lambda ln: ln + "\n",
    "unknown after": lambda ln: ln + "\nsomething odd",
    "cut mid-line": lambda ln: ln[: len(ln) // 2],
}


@pytest.mark.parametrize("edit", sorted(_EDITS))
def test_altered_interval_lines(edit, generated, monkeypatch):
    text = generated["standin"]
    lines = text.split("\n")
    interval_at = [i for i, ln in enumerate(lines) if ", trx: " in ln]
    # first, second, inside, last-but-one and last interval line, and a random one
    picks = {interval_at[0], interval_at[1], interval_at[70], interval_at[-2], interval_at[-1],
             random.Random(edit).choice(interval_at)}
    for at in sorted(picks):
        changed = lines[:at] + [_EDITS[edit](lines[at])] + lines[at + 1:]
        _assert_same_three_ways("\n".join(changed), monkeypatch, f"{edit} at line {at + 1}")
    # the whole output ending on the changed line, without its newline
    at = interval_at[100]
    _assert_same_three_ways("\n".join(lines[:at] + [_EDITS[edit](lines[at])]), monkeypatch, f"{edit}, last line")


def test_ramp_up_lines_crlf_and_two_runs_in_one_file(generated, monkeypatch):
    text = generated["standin"]
    lines = text.split("\n")
    interval_at = [i for i, ln in enumerate(lines) if ", trx: " in ln]
    # a fork printing ramp-up intervals: MEASURING START after the first 80 interval lines
    start = lines.index("MEASURING START.")
    moved = lines[:start] + lines[start + 1: interval_at[80]] + ["MEASURING START."] + lines[interval_at[80]:]
    _assert_same_three_ways("\n".join(moved), monkeypatch, "ramp-up intervals")
    _assert_same_three_ways(text.replace("\n", "\r\n"), monkeypatch, "CRLF line ends")
    _assert_same_three_ways(text + text, monkeypatch, "two runs")
    _assert_same_three_ways(text + generated["synth"], monkeypatch, "two generators")
    no_rampup = "\n".join(ln for ln in lines if not ln.startswith("RAMP-UP"))
    _assert_same_three_ways(no_rampup, monkeypatch, "no RAMP-UP line")
    only_intervals = "\n".join(lines[i] for i in interval_at) + "\n"
    _assert_same_three_ways(only_intervals, monkeypatch, "interval lines only")


def test_random_numbers_read_as_python_reads_them(monkeypatch):
    """Arrow's number parsing against int() and float(): random digits of every length the
    bulk shape accepts (counts up to 18 digits, times up to 300 integer digits)."""
    rng = random.Random(11)

    def digits(n: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(n))

    def time_ms() -> str:
        return f"{digits(rng.choice([1, 2, 3, 17, 18, 19, 40, 300]))}.{digits(rng.choice([1, 3, 17, 25, 60]))}"

    lines = [f"{i + 1:4d}, trx: {digits(rng.randint(1, 18))}, 95%: {time_ms()}, 99%: {time_ms()}, "
             f"max_rt: {time_ms()}, " + ", ".join(f"{digits(rng.randint(1, 18))}|{time_ms()}" for _ in range(4))
             for i in range(300)]
    _assert_same_three_ways("MEASURING START.\n\n" + "\n".join(lines) + "\n", monkeypatch, "random digits")

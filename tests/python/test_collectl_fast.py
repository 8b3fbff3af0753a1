"""collectl_plot's column path reads exactly what its row-by-row path reads.

``parse(text)`` takes the column path where it can; ``read_by_reference(module, text)`` forces the
row-by-row one. Every fixture and corpus file, a long synthetic ``-scdmn -P -f`` capture, cuts of
it and edited variants must give the same status, issues, facts and rows, value for value
(floats by repr, datetimes by isoformat and tzinfo). The synthetic capture and its plain variants
must come out as a Columns block (the column path was taken), and each edit that only the row
path reads must come out as rows (the fallback was reached, so the comparison proves something).
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from conftest import CORPUS, FIXTURES
from iopscope.parsers import collectl_plot
from iopscope.parsers.base import Columns, read_by_reference
from iopscope.synth.generate import format_file
from test_sysstat_fast import assert_same


def _files() -> list:
    paths = [p for p in (FIXTURES / "collectl").rglob("*") if p.is_file()
             and p.suffix in (".tab", ".cpu")]
    if (CORPUS / "cpu").is_dir():
        paths += [p for p in (CORPUS / "cpu").iterdir() if "collectl" in p.name]
    return sorted(paths)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_fixture_and_corpus_files_read_the_same_on_both_paths(path):
    assert_same(collectl_plot, path.read_text(encoding="utf-8"), path.name)


@pytest.fixture(scope="module")
def capture() -> str:
    """A synthetic capture of ~150 KB (about 500 rows of 70 columns)."""
    name, text = format_file("collectl_plot", 150_000, seed=3)
    assert name.endswith(".tab")
    return text


def _taken(text: str) -> bool:
    """Whether parse() read the text on the column path."""
    return isinstance(collectl_plot.parse(text).tables["cpu_samples"], Columns)


def test_the_generator_output_is_detected_and_read_without_issues(capture):
    from iopscope.parsers import detect

    assert detect(capture[:65536], "synth.tab")[0] is collectl_plot
    result = read_by_reference(collectl_plot, capture)
    rows = result.tables["cpu_samples"]
    assert result.status == "complete" and len(rows) == capture.count("\n") - 15
    # the one issue is the note about the columns that are not read
    assert [i.line for i in result.issues] == [15]
    assert result.facts["hostname"].startswith("synth-") and result.facts["logical_cpus"] == 8
    assert rows[0]["sampled_at"] == datetime(2026, 11, 21, 6, 0, 1, tzinfo=timezone.utc)


def test_synthetic_capture_takes_the_column_path_and_reads_the_same(capture):
    assert _taken(capture), "column path not taken on a plain synthetic capture"
    assert_same(collectl_plot, capture, "the synthetic capture")


def test_a_capture_longer_than_one_arrow_block_reads_the_same():
    """Arrow's CSV reader works in 1 MB blocks: rows across a block boundary must read the same."""
    text = format_file("collectl_plot", 2_500_000, seed=5)[1]
    assert _taken(text)
    assert_same(collectl_plot, text, "a 2.5 MB capture")


def test_every_cut_of_a_synthetic_capture_reads_the_same(capture):
    text = capture[:40_000]
    rnd = random.Random("collectl_plot")
    for cut in sorted(rnd.sample(range(1, len(text)), 60)):
        assert_same(collectl_plot, text[:cut], f"a cut at byte {cut}")


def _cuts_in_last_row(text: str) -> list[tuple[str, int]]:
    """The text cut inside its last row (what a killed collectl leaves, as file output is
    block-buffered): at every 5th offset and the last few, with each cut's line number."""
    body = text.rstrip("\n")
    begin = body.rfind("\n") + 1
    cuts = sorted({*range(begin + 1, len(body), 5), *range(len(body) - 3, len(body))})
    return [(body[:cut], body.count("\n") + 1) for cut in cuts]


@pytest.mark.parametrize("variant", ["space", "comma", "epoch", "per-cpu"])
def test_a_row_cut_short_at_the_end_takes_the_column_path_and_reads_the_same(capture, variant):
    """The rows before a cut last row are read column-wise; the cut row gets the row loop's
    warning at its line number, after the header's note, and makes the file incomplete."""
    text = capture[:8_000].rsplit("\n", 1)[0] + "\n"
    text = {"space": text, "comma": _separated(text, ","), "epoch": _utc(text),
            "per-cpu": _per_cpu(text)}[variant]
    width = len(text.rstrip("\n").rsplit("\n", 1)[1].split("," if variant == "comma" else None))
    taken = 0
    for cut, line in _cuts_in_last_row(text):
        assert_same(collectl_plot, cut, f"{variant} capture cut at byte {len(cut)}")
        fields = len(cut.rsplit("\n", 1)[1].split("," if variant == "comma" else None))
        if fields == width:
            continue   # cut inside the last value: a row the loop reads (or warns about)
        result = collectl_plot.parse(cut)
        assert isinstance(result.tables["cpu_samples"], Columns), f"row path for a cut at byte {len(cut)}"
        assert (result.status, result.status_reason) == ("incomplete", "the last row is cut short")
        assert (result.issues[-1].line, result.issues[-1].reason) == (
            line, f"row has {fields} fields, the header has {width}: skipped")
        taken += 1
    assert taken > 5


def test_odd_last_lines_without_a_newline_read_the_same(capture):
    """A last line the column path cannot add by itself sends the file to the row path; the
    ones it can (blank, or rows) stay on the column path."""
    text = capture[:20_000].rsplit("\n", 1)[0] + "\n"
    fall_back = {
        "a comment": text + "# a comm",
        "a header": text + "#Date Time [CPU]Us",
        "a waiting line": text + "waiting for 1 second sample",
        "a cut row after a junk line": _edit_row(text, 3, lambda r: "junk") + "20261121 06:",
        "a cut row after a carriage return": text.replace("\n", "\r", 1) + "20261121 06:",
        "a cut row after a header alone": text[:text.index("\n", text.index("#Date Time ")) + 1] + "2026",
    }
    keep = {
        "spaces": text + "   ",
        "a cut row of one field": text + "2026112",
        "a cut row with two spaces": text + "20261121  06:00",
        "a cut row with a tab": text + "20261121\t06:00",
        "a cut row with a trailing space": text + "20261121 06:00:00 ",
        "a cut 'waiting' line": text + "waiting fo",
    }
    for label, variant in {**fall_back, **keep}.items():
        assert_same(collectl_plot, variant, label)
        assert (_reads_as_rows(variant) is False) is (label in keep), label


def _rows(text: str) -> tuple[str, list[str]]:
    """(everything up to and with the header, the data rows)."""
    head, _, body = text.partition("\n#Date Time ")
    header, _, body = body.partition("\n")
    return f"{head}\n#Date Time {header}\n", body.rstrip("\n").split("\n")


def _edit_row(text: str, index: int, edit) -> str:
    head, rows = _rows(text)
    rows[index] = edit(rows[index])
    return head + "\n".join(rows) + "\n"


def _field(index: int, change):
    """An edit of a row: its field ``index`` becomes ``change(field)``."""
    return lambda row: " ".join(change(f) if i == index else f for i, f in enumerate(row.split(" ")))


def _set_field(index: int, value: str):
    return _field(index, lambda _: value)


def _add(index: int, delta: float):
    return _field(index, lambda f: repr(float(f) + delta))


def _utc(text: str) -> str:
    """The capture as ``-oU`` prints it: epoch seconds instead of date and time."""
    head, rows = _rows(text)
    head = head.replace("#Date Time ", "#UTC ")
    out = []
    for row in rows:
        day, clock, rest = row.split(" ", 2)
        when = datetime.strptime(f"{day} {clock}", "%Y%m%d %H:%M:%S").replace(tzinfo=timezone.utc)
        out.append(f"{int(when.timestamp())} {rest}")
    return head + "\n".join(out) + "\n"


def _per_cpu(text: str) -> str:
    """Two CPUs' detail columns (``-sC``): the summary percentages printed for CPU 0 and 1."""
    head, rows = _rows(text)
    names = "User% Nice% Sys% Wait% Irq% Soft% Steal% Idle%".split()
    header = "#Date Time " + " ".join(f"[CPU:{c}]{n}" for c in (0, 1) for n in names)
    head = head[: head.index("#Date Time ")] + header + "\n"
    out = []
    for row in rows:
        fields = row.split(" ")
        out.append(" ".join(fields[:2] + fields[2:10] + fields[2:10][::-1]))
    return head + "\n".join(out) + "\n"


def test_plain_variants_take_the_column_path_and_read_the_same(capture):
    text = capture[:60_000].rsplit("\n", 1)[0] + "\n"
    variants = {
        "no final newline": text.rstrip("\n"),
        "comma separated (--sep ,)": _separated(text, ","),
        "epoch seconds (-oU)": _utc(text),
        "per-CPU columns (-sC)": _per_cpu(text),
        "zone -0500": text.replace("TZ: +0000", "TZ: -0500"),
        "no zone (stdout, no comment block)": text[text.index("#Date Time "):],
        "no Interval in the header": text.replace("Interval: 1 ", ""),
        "second 60": _edit_row(text, -1, lambda r: r[:15] + "60" + r[17:]),
        "values with decimals": _edit_row(text, 3, _add(2, 0.5)),
        "busy with many decimals": _edit_row(text, 3, _add(9, 0.1234567)),
        "negative zero": _edit_row(text, 7, _set_field(3, "-0")),
        "busy below 0, clamped": _edit_row(
            text, 7, lambda r: " ".join(r.split(" ")[:2] + "0 -0 0 2 0 0 0 100".split() + r.split(" ")[10:])),
        "slightly negative": _edit_row(text, 7, _set_field(3, "-0.04")),
        "time standing still": _edit_row(text, 4, _set_field(1, _rows(text)[1][3].split(" ")[1])),
        "over midnight": _edit_row(text, -1, _set_field(0, "20261122")),
    }
    for label, variant in variants.items():
        assert_same(collectl_plot, variant, label)
        assert _taken(variant), f"column path not taken: {label}"


def _separated(text: str, sep: str) -> str:
    head, rows = _rows(text)
    comments, _, header = head.rstrip("\n").rpartition("\n")
    return comments + "\n" + header.replace(" ", sep) + "\n" + "\n".join(r.replace(" ", sep) for r in rows) + "\n"


def test_edited_variants_fall_back_to_the_row_path_and_read_the_same(capture):
    text = capture[:60_000].rsplit("\n", 1)[0] + "\n"
    head, rows = _rows(text)
    variants = {
        "junk line": _edit_row(text, 7, lambda r: "junk"),
        "missing field": _edit_row(text, 7, lambda r: r.rsplit(" ", 1)[0]),
        "extra field": _edit_row(text, 7, lambda r: r + " 1"),
        "two spaces (empty field for a one-character split)": _edit_row(
            text, 7, lambda r: r.rsplit(" ", 2)[0] + "  " + r.rsplit(" ", 1)[1]),
        "trailing space, a field short": _edit_row(text, 7, lambda r: r.rsplit(" ", 1)[0] + " "),
        "leading space": _edit_row(text, 7, lambda r: " " + r),
        "tab between fields": _edit_row(text, 7, lambda r: r.replace(" ", "\t", 3)),
        "\\x1c between fields": _edit_row(text, 7, lambda r: r.replace(" ", "\x1c", 1)),
        "blank line": _edit_row(text, 7, lambda r: r + "\n"),
        "line of spaces": _edit_row(text, 7, lambda r: r + "\n   "),
        "blank line at the end": text + "\n",
        "crlf": text.replace("\n", "\r\n"),
        "header printed again": _edit_row(text, 7, lambda r: head.rstrip("\n").rsplit("\n", 1)[1] + "\n" + r),
        "another layout after a new header": text + "#Date Time [CPU]Idle% [CPU]User%\n20261121 07:00:00 90 10\n",
        "comment line": _edit_row(text, 7, lambda r: "# a comment\n" + r),
        "waiting line": _edit_row(text, 7, lambda r: "waiting for 1 second sample...\n" + r),
        "non-ASCII in a row": _edit_row(text, 7, lambda r: r + "\u00e9"),
        "non-ASCII in the comment block": text.replace("debian 12.11", "d\u00e9bian 12.11"),
        "nan": _edit_row(text, 7, _set_field(2, "nan")),
        "inf": _edit_row(text, 7, _set_field(2, "inf")),
        "decimal comma": _edit_row(text, 7, _set_field(2, "1,5")),
        "not a number": _edit_row(text, 7, _set_field(3, "x")),
        "underscore in a number": _edit_row(text, 7, _set_field(3, "0_0")),
        "empty value (comma separated)": _separated(_edit_row(text, 7, _set_field(3, "")), ","),
        "out of range": _edit_row(text, 7, _set_field(2, "140")),
        "all zero": _edit_row(text, 7, lambda r: " ".join(r.split(" ")[:2] + ["0"] * 9 + r.split(" ")[11:])),
        "sum off by more than 5": _edit_row(text, 7, _set_field(2, "99")),
        "fractional seconds (-om)": _edit_row(text, 7, lambda r: r.replace(" ", ".001 ", 2).replace(".001 ", " ", 1)),
        "hour 24": _edit_row(text, 7, _set_field(1, "24:00:00")),
        "second 61": _edit_row(text, 7, _set_field(1, "06:00:61")),
        "one-digit hour": _edit_row(text, 7, _set_field(1, "6:00:08")),
        "day that does not exist": _edit_row(text, 7, _set_field(0, "20261131")),
        "ISO date": _edit_row(text, 7, _set_field(0, "2026-11-21")),
        "time going back": _edit_row(text, 7, _set_field(1, "05:00:00")),
        # microseconds beyond 2**53 are not exact as floats (the axis would round twice)
        "epoch seconds past the year 2255": _edit_row(_utc(text), -1, _set_field(0, "17995267943")),
        "a date past the year 2255": _edit_row(text, -1, _set_field(0, "23000101")),
        "NumCPUs beyond int64": text.replace("NumCPUs: 8 ", "NumCPUs: 99999999999999999999 "),
        "column printed twice": text.replace("[CPU]Nice%", "[CPU]User%", 1),
        "row before the header": "20261121 06:00:00 1 2 3\n" + text,
        "no CPU column": text.replace("[CPU]", "[XPU]"),
        "semicolon in a space-separated row": _edit_row(text, 7, lambda r: r.replace(" ", ";", 1)),
    }
    taken = [label for label, variant in variants.items() if _reads_as_rows(variant) is False]
    for label, variant in variants.items():
        assert_same(collectl_plot, variant, label)
    assert not taken, f"the column path took edits only the row path reads: {taken}"


def _reads_as_rows(text: str) -> bool | None:
    """True when parse() fell back to rows, False when it took the column path, None when the
    file is rejected (no rows at all)."""
    try:
        return not isinstance(collectl_plot.parse(text).tables["cpu_samples"], Columns)
    except collectl_plot.ParseError:
        return None


def test_generator_doctest():
    import doctest

    from iopscope.synth import big_collectl_plot

    failures, tried = doctest.testmod(big_collectl_plot)
    assert tried and not failures

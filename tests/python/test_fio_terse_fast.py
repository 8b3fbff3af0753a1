"""fio_terse's column-wise fast path reads exactly what its row-by-row path reads.

``fio_terse.parse(text)`` takes the fast path where it can; ``read_by_reference(fio_terse, text)`` forces
the row-by-row one. Every fixture and corpus file, a long synthetic sweep (the generator of the
ingest benchmark), cuts of it at many offsets and edited variants must give the same status,
issues, facts and rows, value for value (floats compared by repr, so -0.0 and rounding count).
The variants that must fall back are checked to reach the fallback, and the plain ones to stay
on the fast path (Columns blocks), so a fast path that silently stopped being taken fails here.
"""

from __future__ import annotations

import random
import re

import pytest

from conftest import CORPUS, FIXTURES
from iopscope.parsers import fio_terse
from iopscope.parsers.base import Columns, NeedsRowPath
from iopscope.synth.generate import format_file
from test_sysstat_fast import _outcome  # status, issues, facts and rows, floats by repr


def assert_same(text: str, where: str) -> None:
    fast, rows = _outcome(fio_terse, text, True), _outcome(fio_terse, text, False)
    assert fast == rows, f"fio_terse fast and row paths differ on {where}"


def _fast_takes(text: str) -> bool:
    try:
        fio_terse._parse_columns(text)
    except NeedsRowPath:
        return False
    return True


def _files() -> list:
    paths = [p for p in (FIXTURES / "fio").rglob("*terse*.txt")]
    if (CORPUS / "fio").is_dir():
        paths += [p for p in (CORPUS / "fio").iterdir() if "terse" in p.name]
    return sorted(paths)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_fixture_and_corpus_files_read_the_same_on_both_paths(path):
    assert_same(path.read_text(encoding="utf-8"), path.name)


@pytest.mark.parametrize("name", ["terse-v3.txt", "terse-v4.txt", "terse-v5.txt"])
def test_plain_real_records_take_the_fast_path(name):
    assert _fast_takes((FIXTURES / "fio" / "fio-3.33" / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sweep() -> str:
    """A synthetic sweep of ~150 KB: runs of 32 records (8 QD groups x 4 clones) appended."""
    return format_file("fio_terse", 150_000, seed=3)[1]


def test_synthetic_sweep_takes_the_fast_path_and_reads_the_same(sweep):
    result = fio_terse.parse(sweep)
    assert result.status == "complete" and not result.issues
    assert isinstance(result.tables["fio_jobs"], Columns)
    assert isinstance(result.tables["fio_percentiles"], Columns)
    assert result.tables["fio_disk_util"][-1]["doc_index"] > 2  # one document per appended run
    assert_same(sweep, "the synthetic sweep")


def test_every_cut_of_the_sweep_reads_the_same(sweep):
    text = sweep[:40_000]
    rnd = random.Random("fio_terse")
    for cut in sorted(rnd.sample(range(1, len(text)), 60)):
        assert_same(text[:cut], f"a cut at byte {cut}")


def test_a_record_cut_short_at_the_end_takes_the_fast_path_and_reads_the_same(sweep):
    """fio killed mid-record (output to a file is block-buffered): the records before the cut
    are read column-wise and the cut one gets the row path's issue at its line number (an
    error and status incomplete, or with under 60 ';' a 'non-terse text' warning). Cuts that
    leave the row path a record it reads (in the disk groups) still fall back."""
    text = sweep[:sweep.index("\n", 8_000) + 1]
    line = text.count("\n")
    begin = text.rstrip("\n").rfind("\n") + 1
    taken = 0
    for cut in sorted({*range(begin + 1, len(text) - 1, 13), *range(len(text) - 4, len(text) - 1)}):
        cut_text = text[:cut]
        assert_same(cut_text, f"a cut at byte {cut}")
        fields = cut_text[begin:].split(";")
        if fio_terse._layout(fields, 3) is not None:
            assert not _fast_takes(cut_text), f"cut at byte {cut}: a record the row path reads"
            continue
        assert _fast_takes(cut_text), f"row path for a cut at byte {cut}"
        result = fio_terse.parse(cut_text)
        assert isinstance(result.tables["fio_jobs"], Columns)
        if len(fields) > 60:
            assert (result.status, result.status_reason) == ("incomplete", f"terse record at line {line} unreadable")
            assert [(i.line, i.reason, i.severity) for i in result.issues] == [
                (line, f"terse v3 record cut short or fields out of line ({len(fields)} fields): skipped", "error")]
        else:
            assert result.status == "complete" and [(i.line, i.severity) for i in result.issues] == [(line, "warning")]
        taken += 1
    assert taken > 50


def test_odd_last_lines_without_a_newline_read_the_same(sweep):
    text = sweep[:sweep.index("\n", 8_000) + 1]
    record = text.split("\n", 1)[0]
    cut_record = ";".join(record.split(";")[:70]) + ";12"   # 70 ';': read as a record, cut
    fall_back = {
        "a signal line": text + "fio: terminating on signal 2",
        "a disk line": text + ";vda;33983;1;0;0;3597;0;3598;69.55%",
        "a record of another version, cut": text + cut_record.replace("3;", "4;", 1),
        "a cut record after a text line": text.replace("\n", "\nsome text\n", 1) + record[:400],
        "a cut record after CR line ends": text.replace("\n", "\r\n") + record[:400],
    }
    keep = {
        "spaces": text + "  \t",
        "fio's ETA line": text + "Jobs: 1 (f=1): [R(1)][50.0%][r=1024KiB/s][r=256 IOPS][eta 00m:05s]",
        "the version only": text + "3;fi",
        "a cut record": text + cut_record,
        "a cut record, under 60 ';'": text + record[:200],
    }
    for label, variant in {**fall_back, **keep}.items():
        assert_same(variant, label)
        assert _fast_takes(variant) is (label in keep), label


def _edit_line(text: str, index: int, edit) -> str:
    lines = text.split("\n")
    lines[index] = edit(lines[index])
    return "\n".join(lines)


def _set_field(index: int, value: str):
    return _set_fields((index,), value)


def _set_fields(indexes, value: str):
    def edit(line: str) -> str:
        fields = line.split(";")
        for i in indexes:
            fields[i] = value
        return ";".join(fields)
    return edit


def _variants(sweep: str) -> tuple[dict, dict]:
    """(variants the fast path must leave to the row path, variants it must keep)."""
    text = sweep[:sweep.index("\n", 30_000) + 1]
    v4, v5 = ((FIXTURES / "fio" / "fio-3.33" / f"terse-v{v}.txt").read_text().strip() for v in (4, 5))
    fall_back = {
        "junk line": _edit_line(text, 5, lambda line: line + "\nsome text fio printed"),
        "blank line": _edit_line(text, 5, lambda line: line + "\n"),
        "missing field": _edit_line(text, 7, lambda line: line.replace(";0;", ";", 1)),
        "continue_on_error fields": "".join(line + ";0;0\n" for line in text.splitlines()),
        "description field": "".join(line + ";my job\n" for line in text.splitlines()),
        "v4 record appended": text + (FIXTURES / "fio" / "fio-3.33" / "terse-v4.txt").read_text(),
        "v2 file": (FIXTURES / "fio" / "fio-3.33" / "terse-v2.txt").read_text(),
        "non-ASCII job name": text.replace("synth-randread-4k-qd1", "synth-lecture-\u00e9", 1),
        "crlf": text.replace("\n", "\r\n"),
        "nan value": _edit_line(text, 3, _set_field(10, "nan")),
        "inf value": _edit_line(text, 3, _set_field(12, "inf")),
        "empty value": _edit_line(text, 3, _set_field(9, "")),
        "underscore number": _edit_line(text, 3, _set_field(5, "1_000")),
        "word for a number": _edit_line(text, 3, _set_field(6, "many")),
        "count beyond int64": _edit_line(text, 3, _set_field(89, "99999999999999999999")),
        "cpu without %": _edit_line(text, 3, _set_field(87, "3.7")),
        "percentage with a space": _edit_line(text, 3, _set_field(43, " 25.1%")),
        "percentile list changes": _edit_line(text, 4, lambda line: line.replace("50.000000%=", "55.000000%=", 1)),
        "percentile printed twice": "".join(line.replace("5.000000%=", "1.000000%=", 1) + "\n"
                                            for line in text.splitlines()),
        "used slot at percentile 0": _edit_line(text, 2, lambda line: line.replace("0%=0", "0%=7", 1)),
        "percentile without %=": _edit_line(text, 2, lambda line: line.replace("50.000000%=", "50.000000=", 1)),
        "percentile value not a number": _edit_line(text, 2, lambda line: line.replace("%=", "%=x", 1)),
        "signal line": text + "fio: terminating on signal 2\n",
        "client ETA glued before a record": _edit_line(text, 0, lambda line: "Jobs: 2 (f=0)" + line),
        "numeric disk name": text.replace(";nvme0n1;", ";259;"),
        "disk line of its own": text + ";vda;33983;1;0;0;3597;0;3598;69.55%\n",
        "another fio version": _edit_line(text, 6, lambda line: line.replace("fio-3.33", "fio-3.35", 1)),
        "version 6": text.replace("3;fio-3.33;", "6;fio-3.33;"),
        "leading blank line": "\n" + text,
    }
    v5_lines = "".join(v5.replace(";t5;", f";t5-{i};") + "\n" for i in range(4))
    keep = {
        "plain": text,
        "no final newline": text.rstrip("\n"),
        "negative zero and exponent": _edit_line(text, 3, lambda line: _set_field(89, "-0")(_set_field(10, "1e3")(line))),
        "job name with %= and spaces": text.replace("synth-randread-4k-qd1", "my %= job", 2),
        "All clients name": text.replace("synth-randread-4k-qd1", "All clients", 1),
        "read-only records": "".join(line + "\n" for line in text.splitlines() if "randread" in line),
        "v5 records": v5_lines,
        "v4 records": "".join(v4.replace(";t4;", f";t4-{i};") + "\n" for i in range(3)),
        "no disk groups": "".join(";".join(line.split(";")[:121]) + "\n" for line in text.splitlines()),
        "two disk groups": text.replace(";nvme0n1;", ";nvme1n1;7;8;0;0;1;2;3;4.00%;nvme0n1;"),
        "percentiles off": "".join(re.sub(r"[\d.]+%=\d+", "0%=0", line) + "\n" for line in text.splitlines()),
        "write percentiles off": "".join(_set_fields(range(58, 78), "0%=0")(line) + "\n" for line in text.splitlines()),
        "trailing blanks, no disk groups": "".join(";".join(line.split(";")[:121]) + " \t\n" for line in text.splitlines()),
        "disk counts change every record": "".join(
            _set_field(122, str(i))(line) + "\n" for i, line in enumerate(text.splitlines())),
    }
    return fall_back, keep


def test_variants_read_the_same_and_take_the_expected_path(sweep):
    fall_back, keep = _variants(sweep)
    for label, variant in fall_back.items():
        assert_same(variant, label)
        assert not _fast_takes(variant), f"{label}: should have been left to the row path"
    for label, variant in keep.items():
        assert_same(variant, label)
        assert _fast_takes(variant), f"{label}: should have stayed on the fast path"


def test_generator_output_is_detected_as_terse_and_reads_without_issues():
    from iopscope.parsers import detect

    name, text = format_file("fio_terse", 60_000, seed=5)
    assert name.startswith("synth-") and "synth-" in text.split(";", 3)[2]  # labelled synthetic
    assert detect(text[:65536], name)[0] is fio_terse
    result = fio_terse.parse(text)
    assert result.status == "complete" and not result.issues and result.tool_version == "3.33"
    assert format_file("fio_terse", 60_000, seed=5)[1] == text  # deterministic


def test_doctests():
    import doctest

    from iopscope.synth import big_fio_terse

    for module in (fio_terse, big_fio_terse):
        failures, tried = doctest.testmod(module)
        assert tried and not failures, module.__name__

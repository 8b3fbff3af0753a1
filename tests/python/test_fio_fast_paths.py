"""The fast paths of fio_log, fio_histogram_log and fio_json give exactly what their line /
per-item paths give: same rows (values and Python types), issues, status and errors, on every
fixture and corpus file and on variants of them (cut at many offsets, junk and odd lines
injected, column counts mixed, CRLF, no final newline) plus generated text."""

from __future__ import annotations

import math
import random

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES
from iopscope.parsers import ParseError, fio_histogram_log, fio_json, fio_log
from iopscope.parsers.base import Columns, NeedsRowPath, read_by_reference


def _files(suffixes: tuple[str, ...]) -> list:
    return [p for root in (FIXTURES, CORPUS) if root.is_dir() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name.endswith(suffixes) and not p.name.endswith(".expected.json")]


SAMPLE_LOGS = [p for p in _files((".log",)) if "_clat_hist" not in p.name]
HIST_LOGS = [p for p in _files((".log",)) if "_clat_hist" in p.name]
JSON_FILES = [p for p in _files((".json",)) if '"fio version"' in p.read_text(errors="replace")]


def _typed(value):
    """A value with its type, so that 1 and 1.0 (or nan and nan) compare as they should."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def _outcome(parse, *args, **kwargs):
    try:
        r = parse(*args, **kwargs)
    except ParseError as exc:
        return ("ParseError", exc.reason, exc.line)
    tables = {name: [[(k, _typed(v)) for k, v in row.items()] for row in rows]
              for name, rows in r.tables.items()}
    return (r.status, r.status_reason, r.tool_version, r.facts, list(r.tables), tables,
            [(i.line, i.reason, i.severity) for i in r.issues])


ODD_LINES = [
    "garbage here\n", "\n", "  \n", "\r\n", "1, 2, 0\n", "1, 2, 0, 4096, 5, 0, 9\n", "1, 2, 7, 4096\n",
    "0x10, 1, 0, 0\n", "1, nan, 0, 0\n", "1, -5, 0, 0\n", "-1, 5, 0, 0\n", "1, 5, 0, 4096, 0x2004\n",
    "1 , 5, 0, 0\n", "1,5,0,0\n", "1, 5, 0, 99999999999999999999\n", "1, 1e400, 0, 0\n", "1, 5, 00, 0\n",
    "+1, 5, 0, 0\n", "1, 5.5, 0, 0\n", "1, , 0, 0\n", "1, 5, 0, 4096, 0\n", "1, 5, 0, 4096, 12, 1\n",
    "1, 9007199254740993, 0, 0\n", "1, 5, 0, 4096, 18446744073709551615, 0\n", "1, \u0665, 0, 0\n",
]


def _variants(text: str, seed: int):
    """The text, and the same text damaged in the ways real logs are."""
    rng = random.Random(seed)
    yield text
    n = len(text)
    for cut in sorted({rng.randrange(n + 1) for _ in range(15)} | {n - 1, n - 2, n - 7, n - 30}):
        if 0 <= cut < n:
            yield text[:cut]
    lines = text.splitlines(keepends=True)
    for odd in ODD_LINES:
        at = rng.randrange(len(lines) + 1)
        yield "".join(lines[:at] + [odd] + lines[at:])
        yield "".join(lines + [odd.rstrip("\n")])  # odd last line, no newline
    yield text.replace("\n", "\r\n")
    yield text.rstrip("\n")
    yield text + "\n\n"
    for k in (1, 2, 3, 2001, 2002):
        yield "".join(lines[:k])
    yield "".join(lines[:3]) + "".join(ln.replace(", ", ",") for ln in lines[3:6])


@pytest.mark.parametrize("path", SAMPLE_LOGS, ids=lambda p: p.name)
def test_fio_log_fast_path_matches_line_path(path):
    text = path.read_text()
    checked = 0
    for i, variant in enumerate(_variants(text, seed=len(text))):
        for name in (path.name, None):
            fast = _outcome(fio_log.parse, variant, filename=name)
            slow = _outcome(fio_log._parse, variant, name, fast=False)
            assert fast == slow, f"{path.name} variant {i} (filename {name})"
            checked += 1
    assert checked > 50


def test_fio_log_fast_path_is_taken_on_fio_s_own_logs():
    """Otherwise the comparisons above would only compare the line path with itself."""
    real = [p for p in SAMPLE_LOGS if p.parent.name == "fio-3.33"]
    assert real
    for path in real:
        text = path.read_text()
        assert fio_log._canonical_block(text) is not None, path.name
        assert fio_log._canonical_block(text.replace("\n", "\r\n")) is not None, path.name
        assert isinstance(fio_log.parse(text, filename=path.name).tables["fio_log_samples"], Columns)
    cut = real[0].read_text()[:-3]
    assert isinstance(fio_log.parse(cut, filename=real[0].name).tables["fio_log_samples"], Columns)


FIELD = st.one_of(st.integers(0, 3).map(str), st.integers(0, 10**6).map(str),
                  st.sampled_from(["00", "0x2004", "", " 5", "5 ", "-1", "+1", "1.5", "nan", "x",
                                   "9007199254740993", "99999999999999999999"]))
LOG_LINE = st.one_of(
    st.lists(st.integers(0, 10**9).map(str), min_size=4, max_size=6).map(", ".join),
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 3), st.integers(0, 8192),
              st.sampled_from(["", ", 0", ", 1", ", 4096", ", 0, 1", ", 8192, 0"]))
    .map(lambda t: f"{t[0]}, {t[1]}, {t[2]}, {t[3]}{t[4]}"),
    st.lists(FIELD, min_size=0, max_size=8).map(", ".join),
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(lines=st.lists(LOG_LINE, min_size=1, max_size=40), eol=st.sampled_from(["\n", "\r\n"]),
       last=st.booleans(), name=st.sampled_from(["a_clat.1.log", "a_bw.log", "a_iops.2.log", None]))
def test_fio_log_fast_path_matches_on_generated_logs(lines, eol, last, name):
    text = eol.join(lines) + (eol if last else "")
    assert _outcome(fio_log.parse, text, filename=name) == _outcome(fio_log._parse, text, name, fast=False)


# --------------------------------------------------------------------------- histogram logs


@pytest.mark.parametrize("path", HIST_LOGS, ids=lambda p: p.name)
def test_histogram_log_fast_path_matches_field_path(path):
    text = path.read_text()
    for i, variant in enumerate(_variants(text, seed=len(text))):
        for name in (path.name, None):
            fast = _outcome(fio_histogram_log.parse, variant, filename=name)
            slow = _outcome(read_by_reference, fio_histogram_log, variant, filename=name)
            assert fast == slow, f"{path.name} variant {i} (filename {name})"


HIST_FIELD = st.one_of(st.integers(-3, 10**6).map(str), st.sampled_from(
    ["00", " 7", "7 ", "+1", "1.0", "1e3", "true", "null", '"5"', "[1]", "", "0x10", "1_0", "\u0665", "-0"]))


@settings(max_examples=300, deadline=None)
@given(fields=st.lists(HIST_FIELD, min_size=0, max_size=12), sep=st.sampled_from([",", ", ", " ,"]))
def test_plain_ints_reads_what_int_reads(fields, sep):
    line = sep.join(fields)
    fast = fio_histogram_log._plain_ints(line)
    if fast is None:
        return  # the caller then takes the int() path itself
    assert fast == [int(p) for p in line.split(",")]
    assert all(type(v) is int for v in fast)


# --------------------------------------------------------------------------- histogram logs: block path


ARROW = (pa.Array, pa.ChunkedArray)


def _hist_same(text: str, name: str | None, where: str) -> None:
    fast = _outcome(fio_histogram_log.parse, text, filename=name)
    slow = _outcome(read_by_reference, fio_histogram_log, text, filename=name)
    assert fast == slow, f"{where} (filename {name})"


def _takes_block_path(text: str) -> bool:
    body = text[:text.rfind("\n") + 1].encode("ascii", errors="replace")
    try:
        fio_histogram_log._read_block(body)
    except NeedsRowPath:
        return False
    return True


def _big(coarseness: int, size: int = 150_000) -> tuple[str, str]:
    from iopscope.synth.big_fio_histogram_log import big_file

    return big_file(size, seed=7, coarseness=coarseness)


@pytest.mark.parametrize("path", HIST_LOGS, ids=lambda p: p.name)
def test_histogram_fixtures_take_the_block_path(path):
    """Otherwise the comparisons would only compare the line path with itself."""
    text = path.read_text()
    assert _takes_block_path(text)
    table = fio_histogram_log.parse(text, filename=path.name).tables["fio_histogram_log_samples"]
    assert isinstance(table, Columns) and isinstance(table.columns["io_count"], ARROW)


@pytest.fixture(params=["1 MB pieces", "small pieces"])
def pieces(request, monkeypatch):
    """The block path reads lines in pieces: also with many (small) pieces to a file."""
    if request.param == "small pieces":
        monkeypatch.setattr(fio_histogram_log, "PIECE_CHARS", 3000)


@pytest.mark.parametrize("coarseness", [0, 4, 6])
def test_synthetic_histogram_logs_read_the_same_on_both_paths(coarseness, pieces):
    name, text = _big(coarseness)
    assert _takes_block_path(text)
    r = fio_histogram_log.parse(text, filename=name)
    assert r.status == "complete" and not r.issues
    table = r.tables["fio_histogram_log_samples"]
    assert isinstance(table.columns["bin_ns"], ARROW) and len(table) > 1000
    assert {row["coarseness"] for row in table} == {coarseness}
    _hist_same(text, name, f"synthetic coarseness {coarseness}")
    _hist_same(text, None, f"synthetic coarseness {coarseness}")


def test_synthetic_histogram_log_cut_anywhere_reads_the_same(pieces):
    name, text = _big(0, 60_000)
    rng = random.Random(3)
    cuts = sorted({rng.randrange(len(text)) for _ in range(60)})
    for cut in cuts:
        _hist_same(text[:cut], name, f"cut at {cut}")


def _edit_line(text: str, k: int, edit) -> str:
    lines = text.split("\n")
    lines[k] = edit(lines[k])
    return "\n".join(lines)


def _set_field(i: int, value: str):
    def edit(line: str) -> str:
        fields = line.split(", ")
        fields[i] = value
        return ", ".join(fields)
    return edit


# Each edit makes the text something the block path must refuse (the line path then reads it).
# A field set to a value: (line, field, value).
FIELD_EDITS = {
    "empty field": (1, 40, ""), "leading zero": (1, 40, "07"), "double zero": (2, 41, "00"),
    "plus sign": (1, 40, "+7"), "negative": (1, 40, "-7"), "beyond int64": (1, 40, "99999999999999999999"),
    "float": (1, 40, "1.5"), "tab": (1, 40, "\t5"), "non-ascii digit": (1, 40, "\u0665"),
    "time 0": (1, 0, "0"), "first time one digit": (0, 0, "7"), "first time leading zero": (0, 0, "0500"),
    "first time beyond int64": (0, 0, "99999999999999999999"), "time beyond int64": (2, 0, "99999999999999999999"),
    "direction 3": (1, 1, "3"), "direction 10": (1, 1, "10"), "block size 0": (1, 2, "0"),
}
# A line rewritten: (line, how).
LINE_EDITS = {
    "junk line": (2, lambda ln: "garbage " + ln),
    "blank line": (3, lambda ln: ln + "\n"),
    "missing field": (1, lambda ln: ln.rsplit(", ", 1)[0]),
    "extra field": (1, lambda ln: ln + ", 0"),
    "trailing comma": (0, lambda ln: ln + ","),
    "no space": (1, lambda ln: ln.replace(", ", ",", 5)),
    "two spaces": (1, lambda ln: ln.replace(", ", ",  ", 1)),
    "another bin count": (1, lambda ln: ", ".join(ln.split(", ")[:3 + (ln.count(",") - 2) // 2])),
    "space before newline": (0, lambda ln: ln + " "),
}
FALLBACK_EDITS = {
    **{what: (lambda t, k=k, i=i, v=v: _edit_line(t, k, _set_field(i, v)))
       for what, (k, i, v) in FIELD_EDITS.items()},
    **{what: (lambda t, k=k, how=how: _edit_line(t, k, how)) for what, (k, how) in LINE_EDITS.items()},
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "non-ascii junk": lambda t: "# caf\u00e9\n" + t,
    "leading space": lambda t: " " + t,
}


@pytest.mark.parametrize("what", FALLBACK_EDITS)
@pytest.mark.parametrize("coarseness", [0, 4])
def test_histogram_edits_fall_back_and_read_the_same(what, coarseness, pieces):
    name, text = _big(coarseness, 40_000)
    edited = FALLBACK_EDITS[what](text)
    assert edited != text
    assert not _takes_block_path(edited), what
    _hist_same(edited, name, what)


@pytest.mark.parametrize("what", ["junk line", "leading zero", "missing field", "block size 0", "direction 3"])
def test_histogram_edits_in_a_later_piece_fall_back(what, monkeypatch):
    monkeypatch.setattr(fio_histogram_log, "PIECE_CHARS", 3000)
    name, text = _big(0, 60_000)
    lines = text.split("\n")
    k = len(lines) - 7   # the edits touch lines 0-3 of what follows
    head, tail = "\n".join(lines[:k]) + "\n", "\n".join(lines[k:])
    edited = head + FALLBACK_EDITS[what](tail)
    assert edited != text
    with pytest.raises(NeedsRowPath):
        fio_histogram_log._parse_block(edited, filename=name)
    _hist_same(edited, name, what)


def test_histogram_edits_the_block_path_keeps_read_the_same(pieces):
    """Edits that are still fio's layout: the block path must read them, and read them right."""
    name, text = _big(0, 40_000)
    keeps = {
        "big count": _edit_line(text, 1, _set_field(100, "9223372036854775807")),
        "count above 2**53": _edit_line(text, 2, _set_field(7, "9007199254740993")),
        "last bin": _edit_line(text, 1, _set_field(-1, "12")),
        "last bin of the last line": _edit_line(text, -2, _set_field(-1, "12")),   # read in Python
        "last bins of the last line": _edit_line(text, -2, lambda ln: ln[:-len("0, 0, 0")] + "1, 2, 3"),
        "first bin": _edit_line(text, 1, _set_field(3, "5")),
        "trim line": _edit_line(text, 1, _set_field(1, "2")),
        "no final newline": text.rstrip("\n"),
        "cut in the last number": text.rstrip("\n")[:-1],
        "line cut short": text[:len(text) - 300],
        "odd last line, no newline": text + "1, 2, 3",
    }
    for what, variant in keeps.items():
        assert _takes_block_path(variant), what
        _hist_same(variant, name, what)


@pytest.mark.parametrize("coarseness", [0, 5])
def test_histogram_line_cut_short_at_the_end_stays_on_the_block_path(coarseness):
    """fio killed mid-line (output to a file is block-buffered): the whole lines are read in
    blocks, the cut one line by line with the line path's warning, line number and status.
    _parse_block raises NeedsRowPath where it would leave the file to the line path."""
    name, text = _big(coarseness, 15_000)
    body = text.rstrip("\n")
    begin = body.rfind("\n") + 1
    line, nbins = body.count("\n") + 1, body.count(",", begin) - 2
    for cut in sorted({*range(begin + 1, len(body), 233), *range(begin + 1, begin + 20), *range(len(body) - 3, len(body))}):
        cut_text = body[:cut]
        _hist_same(cut_text, name, f"cut at {cut}")
        result = fio_histogram_log._parse_block(cut_text, filename=name)
        fields = len(cut_text[begin:].rstrip().rstrip(",").split(","))
        if fields == nbins + 3:
            assert result.status == "complete" and not result.issues, f"cut at {cut}: a whole line"
            continue
        assert result.issues[-1].line == line, f"cut at {cut}"
        if fields >= 4:
            assert (result.status, result.status_reason) == ("incomplete", "last histogram line cut short")
            assert result.issues[-1].reason.startswith(f"{fields - 3} bins where the file has {nbins}:")
        else:
            assert result.status == "complete" and result.issues[-1].reason.startswith("not a histogram log line")


HIST_TOKEN = st.one_of(st.just("0"), st.integers(1, 10**6).map(str),
                       st.sampled_from(["00", "07", "", " 5", "-1", "x", "99999999999999999999", "0"]))


@FUZZ
@given(lines=st.lists(st.tuples(st.integers(10, 10**7), st.integers(0, 3), st.sampled_from([0, 4096, 8192]),
                                st.lists(st.tuples(st.integers(0, 28), HIST_TOKEN), max_size=6),
                                st.sampled_from([29, 29, 29, 58])),
                      min_size=1, max_size=6),
       end=st.sampled_from(["\n", "", "\n\n"]), cut=st.integers(0, 40))
def test_histogram_generated_logs_read_the_same(lines, end, cut):
    """Small logs (29 or 58 bins: coarseness 6 or 5) with random counts and odd tokens."""
    out = []
    for time_ms, ddir, bs, counts, nbins in lines:
        fields = ["0"] * nbins
        for i, token in counts:
            fields[i % nbins] = token
        out.append(", ".join([str(time_ms), str(ddir), str(bs)] + fields))
    text = "\n".join(out) + end
    text = text[:len(text) - cut] if cut < len(text) else text
    _hist_same(text, "g_clat_hist.1.log", "generated")


def test_histogram_generator_doctests_and_detection():
    import doctest

    from iopscope import parsers
    from iopscope.synth import big_fio_histogram_log
    from iopscope.synth.generate import format_file

    for module in (big_fio_histogram_log, fio_histogram_log):
        failures, tried = doctest.testmod(module)
        assert tried and not failures, module.__name__
    name, text = format_file("fio_histogram_log", 200_000, 2)
    assert name.endswith("_clat_hist.1.log") and len(text) >= 200_000
    module, _ = parsers.detect(text[:parsers.HEAD_BYTES], name, None)
    assert module is fio_histogram_log
    assert format_file("fio_histogram_log", 200_000, 2) == (name, text)   # deterministic


# --------------------------------------------------------------------------- json+


@pytest.fixture
def slow_json(monkeypatch):
    """fio_json with its per-item paths only."""
    bin_pairs, percentiles = fio_json._bin_pairs, fio_json._percentiles
    monkeypatch.setattr(fio_json, "_bin_pairs", lambda bins: bin_pairs(bins, fast=False))
    monkeypatch.setattr(fio_json, "_percentiles", lambda raw: percentiles(raw, fast=False))
    return lambda text: _outcome(fio_json.parse, text)


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
def test_fio_json_fast_paths_match_per_item_paths(path, slow_json):
    text = path.read_text(errors="replace")
    cuts = [text] + [text[:k] for k in range(len(text) // 7, len(text), max(1, len(text) // 7))]
    fast = [_outcome(fio_json.parse, t) for t in cuts]
    assert fast == [slow_json(t) for t in cuts]


def test_fio_json_bins_are_columns():
    text = (FIXTURES / "fio" / "fio-3.33" / "jsonplus-randrw70-logs.json").read_text()
    tables = fio_json.parse(text).tables
    assert isinstance(tables["fio_histogram_bins"], Columns) and len(tables["fio_histogram_bins"]) > 100
    assert isinstance(tables["fio_percentiles"], Columns)


JSON_VALUE = st.one_of(st.integers(-10, 10**6), st.integers(2**53 - 2, 2**60), st.booleans(), st.none(),
                       st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
                       st.sampled_from(["5", "1e3", " 7 ", "nan"]))
JSON_KEY = st.one_of(st.integers(-10, 10**6).map(str), st.sampled_from(
    ["", "00", "1.5", "1e3", " 7", "+3", "1_0", "nan", "inf", "\u0665", "9007199254740993", "x"]),
    st.floats(0, 100).map(lambda f: f"{f:f}"))


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(JSON_KEY, JSON_VALUE), max_size=12))
def test_bin_pairs_and_percentiles_fast_paths_match(pairs):
    obj = dict(pairs)
    assert fio_json._bin_pairs(obj) == fio_json._bin_pairs(obj, fast=False)
    fast, slow = fio_json._percentiles(obj), fio_json._percentiles(obj, fast=False)
    assert [(_typed(a), _typed(b)) for a, b in fast] == [(_typed(a), _typed(b)) for a, b in slow]

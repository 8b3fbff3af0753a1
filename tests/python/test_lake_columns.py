"""The lake writes the same Arrow table whether a parser returns records or a Columns block.

Every fixture and corpus file is parsed; each of its tables is conformed four ways and must
equal what ingest wrote before Columns existed (provenance merged into every record dict):
records + provenance chunk, Columns of lists, Columns of Arrow arrays (where Arrow can infer
one), and several chunks concatenated. Deliberate mismatches must raise.
"""

from __future__ import annotations

import datetime as dt
import json
import math

import pyarrow as pa
import pytest

from conftest import CORPUS, FIXTURES
from iopscope import parsers, tables
from iopscope.ingest import parse_file
from iopscope.lake import Chunk, ConformError, conform, conform_chunks, dense
from iopscope.parsers.base import Columns
from test_corpus import _expectations, _manifest_files

PROVENANCE = {"run_id": "run-1", "source_path": "measured/run-1/file", "source_sha256": "ab" * 32,
              "parser": "p", "parser_version": "1", "tool_version": None}


def _cases() -> list[tuple[str, object, str | None]]:
    cases = []
    for expectation in sorted(FIXTURES.rglob("*.expected.json")):
        source = expectation.with_name(expectation.name.removesuffix(".expected.json"))
        force = json.loads(expectation.read_text()).get("force_format")
        cases.append((str(source.relative_to(FIXTURES)), source, force))
    corpus_expected = _expectations() if _manifest_files() else {}
    for local in _manifest_files():
        cases.append((f"corpus/{local}", CORPUS / local, corpus_expected.get(local, {}).get("force_format")))
    return cases


def _columns_from(records: list[dict], provenance: dict) -> Columns:
    """The Columns block a column-wise parser would return for these records: a row without a
    key holds what the record form gets for it (the provenance value, else null)."""
    names = list(dict.fromkeys(k for r in records for k in r))
    return Columns({n: [r.get(n, provenance.get(n)) for r in records] for n in names}, len(records))


def _arrow_columns(block: Columns) -> Columns:
    """Same block with every column Arrow can infer a type for given as a pyarrow Array."""
    converted = {}
    for name, values in block.columns.items():
        try:
            converted[name] = pa.array(values, from_pandas=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            converted[name] = values
    return Columns(converted, len(block))


def _legacy(table: tables.Table, records: list[dict], provenance: dict) -> pa.Table:
    return conform(table, [{**provenance, **r} for r in records])


@pytest.mark.parametrize("name,path,force", _cases(), ids=[c[0] for c in _cases()])
def test_records_and_columns_write_the_same_table(name, path, force):
    try:
        module, result, _ = parse_file(path, fmt=force)
    except parsers.ParseError:
        pytest.skip("nothing readable: no table to write")
    provenance = {**PROVENANCE, "parser": module.NAME, "tool_version": result.tool_version}
    for table_name, rows in result.tables.items():
        table = tables.get(table_name)
        records = list(rows)
        if not records:
            continue
        want = _legacy(table, records, provenance)
        forms = {
            "as returned": conform(table, rows, provenance),
            "records": conform(table, records, provenance),
            "columns of lists": conform(table, _columns_from(records, provenance), provenance),
            "columns of arrow arrays": conform(table, _arrow_columns(_columns_from(records, provenance)), provenance),
            "two chunks": conform_chunks(table, [Chunk(records[: len(records) // 2], provenance),
                                                 Chunk(_columns_from(records[len(records) // 2:], provenance), provenance)]),
        }
        for form, got in forms.items():
            # Provenance of a large part comes as a one-value dictionary: what it stands for counts.
            got, want = dense(got), dense(want)
            assert got.schema == want.schema, f"{name} {table_name} ({form}): schema differs"
            assert got.equals(want), f"{name} {table_name} ({form}): {_first_difference(got, want)}"


def _first_difference(got: pa.Table, want: pa.Table) -> str:
    if got.num_rows != want.num_rows:
        return f"{got.num_rows} rows, expected {want.num_rows}"
    for column in want.column_names:
        a, b = got.column(column).to_pylist(), want.column(column).to_pylist()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"column {column} row {i}: {x!r}, expected {y!r}"
    return "same values, different representation"


EDGE = tables.Table("edge_cases", "every column type", tables.cols(
    ("s", "string"), ("i", "int64"), ("f", "float64"), ("b", "bool"), ("ts", "timestamp")))

UTC = dt.timezone.utc
EDGE_VALUES = {
    "s": ["a", None, "", "ü"],
    "i": [1, None, 2 ** 60 + 1, -3],
    "f": [1.5, float("nan"), float("inf"), None],
    "b": [True, None, False, True],
    "ts": [dt.datetime(2026, 11, 21, 12, 0, 0, 123456), None,
           dt.datetime(2026, 11, 21, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
           dt.datetime(2026, 1, 1, tzinfo=UTC)],
}


def _edge_records(values: dict[str, list]) -> list[dict]:
    n = len(next(iter(values.values())))
    return [{k: v[i] for k, v in values.items()} for i in range(n)]


def test_edge_values_convert_as_records_do():
    want = conform(EDGE, _edge_records(EDGE_VALUES), PROVENANCE)
    assert conform(EDGE, Columns(dict(EDGE_VALUES)), PROVENANCE).equals(want)
    # nan/inf are nulls, an int beyond 2**53 is what to_int makes of it, naive time is UTC
    f = want.column("f").to_pylist()
    assert f[0] == 1.5 and f[1] is None and f[2] is None
    assert want.column("i").to_pylist()[2] == int(float(2 ** 60 + 1))
    assert want.column("ts").to_pylist()[0] == dt.datetime(2026, 11, 21, 12, 0, 0, 123456, tzinfo=UTC)
    assert want.column("run_id").to_pylist() == ["run-1"] * 4


@pytest.mark.parametrize("column,array,as_records", [
    ("f", pa.array([1.0, math.nan, math.inf, None]), [1.0, math.nan, math.inf, None]),
    ("f", pa.array([1, 2, None, 4], pa.int32()), [1, 2, None, 4]),
    ("f", pa.array([0.5, 1.25, None, 2.0], pa.float32()), [0.5, 1.25, None, 2.0]),
    ("f", pa.array([True, False, None, True]), [True, False, None, True]),   # to_float: bool is null
    ("f", pa.array(["1.5", "x", None, "2"]), ["1.5", "x", None, "2"]),
    ("i", pa.array([1, 2 ** 60 + 1, None, -1]), [1, 2 ** 60 + 1, None, -1]),
    ("i", pa.array([1, 2, 3, 255], pa.uint8()), [1, 2, 3, 255]),
    ("i", pa.array([1.9, -1.9, None, 3.0]), [1.9, -1.9, None, 3.0]),
    ("s", pa.array(["a", "b", "a", None]).dictionary_encode(), ["a", "b", "a", None]),
    ("s", pa.array([1, 2, 3, None]), [1, 2, 3, None]),
    ("b", pa.array(["yes", "off", "junk", None]), ["yes", "off", "junk", None]),
    ("ts", pa.array([0, 1, None, 1_700_000_000], pa.timestamp("s")),
     [dt.datetime(1970, 1, 1), dt.datetime(1970, 1, 1, 0, 0, 1), None, dt.datetime(2023, 11, 14, 22, 13, 20)]),
    ("ts", pa.array(["2026-11-21T12:00:00Z", None, "2026-11-21 12:00", "2026-11-21T12:00:00+02:00"]),
     ["2026-11-21T12:00:00Z", None, "2026-11-21 12:00", "2026-11-21T12:00:00+02:00"]),
    ("ts", pa.chunked_array([[None, None], [None, None]], pa.null()), [None] * 4),
])
def test_arrow_columns_cast_as_records_do(column, array, as_records):
    want = conform(EDGE, [{column: v} for v in as_records], PROVENANCE)
    got = conform(EDGE, Columns({column: array}), PROVENANCE)
    assert got.equals(want), (got.column(column).to_pylist(), want.column(column).to_pylist())


def test_short_columns_checked_in_python_convert_as_long_ones_checked_by_arrow():
    """Up to lake.PYTHON_CHECK_MAX_VALUES values a column's nan / inf / 2**53 checks run on
    the Python values, above it in Arrow: the same records give the same values either way."""
    from iopscope import lake as lake_mod
    short = _edge_records(EDGE_VALUES)
    repeat = lake_mod.PYTHON_CHECK_MAX_VALUES // len(short) + 1
    long = conform(EDGE, short * repeat, PROVENANCE)
    assert long.num_rows > lake_mod.PYTHON_CHECK_MAX_VALUES
    assert long.slice(0, len(short)).equals(conform(EDGE, short, PROVENANCE))
    assert long.column("f").to_pylist()[:4] == [1.5, None, None, None]


def test_numbers_no_column_can_hold_are_nulls_not_a_stopped_ingest():
    """2**64 - 1 (fio's "never set"), 2**63 and an int beyond any float: nulls, as nan / inf
    are, in records and in Arrow-free Columns blocks alike; the other values are kept."""
    values = {"i": [2 ** 64 - 1, 2 ** 63, -(2 ** 70), 7], "f": [10 ** 400, -(10 ** 400), 2 ** 64, 1.5]}
    for rows in (_edge_records(values), Columns(dict(values))):
        got = conform(EDGE, rows, PROVENANCE)
        assert got.column("i").to_pylist() == [None, None, None, 7]
        assert got.column("f").to_pylist() == [None, None, float(2 ** 64), 1.5]


def test_a_different_value_is_caught():
    """The comparison above can fail: one changed value makes the tables differ."""
    records = _edge_records(EDGE_VALUES)
    changed = dict(EDGE_VALUES, s=["a", None, "", "u"])
    assert not conform(EDGE, Columns(changed), PROVENANCE).equals(conform(EDGE, records, PROVENANCE))


def test_unknown_column_names_table_and_column():
    with pytest.raises(ConformError, match=r"table edge_cases: unknown column\(s\) typo_col"):
        conform(EDGE, Columns({"s": ["a"], "typo_col": [1]}), PROVENANCE)
    with pytest.raises(ConformError, match="unknown column"):
        conform(EDGE, [{"s": "a", "typo_col": 1}], PROVENANCE)
    no_provenance = tables.Table("bare", "", tables.cols(("s", "string")), provenance=False)
    with pytest.raises(ConformError, match="unknown column.*run_id"):
        conform(no_provenance, Columns({"s": ["a"]}), PROVENANCE)


def test_bad_timestamps_raise_naming_the_column():
    with pytest.raises(ConformError, match="column ts: cannot read 'noon' as a timestamp"):
        conform(EDGE, Columns({"ts": ["noon"]}), PROVENANCE)
    with pytest.raises(ConformError, match="column ts"):
        conform(EDGE, Columns({"ts": [dt.date(2026, 11, 21)]}), PROVENANCE)
    with pytest.raises(ConformError, match="column ts"):   # sub-microsecond time is not cut silently
        conform(EDGE, Columns({"ts": pa.array([1], pa.timestamp("ns"))}), PROVENANCE)


def test_columns_missing_are_null_and_row_values_beat_provenance():
    got = conform(EDGE, Columns({"s": ["x", "y"], "run_id": ["own", "own"]}), PROVENANCE)
    assert got.column("i").null_count == 2 and got.column("ts").null_count == 2
    assert got.column("run_id").to_pylist() == ["own", "own"]
    assert got.column("tool_version").null_count == 2
    records = conform(EDGE, [{"s": "x", "run_id": "own"}, {"s": "y"}], PROVENANCE)
    assert records.column("run_id").to_pylist() == ["own", "run-1"]


def test_large_parts_use_dictionaries_only_where_values_repeat():
    """Strings and few-valued columns get a dictionary; many-valued numbers and bools do not
    (a dictionary there overflows and is thrown away after the work is done)."""
    import pyarrow as pa

    from iopscope.lake import _dictionary_columns, _writer_options

    n = 20_000
    table = pa.table({"name": pa.array(["a", "b"] * (n // 2)), "bin": pa.array([i % 50 for i in range(n)]),
                      "latency": pa.array([i * 1.5 for i in range(n)]), "flag": pa.array([True] * n)})
    assert _dictionary_columns(table) == ["name", "bin"]
    assert _writer_options(table)["use_dictionary"] == ["name", "bin"]
    assert _writer_options(table.slice(0, 10))["use_dictionary"] is False  # small part: none at all


def test_provenance_of_a_large_part_is_a_dictionary_written_as_plain_strings(tmp_path):
    """A large part's run id, path and hash are one-value dictionaries in memory; the Parquet file
    holds the same strings as without them and reads back as plain strings."""
    import pyarrow.parquet as pq

    from iopscope.lake import SMALL_PART_ROWS, _atomic_write

    n = SMALL_PART_ROWS + 5
    rows = Columns({"s": ["x"] * n, "i": list(range(n))})
    got = conform(EDGE, rows, PROVENANCE)
    assert pa.types.is_dictionary(got.schema.field("run_id").type)
    small = conform(EDGE, Columns({"s": ["x"], "i": [1]}), PROVENANCE)
    assert pa.types.is_string(small.schema.field("run_id").type)  # small parts: plain strings
    want = dense(got)
    assert pa.types.is_string(want.schema.field("run_id").type)
    assert want.column("run_id").to_pylist() == [PROVENANCE["run_id"]] * n
    _atomic_write(got, tmp_path / "a.parquet")
    back = pq.read_table(tmp_path / "a.parquet", use_threads=False)
    assert back.schema == want.schema and back.equals(want)
    # A large chunk and a small one of one run: joined as plain strings, every row kept.
    both = conform_chunks(EDGE, [Chunk(rows, PROVENANCE), Chunk(Columns({"s": ["y"], "i": [0]}), PROVENANCE)])
    assert both.num_rows == n + 1 and both.column("run_id").to_pylist() == [PROVENANCE["run_id"]] * (n + 1)

"""parsers/_convert.py: the common-case shortcuts of number() and whole() (float() / int() tried
first) give exactly what the step-by-step reading gives (strip, empty -> None, float, a finite
check, a whole-number check), issues included, on edge texts and on random ones."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from iopscope.parsers._convert import finite_or_none, int64_or_none, number, plain_number, whole
from iopscope.parsers.base import ParseResult


def _number_by_steps(text, result):
    text = None if text is None else text.strip()
    if not text:
        return None
    try:
        value = float(text)
        reason = None if math.isfinite(value) else "is not a finite number"
    except ValueError:
        reason = "is not a number"
    if reason:
        result.warn(7, f"x {text[:40]!r} {reason}: left empty")
        return None
    return value


def _whole_by_steps(text, result):
    value = _number_by_steps(text, result)
    if value is None:
        return None
    if value != int(value) or abs(value) > 2 ** 53:
        result.warn(7, f"x {text.strip()[:40]!r} is not a whole number: left empty")
        return None
    return int(value)


EDGES = [None, "", " ", "\t", "0", "-0", "+5", " 12 ", "1.5", "1.0", "1e3", "1E-3", "1_000", "0x10", "nan",
         "-nan", "inf", "-Infinity", "abc", "1.2.3", "9007199254740992", "9007199254740993",
         "-9007199254740993", "1" * 30, "\u0661\u0662", "\x1c5\x1c", "5\n", "12%", "1,5"]


def _same(text):
    for fast, steps in ((number, _number_by_steps), (whole, _whole_by_steps)):
        a, b = ParseResult(format="x"), ParseResult(format="x")
        got, want = fast(text, "x", 7, a), steps(text, b)
        assert repr(got) == repr(want) and type(got) is type(want), (fast.__name__, text)
        assert a.issues == b.issues, (fast.__name__, text)


def test_edge_texts_read_as_step_by_step():
    for text in EDGES:
        _same(text)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet="0123456789.-+eE_ nainf\t", max_size=12), st.text(max_size=8)))
def test_random_texts_read_as_step_by_step(text):
    _same(text)


def test_quiet_forms():
    assert [finite_or_none(t) for t in (None, "", "2.5", "nan", "inf", "x")] == [None, None, 2.5, None, None, None]
    assert [int64_or_none(t) for t in (None, "", "7", "1.5", str(2 ** 63), str(-(2 ** 63) + 1))] == \
        [None, None, 7, None, None, -(2 ** 63) + 1]
    assert [plain_number(t) for t in (None, "", " 3 ", "nan", "1e400")] == [None, None, 3.0, None, None]

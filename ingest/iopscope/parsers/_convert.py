"""Text -> number conversion for parsers that read text fields first and type them after
(hammerdb, iometer, diskspd, sysbench, tpcc_mysql), so typing is its own step.

:func:`number` and :func:`whole`: a value that is not a finite number becomes None plus one
issue naming the field, the text and the line, never an exception.
:func:`finite_or_none` and :func:`int64_or_none`: the quiet forms, for fields whose shape a
pattern already checked, where the parser itself says what a missing value means (tpcc_mysql:
``nan`` is what tpcc_start prints after dividing by zero).
"""

from __future__ import annotations

from iopscope.parsers.base import ParseResult


def plain_number(text: str | None) -> float | None:
    """What :func:`number` returns when it has nothing to say (a finite number), else None:
    the common case, for a caller that finds the line of an issue only when there is one."""
    if text is None:
        return None
    try:
        value = float(text)  # float() skips the spaces number() strips
    except ValueError:
        return None
    return value if value - value == 0.0 else None   # nan and inf give nan


def number(text: str | None, what: str, line: int | None, result: ParseResult) -> float | None:
    value = plain_number(text)
    if value is not None or text is None:
        return value
    text = text.strip()
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        result.warn(line, f"{what} {text[:40]!r} is not a number: left empty")
        return None
    if value != value or value in (float("inf"), float("-inf")):
        result.warn(line, f"{what} {text[:40]!r} is not a finite number: left empty")
        return None
    return value


def whole(text: str | None, what: str, line: int | None, result: ParseResult) -> int | None:
    """An integer field: a fraction or a value beyond 2^53 (not exact in a float) is an issue."""
    if text is None:
        return None
    try:
        exact = int(text)    # the common case first: what float() then int() would give
    except ValueError:
        pass
    else:
        if -2 ** 53 <= exact <= 2 ** 53:
            return exact
    value = number(text, what, line, result)
    if value is None:
        return None
    if value != int(value) or abs(value) > 2 ** 53:
        result.warn(line, f"{what} {text.strip()[:40]!r} is not a whole number: left empty")
        return None
    return int(value)


INT64_MAX = 2 ** 63 - 1


def finite_or_none(text: str | None) -> float | None:
    """``float(text)``, or None for an empty text, one float() does not read, nan or inf."""
    value = _quietly(float, text)
    return value if value is not None and value - value == 0.0 else None  # nan and inf give nan


def int64_or_none(text: str | None) -> int | None:
    """``int(text)``, or None for an empty text, one int() does not read (a fraction among
    them), or a value outside int64 (the lake's integer columns)."""
    value = _quietly(int, text)
    return value if value is not None and -INT64_MAX <= value <= INT64_MAX else None


def _quietly(convert, text: str | None):
    if text is None or text == "":
        return None
    try:
        return convert(text)
    except ValueError:
        return None

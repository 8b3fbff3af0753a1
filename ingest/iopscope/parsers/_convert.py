"""Text -> number conversion for parsers that read text fields first and type them after
(hammerdb, iometer): a value that is not a finite number becomes None plus one issue naming
the field, the text and the line, never an exception."""

from __future__ import annotations

from iopscope.parsers.base import ParseResult


def number(text: str | None, what: str, line: int | None, result: ParseResult) -> float | None:
    if text is None:
        return None
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
    value = number(text, what, line, result)
    if value is None:
        return None
    if value != int(value) or abs(value) > 2 ** 53:
        result.warn(line, f"{what} {text.strip()[:40]!r} is not a whole number: left empty")
        return None
    return int(value)

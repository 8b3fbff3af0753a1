"""How every sysstat parser reads a year, a number and busy time: one rule each, here.

Not a parser (the leading underscore keeps it out of the registry). Pure functions, no I/O.
iostat (``_sysstat_common``), mpstat, sar and collectl (``_cpu_common``) all read through these,
so the same text never means two things in two tables.

* Years: sysstat prints its banner date with the C library's ``%x`` (``11/21/26`` in the C
  locale) and never reads one back, so a two-digit year is read as the C library reads
  ``%y`` (POSIX ``strptime``): 69-99 are 1969-1999, 00-68 are 2000-2068.
* Numbers: text tokens may use a decimal comma (de_DE and other locales print ``0,50``);
  JSON values may be numbers or numeric strings. nan and inf, which no counter can be, are None.
* Busy time: ``100 - idle - iowait - steal`` (a missing iowait or steal counts as 0), clamped
  to 0..100 to absorb the rounding of printed values, rounded to 6 decimals; None without idle.

>>> year("99"), year("26"), year("2026")
(1999, 2026, 2026)
>>> printed_number("0,50"), json_number("12.5%"), json_number(True)
(0.5, 12.5, None)
>>> busy_pct(98.0, 0.5, None), busy_pct(0.02, 0.0, 0.0), busy_pct(None, 1.0, 1.0)
(1.5, 99.98, None)
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

# POSIX strptime %y: [69, 99] -> 1969..1999, [00, 68] -> 2000..2068.
FIRST_19XX_YEAR = 69


def year(text: str) -> int:
    """A printed year: four digits as they are, two as the C library's ``%y`` reads them."""
    value = int(text)
    if len(text) <= 2:
        value += 1900 if value >= FIRST_19XX_YEAR else 2000
    return value


def printed_number(token: str) -> float | None:
    """A number as sysstat prints it in text, decimal point or comma; nan/inf/junk are None."""
    try:
        value = float(token.replace(",", ".", 1) if "," in token else token)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def json_number(value) -> float | None:
    """A JSON number (or numeric string, ``%`` allowed) as float; bools, nan, inf, junk are None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        f = float(value)
    else:
        try:
            f = float(str(value).strip().rstrip("%"))
        except ValueError:
            return None
    if f != f or f in (float("inf"), float("-inf")):
        return None
    return f


def busy_pct(idle: float | None, iowait: float | None, steal: float | None) -> float | None:
    """``100 - idle - iowait - steal`` clamped to 0..100, 6 decimals; None when idle is unknown."""
    if idle is None:
        return None
    busy = 100.0 - idle - (iowait or 0.0) - (steal or 0.0)
    return round(min(100.0, max(0.0, busy)), 6)


def busy_column(idle: list[float] | None, iowait: list[float] | None, steal: list[float] | None,
                n: int) -> list:
    """:func:`busy_pct` of n rows given as columns (None: the column is not in the rows)."""
    if idle is None:
        return [None] * n
    zeros = [0.0] * n
    busy = [100.0 - i - (w or 0.0) - (s or 0.0) for i, w, s in zip(idle, iowait or zeros, steal or zeros)]
    # min(100.0, max(0.0, b)) spelled as max() and min() decide (nan -> 0.0, -0.0 -> 0.0), without
    # two builtin calls per row: a third of the time on 100,000 rows.
    busy = [b if b > 0.0 else 0.0 for b in busy]
    return [round(b if b < 100.0 else 100.0, 6) for b in busy]


def busy_array(idle: pa.Array | None, iowait: pa.Array | None, steal: pa.Array | None, n: int) -> pa.Array:
    """:func:`busy_column` of Arrow float64 columns (None: not in the rows), computed in C: the
    same subtractions in the same order, the clamp as max() and min() decide, and Python's
    round() applied once per distinct value (it rounds decimally; Arrow's round does not)."""
    if idle is None:
        return pa.nulls(n, pa.float64())
    busy = pc.subtract(100.0, idle)
    for column in (iowait, steal):
        if column is not None:  # x - 0.0 is x, so an absent column is a zero one
            busy = pc.subtract(busy, column)
    busy = pc.if_else(pc.greater(busy, 0.0), busy, 0.0)     # max(0.0, b): nan and -0.0 give 0.0
    busy = pc.if_else(pc.less(busy, 100.0), busy, 100.0)    # min(100.0, b)
    distinct = pc.unique(busy)
    rounded = pa.array([round(b, 6) for b in distinct.to_pylist()], pa.float64())
    return rounded.take(pc.index_in(busy, value_set=distinct))

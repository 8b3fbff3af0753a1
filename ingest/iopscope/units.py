"""Unit conversions shared by parsers. Pure functions; each says which convention it follows."""

from __future__ import annotations

import math
import re

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def fio_size_bytes(text: str | None) -> int | None:
    """Sizes as fio PRINTS them in its output ("4K", "4096B", "64.0KiB", "1MB") to bytes.

    In its output fio formats every size in powers of two, whichever suffix it prints.
    Percentages ("75%"), ranges ("4k-64k") and bssplit lists are not one size: None.
    """
    return _size(text, iec_base=1024)


def fio_option_size_bytes(text: str | None) -> int | None:
    """Sizes as a USER WRITES them in fio options ("bs=8k", "size=16MiB") to bytes.

    fio's default kb_base=1024 is its "compatibility mode": k, m, g (and kb, mb) are powers of
    two, while the IEC spellings kib, mib, gib are powers of TEN (fio's documentation of
    kb_base; checked with fio 3.33: size=16MiB is 16,000,000 bytes).
    """
    return _size(text, iec_base=1000)


def _size(text: str | None, iec_base: int) -> int | None:
    if text is None:
        return None
    m = _SIZE.match(str(text))
    if not m:
        return None
    number, prefix, iec, _ = m.groups()
    base = iec_base if iec else 1024
    return int(round(float(number) * base ** _POW[prefix.lower()]))


def fio_seconds(text: str | None) -> float | None:
    """fio time options ("60", "60s", "5m", "1h", "500ms", "250us") to seconds; bare = seconds."""
    if text is None:
        return None
    m = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*$", str(text), re.I)
    if not m:
        return None
    value, unit = float(m.group(1)), (m.group(2) or "s").lower()
    factor = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1, "sec": 1,
              "m": 60, "min": 60, "h": 3600, "d": 86400}[unit]
    return value * factor


# to_int reads through float: integers smaller than this in size come back exactly, larger
# ones rounded. Fast paths that hand integers on without to_int take only those below it.
EXACT_INT_LIMIT = 2 ** 53


def to_int(value) -> int | None:
    if value is None or value == "":
        return None
    try:
        f = float(value)
    except (TypeError, ValueError, OverflowError):   # OverflowError: an int beyond any float
        return None
    if math.isnan(f) or math.isinf(f):
        return None
    return int(f)


def to_float(value) -> float | None:
    """Numbers or numeric strings to float; nan/inf and junk become None (nulls, not lies)."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        f = float(value)
    except (TypeError, ValueError, OverflowError):   # OverflowError: an int beyond any float
        return None
    if math.isnan(f) or math.isinf(f):
        return None
    return f


def to_bool(value) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    return None

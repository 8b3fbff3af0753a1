"""A small TOML writer for run manifests (the standard library only reads TOML).

Writes scalars first, then tables, then arrays of tables, so the output reads like a
hand-written ``run.toml``. Strings are basic strings with escapes; datetimes are written in UTC
with a ``Z``.

>>> import datetime as dt, tomllib
>>> text = dumps({"run_id": "a", "host": {"cores": 2}, "files": [{"path": "fio.json"}],
...               "started_at": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)})
>>> print(text)
run_id = "a"
started_at = 2026-01-02T03:04:05Z
<BLANKLINE>
[host]
cores = 2
<BLANKLINE>
[[files]]
path = "fio.json"
<BLANKLINE>
>>> tomllib.loads(text)["host"]["cores"]
2
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    return name if _BARE.match(name) else string(name)


def string(value: str) -> str:
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".eE") else text + ".0"
    if isinstance(value, dt.datetime):
        value = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        value = value.astimezone(dt.timezone.utc).replace(microsecond=0)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key(k)} = {scalar(v)}" for k, v in value.items() if v is not None) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _emit(data: dict[str, Any], prefix: str, lines: list[str]) -> None:
    for k, v in data.items():
        if v is None or _is_table(v) or _is_table_array(v):
            continue
        lines.append(f"{key(k)} = {scalar(v)}")
    for k, v in data.items():
        if _is_table(v):
            name = f"{prefix}.{key(k)}" if prefix else key(k)
            if lines:
                lines.append("")
            lines.append(f"[{name}]")
            _emit(v, name, lines)
    for k, v in data.items():
        if _is_table_array(v):
            name = f"{prefix}.{key(k)}" if prefix else key(k)
            for item in v:
                if lines:
                    lines.append("")
                lines.append(f"[[{name}]]")
                _emit(item, name, lines)


def dumps(data: dict[str, Any], header: str | None = None) -> str:
    """TOML text for ``data``; None values are left out. ``header`` becomes leading # comments."""
    lines: list[str] = []
    if header:
        lines.extend(f"# {ln}".rstrip() for ln in header.splitlines())
    body: list[str] = []
    _emit(data, "", body)
    lines.extend(body)
    return "\n".join(lines) + "\n"

"""Run manifests (``run.toml``): what a run folder holds and under which conditions it ran.

The schema is :data:`SCHEMA` below; ``docs/manifest.md`` is its user-facing reference. Every key
is optional except ``run_id``; facts not written stay null. Unknown keys are errors (a typo
must not silently drop a fact), except inside the free-form tables ``[db.parameters]`` and
``[extra]``.

Example::

    schema_version = 1
    run_id = "vm2-fio-database-2026-11-21"
    kind = "measured"
    tools = ["fio", "iostat", "mpstat"]
    started_at = 2026-11-21T13:40:00Z

    [host]
    cpu_model = "AMD EPYC 7B13"
    logical_cpus = 2

    [[devices]]
    kernel_name = "vda"
    role = "data"
    media = "virtual"

    [[files]]
    path = "fio.json"
    format = "fio_json"
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST_NAMES = ("run.toml",)
SCHEMA_VERSION = 1

RUN_KINDS = ("measured", "published", "synthetic")
DEVICE_ROLES = ("data", "log", "data+log", "other")
FILE_ROLES = ("result", "system", "job", "log", "other", "ignore")
STATUSES = ("complete", "incomplete", "interrupted", "failed")


@dataclass
class Problem:
    """One key of a manifest that does not meet the schema; ``line`` is 1-based when known."""

    key: str
    expected: str
    got: Any = None
    line: int | None = None

    def describe(self) -> str:
        got_text = "" if self.got is None else f", got {self.got!r}"
        return f"key '{self.key}': expected {self.expected}{got_text}"


class ManifestError(ValueError):
    """Every problem of one manifest at once (a run.toml with three typos is reported whole, not
    one typo per rerun). ``str()`` is one line per problem: ``path[:line]: key 'k': expected ...``."""

    def __init__(self, path: Path | str, key: str = "", expected: str = "", got: Any = None,
                 problems: list[Problem] | None = None) -> None:
        self.path = str(path)
        self.problems = problems if problems is not None else [Problem(key, expected, got)]
        first = self.problems[0]
        self.key, self.expected = first.key, first.expected
        super().__init__("\n".join(
            f"{self.path}{f':{p.line}' if p.line else ''}: {p.describe()}" for p in self.problems))


# key -> (type name, extra constraint). Types: str, int, float, bool, datetime, list[str],
# one-of:<choices>, table (nested schema), array-of-tables (nested schema), free (any table).
HOST = {
    "host_id": "str", "vendor_model": "str", "cpu_model": "str", "sockets": "int",
    "physical_cores": "int", "logical_cpus": "int", "nominal_ghz": "float", "current_ghz": "float",
    "ram_gib": "float", "os": "str", "kernel": "str", "hostname": "str",
}
DEVICE = {
    "device_id": "str", "kernel_name": "str", "role": ("one-of", DEVICE_ROLES), "vendor": "str",
    "model": "str", "serial": "str", "firmware": "str", "media": "str", "interface": "str",
    "capacity_gb": "float", "rotational": "bool", "scheduler": "str", "filesystem": "str",
    "mountpoint": "str", "count": "int", "layout": "str", "notes": "str",
}
DB = {"server": "str", "version": "str", "config_id": "str", "parameters": "free"}
TPCC = {
    "warehouses": "int", "connections": "int", "buffer_pool_gib": "float", "page_size_kib": "int",
    "ramp_up_s": "int", "measure_s": "int", "report_interval_s": "int", "kit": "str",
}
FIO = {"measurement_area": "str", "profile": "str", "version": "str", "job_options": "free"}
FILE = {"path": "str", "format": "str", "role": ("one-of", FILE_ROLES), "device": "str",
        "description": "str"}
SCHEMA: dict[str, Any] = {
    "schema_version": "int", "run_id": "str", "kind": ("one-of", RUN_KINDS), "tools": "list[str]",
    "started_at": "datetime", "ended_at": "datetime", "status": ("one-of", STATUSES),
    "status_reason": "str", "description": "str", "tags": "list[str]", "study_id": "str",
    "synthetic": "bool", "sysstat_version": "str",
    "host": ("table", HOST), "devices": ("array", DEVICE), "db": ("table", DB),
    "tpcc": ("table", TPCC), "fio": ("table", FIO), "files": ("array", FILE), "extra": "free",
}


@dataclass
class Manifest:
    path: Path
    data: dict[str, Any]
    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.data["run_id"]

    def get(self, *keys: str) -> Any:
        node: Any = self.data
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node


def _check(path: Path, key: str, value: Any, spec: Any) -> Any:
    if isinstance(spec, tuple):
        kind, arg = spec
        if kind == "one-of":
            if value not in arg:
                raise ManifestError(path, key, f"one of {', '.join(arg)}", value)
            return value
        if kind == "table":
            if not isinstance(value, dict):
                raise ManifestError(path, key, "a table", value)
            return _check_table(path, key, value, arg)
        if kind == "array":
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ManifestError(path, key, "an array of tables ([[...]])", value)
            return [_check_table(path, f"{key}[{i}]", v, arg) for i, v in enumerate(value)]
    if spec == "free":
        if not isinstance(value, dict):
            raise ManifestError(path, key, "a table", value)
        return value
    if spec == "str":
        if not isinstance(value, str):
            raise ManifestError(path, key, "a string", value)
        return value
    if spec == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ManifestError(path, key, "an integer", value)
        return value
    if spec == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ManifestError(path, key, "a number", value)
        return float(value)
    if spec == "bool":
        if not isinstance(value, bool):
            raise ManifestError(path, key, "true or false", value)
        return value
    if spec == "datetime":
        if isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        if isinstance(value, dt.date):
            return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
        raise ManifestError(path, key, "a TOML date-time such as 2026-11-21T13:40:00Z", value)
    if spec == "list[str]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ManifestError(path, key, "a list of strings", value)
        return value
    raise AssertionError(spec)


def _check_table(path: Path, prefix: str, data: dict, schema: dict) -> dict:
    """Check every key, collecting every problem before raising (nested tables included)."""
    out = {}
    problems: list[Problem] = []
    for key, value in data.items():
        full = f"{prefix}.{key}" if prefix else key
        try:
            if key not in schema:
                raise ManifestError(path, full, f"one of the known keys ({', '.join(schema)})", None)
            out[key] = _check(path, full, value, schema[key])
        except ManifestError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ManifestError(path, problems=problems)
    return out


def parse_manifest(text: str, path: Path | str = "run.toml") -> Manifest:
    """Validate manifest text. Raises ManifestError naming the file, and for each problem the
    key, its line and what was expected."""
    path = Path(path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"at line (\d+)", str(exc))
        raise ManifestError(path, problems=[Problem("(syntax)", f"valid TOML ({exc})",
                                                    line=int(where.group(1)) if where else None)]) from None
    problems: list[Problem] = []
    try:
        data = _check_table(path, "", raw, SCHEMA)
    except ManifestError as exc:
        problems.extend(exc.problems)
        data = {}
    if not str(raw.get("run_id", "")).strip():
        problems.append(Problem("run_id", "a non-empty string"))
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        problems.append(Problem("schema_version", f"{SCHEMA_VERSION}", version))
    files = {}
    declared = raw.get("files") if isinstance(raw.get("files"), list) else []
    for i, entry in enumerate(declared):
        if not isinstance(entry, dict):
            continue  # reported by _check_table
        if "path" not in entry:
            problems.append(Problem(f"files[{i}].path", "the file's path relative to the manifest"))
        else:
            files[entry["path"]] = entry
    if problems:
        lines = key_lines(text)
        for problem in problems:
            problem.line = problem.line or lines.get(problem.key) or lines.get(problem.key.split(".", 1)[0])
        raise ManifestError(path, problems=problems)
    return Manifest(path=path, data=data, files=files)


_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\]]+?)\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def key_lines(text: str) -> dict[str, int]:
    """Line of each key as error messages name it (``host.cpus``, ``devices[1].role``), found by
    reading table headers and ``key =`` lines (tomllib does not say where a value came from).
    Multi-line strings and arrays can hide or fake a key: a key not found has no line."""
    lines: dict[str, int] = {}
    prefix = ""
    counts: dict[str, int] = {}
    in_multiline = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.count('"""') % 2 or line.count("'''") % 2:
            in_multiline = not in_multiline
            if not in_multiline:
                continue
        elif in_multiline:
            continue
        if m := _ARRAY_HEADER.match(line):
            name = m.group(1).replace(" ", "")
            counts[name] = counts.get(name, -1) + 1
            prefix = f"{name}[{counts[name]}]"
        elif m := _TABLE_HEADER.match(line):
            prefix = m.group(1).replace(" ", "")
        elif m := _KEY.match(line):
            key = m.group(1).replace('"', "").replace("'", "").replace(" ", "")
            lines.setdefault(f"{prefix}.{key}" if prefix else key, number)
            continue
        else:
            continue
        lines.setdefault(prefix, number)
    return lines


def read_manifest(path: Path) -> Manifest:
    with open(path, "rb") as fh:  # read-only, never modified
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(path, "(encoding)", f"UTF-8 text ({exc})") from None
    return parse_manifest(text, path)

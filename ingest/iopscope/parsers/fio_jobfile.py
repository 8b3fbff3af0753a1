"""fio job files (``.fio``, ``.ini``, ``.job``, ``.conf``): the options a run asked for.

Tables written
--------------
``fio_job_options``   one row per option line, in file order: section, option, value as written,
                      value expanded, unresolved variables, inline comment
``fio_jobfile_jobs``  one row per job section with its effective options: every ``[global]``
                      section above it, then its own (later lines win, as in fio), plus the
                      reporting group fio will give it (``stonewall`` / ``new_group``)

Variants handled
----------------
* ``;`` and ``#`` comments, whole-line and inline. Like fio 3.x, the value ends at the first
  ``;`` or ``#`` anywhere on the line (fio --showcmd reads ``filename=/a#b`` as ``/a``); the comment
  text is kept (non-ASCII included) in the ``comment`` column.
* ``key=value``, ``key = value`` and bare flags (``time_based``, ``group_reporting``); several
  ``[global]`` sections (each affects only the jobs below it); options repeated (last one wins);
  ``include file`` directives are recorded, not followed (the parser reads no file).
* ``${VAR}`` substitution and the keywords ``$ncpus``, ``$mb_memory``, ``$pagesize`` (and
  arithmetic on them such as ``$ncpus*2``, or on values that start with ``(``, like
  ``(4*8)+1``). The parser is pure: it never reads the real environment. ``parse(text)``
  leaves every variable unexpanded (listed in ``unresolved``); ``read_jobfile(text, env={...},
  facts={"ncpus": 8, ...})`` substitutes the known ones and evaluates the arithmetic
  (+ - * / % ^) when nothing is left unresolved. The result is a plain number: fio's own
  unit rules for the option (a bare size is bytes) are not applied to it.
* Reporting groups follow fio: a job with ``stonewall`` or ``new_group`` (from its own section or a
  ``[global]`` above it) starts a new group when the current group already has jobs.

Example
-------
>>> r = read_jobfile('''[global]
... rw=randread ; random reads
... bs=${BS}
... iodepth=32
... [db-qd32]
... numjobs=$ncpus*2
... [db-qd1]
... stonewall
... iodepth=1
... ''', env={"BS": "8k"})
>>> [(o["section"], o["option"], o["value_raw"], o["value"]) for o in r.tables["fio_job_options"]][:3]
[('global', 'rw', 'randread', 'randread'), ('global', 'bs', '${BS}', '8k'), ('global', 'iodepth', '32', '32')]
>>> [(j["job_name"], j["group_index"], j["block_size_bytes"], j["iodepth"], j["numjobs"], j["unresolved"])
...  for j in r.tables["fio_jobfile_jobs"]]
[('db-qd32', 0, 8192, 32, None, '$ncpus'), ('db-qd1', 1, 8192, 1, 1, None)]
"""

from __future__ import annotations

import json
import re
from typing import Any

from iopscope.parsers.base import ParseError, ParseResult
from iopscope.units import fio_seconds, fio_option_size_bytes, to_bool, to_float

NAME = "fio_jobfile"
VERSION = "1.0.1"
TOOL = "fio"

KEYWORDS = ("ncpus", "mb_memory", "pagesize")
_EXTENSIONS = (".fio", ".ini", ".job", ".jobs", ".conf", ".cfg")
# Options only fio uses: seeing two of them under [section] lines makes a job file.
_STRONG = {"rw", "readwrite", "ioengine", "iodepth", "bs", "blocksize", "numjobs", "rwmixread",
           "rwmixwrite", "bssplit", "group_reporting", "time_based", "stonewall", "new_group",
           "ramp_time", "iodepth_batch", "randrepeat", "norandommap", "fsync", "write_bw_log",
           "write_lat_log", "write_iops_log", "log_avg_msec", "per_job_logs", "thinktime", "rate_iops",
           "direct", "buffered", "fallocate", "invalidate", "lat_percentiles", "clat_percentiles"}
_WEAK = {"filename", "directory", "size", "runtime", "nrfiles", "filesize", "offset", "loops"}

# --------------------------------------------------------------------------- line matching

_SECTION = re.compile(r"^\[(?P<name>[^\]]*)\]\s*$")
_INCLUDE = re.compile(r"^include\s+(?P<file>\S.*)$")
_OPTION = re.compile(r"^(?P<key>[A-Za-z_][\w\-.]*)\s*(?:=\s*(?P<value>.*?))?\s*$")
_ENV = re.compile(r"\$\{(?P<name>[^}]*)\}")
_KEYWORD = re.compile(r"\$(?P<name>ncpus|mb_memory|pagesize)\b")
_ARITH = re.compile(r"^[\d\s.+\-*/%^()]+$")


def detect(head: str, filename: str) -> float:
    if re.search(r"^.+?: \(g(?:roupid)?=\d+", head, re.M) or '"fio version"' in head:
        return 0.0  # fio's output, not its input
    if filename.lower().endswith((".toml", ".json", ".yaml", ".yml", ".md")):
        return 0.0
    sections = re.findall(r"^\s*\[[^\]\n]+\]\s*(?:[;#].*)?$", head, re.M)
    if not sections:
        return 0.0
    keys = {m.lower() for m in re.findall(r"^\s*([A-Za-z_][\w]*)\s*(?:=|[;#]|$)", head, re.M)}
    strong, weak = keys & _STRONG, keys & _WEAK
    if len(strong) >= 2 or (strong and weak):
        score = 0.8
    elif strong and filename.lower().endswith(_EXTENSIONS):
        score = 0.5
    else:
        return 0.0
    if filename.lower().endswith(".fio"):
        score += 0.1
    return score


# --------------------------------------------------------------------------- expansion


def _evaluate(expr: str) -> float | None:
    """Arithmetic on numbers with + - * / % ^ and parentheses (no eval); None if not well formed."""
    tokens = re.findall(r"\d+\.?\d*|\.\d+|[-+*/%^()]", expr)
    if "".join(tokens) != re.sub(r"\s+", "", expr):
        return None
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom():
        tok = peek()
        if tok == "(":
            take()
            value = add()
            if take() != ")":
                raise ValueError("unbalanced")
            return value
        if tok == "-":
            take()
            return -atom()
        if tok is None or not re.match(r"[\d.]", tok):
            raise ValueError("number expected")
        return float(take())

    def power():
        base = atom()
        if peek() == "^":
            take()
            exponent = power()
            if abs(exponent) > 64:
                raise ValueError("exponent too large")
            return base ** exponent
        return base

    def mul():
        value = power()
        while peek() in ("*", "/", "%"):
            op, rhs = take(), power()
            if op == "*":
                value *= rhs
            elif op == "/":
                value /= rhs
            else:
                value %= rhs
        return value

    def add():
        value = mul()
        while peek() in ("+", "-"):
            value = value + mul() if take() == "+" else value - mul()
        return value

    try:
        value = add()
        if pos != len(tokens):
            return None
        return value
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, RecursionError):
        return None


def _expand(raw: str | None, env: dict[str, str], facts: dict[str, Any]) -> tuple[str | None, list[str]]:
    """(expanded value, unresolved names). Unknown ${VAR} / $keyword stay as written."""
    if raw is None:
        return None, []
    unresolved: list[str] = []

    def env_sub(m: re.Match) -> str:
        if m["name"] in env:
            return str(env[m["name"]])
        unresolved.append("${" + m["name"] + "}")
        return m.group(0)

    def kw_sub(m: re.Match) -> str:
        if facts.get(m["name"]) is not None:
            return str(facts[m["name"]])
        unresolved.append("$" + m["name"])
        return m.group(0)

    had_keyword = bool(_KEYWORD.search(raw))
    value = _KEYWORD.sub(kw_sub, _ENV.sub(env_sub, raw))
    arithmetic = had_keyword or value.startswith("(")  # fio evaluates values that open with '('
    if not unresolved and arithmetic and _ARITH.match(value) and re.search(r"[-+*/%^]", value.strip("()")):
        result = _evaluate(value)
        if result is not None:
            value = str(int(result)) if float(result).is_integer() else repr(result)
    return value, unresolved


# --------------------------------------------------------------------------- parse


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read a job file as ingest does: no variable is known, so none is expanded."""
    return read_jobfile(text)


def read_jobfile(text: str, env: dict[str, str] | None = None, facts: dict[str, Any] | None = None) -> ParseResult:
    """Read a job file. ``env`` / ``facts`` (ncpus, mb_memory, pagesize) are the only known values."""
    env = dict(env or {})
    facts = dict(facts or {})
    result = ParseResult(format=NAME)
    sections: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for ln, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.rstrip("\r").strip()
        if not line or line[0] in ";#":
            continue
        comment = None
        cut = min((i for i in (line.find(";"), line.find("#")) if i >= 0), default=-1)
        if cut >= 0:
            comment = line[cut + 1:].strip() or None
            line = line[:cut].rstrip()
            if not line:
                continue
        m = _SECTION.match(line)
        if m:
            name = m["name"].strip()
            if not name:
                result.warn(ln, "empty section name []")
            current = {"name": name, "line": ln, "is_global": name == "global", "options": []}
            sections.append(current)
            continue
        if current is None:
            result.warn(ln, f"option outside any [section] (fio rejects it): {line[:120]}")
            continue
        m = _INCLUDE.match(line)
        if m:
            current["options"].append((ln, "include", m["file"].strip(), comment))
            result.warn(ln, f"include {m['file'].strip()!r} not followed: its options are not in this file")
            continue
        m = _OPTION.match(line)
        if not m:
            result.warn(ln, f"skipped unreadable line: {line[:120]}")
            continue
        value = m["value"]
        current["options"].append((ln, m["key"], value, comment))
    if not sections:
        raise ParseError("no [section] in the file: not a fio job file")
    if not any(opts for s in sections for opts in s["options"]):
        result.warn(None, "job file has sections but no options")
    _emit(sections, env, facts, result)
    return result


def _emit(sections, env, facts, result: ParseResult) -> None:
    global_opts: dict[str, tuple[str | None, str | None, list[str]]] = {}
    job_index = 0
    group = 0
    group_jobs = 0
    all_unresolved: set[str] = set()
    for section_index, section in enumerate(sections):
        own: dict[str, tuple[str | None, str | None, list[str]]] = {}
        rows = []
        for option_index, (ln, key, raw, comment) in enumerate(section["options"]):
            value, unresolved = _expand(raw, env, facts)
            all_unresolved.update(unresolved)
            own[key] = (raw, value, unresolved)
            rows.append({
                "section_index": section_index, "section": section["name"],
                "is_global": section["is_global"], "option_index": option_index, "line": ln,
                "option": key, "value_raw": raw, "value": value,
                "unresolved": ",".join(dict.fromkeys(unresolved)) or None, "comment": comment,
            })
        if section["is_global"]:
            global_opts.update(own)
            for row in rows:
                row.update(job_index=None, group_index=None)
                result.add("fio_job_options", row)
            continue
        effective = dict(global_opts)
        effective.update(own)
        values = {k: v[1] for k, v in effective.items() if k != "include"}
        numjobs = _int_option(values, "numjobs", default=1)
        if (_flag(values, "stonewall") or _flag(values, "new_group")) and group_jobs:
            group += 1
            group_jobs = 0
        group_jobs += numjobs or 1
        for row in rows:
            row.update(job_index=job_index, group_index=group)
            result.add("fio_job_options", row)
        unresolved = sorted({u for v in effective.values() for u in v[2]})
        result.add("fio_jobfile_jobs", _job_row(job_index, section_index, section, group, values,
                                                numjobs, unresolved))
        job_index += 1
    result.facts["jobs"] = job_index
    result.facts["groups"] = group + 1 if job_index else 0
    if all_unresolved:
        result.facts["unresolved"] = sorted(all_unresolved)


def _flag(values: dict[str, str | None], key: str) -> bool:
    """A bare flag (``stonewall``) or a true value (``stonewall=1``)."""
    if key not in values:
        return False
    value = values[key]
    return value is None or value == "" or to_bool(value) is not False


def _int_option(values: dict, key: str, default: int | None = None) -> int | None:
    if key not in values:
        return default
    value = values[key]
    if value is None or not re.fullmatch(r"\s*\d+\s*", value):
        return None  # unresolved or not a plain number
    return int(value)


def _job_row(job_index, section_index, section, group, values, numjobs, unresolved) -> dict:
    rw = values.get("rw") or values.get("readwrite")
    rw_base = rw.split(":")[0] if rw else "read"  # fio's default rw is read
    iodepth = _int_option(values, "iodepth", default=1)
    bs = values.get("bs") or values.get("blocksize")
    return {
        "job_index": job_index,
        "section_index": section_index,
        "job_name": section["name"],
        "line": section["line"],
        "group_index": group,
        "rw": rw if rw is not None else None,
        "read_pct": _read_pct(rw_base, values),
        "block_size": bs or values.get("bssplit"),
        "block_size_bytes": _block_size(bs, values),
        "ioengine": values.get("ioengine"),
        "iodepth": iodepth,
        "numjobs": numjobs,
        "outstanding_ios": iodepth * numjobs if iodepth is not None and numjobs is not None else None,
        "group_reporting": _flag(values, "group_reporting"),
        "direct": _bool_option(values, "direct"),
        "size": values.get("size"),
        "filename": values.get("filename") or values.get("directory"),
        "time_based": _flag(values, "time_based"),
        "runtime_option_s": fio_seconds(values.get("runtime")),
        "ramp_time_s": fio_seconds(values.get("ramp_time")),
        "stonewall": _flag(values, "stonewall"),
        "new_group": _flag(values, "new_group"),
        "job_options_json": json.dumps(values, sort_keys=True, ensure_ascii=False),
        "unresolved": ",".join(unresolved) or None,
    }


def _bool_option(values: dict, key: str) -> bool | None:
    if key not in values:
        return None
    return True if values[key] in (None, "") else to_bool(values[key])


def _read_pct(rw: str, values: dict) -> float | None:
    if rw in ("read", "randread"):
        return 100.0
    if rw in ("write", "randwrite", "trim", "randtrim", "trimwrite"):
        return 0.0
    if rw in ("rw", "readwrite", "randrw"):
        if "rwmixread" in values:
            return to_float(values["rwmixread"])
        if "rwmixwrite" in values:
            w = to_float(values["rwmixwrite"])
            return None if w is None else 100.0 - w
        return 50.0
    return None  # unresolved (${RW}) or unknown


def _block_size(bs: str | None, values: dict) -> int | None:
    """Read block size in bytes when one size is used (fio's default bs is 4k)."""
    if bs is None:
        return None if values.get("bssplit") or values.get("bsrange") else 4096
    first = bs.split(",")[0]
    return fio_option_size_bytes(first)

"""Compare a ParseResult with an expectation dict (the `.expected.json` files).

Expectation keys (all optional but `format`):
  format        parser NAME that detection must pick
  rejected      substring of the ParseError reason (then nothing else is checked)
  status        complete | incomplete | failed
  status_reason substring of status_reason
  tool_version  exact tool version (null allowed)
  records       {table: exact row count}
  issues        {"error": n, "warning": n} exact counts
  issue_contains  list of substrings that must each appear in some issue reason
  facts         {key: value} subset of result.facts
  rows          list of {"table": t, "index": i, "values": {col: value}}; floats compared
                with a relative tolerance of 1e-6 (or "approx": rel per row)
  absent_text   list of strings that must not appear anywhere in the parsed output
                (e.g. a password printed by the tool)
"""

from __future__ import annotations

import json
import math

from iopscope import parsers
from iopscope.ingest import parse_file


def check(path, expected: dict) -> None:
    if "rejected" in expected:
        try:
            module, result, _ = parse_file(path, fmt=expected.get("force_format"))
        except parsers.ParseError as exc:
            assert expected["rejected"] in exc.reason, f"{path}: rejected for {exc.reason!r}"
            return
        raise AssertionError(f"{path}: expected rejection, parsed as {module.NAME} ({result.status})")
    module, result, _ = parse_file(path, fmt=expected.get("force_format"))
    assert module.NAME == expected["format"], f"{path}: detected {module.NAME}, expected {expected['format']}"
    if "status" in expected:
        assert result.status == expected["status"], f"{path}: status {result.status} ({result.status_reason})"
    if "status_reason" in expected:
        assert expected["status_reason"] in (result.status_reason or ""), result.status_reason
    if "tool_version" in expected:
        assert result.tool_version == expected["tool_version"], result.tool_version
    if "records" in expected:
        got = {t: len(r) for t, r in result.tables.items() if r}
        assert got == expected["records"], f"{path}: records {got}"
    if "issues" in expected:
        got = {"error": 0, "warning": 0}
        for issue in result.issues:
            got[issue.severity] += 1
        assert got == expected["issues"], f"{path}: issues {got}: {[i.reason for i in result.issues][:5]}"
    for text in expected.get("issue_contains", []):
        assert any(text in i.reason for i in result.issues), f"{path}: no issue mentions {text!r}"
    for key, value in expected.get("facts", {}).items():
        assert result.facts.get(key) == value, f"{path}: fact {key} = {result.facts.get(key)!r}"
    for spec in expected.get("rows", []):
        row = result.tables[spec["table"]][spec["index"]]
        for column, value in spec["values"].items():
            _assert_value(path, spec, column, row.get(column), value)
    if expected.get("absent_text"):
        # list(rows): a Columns block must be searched by its values, not its repr
        tables = {name: list(rows) for name, rows in result.tables.items()}
        dump = json.dumps({"tables": tables, "issues": [i.reason for i in result.issues],
                           "facts": result.facts, "reason": result.status_reason}, default=str)
        for text in expected["absent_text"]:
            assert text not in dump, f"{path}: {text!r} leaked into parsed output"


def _assert_value(path, spec, column, got, want) -> None:
    where = f"{path}: {spec['table']}[{spec['index']}].{column}"
    if isinstance(want, float) and isinstance(got, (int, float)):
        rel = spec.get("approx", 1e-6)
        assert math.isclose(got, want, rel_tol=rel, abs_tol=1e-9), f"{where} = {got!r}, expected {want!r}"
    else:
        if hasattr(got, "isoformat"):
            got = got.isoformat()
        assert got == want, f"{where} = {got!r}, expected {want!r}"

"""One test walks every fixture: tests/fixtures/<tool>/<tool>-<version>/<file> + <file>.expected.json."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from expectations import check

CASES = sorted(p for p in FIXTURES.rglob("*.expected.json"))


def _input_for(expectation_path):
    return expectation_path.with_name(expectation_path.name.removesuffix(".expected.json"))


@pytest.mark.parametrize("expectation", CASES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture(expectation):
    source = _input_for(expectation)
    assert source.is_file(), f"{expectation} has no input file {source.name}"
    check(source, json.loads(expectation.read_text()))


def test_every_fixture_has_an_expectation():
    inputs = [p for p in FIXTURES.rglob("*") if p.is_file() and not p.name.endswith(".expected.json")
              and not p.name.startswith(".") and p.suffix != ".md"]
    missing = [str(p.relative_to(FIXTURES)) for p in inputs
               if not p.with_name(p.name + ".expected.json").exists()]
    assert not missing, f"fixtures without .expected.json: {missing}"


def test_fixture_folders_are_named_by_tool_and_version():
    for expectation in CASES:
        tool_dir, version_dir = expectation.relative_to(FIXTURES).parts[:2]
        assert version_dir.startswith(tool_dir + "-") or version_dir in ("handmade", "synthetic-edge-cases"), \
            f"{expectation}: folder {tool_dir}/{version_dir} is not <tool>/<tool>-<version>"

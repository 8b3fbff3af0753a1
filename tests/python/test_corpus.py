"""Conformance over ../shared/corpus: every file listed in its MANIFEST is read as expected.

Expectations live in tests/python/corpus_expectations/<tool>.json as {local_file: expectation}
(same keys as fixture expectations). A corpus file without an expectation fails the test, so a
new corpus file cannot go unread. Skipped when ../shared is absent.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import CORPUS, requires_corpus
from expectations import check

EXPECTATIONS_DIR = Path(__file__).parent / "corpus_expectations"


def _expectations() -> dict:
    merged = {}
    for path in sorted(EXPECTATIONS_DIR.glob("*.json")):
        merged.update(json.loads(path.read_text()))
    return merged


def _manifest_files() -> list[str]:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        return []
    with open(CORPUS / "MANIFEST.tsv", newline="", encoding="utf-8") as fh:
        return [row["local_file"] for row in csv.DictReader(fh, delimiter="\t")]


@requires_corpus()
@pytest.mark.parametrize("local_file", _manifest_files() or ["(no corpus)"])
def test_corpus_file(local_file):
    expectations = _expectations()
    assert local_file in expectations, f"no expectation for corpus file {local_file}"
    check(CORPUS / local_file, expectations[local_file])

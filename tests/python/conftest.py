"""Shared pytest helpers: where fixtures and the shared corpus live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = Path(os.environ.get("IOPSCOPE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


@pytest.fixture
def tmp_lake(tmp_path):
    return tmp_path / "lake"


def requires_corpus():
    return pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(),
                              reason=f"shared corpus not found at {CORPUS}")

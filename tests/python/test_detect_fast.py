"""Fast detection (sniff a small head first) picks the same parser as scoring every parser on
the whole 64 KiB head, for every fixture, corpus file and bundled raw file."""

from __future__ import annotations

import types

import pytest

from conftest import CORPUS, FIXTURES, ROOT
from iopscope import parsers
from iopscope.ingest import read_text
from iopscope.raw_tree import ignored_name


def _files() -> list:
    found = [p for p in FIXTURES.rglob("*") if p.is_file() and not p.name.endswith(".expected.json")
             and not p.name.startswith(".") and p.suffix != ".md"]
    if CORPUS.is_dir():
        found += [p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv"]
    raw = ROOT / "data" / "raw"
    found += [p for p in raw.rglob("*") if p.is_file() and not ignored_name(p.name)]
    return sorted(found)


FILES = _files()


def test_the_walk_sees_files_longer_than_the_sniff():
    assert len(FILES) > 100
    assert any(p.stat().st_size > 4 * parsers.SNIFF_BYTES for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_fast_detection_picks_what_exhaustive_detection_picks(path):
    head = read_text(path)[0][: parsers.HEAD_BYTES]
    exhaustive = parsers.detect(head, path.name, exhaustive=True)
    assert parsers.detect(head, path.name) == exhaustive
    tool = getattr(exhaustive[0], "TOOL", None)
    if tool:
        assert parsers.detect(head, path.name, tool) == parsers.detect(head, path.name, tool, exhaustive=True)


def _fake(name: str, detect) -> types.ModuleType:
    module = types.ModuleType(name)
    module.NAME, module.detect = name, detect
    return module


def test_a_winner_on_the_sniff_only_is_not_taken(monkeypatch):
    """A parser that is sure about the first KiB but not about the whole head does not win
    early: the whole head decides, as exhaustive detection would."""
    fooled = _fake("fooled", lambda head, name: 0.95 if len(head) <= parsers.SNIFF_BYTES else 0.1)
    steady = _fake("steady", lambda head, name: 0.5)
    monkeypatch.setattr(parsers, "PARSERS", {"fooled": fooled, "steady": steady})
    head = "x" * (parsers.SNIFF_BYTES * 2)
    assert parsers.detect(head, "f") == (steady, 0.5) == parsers.detect(head, "f", exhaustive=True)
    assert parsers.detect(head[:100], "f") == (fooled, 0.95)


def test_a_crashing_detector_scores_zero(monkeypatch):
    def boom(head, name):
        raise RuntimeError("detector bug")

    steady = _fake("steady", lambda head, name: 0.92)
    monkeypatch.setattr(parsers, "PARSERS", {"boom": _fake("boom", boom), "steady": steady})
    assert parsers.detect("y" * 10_000, "f") == (steady, 0.92)

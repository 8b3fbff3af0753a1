"""A short, seeded run of the mutation fuzzer of the parsers (tests/tools/fuzz_parsers.py).

Each format's real files are mutated a few hundred times: no parser may crash, and a fast path
must read what its line-by-line reader reads. The long runs are done by hand (see the tool's
docstring); this keeps the tool working and catches a parser that breaks on ordinary edits.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from iopscope import parsers
from iopscope.parsers.base import fast_readers_on

TOOL = Path(__file__).resolve().parents[1] / "tools" / "fuzz_parsers.py"
_spec = importlib.util.spec_from_file_location("fuzz_parsers", TOOL)
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

CASES_PER_FORMAT = 300


@pytest.mark.parametrize("fmt", fuzz.FORMATS)
def test_no_crash_and_paths_agree_on_mutated_files(fmt):
    found = list(fuzz.findings(fmt, seed=2026, cases=CASES_PER_FORMAT))
    assert not found, f"{len(found)} finding(s); first, from {found[0][0]}: {found[0][2]}"


def test_mutations_change_the_text_and_keep_it_text():
    rng = random.Random(1)
    base = "Linux 6.1.0 (host)\n\nhdr a b c\nrow 1.00 2.00 3.00\nrow 4.00 5.00 6.00\n"
    variants = [fuzz.mutate(rng, base) for _ in range(200)]
    assert sum(v != base for v in variants) > 150
    assert all(isinstance(v, str) for v in variants)


def test_every_parser_is_fuzzed_and_fast_paths_are_compared():
    assert set(fuzz.FORMATS) == set(parsers.PARSERS), "a parser the fuzzer does not know"
    assert fuzz.has_fast_path(fuzz.get("iostat_text")) and not fuzz.has_fast_path(fuzz.get("tpcc_mysql"))
    for fmt in fuzz.FORMATS:
        assert fuzz.seed_texts(fmt), f"{fmt}: no file to mutate"


def test_a_crash_is_a_finding(monkeypatch):
    # The fuzzer must report an exception that is not a ParseError, not swallow it.
    module = fuzz.get("sar_cpu")
    real = module.parse

    def crashing(text, *, filename=None):
        if fast_readers_on():
            raise OverflowError("planted")
        return real(text, filename=filename)

    monkeypatch.setattr(module, "parse", crashing)
    found = list(fuzz.findings("sar_cpu", seed=1, cases=3))
    assert len(found) == 3 and all("OverflowError('planted')" in what for _, _, what in found)

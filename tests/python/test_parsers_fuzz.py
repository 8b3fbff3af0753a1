"""Property tests over every registered parser: no input may crash a parser.

A parser either returns a ParseResult whose tables conform to the lake schema, or raises
ParseError. Inputs: arbitrary text, and real fixtures cut, shuffled and corrupted at random.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES
from iopscope import lake, parsers, tables

PARSER_NAMES = sorted(parsers.PARSERS)


def _is_seed(path) -> bool:
    return path.is_file() and not path.name.endswith((".expected.json", ".md"))


# Fixtures plus the shared corpus (when present): real-world shapes to mutate.
SEED_TEXTS = [p.read_text(encoding="utf-8", errors="replace")[:20000]
              for p in sorted(FIXTURES.rglob("*")) + sorted(CORPUS.rglob("*")) if _is_seed(p)][:300]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.data_too_large])


def _run(name: str, text: str) -> None:
    module = parsers.PARSERS[name]
    try:
        result = module.parse(text)
    except parsers.ParseError as exc:
        assert exc.reason, "a ParseError must say why"
        return
    assert isinstance(result, parsers.ParseResult)
    assert result.status in ("complete", "incomplete", "failed")
    for table_name, records in result.tables.items():
        lake.conform(tables.get(table_name), records)  # types fit the declared schema
    # detect() must never raise either
    module.detect(text[:4096], "fuzz.txt")


@pytest.mark.parametrize("name", PARSER_NAMES)
@FUZZ
@given(text=st.text(max_size=2000))
def test_arbitrary_text(name, text):
    _run(name, text)


@pytest.mark.parametrize("name", PARSER_NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_fixtures(name, data):
    if not SEED_TEXTS:
        pytest.skip("no fixtures")
    text = data.draw(st.sampled_from(SEED_TEXTS))
    lines = text.splitlines(keepends=True)
    op = data.draw(st.sampled_from(["cut", "drop_lines", "swap_lines", "garble", "dup"]))
    if op == "cut" and text:
        text = text[: data.draw(st.integers(0, len(text)))]
    elif op == "drop_lines" and lines:
        drop = set(data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=5)))
        text = "".join(ln for i, ln in enumerate(lines) if i not in drop)
    elif op == "swap_lines" and len(lines) > 1:
        i, j = data.draw(st.integers(0, len(lines) - 1)), data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        text = "".join(lines)
    elif op == "garble" and text:
        pos = data.draw(st.integers(0, len(text) - 1))
        junk = data.draw(st.text(min_size=1, max_size=8))
        text = text[:pos] + junk + text[pos + 1:]
    elif op == "dup" and lines:
        i = data.draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
        text = "".join(lines)
    _run(name, text)

"""The recipe for a format, enforced: every registered parser has what docs/architecture.md
("A source format") lists, and nothing else is needed for ingest to read it.

Per parser: the contract (NAME, VERSION, TOOL, detect, ``parse(text, *, filename=None)``); a
docstring example that runs; fixtures in ``tests/fixtures/<tool>/<tool>-<version>/`` whose
expectations name it; fuzz seeds; a row in docs/formats.md; a benchmark entry (a generator
and a place in bench/run.py's format list); its tables declared in ``tables/``, in the dbt
sources and with a staging model.

``KNOWN_GAPS`` lists what older parsers still lack, each with its reason; a gap that is
closed must leave the list (so it only shrinks), and a new parser cannot be added to it
without someone writing down why.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import json
import re
from functools import lru_cache

import pytest

from conftest import FIXTURES, ROOT
from iopscope import parsers, tables
from iopscope.parsers import _template
from iopscope.synth.generate import format_file

FUZZ_TOOL = ROOT / "tests" / "tools" / "fuzz_parsers.py"
FORMATS_DOC = ROOT / "docs" / "formats.md"
BENCH = ROOT / "bench" / "run.py"
STAGING = ROOT / "models" / "staging"
SOURCES = STAGING / "_lake__sources.yml"

# (parser, step) -> why it is missing. Closing a gap means removing its line here.
KNOWN_GAPS = {
    ("fio_jobfile", "benchmark"): "no synthetic generator: job files are a few hundred bytes",
    ("fio_text", "benchmark"): "no synthetic generator of fio's normal output yet",
    ("go_tpc", "benchmark"): "no synthetic generator of go-tpc output yet",
    ("published_reference", "benchmark"): "hand transcriptions, kilobytes: nothing to time",
    ("fio_jobfile", "staging"): "fio_job_options and fio_jobfile_jobs have no staging model yet",
    ("fio_json", "staging"): "fio_disk_util has no staging model yet",
    ("fio_terse", "staging"): "fio_disk_util has no staging model yet",
    ("fio_text", "staging"): "fio_disk_util and fio_run_status_groups have no staging model yet",
    ("fio_histogram_log", "staging"): "fio_histogram_log_samples has no staging model yet",
}
STEPS = ("contract", "example", "fixtures", "fuzz", "docs", "benchmark", "tables", "staging")
NAMES = sorted(parsers.PARSERS)


@lru_cache(maxsize=1)
def _fuzz():
    spec = importlib.util.spec_from_file_location("fuzz_parsers", FUZZ_TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=1)
def _fixtures() -> dict[str, list]:
    """parser name -> [(fixture path, its expectation)] from every .expected.json."""
    found: dict[str, list] = {}
    for expectation in sorted(FIXTURES.rglob("*.expected.json")):
        data = json.loads(expectation.read_text(encoding="utf-8"))
        source = expectation.with_name(expectation.name.removesuffix(".expected.json"))
        found.setdefault(data.get("format"), []).append((source, data))
    return found


@lru_cache(maxsize=1)
def _bench_formats() -> set[str]:
    """The formats bench/run.py times (its TEXT_FORMATS and JSON_FORMATS, imported)."""
    spec = importlib.util.spec_from_file_location("bench_run", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.TEXT_FORMATS) | set(module.JSON_FORMATS)


def _tables_written(name: str) -> set[str]:
    """Tables the parser fills from its fixtures."""
    module = parsers.PARSERS[name]
    written: set[str] = set()
    for source, expected in _fixtures().get(name, []):
        if "rejected" in expected:
            continue
        written.update(module.parse(source.read_text(encoding="utf-8", errors="replace"),
                                    filename=source.name).tables)
    return written


def check_contract(module) -> str | None:
    for attr in ("NAME", "VERSION", "TOOL"):
        if not isinstance(getattr(module, attr, None), str):
            return f"no string {attr}"
    if not callable(getattr(module, "detect", None)):
        return "no detect(head, filename)"
    params = list(inspect.signature(module.parse).parameters.values())
    shape = [(p.name, p.kind, p.default) for p in params]
    want = [("text", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
            ("filename", inspect.Parameter.KEYWORD_ONLY, None)]
    if shape != want:
        return f"parse{inspect.signature(module.parse)} is not parse(text, *, filename=None)"
    return None


def check_example(module) -> str | None:
    if ">>>" not in (module.__doc__ or ""):
        return "the module docstring has no >>> example"
    failed, attempted = doctest.testmod(module, report=False)
    if failed:
        return f"{failed} of {attempted} docstring examples fail (python -m doctest -v)"
    return None


def check_fixtures(module) -> str | None:
    tool = module.TOOL
    versioned = [src for src, _ in _fixtures().get(module.NAME, [])
                 if src.relative_to(FIXTURES).parts[:1] == (tool,)
                 and src.relative_to(FIXTURES).parts[1].startswith(f"{tool}-")]
    if not versioned:
        return (f"no fixture in tests/fixtures/{tool}/{tool}-<version>/ whose .expected.json "
                f"has \"format\": \"{module.NAME}\"")
    return None


def check_fuzz(module) -> str | None:
    fuzz = _fuzz()
    if module.NAME not in fuzz.FORMATS or not fuzz.seed_texts(module.NAME):
        return "the fuzzer has no file to mutate (fixtures_of finds none)"
    return None


def check_docs(module) -> str | None:
    if not re.search(rf"^\| `{re.escape(module.NAME)}` \| {re.escape(module.TOOL)} \|",
                     FORMATS_DOC.read_text(encoding="utf-8"), re.M):
        return f"no row '| `{module.NAME}` | {module.TOOL} | ...' in docs/formats.md"
    return None


def check_benchmark(module) -> str | None:
    if module.NAME not in _bench_formats():
        return ("not in bench/run.py's formats: they are found by the generator's file name, "
                f"ingest/iopscope/synth/big_{module.NAME}.py")
    try:
        _, text = format_file(module.NAME, 20_000, seed=1)
    except (KeyError, ValueError):
        return f"no generator iopscope/synth/big_{module.NAME}.py (big_file(target_bytes, seed))"
    if not text:
        return "the generator wrote nothing"
    return None


def check_tables(module) -> str | None:
    written = _tables_written(module.NAME)
    undeclared = sorted(written - set(tables.ALL))
    if undeclared:
        return f"tables not declared in ingest/iopscope/tables/: {undeclared}"
    sources = SOURCES.read_text(encoding="utf-8")
    missing = sorted(t for t in written if not re.search(rf"^\s+- name: {t}$", sources, re.M))
    if missing:
        return f"not in {SOURCES.relative_to(ROOT)} (run python -m iopscope.dbt_sources): {missing}"
    return None


def check_staging(module) -> str | None:
    missing = sorted(t for t in _tables_written(module.NAME)
                     if not (STAGING / f"stg_lake__{t}.sql").is_file() or not (STAGING / f"stg_lake__{t}.yml").is_file())
    if missing:
        return f"no models/staging/stg_lake__<table>.sql and .yml for {missing}"
    return None


CHECKS = {step: globals()[f"check_{step}"] for step in STEPS}


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("name", NAMES)
def test_parser_has_every_step_of_the_recipe(name, step):
    problem = CHECKS[step](parsers.PARSERS[name])
    gap = KNOWN_GAPS.get((name, step))
    if gap is not None:
        assert problem is not None, f"{name}: {step} is done now: remove it from KNOWN_GAPS"
        pytest.xfail(f"{name} {step}: {gap} ({problem})")
    assert problem is None, f"{name}: {step}: {problem}"


def test_known_gaps_name_real_parsers_and_steps():
    assert {n for n, _ in KNOWN_GAPS} <= set(NAMES) and {s for _, s in KNOWN_GAPS} <= set(STEPS)


def test_the_template_meets_the_contract_and_its_example_runs():
    assert check_contract(_template) is None
    assert check_example(_template) is None
    assert _template.NAME not in parsers.PARSERS   # the underscore keeps it out of the registry


def test_the_checks_catch_a_parser_missing_each_step():
    """Each check fails on a parser that lacks its step (the template is such a parser: its
    signature and example are right, everything else is missing)."""
    assert check_fixtures(_template) and check_fuzz(_template) and check_docs(_template)
    assert check_benchmark(_template)

    def old_style(text):  # the signature ingest used to inspect
        return None
    fake = type("Fake", (), {"NAME": "x", "VERSION": "1", "TOOL": "t", "detect": staticmethod(lambda h, f: 0.0),
                             "parse": staticmethod(old_style), "__doc__": "no example"})
    assert "is not parse(text, *, filename=None)" in check_contract(fake)
    assert "no >>> example" in check_example(fake)


def test_the_architecture_checklist_is_the_registry_test():
    """docs/architecture.md "A source format" names each step this test checks, in order."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("### A source format", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    listed = re.findall(r"^\d+\. \*\*(\w+)\*\*", section, re.M)
    assert listed == list(STEPS), listed

"""Mutation fuzzer of the parsers: edit real files at random; nothing may crash, and a
parser's fast path must read exactly what its line-by-line reader reads.

The tool takes the fixtures and corpus files of a format (plus a synthetic capture where the
format has a generator), applies a few random line-level edits (a line repeated, dropped,
swapped, emptied or cut; a field replaced by an odd number such as ``nan``, ``1e5`` or a 20-digit
integer; a number grown by digits; a character deleted or inserted), now and then the whole text
(CRLF line ends, decimal commas, a byte-order mark, a block of lines repeated or dropped), cuts
the text at random one time in five, and requires:

* parse() raises nothing but ParseError;
* for a parser with a fast (column-wise) path, ``parse(text)`` and ``read_by_reference(module, text)``
  (the line-by-line reader, the reference) give the same status, issues, facts and rows, value
  for value.

Edits of real files reach the deep branches that random text (the hypothesis tests in
test_parsers_fuzz.py) rarely does: its first runs found six crashes (collectl times past 2255
and a NumCPUs past int64 on the fast path, ``TZ: +2600``; a tab in a damaged mpstat JSON string,
a stamp ``13:-26:08`` read as zone -26:08; ``usr=6.50.`` in fio text).

A finding is written to ``--out`` (the mutated text) and printed. The pytest smoke run
(``tests/python/test_fuzz_parsers.py``) does a few hundred cases per format with a fixed seed;
run it longer by hand after changing a parser::

    .venv/bin/python tests/tools/fuzz_parsers.py collectl_plot fio_text --seconds 120
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))

from conftest import CORPUS, FIXTURES  # noqa: E402
from test_sysstat_fast import _outcome  # noqa: E402  (the comparison every fast-path test uses)

from iopscope.parsers import PARSERS, ParseError, get  # noqa: E402
from iopscope.parsers.base import read_by_reference  # noqa: E402
from iopscope.synth.generate import format_file  # noqa: E402

# Fixture folders and file-name patterns of the first formats. A format not listed here is
# seeded with every fixture whose .expected.json names it (fixtures_of): nothing to add here.
SEEDS = {
    "iostat_text": [("iostat", "*.txt")],
    "iostat_json": [("iostat", "*.json")],
    "mpstat_text": [("mpstat", "*.txt")],
    "mpstat_json": [("mpstat", "*.json")],
    "sar_cpu": [("sar", "*.txt")],
    "collectl_plot": [("collectl", "*")],
    "fio_terse": [("fio", "*terse*"), ("fio", "*minimal*")],
    "fio_histogram_log": [("fio", "*hist*")],
    "fio_json": [("fio", "*.json")],
    "fio_text": [("fio", "*.txt")],
    "fio_log": [("fio", "*.log")],
    "fio_jobfile": [("fio", "*.fio"), ("fio", "*.job")],
    "tpcc_mysql": [("tpcc-mysql", "*")],
    "go_tpc": [("go-tpc", "*.txt")],
    "diskspd_xml": [("diskspd", "*.xml")],
    "diskspd_text": [("diskspd", "*.txt")],
    "sysbench": [("sysbench", "*.txt")],
    "iometer": [("iometer", "*.csv")],
    "hammerdb": [("hammerdb", "*.log"), ("hammerdb", "*.txt"), ("hammerdb", "*.json")],
    "published_reference": [(ROOT / "data" / "raw" / "published", "*.csv")],  # (absolute: no fixtures)
}
FORMATS = sorted(PARSERS)
ODD_VALUES = ["0", "0.00", "-1", "nan", "inf", "-0.00", "100.01", "1e5", "12,5",
              "99999999999999999999", "", "x", "1.", ".5", "+3"]
INSERTED = " \t0.9-:,;aA\u00a0"
MAX_CORPUS_BYTES = 2_000_000


def fixtures_of(fmt: str) -> list[Path]:
    """Every fixture whose expectation names the format (``"format"``), sorted."""
    found = []
    for expectation in sorted(FIXTURES.rglob("*.expected.json")):
        if json.loads(expectation.read_text(encoding="utf-8")).get("format") == fmt:
            found.append(expectation.with_name(expectation.name.removesuffix(".expected.json")))
    return found


def seed_texts(fmt: str) -> list[tuple[str, str]]:
    """(name, text) of every fixture of the format, every corpus file its parser reads, and a
    small synthetic capture where the format has a generator."""
    module = get(fmt)
    texts = []
    if fmt in SEEDS:
        paths = [path for folder, pattern in SEEDS[fmt]
                 for path in sorted((FIXTURES / folder).rglob(pattern))]  # an absolute folder replaces FIXTURES
    else:
        paths = fixtures_of(fmt)
    for path in paths:
        if path.is_file() and not path.name.endswith((".expected.json", ".md")):
            texts.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8", errors="replace")))
    if CORPUS.is_dir():
        for path in sorted(CORPUS.rglob("*")):
            if not path.is_file() or path.name.endswith(".md") or path.stat().st_size > MAX_CORPUS_BYTES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
                read_by_reference(module, text)
            except (UnicodeDecodeError, ParseError):
                continue
            except Exception:  # noqa: BLE001 - a crash of the reference is a finding of its own
                pass
            texts.append((f"corpus/{path.relative_to(CORPUS)}", text))
    try:
        texts.append(("synthetic", format_file(fmt, 30_000, seed=7)[1]))
    except (KeyError, ValueError):
        pass  # no generator for this format
    return texts


def has_fast_path(module) -> bool:
    return getattr(module, "HAS_FAST_PATH", False)


def mutate(rng: random.Random, text: str) -> str:
    """One to three line-level edits, now and then a whole-text one (CRLF line ends, decimal
    commas, a byte-order mark, a block of lines repeated or dropped), and a cut at a random
    offset one time in five."""
    if rng.random() < 0.15:
        text = _whole_text_edit(rng, text)
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        line = lines[i]
        edit = rng.randrange(11)
        if edit == 0:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif edit == 1:
            del lines[i]
        elif edit == 2:
            lines.insert(i, "")
        elif edit == 3 and line:
            semicolons = ";" in line
            tokens = line.replace(";", " ; ").split(" ") if semicolons else line.split(" ")
            j = rng.randrange(len(tokens))
            if tokens[j]:
                tokens[j] = rng.choice(ODD_VALUES)
            lines[i] = " ".join(tokens).replace(" ; ", ";") if semicolons else " ".join(tokens)
        elif edit == 4 and line:
            j = rng.randrange(len(line))
            lines[i] = line[:j] + line[j + 1:]
        elif edit == 5 and line:
            j = rng.randrange(len(line))
            lines[i] = line[:j] + rng.choice(INSERTED) + line[j:]
        elif edit == 6:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif edit == 7:
            lines[i] = line.replace(":", "", 1) if rng.random() < 0.5 else line.upper()
        elif edit == 8:
            del lines[i:]
        elif edit == 9 and line:
            lines[i] = line + rng.choice([" ", "  1.00", " extra", "\r"])
        elif edit == 10 and line:
            # a number grown by a digit or two (a wider column, an overflow)
            digits = [k for k, c in enumerate(line) if c.isdigit()]
            if digits:
                k = rng.choice(digits)
                lines[i] = line[:k] + rng.choice(["9", "99", "0", "12345678901"]) + line[k:]
    out = "\n".join(lines)
    if rng.random() < 0.2:
        out = out[:rng.randrange(len(out) + 1)]
    return out


def _whole_text_edit(rng: random.Random, text: str) -> str:
    edit = rng.randrange(4)
    if edit == 0:
        return text.replace("\n", "\r\n")
    if edit == 1:
        return text.replace(".", ",")
    if edit == 2:
        return "\ufeff" + text
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.randint(2, 40))
    return "\n".join(lines[:j] + lines[i:j] + lines[j:] if rng.random() < 0.5 else lines[:i] + lines[j:])


def findings(fmt: str, *, seed: int = 0, cases: int | None = None,
             seconds: float | None = None) -> Iterator[tuple[str, str, str]]:
    """(seed name, mutated text, what went wrong) for each case where the paths crash or differ;
    stops after ``cases`` cases or ``seconds`` seconds, whichever is given."""
    module = get(fmt)
    differential = has_fast_path(module)
    texts = seed_texts(fmt)
    rng = random.Random(f"{fmt}/{seed}")
    deadline = time.monotonic() + seconds if seconds is not None else None
    done = 0
    while (cases is None or done < cases) and (deadline is None or time.monotonic() < deadline):
        name, base = rng.choice(texts)
        text = mutate(rng, base)
        done += 1
        outcomes = []
        for fast in ((True, False) if differential else (None,)):
            try:
                outcomes.append(_outcome(module, text, fast) if differential else _crash_only(module, text))
            except Exception as exc:  # noqa: BLE001 - anything but ParseError is a finding
                path = {True: "the fast path", False: "the line-by-line path", None: "parse()"}[fast]
                yield name, text, f"{path} raised {exc!r}\n{traceback.format_exc(limit=4)}"
                break
        else:
            if differential and outcomes[0] != outcomes[1]:
                yield name, text, _first_difference(*outcomes)


def _crash_only(module, text: str) -> None:
    try:
        module.parse(text)
    except ParseError:
        pass


def _first_difference(fast, slow) -> str:
    labels = ("status", "status_reason", "tool_version", "facts", "issues", "tables")
    if not (isinstance(fast, tuple) and isinstance(slow, tuple)) or len(fast) != len(slow):
        return f"paths differ: fast {str(fast)[:300]} | line-by-line {str(slow)[:300]}"
    for label, a, b in zip(labels, fast, slow):
        if a != b:
            return f"paths differ in {label}: fast {str(a)[:300]} | line-by-line {str(b)[:300]}"
    return "paths differ"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("formats", nargs="*", default=FORMATS, help=f"default: all of {', '.join(FORMATS)}")
    parser.add_argument("--seconds", type=float, default=60.0, help="per format (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/iopscope-fuzz"), help="where findings are written")
    args = parser.parse_args(argv)
    total = 0
    for fmt in args.formats:
        count = 0
        for count, (name, text, what) in enumerate(findings(fmt, seed=args.seed, seconds=args.seconds), 1):
            args.out.mkdir(parents=True, exist_ok=True)
            saved = args.out / f"{fmt}-{args.seed}-{count}.txt"
            saved.write_text(text, encoding="utf-8")
            print(f"{fmt}: from {name}: {what.splitlines()[0]} (text: {saved})", flush=True)
        print(f"{fmt}: {count} finding(s) in {args.seconds:g} s", flush=True)
        total += count
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

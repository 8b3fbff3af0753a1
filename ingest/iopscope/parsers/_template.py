"""Template of a parser: copy this file to ``<name>.py`` and replace the example format.

The example reads a made-up ``qdsweep`` output, one ``qd=<n> iops=<x>`` line per queue
depth, into rows of a table ``example_qd_samples``. The leading underscore keeps this file
out of the registry; ``tests/python/test_parser_registry.py`` checks that it still meets
the contract and that its example runs, so the template never drifts from the real parsers.

The steps that bring a format to staging are in ``docs/architecture.md`` ("A source format");
the registry test checks each of them for every registered parser.

What a parser's docstring says (the real parsers follow this order): the format and the
versions of the tool it was checked against; the tables written and their columns' meaning;
the variants handled (cut files, locales, old versions) and how each is reported; an example.

Example
-------
>>> r = parse("qdsweep 1.2\\nqd=1 iops=12000.5\\nqd=32 iops=410000\\n")
>>> r.tool_version, [(row["queue_depth"], row["iops"], row["line"]) for row in r.tables["example_qd_samples"]]
('1.2', [(1, 12000.5, 2), (32, 410000.0, 3)])
>>> r = parse("qdsweep 1.2\\nqd=1 iops=12000.5\\nqd=32 io")   # cut short: rows kept, status says so
>>> r.status, len(r.tables["example_qd_samples"]), r.issues[0].reason
('incomplete', 1, 'line cut short: qd=32 io')
"""

from __future__ import annotations

import re

from iopscope.parsers.base import ParseError, ParseResult

NAME = "example_qdsweep"   # unique; what --format and manifests name
VERSION = "1.0.0"          # bump when the rows change: ingest re-reads every file of the format
TOOL = "qdsweep"           # fixtures live in tests/fixtures/<TOOL>/<TOOL>-<version>/
# HAS_FAST_PATH = True     # only with a fast reader in front of the reference one (base.fastest_reading)

_BANNER = re.compile(r"^qdsweep (\S+)$")
_ROW = re.compile(r"^qd=(\d+) iops=(\d+(?:\.\d+)?)$")


def detect(head: str, filename: str) -> float:
    """Confidence 0..1 from the first 64 KiB: 0.9 and more only for what nothing else prints."""
    return 0.95 if _BANNER.match(head.split("\n", 1)[0].rstrip("\r")) else 0.0


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Pure: no I/O. ParseError only when nothing at all can be read (with the line)."""
    result = ParseResult(format=NAME)
    lines = text.split("\n")
    banner = _BANNER.match(lines[0].rstrip("\r"))
    if banner is None:
        raise ParseError("no 'qdsweep <version>' banner", 1)
    result.tool_version = banner.group(1)
    for number, line in enumerate(lines[1:], 2):
        line = line.rstrip("\r")
        if not line:
            continue
        m = _ROW.match(line)
        if m:
            result.add("example_qd_samples", {"queue_depth": int(m.group(1)), "iops": float(m.group(2)),
                                              "line": number})
        elif number == len(lines):   # the last line, without its newline: the output was cut
            result.status = "incomplete"
            result.warn(number, f"line cut short: {line[:120]}")
        else:
            result.warn(number, f"not a qd=<n> iops=<x> line: skipped: {line[:120]}")
    return result

"""Parser registry: every module in this package that defines ``NAME`` and ``parse``.

Adding a format = adding one module here (see ``base.py`` for the contract) plus its
fixtures under ``tests/fixtures/<tool>/<tool>-<version>/``. Nothing else registers it.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from iopscope.parsers.base import Issue, ParseError, ParseResult  # noqa: F401

HEAD_BYTES = 64 * 1024


def _discover() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "parse"):
            if module.NAME in found:
                raise RuntimeError(f"two parsers are named {module.NAME}")
            found[module.NAME] = module
    return found


PARSERS: dict[str, ModuleType] = _discover()


def get(name: str) -> ModuleType:
    if name in PARSERS:
        return PARSERS[name]
    # Accept a tool name when exactly one parser reads that tool ("--tool iostat").
    by_tool = [m for m in PARSERS.values() if getattr(m, "TOOL", None) == name]
    if len(by_tool) == 1:
        return by_tool[0]
    raise KeyError(f"no parser named {name!r}; known: {', '.join(sorted(PARSERS))}")


# Detection first scores every parser on this much of the head: a regular expression that does
# not match scans all it is given, and most files are decided by their first lines.
SNIFF_BYTES = 4 * 1024
# A parser that scores at least this on the sniff, and the same on the whole head, wins at once.
EARLY_ACCEPT = 0.9


def detect(head: str, filename: str, tool: str | None = None,
           exhaustive: bool = False) -> tuple[ModuleType | None, float]:
    """Pick the parser most confident about ``head``; ``tool`` narrows the candidates.

    Every parser scores the first :data:`SNIFF_BYTES` first; a clear winner there (score >=
    :data:`EARLY_ACCEPT`) that scores the same on the whole head is taken without running the
    other detectors over the whole head (~16x less text to scan for those that find nothing).
    Otherwise, or with ``exhaustive=True``, every parser scores the whole head. A test walks
    every fixture and corpus file and checks both ways pick the same parser."""
    if not exhaustive and len(head) > SNIFF_BYTES:
        module, score = _best(head[:SNIFF_BYTES], filename, tool)
        if module is not None and score >= EARLY_ACCEPT and _score(module, head, filename) == score:
            return module, score
    return _best(head, filename, tool)


def _best(head: str, filename: str, tool: str | None) -> tuple[ModuleType | None, float]:
    best, best_score = None, 0.0
    for module in PARSERS.values():
        if tool and tool not in (module.NAME, getattr(module, "TOOL", None)):
            continue
        score = _score(module, head, filename)
        if score > best_score:
            best, best_score = module, score
    return best, best_score


def _score(module: ModuleType, head: str, filename: str) -> float:
    try:
        return float(module.detect(head, filename))
    except Exception:  # a detector must never stop detection of the others
        return 0.0

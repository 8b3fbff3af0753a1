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


def detect(head: str, filename: str, tool: str | None = None) -> tuple[ModuleType | None, float]:
    """Pick the parser most confident about ``head``; ``tool`` narrows the candidates."""
    best, best_score = None, 0.0
    for module in PARSERS.values():
        if tool and tool not in (module.NAME, getattr(module, "TOOL", None)):
            continue
        try:
            score = float(module.detect(head, filename))
        except Exception:  # a detector must never stop detection of the others
            score = 0.0
        if score > best_score:
            best, best_score = module, score
    return best, best_score

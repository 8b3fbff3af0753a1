"""Where a signal handler's exception can get lost, and how to notice.

A Python signal handler runs in the main thread between two bytecodes, wherever those are. An
exception it raises normally unwinds from there, so ``finally`` blocks run; but it is lost or
mangled in two kinds of place, both met in this project's tests:

* inside the import machinery: in a module lock's weakref callback Python prints "Exception
  ignored" and goes on; in an extension module's init, C code may clear it; in a dataclass's
  ``__set_name__`` it comes back as a RuntimeError caused by it;
* inside any ``__del__`` or weakref callback: Python hands it to ``sys.unraisablehook``.

A handler therefore asks :func:`inside_an_import` before raising, and :func:`catching_dropped`
routes exceptions Python would drop to a callback. What the fallback is belongs to the caller:
the CLI ends the process as SIGKILL would (every writer survives that); a capture sweep raises
at its next progress tick, a tenth of a second later, so fio and sysstat are still stopped.
"""

from __future__ import annotations

import contextlib
import sys
from types import FrameType
from typing import Callable, Iterator


def inside_an_import(frame: FrameType | None) -> bool:
    """True when Python's import machinery is on the stack above ``frame``."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def catching_dropped(kind: type[BaseException], callback: Callable[[BaseException], None]) -> Iterator[None]:
    """While inside, an exception of ``kind`` that Python would drop as unraisable goes to
    ``callback`` instead of being printed and forgotten; others go to the previous hook."""
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, kind):
            callback(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def caused_by(exc: BaseException | None, kind: type[BaseException]) -> bool:
    """True when ``exc`` is a ``kind``, or was raised from or while handling one."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False

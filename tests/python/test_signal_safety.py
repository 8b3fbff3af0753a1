"""Signal handlers whose exception Python could lose (iopscope.signal_safety), and the capture
sweep's interrupt guard built on them."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from iopscope.capture.sweep import Interrupted, interrupt_guard, raise_pending
from iopscope.signal_safety import caused_by, inside_an_import


def _sigterm_myself() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    sum(range(1000))   # the handler runs at the next bytecodes: here


class _SendsSigtermWhenDeleted:
    def __del__(self):
        _sigterm_myself()


def test_inside_an_import_is_seen_from_a_module_body(tmp_path, monkeypatch):
    (tmp_path / "records_where_it_runs.py").write_text(
        "import sys\nfrom iopscope.signal_safety import inside_an_import\n"
        "SEEN = inside_an_import(sys._getframe())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import records_where_it_runs

    assert records_where_it_runs.SEEN is True
    assert inside_an_import(sys._getframe()) is False


def test_caused_by_follows_causes_and_contexts():
    try:
        try:
            raise KeyError("inner")
        except KeyError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as outer:
        assert caused_by(outer, KeyError) and not caused_by(outer, ValueError)


def test_guard_raises_at_once_where_it_can():
    with pytest.raises(Interrupted, match="SIGTERM"):
        with interrupt_guard():
            _sigterm_myself()
            pytest.fail("went on after SIGTERM")


def test_guard_keeps_a_signal_that_lands_in_a_destructor_for_the_next_tick():
    with interrupt_guard() as info:
        _SendsSigtermWhenDeleted()   # Python would print "Exception ignored" and forget it
        assert info == {"signal": "SIGTERM", "pending": True}
        with pytest.raises(Interrupted, match="SIGTERM"):
            raise_pending(info)
        raise_pending(info)          # raised once only
        _sigterm_myself()            # a repeat during the cleanup is ignored


def test_guard_keeps_a_signal_that_lands_in_an_import(tmp_path, monkeypatch):
    (tmp_path / "sigterm_on_import.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\nsum(range(1000))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with interrupt_guard() as info:
        import sigterm_on_import  # noqa: F401

        assert info["pending"] is True
        with pytest.raises(Interrupted):
            raise_pending(info)

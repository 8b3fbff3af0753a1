"""Shared pytest helpers: where fixtures and the shared corpus live."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

# Several tests press Ctrl-C (SIGINT) on a child process and expect what a user at a terminal
# sees. A shell starts a background job (`cmd &`, `nohup ... &`) with SIGINT ignored, an exec
# keeps "ignored", and Python then installs no KeyboardInterrupt handler: the children would
# never see the key and the tests would hang. A handled signal is reset to the default on exec,
# so restoring Python's own handler here gives every child the terminal's behaviour.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = Path(os.environ.get("IOPSCOPE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


@pytest.fixture
def tmp_lake(tmp_path):
    return tmp_path / "lake"


def requires_corpus():
    return pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(),
                              reason=f"shared corpus not found at {CORPUS}")

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

# Under pytest-xdist (`make test-python` runs two workers) every worker gets its own dbt target
# and log folders: dbt writes its parse cache, manifest and compiled SQL there, and two dbt
# processes of one project writing the same folder at once could read each other's half-written
# files. Tests that name their own folders (DBT_TARGET_PATH in their env) still do.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER:
    os.environ.setdefault("DBT_TARGET_PATH", str(ROOT / "target" / f"pytest-{_WORKER}"))
    os.environ.setdefault("DBT_LOG_PATH", str(ROOT / "logs" / f"pytest-{_WORKER}"))
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = Path(os.environ.get("IOPSCOPE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


@pytest.fixture
def tmp_lake(tmp_path):
    return tmp_path / "lake"


def requires_corpus():
    return pytest.mark.skipif(not (CORPUS / "MANIFEST.tsv").is_file(),
                              reason=f"shared corpus not found at {CORPUS}")

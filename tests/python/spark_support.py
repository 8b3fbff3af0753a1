"""What the Spark tests need (Java 17 and .venv-spark), as pytest marks that skip with the reason."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import ROOT

SPARK_BIN = ROOT / ".venv-spark" / "bin"


def spark_marks(program: str) -> list:
    """Marks for a Spark test module that runs ``.venv-spark/bin/<program>``."""
    return [
        pytest.mark.spark,
        pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
                           reason="Spark needs Java 17: apt-get install openjdk-17-jre-headless (make test does)"),
        pytest.mark.skipif(not (SPARK_BIN / program).exists(), reason="no .venv-spark: run `make spark-deps`"),
    ]

"""Every sysstat parser reads a two-digit banner year the same way (``_sysstat_values.year``).

sysstat prints its banner date with ``%x`` (``11/21/99`` in the C locale) and never reads it
back; the reading that matches the C library's ``%y`` is 69-99 -> 19xx, 00-68 -> 20xx. iostat
once read ``99`` as 1999 while mpstat and sar read it as 2099: the same banner, two centuries.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from iopscope.parsers import iostat_text, mpstat_text, sar_cpu
from iopscope.parsers._sysstat_values import year


def _with_year(text: str, yy: str) -> str:
    """The capture's banner (and, for iostat -t, its report stamps) dated 11/21/<yy>."""
    assert "11/21/26" in text.split("\n", 1)[0]
    return text.replace("11/21/26", f"11/21/{yy}")


def _years(module, text: str) -> set[int]:
    result = module.parse(text)
    table = "iostat_device_samples" if module is iostat_text else "cpu_samples"
    return {row["sampled_at"].year for row in result.tables[table] if row["sampled_at"] is not None}


SOURCES = [
    (iostat_text, FIXTURES / "iostat" / "iostat-12.6.1" / "x-t-1-3.txt"),
    (mpstat_text, FIXTURES / "mpstat" / "mpstat-12.6.1" / "mpstat_P_ALL.txt"),
    (sar_cpu, FIXTURES / "sar" / "sar-12.6.1" / "sar_u.txt"),
]


@pytest.mark.parametrize("yy, expected", [("99", 1999), ("69", 1969), ("68", 2068), ("26", 2026), ("00", 2000)])
def test_a_two_digit_banner_year_reads_the_same_in_every_sysstat_parser(yy, expected):
    for module, path in SOURCES:
        text = path.read_text(encoding="utf-8")
        assert _years(module, _with_year(text, yy)) == {expected}, f"{module.NAME} read 11/21/{yy}"


def test_the_year_rule_is_the_c_librarys():
    assert [year(t) for t in ("69", "99", "00", "68", "1999", "2068")] == [1969, 1999, 2000, 2068, 1999, 2068]

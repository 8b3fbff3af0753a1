"""Unit conversions that are easy to get backwards."""

from iopscope.units import fio_option_size_bytes, fio_seconds, fio_size_bytes, to_float


def test_fio_option_sizes_follow_kb_base_1024_compatibility_mode():
    # fio's default kb_base=1024: k/m are powers of two, kib/mib powers of ten (fio docs, fio 3.33).
    assert fio_option_size_bytes("8k") == 8192
    assert fio_option_size_bytes("1m") == 1048576
    assert fio_option_size_bytes("16MiB") == 16_000_000
    assert fio_option_size_bytes("4096") == 4096
    assert fio_option_size_bytes("75%") is None


def test_fio_printed_sizes_are_powers_of_two():
    assert fio_size_bytes("64.0KiB") == 65536
    assert fio_size_bytes("4096B") == 4096
    assert fio_size_bytes("4K") == 4096


def test_time_and_numbers():
    assert fio_seconds("5m") == 300 and fio_seconds("250ms") == 0.25 and fio_seconds("x") is None
    assert to_float("nan") is None and to_float("inf") is None and to_float("1.5") == 1.5

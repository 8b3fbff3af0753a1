"""Manifest validation: errors name the file, the key and what was expected."""

from __future__ import annotations

import pytest

from iopscope.manifest import ManifestError, parse_manifest


def test_minimal_manifest():
    m = parse_manifest('run_id = "r1"\n', "x/run.toml")
    assert m.run_id == "r1" and m.get("host", "cpu_model") is None


def test_full_manifest_types():
    m = parse_manifest("""
run_id = "r2"
kind = "measured"
started_at = 2026-11-21T13:40:00Z
tags = ["a", "b"]
[host]
logical_cpus = 2
nominal_ghz = 2
[[devices]]
kernel_name = "sda"
role = "log"
[db]
server = "MySQL"
[db.parameters]
innodb_buffer_pool_size = "3G"
innodb_flush_log_at_trx_commit = 1
[[files]]
path = "out.txt"
format = "fio_json"
""", "run.toml")
    assert m.get("host", "nominal_ghz") == 2.0
    assert m.files["out.txt"]["format"] == "fio_json"
    assert m.get("db", "parameters")["innodb_flush_log_at_trx_commit"] == 1


@pytest.mark.parametrize("text, key, expected", [
    ('run_id = 5', "run_id", "a string"),
    ('run_id = "r"\n[host]\nlogical_cpus = "two"', "host.logical_cpus", "an integer"),
    ('run_id = "r"\n[[devices]]\nrole = "cache"', "devices[0].role", "one of data, log"),
    ('run_id = "r"\nstarted = 2026-01-01', "started", "one of the known keys"),
    ('kind = "measured"', "run_id", "a non-empty string"),
    ('run_id = "r"\nstarted_at = "yesterday"', "started_at", "a TOML date-time"),
    ('run_id = "r" oops', "(syntax)", "valid TOML"),
])
def test_errors_name_file_key_and_expectation(text, key, expected):
    with pytest.raises(ManifestError) as info:
        parse_manifest(text, "data/raw/x/run.toml")
    message = str(info.value)
    assert message.startswith("data/raw/x/run.toml: key '" + key + "'"), message
    assert expected in message

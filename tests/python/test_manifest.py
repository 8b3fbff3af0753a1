"""Manifest validation: errors name the file, the key and what was expected."""

from __future__ import annotations

import pytest

import re

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
    assert re.match(r"data/raw/x/run\.toml(:\d+)?: key '" + re.escape(key) + "'", message), message
    assert expected in message


def test_every_bad_key_is_reported_at_once_with_its_line():
    text = """run_id = "r"
startd = 2026-01-01
[host]
logical_cpus = "two"
cpu_model = "x"
[[devices]]
role = "data"
[[devices]]
kernel_name = "sdb"
role = "cache"
modle = "x"
[[files]]
format = "fio_json"
"""
    with pytest.raises(ManifestError) as info:
        parse_manifest(text, "r/run.toml")
    found = [(p.key, p.line) for p in info.value.problems]
    assert found == [("startd", 2), ("host.logical_cpus", 4), ("devices[1].role", 10),
                     ("devices[1].modle", 11), ("files[0].path", 12)]
    lines = str(info.value).splitlines()
    assert len(lines) == 5 and lines[1].startswith("r/run.toml:4: key 'host.logical_cpus': expected an integer")


def test_syntax_error_names_its_line():
    with pytest.raises(ManifestError) as info:
        parse_manifest('run_id = "r"\n\nkind = = 3\n', "run.toml")
    assert info.value.problems[0].line == 3

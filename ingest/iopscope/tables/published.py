"""Published reference data: vendor studies transcribed to CSV (``data/raw/published/``).

One lake table per CSV of the transcription (``published_<csv name>``), read by the parser
``published_reference``. Column names and values are the CSV's own (long layout, one number per
row, units in the column name or the ``unit`` column); empty cells are null ("not stated").
Derived figures (ratios, percentage differences) are not here: the warehouse computes them.

Two CSV columns are renamed because their names are SQL keywords: ``array`` ->
``array_layout`` (io_results) and ``limit`` -> ``limit_name`` (stop_conditions).

Every row has ``csv_line`` (1-based line of the row in the CSV) next to the ingest's provenance
columns, and the CSV's own ``source`` column (document + table / figure / text line).

The tables of printed figures (tpcc_results, tpcc_timeseries, io_results, sqlserver_results) also
keep each figure as printed: ``value_text`` is the CSV cell verbatim and ``value_resolution`` one
unit of its last significant printed digit (``7366.55`` -> 0.01, ``0.4`` -> 0.1, ``3.0`` -> 0.1,
``23868`` -> 1). The warehouse derives each figure's low / high bounds from it (half a unit either
side, docs/warehouse.md#honest-precision). Chart dumps carry binary floating-point tails
(``342.5369999999997``): a text with more than 12 significant digits is read at 12 significant
digits with trailing zeros dropped (``342.537`` -> 0.001), the precision the chart's number had.
"""

from iopscope.tables import Table, cols

_LINE = (("csv_line", "int64", "1-based line of the row in the CSV file"),)
_SOURCE = (("source", "string", "Document and table / figure / text section the value was read from"),)
# The printed form of a figure's `value` (kept next to it, filled by the parser from the same cell).
_PRINTED = (
    ("value_text", "string", "The value's CSV cell verbatim: the figure as printed (its digits give its precision)"),
    ("value_resolution", "float64",
     "One unit of the value's last significant printed digit (7366.55 -> 0.01, 23868 -> 1); float tails of "
     "chart dumps (342.5369999999997) are read at 12 significant digits (-> 0.001)"),
)

TABLES = {
    "published_studies": Table(
        "published_studies",
        "One row per published study: title, publisher, date as printed, benchmark tool, documents.",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("title", "string", ""),
            ("publisher", "string", ""),
            ("published", "string", "Publication date exactly as printed (formats differ)"),
            ("benchmark_tool", "string", "What the study says it ran"),
            ("doc_file", "string", "Source document file name(s), ';'-separated"),
            ("notes", "string", "Edition, version and test-scale facts"),
        ),
    ),
    "published_hosts": Table(
        "published_hosts",
        "Servers of the published studies (database server, load generator, system under test).",
        cols(
            *_LINE,
            ("host_id", "string", ""),
            ("study_id", "string", ""),
            ("role", "string", "database_server | load_generator | system_under_test"),
            ("vendor_model", "string", ""),
            ("cpu_model", "string", ""),
            ("cpu_ghz", "float64", "Nominal clock of the CPU model, GHz"),
            ("sockets", "int64", ""),
            ("cores", "int64", "Physical cores of the whole machine"),
            ("threads", "int64", "Logical CPUs of the whole machine"),
            ("memory_gb", "float64", "Memory as printed, GB"),
            ("os", "string", ""),
            ("notes", "string", "What was printed and how it was read"),
        ),
    ),
    "published_devices": Table(
        "published_devices",
        "Drives of the published studies, one per model and capacity, with spec-sheet figures.",
        cols(
            *_LINE,
            ("device_id", "string", ""),
            ("vendor", "string", ""),
            ("model", "string", ""),
            ("media", "string", "hdd | ssd"),
            ("interface", "string", "sata | sas | nvme | pcie"),
            ("form_factor", "string", ""),
            ("capacity_gb", "float64", "Decimal GB as printed"),
            ("rpm", "int64", ""),
            ("spec_seq_read_mb_s", "float64", "Spec-sheet sequential read, MB/s (Samsung 002 Table 4)"),
            ("spec_seq_write_mb_s", "float64", "Spec-sheet sequential write, MB/s (Samsung 002 Table 4)"),
            ("spec_rand_read_iops", "float64", "Spec-sheet random read IOPS (Samsung 002 Table 4)"),
            ("spec_rand_write_iops", "float64", "Spec-sheet random write IOPS (Samsung 002 Table 4)"),
            ("price_usd", "float64", "Price per drive, USD (Samsung 002 Table 4)"),
            ("dwpd", "float64", "Endurance: drive writes per day"),
            ("endurance_years", "float64", "Years the DWPD rating covers"),
            ("nand", "string", ""),
            *_SOURCE,
            ("notes", "string", ""),
        ),
    ),
    "published_db_configs": Table(
        "published_db_configs",
        "Database server settings in long form: one row per configuration and parameter, verbatim.",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("config_id", "string", ""),
            ("server", "string", ""),
            ("server_version", "string", ""),
            ("parameter", "string", ""),
            ("value", "string", "Verbatim as printed (quotes, placeholders kept)"),
            ("inherited", "bool", "True when the cell was blank and the parent column's value was filled in"),
            ("inherited_from", "string", "Configuration the value was inherited from"),
            ("section", "string", "Comment line the parameter sits under in the appendix"),
            *_SOURCE,
            ("note", "string", "Printed form, AMBIGUOUS / CONFLICT flags"),
        ),
    ),
    "published_tpcc_results": Table(
        "published_tpcc_results",
        "TPC-C-style summary figures of the studies, one number per row (long layout).",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("host_id", "string", ""),
            ("device_id", "string", ""),
            ("db_config_id", "string", ""),
            ("db_server", "string", "Server with version"),
            ("warehouses", "int64", ""),
            ("connections", "int64", "Null when the study does not state it"),
            ("buffer_pool_gb", "float64", "InnoDB buffer pool, GB"),
            ("page_size_kb", "int64", "InnoDB page size, KiB (Percona sweep only)"),
            ("metric", "string", "new_order_tpm | p95_new_order_ms | max_new_order_ms | cpu_user_sys_pct | ..."),
            ("value", "float64", "Null for failed tests"),
            *_PRINTED,
            ("unit", "string", ""),
            ("status", "string", "ok | failed"),
            ("approx", "bool", "True for hedged or rounded prose figures"),
            *_SOURCE,
            ("note", "string", ""),
        ),
    ),
    "published_tpcc_timeseries": Table(
        "published_tpcc_timeseries",
        "Published TPC-C time series (chart data): one value per series and time point.",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("host_id", "string", ""),
            ("device_id", "string", ""),
            ("db_config_id", "string", ""),
            ("connections", "int64", ""),
            ("t_s", "int64", "Seconds since the start of the test"),
            ("metric", "string", "new_order_per_min | p95_new_order_ms"),
            ("value", "float64", ""),
            *_PRINTED,
            ("series_label", "string", "The chart's own series name"),
            *_SOURCE,
        ),
    ),
    "published_io_profiles": Table(
        "published_io_profiles",
        "Load profiles of the published IO tests (access pattern, read share, block size).",
        cols(
            *_LINE,
            ("profile_id", "string", ""),
            ("name", "string", ""),
            ("access", "string", "random | sequential"),
            ("read_pct", "float64", ""),
            ("write_pct", "float64", ""),
            ("block_kb", "float64", "Block size, KiB"),
            ("application", "string", ""),
            *_SOURCE,
            ("note", "string", ""),
        ),
    ),
    "published_io_results": Table(
        "published_io_results",
        "Published IO results (Fujitsu): maxima, minimum latencies and prose figures.",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("host_id", "string", ""),
            ("device_id", "string", ""),
            ("array_layout", "string", "CSV column 'array': single | raid1_x2 | raid0_x2 | raid0_x4 | independent_x4 | partitions_x4 | ..."),
            ("profile_id", "string", ""),
            ("outstanding_ios", "int64", "Per SSD; null for maxima over all loads and 'highest load'"),
            ("measurement_area", "string", "Hot-spot size, e.g. 32GB"),
            ("cpu_setting", "string", ""),
            ("metric", "string", "iops | mb_per_s (MiB/s: base-2 MB) | min_read_latency_ms | min_write_latency_ms"),
            ("value", "float64", ""),
            *_PRINTED,
            ("approx", "bool", "True for prose figures"),
            ("qualifier", "string", "The hedge word as printed (about, up to, ...)"),
            *_SOURCE,
            ("note", "string", ""),
        ),
    ),
    "published_sqlserver_results": Table(
        "published_sqlserver_results",
        "Published SQL Server OLTP results (Micron): New Orders per Minute per storage configuration.",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("host_id", "string", ""),
            ("config", "string", "Storage configuration id"),
            ("device_id", "string", ""),
            ("device_count", "int64", ""),
            ("layout", "string", ""),
            ("metric", "string", "nopm"),
            ("value", "float64", "Null when not reported"),
            *_PRINTED,
            ("approx", "bool", ""),
            ("qualifier", "string", ""),
            ("status", "string", "ok | not_reported"),
            *_SOURCE,
            ("note", "string", ""),
        ),
    ),
    "published_stop_conditions": Table(
        "published_stop_conditions",
        "Stop conditions of a published load sweep (Micron Tables 1 and 2).",
        cols(
            *_LINE,
            ("study_id", "string", ""),
            ("limit_name", "string", "CSV column 'limit': what is limited"),
            ("threshold", "float64", "Null for non-numeric conditions"),
            ("unit", "string", "%, ms, s"),
            ("applies_to", "string", "Configurations or transaction type"),
            *_SOURCE,
            ("note", "string", ""),
        ),
    ),
}

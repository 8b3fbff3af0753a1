"""tpcc-mysql (``tpcc_start``) result tables: one run row, its interval lines, its per-type totals.

Layout choice: ``tpcc_intervals`` is *wide* (one row per printed interval line, one group of
columns per transaction type) because every generation of tpcc_start prints all five types on
one line, and a wide row keeps "New-Order count and p99 of interval N" a single-row lookup.
Columns a generation does not print are null (e.g. ``*_late_count`` exists only in 2011-2012
output, ``new_order_p95_ms`` only from 2016 on).

Response times are milliseconds as tpcc_start prints them. The database password that
tpcc_start echoes (``[pass]:`` and ``option p``) is never stored in any table.
"""

from iopscope.tables import Table, cols

TX_TYPES = ("new_order", "payment", "order_status", "delivery", "stock_level")
TX_NAMES = ("New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level")


def _per_type_columns() -> tuple:
    specs = []
    for key, name in zip(TX_TYPES, TX_NAMES):
        specs += [
            (f"{key}_count", "int64", f"{name} transactions finished in the interval (on time + late)"),
            (f"{key}_late_count", "int64", f"{name}: of those, late (2011-2012 output only)"),
            (f"{key}_rt90_ms", "float64", f"{name} 90th percentile response time (2011-2012 and Feb 2016 output)"),
            (f"{key}_avg_ms", "float64", f"{name} mean response time (forks that print it)"),
            (f"{key}_max_ms", "float64", f"{name} maximum response time in the interval"),
        ]
    return tuple(specs)


def _per_type_percentiles() -> tuple:
    """Percentile columns go-tpc prints per type and interval (New-Order's p95/p99/p99.9 are
    the columns tpcc-mysql fills too)."""
    specs = []
    for key, name in zip(TX_TYPES, TX_NAMES):
        pcts = ("50", "90") if key == "new_order" else ("50", "90", "95", "99", "999")
        for pct in pcts:
            label = "99.9" if pct == "999" else pct
            specs.append((f"{key}_p{pct}_ms", "float64", f"{name} {label}th percentile in the interval (go-tpc)"))
    return tuple(specs)


KIT_COLUMN = ("kit", "string", "TPC-C kit that wrote the file: tpcc-mysql | go-tpc | hammerdb (null: tpcc-mysql, "
                               "files ingested before the column existed)")


TABLES = {
    "tpcc_runs": Table(
        "tpcc_runs",
        "One row per tpcc_start output file: parameters (never the password), TpmC printed and "
        "recomputed, and how far the run got.",
        cols(
            KIT_COLUMN,
            ("output_generation", "string",
             "current (2016-02 on: trx/95%/99%) | 2016-02 (short-lived Feb 2016 lines) | "
             "2011-2012 (count(late):rt90|max) | pre-2011 (count(late):rt90) | null when no interval line"),
            ("output_variant", "string",
             "Exact interval-line shape, e.g. trx-p95-p99, trx-95-99-nopct, trx-p95-p99-p999, "
             "trx-max, rt90-max, late-rt90-max, late-rt90"),
            ("status", "string", "complete | incomplete | failed (same as the file's ingest status)"),
            ("last_phase", "string",
             "Last section the output reached: header | parameters | rampup | measuring | stopping | "
             "raw_results | raw_results2 | constraint_check | tpmc"),
            ("server_host", "string", "[server]: null when printed blank (socket connection) or absent"),
            ("port", "int64", "[port]: printed for every non-local run, even when a socket is used"),
            ("socket_path", "string", "-S option (socket) when printed"),
            ("db_name", "string", "[DBname]"),
            ("db_user", "string", "[user]"),
            ("warehouses", "int64", "[warehouse]"),
            ("connections", "int64", "[connection]: client threads"),
            ("rampup_s", "int64", "[rampup]: ramp-up time asked for"),
            ("measure_s", "int64", "[measure]: measure time asked for"),
            ("report_interval_s", "int64", "Report interval (-i); see report_interval_source"),
            ("report_interval_source", "string",
             "option (-i was printed) | intervals (inferred from interval lines) | default (10 s, tpcc_start's default)"),
            ("options_json", "string", "Every 'option X with value' line as JSON {letter: value}, without -p"),
            ("start_time_text", "string", "Fork-only 'Local Start TIME:' line, verbatim"),
            ("started_at", "timestamp", "start_time_text parsed, when it has a known layout (local time, no zone)"),
            ("interval_count", "int64", "Interval lines read (ramp-up lines of forks included)"),
            ("interval_new_order_count", "int64", "Sum of new_order_count over measured interval lines"),
            ("interval_tpmc", "float64",
             "New-Order per minute from the interval lines: sum(count) x 60 / sum(interval_s), measured "
             "intervals only. The only throughput of a run cut short"),
            ("measured_s", "int64",
             "Seconds the run measured: 'in N sec.' when printed and the measured interval lines cover it (within "
             "one interval), else the seconds those lines cover (an aborted or cut run: never the planned time)"),
            ("tpmc_printed", "float64", "The <TpmC> value as printed (null when absent, nan or inf)"),
            ("tpmc_recomputed", "float64", "(New-Order sc + lt from Raw Results) x 60 / measured_s"),
            ("tpmc_mismatch", "bool",
             "True when printed and recomputed TpmC differ by more than float32 rounding and 3 decimals; "
             "null when either is missing"),
            ("threads_stopped", "int64", "Dots after STOPPING THREADS: threads that ended (equals connections when all did)"),
            ("mysql_error_count", "int64", "MySQL error lines ('errno, SQLSTATE, message') in the output"),
            ("summary_p95_ms", "float64", "Fork-only percentile line after <TpmC> (p95 / 95%), as printed"),
            ("summary_p99_ms", "float64", "Fork-only percentile line after <TpmC> (p99 / 99%)"),
            ("summary_p999_ms", "float64", "Fork-only percentile line after <TpmC> (p999 / 99.9%)"),
            ("extra_fields_json", "string", "Fork-only 'label: value' lines outside the upstream layout, as JSON"),
            ("efficiency_pct", "float64", "go-tpc: the 'efficiency' printed after tpmC (tpmC over 12.86 x warehouses)"),
            ("error_txn_count", "int64", "go-tpc: transactions that failed (sum of the *_ERR summary counts)"),
            ("engine_tpm_printed", "float64",
             "HammerDB: TPM, the database engine's own commits + rollbacks per minute. Engine-specific: "
             "never compared across engines (tpmc_printed holds the NOPM)"),
            ("engine_tpm_name", "string", "HammerDB: the engine TPM is counted by (MySQL, PostgreSQL, SQL Server ...)"),
        ),
    ),
    "tpcc_intervals": Table(
        "tpcc_intervals",
        "One row per tpcc_start interval line. Counts per interval; response times in ms.",
        cols(
            ("interval_index", "int64", "0-based order of the line in the file"),
            ("elapsed_s", "float64", "Seconds since MEASURING START as printed (can exceed 4 digits)"),
            ("interval_s", "float64", "Seconds the line covers: difference from the previous line's elapsed_s"),
            ("is_rampup_mixed", "bool",
             "First measured interval: its response times (percentiles, max) include ramp-up samples, "
             "because tpcc_start records latencies before counting starts"),
            ("is_rampup", "bool", "Forks that print intervals during ramp-up: True for those lines (not measured)"),
            ("new_order_p95_ms", "float64", "New-Order 95th percentile in the interval (current output)"),
            ("new_order_p99_ms", "float64", "New-Order 99th percentile (current output)"),
            ("new_order_p999_ms", "float64", "New-Order 99.9th percentile (forks that print 99.9%)"),
            *_per_type_columns(),
            *_per_type_percentiles(),
            ("extra_fields_json", "string", "Fields a fork adds that are not columns here, as JSON {label: text}"),
        ),
    ),
    "tpcc_tx_summaries": Table(
        "tpcc_tx_summaries",
        "One row per transaction type: <Raw Results>, <Raw Results2(sum ver.)> and <Constraint Check>. "
        "[NG] verdicts are normal (default late limits are compared against ms) and do not mean failure.",
        cols(
            ("tx_index", "int64", "0..4 as printed in [i]"),
            ("tx_type", "string", "New-Order | Payment | Order-Status | Delivery | Stock-Level"),
            ("success_count", "int64", "sc: finished within the limit"),
            ("late_count", "int64", "lt: finished, over the limit"),
            ("retry_count", "int64", "rt: retries"),
            ("failure_count", "int64", "fl: gave up after the retries"),
            ("avg_rt_ms", "float64",
             "avg_rt as printed (current output): total response time since start, ramp-up included, "
             "over the measured count, so it overstates the mean. Null for nan / inf"),
            ("rt_limit_ms", "int64", "Late limit: the (N) after avg_rt, or option 0..4"),
            ("sum_success_count", "int64", "Raw Results2 (per-thread sums): sc"),
            ("sum_late_count", "int64", "Raw Results2: lt"),
            ("sum_retry_count", "int64", "Raw Results2: rt"),
            ("sum_failure_count", "int64", "Raw Results2: fl"),
            ("mix_pct", "float64", "Constraint Check, transaction percentage (null for New-Order, nan)"),
            ("mix_min_pct", "float64", "The (>=N%) the share is checked against"),
            ("mix_verdict", "string", "OK | NG"),
            ("rt_passed_pct", "float64", "Constraint Check, response time: share on time (null for nan)"),
            ("rt_verdict", "string", "OK | NG (NG is the normal case with default limits)"),
            ("rt90_ms", "float64", "<90th Percentile RT (MaxRT)> block of older builds"),
            ("max_rt_ms", "float64", "The (MaxRT) of that block; go-tpc: Max(ms) of the [Summary] line"),
            ("elapsed_s", "float64", "go-tpc: Takes(s), the seconds the [Summary] line covers"),
            ("tpm_printed", "float64", "go-tpc: TPM of the [Summary] line (this type per minute)"),
            ("p50_ms", "float64", "go-tpc: 50th percentile response time"),
            ("p90_ms", "float64", "go-tpc: 90th percentile"),
            ("p95_ms", "float64", "go-tpc: 95th percentile"),
            ("p99_ms", "float64", "go-tpc: 99th percentile"),
            ("p999_ms", "float64", "go-tpc: 99.9th percentile"),
            ("failure_avg_rt_ms", "float64", "go-tpc: Avg(ms) of the type's _ERR line (failed transactions)"),
            ("failure_max_rt_ms", "float64", "go-tpc: Max(ms) of the type's _ERR line"),
            ("min_rt_ms", "float64", "HammerDB time profile: MIN, fastest call"),
            ("time_share_pct", "float64",
             "HammerDB time profile: RATIO, share of the virtual users' elapsed time spent in this transaction"),
        ),
    ),
}

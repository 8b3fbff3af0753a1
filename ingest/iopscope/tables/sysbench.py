"""sysbench 1.0.x result tables: one run row, its interval reports, its latency histogram.

fileio runs also write fio_jobs rows (tool = 'sysbench') so they sit beside fio results; these
tables keep what only sysbench prints (OLTP transactions and queries, thread fairness).
Latencies in milliseconds as sysbench prints them.
"""

from iopscope.tables import Table, cols

TABLES = {
    "sysbench_runs": Table(
        "sysbench_runs",
        "One row per sysbench run output: threads, totals and rates, latency, fairness, status.",
        cols(
            ("test", "string", "fileio <mode> (fileio prints its mode); null for OLTP scripts, which do not print their name"),
            ("status", "string", "complete | incomplete (no final statistics: killed or cut) | failed (FATAL)"),
            ("threads", "int64", "Number of threads"),
            ("report_interval_s", "int64", "--report-interval"),
            ("interval_count", "int64", "[ Ns ] reports read"),
            ("transactions", "int64", "OLTP: transactions"),
            ("tps", "float64", "OLTP: transactions per second as printed"),
            ("queries", "int64", "OLTP: queries"),
            ("qps", "float64", "OLTP: queries per second as printed"),
            ("reads", "int64", "OLTP: read queries"),
            ("writes", "int64", "OLTP: write queries"),
            ("other", "int64", "OLTP: other queries (BEGIN / COMMIT ...)"),
            ("queries_total", "int64", "OLTP: total of queries performed"),
            ("ignored_errors", "int64", "OLTP: ignored errors (deadlocks retried ...)"),
            ("reconnects", "int64", "OLTP: reconnects"),
            ("file_reads_per_s", "float64", "fileio: reads/s"),
            ("file_writes_per_s", "float64", "fileio: writes/s"),
            ("file_fsyncs_per_s", "float64", "fileio: fsyncs/s"),
            ("read_mib_per_s", "float64", "fileio: read, MiB/s"),
            ("write_mib_per_s", "float64", "fileio: written, MiB/s"),
            ("total_time_s", "float64", "total time"),
            ("events", "int64", "total number of events"),
            ("lat_min_ms", "float64", "Latency min (every event: a transaction, or a file operation)"),
            ("lat_avg_ms", "float64", "Latency avg"),
            ("lat_max_ms", "float64", "Latency max"),
            ("lat_pct", "float64", "The percentile printed (--percentile, 95 by default)"),
            ("lat_pct_ms", "float64", "That percentile's latency"),
            ("lat_sum_ms", "float64", "Latency sum"),
            ("fairness_events_avg", "float64", "Threads fairness: events per thread, mean"),
            ("fairness_events_stddev", "float64", "Threads fairness: events per thread, standard deviation"),
            ("fairness_exec_time_s_avg", "float64", "Threads fairness: execution time per thread, mean"),
            ("fairness_exec_time_s_stddev", "float64", "Threads fairness: execution time per thread, standard deviation"),
            ("histogram_bin_count", "int64", "--histogram lines read (sysbench_histogram_bins)"),
        ),
    ),
    "sysbench_intervals": Table(
        "sysbench_intervals",
        "One row per [ Ns ] interval report. Rates per second over the interval.",
        cols(
            ("interval_index", "int64", "0-based order in the file"),
            ("elapsed_s", "float64", "Seconds since the threads started, as printed"),
            ("threads", "int64", "OLTP: thds"),
            ("tps", "float64", "OLTP: transactions per second"),
            ("qps", "float64", "OLTP: queries per second"),
            ("reads_per_s", "float64", "OLTP: read queries per second (r of r/w/o)"),
            ("writes_per_s", "float64", "OLTP: write queries per second"),
            ("other_per_s", "float64", "OLTP: other queries per second"),
            ("errors_per_s", "float64", "OLTP: err/s"),
            ("reconnects_per_s", "float64", "OLTP: reconn/s"),
            ("read_mib_per_s", "float64", "fileio: reads MiB/s"),
            ("write_mib_per_s", "float64", "fileio: writes MiB/s"),
            ("fsyncs_per_s", "float64", "fileio: fsyncs/s"),
            ("lat_pct", "float64", "The percentile the line reports (95 by default)"),
            ("lat_pct_ms", "float64", "Its latency in the interval, ms"),
        ),
    ),
    "sysbench_histogram_bins": Table(
        "sysbench_histogram_bins",
        "--histogram: events whose latency fell in the bin (sysbench's own logarithmic bins).",
        cols(
            ("bin_index", "int64", "0-based order in the file"),
            ("value_ms", "float64", "Bin value as printed, ms"),
            ("event_count", "int64", "Events in the bin"),
        ),
    ),
}

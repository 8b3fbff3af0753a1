"""CPU utilisation samples from mpstat, sar -u, collectl and iostat's avg-cpu block."""

from iopscope.tables import Table, cols

TABLES = {
    "cpu_samples": Table(
        "cpu_samples",
        "One row per CPU (or 'all') per sample interval. Percentages of that CPU's time (0-100).",
        cols(
            ("sample_index", "int64", "0-based order of the sample in the file"),
            ("sampled_at", "timestamp", "End of the interval (UTC when the file gives a zone, else as printed)"),
            ("time_text", "string", "The timestamp exactly as printed"),
            ("elapsed_s", "float64", "Seconds since the first sample, when timestamps allow"),
            ("interval_s", "float64", "Length of the interval the sample covers, when known"),
            ("is_since_boot", "bool", "True for a since-boot average (exclude from means)"),
            ("source_block", "string", "mpstat | sar | collectl | iostat-avg-cpu"),
            ("cpu", "string", "'all' or the CPU number"),
            ("hostname", "string", ""),
            ("logical_cpus", "int64", "CPUs the tool says the host has"),
            ("user_pct", "float64", "usr (without nice)"),
            ("nice_pct", "float64", ""),
            ("system_pct", "float64", "sys (kernel), without irq/soft"),
            ("iowait_pct", "float64", ""),
            ("irq_pct", "float64", ""),
            ("softirq_pct", "float64", ""),
            ("steal_pct", "float64", ""),
            ("guest_pct", "float64", ""),
            ("gnice_pct", "float64", ""),
            ("idle_pct", "float64", ""),
            ("busy_pct", "float64", "100 - idle - iowait - steal: time the CPU did work"),
        ),
    ),
}

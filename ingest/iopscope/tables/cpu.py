"""CPU utilisation samples from mpstat, sar -u, collectl and iostat's avg-cpu block."""

from iopscope.tables import Table, cols

TABLES = {
    "cpu_samples": Table(
        "cpu_samples",
        "One row per CPU (or 'all') per sample interval. Percentages of that CPU's time (0-100); "
        "'all' is the mean over every online logical CPU (hardware thread) of the host.",
        cols(
            ("sample_index", "int64", "0-based order of the sample in the file"),
            ("sampled_at", "timestamp", "End of the interval (UTC when the file gives a zone, else as printed)"),
            ("time_text", "string", "The timestamp exactly as printed"),
            ("elapsed_s", "float64", "Seconds since the first sample, when timestamps allow"),
            ("interval_s", "float64", "Length of the interval the sample covers, when known"),
            ("is_since_boot", "bool", "True for a since-boot average (exclude from means); null when the file cannot tell"),
            ("source_block", "string", "mpstat | sar | collectl | iostat-avg-cpu"),
            ("cpu", "string", "'all' (mean over all online logical CPUs: 100 = every hardware thread busy) or the CPU number"),
            ("hostname", "string", ""),
            ("logical_cpus", "int64", "Logical CPUs the tool says the host has ('(N CPU)', number-of-cpus, NumCPUs)"),
            ("user_pct", "float64", "usr, without nice; without guest too, except sar -u and iostat (%user includes guest)"),
            ("nice_pct", "float64", ""),
            ("system_pct", "float64", "sys (kernel); without irq/soft where they are printed apart (mpstat, sar -u ALL, collectl), with them in sar -u and iostat avg-cpu (irq/softirq then null)"),
            ("iowait_pct", "float64", ""),
            ("irq_pct", "float64", ""),
            ("softirq_pct", "float64", ""),
            ("steal_pct", "float64", ""),
            ("guest_pct", "float64", ""),
            ("gnice_pct", "float64", ""),
            ("idle_pct", "float64", ""),
            ("busy_pct", "float64", "100 - idle - iowait - steal (missing ones as 0, clamped 0..100) = user+nice+system+irq+softirq+guest+gnice: time the CPU did work"),
        ),
    ),
}

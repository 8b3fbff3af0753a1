"""fio tables the JSON output has no counterpart for: job files, and text run-status groups.

``fio_job_options``       every option line of a job file, as written and as expanded
``fio_jobfile_jobs``      one row per job section with its effective options ([global] merged in)
``fio_run_status_groups`` the ``Run status group N (all jobs):`` lines of fio's text output

Job results themselves (text or JSON) land in ``fio_jobs`` / ``fio_percentiles`` / ``fio_disk_util``
(``tables/fio.py``).
"""

from iopscope.tables import Table, cols

TABLES = {
    "fio_job_options": Table(
        "fio_job_options",
        "fio job file options, one row per option line, in file order. Nothing is read from the "
        "real environment: ${VAR} and $ncpus-style keywords stay unexpanded unless given.",
        cols(
            ("section_index", "int64", "0-based order of the [section] in the file, [global] included"),
            ("section", "string", "Section name as written ('global' for [global])"),
            ("is_global", "bool", ""),
            ("job_index", "int64", "0-based order among job (non-global) sections; null for [global]"),
            ("group_index", "int64", "Reporting group fio gives the job (stonewall / new_group); null for [global]"),
            ("option_index", "int64", "0-based order of the option inside its section"),
            ("line", "int64", "1-based line in the job file"),
            ("option", "string", "Option name (include directives: 'include')"),
            ("value_raw", "string", "Value as written, comment stripped; null for a bare flag (time_based)"),
            ("value", "string", "Value with known ${VAR} and keywords substituted, expressions evaluated"),
            ("unresolved", "string", "Comma-separated variables / keywords left unexpanded (null when none)"),
            ("comment", "string", "Inline comment text after ';' or '#', when present"),
        ),
    ),
    "fio_jobfile_jobs": Table(
        "fio_jobfile_jobs",
        "One row per job section of a fio job file, with the options in effect ([global] above it, "
        "then its own). Column names follow fio_jobs.",
        cols(
            ("job_index", "int64", "0-based order among job sections"),
            ("section_index", "int64", ""),
            ("job_name", "string", "Section name: never trust it to describe the workload"),
            ("line", "int64", "1-based line of the [section] header"),
            ("group_index", "int64", "Reporting group: fio's groupid for this job"),
            ("rw", "string", ""),
            ("read_pct", "float64", "Share of reads asked for (rwmixread), when rw is known"),
            ("block_size", "string", "bs option (or bssplit) after expansion"),
            ("block_size_bytes", "int64", "When one size is used for reads"),
            ("ioengine", "string", ""),
            ("iodepth", "int64", ""),
            ("numjobs", "int64", ""),
            ("outstanding_ios", "int64", "iodepth x numjobs"),
            ("group_reporting", "bool", ""),
            ("direct", "bool", ""),
            ("size", "string", ""),
            ("filename", "string", "filename or directory"),
            ("time_based", "bool", ""),
            ("runtime_option_s", "float64", ""),
            ("ramp_time_s", "float64", ""),
            ("stonewall", "bool", ""),
            ("new_group", "bool", ""),
            ("job_options_json", "string", "Effective options (global then job), expanded, JSON"),
            ("unresolved", "string", "Variables / keywords left unexpanded in the effective options"),
        ),
    ),
    "fio_run_status_groups": Table(
        "fio_run_status_groups",
        "fio text output's per-group summary lines (all jobs of a reporting group, per direction).",
        cols(
            ("doc_index", "int64", "0-based index of the fio output inside the file"),
            ("group_id", "int64", ""),
            ("direction", "string", "read | write | trim | mixed"),
            ("io_bytes", "int64", "As printed (rounded to the printed digits)"),
            ("bw_bytes_per_s", "float64", "Aggregate bandwidth (aggrb= / bw=)"),
            ("bw_mib_per_s", "float64", ""),
            ("bw_min_bytes_per_s", "float64", "Slowest job of the group (minb=)"),
            ("bw_max_bytes_per_s", "float64", "Fastest job of the group (maxb=)"),
            ("runtime_min_ms", "int64", "mint= / first run= value"),
            ("runtime_max_ms", "int64", "maxt= / second run= value"),
        ),
    ),
}

"""iostat (sysstat) device samples, text and ``-o JSON``. CPU rows go to ``cpu_samples``.

Every column generation of ``iostat -x`` and plain ``iostat`` lands in one table: a column a
layout does not print is null. Throughputs are KiB/s whatever the file printed (sysstat's
"kB" is 1024 bytes; ``-m`` MB are 1024 kB; 512-byte sectors/blocks are halved); request sizes
keep the unit sysstat printed them in (``rareq-sz`` kB, ``avgrq-sz`` sectors), named in the column.
"""

from iopscope.tables import Table, cols

TABLES = {
    "iostat_device_samples": Table(
        "iostat_device_samples",
        "One row per device (or -g group) per iostat report. Throughputs in KiB/s, times in ms.",
        cols(
            ("sample_index", "int64", "0-based order of the report in the file"),
            ("segment_index", "int64", "0-based count of iostat banners before the report (one per iostat invocation in the file)"),
            ("sampled_at", "timestamp", "End of the interval: UTC when the file gives a zone, else as printed; a time-of-day only stamp is put on the banner date (midnight rollover handled)"),
            ("time_text", "string", "The timestamp exactly as printed (-t); null without -t"),
            ("elapsed_s", "float64", "Seconds since the first timestamped report of the file"),
            ("is_since_boot", "bool", "True for the first report after a banner when -y was not in effect: averages since boot, exclude from means"),
            ("device", "string", "Device name as printed (a -g group name without its leading space)"),
            ("is_group", "bool", "True for a -g group total row"),
            ("is_zero_filled", "bool", "True for a row iostat -z left out (no IO in the interval; a report "
             "with no active device has no device line at all): zeros in the device's columns, so that "
             "means over time count the idle interval. Null for printed rows"),
            ("layout", "string", "Header generation: x-legacy (<=11.4, avgrq-sz), x-11.5 (11.5-12.0, %rrqm rareq-sz), x-12.1 (discard d/s), x-12.5 (flush f/s), x-short (-x -s), basic (tps), basic-short (-s)"),
            ("unit_source", "string", "Unit the throughputs were printed in: kB | MB | sectors (512-byte sectors/blocks) | human (--human suffixes)"),
            ("r_per_s", "float64", "Read requests completed per second (r/s)"),
            ("w_per_s", "float64", "Write requests completed per second (w/s)"),
            ("d_per_s", "float64", "Discard requests completed per second (d/s, sysstat >= 12.1)"),
            ("f_per_s", "float64", "Flush requests completed per second (f/s, sysstat >= 12.5)"),
            ("read_kib_per_s", "float64", "rkB/s, rMB/s, rsec/s, kB_read/s ... in KiB/s"),
            ("write_kib_per_s", "float64", "wkB/s, wMB/s, wsec/s, kB_wrtn/s ... in KiB/s"),
            ("discard_kib_per_s", "float64", "dkB/s, dMB/s, kB_dscd/s ... in KiB/s"),
            ("total_kib_per_s", "float64", "kB/s of the short (-s -x) report: read + write + discard"),
            ("write_discard_kib_per_s", "float64", "kB_w+d/s of the short (-s) report"),
            ("rrqm_per_s", "float64", "Read requests merged per second"),
            ("wrqm_per_s", "float64", "Write requests merged per second"),
            ("drqm_per_s", "float64", "Discard requests merged per second"),
            ("rqm_per_s", "float64", "Requests merged per second (short report)"),
            ("rrqm_pct", "float64", "%rrqm: share of read requests merged"),
            ("wrqm_pct", "float64", "%wrqm"),
            ("drqm_pct", "float64", "%drqm"),
            ("r_await_ms", "float64", "Mean read request time (queue + service)"),
            ("w_await_ms", "float64", "Mean write request time"),
            ("d_await_ms", "float64", "Mean discard request time"),
            ("f_await_ms", "float64", "Mean flush request time"),
            ("await_ms", "float64", "Mean request time over all requests (legacy -x and short reports only)"),
            ("aqu_sz", "float64", "Average queue length (aqu-sz, formerly avgqu-sz)"),
            ("rareq_sz_kib", "float64", "Mean read request size (rareq-sz), KiB"),
            ("wareq_sz_kib", "float64", "Mean write request size, KiB"),
            ("dareq_sz_kib", "float64", "Mean discard request size, KiB"),
            ("areq_sz_kib", "float64", "Mean request size of the short report (areq-sz), KiB"),
            ("avgrq_sz_sectors", "float64", "Mean request size of the legacy report (avgrq-sz), 512-byte sectors"),
            ("svctm_ms", "float64", "svctm (deprecated by sysstat, removed in 12.1): do not trust"),
            ("util_pct", "float64", "%util: share of time the device had IO in flight (a group: mean over its devices)"),
            ("tps", "float64", "Transfers (IO requests) per second, plain report"),
            ("read_kib", "int64", "KiB read during the interval (since boot in a since-boot report), plain report"),
            ("write_kib", "int64", "KiB written during the interval, plain report"),
            ("discard_kib", "int64", "KiB discarded during the interval, plain report"),
            ("write_discard_kib", "int64", "kB_w+d of the short (-s) plain report"),
        ),
    ),
}

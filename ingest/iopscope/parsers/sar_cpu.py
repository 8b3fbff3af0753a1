"""sar CPU utilisation text (sysstat): ``sar -u``, ``sar -u ALL``, with or without ``-P ALL``.

Tables written
--------------
``cpu_samples``  one row per CPU (``cpu`` = the CPU number) or ``all`` per sample.
                 ``all`` is the mean over every online logical CPU (hardware thread).
                 ``source_block`` = ``sar``.

Columns: ``sar -u`` prints ``%user %nice %system %iowait %steal %idle``, where ``%user``
includes guest time and ``%system`` includes irq and softirq time (so ``irq_pct``,
``softirq_pct``, ``guest_pct`` stay null). ``sar -u ALL`` prints ``%usr %nice %sys %iowait
%steal %irq %soft %guest %gnice %idle`` with each part apart. Either way the printed columns
add up to 100 and ``busy_pct = 100 - idle - iowait - steal``.

Variants handled
----------------
* Live (``sar -u 1 10``) and file (``sar -u -f saDD``) output, 24 h and 12 h (AM/PM) times,
  midnight rollover, banner dates in any locale form, comma decimals (``de_DE``, ``fr_FR``),
  ``--dec=0|1``.
* ``LINUX RESTART (N CPU)`` lines: the CPU count is updated, the next sample's interval starts
  at the restart; ``facts['restarts']`` counts them.
* Other activities in the same output (``sar -u -r``, ``sar -A``): their sections are skipped
  with one warning. ``Average:`` blocks (also translated) are skipped: they repeat the samples.
* Rows whose percentages are all 0 (offline CPU, or the zero-length interval sar prints where
  two sadc runs meet in one file) are dropped with a warning.
* sar never prints a since-boot report: ``is_since_boot`` is always false.

Example
-------
>>> r = parse('''Linux 6.1.0 (db1) \\t2026-11-21 \\t_x86_64_\\t(4 CPU)
...
... 11:59:59 PM     CPU     %user     %nice   %system   %iowait    %steal     %idle
... 12:00:09 AM     all     10.00      0.00      5.00      2.00      0.00     83.00
... 12:00:19 AM     all     12.00      0.00      5.00      1.00      0.00     82.00
... Average:        all     11.00      0.00      5.00      1.50      0.00     82.50
... ''')
>>> [(str(x["sampled_at"]), x["interval_s"], x["busy_pct"]) for x in r.tables["cpu_samples"]]
[('2026-11-22 00:00:09', 10.0, 15.0), ('2026-11-22 00:00:19', 10.0, 17.0)]
"""

from __future__ import annotations

from iopscope.parsers._cpu_common import first_cpu_header, parse_sysstat_text
from iopscope.parsers.base import ParseResult

NAME = "sar_cpu"
VERSION = "1.0.0"
TOOL = "sar"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)


def detect(head: str, filename: str) -> float:
    kind = first_cpu_header(head)
    if kind == "sar":
        return 0.6 if "mpstat" in filename.lower() else 0.9
    return 0.0


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the samples (the reading is shared with mpstat_text: ``_cpu_common``)."""
    result = ParseResult(format=NAME)
    parse_sysstat_text(text, result, source_block="sar", since_boot_possible=False)
    return result

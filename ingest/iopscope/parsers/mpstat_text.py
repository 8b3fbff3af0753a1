"""mpstat text output (sysstat), e.g. ``mpstat -P ALL 1 60``.

Tables written
--------------
``cpu_samples``  one row per CPU (``cpu`` = the CPU number) or ``all`` per sample.
                 ``all`` is the mean over every online logical CPU (hardware thread): 100 %
                 busy means all of them were busy. ``source_block`` = ``mpstat``.

Percentages are copied as printed (``%usr`` -> ``user_pct``, ``%sys`` -> ``system_pct``,
``%soft`` -> ``softirq_pct`` ...). mpstat's ``%usr`` excludes guest time and ``%sys`` excludes
irq/softirq, so the ten columns add up to 100 and ``busy_pct = 100 - idle - iowait - steal``
equals ``usr + nice + sys + irq + soft + guest + gnice``.

Variants handled
----------------
* Banner ``Linux <release> (<host>) <date> _<arch>_ (<N> CPU)`` -> facts ``hostname``,
  ``kernel``, ``os``, ``arch``, ``logical_cpus``, ``date``; the date in any locale form
  (``11/21/26``, ``11/21/2026``, ``21.11.2026``, ``2026-11-21`` with ``S_TIME_FORMAT=ISO``).
* 24 h (``13:26:05``) and 12 h (``01:26:05 PM``) times; midnight rollover (a time more than
  12 h earlier than the previous one is the next day); ``sampled_at`` is naive local time.
* Comma decimals (``0,50``) as printed under ``LC_NUMERIC=de_DE.UTF-8`` and other locales
  (a file with decimal commas reads an ambiguous ``05/11/2026`` day first, as fr_FR writes
  it); ja_JP / zh_CN times and dates (``13時32分51秒``, ``2026年11月21日``); ``--dec=0|1``.
* Column names of every sysstat version (``%user``/``%usr``, ``%system``/``%sys``; no
  ``%steal``/``%guest``/``%gnice`` in old ones; a trailing ``intr/s``), matched by name.
* ``-T`` (CORE SOCK NODE columns, blank on ``all`` rows): values are read from the right.
* ``Average:`` blocks (also translated, e.g. ``Durchschn.:``) are skipped: they repeat the
  samples. Without any, the run was stopped early (``status`` incomplete, rows kept) unless
  the file is one since-boot report (``mpstat`` with no interval: ``is_since_boot``).
* ``-A`` / ``-I`` / ``-N`` sections (NODE, intr/s, per-IRQ, softirq) are skipped with one
  warning; rows whose percentages are all 0 (offline CPU) are dropped with a warning.
* ``interval_s`` comes from the time on the header line that precedes each sample.

Example
-------
>>> r = parse('''Linux 6.1.0 (db1) \\t11/21/26 \\t_x86_64_\\t(2 CPU)
...
... 13:26:04     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
... 13:26:05     all    2,00    0,00    1,00    0,50    0,00    0,00    0,00    0,00    0,00   96,50
... Average:     all    2,00    0,00    1,00    0,50    0,00    0,00    0,00    0,00    0,00   96,50
... ''')
>>> row = r.tables["cpu_samples"][0]
>>> (row["cpu"], row["user_pct"], row["busy_pct"], row["interval_s"], str(row["sampled_at"]))
('all', 2.0, 3.0, 1.0, '2026-11-21 13:26:05')
>>> r.facts["logical_cpus"], r.status
(2, 'complete')
"""

from __future__ import annotations

from iopscope.parsers._cpu_common import first_cpu_header, parse_sysstat_text
from iopscope.parsers.base import ParseResult

NAME = "mpstat_text"
VERSION = "1.0.0"
TOOL = "mpstat"
HAS_FAST_PATH = True  # fuzzing holds parse() to read_by_reference() (base.py)


def detect(head: str, filename: str) -> float:
    kind = first_cpu_header(head)
    if kind == "mpstat":
        return 0.9
    if kind == "sar" and "mpstat" in filename.lower():
        return 0.65  # an old mpstat whose columns look like sar's; the file name says mpstat
    return 0.0


def parse(text: str, *, filename: str | None = None) -> ParseResult:
    """Read the samples (the reading is shared with sar_cpu: ``_cpu_common``)."""
    result = ParseResult(format=NAME)
    parse_sysstat_text(text, result, source_block="mpstat", since_boot_possible=True)
    return result
